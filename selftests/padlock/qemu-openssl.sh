#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# OpenSSL's padlock engine (Debian's libssl3, engines-3/padlock.so) on the
# project's QEMU (tools/testing/vm/run --cpu-model qemu): the engine reads
# CPUID leaves 0xC0000000/0xC0000001 itself and finds the ACE unit, with
# nothing set up for it (sim-openssl.sh needs the simulator's uprobes at
# the engine's CPUID sites for the same).  "openssl engine -t -c padlock"
# must say available and list its 15 AES ciphers, each must give what
# OpenSSL's software path gives in both directions, "openssl speed" must
# run on it, and the emulated CPU's counters (tools/testing/qemu/padlock-msr)
# must show the engine's xcrypt blocks and key loads, and no violation.  On
# a CPU without an enabled ACE unit the engine must say unavailable.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/ktap-lib.sh
. "$here/lib/ktap-lib.sh"
# shellcheck source=lib/openssl-engine-lib.sh
. "$here/lib/openssl-engine-lib.sh"

ktap_header
[ "${PADLOCK_CPU_MODEL:-sim}" = qemu ] ||
	ktap_skip_all "not the project's QEMU (tools/testing/vm/run --cpu-model qemu)"
command -v openssl > /dev/null || ktap_skip_all "openssl is not installed in this root"
so=$(openssl_engine_so)
[ -n "$so" ] || ktap_skip_all "OpenSSL's padlock engine (engines-3/padlock.so) is not in this root"
msr="$PADLOCK_TOP/tools/testing/qemu/padlock-msr"
"$msr" violations > /dev/null || ktap_skip_all "no PadLock counters (padlock-msr)"

eng=$(openssl engine -t -c padlock 2>&1)
ktap_diag "$eng"
case "$PADLOCK_PROFILE" in
none)
	if grep -q '\[ unavailable \]' <<< "$eng"; then
		ktap_pass "openssl engine -t padlock: unavailable without an ACE unit"
	else
		ktap_fail "openssl engine -t padlock: unavailable without an ACE unit"
	fi
	ktap_finish ;;
esac
if grep -q '\[ available \]' <<< "$eng" && grep -q ', ACE)' <<< "$eng"; then
	ktap_pass "openssl engine -t padlock: available, with ACE (the engine's own CPUID)"
else
	ktap_fail "openssl engine -t padlock: available, with ACE (the engine's own CPUID)"
	ktap_finish
fi
n=$(grep -oE 'AES-(128|192|256)-(ECB|CBC|CFB|OFB|CTR)' <<< "$eng" | sort -u | wc -l)
if [ "$n" = 15 ]; then
	ktap_pass "openssl engine -c padlock: 15 AES ciphers"
else
	ktap_fail "openssl engine -c padlock: 15 AES ciphers ($n)"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
x0=$("$msr" xcrypt_blocks) k0=$("$msr" key_loads) v0=$("$msr" violations)
ktap_report < <(openssl_engine_compare "$tmp")
x=$(( $("$msr" xcrypt_blocks) - x0 )) k=$(( $("$msr" key_loads) - k0 ))
# 15 ciphers of 4101 bytes, 9 of them also decrypted (ECB, CBC, CFB): at
# least 24 x 256 blocks, and a key load in each of the 24 processes
if [ $x -ge $((24 * 256)) ] && [ $k -ge 24 ]; then
	ktap_pass "the engine's ciphers ran on the emulated ACE ($x xcrypt blocks, $k key loads)"
else
	ktap_fail "the engine's ciphers ran on the emulated ACE ($x xcrypt blocks, $k key loads; want >= 6144 and >= 24)"
fi

x0=$("$msr" xcrypt_blocks)
if out=$(openssl speed -engine padlock -evp aes-128-cbc -seconds 1 -bytes 16384 2>&1); then
	x=$(( $("$msr" xcrypt_blocks) - x0 ))
	ktap_diag "$(tail -n 2 <<< "$out")"
	if [ $x -gt 0 ]; then
		ktap_pass "openssl speed -engine padlock -evp aes-128-cbc: $x xcrypt blocks"
	else
		ktap_fail "openssl speed -engine padlock -evp aes-128-cbc: no xcrypt block"
	fi
else
	ktap_diag "$(tail -n 5 <<< "$out")"
	ktap_fail "openssl speed -engine padlock -evp aes-128-cbc"
fi

v=$(( $("$msr" violations) - v0 ))
ktap_diag "counters: $("$msr" | tr '\n' ' ')"
if [ $v = 0 ]; then
	ktap_pass "no violation by the engine"
else
	ktap_fail "no violation by the engine ($v)"
fi
ktap_finish
