#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Side by side with Debian's in-tree padlock_aes on the same CPU model in the
# same VM (padlock-sim, or the project's QEMU): for each workload, the
# model's xcrypt instruction count (counters reset before each) and the wall
# time per request.  Asserted: ours never uses more instructions than
# in-tree.  Times are diagnostics only.
. "$(dirname "$0")/lib/ktap-lib.sh"
. "$(dirname "$0")/lib/aes-lib.sh"
. "$(dirname "$0")/lib/aes-ipsec-lib.sh"
CMP_PY="$(dirname "$0")/lib/aes_cmp_bench.py"

ktap_header
padlock_need_afalg_drivers
aes_have_ace || ktap_skip_all "no PadLock ACE unit on this CPU (profile $PADLOCK_PROFILE)"
[ -e "$PADLOCK_KO_DIR/padlock-aes.ko" ] || ktap_skip_all "padlock-aes.ko not built for $PADLOCK_KVER"
padlock_counters || ktap_skip_all "needs the instruction counters of padlock-sim or of the QEMU model"
modprobe -n -q padlock_aes 2>/dev/null || ktap_skip_all "no in-tree padlock_aes module for $PADLOCK_KVER"
modprobe -q algif_skcipher 2>/dev/null

# Debian's in-tree padlock_aes (seen on 5.10 and 6.1-686) keeps a value in
# eax across two xcrypt-ecb instructions without declaring it clobbered;
# padlock-sim scrambles rAX after ECB (rAX is undefined there) and the
# in-tree self-test then oopses ("absurd block count").  While the in-tree
# module is loaded the sim's ECB-rAX scrambling (clobber bit 0) is off;
# instruction counts do not depend on it.
SIM=/sys/kernel/debug/padlock-sim
CLOB=$SIM/clobber
clob_saved=$(cat $CLOB 2>/dev/null)
clobber_restore() {
	[ -n "$clob_saved" ] && [ -w $CLOB ] && echo "$clob_saved" > $CLOB
	return 0
}
clobber_ecb_rax_off() {
	[ -n "$clob_saved" ] && [ -w $CLOB ] && echo $((clob_saved & ~1)) > $CLOB
	return 0
}

N=${PADLOCK_AES_CMP_N:-10}
DM_MB=1
PINGS=20
if [ "$PADLOCK_SCALE" = long ]; then N=200; DM_MB=16; PINGS=200; fi
sizes="16 64 256 1024 4096 16384 65536"
# Where a CPU also has AES-NI (zhaoxin), aesni_intel outranks both PadLock
# drivers in the workloads that pick by priority (dm-crypt's essiv, IPsec):
# compare without it, and put it back afterwards.
AESNI_BLACKLIST=/etc/modprobe.d/padlock-cmp-aesni.conf
aesni_unloaded=0
if grep -qw aes /proc/cpuinfo; then
	echo "blacklist aesni_intel" > "$AESNI_BLACKLIST"
	if [ -d /sys/module/aesni_intel ]; then
		if ! modprobe -r aesni_intel 2>/dev/null; then
			rm -f "$AESNI_BLACKLIST"
			ktap_skip_all "aesni_intel is in use ($(cat /sys/module/aesni_intel/refcnt) users) and would outrank both PadLock drivers"
		fi
		aesni_unloaded=1
	fi
fi
work=$(mktemp -d)
DEV=/dev/ram0
loaded_brd=0
if [ ! -b $DEV ] && modprobe brd rd_nr=1 rd_size=65536 2>/dev/null; then
	loaded_brd=1
fi
modprobe -q dm_crypt 2>/dev/null

cleanup() {
	[ -e /dev/mapper/pl-cmp ] && { sync; dmsetup remove --retry pl-cmp; } > /dev/null 2>&1
	ipsec_down
	rm -rf "$work"
	aes_load_ours > /dev/null 2>&1
	clobber_restore
	aes_allow_intree_autoload
	rm -f "$AESNI_BLACKLIST"
	[ $aesni_unloaded = 1 ] && modprobe -q aesni_intel
	# no RAM disk left behind for the next program
	[ $loaded_brd = 1 ] && rmmod brd 2>/dev/null
	return 0
}
trap cleanup EXIT
aes_block_intree_autoload

# The dm-crypt workloads compare the two drivers on the same work, and only
# on it: DM_MB MiB of 4 KiB sectors written (or read) with O_DIRECT from
# dd's page-aligned buffer, that is DM_SECTORS requests of 256 AES blocks
# plus one block of IV or tweak each.  The simulator's counters are global,
# so whatever else ran an AES instruction or touched the device during the
# window (the page cache, readahead, a probe of the new device, a late
# write) would be counted as this driver's.  Each window is therefore
# checked against what dd alone does: AES blocks == DM_SECTORS * 257, and
# the device's sector counters moved by exactly DM_SECTORS * 8 in the
# measured direction and by 0 in the other.  A window that does not match
# is reported and measured again (at most 3 times); only a matching window
# is compared, so both drivers are measured on identical work.
DM_SECTORS=$((DM_MB * 256))
dm_stat() {	# read and written 512-byte sectors of the mapping so far
	local minor
	minor=$(dmsetup info -c --noheadings -o minor pl-cmp 2>/dev/null | tr -d ' ')
	awk '{ print $3, $7 }' "/sys/block/dm-$minor/stat" 2>/dev/null || echo "? ?"
}
dm_quiet() {	# nothing pending on the mapping or the RAM disk
	local i
	udevadm settle 2>/dev/null
	sync
	blockdev --flushbufs /dev/mapper/pl-cmp 2>/dev/null
	for i in $(seq 1 50); do
		[ "$(tr -s ' ' < "/sys/block/dm-$(dmsetup info -c --noheadings -o minor pl-cmp | tr -d ' ')/inflight")" = " 0 0" ] && break
		sleep 0.1
	done
}
dm_measure() {	# IMPL SPEC write|read: prints "dm-SPEC-4k-DIR instructions us_per_sector"
	local impl=$1 spec=$2 dir=$3 try r0 w0 r1 w1 x0 x1 b0 b1 t0 t1 want_r want_w
	local want_b=$((DM_SECTORS * 257))
	if [ "$dir" = write ]; then
		want_r=0 want_w=$((DM_SECTORS * 8))
	else
		want_r=$((DM_SECTORS * 8)) want_w=0
	fi
	for try in 1 2 3; do
		[ $try = 1 ] || sleep 2	# let whatever else ran finish
		dm_quiet
		read -r r0 w0 < <(dm_stat)
		aes_sim_reset
		x0=$(aes_xcrypt_total)
		b0=$(sim_counter aes_blocks)
		t0=$(date +%s%N)
		if [ "$dir" = write ]; then
			dd if=/dev/zero of=/dev/mapper/pl-cmp bs=4096 count=$DM_SECTORS oflag=direct status=none
		else
			dd if=/dev/mapper/pl-cmp of=/dev/null bs=4096 count=$DM_SECTORS iflag=direct status=none
		fi || { ktap_diag "$impl: dm-crypt $spec $dir failed"; return; }
		t1=$(date +%s%N)
		x1=$(( $(aes_xcrypt_total) - x0 ))
		b1=$(( $(sim_counter aes_blocks) - ${b0:-0} ))
		read -r r1 w1 < <(dm_stat)
		if [ "$b1" = "$want_b" ] && [ $((r1 - r0)) = "$want_r" ] &&
		   [ $((w1 - w0)) = "$want_w" ]; then
			echo "dm-$spec-4k-$dir $x1 $(( (t1 - t0) / 1000 / DM_SECTORS ))"
			return
		fi
		ktap_diag "$impl: dm-crypt $spec $dir window $try was not dd's work alone: $x1 instructions, $b1 AES blocks (dd: $want_b), device sectors read $((r1 - r0)) written $((w1 - w0)) (dd: $want_r/$want_w); xcrypt instructions $(aes_xcrypt_total), interruptions $(sim_counter interrupts)"
	done
	ktap_diag "$impl: dm-crypt $spec $dir: no window with dd's work alone in 3 tries: not compared"
	echo "dm-$spec-4k-$dir unclean 0"
}

# measure IMPL: fills $work/IMPL with "workload instructions us_per_request"
measure() {
	local impl=$1 mode line sz cnt us ins blk key spec x0 t0 t1 x1 secs
	local out="$work/$impl"
	: > "$out"
	# AF_ALG: the output buffer is page-aligned in every run (where it lies
	# decides how a request is cut at page ends), and the window must hold
	# exactly the requests' blocks
	for mode in ecb cbc; do
		python3 "$CMP_PY" "$mode-aes-padlock" $mode "$N" $sizes > "$work/bench" 2>&1 ||
			ktap_diag "$(cat "$work/bench")"
		while IFS=, read -r sz cnt us ins blk; do
			case "$sz" in [0-9]*) ;; *) continue ;; esac
			if [ "$blk" != $((cnt * sz / 16)) ]; then
				ktap_diag "$impl: afalg-$mode-$sz: $blk AES blocks, the requests have $((cnt * sz / 16)): not compared"
				ins=unclean
			fi
			echo "afalg-$mode-$sz $ins $us" >> "$out"
		done < "$work/bench"
	done
	if [ -b $DEV ] && command -v dmsetup > /dev/null; then
		for spec in cbc-essiv xts; do
			case $spec in
			cbc-essiv)
				key=$(head -c 32 /dev/urandom | xxd -p -c 64)
				# dm-crypt's essiv takes no driver names: by priority
				c="capi:cbc(aes)-essiv:sha256" ;;
			xts)
				key=$(head -c 64 /dev/urandom | xxd -p -c 64)
				if [ "$impl" = ours ]; then
					c="capi:xts-aes-padlock-plain64"
				else
					c="capi:xts(ecb-aes-padlock)-plain64"
				fi ;;
			esac
			dmsetup create --noudevsync pl-cmp --table "0 65536 crypt $c $key 0 $DEV 0 1 sector_size:4096" || continue
			dmsetup mknodes pl-cmp
			ktap_diag "$impl: dm-crypt $c -> $(aes_driver_for "${spec%%-*}(aes)") (refcnt $(aes_refcnt "${spec%%-*}-aes-padlock"))"
			dd if=/dev/zero of=/dev/mapper/pl-cmp bs=4096 count=16 oflag=direct status=none
			for dir in write read; do
				dm_measure "$impl" "$spec" "$dir" >> "$out"
			done
			sync
			dmsetup remove --retry pl-cmp > /dev/null 2>&1
		done
	fi
	if ipsec_modules && ipsec_up "cbc(aes)"; then
		ktap_diag "$impl: IPsec cbc(aes) -> $(aes_driver_for 'cbc(aes)')"
		ip netns exec pl-a ping -c 2 -q 10.77.2.2 > /dev/null 2>&1
		aes_sim_reset
		x0=$(aes_xcrypt_total)
		t0=$(date +%s%N)
		ip netns exec pl-a ping -c $PINGS -i 0.01 -s 1372 -M do -q 10.77.2.2 > /dev/null 2>&1
		t1=$(date +%s%N)
		x1=$(aes_xcrypt_total)
		echo "ipsec-cbc-1400B-ping $((x1 - x0)) $(( (t1 - t0) / 1000 / PINGS ))" >> "$out"
		ipsec_down
	fi
}

for impl in intree ours; do
	if [ $impl = ours ]; then
		aes_load_ours
		clobber_restore
	else
		clobber_ecb_rax_off
		[ -n "$clob_saved" ] &&
			ktap_diag "in-tree runs with padlock-sim clobber=$(cat $CLOB 2>/dev/null) (was $clob_saved)"
		if [ "$PADLOCK_PROFILE" = nano-s2 ] && [ -d "$SIM" ]; then
			# its registration self-tests run before it enables the
			# stepping-2 fetch sizes (sim-intree.sh shows that bug):
			# those over-reads are expected and executed; the
			# measured workloads below run strict again.
			echo 1 > "$SIM/expect_violations"
			echo 1 > "$SIM/exec_on_violation"
		fi
		aes_load_intree
		if [ "$PADLOCK_PROFILE" = nano-s2 ] && [ -d "$SIM" ]; then
			# 6.12+ run the self-tests after registration
			for i in $(seq 1 60); do
				grep -A12 -E '^driver *: (ecb|cbc)-aes-padlock$' /proc/crypto |
					grep -q 'selftest *: unknown' || break
				sleep 1
			done
			echo 0 > "$SIM/expect_violations"
			echo 0 > "$SIM/exec_on_violation"
		fi
	fi
	if [ "$(aes_which)" != $impl ]; then
		ktap_fail "load the $impl padlock_aes"
		ktap_finish
	fi
	sleep 2
	measure $impl
done

printf '# %-26s %12s %12s %14s %14s\n' workload "in-tree ins" "ours ins" "in-tree us/req" "ours us/req"
fails=0
while read -r w ins us; do
	read -r _ oins ous < <(grep "^$w " "$work/ours")
	printf '# %-26s %12s %12s %14s %14s\n' "$w" "$ins" "${oins:-?}" "$us" "${ous:-?}"
	# "unclean": no window with exactly the workload's own work (see
	# dm_measure); not comparable, so not a pass either
	case "$oins/$ins" in
	*[!0-9/]*|/*|*/)
		fails=$((fails + 1))
		ktap_diag "$w: ours ${oins:-not measured}, in-tree $ins instructions: not compared on the same work" ;;
	*)
		if [ "$oins" -gt "$ins" ] || [ "$ins" = 0 ]; then
			fails=$((fails + 1))
			ktap_diag "$w: ours $oins, in-tree $ins instructions"
		fi ;;
	esac
done < "$work/intree"
n=$(wc -l < "$work/intree")
# every workload of ours must have been measured for in-tree too
while read -r w _; do
	grep -q "^$w " "$work/intree" || { fails=$((fails + 1)); ktap_diag "$w: not measured for in-tree"; }
done < "$work/ours"
if [ "$n" -gt 0 ] && [ $fails = 0 ]; then
	ktap_pass "ours uses no more PadLock instructions than in-tree on all $n workloads"
else
	ktap_fail "ours uses no more PadLock instructions than in-tree ($fails of $n workloads worse)"
fi
ktap_finish
