#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs in the debug-kernel VM (tools/testing/debug/check): arm two deliberate faults,
# then run the lane's own checks, which must report both.
#  - padlock-sim flips one bit of the next AES block an xcrypt stores, so
#    the first self-test of padlock-aes (aes-padlock) fails;
#  - padlock-simtest writes one byte past a 64-byte allocation (KASAN).
set -e
echo 1 > /sys/kernel/debug/padlock-sim/fault_corrupt_xcrypt
insmod "$PADLOCK_KO_DIR/padlock-simtest.ko"
echo 1 > /sys/kernel/debug/padlock-simtest/kasan_oob
rmmod padlock_simtest
exec selftests/padlock/run_tests.sh fuzz.sh final.sh
