#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# IPsec ESP tunnel between two network namespaces over veth, with
# cbc(aes)+hmac(sha256) and rfc3686(ctr(aes))+hmac(sha256): ping and a
# short iperf3 work, the SA counters grow, /proc/crypto shows our driver
# instantiated, and the simulator's counters show PadLock instructions.
. "$(dirname "$0")/lib/ktap-lib.sh"
. "$(dirname "$0")/lib/aes-lib.sh"
. "$(dirname "$0")/lib/aes-ipsec-lib.sh"

ktap_header
aes_have_ace || ktap_skip_all "no PadLock ACE unit on this CPU (profile $PADLOCK_PROFILE)"
[ -e "$PADLOCK_KO_DIR/padlock-aes.ko" ] || ktap_skip_all "padlock-aes.ko not built for $PADLOCK_KVER"
command -v ip > /dev/null || ktap_skip_all "iproute2 not installed"
ipsec_modules || ktap_skip_all "no veth/xfrm/esp4 modules"
trap 'ipsec_down; aes_allow_intree_autoload' EXIT
aes_block_intree_autoload

aes_load_ours || { ktap_fail "load padlock-aes"; ktap_finish; }

for enc in "cbc(aes)" "rfc3686(ctr(aes))"; do
	case $enc in
	cbc*) drv=cbc-aes-padlock; ops="xcrypt_cbc" ;;
	*) drv=ctr-aes-padlock; ops="xcrypt_ctr xcrypt_ecb" ;;
	esac
	r0=$(aes_refcnt $drv)
	if ! ipsec_up "$enc"; then
		ktap_fail "$enc: ESP tunnel set up"
		ipsec_down
		continue
	fi
	r1=$(aes_refcnt $drv)
	if [ "${r1:-0}" -gt "${r0:-0}" ]; then
		ktap_pass "$enc: the SAs use $drv (refcnt $r0 -> $r1)"
	else
		ktap_fail "$enc: the SAs use $drv (refcnt $r0 -> $r1)"
	fi
	aes_sim_reset
	before=0
	for o in $ops; do before=$((before + $(sim_counter "$o" || echo 0))); done
	if ip netns exec pl-a ping -c 3 -W 5 -q 10.77.2.2 > /tmp/pl-ping.$$ 2>&1; then
		ktap_pass "$enc: ping through the tunnel"
	else
		ktap_diag "$(cat /tmp/pl-ping.$$)"
		ktap_fail "$enc: ping through the tunnel"
	fi
	rm -f /tmp/pl-ping.$$
	if command -v iperf3 > /dev/null; then
		ip netns exec pl-b iperf3 -s -1 -D -B 10.77.2.2 > /dev/null 2>&1
		sleep 1
		if out=$(ip netns exec pl-a timeout 60 iperf3 -c 10.77.2.2 -t 2 -f m 2>&1); then
			ktap_pass "$enc: iperf3 through the tunnel"
			ktap_diag "$(echo "$out" | grep -E 'sender|receiver')"
		else
			ktap_diag "$out"
			ktap_fail "$enc: iperf3 through the tunnel"
		fi
	else
		ktap_skip "$enc: iperf3 through the tunnel" "iperf3 not installed"
	fi
	bytes=$(ipsec_sa_bytes)
	if [ "${bytes:-0}" -gt 0 ]; then
		ktap_pass "$enc: SA byte counters grew ($bytes bytes)"
	else
		ktap_fail "$enc: SA byte counters grew"
	fi
	if [ -d /sys/module/padlock_sim ]; then
		after=0
		for o in $ops; do after=$((after + $(sim_counter "$o" || echo 0))); done
		if [ $((after - before)) -gt 0 ]; then
			ktap_pass "$enc: traffic ran through PadLock instructions ($ops: $((after - before)))"
		else
			ktap_fail "$enc: traffic ran through PadLock instructions ($ops: $((after - before)))"
		fi
	else
		ktap_skip "$enc: traffic ran through PadLock instructions" "no simulator"
	fi
	ipsec_down
done
ktap_finish
