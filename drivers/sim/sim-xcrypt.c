// SPDX-License-Identifier: GPL-2.0
/*
 * padlock-sim: REP XCRYPT-ECB/CBC/CTR/CFB/OFB (facts 1.2-1.4, 2.1, 2.2).
 *
 * Registers: rSI input, rDI output, rCX blocks, rDX control word, rBX key
 * (raw with KEYGEN=0, schedule with KEYGEN=1), rAX IV / counter.
 */
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/mm.h>
#include "sim.h"

#define CW_ROUNDS	0x00f
#define CW_ALGO		0x070
#define CW_KEYGEN	0x080
#define CW_INTERM	0x100
#define CW_DECRYPT	0x200
#define CW_KSIZE	0xc00
#define CW_DEFINED	0xfff

static const char * const mode_name[] = {
	[XM_ECB] = "ecb", [XM_CBC] = "cbc", [XM_CTR] = "ctr",
	[XM_CFB] = "cfb", [XM_OFB] = "ofb",
};

static void xor16(u8 *d, const u8 *a, const u8 *b)
{
	unsigned int i;

	for (i = 0; i < 16; i++)
		d[i] = a[i] ^ b[i];
}

/* The low 16 bits of the counter block, big-endian, wrap without carry. */
static void ctr16_inc(u8 *ctr)
{
	u16 v = ((u16)ctr[14] << 8 | ctr[15]) + 1;

	ctr[14] = v >> 8;
	ctr[15] = v;
}

static bool misaligned(unsigned long addr)
{
	return addr & 15;
}

/* Check the control word; returns a reason or NULL. */
static const char *check_cword(const u32 *cw, enum sim_xcrypt_mode mode)
{
	unsigned int rounds = cw[0] & CW_ROUNDS;
	unsigned int ksize = (cw[0] & CW_KSIZE) >> 10;

	if ((cw[0] & ~CW_DEFINED) || cw[1] || cw[2] || cw[3])
		return "reserved control word bits set";
	if (cw[0] & CW_ALGO)
		return "control word algorithm field is not 0 (AES)";
	if (cw[0] & CW_INTERM)
		return "control word intermediate-result mode (not modelled)";
	if (ksize > 2)
		return "control word key size 3 is reserved";
	if (rounds != 10 + 2 * ksize)
		return "control word rounds do not match the key size";
	if (!(cw[0] & CW_KEYGEN) && ksize)
		return "hardware key expansion (KEYGEN=0) with a 192/256-bit key";
	if ((mode == XM_OFB || mode == XM_CTR) && (cw[0] & CW_DECRYPT))
		return "OFB/CTR need encdec=0 (encryption)";
	return NULL;
}

enum sim_result sim_xcrypt(struct pt_regs *regs, enum sim_xcrypt_mode mode)
{
	unsigned long si = regs->si, di = regs->di, cx = regs->cx;
	unsigned long ax = regs->ax, bx = regs->bx, dx = regs->dx;
	unsigned int fetch, rounds, i;
	u32 cw[4], rk[64];
	u8 chain[16], in[16], out[16], ks[16];
	unsigned long todo, groups;
	const char *why;
	bool decrypt, use_dec;
	long stop;

	if (misaligned(si) || misaligned(di) || misaligned(bx) ||
	    misaligned(dx) || (mode != XM_ECB && misaligned(ax))) {
		if (sim_violation(regs,
				  "xcrypt-%s: misaligned operand (rsi %lx rdi %lx rbx %lx rdx %lx rax %lx)",
				  mode_name[mode], si, di, bx, dx,
				  mode == XM_ECB ? 0 : ax))
			return SIM_FAULT;
	}
	if (!sim_read(cw, dx, sizeof(cw))) {
		sim_fault(regs, "xcrypt-%s: control word at %lx not readable",
			  mode_name[mode], dx);
		return SIM_FAULT;
	}
	why = check_cword(cw, mode);
	if (why && sim_violation(regs, "xcrypt-%s: %s (cword %08x %08x %08x %08x)",
				 mode_name[mode], why, cw[0], cw[1], cw[2],
				 cw[3]))
		return SIM_FAULT;
	rounds = cw[0] & CW_ROUNDS;
	if (rounds != 10 && rounds != 12 && rounds != 14)
		rounds = 10;	/* on_violation=count: run something */
	decrypt = cw[0] & CW_DECRYPT;
	/* CFB and OFB run the forward cipher in both directions. */
	use_dec = decrypt && (mode == XM_ECB || mode == XM_CBC);

	if (cw[0] & CW_KEYGEN) {
		/* a software schedule: the engine reads 16 round keys */
		if (!sim_read(rk, bx, 256)) {
			sim_fault(regs, "xcrypt-%s: key schedule at %lx (256 bytes) not readable",
				  mode_name[mode], bx);
			return SIM_FAULT;
		}
	} else {
		u8 key[16];

		if (!sim_read(key, bx, sizeof(key))) {
			sim_fault(regs, "xcrypt-%s: key at %lx not readable",
				  mode_name[mode], bx);
			return SIM_FAULT;
		}
		sim_aes_expand_key(rk, key, 16);
		memzero_explicit(key, sizeof(key));
		rounds = 10;
		if (use_dec)
			sim_aes_invert_schedule(rk, rounds);
	}

	if (cx > (1UL << 27)) {
		if (sim_violation(regs, "xcrypt-%s: absurd block count %lu",
				  mode_name[mode], cx))
			goto fault;
	}

	/* The input footprint (facts 2.2): whole fetch groups are read. */
	fetch = mode == XM_CBC ? sim_prof->cbc_fetch :
		(mode == XM_ECB || mode == XM_CTR) ? sim_prof->ecb_fetch : 1;
	groups = DIV_ROUND_UP(cx, fetch);
	if (cx) {
		unsigned long last = si + cx * 16 - 1;
		unsigned long end = si + groups * fetch * 16 - 1;

		if ((last >> PAGE_SHIFT) != (end >> PAGE_SHIFT) &&
		    sim_violation(regs,
				  "xcrypt-%s: over-read: %lu blocks at %lx fetch %lu bytes past the input into the next page (fetch %u blocks)",
				  mode_name[mode], cx, si, end - last, fetch))
			goto fault;
	}

	if (mode != XM_ECB && !sim_read(chain, ax, 16)) {
		sim_fault(regs, "xcrypt-%s: IV at %lx not readable",
			  mode_name[mode], ax);
		goto fault;
	}

	/* Interruption stops between fetch groups. */
	stop = sim_interrupt_point(groups);
	todo = stop < 0 ? cx : (unsigned long)stop * fetch;

	for (i = 0; i < todo; i++) {
		if (!sim_read(in, si + 16 * i, 16)) {
			sim_fault(regs, "xcrypt-%s: input block at %lx not readable",
				  mode_name[mode], si + 16 * i);
			goto fault;
		}
		switch (mode) {
		case XM_ECB:
			if (use_dec)
				sim_aes_decrypt(rk, rounds, out, in);
			else
				sim_aes_encrypt(rk, rounds, out, in);
			break;
		case XM_CBC:
			if (use_dec) {
				sim_aes_decrypt(rk, rounds, ks, in);
				xor16(out, ks, chain);
				memcpy(chain, in, 16);
			} else {
				xor16(ks, in, chain);
				sim_aes_encrypt(rk, rounds, out, ks);
				memcpy(chain, out, 16);
			}
			break;
		case XM_CFB:
			sim_aes_encrypt(rk, rounds, ks, chain);
			xor16(out, in, ks);
			memcpy(chain, decrypt ? in : out, 16);
			break;
		case XM_OFB:
			sim_aes_encrypt(rk, rounds, chain, chain);
			xor16(out, in, chain);
			break;
		case XM_CTR:
			sim_aes_encrypt(rk, rounds, ks, chain);
			xor16(out, in, ks);
			ctr16_inc(chain);
			break;
		}
		if (i == 0 && atomic_read(&sim_corrupt_xcrypt) > 0 &&
		    atomic_dec_if_positive(&sim_corrupt_xcrypt) >= 0) {
			out[0] ^= 0x01;		/* deliberate fault (tools/debug) */
			sim_count(SC_CORRUPTED, 1);
		}
		if (!sim_write(di + 16 * i, out, 16)) {
			sim_fault(regs, "xcrypt-%s: output block at %lx not writable",
				  mode_name[mode], di + 16 * i);
			goto fault;
		}
	}
	sim_count(SC_AES_BLOCKS, todo);

	/*
	 * Chaining value (facts 1.2, consistent model): where it is in the
	 * output (CBC/CFB encryption) rAX points at the last output block;
	 * otherwise it is written back to the IV buffer.
	 */
	if (todo && mode != XM_ECB) {
		if (!decrypt && (mode == XM_CBC || mode == XM_CFB)) {
			regs->ax = di + 16 * (todo - 1);
		} else if (!sim_write(ax, chain, 16)) {
			sim_fault(regs, "xcrypt-%s: IV at %lx not writable",
				  mode_name[mode], ax);
			goto fault;
		}
	}
	regs->si = si + 16 * todo;
	regs->di = di + 16 * todo;
	regs->cx = cx - todo;
	memzero_explicit(rk, sizeof(rk));
	if (todo < cx)
		return SIM_INTERRUPTED;
	if (mode == XM_ECB && (sim_clobber & SIM_CLOBBER_ECB_RAX))
		regs->ax = sim_garbage();	/* undefined after ECB */
	return SIM_DONE;

fault:
	memzero_explicit(rk, sizeof(rk));
	return SIM_FAULT;
}
