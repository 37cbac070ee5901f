/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stand-in for <linux/unaligned.h> on kernels before 6.12, where the
 * unaligned access helpers were <asm/unaligned.h> (include/compat/README).
 */
#ifndef PADLOCK_COMPAT_LINUX_UNALIGNED_H
#define PADLOCK_COMPAT_LINUX_UNALIGNED_H
#include <asm/unaligned.h>
#endif
