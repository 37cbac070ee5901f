# SPDX-License-Identifier: GPL-2.0
# The C programs of the tests (the OpenSSL provider, its test program and
# the small programs below), built for a guest's root.
# Sourced by the tests in the guest (provider.sh, provider-clients.sh,
# xcheck.sh, sim-user.sh, qemu-charge.sh) and
# by tools/testing/guest-build on the host, which runs the same build in
# the same root (a chroot) before the VMs boot: natively it takes seconds,
# under software emulation a minute or more.  A test uses the host's build
# when the key below matches (same sources, same build commands), else it
# builds for itself.  Source it; do not run it.

# guest_build_provider SRC TOP OUT: padlock.so from the provider tree SRC
# (its Makefile's flags: what the package ships) and the test program of
# TOP/selftests/padlock/lib/provider_test.c, into OUT; the compilers'
# output in OUT/build.log and OUT/test-build.log, the symbols padlock.so
# takes from other libraries in OUT/undefined.txt.  Both builds at once.
# Also OUT/limit/padlock.so, the same provider with a GCM message limit of
# $GUEST_GCM_LIMIT bytes (provider_test gcmlimit: the limit is reached in
# a test; the real one is 64 GiB).
GUEST_GCM_LIMIT=8192
guest_build_provider() {
	local src=$1 top=$2 out=$3 tpid rc=0
	guest_build_provider_test "$top" "$out" &
	tpid=$!
	make -s -j2 -C "$src" OUT="$out" > "$out/build.log" 2>&1 && [ -e "$out/padlock.so" ] &&
		nm -D --undefined-only "$out/padlock.so" > "$out/undefined.txt" || rc=1
	mkdir -p "$out/limit"
	make -s -j2 -C "$src" OUT="$out/limit" CPPFLAGS=-DPL_GCM_MAX_DATA=$GUEST_GCM_LIMIT \
		> "$out/limit/build.log" 2>&1 || rc=1
	wait $tpid || rc=1
	return $rc
}

# guest_build_provider_test TOP OUT: the test program alone, against this
# root's libcrypto (provider.sh runs the same padlock.so in other OpenSSL
# releases' roots; OpenSSL 4.0's has a compiler), into OUT/provider_test
guest_build_provider_test() {
	local cc
	cc=$(command -v gcc || command -v cc) || return 1
	"$cc" -O0 -Wall -o "$2/provider_test" "$1/selftests/padlock/lib/provider_test.c" \
		-lcrypto > "$2/test-build.log" 2>&1
}

# guest_provider_test_key TOP: its key (this file and the source)
guest_provider_test_key() {
	(
		cd "$1" || exit 1
		cat selftests/padlock/lib/guest-build.sh selftests/padlock/lib/provider_test.c
	) | sha256sum | cut -d ' ' -f 1
}

# guest_prebuilt_provider_test TOP ROOT FILE: the host's build of the test
# program in the root ROOT copied to FILE when it is current
guest_prebuilt_provider_test() {
	local dir=$1/build/guest/$2/provider_test
	[ -s "$dir/key" ] && [ "$(cat "$dir/key")" = "$(guest_provider_test_key "$1")" ] &&
		cp "$dir/provider_test" "$3"
}

# guest_provider_key TOP: what decides the build, hashed: the provider's
# sources, the test program's, and this file (the build commands above)
guest_provider_key() {
	(
		cd "$1" || exit 1
		export LC_ALL=C
		cat selftests/padlock/lib/guest-build.sh provider/Makefile provider/*.[ch] \
			selftests/padlock/lib/provider_test.c
	) | sha256sum | cut -d ' ' -f 1
}

# guest_prebuilt_provider TOP ROOT OUT: copy the host's build for the root
# ROOT (padlock.so, provider_test and the build logs) into OUT when its key
# is the current one; false when there is none or it is stale
guest_prebuilt_provider() {
	local top=$1 dir=$1/build/guest/$2/provider f
	[ -s "$dir/key" ] && [ "$(cat "$dir/key")" = "$(guest_provider_key "$top")" ] || return 1
	for f in padlock.so provider_test build.log test-build.log undefined.txt; do
		cp "$dir/$f" "$3/" || return 1
	done
	mkdir -p "$3/limit" && cp "$dir/limit/padlock.so" "$3/limit/" || return 1
}

# guest_provider TOP OUT: for a test in the guest, the provider into OUT:
# the host's build for this root when current, else built here from
# $PADLOCK_PROVIDER_SRC (a variant under test) or TOP/provider; a
# provider that does not build is the test's failure, and its end
guest_provider() {
	if [ -n "${PADLOCK_PROVIDER_SRC:-}" ] ||
	   ! guest_prebuilt_provider "$1" "$(guest_root)" "$2"; then
		guest_build_provider "${PADLOCK_PROVIDER_SRC:-$1/provider}" "$1" "$2"
	fi
	if [ ! -e "$2/padlock.so" ]; then
		ktap_diag "$(head -n 20 "$2/build.log" 2>/dev/null)"
		ktap_fail "the provider builds"
		ktap_finish
	fi
}

# guest_root: the name of this guest's root in build/guest/ (in a VM of
# tools/vm/run: the i386 build root for a 32-bit guest, else the host's)
guest_root() {
	if [ "${PADLOCK_ARCH:-}" = i386 ] && [ -n "${PADLOCK_CHROOT:-}" ]; then
		echo "${PADLOCK_CHROOT##*/}"
	else
		echo host
	fi
}

# The small C programs of the tests, each one source file compiled with
# -O2 -Wall: "SOURCE INCLUDE-DIR..." relative to the top of the tree.
guest_cc_programs() {
	cat <<'LIST'
selftests/padlock/lib/xcheck_exec.c drivers/test
selftests/padlock/lib/sim_user.c drivers/test
selftests/padlock/lib/charge_clock.c provider
selftests/padlock/lib/neighbour.c
LIST
}

# guest_cc_key TOP SOURCE INCLUDE-DIR...: the hash of this file, SOURCE and
# the headers beside it and in the include directories (relative to TOP)
guest_cc_key() {
	local top=$1 d
	shift
	(
		cd "$top" || exit 1
		export LC_ALL=C
		cat selftests/padlock/lib/guest-build.sh "$1"
		d=$(dirname "$1")
		shift
		for d in "$d" "$@"; do
			cat "$d"/*.h
		done
	) | sha256sum | cut -d ' ' -f 1
}

# guest_cc_build TOP OUT SOURCE INCLUDE-DIR...: compile SOURCE (relative to
# TOP) into the program OUT; the compiler's messages on stderr.  A source
# line "guest-build: needs HEADER links -lLIB..." names a header without
# which this root does not build it (status 2, no message) and the
# libraries it links.
guest_cc_build() {
	local top=$1 out=$2 src=$3 cc d needs libs
	local -a inc=()
	shift 3
	for d in "$@"; do
		inc+=(-I "$top/$d")
	done
	needs=$(sed -n 's/.*guest-build: needs \([^ ]*\) links.*/\1/p' "$top/$src")
	libs=$(sed -n 's/.*guest-build: needs [^ ]* links \(.*\)$/\1/p' "$top/$src")
	[ -z "$needs" ] || [ -e "/usr/include/$needs" ] || return 2
	cc=$(command -v gcc || command -v cc) || { echo "no C compiler" >&2; return 1; }
	# shellcheck disable=SC2086
	"$cc" -O2 -Wall "${inc[@]}" -o "$out" "$top/$src" $libs
}

# guest_cc TOP OUT SOURCE INCLUDE-DIR...: the host's build of SOURCE for this
# guest's root copied to OUT when it is current, else compiled here
guest_cc() {
	local top=$1 out=$2 src=$3 pre
	pre=$top/build/guest/$(guest_root)/cc/$(basename "$src" .c)
	shift 2
	if [ -s "$pre.key" ] && [ -x "$pre" ] &&
	   [ "$(cat "$pre.key")" = "$(guest_cc_key "$top" "$@")" ] && cp "$pre" "$out"; then
		return 0
	fi
	guest_cc_build "$top" "$out" "$@"
}

# The CPUID.1:ECX bits whose presence makes the provider leave AES (AES-NI,
# 25) or GCM (SSSE3, 9) to OpenSSL's own, and PCLMULQDQ (1), as an
# OPENSSL_ia32cap mask that hides them from OpenSSL and so from the
# provider.
GUEST_OFFER_MASK='~0x200020200000000'

# guest_offer_everything: where this CPU has them, export OPENSSL_ia32cap
# so that the provider offers and the tests exercise all its AES, GCM
# included, as on a VIA C7 (OpenSSL's default provider, the reference, then
# runs without them too)
guest_offer_everything() {
	if grep -qw aes /proc/cpuinfo || grep -qw ssse3 /proc/cpuinfo; then
		export OPENSSL_ia32cap=$GUEST_OFFER_MASK
	fi
}
