#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The PadLock units of the project's QEMU (tools/testing/vm/run --cpu-model
# qemu; tools/testing/qemu): CPUID shows the profile's units in
# /proc/cpuinfo, the known-answer test of the QEMU series
# (tests/tcg/i386/test-i386-padlock.c, built here from the patch that adds
# it) passes with the key cache as silicon keeps it (a new key is not used
# without an EFLAGS load, pushf; popf reloads it), again when every REP
# instruction is stopped and resumed after each block, and the emulator's
# counters (tools/testing/qemu/padlock-msr) show the work and no violation.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/ktap-lib.sh
. "$here/lib/ktap-lib.sh"

ktap_header
[ "${PADLOCK_CPU_MODEL:-sim}" = qemu ] ||
	ktap_skip_all "not the project's QEMU (tools/testing/vm/run --cpu-model qemu)"
[ "$PADLOCK_PROFILE" != none ] || ktap_skip_all "profile none has no PadLock unit"
msr="$PADLOCK_TOP/tools/testing/qemu/padlock-msr"
patch=$(grep -l '^+++ b/tests/tcg/i386/test-i386-padlock.c' "$PADLOCK_TOP"/tools/testing/qemu/upstream/0*.patch | head -n 1)

# CPUID 0xC0000001 as the kernel names it (PHE2 has no name there)
case "$PADLOCK_PROFILE" in
c3) want="rng rng_en ace ace_en" ;;
c7) want="rng rng_en ace ace_en phe phe_en" ;;
*) want="rng rng_en ace ace_en ace2 ace2_en phe phe_en" ;;
esac
have=$(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -E '^(rng|ace|ace2|phe|pmm)(_en)?$' | sort | tr '\n' ' ')
want=$(echo "$want" | tr ' ' '\n' | sort | tr '\n' ' ')
if [ "$have" = "$want" ]; then
	ktap_pass "CPUID units of $PADLOCK_PROFILE: $have"
else
	ktap_fail "CPUID units of $PADLOCK_PROFILE: $have (want $want)"
fi

cc=$(command -v gcc || command -v cc) ||
	{ ktap_skip "known-answer test" "no C compiler in this root"; ktap_finish; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; "$msr" --set chunk 0 > /dev/null 2>&1' EXIT
# the test program as the QEMU patch adds it
awk '/^\+\+\+ b\/tests\/tcg\/i386\/test-i386-padlock.c/ { f = 1; next }
     f && /^(diff|--) / { f = 0 }
     f && /^\+/ { print substr($0, 2) }' "$patch" > "$tmp/kat.c"
# (its asm statements push and pop EFLAGS: nothing of the compiler's may
# live below rSP, as QEMU's test harness builds it; not position
# independent, so that its data lies below 4 GiB for the address-size
# checks)
if ! out=$("$cc" -O2 -Wall -mno-red-zone -no-pie -o "$tmp/kat" "$tmp/kat.c" 2>&1); then
	ktap_diag "$out"
	ktap_fail "build test-i386-padlock.c"
	ktap_finish
fi

# kat LABEL: run the test program, one KTAP line per check; its output
# also in $tmp/kat.out
kat() {
	ktap_report < <("$tmp/kat" 2>&1 | tee "$tmp/kat.out" | sed -e "s/^ok \([^ ]*\).*/PASS $1: \1/" \
		-e "s/^FAIL \([^:]*\): \(.*\)/FAIL $1: \1 | \2/" \
		-e "s/^SKIP: \(.*\)/SKIP $1 | \1/" -e "s/^SKIP \([^:]*\): \(.*\)/SKIP $1: \1 | \2/")
}

# gps: how many of the test's checks that passed raised a #GP on purpose
# (a misaligned control word, a bad one with rCX = 0): the model counts
# each as a violation
gps() {
	grep -cE '^ok (xcrypt-misaligned|xcrypt-empty-bad-cword)$' "$tmp/kat.out"
}

# The counters are read before and after each run, never reset: what
# earlier programs counted stays for final.sh.  The test's #GPs are left in
# /run/padlock-deliberate-violations, which final.sh leaves out.

# counts: violations, key loads and resumes so far, in that order
counts() {
	"$msr" violations key_loads resumes 2> /dev/null |
		awk '{ c[$1] = $2 } END { if (NR) print c["violations"], c["key_loads"], c["resumes"] }'
}
read -r v0 l0 r0 <<< "$(counts)"
[ -n "$r0" ] || ktap_skip_all "no PadLock counters (padlock-msr)"
kat plain
want=$(gps)
read -r v1 l1 r1 <<< "$(counts)"
ktap_diag "counters: $("$msr" | tr '\n' ' ')"
if [ $((v1 - v0)) = "$want" ] && [ $((l1 - l0)) -gt 0 ]; then
	ktap_pass "counters: $((l1 - l0)) key loads, no violations but the test's $want deliberate #GPs"
else
	ktap_fail "counters: $((l1 - l0)) key loads, $((v1 - v0)) violations (the test's deliberate #GPs: $want)"
fi

# every REP instruction stops after each block and is executed again
"$msr" --set chunk 1
kat "one block per step"
"$msr" --set chunk 0
want=$(gps)
read -r v2 _ r2 <<< "$(counts)"
echo $((v2 - v0 + $(cat /run/padlock-deliberate-violations 2>/dev/null || echo 0))) \
	> /run/padlock-deliberate-violations
if [ $((r2 - r1)) -gt 0 ] && [ $((v2 - v1)) = "$want" ]; then
	ktap_pass "REP instructions resumed $((r2 - r1)) times, no violations but the test's $want deliberate #GPs"
else
	ktap_fail "REP instructions resumed $((r2 - r1)) times, $((v2 - v1)) violations (the test's deliberate #GPs: $want)"
fi
ktap_finish
