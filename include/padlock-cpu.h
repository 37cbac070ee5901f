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
#include <linux/string.h>
#include <linux/kernel.h>
#include <asm/cpufeature.h>
#include <asm/processor.h>

#include "padlock-asm.h"

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
 * PHE2 (SHA-384/512, Zhaoxin): capability bits 25/26 of the same leaf.
 * No kernel up to 7.2 names them in its capability words, so CPUID is asked
 * directly; where that says no on a Zhaoxin CPU with PHE, one XSHA512 block
 * is executed under an exception-table fixup and its result checked
 * against the known digest (SHA-512 of the empty message, first word).
 * Call from process context.
 */
static inline bool padlock_cpu_has_phe2(void)
{
	const u32 both = (1U << 25) | (1U << 26);
	u8 buf[128 + 256 + 15];
	u64 *st = PTR_ALIGN((u64 *)(buf + 128), 16);
	u8 *blk = buf;
	bool ok;

	if (cpuid_eax(0xC0000000) >= 0xC0000001 &&
	    (cpuid_edx(0xC0000001) & both) == both)
		return true;
	if (!padlock_cpu_is_zhaoxin() || !padlock_cpu_has_phe())
		return false;

	/* The padded empty message: 0x80, zeros, a 128-bit length of 0. */
	memset(blk, 0, 128);
	blk[0] = 0x80;
	st[0] = 0x6a09e667f3bcc908ULL; st[1] = 0xbb67ae8584caa73bULL;
	st[2] = 0x3c6ef372fe94f82bULL; st[3] = 0xa54ff53a5f1d36f1ULL;
	st[4] = 0x510e527fade682d1ULL; st[5] = 0x9b05688c2b3e6c1fULL;
	st[6] = 0x1f83d9abfb41bd6bULL; st[7] = 0x5be0cd19137e2179ULL;
	ok = padlock_xsha512_probe(blk, st) && st[0] == 0xcf83e1357eefb8bdULL;
	memzero_explicit(buf, sizeof(buf));
	return ok;
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
