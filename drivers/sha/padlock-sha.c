// SPDX-License-Identifier: GPL-2.0
/*
 * padlock-sha: SHA-1, SHA-224, SHA-256 (PHE) and SHA-384, SHA-512 (PHE2)
 * shash drivers on the VIA / Centaur / Zhaoxin PadLock hash engine.
 *
 * The engine (REP XSHA*, hardware.md 1.7) has two modes:
 *
 *  - final ("one-shot") mode, rAX = bytes already hashed into the state at
 *    rDI, rCX = total message length: hashes the rest of the message and
 *    appends the FIPS padding itself;
 *  - block mode, rAX = -1, rCX = number of whole blocks, no padding.
 *
 * Which of them can be used depends on the CPU, so the driver picks one of
 * three strategies when it loads:
 *
 *  PL_MODE_FINAL_ONLY  VIA C7 (family 6, model < 0x0f).  Only final mode
 *                      exists, so every update is hashed in software (our
 *                      own block functions below, no fallback tfm) and the
 *                      last bytes go through one final-mode instruction
 *                      with rAX = bytes hashed so far, which is why the
 *                      software state always stops at a block boundary.
 *  PL_MODE_NANO        VIA Nano (family 6, model 0x0f): block mode for
 *                      updates, final mode (which pads correctly there, also
 *                      with nothing left to hash) for the end.
 *  PL_MODE_ZHAOXIN     Zhaoxin (family >= 7): block mode only.  Final mode
 *                      with rCX = 0 does nothing at all and XSHA1 has only a
 *                      32-byte state area (docs/hardware.md 1.7, 3.3: the reason the
 *                      in-tree driver fails its self-tests there), so the
 *                      padding is built in software and hashed in block
 *                      mode.  SHA-384/512 (PHE2) exist only here.
 *
 * The state handed to the engine is a 16-byte aligned on-stack copy of 128
 * bytes (VIA microcode uses the whole area; shash on >= 6.8 does not allow
 * an alignmask), so nothing is allocated per request.
 *
 * Final mode is used only in the forms that silicon-proven code (the
 * in-tree driver, hardware.md 1.7 and 4.3) has issued for years: rAX = bytes
 * already hashed > 0 with any state at rDI, or rAX = 0 with the engine's
 * own initial value at rDI (SHA-1's for xsha1, SHA-256's for xsha256).
 * Whether rAX = 0 takes any other state from rDI (SHA-224's IV, an
 * imported state with a count of 0) is not known, so then the first block
 * is hashed the other way (software on C7, block mode on Nano) and final
 * mode continues with rAX = 64; a message shorter than a block is padded
 * in software and hashed as in PL_MODE_ZHAOXIN.  The engine never gets a
 * NULL or dangling rSI either: with nothing left to hash it points at a
 * static dummy.
 *
 * The descriptor context has the layout of the generic drivers' state
 * (struct sha1_state, sha256_state, sha512_state: words, byte count,
 * partial block), so export/import interoperate with them on every kernel:
 * before the partial-block rework the whole structure is exported; with the
 * block-only API (6.16) the API appends its own block buffer to our core
 * state (words + count); since the generic drivers wrap the SHA library
 * (~6.17, shaN-lib) they and we keep the partial block and export the
 * library's format (count rounded down to a block, partial length in a
 * byte at the end), so that even a corrupted state is taken as they take it
 * (compat header: PADLOCK_SHASH_LIB_STATE).
 */

#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/bitops.h>
#include <crypto/internal/hash.h>
#include PADLOCK_CRYPTO_SHA1_H
#include PADLOCK_CRYPTO_SHA2_H
#include <asm/cpu_device_id.h>
#include PADLOCK_UNALIGNED_H

#include "padlock-asm.h"
#include "padlock-cpu.h"

static int priority = 400;
module_param(priority, int, 0444);
MODULE_PARM_DESC(priority, "crypto priority of the algorithms (default 400, above every software SHA driver)");

enum pl_mode { PL_MODE_FINAL_ONLY, PL_MODE_NANO, PL_MODE_ZHAOXIN };
enum pl_engine { PL_XSHA1, PL_XSHA256, PL_XSHA384, PL_XSHA512 };

static enum pl_mode pl_mode;

/* The engine's state area: 128 bytes on VIA, 32 (SHA-1/256) on Zhaoxin. */
#define PL_HW_STATE_SIZE	128

struct pl_info {
	enum pl_engine engine;
	unsigned int bs;		/* block size: 64 or 128 (a power of 2) */
	unsigned int words;		/* state words: 5, 8 (u32) or 8 (u64) */
	unsigned int wsize;		/* 4 or 8 */
	unsigned int count_off;		/* offset of the byte count */
	unsigned int buf_off;		/* offset of the partial block */
	unsigned int ctxsize;		/* size of the whole generic state */
	const void *iv;
};

struct pl_alg {
	struct shash_alg alg;
	const struct pl_info *info;
	bool registered;
};

static const u32 pl_sha1_iv[5] = {
	SHA1_H0, SHA1_H1, SHA1_H2, SHA1_H3, SHA1_H4,
};

static const u32 pl_sha224_iv[8] = {
	SHA224_H0, SHA224_H1, SHA224_H2, SHA224_H3,
	SHA224_H4, SHA224_H5, SHA224_H6, SHA224_H7,
};

static const u32 pl_sha256_iv[8] = {
	SHA256_H0, SHA256_H1, SHA256_H2, SHA256_H3,
	SHA256_H4, SHA256_H5, SHA256_H6, SHA256_H7,
};

static const u64 pl_sha384_iv[8] = {
	SHA384_H0, SHA384_H1, SHA384_H2, SHA384_H3,
	SHA384_H4, SHA384_H5, SHA384_H6, SHA384_H7,
};

static const u64 pl_sha512_iv[8] = {
	SHA512_H0, SHA512_H1, SHA512_H2, SHA512_H3,
	SHA512_H4, SHA512_H5, SHA512_H6, SHA512_H7,
};

#define PL_INFO(eng, blk, nw, ws, type, cnt, buffer, ivp) {		\
	.engine = (eng), .bs = (blk), .words = (nw), .wsize = (ws),	\
	.count_off = offsetof(type, cnt),				\
	.buf_off = offsetof(type, buffer),				\
	.ctxsize = sizeof(type), .iv = (ivp) }

static const struct pl_info pl_sha1_info =
	PL_INFO(PL_XSHA1, SHA1_BLOCK_SIZE, 5, 4, struct sha1_state, count,
		buffer, pl_sha1_iv);
static const struct pl_info pl_sha224_info =
	PL_INFO(PL_XSHA256, SHA256_BLOCK_SIZE, 8, 4, struct sha256_state,
		count, buf, pl_sha224_iv);
static const struct pl_info pl_sha256_info =
	PL_INFO(PL_XSHA256, SHA256_BLOCK_SIZE, 8, 4, struct sha256_state,
		count, buf, pl_sha256_iv);
static const struct pl_info pl_sha384_info =
	PL_INFO(PL_XSHA384, SHA512_BLOCK_SIZE, 8, 8, struct sha512_state,
		count, buf, pl_sha384_iv);
static const struct pl_info pl_sha512_info =
	PL_INFO(PL_XSHA512, SHA512_BLOCK_SIZE, 8, 8, struct sha512_state,
		count, buf, pl_sha512_iv);

/* ---- software block functions (C7 updates only) ------------------------ */

static void pl_sw_sha1_blocks(u32 *h, const u8 *p, unsigned long n)
{
	u32 w[16], a, b, c, d, e, f, k, t;
	int i;

	while (n--) {
		for (i = 0; i < 16; i++)
			w[i] = get_unaligned_be32(p + 4 * i);
		a = h[0];
		b = h[1];
		c = h[2];
		d = h[3];
		e = h[4];
		for (i = 0; i < 80; i++) {
			if (i >= 16) {
				t = w[(i + 13) & 15] ^ w[(i + 8) & 15] ^
				    w[(i + 2) & 15] ^ w[i & 15];
				w[i & 15] = rol32(t, 1);
			}
			if (i < 20) {
				f = d ^ (b & (c ^ d));
				k = 0x5a827999;
			} else if (i < 40) {
				f = b ^ c ^ d;
				k = 0x6ed9eba1;
			} else if (i < 60) {
				f = (b & c) | (d & (b | c));
				k = 0x8f1bbcdc;
			} else {
				f = b ^ c ^ d;
				k = 0xca62c1d6;
			}
			t = rol32(a, 5) + f + e + k + w[i & 15];
			e = d;
			d = c;
			c = rol32(b, 30);
			b = a;
			a = t;
		}
		h[0] += a;
		h[1] += b;
		h[2] += c;
		h[3] += d;
		h[4] += e;
		p += SHA1_BLOCK_SIZE;
	}
	memzero_explicit(w, sizeof(w));
}

static const u32 pl_sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5,
	0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
	0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
	0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3,
	0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5,
	0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static void pl_sw_sha256_blocks(u32 *h, const u8 *p, unsigned long n)
{
	u32 w[16], v[8], s0, s1, t1, t2;
	int i;

	while (n--) {
		for (i = 0; i < 16; i++)
			w[i] = get_unaligned_be32(p + 4 * i);
		memcpy(v, h, sizeof(v));
		for (i = 0; i < 64; i++) {
			if (i >= 16) {
				t1 = w[(i + 1) & 15];
				t2 = w[(i + 14) & 15];
				s0 = ror32(t1, 7) ^ ror32(t1, 18) ^ (t1 >> 3);
				s1 = ror32(t2, 17) ^ ror32(t2, 19) ^ (t2 >> 10);
				w[i & 15] += s0 + w[(i + 9) & 15] + s1;
			}
			t1 = v[7] + (ror32(v[4], 6) ^ ror32(v[4], 11) ^
				     ror32(v[4], 25)) +
			     (v[6] ^ (v[4] & (v[5] ^ v[6]))) +
			     pl_sha256_k[i] + w[i & 15];
			t2 = (ror32(v[0], 2) ^ ror32(v[0], 13) ^
			      ror32(v[0], 22)) +
			     ((v[0] & v[1]) | (v[2] & (v[0] | v[1])));
			v[7] = v[6];
			v[6] = v[5];
			v[5] = v[4];
			v[4] = v[3] + t1;
			v[3] = v[2];
			v[2] = v[1];
			v[1] = v[0];
			v[0] = t1 + t2;
		}
		for (i = 0; i < 8; i++)
			h[i] += v[i];
		p += SHA256_BLOCK_SIZE;
	}
	memzero_explicit(w, sizeof(w));
	memzero_explicit(v, sizeof(v));
}

/* ---- the engine -------------------------------------------------------- */

static void pl_hw_blocks(enum pl_engine e, const u8 *in, void *st,
			 unsigned long n)
{
	switch (e) {
	case PL_XSHA1:
		padlock_xsha1_blocks(in, st, n);
		break;
	case PL_XSHA256:
		padlock_xsha256_blocks(in, st, n);
		break;
	case PL_XSHA384:
		padlock_xsha384_blocks(in, st, n);
		break;
	case PL_XSHA512:
		padlock_xsha512_blocks(in, st, n);
		break;
	}
}

/* rSI for final mode when nothing is left to hash: mapped, never read. */
static const u8 pl_no_input[PADLOCK_ALIGN] __aligned(PADLOCK_ALIGN);

/* Final mode exists for XSHA1/XSHA256 only (VIA C7 and Nano). */
static void pl_hw_final(enum pl_engine e, const u8 *in, void *st,
			unsigned long done, unsigned long total)
{
	if (done == total)
		in = pl_no_input;
	if (e == PL_XSHA1)
		padlock_xsha1_final(in, st, done, total);
	else
		padlock_xsha256_final(in, st, done, total);
}

static inline u8 *pl_ctx(struct shash_desc *desc)
{
	return shash_desc_ctx(desc);
}

static inline const struct pl_info *pl_info(struct shash_desc *desc)
{
	struct shash_alg *alg = crypto_shash_alg(desc->tfm);

	return container_of(alg, struct pl_alg, alg)->info;
}

static inline u64 *pl_count(const struct pl_info *pi, u8 *ctx)
{
	return (u64 *)(ctx + pi->count_off);
}

/* Add @n bytes to the count (SHA-384/512 carry into the high word). */
static void pl_count_add(const struct pl_info *pi, u8 *ctx, u64 n)
{
	u64 *c = pl_count(pi, ctx);

	c[0] += n;
	if (pi->bs == SHA512_BLOCK_SIZE && c[0] < n)
		c[1]++;
}

/* Hash @n whole blocks at @in into the state words at the start of @ctx. */
static void pl_blocks(const struct pl_info *pi, u8 *ctx, const u8 *in,
		      unsigned long n)
{
	u8 raw[PL_HW_STATE_SIZE + PADLOCK_ALIGN - 1];
	u8 *st = PTR_ALIGN(&raw[0], PADLOCK_ALIGN);
	unsigned int ssize = pi->words * pi->wsize;

	if (!n)
		return;
	if (pl_mode == PL_MODE_FINAL_ONLY) {
		/* C7: no block mode; only SHA-1/256 exist there. */
		if (pi->engine == PL_XSHA1)
			pl_sw_sha1_blocks((u32 *)ctx, in, n);
		else
			pl_sw_sha256_blocks((u32 *)ctx, in, n);
		return;
	}
	memcpy(st, ctx, ssize);
	pl_hw_blocks(pi->engine, in, st, n);
	memcpy(ctx, st, ssize);
	memzero_explicit(raw, sizeof(raw));
}

/*
 * Pad the last @len (< block size) bytes of a message of @total bytes in
 * software and hash the one or two resulting blocks.  @hi is the high word
 * of a 128-bit byte count (SHA-384/512 only, as in the generic drivers).
 */
static void pl_pad_blocks(const struct pl_info *pi, u8 *ctx, const u8 *tail,
			  unsigned int len, u64 total, u64 hi)
{
	u8 blk[2 * SHA512_BLOCK_SIZE];
	unsigned int bs = pi->bs, lenbytes = bs / 8, nb;

	if (len)
		memcpy(blk, tail, len);
	blk[len++] = 0x80;
	nb = len + lenbytes <= bs ? 1 : 2;
	memset(blk + len, 0, nb * bs - len);
	put_unaligned_be64(total << 3, blk + nb * bs - 8);
	if (bs == SHA512_BLOCK_SIZE)
		put_unaligned_be64(hi << 3 | total >> 61, blk + nb * bs - 16);
	pl_blocks(pi, ctx, blk, nb);
	memzero_explicit(blk, sizeof(blk));
}

static void pl_digest_out(const struct pl_info *pi, const u8 *ctx, u8 *out,
			  unsigned int ds)
{
	unsigned int i;

	if (pi->wsize == 8) {
		const u64 *h = (const u64 *)ctx;
		u8 tmp[SHA512_DIGEST_SIZE];

		for (i = 0; i < pi->words; i++)
			put_unaligned_be64(h[i], tmp + 8 * i);
		memcpy(out, tmp, ds);
		memzero_explicit(tmp, sizeof(tmp));
	} else {
		const u32 *h = (const u32 *)ctx;
		u8 tmp[SHA256_DIGEST_SIZE];

		for (i = 0; i < pi->words; i++)
			put_unaligned_be32(h[i], tmp + 4 * i);
		memcpy(out, tmp, ds);
		memzero_explicit(tmp, sizeof(tmp));
	}
}

/*
 * Does the state hold the initial value of the engine's own algorithm
 * (SHA-1 for xsha1, SHA-256 for xsha256), the only state final mode is
 * known to take with rAX = 0?
 */
static bool pl_engine_iv(const struct pl_info *pi, const u8 *ctx)
{
	if (pi->engine == PL_XSHA1)
		return !memcmp(ctx, pl_sha1_iv, sizeof(pl_sha1_iv));
	if (pi->engine == PL_XSHA256)
		return !memcmp(ctx, pl_sha256_iv, sizeof(pl_sha256_iv));
	return false;
}

/*
 * Finish a message: the state holds @done bytes (a block multiple unless an
 * imported state says otherwise), @len more bytes at @data end it.  @hi is
 * the high word of the whole message's 128-bit byte count (SHA-384/512).
 */
static void pl_finish(struct shash_desc *desc, u64 done, const u8 *data,
		      unsigned int len, u8 *out, u64 hi)
{
	const struct pl_info *pi = pl_info(desc);
	unsigned int ds = crypto_shash_digestsize(desc->tfm);
	u8 *ctx = pl_ctx(desc);
	u64 total = done + len;
	unsigned long n;
	bool hw_final;

	/*
	 * VIA (C7 and Nano): one final-mode instruction hashes the rest and
	 * pads.  rAX/rCX are longs, so a 32-bit kernel hashes messages of
	 * 4 GiB and more the other way; an imported state whose count is
	 * not at a block boundary, or so close to 2^64 that the count wraps
	 * (rAX > rCX), cannot be continued by the engine either.
	 */
	hw_final = pl_mode != PL_MODE_ZHAOXIN && !(done & (pi->bs - 1)) &&
		   total <= ULONG_MAX && total >= done;

	/*
	 * rAX = 0 only with the engine's own IV at rDI: otherwise (SHA-224,
	 * an imported state with a count of 0) hash the first block first,
	 * so that final mode continues with rAX = 64.
	 */
	if (hw_final && !done && !pl_engine_iv(pi, ctx)) {
		if (len < pi->bs) {
			hw_final = false;
		} else {
			pl_blocks(pi, ctx, data, 1);
			done = pi->bs;
			data += pi->bs;
			len -= pi->bs;
		}
	}

	if (hw_final) {
		u8 raw[PL_HW_STATE_SIZE + PADLOCK_ALIGN - 1];
		u8 *st = PTR_ALIGN(&raw[0], PADLOCK_ALIGN);
		unsigned int ssize = pi->words * pi->wsize;

		memcpy(st, ctx, ssize);
		pl_hw_final(pi->engine, data, st, done, total);
		memcpy(ctx, st, ssize);
		memzero_explicit(raw, sizeof(raw));
	} else {
		/*
		 * Zhaoxin, and the cases above: whole blocks, then the
		 * padding built in software (block mode; C7: software).
		 */
		n = len / pi->bs;
		pl_blocks(pi, ctx, data, n);
		data += n * pi->bs;
		pl_pad_blocks(pi, ctx, data, len % pi->bs, total, hi);
	}
	pl_digest_out(pi, ctx, out, ds);
	memzero_explicit(ctx, pi->buf_off);
}

/* ---- shash callbacks --------------------------------------------------- */

static int pl_init(struct shash_desc *desc)
{
	const struct pl_info *pi = pl_info(desc);
	u8 *ctx = pl_ctx(desc);

	/* Only the core state (words + count): the API owns the rest. */
	memset(ctx, 0, pi->buf_off);
	memcpy(ctx, pi->iv, pi->words * pi->wsize);
	return 0;
}

static int pl_update(struct shash_desc *desc, const u8 *data,
		     unsigned int len)
{
	const struct pl_info *pi = pl_info(desc);
	u8 *ctx = pl_ctx(desc);
	u8 *buf = ctx + pi->buf_off;
	unsigned int bs = pi->bs, partial, fill;
	unsigned long n;

	if (PADLOCK_SHASH_BLOCK_ONLY) {
		/* The API keeps the partial block; we get whole blocks. */
		n = len / bs;
		pl_blocks(pi, ctx, data, n);
		pl_count_add(pi, ctx, (u64)n * bs);
		return len % bs;
	}

	partial = *pl_count(pi, ctx) & (bs - 1);
	pl_count_add(pi, ctx, len);
	if (partial + len < bs) {
		memcpy(buf + partial, data, len);
		return 0;
	}
	if (partial) {
		fill = bs - partial;
		memcpy(buf + partial, data, fill);
		pl_blocks(pi, ctx, buf, 1);
		data += fill;
		len -= fill;
	}
	n = len / bs;
	pl_blocks(pi, ctx, data, n);
	data += n * bs;
	len -= n * bs;
	memcpy(buf, data, len);
	return 0;
}

static int pl_finup(struct shash_desc *desc, const u8 *data,
		    unsigned int len, u8 *out)
{
	const struct pl_info *pi = pl_info(desc);
	u8 *ctx = pl_ctx(desc);
	u8 *buf = ctx + pi->buf_off;
	unsigned int bs = pi->bs, partial, fill;
	u64 done = *pl_count(pi, ctx), hi = 0;

	/* SHA-384/512: the high count word, with the carry of this call */
	if (bs == SHA512_BLOCK_SIZE)
		hi = pl_count(pi, ctx)[1] + (done + len < done);

	if (PADLOCK_SHASH_BLOCK_ONLY) {
		pl_finish(desc, done, data, len, out, hi);
		return 0;
	}

	/* Classic API: our own buffer may hold the start of a block. */
	partial = done & (bs - 1);
	done -= partial;
	if (partial) {
		fill = min(len, bs - partial);
		memcpy(buf + partial, data, fill);
		partial += fill;
		data += fill;
		len -= fill;
		if (partial < bs || !len) {
			pl_finish(desc, done, buf, partial, out, hi);
			goto wipe;
		}
		pl_blocks(pi, ctx, buf, 1);
		done += bs;
	}
	pl_finish(desc, done, data, len, out, hi);
wipe:
	memzero_explicit(ctx, pi->ctxsize);
	return 0;
}

static int pl_final(struct shash_desc *desc, u8 *out)
{
	return pl_finup(desc, NULL, 0, out);
}

static int pl_digest(struct shash_desc *desc, const u8 *data,
		     unsigned int len, u8 *out)
{
	pl_init(desc);
	pl_finish(desc, 0, data, len, out, 0);
	return 0;
}

/* Classic API: the generic drivers' whole state structure. */
static int pl_export(struct shash_desc *desc, void *out)
{
	memcpy(out, pl_ctx(desc), pl_info(desc)->ctxsize);
	return 0;
}

static int pl_import(struct shash_desc *desc, const void *in)
{
	memcpy(pl_ctx(desc), in, pl_info(desc)->ctxsize);
	return 0;
}

/*
 * The SHA library's format (~6.17 on, classic API): the whole structure
 * with the byte count rounded down to a block, then the partial length in
 * one byte.  Import adds that byte back without any check, as the generic
 * (shaN-lib) drivers do.
 */
static int pl_export_lib(struct shash_desc *desc, void *out)
{
	const struct pl_info *pi = pl_info(desc);
	u8 *p = out;
	u64 count;

	memcpy(p, pl_ctx(desc), pi->ctxsize);
	count = get_unaligned((u64 *)(p + pi->count_off));
	put_unaligned(count & ~(u64)(pi->bs - 1), (u64 *)(p + pi->count_off));
	p[pi->ctxsize] = count & (pi->bs - 1);
	return 0;
}

static int pl_import_lib(struct shash_desc *desc, const void *in)
{
	const struct pl_info *pi = pl_info(desc);
	u8 *ctx = pl_ctx(desc);

	memcpy(ctx, in, pi->ctxsize);
	*pl_count(pi, ctx) += ((const u8 *)in)[pi->ctxsize];
	return 0;
}

/*
 * Block-only API: ->export/->import handle the core state (words + count);
 * the API adds its partial block.  With the library format (7.x) they are
 * the export_core/import_core that the hmac template requires.
 */
static int pl_export_core(struct shash_desc *desc, void *out)
{
	memcpy(out, pl_ctx(desc), pl_info(desc)->buf_off);
	return 0;
}

static int pl_import_core(struct shash_desc *desc, const void *in)
{
	memcpy(pl_ctx(desc), in, pl_info(desc)->buf_off);
	return 0;
}

/* ---- registration ------------------------------------------------------ */

#define PL_ALG(name, drv, ds, inf) {				\
	.info = &(inf),						\
	.alg.digestsize = (ds),				\
	.alg.base.cra_name = name,				\
	.alg.base.cra_driver_name = drv,			\
	.alg.base.cra_module = THIS_MODULE,		\
}

static struct pl_alg pl_algs[] = {
	PL_ALG("sha1", "sha1-padlock", SHA1_DIGEST_SIZE, pl_sha1_info),
	PL_ALG("sha224", "sha224-padlock", SHA224_DIGEST_SIZE, pl_sha224_info),
	PL_ALG("sha256", "sha256-padlock", SHA256_DIGEST_SIZE, pl_sha256_info),
	PL_ALG("sha384", "sha384-padlock", SHA384_DIGEST_SIZE, pl_sha384_info),
	PL_ALG("sha512", "sha512-padlock", SHA512_DIGEST_SIZE, pl_sha512_info),
};

static void pl_setup_alg(struct pl_alg *a)
{
	const struct pl_info *pi = a->info;
	struct shash_alg *alg = &a->alg;

	alg->init = pl_init;
	alg->update = pl_update;
	alg->finup = pl_finup;
	alg->digest = pl_digest;
	alg->base.cra_priority = priority;
	alg->base.cra_blocksize = pi->bs;
	alg->base.cra_flags = PADLOCK_SHASH_BLOCK_FLAGS;
	if (PADLOCK_SHASH_BLOCK_ONLY) {
		/* Core state only; the API adds block buffer + length. */
		alg->export = pl_export_core;
		alg->import = pl_import_core;
		padlock_shash_set_export_core(alg, pl_export_core,
					      pl_import_core);
		alg->descsize = pi->buf_off;
		alg->statesize = pi->buf_off;
	} else if (PADLOCK_SHASH_LIB_STATE) {
		/* Our own partial block, the library's export format. */
		alg->final = pl_final;
		alg->export = pl_export_lib;
		alg->import = pl_import_lib;
		padlock_shash_set_export_core(alg, pl_export_core,
					      pl_import_core);
		alg->descsize = pi->ctxsize;
		alg->statesize = pi->ctxsize + 1;
	} else {
		alg->final = pl_final;
		alg->export = pl_export;
		alg->import = pl_import;
		alg->descsize = pi->ctxsize;
		alg->statesize = pi->ctxsize;
	}
}

static const struct x86_cpu_id padlock_sha_ids[] = {
	X86_MATCH_FEATURE(X86_FEATURE_PHE, NULL),
	{}
};
MODULE_DEVICE_TABLE(x86cpu, padlock_sha_ids);

static void pl_unregister_all(void)
{
	int i;

	for (i = ARRAY_SIZE(pl_algs) - 1; i >= 0; i--) {
		if (pl_algs[i].registered)
			crypto_unregister_shash(&pl_algs[i].alg);
		pl_algs[i].registered = false;
	}
}

static int __init padlock_sha_init(void)
{
	static const char * const names[] = {
		[PL_MODE_FINAL_ONLY] = "VIA C7: software updates, final-mode end",
		[PL_MODE_NANO] = "VIA Nano: block-mode updates, final-mode end",
		[PL_MODE_ZHAOXIN] = "Zhaoxin: block mode, software padding",
	};
	bool phe2;
	int i, err;

	if (!x86_match_cpu(padlock_sha_ids) || !padlock_cpu_has_phe()) {
		pr_info("no VIA/Zhaoxin PadLock PHE (xsha) unit on this CPU, or it is disabled\n");
		return -ENODEV;
	}

	if (padlock_cpu_is_zhaoxin())
		pl_mode = PL_MODE_ZHAOXIN;
	else if (padlock_cpu_is_nano_or_later())
		pl_mode = PL_MODE_NANO;
	else
		pl_mode = PL_MODE_FINAL_ONLY;
	/* PHE2 needs block mode, which only Zhaoxin parts have. */
	phe2 = padlock_cpu_has_phe2() && pl_mode == PL_MODE_ZHAOXIN;

	for (i = 0; i < ARRAY_SIZE(pl_algs); i++) {
		enum pl_engine e = pl_algs[i].info->engine;

		if ((e == PL_XSHA384 || e == PL_XSHA512) && !phe2)
			continue;
		pl_setup_alg(&pl_algs[i]);
		err = crypto_register_shash(&pl_algs[i].alg);
		if (err) {
			pr_err("registering %s failed: %d\n",
			       pl_algs[i].alg.base.cra_driver_name, err);
			pl_unregister_all();
			return err;
		}
		pl_algs[i].registered = true;
	}
	pr_info("PadLock PHE%s: %s, priority %d\n", phe2 ? "+PHE2" : "",
		names[pl_mode], priority);
	return 0;
}

static void __exit padlock_sha_exit(void)
{
	pl_unregister_all();
}

module_init(padlock_sha_init);
module_exit(padlock_sha_exit);

MODULE_DESCRIPTION("VIA/Zhaoxin PadLock PHE SHA-1/SHA-224/SHA-256/SHA-384/SHA-512");
MODULE_LICENSE("GPL");
MODULE_VERSION(PADLOCK_VERSION);
MODULE_ALIAS_CRYPTO("sha1");
MODULE_ALIAS_CRYPTO("sha224");
MODULE_ALIAS_CRYPTO("sha256");
MODULE_ALIAS_CRYPTO("sha384");
MODULE_ALIAS_CRYPTO("sha512");
MODULE_ALIAS_CRYPTO("sha1-padlock");
MODULE_ALIAS_CRYPTO("sha224-padlock");
MODULE_ALIAS_CRYPTO("sha256-padlock");
MODULE_ALIAS_CRYPTO("sha384-padlock");
MODULE_ALIAS_CRYPTO("sha512-padlock");
