#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# padlock-sim's own fidelity tests: known answers of every instruction and
# mode against NIST CAVP vectors, the strictness (violation) paths,
# interruption injection, clobbers, RNG knobs and counters.  Drives the
# instructions through padlock-simtest.ko (drivers/test/padlock-simtest.c).
dir=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=selftests/padlock/lib/ktap-lib.sh
. "$dir/lib/ktap-lib.sh"

ktap_header
sim=/sys/kernel/debug/padlock-sim
padlock_need_sim "tests padlock-sim itself (its trap path, knobs and debugfs)"
[ -r "$PADLOCK_KO_DIR/padlock-simtest.ko" ] ||
	ktap_skip_all "padlock-simtest.ko not built in $PADLOCK_KO_DIR"
command -v python3 > /dev/null || ktap_skip_all "python3 missing"

prof=$(awk 'NR == 1 { print $1 }' "$sim/profile")
v0=$(sim_counter violations)
units=$(awk 'NR == 2' "$sim/profile")
ktap_diag "profile: $(head -n 1 "$sim/profile"); $units"

# The CPUID capability bits the profile promises are visible.
check_flags() {
	local want=$1 f got
	got=$(awk -F': ' '/^flags/ { print $2; exit }' /proc/cpuinfo)
	for f in rng rng_en ace ace_en ace2 ace2_en phe phe_en; do
		local have=0 should=0
		[[ " $got " == *" $f "* ]] && have=1
		[[ " $want " == *" $f "* ]] && should=1
		[ $have = $should ] || { echo "flag $f: have $have, want $should"; return 1; }
	done
}
case $prof in
c3) want="rng rng_en ace ace_en" ;;
c7) want="rng rng_en ace ace_en phe phe_en" ;;
*) want="rng rng_en ace ace_en ace2 ace2_en phe phe_en" ;;
esac
ktap_check "CPUID capability bits of profile $prof in /proc/cpuinfo" check_flags "$want"
# The vendor string QEMU presents (tools/testing/vm/profiles), spaces included.
check_vendor() {
	local got
	got=$(awk -F': ' '/^vendor_id/ { print $2; exit }' /proc/cpuinfo)
	[ "$got" = "$1" ] || { echo "vendor_id \"$got\", want \"$1\""; return 1; }
}
case $prof in
zhaoxin-sh) want_vendor="  Shanghai  " ;;
*) want_vendor=CentaurHauls ;;
esac
ktap_check "vendor_id \"$want_vendor\" of profile $prof in /proc/cpuinfo" check_vendor "$want_vendor"
ktap_check "loud load message in the kernel log" \
	sh -c "dmesg | grep -q 'SIMULATED PadLock CPU, profile $prof: for tests only'"

if [ ! -d /sys/kernel/debug/padlock-simtest ]; then
	if ! out=$(padlock_insmod padlock-simtest 2>&1); then
		ktap_diag "$out"
		ktap_fail "load padlock-simtest.ko"
		ktap_finish
	fi
fi

start=$(date +%s)
ktap_report < <(python3 "$dir/lib/sim_kat.py" aes ctr sha rng violations interrupts \
		clobbers counters sigill 2>&1; python3 "$dir/lib/sim_keycache.py" 2>&1)
ktap_diag "python tests took $(( $(date +%s) - start ))s"

padlock_rmmod padlock-simtest
v=$(( $(sim_counter violations) - v0 ))
ktap_diag "counters: $(tr '\n' ' ' < "$sim/counters")"
if [ "$v" = 0 ]; then ktap_pass "no unexpected violations"; else
	ktap_diag "$(cat "$sim/violations_log")"
	ktap_fail "no unexpected violations (+$v during this test)"
fi
ktap_finish
