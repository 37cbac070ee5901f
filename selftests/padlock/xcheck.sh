#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# padlock-sim and the QEMU model check each other (docs/testing.md, "The
# cross-check"): random user-mode PadLock instruction streams
# (lib/xcheck_exec.c: every xcrypt mode, key size and schedule, odd control
# words, block counts, alignments, inputs ending at an unmapped page, in
# place; xsha in both modes; xstore) run on the CPU model of this VM, and
# each instruction's record must equal the one the other implementation
# produced for the same seed.
#
# The other implementation's records come as digests, one per instruction,
# from selftests/padlock/xcheck-ref/PROFILE-SEED (written by
# tools/testing/xcheck --write-ref after both models agreed on them).  A
# mismatch names the first differing instruction with its inputs and the
# command that runs it alone.  PADLOCK_XCHECK_OUT=DIR also writes the full
# records there (tools/testing/xcheck diffs them across two VMs).
#
# PADLOCK_XCHECK_SEEDS (default "1 2"), PADLOCK_XCHECK_COUNT (default 3000;
# 100000 at PADLOCK_SCALE=long, where no reference exists and only
# PADLOCK_XCHECK_OUT records are written for the host to compare).
dir=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=selftests/padlock/lib/ktap-lib.sh
. "$dir/lib/ktap-lib.sh"
# shellcheck source=selftests/padlock/lib/guest-build.sh
. "$dir/lib/guest-build.sh"

ktap_header
model=${PADLOCK_CPU_MODEL:-sim}
profile=$PADLOCK_PROFILE
case $profile in
c3|c7|nano|nano-s2|zhaoxin|zhaoxin-sh) ;;
*) ktap_skip_all "no PadLock profile ($profile)" ;;
esac
[ "$model" = qemu ] || padlock_need_sim "padlock-sim's user-mode trap path"
cc=$(command -v gcc || command -v cc) ||
	ktap_skip_all "no C compiler in this root (the executor is built in the guest)"
case "$PADLOCK_SCALE" in
long) count=${PADLOCK_XCHECK_COUNT:-100000} ;;
*) count=${PADLOCK_XCHECK_COUNT:-3000} ;;
esac
seeds=${PADLOCK_XCHECK_SEEDS:-1 2}
# zhaoxin-sh differs from zhaoxin only in CPUID: the same references
refprof=${profile%-sh}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# built on the host for this root when current (lib/guest-build.sh)
if ! out=$(guest_cc "$PADLOCK_TOP" "$tmp/xcheck_exec" selftests/padlock/lib/xcheck_exec.c \
	drivers/test 2>&1); then
	ktap_diag "$out"
	ktap_fail "build lib/xcheck_exec.c"
	ktap_finish
fi

# The streams break the PadLock rules on purpose (misaligned operands, bad
# control words): padlock-sim counts those as expected violations while
# expect_violations is set; the QEMU model has no such switch, so the
# #GPs it counts during the streams are left in
# /run/padlock-deliberate-violations for final.sh.
simdir=/sys/kernel/debug/padlock-sim
if [ -d "$simdir" ]; then
	echo 1 > "$simdir/expect_violations"
	trap 'echo 0 > "$simdir/expect_violations"; rm -rf "$tmp"' EXIT
else
	v0=$(sim_counter violations)
fi
for seed in $seeds; do
	rec=$tmp/$seed
	t0=$SECONDS
	"$tmp/xcheck_exec" "$model" "$refprof" "$seed" "$count" > "$rec"
	rc=$?
	n=$(wc -l < "$rec")
	ktap_diag "seed $seed: $n instructions in $((SECONDS - t0)) s on $model/$profile"
	if [ $rc != 0 ] || [ "$n" != "$count" ]; then
		ktap_fail "seed $seed: executor ran $n of $count instructions (exit $rc)"
		continue
	fi
	if [ -n "${PADLOCK_XCHECK_OUT:-}" ]; then
		mkdir -p "$PADLOCK_XCHECK_OUT" &&
			cp "$rec" "$PADLOCK_XCHECK_OUT/$model-$profile-$seed"
	fi
	ref=$dir/xcheck-ref/$refprof-$seed
	if [ ! -f "$ref" ]; then
		ktap_skip "seed $seed: reference" "no reference $refprof-$seed (tools/testing/xcheck --write-ref)"
		continue
	fi
	# digest of each record up to its notes, as far as the reference goes
	m=$(wc -l < "$ref")
	[ "$m" -gt "$count" ] && m=$count
	first=$("$tmp/xcheck_exec" digest < "$rec" | head -n "$m" |
		diff - <(head -n "$m" "$ref") | sed -n 's/^\([0-9]*\)[0-9,]*[acd].*/\1/p' | head -1)
	if [ -z "$first" ]; then
		ktap_pass "seed $seed: $m instructions equal the other model's records"
	else
		k=$((first - 1))
		ktap_diag "first difference at instruction $k; this model ($model):"
		ktap_diag "$(sed -n "${first}p" "$rec")"
		ktap_diag "the reference's digest: $(sed -n "${first}p" "$ref"); run it alone on both: lib/xcheck_exec.c MODEL $refprof $seed $((k + 1)) $k"
		ktap_fail "seed $seed: $m instructions equal the other model's records"
	fi
done
if [ -d "$simdir" ]; then
	echo 0 > "$simdir/expect_violations"
elif [ -n "$v0" ]; then
	v1=$(sim_counter violations)
	echo $((${v1:-0} - v0 + $(cat /run/padlock-deliberate-violations 2>/dev/null || echo 0))) \
		> /run/padlock-deliberate-violations
fi
ktap_finish
