/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stand-in for <crypto/internal/cipher.h> on kernels before 5.12, where the
 * single-block cipher API was public, in <linux/crypto.h>
 * (include/compat/README).
 */
#ifndef PADLOCK_COMPAT_CRYPTO_INTERNAL_CIPHER_H
#define PADLOCK_COMPAT_CRYPTO_INTERNAL_CIPHER_H
#include <linux/crypto.h>
#endif
