#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest side of the cost model's validation (docs/performance.md
# section 5): OpenSSL's `speed` for AES-128 ECB and CBC, software and through
# OpenSSL's padlock engine, one size at a time, with padlock-sim's cost file
# read around every run.  Meant for a guest booted with
#   tools/testing/vm/run --icount --kernel 6.1-686 --profile c3 \
#       --sim-args interrupt_rate=0 -- bash tools/measure/openssl-speed-icount.sh
# where guest time is executed instructions.  Prints one CSV row per run:
#   impl,mode,size,ops,guest_ns,traps,handler_cycles,trap_overhead_cycles,
#   popf_seen,violations
# (guest_ns: the elapsed guest time of the run, `speed -elapsed`; traps and
# handler cycles: the simulator's cost-file deltas over the run).
# tools/measure/project.py --measured FILE turns them into instructions per call.
#
# The user-mode set-up of the engine (CPUID sites, key-reload sites) is
# the one sim-openssl.sh uses: selftests/padlock/lib/openssl-engine-lib.sh.
set -u
cd "$PADLOCK_TOP" || exit 1
sim=/sys/kernel/debug/padlock-sim
secs=${SPEED_SECONDS:-3}
sizes=${SPEED_SIZES:-16 64 256 1024 8192}
modes=${SPEED_MODES:-ecb cbc}

# shellcheck source=selftests/padlock/lib/openssl-engine-lib.sh
. selftests/padlock/lib/openssl-engine-lib.sh
# shellcheck source=selftests/padlock/lib/ktap-lib.sh
. selftests/padlock/lib/ktap-lib.sh

[ -d "$sim" ] || { echo "# padlock-sim is not loaded"; exit 1; }
so=$(openssl_engine_so)
[ -n "$so" ] || { echo "# no padlock engine (engines-3/padlock.so)"; exit 1; }
trap 'echo clear > "$sim/user_cpuid"; echo clear > "$sim/user_popf"' EXIT
n=$(openssl_engine_cpuid "$sim" "$so")
[ "$n" -ge 2 ] || { echo "# found $n of the engine's CPUID sites"; exit 1; }
# SPEED_POPF=0 leaves the key-reload sites out: each is a uprobe (two traps
# the cost file does not see) hit once per call, while the speed loop never
# changes its key
[ "${SPEED_POPF:-1}" = 0 ] || echo "# key reloads watched at $(openssl_engine_popf "$sim" "$so") sites"
openssl engine -t padlock 2>&1 | sed 's/^/# /'

# the trap's entry/exit path, as tools/measure/path-length.py measures it
sim_calibrate > /dev/null

ctr() { awk -v k="$1" '$1 == k { print $2 }' "$sim/counters"; }
# SPEED_COMPACT=1: OpenSSL's software AES on 32-bit x86 takes a table-driven
# fast path for CBC above 512 bytes and its compact (cache-timing-hardened)
# routine everywhere else, ECB included, unless CPUID says hyper-threading
# (bit 28), when it takes the compact one always.  With the CPU's own
# capability vector plus bit 28 (OPENSSL_ia32cap), ECB and CBC run the same
# per-block code, as they did in 2005's OpenSSL (C, both modes alike).
if [ "${SPEED_COMPACT:-0}" = 1 ]; then
	modprobe cpuid 2>/dev/null
	OPENSSL_ia32cap=$(python3 -c '
import os, struct
fd = os.open("/dev/cpu/0/cpuid", os.O_RDONLY)
a, b, c, d = struct.unpack("<4I", os.pread(fd, 16, 1))
print(hex((c << 32) | d | 1 << 28))') || exit 1
	export OPENSSL_ia32cap
	echo "# OPENSSL_ia32cap=$OPENSSL_ia32cap (compact AES in every mode)"
fi

cost() { # traps handler_cycles trap_overhead_cycles
	awk '$1 == "trap_overhead_cycles" { o = $2; next }
	     { n += $2; c += $3 } END { printf "%.0f %.0f %.0f\n", n, c, o }' "$sim/cost"
}

echo "# kernel $(uname -r), profile ${PADLOCK_PROFILE:-?}, icount ${PADLOCK_ICOUNT:-0}," \
	"openssl $(openssl version | cut -d' ' -f2), ${secs}s per run," \
	"popf sites ${SPEED_POPF:-1}"
# a first run whose figures are thrown away: the first `openssl speed` of a
# boot reported a shorter elapsed time than it ran (2.83 s of 3)
openssl speed -elapsed -seconds 1 -bytes 16 -evp aes-128-ecb > /dev/null 2>&1
echo "impl,mode,size,ops,guest_ns,traps,handler_cycles,trap_overhead_cycles,popf_seen,violations"
for impl in ${SPEED_IMPLS:-software padlock}; do
	eng=()
	[ $impl = padlock ] && eng=(-engine padlock)
	for mode in $modes; do
		for n in $sizes; do
			read -r t0 c0 _ < <(cost)
			p0=$(ctr popf_seen) v0=$(ctr violations)
			out=$(openssl speed "${eng[@]}" -elapsed -seconds "$secs" \
				-bytes "$n" -evp "aes-128-$mode" 2>&1)
			read -r t1 c1 o < <(cost)
			p1=$(ctr popf_seen) v1=$(ctr violations)
			# "Doing AES-128-ECB ops for 1s on 16 size blocks: 123 AES-128-ECB ops in 1.00s"
			l=$(grep -m1 '^Doing' <<< "$out")
			ops=$(sed -n 's/.*: \([0-9]\+\) .* in \([0-9.]\+\)s.*/\1/p' <<< "$l")
			s=$(sed -n 's/.*: \([0-9]\+\) .* in \([0-9.]\+\)s.*/\2/p' <<< "$l")
			if [ -z "$ops" ]; then
				echo "# $impl $mode $n: no result: $(tail -n 3 <<< "$out" | tr '\n' ' ')"
				continue
			fi
			ns=$(awk -v s="$s" 'BEGIN { printf "%.0f", s * 1e9 }')
			echo "$impl,$mode,$n,$ops,$ns,$((t1 - t0)),$((c1 - c0)),$o,$((p1 - p0)),$((v1 - v0))"
		done
	done
done
