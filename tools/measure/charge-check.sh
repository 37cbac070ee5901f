#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The QEMU model's charged engine time (tools/testing/vm/run --charge) against
# tools/measure/project.py on the same workload: padlock-bench --quick afalg
# with our drivers, in three VMs under --icount,
#   sim      padlock-sim (project.py --bench projects its rows)
#   plain    the project's QEMU, no charge (the software path alone)
#   charged  the project's QEMU charging MODEL's engine cycles
# then tools/measure/charge-compare.py prints, per PadLock row, the engine
# time the charged run added against project.py's engine cycles, and the
# projections of both ways.  Three VMs one after another, about 3 minutes
# each on 2 cores.
#
# usage: tools/measure/charge-check.sh [--kernel K] [--profile P] [--model M]
#                                      [--sizes LIST] [--out DIR]
#   defaults: 6.1, nano, the profile's section of cpu-models.conf ([profiles]),
#   16,1024,65536, build/charge-check
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)

if [ "${1:-}" = --guest ]; then
	# in the guest: our AES and SHA drivers, then the benchmark
	. "$top/selftests/padlock/lib/ktap-lib.sh"
	for m in padlock-aes padlock-sha; do
		[ -d /sys/module/${m//-/_} ] || padlock_insmod $m
	done
	exec "$top/tools/padlock-bench/padlock-bench" --quick --sizes "$3" --csv "$2" afalg
fi

kernel=6.1 profile=nano model= sizes=16,1024,65536 out=$top/build/charge-check
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=$2; shift 2 ;;
	--profile) profile=$2; shift 2 ;;
	--model) model=$2; shift 2 ;;
	--sizes) sizes=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	-h|--help) sed -n '3,20p' "$0"; exit 0 ;;
	*) echo "charge-check: unknown option $1 (see --help)" >&2; exit 2 ;;
	esac
done
conf=$top/tools/padlock-bench/cpu-models.conf
if [ -z "$model" ]; then
	model=$(awk -v p="$profile" '/^\[/ { s = $0 } s == "[profiles]" && $1 == p { print $3 }' "$conf")
	[ -n "$model" ] || { echo "charge-check: profile $profile has no model in $conf (--model)" >&2; exit 2; }
fi
[ -x "$top/tools/padlock-bench/padlock-bench" ] ||
	{ echo "charge-check: build tools/padlock-bench first (make -C tools/padlock-bench)" >&2; exit 2; }
mkdir -p "$out"
run="$top/tools/testing/vm/run --kernel $kernel --profile $profile --icount --timeout 1800"
for kind in sim plain charged; do
	case $kind in
	# no injected interruptions: they re-execute instructions at random
	sim) opts=(--sim-args interrupt_rate=0) ;;
	plain) opts=(--cpu-model qemu) ;;
	charged) opts=(--cpu-model qemu --charge "$model") ;;
	esac
	start=$(date +%s)
	$run "${opts[@]}" -- "$0" --guest "$out/$kind.csv" "$sizes" > "$out/$kind.log" 2>&1 ||
		{ echo "charge-check: the $kind VM failed (see $out/$kind.log)" >&2; exit 1; }
	echo "charge-check: $kind VM $(( $(date +%s) - start ))s"
done
"$top/tools/measure/charge-compare.py" --cpu "$model" \
	--sim "$out/sim.csv" --plain "$out/plain.csv" --charged "$out/charged.csv"
