#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Patches 0006 and 0007 on the project's QEMU model, in a guest of
# tools/testing/vm/run booted with the library lane's kernel
# (patches/linux/lib-kernel):
#
#   tools/testing/vm/run --kernel 7.3-lib --cpu-model qemu --profile nano -- \
#       patches/linux/lib-aes.sh [COUNT]
#
# With the in-tree padlock_aes and padlock_sha unloaded and kept from
# autoloading, so that the crypto library's wrappers serve every request:
#
#  1. the crypto manager's boot self-tests of the -lib AES drivers passed
#     (/proc/crypto; the full randomized ones with this kernel's config);
#  2. lib_aes.py: COUNT random AF_ALG requests (default 200) per mode to
#     ecb-aes-lib, cbc-aes-lib, cts-cbc-aes-lib, ctr-aes-lib and xts-aes-lib
#     against a user-space AES, with sources that end at a page end and
#     CTR counters at the 16-bit and 128-bit wraps;
#  3. keycache.c's "between" order with ecb-aes-lib: a user-mode xcrypt
#     with another key right before the library's (0 wrong results);
#  4. dm-crypt (plain, aes-cbc-essiv:sha256) over a loop device: written
#     and read back, its first sector against a user-space ESSIV;
#  5. an ESP tunnel (cbc(aes), hmac(sha256)) between two namespaces,
#     pinged through.
#
# The emulated CPU's counters (tools/testing/qemu/padlock-msr) say who did
# the work: XCRYPT-ECB and -CBC on every profile whose library uses ACE
# (nano, nano-s2, c3, c7), none on zhaoxin (AES-NI), XCRYPT-CTR on the
# Nano's ACE2 only (nano, nano-s2), XSHA256 under ESP's hmac(sha256) on
# nano, nano-s2 and zhaoxin (patch 0004 and 7.1's code); no rule violation and no prefetch
# reaching another page anywhere.  Passes when all of that holds.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
count=${1:-200}
msr="$top/tools/testing/qemu/padlock-msr"
export PADLOCK_TOP=${PADLOCK_TOP:-$top}
# shellcheck source=selftests/padlock/lib/ktap-lib.sh
. "$top/selftests/padlock/lib/ktap-lib.sh"
# shellcheck source=selftests/padlock/lib/aes-lib.sh
. "$top/selftests/padlock/lib/aes-lib.sh"
# shellcheck source=selftests/padlock/lib/aes-ipsec-lib.sh
. "$top/selftests/padlock/lib/aes-ipsec-lib.sh"

[ "${PADLOCK_CPU_MODEL:-sim}" = qemu ] ||
	{ echo "not the project's QEMU: run this under tools/testing/vm/run --cpu-model qemu" >&2; exit 2; }
"$msr" violations > /dev/null || { echo "no PadLock counters (padlock-msr)" >&2; exit 2; }
cc=$(command -v gcc || command -v cc) || { echo "no C compiler in this root" >&2; exit 2; }
for p in python3 cryptsetup losetup ip ping xxd; do
	command -v $p > /dev/null || { echo "$p is missing in this root" >&2; exit 2; }
done

case "${PADLOCK_PROFILE:-}" in
nano|nano-s2) ace=1 ace2=1 phe=1 ;;
c3|c7) ace=1 ace2=0 phe=0 ;;
zhaoxin|zhaoxin-sh) ace=0 ace2=0 phe=1 ;;
*) ace=0 ace2=0 phe=0 ;;
esac
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
# want WHAT COUNT EXPECTED: EXPECTED 1 wants COUNT > 0, 0 wants COUNT 0
want() {
	if [ "$3" = 1 ]; then
		[ "$2" -gt 0 ] || bad "$1: 0 on profile ${PADLOCK_PROFILE:-?}, where the library uses PadLock"
	else
		[ "$2" = 0 ] || bad "$1: $2 on profile ${PADLOCK_PROFILE:-?}, where the library must not use PadLock"
	fi
}
ctr() { "$msr" "$1"; }

restrict=/proc/sys/crypto/af_alg_restrict
old_restrict=
tmp=$(mktemp -d)
loop= dm=
cleanup() {
	[ -n "$dm" ] && cryptsetup close "$dm" 2>/dev/null
	[ -n "$loop" ] && losetup -d "$loop" 2>/dev/null
	ipsec_down
	[ -n "$old_restrict" ] && echo "$old_restrict" > "$restrict"
	rm -f /etc/modprobe.d/padlock-lib-aes.conf
	rm -rf "$tmp"
}
trap cleanup EXIT

echo "# $(uname -r), profile ${PADLOCK_PROFILE:-?}, $(nproc) CPUs"
echo "# library AES functions: $(grep -wo 'aes_ecb_encrypt_arch\|aes_cbc_encrypt_arch\|aes_ctr_arch\|padlock_xcrypt_short' /proc/kallsyms | sort -u | tr '\n' ' ')"
mkdir -p /etc/modprobe.d
printf 'blacklist padlock_aes\nblacklist padlock_sha\n' > /etc/modprobe.d/padlock-lib-aes.conf
for m in padlock_aes padlock_sha; do
	[ -d /sys/module/$m ] && { crypto_tests_wait 300; rmmod $m || bad "cannot unload the in-tree $m"; }
done
modprobe -q af_alg; modprobe -q algif_skcipher
if [ -w "$restrict" ]; then
	old_restrict=$(cat "$restrict")
	echo 0 > "$restrict"
fi

# 1. boot self-tests
for drv in ecb-aes-lib cbc-aes-lib cts-cbc-aes-lib ctr-aes-lib xts-aes-lib; do
	st=$(awk -v d="$drv" -F' *: ' '$1 == "driver" { cur = $2 } $1 == "selftest" && cur == d { print $2; exit }' /proc/crypto)
	echo "# boot self-test $drv: ${st:-absent}"
	[ "$st" = passed ] || bad "boot self-test of $drv: ${st:-absent}"
done
alg=$(dmesg | grep -E 'alg: .*(self-test|selftest).*fail|alg: .*test failed' || true)
[ -z "$alg" ] || { echo "$alg" | sed 's/^/# /'; bad "self-test failures in the kernel log"; }

# 2. AF_ALG
out=$(python3 "$top/patches/linux/lib_aes.py" "$count" 2>&1) || bad "lib_aes.py: exit $?"
printf '%s\n' "$out" | sed 's/^/# /'
while read -r mode n wrong ecb cbc ctrb viol over; do
	case "$mode" in ecb|cbc|cts|ctr|xts) ;; *) continue ;; esac
	echo "$mode: $n requests, $wrong wrong; XCRYPT-ECB +$ecb, -CBC +$cbc, -CTR +$ctrb, violations +$viol, pages over-read +$over"
	[ "$wrong" = 0 ] || bad "$mode: $wrong of $n requests wrong"
	[ "$viol" = 0 ] || bad "$mode: $viol rule violations"
	[ "$over" = 0 ] || bad "$mode: $over prefetches reached another page"
	case $mode in
	ecb) want "$mode-aes-lib: XCRYPT-ECB" "$ecb" $ace ;;
	cbc) want "cbc-aes-lib: XCRYPT-CBC" "$cbc" $ace ;;
	cts) want "cts-cbc-aes-lib: XCRYPT-CBC" "$cbc" $ace ;;
	ctr) want "ctr-aes-lib: XCRYPT-CTR" "$ctrb" $ace2 ;;
	esac
done <<< "$out"
[ "$(printf '%s\n' "$out" | grep -cE '^(ecb|cbc|cts|ctr|xts) ')" = 5 ] || bad "lib_aes.py did not report every mode"

# 3. the key cache
if grep -qw ace /proc/cpuinfo; then
	"$cc" -O2 -Wall -I "$top/drivers/test" -I "$top/selftests/padlock/lib" \
		-o "$tmp/keycache" "$top/patches/linux/keycache.c" || bad "keycache.c does not build"
	e0=$(ctr xcrypt_ecb)
	kc=$("$tmp/keycache" 200 ecb-aes-lib 2>&1) || bad "keycache: $kc"
	e1=$(ctr xcrypt_ecb)
	printf '%s\n' "$kc" | sed 's/^/# keycache: /'
	read -r _ runs wrong uwrong <<< "$(printf '%s\n' "$kc" | grep '^between ')"
	echo "keycache between: ${runs:-?} requests, ${wrong:-?} wrong, user-mode ${uwrong:-?} wrong; XCRYPT-ECB +$((e1 - e0))"
	[ "${wrong:-x}" = 0 ] && [ "${uwrong:-x}" = 0 ] || bad "keycache: results under another key"
fi

# 4. dm-crypt
key=$(head -c 32 /dev/urandom | xxd -p -c 64)
modprobe -q loop
truncate -s 4M "$tmp/disk"
loop=$(losetup -f --show "$tmp/disk") || bad "losetup"
dm=padlock-lib-aes
c0=$(ctr xcrypt_cbc) v0=$(ctr violations)
# a key file is the key itself in plain mode (stdin would be hashed)
printf '%s' "$key" | xxd -r -p > "$tmp/key"
if [ -n "$loop" ] && cryptsetup open --type plain --cipher aes-cbc-essiv:sha256 \
	--key-size 256 --key-file "$tmp/key" "$loop" $dm; then
	head -c 4M /dev/urandom > "$tmp/data"
	dd if="$tmp/data" of=/dev/mapper/$dm bs=1M oflag=direct status=none || bad "dm-crypt write"
	echo 3 > /proc/sys/vm/drop_caches
	cmp -s "$tmp/data" <(dd if=/dev/mapper/$dm bs=1M iflag=direct status=none) || bad "dm-crypt: read back differs"
	drv=$(awk '/^name/ { n = $3 } /^driver/ && n == "essiv(cbc(aes),sha256)" { print $3; exit }' /proc/crypto)
	cryptsetup close $dm; dm=
	c1=$(ctr xcrypt_cbc) v1=$(ctr violations)
	python3 - "$key" "$tmp/disk" "$tmp/data" <<-'EOF' || bad "dm-crypt: sector 0 is not AES-CBC-ESSIV(SHA-256) of the data"
	import hashlib, sys
	from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
	key = bytes.fromhex(sys.argv[1])
	salt = hashlib.sha256(key).digest()
	e = Cipher(algorithms.AES(salt), modes.ECB()).encryptor()
	iv = e.update(bytes(16)) + e.finalize()
	d = Cipher(algorithms.AES(key), modes.CBC(iv)).decryptor()
	plain = d.update(open(sys.argv[2], "rb").read(512)) + d.finalize()
	sys.exit(plain != open(sys.argv[3], "rb").read(512))
	EOF
	echo "dm-crypt aes-cbc-essiv:sha256 ($drv): 4 MiB written and read back; XCRYPT-CBC +$((c1 - c0)), violations +$((v1 - v0))"
	want "dm-crypt: XCRYPT-CBC" $((c1 - c0)) $ace
	[ $((v1 - v0)) = 0 ] || bad "dm-crypt: rule violations"
else
	bad "cryptsetup open"
fi

# 5. ESP
if ipsec_modules && ipsec_up "cbc(aes)" "hmac(sha256)"; then
	c0=$(ctr xcrypt_cbc) s0=$(ctr xsha256) v0=$(ctr violations)
	ip netns exec pl-a ping -q -c 20 -i 0.05 -s 1000 -I 10.77.2.1 10.77.2.2 > "$tmp/ping" 2>&1 ||
		{ sed 's/^/# /' "$tmp/ping"; bad "ping through the ESP tunnel"; }
	c1=$(ctr xcrypt_cbc) s1=$(ctr xsha256) v1=$(ctr violations)
	echo "ESP cbc(aes) + hmac(sha256): $(ipsec_sa_packets) packets; XCRYPT-CBC +$((c1 - c0)), XSHA256 +$((s1 - s0)), violations +$((v1 - v0))"
	[ "$(ipsec_sa_packets)" -ge 20 ] || bad "ESP: the SAs counted $(ipsec_sa_packets) packets"
	want "ESP: XSHA256" $((s1 - s0)) $phe
	[ $((v1 - v0)) = 0 ] || bad "ESP: rule violations"
	ipsec_down
else
	bad "no ESP tunnel (veth, xfrm, esp4)"
fi

if [ $fails = 0 ]; then
	echo "PASS: the library's AES on ${PADLOCK_PROFILE:-?}"
else
	echo "FAIL: $fails checks on ${PADLOCK_PROFILE:-?}"
	exit 1
fi
