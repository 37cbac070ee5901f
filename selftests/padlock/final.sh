#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs last in every VM: the simulator saw no violation of the PadLock
# rules during the whole run, and the kernel log has no oops, BUG, KASAN
# report, lockdep or RCU splat or unexpected WARN; on a kernel with
# kmemleak (make check-debug) a final scan finds no leak.  (The only expected WARN: Debian's in-tree padlock-sha
# "-nano" algorithms failing their self-test on the zhaoxin profile, the
# real-world bug the simulator reproduces.)
. "$(dirname "$0")/lib/ktap-lib.sh"

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
elif [ "$PADLOCK_PROFILE" != none ] && padlock_counters; then
	# the QEMU model: its violations are #GPs, counted per vCPU; those
	# xcheck.sh's random streams and qemu-cpu.sh's known-answer test
	# cause on purpose are not our code's
	v=$(sim_counter violations)
	d=$(cat /run/padlock-deliberate-violations 2>/dev/null || echo 0)
	if [ -n "$v" ] && [ "$((v - d))" = 0 ]; then
		ktap_pass "QEMU model: 0 violations in this run (besides $d deliberate ones of xcheck.sh and qemu-cpu.sh)"
	else
		ktap_fail "QEMU model: 0 violations in this run (saw ${v:-no counter}, of them $d deliberate ones of xcheck.sh and qemu-cpu.sh)"
	fi
	ktap_diag "QEMU model counters: $("$PADLOCK_TOP/tools/testing/qemu/padlock-msr" | tr '\n' ' ')"
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

# "WARNING: CPU:" is WARN(); the others are lockdep's and RCU-lockdep's
# report headers (other kernel messages may say "WARNING:" too).
# A testmgr WARN is the in-tree padlock-sha's expected one when the last
# self-test failure logged before it names a padlock-nano driver (self-tests
# run on several CPUs at once, so their lines interleave: no fixed distance).
warns=$(dmesg | awk '
	/self-tests for .* failed/ { lastfail = $0 }
	/WARNING: (CPU:|possible |inconsistent lock|.*lock order detected|bad unlock balance|held lock freed|lock held when returning|suspicious RCU usage|Nested lock was not taken)/ {
		if (!($0 ~ /testmgr/ && lastfail ~ /padlock-nano/))
			print
	}')
if [ -z "$warns" ]; then
	ktap_pass "kernel log: no unexpected WARN"
else
	ktap_diag "$warns"
	ktap_fail "kernel log: no unexpected WARN"
fi
km=/sys/kernel/debug/kmemleak
if [ -w $km ]; then
	# two scans: an object is reported once it stayed unreferenced
	# through a scan and is older than kmemleak's minimum age (5 s)
	echo scan > $km
	sleep 6
	echo scan > $km
	leaks=$(cat $km)
	if [ -z "$leaks" ]; then
		ktap_pass "kmemleak: no leak"
	else
		ktap_diag "$(echo "$leaks" | head -n 60)"
		ktap_fail "kmemleak: no leak ($(echo "$leaks" | grep -c '^unreferenced object') objects)"
	fi
fi
ktap_finish
