/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPU feature helpers shared by the PadLock drivers.
 *
 * Every PadLock unit has a "present" and an "enabled" CPUID bit (leaf
 * 0xC0000001 EDX, kernel capability word 5); a unit is usable only when
 * both are set (docs/hardware.md 3.1).
 *
 * Which code path a driver takes is decided from the vendor, the family
 * (with model and stepping where Linux itself needs them) and these
 * capability bits, never from the family alone (docs/hardware.md 3.2):
 *
 *  - VIA: vendor "CentaurHauls", family 6.  C3 Nehemiah model 9, C7
 *    Esther model 10 (both 32-bit only), Nano model 0x0f stepping < 0x0e.
 *  - Zhaoxin: vendor "CentaurHauls" or "  Shanghai  ", family 7, or
 *    family 6 for the older ZX-C (model 0x0f stepping 0x0e/0x0f, or model
 *    0x19: the split Linux's own Zhaoxin PMU driver makes between Nano and
 *    ZX-C).  "  Shanghai  " is X86_VENDOR_ZHAOXIN, which every kernel from
 *    5.2 on has (5.10 ... 7.x here); the kernel fills capability word 5 for
 *    both vendors (centaur.c, zhaoxin.c).  Only Zhaoxin has PHE2.
 */
#ifndef PADLOCK_CPU_H
#define PADLOCK_CPU_H

#include <linux/types.h>
#include <linux/printk.h>
#include <linux/errno.h>
#include <asm/cpufeature.h>
#include <asm/processor.h>

/*
 * PHE2 (SHA-384/512, Zhaoxin): bits 25/26 of CPUID 0xC0000001 EDX.  No
 * kernel up to 7.2 names them, but the kernel copies that whole register
 * into capability word 5 (centaur.c, zhaoxin.c), so the bits are there.
 */
#define PADLOCK_FEATURE_PHE2	(5 * 32 + 25)
#define PADLOCK_FEATURE_PHE2_EN	(5 * 32 + 26)

/* padlock_cpu_has_UNIT(): the unit's "present" and "enabled" bits are set. */
#define PADLOCK_CPU_HAS_UNIT(unit, present, enabled)			\
static inline bool padlock_cpu_has_##unit(void)				\
{									\
	return boot_cpu_has(present) && boot_cpu_has(enabled);		\
}

PADLOCK_CPU_HAS_UNIT(ace, X86_FEATURE_XCRYPT, X86_FEATURE_XCRYPT_EN)
PADLOCK_CPU_HAS_UNIT(ace2, X86_FEATURE_ACE2, X86_FEATURE_ACE2_EN)
PADLOCK_CPU_HAS_UNIT(phe, X86_FEATURE_PHE, X86_FEATURE_PHE_EN)
PADLOCK_CPU_HAS_UNIT(phe2, PADLOCK_FEATURE_PHE2, PADLOCK_FEATURE_PHE2_EN)
PADLOCK_CPU_HAS_UNIT(rng, X86_FEATURE_XSTORE, X86_FEATURE_XSTORE_EN)

/*
 * A driver whose unit is not usable refuses with -ENODEV.  Where the CPU
 * lacks the unit (its "present" bit is clear: every non-VIA/Zhaoxin CPU)
 * the refusal is silent, as the kernel's own CPU-instruction drivers are:
 * the x86cpu modalias keeps udev from loading us there, and the crypto
 * API's module requests ("crypto-xts(aes)", ...) load every module with a
 * matching alias, on any x86 machine.  A unit that is present but disabled
 * (present bit without enabled bit: switched off by the firmware) gets one
 * line, since that machine has PadLock and its owner may wonder why it is
 * not used.
 */
static inline int padlock_cpu_refuse(unsigned int present, const char *unit)
{
	if (boot_cpu_has(present))
		pr_info("PadLock %s unit present but disabled (CPUID 0xC0000001 EDX): not registering\n",
			unit);
	return -ENODEV;
}

/* AES-NI (CPUID 1 ECX bit 25): Zhaoxin parts have it next to PadLock ACE. */
static inline bool padlock_cpu_has_aesni(void)
{
	return boot_cpu_has(X86_FEATURE_AES);
}

/* Vendor "CentaurHauls", family 6: a VIA part or an older Zhaoxin ZX-C. */
static inline bool padlock_cpu_centaur_family6(void)
{
	return boot_cpu_data.x86_vendor == X86_VENDOR_CENTAUR &&
	       boot_cpu_data.x86 == 6;
}

/* Zhaoxin, whichever vendor string it reports (see the top of the file). */
static inline bool padlock_cpu_is_zhaoxin(void)
{
	const struct cpuinfo_x86 *c = &boot_cpu_data;

	if (c->x86_vendor == X86_VENDOR_ZHAOXIN)
		return true;
	if (c->x86_vendor != X86_VENDOR_CENTAUR)
		return false;
	if (c->x86 >= 7 || padlock_cpu_has_phe2())
		return true;
	return c->x86 == 6 &&
	       ((c->x86_model == 0x0f && c->x86_stepping >= 0x0e) ||
		c->x86_model == 0x19);
}

/*
 * VIA C3 / C7 (family 6, model < 0x0f): 32-bit only, RNG configured
 * through MSR 0x110B, PHE (C7) in final mode only.
 */
static inline bool padlock_cpu_is_via_c3_c7(void)
{
	return padlock_cpu_centaur_family6() && boot_cpu_data.x86_model < 0x0f;
}

/* VIA Nano (family 6, model 0x0f) and everything after it, Zhaoxin included. */
static inline bool padlock_cpu_is_nano_or_later(void)
{
	return padlock_cpu_is_zhaoxin() ||
	       (padlock_cpu_centaur_family6() && boot_cpu_data.x86_model >= 0x0f);
}

/*
 * Hardware CTR (rep xcrypt-ctr, ACE2) only where it is known to work: the
 * ACE2 bits, on a 64-bit capable part, i.e. VIA Nano or Zhaoxin (also when
 * a 32-bit kernel runs there).  OpenSSL's 32-bit code never uses it:
 * "hardware CTR was introduced later and even has errata on certain C7
 * stepping"; its x86_64 code always does ("all 64-bit CPUs have working
 * CTR") (docs/hardware.md 1.2, 3.2).  Elsewhere CTR is built on ECB.
 */
static inline bool padlock_cpu_ctr_sound(void)
{
	return padlock_cpu_has_ace2() && padlock_cpu_is_nano_or_later() &&
	       boot_cpu_has(X86_FEATURE_LM);
}

/*
 * Number of 16-byte blocks the ACE engine reads per ECB / CBC instruction
 * (docs/hardware.md 2.2): the engine fetches this many blocks at a time, so an
 * instruction whose block count is not a multiple of it reads up to
 * (n - 1) blocks past the end of its input.  VIA Nano stepping 2 has the
 * prefetch erratum with 8 (ECB) and 4 (CBC) blocks.
 */
static inline bool padlock_cpu_nano_stepping2(void)
{
	return padlock_cpu_centaur_family6() &&
	       boot_cpu_data.x86_model == 0x0f &&
	       boot_cpu_data.x86_stepping == 2;
}

static inline unsigned int padlock_cpu_ecb_fetch_blocks(void)
{
	return padlock_cpu_nano_stepping2() ? 8 : 2;
}

static inline unsigned int padlock_cpu_cbc_fetch_blocks(void)
{
	return padlock_cpu_nano_stepping2() ? 4 : 1;
}

/*
 * Crypto priority of padlock-aes's skciphers.  Without AES-NI: 450, above
 * every other AES driver (aesni 400/401 never loads there, software ones
 * are 100-300), so the kernel picks PadLock; the single-block "aes" gets
 * 350.  On a CPU that also has AES-NI (Zhaoxin): 350, below the aesni
 * skciphers (400, xts 401) and above every software one, so the kernel
 * prefers AES-NI, as OpenSSL and libgcrypt do there; no published
 * measurement shows PadLock ahead of AES-NI on those parts.  The
 * single-block "aes" then goes 50 below the kernel's own AES-NI-backed
 * cipher (PADLOCK_KERNEL_AES_AESNI_PRIORITY: "aes-aesni", or from 7.0 on
 * "aes-lib" on the AES library).  The "priority" module parameter (> 0)
 * sets the skciphers' priority; the single-block "aes" gets 100 less.
 */
#define PADLOCK_AES_PRIORITY		450
#define PADLOCK_AES_PRIORITY_AESNI	350
#define PADLOCK_AES_CIPHER_BELOW_AESNI	50

static inline int padlock_cpu_aes_priority(int param)
{
	if (param > 0)
		return param;
	if (!padlock_cpu_has_aesni())
		return PADLOCK_AES_PRIORITY;
	pr_info("CPU also has AES-NI: priority %d (aes %d), below the kernel's AES-NI drivers, so the kernel prefers AES-NI (priority=%d prefers PadLock)\n",
		PADLOCK_AES_PRIORITY_AESNI,
		PADLOCK_KERNEL_AES_AESNI_PRIORITY - PADLOCK_AES_CIPHER_BELOW_AESNI,
		PADLOCK_AES_PRIORITY);
	return PADLOCK_AES_PRIORITY_AESNI;
}

/* The single-block "aes" for a skcipher priority of @prio (see above). */
static inline int padlock_cpu_aes_cipher_priority(int param, int prio)
{
	if (param <= 0 && padlock_cpu_has_aesni())
		return PADLOCK_KERNEL_AES_AESNI_PRIORITY - PADLOCK_AES_CIPHER_BELOW_AESNI;
	return prio > 100 ? prio - 100 : 1;
}

/*
 * Crypto priority of padlock-sha's hashes; each hmac driver gets one more,
 * above the hmac template over our own hash.  Without SHA-NI: 400, above
 * every other SHA driver (the kernel's x86 ones 150-250, the SHA library's
 * shaN-lib 300).  On a CPU that also has SHA-NI (some Zhaoxin parts),
 * SHA-1, SHA-224 and SHA-256 go to 248 (hmac 249): below the lowest
 * priority at which any kernel of the range registers its SHA-NI-backed
 * driver (sha1-ni, sha256-ni 250 before the SHA library; sha256-x86_64,
 * shaN-lib 300 after it), above its AVX2/SSSE3 ones (150-170).  The cost
 * model (tools/padlock-bench/cpu-models.conf, kx7000) puts XSHA256 at 474
 * cycles per instruction plus 3.31 per byte: 10.7 cycles per byte for a
 * 64-byte block, 3.43 at 4 KiB; SHA-NI runs in the core with no such
 * start-up, and Linux's own SHA-256 library uses XSHA256 only on Zhaoxin
 * CPUs without SHA-NI.  SHA-384/512 have no SHA-NI counterpart: 400.  The
 * "priority" module parameter (> 0) sets every hash's priority.
 */
#define PADLOCK_SHA_PRIORITY		400
#define PADLOCK_SHA_PRIORITY_SHA_NI	248

static inline bool padlock_cpu_has_sha_ni(void)
{
	return boot_cpu_has(X86_FEATURE_SHA_NI);
}

/* @sha_ni_alg: SHA-1, SHA-224 or SHA-256, which SHA-NI computes */
static inline int padlock_cpu_sha_priority(int param, bool sha_ni_alg)
{
	if (param > 0)
		return param;
	if (sha_ni_alg && padlock_cpu_has_sha_ni())
		return PADLOCK_SHA_PRIORITY_SHA_NI;
	return PADLOCK_SHA_PRIORITY;
}

#endif /* PADLOCK_CPU_H */
