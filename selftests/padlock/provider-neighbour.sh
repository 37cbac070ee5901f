#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The OpenSSL provider beside GnuTLS's own PadLock code in one process, on
# the project's QEMU (the engine's key cache is EFLAGS bit 30 there, and
# GnuTLS finds the PadLock unit through CPUID by itself): lib/neighbour.c
# encrypts with GnuTLS's AES-128-CBC under one key, interleaved with the
# provider's AES-128-CBC under another, and compares GnuTLS's output with
# OpenSSL's default provider.  GnuTLS skips its key reload while bit 30 is
# set and its context is the one it used last, so a provider that left the
# bit set would have GnuTLS encrypt under the provider's key; the provider
# clears it after each of its instructions (provider/padlock-user-asm.h).
# First GnuTLS alone, which must run on PadLock (the engine's counters) and
# be right; then the two interleaved.
#
# PADLOCK_PROVIDER_SRC: another provider source tree (a deliberately broken
# variant, to show that this test fails).
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/ktap-lib.sh
. "$here/lib/ktap-lib.sh"
# shellcheck source=lib/guest-build.sh
. "$here/lib/guest-build.sh"

ktap_header
[ "${PADLOCK_CPU_MODEL:-sim}" = qemu ] ||
	ktap_skip_all "needs the project's QEMU (EFLAGS bit 30 and CPUID as GnuTLS sees them)"
top=$PADLOCK_TOP
msr=$top/tools/testing/qemu/padlock-msr
cc=$(command -v gcc || command -v cc) || ktap_skip_all "no C compiler in this root"
[ -e /usr/include/gnutls/crypto.h ] ||
	ktap_skip_all "no GnuTLS headers in this root (libgnutls28-dev)"
[ -e /usr/include/openssl/core_dispatch.h ] ||
	ktap_skip_all "no OpenSSL 3 headers in this root (libssl-dev)"
rounds=200
[ "$PADLOCK_SCALE" = long ] && rounds=5000

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
guest_provider "$top" "$tmp"
# built on the host for this root when current (lib/guest-build.sh)
if ! out=$(guest_cc "$top" "$tmp/neighbour" selftests/padlock/lib/neighbour.c 2>&1); then
	ktap_diag "$out"
	ktap_fail "lib/neighbour.c builds"
	ktap_finish
fi
export OPENSSL_MODULES=$tmp
# the provider's AES where the CPU has AES-NI too (lib/guest-build.sh)
guest_offer_everything

c0=$("$msr" xcrypt_cbc)
ktap_report < <("$tmp/neighbour" alone $rounds 2>&1)
c1=$("$msr" xcrypt_cbc)
if [ -n "$c0" ] && [ $((c1 - c0)) -ge $rounds ]; then
	ktap_pass "GnuTLS's AES-128-CBC runs on PadLock here: xcrypt-cbc +$((c1 - c0)) for $rounds rounds"
else
	ktap_fail "GnuTLS's AES-128-CBC runs on PadLock here: xcrypt-cbc +$((c1 - c0)) for $rounds rounds"
fi
ktap_report < <("$tmp/neighbour" mixed $rounds 2>&1)
ktap_finish
