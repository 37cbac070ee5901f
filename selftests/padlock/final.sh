#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs last in every VM: the simulator saw no violation of the PadLock
# rules during the whole run, and the kernel log has no oops, BUG or
# unexpected WARN.  (The only expected WARN: Debian's in-tree padlock-sha
# "-nano" algorithms failing their self-test on the zhaoxin profile, the
# real-world bug the simulator reproduces.)
. "$(dirname "$0")/lib/ktap.sh"

ktap_header
if [ -d /sys/module/padlock_sim ]; then
	v=$(sim_counter violations)
	if [ "$v" = 0 ]; then
		ktap_pass "padlock-sim: 0 violations in this run"
	else
		ktap_diag "$(cat /sys/kernel/debug/padlock-sim/violations_log 2>/dev/null | tail -n 20)"
		ktap_fail "padlock-sim: 0 violations in this run (saw ${v:-no counter})"
	fi
	ktap_diag "sim counters: $(tr '\n' ' ' < /sys/kernel/debug/padlock-sim/counters 2>/dev/null)"
else
	ktap_skip "padlock-sim: 0 violations in this run" "no simulator on profile $PADLOCK_PROFILE"
fi

bad=$(dmesg | grep -E 'BUG:|Oops|general protection fault|KASAN|UBSAN|kernel BUG|Call Trace' | grep -v 'Call Trace' || true)
if [ -z "$bad" ]; then
	ktap_pass "kernel log: no oops or BUG"
else
	ktap_diag "$bad"
	ktap_fail "kernel log: no oops or BUG"
fi

warns=$(dmesg | awk '
	/WARNING: CPU:/ {
		if (!(prev ~ /padlock-nano/ && $0 ~ /testmgr/))
			print
	}
	{ prev = $0 }')
if [ -z "$warns" ]; then
	ktap_pass "kernel log: no unexpected WARN"
else
	ktap_diag "$warns"
	ktap_fail "kernel log: no unexpected WARN"
fi
ktap_finish
