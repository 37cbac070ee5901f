#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Real programs carrying traffic through the padlock OpenSSL provider
# (provider/), between two network namespaces joined by a veth pair in the
# guest, on either CPU model: padlock-sim's user-mode emulation (its
# debugfs user_cpuid answers CPUID at the provider's CPUID sites), or the
# project's QEMU (--cpu-model qemu), whose CPU answers CPUID and executes
# the instructions itself, counted in its counter MSRs (sim_counter).
#
# OpenVPN (Debian's 2.6): a TLS-mode point-to-point tunnel, control channel
# TLS 1.3 with certificates made here, data channel AES-256-GCM, both ends
# started with `--providers padlock default`, as provider/README.md tells
# users: OpenVPN fetches its data-channel cipher by name without a property
# query, and OpenSSL hands it padlock's AES-256-GCM.  Checked: the tunnel
# comes up with that cipher, ping goes through, iperf3 moves a bounded
# number of bytes through it, the CPU model executed at least one xcrypt
# per data packet (the tunnel's packets in both directions) and saw no
# violation.  The xcrypt-per-packet figure and iperf3's throughput are
# printed, not asserted.  Both ends run the same provider: a fault they
# share (a wrong keystream) still makes a working tunnel, which the OpenSSH
# part below (one end on OpenSSL's default provider) and provider.sh catch.
# iperf3 runs at PADLOCK_SCALE=long (32 MiB), or with
# PADLOCK_CLIENTS_IPERF_BYTES=N; make check pings through the tunnel only.
#
# OpenSSH (Debian's): sshd in one namespace with OPENSSL_CONF naming a file
# that loads padlock and prefers it (default_properties = ?provider=padlock),
# ssh in the other on OpenSSL's default provider; a transfer with
# aes128-ctr (and aes256-ctr with PADLOCK_SCALE=long) must arrive with the
# same SHA-256 with at least one xcrypt per 32 KiB SSH packet and every
# byte through the engine (2 MiB in make check, 16 MiB with
# PADLOCK_SCALE=long).
# The same with aes256-gcm@openssh.com, whose IVs go through the provider's
# TLS 1.2 GCM parameters (tlsivfixed, tlsivgen).
#
# openssl s_server and s_client over DTLS 1.2 with AES-GCM, one end
# preferring padlock, the other on OpenSSL's default provider, each way
# round: the client's data arrives unchanged.
dir=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=selftests/padlock/lib/ktap-lib.sh
. "$dir/lib/ktap-lib.sh"
# shellcheck source=selftests/padlock/lib/openssl-engine-lib.sh
. "$dir/lib/openssl-engine-lib.sh"
# shellcheck source=selftests/padlock/lib/aes-lib.sh
. "$dir/lib/aes-lib.sh"
# shellcheck source=selftests/padlock/lib/guest-build.sh
. "$dir/lib/guest-build.sh"

ktap_header
top=${PADLOCK_TOP:-$(cd "$dir/../.." && pwd)}
sim=/sys/kernel/debug/padlock-sim
for c in openvpn openssl ip iperf3 ping; do
	command -v $c > /dev/null || ktap_skip_all "$c is not installed in this root (tools/testing/setup installs it)"
done
model=sim
[ "${PADLOCK_CPU_MODEL:-sim}" = qemu ] && model=qemu
{ [ $model = qemu ] || [ -d "$sim" ]; } && grep -qw ace /proc/cpuinfo ||
	ktap_skip_all "no PadLock AES on profile $PADLOCK_PROFILE: the provider would offer no cipher"
if [ $model = qemu ]; then
	[ -n "$(sim_counter violations)" ] ||
		ktap_skip_all "no PadLock counters on the QEMU model (tools/testing/qemu/padlock-msr)"
else
	[ -e "$sim/user_cpuid" ] || ktap_skip_all "this padlock-sim has no user_cpuid"
fi
[ -e /usr/include/openssl/core_dispatch.h ] ||
	ktap_skip_all "no OpenSSL 3 headers in this root (libssl-dev) to build the provider"
# PADLOCK_PROVIDER_SRC: another provider source tree (a deliberately
# broken variant, to show that these tests fail)
src=${PADLOCK_PROVIDER_SRC:-$top/provider}
# Where the CPU has AES-NI the provider leaves AES to OpenSSL's own, where
# it has SSSE3 GCM (faster there); hidden from OpenSSL, they are padlock's,
# as on a VIA C7, and the data channels below run on them.
guest_offer_everything
# make check: no iperf3, 2 MiB through OpenSSH
iperf=0 sshmib=2
[ "$PADLOCK_SCALE" = long ] && iperf=$((32 << 20)) sshmib=16
bytes=${PADLOCK_CLIENTS_IPERF_BYTES:-$iperf}

tmp=$(mktemp -d)
pids=()
# stop the daemons this program started
stop_daemons() {
	[ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2>/dev/null
	wait 2>/dev/null
	pids=()
}
cleanup() {
	stop_daemons
	ip netns del pla 2>/dev/null
	ip netns del plb 2>/dev/null
	[ -e "$sim/user_cpuid" ] && echo clear > "$sim/user_cpuid"
	rm -rf "$tmp"
}
trap cleanup EXIT
t0=$(date +%s)
took() { ktap_diag "$1 took $(($(date +%s) - t0))s"; t0=$(date +%s); }

# the provider as shipped: built on the host in this root before the VM
# booted (tools/testing/guest-build) when that build is current, else here
how="built on the host in this root"
if [ -n "${PADLOCK_PROVIDER_SRC:-}" ] ||
   ! guest_prebuilt_provider "$top" "$(guest_root)" "$tmp"; then
	how="built in the guest"
	guest_build_provider "$src" "$top" "$tmp"
fi
if [ ! -e "$tmp/padlock.so" ]; then
	ktap_diag "$(head -n 20 "$tmp/build.log")"
	ktap_fail "the provider builds"
	ktap_finish
fi
if [ $model = sim ]; then
	n=$(openssl_engine_cpuid "$sim" "$tmp/padlock.so")
	if [ "$n" -lt 2 ]; then
		ktap_fail "CPUID leaves 0xC0000000/0xC0000001 provided at the provider's CPUID sites (found $n)"
		ktap_finish
	fi
fi
export OPENSSL_MODULES=$tmp
took "the provider, $how,"

# certificates: a CA, and one certificate for each end (default provider)
mkcert() {
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$1" \
		-keyout "$tmp/$1.key" -out "$tmp/$1.csr" &&
	openssl x509 -req -in "$tmp/$1.csr" -CA "$tmp/ca.pem" -CAkey "$tmp/ca.key" \
		-CAcreateserial -days 1 -out "$tmp/$1.pem" -extfile <(printf '%s\n' "$2")
}
if ! { openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=padlock-test-ca \
	-days 1 -keyout "$tmp/ca.key" -out "$tmp/ca.pem" &&
       mkcert server "$(printf 'keyUsage = digitalSignature\nextendedKeyUsage = serverAuth')" &&
       mkcert client "$(printf 'keyUsage = digitalSignature\nextendedKeyUsage = clientAuth')"; } \
	> "$tmp/certs.log" 2>&1; then
	ktap_diag "$(tail -n 5 "$tmp/certs.log")"
	ktap_fail "openssl req/x509 make a CA and two certificates"
	ktap_finish
fi

# two namespaces, pla (10.77.0.1) and plb (10.77.0.2), one veth pair
netns_up() {
	ip netns add pla && ip netns add plb &&
	ip link add vpa netns pla type veth peer name vpb netns plb &&
	ip -n pla addr add 10.77.0.1/24 dev vpa && ip -n plb addr add 10.77.0.2/24 dev vpb &&
	ip -n pla link set vpa up && ip -n plb link set vpb up &&
	ip -n pla link set lo up && ip -n plb link set lo up
}
netns_up || { ktap_fail "two network namespaces joined by a veth pair"; ktap_finish; }
[ -e /dev/net/tun ] || { mkdir -p /dev/net && mknod /dev/net/tun c 10 200; }

# OpenVPN, point to point in TLS mode: plb is the TLS server, pla the
# client; 10.8.0.1 (pla) and 10.8.0.2 (plb) inside the tunnel
ovpn() {
	local ns=$1 role=$2 log=$tmp/openvpn-$1.log
	shift 2
	ip netns exec "$ns" openvpn --dev tun0 --dev-type tun \
		--proto udp --port 1194 --ca "$tmp/ca.pem" --cert "$tmp/$role.pem" --key "$tmp/$role.key" \
		--tls-version-min 1.3 --data-ciphers AES-256-GCM --providers padlock default \
		--disable-dco --verb 3 --log "$log" "$@" &
	pids+=($!)
}
ovpn plb server --tls-server --dh none --local 10.77.0.2 --ifconfig 10.8.0.2 10.8.0.1 \
	--remote-cert-tls client
ovpn pla client --tls-client --remote 10.77.0.2 --nobind --ifconfig 10.8.0.1 10.8.0.2 \
	--remote-cert-tls server
up=0
for _ in $(seq 1 180); do
	grep -q 'Initialization Sequence Completed' "$tmp/openvpn-pla.log" 2>/dev/null &&
		grep -q 'Initialization Sequence Completed' "$tmp/openvpn-plb.log" 2>/dev/null && up=1 && break
	sleep 1
done
took "OpenVPN's start and TLS handshake"
if [ $up = 1 ]; then
	ktap_pass "OpenVPN tunnel up (TLS mode, both ends --providers padlock default)"
else
	ktap_diag "$(tail -n 8 "$tmp/openvpn-pla.log" "$tmp/openvpn-plb.log")"
	ktap_fail "OpenVPN tunnel up (TLS mode, both ends --providers padlock default)"
	ktap_finish
fi
# "Data Channel: cipher 'AES-256-GCM'" and "Control Channel: TLSv1.3, ..."
chan=$(grep -h 'Channel: ' "$tmp/openvpn-pla.log" "$tmp/openvpn-plb.log" | sed 's/^.*\(Data\|Control\) Channel:/\1:/')
ktap_diag "$chan"
if [ "$(grep -c "^Data: cipher 'AES-256-GCM'" <<< "$chan")" -ge 2 ] &&
   [ "$(grep -c '^Control: TLSv1.3' <<< "$chan")" -ge 2 ]; then
	ktap_pass "OpenVPN: data channel AES-256-GCM, control channel TLS 1.3 at both ends"
else
	ktap_fail "OpenVPN: data channel AES-256-GCM, control channel TLS 1.3 at both ends"
fi

ctr() { sim_counter "$1"; }
xcrypts() { aes_xcrypt_total; }
tunpkts() {
	echo $(( $(ip netns exec pla cat /sys/class/net/tun0/statistics/tx_packets) +
		 $(ip netns exec plb cat /sys/class/net/tun0/statistics/tx_packets) ))
}
v0=$(ctr violations)
x0=$(xcrypts)
p0=$(tunpkts)

ktap_check "ping through the tunnel (pla 10.8.0.1 -> plb 10.8.0.2)" \
	ip netns exec pla ping -c 10 -i 0.2 -W 10 10.8.0.2

if [ "$bytes" -gt 0 ]; then
	ip netns exec plb iperf3 -s -1 -B 10.8.0.2 > "$tmp/iperf3-server.log" 2>&1 &
	pids+=($!)
	for _ in $(seq 1 30); do
		ip netns exec plb ss -ltn | grep -q '10.8.0.2:5201' && break
		sleep 1
	done
	timeout 300 ip netns exec pla iperf3 -c 10.8.0.2 -n "$bytes" --connect-timeout 10000 -J \
		> "$tmp/iperf3.json" 2> "$tmp/iperf3.err"
	got=$(python3 -c '
import json, sys
e = json.load(open(sys.argv[1]))["end"]
print(e["sum_sent"]["bytes"], e["sum_received"]["bytes"],
      "%.1f" % (e["sum_received"]["bits_per_second"] / 1e6))
' "$tmp/iperf3.json" 2>/dev/null)
	read -r sent rcvd mbit <<< "$got"
	# the receiver's sum leaves out what arrived after its last interval
	if [ "${sent:-0}" -ge "$bytes" ] && [ "${rcvd:-0}" -gt 0 ]; then
		ktap_diag "iperf3 through the tunnel: $sent bytes sent, $rcvd received at $mbit Mbit/s (under emulation; not asserted)"
		ktap_pass "iperf3 moved $bytes bytes through the tunnel"
	else
		ktap_diag "iperf3: '$got' $(tail -n 3 "$tmp/iperf3.err") $(head -c 300 "$tmp/iperf3.json")"
		ktap_fail "iperf3 moved $bytes bytes through the tunnel"
	fi
else
	ktap_skip "iperf3 through the tunnel" "check-long only (PADLOCK_CLIENTS_IPERF_BYTES=N runs it)"
fi
took "ping and iperf3"

x=$(($(xcrypts) - x0))
p=$(($(tunpkts) - p0))
ktap_diag "data packets through the tunnel: $p, xcrypt instructions: $x ($(awk -v x=$x -v p=$p \
	'BEGIN { if (p) printf "%.2f", x / p }') per packet, sealed and opened)"
if [ "$p" -gt 0 ] && [ "$x" -ge "$p" ]; then
	ktap_pass "OpenVPN's data channel ran on PadLock: at least one xcrypt per packet"
else
	ktap_fail "OpenVPN's data channel ran on PadLock: $x xcrypt for $p packets"
fi
if grep -qi 'error\|AEAD Decrypt\|Authenticate/Decrypt packet' "$tmp/openvpn-pla.log" "$tmp/openvpn-plb.log"; then
	ktap_diag "$(grep -hi 'error\|AEAD Decrypt\|Authenticate/Decrypt packet' "$tmp"/openvpn-pl?.log | head -n 5)"
	ktap_fail "OpenVPN logged no error and no packet that failed to decrypt"
else
	ktap_pass "OpenVPN logged no error and no packet that failed to decrypt"
fi
stop_daemons

# --- OpenSSH: sshd in plb with padlock preferred, ssh in pla without ---
# OpenSSH gets its ciphers as EVP_aes_128_ctr() and the like, which OpenSSL
# fetches at EVP_CipherInit() with the default properties of the
# configuration file OPENSSL_CONF names (OpenSSH loads it).  The client
# keeps OpenSSL's default provider: the server's PadLock AES must agree
# with OpenSSL's own, byte for byte.
ssh_check() {
	local c=$1 x0 s0 b0 got x b rc=0
	x0=$(xcrypts)
	s0=$(xsha_total)
	b0=$(sim_counter aes_blocks)
	got=$(ip netns exec pla timeout 120 ssh -F /dev/null -i "$tmp/userkey" -o BatchMode=yes \
		-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR \
		-c "$c" -m hmac-sha2-256 -p 2222 root@10.77.0.2 sha256sum < "$tmp/blob" 2> "$tmp/ssh.err") || rc=$?
	x=$(($(xcrypts) - x0))
	b=$(($(sim_counter aes_blocks) - b0))
	ktap_diag "ssh -c $c: $sshbytes bytes, $x xcrypt for $b blocks, $(($(xsha_total) - s0)) xsha (hmac-sha2-256)"
	# every byte sshd received was deciphered by the engine (the
	# provider's own random numbers and key set-up are a few hundred blocks)
	if [ "${got:0:64}" = "$want" ] && [ "$x" -ge $((sshbytes / 32768)) ] &&
	   [ "$b" -ge $((sshbytes / 16)) ]; then
		ktap_pass "OpenSSH $c: $((sshbytes >> 20)) MiB into sshd on PadLock, the same SHA-256"
	else
		ktap_diag "ssh exit status $rc, digest '${got:0:64}', want $want; $(tail -n 3 "$tmp/ssh.err" "$tmp/sshd.log")"
		ktap_fail "OpenSSH $c: $((sshbytes >> 20)) MiB into sshd on PadLock, the same SHA-256"
	fi
}
# What a user puts in the file OPENSSL_CONF names (provider/README.md)
cat > "$tmp/openssl-padlock.cnf" <<EOF
openssl_conf = openssl_init
[openssl_init]
providers = provider_sect
alg_section = algorithm_sect
[provider_sect]
default = default_sect
padlock = padlock_sect
[default_sect]
activate = 1
[padlock_sect]
activate = 1
[algorithm_sect]
default_properties = ?provider=padlock
EOF
sshbytes=$((sshmib << 20))
if [ ! -x /usr/sbin/sshd ] || ! command -v ssh > /dev/null; then
	ktap_skip "OpenSSH" "openssh-server/openssh-client not installed (tools/testing/setup installs them)"
else
	mkdir -p /run/sshd
	ssh-keygen -q -t ed25519 -N '' -f "$tmp/hostkey" && ssh-keygen -q -t ed25519 -N '' -f "$tmp/userkey"
	cp "$tmp/userkey.pub" "$tmp/authorized_keys"
	# UsePAM as Debian ships it: without PAM, sshd refuses root's locked password entry
	printf '%s\n' "Port 2222" "ListenAddress 10.77.0.2" "HostKey $tmp/hostkey" \
		"AuthorizedKeysFile $tmp/authorized_keys" "PidFile $tmp/sshd.pid" "StrictModes no" \
		"UsePAM yes" "Ciphers aes128-ctr,aes256-ctr,aes256-gcm@openssh.com" > "$tmp/sshd_config"
	head -c $sshbytes /dev/urandom > "$tmp/blob"
	want=$(sha256sum < "$tmp/blob")
	want=${want:0:64}
	OPENSSL_CONF=$tmp/openssl-padlock.cnf ip netns exec plb /usr/sbin/sshd -D -e \
		-f "$tmp/sshd_config" 2> "$tmp/sshd.log" &
	pids+=($!)
	for _ in $(seq 1 30); do
		grep -q 'Server listening' "$tmp/sshd.log" && break
		sleep 1
	done
	ssh_check aes128-ctr
	[ "$PADLOCK_SCALE" = long ] && ssh_check aes256-ctr
	# OpenSSH's AES-GCM sets and advances its IV through the TLS 1.2
	# parameters (tlsivfixed, tlsivgen)
	ssh_check aes256-gcm@openssh.com
	took "OpenSSH"
fi

# --- DTLS 1.2 with AES-GCM: openssl s_server and s_client ---
# libssl's DTLS record layer asks the cipher for things its TLS one does
# not (the "tls-mac" of every record it opens, AEAD or not).  One end
# prefers padlock, the other keeps OpenSSL's default provider, each way
# round: the handshake's Finished messages and the client's data (64 KiB
# of text, records up to 16 KiB) must come through unchanged, sealed or
# opened by the engine.  Both ends in plb, over its loopback: DTLS does not
# split a write into records that fit the path's MTU, and 16 KiB records
# do not fit the veth pair's 1500 bytes.
dtls_check() {
	local who=$1 scnf=$2 ccnf=$3 x0 rc=0 listening=0
	x0=$(xcrypts)
	# s_server ends at the end of its standard input: give it one that
	# stays open (and empty) until it has taken the client's data
	exec 7<> "$tmp/dtls.fifo"
	ip netns exec plb env OPENSSL_CONF="$scnf" timeout 120 openssl s_server -dtls1_2 \
		-accept 127.0.0.1:4433 -naccept 1 -quiet -cert "$tmp/server.pem" -key "$tmp/server.key" \
		-cipher ECDHE-ECDSA-AES128-GCM-SHA256 <&7 > "$tmp/dtls.out" 2> "$tmp/dtls-server.log" &
	for _ in $(seq 1 60); do
		ip netns exec plb ss -Hlun | grep -q '127.0.0.1:4433' && listening=1 && break
		sleep 0.5
	done
	ip netns exec plb env OPENSSL_CONF="$ccnf" timeout 120 openssl s_client -dtls1_2 \
		-connect 127.0.0.1:4433 -quiet -no_ign_eof -nocommands -CAfile "$tmp/ca.pem" \
		-cipher ECDHE-ECDSA-AES128-GCM-SHA256 < "$tmp/dtls.in" > "$tmp/dtls-client.log" 2>&1 || rc=$?
	wait $! 2>/dev/null
	exec 7>&-
	if [ $listening = 1 ] && [ $rc = 0 ] && cmp -s "$tmp/dtls.in" "$tmp/dtls.out" &&
	   [ $(($(xcrypts) - x0)) -gt 0 ]; then
		ktap_pass "DTLS 1.2 ECDHE-ECDSA-AES128-GCM-SHA256, $who preferring padlock: 64 KiB arrive unchanged"
	else
		ktap_diag "listening $listening, s_client exit $rc, $(wc -c < "$tmp/dtls.out") of $(wc -c < "$tmp/dtls.in") bytes arrived, $(($(xcrypts) - x0)) xcrypt"
		ktap_diag "$(grep -iv 'verify\|depth=' "$tmp/dtls-server.log" "$tmp/dtls-client.log" | head -n 6)"
		ktap_fail "DTLS 1.2 ECDHE-ECDSA-AES128-GCM-SHA256, $who preferring padlock: 64 KiB arrive unchanged"
	fi
}
head -c 49152 /dev/urandom | base64 > "$tmp/dtls.in"
mkfifo "$tmp/dtls.fifo"
dtls_check "the server" "$tmp/openssl-padlock.cnf" /dev/null
dtls_check "the client" /dev/null "$tmp/openssl-padlock.cnf"
took "DTLS"

v1=$(ctr violations)
if [ "$v1" = "$v0" ]; then
	ktap_pass "no violation by the provider"
else
	[ $model = sim ] && ktap_diag "$(tail -n 10 "$sim/violations_log" 2>/dev/null)"
	ktap_fail "no violation by the provider ($((v1 - v0)))"
fi
if [ $model = qemu ]; then
	ktap_diag "QEMU model counters: $("$top/tools/testing/qemu/padlock-msr" | tr '\n' ' ')"
else
	ktap_diag "sim counters: $(tr '\n' ' ' < "$sim/counters")"
fi
ktap_finish
