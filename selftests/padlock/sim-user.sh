#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# User-mode PadLock instructions under padlock-sim: executed on user memory
# (pages not yet faulted in are faulted in and the instruction re-executed;
# read-only or unmapped operands: SIGSEGV; violations: SIGILL), and the key
# cache across user -> kernel entry: a user-mode "pushf; popf; rep
# xcrypt-ecb" with key U right before an AF_ALG request to ecb-aes-padlock
# with key K, on every CPU, must leave the driver's output equal to the
# generic AES (lib/sim_user.c).
#
# PADLOCK_USER_AES selects the padlock-aes under test: "ours" (default),
# "intree" (Debian's), or the path of another padlock-aes.ko.
dir=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=selftests/padlock/lib/ktap-lib.sh
. "$dir/lib/ktap-lib.sh"
# shellcheck source=selftests/padlock/lib/aes-lib.sh
. "$dir/lib/aes-lib.sh"
# shellcheck source=selftests/padlock/lib/guest-build.sh
. "$dir/lib/guest-build.sh"

ktap_header
padlock_need_afalg_drivers
sim=/sys/kernel/debug/padlock-sim
padlock_need_sim "padlock-sim's user-mode trap path"
aes_have_ace || ktap_skip_all "no PadLock ACE unit on this CPU (profile $PADLOCK_PROFILE)"
cc=$(command -v gcc || command -v cc) ||
	ktap_skip_all "no C compiler in this root (the test program is built in the guest)"
modprobe -q af_alg 2>/dev/null
modprobe -q algif_skcipher 2>/dev/null

case "$PADLOCK_SCALE" in
long) iters=2000 ;;
*) iters=${PADLOCK_USER_ITERS:-25} ;;
esac

tmp=$(mktemp -d)
trap 'aes_allow_intree_autoload; rm -rf "$tmp"' EXIT
echo '#include <errno.h>' > "$tmp/probe.c"
"$cc" -E -o /dev/null "$tmp/probe.c" 2> /dev/null ||
	ktap_skip_all "no C library headers in this root (libc6-dev) to build the test program"
# built on the host for this root when current (lib/guest-build.sh)
if ! out=$(guest_cc "$PADLOCK_TOP" "$tmp/sim_user" selftests/padlock/lib/sim_user.c drivers/test 2>&1); then
	ktap_diag "$out"
	ktap_fail "build lib/sim_user.c"
	ktap_finish
fi

which=${PADLOCK_USER_AES:-ours}
aes_block_intree_autoload
case $which in
ours) aes_load_ours ;;
intree) aes_load_intree ;;
*) aes_unload && padlock_deps "$which" && insmod "$which" ;;
esac
rc=$?
if [ $rc = 0 ]; then
	ktap_pass "padlock-aes ($which) loads"
else
	ktap_fail "padlock-aes ($which) loads"
	ktap_finish
fi
# let the crypto manager finish the self-tests
for _ in $(seq 1 30); do
	grep -A12 -E '^driver *: ecb-aes-padlock$' /proc/crypto |
		grep -q 'selftest *: unknown' || break
	sleep 1
done

# report lines of lib/sim_user.c as KTAP
run() {
	KTAP_WRONG=
	ktap_report < <("$tmp/sim_user" "$@" 2>&1; echo "# exit status $?")
	wrong=${KTAP_WRONG:-}
}

u0=$(sim_counter user_traps)
v0=$(sim_counter violations)
e0=$(sim_counter violations_expected)
# the deliberate violations of the memory checks are expected ones
echo 1 > "$sim/expect_violations"
run memory
echo 0 > "$sim/expect_violations"
v1=$(sim_counter violations)
e1=$(sim_counter violations_expected)
if [ "$v1" = "$v0" ] && [ $((e1 - e0)) = 3 ]; then
	ktap_pass "the 3 deliberate user-mode violations were counted"
else
	ktap_diag "$(tail -n 5 "$sim/violations_log")"
	ktap_fail "the 3 deliberate user-mode violations were counted (expected +$((e1 - e0)), other +$((v1 - v0)))"
fi

wrong=
k0=$(sim_counter key_loads)
run keycache "$iters" ecb-aes-padlock
ktap_diag "padlock-aes $which: ${wrong:-?} wrong outputs after user-mode xcrypt; key_loads +$(($(sim_counter key_loads) - k0)) key_stale $(sim_counter key_stale)"
u1=$(sim_counter user_traps)
if [ $((u1 - u0)) -gt 0 ]; then
	ktap_pass "user_traps counted ($((u1 - u0)))"
else
	ktap_fail "user_traps counted (+$((u1 - u0)))"
fi
ktap_finish
