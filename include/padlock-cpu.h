/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPU feature helpers shared by the PadLock drivers (not by padlock-sim,
 * which has its own model of the CPU).
 *
 * Every PadLock unit has a "present" and an "enabled" CPUID bit (leaf
 * 0xC0000001 EDX, kernel capability word 5); a unit is usable only when
 * both are set (facts 3.1).
 */
#ifndef PADLOCK_CPU_H
#define PADLOCK_CPU_H

#include <linux/types.h>
#include <asm/cpufeature.h>
#include <asm/processor.h>

/* Family 7 and later: Zhaoxin (vendor "CentaurHauls" or "  Shanghai  "). */
static inline bool padlock_cpu_is_zhaoxin(void)
{
	return boot_cpu_data.x86 >= 7;
}

static inline bool padlock_cpu_has_ace(void)
{
	return boot_cpu_has(X86_FEATURE_XCRYPT) &&
	       boot_cpu_has(X86_FEATURE_XCRYPT_EN);
}

static inline bool padlock_cpu_has_ace2(void)
{
	return boot_cpu_has(X86_FEATURE_ACE2) &&
	       boot_cpu_has(X86_FEATURE_ACE2_EN);
}

static inline bool padlock_cpu_has_phe(void)
{
	return boot_cpu_has(X86_FEATURE_PHE) &&
	       boot_cpu_has(X86_FEATURE_PHE_EN);
}

static inline bool padlock_cpu_has_rng(void)
{
	return boot_cpu_has(X86_FEATURE_XSTORE) &&
	       boot_cpu_has(X86_FEATURE_XSTORE_EN);
}

/*
 * PHE2 (SHA-384/512, Zhaoxin): bits 25/26 of CPUID 0xC0000001 EDX.  No
 * kernel up to 7.2 names them, but the kernel copies that whole register
 * into capability word 5 (centaur.c, zhaoxin.c), so the bits are there.
 */
#define PADLOCK_FEATURE_PHE2	(5 * 32 + 25)
#define PADLOCK_FEATURE_PHE2_EN	(5 * 32 + 26)

static inline bool padlock_cpu_has_phe2(void)
{
	return boot_cpu_has(PADLOCK_FEATURE_PHE2) &&
	       boot_cpu_has(PADLOCK_FEATURE_PHE2_EN);
}

/* VIA Nano (family 6, model 15) and everything after it, Zhaoxin included. */
static inline bool padlock_cpu_is_nano_or_later(void)
{
	return boot_cpu_data.x86 > 6 ||
	       (boot_cpu_data.x86 == 6 && boot_cpu_data.x86_model >= 0x0f);
}

/*
 * Number of 16-byte blocks the ACE engine reads per ECB / CBC instruction
 * (facts 2.2): the engine fetches this many blocks at a time, so an
 * instruction whose block count is not a multiple of it reads up to
 * (n - 1) blocks past the end of its input.  VIA Nano stepping 2 has the
 * prefetch erratum with 8 (ECB) and 4 (CBC) blocks.
 */
static inline bool padlock_cpu_nano_stepping2(void)
{
	return boot_cpu_data.x86 == 6 && boot_cpu_data.x86_model == 0x0f &&
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

#endif /* PADLOCK_CPU_H */
