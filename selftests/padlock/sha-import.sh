#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# padlock-sha's exported state against the kernel's generic SHA drivers
# (shaN-generic, or shaN-lib on 7.x), in the kernel through padlock-hashtest
# (AF_ALG cannot move a state from one driver to another):
#  - interop: random messages and split points; generic -> padlock and
#    padlock -> generic export/import mid-stream, the digest equals the
#    generic one-shot digest, statesizes equal, a re-export equals the blob;
#  - corrupt: a generic mid-stream state corrupted (bit flips, the byte
#    count, the partial-length byte, all-0xff, all-zero, random) and
#    imported into both: same return codes, same digests where both accept;
#  - the same for hmac(shaN): hmac-shaN-padlock against the kernel's own
#    hmac (the template over shaN-generic, or hmac-shaN-lib from 6.17),
#    the same random key on both before every message;
#  - hmac(shaN) keys of every length up to two blocks + 1, in FIPS mode
#    (fips_enabled: as booted, or forced on by padlock-hashtest around the
#    setkey calls) and out of it: padlock refuses exactly the keys the
#    kernel's hmac refuses (under 112 bits in FIPS mode where that is the
#    hmac template, 5.18 to 6.16);
#  - PADLOCK_SCALE=long (64-bit): one byte, then a 4 GiB - 1 byte update
#    (buffered + new bytes wrap in 32 bits) through sha1-padlock, the
#    digest against the one computed with Python's hashlib.
# Never an oops or a simulator violation.  PADLOCK_SCALE=long: large counts.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/ktap-lib.sh
. "$here/lib/ktap-lib.sh"

ktap_header
padlock_need_afalg_drivers

case "$PADLOCK_PROFILE" in
c3) ktap_skip_all "profile c3 (VIA C3 Nehemiah) has no PHE hash engine" ;;
esac
if [ "$PADLOCK_SCALE" = long ]; then
	iters=50000 citers=50000 maxlen=16384
else
	iters=100 citers=140 maxlen=4096
fi
RUN=/sys/kernel/debug/padlock-hashtest/run
seed=${PADLOCK_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}

if [ ! -d /sys/module/padlock_sha ] && ! err=$(padlock_insmod padlock-sha 2>&1); then
	msg=$(dmesg | grep 'padlock_sha:' | tail -n1)
	ktap_skip_all "padlock-sha does not load on profile $PADLOCK_PROFILE: $err ${msg#*] }"
fi
[ -e "$PADLOCK_KO_DIR/padlock-hashtest.ko" ] ||
	ktap_skip_all "padlock-hashtest.ko not built (it is built with padlock-sim, not with PADLOCK_SIM=n)"
padlock_rmmod padlock_hashtest
if ! err=$(padlock_insmod padlock-hashtest 2>&1); then
	ktap_fail "padlock-hashtest loads: $err"
	ktap_finish
fi
sleep 1	# self-tests of the generic drivers, asynchronous on some kernels

# hashtest DESC REQUEST: one KTAP result from one padlock-hashtest run.
hashtest() {
	local desc=$1 req=$2 res t0=$SECONDS
	if ! echo "$req" > "$RUN" 2> /tmp/hashtest.err; then
		ktap_diag "request '$req': $(cat /tmp/hashtest.err)"
		ktap_fail "$desc"
		return
	fi
	res=$(cat "$RUN")
	ktap_diag "$res ($((SECONDS - t0)) s)"
	case "$res" in
	"ok "*) ktap_pass "$desc" ;;
	"SKIP "*) ktap_skip "$desc" "${res#SKIP }" ;;
	*) ktap_fail "$desc" ;;
	esac
}

# A bad request is refused with EINVAL (and no result).
if echo "interop sha256 0 1" > "$RUN" 2>/dev/null ||
   echo "interop md5 10 1" > "$RUN" 2>/dev/null ||
   echo "fipskey sha256 1 1" > "$RUN" 2>/dev/null ||
   echo "bogus" > "$RUN" 2>/dev/null; then
	ktap_fail "padlock-hashtest refuses malformed requests"
else
	ktap_pass "padlock-hashtest refuses malformed requests"
fi

algs=(sha1 sha224 sha256)
grep -q 'sha384-padlock' /proc/crypto && algs+=(sha384 sha512)
ktap_diag "seed $seed (PADLOCK_SEED=$seed repeats this run), algorithms ${algs[*]}"

v0=$(sim_counter violations)
insn0=$(xsha_total)
log0=$(dmesg | wc -l)
for a in "${algs[@]}"; do
	hashtest "$a: generic <-> padlock export/import mid-stream, $iters messages" \
		"interop $a $iters $seed $maxlen"
	hashtest "$a: corrupted generic state imported into both behaves the same, $citers states" \
		"corrupt $a $citers $seed $maxlen"
	hashtest "hmac($a): generic <-> padlock export/import mid-stream, random keys, $iters messages" \
		"interop hmac($a) $iters $seed $maxlen"
	hashtest "hmac($a): corrupted generic state imported into both behaves the same, $((citers / 2)) states" \
		"corrupt hmac($a) $((citers / 2)) $seed $maxlen"
	hashtest "hmac($a): the keys the kernel's hmac refuses in FIPS mode and out of it, and no others" \
		"fipskey hmac($a) 1 $seed"
done

# 1 byte + (4 GiB - 1) bytes: the message is the page "byte i = i mod 251"
# repeated 2^20 times; its SHA-1 from Python's hashlib.
big_sha1=70a08b2d5218a876267471a21790d8d811107ee8
if [ "$PADLOCK_SCALE" != long ]; then
	ktap_skip "sha1: one byte then a 4 GiB - 1 byte update" "PADLOCK_SCALE=long only (4 GiB of SHA-1)"
elif [ "$(getconf LONG_BIT)" != 64 ]; then
	ktap_skip "sha1: one byte then a 4 GiB - 1 byte update" "a 32-bit kernel cannot map a 4 GiB message"
else
	# The 4 GiB - 1 byte update is one REP XSHA of 2^26 blocks: seconds on
	# silicon, half a minute and more under software emulation, and a
	# kernel without full preemption cannot reschedule inside it (any shash
	# driver holds the CPU as long for one such update).  The soft-lockup
	# detector would report exactly that, so it is paused for this call.
	sw=/proc/sys/kernel/soft_watchdog
	swold=$(cat "$sw" 2> /dev/null)
	[ -n "$swold" ] && echo 0 > "$sw"
	t0=$SECONDS
	if echo "bigupdate sha1 1 0" > "$RUN" 2> /tmp/hashtest.err; then
		res=$(cat "$RUN")
	else
		res="request refused: $(cat /tmp/hashtest.err)"
	fi
	[ -n "$swold" ] && echo "$swold" > "$sw"
	ktap_diag "$res ($((SECONDS - t0)) s)"
	case "$res" in
	"ok "*"digest=$big_sha1"*) ktap_pass "sha1: one byte then a 4 GiB - 1 byte update" ;;
	*) ktap_fail "sha1: one byte then a 4 GiB - 1 byte update (want digest=$big_sha1)" ;;
	esac
fi

if [ -n "$v0" ]; then
	ktap_xsha_used "the hash engine did padlock-sha's part" "$insn0"
fi
ktap_clean_since "$v0" "$log0"
padlock_rmmod padlock_hashtest
ktap_finish
