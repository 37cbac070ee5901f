# SPDX-License-Identifier: GPL-2.0
# Shared by tools/kernels/* and tools/vm/run.  Source it; do not run it.

PADLOCK_TOP=${PADLOCK_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
CACHE=${PADLOCK_CACHE:-/var/cache/padlock}

die() { echo "${0##*/}: $*" >&2; exit 1; }

# All kernel aliases of the matrix, in order.
matrix_aliases() {
	grep -v '^#' "$PADLOCK_TOP/tools/kernels/matrix" | awk 'NF { print $1 }'
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

# in_chroot NAME CMD...: run CMD in the build root NAME with /proc mounted.
in_chroot() {
	local root="$CACHE/chroots/$1" rc=0 mounted=0
	shift
	if ! mountpoint -q "$root/proc"; then
		mount -t proc proc "$root/proc" && mounted=1
	fi
	chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
		DEBIAN_FRONTEND=noninteractive LC_ALL=C "$@" || rc=$?
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
	 find include drivers -type f \( -name '*.c' -o -name '*.h' \) | sort)
}
