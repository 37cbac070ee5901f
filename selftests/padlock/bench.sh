#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# padlock-bench (tools/padlock-bench) in the VM: a --quick run with its JSON
# report validated (make check: the AF_ALG test, 31 of the 116 seconds of
# all three on 6.1/nano; PADLOCK_SCALE=long: all three), every error case
# triggered, a dm-crypt and an IPsec run interrupted once set up, and after
# every run no device-mapper table, no namespace and no changed crypto
# priority left behind.  The IPsec test runs whole in make check too, in
# ipsec-switch.sh (the --icount VM), its report checked the same way.
# Runs on 6.1 and sid with the profiles none and nano (the tool is the same
# everywhere; other combinations skip to save time).
. "$(dirname "$0")/lib/ktap-lib.sh"

ktap_header
padlock_need_afalg_drivers
[ "$(id -u)" = 0 ] || ktap_skip_all "needs root"
BENCH=$PADLOCK_TOP/tools/padlock-bench/padlock-bench
# a RAM disk another program left behind would not be the tool's own
[ -d /sys/module/brd ] && rmmod brd 2>/dev/null
[ -x "$BENCH" ] || ktap_skip_all "$BENCH is not built (make -C tools/padlock-bench)"
for p in cryptsetup dmsetup fio iperf3 ip python3 setpriv; do
	command -v $p > /dev/null || ktap_skip_all "$p is not installed"
done

tmp=$(mktemp -d /tmp/bench-test.XXXXXX)
loaded=()
cleanup() {
	local m
	for m in "${loaded[@]}"; do padlock_rmmod "$m"; done
	rm -rf "$tmp"
}
trap cleanup EXIT

# The PadLock drivers, when the simulated CPU has PadLock: ours when they are
# built and load, else the kernel's own padlock_aes/padlock_sha.
expect=
if [ "$PADLOCK_PROFILE" != none ]; then
	for m in padlock-aes padlock-sha; do
		[ -d /sys/module/${m//-/_} ] && continue
		if [ -e "$PADLOCK_KO_DIR/$m.ko" ] && padlock_insmod $m 2> "$tmp/insmod.err"; then
			loaded+=("$m")
			ktap_diag "using our $m"
		elif modprobe ${m//-/_} 2> "$tmp/modprobe.err"; then
			loaded+=("$m")
			ktap_diag "using the kernel's ${m//-/_}"
		else
			ktap_diag "no $m: $(cat "$tmp/insmod.err" "$tmp/modprobe.err" 2> /dev/null)"
		fi
	done
	grep -q '^driver.*padlock' /proc/crypto && expect=--expect-padlock
fi
# other drivers the CPU allows (AES-NI, SSSE3 SHA) make the comparison wider
modprobe -q aesni_intel 2> /dev/null
modprobe -q sha1_ssse3 2> /dev/null
modprobe -q sha256_ssse3 2> /dev/null

prios() { awk -F': ' '/^driver/ { d = $2 } /^priority/ { print d, $2 }' /proc/crypto | sort; }
prios > "$tmp/prio.before"

# nothing_left DESC: no mapping, no namespace, no changed priority, no brd we loaded
nothing_left() {
	local bad=
	dmsetup ls 2> /dev/null | grep -q plbench && bad="a device-mapper table is left: $(dmsetup ls)"
	ip netns list | grep -q plbench && bad="$bad a namespace is left: $(ip netns list)"
	prios > "$tmp/prio.after"
	local changed
	changed=$(join "$tmp/prio.before" "$tmp/prio.after" | awk '$2 != $3')
	[ -n "$changed" ] && bad="$bad priorities changed: $changed"
	if [ -z "$bad" ]; then
		ktap_pass "$1: nothing left behind"
	else
		ktap_diag "$bad"
		ktap_fail "$1: nothing left behind"
	fi
}

# expect_error DESC STATUS PATTERN CMD...: fails with STATUS and one sentence matching PATTERN
expect_error() {
	local desc=$1 want=$2 pat=$3 rc=0
	shift 3
	"$@" > "$tmp/out" 2> "$tmp/err" || rc=$?
	if [ $rc = "$want" ] && grep -q -- "$pat" "$tmp/err"; then
		ktap_pass "$desc (exit $rc: $(grep -- "$pat" "$tmp/err" | head -n 1))"
	else
		ktap_diag "exit $rc, stderr:" "$(cat "$tmp/err")"
		ktap_fail "$desc"
	fi
}

# 1. the quick run
what=afalg tests=afalg
[ "$PADLOCK_SCALE" = long ] && what=all tests=afalg,dmcrypt,ipsec
rc=0
start=$(date +%s)
timeout -k 10 900 "$BENCH" $what --quick --json "$tmp/report.json" --csv "$tmp/report.csv" \
	> "$tmp/bench.out" 2> "$tmp/bench.err" || rc=$?
took=$(( $(date +%s) - start ))
if [ $rc = 0 ]; then
	ktap_pass "padlock-bench $what --quick (${took}s)"
else
	ktap_diag "exit $rc" "$(tail -n 20 "$tmp/bench.err")"
	ktap_fail "padlock-bench $what --quick"
fi
ktap_diag "$(grep -A6 -E '^cbc\(aes\) 128-bit key, encrypt' "$tmp/bench.out")"
ktap_diag "$(sed -n '/^crossover/,/^$/p' "$tmp/bench.out" | head -n 12)"
[ -s "$tmp/report.json" ] && ktap_diag "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for n in d["notes"]:
    print("note:", n)
print("afalg path:", d["meta"].get("afalg_path"), "| splice:", d["meta"].get("afalg_splice"))
' "$tmp/report.json")"
cp /proc/crypto "$tmp/crypto"
ktap_check "JSON report complete, drivers real, pre-checks passed ($tests)" \
	python3 "$(dirname "$0")/lib/bench_check.py" "$tmp/report.json" "$tmp/crypto" $expect --tests $tests
# under padlock-sim the rows projected onto the simulated CPU, equal to
# tools/measure/project.py's; without the simulator (profile none) none.
# dm-crypt and IPsec are projected only under --icount (tools/testing/vm/run
# --icount); otherwise the output says why.
proj_check=(python3 "$(dirname "$0")/lib/bench_check.py" "$tmp/report.json" --projection
	--csv "$tmp/report.csv" --text "$tmp/bench.out")
ktap_diag "projection: $("${proj_check[@]}" --part afalg 2>&1 | tail -n 1)"
ktap_check "projected rows (under padlock-sim as tools/measure/project.py computes them, else none)" \
	"${proj_check[@]}" --part afalg
if [ $what = all ]; then
	ktap_diag "projection: $("${proj_check[@]}" --part window 2>&1 | tail -n 1)"
	ktap_check "projected dm-crypt and IPsec rows (under --icount as tools/measure/project.py computes them, PadLock above the baseline; else none, and why)" \
		"${proj_check[@]}" --part window
else
	ktap_skip "projected dm-crypt and IPsec rows" "make check-long runs dm-crypt and IPsec here (make check: AF_ALG only)"
fi
ktap_check "CSV report has a header and one line per row" python3 -c '
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
n = len(json.load(open(sys.argv[2]))["rows"])
sys.exit(0 if rows and len(rows) == n and "driver" in rows[0] else 1)' "$tmp/report.csv" "$tmp/report.json"
nothing_left "quick run"
[ -d /sys/module/brd ] && ktap_fail "brd is still loaded after the run" || ktap_pass "brd unloaded after the run"

# 2. error cases
expect_error "unknown driver" 2 "unknown driver no-such-driver" \
	"$BENCH" afalg --quick --driver no-such-driver
mkdir -p "$tmp/empty" "$tmp/iponly" "$tmp/fake"
ln -s "$(command -v ip)" "$tmp/iponly/ip"
expect_error "missing program (cryptsetup)" 2 "cryptsetup is not in PATH" \
	env PATH="$tmp/empty" "$BENCH" dmcrypt --quick
expect_error "missing program (iperf3)" 2 "iperf3 is not in PATH" \
	env PATH="$tmp/iponly" "$BENCH" ipsec --quick
expect_error "not root" 2 "needs root" \
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$BENCH" all --quick
printf '#!/bin/sh\necho "modprobe: FATAL: Module $1 not found" >&2\nexit 1\n' > "$tmp/fake/modprobe"
chmod +x "$tmp/fake/modprobe"
rmmod brd 2> /dev/null
# dm_crypt present (make check's AF_ALG-only run has not loaded it), so
# that brd is the module the tool finds missing
modprobe -q dm_crypt 2> /dev/null
expect_error "missing kernel module (brd)" 2 "kernel module brd is missing" \
	env PATH="$tmp/fake:$PATH" "$BENCH" dmcrypt --quick
nothing_left "error cases"

# 3. interrupted runs clean up: SIGINT during dm-crypt, SIGTERM during IPsec
interrupt() {
	local desc=$1 sig=$2 what=$3 cmd=$4 pid i rc=0
	"$BENCH" "$cmd" --quick > "$tmp/int.out" 2> "$tmp/int.err" &
	pid=$!
	for i in $(seq 1 300); do
		eval "$what" > /dev/null 2>&1 && break
		sleep 0.2
	done
	kill -"$sig" $pid
	wait $pid || rc=$?
	if [ $rc = 130 ] && grep -q interrupted "$tmp/int.err"; then
		ktap_pass "$desc: exit 130"
	else
		ktap_diag "exit $rc" "$(tail -n 5 "$tmp/int.err")"
		ktap_fail "$desc: exit 130"
	fi
	nothing_left "$desc"
}
interrupt "SIGINT during dmcrypt" INT "dmsetup ls | grep -q plbench" dmcrypt
interrupt "SIGTERM during ipsec" TERM "ip -n \$(ip netns list | awk '/plbench-b/ {print \$1}') xfrm state | grep -q esp" ipsec
[ -d /sys/module/brd ] && ktap_fail "brd is still loaded after SIGINT" || ktap_pass "brd unloaded after SIGINT"

ktap_finish
