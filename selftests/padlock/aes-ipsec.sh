#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# IPsec ESP tunnel between two network namespaces over veth, with
# cbc(aes)+hmac(sha256), cbc(aes)+hmac(sha1) and rfc3686(ctr(aes))+
# hmac(sha256): ping and a short iperf3 work, the SA counters grow, the SAs
# hold our drivers (padlock-aes for the cipher, padlock-sha's native
# hmac-shaN-padlock for the authentication), and the CPU model's counters
# (padlock-sim's, or the QEMU model's MSRs) show that both ran on PadLock:
# xcrypt and xsha instructions per ESP packet.  One diagnostic line per SA says which drivers served it.
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

# The hash engine: padlock-sha (ours) serves the SAs' hmac where the CPU
# has PHE; the C3 has none, so there only the cipher is PadLock's.
phe=0
if grep -qw phe_en /proc/cpuinfo; then
	if padlock_sha_fresh; then
		phe=1
	else
		ktap_fail "load padlock-sha"
	fi
else
	ktap_diag "profile $PADLOCK_PROFILE has no PHE hash engine: only the cipher is asserted to run on PadLock, the authentication is the kernel's software hmac"
fi
# The traffic below should not share the CPU with the self-tests of the
# algorithms just registered (background since 6.12; minutes on the debug
# kernel)
crypto_tests_wait || ktap_diag "crypto self-tests still running after 900 s"

# sim_sum COUNTER...: the sum of the CPU model's counters (sim_counter)
sim_sum() {
	local t=0 c
	for c in "$@"; do t=$((t + $(sim_counter "$c" || echo 0))); done
	echo $t
}

# per_packet N PACKETS: N / PACKETS with one decimal
per_packet() { echo "$(($1 / $2)).$(($1 * 10 / $2 % 10))"; }

for sa in "cbc(aes) hmac(sha256)" "cbc(aes) hmac(sha1)" "rfc3686(ctr(aes)) hmac(sha256)"; do
	read -r enc auth <<< "$sa"
	case $enc in
	cbc*) drv=cbc-aes-padlock; ops="xcrypt_cbc" ;;
	*) drv=ctr-aes-padlock; ops="xcrypt_ctr xcrypt_ecb" ;;
	esac
	case $auth in
	*sha1*) hdrv=hmac-sha1-padlock; hops=xsha1 ;;
	*) hdrv=hmac-sha256-padlock; hops=xsha256 ;;
	esac
	name="$enc+$auth"
	# On the debug kernel, a first use that builds and tests the
	# instances inside ip's 60 s crypto API wait would fail the SA
	encdrv=$drv
	[[ $enc == rfc3686* ]] && encdrv="rfc3686($drv)"
	authdrv=$hdrv
	[ $phe = 1 ] || authdrv=${auth/)/-generic)}
	if ! out=$(ipsec_prebuild "$enc" "$auth" "$encdrv" "$authdrv" 2>&1); then
		ktap_diag "$out"
		ktap_fail "$name: the SAs' transform instantiated with its self-tests"
		continue
	fi
	if [ -n "$out" ]; then
		ktap_diag "$out"
		crypto_tests_wait
	fi
	r0=$(aes_refcnt $drv)
	h0=$(aes_refcnt $hdrv)
	if ! ipsec_up "$enc" "$auth"; then
		ktap_fail "$name: ESP tunnel set up"
		ipsec_down
		continue
	fi
	r1=$(aes_refcnt $drv)
	h1=$(aes_refcnt $hdrv)
	if [ "${r1:-0}" -gt "${r0:-0}" ]; then
		ktap_pass "$name: the SAs use $drv (refcnt $r0 -> $r1)"
	else
		ktap_fail "$name: the SAs use $drv (refcnt $r0 -> $r1)"
	fi
	if [ $phe = 1 ]; then
		if [ "${h1:-0}" -gt "${h0:-0}" ]; then
			ktap_pass "$name: the SAs use $hdrv (refcnt $h0 -> $h1)"
		else
			ktap_fail "$name: the SAs use $hdrv (refcnt $h0 -> $h1)"
		fi
	fi
	inst=$(aes_driver_for "authenc($auth,$enc)")
	aes_sim_reset
	x0=$(sim_sum $ops)
	s0=$(sim_sum $hops)
	p0=$(ipsec_sa_packets)
	if ip netns exec pl-a ping -c 3 -W 5 -q 10.77.2.2 > /tmp/pl-ping.$$ 2>&1; then
		ktap_pass "$name: ping through the tunnel"
	else
		ktap_diag "$(cat /tmp/pl-ping.$$)"
		ktap_fail "$name: ping through the tunnel"
	fi
	rm -f /tmp/pl-ping.$$
	if command -v iperf3 > /dev/null; then
		ip netns exec pl-b iperf3 -s -1 -D -B 10.77.2.2 > /dev/null 2>&1
		sleep 1
		# -l 16K: iperf3 writes 10 blocks between two looks at its
		# clock, and each write encrypts its segments in the writer's
		# context: with the default 128 KiB blocks a round is 1.25 MiB,
		# about 30 s through ESP on the debug kernel (KASAN under TCG),
		# close to the server's own limit of -t plus 40 s, after which
		# it closes the stream (client: "Broken pipe")
		if out=$(ip netns exec pl-a timeout 60 iperf3 -c 10.77.2.2 -t 2 -l 16K -f m 2>&1); then
			ktap_pass "$name: iperf3 through the tunnel"
			ktap_diag "$(echo "$out" | grep -E 'sender|receiver')"
		else
			ktap_diag "$out"
			ktap_fail "$name: iperf3 through the tunnel"
		fi
	else
		ktap_skip "$name: iperf3 through the tunnel" "iperf3 not installed"
	fi
	bytes=$(ipsec_sa_bytes)
	pk=$(($(ipsec_sa_packets) - p0))
	if [ "${bytes:-0}" -gt 0 ] && [ "$pk" -gt 0 ]; then
		ktap_pass "$name: SA counters grew ($bytes bytes, $pk packets)"
	else
		ktap_fail "$name: SA counters grew ($bytes bytes, $pk packets)"
		pk=1
	fi
	# Every packet is encrypted and authenticated by one side, verified
	# and decrypted by the other: at least one xcrypt and one xsha at each
	# end, two per packet.  (Nano: 2.0 xcrypt-cbc, 4.0 xsha per packet, an
	# HMAC being two final-mode xsha there.)
	if padlock_counters; then
		xc=$(($(sim_sum $ops) - x0))
		xs=$(($(sim_sum $hops) - s0))
		if [ "$xc" -ge $((2 * pk)) ]; then
			ktap_pass "$name: the cipher ran on PadLock ($ops: $xc for $pk packets, $(per_packet "$xc" "$pk") per packet)"
		else
			ktap_fail "$name: the cipher ran on PadLock ($ops: $xc for $pk packets)"
		fi
		if [ $phe = 1 ]; then
			if [ "$xs" -ge $((2 * pk)) ]; then
				ktap_pass "$name: the authentication ran on PadLock ($hops: $xs for $pk packets, $(per_packet "$xs" "$pk") per packet)"
			else
				ktap_fail "$name: the authentication ran on PadLock ($hops: $xs for $pk packets)"
			fi
		fi
		# the instance's own parts: authenc(AUTH,CIPHER)
		a=${inst#authenc(} c=${inst#*,}
		ktap_diag "$(uname -r) $PADLOCK_PROFILE: $name served by $inst: auth ${a%%,*} ($(per_packet "$xs" "$pk") xsha/packet), cipher ${c%)} ($(per_packet "$xc" "$pk") xcrypt/packet)"
	else
		ktap_skip "$name: traffic ran through PadLock instructions" "no instruction counters (neither padlock-sim nor the QEMU model)"
		ktap_diag "$(uname -r) $PADLOCK_PROFILE: $name served by $inst"
	fi
	ipsec_down
done
# The namespaces' SAs, which hold the hmac transforms, are freed after
# "ip netns del" returns (the kernel cleans up namespaces in a workqueue).
if [ $phe = 1 ]; then
	held=
	for _ in $(seq 60); do
		[ -d /sys/module/padlock_sha ] || break
		rmmod padlock_sha 2> /dev/null && break
		held=$(awk -F' *: ' '$1 == "driver" { d = $2 } $1 == "refcnt" && d ~ /^(hmac-)?sha.*-padlock$/ && $2 > 1 { printf "%s=%s ", d, $2 }' /proc/crypto)
		# only hmac(sha512) held: the default DRBG's, kept until reboot
		[[ "$held" =~ ^hmac-sha512-padlock=[0-9]+\ $ ]] && break
		sleep 1
	done
	[ -d /sys/module/padlock_sha ] &&
		ktap_diag "padlock_sha still in use after the tunnels were removed: refcnt $held"
fi
ktap_finish
