#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The padlock OpenSSL provider (provider/) on either CPU model:
#  - padlock-sim, which executes its PadLock instructions in user mode.
#    The provider reads CPUID leaf 0xC0000001, which Debian's QEMU hides:
#    the simulator's debugfs user_cpuid answers it at the provider's CPUID
#    sites (found in the file as "mov $leaf, %eax; cpuid", as for OpenSSL's
#    old engine in sim-openssl.sh).  A violation is a SIGILL.
#  - the project's QEMU (tools/testing/vm/run --cpu-model qemu), whose CPU
#    answers CPUID 0xC0000001 and executes the PadLock instructions itself:
#    nothing is set up, the counters are the emulated CPU's MSRs
#    (sim_counter, tools/testing/qemu/padlock-msr), a violation is a #GP
#    (SIGSEGV), and the fetch groups really are read through the MMU (an
#    over-read into an unmapped page faults).  The simulator's own counters
#    (user_traps) and violations log are not there.
# The provider itself has no test-only path.
#
# Built for the guest's root (on the host in that root before the VM boots,
# tools/testing/guest-build, else in the guest) against its OpenSSL headers,
# then:
#  - `openssl list -providers -verbose` names the units it found;
#  - OpenSSL's own EVP test data (evpciph_aes_common.txt, evpmd_sha.txt of
#    Debian's openssl source, in build/openssl-tests/ROOT/evp-data from
#    provider/tests/openssl-tests) through the provider ("provider=padlock"),
#    one-shot and in random pieces;
#  - random cases against the default provider per mode and digest (random
#    sizes, update splits, unaligned and in-place buffers, dup mid-stream):
#    PADLOCK_PROVIDER_CASES each (default 30; 10000 with PADLOCK_SCALE=long);
#    HMAC (OpenSSL's) over the provider's digests; OpenSSL's errors on bad
#    input; OpenSSL's API contract beyond one message (IV read back as a
#    pointer, re-inits mid-stream, a GCM tag set first, a GCM IV made up
#    when none is given); GCM's per-message limit, on the provider built
#    with a small one (lib/guest-build.sh); a multi-MiB unaligned in-place
#    buffer per mode; aligned buffers that end right before an unreadable
#    page (the prefetch erratum);
#  - TLS records as libssl hands them to the cipher (CBC: TLS 1.0/1.1/1.2,
#    encrypt-then-MAC and MAC-then-encrypt with 20/32/48-byte MACs; GCM:
#    tlsaad, fixed and explicit IVs; messages sealed on tlsivgen's explicit
#    IV and opened after tlsivinv) against the default provider, with
#    tampered records (bad padding, length, tag, IV): PADLOCK_PROVIDER_CASES
#    records per variant;
#  - TLS 1.3 (TLS_AES_128_GCM_SHA256) and TLS 1.2 (ECDHE-ECDSA-AES128-GCM-
#    SHA256, ECDHE-ECDSA-AES128-SHA256 with and without encrypt-then-MAC)
#    between openssl s_server and s_client over loopback, both preferring
#    padlock (?provider=padlock) (check-long, or PADLOCK_PROVIDER_TLS=1);
#  - the same provider binary in the OpenSSL 3.5 (trixie), 3.6 (sid) and
#    4.0 (openssl4: experimental's, provider/tests/openssl4-root) build
#    roots of $PADLOCK_CACHE when they are there (make check: 4.0 on the
#    zhaoxin profile; check-long: all three everywhere); in the 4.0 root the test
#    program is built against 4.0's libcrypto, and its own s_server and
#    s_client make a TLS 1.3 connection through padlock (and the TLS 1.2 ones
#    at the long scale);
#  - the simulator counted the provider's xcrypt/xsha instructions and no
#    violation (VIA Nano stepping 2: the prefetch erratum).
# Without PadLock (profile none) the provider must load, offer nothing and
# say why, with OpenSSL still working on its default provider.
dir=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=selftests/padlock/lib/ktap-lib.sh
. "$dir/lib/ktap-lib.sh"
# shellcheck source=selftests/padlock/lib/openssl-engine-lib.sh
. "$dir/lib/openssl-engine-lib.sh"
# shellcheck source=selftests/padlock/lib/guest-build.sh
. "$dir/lib/guest-build.sh"

ktap_header
top=${PADLOCK_TOP:-$(cd "$dir/../.." && pwd)}
cache=${PADLOCK_CACHE:-/var/cache/padlock}
sim=/sys/kernel/debug/padlock-sim
# the CPU model that runs the PadLock instructions (none: no PadLock)
if [ "${PADLOCK_CPU_MODEL:-sim}" = qemu ]; then
	model=qemu
elif [ -d "$sim" ]; then
	model=sim
else
	model=
fi
[ -n "$model" ] && ! grep -qw ace /proc/cpuinfo && model=
command -v openssl > /dev/null || ktap_skip_all "openssl is not installed in this root"
cc=$(command -v gcc || command -v cc) ||
	ktap_skip_all "no C compiler in this root (the provider is built in the guest)"
echo '#include <stdio.h>' | "$cc" -E -o /dev/null -x c - 2> /dev/null ||
	ktap_skip_all "no C library headers in this root (libc6-dev) to build the provider"
[ -e /usr/include/openssl/core_dispatch.h ] ||
	ktap_skip_all "no OpenSSL 3 headers in this root (libssl-dev) to build the provider"
# PADLOCK_PROVIDER_SRC: another provider source tree (a deliberately
# broken variant, to show that these tests fail)
src=${PADLOCK_PROVIDER_SRC:-$top/provider}
[ -d "$src" ] || ktap_skip_all "no provider source in $src"
t0=$(date +%s)
took() { ktap_diag "$1 took $(($(date +%s) - t0))s"; t0=$(date +%s); }

case "$PADLOCK_SCALE" in
long) cases=${PADLOCK_PROVIDER_CASES:-10000} big=16 ;;
*) cases=${PADLOCK_PROVIDER_CASES:-30} big=2 ;;
esac

tmp=$(mktemp -d)
mounts=()
declare -A ptbuild=()
cleanup() {
	local m
	for m in "${ptbuild[@]}"; do
		wait "$m" 2>/dev/null
	done
	for m in "${mounts[@]}"; do
		umount "$m" 2>/dev/null
	done
	[ -d "$sim" ] && echo clear > "$sim/user_cpuid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# The build made on the host in this root before the VM booted
# (tools/testing/guest-build) when it is current, else built here, both
# programs at once: compiling is slow under software emulation.
how="built in the guest"
if [ -z "${PADLOCK_PROVIDER_SRC:-}" ] &&
   guest_prebuilt_provider "$top" "$(guest_root)" "$tmp"; then
	how="built on the host in this root (tools/testing/guest-build)"
else
	guest_build_provider "$src" "$top" "$tmp"
fi
if [ -e "$tmp/padlock.so" ] && ! grep -q 'warning:' "$tmp/build.log"; then
	ktap_pass "provider builds warning-free (-Wall -Wextra)"
else
	ktap_diag "$(head -n 20 "$tmp/build.log")"
	ktap_fail "provider builds warning-free (-Wall -Wextra)"
	ktap_finish
fi
if [ ! -s "$tmp/undefined.txt" ]; then
	ktap_fail "provider links no libcrypto function (no symbol list: nm -D failed)"
elif grep -q ' U .*\(EVP_\|OSSL_PARAM_\|ERR_\|CRYPTO_\)' "$tmp/undefined.txt"; then
	ktap_diag "$(grep -v GLIBC "$tmp/undefined.txt" | head)"
	ktap_fail "provider links no libcrypto function"
else
	ktap_pass "provider links no libcrypto function"
fi
if [ ! -x "$tmp/provider_test" ]; then
	ktap_diag "$(cat "$tmp/test-build.log")"
	ktap_fail "build lib/provider_test.c"
	ktap_finish
fi
export OPENSSL_MODULES=$tmp
so=$tmp/padlock.so
took "the provider and lib/provider_test.c ($how)"

# Newer OpenSSL build roots, where the same padlock.so runs at the end.
# make check: experimental's 4.0, on the zhaoxin profile only, which has
# every algorithm (OpenSSL's own evp_test judges it in trixie's 3.5 and
# 4.0 there too: openssl-evp.sh); trixie's 3.5 and sid's 3.6 at the long
# scale, where every root runs on every profile.  PADLOCK_PROVIDER_ROOTS:
# other roots (absolute paths).
roots="trixie sid openssl4"
if [ "$PADLOCK_SCALE" != long ]; then
	roots="openssl4"
	[ "${PADLOCK_PROFILE:-}" != zhaoxin ] && roots=
fi
[ -n "${PADLOCK_PROVIDER_NO_CHROOTS:-}" ] && roots=
roots="$roots ${PADLOCK_PROVIDER_ROOTS:-}"
root_dir() { if [ "${1#/}" != "$1" ]; then echo "$1"; else echo "$cache/chroots/$1"; fi; }
# bind_tmp ROOT: $tmp is ROOT's /mnt (until the end)
bind_tmp() {
	mountpoint -q "$1/mnt" && return 0
	mount --bind "$tmp" "$1/mnt" 2>/dev/null || return 1
	mounts+=("$1/mnt")
}
# A root with a compiler and OpenSSL's headers (the OpenSSL 4 root,
# provider/tests/openssl4-root) gets the test program built inside it,
# against its own libcrypto; that compile runs in the background beside
# the single-threaded tests below.
if [ -n "$model" ]; then
	for root in $roots; do
		r=$(root_dir "$root")
		[ -x "$r/usr/bin/gcc" ] && [ -e "$r/usr/include/openssl/core_dispatch.h" ] || continue
		bind_tmp "$r" || continue
		# the host's build in that root (tools/testing/guest-build) when
		# current: then the job to wait for below has nothing to do
		if guest_prebuilt_provider_test "$top" "${root##*/}" "$tmp/provider_test-${root##*/}"; then
			: > "$tmp/test-build-${root##*/}.log"
			true &
			ptbuild[$root]=$!
			continue
		fi
		cp "$dir/lib/provider_test.c" "$tmp/"
		chroot "$r" env TMPDIR=/mnt gcc -O0 -Wall -o "/mnt/provider_test-${root##*/}" \
			/mnt/provider_test.c -lcrypto > "$tmp/test-build-${root##*/}.log" 2>&1 &
		ptbuild[$root]=$!
	done
fi

# --- no PadLock: loads, offers nothing, says why ---
if [ -z "$model" ]; then
	info=$(openssl list -providers -verbose -provider padlock -provider default 2>&1)
	ktap_diag "$(grep -A4 '^  padlock' <<< "$info")"
	if grep -q 'build info: padlock .*no algorithms offered' <<< "$info"; then
		ktap_pass "no PadLock: the provider loads and says why it offers nothing"
	else
		ktap_fail "no PadLock: the provider loads and says why it offers nothing"
	fi
	off=$("$tmp/provider_test" offers 2>&1)
	if ! grep -q ' yes$' <<< "$off" && grep -q '^SHA256 no$' <<< "$off"; then
		ktap_pass "no PadLock: no algorithm offered"
	else
		ktap_diag "$off"
		ktap_fail "no PadLock: no algorithm offered"
	fi
	d=$(printf abc | openssl dgst -sha256 -provider padlock -provider default 2>&1)
	if grep -q ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad <<< "$d"; then
		ktap_pass "no PadLock: openssl dgst -sha256 works with the default provider next to padlock"
	else
		ktap_diag "$d"
		ktap_fail "no PadLock: openssl dgst -sha256 works with the default provider next to padlock"
	fi
	ktap_finish
fi

if [ $model = qemu ]; then
	[ -n "$(sim_counter violations)" ] ||
		ktap_skip_all "no PadLock counters on the QEMU model (tools/testing/qemu/padlock-msr)"
	ktap_diag "the QEMU model's CPU answers CPUID 0xC0000000/0xC0000001 itself: no user_cpuid"
else
	[ -e "$sim/user_cpuid" ] || ktap_skip_all "this padlock-sim has no user_cpuid"
	n=$(openssl_engine_cpuid "$sim" "$so" 2> "$tmp/refused")
	[ -s "$tmp/refused" ] && ktap_diag "$(cat "$tmp/refused")"
	if [ "$n" -ge 2 ]; then
		ktap_pass "CPUID leaves 0xC0000000/0xC0000001 provided at the provider's $n CPUID sites"
	else
		ktap_fail "CPUID leaves 0xC0000000/0xC0000001 provided at the provider's CPUID sites (found $n)"
		ktap_finish
	fi
fi

# --- AES and GCM only where they pay ---
# Where OpenSSL's own runs on AES-NI the provider offers no AES; where it
# has SSSE3, no GCM (faster in OpenSSL from about 1 KiB).  With them
# hidden from OpenSSL by OPENSSL_ia32cap (guest_offer_everything) both are
# offered, as on a VIA C7, and the tests below run that way: OpenSSL's
# default provider, the reference, then runs without them too.
offered() { "$tmp/provider_test" offers 2>&1 | grep -q "^$1 yes$"; }
status0=$(openssl list -providers -verbose -provider padlock 2>&1 | sed -n 's/^ *build info: //p')
guest_offer_everything
if grep -qw aes /proc/cpuinfo; then
	rule="AES-NI here: AES left to OpenSSL's own, offered (GCM too) when OPENSSL_ia32cap hides it"
	(unset OPENSSL_ia32cap; ! offered AES-128-ECB && ! offered AES-256-GCM) &&
		grep -q 'AES left to the default provider' <<< "$status0" &&
		offered AES-128-ECB && offered AES-256-GCM
elif grep -qw ssse3 /proc/cpuinfo; then
	rule="SSSE3 here: GCM left to OpenSSL's own, offered when OPENSSL_ia32cap hides it"
	(unset OPENSSL_ia32cap; offered AES-128-ECB && ! offered AES-256-GCM) &&
		grep -q 'AES-GCM left to the default provider' <<< "$status0" && offered AES-256-GCM
else
	rule="neither AES-NI nor SSSE3 here: padlock offers AES and GCM"
	offered AES-128-ECB && offered AES-256-GCM
fi
if [ $? = 0 ]; then
	ktap_pass "$rule"
else
	ktap_diag "$status0"
	ktap_fail "$rule"
fi

info=$(openssl list -providers -verbose -provider padlock 2>&1)
status=$(sed -n 's/^ *build info: //p' <<< "$info")
ktap_diag "$status"
if grep -q 'AES-ECB' <<< "$status"; then
	ktap_pass "openssl list -providers -verbose: padlock with AES"
else
	ktap_diag "$info"
	ktap_fail "openssl list -providers -verbose: padlock with AES"
	ktap_finish
fi

# --- SHA-1/224/256 only where OpenSSL has no SHA-NI ---
# QEMU's CPUs here have none; OPENSSL_ia32cap claiming it (leaf 7 EBX bit
# 29, the vector after the colon) must take SHA-1/224/256 away and leave
# the rest offered as it was
if grep -qw phe /proc/cpuinfo && grep -q '^SHA256 yes$' <<< "$("$tmp/provider_test" offers 2>&1)"; then
	off=$("$tmp/provider_test" offers 2>&1)
	shani=$(OPENSSL_ia32cap="${OPENSSL_ia32cap:-}:0x20000000" "$tmp/provider_test" offers 2>&1)
	if grep -q '^SHA1 no$' <<< "$shani" && grep -q '^SHA224 no$' <<< "$shani" &&
	   grep -q '^SHA256 no$' <<< "$shani" &&
	   [ "$(grep -v '^SHA\(1\|224\|256\) ' <<< "$shani")" = "$(grep -v '^SHA\(1\|224\|256\) ' <<< "$off")" ]; then
		ktap_pass "SHA-NI (as OPENSSL_ia32cap claims it): SHA-1/224/256 left to OpenSSL's own, the rest as before"
	else
		ktap_diag "$(tr '\n' ' ' <<< "$shani")"
		ktap_fail "SHA-NI (as OPENSSL_ia32cap claims it): SHA-1/224/256 left to OpenSSL's own, the rest as before"
	fi
fi

# --- the known-answer self-test at load ---
# padlock-sim can make the engine answer wrongly (fault_corrupt_xcrypt,
# fault_corrupt_xsha: the next N instructions); a provider loaded then
# (each process loads it, and tests it, once) must not offer what answered
# wrongly, and must say so.
# fault_at_load UNIT: the build info ($st) and the offers ($off) of the
# provider loaded while the next UNIT (xcrypt, xsha) instruction answers
# wrongly
fault_at_load() {
	echo 1 > "$sim/fault_corrupt_$1"
	st=$(openssl list -providers -verbose -provider padlock 2>&1)
	echo 1 > "$sim/fault_corrupt_$1"
	off=$("$tmp/provider_test" offers 2>&1)
	echo 0 > "$sim/fault_corrupt_$1"
}
if [ $model = sim ] && [ -e "$sim/fault_corrupt_xsha" ]; then
	fault_at_load xcrypt
	if grep -q 'self-test: AES-128-ECB gave a wrong answer, no AES offered' <<< "$st" &&
	   ! grep -q '^AES-.* yes$' <<< "$off"; then
		ktap_pass "self-test at load: one wrong xcrypt answer, no AES offered, and the build info says why"
	else
		ktap_diag "$(sed -n 's/^ *build info: //p' <<< "$st")" "$off"
		ktap_fail "self-test at load: one wrong xcrypt answer, no AES offered, and the build info says why"
	fi
	if grep -qw phe /proc/cpuinfo && grep -q '^SHA256 yes$' <<< "$("$tmp/provider_test" offers 2>&1)"; then
		fault_at_load xsha
		if grep -q 'self-test: SHA1 gave a wrong answer, no SHA offered' <<< "$st" &&
		   ! grep -q '^SHA.* yes$' <<< "$off" && grep -q '^AES-128-ECB yes$' <<< "$off"; then
			ktap_pass "self-test at load: one wrong xsha answer, no SHA offered (AES still), and the build info says why"
		else
			ktap_diag "$(sed -n 's/^ *build info: //p' <<< "$st")" "$off"
			ktap_fail "self-test at load: one wrong xsha answer, no SHA offered (AES still), and the build info says why"
		fi
	fi
else
	ktap_skip "self-test at load with a wrong answer" "only padlock-sim injects wrong answers (fault_corrupt_xcrypt, fault_corrupt_xsha)"
fi

# run one provider_test command; a crash (a signal: SIGILL is the
# simulator's verdict on a violation, SIGSEGV the QEMU model's or an
# over-read) is a failure
report() {
	ktap_report < <("$tmp/provider_test" "$@" 2>&1; rc=$?
		[ $rc -ge 128 ] && echo "FAIL provider_test $1 | killed by signal $((rc - 128))")
}
ctr() { sim_counter "$1"; }
v0=$(ctr violations)
u0=$(ctr user_traps)
declare -A x0
for m in ecb cbc cfb ofb ctr; do
	x0[$m]=$(ctr "xcrypt_$m")
done
s0=$(engine_insns xsha)

# --- OpenSSL's EVP test data ---
evp=
if [ -n "${PADLOCK_EVP_DATA:-}" ]; then
	evp=$PADLOCK_EVP_DATA
else
	# bookworm's source for the 64-bit guests (their root is bookworm's),
	# the i386 build root's for the 32-bit ones
	d=$(guest_root)
	[ "$d" = host ] && d=bookworm
	d=$top/build/openssl-tests/$d/evp-data
	[ -s "$d/evpciph_aes_common.txt" ] && evp=$d
fi
if [ -n "$evp" ]; then
	ktap_diag "EVP test data: $evp"
	report kat "$evp"/evpciph_aes_common.txt "$evp"/evpmd_sha.txt
else
	ktap_skip "OpenSSL's EVP test data" "not in build/openssl-tests: run provider/tests/openssl-tests on the host"
fi

took "the EVP test data"

# --- random cases against the default provider ---
seed=${PADLOCK_PROVIDER_SEED:-$(date +%s)}
ktap_diag "random cases: $cases per algorithm, seed $seed (PADLOCK_PROVIDER_SEED)"
for a in ECB CBC CTR CFB OFB GCM SHA1 SHA224 SHA256 SHA384 SHA512 hmac-SHA1 hmac-SHA256; do
	report diff "$a" "$cases" "$seed"
done
took "the random cases"
report tls "$cases" "$seed"
took "the TLS records"
report errors
report rekey
report contract
# GCM's per-message limit, reached on the build with a small one
if [ -e "$tmp/limit/padlock.so" ]; then
	# (padlock-sim answers CPUID at that file's sites too)
	[ $model = sim ] && openssl_engine_cpuid "$sim" "$tmp/limit/padlock.so" > /dev/null
	ktap_report < <(OPENSSL_MODULES=$tmp/limit "$tmp/provider_test" gcmlimit "$GUEST_GCM_LIMIT" 2>&1)
else
	ktap_fail "GCM refuses data past the per-message limit (no build with a small one: $(tail -n 3 "$tmp/limit/build.log" 2>/dev/null))"
fi
report big "$big"
report edge

took "errors and $big MiB buffers"

# --- openssl's own command line through the provider ---
head -c 100000 /dev/urandom > "$tmp/plain"
key=000102030405060708090a0b0c0d0e0f
iv=0f0e0d0c0b0a09080706050403020100
openssl enc -aes-128-cbc -K $key -iv $iv -in "$tmp/plain" -out "$tmp/ref" -provider default
if openssl enc -aes-128-cbc -K $key -iv $iv -in "$tmp/plain" -out "$tmp/pl" \
	-provider padlock -provider default -propquery provider=padlock 2> "$tmp/err" &&
   cmp -s "$tmp/ref" "$tmp/pl"; then
	ktap_pass "openssl enc -aes-128-cbc -propquery provider=padlock = default provider"
else
	ktap_diag "$(cat "$tmp/err")"
	ktap_fail "openssl enc -aes-128-cbc -propquery provider=padlock = default provider"
fi
# CMS writes the IV it reads back from the cipher (as a pointer) into the
# message: OpenSSL without the provider must decrypt what it made
rm -f "$tmp/cms" "$tmp/cms.out"
if openssl cms -EncryptedData_encrypt -aes-128-cbc -secretkey $key -binary -in "$tmp/plain" \
	-outform DER -out "$tmp/cms" -provider padlock -provider default \
	-propquery '?provider=padlock' 2> "$tmp/err" &&
   openssl cms -EncryptedData_decrypt -secretkey $key -binary -inform DER -in "$tmp/cms" \
	-out "$tmp/cms.out" -provider default 2>> "$tmp/err" &&
   cmp -s "$tmp/plain" "$tmp/cms.out"; then
	ktap_pass "openssl cms -EncryptedData_encrypt with padlock preferred: OpenSSL alone decrypts it"
else
	ktap_diag "$(cat "$tmp/err")"
	ktap_fail "openssl cms -EncryptedData_encrypt with padlock preferred: OpenSSL alone decrypts it"
fi

# --- TLS over loopback, both ends preferring padlock ---
# A certificate for every exchange below, here and in the other roots
# (which see $tmp as /mnt).  OpenSSL's random generator stays on the
# default provider (the [random] section of tls-random.cnf): its
# AES-256-CTR would otherwise prefer padlock too (it does in 3.0), and the
# counts would not show that the records ran there.
printf '%s\n' 'openssl_conf = openssl_init' '[openssl_init]' 'random = random_sect' \
	'[random_sect]' 'properties = provider=default' > "$tmp/tls-random.cnf"
tls_cert=
OPENSSL_CONF=$tmp/tls-random.cnf openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 \
	-nodes -subj /CN=localhost -days 1 -keyout "$tmp/key.pem" -out "$tmp/cert.pem" \
	> /dev/null 2>&1 && tls_cert=1
# the guest's own OpenSSL and the TLS 1.2 suites everywhere: check-long, or
# PADLOCK_PROVIDER_TLS=1 (tens of seconds per connection under emulation)
tls_on=
if [ -n "$tls_cert" ] && { [ "$PADLOCK_SCALE" = long ] || [ "${PADLOCK_PROVIDER_TLS:-}" = 1 ]; }; then
	tls_on=1
fi
tls_port=44330

# tls_loopback ROOT COUNTER DESC ARGS...: s_server -rev and s_client with
# ARGS (in build root ROOT, or here for ""), a line sent and its reversal
# checked, and the simulator's COUNTER (xcrypt: all modes) meanwhile
tls_loopback() {
	local root=$1 counter=$2 desc=$3 run=() d=$tmp line reply want= i c0 c1
	shift 3
	local args=("$@" -provider padlock -provider default -propquery '?provider=padlock')

	if [ -z "$tls_cert" ]; then
		ktap_skip "$desc over loopback" "openssl req could not make a certificate"
		return
	fi
	if [ -n "$root" ]; then
		run=(chroot "$root" env OPENSSL_MODULES=/mnt)
		d=/mnt
	fi
	run+=(env OPENSSL_CONF="$d/tls-random.cnf")
	tls_port=$((tls_port + 1))
	line="padlock provider over $desc"
	for ((i = ${#line} - 1; i >= 0; i--)); do
		want+=${line:i:1}
	done
	c0=$(engine_insns "$counter")
	"${run[@]}" openssl s_server -accept $tls_port -naccept 1 -rev -cert "$d/cert.pem" \
		-key "$d/key.pem" "${args[@]}" > "$tmp/server.log" 2>&1 &
	local spid=$!
	for _ in $(seq 1 60); do
		grep -q ACCEPT "$tmp/server.log" && break
		sleep 1
	done
	# "CLOSE" makes s_server -rev end the connection after the reply, and
	# s_client (-quiet: it waits for the server) exits
	reply=$(printf '%s\nCLOSE\n' "$line" |
		timeout 120 "${run[@]}" openssl s_client -connect 127.0.0.1:$tls_port -quiet \
		"${args[@]}" 2> "$tmp/client.log")
	wait $spid 2>/dev/null
	c1=$(engine_insns "$counter")
	if [ "$reply" = "$want" ] && [ $((c1 - c0)) -gt 0 ]; then
		ktap_pass "$desc over loopback, s_server -rev answered, $((c1 - c0)) ${counter/_/-} instructions"
	else
		ktap_diag "reply: '$reply', ${counter/_/-} instructions: $((c1 - c0))"
		ktap_diag "$(tail -n 5 "$tmp/server.log" "$tmp/client.log")"
		ktap_fail "$desc over loopback with padlock"
	fi
}

# tls12 ROOT LABEL: the TLS 1.2 suites.  With MAC-then-encrypt, libssl
# prefers OpenSSL's stitched AES-CBC-HMAC-SHA ciphers (default provider
# only) where the CPU has AES-NI and SSSE3 (the zhaoxin profile): that test
# masks AES-NI from OpenSSL (OPENSSL_ia32cap) so that the records go
# through padlock, as on a VIA CPU.
tls12() {
	local root=$1 label=$2

	tls_loopback "$root" xcrypt "${label}TLS 1.2 ECDHE-ECDSA-AES128-GCM-SHA256" \
		-tls1_2 -cipher ECDHE-ECDSA-AES128-GCM-SHA256
	tls_loopback "$root" xcrypt_cbc "${label}TLS 1.2 ECDHE-ECDSA-AES128-SHA256, encrypt-then-MAC" \
		-tls1_2 -cipher ECDHE-ECDSA-AES128-SHA256
	OPENSSL_ia32cap='~0x200000200000000' \
	tls_loopback "$root" xcrypt_cbc "${label}TLS 1.2 ECDHE-ECDSA-AES128-SHA256, MAC-then-encrypt (-no_etm)" \
		-tls1_2 -cipher ECDHE-ECDSA-AES128-SHA256 -no_etm
}

if [ -z "$tls_on" ]; then
	ktap_skip "TLS 1.3 and TLS 1.2 over loopback" "check-long only (PADLOCK_PROVIDER_TLS=1 runs them)"
else
	tls_loopback "" xcrypt "TLS 1.3 TLS_AES_128_GCM_SHA256" -tls1_3 -ciphersuites TLS_AES_128_GCM_SHA256
	tls12 "" ""
fi
took "TLS over loopback"

# --- the same binary in newer OpenSSL build roots ---
for root in $roots; do
	r=$(root_dir "$root")
	if [ ! -x "$r/usr/bin/openssl" ]; then
		ktap_skip "OpenSSL of $root" "no build root $r"
		continue
	fi
	ver=$(chroot "$r" openssl version 2>/dev/null | awk '{ print $2 }')
	if ! bind_tmp "$r"; then
		ktap_skip "OpenSSL $ver ($root)" "cannot bind-mount into $r/mnt"
		continue
	fi
	l=$(chroot "$r" env OPENSSL_MODULES=/mnt openssl list -providers -verbose -provider padlock 2>&1 |
	    sed -n 's/^ *build info: //p')
	if grep -q 'AES-ECB' <<< "$l"; then
		ktap_pass "OpenSSL $ver ($root): the same padlock.so loads with AES"
	else
		ktap_fail "OpenSSL $ver ($root): the same padlock.so loads with AES"
		continue
	fi
	# that root's own openssl command against its default provider
	cp "$tmp/plain" "$tmp/chroot.plain"
	if chroot "$r" sh -c "openssl enc -aes-256-ctr -K $key$key -iv $iv -in /mnt/chroot.plain -out /mnt/chroot.ref &&
		OPENSSL_MODULES=/mnt openssl enc -aes-256-ctr -K $key$key -iv $iv -in /mnt/chroot.plain \
		-out /mnt/chroot.pl -provider padlock -provider default -propquery provider=padlock" \
		> "$tmp/chroot.err" 2>&1 && cmp -s "$tmp/chroot.ref" "$tmp/chroot.pl"; then
		ktap_pass "OpenSSL $ver ($root): openssl enc -aes-256-ctr through padlock = its default provider"
	else
		ktap_diag "$(tail -n 3 "$tmp/chroot.err")"
		ktap_fail "OpenSSL $ver ($root): openssl enc -aes-256-ctr through padlock = its default provider"
	fi
	# the test program: where the root has a compiler and OpenSSL's
	# headers (the OpenSSL 4 root, provider/tests/openssl4-root), built
	# there against its own libcrypto; otherwise the one built above, run
	# with that root's libcrypto.so.3.  Its results are labelled with the
	# libcrypto it ran on.
	pt=/mnt/provider_test
	if [ -n "${ptbuild[$root]:-}" ]; then
		pt=/mnt/provider_test-${root##*/}
		lib=
		wait "${ptbuild[$root]}" &&
			lib=$(chroot "$r" env OPENSSL_MODULES=/mnt "$pt" version 2>/dev/null | awk '{ print $2 }')
		unset "ptbuild[$root]"
		if [ -n "$lib" ] && [ "$lib" = "$ver" ]; then
			ktap_pass "OpenSSL $ver ($root): lib/provider_test.c built there runs on its libcrypto $lib"
		else
			ktap_diag "$(tail -n 5 "$tmp/test-build-${root##*/}.log")"
			ktap_fail "OpenSSL $ver ($root): lib/provider_test.c built there runs on its libcrypto (${lib:-none})"
			pt=/mnt/provider_test
		fi
		took "waiting for lib/provider_test.c's build in $root"
	fi
	lib=$(chroot "$r" env OPENSSL_MODULES=/mnt "$pt" version 2>/dev/null | awk '{ print $2 }')
	[ "$lib" = "$ver" ] || ktap_diag "$root: openssl $ver, the test program's libcrypto ${lib:-?}"
	if [ -n "$evp" ]; then
		mkdir -p "$tmp/evp"
		cp "$evp"/evpciph_aes_common.txt "$evp"/evpmd_sha.txt "$tmp/evp/"
		ktap_report < <(chroot "$r" env OPENSSL_MODULES=/mnt "$pt" kat \
			/mnt/evp/evpciph_aes_common.txt /mnt/evp/evpmd_sha.txt 2>&1 |
			sed "s/^\(PASS\|FAIL\|SKIP\) /\1 OpenSSL $lib: /")
	fi
	for a in CBC CTR GCM SHA256; do
		ktap_report < <(chroot "$r" env OPENSSL_MODULES=/mnt "$pt" diff "$a" \
			"$cases" "$seed" 2>&1 | sed "s/^\(PASS\|FAIL\|SKIP\) /\1 OpenSSL $lib: /")
	done
	ktap_report < <(chroot "$r" env OPENSSL_MODULES=/mnt "$pt" tls \
		"$cases" "$seed" 2>&1 | sed "s/^\(PASS\|FAIL\|SKIP\) /\1 OpenSSL $lib: /")
	# OpenSSL 4: its own s_server and s_client through the provider
	if [ "${ver%%.*}" -ge 4 ] 2>/dev/null; then
		tls_loopback "$r" xcrypt "OpenSSL $ver ($root): TLS 1.3 TLS_AES_128_GCM_SHA256" \
			-tls1_3 -ciphersuites TLS_AES_128_GCM_SHA256
		took "TLS 1.3 with OpenSSL $ver"
	fi
	# libssl 3.2 and later have their own record layer
	[ -n "$tls_on" ] && tls12 "$r" "OpenSSL $ver ($root): "
	took "OpenSSL $ver"
done

# --- what ran on the engine ---
for m in ecb cbc cfb ofb ctr; do
	n=$(($(ctr "xcrypt_$m") - x0[$m]))
	if [ $m = ctr ] && ! grep -q 'xcrypt-ctr' <<< "$status"; then
		if [ $n = 0 ]; then
			ktap_pass "no xcrypt-ctr where hardware CTR is not sound (CTR on xcrypt-ecb)"
		else
			ktap_fail "no xcrypt-ctr where hardware CTR is not sound ($n executed)"
		fi
	elif [ $n -gt 0 ]; then
		ktap_pass "the provider executed xcrypt-$m ($n)"
	else
		ktap_fail "the provider executed xcrypt-$m (0: software path?)"
	fi
done
n=$(($(engine_insns xsha) - s0))
if grep -q 'SHA-1/224/256' <<< "$status"; then
	if [ $n -gt 0 ]; then
		ktap_pass "the provider executed xsha ($n)"
	else
		ktap_fail "the provider executed xsha (0: software path?)"
	fi
else
	ktap_skip "the provider executed xsha" "no PHE block mode on profile $PADLOCK_PROFILE"
fi
v1=$(ctr violations)
u1=$(ctr user_traps)
if [ $model = qemu ]; then
	ktap_diag "QEMU model counters: $("$top/tools/testing/qemu/padlock-msr" | tr '\n' ' ')"
else
	ktap_diag "sim counters: $(tr '\n' ' ' < "$sim/counters")"
	ktap_diag "user_traps: $((u1 - u0))"
fi
if [ "$v1" = "$v0" ]; then
	ktap_pass "no violation by the provider"
else
	[ $model = sim ] && ktap_diag "$(tail -n 10 "$sim/violations_log" 2>/dev/null)"
	ktap_fail "no violation by the provider ($((v1 - v0)))"
fi
ktap_finish
