#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# OpenSSL's own test recipes judge the provider where real programs meet
# it: the recipes of OpenSSL's Perl harness (test/run_tests.pl) that drive
# the openssl command (CMS and PKCS#7 messages, PKCS#12 files, encrypted
# PEM and PKCS#8 keys through OSSL_STORE, enc with every cipher, digests,
# MACs, KDFs, password hashes, certificate requests), and ssl_test over
# every configuration of test/ssl-tests/ (the handshakes and records of
# 80-test_ssl_new.t).
#
# The configured tree of each OpenSSL build root comes from
# provider/tests/openssl-tests (Debian's source, configured with Debian's
# options, OpenSSL's own test programs and ossltest engine built against
# the root's libraries); the openssl command, libcrypto, libssl and the
# legacy provider and loader_attic engine are the root's own, the ones
# users run.  Padlock is preferred as a user prefers it: the harness gives
# every program OpenSSL's apps/openssl.cnf, and the run with padlock
# includes the package's padlock.cnf at its end, as the package tells
# users to include it from /etc/ssl/openssl.cnf; the openssl command runs
# in the default library context as users run it (the recipes' test-only
# OPENSSL_TEST_LIBCTX, a context of its own that no configuration
# reaches, is taken out).  ssl_test loads its
# configuration into a library context of its own, so it gets
# test/default.cnf with padlock.cnf included (without padlock: the same
# with nothing included).
#
# A recipe (or ssl_test configuration) that passes is a pass.  One that
# fails runs again without padlock on the same CPU (apps/openssl.cnf then
# includes a snippet that activates the default provider alone, as
# padlock.cnf activates it beside padlock): a test that fails with
# padlock and not without it is a failure; a recipe whose failing tests
# all fail without padlock too is a skip that names them.  The engine's
# counters show that the provider ran.
#
# On a CPU that shows PadLock in CPUID to every program: the user-mode
# emulators of the QEMU model (tools/testing/user/run: every program the
# harness starts runs under qemu-x86_64 or qemu-i386 with the profile's
# CPU, perl and sh natively), or a VM on the project's QEMU.  make check:
# the CMS, PKCS#12, store and enc recipes and ssl_test's handshakes of
# every protocol version, fragmented records and CBC records, in
# bookworm's OpenSSL 3.0 on nano.  make
# check-long: everything on nano, nano-s2, zhaoxin and c7: nano and
# zhaoxin run every root (bookworm's 3.0, trixie's 3.5, sid's 3.6,
# openssl4's 4.0), nano-s2 the oldest and the newest, c7 the
# bookworm-i386 root.  PADLOCK_RECIPE_ROOTS, PADLOCK_RECIPES (recipe
# names, space separated) and PADLOCK_SSL_TESTS (a regular expression
# over test/ssl-tests/*.cnf) choose others; PADLOCK_PROVIDER_SRC builds
# another provider source tree (a deliberately broken variant, to show
# that this test fails).
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/ktap-lib.sh
. "$here/lib/ktap-lib.sh"
# shellcheck source=lib/guest-build.sh
. "$here/lib/guest-build.sh"
# shellcheck source=lib/openssl-suite-lib.sh
. "$here/lib/openssl-suite-lib.sh"

ktap_header
# padlock's AES and GCM judged on every profile, as on a VIA C7
suite_need_padlock
top=$PADLOCK_TOP

recipes="test_cms test_pkcs7 test_pkcs12 test_store test_enc test_enc_more test_dgst test_mac test_kdf test_passwd test_genrsa test_req"
ssl_tests=.
if [ "$PADLOCK_SCALE" != long ]; then
	recipes="test_cms test_pkcs12 test_store test_enc"
	# handshakes of every protocol version, fragmented records and
	# the CBC record layer (encrypt-then-MAC and MAC-then-encrypt)
	ssl_tests='^(01|02|13|19)-'
fi
if [ "$(guest_root)" != host ]; then
	roots=$(guest_root)
elif [ "$PADLOCK_SCALE" != long ]; then
	roots=bookworm
else
	case ${PADLOCK_PROFILE:-} in
	# the prefetch erratum is the provider's, whatever the OpenSSL
	nano-s2) roots="bookworm openssl4" ;;
	*) roots="bookworm trixie sid openssl4" ;;
	esac
fi
roots=${PADLOCK_RECIPE_ROOTS:-$roots}
recipes=${PADLOCK_RECIPES:-$recipes}
ssl_tests=${PADLOCK_SSL_TESTS:-$ssl_tests}

suite_scratch
guest_provider "$top" "$tmp"

# failed OUTPUT: every test that failed, at every level of the recipe's
# subtests, as the harness printed it (its number and description)
failed() {
	grep -E '^[[:space:]]*not ok [0-9]+' "$1" | sed 's/[[:space:]]*#.*//' | sort -u
}

# ran OUTPUT: how many tests the run reported, at every level
ran() {
	grep -cE '^[[:space:]]*(not )?ok [0-9]+' "$1"
}

# context OUTPUT: the lines that led up to each failed test
context() {
	grep -E -B4 '^[[:space:]]*not ok' "$1" | grep -vE '^[[:space:]]*(ok|#)' | sed 's/^[[:space:]]*//'
}

for root in $roots; do
	src=$top/build/openssl-tests/$root
	if [ ! -x "$src/tree/test/ssl_test" ]; then
		ktap_skip "$root: OpenSSL's recipes" "not built: run provider/tests/openssl-tests on the host"
		continue
	fi
	if ! suite_enter_root "$root" /usr/bin/perl; then
		ktap_skip "$root: OpenSSL's recipes" "the build root $root is not there"
		continue
	fi
	rm -rf "$tmp/tree"
	cp -r "$src/tree" "$tmp/tree"
	t=$tmp/tree
	# configdata.pm and util/wrap.pl name the directory the tree was
	# configured in
	sed -i "s|$(cat "$t/configured-in")|$d/tree|g" "$t/configdata.pm" "$t/util/wrap.pl"
	# the root's own openssl command, providers and engines
	mdir=$("${run[@]}" openssl version -m | sed -n 's/^MODULESDIR: "\(.*\)"/\1/p')
	edir=$("${run[@]}" openssl version -e | sed -n 's/^ENGINESDIR: "\(.*\)"/\1/p')
	mkdir -p "$t/bin" "$t/providers"
	# the openssl command as users run it: 80-test_cms.t and
	# 15-test_genrsa.t ask it for a library context of its own
	# (OPENSSL_TEST_LIBCTX, a test-only switch), which no configuration
	# reaches; users' commands run in the default one, which padlock.cnf
	# configures
	printf '#!/bin/sh
unset OPENSSL_TEST_LIBCTX
exec %s /usr/bin/openssl "$@"
' "${q[*]}" > "$t/bin/openssl"
	chmod +x "$t/bin/openssl"
	# with the user-mode emulators the harness's test programs run on
	# the PadLock CPU too: util/wrap.pl starts every program through
	# util/shlib_wrap.sh when there is one (as a shared-library build of
	# OpenSSL has)
	if [ ${#q[@]} -gt 0 ]; then
		printf '#!/bin/sh\nexec %s "$@"\n' "${q[*]}" > "$t/util/shlib_wrap.sh"
		chmod +x "$t/util/shlib_wrap.sh"
	fi
	for m in legacy.so fips.so; do
		[ -e "$rdir$mdir/$m" ] && ln -s "$mdir/$m" "$t/providers/$m"
	done
	[ -e "$rdir$edir/loader_attic.so" ] && ln -s "$edir/loader_attic.so" "$t/engines/"
	cp "$tmp/padlock.so" "$t/providers/"
	cp "$top/provider/padlock.cnf" "$tmp/"
	# without padlock: the default provider alone, activated by the same
	# kind of snippet (a configuration that activates any provider makes
	# pkcs12_format_test -context fail, padlock.cnf or not)
	printf '[openssl_init]\nproviders = provider_sect\n[provider_sect]\ndefault = default_sect\n[default_sect]\nactivate = 1\n' \
		> "$tmp/default-only.cnf"
	{ cat "$t/apps/openssl.cnf"; echo ".include $d/default-only.cnf"; } > "$tmp/alone-apps.cnf"
	{ cat "$t/apps/openssl.cnf"; echo ".include $d/padlock.cnf"; } > "$tmp/with-apps.cnf"
	cp "$t/test/default.cnf" "$tmp/alone-ssl.cnf"
	{ cat "$t/test/default.cnf"; echo ".include $d/padlock.cnf"; } > "$tmp/with-ssl.cnf"
	ver=$(head -n 1 "$src/version")
	ktap_diag "$root: OpenSSL $ver, $(sed -n 2p "$src/version"); configured with $(cat "$src/confargs")"
	cp "$tmp/with-apps.cnf" "$t/apps/openssl.cnf"
	# (and what loading the provider costs: its known-answer tests)
	k0=$(engine_insns xcrypt)
	info=$("${run[@]}" env OPENSSL_CONF="$d/tree/apps/openssl.cnf" OPENSSL_MODULES="$d/tree/providers" \
		"${q[@]}" openssl list -providers -verbose 2>&1)
	kat=$(($(engine_insns xcrypt) - k0))
	if ! grep -q '^  padlock' <<< "$info"; then
		ktap_diag "$info"
		ktap_fail "$root: the provider loads from the configuration"
		continue
	fi
	x0=$(engine_insns xcrypt) s0=$(engine_insns xsha) t0=$(date +%s) p0=$(suite_processes)

	# harness RECIPE: the recipe run as "make test TESTS=RECIPE" runs it,
	# verbose, in the tree
	harness=(env SRCTOP=. BLDTOP=. BIN_D="$d/tree/bin" HARNESS_JOBS=1 V=1 perl test/run_tests.pl)
	for rc in $recipes; do
		ls "$t"/test/recipes/[0-9]*-"$rc".t > /dev/null 2>&1 || {
			ktap_skip "$root: $rc" "OpenSSL $ver has no such recipe"
			continue
		}
		cp "$tmp/with-apps.cnf" "$t/apps/openssl.cnf"
		rm -rf "$t/test-runs"
		if "${run[@]}" sh -c "cd $d/tree && exec \"\$@\"" sh "${harness[@]}" "$rc" > "$tmp/$rc.out" 2>&1 &&
		   grep -q '^Result: PASS' "$tmp/$rc.out"; then
			ktap_pass "$root: $rc, padlock preferred: $(ran "$tmp/$rc.out") tests"
			continue
		fi
		cp "$tmp/alone-apps.cnf" "$t/apps/openssl.cnf"
		rm -rf "$t/test-runs"
		suite_judge "$root: $rc" "$tmp/$rc.out" failed ran context "${run[@]}" sh -c "cd $d/tree && exec \"\$@\"" sh \
			"${harness[@]}" "$rc"
	done

	# ssl_test over every configuration of test/ssl-tests/, as
	# 80-test_ssl_new.t runs it, with the library context's configuration
	# naming padlock
	cp "$tmp/alone-apps.cnf" "$t/apps/openssl.cnf"
	for c in "$t"/test/ssl-tests/*.cnf; do
		c=${c##*/}
		grep -Eq "$ssl_tests" <<< "$c" || continue
		sslrun=("${run[@]}" env OPENSSL_CONF="$d/tree/apps/openssl.cnf" OPENSSL_MODULES="$d/tree/providers"
			CTLOG_FILE="$d/tree/test/ct/log_list.cnf" TEST_CERTS_DIR="$d/tree/test/certs"
			"${q[@]}" "$d/tree/test/ssl_test" "$d/tree/test/ssl-tests/$c" default)
		if "${sslrun[@]}" "$d/with-ssl.cnf" > "$tmp/ssl.out" 2>&1; then
			ktap_pass "$root: ssl_test $c, padlock preferred: $(ran "$tmp/ssl.out") tests"
			continue
		fi
		suite_judge "$root: ssl_test $c" "$tmp/ssl.out" failed ran context "${sslrun[@]}" "$d/alone-ssl.cnf"
	done
	ktap_diag "$root: recipes and ssl_test in $(($(date +%s) - t0)) s"
	suite_counted "$root" "$x0" "$s0" "$(suite_kat_floor "$p0" "$kat")"
done
ktap_finish
