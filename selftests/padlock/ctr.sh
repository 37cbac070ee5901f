#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ctr(aes) of padlock-aes at the counter's 16-bit wrap, against the kernel's
# own ctr(aes) (padlock-difftest's "ctr(aes)-edges" sweep, in the kernel).
# The engine increments only the low 16 bits of the counter block and does
# not carry (docs/hardware.md 1.2), so the driver stops each instruction at
# the wrap and carries itself; every case of the sweep puts the wrap inside
# the request: 1 to 24 blocks after its start, the carry stopping in byte
# 13 or running out of 32 or 64 bits or through the whole block, requests
# ending just before, at and after the wrap with and without a partial
# block, scatterlists cut exactly at the wrap or inside the block before it
# (two walk steps) or ending at a page end (the engine's over-read), in
# place and out of place, every key size.  Output, the counter left in the
# IV, the source and the bytes around the destination are compared.
#
# On ACE2 CPUs the driver runs REP XCRYPT-CTR (at least two per request that
# crosses the wrap); on C3/C7 it runs CTR over REP XCRYPT-ECB: the test
# checks which instructions the CPU executed.  Under the simulators the
# registers the instruction leaves undefined are scrambled (padlock-sim's
# clobber, the QEMU model), so a driver that keeps its key pointer or its
# counter in them across the instruction fails here.
#
# PADLOCK_CTR_EDGES: how many cases (default all 18,432; PADLOCK_SCALE=long
# runs the sweep with three seeds).  PADLOCK_SEED repeats a run.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/ktap-lib.sh
. "$here/lib/ktap-lib.sh"
# shellcheck source=lib/aes-lib.sh
. "$here/lib/aes-lib.sh"

ktap_header
RUN=/sys/kernel/debug/padlock-difftest/run
cases=${PADLOCK_CTR_EDGES:-18432}
seeds=${PADLOCK_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
if [ "$PADLOCK_SCALE" = long ] && [ -z "${PADLOCK_SEED:-}" ]; then
	seeds="$seeds $((seeds + 1)) $((seeds + 2))"
fi

[ -e "$PADLOCK_KO_DIR/padlock-difftest.ko" ] ||
	ktap_skip_all "padlock-difftest.ko not built (it is built with padlock-sim, not with PADLOCK_SIM=n)"
aes_have_ace || ktap_skip_all "no PadLock ACE unit on this CPU (profile $PADLOCK_PROFILE)"

aes_block_intree_autoload
trap aes_allow_intree_autoload EXIT
if ! aes_load_ours; then
	ktap_fail "padlock-aes (ours) loads"
	ktap_finish
fi
padlock_rmmod padlock_difftest
if ! err=$(padlock_insmod padlock-difftest 2>&1); then
	ktap_fail "padlock-difftest loads: $err"
	ktap_finish
fi
crypto_tests_wait
# which path the driver takes: hardware CTR on ACE2, CTR over ECB otherwise
if dmesg | grep 'padlock_aes: PadLock ACE:' | tail -n 1 | grep -q 'ctr(ACE2)'; then
	insn=xcrypt_ctr path="REP XCRYPT-CTR"
else
	insn=xcrypt_ecb path="CTR over REP XCRYPT-ECB"
fi
ktap_diag "driver: $path; seeds $seeds (PADLOCK_SEED=S repeats one)"

field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<< "$2"; }

v0=$(sim_counter violations)
log0=$(dmesg | wc -l)
for seed in $seeds; do
	i0=$(sim_counter "$insn")
	if ! echo "ctr(aes)-edges $cases $seed" > "$RUN" 2> /tmp/ctr-edges.err; then
		ktap_diag "$(cat /tmp/ctr-edges.err)"
		ktap_fail "ctr(aes) at the 16-bit wrap, seed $seed: the run was refused"
		continue
	fi
	res=$(cat "$RUN")
	ktap_diag "$res"
	i1=$(sim_counter "$insn")
	ops=$(field ours_ops "$res")
	desc="ctr(aes) at the 16-bit wrap: $cases cases, $(field ours "$res") = $(field generic "$res"), seed $seed"
	case "$res" in
	"ok "*) ;;
	"SKIP "*) ktap_skip "$desc" "${res#SKIP }"; continue ;;
	*)
		ktap_diag "that case alone: echo 'ctr(aes)-edges 1 $seed INDEX' > $RUN (INDEX from the line above)"
		ktap_fail "$desc"
		continue
		;;
	esac
	if [ -z "$i0" ] || [ -z "$i1" ]; then
		ktap_pass "$desc (no instruction counters on this CPU)"
	elif [ "$insn" = xcrypt_ctr ] && [ $((i1 - i0)) -ge $((ops * 3 / 2)) ]; then
		# one instruction up to the wrap, and in 5 of the 8 length
		# cases a second one after it
		ktap_pass "$desc, $insn +$((i1 - i0)) for $ops requests"
	elif [ "$insn" = xcrypt_ecb ] && [ $((i1 - i0)) -ge "$ops" ]; then
		ktap_pass "$desc, $insn +$((i1 - i0)) for $ops requests"
	else
		ktap_fail "$desc, but $insn +$((i1 - i0)) for ${ops:-?} requests"
	fi
done

ktap_clean_since "$v0" "$log0"
padlock_rmmod padlock_difftest
ktap_finish
