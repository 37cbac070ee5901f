#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Standalone runner (no kernel tree needed): runs the test programs of this
# directory, or those named, and prints KTAP with each program's results
# nested under it, as the kselftest runner does.
#
# usage: run_tests.sh [-t NAME]... ; PADLOCK_* variables: see lib/ktap-lib.sh
cd "$(dirname "$0")" || exit 1
progs=()
while [ $# -gt 0 ]; do
	case "$1" in
	-t) progs+=("$2"); shift 2 ;;
	*) progs+=("$1"); shift ;;
	esac
done
if [ ${#progs[@]} = 0 ]; then
	# every program of the Makefile, then final.sh (the whole-run checks)
	read -r -a progs <<< "$(sed -n 's/^TEST_PROGS *:= *//p' Makefile | sed 's/final.sh//')"
	progs+=(final.sh)
fi
# PADLOCK_TEST_TIMEOUT overrides the per-program timeout of ./settings
# (the debug-kernel lane runs everything several times slower)
timeout=${PADLOCK_TEST_TIMEOUT:-$(sed -n 's/^timeout=//p' settings)}
# A program the plan does not run on this VM is skipped here, with the
# lines it would print itself (padlock_plan_gate), instead of being started
# only to say so: 1-3 s each under software emulation.
# shellcheck source=lib/ktap-lib.sh
. lib/ktap-lib.sh
echo "TAP version 13"
echo "1..${#progs[@]}"
n=0 fail=0
for p in "${progs[@]}"; do
	n=$((n + 1))
	echo "# selftests: padlock: $p"
	if gate=$(padlock_plan_gate "$p"); [ $? = "$KSFT_SKIP" ]; then
		printf '%s\n' "TAP version 13" "$gate" | sed 's/^/  /'
		echo "# $p took 0s"
		echo "ok $n selftests: padlock: $p # SKIP"
		continue
	fi
	t0=$(date +%s)
	timeout -k 10 "${timeout:-600}" "./$p" 2>&1 | sed 's/^/  /'
	rc=${PIPESTATUS[0]}
	echo "# $p took $(( $(date +%s) - t0 ))s"
	case $rc in
	0) echo "ok $n selftests: padlock: $p" ;;
	4) echo "ok $n selftests: padlock: $p # SKIP" ;;
	124) echo "not ok $n selftests: padlock: $p # TIMEOUT ${timeout}s"; fail=1 ;;
	*) echo "not ok $n selftests: padlock: $p # exit=$rc"; fail=1 ;;
	esac
done
exit $fail
