// SPDX-License-Identifier: GPL-2.0
/*
 * padlock-sim: REP XSHA1/256/384/512 (facts 1.7).
 *
 * Final mode (rAX = bytes already hashed, rCX = total length): hashes the
 * remaining rCX - rAX bytes at rSI and pads with the length rCX * 8.
 * Block mode (rAX = -1, Nano and later): rCX whole blocks, no padding.
 * The state at rDI is native little-endian words.  Afterwards rAX, rCX and
 * rSI are undefined.
 */
#include <linux/kernel.h>
#include <linux/string.h>
#include "sim.h"

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

/* Write the state back; VIA parts use the rest of 128 bytes as scratch. */
static bool xsha_store(struct pt_regs *regs, struct xsha_ctx *x,
		       unsigned long di, bool garbage)
{
	unsigned int area = (sim_prof->features & SIM_ZX_SHA) ?
			    max(32U, x->state_bytes) : 128;
	u8 buf[128];
	unsigned int i;

	memcpy(buf, &x->h, x->state_bytes);
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
	bool block_mode = (u32)ax == 0xffffffff;
	struct xsha_ctx x = { .alg = alg };
	unsigned long full;
	long stop;

	x.bs = alg >= XS_SHA384 ? 128 : 64;
	x.state_bytes = alg == XS_SHA1 ? 20 : alg == XS_SHA256 ? 32 : 64;

	if ((di & 15) && sim_violation(regs, "%s: state at %lx not 16-byte aligned",
				       alg_name[alg], di))
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
