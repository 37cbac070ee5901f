#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Inside the demo VM (tools/testing/demo): load the drivers, show what the
# kernel selected, run padlock-bench and OpenSSL's speed through the
# provider, and print the projection (a model) onto the CPU the simulator
# plays.  Everything measured (padlock-bench's tables, which time the
# simulator, not silicon; its JSON, CSV and plot; the simulator's counters;
# the check of the projected rows) goes to build/demo/ only.
#
# usage: demo-guest.sh [--full]   (--full: padlock-bench's whole run
#                                   instead of the demo's short one)
set -u
cd "$PADLOCK_TOP" || exit 1
# padlock_insmod: insmod with the module's dependencies loaded first
. selftests/padlock/lib/ktap-lib.sh
out="$PADLOCK_TOP/build/demo"
mkdir -p "$out"
full=0
[ "${1:-}" = --full ] && full=1
rc=0
# the host's clock for the timings: a file touched over 9p gets the
# host's time, while the guest's own clock counts instructions (-icount)
t_last=
mark() {
	local now
	touch "$out/.clock" && now=$(stat -c %Y "$out/.clock") || return 0
	[ -n "$t_last" ] && echo "$1 $((now - t_last)) s (host wall time)" >> "$out/timings.txt"
	t_last=$now
}
: > "$out/timings.txt"
mark start

sim=/sys/kernel/debug/padlock-sim
# the CPU the simulator plays, by its name in the cost model
plays=$(sec=$(python3 tools/measure/project.py --profile-cpu "${PADLOCK_PROFILE:-}" 2>/dev/null) &&
	awk -v s="[$sec]" '$0 == s { f = 1; next } /^\[/ { f = 0 }
		f && $1 == "name" { sub(/^name *= */, ""); print; exit }' tools/padlock-bench/cpu-models.conf)
prof=$(head -n1 $sim/profile 2>/dev/null | cut -d' ' -f1-7)
echo "== CPU: ${plays:-profile ${PADLOCK_PROFILE:-?}}, played by padlock-sim (${prof:-not loaded})" \
	"on QEMU's$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
echo "   kernel $(uname -r); PadLock flags in /proc/cpuinfo:" \
	"$(grep -m1 '^flags' /proc/cpuinfo | grep -o -w -E 'rng(_en)?|ace2?(_en)?|phe(_en)?' | tr '\n' ' ')"
loaded=
for m in padlock-aes padlock-sha padlock-rng; do
	if padlock_insmod "$m" 2>/dev/null; then
		loaded="$loaded $m"
	else
		echo "== $m did not load: $(dmesg | grep "${m//-/_}" | tail -n1)"
		rc=1
	fi
done
echo "== loaded:$loaded; what the kernel selected (highest priority) and its self-test:"
python3 - <<'PY'
algs = {}
cur = {}
for line in open('/proc/crypto'):
    line = line.strip()
    if not line:
        if cur:
            algs.setdefault(cur.get('name'), []).append(cur)
        cur = {}
        continue
    k, _, v = line.partition(':')
    cur[k.strip()] = v.strip()
for name in ['aes', 'ecb(aes)', 'cbc(aes)', 'ctr(aes)', 'xts(aes)', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512']:
    c = sorted(algs.get(name, []), key=lambda a: -int(a.get('priority', 0)))
    if c:
        best = c[0]
        print(f"   {name:9} -> {best['driver']:22} prio {best['priority']:4}  selftest {best.get('selftest', '?')}"
              f"   (others: {', '.join(a['driver'] for a in c[1:4])})")
PY
if [ -r /dev/hwrng ]; then
	echo "== hwrng: current $(cat /sys/class/misc/hw_random/rng_current), available: $(cat /sys/class/misc/hw_random/rng_available)"
fi
mark load

# the trap's entry and exit belong to the simulator, not to the software
# path the projection keeps: measure them (trap_overhead_cycles)
if [ -d $sim ]; then
	if n=$(sim_calibrate); then
		echo "padlock-sim trap entry and exit: $n cycles each, taken out of the measured path" > "$out/calibration.txt"
	else
		echo "padlock-sim trap entry and exit not calibrated (padlock-simtest.ko missing): the projected paths include them" |
			tee "$out/calibration.txt"
	fi
fi
mark calibrate

# padlock-bench: the measured tables (they time padlock-sim, not silicon) to
# a file; the demo's run keeps the sizes and tests the projection shows
if [ $full = 1 ]; then
	args=()
else
	args=(--quick --runs 1 --sizes "${DEMO_SIZES:-16,1024,65536}")
fi
tools/padlock-bench/padlock-bench all "${args[@]}" --json "$out/report.json" --csv "$out/report.csv" \
	--plot "$out/afalg.png" > "$out/bench.txt" 2> "$out/bench.err"
brc=$?
if [ $brc != 0 ]; then
	echo "== padlock-bench failed (exit $brc): build/demo/bench.txt, bench.err"
	tail -n 5 "$out/bench.err" | sed 's/^/   /'
	rc=1
fi
mark padlock-bench

# OpenSSL's speed through the padlock provider (built by the demo on the
# host) and through OpenSSL's default provider, for what the provider
# offers on a Nano (AES-128-CBC and -CTR, SHA-1, SHA-256; docs/performance.md
# 5.2) at 16 B and 16 KiB, one second of guest time each
# (tools/measure/openssl-speed-icount.sh, docs/performance.md 5.1); only
# under --icount, where a second of guest time is 10^9 instructions
speed=0
if [ "${PADLOCK_ICOUNT:-0}" = 1 ] && [ -d $sim ] && [ -e "$out/provider/padlock.so" ] &&
   cpu=$(python3 tools/measure/project.py --profile-cpu "${PADLOCK_PROFILE:-nano}"); then
	# no injected interruptions while timing: each would be a second trap
	p=/sys/module/padlock_sim/parameters/interrupt_rate
	rate=$(cat $p)
	echo 0 > $p
	if SPEED_PROVIDER=$out/provider/padlock.so SPEED_IMPLS="software provider" SPEED_MODES="cbc ctr sha1 sha256" SPEED_SIZES="16 16384" SPEED_SECONDS=1 \
		SPEED_POPF=0 bash tools/measure/openssl-speed-icount.sh > "$out/openssl-speed.csv" 2>&1 &&
	   python3 tools/measure/project.py --measured "$out/openssl-speed.csv" --speed --cpu "$cpu" \
		> "$out/openssl-speed.txt" 2>&1; then
		speed=1
	else
		echo "== openssl speed through the provider failed: build/demo/openssl-speed.csv, openssl-speed.txt"
		rc=1
	fi
	echo "$rate" > $p
fi
mark openssl-speed

if [ -d $sim ] && [ -s "$out/report.csv" ]; then
	python3 tools/measure/project.py --bench "$out/report.csv" --headline > "$out/projected.txt" 2>&1 || rc=1
	# padlock-bench's own projected rows (bench.txt) against project.py's
	if ! python3 selftests/padlock/lib/bench_check.py "$out/report.json" --projection \
		--csv "$out/report.csv" --text "$out/bench.txt" > "$out/projection-check.txt" 2>&1; then
		echo "== padlock-bench's projected rows DISAGREE with tools/measure/project.py's (build/demo/projection-check.txt):"
		head -n 5 "$out/projection-check.txt" | sed 's/^/   /'
		rc=1
	fi
	echo
	if [ $speed = 1 ]; then
		python3 tools/measure/project.py --brief --bench "$out/report.csv" --measured "$out/openssl-speed.csv"
	else
		python3 tools/measure/project.py --brief --bench "$out/report.csv"
	fi || rc=1
fi
[ -r $sim/counters ] && cp $sim/counters "$out/counters.txt"
mark report
exit $rc
