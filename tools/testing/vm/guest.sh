#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the guest (started by tools/testing/vm/run): load padlock-sim, run the
# command, leave its output, the kernel log and the exit status in $1.
out=$1
. "$out/env"
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
cd "$PADLOCK_TOP" || exit 1

mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
# virtme-ng hides the host's /var/cache behind a tmpfs; the kernel's module
# tree and the build roots live in the project's cache there.  Without the
# tmpfs, /var/cache is part of virtme's throw-away /var overlay.
if [ ! -d "$PADLOCK_CACHE" ] && mountpoint -q /var/cache; then
	umount /var/cache
fi
mountpoint -q /proc || mount -t proc proc /proc
# for tools/testing/check's boot watchdog: the guest got this far (console log)
echo "padlock-vm: guest command starting" > /dev/kmsg 2> /dev/null
# kmemleak (debug kernel): forget what boot left behind, so that a leak
# reported at the end (final.sh) happened during the run.
[ -w /sys/kernel/debug/kmemleak ] && echo clear > /sys/kernel/debug/kmemleak

rc=0
{
	echo "# guest: $(uname -r) $(uname -m), profile $PADLOCK_PROFILE, $(grep -c ^processor /proc/cpuinfo) CPUs, uptime $(cut -d' ' -f1 /proc/uptime)s"
	# with --cpu-model qemu the emulated CPU has the PadLock units itself
	if [ "$PADLOCK_PROFILE" != none ] && [ "${PADLOCK_CPU_MODEL:-sim}" != qemu ]; then
		# shellcheck disable=SC2086
		if ! insmod "$PADLOCK_KO_DIR/padlock-sim.ko" profile="$PADLOCK_PROFILE" $PADLOCK_SIM_ARGS; then
			echo "# guest: padlock-sim did not load; kernel log:"
			dmesg | tail -n 20 | sed 's/^/# /'
			rc=125
		fi
	fi
} > "$out/output" 2>&1

# $out/argv: the command's arguments, each NUL-terminated (tools/testing/vm/run);
# bash reads them back as they were, no shell re-parses them.
if [ $rc = 0 ]; then
	# shellcheck disable=SC2016
	bash -c 'mapfile -d "" -t argv < "$1" && exec "${argv[@]}"' guest-cmd "$out/argv" \
		>> "$out/output" 2>&1 < /dev/null || rc=$?
fi
dmesg > "$out/dmesg" 2>/dev/null
echo $rc > "$out/rc"
sync
exit $rc
