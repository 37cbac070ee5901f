#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Patches 0004 and 0005 on the project's QEMU model, in a guest of
# tools/testing/vm/run booted with the library lane's kernel
# (patches/linux/lib-kernel):
#
#   tools/testing/vm/run --kernel 7.3-lib --cpu-model qemu --profile nano -- \
#       patches/linux/lib-kunit.sh
#
# Loads each KUnit module given (default: sha256_kunit sha224_kunit
# sha1_kunit), reads the results of the suites it added from
# /sys/kernel/debug/kunit/SUITE/results, and reads the emulated CPU's XSHA
# counters (tools/testing/qemu/padlock-msr) before and after.  First it
# shows what the boot left: the crypto manager's self-test of each -lib
# driver (/proc/crypto) and every "alg: ... self-test" failure in the log.
#
# Passes when every suite passes, no self-test failed, the model counted no
# rule violation, and the XSHA counters moved as the profile says: XSHA256
# under sha256/sha224 and XSHA1 under sha1 on nano and nano-s2 (0004, 0005),
# XSHA256 only on zhaoxin and zhaoxin-sh (7.1's code; SHA-1 stays off),
# none elsewhere.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
msr="$top/tools/testing/qemu/padlock-msr"
kd=/sys/kernel/debug/kunit
mods=("$@")
[ ${#mods[@]} -gt 0 ] || mods=(sha256_kunit sha224_kunit sha1_kunit)
[ "${PADLOCK_CPU_MODEL:-sim}" = qemu ] ||
	{ echo "not the project's QEMU: run this under tools/testing/vm/run --cpu-model qemu" >&2; exit 2; }
"$msr" violations > /dev/null || { echo "no PadLock counters (padlock-msr)" >&2; exit 2; }
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
[ -d $kd ] || { echo "no $kd (CONFIG_KUNIT_DEBUGFS)" >&2; exit 2; }

case "${PADLOCK_PROFILE:-}" in
nano|nano-s2) want256=1 want1=1 ;;
zhaoxin|zhaoxin-sh) want256=1 want1=0 ;;
*) want256=0 want1=0 ;;
esac
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

echo "# $(uname -r), profile ${PADLOCK_PROFILE:-?}, $(grep -m1 -o 'phe[_a-z0-9]*\|sha_ni' /proc/cpuinfo | sort -u | tr '\n' ' ')"
echo "# library block functions: $(grep -wo 'sha256_blocks_phe\|sha1_blocks_phe' /proc/kallsyms | sort -u | tr '\n' ' ')"
echo "# counters since boot: $("$msr" xsha1 xsha256 xsha_bytes xcrypt_ecb xcrypt_cbc xcrypt_ctr violations | tr '\n' ' ')"
for drv in sha1-lib sha256-lib sha224-lib hmac-sha1-lib hmac-sha256-lib ecb-aes-lib cbc-aes-lib cts-cbc-aes-lib ctr-aes-lib; do
	st=$(awk -v d="$drv" -F' *: ' '$1 == "driver" { cur = $2 } $1 == "selftest" && cur == d { print $2; exit }' /proc/crypto)
	echo "# boot self-test $drv: ${st:-absent}"
	[ -z "$st" ] || [ "$st" = passed ] || bad "boot self-test of $drv: $st"
done
alg=$(dmesg | grep -E 'alg: .*(self-test|selftest).*fail|alg: .*test failed' || true)
[ -z "$alg" ] || { echo "$alg" | sed 's/^/# /'; bad "self-test failures in the kernel log"; }

for m in "${mods[@]}"; do
	before=$(ls $kd)
	read -r c1a c256a cba cva <<< "$("$msr" xsha1 xsha256 xsha_bytes violations | awk '{ printf "%s ", $2 }')"
	t0=$(date +%s.%N)
	modprobe "$m" || { bad "modprobe $m"; continue; }
	t1=$(date +%s.%N)
	read -r c1b c256b cbb cvb <<< "$("$msr" xsha1 xsha256 xsha_bytes violations | awk '{ printf "%s ", $2 }')"
	d1=$((c1b - c1a)) d256=$((c256b - c256a)) db=$((cbb - cba)) dv=$((cvb - cva))
	suites=$(comm -13 <(echo "$before") <(ls $kd))
	[ -n "$suites" ] || bad "$m added no KUnit suite"
	for s in $suites; do
		r=$kd/$s/results
		# the suite's line ends the file, unindented; the count is in
		# its log (kunit_print_suite_stats), indented
		tot=$(grep -m1 -E "# $s: pass:" $r | sed 's/^ *# //' || true)
		res=$(grep -E "^(ok|not ok) [0-9]+ $s( |\$)" $r | tail -n1 || true)
		echo "$m: suite $s: ${res:-no result line}; ${tot:-no count}"
		grep -E '^ +(ok|not ok) ' $r | sed 's/^ */#   /'
		grep -iE 'MB/s|benchmark' $r | head -n 8 | sed 's/^ */#   /'
		case "$res" in "ok "*) ;; *) bad "suite $s: ${res:-no result}"; grep -B3 -E 'not ok' $r | head -n 30 | sed 's/^/#   /' ;; esac
	done
	echo "$m: $(printf '%.1f' "$(echo "$t1 - $t0" | bc)") s; XSHA1 +$d1, XSHA256 +$d256, hashed bytes +$db, violations +$dv"
	[ "$dv" = 0 ] || bad "$m: $dv rule violations counted by the model"
	case "$m" in
	sha1*) w=$want1 got=$d1 other=$d256 what=XSHA1 ;;
	*) w=$want256 got=$d256 other=$d1 what=XSHA256 ;;
	esac
	if [ "$w" = 1 ]; then
		[ "$got" -gt 0 ] || bad "$m: no $what on profile ${PADLOCK_PROFILE:-?}"
	else
		[ "$got" = 0 ] || bad "$m: $got $what on profile ${PADLOCK_PROFILE:-?}, where the library must not use it"
	fi
	[ "$other" = 0 ] || bad "$m: the other XSHA counter moved ($other)"
done
if [ $fails = 0 ]; then
	echo "PASS: ${mods[*]} on ${PADLOCK_PROFILE:-?}"
else
	echo "FAIL: $fails checks on ${PADLOCK_PROFILE:-?}"
	exit 1
fi
