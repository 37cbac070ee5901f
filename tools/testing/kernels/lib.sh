# SPDX-License-Identifier: GPL-2.0
# Shared by tools/testing/kernels/* and tools/testing/vm/run.  Source it; do not run it.

PADLOCK_TOP=${PADLOCK_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)}
CACHE=${PADLOCK_CACHE:-/var/cache/padlock}

die() { echo "${0##*/}: $*" >&2; exit 1; }

# The kernel table (tools/testing/kernels/matrix), without comments and blank lines:
# alias arch chroot check long image
matrix_lines() {
	grep -v '^[#@]' "$PADLOCK_TOP/tools/testing/kernels/matrix" | awk 'NF'
}

# All kernel aliases of the matrix, in order.
matrix_aliases() {
	matrix_lines | awk '{ print $1 }'
}

# matrix_plan check|long: the VM runs of make check (or check-long) as
# "ALIAS:PROFILE" words, in table order.
matrix_plan() {
	local col
	case "$1" in
	check) col=4 ;;
	long) col=5 ;;
	*) die "matrix_plan: check or long, not $1" ;;
	esac
	matrix_lines | awk -v c=$col '$c != "build" && $c != "-" {
		n = split($c, p, ",")
		for (i = 1; i <= n; i++) printf "%s:%s\n", $1, p[i]
	}'
}

# matrix_user_entries SCALE: "PROGRAM PROFILE" for each test program of the
# matrix's program table and each PadLock CPU profile that its column for
# SCALE (small: make check, long: make check-long) names as user/PROFILE
# (a shell pattern over the profiles of tools/testing/vm/profiles): the
# runs of the user-mode emulators (tools/testing/user/run)
matrix_user_entries() {
	local col prog pats pat p profiles
	case "$1" in
	small) col=2 ;;
	long) col=3 ;;
	*) die "matrix_user_entries: small or long, not $1" ;;
	esac
	profiles=$(grep -v '^#' "$PADLOCK_TOP/tools/testing/vm/profiles" | awk 'NF && $1 != "none" { print $1 }')
	awk -v c=$col '/^@/ { print substr($1, 2), $c }' "$PADLOCK_TOP/tools/testing/kernels/matrix" |
	while read -r prog pats; do
		for pat in ${pats//,/ }; do
			pat=${pat#"~"}
			[[ $pat == user/* ]] || continue
			for p in $profiles; do
				# shellcheck disable=SC2254
				case "user/$p" in $pat) echo "$prog $p" ;; esac
			done
		done
	done | awk '!seen[$0]++'
}

# matrix_user_profiles SCALE: the profiles with a user-mode run, in the
# order of tools/testing/vm/profiles
matrix_user_profiles() {
	local e
	e=$(matrix_user_entries "$1")
	grep -v '^#' "$PADLOCK_TOP/tools/testing/vm/profiles" | awk 'NF { print $1 }' |
		while read -r p; do
			awk -v p="$p" '$2 == p { f = 1 } END { exit !f }' <<< "$e" && echo "$p"
		done
	true
}

# matrix_user_progs SCALE PROFILE: the programs of that profile's user-mode
# run
matrix_user_progs() {
	matrix_user_entries "$1" | awk -v p="$2" '$2 == p { print $1 }'
}

# matrix_boots ALIAS: true when make check or check-long boots the kernel
# (fetch then extracts its image; build-only kernels need headers only).
matrix_boots() {
	matrix_lines | awk -v k="$1" '$1 == k && (($4 != "build" && $4 != "-") || $5 != "-") { f = 1 }
		END { exit !f }'
}

# load_kernel ALIAS|RELEASE: sets KALIAS KVER ARCH CHROOT CHROOT_NAME VMLINUZ KDIR
load_kernel() {
	local want=$1 f
	KALIAS= KVER=
	if [ -e "$CACHE/kernels/$want.env" ]; then
		# shellcheck disable=SC1090
		. "$CACHE/kernels/$want.env"
		return 0
	fi
	for f in "$CACHE"/kernels/*.env; do
		[ -e "$f" ] || continue
		if grep -qx "KVER=$want" "$f"; then
			# shellcheck disable=SC1090
			. "$f"
			return 0
		fi
	done
	return 1
}

# The Debian mirrors of the machine's apt sources (deb822 or one-line
# format); DEBIAN_MIRROR / DEBIAN_SECURITY_MIRROR override them.
apt_uris() {
	{
		cat /etc/apt/sources.list.d/*.sources 2>/dev/null | sed -n 's/^URIs: *//p' | tr ' ' '\n'
		cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
			sed -n 's/^deb \(\[[^]]*\] \)\{0,1\}\([a-z+]*:[^ ]*\).*/\2/p'
	} | sed 's:/*$::' | awk 'NF && !seen[$0]++'
}
# in_chroot NAME CMD...: run CMD in the build root NAME with /proc mounted.
# The /proc mount lives in a mount namespace of its own: builds and fetches
# running side by side in one root cannot unmount each other's /proc (7.3's
# objtool reads /proc/self/maps and failed when that happened).
# INITRD=No: kernel images installed there (trixie's headers depend on
# theirs) get no initramfs; the VMs never use one from the build root.
in_chroot() {
	local root="$CACHE/chroots/$1" rc=0 mounted=0
	shift
	local env=(/usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
		   DEBIAN_FRONTEND=noninteractive LC_ALL=C INITRD=No)
	if unshare --mount --propagation private true 2>/dev/null; then
		# shellcheck disable=SC2016
		unshare --mount --propagation private -- /bin/sh -c \
			'r=$1; shift; mount -t proc proc "$r/proc" || exit 125; exec chroot "$r" "$@"' \
			in_chroot "$root" "${env[@]}" "$@"
		return
	fi
	if ! mountpoint -q "$root/proc"; then
		mount -t proc proc "$root/proc" && mounted=1
	fi
	chroot "$root" "${env[@]}" "$@" || rc=$?
	if [ $mounted = 1 ]; then
		umount "$root/proc" 2>/dev/null || umount -l "$root/proc" 2>/dev/null || true
	fi
	return $rc
}

# The files that make up the module source tree (what DKMS and the matrix
# build copy).
module_sources() {
	(cd "$PADLOCK_TOP" && for f in Kbuild Makefile VERSION dkms.conf; do
		[ -e "$f" ] && echo "$f"
	 done
	 find include drivers -type f \( -name '*.c' -o -name '*.h' -o -name '*.kbuild' \) | sort)
}

# What ships (make dkms-install, the padlock-dkms package): the Makefile's
# list (make dkms-sources), the module sources without the simulator and
# the test modules, which only the test builds need (DKMS builds with
# PADLOCK_SIM=n).
dkms_sources() {
	make --no-print-directory -s -C "$PADLOCK_TOP" dkms-sources
}

# qemu_model_cpu PROFILE CPU: the QEMU -cpu string CPU (the profile's line of
# tools/testing/vm/profiles) for the project's QEMU (--cpu-model qemu), with
# the profile's PadLock units (docs/hardware.md, CPU profiles) present and
# enabled as QEMU's CPUID feature names.  PADLOCK_QEMU_UNITS replaces the
# units: a variant under test, e.g. "xcrypt,phe,phe-en" for an ACE unit that
# is present but disabled (empty: no unit at all).  Always with
# padlock-strict=on: every test of the project runs the strict model (#GP
# for the rules no document says silicon enforces, the undefined hash area
# and registers scrambled; docs/qemu-model.md).
qemu_model_cpu() {
	local units
	case "$1" in
	c3) units=xstore,xstore-en,xcrypt,xcrypt-en ;;
	c7) units=xstore,xstore-en,xcrypt,xcrypt-en,phe,phe-en ;;
	nano|nano-s2) units=xstore,xstore-en,xcrypt,xcrypt-en,ace2,ace2-en,phe,phe-en ;;
	zhaoxin|zhaoxin-sh)
		units=xstore,xstore-en,xcrypt,xcrypt-en,ace2,ace2-en,phe,phe-en,phe2,phe2-en ;;
	*) units= ;;
	esac
	[ -n "${PADLOCK_QEMU_UNITS+set}" ] && units=$PADLOCK_QEMU_UNITS
	if [ -n "$units" ]; then
		echo "$2,+${units//,/,+},padlock-strict=on"
	else
		echo "$2,padlock-strict=on"
	fi
}

# config_unmet CONFIG FRAGMENT...: the lines of the config fragments that
# the kernel configuration CONFIG (a .config after olddefconfig) lost, one
# per line ("CONFIG_X=y", or "CONFIG_X (wanted off)"); an option asked for
# as a module may have become built in.  Nothing: every line stuck.
config_unmet() {
	local config=$1 l o
	shift
	grep -hE '^(CONFIG_|# CONFIG_)' "$@" | while read -r l; do
		case "$l" in
		"# CONFIG_"*) o=${l#\# }; o=${o%% *}; grep -q "^$o=" "$config" && echo "$o (wanted off)" ;;
		*=m) grep -qx -e "$l" -e "${l%=m}=y" "$config" || echo "$l" ;;
		*) grep -qx "$l" "$config" || echo "$l" ;;
		esac
	done || true
}

# root_need NAME LOG PKG...: install those of the Debian packages PKG... that
# the build root NAME lacks (apt-get's output appended to LOG).
root_need() {
	local name=$1 log=$2 p missing
	shift 2
	missing=$(for p in "$@"; do
		in_chroot "$name" dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii' || echo "$p"
	done | tr '\n' ' ')
	[ -n "${missing// /}" ] || return 0
	echo "${0##*/}: installing ${missing% } in the $name build root"
	in_chroot "$name" apt-get -q -o Acquire::Retries=3 update >> "$log" 2>&1 || true
	# shellcheck disable=SC2086
	in_chroot "$name" apt-get -q -y install $missing >> "$log" 2>&1 ||
		die "installing ${missing% } in the $name build root failed; see $log"
}

# linux_source_version NAME PKG: the version of Debian's kernel source
# package PKG (linux-source-X.Y) that the build root NAME's archive offers.
linux_source_version() {
	local ver
	ver=$(in_chroot "$1" apt-cache policy "$2" | awk '/Candidate:/ { print $2 }')
	[ -n "$ver" ] && [ "$ver" != "(none)" ] || die "$2 is not in the $1 build root's archive."
	echo "$ver"
}

# linux_source_unpack NAME PKG VER DIR LOG: download PKG=VER in the build
# root NAME and unpack its tree (Debian's patches applied) as DIR/PKG, DIR
# being a directory inside the root; a tree there before is removed.
linux_source_unpack() {
	local name=$1 pkg=$2 ver=$3 d=$4 log=$5 root="$CACHE/chroots/$1"
	mkdir -p "$root$d"
	in_chroot "$name" sh -c "cd $d && rm -f ./*.deb && apt-get -q download $pkg=$ver" >> "$log" 2>&1 ||
		die "downloading $pkg $ver failed; see $log"
	rm -rf "${root:?}$d/$pkg" "$root$d/unpack"
	mkdir -p "$root$d/unpack"
	dpkg-deb -x "$root$d/${pkg}_"*.deb "$root$d/unpack"
	tar -xf "$root$d/unpack/usr/src/$pkg.tar.xz" -C "$root$d"
	rm -rf "$root$d/unpack" "$root$d/${pkg}_"*.deb
}
