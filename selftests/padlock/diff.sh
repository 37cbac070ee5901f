#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every algorithm of padlock-aes and padlock-sha against the kernel's own
# implementation, with random requests run in the kernel by
# padlock-difftest (drivers/test/padlock-difftest.c): ecb, cbc, ctr, xts and
# cts(cbc) of AES, the single-block aes cipher, sha1/224/256 (sha384/512
# where the engine has them) and hmac() of each.  Random keys (invalid
# sizes included: both must refuse alike), lengths (mostly short, a tail of
# several pages), encrypt and decrypt, in place and out of place,
# scatterlists cut at random points, at odd offsets and across pages, IVs
# about to carry (ctr), hash updates split at random points.  Output, the
# chaining value in the IV (cbc, ctr), the untouched source and the bytes
# around the destination are compared.  One KTAP line per algorithm, with
# the PadLock instructions the CPU (padlock-sim or the QEMU model) executed
# meanwhile: at least one per operation of ours, so our driver served them.
#
# Counts per algorithm: PADLOCK_SCALE=long 1,000,000; otherwise
# PADLOCK_DIFF_COUNT (default 10,000).  PADLOCK_DIFF_ALGS (a list) runs
# only those.  PADLOCK_SEED repeats a run; a mismatch names the request
# and the line that runs it alone through the module's run file, or here:
# PADLOCK_SEED=S PADLOCK_DIFF_FIRST=INDEX PADLOCK_DIFF_COUNT=1.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/ktap-lib.sh
. "$here/lib/ktap-lib.sh"
# shellcheck source=lib/aes-lib.sh
. "$here/lib/aes-lib.sh"

ktap_header
if [ "$PADLOCK_SCALE" = long ]; then
	count=1000000
else
	count=${PADLOCK_DIFF_COUNT:-10000}
fi
RUN=/sys/kernel/debug/padlock-difftest/run
seed=${PADLOCK_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
first=${PADLOCK_DIFF_FIRST:-0}

[ -e "$PADLOCK_KO_DIR/padlock-difftest.ko" ] ||
	ktap_skip_all "padlock-difftest.ko not built (it is built with padlock-sim, not with PADLOCK_SIM=n)"

aes_block_intree_autoload
trap aes_allow_intree_autoload EXIT
have_aes=0 have_sha=0
aes_have_ace && aes_load_ours && have_aes=1
{ [ -d /sys/module/padlock_sha ] || padlock_insmod padlock-sha 2>/dev/null; } && have_sha=1
# the driver's strategy, from its load message ("VIA C7", "VIA Nano", "Zhaoxin")
sha_mode=$(dmesg | sed -n 's/.*padlock_sha: PadLock PHE[^:]*: \([^:]*\):.*/\1/p' | tail -n 1)
[ $have_aes = 1 ] || [ $have_sha = 1 ] ||
	ktap_skip_all "neither padlock-aes nor padlock-sha loads on profile $PADLOCK_PROFILE"
padlock_rmmod padlock_difftest
if ! err=$(padlock_insmod padlock-difftest 2>&1); then
	ktap_fail "padlock-difftest loads: $err"
	ktap_finish
fi
# our drivers' self-tests, and the generic ones the module instantiates
crypto_tests_wait

# A bad request is refused with EINVAL (and no result).
if echo "md5 10 1" > "$RUN" 2>/dev/null || echo "cbc(aes) 0 1" > "$RUN" 2>/dev/null ||
   echo "bogus" > "$RUN" 2>/dev/null; then
	ktap_fail "padlock-difftest refuses malformed requests"
else
	ktap_pass "padlock-difftest refuses malformed requests"
fi

ktap_diag "seed $seed (PADLOCK_SEED=$seed repeats this run), $count requests per algorithm from request $first"

# field NAME LINE: the value of NAME=VALUE in a result line
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<< "$2"; }

# counters_now: "NAME VALUE" lines of the counters diff.sh asks for, read at
# once (sim_counters).  Each algorithm's "after" is the next one's "before".
counters_now() {
	sim_counters xcrypt_ecb xcrypt_cbc xcrypt_ctr key_cached xsha1 xsha256 xsha384 xsha512
}

# counters_sum SNAPSHOT C...: the sum of those counters in a snapshot
counters_sum() {
	local snap=$1
	shift
	awk -v l=" $* " 'index(l, " " $1 " ") { t += $2 } END { print t + 0 }' <<< "$snap"
}

# difftest ALG COUNTER...: one KTAP line for ALG; the counters (sim_counter
# names) are summed before and after, and must have moved by at least one
# instruction per operation of ours.
kc_total=0
difftest() {
	local alg=$1 res s0 s1 ops insn kc desc ms
	shift
	if [ -n "${PADLOCK_DIFF_ALGS:-}" ] && [[ " $PADLOCK_DIFF_ALGS " != *" $alg "* ]]; then
		ktap_skip "$alg" "not in PADLOCK_DIFF_ALGS"
		return
	fi
	s0=$snap
	if ! echo "$alg $count $seed $first" > "$RUN" 2> /tmp/difftest.err; then
		ktap_diag "request '$alg $count $seed $first': $(cat /tmp/difftest.err)"
		snap=$(counters_now)
		ktap_fail "$alg: $count random requests against the kernel's own"
		return
	fi
	res=$(cat "$RUN")
	s1=$(counters_now)
	snap=$s1
	ms=$(field ms "$res")
	ktap_diag "$res${ms:+ ($((count * 1000 / (ms + 1))) requests/s)}"
	case "$res" in
	"SKIP "*) ktap_skip "$alg: $count random requests" "${res#SKIP }"; return ;;
	"FAIL $alg: "*) ktap_fail "$alg: ${res#FAIL }"; return ;;
	esac
	ops=$(field ours_ops "$res")
	desc="$alg: $count random requests, $(field ours "$res") = $(field generic "$res") ($(field compared "$res") compared, $(field refused_alike "$res") refused alike, $(field bytes "$res") bytes)"
	if [ "${res%% *}" != ok ]; then
		ktap_diag "that request alone: PADLOCK_SEED=$seed PADLOCK_DIFF_FIRST=$(sed -n 's/.*: request \([0-9]*\) .*/\1/p' <<< "$res") PADLOCK_DIFF_COUNT=1 PADLOCK_DIFF_ALGS='$alg' $0"
		ktap_fail "$desc"
		return
	fi
	if [ "$have_counters" != 1 ]; then
		ktap_pass "$desc (no instruction counters on this CPU)"
		return
	fi
	set -- "${@/key_cached/}"
	insn=$(( $(counters_sum "$s1" "$@") - $(counters_sum "$s0" "$@") ))
	kc=$(( $(counters_sum "$s1" key_cached) - $(counters_sum "$s0" key_cached) ))
	kc_total=$((kc_total + kc))
	# the single-block cipher: exactly one xcrypt-ecb per block
	if [ "$alg" = aes ] && [ "$insn" != "$ops" ]; then
		ktap_fail "$desc, $* +$insn for ${ops:-?} blocks (want one each)"
	elif [ "$alg" = sha224 ] && [ "$sha_mode" = "VIA C7" ]; then
		# only final mode, and its rAX = 0 form only from the engine's own
		# SHA-256 IV: a SHA-224 message shorter than a block is all software
		if [ "$insn" -gt 0 ]; then
			ktap_pass "$desc, $* +$insn for $ops operations (VIA C7: messages under a block in software)"
		else
			ktap_fail "$desc, $* +$insn for ${ops:-?} operations (want some)"
		fi
	elif [ "${ops:-0}" -gt 0 ] && [ "$insn" -ge "$ops" ]; then
		ktap_pass "$desc, $* +$insn for $ops operations"
	else
		ktap_fail "$desc, $* +$insn for ${ops:-?} operations (want at least one each)"
	fi
}

v0=$(sim_counter violations)
have_counters=0
padlock_counters && have_counters=1
log0=$(dmesg | wc -l)
snap=$(counters_now)
if [ $have_aes = 1 ]; then
	for a in "ecb(aes)" "cbc(aes)" "ctr(aes)" "xts(aes)" "cts(cbc(aes))" aes; do
		difftest "$a" xcrypt_ecb xcrypt_cbc xcrypt_ctr key_cached
	done
	if [ "$have_counters" = 1 ]; then
		if [ "$kc_total" = 0 ]; then
			ktap_pass "every xcrypt reloaded its key (no xcrypt on a cached key)"
		else
			ktap_fail "every xcrypt reloaded its key ($kc_total on a cached key)"
		fi
	fi
else
	ktap_skip "AES algorithms" "no PadLock ACE unit on profile $PADLOCK_PROFILE"
fi
if [ $have_sha = 1 ]; then
	algs=(sha1 sha224 sha256)
	grep -q 'sha384-padlock' /proc/crypto && algs+=(sha384 sha512)
	for a in "${algs[@]}"; do
		# the instruction of that hash (SHA-224 runs on XSHA256)
		case $a in
		sha1) c=xsha1 ;;
		sha224|sha256) c=xsha256 ;;
		*) c="xsha384 xsha512" ;;
		esac
		# shellcheck disable=SC2086
		difftest "$a" $c
		# shellcheck disable=SC2086
		difftest "hmac($a)" $c
	done
else
	ktap_skip "SHA algorithms" "padlock-sha does not load on profile $PADLOCK_PROFILE (no PHE)"
fi

ktap_clean_since "$v0" "$log0"
padlock_rmmod padlock_difftest
ktap_finish
