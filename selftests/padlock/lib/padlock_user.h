/* SPDX-License-Identifier: GPL-2.0 */
/*
 * include/padlock-asm.h for the user-space test helpers (sim_user.c,
 * xcheck_exec.c): what it expects from a user-space includer, then the
 * header itself.  Build with -I include.
 */
#ifndef PADLOCK_USER_H
#define PADLOCK_USER_H

#include <stdint.h>

typedef uint8_t u8;
typedef uint32_t u32;
#undef __always_inline
#define __always_inline inline __attribute__((__always_inline__))
#define __aligned(x) __attribute__((__aligned__(x)))
#include "padlock-asm.h"

#endif /* PADLOCK_USER_H */
