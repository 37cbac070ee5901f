/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's own AES and SHA drivers, by driver name, for the test
 * modules that compare ours with them (padlock-difftest; tests only, never
 * shipped).  Keyed on the probes of Kbuild that include/padlock-compat.h
 * uses too.  AES: "aes-generic", from 7.0 on (the AES library's
 * prepared-key rework, PADLOCK_HAVE_AES_PREPARED_KEYS) "aes-lib".  SHA and
 * HMAC: "shaN-generic" and the hmac template over it, from ~6.17 on (the
 * SHA library contexts, PADLOCK_HAVE_SHA_LIB_CTX) the library's own
 * "shaN-lib" and "hmac-shaN-lib".  The SHA ones are formats around the
 * hash's name.
 */
#ifndef PADLOCK_TEST_COMPAT_H
#define PADLOCK_TEST_COMPAT_H

#ifdef PADLOCK_HAVE_AES_PREPARED_KEYS
#define PADLOCK_KERNEL_AES_DRIVER	"aes-lib"
#else
#define PADLOCK_KERNEL_AES_DRIVER	"aes-generic"
#endif
#ifdef PADLOCK_HAVE_SHA_LIB_CTX
#define PADLOCK_KERNEL_SHA_DRIVER	"%s-lib"
#define PADLOCK_KERNEL_HMAC_DRIVER	"hmac-%s-lib"
#else
#define PADLOCK_KERNEL_SHA_DRIVER	"%s-generic"
#define PADLOCK_KERNEL_HMAC_DRIVER	"hmac(%s-generic)"
#endif

#endif /* PADLOCK_TEST_COMPAT_H */
