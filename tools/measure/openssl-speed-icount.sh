#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest side of the cost model's validation and of the provider's speed
# (docs/performance.md sections 5 and 5.1): OpenSSL's `speed`, one algorithm
# and size at a time, in software (OpenSSL's default provider), through
# OpenSSL 3's padlock engine and through this project's provider
# (provider/, built here in the guest), with padlock-sim's cost file read
# around every run.  Meant for a guest booted with
#   tools/testing/vm/run --icount --kernel 6.1-686 --profile c3 \
#       --sim-args interrupt_rate=0 -- bash tools/measure/openssl-speed-icount.sh
# where guest time is executed instructions.  Prints one CSV row per run:
#   impl,mode,size,ops,guest_ns,traps,handler_cycles,trap_overhead_cycles,
#   popf_seen,violations,classes,cpu_ns
# (guest_ns: the elapsed guest time of the run, `speed -elapsed`; cpu_ns: the
# CPU time of the whole `openssl speed` process; traps and
# handler cycles: the simulator's cost-file deltas over the run; classes:
# the traps per opcode class, e.g. "xcrypt-ecb:1754", which says whose
# implementation ran).
# tools/measure/project.py --measured FILE turns them into instructions per call.
#
#   SPEED_IMPLS    software padlock provider (default: software padlock)
#                  software = OpenSSL's default provider, padlock = the
#                  engine, provider = provider/ with -propquery provider=padlock
#   SPEED_MODES    ecb cbc (default), also ctr, gcm (aes-128-MODE), sha1 and
#                  sha256
#   SPEED_SIZES    16 64 256 1024 8192 (default)
#   SPEED_SECONDS  3 (default): seconds of guest time per run
#   SPEED_PROVIDER a padlock.so built already (default: built here)
#   SPEED_TWICE    1 (default): the first size of each impl and mode a
#                  second time, twice as long: the process's start-up (CPU
#                  time, PadLock instructions), taken out by project.py; 0: not
#
# The user-mode set-up of the engine (CPUID sites, key-reload sites) is
# the one sim-openssl.sh uses: selftests/padlock/lib/openssl-engine-lib.sh;
# the provider's CPUID sites are found the same way (provider.sh).
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

impls=${SPEED_IMPLS:-software padlock}
[ -d "$sim" ] || { echo "# padlock-sim is not loaded"; exit 1; }
tmp=$(mktemp -d)
trap 'echo clear > "$sim/user_cpuid"; echo clear > "$sim/user_popf"; rm -rf "$tmp"' EXIT
if [[ " $impls " == *" padlock "* ]]; then
	so=$(openssl_engine_so)
	[ -n "$so" ] || { echo "# no padlock engine (engines-3/padlock.so)"; exit 1; }
	n=$(openssl_engine_cpuid "$sim" "$so")
	[ "$n" -ge 2 ] || { echo "# found $n of the engine's CPUID sites"; exit 1; }
	# SPEED_POPF=0 leaves the key-reload sites out: each is a uprobe (two
	# traps the cost file does not see) hit once per call, while the speed
	# loop never changes its key
	[ "${SPEED_POPF:-1}" = 0 ] ||
		echo "# key reloads watched at $(openssl_engine_popf "$sim" "$so") sites"
	openssl engine -t padlock 2>&1 | sed 's/^/# /'
fi
if [[ " $impls " == *" provider "* ]]; then
	pso=${SPEED_PROVIDER:-}
	if [ -z "$pso" ]; then
		# the provider's own build (-O2), as an installation makes it
		make -s -C provider OUT="$tmp" > "$tmp/build.log" 2>&1 ||
			{ sed 's/^/# /' "$tmp/build.log"; exit 1; }
		pso=$tmp/padlock.so
	fi
	n=$(openssl_engine_cpuid "$sim" "$pso")
	[ "$n" -ge 2 ] || { echo "# found $n of the provider's CPUID sites"; exit 1; }
	export OPENSSL_MODULES=${pso%/*}
	openssl list -providers -verbose -provider padlock 2>&1 |
		sed -n 's/^ *build info: /# provider: /p'
fi

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
# the cost file's trap counts per opcode class, "class:count ..."
classes() { awk '$1 != "trap_overhead_cycles" && $2 { printf "%s:%s ", $1, $2 }' "$sim/cost"; }
# the difference of two classes() readings, classes that ran only
class_delta() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		n = split(a, x, " "); for (i = 1; i <= n; i++) { split(x[i], y, ":"); c[y[1]] = -y[2] }
		n = split(b, x, " "); for (i = 1; i <= n; i++) { split(x[i], y, ":"); c[y[1]] += y[2] }
		s = ""; for (k in c) if (c[k]) s = s (s ? " " : "") k ":" c[k]; print s }'
}

echo "# kernel $(uname -r), profile ${PADLOCK_PROFILE:-?}, icount ${PADLOCK_ICOUNT:-0}," \
	"openssl $(openssl version | cut -d' ' -f2), ${secs}s per run," \
	"popf sites ${SPEED_POPF:-1}"
# a first run whose figures are thrown away: the first `openssl speed` of a
# boot reported a shorter elapsed time than it ran (2.83 s of 3)
openssl speed -elapsed -seconds 1 -bytes 16 -evp aes-128-ecb > /dev/null 2>&1
# CMD... and then "cpu_ns N": the CPU time CMD's process took, user and
# system (the simulator's handler runs in the trapping process), in ns of
# guest time with microsecond resolution.  Unlike the time `speed` prints,
# it holds the whole loop, however late its alarm came (a handler runs
# with interrupts off for up to ~1.7 ms of guest time at 16 KiB), and
# unlike the wall time of the process no idle time (its start-up reads
# files from the host)
cpu_time() {
	python3 -c '
import os
import sys
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
_, status, ru = os.wait4(pid, 0)
print(f"cpu_ns {round((ru.ru_utime + ru.ru_stime) * 1e9)}")
sys.exit(os.waitstatus_to_exitcode(status))' "$@"
}

# one run: impl mode size seconds
run() {
	local t0 c0 k0 p0 v0 t1 c1 k1 p1 v1 o out l ops s ns cpu
	read -r t0 c0 _ < <(cost)
	k0=$(classes)
	p0=$(ctr popf_seen) v0=$(ctr violations)
	out=$(cpu_time openssl speed "${how[@]}" -elapsed -seconds "$4" -bytes "$3" -evp "$alg" 2>&1)
	read -r t1 c1 o < <(cost)
	k1=$(classes)
	p1=$(ctr popf_seen) v1=$(ctr violations)
	# "Doing AES-128-ECB ops for 1s on 16 size blocks: 123 AES-128-ECB ops in 1.00s"
	l=$(grep -m1 '^Doing' <<< "$out")
	ops=$(sed -n 's/.*: \([0-9]\+\) .* in \([0-9.]\+\)s.*/\1/p' <<< "$l")
	s=$(sed -n 's/.*: \([0-9]\+\) .* in \([0-9.]\+\)s.*/\2/p' <<< "$l")
	if [ -z "$ops" ]; then
		echo "# $1 $2 $3: no result: $(tail -n 3 <<< "$out" | tr '\n' ' ')"
		return
	fi
	ns=$(awk -v s="$s" 'BEGIN { printf "%.0f", s * 1e9 }')
	cpu=$(sed -n 's/^cpu_ns //p' <<< "$out")
	echo "$1,$2,$3,$ops,$ns,$((t1 - t0)),$((c1 - c0)),$o,$((p1 - p0)),$((v1 - v0)),$(class_delta "$k0" "$k1"),$cpu"
}

echo "impl,mode,size,ops,guest_ns,traps,handler_cycles,trap_overhead_cycles,popf_seen,violations,classes,cpu_ns"
for impl in $impls; do
	case $impl in
	padlock) how=(-engine padlock) ;;
	# only the provider's implementation: a fetch that padlock cannot
	# answer fails instead of falling back to the default provider
	provider) how=(-provider padlock -provider default -propquery provider=padlock) ;;
	*) how=() ;;
	esac
	for mode in $modes; do
		case $mode in
		sha*) alg=$mode ;;
		*) alg=aes-128-$mode ;;
		esac
		first=1
		for n in $sizes; do
			run "$impl" "$mode" "$n" "$secs"
			# the first size twice as long again: the two runs give
			# the process's cost outside the timed loop (start-up
			# CPU time and PadLock instructions), which project.py
			# takes out of every row of this impl and mode
			[ $first = 1 ] && [ "${SPEED_TWICE:-1}" = 1 ] &&
				run "$impl" "$mode" "$n" $((2 * secs))
			first=0
		done
	done
done
