# SPDX-License-Identifier: GPL-2.0
#
# What the tests that let OpenSSL's own test suite judge the provider
# share (openssl-evp.sh, openssl-recipes.sh): the CPU they need, the build
# roots they run OpenSSL in, the verdict on a run that failed, and the
# engine's counters that show the provider ran.  Source after ktap-lib.sh
# and guest-build.sh.

# suite_need_padlock: skip the whole test unless this is the project's
# QEMU with a PadLock AES unit and its counters; then offer everything, as
# on a VIA C7 (guest_offer_everything)
suite_need_padlock() {
	if [ "${PADLOCK_CPU_MODEL:-sim}" = user ]; then
		# tools/testing/user/run: the CPU is the user-mode emulators'
		# -cpu string
		[[ $PADLOCK_USER_CPU == *+xcrypt-en* ]] ||
			ktap_skip_all "this CPU profile has no PadLock AES unit"
		if [[ $PADLOCK_USER_CPU == *+aes* || $PADLOCK_USER_CPU == *+ssse3* ]]; then
			export OPENSSL_ia32cap=$GUEST_OFFER_MASK
		fi
		return 0
	fi
	[ "${PADLOCK_CPU_MODEL:-sim}" = qemu ] ||
		ktap_skip_all "needs the project's QEMU, whose CPU shows PadLock to every program"
	grep -qw ace /proc/cpuinfo || ktap_skip_all "this CPU profile has no PadLock AES unit"
	guest_offer_everything
	[ -n "$(sim_counter xcrypt_ecb)" ] ||
		ktap_skip_all "no PadLock counters on the QEMU model (tools/testing/qemu/padlock-msr)"
}

# suite_scratch: tmp, a scratch directory, removed at exit once the build
# roots it is mounted in (suite_enter_root) have let it go
suite_scratch() {
	tmp=$(mktemp -d)
	suite_mounts=()
	trap suite_cleanup EXIT
	[ "${PADLOCK_CPU_MODEL:-sim}" != user ] || suite_user_exe
}

# suite_user_exe: with the user-mode emulators (tools/testing/user/run),
# /mnt/qemu/exe PROGRAM ARG... runs PROGRAM on the profile's CPU inside a
# build root (suite_enter_root): an ELF program under qemu-x86_64 or
# qemu-i386, anything else (a script) as it is.  Every process appends its
# PadLock counters to $tmp/counters (PADLOCK_USER_COUNTERS, which
# sim_counter reads).
suite_user_exe() {
	cp -r "$PADLOCK_USER_QEMU" "$tmp/qemu"
	export PADLOCK_USER_COUNTERS=$tmp/counters
	: > "$PADLOCK_USER_COUNTERS"
	{
		echo '#!/bin/sh'
		echo "# exe PROGRAM ARG...: PROGRAM on the PadLock CPU $PADLOCK_PROFILE"
		cat <<'SH'
p=$1
shift
case $p in
*/*) ;;
*) p=$(command -v "$p") || exit 127 ;;
esac
case $(od -An -tx1 -N5 "$p" | tr -d ' \n') in
7f454c4602) e=qemu-x86_64 ;;
7f454c4601) e=qemu-i386 ;;
*) exec "$p" "$@" ;;
esac
SH
		echo 'exec /mnt/qemu/ld.so --library-path /mnt/qemu/lib "/mnt/qemu/$e" \'
		echo "	-cpu '$PADLOCK_USER_CPU,padlock-counters=/mnt/counters' \"\$p\" \"\$@\""
	} > "$tmp/qemu/exe"
	chmod +x "$tmp/qemu/exe"
}

suite_cleanup() {
	local m

	for m in "${suite_mounts[@]}"; do
		umount "$m" 2>/dev/null
	done
	rm -rf "$tmp"
}

# suite_enter_root ROOT PROGRAM: how commands reach OpenSSL build root
# ROOT.  In the guest's own root: run=() and d=$tmp.  Else $tmp is
# bind-mounted at the root's /mnt: run=(chroot DIR), d=/mnt and rdir=DIR.
# q: what runs a program of the root on the PadLock CPU: nothing in a VM
# of the QEMU model; with the user-mode emulators /mnt/qemu/exe, always in
# a chroot, with /proc (the emulators read it).  Fails when the root or its
# PROGRAM is not there.
suite_enter_root() {
	run=() d=$tmp rdir= q=()
	[ "${PADLOCK_CPU_MODEL:-sim}" != user ] && [ "$1" = "$(guest_root)" ] && return 0
	rdir=${PADLOCK_CACHE:-/var/cache/padlock}/chroots/$1
	[ -x "$rdir$2" ] || return 1
	mount --bind "$tmp" "$rdir/mnt" 2>/dev/null || return 1
	suite_mounts+=("$rdir/mnt")
	run=(chroot "$rdir") d=/mnt
	[ "${PADLOCK_CPU_MODEL:-sim}" = user ] || return 0
	if [ ! -e "$rdir/proc/self" ]; then
		mount -t proc proc "$rdir/proc" || return 1
		suite_mounts+=("$rdir/proc")
	fi
	q=(/mnt/qemu/exe)
}

# suite_judge DESC WITH FAILED COUNT CONTEXT CMD...: the run with padlock
# failed, its output in the file WITH; CMD is the same run without
# padlock.  FAILED OUTPUT lists the tests a run failed, COUNT OUTPUT how
# many it reported, CONTEXT OUTPUT the lines around the failures worth
# showing.  A skip when every test that failed fails without padlock too
# and the run with padlock got as far; a failure otherwise.
suite_judge() {
	local desc=$1 with=$2 failed=$3 count=$4 context=$5 new l

	shift 5
	"$@" > "$tmp/alone.out" 2>&1
	"$failed" "$with" > "$tmp/with.failed"
	"$failed" "$tmp/alone.out" > "$tmp/alone.failed"
	new=$(comm -23 "$tmp/with.failed" "$tmp/alone.failed")
	if [ -z "$new" ] && [ -s "$tmp/with.failed" ] &&
	   [ "$("$count" "$with")" -ge "$("$count" "$tmp/alone.out")" ]; then
		ktap_skip "$desc, padlock preferred" \
			"these fail without padlock too: $(sed 's/^[[:space:]]*//' "$tmp/with.failed" | head -n 8 | tr '\n' ';')"
		return
	fi
	if [ -n "$new" ]; then
		ktap_diag "$(grep -c . <<< "$new") tests fail with padlock only:"
		sed 's/^[[:space:]]*//' <<< "$new" | head -n 12 | while read -r l; do ktap_diag "  $l"; done
	else
		ktap_diag "with padlock the run reported $("$count" "$with") tests" \
			"(without: $("$count" "$tmp/alone.out"))"
		tail -n 6 "$with" | while read -r l; do ktap_diag "$l"; done
	fi
	"$context" "$with" | head -n 16 | while read -r l; do ktap_diag "$l"; done
	ktap_fail "$desc, padlock preferred"
}

# suite_processes: with the user-mode emulators, how many processes have
# written their counters so far (a block each, starting with key_loads);
# nothing elsewhere
suite_processes() {
	[ "${PADLOCK_CPU_MODEL:-sim}" = user ] || return 0
	grep -c '^key_loads ' "$PADLOCK_USER_COUNTERS"
}

# suite_kat_floor FIRST KAT: with the user-mode emulators, KAT times the
# processes after the FIRST (suite_processes) that ran at least KAT
# xcrypt, the provider's load-time tests: what the provider ran without
# serving anything; 0 elsewhere, where the engine does not tell processes
# apart
suite_kat_floor() {
	if [ "${PADLOCK_CPU_MODEL:-sim}" != user ] || [ "${2:-0}" = 0 ]; then
		echo 0
		return
	fi
	awk -v first="$1" -v kat="$2" '
		function done_() { if (b > first && x >= kat) n++ }
		$1 == "key_loads" { done_(); b++; x = 0 }
		$1 ~ /^xcrypt_(ecb|cbc|ctr|cfb|ofb)$/ { x += $2 }
		END { done_(); print n * kat }' "$PADLOCK_USER_COUNTERS"
}

# suite_counted ROOT XCRYPT0 XSHA0 [FLOOR]: a pass when the engine ran
# more than FLOOR xcrypt since it counted XCRYPT0 (and XSHA0 xsha), a
# failure otherwise.  FLOOR: what the provider's known-answer tests
# alone run, once per process that loads it, when it serves nothing
suite_counted() {
	local x=$(($(engine_insns xcrypt) - $2)) s=$(($(engine_insns xsha) - $3)) floor=${4:-0}

	if [ "$x" -gt "$floor" ]; then
		ktap_pass "$1: the provider ran $x xcrypt and $s xsha instructions (its load-time tests: $floor)"
	else
		ktap_fail "$1: the provider ran $x xcrypt instructions, no more than its load-time tests ($floor): padlock was not preferred"
	fi
}
