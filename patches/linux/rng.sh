#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The via-rng patches' test (0002, 0003), in a guest of tools/testing/vm/run,
# on padlock-sim or on the project's QEMU (--cpu-model qemu): each via-rng.ko
# given, loaded in place of the kernel's own module as the current hwrng,
# reads /dev/hwrng while the RNG is healthy and while each fault of
# docs/hardware.md 1.8 is injected, then once more after clearing it:
#
#   healthy    4096 bytes (padlock-sim: also with rng_nodata_rate=500, half
#              of the XSTOREs finding no data yet: a slow RNG)
#   rawbits    status bit 13, whitening off (padlock-sim stores visibly
#              biased bytes then: P(1) = 1/4)
#   strfilt    status bits 14 and 15, string filter on and failed
#   dcbias     status bits 12:10 = 3: reported only, no patch refuses it
#   stall      the RNG stores nothing, count 0 (padlock-sim rng_stall, the
#              QEMU model's rng_nodata)
#   disabled   padlock-sim rng_disabled: nothing stored, status bit 6 clear
#   msr-raw    C3/C7 on the QEMU model: bit 13 set in MSR 0x110B itself, on
#              every CPU, after the driver's init set the MSR up
#   msr-off    C3/C7 on the QEMU model: bit 6 (RNG enable) cleared there
#
# Each read is one dd of 4096 bytes, killed after LIMIT seconds (default 10);
# a row gives the bytes it got, its exit status or "hung", its time, and
# the XSTOREs and no-data XSTOREs the model counted meanwhile.
#
# Passes when the first module (unpatched) delivers when healthy, hands
# out bytes under rawbits, strfilt and msr-raw and does not end a read
# under stall, disabled or msr-off within LIMIT (the test can fail), and
# the last (patched) delivers when healthy or slow, hands out nothing and
# fails within LIMIT under each of those six, and delivers again after
# each fault.  Modules in between are measured, not judged.
#
# usage: patches/linux/rng.sh UNPATCHED.ko [BETWEEN.ko...] PATCHED.ko [LIMIT]
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
limit=10
case "${*: -1}" in *.ko) ;; *) limit=${*: -1}; set -- "${@:1:$#-1}" ;; esac
[ $# -ge 2 ] || { echo "usage: $0 UNPATCHED.ko [BETWEEN.ko...] PATCHED.ko [LIMIT]" >&2; exit 2; }
kos=()
for k in "$@"; do kos+=("$(realpath "$k")"); done
export PADLOCK_TOP=${PADLOCK_TOP:-$top}
# shellcheck source=selftests/padlock/lib/ktap-lib.sh
. "$top/selftests/padlock/lib/ktap-lib.sh"

HW=/sys/class/misc/hw_random
SIM=/sys/kernel/debug/padlock-sim
SIMP=/sys/module/padlock_sim/parameters
MSRTOOL=$top/tools/testing/qemu/padlock-msr
if [ -d $SIM ]; then
	model=sim
	desc="padlock-sim profile $(awk 'NR == 1 { print $1 }' $SIM/profile)"
elif [ "${PADLOCK_CPU_MODEL:-sim}" = qemu ] && "$MSRTOOL" --set rng_status 0 2> /dev/null; then
	model=qemu
	desc="the project's QEMU, profile ${PADLOCK_PROFILE:-?}"
else
	echo "neither padlock-sim nor the project's QEMU: run this under tools/testing/vm/run" >&2
	exit 2
fi
c3c7=0
case "${PADLOCK_PROFILE:-}" in c3|c7) c3c7=1 ;; esac

# MSR 0x110B of every CPU (/dev/cpu/N/msr), as padlock-msr reads and
# writes its own MSRs
modprobe -q msr 2> /dev/null
msr_rd() { dd if="$1" bs=8 count=1 skip=$((0x110b)) iflag=skip_bytes 2> /dev/null | od -An -tu8 | tr -d ' '; }
msr_wr() {
	local v=$2 bytes= i=0
	while [ $i -lt 8 ]; do
		bytes="$bytes\\$(printf %03o $((v & 255)))"
		v=$((v >> 8)) i=$((i + 1))
	done
	# shellcheck disable=SC2059
	printf "$bytes" | dd of="$1" bs=8 count=1 seek=$((0x110b)) oflag=seek_bytes conv=notrunc 2> /dev/null
}
# msr_bits SET CLEAR: on every CPU, set and clear those bits of MSR 0x110B
msr_bits() {
	local d v
	for d in /dev/cpu/[0-9]*/msr; do
		v=$(msr_rd "$d")
		[ -n "$v" ] || return 1
		msr_wr "$d" $(((v | $1) & ~$2)) || return 1
	done
}

# inject CASE on|off
inject() {
	local v=0
	[ "$2" = on ] && v=1
	case $model:$1 in
	sim:rawbits) echo $v > $SIM/rng_rawbits ;;
	sim:strfilt) echo $v > $SIM/rng_strfilt_fail ;;
	sim:dcbias) echo $((v * 3)) > $SIM/rng_dc_bias ;;
	sim:stall) echo $v > $SIMP/rng_stall ;;
	sim:disabled) echo $v > $SIM/rng_disabled ;;
	sim:slow) echo $((v * 500)) > $SIM/rng_nodata_rate ;;
	qemu:rawbits) "$MSRTOOL" --set rng_status $((v * 0x2000)) ;;
	qemu:strfilt) "$MSRTOOL" --set rng_status $((v * 0xc000)) ;;
	qemu:dcbias) "$MSRTOOL" --set rng_status $((v * 0xc00)) ;;
	qemu:stall) "$MSRTOOL" --set rng_nodata $v ;;
	qemu:msr-raw) if [ $v = 1 ]; then msr_bits 0x2000 0; else msr_bits 0 0x2000; fi ;;
	qemu:msr-off) if [ $v = 1 ]; then msr_bits 0 0x40; else msr_bits 0x40 0; fi ;;
	*) return 1 ;;
	esac
}

cases="healthy"
[ $model = sim ] && cases="$cases slow"
cases="$cases rawbits strfilt dcbias stall"
[ $model = sim ] && cases="$cases disabled"
[ $model = qemu ] && [ $c3c7 = 1 ] && cases="$cases msr-raw msr-off"

# the faults whose bytes must not be handed out, and those that leave the
# RNG silent (as variable name parts)
refused="rawbits strfilt msr_raw"
stalled="stall disabled msr_off"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "# $(uname -r), $desc, $(nproc) CPUs; each read: dd of 4096 bytes from /dev/hwrng, killed after ${limit} s"

# ones FILE: per mille of one bits in FILE
ones() {
	od -An -v -tu1 "$1" | awk '{ for (i = 1; i <= NF; i++) { n++; b = $i; while (b) { o += b % 2; b = int(b / 2) } } }
		END { if (n) printf "%d", o * 1000 / (8 * n); else printf "-" }'
}

# read_case CASE: one dd under CASE (injected around it); sets got, rc, ms,
# xs (XSTOREs), nd (no-data XSTOREs), pm (one bits per mille), after
# (bytes of a read once the fault is cleared)
read_case() {
	local c=$1 x0 n0 t0 pid end
	rm -f "$tmp/out"
	[ "$c" = healthy ] || inject "$c" on || { got=skip; return; }
	x0=$(sim_counter xstore) n0=$(sim_counter rng_nodata)
	t0=${EPOCHREALTIME/./}
	dd if=/dev/hwrng of="$tmp/out" bs=4096 count=1 iflag=fullblock 2> /dev/null &
	pid=$!
	end=$((t0 + limit * 1000000))
	while kill -0 $pid 2> /dev/null && [ "${EPOCHREALTIME/./}" -lt "$end" ]; do
		sleep 0.05
	done
	if kill -0 $pid 2> /dev/null; then
		kill $pid
		wait $pid 2> /dev/null
		rc=hung
	else
		wait $pid
		rc=$?
	fi
	ms=$(((${EPOCHREALTIME/./} - t0) / 1000))
	xs=$(($(sim_counter xstore) - x0)) nd=$(($(sim_counter rng_nodata) - n0))
	[ "$c" = healthy ] || inject "$c" off
	got=$(stat -c %s "$tmp/out" 2> /dev/null || echo 0)
	pm=$(ones "$tmp/out")
	after=$(timeout 60 dd if=/dev/hwrng bs=4096 count=1 iflag=fullblock 2> /dev/null | wc -c)
}

# run KO: every case with KO; results in R_<case>_<field>
run() {
	local ko=$1 c
	echo "# via-rng.ko: $ko (sha256 $(sha256sum "$ko" | cut -c1-16)...)"
	padlock_rmmod via_rng
	padlock_deps "$ko"
	if ! insmod "$ko"; then
		echo "not ok: $ko does not load"
		return 1
	fi
	# built out of tree: taint O, which the kernel's own via_rng lacks
	if ! grep -q O /sys/module/via_rng/taint 2> /dev/null ||
	   [ "$(cat /sys/module/via_rng/srcversion 2> /dev/null)" != "$(modinfo -F srcversion "$ko")" ]; then
		echo "not ok: the loaded via_rng is not $ko"
		return 1
	fi
	echo via > $HW/rng_current 2> /dev/null
	if [ "$(cat $HW/rng_current)" != via ]; then
		echo "# via cannot become rng_current ($(cat $HW/rng_available)): $(dmesg | grep -i via_rng | tail -n 1)"
		padlock_rmmod via_rng
		return 1
	fi
	echo "#   rng_current via, rng_quality $(cat $HW/rng_quality 2> /dev/null || echo ?)"
	printf '#   %-9s %6s %5s %7s %8s %8s %6s %6s\n' case bytes rc ms xstore nodata ones% after
	for c in $cases; do
		read_case "$c"
		if [ "$got" = skip ]; then
			echo "#   $c: cannot be injected here"
			continue
		fi
		printf '#   %-9s %6s %5s %7s %8s %8s %6s %6s\n' "$c" "$got" "$rc" "$ms" "$xs" "$nd" \
			"$([ "$pm" = - ] && echo - || printf '%d.%d' $((pm / 10)) $((pm % 10)))" "$after"
		printf -v "R_${c//-/_}_got" %s "$got"
		printf -v "R_${c//-/_}_rc" %s "$rc"
		printf -v "R_${c//-/_}_after" %s "$after"
	done
	padlock_rmmod via_rng
}

# the dmesg lines of the run, at the end
m0=$(dmesg | wc -l)
ok=1 n=0
for i in "${!kos[@]}"; do
	for c in $cases; do unset "R_${c//-/_}_got" "R_${c//-/_}_rc" "R_${c//-/_}_after"; done
	run "${kos[$i]}" || { ok=0; continue; }
	bad=
	if [ "$i" = 0 ]; then
		[ "${R_healthy_got:-0}" = 4096 ] || bad="$bad healthy"
		for c in $refused; do
			g=$(eval echo "\${R_${c}_got:-x}")
			[ "$g" = x ] || [ "$g" -gt 0 ] || bad="$bad ${c//_/-}"
		done
		for c in $stalled; do
			r=$(eval echo "\${R_${c}_rc:-x}")
			[ "$r" = x ] || [ "$r" = hung ] || bad="$bad ${c//_/-}"
		done
		what="unpatched: delivers when healthy, hands out bytes under every fault refused, a read of a stalled or disabled RNG still runs after ${limit} s"
	elif [ "$i" = $((${#kos[@]} - 1)) ]; then
		for c in healthy slow; do
			g=$(eval echo "\${R_${c}_got:-x}")
			[ "$g" = x ] || [ "$g" = 4096 ] || bad="$bad $c"
		done
		for c in $refused $stalled; do
			g=$(eval echo "\${R_${c}_got:-x}") r=$(eval echo "\${R_${c}_rc:-x}")
			a=$(eval echo "\${R_${c}_after:-x}")
			[ "$g" = x ] && continue
			if [ "$g" != 0 ] || [ "$r" = 0 ] || [ "$r" = hung ] || [ "$a" != 4096 ]; then
				bad="$bad ${c//_/-}"
			fi
		done
		what="patched: delivers when healthy or slow; under every fault refused and a stalled or disabled RNG no byte and an error within ${limit} s; delivers again after each"
	else
		continue
	fi
	n=$((n + 1))
	if [ -z "$bad" ]; then
		echo "ok $n $what"
	else
		ok=0
		echo "not ok $n $what (not so:$bad)"
	fi
done
dmesg | tail -n +$((m0 + 1)) | grep -E 'via_rng|hwrng|hw_random' | sed 's/^\[[^]]*\] //' | sort | uniq -c | sort -rn | head -n 8 | sed 's/^/# dmesg: /'
[ $ok = 1 ]
