#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dm-crypt on a RAM disk through padlock-aes: aes-xts-plain64 and
# aes-cbc-essiv:sha256 with 512-byte and 4 KiB sectors (make check: xts
# with 512, cbc-essiv with 4 KiB; PADLOCK_SCALE=long: all four pairs),
# plain tables (drivers pinned with capi: specs) and LUKS2.  Data written
# through our driver reads back identically through the kernel's generic
# AES (with our module unloaded) and the reverse; the table and /proc/crypto
# prove which driver ran; unloading is refused while a mapping uses the
# module.
. "$(dirname "$0")/lib/ktap-lib.sh"
. "$(dirname "$0")/lib/aes-lib.sh"

ktap_header
aes_have_ace || ktap_skip_all "no PadLock ACE unit on this CPU (profile $PADLOCK_PROFILE)"
[ -e "$PADLOCK_KO_DIR/padlock-aes.ko" ] || ktap_skip_all "padlock-aes.ko not built for $PADLOCK_KVER"
command -v dmsetup > /dev/null || ktap_skip_all "dmsetup not installed"
modprobe dm_crypt 2>/dev/null || ktap_skip_all "no dm_crypt module"

DEV=/dev/ram0
loaded_brd=0
if [ ! -b $DEV ]; then
	modprobe brd rd_nr=1 rd_size=65536 || ktap_skip_all "no brd module"
	loaded_brd=1
fi
[ -b $DEV ] || ktap_skip_all "no $DEV"
sectors=$(blockdev --getsz $DEV)
[ "$sectors" -ge 65536 ] || ktap_skip_all "$DEV is smaller than 32 MiB ($sectors sectors)"

work=$(mktemp -d)
MB=${PADLOCK_AES_DM_MB:-2}
[ "$PADLOCK_SCALE" = long ] && MB=24
head -c $((MB * 1024 * 1024)) /dev/urandom > "$work/data"
gen=$(aes_generic)

cleanup() {
	local n
	for n in pl-ours pl-gen pl-luks; do
		[ -e /dev/mapper/$n ] && { sync; dmsetup remove --retry $n; } > /dev/null 2>&1
	done
	rm -rf "$work"
	aes_allow_intree_autoload
	# leave no RAM disk behind for the next program (padlock-bench wants
	# its own size)
	[ $loaded_brd = 1 ] && rmmod brd 2>/dev/null
	return 0
}
trap cleanup EXIT
aes_block_intree_autoload

# dm_map NAME CIPHERSPEC HEXKEY [OPTS]: a crypt mapping over the RAM disk
dm_map() {
	local opt=
	[ -n "$4" ] && opt=" 1 $4"
	dmsetup create --noudevsync "$1" --table "0 $((sectors - sectors % 8)) crypt $2 $3 0 $DEV 0$opt" &&
		dmsetup mknodes "$1" && [ -b "/dev/mapper/$1" ]
}

dm_unmap() {
	sync
	dmsetup remove --retry "$1" > /dev/null 2>&1
}

# dm_write/dm_read NAME: the test data through the mapping, direct I/O, 4 KiB
dm_write() {
	dd if="$work/data" of="/dev/mapper/$1" bs=4096 oflag=direct conv=fsync status=none
}

dm_read_same() {
	dd if="/dev/mapper/$1" bs=4096 iflag=direct count=$((MB * 256)) status=none |
		cmp -s - "$work/data"
}

# cipher spec and sector size: every pair at the long scale; in make check
# each spec and each size once (4 KiB sectors change the IVs and the
# request sizes dm-crypt sends, whatever the cipher)
pairs="xts-plain64/512 cbc-essiv:sha256/4096"
[ "$PADLOCK_SCALE" = long ] && pairs="xts-plain64/512 xts-plain64/4096 cbc-essiv:sha256/512 cbc-essiv:sha256/4096"
for pair in $pairs; do
	spec=${pair%/*} ss=${pair#*/}
	case $spec in
	xts-plain64)
		key=$(head -c 64 /dev/urandom | xxd -p -c 64)
		ours="capi:xts-aes-padlock-plain64"
		generic="capi:xts(ecb($gen))-plain64"
		drv=xts-aes-padlock
		;;
	*)
		key=$(head -c 32 /dev/urandom | xxd -p -c 64)
		# dm-crypt's essiv refuses driver names inside capi: (ENOENT even
		# for cbc(aes-generic) on 6.1): select by priority, with our module
		# loaded or not, and check /proc/crypto for which driver ran
		ours="capi:cbc(aes)-essiv:sha256"
		generic="capi:cbc(aes)-essiv:sha256"
		drv=cbc-aes-padlock
		;;
	esac
	opt=
	[ $ss = 4096 ] && opt=sector_size:4096
	tag="aes-$spec ${ss}-byte sectors"

	# ours writes ...
	aes_load_ours || { ktap_fail "$tag: load padlock-aes"; continue; }
	aes_sim_reset
	x0=$(aes_xcrypt_total)
	if dm_map pl-ours "$ours" "$key" $opt && dm_write pl-ours; then
		ktap_pass "$tag: write through $drv"
	else
		ktap_fail "$tag: write through $drv"
		dm_unmap pl-ours
		continue
	fi
	table=$(dmsetup table pl-ours)
	ref=$(aes_refcnt $drv)
	x1=$(aes_xcrypt_total)
	ktap_diag "table: ${table//$key/KEY}" "$drv refcnt $ref, sim xcrypt instructions $((x1 - x0))"
	if [[ "$table" == *"$ours"* ]] && [ "${ref:-0}" -ge 1 ] &&
	   { [ ! -d /sys/module/padlock_sim ] || [ $((x1 - x0)) -gt 0 ]; }; then
		ktap_pass "$tag: table, /proc/crypto and the sim show $drv ran"
	else
		ktap_fail "$tag: table, /proc/crypto and the sim show $drv ran"
	fi
	if [ $ss = 512 ] && [ $spec = xts-plain64 ]; then
		if ! rmmod padlock_aes 2>/dev/null && [ "$(aes_which)" = ours ]; then
			ktap_pass "unload refused while a dm-crypt mapping uses padlock-aes"
		else
			ktap_fail "unload refused while a dm-crypt mapping uses padlock-aes"
		fi
	fi
	if dm_read_same pl-ours; then
		ktap_pass "$tag: reads back through $drv"
	else
		ktap_fail "$tag: reads back through $drv"
	fi
	dm_unmap pl-ours
	if dd if=$DEV bs=4096 count=$((MB * 256)) status=none | cmp -s - "$work/data"; then
		ktap_fail "$tag: the disk holds ciphertext"
	else
		ktap_pass "$tag: the disk holds ciphertext"
	fi

	# ... generic reads (our module unloaded), then writes ...
	if ! aes_unload; then
		ktap_fail "$tag: unload padlock-aes after unmapping"
		continue
	fi
	if dm_map pl-gen "$generic" "$key" $opt && dm_read_same pl-gen; then
		ktap_pass "$tag: $generic without padlock-aes reads what $drv wrote"
	else
		ktap_fail "$tag: $generic without padlock-aes reads what $drv wrote"
	fi
	ktap_diag "without padlock-aes: ${drv%%-*}(aes) -> $(aes_driver_for "${drv%%-*}(aes)"), aes -> $(aes_driver_for aes)"
	dd if=/dev/zero of=/dev/mapper/pl-gen bs=1M count=$MB oflag=direct status=none
	dm_write pl-gen
	dm_unmap pl-gen

	# ... and ours reads what generic wrote
	aes_load_ours
	if dm_map pl-ours "$ours" "$key" $opt && dm_read_same pl-ours &&
	   [ "$(aes_refcnt $drv)" -ge 1 ]; then
		ktap_pass "$tag: $drv reads what $generic without padlock-aes wrote"
	else
		ktap_fail "$tag: $drv reads what $generic without padlock-aes wrote"
	fi
	dm_unmap pl-ours
done

# LUKS2: cra_names only; /proc/crypto shows ours is used
if command -v cryptsetup > /dev/null; then
	head -c 32 /dev/urandom > "$work/key"
	for c in aes-xts-plain64:512:xts-aes-padlock aes-cbc-essiv:sha256:256:cbc-aes-padlock; do
		cipher=${c%:*:*}
		rest=${c#"$cipher":}
		ks=${rest%%:*}
		drv=${rest#*:}
		aes_load_ours
		if ! cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 \
			--cipher "$cipher" --key-size "$ks" --key-file "$work/key" $DEV > "$work/log" 2>&1; then
			ktap_diag "$(cat "$work/log")"
			ktap_fail "LUKS2 $cipher: format"
			continue
		fi
		r0=$(aes_refcnt $drv)
		cryptsetup open --key-file "$work/key" $DEV pl-luks > "$work/log" 2>&1
		r1=$(aes_refcnt $drv)
		if [ -b /dev/mapper/pl-luks ] && [ "${r1:-0}" -gt "${r0:-0}" ]; then
			ktap_pass "LUKS2 $cipher: open uses $drv (refcnt $r0 -> $r1)"
		else
			ktap_diag "$(cat "$work/log")" "$(dmsetup table pl-luks 2>&1 | sed 's/ [0-9a-f]\{32,\} / KEY /')"
			ktap_fail "LUKS2 $cipher: open uses $drv (refcnt $r0 -> $r1)"
		fi
		dm_write pl-luks
		same=no
		dm_read_same pl-luks && same=yes
		dm_unmap pl-luks
		# the read-back without padlock-aes: the unload must succeed, the
		# module stay out (the in-tree one's autoload is blocked) and the
		# simulated engine run no xcrypt while the volume is read
		unloaded=no
		aes_unload && unloaded=yes
		cryptsetup open --key-file "$work/key" $DEV pl-luks > "$work/log" 2>&1
		x0=$(aes_xcrypt_total)
		back=no
		dm_read_same pl-luks && back=yes
		x1=$(aes_xcrypt_total)
		mod=$(aes_which)
		if [ $same = yes ] && [ $unloaded = yes ] && [ "$mod" = none ] && [ $back = yes ] &&
		   [ "$x1" = "$x0" ]; then
			ktap_pass "LUKS2 $cipher: written by $drv, read back by $drv and without padlock-aes"
		else
			ktap_fail "LUKS2 $cipher: written by $drv, read back by $drv ($same) and without padlock-aes (unloaded $unloaded, padlock_aes now $mod, read back $back, xcrypt during the read $((x1 - x0)))"
		fi
		ktap_diag "without padlock-aes: $(echo "$cipher" | cut -d- -f2)(aes) -> $(aes_driver_for "$(echo "$cipher" | cut -d- -f2)(aes)"), table cipher $(dmsetup table pl-luks 2>/dev/null | awk '{print $4}')"
		dm_unmap pl-luks
	done
else
	ktap_skip "LUKS2" "cryptsetup not installed"
fi

aes_load_ours
ktap_finish
