#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# DKMS: `make dkms-install` builds and installs the drivers under
# updates/dkms of the booted kernel, modprobe then picks that copy over the
# in-tree module of the same name, and `make dkms-uninstall` undoes it.
# Runs in the kernel's Debian build root (its headers and compiler), seen
# from inside the VM; the VM's writes are thrown away afterwards.
# Compiling under software emulation is slow (~10-15 minutes for the three
# modules), so only make check-long runs it (6.1/nano, sid/nano, 6.1-686/c7).
. "$(dirname "$0")/lib/ktap-lib.sh"

ktap_header
# make check proves the DKMS packaging without a VM (packaging/deb --check builds
# the packaged sources with dkms.conf's own make line); the install into a
# booted kernel, 12-15 minutes of TCG compiling, runs in make check-long on
# the VMs the plan (tools/testing/kernels/matrix) names.

if [ "$PADLOCK_ARCH" = i386 ]; then
	# the 32-bit guest's root is the build root itself
	root=/
	run() { "$@"; }
else
	root=$PADLOCK_CHROOT
	[ -d "$root/usr/src" ] || ktap_skip_all "build root $root not visible in the guest"
	mkdir -p "$root/padlock-src"
	mount --bind "$PADLOCK_TOP" "$root/padlock-src"
	mount -t proc proc "$root/proc"
	mount --bind /dev "$root/dev"
	mount --bind /sys "$root/sys"
	trap 'umount "$root/sys" "$root/dev" "$root/proc" "$root/padlock-src" 2>/dev/null' EXIT
	run() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "$@"; }
fi
src=/padlock-src
[ "$root" = / ] && src=$PADLOCK_TOP
ver=$(cat "$PADLOCK_TOP/VERSION")

intree=$(modinfo -n padlock-aes 2>/dev/null)
ktap_diag "before: modinfo -n padlock-aes = ${intree:-none}"

if out=$(run make -C "$src" dkms-install KVER="$PADLOCK_KVER" 2>&1); then
	ktap_pass "make dkms-install for $PADLOCK_KVER"
else
	ktap_diag "$(echo "$out" | tail -n 25)"
	ktap_fail "make dkms-install for $PADLOCK_KVER"
fi
st=$(run dkms status -m padlock -v "$ver" -k "$PADLOCK_KVER" 2>&1)
ktap_diag "dkms status: $st"
case "$st" in
*installed*) ktap_pass "dkms status says installed" ;;
*) ktap_fail "dkms status says installed" ;;
esac

for m in padlock-aes padlock-sha padlock-rng; do
	p=$(modinfo -n "$m" 2>/dev/null)
	case "$p" in
	*/updates/dkms/*) ktap_pass "modinfo -n $m picks the updates/ copy" ;;
	*) ktap_diag "modinfo -n $m: ${p:-not found}"; ktap_fail "modinfo -n $m picks the updates/ copy" ;;
	esac
done

# modprobe loads that copy (the simulated CPU has ACE on both profiles)
padlock_rmmod padlock-aes
if modprobe padlock-aes 2>/dev/null; then
	want=$(modinfo -F srcversion "$(modinfo -n padlock-aes)")
	have=$(cat /sys/module/padlock_aes/srcversion 2>/dev/null)
	if [ -n "$want" ] && [ "$want" = "$have" ]; then
		ktap_pass "modprobe padlock-aes loads the DKMS build"
	else
		ktap_diag "srcversion loaded $have, updates/ copy $want"
		ktap_fail "modprobe padlock-aes loads the DKMS build"
	fi
	padlock_rmmod padlock-aes
else
	ktap_fail "modprobe padlock-aes loads the DKMS build"
fi
if [ -e "$root/etc/modprobe.d/padlock-blacklist-via-rng.conf" ]; then
	ktap_pass "modprobe.d file installed"
else
	ktap_fail "modprobe.d file installed"
fi

if out=$(run make -C "$src" dkms-uninstall KVER="$PADLOCK_KVER" 2>&1); then
	ktap_pass "make dkms-uninstall"
else
	ktap_diag "$(echo "$out" | tail -n 15)"
	ktap_fail "make dkms-uninstall"
fi
after=$(modinfo -n padlock-aes 2>/dev/null)
if [ "$after" = "$intree" ] && [ ! -e "$root/etc/modprobe.d/padlock-blacklist-via-rng.conf" ]; then
	ktap_pass "after uninstall modprobe sees the in-tree module again"
else
	ktap_diag "after: ${after:-none}"
	ktap_fail "after uninstall modprobe sees the in-tree module again"
fi
ktap_finish
