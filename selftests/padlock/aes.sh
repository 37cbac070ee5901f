#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# padlock-aes through AF_ALG: registration and self-tests, driver selection,
# NIST CAVP vectors, differential tests against the kernel's generic AES,
# bad input, and unloading while idle / while a socket holds the module.
. "$(dirname "$0")/lib/ktap-lib.sh"
. "$(dirname "$0")/lib/aes-lib.sh"

ktap_header
padlock_afalg_by_name
aes_have_ace || ktap_skip_all "no PadLock ACE unit on this CPU (profile $PADLOCK_PROFILE)"
[ -e "$PADLOCK_KO_DIR/padlock-aes.ko" ] || ktap_skip_all "padlock-aes.ko not built for $PADLOCK_KVER"
modprobe -q af_alg 2>/dev/null
modprobe -q algif_skcipher 2>/dev/null
[ -e /proc/crypto ] || ktap_skip_all "no /proc/crypto"

case "$PADLOCK_SCALE" in
long) ndiff=100000 ;;
*) ndiff=${PADLOCK_AES_DIFF:-60} ;;
esac

before=$(aes_which)
aes_block_intree_autoload
trap aes_allow_intree_autoload EXIT
if aes_load_ours; then
	ktap_pass "padlock-aes (ours) loads (was: $before)"
else
	ktap_fail "padlock-aes (ours) loads (was: $before)"
	ktap_finish
fi
ktap_diag "$(dmesg | grep 'padlock_aes:' | tail -n 2)"
# let the crypto manager finish the self-tests
for i in $(seq 1 30); do
	grep -A12 -E '^driver *: (ecb|cbc|ctr|xts|cts-cbc)-aes-padlock$' /proc/crypto |
		grep -q 'selftest *: unknown' || break
	sleep 1
done

kc0=$(sim_counter key_cached) kl0=$(sim_counter key_loads)
x0=$(aes_xcrypt_total)
aes_py select
aes_py kat
aes_py diff "$ndiff"
aes_py badinput
if padlock_counters; then
	# Strict key cache (padlock-sim; on QEMU the engine's own cache, kept
	# until an EFLAGS load): every xcrypt of ours reloads key and control
	# word; none may run on what the engine held before.
	kc=$(( $(sim_counter key_cached) - kc0 ))
	kl=$(( $(sim_counter key_loads) - kl0 ))
	x=$(( $(aes_xcrypt_total) - x0 ))
	ktap_diag "key cache: $x xcrypt instructions, $kl key loads, $kc on a cached key"
	if [ "$kc" = 0 ] && [ "$kl" -ge "$x" ] && [ "$x" -gt 0 ]; then
		ktap_pass "every xcrypt reloads its key (strict key-cache model)"
	else
		ktap_fail "every xcrypt reloads its key (strict key-cache model)"
	fi
fi

# unload refused while an AF_ALG socket holds a transform, allowed after
ready=$(mktemp)
python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET, 0)
s.bind(("skcipher", sys.argv[2]))
s.setsockopt(socket.SOL_ALG, socket.ALG_SET_KEY, bytes(16))
open(sys.argv[1], "w").write("up")
time.sleep(60)
' "$ready" "$([ "$PADLOCK_AFALG_PIN" = 1 ] && echo cbc-aes-padlock || echo "cbc(aes)")" &
holder=$!
for i in $(seq 1 50); do [ -s "$ready" ] && break; sleep 0.2; done
if [ -s "$ready" ] && ! rmmod padlock_aes 2>/dev/null && [ "$(aes_which)" = ours ]; then
	ktap_pass "unload refused while an AF_ALG socket holds cbc-aes-padlock"
else
	ktap_fail "unload refused while an AF_ALG socket holds cbc-aes-padlock"
fi
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
rm -f "$ready"
if aes_unload && [ "$(aes_which)" = none ]; then
	ktap_pass "unloads when idle"
else
	ktap_fail "unloads when idle"
fi
if aes_load_ours && grep -q '^driver *: xts-aes-padlock$' /proc/crypto; then
	ktap_pass "reloads and registers again"
else
	ktap_fail "reloads and registers again"
fi

# The single-block "aes" (what essiv's IV, cbcmac, cmac and xcbc use) with
# the default priority: PadLock without AES-NI; on a CPU with AES-NI the
# kernel's own AES-NI-backed cipher ("aes-aesni" before 7.0, "aes-lib" on
# the AES library from 7.0 on), and PadLock again (above aes-generic) where
# the kernel has no such cipher (the debug kernel is built without AES-NI).
# A dm-crypt mapping with ESSIV allocates one "aes" cipher for its IVs
# (crypto/essiv.c; AF_ALG offers no cipher and 7.x no template over one):
# the driver whose refcnt rises is the one the crypto API resolved.
aes_cipher_refcnts() {
	awk -F': ' '$1 ~ /^name/ { n = $2 } $1 ~ /^driver/ { d = $2 }
		$1 ~ /^refcnt/ && n == "aes" { print d, $2 }' /proc/crypto | sort
}
aes_cipher_resolved() {
	local before after
	modprobe -q dm_crypt 2>/dev/null
	# a lookup waits at most 60 s for an algorithm still in its self-test
	crypto_tests_wait
	before=$(aes_cipher_refcnts)
	# the zero device by major:minor: no udev makes /dev/mapper nodes here
	dmsetup create --noudevsync pl-essiv-zero --table "0 8 zero" 2>/dev/null &&
	dmsetup create --noudevsync pl-essiv --table "0 8 crypt aes-cbc-essiv:sha256 $(printf '%064d' 0) 0 $(dmsetup info -c --noheadings -o major,minor pl-essiv-zero | tr -d ' ') 0" 2>/dev/null
	after=$(aes_cipher_refcnts)
	dmsetup remove --noudevsync pl-essiv 2>/dev/null
	dmsetup remove --noudevsync pl-essiv-zero 2>/dev/null
	join -a 2 -e 0 -o '0,1.2,2.2' <(echo "$before") <(echo "$after") |
		awk '$3 > $2 { print $1 }' | paste -sd' '
}
# Where it proves something at the small scale: every CPU with AES-NI, and
# the newest kernel without (a reload and a mapping: about 10 s)
if ! grep -qw aes /proc/cpuinfo && [ "$PADLOCK_SCALE" != long ] && [ "$PADLOCK_KERNEL" != 7.3 ]; then
	ktap_skip "single-block aes resolution" "runs on AES-NI profiles and on 7.3 (PADLOCK_SCALE=long: everywhere)"
elif modprobe -q aesni_intel 2>/dev/null; aes_unload && aes_load_ours priority=0; then
	got=$(aes_cipher_resolved)
	if grep -qw aes /proc/cpuinfo && awk -F' *: ' '$1 == "name" { n = $2 }
	   $1 == "driver" && n == "aes" && ($2 == "aes-aesni" || $2 == "aes-lib") { f = 1 }
	   END { exit !f }' /proc/crypto; then
		want="the kernel's AES-NI cipher"
		ok=$([ -n "$got" ] && [ "${got#* }" = "$got" ] && [ "$got" != aes-padlock ] && echo y)
	else
		want=aes-padlock
		grep -qw aes /proc/cpuinfo && want="aes-padlock: the kernel has no AES-NI cipher"
		ok=$([ "$got" = aes-padlock ] && echo y)
	fi
	ktap_diag "default priority: aes drivers $(awk -F': ' '$1 ~ /^name/ { n = $2 } $1 ~ /^driver/ { d = $2 } $1 ~ /^priority/ && n == "aes" { printf "%s=%s ", d, $2 }' /proc/crypto)"
	command -v dmsetup > /dev/null || ktap_diag "no dmsetup: the resolution is not observable"
	if [ "$ok" = y ]; then
		ktap_pass "single-block aes resolves to $got ($want; AES-NI: $(grep -qw aes /proc/cpuinfo && echo yes || echo no))"
	else
		ktap_fail "single-block aes resolves to ${got:-nothing}, not $want"
	fi
else
	ktap_fail "padlock-aes reloads with the default priority"
fi

if padlock_counters; then
	v=$(sim_counter violations)
	ktap_diag "counters: $(sim_counter_list xcrypt_ecb xcrypt_cbc xcrypt_ctr xcrypt_cfb xcrypt_ofb aes_blocks interrupts)"
	if [ "$v" = 0 ]; then
		ktap_pass "no violations (${PADLOCK_CPU_MODEL:-sim} model)"
	else
		ktap_diag "$(tail -n 10 /sys/kernel/debug/padlock-sim/violations_log 2>/dev/null)"
		ktap_fail "no violations (${PADLOCK_CPU_MODEL:-sim} model; saw ${v:-?})"
	fi
fi
ktap_finish
