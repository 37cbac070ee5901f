#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel's SHA-256 library on the project's QEMU (tools/testing/vm/run
# --cpu-model qemu), nothing of ours loaded.  Linux 7.1 added Zhaoxin's
# XSHA256 code to lib/crypto/x86/sha256.h (built in): at boot,
# sha256_mod_init_arch() points the library's block function at
# sha256_blocks_phe() when the CPU has no SHA-NI, has PHE enabled (CPUID
# 0xC0000001 EDX bit 11) and is of family 7 or later (the vendor is not
# checked).  The static call is set there and nowhere else, so every call
# that reaches sha256_blocks_phe() shows the choice made at boot.  On the
# zhaoxin profiles the library must run on XSHA256: the crypto manager's
# boot-time self-test of sha256-lib passed, and digests through AF_ALG
# "sha256" (sha256-lib) are right, call sha256_blocks_phe() (a kprobe) and
# make the emulated CPU hash exactly their padded length (its xsha_bytes
# counter).  On the other profiles (family 6) the library must not use it.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/ktap-lib.sh
. "$here/lib/ktap-lib.sh"

ktap_header
[ "${PADLOCK_CPU_MODEL:-sim}" = qemu ] ||
	ktap_skip_all "not the project's QEMU (tools/testing/vm/run --cpu-model qemu)"
phe=$(awk '$3 == "sha256_blocks_phe" { print $1; exit }' /proc/kallsyms)
[ -n "$phe" ] ||
	ktap_skip_all "kernel $(uname -r) has no XSHA256 in lib/crypto (sha256_blocks_phe, Linux 7.1 and later)"
command -v python3 > /dev/null || ktap_skip_all "python3 missing"
msr="$PADLOCK_TOP/tools/testing/qemu/padlock-msr"
"$msr" violations > /dev/null || ktap_skip_all "no PadLock counters (padlock-msr)"
tr=/sys/kernel/tracing
[ -e $tr/kprobe_events ] || mount -t tracefs tracefs $tr 2> /dev/null
[ -e $tr/kprobe_events ] || ktap_skip_all "no kprobe events (tracefs)"

case "$PADLOCK_PROFILE" in
zhaoxin|zhaoxin-sh) want=1 ;;
*) want=0 ;;
esac
fam=$(awk -F': *' '$1 ~ /^cpu family/ { print $2; exit }' /proc/cpuinfo)
flags=$(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -xE 'phe|phe_en|sha_ni' | tr '\n' ' ')
ktap_diag "profile $PADLOCK_PROFILE: family $fam, flags ${flags:-none of phe phe_en sha_ni}; sha256_blocks_phe at $phe"
ktap_diag "counters since boot: $("$msr" | tr '\n' ' ')"

# the crypto manager tested sha256-lib at boot, through the library
st=$(proc_field sha256-lib selftest)
if [ "$st" = passed ]; then
	ktap_pass "sha256-lib: boot-time self-test passed"
else
	ktap_fail "sha256-lib: boot-time self-test passed (${st:-no sha256-lib})"
fi
drv=$(awk -F' *: ' '$1 == "name" { n = $2 } $1 == "driver" { d = $2 }
	$1 == "priority" && n == "sha256" && $2 + 0 > p { p = $2 + 0; b = d } END { print b }' /proc/crypto)
ktap_diag "sha256 is $drv"

tmp=$(mktemp -d)
cleanup() {
	echo 0 > $tr/events/kprobes/padlock_libsha/enable 2> /dev/null
	echo '-:padlock_libsha' >> $tr/kprobe_events 2> /dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
echo 'p:padlock_libsha sha256_blocks_phe' >> $tr/kprobe_events
echo 1 > $tr/events/kprobes/padlock_libsha/enable
hits() { awk '$1 == "padlock_libsha" { print $2 }' $tr/kprobe_profile; }

# right digests first (the algif_hash module and its signature check are
# behind us then): NIST's short messages and random ones against hashlib
out=$(PADLOCK_AFALG_PIN=0 python3 "$here/lib/sha_afalg.py" quick sha256 sha256 50 5000 2>&1)
rc=$?
ktap_diag "$(tail -n 3 <<< "$out")"
if [ $rc = 0 ]; then
	ktap_pass "AF_ALG sha256 ($drv): NIST short messages and 50 random ones match hashlib"
else
	ktap_fail "AF_ALG sha256 ($drv): NIST short messages and 50 random ones match hashlib"
fi

# count: 20 digests of 1000 bytes, 16 blocks each with the padding
size=1000 count=20
blocks=$(( count * ((size + 9 + 63) / 64) ))
h0=$(hits) b0=$("$msr" xsha_bytes) v0=$("$msr" violations)
PADLOCK_AFALG_PIN=0 python3 "$here/lib/sha_afalg.py" digests sha256 sha256 $size $count > /dev/null
h=$(( $(hits) - h0 )) b=$(( $("$msr" xsha_bytes) - b0 )) v=$(( $("$msr" violations) - v0 ))
ktap_diag "$count digests of $size bytes: $h calls of sha256_blocks_phe, $b bytes through XSHA256 ($((blocks * 64)) padded)"
if [ $want = 1 ]; then
	if [ $h -ge $count ]; then
		ktap_pass "the library calls sha256_blocks_phe ($h calls for $count digests)"
	else
		ktap_fail "the library calls sha256_blocks_phe ($h calls for $count digests)"
	fi
	if [ $b = $((blocks * 64)) ]; then
		ktap_pass "XSHA256 hashed exactly the padded messages ($b bytes)"
	else
		ktap_fail "XSHA256 hashed exactly the padded messages ($b bytes, want $((blocks * 64)))"
	fi
else
	if [ $h = 0 ] && [ $b = 0 ]; then
		ktap_pass "family $fam: the library does not use XSHA256 ($h calls, $b bytes)"
	else
		ktap_fail "family $fam: the library does not use XSHA256 ($h calls, $b bytes)"
	fi
fi
if [ $v = 0 ]; then
	ktap_pass "no violation"
else
	ktap_fail "no violation ($v)"
fi
ktap_finish
