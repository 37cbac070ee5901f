#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# OpenSSL's own test suite judges the provider: OpenSSL's evp_test
# (provider/tests/openssl-tests: built from Debian's openssl source for
# each OpenSSL build root, against that root's libcrypto) over the recipes
# of test/recipes/30-test_evp_data/, with the configuration a user enables:
# OpenSSL's test configuration (default and legacy providers) plus the
# package's /etc/ssl/padlock.cnf, included as the package tells users to,
# so that padlock is preferred (default_properties = ?provider=padlock)
# for every cipher, digest, MAC, KDF, DRBG and signature that fetches an
# algorithm padlock offers.  Then OpenSSL's API tests built with it, each
# run as its recipe runs it: cmsapitest (80-test_cmsapi.t),
# pkcs12_format_test (80-test_pkcs12.t) and, where it links against the
# shared libraries (OpenSSL 3.0), sslapitest (90-test_sslapi.t); a top-level
# test failing with padlock and not without it is a failure.
#
# A recipe file that passes is a pass.  One that fails is run again
# without padlock, on the same CPU: a test (a recipe line) that fails with
# padlock and not without it is a failure; a file whose failing tests all
# fail without padlock too is a skip that names them.  The engine's
# counters show that the provider ran (xcrypt and, where the CPU has the
# hash unit, xsha instructions) in each root.
#
# On a CPU that shows PadLock in CPUID to every program: the user-mode
# emulators of the QEMU model (tools/testing/user/run, the plan's
# user/PROFILE runs: every program of OpenSSL's runs under qemu-x86_64 or
# qemu-i386 with the profile's CPU, no kernel boots), or a VM on the
# project's QEMU.  Roots: the 64-bit profiles run evp_test in the build
# roots (bookworm's OpenSSL 3.0, trixie's 3.5, sid's 3.6, openssl4's
# 4.0), the 32-bit ones in bookworm-i386 (3.0).  make check: bookworm
# on nano, trixie on zhaoxin (4.0 runs provider.sh's own tests there), the
# recipe files of AES, SHA
# and what is built on them (MACs, KDFs, PBKDF2, DRBGs) that OpenSSL runs
# under its FIPS configuration as well, cmsapitest and pkcs12_format_test;
# check-long: every recipe file and sslapitest too, in every root on every
# profile.  PADLOCK_EVP_ROOTS, PADLOCK_EVP_FILES and PADLOCK_EVP_PROGS
# (regular expressions): others.
#
# PADLOCK_PROVIDER_SRC: another provider source tree (a deliberately
# broken variant, to show that this test fails).
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/ktap-lib.sh
. "$here/lib/ktap-lib.sh"
# shellcheck source=lib/guest-build.sh
. "$here/lib/guest-build.sh"
# shellcheck source=lib/openssl-suite-lib.sh
. "$here/lib/openssl-suite-lib.sh"

ktap_header
# padlock's AES and GCM judged on every profile, as on a VIA C7: where
# OpenSSL's own would be faster, the provider leaves them to it unless
# OPENSSL_ia32cap hides what makes it so
suite_need_padlock
top=$PADLOCK_TOP

long=
[ "$PADLOCK_SCALE" = long ] && long=1
if [ "$(guest_root)" != host ]; then
	roots=$(guest_root)
elif [ -n "$long" ]; then
	roots="bookworm trixie sid openssl4"
else
	case ${PADLOCK_PROFILE:-} in
	zhaoxin) roots=trixie ;;
	*) roots=bookworm ;;
	esac
fi
roots=${PADLOCK_EVP_ROOTS:-$roots}
files=${PADLOCK_EVP_FILES:-}
if [ -z "$files" ]; then
	if [ -n "$long" ]; then
		files='.'
	else
		files='^evp(ciph_aes_(common|stitched|cts|wrap)|md_sha|mac_common|kdf_(hkdf|ss|ssh|tls12_prf|tls13_kdf|x963|pbkdf2)|pbe_pbkdf2|pkey_kdf_hkdf|rand)\.txt$'
	fi
fi

suite_scratch
guest_provider "$top" "$tmp"
cp "$top/provider/padlock.cnf" "$tmp/"

# failed_tests OUTPUT: the recipe lines of the tests that failed ("FILE:LINE")
failed_tests() {
	sed -n 's/^[ #]*\([^ ]*:[0-9]*\): Source of above error.*/\1/p' "$1" | sed 's|.*/||' | sort -u
}

# failed_names OUTPUT: the top-level tests of a test program that failed
failed_names() {
	sed -n 's/^not ok [0-9]* - \(.*\)/\1/p' "$1" | sort -u
}

# ran_tests OUTPUT: how many tests a run got through (evp_test's
# "Completed N tests", else the program's top-level results)
ran_tests() {
	local n

	n=$(sed -n 's/.*Completed \([0-9]*\) tests.*/\1/p' "$1" | tail -n 1)
	[ -n "$n" ] || n=$(grep -c '^\(not \)\?ok [0-9]' "$1")
	echo "$n"
}

# context OUTPUT: evp_test's and the API tests' error lines
context() {
	grep -E 'ERROR|error:|Source of above' "$1" | sed 's/^[ #]*//'
}

# cnf ARGS NAME: how a program with ARGS gets the configuration NAME: as
# its argument when it takes one (sslapitest loads it into a library
# context of its own and wants nothing loaded in the default one), else
# through OPENSSL_CONF
cnf() {
	if [ "${1/@CNF@/}" != "$1" ]; then
		echo "-u OPENSSL_CONF"
	else
		echo "OPENSSL_CONF=$d/$2"
	fi
}

total=0
for root in $roots; do
	evp=$top/build/openssl-tests/$root
	if [ ! -x "$evp/evp_test" ] || [ ! -s "$evp/tests" ]; then
		ktap_skip "$root: OpenSSL's evp_test" "not built: run provider/tests/openssl-tests on the host"
		continue
	fi
	# where the root sees $tmp: its /mnt, or $tmp in the guest's own root
	if ! suite_enter_root "$root" /usr/bin/openssl; then
		ktap_skip "$root: OpenSSL's evp_test" "the build root $root is not there"
		continue
	fi
	# the test programs and their data, not the configured tree beside
	# them (openssl-recipes.sh's: 1,800 files, minutes to copy over the
	# guest's 9p root)
	rm -rf "$tmp/evp"
	mkdir "$tmp/evp"
	for e in "$evp"/*; do
		[ "${e##*/}" = tree ] || cp -r "$e" "$tmp/evp/"
	done
	ver=$(head -n 1 "$evp/version")
	ktap_diag "$root: OpenSSL $ver, $(sed -n 2p "$evp/version")"
	# OpenSSL's test configuration alone, and with the package's snippet
	# included as /etc/ssl/openssl.cnf would include it
	cp "$tmp/evp/default-and-legacy.cnf" "$tmp/alone.cnf"
	{
		cat "$tmp/evp/default-and-legacy.cnf"
		echo ".include $d/padlock.cnf"
		printf '[padlock_sect]\nmodule = %s/padlock.so\n' "$d"
	} > "$tmp/with.cnf"
	# (and what loading the provider costs: its known-answer tests)
	k0=$(engine_insns xcrypt)
	info=$("${run[@]}" env OPENSSL_CONF="$d/with.cnf" "${q[@]}" openssl list -providers -verbose 2>&1)
	kat=$(($(engine_insns xcrypt) - k0))
	if ! grep -q '^  padlock' <<< "$info"; then
		ktap_diag "$info"
		ktap_fail "$root: the provider loads from the configuration"
		continue
	fi
	x0=$(engine_insns xcrypt) s0=$(engine_insns xsha) t0=$(date +%s)
	n=0 loads=0
	for f in "$tmp"/evp/evp-data/*.txt; do
		f=${f##*/}
		grep -Eq "$files" <<< "$f" || continue
		n=$((n + 1)) loads=$((loads + 1))
		if "${run[@]}" "${q[@]}" "$d/evp/evp_test" -config "$d/with.cnf" "$d/evp/evp-data/$f" \
			> "$tmp/out" 2>&1; then
			ktap_pass "$root: evp_test $f, padlock preferred$(sed -n 's/.*\(Completed [0-9]* tests\).*/: \1/p' "$tmp/out" | tail -n 1)"
			continue
		fi
		suite_judge "$root: evp_test $f" "$tmp/out" failed_tests ran_tests context "${run[@]}" "${q[@]}" "$d/evp/evp_test" \
			-config "$d/alone.cnf" "$d/evp/evp-data/$f"
	done
	# OpenSSL's API tests, each run as its recipe makes it ("tests"):
	# make check the CMS and PKCS#12 ones, check-long sslapitest too
	while read -r prog args; do
		[ -n "$prog" ] || continue
		[ "$prog" = sslapitest ] && [ -z "$long" ] && continue
		grep -Eq "${PADLOCK_EVP_PROGS:-.}" <<< "$prog" || continue
		desc="$root: $prog" loads=$((loads + 1))
		[ "${args#-}" != "$args" ] && desc="$desc $args"
		a=${args//@D@/$d/evp}
		a=${a//@TMP@/$d}
		# shellcheck disable=SC2086,SC2046
		if "${run[@]}" env $(cnf "$args" with.cnf) "${q[@]}" "$d/evp/$prog" ${a//@CNF@/$d/with.cnf} \
			> "$tmp/out" 2>&1; then
			ktap_pass "$desc, padlock preferred: $(grep -c '^ok [0-9]' "$tmp/out") tests"
			continue
		fi
		# shellcheck disable=SC2086,SC2046
		suite_judge "$desc" "$tmp/out" failed_names ran_tests context "${run[@]}" env $(cnf "$args" alone.cnf) "${q[@]}" "$d/evp/$prog" \
			${a//@CNF@/$d/alone.cnf}
	done < "$tmp/evp/tests"
	[ -s "$tmp/evp/cannot" ] && ktap_skip "$root: $(cut -d: -f1 "$tmp/evp/cannot")" \
		"cannot run here: $(cut -d: -f2- "$tmp/evp/cannot")"
	s1=$(engine_insns xsha)
	total=$((total + $(date +%s) - t0))
	ktap_diag "$root: $n recipe files in $(($(date +%s) - t0)) s"
	suite_counted "$root" "$x0" "$s0" $((loads * kat))
	# (the C7's PHE has final mode only: no SHA offered there)
	if grep -q 'build info: .* SHA-1/224/256' <<< "$info"; then
		if [ $((s1 - s0)) -gt 0 ]; then
			ktap_pass "$root: SHA through the provider's xsha"
		else
			ktap_fail "$root: SHA through the provider's xsha (none counted)"
		fi
	fi
done
ktap_diag "evp_test took $total s in all"
ktap_finish
