/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test instruments' PadLock asm (drivers/test/padlock-test-asm.h, its
 * user-space form) for the user-space test helpers (sim_user.c,
 * xcheck_exec.c), with the kernel's short type names they use.  Build
 * with -I drivers/test.
 */
#ifndef PADLOCK_USER_H
#define PADLOCK_USER_H

#include <stdint.h>

typedef uint8_t u8;
typedef uint32_t u32;
#include "padlock-test-asm.h"

#endif /* PADLOCK_USER_H */
