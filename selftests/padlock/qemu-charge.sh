#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The engine time the project's QEMU charges under --icount (tools/testing/vm/run
# --icount --cpu-model qemu --charge MODEL; patch 0012 of
# tools/testing/qemu/upstream):
# a known number of xcrypt blocks and xsha bytes must advance the guest's
# clock by the model's cycles (tools/padlock-bench/cpu-models.conf) at the
# model's clock, within 1 %.  The guest's clock under -icount is a count of
# executed instructions plus the charged time, the same on every run, so
# the check does not depend on the host's speed or load (lib/charge_clock.c).
# Then one instruction of 1 MiB in one step (padlock-msr --set chunk), whose
# charge outlasts the time to the next timer tick: QEMU carries the rest of
# it over to the next budgets, and none of it may be lost.
# PADLOCK_CHARGE_EXPECT=SECTION checks against another section of the model
# (a wrong expectation: the check must then fail).
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/ktap-lib.sh
. "$here/lib/ktap-lib.sh"
# shellcheck source=selftests/padlock/lib/guest-build.sh
. "$here/lib/guest-build.sh"

ktap_header
[ "${PADLOCK_CPU_MODEL:-sim}" = qemu ] ||
	ktap_skip_all "not the project's QEMU (tools/testing/vm/run --cpu-model qemu)"
[ "${PADLOCK_ICOUNT:-0}" = 1 ] ||
	ktap_skip_all "guest time is host time without --icount: nothing to measure"
model=${PADLOCK_CHARGE_EXPECT:-${PADLOCK_CHARGE:-}}
[ -n "$model" ] ||
	ktap_skip_all "the engine's time is not charged (tools/testing/vm/run --charge MODEL)"
case "$PADLOCK_PROFILE" in
nano|nano-s2|zhaoxin|zhaoxin-sh) phe=1 ;;
c3|c7) phe=0 ;;
*) ktap_skip_all "profile $PADLOCK_PROFILE has no PadLock ACE" ;;
esac

conf="$PADLOCK_TOP/tools/padlock-bench/cpu-models.conf"
consts=$(awk -v s="[$model]" '/^\[/ { in_s = ($0 == s) } in_s && /^[a-z0-9_]+ = / { print $1 "=" $3 }' "$conf")
[ -n "$consts" ] || ktap_skip_all "no section [$model] in cpu-models.conf"
ktap_diag "model [$model]: $(echo "$consts" | tr '\n' ' ')"

cc=$(command -v gcc || command -v cc) ||
	ktap_skip_all "no C compiler in this root"
msr="$PADLOCK_TOP/tools/testing/qemu/padlock-msr"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; "$msr" --set chunk 0 > /dev/null 2>&1' EXIT
# built on the host for this root when current (lib/guest-build.sh)
if ! out=$(guest_cc "$PADLOCK_TOP" "$tmp/charge_clock" selftests/padlock/lib/charge_clock.c \
	provider 2>&1); then
	ktap_diag "$out"
	ktap_fail "build lib/charge_clock.c"
	ktap_finish
fi
# shellcheck disable=SC2086
ktap_report < <("$tmp/charge_clock" $consts phe=$phe 2>&1)
if "$msr" --set chunk 65536; then
	# shellcheck disable=SC2086
	ktap_report < <("$tmp/charge_clock" $consts long=1 2>&1)
	"$msr" --set chunk 0
else
	ktap_skip "xcrypt-cbc 256-bit key: 1 MiB in one step" "padlock-msr cannot set the REP step size"
fi
ktap_finish
