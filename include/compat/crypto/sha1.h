/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stand-in for <crypto/sha1.h> on kernels before 5.11, where the SHA-1
 * and SHA-2 definitions shared <crypto/sha.h> (include/compat/README).
 */
#ifndef PADLOCK_COMPAT_CRYPTO_SHA1_H
#define PADLOCK_COMPAT_CRYPTO_SHA1_H
#include <crypto/sha.h>
#endif
