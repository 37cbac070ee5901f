/* SPDX-License-Identifier: GPL-2.0 */
/*
 * All user-space PadLock inline assembly of the OpenSSL provider (the
 * kernel side has its own, include/padlock-asm.h).  The instructions are
 * emitted as bytes (docs/hardware.md 1.1).  Every asm statement names what
 * the instruction reads, advances and clobbers, and every xcrypt reloads
 * its key and control word in the same statement ("pushf; popf" right
 * before it clears EFLAGS bit 30, docs/hardware.md 1.5): another thread,
 * another context of this process, or the kernel may have loaded a
 * different key since our last instruction.  All six registers an xcrypt
 * names are read-write operands, rBX (key) and rDX (control word) too:
 * which of them survive the instruction is documented for some modes only
 * (docs/hardware.md 1.2, "Registers after XCRYPT").
 *
 * A second "pushf; popf" right after the xcrypt clears bit 30 again, so
 * that no other PadLock user in the process (GnuTLS and libgcrypt skip
 * their reload while the bit is set and their context is the one they used
 * last) runs on the key the provider left in the engine.
 *
 * On x86-64 the "pushf" would write into the 128-byte red zone below the
 * stack pointer that the compiler may be using, so the stack pointer is
 * moved past it first (lea does not touch the flags).
 */
#ifndef PADLOCK_USER_ASM_H
#define PADLOCK_USER_ASM_H

#include <stddef.h>

#ifdef __x86_64__
#define PLU_RELOAD	"lea -128(%%rsp), %%rsp\n\tpushf\n\tpopf\n\t"
#define PLU_RELOAD_END	"\n\tpushf\n\tpopf\n\tlea 128(%%rsp), %%rsp"
#else
#define PLU_RELOAD	"pushf\n\tpopf\n\t"
#define PLU_RELOAD_END	"\n\tpushf\n\tpopf"
#endif

#define PLU_XCRYPT_ECB	".byte 0xf3,0x0f,0xa7,0xc8"
#define PLU_XCRYPT_CBC	".byte 0xf3,0x0f,0xa7,0xd0"
#define PLU_XCRYPT_CTR	".byte 0xf3,0x0f,0xa7,0xd8"
#define PLU_XCRYPT_CFB	".byte 0xf3,0x0f,0xa7,0xe0"
#define PLU_XCRYPT_OFB	".byte 0xf3,0x0f,0xa7,0xe8"
#define PLU_XSHA1	".byte 0xf3,0x0f,0xa6,0xc8"
#define PLU_XSHA256	".byte 0xf3,0x0f,0xa6,0xd0"
#define PLU_XSHA384	".byte 0xf3,0x0f,0xa6,0xd8"
#define PLU_XSHA512	".byte 0xf3,0x0f,0xa6,0xe0"

/*
 * CPUID for the PadLock leaves 0xC0000000 and 0xC0000001.  The leaf is
 * loaded by "mov $leaf, %eax" in the same statement as the cpuid: that is
 * the form tools that emulate the leaves in user space recognise (QEMU's
 * software CPU hides them; padlock-sim answers them at such sites).
 */
#define PLU_DEFINE_CPUID_LEAF(name, leaf)				\
static inline void plu_cpuid_##name(unsigned int r[4])			\
{									\
	unsigned int a, b, c, d;					\
									\
	asm volatile("movl $" #leaf ", %%eax\n\tcpuid"			\
		     : "=a" (a), "=b" (b), "=c" (c), "=d" (d));		\
	r[0] = a;							\
	r[1] = b;							\
	r[2] = c;							\
	r[3] = d;							\
}

PLU_DEFINE_CPUID_LEAF(c0000000, 0xc0000000)
PLU_DEFINE_CPUID_LEAF(c0000001, 0xc0000001)

/* CPUID for the standard and extended leaves (vendor, family, long mode). */
static inline void plu_cpuid(unsigned int leaf, unsigned int r[4])
{
	unsigned int a, b, c, d;

	asm volatile("cpuid"
		     : "=a" (a), "=b" (b), "=c" (c), "=d" (d)
		     : "a" (leaf), "c" (0));
	r[0] = a;
	r[1] = b;
	r[2] = c;
	r[3] = d;
}

/*
 * pushf; popf; REP XCRYPT-ECB (docs/hardware.md 1.2): rSI input, rDI
 * output, rCX 16-byte blocks (all three advance), rDX the 16-byte aligned
 * control word, rBX the key schedule.  rAX is not used by ECB but may come
 * back changed.
 */
static inline void plu_xcrypt_ecb(const void *in, void *out, size_t blocks,
				  const void *cw, const void *key)
{
	unsigned long junk;

	asm volatile(PLU_RELOAD PLU_XCRYPT_ECB PLU_RELOAD_END
		     : "+S" (in), "+D" (out), "+c" (blocks), "=a" (junk),
		       "+d" (cw), "+b" (key)
		     : : "memory", "cc");
}

/*
 * pushf; popf; REP XCRYPT-CBC/CFB/OFB: as ECB, plus rAX the 16-byte IV.
 * Returns the address the instruction leaves in rAX: the chaining value to
 * continue with (the last output block after CBC/CFB encryption, the IV
 * buffer rewritten otherwise, docs/hardware.md 1.2).  Callers copy the next
 * IV from there at once.
 */
#define PLU_DEFINE_XCRYPT_IV(name, op)					\
static inline void *plu_xcrypt_##name(const void *in, void *out,	\
				      size_t blocks, const void *cw,	\
				      const void *key, void *iv)	\
{									\
	asm volatile(PLU_RELOAD op PLU_RELOAD_END			\
		     : "+S" (in), "+D" (out), "+c" (blocks), "+a" (iv),	\
		       "+d" (cw), "+b" (key)				\
		     : : "memory", "cc");					\
	return iv;							\
}

PLU_DEFINE_XCRYPT_IV(cbc, PLU_XCRYPT_CBC)
PLU_DEFINE_XCRYPT_IV(cfb, PLU_XCRYPT_CFB)
PLU_DEFINE_XCRYPT_IV(ofb, PLU_XCRYPT_OFB)

/*
 * pushf; popf; REP XCRYPT-CTR (ACE2): rAX the 16-byte counter block, which
 * the engine increments in memory, low 16 bits only (docs/hardware.md 1.2).
 */
static inline void plu_xcrypt_ctr(const void *in, void *out, size_t blocks,
				  const void *cw, const void *key, void *ctr)
{
	asm volatile(PLU_RELOAD PLU_XCRYPT_CTR PLU_RELOAD_END
		     : "+S" (in), "+D" (out), "+c" (blocks), "+a" (ctr),
		       "+d" (cw), "+b" (key)
		     : : "memory", "cc");
}

/*
 * REP XSHA* in block mode (Nano, Zhaoxin; docs/hardware.md 1.7): rAX = -1,
 * rCX whole blocks at rSI, rDI the 16-byte aligned state area (128 bytes
 * on VIA).  rAX, rCX, rSI and rDI are treated as changed.
 */
#define PLU_DEFINE_XSHA_BLOCKS(name, op)				\
static inline void plu_##name##_blocks(const void *in, void *state,	\
				       size_t blocks)			\
{									\
	unsigned long mode = ~0UL;					\
									\
	asm volatile(op							\
		     : "+S" (in), "+D" (state), "+a" (mode),		\
		       "+c" (blocks)					\
		     : : "memory", "cc");				\
}

PLU_DEFINE_XSHA_BLOCKS(xsha1, PLU_XSHA1)
PLU_DEFINE_XSHA_BLOCKS(xsha256, PLU_XSHA256)
PLU_DEFINE_XSHA_BLOCKS(xsha384, PLU_XSHA384)
PLU_DEFINE_XSHA_BLOCKS(xsha512, PLU_XSHA512)

/*
 * An empty statement the compiler must assume reads and changes v: masks
 * built from secret data pass through it, so that the compiler cannot
 * prove them all-ones or all-zeroes and turn their use back into a branch.
 */
static inline size_t plu_value_barrier(size_t v)
{
	asm("" : "+r" (v));
	return v;
}

#endif /* PADLOCK_USER_ASM_H */
