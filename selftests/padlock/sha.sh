#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# padlock-sha: registration, self-tests, selection, NIST CAVP vectors,
# differential tests against the generic drivers (random messages up to
# 1 MiB, random update splits, export/import mid-stream), and the native
# hmac drivers (hmac-shaN-padlock: registration, self-tests, selection over
# the kernel's hmac-shaN-lib and the hmac template, 400 messages per
# algorithm against Python's hmac and the kernel's own hmac: keys of 0, 1,
# bs-1, bs, bs+1, 1 KiB, random and 1 MiB bytes, empty and block-boundary
# messages, random splits, export/import mid-stream), all through AF_ALG.
# PADLOCK_SCALE=long: 100,000 random messages, 20,000 hmac messages per
# algorithm.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/ktap-lib.sh
. "$here/lib/ktap-lib.sh"
PY=(python3 "$here/lib/sha_afalg.py")

ktap_header
padlock_afalg_by_name

case "$PADLOCK_PROFILE" in
c3) ktap_skip_all "profile c3 (VIA C3 Nehemiah) has no PHE hash engine" ;;
esac
if [ "$PADLOCK_SCALE" = long ]; then
	ndiff=100000 nhmac=20000 monte=100
else
	ndiff=50 nhmac=200 monte=2
fi

# pyrun DESC CMD...: one KTAP result from a sha_afalg.py run; its output is
# kept as diagnostics either way (counts, seeds); exit 2 means "cannot test",
# exit 4 "the kernel does not route this to our driver" (its last line says why).
pyrun() {
	local desc=$1 out rc=0 t0=$SECONDS
	shift
	out=$("$@" 2>&1) || rc=$?
	[ -n "$out" ] && ktap_diag "$out ($((SECONDS - t0)) s)"
	case $rc in
	0) ktap_pass "$desc" ;;
	2) ktap_skip "$desc" "test setup failed (see above)" ;;
	4) ktap_skip "$desc" "${out##*$'\n'}" ;;
	*) ktap_fail "$desc" ;;
	esac
}

# best_driver NAME: the highest-priority driver of NAME (what users get).
best_driver() {
	awk -v n="$1" -F' *: ' '
		$1 == "name" { name = $2 }
		$1 == "driver" { drv = $2 }
		$1 == "priority" && name == n && $2 + 0 > best { best = $2 + 0; b = drv }
		END { print b }' /proc/crypto
}

# resolves_ok NAME DRIVER: users of NAME get DRIVER
resolves_ok() {
	local best
	best=$(best_driver "$1")
	if [ "$best" = "$2" ]; then
		ktap_pass "$1 resolves to $2 (priority $(proc_field "$2" priority))"
	else
		ktap_fail "$1 resolves to $best, not $2"
	fi
}

modprobe af_alg 2>/dev/null
modprobe algif_hash 2>/dev/null
padlock_rmmod padlock_sha
dirty0=$(sim_counter xsha_dirty_area)

if ! err=$(padlock_insmod padlock-sha 2>&1); then
	msg=$(dmesg | grep 'padlock_sha:' | tail -n1)
	ktap_skip_all "padlock-sha does not load on profile $PADLOCK_PROFILE: $err ${msg#*] }"
fi
ktap_diag "$(dmesg | grep 'padlock_sha:' | sed 's/^\[[^]]*\] //')"
sleep 1	# let the self-tests (run asynchronously on some kernels) finish

insn0=$(xsha_total)

algs=(sha1 sha224 sha256)
phe2=0
case "$PADLOCK_PROFILE" in
zhaoxin*) phe2=1; algs+=(sha384 sha512) ;;
esac
for a in sha384 sha512; do
	if [ $phe2 = 0 ] && [ -n "$(proc_field "$a-padlock" name)" ]; then
		ktap_fail "$a-padlock registered on a CPU without PHE2 ($PADLOCK_PROFILE)"
	fi
done

# what the programs bind: our driver's name, or where AF_ALG cannot pin
# drivers, the algorithm name (checked below to resolve to ours)
bind_name() { if [ "$PADLOCK_AFALG_PIN" = 1 ]; then echo "$1-padlock"; else echo "$1"; fi; }
hmac_bind_name() { if [ "$PADLOCK_AFALG_PIN" = 1 ]; then echo "hmac-$1-padlock"; else echo "hmac($1)"; fi; }

# selftest_ok DRIVER DESC: registered, and its self-test passed
selftest_ok() {
	local st
	if [ -z "$(proc_field "$1" name)" ]; then
		ktap_fail "$2$1 registered"
		return 1
	fi
	st=$(proc_field "$1" selftest)
	if [ "$st" = passed ]; then
		ktap_pass "$2$1 self-test: passed"
	else
		ktap_fail "$2$1 self-test: ${st:-missing}"
	fi
}

for a in "${algs[@]}"; do
	drv=$a-padlock
	bn=$(bind_name "$a")
	selftest_ok "$drv" "" || continue
	resolves_ok "$a" "$drv"
	pyrun "$drv NIST CAVP Short/Long/Monte" "${PY[@]}" cavp "$a" "$bn" "$monte"
	pyrun "$drv differential (splits, export/import)" "${PY[@]}" diff "$a" "$bn" "$ndiff" 1048576
done

# The native hmac drivers: above hmac-shaN-lib (300, 6.17 on) and the
# hmac template over our own hashes (the hashes' priority).
for a in "${algs[@]}"; do
	hd=hmac-$a-padlock
	selftest_ok "$hd" "" || continue
	resolves_ok "hmac($a)" "$hd"
	x0=$(xsha_total)
	pyrun "$hd vs Python hmac$([ "$PADLOCK_AFALG_PIN" = 1 ] && echo " and the kernel's hmac")" \
		"${PY[@]}" hmac "$a" "$(hmac_bind_name "$a")" "$nhmac"
	if [ -n "$(sim_counter violations)" ]; then
		ktap_xsha_used "$hd: the hash engine did the work" "$x0"
	fi
done

if [ -n "$(sim_counter violations)" ]; then
	ktap_xsha_used "the hash engine did the work" "$insn0"
fi

# The pessimistic reading of final mode: with rAX = 0 the engine ignores
# the state at rDI and starts from its standard IV (padlock-sim's
# xsha_final_zero_ignores_state).  The driver must not depend on either
# reading: reload it under the knob (the self-tests run again), then the
# ShortMsg known answers and a short differential (messages up to 512 bytes:
# the engine's first block and the short ones are what the knob concerns).
knob=/sys/module/padlock_sim/parameters/xsha_final_zero_ignores_state
if [ ! -w "$knob" ]; then
	ktap_skip "padlock-sha under xsha_final_zero_ignores_state=1" \
		"no padlock-sim with that knob (profile $PADLOCK_PROFILE, ${PADLOCK_CPU_MODEL:-sim} model)"
else
	kv0=$(sim_counter violations)
	old_knob=$(cat "$knob")
	echo 1 > "$knob"
	padlock_rmmod padlock_sha
	if ! err=$(padlock_insmod padlock-sha 2>&1); then
		ktap_fail "padlock-sha loads under xsha_final_zero_ignores_state=1: $err"
	else
		sleep 1
		for a in "${algs[@]}"; do
			drv=$a-padlock
			selftest_ok "$drv" "knob 1: "
			selftest_ok "hmac-$drv" "knob 1: "
			pyrun "knob 1: $drv NIST CAVP ShortMsg, differential" \
				"${PY[@]}" quick "$a" "$(bind_name "$a")" 25 512
		done
	fi
	echo "$old_knob" > "$knob"
	kv=$(( $(sim_counter violations) - kv0 ))
	if [ "$kv" = 0 ]; then
		ktap_pass "knob 1: padlock-sim violations: 0"
	else
		ktap_fail "knob 1: padlock-sim violations: $kv"
	fi
fi
# The engine's 128-byte area (VIA scratch, Zhaoxin's 32 bytes for SHA-1)
# holds nothing but the state words and zeros when an xsha starts.
dirty=$(sim_counter xsha_dirty_area)
if [ -n "$dirty" ]; then
	dirty=$((dirty - ${dirty0:-0}))
	if [ "$dirty" = 0 ]; then
		ktap_pass "xsha state areas beyond the state words were cleared"
	else
		ktap_fail "xsha state areas beyond the state words were cleared ($dirty xsha found other bytes there)"
	fi
fi
v=$(sim_counter violations)
if [ -n "$v" ]; then
	if [ "$v" = 0 ]; then ktap_pass "padlock-sim violations: 0"; else ktap_fail "padlock-sim violations: $v"; fi
fi
ktap_finish
