#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# padlock-rng: the hwrng "padlock" registers next to the in-tree via-rng,
# becomes rng_current, /dev/hwrng delivers, rngtest (FIPS 140-2) passes
# within the expected failure rate, every injected RNG status failure
# (padlock-sim knobs) yields no data and a counted failure and reads recover
# once it clears, "no data yet" still delivers, is counted and is no
# failure, a stalled RNG (padlock-sim's rng_stall, rng_delay) costs a
# bounded time per read (the driver's whole poll budget of plain XSTOREs,
# counted by the simulator), never blocks rmmod, and is
# followed by random data again once it clears, on a C3/C7 a CPU whose MSR
# 0x110B cannot be set up comes online with the RNG left out there,
# unload/reload idle and while /dev/hwrng is being read, and PadLock
# instructions per byte next to via-rng (ours must not use more, and no
# REP XSTORE).  The statistics (failures, nodata, msr_failures) are in
# debugfs.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/ktap-lib.sh
. "$here/lib/ktap-lib.sh"

ktap_header

HW=/sys/class/misc/hw_random
SIM=/sys/kernel/debug/padlock-sim
SIMP=/sys/module/padlock_sim/parameters
DBG=/sys/kernel/debug/padlock-rng

if [ "$PADLOCK_SCALE" = long ]; then
	blocks=1000
else
	blocks=40
fi

# read_hwrng BYTES: bytes actually delivered by /dev/hwrng (never blocks long).
read_hwrng() {
	timeout 60 dd if=/dev/hwrng bs="$1" count=1 iflag=fullblock 2>/dev/null | wc -c
}

set_current() {
	echo "$1" > $HW/rng_current 2>/dev/null
	[ "$(cat $HW/rng_current)" = "$1" ]
}

padlock_rmmod padlock_rng via_rng
# the hw_random core is a module on some kernels (rng-core on 5.10)
padlock_deps "$PADLOCK_KO_DIR/padlock-rng.ko"
[ -d $HW ] || ktap_skip_all "kernel without the hw_random core"
if ! err=$(padlock_insmod padlock-rng 2>&1); then
	msg=$(dmesg | grep 'padlock_rng:' | tail -n1)
	ktap_skip_all "padlock-rng does not load on profile $PADLOCK_PROFILE: $err ${msg#*] }"
fi
ktap_diag "$(dmesg | grep 'padlock_rng:' | tail -n1 | sed 's/^\[[^]]*\] //')"

if grep -qw padlock $HW/rng_available; then
	ktap_pass "hwrng padlock registered ($(cat $HW/rng_available))"
else
	ktap_fail "hwrng padlock registered ($(cat $HW/rng_available))"
fi
cur=$(cat $HW/rng_current)
ktap_diag "rng_current after loading: $cur$( [ -r $HW/rng_quality ] && echo ", rng_quality $(cat $HW/rng_quality)")"
if set_current padlock; then
	ktap_pass "padlock is rng_current"
else
	ktap_fail "padlock is rng_current ($(cat $HW/rng_current))"
fi

f0=$(cat $DBG/failures)
n=$(read_hwrng 4096)
if [ "$n" = 4096 ] && [ "$(cat $DBG/failures)" = "$f0" ]; then
	ktap_pass "/dev/hwrng delivers 4096 bytes, no failures"
else
	ktap_fail "/dev/hwrng delivers 4096 bytes ($n, failures $f0 -> $(cat $DBG/failures))"
fi
a=$(timeout 30 dd if=/dev/hwrng bs=64 count=1 2>/dev/null | od -An -tx1 | tr -d ' \n')
b=$(timeout 30 dd if=/dev/hwrng bs=64 count=1 2>/dev/null | od -An -tx1 | tr -d ' \n')
if [ ${#a} = 128 ] && [ "$a" != "$b" ] && [ "$a" != "$(printf '0%.0s' $(seq 128))" ]; then
	ktap_pass "two reads differ and are not zero"
else
	ktap_fail "two reads differ and are not zero ($a / $b)"
fi

# ---- FIPS 140-2 ---------------------------------------------------------------
if command -v rngtest > /dev/null; then
	out=$(timeout 600 dd if=/dev/hwrng bs=2500 count=$((blocks + 1)) iflag=fullblock 2>/dev/null |
	      rngtest -c "$blocks" 2>&1)
	ktap_rngtest "rngtest FIPS 140-2 over $blocks blocks" "$blocks" "$out"
else
	ktap_skip "rngtest FIPS 140-2" "rngtest (rng-tools5) not installed"
fi

# ---- injected status failures ----------------------------------------------------
# status_fault NAME SET CLEAR: with the fault that command SET injects,
# /dev/hwrng delivers nothing new and padlock-rng counts a failure; after
# CLEAR reads recover.
status_fault() {
	local f0 f1 got after
	f0=$(cat $DBG/failures)
	eval "$2"
	got=$(read_hwrng 512)
	f1=$(cat $DBG/failures)
	eval "$3"
	after=$(read_hwrng 256)
	# The core hands out at most one buffer (<= 64 bytes) left over
	# from before the fault; nothing of the faulty state.
	if [ "$got" -le 64 ] && [ "$f1" -gt "$f0" ] && [ "$after" = 256 ]; then
		ktap_pass "$1: no data ($got bytes, all from before), failures $f0 -> $f1, recovers"
	else
		ktap_fail "$1: got $got bytes, failures $f0 -> $f1, after clearing $after bytes"
	fi
}
MSR="$PADLOCK_TOP/tools/testing/qemu/padlock-msr"
if [ -w $SIM/rng_rawbits ]; then
	for knob in rng_rawbits=1 rng_dc_bias=3 rng_strfilt_fail=1 rng_disabled=1; do
		k=${knob%=*} v=${knob#*=}
		status_fault "$k" "echo $v > $SIM/$k" "echo 0 > $SIM/$k"
	done
elif [ "${PADLOCK_CPU_MODEL:-sim}" = qemu ] && "$MSR" --set rng_status 0 2> /dev/null; then
	# the QEMU model's rng_status knob: bits ORed into every status word
	# (raw bits, DC bias 3, string filter enabled and failed)
	for knob in rng_rawbits=0x2000 rng_dc_bias=0xc00 rng_strfilt_fail=0xc000; do
		k=${knob%=*} v=${knob#*=}
		status_fault "$k" "'$MSR' --set rng_status $((v))" "'$MSR' --set rng_status 0"
	done
else
	ktap_skip "injected RNG status failures" "padlock-sim has no rng_* knobs"
fi

# ---- status bit 6 (RNG enabled) under both readings -------------------------------
# On C3/C7 the status word is a copy of MSR 0x110B and bit 6 its RNG enable;
# Nano and Zhaoxin have no such MSR and nothing says what their bit 6 holds
# (docs/hardware.md 1.8).  padlock-sim's rng_status_enable: 1 reports it, 0
# does not (on C3/C7: the RNG is off).  C3/C7: data with 1, a failure and
# no data with 0; Nano/Zhaoxin: data either way.
if [ -w $SIMP/rng_status_enable ]; then
	case "$PADLOCK_PROFILE" in c3|c7) msr=1 ;; *) msr=0 ;; esac
	for v in 1 0; do
		f0=$(cat $DBG/failures)
		echo $v > $SIMP/rng_status_enable
		got=$(read_hwrng 512)
		f1=$(cat $DBG/failures)
		echo -1 > $SIMP/rng_status_enable
		if [ $msr = 1 ] && [ $v = 0 ]; then
			want="no data (RNG off), a failure"
			ok=$([ "$got" -le 64 ] && [ "$f1" -gt "$f0" ] && echo y)
		else
			want="512 bytes, no failure"
			ok=$([ "$got" = 512 ] && [ "$f1" = "$f0" ] && echo y)
		fi
		if [ "$ok" = y ]; then
			ktap_pass "status bit 6 $([ $v = 1 ] && echo reported || echo "not reported") on $PADLOCK_PROFILE: $want ($got bytes, failures $f0 -> $f1)"
		else
			ktap_fail "status bit 6 $([ $v = 1 ] && echo reported || echo "not reported") on $PADLOCK_PROFILE: $want (got $got bytes, failures $f0 -> $f1)"
		fi
	done
	read_hwrng 64 > /dev/null
else
	ktap_skip "status bit 6 under both readings" "padlock-sim without rng_status_enable (the QEMU model has no knob for that reading)"
fi

# ---- "no data yet" ---------------------------------------------------------------------
# padlock-sim's rng_nodata_rate: an XSTORE finds no data (count 0), or a
# REP XSTORE runs out of random data part-way, waits and resumes (docs/hardware.md
# 1.8, 6).  At 50 %, /dev/hwrng must still deliver complete, random-looking
# data: the simulator counts the events (rng_nodata), padlock-rng counts
# its empty polls (nodata) but not one failure, and with the knob off reads
# go on.
if [ -w $SIM/rng_nodata_rate ] && [ -n "$(sim_counter rng_nodata)" ]; then
	f0=$(cat $DBG/failures) d0=$(cat $DBG/nodata 2>/dev/null) n0=$(sim_counter rng_nodata)
	s0=$(cat $SIMP/rng_stall_spins 2>/dev/null)
	echo 500 > $SIM/rng_nodata_rate
	t0=$SECONDS
	got=$(read_hwrng 8192)
	secs=$((SECONDS - t0))
	n1=$(sim_counter rng_nodata)
	nd_out=
	if command -v rngtest > /dev/null; then
		nd_blocks=$((blocks / 4 + 5))
		nd_out=$(timeout 300 dd if=/dev/hwrng bs=2500 count=$((nd_blocks + 1)) iflag=fullblock 2>/dev/null |
			 rngtest -c "$nd_blocks" 2>&1)
	fi
	echo 0 > $SIM/rng_nodata_rate
	f1=$(cat $DBG/failures) d1=$(cat $DBG/nodata 2>/dev/null)
	s1=$(cat $SIMP/rng_stall_spins 2>/dev/null)
	sleep 1
	n3=$(sim_counter rng_nodata)
	after=$(read_hwrng 4096)
	n4=$(sim_counter rng_nodata)
	ktap_diag "no data yet: rng_nodata $n0 -> $n1 (50%, $got bytes in ${secs}s) -> $n4 (off);" \
		  "padlock-rng failures $f0 -> $f1, nodata ${d0:-?} -> ${d1:-?}, sim rng_stall_spins ${s0:-?} -> ${s1:-?}"
	if [ "$got" = 8192 ]; then
		ktap_pass "no data yet at 50%: /dev/hwrng still delivers (8192 bytes)"
	else
		ktap_fail "no data yet at 50%: /dev/hwrng still delivers ($got of 8192 bytes)"
	fi
	if [ "$n1" -gt "$n0" ] && [ "$f1" = "$f0" ] && [ "${d1:-0}" -gt "${d0:-0}" ] && [ "$s1" = "$s0" ]; then
		ktap_pass "no-data events counted ($((n1 - n0)) rng_nodata, $((d1 - d0)) empty polls), none as a failure, no REP XSTORE into a silent RNG"
	else
		ktap_fail "no-data events counted (rng_nodata $n0 -> $n1, nodata ${d0:-?} -> ${d1:-?}), none as a failure (failures $f0 -> $f1), no REP XSTORE into a silent RNG (spins ${s0:-?} -> ${s1:-?})"
	fi
	if [ -n "$nd_out" ]; then
		ktap_rngtest "rngtest FIPS 140-2 over $nd_blocks blocks read with 50% no data" \
			"$nd_blocks" "$nd_out"
	else
		ktap_skip "rngtest with no data yet" "rngtest (rng-tools5) not installed"
	fi
	if [ "$after" = 4096 ] && [ "$n4" = "$n3" ]; then
		ktap_pass "knob off: reads recover (4096 bytes), no more no-data events"
	else
		ktap_fail "knob off: reads recover ($after of 4096 bytes, rng_nodata $n3 -> $n4)"
	fi
else
	ktap_skip "no data yet" "padlock-sim without rng_nodata_rate / rng_nodata counter (the QEMU model has no partial no-data rate)"
fi

# ---- a stalled RNG ---------------------------------------------------------------------
# padlock-sim's rng_stall (the RNG delivers nothing: plain XSTORE returns
# count 0, REP XSTORE spins in the CPU until the knob clears) and rng_delay=N
# (the next N (rep) xstores find nothing).  padlock-rng's bound for one read
# that finds no data: 25 plain XSTORE polls, 4 of them 10 us apart and 20
# after a 10 ms sleep each, i.e. about 0.25 s with jiffy rounding (measured
# 0.4 s per read in a TCG guest on a busy host), then EIO.  The assertions
# are liveness bounds, generous on purpose because process start-up under
# TCG on a loaded host dominates (a 64-byte dd took 0.8 s on a moderately
# loaded host, 3.8 s with six VMs on two cores): 15 s per dd, 15 s for
# rmmod while a reader waits (it needs that reader's current poll to end),
# 25 s on 5.10, whose hw_random fill thread sleeps 10 s after a failed read
# without heeding kthread_stop.  A driver that spins in REP XSTORE never
# ends at all.  The simulator's rng_stall_spins counts REP XSTOREs issued
# into a silent RNG: there must be none.  A command still running at its
# deadline is left until the knob is cleared (a task spinning in REP XSTORE
# cannot be killed), then reaped.
LIVE_MS=15000
case "$PADLOCK_KVER" in 5.*) RMMOD_MS=25000 ;; *) RMMOD_MS=15000 ;; esac
log_marker() { dmesg | wc -l; }

# bounded MS CMD...: run CMD in the background, wait at most MS ms; sets
# b_ms (elapsed, guest clock), b_rc (exit status) and b_hung=1 when it is
# still running (its pid in b_pid: reap it with `wait` once the stall is
# released).  The wait loop forks only `sleep`, not to slow CMD down.
bounded() {
	local lim=$1 t0 end
	shift
	t0=$(date +%s%N)
	end=$((${EPOCHREALTIME/./} + lim * 1000))
	"$@" &
	b_pid=$! b_hung=0 b_rc=
	while kill -0 "$b_pid" 2>/dev/null; do
		if [ "${EPOCHREALTIME/./}" -ge "$end" ]; then
			b_hung=1
			break
		fi
		sleep 0.05
	done
	[ $b_hung = 1 ] || { wait "$b_pid"; b_rc=$?; }
	b_ms=$((($(date +%s%N) - t0) / 1000000))
}

# dd_hwrng BYTES OUT: one fullblock read of BYTES into file OUT, status = dd's
dd_hwrng() { dd if=/dev/hwrng of="$2" bs="$1" count=1 iflag=fullblock 2>/dev/null; }

# The stall under either model: padlock-sim's rng_stall (rng_delay only
# there), or the QEMU model's rng_nodata knob.  stall_spins: REP XSTOREs
# issued into the silent RNG, padlock-sim's rng_stall_spins; on QEMU a REP
# XSTORE there stops and resumes without end, counted in its resumes.
stall_model=
if [ -w $SIMP/rng_stall ] && [ -w $SIMP/rng_delay ] && [ -r $SIMP/rng_stall_spins ]; then
	stall_model=sim
elif [ "${PADLOCK_CPU_MODEL:-sim}" = qemu ] && "$MSR" --set rng_nodata 0 2> /dev/null; then
	stall_model=qemu
fi
stall_on() {
	if [ $stall_model = sim ]; then echo 1 > $SIMP/rng_stall; else "$MSR" --set rng_nodata 1; fi
}
stall_clear() {
	if [ $stall_model = sim ]; then
		echo 0 > $SIMP/rng_stall
		echo 0 > $SIMP/rng_delay
	else
		"$MSR" --set rng_nodata 0
	fi
}
stall_spins() {
	if [ $stall_model = sim ]; then cat $SIMP/rng_stall_spins; else sim_counter interrupts; fi
}

if [ -n "$stall_model" ]; then
	tmp=$(mktemp -d)
	m0=$(log_marker)
	# what one dd costs here with a healthy RNG, for the diagnostics
	bounded $LIVE_MS dd_hwrng 64 "$tmp/healthy"
	ktap_diag "healthy: dd of 64 bytes: rc ${b_rc:-hung} after $b_ms ms"
	# (1) a read from a stalled RNG fails (or returns only what the
	# core had buffered, <= 64 bytes) within the bound
	f0=$(cat $DBG/failures) s0=$(stall_spins)
	x0=$(sim_counter xstore) r0=$(sim_counter rep_xstore) e0=$(sim_counter rng_nodata)
	y0=$(sim_counter rng_bytes)
	stall_on
	bounded $LIVE_MS dd_hwrng 4096 "$tmp/stall"
	hung=$b_hung ms=$b_ms rc=$b_rc
	[ "$hung" = 1 ] && { stall_clear; wait "$b_pid"; }
	x1=$(sim_counter xstore) r1=$(sim_counter rep_xstore) e1=$(sim_counter rng_nodata)
	y1=$(sim_counter rng_bytes)
	got=$(stat -c %s "$tmp/stall" 2>/dev/null || echo 0)
	f1=$(cat $DBG/failures) s1=$(stall_spins)
	ktap_diag "stalled: dd of 4096 bytes: rc ${rc:-hung} after $ms ms, $got bytes; failures $f0 -> $f1, rng_stall_spins $s0 -> $s1;" \
		  "simulator: xstore $x0 -> $x1, rep_xstore $r0 -> $r1, rng_nodata $e0 -> $e1, rng_bytes $y0 -> $y1"
	if [ "$hung" = 0 ] && [ "$rc" != 0 ] && [ "$got" -le 64 ]; then
		ktap_pass "stalled RNG: a read fails within ${LIVE_MS} ms ($ms ms, $got bytes from before the stall)"
	else
		ktap_fail "stalled RNG: a read fails within ${LIVE_MS} ms (rc ${rc:-none: still running}, $ms ms, $got bytes)"
	fi
	if [ "$f1" -gt "$f0" ] && dmesg | tail -n +"$m0" | grep -q 'padlock_rng: RNG delivered no data'; then
		ktap_pass "stalled RNG: counted as a failure ($f0 -> $f1), logged"
	else
		ktap_fail "stalled RNG: counted as a failure ($f0 -> $f1), logged ($(dmesg | tail -n +"$m0" | grep padlock_rng | tail -n 1))"
	fi
	# What a failed read costs, from the simulator's per-opcode counters:
	# the whole budget of 25 plain XSTORE polls (4 spins, 20 naps, the
	# last poll), each finding no data, and then the failure; not fewer
	# (giving up early), not more (an unbounded or doubled retry), no
	# REP XSTORE.  A read already polling when the stall began, or still
	# polling when it was cleared, is counted in part: +-24 polls.  Polls
	# that found data (one byte each: the hw_random fill thread reading
	# right before the stall) are not those of a failed read.
	dx=$((x1 - x0 - (y1 - y0))) df=$((f1 - f0)) de=$((e1 - e0))
	if [ "$df" -ge 1 ] && [ "$dx" -ge $((25 * df - 24)) ] && [ "$dx" -le $((25 * df + 24)) ] &&
	   [ "$de" -ge $((25 * df - 24)) ] && [ "$r1" = "$r0" ]; then
		ktap_pass "stalled RNG: each failed read polled 25 plain XSTOREs ($dx polls, $de without data, $df failures, 0 REP XSTORE)"
	else
		ktap_fail "stalled RNG: each failed read polled 25 plain XSTOREs ($dx polls, $de without data, $df failures, $((r1 - r0)) REP XSTORE)"
	fi

	# (2) rmmod while a reader waits in /dev/hwrng (dd goes on reading
	# after errors, so it is back in the driver at once)
	stall_clear
	stall_on
	dd if=/dev/hwrng of=/dev/null bs=64 count=1000000 conv=noerror 2>/dev/null &
	reader=$!
	sleep 1
	bounded $RMMOD_MS rmmod padlock_rng
	hung=$b_hung ms=$b_ms rc=$b_rc
	[ "$hung" = 1 ] && { stall_clear; wait "$b_pid"; rc=$?; }
	kill "$reader" 2>/dev/null
	stall_clear
	wait "$reader" 2>/dev/null
	if [ "$hung" = 0 ] && [ "$rc" = 0 ] && [ ! -d /sys/module/padlock_rng ]; then
		ktap_pass "stalled RNG: rmmod padlock-rng completes while a reader waits ($ms ms, limit $RMMOD_MS)"
	else
		[ "$hung" = 1 ] && ms="$ms ms, still running at the limit; released by clearing the stall" || ms="$ms ms"
		ktap_fail "stalled RNG: rmmod padlock-rng completes while a reader waits (rc ${rc:-?}, $ms, limit $RMMOD_MS ms)"
	fi
	padlock_rmmod padlock_rng
	padlock_insmod padlock-rng && set_current padlock

	# (3) a generator that comes back: rng_delay=15 is within one read's
	# 25 polls, rng_delay=40 is not; either way data flows again after
	# at most a few bounded reads, and no REP XSTORE meets the silence
	[ $stall_model = sim ] || ktap_skip "RNG silent for a number of polls" \
		"padlock-sim's rng_delay; the QEMU model's RNG is silent until the knob clears"
	for n in 15 40; do
		[ $stall_model = sim ] || break
		f0=$(cat $DBG/failures) s0=$(cat $SIMP/rng_stall_spins)
		echo "$n" > $SIMP/rng_delay
		tries=0 ok=0 worst=0 hung=0 fails=0
		while [ $tries -lt 4 ] && [ $ok = 0 ]; do
			tries=$((tries + 1))
			rm -f "$tmp/delay"
			bounded $LIVE_MS dd_hwrng 64 "$tmp/delay"
			[ "$b_ms" -gt "$worst" ] && worst=$b_ms
			if [ "$b_hung" = 1 ]; then
				hung=1
				stall_clear
				wait "$b_pid"
				break
			fi
			if [ "$b_rc" = 0 ] && [ "$(stat -c %s "$tmp/delay")" = 64 ]; then
				ok=1
			else
				fails=$((fails + 1))
			fi
		done
		left=$(cat $SIMP/rng_delay)
		f1=$(cat $DBG/failures) s1=$(cat $SIMP/rng_stall_spins)
		stall_clear
		ktap_diag "rng_delay=$n: $tries reads ($fails failed), slowest $worst ms, delay left $left; failures $f0 -> $f1, rng_stall_spins $s0 -> $s1"
		if [ $ok = 1 ] && [ $hung = 0 ] && [ "$left" = 0 ] && [ "$s1" = "$s0" ]; then
			ktap_pass "RNG silent for $n polls: data again after $tries bounded reads (each < ${LIVE_MS} ms), no REP XSTORE into the silence"
		else
			ktap_fail "RNG silent for $n polls: data again after at most 4 bounded reads (ok $ok, still running at the limit $hung, delay left $left, fruitless REP XSTOREs $((s1 - s0)))"
		fi
	done

	# (4) cleared: the RNG delivers again, and what it delivers is random
	if command -v rngtest > /dev/null; then
		out=$(timeout 300 dd if=/dev/hwrng bs=2500 count=11 iflag=fullblock 2>/dev/null | rngtest -c 10 2>&1)
		ktap_rngtest "after the stalls: rngtest FIPS 140-2 over 10 blocks" 10 "$out"
	else
		n=$(read_hwrng 4096)
		if [ "$n" = 4096 ]; then
			ktap_pass "after the stalls: /dev/hwrng delivers 4096 bytes"
		else
			ktap_fail "after the stalls: /dev/hwrng delivers 4096 bytes ($n)"
		fi
	fi
	bad=$(dmesg | tail -n +"$m0" | grep -E 'soft lockup|detected stall|rcu: INFO|hung_task|blocked for more than|BUG' || true)
	if [ -z "$bad" ]; then
		ktap_pass "stalled RNG: no soft lockup, RCU stall, hung task or BUG in the kernel log"
	else
		ktap_diag "$bad"
		ktap_fail "stalled RNG: no soft lockup, RCU stall, hung task or BUG in the kernel log"
	fi
	rm -rf "$tmp"
else
	ktap_skip "stalled RNG" "padlock-sim without rng_stall / rng_delay / rng_stall_spins, not the QEMU model"
fi

# ---- a C3/C7 CPU whose MSR 0x110B cannot be set up ----------------------------------
# padlock-rngfault makes padlock-rng's set-up of that MSR fail on cpu1 as it
# comes online (neither simulator can make the MSR itself fault).  cpu1 must
# come online all the same, the failure counted and logged, and the RNG left
# out there: a read running on cpu1 fails (at most the core's leftover
# buffer, <= 64 bytes), counts a failure and issues no XSTORE on cpu1, while
# cpu0 still delivers; once the helper is gone and cpu1 comes online again,
# cpu1 delivers too.  The hw_random fill thread is kept on cpu0.
CPU1=/sys/devices/system/cpu/cpu1/online
cpu1_xstore() { awk '$1 == "xstore" { print $2; exit }' $SIM/cpu1/counters 2>/dev/null; }
on_cpu_read() { timeout 60 taskset -c "$1" dd if=/dev/hwrng bs="$2" count=1 iflag=fullblock 2>/dev/null | wc -c; }
case "$PADLOCK_PROFILE" in
c3|c7)
	if [ ! -w $CPU1 ]; then
		ktap_skip "C3/C7: a CPU whose RNG MSR set-up fails" "no cpu1 to take offline (vm/run --smp 2)"
	elif [ ! -e "$PADLOCK_KO_DIR/padlock-rngfault.ko" ]; then
		ktap_skip "C3/C7: a CPU whose RNG MSR set-up fails" "padlock-rngfault.ko not built (it is built with padlock-sim)"
	else
		set_current padlock
		for p in $(pgrep -x hwrng); do taskset -pc 0 "$p" > /dev/null 2>&1; done
		m0=$(log_marker) mf0=$(cat $DBG/msr_failures)
		padlock_rmmod padlock_rngfault
		if ! err=$(padlock_insmod padlock-rngfault cpus=1 2>&1); then
			ktap_fail "padlock-rngfault loads: $err"
		else
			echo 0 > $CPU1
			if echo 1 > $CPU1 2> /tmp/online.err && [ "$(cat $CPU1)" = 1 ]; then
				ktap_pass "C3/C7: cpu1 comes online while padlock-rng's MSR set-up fails there"
				online=1
			else
				ktap_fail "C3/C7: cpu1 comes online while padlock-rng's MSR set-up fails there ($(cat /tmp/online.err))"
				online=0
			fi
			hits=$(cat /sys/module/padlock_rngfault/parameters/hits)
			mf1=$(cat $DBG/msr_failures)
			logged=$(dmesg | tail -n +"$m0" | grep -c 'padlock_rng: CPU 1: cannot set up the RNG' || true)
			if [ "$hits" -ge 1 ] && [ "$mf1" -gt "$mf0" ] && [ "$logged" -ge 1 ]; then
				ktap_pass "C3/C7: the failed set-up is counted (msr_failures $mf0 -> $mf1) and logged"
			else
				ktap_fail "C3/C7: the failed set-up is counted and logged (set-ups failed $hits, msr_failures $mf0 -> $mf1, $logged log lines)"
			fi
			if [ $online = 1 ]; then
				f0=$(cat $DBG/failures) x0=$(cpu1_xstore)
				got1=$(on_cpu_read 1 512)
				f1=$(cat $DBG/failures) x1=$(cpu1_xstore)
				got0=$(on_cpu_read 0 512)
				ktap_diag "cpu1: $got1 bytes, failures $f0 -> $f1, xstore on cpu1 ${x0:-?} -> ${x1:-?}; cpu0: $got0 bytes"
				if [ "$got1" -le 64 ] && [ "$f1" -gt "$f0" ] && [ "$x1" = "$x0" ] && [ "$got0" = 512 ]; then
					ktap_pass "C3/C7: no data from cpu1 ($got1 bytes from before, no XSTORE there), cpu0 delivers"
				else
					ktap_fail "C3/C7: no data from cpu1, cpu0 delivers (cpu1 $got1 bytes, failures $f0 -> $f1, xstore ${x0:-?} -> ${x1:-?}; cpu0 $got0 bytes)"
				fi
			fi
			padlock_rmmod padlock_rngfault
			echo 0 > $CPU1 2> /dev/null
			echo 1 > $CPU1
			mf2=$(cat $DBG/msr_failures)
			got1=$(on_cpu_read 1 512)
			if [ "$(cat $CPU1)" = 1 ] && [ "$mf2" = "$mf1" ] && [ "$got1" = 512 ]; then
				ktap_pass "C3/C7: set up again as cpu1 comes back, cpu1 delivers"
			else
				ktap_fail "C3/C7: set up again as cpu1 comes back, cpu1 delivers (online $(cat $CPU1), msr_failures $mf1 -> $mf2, $got1 bytes)"
			fi
		fi
	fi
	;;
*)
	ktap_skip "C3/C7: a CPU whose RNG MSR set-up fails" "no MSR 0x110B on profile $PADLOCK_PROFILE"
	;;
esac

# ---- unload / reload ---------------------------------------------------------------
if padlock_rmmod padlock_rng && padlock_insmod padlock-rng && set_current padlock &&
   [ "$(read_hwrng 256)" = 256 ]; then
	ktap_pass "unload and reload while idle"
else
	ktap_fail "unload and reload while idle"
fi
timeout 120 dd if=/dev/hwrng of=/dev/null bs=64 count=1000000 2>/dev/null &
reader=$!
sleep 2
if padlock_rmmod padlock_rng && [ ! -d /sys/module/padlock_rng ]; then
	ktap_pass "unload while /dev/hwrng is being read"
else
	ktap_fail "unload while /dev/hwrng is being read"
fi
kill "$reader" 2>/dev/null
wait "$reader" 2>/dev/null
if padlock_insmod padlock-rng && set_current padlock && [ "$(read_hwrng 256)" = 256 ]; then
	ktap_pass "reload after an unload under load"
else
	ktap_fail "reload after an unload under load"
fi

# ---- next to the in-tree via-rng -----------------------------------------------------
# Both use one XSTORE (rDX = 3) per byte, ours never a REP XSTORE.  Counted
# on the reader's own CPU (cpu1), with the hw_random fill thread, which
# reads the current RNG too, pinned to cpu0 (where taskset may do that).
cpu_insns() {
	local f=$SIM/cpu1/counters
	[ -r $f ] || f=$SIM/counters
	awk '$1 == "xstore" || $1 == "rep_xstore" { n += $2 } END { print n + 0 }' $f
}
cpu_rep() {
	local f=$SIM/cpu1/counters
	[ -r $f ] || f=$SIM/counters
	awk '$1 == "rep_xstore" { print $2; exit }' $f
}
if [ -r $SIM/counters ] && modprobe via_rng 2>/dev/null && grep -qw via $HW/rng_available; then
	ktap_pass "coexists with in-tree via-rng ($(cat $HW/rng_available))"
	nbytes=16384
	declare -A per ms rep
	for r in via padlock; do
		if ! set_current $r; then
			ktap_diag "$r cannot become rng_current: $(dmesg | grep -i -E 'via.rng|hw_random' | tail -n 1)"
			continue
		fi
		for p in $(pgrep -x hwrng); do taskset -pc 0 "$p" > /dev/null 2>&1; done
		read_hwrng 64 > /dev/null
		i0=$(cpu_insns) r0=$(cpu_rep)
		t0=$(date +%s%N)
		got=$(timeout 60 taskset -c 1 dd if=/dev/hwrng bs=$nbytes count=1 iflag=fullblock 2>/dev/null | wc -c)
		t1=$(date +%s%N)
		i1=$(cpu_insns) r1=$(cpu_rep)
		per[$r]=$(awk -v d=$((i1 - i0)) -v n="$got" 'BEGIN { printf "%.4f", n ? d / n : -1 }')
		ms[$r]=$(( (t1 - t0) / 1000000 ))
		rep[$r]=$((r1 - r0))
		ktap_diag "$r: $got bytes, $((i1 - i0)) xstore/rep xstore (${rep[$r]} rep), ${per[$r]} per byte, ${ms[$r]} ms"
	done
	if [ -z "${per[via]}" ]; then
		# via-rng's init reads MSR 0x110B on C3/C7 to check the enable
		# bit; QEMU TCG does not model that MSR (reads 0), so it refuses.
		ktap_skip "instructions per byte next to via-rng" "via-rng cannot become rng_current on $PADLOCK_PROFILE under QEMU"
	elif [ -n "${per[padlock]}" ] && [ "${rep[padlock]}" = 0 ] &&
	   awk -v o="${per[padlock]}" -v t="${per[via]}" 'BEGIN { exit !(o >= 0 && o <= t) }'; then
		ktap_pass "ours uses no more PadLock instructions per byte than via-rng, and no REP XSTORE"
	else
		ktap_fail "ours uses no more PadLock instructions per byte than via-rng, and no REP XSTORE (${per[padlock]} vs ${per[via]}, ${rep[padlock]:-?} REP XSTOREs)"
	fi
	padlock_rmmod via_rng
	set_current padlock
else
	ktap_skip "side by side with via-rng" "in-tree via_rng does not load here, or no sim counters"
fi

v=$(sim_counter violations)
if [ "${v:-0}" = 0 ]; then ktap_pass "padlock-sim violations: 0"; else ktap_fail "padlock-sim violations: $v"; fi
ktap_finish
