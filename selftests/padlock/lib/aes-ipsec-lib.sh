# SPDX-License-Identifier: GPL-2.0
# An ESP tunnel between network namespaces pl-a (10.77.1.1, inner
# 10.77.2.1) and pl-b (10.77.1.2, inner 10.77.2.2) over veth.
#
#   ipsec_modules           load veth/xfrm/esp4 (fails if missing)
#   ipsec_up ENC [AUTH]     namespaces + SAs (ENC with AUTH, default
#                           hmac(sha256); hmac(sha1) is truncated to 96 bits)
#   ipsec_down              remove everything (always safe to call)
#   ipsec_prebuild ENC AUTH ENCDRV AUTHDRV
#                           on a kernel with the randomized self-tests: build
#                           the SAs' transform over the drivers ENCDRV and
#                           AUTHDRV, and the generic reference its self-test
#                           compares with, leaves first (one line per
#                           instance on stdout; 1 if one failed)
#   ipsec_sa_bytes          bytes counted by pl-a's SAs
#   ipsec_sa_packets        packets counted by pl-a's SAs (each one went
#                           through ESP twice: sent by one side, received
#                           by the other)

ipsec_modules() {
	modprobe veth 2>/dev/null
	modprobe xfrm_user 2>/dev/null
	modprobe esp4 2>/dev/null
	ip link add pl-probe0 type veth peer name pl-probe1 2>/dev/null || return 1
	ip link del pl-probe0
	return 0
}

ipsec_down() {
	ip netns del pl-a 2>/dev/null
	ip netns del pl-b 2>/dev/null
	return 0
}

ipsec_prebuild() {
	local enc=$1 auth=$2 encdrv=$3 authdrv=$4 geniv genc gauth
	[ "$(cat /sys/module/cryptomgr/parameters/noextratests 2>/dev/null)" = N ] || return 0
	modprobe -q algif_skcipher
	modprobe -q algif_hash
	modprobe -q algif_aead || { echo "no algif_aead: the transforms are built by ip xfrm"; return 0; }
	# The test manager's generic reference of authenc(AUTH,ENC) first, by
	# driver names; then ours, by the driver names of our cipher and hmac:
	# asked for by its algorithm name, authenc(AUTH,ENC) would now resolve
	# to the generic instance, the only one of that name, and no template
	# instance over our drivers would ever be built.  Last the IV generator
	# ESP asks for by name (echainiv for cbc, seqiv for rfc3686), over the
	# best authenc(AUTH,ENC): ours.
	case $enc in
	rfc3686*) geniv=seqiv genc="skcipher:ctr(aes-generic) skcipher:rfc3686(ctr(aes-generic))" ;;
	*) geniv=echainiv genc="skcipher:${enc//aes/aes-generic}" ;;
	esac
	gauth=${auth/)/-generic)}
	# shellcheck disable=SC2086
	python3 "${BASH_SOURCE[0]%/*}/afalg_build.py" $genc "hash:$gauth" \
		"aead:authenc($gauth,${enc//aes/aes-generic})" "skcipher:$encdrv" \
		"aead:authenc($authdrv,$encdrv)" "aead:$geniv(authenc($auth,$enc))"
}

ipsec_up() {
	local enc=$1 auth=${2:-hmac(sha256)} ekey akey ns spi dir trunc=128
	ipsec_down
	case "$enc" in
	rfc3686*) ekey=0x$(head -c 20 /dev/urandom | xxd -p -c 64) ;;
	*) ekey=0x$(head -c 16 /dev/urandom | xxd -p -c 64) ;;
	esac
	case "$auth" in
	"hmac(sha1)") akey=0x$(head -c 20 /dev/urandom | xxd -p -c 64) trunc=96 ;;
	*) akey=0x$(head -c 32 /dev/urandom | xxd -p -c 64) ;;
	esac
	ip netns add pl-a && ip netns add pl-b || return 1
	ip link add pl-va netns pl-a type veth peer name pl-vb netns pl-b || return 1
	ip -n pl-a addr add 10.77.1.1/24 dev pl-va
	ip -n pl-b addr add 10.77.1.2/24 dev pl-vb
	ip -n pl-a addr add 10.77.2.1/32 dev lo
	ip -n pl-b addr add 10.77.2.2/32 dev lo
	for ns in pl-a pl-b; do
		ip -n $ns link set lo up
	done
	ip -n pl-a link set pl-va up
	ip -n pl-b link set pl-vb up
	ip -n pl-a route add 10.77.2.2/32 via 10.77.1.2 src 10.77.2.1
	ip -n pl-b route add 10.77.2.1/32 via 10.77.1.1 src 10.77.2.2
	for ns in pl-a pl-b; do
		ip -n $ns xfrm state add src 10.77.1.1 dst 10.77.1.2 proto esp spi 0x1001 reqid 1 \
			mode tunnel enc "$enc" "$ekey" auth-trunc "$auth" "$akey" $trunc || return 1
		ip -n $ns xfrm state add src 10.77.1.2 dst 10.77.1.1 proto esp spi 0x1002 reqid 2 \
			mode tunnel enc "$enc" "$ekey" auth-trunc "$auth" "$akey" $trunc || return 1
	done
	ip -n pl-a xfrm policy add src 10.77.2.1/32 dst 10.77.2.2/32 dir out \
		tmpl src 10.77.1.1 dst 10.77.1.2 proto esp reqid 1 mode tunnel || return 1
	ip -n pl-a xfrm policy add src 10.77.2.2/32 dst 10.77.2.1/32 dir in \
		tmpl src 10.77.1.2 dst 10.77.1.1 proto esp reqid 2 mode tunnel || return 1
	ip -n pl-b xfrm policy add src 10.77.2.2/32 dst 10.77.2.1/32 dir out \
		tmpl src 10.77.1.2 dst 10.77.1.1 proto esp reqid 2 mode tunnel || return 1
	ip -n pl-b xfrm policy add src 10.77.2.1/32 dst 10.77.2.2/32 dir in \
		tmpl src 10.77.1.1 dst 10.77.1.2 proto esp reqid 1 mode tunnel || return 1
	return 0
}

ipsec_sa_bytes() {
	ip -n pl-a -s xfrm state 2>/dev/null |
		awk '/lifetime current:/ { getline; s += $1 } END { print s + 0 }'
}

ipsec_sa_packets() {
	ip -n pl-a -s xfrm state 2>/dev/null |
		awk '/lifetime current:/ { getline; s += $2 } END { print s + 0 }'
}
