// SPDX-License-Identifier: GPL-2.0
/*
 * padlock-sim: REP XSHA1/256/384/512 (docs/hardware.md 1.7).
 *
 * Final mode (rAX = bytes already hashed, rCX = total length): hashes the
 * remaining rCX - rAX bytes at rSI and pads with the length rCX * 8.
 * Block mode (rAX = -1, Nano and later): rCX whole blocks, no padding.
 * The state at rDI is native little-endian words.  Afterwards rAX, rCX and
 * rSI are undefined.
 *
 * Strict about the operands: rSI and rDI must address mapped memory even
 * when there is nothing to hash (rCX = 0 blocks, rCX = rAX, or the Zhaoxin
 * no-op with rCX = 0); a NULL or unmapped pointer is a violation whatever
 * the count.
 *
 * Final mode with rAX = 0 and a state at rDI that is not the algorithm's
 * own initial value (e.g. SHA-224's IV through xsha256) is a reading of the
 * facts that no silicon-proven code exercises.  By default the model takes
 * the state from rDI; xsha_final_zero_ignores_state=1 is the pessimistic
 * variant, where such an instruction ignores rDI and starts from the
 * algorithm's standard IV.  Drivers must be right under both.
 *
 * The area at rDI is larger than the state words (VIA: 128 bytes, which the
 * microcode uses as scratch; Zhaoxin: 32 bytes, also for SHA-1's 20-byte
 * state), and no source says whether the engine reads what lies there.  The
 * strictest reading is that it may: an xsha that finds anything but zeros
 * after the state words is counted (xsha_dirty_area).  A count, not a
 * violation, because the in-tree driver has run that way on silicon.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include "sim.h"

static bool xsha_final_zero_ignores_state;
module_param(xsha_final_zero_ignores_state, bool, 0644);
MODULE_PARM_DESC(xsha_final_zero_ignores_state,
		 "pessimistic xsha: final mode with rAX = 0 ignores the state at rDI and starts from the standard IV (default 0)");

static const char * const alg_name[] = {
	[XS_SHA1] = "xsha1", [XS_SHA256] = "xsha256",
	[XS_SHA384] = "xsha384", [XS_SHA512] = "xsha512",
};

struct xsha_ctx {
	enum sim_xsha_alg alg;
	unsigned int bs;		/* block size */
	unsigned int state_bytes;	/* words at rDI */
	union {
		u32 w32[8];
		u64 w64[8];
	} h;
};

/* FIPS 180-4 initial hash values, as the engine would hold them. */
static const u32 iv_sha1[5] = {
	0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0,
};

static const u32 iv_sha256[8] = {
	0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
	0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

static const u64 iv_sha384[8] = {
	0xcbbb9d5dc1059ed8ULL, 0x629a292a367cd507ULL, 0x9159015a3070dd17ULL,
	0x152fecd8f70e5939ULL, 0x67332667ffc00b31ULL, 0x8eb44a8768581511ULL,
	0xdb0c2e0d64f98fa7ULL, 0x47b5481dbefa4fa4ULL,
};

static const u64 iv_sha512[8] = {
	0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL,
	0xa54ff53a5f1d36f1ULL, 0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL,
	0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL,
};

static const void * const std_iv[] = {
	[XS_SHA1] = iv_sha1, [XS_SHA256] = iv_sha256,
	[XS_SHA384] = iv_sha384, [XS_SHA512] = iv_sha512,
};

static void xsha_block(struct xsha_ctx *x, const u8 *block)
{
	switch (x->alg) {
	case XS_SHA1:
		sim_sha1_block(x->h.w32, block);
		break;
	case XS_SHA256:
		sim_sha256_block(x->h.w32, block);
		break;
	default:
		sim_sha512_block(x->h.w64, block);
		break;
	}
}

/* Hash n whole blocks from src; false if the input is not readable. */
static bool xsha_blocks(struct pt_regs *regs, struct xsha_ctx *x,
			unsigned long src, unsigned long n)
{
	u8 buf[128];
	unsigned long i;

	for (i = 0; i < n; i++) {
		if (!sim_read(buf, src + i * x->bs, x->bs)) {
			sim_fault(regs, "%s: input at %lx not readable",
				  alg_name[x->alg], src + i * x->bs);
			return false;
		}
		xsha_block(x, buf);
	}
	sim_count(SC_SHA_BYTES, n * x->bs);
	return true;
}

/* The last partial block plus padding, with the message length in bits. */
static bool xsha_final(struct pt_regs *regs, struct xsha_ctx *x,
		       unsigned long src, unsigned int tail, u64 total)
{
	unsigned int lenpos = x->bs - (x->bs == 128 ? 16 : 8);
	u8 buf[256];
	unsigned int n, i;

	memset(buf, 0, sizeof(buf));
	if (tail && !sim_read(buf, src, tail)) {
		sim_fault(regs, "%s: input at %lx not readable",
			  alg_name[x->alg], src);
		return false;
	}
	buf[tail] = 0x80;
	n = tail + 1 > lenpos ? 2 * x->bs : x->bs;
	for (i = 0; i < 8; i++)
		buf[n - 1 - i] = (total << 3) >> (8 * i);
	if (x->bs == 128)
		buf[n - 9] = total >> 61;
	xsha_block(x, buf);
	if (n > x->bs)
		xsha_block(x, buf + x->bs);
	sim_count(SC_SHA_BYTES, tail);
	return true;
}

/* The area at rDI: 128 bytes on VIA, 32 (or the 64-byte state) on Zhaoxin */
static unsigned int xsha_area(const struct xsha_ctx *x)
{
	return (sim_prof->features & SIM_ZX_SHA) ? max(32U, x->state_bytes) : 128;
}

/* Count an area whose bytes after the state words are not all zero. */
static void xsha_check_area(unsigned long di, const struct xsha_ctx *x)
{
	unsigned int area = xsha_area(x), i;
	u8 buf[128];

	if (area <= x->state_bytes || !sim_read(buf, di, area))
		return;
	for (i = x->state_bytes; i < area; i++) {
		if (buf[i]) {
			sim_count(SC_XSHA_DIRTY, 1);
			return;
		}
	}
}

/* Write the state back; VIA parts use the rest of 128 bytes as scratch. */
static bool xsha_store(struct pt_regs *regs, struct xsha_ctx *x,
		       unsigned long di, bool garbage)
{
	unsigned int area = xsha_area(x);
	u8 buf[128];
	unsigned int i;

	memcpy(buf, &x->h, x->state_bytes);
	if (atomic_read(&sim_corrupt_xsha) > 0 &&
	    atomic_dec_if_positive(&sim_corrupt_xsha) >= 0) {
		buf[0] ^= 0x01;		/* deliberate fault (selftests) */
		sim_count(SC_CORRUPTED, 1);
	}
	for (i = x->state_bytes; i < area; i += 8) {
		u64 g = garbage ? sim_rand64() : 0;

		memcpy(buf + i, &g, min(8U, area - i));
	}
	if (!sim_write(di, buf, garbage ? area : x->state_bytes)) {
		sim_fault(regs, "%s: state area at %lx (%u bytes) not writable",
			  alg_name[x->alg], di, area);
		return false;
	}
	return true;
}

enum sim_result sim_xsha(struct pt_regs *regs, enum sim_xsha_alg alg)
{
	unsigned long si = regs->si, di = regs->di, cx = regs->cx;
	unsigned long ax = regs->ax;
	bool zx = sim_prof->features & SIM_ZX_SHA;
	bool block_mode = sim_xsha_block_mode(regs);
	struct xsha_ctx x = { .alg = alg };
	unsigned long full;
	long stop;
	u8 probe;

	x.bs = alg >= XS_SHA384 ? 128 : 64;
	x.state_bytes = alg == XS_SHA1 ? 20 : alg == XS_SHA256 ? 32 : 64;

	if ((di & 15) && sim_violation(regs, "%s: state at %lx not 16-byte aligned",
				       alg_name[alg], di))
		return SIM_FAULT;
	/* Checked before anything else, so a count of 0 does not hide them. */
	if (!di || !sim_read(&probe, di, 1)) {
		sim_fault(regs, "%s: state rdi %lx is %s (rcx %lu)",
			  alg_name[alg], di, di ? "unmapped" : "NULL", cx);
		return SIM_FAULT;
	}
	if ((!si || !sim_read(&probe, si, 1)) &&
	    sim_violation(regs, "%s: input rsi %lx is %s (rcx %lu, checked anyway)",
			  alg_name[alg], si, si ? "unmapped" : "NULL", cx))
		return SIM_FAULT;
	if (block_mode && !(sim_prof->features & SIM_HAS_PHE_BLK)) {
		/* C7 has only the one-shot (final) form. */
		if (sim_violation(regs, "%s: block mode (rax=-1) is not supported on profile %s",
				  alg_name[alg], sim_prof->name))
			return SIM_FAULT;
	}
	if (!block_mode && zx && cx == 0)
		return SIM_DONE;	/* Zhaoxin: nothing at all */
	if (!block_mode && ((ax & (x.bs - 1)) || ax > cx)) {
		if (sim_violation(regs,
				  "%s: final mode rax %lu (done) rcx %lu (total): rax must be <= rcx and a multiple of %u",
				  alg_name[alg], ax, cx, x.bs))
			return SIM_FAULT;
		ax = min(ax & ~(unsigned long)(x.bs - 1), cx & ~(unsigned long)(x.bs - 1));
	}
	if (!sim_read(&x.h, di, x.state_bytes)) {
		sim_fault(regs, "%s: state at %lx not readable", alg_name[alg], di);
		return SIM_FAULT;
	}
	xsha_check_area(di, &x);
	if (!block_mode && !ax && READ_ONCE(xsha_final_zero_ignores_state))
		memcpy(&x.h, std_iv[alg], x.state_bytes);

	full = block_mode ? cx : (cx - ax) / x.bs;
	stop = sim_interrupt_point(full);
	if (stop >= 0) {
		/* progress is kept in the registers and the state area */
		if (!xsha_blocks(regs, &x, si, stop) ||
		    !xsha_store(regs, &x, di, false))
			return SIM_FAULT;
		regs->si = si + stop * x.bs;
		if (block_mode)
			regs->cx = cx - stop;
		else
			regs->ax = ax + stop * x.bs;
		return SIM_INTERRUPTED;
	}
	if (!xsha_blocks(regs, &x, si, full))
		return SIM_FAULT;
	if (!block_mode &&
	    !xsha_final(regs, &x, si + full * x.bs, (cx - ax) % x.bs, cx))
		return SIM_FAULT;
	if (!xsha_store(regs, &x, di, sim_clobber & SIM_CLOBBER_SHA_SCRATCH))
		return SIM_FAULT;
	if (sim_clobber & SIM_CLOBBER_SHA_REGS) {
		regs->ax = sim_garbage();
		regs->cx = sim_garbage();
		regs->si = sim_garbage();
	} else {
		regs->si = si + cx * (block_mode ? x.bs : 1) -
			   (block_mode ? 0 : ax);
		regs->cx = 0;
	}
	return SIM_DONE;
}
