#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Software path length per dm-crypt 4 KiB sector and per IPsec packet
# (docs/performance.md section 3).  Runs in a guest booted with
#   tools/testing/vm/run --icount --sim-args interrupt_rate=0 -- bash tools/measure/path-length-dmcrypt-ipsec.sh
# where guest time is executed instructions.  For each driver it reads
# padlock-sim's cost file around the workload and prints per sector (or
# packet): guest time, the simulator's share (handler cycles + traps x
# trap_overhead_cycles), path = guest - sim, and PadLock traps.
#
# dm-crypt: aes-xts-plain64, 2x128-bit key, 4096-byte sectors, on a brd RAM
# disk; dd of MB MiB with O_DIRECT 4 KiB blocks, written then read back.
# The crypto runs in dm-crypt's kworkers; on the one-vCPU guest nothing
# runs beside dd, so the whole dd's guest time / sectors is the per-sector
# cost.  Drivers pinned by capi: names: floor cipher_null-ecb, the generic
# xts(ecb(aes-generic)), ours xts-aes-padlock, in-tree xts(ecb-aes-padlock)
# (the kernel's padlock_aes has no xts of its own).
#
# IPsec: ESP transport mode between two network namespaces over veth,
# cbc(aes)+hmac(sha256) (xfrm takes algorithm names, not drivers: the
# driver is chosen by loading/unloading modules and printed; the +sha rows
# run the HMAC on PadLock too, where the CPU has PHE), floors
# ecb(cipher_null)+hmac(sha256) and ecb(cipher_null)+digest_null; COUNT UDP
# datagrams of 1400 bytes of payload, each encrypted once and decrypted
# once in the measured window (tools/measure/path-length-ipsec.py).
#
# Environment: PL_MB (dm-crypt MiB, default 4), PL_PKTS (packets, 500),
# PL_PARTS ("dmcrypt ipsec"), PL_WHATS (the dm-crypt rows), PL_IPSEC_WHATS
# (the IPsec rows), PL_PERF (a directory: a perf profile of each timed window,
# tools/measure/path-length-ipsec.py; docs/performance.md section 3.7).
cd "$PADLOCK_TOP" || exit 1
. selftests/padlock/lib/ktap-lib.sh
. selftests/padlock/lib/aes-lib.sh

SIM=/sys/kernel/debug/padlock-sim
MB=${PL_MB:-4}
PKTS=${PL_PKTS:-500}
PARTS=${PL_PARTS:-dmcrypt ipsec}
old_clobber=$(cat $SIM/clobber)
old_schedstats=$(cat /proc/sys/kernel/sched_schedstats)
gen=$(aes_generic)
intree=0
modinfo padlock_aes > /dev/null 2>&1 && intree=1

# "traps handler_cycles trap_overhead busy_ns": the cost file summed over
# the opcode classes, and the time tasks ran (/proc/schedstat rq_cpu_time,
# added when a task leaves the CPU): guest time - busy = time the vCPU was
# idle, time that passes under icount without executing instructions.  The cost readings sit inside the timed window, so that the
# processes they start are counted in both; they are part of the floor.
cost() {
	{ cat $SIM/cost; grep '^cpu' /proc/schedstat; } |
	awk '$1 == "trap_overhead_cycles" { o = $2; next }
	     $1 ~ /^cpu/ { b += $8; next }
	     { t += $2; c += $3 } END { printf "%.0f %.0f %.0f %.0f\n", t, c, o, b }'
}

# report KIND LABEL DRIVER OP UNITS T0 T1 "C0" "C1"
report() {
	local c0=($8) c1=($9) traps sim el idle
	traps=$((c1[0] - c0[0]))
	sim=$((c1[1] - c0[1] + traps * c1[2]))
	el=$(($7 - $6))
	idle=$((el - (c1[3] - c0[3])))
	awk -v k="$1" -v l="$2" -v d="$3" -v op="$4" -v n="$5" -v el=$el -v sim=$sim -v tr=$traps -v idle=$idle \
		'BEGIN { printf "%-7s %-10s %-40s %-5s %6d %5d %11.0f %9.0f %11.0f %11.0f %7.2f\n",
			k, l, d, op, 4096, n, el / n, idle / n, sim / n, (el - idle - sim) / n, tr / n }'
}

cleanup() {
	dmsetup remove --retry pl-path > /dev/null 2>&1
	ip netns del pl-a 2>/dev/null
	ip netns del pl-b 2>/dev/null
	echo "$old_clobber" > $SIM/clobber
	echo "$old_schedstats" > /proc/sys/kernel/sched_schedstats
	aes_allow_intree_autoload
	rm -f /etc/modprobe.d/padlock-path-length.conf
}
trap cleanup EXIT
aes_block_intree_autoload
# rq_cpu_time counts only with schedstats on
echo 1 > /proc/sys/kernel/sched_schedstats
# the in-tree padlock_sha must not replace sha256 in hmac(sha256), nor
# AES-NI (profile zhaoxin) the AES driver picked by cbc(aes)
printf 'blacklist padlock_sha\nblacklist aesni_intel\n' > /etc/modprobe.d/padlock-path-length.conf
rmmod padlock_sha aesni_intel 2>/dev/null

sim_calibrate > /dev/null
echo "# kernel $(uname -r), profile $PADLOCK_PROFILE, icount ${PADLOCK_ICOUNT:-0}," \
	"trap_overhead_cycles $(cost | cut -d' ' -f3), generic $gen, in-tree padlock_aes $intree"
echo "# kind   what       driver                                   op      size units    guest/u    idle/u       sim/u      path/u traps/u"
echo "# (path = guest - idle - sim)"

# perf_start NAME / perf_stop NAME UNITS: with PL_PERF, a perf profile of the
# window between them (every PL_PERF_PERIOD guest instructions, all CPUs,
# call chains) and its report, made while the row's modules are loaded
perf_start() {
	[ -n "${PL_PERF:-}" ] || return 0
	rm -f /tmp/pl-ctl /tmp/pl-ack
	mkfifo /tmp/pl-ctl /tmp/pl-ack
	# started disabled: its own start-up stays out of the window
	perf record -q -a -g -e cpu-clock -c "${PL_PERF_PERIOD:-10000}" -D -1 \
		--control fifo:/tmp/pl-ctl,/tmp/pl-ack -o "/tmp/pl-$1.data" &
	perf_pid=$!
	exec 8> /tmp/pl-ctl 9< /tmp/pl-ack
	echo enable >&8
	read -r _ <&9
}
perf_stop() {
	[ -n "${PL_PERF:-}" ] || return 0
	echo disable >&8
	read -r _ <&9
	exec 8>&- 9<&-
	kill -INT $perf_pid
	wait $perf_pid
	rm -f /tmp/pl-ctl /tmp/pl-ack
	python3 tools/measure/path-length-ipsec.py --perf-report "/tmp/pl-$1.data" "$PL_PERF/$1" "$2"
}

# use WHAT: load the driver set of a row (generic/floor: no padlock_aes);
# WHAT+sha also loads that side's padlock_sha, so that hmac(sha256) runs
# on PadLock too (ours: its own hmac-sha256-padlock; in-tree: the hmac
# template over its sha256)
use() {
	echo "$old_clobber" > $SIM/clobber
	rmmod padlock_sha 2> /dev/null
	case $1 in
	ours*) aes_load_ours ;;
	in-tree*)
		# its asm keeps live values in rAX across xcrypt-ecb
		# (selftests/padlock/sim-intree.sh)
		echo $((old_clobber & ~1)) > $SIM/clobber
		aes_load_intree ;;
	*) aes_unload ;;
	esac || return 1
	case $1 in
	ours+sha) padlock_insmod padlock-sha ;;
	in-tree+sha) modprobe padlock_sha ;;
	esac
}

whats=${PL_WHATS:-floor generic ours}
[ $intree = 1 ] && whats="$whats in-tree"
whats="$whats floor"    # the floor again: how much a rerun moves

if [[ " $PARTS " == *" dmcrypt "* ]]; then
	modprobe dm_crypt
	[ -b /dev/ram0 ] || modprobe brd rd_nr=1 rd_size=$(((MB + 1) * 1024))
	size=$((MB * 2048))
	key=$(printf '%064x' 0x0123456789abcdef)    # 32 bytes: XTS 2x128
	sectors=$((MB * 256))
	for w in $whats; do
		use $w || { echo "# $w: cannot load its driver"; continue; }
		case $w in
		floor) spec=cipher_null-ecb; k=- ;;
		generic) spec="capi:xts(ecb($gen))-plain64"; k=$key ;;
		ours) spec=capi:xts-aes-padlock-plain64; k=$key ;;
		in-tree) spec="capi:xts(ecb-aes-padlock)-plain64"; k=$key ;;
		esac
		if ! dmsetup create --noudevsync pl-path --table \
			"0 $size crypt $spec $k 0 /dev/ram0 0 1 sector_size:4096" ||
			! dmsetup mknodes pl-path; then
			echo "# $w: dmsetup create $spec failed"
			continue
		fi
		dev=/dev/mapper/pl-path
		dd if=/dev/zero of=$dev bs=4k count=16 oflag=direct status=none
		dd if=$dev of=/dev/null bs=4k count=16 iflag=direct status=none
		perf_start dmcrypt-$w-write
		t0=$(date +%s%N); c0=$(cost)
		dd if=/dev/zero of=$dev bs=4k count=$sectors oflag=direct status=none
		c1=$(cost); t1=$(date +%s%N)
		perf_stop dmcrypt-$w-write $sectors
		report dmcrypt $w "$spec" write $sectors $t0 $t1 "$c0" "$c1"
		perf_start dmcrypt-$w-read
		t0=$(date +%s%N); c0=$(cost)
		dd if=$dev of=/dev/null bs=4k count=$sectors iflag=direct status=none
		c1=$(cost); t1=$(date +%s%N)
		perf_stop dmcrypt-$w-read $sectors
		report dmcrypt $w "$spec" read $sectors $t0 $t1 "$c0" "$c1"
		dmsetup remove --retry pl-path
	done
	aes_unload
	rmmod brd 2>/dev/null
fi

# sa_up ENC EKEY AUTH AKEY ICVBITS: ESP transport SAs both ways, policies
# for UDP (protocol 17: the 686 image has no /etc/protocols) from pl-a to pl-b
sa_up() {
	local ns s d spi
	ip netns del pl-a 2>/dev/null
	ip netns del pl-b 2>/dev/null
	ip netns add pl-a && ip netns add pl-b &&
		ip link add pl-va netns pl-a type veth peer name pl-vb netns pl-b || return 1
	ip -n pl-a addr add 10.77.1.1/24 dev pl-va
	ip -n pl-b addr add 10.77.1.2/24 dev pl-vb
	for ns in pl-a pl-b; do
		ip -n $ns link set lo up
	done
	ip -n pl-a link set pl-va up
	ip -n pl-b link set pl-vb up
	for ns in pl-a pl-b; do
		for spi in 1 2; do
			s=10.77.1.$spi d=10.77.1.$((3 - spi))
			ip -n $ns xfrm state add src $s dst $d proto esp spi 0x100$spi mode transport \
				enc "$1" "$2" auth-trunc "$3" "$4" "$5" || return 1
		done
	done
	ip -n pl-a xfrm policy add src 10.77.1.1 dst 10.77.1.2 proto 17 dir out \
		tmpl proto esp mode transport &&
	ip -n pl-b xfrm policy add src 10.77.1.1 dst 10.77.1.2 proto 17 dir in \
		tmpl proto esp mode transport
}

if [[ " $PARTS " == *" ipsec "* ]]; then
	modprobe veth; modprobe xfrm_user; modprobe esp4
	ekey=0x$(printf '%032x' 0x0123456789abcdef)
	akey=0x$(printf '%064x' 0xfedcba9876543210)
	sha=0
	grep -qw phe_en /proc/cpuinfo && sha=1
	for w in ${PL_IPSEC_WHATS:-floor-null floor-hmac generic ours in-tree ours+sha in-tree+sha}; do
		[ ${w%+sha} = in-tree ] && [ $intree = 0 ] && continue
		[ "${w%+sha}" != "$w" ] && [ $sha = 0 ] && continue
		use $w || { echo "# $w: cannot load its driver"; continue; }
		case $w in
		floor-null) set -- "ecb(cipher_null)" "" digest_null "" 0 ;;
		floor-hmac) set -- "ecb(cipher_null)" "" "hmac(sha256)" $akey 128 ;;
		*) set -- "cbc(aes)" $ekey "hmac(sha256)" $akey 128 ;;
		esac
		if ! sa_up "$@"; then
			echo "# $w: xfrm state with $1 + $3 refused"
			ip netns del pl-a; ip netns del pl-b
			continue
		fi
		# since 6.12 the instances just built are tested in the background:
		# not inside the measured window
		crypto_tests_wait || echo "# $w: crypto self-tests still running after 900 s"
		# the newest instance of this pair (/proc/crypto lists newest first)
		drv=$(awk -v n="authenc($3,$1)" '/^name/ { m = $3 } /^driver/ && m == n { print $3; exit }' /proc/crypto)
		python3 tools/measure/path-length-ipsec.py $w "${drv:-authenc($3,$1)}" "$PKTS" 1400
		ip netns del pl-a; ip netns del pl-b
	done
	aes_unload
fi
exit 0
