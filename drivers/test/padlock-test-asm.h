/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PadLock asm for test instruments only (padlock-simtest, the user-space
 * helpers of selftests/padlock/lib/): never shipped.
 *
 * The product's PadLock asm lives in include/padlock-asm.h, which every
 * driver includes.  This header is the test side's one place for PadLock
 * instructions: it lives under drivers/test/, which neither the DKMS source
 * list nor the Debian package carries, writes the encodings the test
 * instruments issue (docs/hardware.md 1.1) itself, among them three that
 * no driver issues, and depends on nothing of the drivers' headers.
 *
 * padlock_raw_NAME(r) executes one encoding with every operand register
 * taken from and returned in r[] (rSI, rDI, rCX, rAX, rDX, rBX), under an
 * exception-table fixup.  Returns true when the instruction faulted.
 * padlock_raw_reload_NAME(r) issues "pushf; popf" right before it, as the
 * drivers do (the key cache, docs/hardware.md 1.5); the plain form lets a
 * test run on whatever key the engine holds.
 *
 * Built without __KERNEL__ (sim_user.c, and the user-space cross-check of
 * padlock-sim and the QEMU model, xcheck_exec.c), the same names give
 * user-space wrappers with every operand register in and out and no fixup:
 * the caller catches a fault with a signal handler, which sees the
 * registers at the fault in its ucontext.  On x86-64 they step over the
 * 128-byte red zone below rSP, which pushf would overwrite.
 */
#ifndef PADLOCK_TEST_ASM_H
#define PADLOCK_TEST_ASM_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <asm/asm.h>
#endif

/*
 * Encodings (docs/hardware.md 1.1).  The F3 byte is part of the opcode, not
 * a REP, except in REP XSTORE.  REP XSTORE, the F2-prefixed XCRYPT-ECB
 * (undefined; on Zhaoxin F2 0F A6 C0 is SM2, another instruction) and
 * MONTMUL (not modelled) are here for the simulator's tests: no driver
 * issues them.
 */
#define PADLOCK_TEST_OP_XSTORE		".byte 0x0f,0xa7,0xc0"
#define PADLOCK_TEST_OP_REP_XSTORE	".byte 0xf3,0x0f,0xa7,0xc0"
#define PADLOCK_TEST_OP_XCRYPT_ECB	".byte 0xf3,0x0f,0xa7,0xc8"
#define PADLOCK_TEST_OP_XCRYPT_CBC	".byte 0xf3,0x0f,0xa7,0xd0"
#define PADLOCK_TEST_OP_XCRYPT_CTR	".byte 0xf3,0x0f,0xa7,0xd8"
#define PADLOCK_TEST_OP_XCRYPT_CFB	".byte 0xf3,0x0f,0xa7,0xe0"
#define PADLOCK_TEST_OP_XCRYPT_OFB	".byte 0xf3,0x0f,0xa7,0xe8"
#define PADLOCK_TEST_OP_XSHA1		".byte 0xf3,0x0f,0xa6,0xc8"
#define PADLOCK_TEST_OP_XSHA256		".byte 0xf3,0x0f,0xa6,0xd0"
#define PADLOCK_TEST_OP_XSHA384		".byte 0xf3,0x0f,0xa6,0xd8"
#define PADLOCK_TEST_OP_XSHA512		".byte 0xf3,0x0f,0xa6,0xe0"
#define PADLOCK_TEST_OP_F2_XCRYPT_ECB	".byte 0xf2,0x0f,0xa7,0xc8"
#define PADLOCK_TEST_OP_MONTMUL		".byte 0xf3,0x0f,0xa6,0xc0"

#define PADLOCK_TEST_RELOAD	"pushf\n\tpopf\n\t"

#ifdef __KERNEL__
#define PADLOCK_DEFINE_RAW(name, pre, op)				\
static inline bool padlock_raw_##name(unsigned long r[6])		\
{									\
	int faulted = 1;						\
									\
	asm volatile(pre "1:	" op "\n"				\
		     "	movl $0, %[f]\n"				\
		     "2:\n"						\
		     _ASM_EXTABLE(1b, 2b)				\
		     : [f] "+m" (faulted), "+S" (r[0]), "+D" (r[1]),	\
		       "+c" (r[2]), "+a" (r[3]), "+d" (r[4]), "+b" (r[5])	\
		     : : "memory", "cc");				\
	return faulted;							\
}
#else
/*
 * User space: pre is "" or PADLOCK_TEST_RELOAD; on x86-64 every wrapper
 * steps over the 128-byte red zone, which pushf would overwrite.
 */
#ifdef __x86_64__
#define PADLOCK_TEST_USER_ENTER	"lea -128(%%rsp), %%rsp\n\t"
#define PADLOCK_TEST_USER_LEAVE	"\n\tlea 128(%%rsp), %%rsp"
#else
#define PADLOCK_TEST_USER_ENTER	""
#define PADLOCK_TEST_USER_LEAVE	""
#endif
#define PADLOCK_DEFINE_RAW(name, pre, op)				\
static inline void padlock_raw_##name(unsigned long r[6])		\
{									\
	asm volatile(PADLOCK_TEST_USER_ENTER pre op			\
		     PADLOCK_TEST_USER_LEAVE				\
		     : "+S" (r[0]), "+D" (r[1]), "+c" (r[2]),		\
		       "+a" (r[3]), "+d" (r[4]), "+b" (r[5])		\
		     : : "memory", "cc");				\
}
#endif

PADLOCK_DEFINE_RAW(xstore, "", PADLOCK_TEST_OP_XSTORE)
PADLOCK_DEFINE_RAW(rep_xstore, "", PADLOCK_TEST_OP_REP_XSTORE)
/* Each xcrypt as the drivers issue it (after the key reload) and without. */
PADLOCK_DEFINE_RAW(reload_xcrypt_ecb, PADLOCK_TEST_RELOAD, PADLOCK_TEST_OP_XCRYPT_ECB)
PADLOCK_DEFINE_RAW(xcrypt_ecb, "", PADLOCK_TEST_OP_XCRYPT_ECB)
PADLOCK_DEFINE_RAW(reload_xcrypt_cbc, PADLOCK_TEST_RELOAD, PADLOCK_TEST_OP_XCRYPT_CBC)
PADLOCK_DEFINE_RAW(xcrypt_cbc, "", PADLOCK_TEST_OP_XCRYPT_CBC)
PADLOCK_DEFINE_RAW(reload_xcrypt_ctr, PADLOCK_TEST_RELOAD, PADLOCK_TEST_OP_XCRYPT_CTR)
PADLOCK_DEFINE_RAW(xcrypt_ctr, "", PADLOCK_TEST_OP_XCRYPT_CTR)
PADLOCK_DEFINE_RAW(reload_xcrypt_cfb, PADLOCK_TEST_RELOAD, PADLOCK_TEST_OP_XCRYPT_CFB)
PADLOCK_DEFINE_RAW(xcrypt_cfb, "", PADLOCK_TEST_OP_XCRYPT_CFB)
PADLOCK_DEFINE_RAW(reload_xcrypt_ofb, PADLOCK_TEST_RELOAD, PADLOCK_TEST_OP_XCRYPT_OFB)
PADLOCK_DEFINE_RAW(xcrypt_ofb, "", PADLOCK_TEST_OP_XCRYPT_OFB)
PADLOCK_DEFINE_RAW(xsha1, "", PADLOCK_TEST_OP_XSHA1)
PADLOCK_DEFINE_RAW(xsha256, "", PADLOCK_TEST_OP_XSHA256)
PADLOCK_DEFINE_RAW(xsha384, "", PADLOCK_TEST_OP_XSHA384)
PADLOCK_DEFINE_RAW(xsha512, "", PADLOCK_TEST_OP_XSHA512)
PADLOCK_DEFINE_RAW(f2_xcrypt_ecb, "", PADLOCK_TEST_OP_F2_XCRYPT_ECB)
PADLOCK_DEFINE_RAW(montmul, "", PADLOCK_TEST_OP_MONTMUL)

#endif /* PADLOCK_TEST_ASM_H */
