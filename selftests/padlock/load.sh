#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Each driver module loads where its PadLock unit exists; where the CPU
# lacks the unit it refuses with ENODEV and no log line, whoever loads it
# (a person, or the kernel's own module request: the crypto API probing its
# aliases); where the unit is present but disabled (padlock-sim's
# units_disabled) it refuses with exactly one line.  padlock-sha ranks at
# 400 (hmac 401), or, on a CPU that also has SHA-NI (padlock-sim's
# claim_sha_ni), SHA-1/224/256 at 248 (hmac 249), below the kernel's
# SHA-NI drivers, and SHA-384/512 still at 400.  Its CPU-feature
# modalias matches this CPU exactly when the unit exists (udev autoload),
# and its crypto aliases are its driver names only (crypto-*-padlock): a
# generic name ("crypto-aes", "crypto-sha256") would make every machine's
# first lookup of it try to load the module.
. "$(dirname "$0")/lib/ktap-lib.sh"

ktap_header

# unit present on this (simulated) CPU?  from /proc/cpuinfo flags
flags=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
has() { case "$flags" in *" $1 "*) return 0 ;; esac; return 1; }
unit_of() {
	case "$1" in
	padlock-aes) has ace && has ace_en ;;
	padlock-sha) has phe && has phe_en ;;
	padlock-rng) has rng && has rng_en ;;
	esac
}

# The code path each driver announces when it loads, from what the
# simulated CPU is (vendor, family, units), not from the profile's name
# alone: padlock-sha's mode; padlock-aes's priority (below aesni's 400 when
# the CPU also has AES-NI, as Zhaoxin parts do).
vendor=$(awk -F': ' '/^vendor_id/ { print $2; exit }' /proc/cpuinfo)
family=$(awk -F': ' '/^cpu family/ { print $2; exit }' /proc/cpuinfo)
model=$(awk -F': ' '/^model[[:space:]]*:/ { print $2; exit }' /proc/cpuinfo)
ktap_diag "CPU: vendor \"$vendor\" family $family model $model; flags aes: $(has aes && echo yes || echo no)"
sha_mode() {
	if [ "$vendor" = "  Shanghai  " ] || [ "$family" -ge 7 ]; then
		echo "Zhaoxin: "
	elif [ "$model" -ge 15 ]; then
		echo "VIA Nano: "
	else
		echo "VIA C7: "
	fi
}
# proc_prio DRIVER: its priority in /proc/crypto
proc_prio() {
	awk -F': ' -v d="$1" '$1 ~ /^driver/ { on = ($2 == d) } on && $1 ~ /^priority/ { print $2; exit }' /proc/crypto
}
# sha_prios: "alg=priority" of each padlock-sha driver registered
sha_prios() {
	local a
	for a in sha1 sha224 sha256 sha384 sha512; do
		[ -n "$(proc_prio "$a-padlock")" ] &&
			printf '%s=%s,%s ' "$a" "$(proc_prio "$a-padlock")" "$(proc_prio "hmac-$a-padlock")"
	done
}
# sha_prios_ok SHA_NI(yes|no): the priorities padlock-sha must have chosen
sha_prios_ok() {
	local a p h want
	for a in sha1 sha224 sha256 sha384 sha512; do
		p=$(proc_prio "$a-padlock") h=$(proc_prio "hmac-$a-padlock")
		[ -n "$p" ] || continue
		want=400
		case "$1,$a" in yes,sha1|yes,sha224|yes,sha256) want=248 ;; esac
		[ "$p" = $want ] && [ "$h" = $((want + 1)) ] || return 1
	done
	[ -n "$(proc_prio sha256-padlock)" ]
}
check_path() {	# module, its load log lines
	local want got
	case "$1" in
	padlock-sha)
		want=$(sha_mode)
		if printf '%s\n' "$2" | grep -qF "$want"; then
			ktap_pass "padlock-sha: mode \"${want%: }\" on $PADLOCK_PROFILE"
		else
			ktap_diag "log: $2"
			ktap_fail "padlock-sha: mode \"${want%: }\" on $PADLOCK_PROFILE"
		fi
		if has sha_ni; then want=yes; else want=no; fi
		if sha_prios_ok $want; then
			ktap_pass "padlock-sha: default priorities (SHA-NI: $want): $(sha_prios)"
		else
			ktap_fail "padlock-sha: default priorities (SHA-NI: $want): $(sha_prios)"
		fi ;;
	padlock-aes)
		if has aes; then want=350; else want=450; fi
		got=$(proc_prio cbc-aes-padlock)
		# cts one above: over a cts template instance on our cbc, still
		# below AES-NI's cts-cbc-aes-aesni (400) on a CPU that has it
		if [ "$got" = "$want" ] && [ "$(proc_prio cts-cbc-aes-padlock)" = $((want + 1)) ] &&
		   { has aes || ! printf '%s\n' "$2" | grep -q 'AES-NI'; } &&
		   { ! has aes || printf '%s\n' "$2" | grep -q 'AES-NI'; }; then
			ktap_pass "padlock-aes: default priority $want (AES-NI: $(has aes && echo yes || echo no))"
		else
			ktap_diag "cbc-aes-padlock priority ${got:-missing}, cts-cbc-aes-padlock $(proc_prio cts-cbc-aes-padlock); log: $2"
			ktap_fail "padlock-aes: default priority $want (AES-NI: $(has aes && echo yes || echo no))"
		fi ;;
	esac
}

if [ "$PADLOCK_PROFILE" = none ]; then
	if [ -d /sys/module/padlock_sim ]; then
		ktap_fail "no simulator loaded on a plain CPU"
	else
		ktap_pass "no simulator loaded on a plain CPU"
	fi
elif [ "${PADLOCK_CPU_MODEL:-sim}" = qemu ]; then
	if [ ! -d /sys/module/padlock_sim ] && grep -qw ace_en /proc/cpuinfo; then
		ktap_pass "QEMU model: no simulator, the CPU shows PadLock in CPUID ($PADLOCK_PROFILE)"
	else
		ktap_fail "QEMU model: no simulator, the CPU shows PadLock in CPUID ($PADLOCK_PROFILE)"
	fi
else
	if grep -q "SIMULATED PadLock CPU" <(dmesg); then
		ktap_pass "padlock-sim announced itself ($PADLOCK_PROFILE)"
	else
		ktap_fail "padlock-sim announced itself ($PADLOCK_PROFILE)"
	fi
fi

# kernel_probe MODULE KO: load KO the way the crypto API's module autoload
# does.  For a name nothing has registered the kernel runs the program in
# /proc/sys/kernel/modprobe from one of its threads (request_module(),
# "crypto-xts(aes)" for the crypto API); for the test that program is a
# script that records the request and execs insmod of our module.  The
# request comes from rtnetlink ("rtnl-link-KIND" for an unknown link type):
# the same kernel path, taken for any unknown name on every kernel of the
# matrix (AF_ALG binding a name nothing has makes 7.2 ask for
# "crypto-NAME" but 7.3 ask for nothing).  Where the unit is
# missing the module must refuse with ENODEV and no log line: a machine
# without PadLock gets such loads several times per boot.
probe_dir=$(mktemp -d)
kernel_probe() {
	local m=$1 ko=$2 mod=${1//-/_} old before log lines asked refused
	printf '#!/bin/sh\necho "$*" >> %s/args\nexec insmod %s 2>> %s/err\n' \
		"$probe_dir" "$ko" "$probe_dir" > "$probe_dir/modprobe"
	chmod +x "$probe_dir/modprobe"
	: > "$probe_dir/args"
	: > "$probe_dir/err"
	old=$(cat /proc/sys/kernel/modprobe)
	before=$(dmesg | wc -l)
	echo "$probe_dir/modprobe" > /proc/sys/kernel/modprobe
	ip link add padlockprobe0 type padlockprobe > /dev/null 2>&1
	echo "$old" > /proc/sys/kernel/modprobe
	log=$(dmesg | tail -n +$((before + 1)) | grep -E "^(\[[ 0-9.]+\] )?$mod: " |
		grep -v 'module verification failed\|loading out-of-tree' || true)
	lines=$(printf '%s' "$log" | grep -c . || true)
	asked=$(grep -c 'rtnl-link-padlockprobe' "$probe_dir/args" || true)
	refused=$(grep -c 'No such device' "$probe_dir/err" || true)
	if [ "$asked" -ge 1 ] && [ "$refused" = "$(grep -c . "$probe_dir/args")" ] &&
	   [ "$lines" = 0 ] && [ ! -d "/sys/module/$mod" ]; then
		ktap_pass "$m: refuses the kernel's module request silently (requests: $asked) on $PADLOCK_PROFILE"
	else
		ktap_diag "requests: $(tr '\n' ';' < "$probe_dir/args")" "insmod: $(tr '\n' ';' < "$probe_dir/err")" \
			"log ($lines lines): $log"
		padlock_rmmod "$m"
		ktap_fail "$m: refuses the kernel's module request silently on $PADLOCK_PROFILE"
	fi
}

modalias=$(cat /sys/devices/system/cpu/modalias 2>/dev/null)
for m in padlock-aes padlock-sha padlock-rng; do
	ko="$PADLOCK_KO_DIR/$m.ko"
	mod=${m//-/_}
	padlock_rmmod "$m"
	if [ ! -e "$ko" ]; then
		ktap_fail "$m: module built for $PADLOCK_KVER"
		continue
	fi
	if unit_of "$m"; then want=load; else want=refuse; fi

	# autoload: one of the module's x86cpu aliases matches this CPU
	# exactly when the unit is there (fnmatch, as modprobe does)
	match=$(modinfo -F alias "$ko" | grep '^cpu:' | python3 -c '
import fnmatch, sys
ma = sys.argv[1]
print("yes" if any(fnmatch.fnmatchcase(ma, a.strip()) for a in sys.stdin if a.strip()) else "no")
' "$modalias")
	if { [ $want = load ] && [ "$match" = yes ]; } || { [ $want = refuse ] && [ "$match" = no ]; }; then
		ktap_pass "$m: CPU modalias match=$match (unit $want)"
	else
		ktap_diag "cpu modalias: $modalias" "module aliases: $(modinfo -F alias "$ko" | grep '^cpu:' | tr '\n' ' ')"
		ktap_fail "$m: CPU modalias match=$match (unit $want)"
	fi

	# crypto aliases (crypto-NAME and NAME): the driver names only, never
	# a generic name; besides them only the CPU modalias (cpu:)
	calias=$(modinfo -F alias "$ko" | grep '^crypto-' | sort | tr '\n' ' ')
	generic=$(modinfo -F alias "$ko" | grep -v '^cpu:' | grep -v -e '-padlock$' | tr '\n' ' ')
	if [ -z "$generic" ]; then
		ktap_pass "$m: crypto aliases are driver names only (${calias:-none})"
	else
		ktap_fail "$m: crypto aliases are driver names only (generic: $generic)"
	fi

	padlock_deps "$ko"
	# the kernel log is never cleared (other tests read it): only the lines
	# that this insmod added are looked at
	before=$(dmesg | wc -l)
	out=$(insmod "$ko" 2>&1); rc=$?
	log=$(dmesg | tail -n +$((before + 1)) | grep -E "^(\[[ 0-9.]+\] )?$mod: " |
		grep -v 'module verification failed\|loading out-of-tree' || true)
	if [ $want = load ]; then
		if [ $rc = 0 ] && [ -d "/sys/module/$mod" ]; then
			ktap_pass "$m: loads on $PADLOCK_PROFILE"
		else
			ktap_diag "$out" "$log"
			ktap_fail "$m: loads on $PADLOCK_PROFILE"
		fi
		check_path "$m" "$log"
		# Since 6.12 registration does not wait for the self-tests;
		# while they run (minutes on a debug kernel) the module is in
		# use.  Idle means: tests done, so retry for up to 10 minutes.
		t=0
		until rmmod "$mod" 2>/dev/null; do
			t=$((t + 1))
			[ $t -ge 600 ] && break
			sleep 1
		done
		if [ $t -lt 600 ]; then
			[ $t -gt 0 ] && ktap_diag "$m: in use by its self-tests for ${t}s after loading"
			ktap_pass "$m: unloads when idle"
		else
			ktap_fail "$m: unloads when idle"
		fi
	else
		lines=$(printf '%s' "$log" | grep -c . || true)
		if [ $rc != 0 ] && echo "$out" | grep -q "No such device" && [ "$lines" = 0 ]; then
			ktap_pass "$m: refuses with ENODEV and no log line on $PADLOCK_PROFILE (no such unit)"
		else
			ktap_diag "insmod: $out" "log ($lines lines): $log"
			padlock_rmmod "$m"
			ktap_fail "$m: refuses with ENODEV and no log line on $PADLOCK_PROFILE (no such unit)"
		fi
		kernel_probe "$m" "$ko"
	fi
done
rm -rf "$probe_dir"

# A CPU that also has SHA-NI: padlock-sim claims it (the capability bit
# only) while padlock-sha loads; SHA-1/224/256 must rank below the
# kernel's SHA-NI drivers, SHA-384/512 not.
CLAIM=/sys/module/padlock_sim/parameters/claim_sha_ni
if [ ! -w $CLAIM ] || ! unit_of padlock-sha || has sha_ni; then
	ktap_skip "padlock-sha on a CPU with SHA-NI" \
		"needs padlock-sim's claim_sha_ni, a PHE unit and a CPU without SHA-NI of its own"
else
	padlock_rmmod padlock-sha
	echo 1 > $CLAIM
	before=$(dmesg | wc -l)
	if padlock_insmod padlock-sha 2>/dev/null; then
		log=$(dmesg | tail -n +$((before + 1)) | grep 'padlock_sha: ')
		if sha_prios_ok yes && printf '%s\n' "$log" | grep -q 'CPU also has SHA-NI'; then
			ktap_pass "padlock-sha on a CPU with SHA-NI: below the kernel's SHA-NI drivers: $(sha_prios)"
		else
			ktap_diag "log: $log"
			ktap_fail "padlock-sha on a CPU with SHA-NI: below the kernel's SHA-NI drivers: $(sha_prios)"
		fi
	else
		ktap_fail "padlock-sha on a CPU with SHA-NI: loads"
	fi
	t=0
	until padlock_rmmod padlock-sha 2>/dev/null; do
		t=$((t + 1))
		[ $t -ge 600 ] && break
		sleep 1
	done
	echo 0 > $CLAIM
	grep -qw sha_ni /proc/cpuinfo && ktap_fail "padlock-sim's claim_sha_ni cleared again"
fi

# A unit that is present but disabled (CPUID present bit without enabled
# bit, as firmware can leave it): padlock-sim's units_disabled mask
# (1 rng, 2 ace, 8 phe, 32 phe2) clears the enabled bits.  The driver
# refuses with ENODEV and exactly one line, whoever loads it.
SIMD=/sys/module/padlock_sim/parameters/units_disabled
if [ -w "$SIMD" ]; then
	for m in padlock-aes padlock-sha padlock-rng; do
		ko="$PADLOCK_KO_DIR/$m.ko"
		mod=${m//-/_}
		unit_of "$m" || continue
		case $m in
		padlock-aes) mask=2 ;;
		padlock-sha) mask=40 ;;
		padlock-rng) mask=1 ;;
		esac
		padlock_rmmod "$m"
		echo $mask > "$SIMD"
		before=$(dmesg | wc -l)
		out=$(insmod "$ko" 2>&1); rc=$?
		echo 0 > "$SIMD"
		log=$(dmesg | tail -n +$((before + 1)) | grep -E "^(\[[ 0-9.]+\] )?$mod: " |
			grep -v 'module verification failed\|loading out-of-tree' || true)
		lines=$(printf '%s' "$log" | grep -c . || true)
		if [ $rc != 0 ] && echo "$out" | grep -q "No such device" && [ "$lines" = 1 ]; then
			ktap_pass "$m: unit present but disabled: ENODEV and one log line ($(printf '%s' "$log" | sed 's/^\[[^]]*\] //'))"
		else
			ktap_diag "insmod: $out" "log ($lines lines): $log"
			padlock_rmmod "$m"
			ktap_fail "$m: unit present but disabled: ENODEV and one log line"
		fi
	done
elif [ "${PADLOCK_CPU_MODEL:-sim}" = qemu ]; then
	ktap_skip "units present but disabled" "the QEMU model's units are fixed at boot (-cpu); padlock-sim's units_disabled switches them at run time"
elif [ "$PADLOCK_PROFILE" != none ]; then
	ktap_fail "padlock-sim has units_disabled (present-but-disabled units)"
fi
ktap_finish
