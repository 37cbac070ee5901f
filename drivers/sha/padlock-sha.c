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
 *  PADLOCK_SHA_FINAL_ONLY
 *	VIA C7 (family 6, model < 0x0f).  Only final mode exists, so every
 *	update is hashed in software (our own block functions below, no
 *	fallback tfm) and the last bytes go through one final-mode
 *	instruction with rAX = bytes hashed so far, which is why the software
 *	state always stops at a block boundary.
 *  PADLOCK_SHA_NANO
 *	VIA Nano (family 6, model 0x0f): block mode for updates, final mode
 *	(which pads correctly there, also with nothing left to hash) for the
 *	end.
 *  PADLOCK_SHA_ZHAOXIN
 *	Zhaoxin (family >= 7): block mode only.  Final mode with rCX = 0 does
 *	nothing at all and XSHA1 has only a 32-byte state area
 *	(docs/hardware.md 1.7, 3.3: the reason the in-tree driver fails its
 *	self-tests there), so the padding is built in software and hashed in
 *	block mode.  SHA-384/512 (PHE2) exist only here.
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
 * in software and hashed as in PADLOCK_SHA_ZHAOXIN.  The engine never gets
 * a NULL or dangling rSI either: with nothing left to hash it points at a
 * static dummy.
 *
 * The descriptor context has the layout of the generic drivers' state
 * (struct sha1_state, sha256_state, sha512_state: words, byte count,
 * partial block) followed by one byte, the number of buffered bytes; the
 * count is that of the bytes hashed into the words.  Export and import
 * produce and take exactly what the generic drivers do on each kernel
 * (compat header: PADLOCK_SHA_STATE_TOTAL, PADLOCK_SHA_IMPORT_STRICT), so
 * that states move between them both ways, and even a corrupted state is
 * taken as they take it.
 */

#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/bitops.h>
#include <crypto/internal/hash.h>
#include <crypto/sha1.h>
#include <crypto/sha2.h>
#include <asm/cpu_device_id.h>
#include <linux/unaligned.h>

#include "padlock-asm.h"
#include "padlock-cpu.h"

static int priority = 400;
module_param(priority, int, 0444);
MODULE_PARM_DESC(priority, "crypto priority of the algorithms (default 400, above every software SHA driver)");

enum padlock_sha_mode { PADLOCK_SHA_FINAL_ONLY, PADLOCK_SHA_NANO, PADLOCK_SHA_ZHAOXIN };
enum padlock_sha_engine {
	PADLOCK_SHA_XSHA1, PADLOCK_SHA_XSHA256, PADLOCK_SHA_XSHA384, PADLOCK_SHA_XSHA512
};

static enum padlock_sha_mode padlock_sha_mode;

/* The engine's state area: 128 bytes on VIA, 32 (SHA-1/256) on Zhaoxin. */
#define PADLOCK_SHA_HW_STATE_SIZE	128

struct padlock_sha_info {
	enum padlock_sha_engine engine;
	unsigned int bs;		/* block size: 64 or 128 (a power of 2) */
	unsigned int words;		/* state words: 5, 8 (u32) or 8 (u64) */
	unsigned int wsize;		/* 4 or 8 */
	unsigned int count_off;		/* offset of the byte count */
	unsigned int buf_off;		/* offset of the partial block */
	unsigned int ctxsize;		/* size of the whole generic state */
	const void *iv;
};

struct padlock_sha_alg {
	struct shash_alg alg;
	const struct padlock_sha_info *info;
	bool registered;
};

static const u32 padlock_sha1_iv[5] = {
	SHA1_H0, SHA1_H1, SHA1_H2, SHA1_H3, SHA1_H4,
};

static const u32 padlock_sha224_iv[8] = {
	SHA224_H0, SHA224_H1, SHA224_H2, SHA224_H3,
	SHA224_H4, SHA224_H5, SHA224_H6, SHA224_H7,
};

static const u32 padlock_sha256_iv[8] = {
	SHA256_H0, SHA256_H1, SHA256_H2, SHA256_H3,
	SHA256_H4, SHA256_H5, SHA256_H6, SHA256_H7,
};

static const u64 padlock_sha384_iv[8] = {
	SHA384_H0, SHA384_H1, SHA384_H2, SHA384_H3,
	SHA384_H4, SHA384_H5, SHA384_H6, SHA384_H7,
};

static const u64 padlock_sha512_iv[8] = {
	SHA512_H0, SHA512_H1, SHA512_H2, SHA512_H3,
	SHA512_H4, SHA512_H5, SHA512_H6, SHA512_H7,
};

/*
 * padlock_NAME_info: engine, block size, state words and their size, and
 * where the generic drivers' state structure keeps count and partial block.
 */
#define PADLOCK_SHA_INFO(name, eng, blk, nw, ws, type, buffer)		\
static const struct padlock_sha_info padlock_##name##_info = {		\
	.engine = (eng), .bs = (blk), .words = (nw), .wsize = (ws),	\
	.count_off = offsetof(type, count),				\
	.buf_off = offsetof(type, buffer),				\
	.ctxsize = sizeof(type), .iv = padlock_##name##_iv,		\
}

PADLOCK_SHA_INFO(sha1, PADLOCK_SHA_XSHA1, SHA1_BLOCK_SIZE, 5, 4, struct sha1_state, buffer);
PADLOCK_SHA_INFO(sha224, PADLOCK_SHA_XSHA256, SHA256_BLOCK_SIZE, 8, 4, struct sha256_state, buf);
PADLOCK_SHA_INFO(sha256, PADLOCK_SHA_XSHA256, SHA256_BLOCK_SIZE, 8, 4, struct sha256_state, buf);
PADLOCK_SHA_INFO(sha384, PADLOCK_SHA_XSHA384, SHA512_BLOCK_SIZE, 8, 8, struct sha512_state, buf);
PADLOCK_SHA_INFO(sha512, PADLOCK_SHA_XSHA512, SHA512_BLOCK_SIZE, 8, 8, struct sha512_state, buf);

/* ---- software block functions (C7 updates only) ------------------------ */

static void padlock_sha1_sw_blocks(u32 *h, const u8 *p, unsigned long n)
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

static const u32 padlock_sha256_k[64] = {
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

static void padlock_sha256_sw_blocks(u32 *h, const u8 *p, unsigned long n)
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
			     padlock_sha256_k[i] + w[i & 15];
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

static void padlock_sha_hw_blocks(enum padlock_sha_engine e, const u8 *in, void *st,
				  unsigned long n)
{
	switch (e) {
	case PADLOCK_SHA_XSHA1:
		padlock_xsha1_blocks(in, st, n);
		break;
	case PADLOCK_SHA_XSHA256:
		padlock_xsha256_blocks(in, st, n);
		break;
	case PADLOCK_SHA_XSHA384:
		padlock_xsha384_blocks(in, st, n);
		break;
	case PADLOCK_SHA_XSHA512:
		padlock_xsha512_blocks(in, st, n);
		break;
	}
}

/* rSI for final mode when nothing is left to hash: mapped, never read. */
static const u8 padlock_sha_no_input[PADLOCK_ALIGN] __aligned(PADLOCK_ALIGN);

/* Final mode exists for XSHA1/XSHA256 only (VIA C7 and Nano). */
static void padlock_sha_hw_final(enum padlock_sha_engine e, const u8 *in, void *st,
				 unsigned long done, unsigned long total)
{
	if (done == total)
		in = padlock_sha_no_input;
	if (e == PADLOCK_SHA_XSHA1)
		padlock_xsha1_final(in, st, done, total);
	else
		padlock_xsha256_final(in, st, done, total);
}

static inline u8 *padlock_sha_ctx(struct shash_desc *desc)
{
	return shash_desc_ctx(desc);
}

static inline const struct padlock_sha_info *padlock_sha_info(struct shash_desc *desc)
{
	struct shash_alg *alg = crypto_shash_alg(desc->tfm);

	return container_of(alg, struct padlock_sha_alg, alg)->info;
}

static inline u64 *padlock_sha_count(const struct padlock_sha_info *pi, u8 *ctx)
{
	return (u64 *)(ctx + pi->count_off);
}

/* The number of bytes in the partial block: 0 ... block size. */
static inline u8 *padlock_sha_buffered(const struct padlock_sha_info *pi, u8 *ctx)
{
	return ctx + pi->ctxsize;
}

/* Add @n bytes to the count (SHA-384/512 carry into the high word). */
static void padlock_sha_count_add(const struct padlock_sha_info *pi, u8 *ctx, u64 n)
{
	u64 *c = padlock_sha_count(pi, ctx);

	c[0] += n;
	if (pi->bs == SHA512_BLOCK_SIZE && c[0] < n)
		c[1]++;
}

/*
 * One XSHA instruction on a 16-byte aligned on-stack copy of the state
 * words at the start of @ctx.  Block mode (@final false): @n whole blocks
 * at @in.  Final mode: @done bytes are already hashed into the state, @n is
 * the whole message's length.
 */
static void padlock_sha_xsha(const struct padlock_sha_info *pi, u8 *ctx, const u8 *in,
			     bool final, unsigned long done, unsigned long n)
{
	u8 raw[PADLOCK_SHA_HW_STATE_SIZE + PADLOCK_ALIGN - 1];
	u8 *st = PTR_ALIGN(&raw[0], PADLOCK_ALIGN);
	unsigned int ssize = pi->words * pi->wsize;

	memcpy(st, ctx, ssize);
	if (final)
		padlock_sha_hw_final(pi->engine, in, st, done, n);
	else
		padlock_sha_hw_blocks(pi->engine, in, st, n);
	memcpy(ctx, st, ssize);
	memzero_explicit(raw, sizeof(raw));
}

/* Hash @n whole blocks at @in into the state words at the start of @ctx. */
static void padlock_sha_blocks(const struct padlock_sha_info *pi, u8 *ctx, const u8 *in,
			       unsigned long n)
{
	if (!n)
		return;
	if (padlock_sha_mode == PADLOCK_SHA_FINAL_ONLY) {
		/* C7: no block mode; only SHA-1/256 exist there. */
		if (pi->engine == PADLOCK_SHA_XSHA1)
			padlock_sha1_sw_blocks((u32 *)ctx, in, n);
		else
			padlock_sha256_sw_blocks((u32 *)ctx, in, n);
		return;
	}
	padlock_sha_xsha(pi, ctx, in, false, 0, n);
}

/*
 * Pad the last @len (< block size) bytes of a message of @total bytes in
 * software and hash the one or two resulting blocks.  @hi is the high word
 * of a 128-bit byte count (SHA-384/512 only, as in the generic drivers).
 */
static void padlock_sha_pad_blocks(const struct padlock_sha_info *pi, u8 *ctx, const u8 *tail,
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
	padlock_sha_blocks(pi, ctx, blk, nb);
	memzero_explicit(blk, sizeof(blk));
}

static void padlock_sha_digest_out(const struct padlock_sha_info *pi, const u8 *ctx, u8 *out,
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
static bool padlock_sha_engine_iv(const struct padlock_sha_info *pi, const u8 *ctx)
{
	if (pi->engine == PADLOCK_SHA_XSHA1)
		return !memcmp(ctx, padlock_sha1_iv, sizeof(padlock_sha1_iv));
	if (pi->engine == PADLOCK_SHA_XSHA256)
		return !memcmp(ctx, padlock_sha256_iv, sizeof(padlock_sha256_iv));
	return false;
}

/*
 * VIA (C7 and Nano): hash the last @len bytes at @data and pad with one
 * final-mode instruction, the state holding @done bytes.  Returns false,
 * with nothing hashed, where final mode cannot be used.
 */
static bool padlock_sha_final_mode(const struct padlock_sha_info *pi, u8 *ctx, u64 done,
				   const u8 *data, unsigned int len)
{
	u64 total = done + len;

	/*
	 * rAX/rCX are longs, so a 32-bit kernel hashes messages of 4 GiB and
	 * more the other way; an imported state whose count is not at a
	 * block boundary, or so close to 2^64 that the count wraps
	 * (rAX > rCX), cannot be continued by the engine either.
	 */
	if (padlock_sha_mode == PADLOCK_SHA_ZHAOXIN || (done & (pi->bs - 1)) ||
	    total > ULONG_MAX || total < done)
		return false;

	/*
	 * rAX = 0 only with the engine's own IV at rDI: otherwise (SHA-224,
	 * an imported state with a count of 0) hash the first block first,
	 * so that final mode continues with rAX = 64.
	 */
	if (!done && !padlock_sha_engine_iv(pi, ctx)) {
		if (len < pi->bs)
			return false;
		padlock_sha_blocks(pi, ctx, data, 1);
		done = pi->bs;
		data += pi->bs;
	}
	padlock_sha_xsha(pi, ctx, data, true, done, total);
	return true;
}

/*
 * Finish a message: the state holds @done bytes (a block multiple unless an
 * imported state says otherwise), @len more bytes at @data end it.  @hi is
 * the high word of the whole message's 128-bit byte count (SHA-384/512).
 */
static void padlock_sha_finish(struct shash_desc *desc, u64 done, const u8 *data,
			       unsigned int len, u8 *out, u64 hi)
{
	const struct padlock_sha_info *pi = padlock_sha_info(desc);
	u8 *ctx = padlock_sha_ctx(desc);
	unsigned long n;

	if (!padlock_sha_final_mode(pi, ctx, done, data, len)) {
		/*
		 * Zhaoxin, and where final mode cannot be used: whole
		 * blocks, then the padding built in software (block mode;
		 * C7: software).
		 */
		n = len / pi->bs;
		padlock_sha_blocks(pi, ctx, data, n);
		padlock_sha_pad_blocks(pi, ctx, data + n * pi->bs, len % pi->bs,
				       done + len, hi);
	}
	padlock_sha_digest_out(pi, ctx, out, crypto_shash_digestsize(desc->tfm));
	memzero_explicit(ctx, pi->buf_off);
}

/* ---- shash callbacks --------------------------------------------------- */

static int padlock_sha_init(struct shash_desc *desc)
{
	const struct padlock_sha_info *pi = padlock_sha_info(desc);
	u8 *ctx = padlock_sha_ctx(desc);

	memset(ctx, 0, pi->buf_off);
	memcpy(ctx, pi->iv, pi->words * pi->wsize);
	*padlock_sha_buffered(pi, ctx) = 0;
	return 0;
}

static int padlock_sha_update(struct shash_desc *desc, const u8 *data,
			      unsigned int len)
{
	const struct padlock_sha_info *pi = padlock_sha_info(desc);
	u8 *ctx = padlock_sha_ctx(desc);
	u8 *buf = ctx + pi->buf_off;
	unsigned int bs = pi->bs, partial = *padlock_sha_buffered(pi, ctx), fill;
	unsigned long n;

	if (partial + len < bs) {
		memcpy(buf + partial, data, len);
		*padlock_sha_buffered(pi, ctx) = partial + len;
		return 0;
	}
	if (partial) {
		/* (an imported state may hold a whole block: fill = 0) */
		fill = bs - partial;
		memcpy(buf + partial, data, fill);
		padlock_sha_blocks(pi, ctx, buf, 1);
		padlock_sha_count_add(pi, ctx, bs);
		data += fill;
		len -= fill;
	}
	n = len / bs;
	padlock_sha_blocks(pi, ctx, data, n);
	padlock_sha_count_add(pi, ctx, (u64)n * bs);
	memcpy(buf, data + n * bs, len % bs);
	*padlock_sha_buffered(pi, ctx) = len % bs;
	return 0;
}

static int padlock_sha_finup(struct shash_desc *desc, const u8 *data,
			     unsigned int len, u8 *out)
{
	const struct padlock_sha_info *pi = padlock_sha_info(desc);
	u8 *ctx = padlock_sha_ctx(desc);
	u8 *buf = ctx + pi->buf_off;
	unsigned int bs = pi->bs, partial = *padlock_sha_buffered(pi, ctx), fill;
	u64 done = *padlock_sha_count(pi, ctx), hi = 0;

	/* SHA-384/512: the high word of the whole message's byte count */
	if (bs == SHA512_BLOCK_SIZE)
		hi = padlock_sha_count(pi, ctx)[1] + (done + partial + len < done);

	if (partial) {
		fill = min(len, bs - partial);
		memcpy(buf + partial, data, fill);
		partial += fill;
		data += fill;
		len -= fill;
		if (partial < bs || !len) {
			padlock_sha_finish(desc, done, buf, partial, out, hi);
			goto wipe;
		}
		padlock_sha_blocks(pi, ctx, buf, 1);
		done += bs;
	}
	padlock_sha_finish(desc, done, data, len, out, hi);
wipe:
	memzero_explicit(ctx, pi->ctxsize + 1);
	return 0;
}

static int padlock_sha_final(struct shash_desc *desc, u8 *out)
{
	return padlock_sha_finup(desc, NULL, 0, out);
}

static int padlock_sha_digest(struct shash_desc *desc, const u8 *data,
			      unsigned int len, u8 *out)
{
	padlock_sha_init(desc);
	padlock_sha_finish(desc, 0, data, len, out, 0);
	return 0;
}

/*
 * Export: the generic drivers' layout, words, count of hashed bytes, block
 * buffer and the buffered length in one byte.  Import: the library's rule,
 * the length byte is added to the count, whatever either holds, and the
 * new count's remainder modulo the block size is what is buffered.
 */
static int padlock_sha_export(struct shash_desc *desc, void *out)
{
	const struct padlock_sha_info *pi = padlock_sha_info(desc);

	memcpy(out, padlock_sha_ctx(desc), pi->ctxsize + 1);
	return 0;
}

static int padlock_sha_import(struct shash_desc *desc, const void *in)
{
	const struct padlock_sha_info *pi = padlock_sha_info(desc);
	u8 *ctx = padlock_sha_ctx(desc);
	u64 *count = padlock_sha_count(pi, ctx);

	memcpy(ctx, in, pi->ctxsize + 1);
	*count += *padlock_sha_buffered(pi, ctx);
	*padlock_sha_buffered(pi, ctx) = *count & (pi->bs - 1);
	*count -= *padlock_sha_buffered(pi, ctx);
	return 0;
}

/* 6.15/6.16: the count as it is; a length above the block size is refused. */
static int padlock_sha_import_strict(struct shash_desc *desc, const void *in)
{
	const struct padlock_sha_info *pi = padlock_sha_info(desc);
	u8 *ctx = padlock_sha_ctx(desc);

	memcpy(ctx, in, pi->ctxsize + 1);
	return *padlock_sha_buffered(pi, ctx) > pi->bs ? -EOVERFLOW : 0;
}

/*
 * Before 6.15: the plain structure, its count including the buffered bytes
 * (SHA-384/512: a 128-bit count, the carry into the high word).
 */
static int padlock_sha_export_total(struct shash_desc *desc, void *out)
{
	const struct padlock_sha_info *pi = padlock_sha_info(desc);
	u8 *ctx = padlock_sha_ctx(desc);
	u64 c[2] = { 0, 0 };
	unsigned int partial = *padlock_sha_buffered(pi, ctx);

	memcpy(out, ctx, pi->ctxsize);
	memcpy(c, ctx + pi->count_off, pi->bs == SHA512_BLOCK_SIZE ? 16 : 8);
	c[0] += partial;
	if (c[0] < partial)
		c[1]++;
	memcpy((u8 *)out + pi->count_off, c, pi->bs == SHA512_BLOCK_SIZE ? 16 : 8);
	return 0;
}

static int padlock_sha_import_total(struct shash_desc *desc, const void *in)
{
	const struct padlock_sha_info *pi = padlock_sha_info(desc);
	u8 *ctx = padlock_sha_ctx(desc);
	u64 *count = padlock_sha_count(pi, ctx);

	memcpy(ctx, in, pi->ctxsize);
	*padlock_sha_buffered(pi, ctx) = *count & (pi->bs - 1);
	*count -= *padlock_sha_buffered(pi, ctx);
	return 0;
}

/*
 * The state without the partial block (words + count), which the hmac
 * template keeps for its inner and outer hash.
 */
static int padlock_sha_export_core(struct shash_desc *desc, void *out)
{
	memcpy(out, padlock_sha_ctx(desc), padlock_sha_info(desc)->buf_off);
	return 0;
}

static int padlock_sha_import_core(struct shash_desc *desc, const void *in)
{
	const struct padlock_sha_info *pi = padlock_sha_info(desc);
	u8 *ctx = padlock_sha_ctx(desc);

	memcpy(ctx, in, pi->buf_off);
	*padlock_sha_buffered(pi, ctx) = 0;
	return 0;
}

/* ---- registration ------------------------------------------------------ */

/* NAME, NAME-padlock, described by padlock_NAME_info. */
#define PADLOCK_SHA_ALG(name, ds) {					\
	.info = &padlock_##name##_info,					\
	.alg.digestsize = (ds),						\
	.alg.base.cra_name = #name,					\
	.alg.base.cra_driver_name = #name "-padlock",			\
	.alg.base.cra_module = THIS_MODULE,				\
}

static struct padlock_sha_alg padlock_sha_algs[] = {
	PADLOCK_SHA_ALG(sha1, SHA1_DIGEST_SIZE),
	PADLOCK_SHA_ALG(sha224, SHA224_DIGEST_SIZE),
	PADLOCK_SHA_ALG(sha256, SHA256_DIGEST_SIZE),
	PADLOCK_SHA_ALG(sha384, SHA384_DIGEST_SIZE),
	PADLOCK_SHA_ALG(sha512, SHA512_DIGEST_SIZE),
};

static void padlock_sha_setup_alg(struct padlock_sha_alg *a)
{
	const struct padlock_sha_info *pi = a->info;
	struct shash_alg *alg = &a->alg;

	alg->init = padlock_sha_init;
	alg->update = padlock_sha_update;
	alg->final = padlock_sha_final;
	alg->finup = padlock_sha_finup;
	alg->digest = padlock_sha_digest;
	alg->export = padlock_sha_export;
	alg->import = PADLOCK_SHA_IMPORT_STRICT ? padlock_sha_import_strict :
						  padlock_sha_import;
	padlock_shash_set_export_core(alg, padlock_sha_export_core,
				      padlock_sha_import_core);
	alg->descsize = pi->ctxsize + 1;
	alg->statesize = pi->ctxsize + 1;
	if (PADLOCK_SHA_STATE_TOTAL) {
		alg->export = padlock_sha_export_total;
		alg->import = padlock_sha_import_total;
		alg->statesize = pi->ctxsize;
	}
	alg->base.cra_priority = priority;
	alg->base.cra_blocksize = pi->bs;
}

static const struct x86_cpu_id padlock_sha_ids[] = {
	X86_MATCH_FEATURE(X86_FEATURE_PHE, NULL),
	{}
};
MODULE_DEVICE_TABLE(x86cpu, padlock_sha_ids);

static void padlock_sha_unregister_all(void)
{
	int i;

	for (i = ARRAY_SIZE(padlock_sha_algs) - 1; i >= 0; i--) {
		if (padlock_sha_algs[i].registered)
			crypto_unregister_shash(&padlock_sha_algs[i].alg);
		padlock_sha_algs[i].registered = false;
	}
}

static int __init padlock_sha_mod_init(void)
{
	static const char * const names[] = {
		[PADLOCK_SHA_FINAL_ONLY] = "VIA C7: software updates, final-mode end",
		[PADLOCK_SHA_NANO] = "VIA Nano: block-mode updates, final-mode end",
		[PADLOCK_SHA_ZHAOXIN] = "Zhaoxin: block mode, software padding",
	};
	bool phe2;
	int i, err;

	if (!x86_match_cpu(padlock_sha_ids) || !padlock_cpu_has_phe())
		return padlock_cpu_refuse(X86_FEATURE_PHE, "PHE (xsha)");

	if (padlock_cpu_is_zhaoxin())
		padlock_sha_mode = PADLOCK_SHA_ZHAOXIN;
	else if (padlock_cpu_is_nano_or_later())
		padlock_sha_mode = PADLOCK_SHA_NANO;
	else
		padlock_sha_mode = PADLOCK_SHA_FINAL_ONLY;
	/* PHE2 needs block mode, which only Zhaoxin parts have. */
	phe2 = padlock_cpu_has_phe2() && padlock_sha_mode == PADLOCK_SHA_ZHAOXIN;

	for (i = 0; i < ARRAY_SIZE(padlock_sha_algs); i++) {
		enum padlock_sha_engine e = padlock_sha_algs[i].info->engine;

		if ((e == PADLOCK_SHA_XSHA384 || e == PADLOCK_SHA_XSHA512) && !phe2)
			continue;
		padlock_sha_setup_alg(&padlock_sha_algs[i]);
		err = crypto_register_shash(&padlock_sha_algs[i].alg);
		if (err) {
			pr_err("registering %s failed: %d\n",
			       padlock_sha_algs[i].alg.base.cra_driver_name, err);
			padlock_sha_unregister_all();
			return err;
		}
		padlock_sha_algs[i].registered = true;
	}
	pr_info("PadLock PHE%s: %s, priority %d\n", phe2 ? "+PHE2" : "",
		names[padlock_sha_mode], priority);
	return 0;
}

static void __exit padlock_sha_mod_exit(void)
{
	padlock_sha_unregister_all();
}

module_init(padlock_sha_mod_init);
module_exit(padlock_sha_mod_exit);

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
