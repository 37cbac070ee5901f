/* SPDX-License-Identifier: GPL-2.0 */
/*
 * padlock-sim: a software model of the VIA / Centaur / Zhaoxin PadLock
 * instructions for tests (internal declarations).
 *
 * The simulator is an independent implementation of the PadLock facts: it
 * shares no code with the drivers (it does not include padlock-asm.h or
 * padlock-cpu.h) and has its own AES and SHA arithmetic.
 */
#ifndef PADLOCK_SIM_H
#define PADLOCK_SIM_H

#include <linux/types.h>
#include <linux/atomic.h>
#include <linux/percpu.h>
#include <linux/uaccess.h>
#include <linux/string.h>
#include <asm/ptrace.h>

/*
 * Where the core text of a module lies (sim-popf.c watches the key reloads
 * of other modules' code).  6.4 split a module's memory layout into
 * mod->mem[MOD_TEXT, ...]; before, mod->core_layout (the probe in
 * drivers/test/tests.kbuild: PADLOCK_HAVE_MODULE_MEM).
 */
#ifdef PADLOCK_HAVE_MODULE_MEM
#define SIM_MODULE_TEXT_BASE(mod)	((unsigned long)(mod)->mem[MOD_TEXT].base)
#define SIM_MODULE_TEXT_SIZE(mod)	((mod)->mem[MOD_TEXT].size)
#else
#define SIM_MODULE_TEXT_BASE(mod)	((unsigned long)(mod)->core_layout.base)
#define SIM_MODULE_TEXT_SIZE(mod)	((mod)->core_layout.text_size)
#endif

/* ---- CPU profiles ------------------------------------------------------ */

#define SIM_HAS_RNG	BIT(0)
#define SIM_HAS_ACE	BIT(1)
#define SIM_HAS_ACE2	BIT(2)	/* xcrypt-ctr */
#define SIM_HAS_PHE	BIT(3)	/* xsha1, xsha256 in final mode */
#define SIM_HAS_PHE_BLK	BIT(4)	/* xsha block mode (rAX = -1) */
#define SIM_HAS_PHE2	BIT(5)	/* xsha384, xsha512 (Zhaoxin) */
#define SIM_ZX_SHA	BIT(6)	/* Zhaoxin xsha: 32-byte area, rCX = 0 no-op */

struct sim_profile {
	const char *name;
	unsigned int family, model, stepping;
	bool is_64bit;
	u32 features;
	unsigned int ecb_fetch, cbc_fetch;	/* blocks read per fetch */
	const char *vendor;			/* CPUID vendor string (12 chars) */
};

extern const struct sim_profile *sim_prof;

/* ---- counters ---------------------------------------------------------- */

enum sim_counter {
	SC_TRAPS,
	SC_XCRYPT_ECB,
	SC_XCRYPT_CBC,
	SC_XCRYPT_CTR,
	SC_XCRYPT_CFB,
	SC_XCRYPT_OFB,
	SC_XSHA1,
	SC_XSHA256,
	SC_XSHA384,
	SC_XSHA512,
	SC_XSTORE,
	SC_REP_XSTORE,
	SC_AES_BLOCKS,
	SC_SHA_BYTES,
	SC_RNG_BYTES,
	SC_VIOLATIONS,
	SC_INTERRUPTS,
	SC_RNG_FAULTS,
	SC_VIOLATIONS_EXPECTED,
	SC_CORRUPTED,
	SC_RNG_NODATA,		/* xstore/rep xstore found no random data */
	SC_KEY_LOADS,		/* xcrypt (re)loaded key + control word */
	SC_KEY_CACHED,		/* xcrypt ran on the engine's cached key */
	SC_KEY_STALE,		/* ... which differed from rBX/rDX's now */
	SC_USER_TRAPS,		/* PadLock instructions raised in user mode */
	SC_POPF_SEEN,		/* watched pushf; popf away from an xcrypt */
	SC_USER_OVERREAD,	/* user-mode fetch into a readable next page */
	SC_XSHA_DIRTY,		/* xsha area beyond the state words not zero */
	SC_NR
};

struct sim_cpu_stats {
	u64 c[SC_NR];
};

DECLARE_PER_CPU(struct sim_cpu_stats, sim_stats);
DECLARE_PER_CPU(bool, sim_expect_fault);

static inline void sim_count(enum sim_counter c, u64 n)
{
	this_cpu_ptr(&sim_stats)->c[c] += n;
}

/* ---- knobs (module parameters, also in debugfs) ------------------------ */

extern unsigned int sim_interrupt_rate;	/* per mille of rep instructions */
extern atomic_t sim_corrupt_xcrypt;	/* test-only deliberate fault */
extern atomic_t sim_corrupt_xsha;	/* the same for xsha's state */
extern unsigned int sim_clobber;	/* SIM_CLOBBER_* bits */
#define SIM_CLOBBER_ECB_RAX	BIT(0)	/* rAX after xcrypt-ecb */
#define SIM_CLOBBER_SHA_REGS	BIT(1)	/* rAX, rCX, rSI after xsha */
#define SIM_CLOBBER_SHA_SCRATCH	BIT(2)	/* VIA: 128-byte xsha area after the state */
#define SIM_CLOBBER_XCRYPT_REGS	BIT(3)	/* rBX after xcrypt-ctr/cfb/ofb, rAX after ctr */
extern unsigned int sim_rng_nodata_rate;	/* per mille of (rep) xstores */
extern bool sim_rng_rawbits, sim_rng_strfilt_fail, sim_rng_disabled;
extern unsigned int sim_units_disabled;	/* SIM_HAS_* present, not enabled */
extern unsigned int sim_rng_dc_bias;

/* ---- execution helpers (padlock-sim.c) --------------------------------- */

/* Outcome of one simulated instruction. */
enum sim_result {
	SIM_DONE,		/* executed to the end: resume after it */
	SIM_INTERRUPTED,	/* stopped part-way: re-execute it */
	SIM_FAULT,		/* violation: leave it to the kernel (#UD) */
};

u64 sim_rand64(void);
/* Number of units to process before a simulated interrupt, or -1 for none. */
long sim_interrupt_point(unsigned long units);
/*
 * Record a violation.  Returns true when the instruction must not be
 * executed (the default, strict mode), false with on_violation=count.
 */
__printf(2, 3) bool sim_violation(struct pt_regs *regs, const char *fmt, ...);
/* Inaccessible memory: a violation that can never be executed anyway. */
__printf(2, 3) void sim_fault(struct pt_regs *regs, const char *fmt, ...);
/* For padlock-simtest: violations on this CPU are deliberate. */
#include "sim-export.h"

/*
 * Set on this CPU while the die notifier executes an instruction raised in
 * user mode (sim-user.c): sim_read()/sim_write() then access user memory.
 * The notifier runs with interrupts off, so nothing else runs on this CPU
 * in between (an NMI never calls them).
 */
DECLARE_PER_CPU(bool, sim_user_trap);

static inline bool sim_read(void *dst, unsigned long src, size_t len)
{
	if (this_cpu_read(sim_user_trap))
		return copy_from_user_nofault(dst, (const void __user *)src,
					      len) == 0;
	return copy_from_kernel_nofault(dst, (const void *)src, len) == 0;
}

/*
 * copy_to_kernel_nofault() is not exported to modules: check that the
 * destination's first and last bytes are mapped (the writes are at most a
 * page long), then store.  A read-only mapping would still fault here.
 * User memory: copy_to_user_nofault(), which fails on a page that is not
 * present or not writable.
 */
static inline bool sim_write(unsigned long dst, const void *src, size_t len)
{
	u8 probe;

	if (this_cpu_read(sim_user_trap))
		return copy_to_user_nofault((void __user *)dst, src, len) == 0;
	if (!len)
		return true;
	if (!sim_read(&probe, dst, 1) || !sim_read(&probe, dst + len - 1, 1))
		return false;
	memcpy((void *)dst, src, len);
	return true;
}

/* Garbage for registers and memory the instruction leaves undefined. */
static inline unsigned long sim_garbage(void)
{
	return (unsigned long)sim_rand64();
}

/* ---- user mode (sim-user.c) ------------------------------------------- */

enum sim_unit { SU_XCRYPT, SU_XSHA, SU_XSTORE };

/*
 * Before a user-mode instruction of UNIT (sub: its sim_xcrypt_mode,
 * sim_xsha_alg, or for xstore whether it is REP) runs: true when all its
 * operand pages are present.  Otherwise a fault-in is queued for the
 * return to user space, and the instruction must be left to run again.
 */
bool sim_user_ready(struct pt_regs *regs, enum sim_unit unit,
		    unsigned int sub);
struct dentry;
void sim_user_init(struct dentry *dir);
void sim_user_exit(void);

/* ---- instructions ------------------------------------------------------ */

enum sim_xcrypt_mode { XM_ECB, XM_CBC, XM_CTR, XM_CFB, XM_OFB };
enum sim_xsha_alg { XS_SHA1, XS_SHA256, XS_SHA384, XS_SHA512 };

enum sim_result sim_xcrypt(struct pt_regs *regs, enum sim_xcrypt_mode mode);
unsigned int sim_xcrypt_fetch(enum sim_xcrypt_mode mode);
bool sim_xcrypt_cword_bad(const u32 *cw, enum sim_xcrypt_mode mode);

/* sim-popf.c: a watched "pushf; popf" ran on this CPU since its last xcrypt */
DECLARE_PER_CPU(bool, sim_popf_seen);
bool sim_popf_task_take(void);
int sim_popf_init(void);
void sim_popf_exit(void);
enum sim_result sim_xsha(struct pt_regs *regs, enum sim_xsha_alg alg);

/*
 * XSHA block mode: rAX all ones in the instruction's operand size (-1 of
 * 64 bits in 64-bit code; a 64-bit rAX of 0xffffffff is final mode,
 * docs/hardware.md 1.7).
 */
static inline bool sim_xsha_block_mode(struct pt_regs *regs)
{
	return any_64bit_mode(regs) ? regs->ax == ~0UL :
	       (u32)regs->ax == 0xffffffff;
}

enum sim_result sim_xstore(struct pt_regs *regs, bool rep);

/* ---- arithmetic -------------------------------------------------------- */

static inline u32 sim_get_le32(const u8 *p)
{
	return p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24;
}

static inline void sim_put_le32(u32 v, u8 *p)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static inline u32 sim_get_be32(const u8 *p)
{
	return (u32)p[0] << 24 | (u32)p[1] << 16 | (u32)p[2] << 8 | p[3];
}

static inline u64 sim_get_be64(const u8 *p)
{
	return (u64)sim_get_be32(p) << 32 | sim_get_be32(p + 4);
}

#define SIM_AES_MAX_RK	60	/* u32 words: 15 round keys */

void sim_aes_init_tables(void);
void sim_aes_expand_key(u32 *rk, const u8 *key, unsigned int key_len);
void sim_aes_invert_schedule(u32 *rk, unsigned int rounds);
void sim_aes_encrypt(const u32 *rk, unsigned int rounds, u8 *out,
		     const u8 *in);
void sim_aes_decrypt(const u32 *dk, unsigned int rounds, u8 *out,
		     const u8 *in);

void sim_sha1_block(u32 *state, const u8 *block);
void sim_sha256_block(u32 *state, const u8 *block);
void sim_sha512_block(u64 *state, const u8 *block);

#endif /* PADLOCK_SIM_H */
