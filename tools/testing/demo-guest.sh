#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Inside the demo VM (tools/testing/demo): load the drivers, show what the kernel
# selected, run padlock-bench.
set -u
cd "$PADLOCK_TOP" || exit 1
# padlock_insmod: insmod with the module's dependencies loaded first
. selftests/padlock/lib/ktap-lib.sh
echo "== CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-) ($(head -n1 /sys/kernel/debug/padlock-sim/profile 2>/dev/null || echo real hardware))"
echo "== flags: $(grep -m1 '^flags' /proc/cpuinfo | grep -o -w -E 'rng(_en)?|ace2?(_en)?|phe(_en)?' | tr '\n' ' ')"
for m in padlock-aes padlock-sha padlock-rng; do
	if padlock_insmod "$m" 2>/dev/null; then
		echo "== loaded $m"
	else
		echo "== $m did not load: $(dmesg | grep "${m//-/_}" | tail -n1)"
	fi
done
echo "== selected by the kernel (highest priority) and self-test results:"
python3 - <<'PY'
import re
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
echo
out="$PADLOCK_TOP/build/demo"
mkdir -p "$out"
# the trap's entry and exit belong to the simulator, not to the software
# path the projection keeps: measure them (trap_overhead_cycles)
if [ -d /sys/kernel/debug/padlock-sim ]; then
	if n=$(sim_calibrate); then
		echo "== padlock-sim trap entry and exit: $n cycles each, taken out of the measured path"
	else
		echo "== padlock-sim trap entry and exit not calibrated (padlock-simtest.ko missing): the projected paths include them"
	fi
fi
# OpenSSL's speed through the padlock provider (provider/, built here) and
# through OpenSSL's default provider, AES-128-CBC at 16 B and 16 KiB, one
# second of guest time each, projected like the rows above
# (tools/measure/openssl-speed-icount.sh, docs/performance.md 5.1); only
# under --icount, where a second of guest time is 10^9 instructions
speed_projected() {
	local p=/sys/module/padlock_sim/parameters/interrupt_rate rate cpu t0
	[ "${PADLOCK_ICOUNT:-0}" = 1 ] && command -v openssl > /dev/null &&
		[ -e /usr/include/openssl/core_dispatch.h ] &&
		cpu=$(python3 tools/measure/project.py --profile-cpu "${PADLOCK_PROFILE:-nano}") ||
		return 0
	# no injected interruptions while timing: each would be a second trap
	t0=$SECONDS
	rate=$(cat "$p")
	echo 0 > "$p"
	SPEED_IMPLS="software provider" SPEED_MODES=cbc SPEED_SIZES="16 16384" SPEED_SECONDS=1 \
		SPEED_POPF=0 bash tools/measure/openssl-speed-icount.sh > "$out/openssl-speed.csv" 2>&1
	echo "$rate" > "$p"
	echo
	echo "== PROJECTED (a model): openssl speed -evp aes-128-cbc through the padlock provider (-propquery provider=padlock) against OpenSSL's default provider, each call's path as above ($((SECONDS - t0)) s in the VM)"
	python3 tools/measure/project.py --measured "$out/openssl-speed.csv" --speed --cpu "$cpu" |
		tee "$out/openssl-speed.txt"
}

# the measured tables go to a file: under the simulator the projection leads
tools/padlock-bench/padlock-bench all "$@" --json "$out/report.json" --csv "$out/report.csv" \
	--plot "$out/afalg.png" > "$out/bench.txt"
rc=$?
if [ -d /sys/kernel/debug/padlock-sim ] && [ -s "$out/report.csv" ]; then
	echo
	echo "== PROJECTED (a model): each AF_ALG request's measured software path (guest instructions minus the simulator's share) plus the PadLock engine's cycles from tools/padlock-bench/cpu-models.conf, on the CPU the simulator plays; dm-crypt (MB/s of disk I/O) and IPsec (Mbit/s of iperf3 payload over ESP) the same per fio I/O and per ESP packet, from the whole machine's busy instructions while fio or iperf3 ran, less a run of the same job for one I/O or write"
	python3 tools/measure/project.py --bench "$out/report.csv" --headline | tee "$out/projected.txt"
	# padlock-bench's own projected rows (bench.txt) against project.py's
	if python3 selftests/padlock/lib/bench_check.py "$out/report.json" --projection \
		--csv "$out/report.csv" --text "$out/bench.txt" > "$out/projection-check.txt" 2>&1; then
		echo "== padlock-bench's projected rows equal tools/measure/project.py's: $(tail -n 1 "$out/projection-check.txt")"
	else
		echo "== padlock-bench's projected rows DISAGREE with tools/measure/project.py's:"
		cat "$out/projection-check.txt"
		[ "$rc" = 0 ] && rc=1
	fi
	speed_projected
	echo
	echo "== MEASURED under QEMU: $([ "${PADLOCK_ICOUNT:-0}" = 1 ] && echo "guest time counted in instructions (-icount: 1 MB/s = 1 byte per 1,000 guest instructions)" || echo "host wall time of the emulation"); the PadLock rows time padlock-sim, not silicon"
fi
cat "$out/bench.txt"
if [ -r /sys/kernel/debug/padlock-sim/counters ]; then
	echo
	echo "== padlock-sim instruction counters for the whole demo:"
	sed 's/^/   /' /sys/kernel/debug/padlock-sim/counters
fi
exit $rc
