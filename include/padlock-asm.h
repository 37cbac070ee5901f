/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The PadLock asm of the drivers: the only place in what ships (the
 * drivers and their DKMS sources) that emits PadLock instructions, each
 * encoding written once.  Kernel code only.
 *
 * Every wrapper states, in its asm operands, exactly what the instruction
 * reads ("input"), what it advances or rewrites ("+" operands) and what it
 * leaves undefined ("=" dummies).  Nothing here assumes that a register the
 * instruction names still holds its old value afterwards: an xcrypt names
 * all six of rAX, rBX, rCX, rDX, rSI and rDI, so all six are "+" operands,
 * also rBX (key) and rDX (control word), which no source documents for
 * every mode (docs/hardware.md 1.2, "Registers after XCRYPT").  That costs
 * a register move before each instruction; relying on them instead would
 * let the compiler keep the key pointer in rBX from one instruction to the
 * next, which silicon-tested code does only for ECB and CBC.  Registers the
 * instruction does not name (r8-r15, rBP) are the compiler's as usual.
 *
 * REP-prefixed PadLock instructions are interruptible: on an interrupt the
 * CPU saves the progress in rSI/rDI/rCX (and the IV / hash state in memory)
 * and re-executes the instruction afterwards.  That only works when the
 * compiler has been told that those registers change, which is why every
 * count register is a "+c" operand and never a plain input.
 *
 * The key cache (docs/hardware.md 1.5): while EFLAGS bit 30 is set, the ACE engine
 * reuses the key and control word it loaded last, whatever rBX/rDX say now.
 * Only loading EFLAGS (popf, iret, sysret) clears the bit; entering the
 * kernel (syscall, sysenter, int 0x80, interrupts) does not.  So a task that
 * ran xcrypt in user space reaches the kernel with the engine holding the
 * user's key, and kernel code preempted or interrupted between a check and
 * its xcrypt cannot know what the engine holds.  Therefore every xcrypt
 * below is issued as "pushf; popf; rep xcrypt-*" in ONE asm statement: the
 * engine reloads key and control word for every instruction (the cost is
 * two instructions and one key load per xcrypt, not per block), and no
 * state is kept in software.
 *
 * Semantics: docs/hardware.md sections 1.1-1.8 (opcodes in 1.1).
 */
#ifndef PADLOCK_ASM_H
#define PADLOCK_ASM_H

#include <linux/types.h>
#include <linux/compiler.h>

/* The kernel is built without a red zone: pushf may use the stack. */
#define PADLOCK_RELOAD		"pushf\n\tpopf\n\t"

/*
 * Encodings (docs/hardware.md 1.1).  The F3 byte is part of the opcode, not a
 * REP.  XSTORE is the plain one: no driver issues REP XSTORE (padlock-rng.c
 * says why).
 */
#define PADLOCK_OP_XSTORE	".byte 0x0f,0xa7,0xc0"
#define PADLOCK_OP_XCRYPT_ECB	".byte 0xf3,0x0f,0xa7,0xc8"
#define PADLOCK_OP_XCRYPT_CBC	".byte 0xf3,0x0f,0xa7,0xd0"
#define PADLOCK_OP_XCRYPT_CTR	".byte 0xf3,0x0f,0xa7,0xd8"
#define PADLOCK_OP_XCRYPT_CFB	".byte 0xf3,0x0f,0xa7,0xe0"
#define PADLOCK_OP_XCRYPT_OFB	".byte 0xf3,0x0f,0xa7,0xe8"
#define PADLOCK_OP_XSHA1	".byte 0xf3,0x0f,0xa6,0xc8"
#define PADLOCK_OP_XSHA256	".byte 0xf3,0x0f,0xa6,0xd0"
#define PADLOCK_OP_XSHA384	".byte 0xf3,0x0f,0xa6,0xd8"
#define PADLOCK_OP_XSHA512	".byte 0xf3,0x0f,0xa6,0xe0"

#define PADLOCK_ALIGN		16

/*
 * The 16-byte ACE control word (docs/hardware.md 1.3).  Only bits 0-11 of the first
 * dword are defined; everything else is reserved and must be zero.
 */
struct padlock_cword {
	u32 word;
	u32 reserved[3];
} __aligned(PADLOCK_ALIGN);

/* bits 3:0 rounds (10, 12, 14); bit 8 (intermediate results) stays 0 */
#define PADLOCK_CW_KEYGEN_SW	0x080U	/* rBX points at a software schedule */
#define PADLOCK_CW_DECRYPT	0x200U
#define PADLOCK_CW_KSIZE_SHIFT	10	/* 0: 128, 1: 192, 2: 256 bits */

/*
 * pushf; popf; REP XCRYPT-ECB: rSI source, rDI destination, rCX blocks, rDX
 * control word, rBX key, all loaded afresh (see the key cache above).
 * rSI/rDI advance by 16 per block, rCX counts down to 0.  rAX is not an
 * input of ECB; it is treated as undefined afterwards, and so are rBX and
 * rDX (see the top of this file).  popf rewrites the flags ("cc").
 */
static __always_inline void padlock_xcrypt_ecb(const void *in, void *out,
					       const void *key,
					       const struct padlock_cword *cw,
					       unsigned long blocks)
{
	unsigned long junk;

	asm volatile(PADLOCK_RELOAD PADLOCK_OP_XCRYPT_ECB
		     : "+S" (in), "+D" (out), "+c" (blocks), "=a" (junk),
		       "+d" (cw), "+b" (key)
		     : : "memory", "cc");
}

/*
 * pushf; popf; REP XCRYPT-CBC/CFB/OFB: as ECB plus rAX, the address of the 16-byte IV.
 * Afterwards rAX addresses the 16-byte chaining value to continue with
 * (docs/hardware.md 1.2: for CBC/CFB encryption the last output block, otherwise the
 * IV buffer, rewritten in place).  The callers always copy the next IV from
 * the returned address; they never assume either location.
 */
#define PADLOCK_DEFINE_XCRYPT_IV(mode, op)				\
static __always_inline const u8 *					\
padlock_xcrypt_##mode(const void *in, void *out, const void *key,	\
		      const struct padlock_cword *cw, void *iv,	\
		      unsigned long blocks)				\
{									\
	asm volatile(PADLOCK_RELOAD op					\
		     : "+S" (in), "+D" (out), "+c" (blocks), "+a" (iv),	\
		       "+d" (cw), "+b" (key)				\
		     : : "memory", "cc");				\
	return iv;							\
}

PADLOCK_DEFINE_XCRYPT_IV(cbc, PADLOCK_OP_XCRYPT_CBC)
PADLOCK_DEFINE_XCRYPT_IV(cfb, PADLOCK_OP_XCRYPT_CFB)
PADLOCK_DEFINE_XCRYPT_IV(ofb, PADLOCK_OP_XCRYPT_OFB)

/*
 * pushf; popf; REP XCRYPT-CTR (ACE2): rAX addresses the counter block, which
 * the engine increments in place.  Only the low 16 bits (bytes 14-15, big
 * endian) are incremented, with no carry into byte 13: callers must not
 * let one call cross a 2^16 boundary of that field (docs/hardware.md 1.2).
 * The new counter is read from memory, never from rAX; rAX and rBX are
 * undefined afterwards (no silicon-tested code reads them after CTR).
 */
static __always_inline void padlock_xcrypt_ctr(const void *in, void *out,
					       const void *key,
					       const struct padlock_cword *cw,
					       void *ctr, unsigned long blocks)
{
	asm volatile(PADLOCK_RELOAD PADLOCK_OP_XCRYPT_CTR
		     : "+S" (in), "+D" (out), "+c" (blocks), "+a" (ctr),
		       "+d" (cw), "+b" (key)
		     : : "memory", "cc");
}

/*
 * REP XSHA1/XSHA256 (PHE), final ("one-shot") mode (docs/hardware.md 1.7): rAX = bytes
 * already hashed into the state at rDI, rCX = total message length, rSI =
 * the rest of the message.  The engine pads and leaves the final state at
 * rDI.  rDI must address a 16-byte aligned area of 128 bytes on VIA (32 on
 * Zhaoxin).  rAX, rCX, rSI are undefined afterwards; rDI is treated as
 * possibly changed too.
 */
#define PADLOCK_DEFINE_XSHA_FINAL(name, op)				\
static __always_inline void padlock_##name##_final(const void *in,	\
						   void *state,		\
						   unsigned long done,	\
						   unsigned long total)	\
{									\
	asm volatile(op							\
		     : "+S" (in), "+D" (state), "+a" (done),		\
		       "+c" (total)					\
		     : : "memory", "cc");				\
}

/* Block mode (Nano, Zhaoxin): rAX = -1, rCX = 64/128-byte blocks. */
#define PADLOCK_DEFINE_XSHA_BLOCKS(name, op)				\
static __always_inline void padlock_##name##_blocks(const void *in,	\
						    void *state,	\
						    unsigned long blocks) \
{									\
	unsigned long mode = ~0UL;					\
									\
	asm volatile(op							\
		     : "+S" (in), "+D" (state), "+a" (mode),		\
		       "+c" (blocks)					\
		     : : "memory", "cc");				\
}

PADLOCK_DEFINE_XSHA_FINAL(xsha1, PADLOCK_OP_XSHA1)
PADLOCK_DEFINE_XSHA_FINAL(xsha256, PADLOCK_OP_XSHA256)
PADLOCK_DEFINE_XSHA_BLOCKS(xsha1, PADLOCK_OP_XSHA1)
PADLOCK_DEFINE_XSHA_BLOCKS(xsha256, PADLOCK_OP_XSHA256)
PADLOCK_DEFINE_XSHA_BLOCKS(xsha384, PADLOCK_OP_XSHA384)
PADLOCK_DEFINE_XSHA_BLOCKS(xsha512, PADLOCK_OP_XSHA512)

/*
 * XSTORE (docs/hardware.md 1.8): stores 1, 2, 4 or 8 random bytes (rDX[1:0] = 3, 2, 1,
 * 0) at rDI, advances rDI, may change rDX, and returns the RNG status word
 * (a copy of MSR 0x110B: bits 4:0 bytes stored, bit 6 enabled, 12:10 DC
 * bias, 13 raw bits, 14/15 string filter enabled/failed).
 */
static __always_inline u32 padlock_xstore(void *dst, unsigned long chunk)
{
	u32 status;

	asm volatile(PADLOCK_OP_XSTORE
		     : "=a" (status), "+D" (dst), "+d" (chunk)
		     : : "memory", "cc");
	return status;
}

#endif /* PADLOCK_ASM_H */
