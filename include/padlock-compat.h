/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API differences between Linux 5.10 and 7.x, in one place.
 *
 * Force-included into every source file by Kbuild (-include), so the module
 * sources never test kernel versions themselves.  Where distributions
 * backport an API, Kbuild probes the kernel's headers and passes
 * PADLOCK_HAVE_* defines (see Kbuild); plain version checks are used only
 * for changes that nobody backports.
 *
 * Sections are keyed on what changed, oldest first.
 */
#ifndef PADLOCK_COMPAT_H
#define PADLOCK_COMPAT_H

/* One log prefix for every module of the project: the module's name. */
#ifndef pr_fmt
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#endif

#include <linux/version.h>
#include <linux/module.h>

/* ---- supported range -------------------------------------------------- */

/*
 * A kernel newer than the newest tested one gets a make-time warning from
 * Kbuild, not a #warning here: CONFIG_WERROR=y would turn that into an error
 * and break the DKMS build on exactly that kernel.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 10, 0)
#error "padlock supports Linux 5.10 and later"
#endif

/*
 * Headers that older kernels lack (<crypto/sha2.h>, <linux/unaligned.h>,
 * <crypto/internal/cipher.h>) are stand-ins in include/compat/, which
 * Kbuild puts on the include path after the kernel's own: the drivers
 * include them by their mainline names.
 */

/*
 * 6.13: MODULE_IMPORT_NS() takes a string literal, as the drivers write it
 * ("CRYPTO_INTERNAL"); before, it took a bare token and quoted it itself.
 * Kbuild probes include/linux/module.h (PADLOCK_HAVE_IMPORT_NS_STRING).
 * Kernels before 5.12 have no CRYPTO_INTERNAL namespace; importing one that
 * nothing exports is only a modinfo tag there.
 */
#ifndef PADLOCK_HAVE_IMPORT_NS_STRING
#undef MODULE_IMPORT_NS
#define MODULE_IMPORT_NS(ns)	MODULE_INFO(import_ns, ns)
#endif

/*
 * The generic SHA drivers' exported state, which padlock-sha's export and
 * import follow byte for byte (padlock-hashtest checks it, corrupted states
 * included).  padlock-sha keeps the count of hashed bytes and the buffered
 * length apart, with the layout of the newest kernels: struct shaN_state
 * (words, count, block buffer) and one length byte.  What older kernels do
 * differently:
 *
 *  - before ~6.15 (neither probe below): the plain struct shaN_state, whose
 *    count includes the buffered bytes, and no length byte
 *    (PADLOCK_SHA_STATE_TOTAL);
 *  - 6.15/6.16, the block-only shash API (include/crypto/internal/hash.h
 *    has CRYPTO_AHASH_ALG_BLOCK_ONLY, include/crypto/sha2.h no library
 *    context yet): the same layout as now, but the API takes the count as
 *    it is and refuses a length above the block size with -EOVERFLOW
 *    (PADLOCK_SHA_IMPORT_STRICT);
 *  - ~6.17 on (PADLOCK_HAVE_SHA_LIB_CTX): the generic drivers wrap the SHA
 *    library, whose import adds the length byte to the count, whatever
 *    either holds.
 */
#if !defined(PADLOCK_HAVE_SHA_LIB_CTX) && !defined(PADLOCK_HAVE_SHASH_BLOCK_ONLY)
#define PADLOCK_SHA_STATE_TOTAL		1
#else
#define PADLOCK_SHA_STATE_TOTAL		0
#endif
#if defined(PADLOCK_HAVE_SHASH_BLOCK_ONLY) && !defined(PADLOCK_HAVE_SHA_LIB_CTX)
#define PADLOCK_SHA_IMPORT_STRICT	1
#else
#define PADLOCK_SHA_IMPORT_STRICT	0
#endif

/*
 * 5.18: the hmac template refuses keys shorter than 112 bits with -EINVAL
 * when the kernel runs in FIPS mode (fips_enabled).  hmac-*-padlock
 * replaces the driver the kernel would otherwise give for hmac(shaN), so it
 * refuses the same keys there: the template until ~6.17, where the SHA
 * library's hmac-shaN-lib drivers take over hmac(shaN) (the same probe as
 * its contexts, PADLOCK_HAVE_SHA_LIB_CTX); they take a key of any length,
 * and the crypto manager compares ours with them.  The check is in
 * crypto/hmac.c, which no header shows: a version test.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 18, 0) && !defined(PADLOCK_HAVE_SHA_LIB_CTX)
#define PADLOCK_HMAC_FIPS_KEY_CHECK	1
#else
#define PADLOCK_HMAC_FIPS_KEY_CHECK	0
#endif
/* NIST SP 800-131A: the shortest HMAC key, in bytes, as crypto/hmac.c has it */
#define PADLOCK_HMAC_FIPS_MIN_KEYLEN	(112 / 8)

/*
 * 6.7: the cfb and ofb templates were removed.  padlock-aes registers
 * cfb(aes)/ofb(aes) only where the kernel still has them (Kbuild looks at
 * the kernel's configuration: PADLOCK_HAVE_CFB_OFB_TEMPLATES).
 */
#ifdef PADLOCK_HAVE_CFB_OFB_TEMPLATES
#define PADLOCK_CFB_OFB	1
#endif

/*
 * 7.0: the kernel's single-block "aes" is "aes-lib" (priority 100), a
 * wrapper around the AES library, which runs on AES-NI where the CPU has
 * it; the "aes-aesni" cipher (priority 300) is gone.  Before, "aes-aesni"
 * was the AES-NI one and "aes-generic" (100) the C one.  padlock-aes ranks
 * its single-block "aes" below whichever runs on AES-NI (padlock-cpu.h).
 * Kbuild probes include/crypto/aes.h for the library's prepared-key API of
 * that rework (PADLOCK_HAVE_AES_PREPARED_KEYS).
 */
#ifdef PADLOCK_HAVE_AES_PREPARED_KEYS
#define PADLOCK_KERNEL_AES_AESNI_PRIORITY	100
#else
#define PADLOCK_KERNEL_AES_AESNI_PRIORITY	300
#endif

/*
 * ~6.17: shash ->export_core()/->import_core(), the state without the
 * partial block.  The hmac template only accepts hashes that have them
 * (Kbuild probes include/crypto/hash.h: PADLOCK_HAVE_SHASH_EXPORT_CORE).
 */
struct shash_alg;
struct shash_desc;
typedef int (*padlock_shash_export_t)(struct shash_desc *desc, void *out);
typedef int (*padlock_shash_import_t)(struct shash_desc *desc, const void *in);

#ifdef PADLOCK_HAVE_SHASH_EXPORT_CORE
#include <crypto/hash.h>

static inline void padlock_shash_set_export_core(struct shash_alg *alg,
						 padlock_shash_export_t exp,
						 padlock_shash_import_t imp)
{
	alg->export_core = exp;
	alg->import_core = imp;
}
#else
static inline void padlock_shash_set_export_core(struct shash_alg *alg,
						 padlock_shash_export_t exp,
						 padlock_shash_import_t imp)
{
}
#endif

#endif /* PADLOCK_COMPAT_H */
