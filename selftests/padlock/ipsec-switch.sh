#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The driver switch padlock-bench makes before each IPsec row, repeated:
# crypto_user changes the priority of the cipher and HMAC drivers (which
# drops every authenc, hmac and rfc3686 instance built on them), then
# `ip xfrm state add` must build the SA's transform afresh, at the first
# attempt, for cbc(aes)+hmac(sha256), cbc(aes)+hmac(sha1) and
# rfc3686(ctr(aes))+hmac(sha256), after every switch.  Then the demo's own
# `padlock-bench --quick ipsec` runs once, its JSON report validated
# (lib/bench_check.py --tests ipsec).
#
# The rebuild looks up each missing instance through modprobe and waits for
# it at most 60 s of kernel time (the crypto API's larval wait).  The plan
# runs this program in a VM under QEMU -icount, the demo's clock, where
# that wait is what a guest clock racing ahead of the work would break.
#
# PADLOCK_SCALE=long: 30 switches per transform instead of 6.
. "$(dirname "$0")/lib/ktap-lib.sh"
. "$(dirname "$0")/lib/aes-lib.sh"
. "$(dirname "$0")/lib/aes-ipsec-lib.sh"

CU="$(dirname "$0")/lib/crypto_user.py"
BENCH=$PADLOCK_TOP/tools/padlock-bench/padlock-bench
rounds=6
[ "$PADLOCK_SCALE" = long ] && rounds=30

ktap_header
aes_have_ace || ktap_skip_all "no PadLock ACE unit on this CPU (profile $PADLOCK_PROFILE)"
[ -e "$PADLOCK_KO_DIR/padlock-aes.ko" ] || ktap_skip_all "padlock-aes.ko not built for $PADLOCK_KVER"
grep -qw phe_en /proc/cpuinfo || ktap_skip_all "no PadLock PHE unit: the switch of the HMAC driver needs padlock-sha"
command -v ip > /dev/null || ktap_skip_all "iproute2 not installed"
ipsec_modules || ktap_skip_all "no veth/xfrm/esp4 modules"
modprobe crypto_user 2> /dev/null
python3 -c 'import socket; socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 21)' 2> /dev/null ||
	ktap_skip_all "no crypto_user (NETLINK_CRYPTO) in $(uname -r)"

restore=()
cleanup() {
	ip netns del pl-sw 2> /dev/null
	[ ${#restore[@]} -gt 0 ] && python3 "$CU" "${restore[@]}"
	aes_allow_intree_autoload
}
trap cleanup EXIT
aes_block_intree_autoload
aes_load_ours || { ktap_fail "load padlock-aes"; ktap_finish; }
padlock_sha_fresh || { ktap_fail "load padlock-sha"; ktap_finish; }
ip netns add pl-sw || { ktap_fail "network namespace pl-sw"; ktap_finish; }

# prio DRIVER: its priority in /proc/crypto
prio() {
	awk -v d="$1" '/^driver/ { cur = $3 } /^priority/ && cur == d { print $3; exit }' /proc/crypto
}

ktap_plan 4
for sa in "cbc(aes) hmac(sha256) cbc-aes-padlock hmac-sha256-padlock" \
	  "cbc(aes) hmac(sha1) cbc-aes-padlock hmac-sha1-padlock" \
	  "rfc3686(ctr(aes)) hmac(sha256) ctr-aes-padlock hmac-sha256-padlock"; do
	read -r enc auth cdrv hdrv <<< "$sa"
	name="$enc+$auth"
	cp0=$(prio "$cdrv") hp0=$(prio "$hdrv")
	if [ -z "$cp0" ] || [ -z "$hp0" ]; then
		ktap_skip "$name: built after every driver switch" "$cdrv or $hdrv is not registered"
		continue
	fi
	restore=("$cdrv" "$cp0" "$hdrv" "$hp0")
	case $enc in rfc3686*) ekey=20 ;; *) ekey=16 ;; esac
	case $auth in *sha1*) akey=20 trunc=96 ;; *) akey=32 trunc=128 ;; esac
	failed='' max=0 inst=''
	for r in $(seq 1 $rounds); do
		# one below and back: our drivers still win, every instance on them goes
		python3 "$CU" "$cdrv" $((cp0 - r % 2)) "$hdrv" $((hp0 - r % 2)) ||
			{ failed="crypto_user refused the switch"; break; }
		t0=$(date +%s%N)
		if ! out=$(ip -n pl-sw xfrm state add src 10.77.9.1 dst 10.77.9.2 proto esp \
			spi $((0x2000 + r)) mode transport \
			enc "$enc" 0x"$(head -c $ekey /dev/urandom | xxd -p -c 64)" \
			auth-trunc "$auth" 0x"$(head -c $akey /dev/urandom | xxd -p -c 64)" $trunc 2>&1); then
			failed="switch $r: $out"
			break
		fi
		ms=$((($(date +%s%N) - t0) / 1000000))
		[ $ms -gt $max ] && max=$ms
		inst=$(aes_driver_for "authenc($auth,$enc)")
		ip -n pl-sw xfrm state flush
	done
	python3 "$CU" "${restore[@]}"
	restore=()
	if [ -n "$failed" ]; then
		ktap_diag "$failed"
		ktap_fail "$name: ESP transform built at the first attempt after each of $rounds driver switches"
	else
		ktap_pass "$name: ESP transform built at the first attempt after each of $rounds driver switches ($inst; longest build $max ms of guest time)"
	fi
done

if [ -x "$BENCH" ]; then
	ip netns del pl-sw 2> /dev/null
	report=$(mktemp)
	if out=$("$BENCH" --quick --seconds 1 --json "$report" ipsec 2>&1); then
		ktap_pass "padlock-bench --quick ipsec"
		# its report checked as bench.sh checks the whole tool's (which
		# make check runs with the AF_ALG test only)
		cp /proc/crypto "$report.crypto"
		ktap_check "padlock-bench --quick ipsec: JSON report complete, both transforms on every driver, ESP carried the traffic" \
			python3 "$(dirname "$0")/lib/bench_check.py" "$report" "$report.crypto" --tests ipsec
	else
		ktap_diag "$(echo "$out" | tail -n 15)"
		ktap_fail "padlock-bench --quick ipsec"
	fi
	rm -f "$report" "$report.crypto"
else
	ktap_skip "padlock-bench --quick ipsec" "$BENCH is not built (make -C tools/padlock-bench)"
fi
ktap_finish
