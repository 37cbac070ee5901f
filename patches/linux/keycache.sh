#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Patch 0001's test, in a guest of tools/testing/vm/run, on padlock-sim or
# on the project's QEMU (--cpu-model qemu): the unpatched in-tree
# padlock-aes.ko and the patched one, each loaded in place of the kernel's
# own module, against keycache.c (beside this file): on every CPU, ROUNDS
# times, a user-mode "pushf; popf; rep xcrypt-ecb" with a random key U and
# an AF_ALG request to ecb-aes-padlock with a key K, every output compared
# with the kernel's generic AES, in two orders:
#
#   before   the user's xcrypt, then accept, sendmsg and read: the order of
#            selftests/padlock/sim-user.sh.  Two returns to user space come
#            between the two xcrypts; each loads EFLAGS, which clears bit 30
#            on silicon and in the QEMU model, but padlock-sim does not
#            count a return to user space for the kernel's next xcrypt
#   between  accept and sendmsg, then the user's xcrypt, then read (which
#            runs the request): no EFLAGS load in between, on any model
#
# On padlock-sim it also runs selftests/padlock/sim-user.sh with each
# module (the project's existing key-cache test: the "before" order).
#
# Passes when the unpatched module gets wrong results in the "between"
# order (the test can fail) and the patched one none in any order (and
# sim-user.sh passes with it on padlock-sim).
#
# usage: patches/linux/keycache.sh UNPATCHED.ko PATCHED.ko [ROUNDS]
#   ROUNDS per CPU and order (default 500: 1,000 requests per order on the
#   default 2 vCPUs)
#
# Linux 7.3 lets AF_ALG bind driver names only with
# /proc/sys/crypto/af_alg_restrict = 0 (docs/kernels.md); it is set for the
# run and restored.  Module autoloading is off during the runs
# (/proc/sys/kernel/modprobe empty, AF_ALG's modules loaded first):
# sim-user.sh's program asks for ecb(aes-generic) before 7.x's ecb(aes-lib)
# in every round, and on 7.3 each miss would start modprobe several times,
# seconds per round under TCG.  padlock-sim keeps its defaults
# (interrupt_rate=50 from tools/testing/vm/run, every register clobber on).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 2 ] || { echo "usage: $0 UNPATCHED.ko PATCHED.ko [ROUNDS]" >&2; exit 2; }
before=$(realpath "$1") after=$(realpath "$2") rounds=${3:-500}
export PADLOCK_TOP=${PADLOCK_TOP:-$top}
# shellcheck source=selftests/padlock/lib/ktap-lib.sh
. "$top/selftests/padlock/lib/ktap-lib.sh"
# shellcheck source=selftests/padlock/lib/aes-lib.sh
. "$top/selftests/padlock/lib/aes-lib.sh"

sim=0
if [ -d /sys/kernel/debug/padlock-sim ]; then
	sim=1
	model="padlock-sim profile $(awk 'NR == 1 { print $1 }' /sys/kernel/debug/padlock-sim/profile)"
elif [ "${PADLOCK_CPU_MODEL:-sim}" = qemu ] && aes_have_ace; then
	model="the project's QEMU, profile ${PADLOCK_PROFILE:-?}"
else
	echo "neither padlock-sim nor the project's QEMU with ACE: run this under tools/testing/vm/run" >&2
	exit 2
fi
cc=$(command -v gcc || command -v cc) || { echo "no C compiler in this root" >&2; exit 2; }

restrict=/proc/sys/crypto/af_alg_restrict
modprobe -q af_alg 2>/dev/null
modprobe -q algif_skcipher 2>/dev/null
modprobe -q algif_hash 2>/dev/null
old_restrict=
if [ -w "$restrict" ]; then
	old_restrict=$(cat "$restrict")
	echo 0 > "$restrict"
fi
old_modprobe=$(cat /proc/sys/kernel/modprobe)
echo > /proc/sys/kernel/modprobe
tmp=$(mktemp -d)
cleanup() {
	echo "$old_modprobe" > /proc/sys/kernel/modprobe
	[ -n "$old_restrict" ] && echo "$old_restrict" > "$restrict"
	aes_allow_intree_autoload
	rm -rf "$tmp"
}
trap cleanup EXIT
"$cc" -O2 -Wall -I "$top/drivers/test" -I "$top/selftests/padlock/lib" \
	-o "$tmp/keycache" "$top/patches/linux/keycache.c" ||
	{ echo "keycache.c does not build" >&2; exit 1; }

echo "# $(uname -r), $model, $(nproc) CPUs, $rounds rounds per CPU and order"

# run KO: keycache (and sim-user.sh) against KO.  Sets RC (0: every
# request ran, and sim-user.sh passed), and per order ORDER_RUNS,
# ORDER_WRONG (wrong AF_ALG results), ORDER_UWRONG (wrong user-mode
# results: 0 unless the model is wrong)
run() {
	local ko=$1 out o r w u k0 k1
	RC=0 before_runs=- before_wrong=- before_uwrong=- between_runs=- between_wrong=- between_uwrong=-
	echo "# padlock-aes.ko: $ko (sha256 $(sha256sum "$ko" | cut -c1-16)...)"
	aes_block_intree_autoload
	if ! aes_unload || ! padlock_deps "$ko" || ! insmod "$ko"; then
		echo "not ok: $ko does not load"
		RC=1
		return
	fi
	crypto_tests_wait 300
	k0=$(sim_counter key_loads)
	out=$("$tmp/keycache" "$rounds" ecb-aes-padlock 2>&1) || RC=1
	k1=$(sim_counter key_loads)
	printf '%s\n' "$out" | sed 's/^/    keycache: /'
	[ -n "$k0" ] && [ -n "$k1" ] && echo "    the engine's key loads: +$((k1 - k0))"
	while read -r o r w u; do
		case $o in
		before|between) printf -v "${o}_runs" %s "$r"; printf -v "${o}_wrong" %s "$w"
			printf -v "${o}_uwrong" %s "$u" ;;
		esac
	done <<< "$out"
	if [ $sim = 1 ]; then
		out=$(PADLOCK_PLAN=all PADLOCK_USER_ITERS=$rounds PADLOCK_USER_AES=$ko \
			"$top/selftests/padlock/sim-user.sh" 2>&1) || RC=1
		printf '%s\n' "$out" | grep -E 'rounds on|wrong|^not ok|Totals' | sed 's/^/    sim-user.sh: /'
	fi
	aes_unload
}

ok=1
run "$before"
echo "# unpatched: before $before_wrong of $before_runs wrong, between $between_wrong of $between_runs wrong" \
	"(user mode: $before_uwrong, $between_uwrong wrong)"
case "$between_wrong" in
''|-|0) ok=0; echo "not ok 1 the unpatched module gives wrong results in the 'between' order (the test can fail)" ;;
*) echo "ok 1 the unpatched module gives wrong results in the 'between' order (the test can fail)" ;;
esac
run "$after"
echo "# patched:   before $before_wrong of $before_runs wrong, between $between_wrong of $between_runs wrong" \
	"(user mode: $before_uwrong, $between_uwrong wrong)"
if [ $RC = 0 ] && [ "$before_wrong" = 0 ] && [ "$between_wrong" = 0 ] &&
   [ "$before_uwrong" = 0 ] && [ "$between_uwrong" = 0 ]; then
	echo "ok 2 the patched module: no wrong result in either order$([ $sim = 1 ] && echo ', sim-user.sh passes')"
else
	ok=0
	echo "not ok 2 the patched module: no wrong result in either order$([ $sim = 1 ] && echo ', sim-user.sh passes')"
fi
[ $ok = 1 ]
