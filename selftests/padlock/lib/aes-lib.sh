# SPDX-License-Identifier: GPL-2.0
# Helpers for the padlock-aes tests (source after lib/ktap-lib.sh).
#
#   aes_have_ace             the (simulated) CPU has an enabled ACE unit
#   aes_which                which padlock_aes is loaded: ours|intree|none
#   aes_load_ours            unload the in-tree padlock_aes if loaded, insmod ours
#   aes_load_intree          unload ours if loaded, modprobe Debian's padlock_aes
#   aes_unload               unload whichever padlock_aes is loaded (after
#                            the self-tests of its algorithms finished)
#   aes_block_intree_autoload / aes_allow_intree_autoload
#                            stop / allow alias autoloading of the in-tree one
#   aes_refcnt DRIVER        /proc/crypto refcnt of a driver (empty if absent)
#   aes_driver_for NAME      highest-priority tested driver for a cra_name
#   aes_xcrypt_total         sum of the xcrypt_* counters (sim_counter)
#   aes_sim_reset            zero the counters (padlock-sim or QEMU's)
#   aes_generic              aes-generic or aes-lib (the kernel's C cipher)

AES_PY="$(dirname "${BASH_SOURCE[0]}")/aes_afalg.py"

aes_have_ace() {
	local flags
	flags=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
	case "$flags" in *" ace "*) ;; *) return 1 ;; esac
	case "$flags" in *" ace_en "*) return 0 ;; esac
	return 1
}

aes_which() {
	if [ ! -d /sys/module/padlock_aes ]; then
		echo none
	elif grep -q O /sys/module/padlock_aes/taint 2>/dev/null; then
		echo ours
	else
		echo intree
	fi
}

aes_unload() {
	local i
	# a freshly loaded module is in use until its self-tests finished
	[ -d /sys/module/padlock_aes ] && crypto_tests_wait
	for i in 1 2 3 4 5; do
		[ -d /sys/module/padlock_aes ] || return 0
		rmmod padlock_aes 2>/dev/null && return 0
		sleep 1
	done
	return 1
}

aes_load_ours() {
	local d ko="$PADLOCK_KO_DIR/padlock-aes.ko" want=
	# On a CPU with AES-NI too (Zhaoxin), padlock-aes registers below
	# aesni by default, so the kernel would pick AES-NI once aesni_intel
	# is loaded; these tests are about PadLock: priority=450, the knob a
	# user sets to prefer it (load.sh checks the default).
	case " $* " in
	*" priority="*) ;;
	*) grep -qw aes /proc/cpuinfo && set -- "$@" priority=450 ;;
	esac
	for d in "$@"; do
		case $d in priority=*) want=${d#priority=} ;; esac
	done
	# already loaded by an earlier program: kept only with the priority asked for
	if [ "$(aes_which)" = ours ] &&
	   { [ -z "$want" ] || [ "$(cat /sys/module/padlock_aes/parameters/priority 2>/dev/null)" = "$want" ]; }; then
		return 0
	fi
	aes_unload || return 1
	# insmod does not load dependencies (libaes is a module on 5.10)
	for d in $(modinfo -F depends "$ko" 2>/dev/null | tr ',' ' '); do
		modprobe -q "$d"
	done
	insmod "$ko" "$@"
}

# While our module is unloaded, the crypto API's request_module() would
# autoload Debian's in-tree padlock_aes (same module name, crypto-aes
# alias) and silently replace "the generic driver" in cross-checks.
# Blacklisting stops alias loading only; "modprobe padlock_aes" still works.
AES_BLACKLIST=/etc/modprobe.d/padlock-aes-selftest.conf
aes_block_intree_autoload() {
	mkdir -p /etc/modprobe.d 2>/dev/null
	echo "blacklist padlock_aes" > "$AES_BLACKLIST" 2>/dev/null
}

aes_allow_intree_autoload() {
	rm -f "$AES_BLACKLIST"
}

aes_load_intree() {
	[ "$(aes_which)" = intree ] && return 0
	aes_unload || return 1
	modprobe padlock_aes
}

aes_refcnt() {
	awk -v d="$1" '
		/^driver/ { cur = $3 }
		/^refcnt/ && cur == d { print $3; exit }' /proc/crypto
}

aes_driver_for() {
	awk -v n="$1" '
		/^name/ { name = $3 }
		/^driver/ { drv = $3 }
		/^priority/ { prio = $3 }
		/^selftest/ { st = $3 }
		/^$/ { if (name == n && st != "unknown" && prio + 0 > best) { best = prio + 0; bd = drv }
		       name = drv = st = ""; prio = 0 }
		END { print bd }' /proc/crypto
}

aes_xcrypt_total() {
	local t
	t=$(sim_counter_sum xcrypt_ecb xcrypt_cbc xcrypt_ctr xcrypt_cfb xcrypt_ofb)
	echo "${t:-0}"
}

aes_sim_reset() {
	local f=/sys/kernel/debug/padlock-sim/reset
	if [ -w "$f" ]; then
		echo 1 > "$f"
	elif [ "${PADLOCK_CPU_MODEL:-sim}" = qemu ]; then
		"$PADLOCK_TOP/tools/testing/qemu/padlock-msr" --reset 2> /dev/null
	fi
	return 0
}

aes_generic() {
	if grep -q '^driver *: aes-generic$' /proc/crypto || modprobe aes_generic 2>/dev/null; then
		grep -q '^driver *: aes-generic$' /proc/crypto && { echo aes-generic; return; }
	fi
	grep -q '^driver *: aes-lib$' /proc/crypto && { echo aes-lib; return; }
	echo aes-generic
}

# aes_py ARGS...: run the python helper and turn RESULT lines into KTAP
aes_py() {
	local line st desc reason
	while IFS= read -r line; do
		case "$line" in
		"RESULT "*)
			line=${line#RESULT }
			st=${line%% *}
			desc=${line#* }
			reason=
			case "$desc" in *" # "*) reason=${desc#* # }; desc=${desc%% # *} ;; esac
			case "$st" in
			pass) ktap_pass "$desc" ;;
			skip) ktap_skip "$desc" "$reason" ;;
			*) [ -n "$reason" ] && ktap_diag "$reason"; ktap_fail "$desc" ;;
			esac
			;;
		"RC "*)
			[ "${line#RC }" = 0 ] || ktap_fail "aes_afalg.py $1 finished (exit ${line#RC })"
			;;
		"#"*) echo "$line" ;;
		*) echo "# $line" ;;
		esac
	done < <(python3 "$AES_PY" "$@" 2>&1; echo "RC $?")
}

