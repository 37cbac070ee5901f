#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Which in-kernel users of the crypto API reach PadLock on this kernel.
# Each user does its real operation with the real tool: dm-crypt
# (aes-xts-plain64, aes-cbc-essiv:sha256; dmsetup), IPsec ESP (cbc(aes) +
# hmac(sha256); ip xfrm, ping), dm-integrity with hmac(sha256)
# (integritysetup), fscrypt on ext4 (a v2 policy, AES-256-XTS contents,
# AES-256-CTS filenames, HKDF-SHA512 key derivation), encrypted keys
# (keyctl: a user master key, an encrypted key made and loaded back) and
# AF_ALG (libkcapi's kcapi-enc and kcapi-dgst).  Around each operation a
# kprobe on the crypto API's algorithm lookup records which algorithms the
# user asked the API for, and padlock-sim's counters show whether PadLock
# ran.
#
# A user that asks the crypto API for an algorithm whose unit the CPU has
# must reach PadLock: the simulator's counters must move (ok / not ok).  A
# user that never asks (it calls the kernel's crypto library, e.g.
# sha256() or hmac_sha256_usingrawkey()) cannot reach any driver: a SKIP
# that says so.  So is an algorithm our modules have no unit for on this
# CPU (SHA-512 without Zhaoxin's PHE2), and a template over our driver that
# the kernel's own driver under the same name keeps from being built.  The
# last line sums it up, one word per user (docs/kernels.md, "Which kernel
# users reach PadLock").
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/ktap-lib.sh
. "$here/lib/ktap-lib.sh"
# shellcheck source=lib/aes-lib.sh
. "$here/lib/aes-lib.sh"
# shellcheck source=lib/aes-ipsec-lib.sh
. "$here/lib/aes-ipsec-lib.sh"
PY=(python3 "$here/lib/fscrypt_v2.py")

ktap_header
aes_have_ace || ktap_skip_all "no PadLock ACE unit on this CPU (profile $PADLOCK_PROFILE)"
[ -e "$PADLOCK_KO_DIR/padlock-aes.ko" ] || ktap_skip_all "padlock-aes.ko not built for $PADLOCK_KVER"

SIM=0 phe=0
# the instruction counters of padlock-sim or of the QEMU model
padlock_counters && SIM=1
SUMMARY=
work=$(mktemp -d)
LOOPS=()
TR=/sys/kernel/tracing
TR_EVENT=

cleanup() {
	local l
	for l in pl-route pl-integ; do
		[ -e /dev/mapper/$l ] && { sync; dmsetup remove --retry $l; } > /dev/null 2>&1
	done
	mountpoint -q "$work/mnt" 2>/dev/null && umount "$work/mnt"
	for l in "${LOOPS[@]}"; do losetup -d "$l" 2>/dev/null; done
	[ -n "$ROUTING_KEYRING" ] && keyctl unlink "$ROUTING_KEYRING" @u > /dev/null 2>&1
	ipsec_down
	trace_stop
	rm -rf "$work"
	# unload padlock-sha if this program loaded it.  Seen on 5.10: after
	# the namespaces are deleted, one reference to hmac-sha256-padlock
	# stays (the SAs' transform, still there 8 s later), and rmmod fails.
	if [ $phe = 1 ] && ! padlock_rmmod padlock_sha 2> /dev/null; then
		sleep 2
		padlock_rmmod padlock_sha 2> /dev/null ||
			echo "# padlock-sha stays loaded: in use ($(awk '$1 == "padlock_sha" { print $3 }' /proc/modules) references)"
	fi
	aes_allow_intree_autoload
	return 0
}
trap cleanup EXIT

# ---- which algorithms a user asks the crypto API for ----------------------
#
# Every allocation by name (crypto_alloc_skcipher/shash/ahash/aead, and the
# templates' inner algorithms) passes the name to crypto_alg_mod_lookup();
# a kprobe event records it.  trace_names lists the names since trace_mark.

trace_start() {
	local fn
	mountpoint -q "$TR" 2>/dev/null || mount -t tracefs nodev $TR 2>/dev/null
	[ -w "$TR"/kprobe_events ] || return 1
	# an int3 kprobe, never optimized into a jump: no second code patch
	# (cross-modifying code is where software-emulated guests have oopsed)
	KPROBE_OPT=$(cat /proc/sys/debug/kprobes-optimization 2>/dev/null)
	[ -n "$KPROBE_OPT" ] && echo 0 > /proc/sys/debug/kprobes-optimization
	for fn in crypto_alg_mod_lookup crypto_find_alg; do
		grep -q " $fn\$" /proc/kallsyms 2>/dev/null || continue
		echo "p:padlock_routing/lookup $fn name=+0(\$arg1):string" >> "$TR"/kprobe_events 2>/dev/null || continue
		echo 1 > "$TR"/events/padlock_routing/lookup/enable && TR_EVENT=$fn && return 0
	done
	[ -n "$KPROBE_OPT" ] && echo "$KPROBE_OPT" > /proc/sys/debug/kprobes-optimization
	return 1
}

trace_stop() {
	[ -n "$TR_EVENT" ] || return 0
	echo 0 > "$TR"/events/padlock_routing/lookup/enable
	echo "-:padlock_routing/lookup" >> "$TR"/kprobe_events
	[ -n "$KPROBE_OPT" ] && echo "$KPROBE_OPT" > /proc/sys/debug/kprobes-optimization
	TR_EVENT=
}

trace_mark() {
	[ -n "$TR_EVENT" ] && echo > "$TR"/trace
	return 0
}

trace_names() {
	[ -n "$TR_EVENT" ] || return 0
	sed -n 's/.* name="\([^"]*\)".*/\1/p' "$TR"/trace | sort -u | tr '\n' ' '
}

# ---- the judgement ---------------------------------------------------------

# counters: xcrypt and xsha instructions so far ("0 0" without the simulator)
counters() { echo "$(aes_xcrypt_total) $(xsha_total)"; }

# phase: start measuring one user's operation (counters, seconds); the
# names asked are collected from the last trace_mark on
phase() {
	PHASE_C=$(counters)
	PHASE_T=$SECONDS
}

# shadow NAME: a driver of the kernel's own registered under NAME itself
# (not a template instance, not ours), e.g. 7.3's cts-cbc-aes-lib for
# cts(cbc(aes)), which a cts template over our cbc(aes) could not beat.  The
# lookup finds it before a template over our driver is ever instantiated.
shadow() {
	awk -v n="$1" -F' *: ' '
		$1 == "name" { name = $2 }
		$1 == "driver" && name == n && $2 !~ /[(]/ && $2 !~ /padlock/ { print $2; exit }' /proc/crypto
}

# route KEY DESC NAME OURS UNIT MIN [OPFAIL]: judge one user after its
# operation (since `phase`; the names it asked for since `trace_mark`).
#   KEY    the word in the summary line
#   NAME   the algorithm the user asks the crypto API for
#   OURS   our driver that serves NAME itself (hmac-sha256-padlock for
#          hmac(sha256)) or sits inside its instance (cbc-aes-padlock in
#          essiv(cbc(aes),sha256))
#   UNIT   xcrypt or xsha: the simulator's counter that must move
#   MIN    how far at least: one instruction per request the operation
#          makes, so that a self-test of a new instance (a few vectors)
#          cannot pass for the operation
#   OPFAIL a reason when the operation itself failed
# Expected to reach PadLock: the user asked for NAME and the CPU has the
# unit (our driver of the plain algorithm is registered: sha256-padlock for
# hmac-sha256-padlock).  Then OURS must serve NAME, with one exception: an
# instance over OURS cannot, where the kernel registers a driver of its
# own under NAME itself (no template is built then).
route() {
	local key=$1 desc=$2 name=$3 ours=$4 unit=$5 min=$6 opfail=$7
	local x0 s0 x1 s1 n drv sh asked base own parts i
	read -r x0 s0 <<< "$PHASE_C"
	read -r x1 s1 <<< "$(counters)"
	if [ "$unit" = xcrypt ]; then n=$((x1 - x0)); else n=$((s1 - s0)); fi
	asked=$(trace_names)
	drv=$(aes_driver_for "$name")
	base=${ours#hmac-}
	# the name OURS is registered under: xts-aes-padlock -> xts(aes),
	# cts-cbc-aes-padlock -> cts(cbc(aes))
	own=${ours%-padlock}
	IFS=- read -ra parts <<< "$own"
	own=${parts[-1]}
	for ((i = ${#parts[@]} - 2; i >= 0; i--)); do
		own="${parts[i]}($own)"
	done
	ktap_diag "$key: asked the crypto API for: ${asked:-nothing}; $name -> ${drv:-no instance}; $unit +$n ($((SECONDS - PHASE_T)) s)"
	if [ -n "$opfail" ]; then
		ktap_fail "$desc: $opfail"
		SUMMARY+=" $key=error"
	elif [ -n "$TR_EVENT" ] && [[ " $asked " != *" $name "* ]]; then
		ktap_skip "$desc" "cannot reach PadLock: the kernel never asked the crypto API for $name, it calls its crypto library directly ($unit +$n)"
		SUMMARY+=" $key=library"
	elif ! grep -q "^driver *: $base\$" /proc/crypto; then
		ktap_skip "$desc" "cannot reach PadLock on this CPU (profile $PADLOCK_PROFILE): no $base, our modules have no unit for it; $name runs on ${drv:-nothing}"
		SUMMARY+=" $key=${drv:-none}"
	elif [[ "$drv" != *"$ours"* ]] && [ "$own" != "$name" ] && sh=$(shadow "$name") && [ -n "$sh" ]; then
		ktap_skip "$desc" "cannot reach PadLock: the kernel registers its own $sh under $name, which the lookup finds before a template over $ours is ever built; our modules register no $name"
		SUMMARY+=" $key=$sh"
	elif [[ "$drv" != *"$ours"* ]]; then
		ktap_fail "$desc: $name on ${drv:-nothing}, not $ours"
		SUMMARY+=" $key=NOT-padlock(${drv:-none})"
	elif [ $SIM = 0 ]; then
		ktap_pass "$desc: $name on $drv (no simulator: instructions not counted)"
		SUMMARY+=" $key=padlock"
	elif [ "$n" -ge "$min" ]; then
		ktap_pass "$desc: $name on $drv, $n $unit instructions (at least $min)"
		SUMMARY+=" $key=padlock"
	else
		ktap_fail "$desc: $name on $drv, but $n $unit instructions, not at least $min"
		SUMMARY+=" $key=NOT-padlock($unit+$n)"
	fi
}

# absent KEY DESC REASON: the kernel lacks the feature
absent() {
	ktap_skip "$2" "$3"
	SUMMARY+=" $1=absent"
}

# ---- set-up ----------------------------------------------------------------

aes_block_intree_autoload
aes_load_ours || { ktap_fail "load padlock-aes"; ktap_finish; }
grep -qw aes /proc/cpuinfo &&
	ktap_diag "this CPU has AES-NI too: padlock-aes loaded with priority=$(cat /sys/module/padlock_aes/parameters/priority 2>/dev/null) (by default it registers below AES-NI, and AES users get AES-NI)"
if grep -qw phe_en /proc/cpuinfo; then
	# ours may still be loaded by an earlier program (aes-ipsec.sh cannot
	# always unload it: see cleanup); the in-tree one is replaced
	if grep -q O /sys/module/padlock_sha/taint 2>/dev/null; then
		phe=2
	else
		padlock_rmmod padlock_sha
		padlock_insmod padlock-sha && phe=1 || ktap_fail "load padlock-sha"
	fi
else
	ktap_diag "profile $PADLOCK_PROFILE has no PHE hash engine: padlock-sha does not load, the hash users cannot reach PadLock"
fi
for m in loop dm_crypt dm_integrity algif_skcipher algif_hash af_alg ext4; do
	modprobe -q $m 2>/dev/null
done
trace_start || ktap_diag "no kprobe event on the crypto API's lookup: whether a user calls the library directly is not checked"
ktap_diag "$(uname -r) $PADLOCK_PROFILE: tracing the crypto API's lookups at ${TR_EVENT:-nothing}"
head -c 262144 /dev/urandom > "$work/data"

# newloop MiB: a loop device over a new file in $work, in $dev
newloop() {
	local f="$work/loop${#LOOPS[@]}.img"
	dev=
	truncate -s "$1M" "$f" && dev=$(losetup -f --show "$f") && [ -b "$dev" ] || return 1
	LOOPS+=("$dev")
}

# rw DEV: the test data through DEV, direct I/O, read back identical
rw() {
	dd if="$work/data" of="$1" bs=4096 oflag=direct conv=fsync status=none &&
		dd if="$1" bs=4096 count=64 iflag=direct status=none | cmp -s - "$work/data"
}

# ---- dm-crypt: by algorithm name, as cryptsetup maps LUKS --------------------

if command -v dmsetup > /dev/null && [ -d /sys/module/dm_crypt ] && newloop 4; then
	for spec in "xts aes-xts-plain64 64 xts(aes) xts-aes-padlock" \
		    "essiv aes-cbc-essiv:sha256 32 essiv(cbc(aes),sha256) cbc-aes-padlock"; do
		read -r k cipher klen name ours <<< "$spec"
		key=$(head -c "$klen" /dev/urandom | xxd -p -c 64)
		trace_mark
		phase
		err=
		if dmsetup create --noudevsync pl-route --table "0 8192 crypt $cipher $key 0 $dev 0" &&
		   dmsetup mknodes pl-route; then
			rw /dev/mapper/pl-route || err="write/read through $cipher failed"
		else
			err="dmsetup create $cipher failed"
		fi
		route "dm-crypt-$k" "dm-crypt $cipher" "$name" "$ours" xcrypt 1024 "$err"
		sync
		dmsetup remove --retry pl-route > /dev/null 2>&1
		dmsetup mknodes > /dev/null 2>&1
	done
else
	absent dm-crypt-xts "dm-crypt aes-xts-plain64" "no dmsetup, dm_crypt or loop device"
	absent dm-crypt-essiv "dm-crypt aes-cbc-essiv:sha256" "no dmsetup, dm_crypt or loop device"
fi

# ---- IPsec ESP: one SA pair, a few pings -------------------------------------

if command -v ip > /dev/null && ipsec_modules; then
	# measured from the SAs' creation on: loading xfrm/esp4 runs the
	# DRBG's self-tests, whose ctr(aes) is PadLock's too
	trace_mark
	err='' pk=0
	if ipsec_up "cbc(aes)" "hmac(sha256)"; then
		phase
		p0=$(ipsec_sa_packets)
		ip netns exec pl-a ping -c 3 -i 0.2 -W 5 -q 10.77.2.2 > /dev/null 2>&1 ||
			err="no ping through the tunnel"
		pk=$(($(ipsec_sa_packets) - p0))
		ktap_diag "ESP: $pk packets through pl-a's SAs, each encrypted and authenticated at one end, verified and decrypted at the other"
	else
		phase
		err="ESP tunnel not set up"
	fi
	route ipsec-cipher "IPsec ESP cipher" "authenc(hmac(sha256),cbc(aes))" cbc-aes-padlock xcrypt $((pk > 0 ? 2 * pk : 1)) "$err"
	route ipsec-auth "IPsec ESP authentication" "authenc(hmac(sha256),cbc(aes))" hmac-sha256-padlock xsha $((pk > 0 ? 2 * pk : 1)) "$err"
	ipsec_down
else
	absent ipsec-cipher "IPsec ESP cipher" "no iproute2 or veth/xfrm/esp4 modules"
	absent ipsec-auth "IPsec ESP authentication" "no iproute2 or veth/xfrm/esp4 modules"
fi

# ---- dm-integrity, standalone, hmac(sha256) tags ------------------------------

if ! command -v integritysetup > /dev/null || [ ! -d /sys/module/dm_integrity ]; then
	absent dm-integrity-hmac "dm-integrity hmac(sha256)" "no integritysetup (cryptsetup-bin) or dm_integrity module"
elif newloop 8; then
	head -c 32 /dev/urandom > "$work/ikey"
	iopt=(--integrity hmac-sha256 --integrity-key-file "$work/ikey" --integrity-key-size 32)
	err=
	# --no-wipe: only the blocks written below are read back
	integritysetup format -q --batch-mode --no-wipe --sector-size 4096 "${iopt[@]}" "$dev" \
		> "$work/log" 2>&1 || err="integritysetup format failed: $(tail -n1 "$work/log")"
	trace_mark
	phase
	if [ -z "$err" ]; then
		if integritysetup open "${iopt[@]}" "$dev" pl-integ > "$work/log" 2>&1; then
			rw /dev/mapper/pl-integ || err="write/read through dm-integrity failed"
		else
			err="integritysetup open failed: $(tail -n1 "$work/log")"
		fi
	fi
	route dm-integrity-hmac "dm-integrity hmac(sha256)" "hmac(sha256)" hmac-sha256-padlock xsha 128 "$err"
	integritysetup close pl-integ > /dev/null 2>&1
	dmsetup mknodes > /dev/null 2>&1
fi

# ---- fscrypt: ext4 with a v2 policy ------------------------------------------
#
# One trace over the three steps: fscrypt may allocate a transform in one
# step (the file's keys, when the file is created) and use it in the next.

if ! command -v mkfs.ext4 > /dev/null || [ ! -d /sys/fs/ext4 ]; then
	for k in hkdf names contents; do
		absent fscrypt-$k "fscrypt $k" "no mkfs.ext4 (e2fsprogs) or ext4"
	done
elif newloop 16 && mkfs.ext4 -q -F -O encrypt "$dev" > "$work/log" 2>&1 &&
     mkdir -p "$work/mnt" && mount -t ext4 "$dev" "$work/mnt"; then
	mkdir "$work/mnt/e"
	f="$work/mnt/e/a-file-name-longer-than-one-aes-block"
	trace_mark
	# the master key (HKDF-SHA512, hmac(sha512), derives its identifier),
	# then the policy on the directory
	phase
	err=
	out=$("${PY[@]}" "$work/mnt" "$work/mnt/e" 2>&1) || err="fscrypt ioctls: ${out//$'\n'/: }"
	if [[ "$err" == *"not supported"* || "$err" == *"Inappropriate ioctl"* ]]; then
		for k in hkdf names contents; do
			absent fscrypt-$k "fscrypt $k" "the kernel has no fscrypt ($err)"
		done
	else
		route fscrypt-hkdf "fscrypt HKDF-SHA512 (adding a master key)" "hmac(sha512)" hmac-sha512-padlock xsha 1 "$err"
		# empty files: only their names are encrypted (cts(cbc(aes))).  The
		# first one sets the directory's keys up (a new instance's
		# self-test may run then); eight more names are measured.
		[ -z "$err" ] && ! touch "$f" && err="create a file in the encrypted directory"
		phase
		if [ -z "$err" ]; then
			touch "$work"/mnt/e/another-file-name-{1..8} || err="create 8 files in the encrypted directory"
		fi
		route fscrypt-names "fscrypt AES-256-CTS filenames" "cts(cbc(aes))" cts-cbc-aes-padlock xcrypt 8 "$err"
		# contents: written, caches dropped, read back (xts(aes) both ways)
		phase
		if [ -z "$err" ] && ! { cp "$work/data" "$f" && sync && echo 3 > /proc/sys/vm/drop_caches &&
					 cmp -s "$f" "$work/data"; }; then
			err="write, drop caches, read back"
		fi
		route fscrypt-contents "fscrypt AES-256-XTS contents" "xts(aes)" xts-aes-padlock xcrypt 128 "$err"
	fi
	umount "$work/mnt"
else
	ktap_diag "$(cat "$work/log" 2>/dev/null)"
	for k in hkdf names contents; do
		absent fscrypt-$k "fscrypt $k" "ext4 with -O encrypt could not be made or mounted"
	done
fi

# ---- encrypted keys: made with a user master key, loaded back ----------------

modprobe -q encrypted_keys 2>/dev/null
if ! command -v keyctl > /dev/null; then
	absent encrypted-keys-cipher "encrypted keys cbc(aes)" "keyctl (keyutils) not installed"
	absent encrypted-keys-hmac "encrypted keys hmac(sha256)" "keyctl (keyutils) not installed"
elif ! ROUTING_KEYRING=$(keyctl newring pl-routing @u) ||
     ! head -c 32 /dev/urandom | keyctl padd user pl-kmk "$ROUTING_KEYRING" > /dev/null; then
	ktap_fail "encrypted keys: a keyring and a user master key"
else
	trace_mark
	phase
	err=
	if ! id=$(keyctl add encrypted pl-ek "new user:pl-kmk 32" "$ROUTING_KEYRING" 2>&1); then
		err="keyctl add encrypted: $id"
	elif ! blob=$(keyctl pipe "$id") || ! keyctl unlink "$id" "$ROUTING_KEYRING" > /dev/null ||
	     ! id2=$(keyctl add encrypted pl-ek2 "load $blob" "$ROUTING_KEYRING" 2>&1) ||
	     [ "$(keyctl pipe "$id2")" != "$blob" ]; then
		err="keyctl: the encrypted key did not load back"
	fi
	if [[ "$err" == *"No such device"* ]]; then
		# request_key_type(): no "encrypted" key type in this kernel
		absent encrypted-keys-cipher "encrypted keys cbc(aes)" "the kernel has no encrypted key type (CONFIG_ENCRYPTED_KEYS)"
		absent encrypted-keys-hmac "encrypted keys hmac(sha256)" "the kernel has no encrypted key type (CONFIG_ENCRYPTED_KEYS)"
	else
		route encrypted-keys-cipher "encrypted keys cbc(aes)" "cbc(aes)" cbc-aes-padlock xcrypt 2 "$err"
		route encrypted-keys-hmac "encrypted keys hmac(sha256)" "hmac(sha256)" hmac-sha256-padlock xsha 2 "$err"
	fi
fi

# ---- AF_ALG: libkcapi's command-line tools -----------------------------------

if command -v kcapi-enc > /dev/null && command -v kcapi-dgst > /dev/null; then
	head -c 16 /dev/urandom > "$work/akey"
	iv=$(head -c 16 /dev/urandom | xxd -p -c 64)
	trace_mark
	phase
	err=
	kcapi-enc -q -e -c "cbc(aes)" --iv "$iv" --keyfd 3 3< "$work/akey" -i "$work/data" -o "$work/ct" &&
		kcapi-enc -q -d -c "cbc(aes)" --iv "$iv" --keyfd 3 3< "$work/akey" -i "$work/ct" -o "$work/pt" &&
		cmp -s "$work/pt" "$work/data" && ! cmp -s "$work/ct" "$work/data" ||
		err="kcapi-enc cbc(aes): no round trip"
	route af_alg-skcipher "AF_ALG cbc(aes)" "cbc(aes)" cbc-aes-padlock xcrypt 2 "$err"
	trace_mark
	phase
	err=
	[ "$(kcapi-dgst -q -c sha256 --hex < "$work/data")" = "$(sha256sum < "$work/data" | cut -d' ' -f1)" ] ||
		err="kcapi-dgst sha256 differs from sha256sum"
	route af_alg-hash "AF_ALG sha256" "sha256" sha256-padlock xsha 1 "$err"
else
	absent af_alg-skcipher "AF_ALG cbc(aes)" "kcapi-enc (kcapi-tools) not installed"
	absent af_alg-hash "AF_ALG sha256" "kcapi-dgst (kcapi-tools) not installed"
fi

ktap_diag "routing $PADLOCK_KERNEL $PADLOCK_PROFILE ($(uname -r)):$SUMMARY"
ktap_finish
