#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel's randomized crypto self-tests (CONFIG_CRYPTO_MANAGER_EXTRA_TESTS;
# on 7.x CONFIG_CRYPTO_SELFTESTS_FULL) on our drivers and, in the same run,
# on Debian's in-tree padlock_aes/padlock_sha, under padlock-sim.  The test
# manager runs them when an algorithm registers (and when a template such
# as hmac() is first instantiated over it): random lengths, scatterlist
# layouts, alignments, in-place/out-of-place, compared with the generic
# implementation.  kprobe events on alg_test() and on the random test
# vector/config generators count, per driver, how many random cases ran.
# Only a debug kernel has these tests (make check-debug); elsewhere this
# program skips and says so.
#
# PADLOCK_FUZZ_ITERATIONS: the test manager's fuzz_iterations (its default
# is 100; each one is 8 random vectors compared with generic, plus one
# random request layout per known-answer vector).
dir=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=selftests/padlock/lib/ktap-lib.sh
. "$dir/lib/ktap-lib.sh"

ktap_header
padlock_need_afalg_drivers
P=/sys/module/cryptomgr/parameters
sim=/sys/kernel/debug/padlock-sim
[ -e $P/fuzz_iterations ] ||
	ktap_skip_all "kernel $(uname -r) has no randomized crypto self-tests (CRYPTO_MANAGER_EXTRA_TESTS); make check-debug builds one"
[ "$(cat $P/noextratests 2>/dev/null)" = Y ] && ktap_skip_all "cryptomgr.noextratests=1 is set"
padlock_need_sim "reads padlock-sim's profile and violation log"
units=" $(awk 'NR == 2' "$sim/profile") "
iters=${PADLOCK_FUZZ_ITERATIONS:-100}
# Only this program's loads get the raised count: template instances
# created later (authenc, rfc3686, essiv, ...) are tested on first use
# while the caller waits at most 60 s for the test (crypto_larval_wait),
# which raised counts under KASAN + TCG can exceed.
old_iters=$(cat $P/fuzz_iterations)
echo "$iters" > $P/fuzz_iterations
ktap_diag "cryptomgr.fuzz_iterations=$(cat $P/fuzz_iterations), profile $PADLOCK_PROFILE, units:$units"

T=/sys/kernel/tracing
mountpoint -q $T || mount -t tracefs nodev $T 2>/dev/null
[ -w $T/kprobe_events ] || ktap_skip_all "no kprobe events in this kernel (CONFIG_KPROBE_EVENTS)"
echo 0 > $T/tracing_on
echo > $T/kprobe_events
# ksym NAME: the kallsyms name of function NAME (gcc may suffix .constprop.N)
ksym() { awk -v n="$1" '$2 ~ /^[tT]$/ && ($3 == n || index($3, n ".") == 1) { print $3; exit }' /proc/kallsyms; }
at=$(ksym alg_test) cfg=$(ksym generate_random_testvec_config)
vs=$(ksym test_skcipher_vs_generic_impl) vh=$(ksym test_hash_vs_generic_impl)
[ -n "$at" ] && [ -n "$cfg" ] && [ -n "$vs" ] && [ -n "$vh" ] ||
	ktap_skip_all "the test manager's functions are not all in kallsyms (alg_test '$at', generate_random_testvec_config '$cfg', test_*_vs_generic_impl '$vs' '$vh')"
{
	echo "p:plk/at $at driver=+0(%di):string alg=+0(%si):string"
	echo "r:plk/ar $at rc=\$retval:s32"
	echo "p:plk/cfg $cfg"
	echo "p:plk/vs $vs"
	echo "r:plk/vsr $vs"
	echo "p:plk/vh $vh"
	echo "r:plk/vhr $vh"
} > $T/kprobe_events || ktap_skip_all "could not define the kprobe events"
ktap_diag "counting with kprobes on $at, $vs, $vh and $cfg"
echo 65536 > $T/buffer_size_kb
echo 1 > $T/events/plk/enable

trace=$(mktemp)

# trace_start: empty the trace and start tracing
trace_start() {
	echo > $T/trace
	echo 1 > $T/tracing_on
}

# trace_wait DRIVER...: since 6.12 registration does not wait for the
# self-tests; wait until alg_test() returned for every DRIVER (at most
# 15 minutes), stop tracing, leave the trace in $trace
trace_wait() {
	local d i missing
	for i in $(seq 450); do
		cat $T/trace > "$trace"
		missing=
		for d in "$@"; do
			results | awk -v d="$d" '$1 == d { f = 1 } END { exit !f }' || missing="$missing $d"
		done
		[ -z "$missing" ] && break
		sleep 2
	done
	echo 0 > $T/tracing_on
	cat $T/trace > "$trace"
	[ -z "$missing" ] || ktap_diag "still untested after 15 minutes:$missing"
}

# results: "driver alg rc generic-cases kat-layouts" per alg_test() call,
# from $trace: random configs generated inside test_*_vs_generic_impl() are
# the random vectors compared with the generic driver; the others are
# random request layouts of the known-answer vectors.
results() {
	awk '
	function pid_of(f,   a, n) { n = split(f, a, "-"); return a[n] }
	/ at: \(/ {
		pid = pid_of($1)
		match($0, /driver="[^"]*"/); d = substr($0, RSTART + 8, RLENGTH - 9)
		match($0, /alg="[^"]*"/); al = substr($0, RSTART + 5, RLENGTH - 6)
		cur[pid] = d; alg[pid] = al; g[pid] = 0; k[pid] = 0; in_vs[pid] = 0; next
	}
	/ v[sh]: \(/ { in_vs[pid_of($1)] = 1; next }
	/ v[sh]r: \(/ { in_vs[pid_of($1)] = 0; next }
	/ cfg: \(/ { pid = pid_of($1); if (in_vs[pid]) g[pid]++; else k[pid]++; next }
	/ ar: \(/ {
		pid = pid_of($1)
		match($0, /rc=-?[0-9]+/); rc = substr($0, RSTART + 3, RLENGTH - 3)
		if (pid in cur) print cur[pid], alg[pid], rc, g[pid], k[pid]
		delete cur[pid]
	}' "$trace"
}

# judge WHO DRIVER...: one KTAP line per driver from the last traced run
judge() {
	local who=$1 d line rc vec cfg alg want
	shift
	for d in "$@"; do
		line=$(results | awk -v d="$d" '$1 == d' | tail -n 1)
		if [ -z "$line" ]; then
			ktap_fail "$who $d: the test manager tested it"
			continue
		fi
		read -r _ alg rc vec cfg <<< "$line"
		case "$d" in
		aes-padlock)
			# alg_test_cipher() has known answers only
			want=0 ;;
		*) want=$((iters * 8)) ;;
		esac
		if [ "$rc" != 0 ]; then
			ktap_diag "$(dmesg | grep -E "alg: .*$d" | tail -n 5)"
			ktap_fail "$who $d ($alg): self-tests passed (rc=$rc after $vec random vectors, $cfg random layouts)"
		elif [ "$vec" -lt "$want" ]; then
			ktap_fail "$who $d ($alg): $vec random vectors compared with generic, expected at least $want"
		elif [ "$want" = 0 ]; then
			ktap_pass "$who $d ($alg): known-answer self-tests passed (the test manager has no randomized test for single-block ciphers)"
		else
			ktap_pass "$who $d ($alg): randomized self-tests passed: $vec random vectors compared with generic, $cfg random request layouts"
		fi
	done
}

modprobe -q algif_hash 2>/dev/null
aes=(aes-padlock ecb-aes-padlock cbc-aes-padlock ctr-aes-padlock xts-aes-padlock)
sha=(sha1-padlock sha224-padlock sha256-padlock)
[[ "$units" == *" phe2 "* ]] && sha+=(sha384-padlock sha512-padlock)
# padlock-sha's native hmac drivers register (and are tested) with the hashes
for d in "${sha[@]}"; do sha+=("hmac-$d"); done

# ---- ours -----------------------------------------------------------------
padlock_rmmod padlock_aes padlock_sha via_rng padlock_rng
# cts-cbc-aes-padlock is compared with cts(cbc(aes-generic)), a template
# instance: built (and tested) beforehand, not inside the 60 s wait of
# cts-cbc-aes-padlock's own test
if [[ "$units" == *" ace "* ]]; then
	modprobe -q algif_skcipher
	ktap_diag "$(python3 "$dir/lib/afalg_build.py" "skcipher:cbc(aes-generic)" "skcipher:cts(cbc(aes-generic))" 2>&1)"
fi
if [[ "$units" == *" ace "* ]]; then
	trace_start
	if padlock_insmod padlock-aes; then
		ktap_pass "padlock-aes (ours) loads"
		grep -q 'driver *: cfb-aes-padlock' /proc/crypto && aes+=(cfb-aes-padlock ofb-aes-padlock)
		grep -q 'driver *: cts-cbc-aes-padlock' /proc/crypto && aes+=(cts-cbc-aes-padlock)
		trace_wait "${aes[@]}"
		judge ours "${aes[@]}"
	else
		ktap_fail "padlock-aes (ours) loads"
	fi
fi
if [[ "$units" == *" phe "* ]]; then
	trace_start
	if padlock_insmod padlock-sha; then
		ktap_pass "padlock-sha (ours) loads"
		trace_wait "${sha[@]}"
		judge ours "${sha[@]}"
	else
		ktap_fail "padlock-sha (ours) loads"
	fi
fi
padlock_rmmod padlock_aes padlock_sha

# ---- Debian's in-tree drivers, same tests, same run --------------------------
intree() { modinfo -n "$1" 2>/dev/null | grep -q '/kernel/drivers/'; }
old_clobber=$(cat "$sim/clobber")
if [[ "$units" == *" ace "* ]] && intree padlock_aes; then
	# Its asm keeps live values in rAX across xcrypt-ecb (sim-intree.sh):
	# rAX scrambling off for it.  On nano-s2 its registration self-tests
	# run before it enables the stepping-2 workaround (sim-intree.sh):
	# those over-reads are counted as expected and executed.
	echo $((old_clobber & ~1)) > "$sim/clobber"
	if [ "$PADLOCK_PROFILE" = nano-s2 ]; then
		echo 1 > "$sim/expect_violations"
		echo 1 > "$sim/exec_on_violation"
	fi
	trace_start
	if modprobe padlock_aes; then
		ktap_pass "in-tree padlock_aes loads"
		trace_wait aes-padlock ecb-aes-padlock cbc-aes-padlock
		judge in-tree aes-padlock ecb-aes-padlock cbc-aes-padlock
	else
		ktap_fail "in-tree padlock_aes loads"
	fi
	echo 0 > "$sim/expect_violations"
	echo 0 > "$sim/exec_on_violation"
	padlock_rmmod padlock_aes
	echo "$old_clobber" > "$sim/clobber"
fi
if [[ "$units" == *" phe "* ]] && intree padlock_sha; then
	trace_start
	if modprobe padlock_sha; then
		ktap_pass "in-tree padlock_sha loads"
		d=$(awk '/^driver *: sha(1|256)-padlock/ { print $3 }' /proc/crypto | sort -u)
		# shellcheck disable=SC2086
		trace_wait $d
		# shellcheck disable=SC2086
		judge in-tree $d
	else
		echo 0 > $T/tracing_on
		ktap_skip "in-tree padlock_sha" "it refuses this CPU: $(dmesg | grep -i padlock | tail -n 1)"
	fi
	padlock_rmmod padlock_sha
fi

echo 0 > $T/events/plk/enable
echo > $T/kprobe_events
rm -f "$trace"
echo "$old_iters" > $P/fuzz_iterations
ktap_finish
