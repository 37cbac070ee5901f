#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# OpenSSL's padlock engine (Debian's libssl3, engines-3/padlock.so) under
# padlock-sim: it executes its PadLock instructions in user mode.  The
# engine decides from CPUID leaf 0xC0000001, which QEMU's software CPU
# hides; the simulator's debugfs user_cpuid replaces the results of the
# engine's two CPUID instructions (found in the file as "mov $leaf, %eax;
# cpuid") with the profile's leaves.  Then every cipher the engine offers
# (AES-128/192/256 in ECB, CBC, CFB, OFB, CTR) must give what OpenSSL's
# software path gives, both directions, with the simulator counting the
# engine's instructions and no violation; and "openssl speed" runs.
dir=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=selftests/padlock/lib/ktap-lib.sh
. "$dir/lib/ktap-lib.sh"
# shellcheck source=selftests/padlock/lib/openssl-engine-lib.sh
. "$dir/lib/openssl-engine-lib.sh"

ktap_header
sim=/sys/kernel/debug/padlock-sim
padlock_need_sim "OpenSSL's engine shown the CPU by padlock-sim's CPUID uprobes (user_cpuid); on QEMU it reads CPUID itself"
[ -e "$sim/user_cpuid" ] || ktap_skip_all "this padlock-sim has no user_cpuid"
command -v openssl > /dev/null || ktap_skip_all "openssl is not installed in this root"
command -v python3 > /dev/null || ktap_skip_all "python3 missing"
so=$(openssl_engine_so)
[ -n "$so" ] || ktap_skip_all "OpenSSL's padlock engine (engines-3/padlock.so) is not in this root"
grep -qw ace /proc/cpuinfo || ktap_skip_all "no PadLock ACE unit on profile $PADLOCK_PROFILE"

tmp=$(mktemp -d)
cleanup() {
	echo clear > "$sim/user_cpuid" 2>/dev/null
	echo clear > "$sim/user_popf" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

n=$(openssl_engine_cpuid "$sim" "$so" 2> "$tmp/refused")
[ -s "$tmp/refused" ] && ktap_diag "$(cat "$tmp/refused")"
ktap_diag "$(tr '\n' ';' < "$sim/user_cpuid")"
if [ "$n" -ge 2 ]; then
	ktap_pass "CPUID leaves 0xC0000000/0xC0000001 provided at the engine's $n CPUID sites"
else
	ktap_fail "CPUID leaves 0xC0000000/0xC0000001 provided at the engine's CPUID sites (found $n)"
	ktap_finish
fi

np=$(openssl_engine_popf "$sim" "$so")
if [ "$np" -ge 0 ]; then
	ktap_diag "key reloads watched at $np pushf; popf pairs of the engine"
else
	ktap_diag "no objdump: the engine's separate pushf; popf key reloads are not watched"
fi

eng=$(openssl engine -t padlock 2>&1)
ktap_diag "$eng"
if grep -q '\[ available \]' <<< "$eng" && grep -q ', ACE)' <<< "$eng"; then
	ktap_pass "openssl engine -t padlock: available, with ACE"
else
	ktap_fail "openssl engine -t padlock: available, with ACE"
	ktap_finish
fi

ctr() { awk -v k="$1" '$1 == k { print $2 }' "$sim/counters"; }
u0=$(ctr user_traps)
v0=$(ctr violations)
declare -A x0
for mode in ecb cbc cfb ofb ctr; do
	x0[$mode]=$(ctr "xcrypt_$mode")
done
ktap_report < <(openssl_engine_compare "$tmp")
for mode in ecb cbc cfb ofb ctr; do
	n=$(($(ctr "xcrypt_$mode") - x0[$mode]))
	if [ $mode = ctr ] && ! grep -qw ace2 /proc/cpuinfo; then
		# without ACE2 the engine builds CTR on xcrypt-ecb
		ktap_skip "the engine executed xcrypt-ctr" "no ACE2 on profile $PADLOCK_PROFILE"
	elif [ $n -gt 0 ]; then
		ktap_pass "the engine executed xcrypt-$mode ($n)"
	else
		ktap_fail "the engine executed xcrypt-$mode (0: software path?)"
	fi
done

if out=$(openssl speed -engine padlock -evp aes-128-ctr -seconds 1 2>&1); then
	ktap_diag "$(tail -n 2 <<< "$out")"
	ktap_pass "openssl speed -engine padlock -evp aes-128-ctr -seconds 1"
else
	ktap_diag "$(tail -n 5 <<< "$out")"
	ktap_fail "openssl speed -engine padlock -evp aes-128-ctr -seconds 1"
fi

u1=$(ctr user_traps)
v1=$(ctr violations)
ktap_diag "sim counters: $(tr '\n' ' ' < "$sim/counters")"
if [ $((u1 - u0)) -gt 0 ]; then
	ktap_pass "user_traps counted the engine's instructions ($((u1 - u0)))"
else
	ktap_fail "user_traps counted the engine's instructions"
fi
if [ "$v1" = "$v0" ]; then
	ktap_pass "no violation by the engine"
else
	ktap_diag "$(tail -n 10 "$sim/violations_log")"
	ktap_fail "no violation by the engine ($((v1 - v0)))"
fi
ktap_finish
