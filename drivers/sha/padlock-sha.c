// SPDX-License-Identifier: GPL-2.0
/*
 * padlock-sha: SHA-1, SHA-224, SHA-256 (PHE) and SHA-384, SHA-512 (PHE2)
 * shash drivers on the VIA / Centaur / Zhaoxin PadLock hash engine, and
 * HMAC over each of them (hmac-NAME-padlock).
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
 * The state handed to the engine is a 16-byte aligned on-stack area of 128
 * bytes (VIA microcode uses the whole area; shash on >= 6.8 does not allow
 * an alignmask), cleared before the state words are copied in, so nothing
 * is allocated per request and the engine never sees stale stack bytes.
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
 * The descriptor is one of three structures, one per state format
 * (struct padlock_sha1_desc, padlock_sha256_desc, padlock_sha512_desc):
 * the generic drivers' state (words, byte count, partial block) followed by
 * one byte, the number of buffered bytes; the count is that of the bytes
 * hashed into the words.  Export and import produce and take exactly what
 * the generic drivers do on each kernel (compat header:
 * PADLOCK_SHA_STATE_TOTAL, PADLOCK_SHA_IMPORT_STRICT), so that states move
 * between them both ways, and even a corrupted state is taken as they take
 * it.
 *
 * HMAC (RFC 2104): the tfm keeps the states after the inner (key ^ ipad)
 * and the outer (key ^ opad) block, computed by setkey (a key longer than
 * a block is hashed first); init starts from the inner state, the end
 * hashes the inner digest from the outer state.  Both ends are final-mode
 * instructions with rAX = one block on VIA, the silicon-proven form, so
 * even the C7 finishes HMAC in hardware; only its setkey blocks are
 * software.  The descriptor is the inner hash's, so export and import are
 * those of the hash, as with the kernel's hmac template and its hmac-*-lib
 * drivers on every kernel.  In FIPS mode setkey refuses the keys that the
 * kernel's own hmac(NAME) refuses (under 112 bits where that is the hmac
 * template: PADLOCK_HMAC_FIPS_KEY_CHECK).
 */

#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/bitops.h>
#include <linux/fips.h>
#include <crypto/internal/hash.h>
#include <crypto/hmac.h>
#include <crypto/sha1.h>
#include <crypto/sha2.h>
#include <asm/cpu_device_id.h>
#include <linux/unaligned.h>

#include "padlock-asm.h"
#include "padlock-cpu.h"

static int priority;
module_param(priority, int, 0444);
MODULE_PARM_DESC(priority, "crypto priority of the hashes (the hmac drivers get one more, above the hmac template over our own hashes); 0 = 400, above every software SHA driver, or 248 for SHA-1/224/256 on a CPU with SHA-NI, below the kernel's SHA-NI drivers");

enum padlock_sha_mode { PADLOCK_SHA_FINAL_ONLY, PADLOCK_SHA_NANO, PADLOCK_SHA_ZHAOXIN };
enum padlock_sha_engine {
	PADLOCK_SHA_XSHA1, PADLOCK_SHA_XSHA256, PADLOCK_SHA_XSHA384, PADLOCK_SHA_XSHA512
};

static enum padlock_sha_mode padlock_sha_mode;

/* The engine's state area: 128 bytes on VIA, 32 (SHA-1/256) on Zhaoxin. */
#define PADLOCK_SHA_HW_STATE_SIZE	128

/*
 * The descriptor of each state format: the layout of the generic drivers'
 * struct sha1_state, sha256_state, sha512_state (checked when the module
 * loads), then the number of buffered bytes.
 */
struct padlock_sha1_desc {
	u32 h[SHA1_DIGEST_SIZE / 4];
	u64 count;			/* bytes hashed into h */
	u8 buf[SHA1_BLOCK_SIZE];
	u8 partial;			/* bytes in buf: 0 ... block size */
};

struct padlock_sha256_desc {
	u32 h[SHA256_DIGEST_SIZE / 4];
	u64 count;
	u8 buf[SHA256_BLOCK_SIZE];
	u8 partial;
};

struct padlock_sha512_desc {
	u64 h[SHA512_DIGEST_SIZE / 8];
	u64 count[2];			/* low, high word */
	u8 buf[SHA512_BLOCK_SIZE];
	u8 partial;
};

enum padlock_sha_fmt { PADLOCK_SHA_FMT1, PADLOCK_SHA_FMT256, PADLOCK_SHA_FMT512 };

union padlock_sha_desc {
	struct padlock_sha1_desc s1;
	struct padlock_sha256_desc s256;
	struct padlock_sha512_desc s512;
};

/* hmac-*-padlock: the states after the inner and the outer key block. */
struct padlock_hmac_ctx {
	union padlock_sha_desc inner, outer;
};

struct padlock_sha_info {
	enum padlock_sha_engine engine;
	enum padlock_sha_fmt fmt;
	unsigned int bs;		/* block size: 64 or 128 (a power of 2) */
	unsigned int ds;		/* digest size */
	const void *iv;
	/* sizes of the format's descriptor structure */
	unsigned int words_size;	/* the state words */
	unsigned int core_size;		/* words and count (hmac's core state) */
	unsigned int generic_size;	/* the generic drivers' state structure */
	unsigned int desc_size;		/* the whole descriptor */
};

/* Where the parts of a descriptor lie, for the code common to all formats */
struct padlock_sha_parts {
	void *h;			/* state words */
	u64 *count;			/* (low word of the) count */
	u8 *buf;			/* partial block */
	u8 *partial;			/* bytes in buf */
};

struct padlock_sha_alg {
	struct shash_alg alg;
	const struct padlock_sha_info *info;
	bool hmac;
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

/* padlock_NAME_info: engine, state format (structure TYPE), sizes */
#define PADLOCK_SHA_INFO(name, eng, fmt_, type, blk, dsz)		\
static const struct padlock_sha_info padlock_##name##_info = {		\
	.engine = (eng), .fmt = (fmt_), .bs = (blk), .ds = (dsz),	\
	.iv = padlock_##name##_iv,					\
	.words_size = sizeof_field(type, h),				\
	.core_size = offsetof(type, buf),				\
	.generic_size = offsetof(type, partial),			\
	.desc_size = sizeof(type),					\
}

PADLOCK_SHA_INFO(sha1, PADLOCK_SHA_XSHA1, PADLOCK_SHA_FMT1, struct padlock_sha1_desc,
		 SHA1_BLOCK_SIZE, SHA1_DIGEST_SIZE);
PADLOCK_SHA_INFO(sha224, PADLOCK_SHA_XSHA256, PADLOCK_SHA_FMT256, struct padlock_sha256_desc,
		 SHA256_BLOCK_SIZE, SHA224_DIGEST_SIZE);
PADLOCK_SHA_INFO(sha256, PADLOCK_SHA_XSHA256, PADLOCK_SHA_FMT256, struct padlock_sha256_desc,
		 SHA256_BLOCK_SIZE, SHA256_DIGEST_SIZE);
PADLOCK_SHA_INFO(sha384, PADLOCK_SHA_XSHA384, PADLOCK_SHA_FMT512, struct padlock_sha512_desc,
		 SHA512_BLOCK_SIZE, SHA384_DIGEST_SIZE);
PADLOCK_SHA_INFO(sha512, PADLOCK_SHA_XSHA512, PADLOCK_SHA_FMT512, struct padlock_sha512_desc,
		 SHA512_BLOCK_SIZE, SHA512_DIGEST_SIZE);

/* ---- the descriptor formats -------------------------------------------- */

static struct padlock_sha_parts padlock_sha_parts(const struct padlock_sha_info *pi,
						  union padlock_sha_desc *d)
{
	struct padlock_sha_parts p;

	switch (pi->fmt) {
	case PADLOCK_SHA_FMT1:
		p = (struct padlock_sha_parts){ d->s1.h, &d->s1.count, d->s1.buf, &d->s1.partial };
		break;
	case PADLOCK_SHA_FMT256:
		p = (struct padlock_sha_parts){ d->s256.h, &d->s256.count, d->s256.buf,
						&d->s256.partial };
		break;
	default:
		p = (struct padlock_sha_parts){ d->s512.h, &d->s512.count[0], d->s512.buf,
						&d->s512.partial };
		break;
	}
	return p;
}

/* Add @n bytes to the count (SHA-384/512 carry into the high word). */
static void padlock_sha_count_add(const struct padlock_sha_info *pi, union padlock_sha_desc *d,
				  u64 n)
{
	u64 *c = padlock_sha_parts(pi, d).count;

	*c += n;
	if (pi->fmt == PADLOCK_SHA_FMT512 && *c < n)
		d->s512.count[1]++;
}

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

/*
 * One XSHA instruction on a 16-byte aligned on-stack copy of the state
 * words of @d.  Block mode (@final false): @n whole blocks at @in.  Final
 * mode: @done bytes are already hashed into the state, @n is the whole
 * message's length.  The whole 128-byte area is cleared first: the engine
 * reads and writes more than the state words (VIA: scratch up to 128
 * bytes; Zhaoxin: 32 bytes for SHA-1's 20-byte state), and must find
 * zeros there rather than what an earlier call left on the stack.
 */
static void padlock_sha_xsha(const struct padlock_sha_info *pi, union padlock_sha_desc *d,
			     const u8 *in, bool final, unsigned long done, unsigned long n)
{
	u8 raw[PADLOCK_SHA_HW_STATE_SIZE + PADLOCK_ALIGN - 1];
	u8 *st = PTR_ALIGN(&raw[0], PADLOCK_ALIGN);
	void *h = padlock_sha_parts(pi, d).h;

	memset(raw, 0, sizeof(raw));
	memcpy(st, h, pi->words_size);
	if (final)
		padlock_sha_hw_final(pi->engine, in, st, done, n);
	else
		padlock_sha_hw_blocks(pi->engine, in, st, n);
	memcpy(h, st, pi->words_size);
	memzero_explicit(raw, sizeof(raw));
}

/* Hash @n whole blocks at @in into the state words of @d. */
static void padlock_sha_blocks(const struct padlock_sha_info *pi, union padlock_sha_desc *d,
			       const u8 *in, unsigned long n)
{
	if (!n)
		return;
	if (padlock_sha_mode == PADLOCK_SHA_FINAL_ONLY) {
		/* C7: no block mode; only SHA-1/256 exist there. */
		if (pi->fmt == PADLOCK_SHA_FMT1)
			padlock_sha1_sw_blocks(d->s1.h, in, n);
		else
			padlock_sha256_sw_blocks(d->s256.h, in, n);
		return;
	}
	padlock_sha_xsha(pi, d, in, false, 0, n);
}

/*
 * Pad the last @len (< block size) bytes of a message of @total bytes in
 * software and hash the one or two resulting blocks.  @hi is the high word
 * of a 128-bit byte count (SHA-384/512 only, as in the generic drivers).
 */
static void padlock_sha_pad_blocks(const struct padlock_sha_info *pi, union padlock_sha_desc *d,
				   const u8 *tail, unsigned int len, u64 total, u64 hi)
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
	padlock_sha_blocks(pi, d, blk, nb);
	memzero_explicit(blk, sizeof(blk));
}

/* The first @ds bytes of the big-endian digest of the words of @d */
static void padlock_sha_digest_out(const struct padlock_sha_info *pi, union padlock_sha_desc *d,
				   u8 *out, unsigned int ds)
{
	u8 tmp[SHA512_DIGEST_SIZE];
	unsigned int i;

	switch (pi->fmt) {
	case PADLOCK_SHA_FMT1:
		for (i = 0; i < ARRAY_SIZE(d->s1.h); i++)
			put_unaligned_be32(d->s1.h[i], tmp + 4 * i);
		break;
	case PADLOCK_SHA_FMT256:
		for (i = 0; i < ARRAY_SIZE(d->s256.h); i++)
			put_unaligned_be32(d->s256.h[i], tmp + 4 * i);
		break;
	default:
		for (i = 0; i < ARRAY_SIZE(d->s512.h); i++)
			put_unaligned_be64(d->s512.h[i], tmp + 8 * i);
		break;
	}
	memcpy(out, tmp, ds);
	memzero_explicit(tmp, sizeof(tmp));
}

/*
 * Does the state hold the initial value of the engine's own algorithm
 * (SHA-1 for xsha1, SHA-256 for xsha256), the only state final mode is
 * known to take with rAX = 0?
 */
static bool padlock_sha_engine_iv(const struct padlock_sha_info *pi, union padlock_sha_desc *d)
{
	if (pi->engine == PADLOCK_SHA_XSHA1)
		return !memcmp(d->s1.h, padlock_sha1_iv, sizeof(padlock_sha1_iv));
	if (pi->engine == PADLOCK_SHA_XSHA256)
		return !memcmp(d->s256.h, padlock_sha256_iv, sizeof(padlock_sha256_iv));
	return false;
}

/*
 * VIA (C7 and Nano): hash the last @len bytes at @data and pad with one
 * final-mode instruction, the state holding @done bytes.  Returns false,
 * with nothing hashed, where final mode cannot be used.
 */
static bool padlock_sha_final_mode(const struct padlock_sha_info *pi, union padlock_sha_desc *d,
				   u64 done, const u8 *data, unsigned int len)
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
	if (!done && !padlock_sha_engine_iv(pi, d)) {
		if (len < pi->bs)
			return false;
		padlock_sha_blocks(pi, d, data, 1);
		done = pi->bs;
		data += pi->bs;
	}
	padlock_sha_xsha(pi, d, data, true, done, total);
	return true;
}

/*
 * Finish a message: the state holds @done bytes (a block multiple unless an
 * imported state says otherwise), @len more bytes at @data end it.  @hi is
 * the high word of the whole message's 128-bit byte count (SHA-384/512).
 * Writes @ds bytes of digest and wipes the words and the count.
 */
static void padlock_sha_finish(const struct padlock_sha_info *pi, union padlock_sha_desc *d,
			       u64 done, const u8 *data, unsigned int len, u8 *out,
			       unsigned int ds, u64 hi)
{
	unsigned long n;

	if (!padlock_sha_final_mode(pi, d, done, data, len)) {
		/*
		 * Zhaoxin, and where final mode cannot be used: whole
		 * blocks, then the padding built in software (block mode;
		 * C7: software).
		 */
		n = len / pi->bs;
		padlock_sha_blocks(pi, d, data, n);
		padlock_sha_pad_blocks(pi, d, data + n * pi->bs, len % pi->bs,
				       done + len, hi);
	}
	padlock_sha_digest_out(pi, d, out, ds);
	memzero_explicit(d, pi->core_size);
}

/* A new message: the algorithm's initial value, nothing hashed. */
static void padlock_sha_start(const struct padlock_sha_info *pi, union padlock_sha_desc *d)
{
	memset(d, 0, pi->desc_size);
	memcpy(padlock_sha_parts(pi, d).h, pi->iv, pi->words_size);
}

static void padlock_sha_do_update(const struct padlock_sha_info *pi, union padlock_sha_desc *d,
				  const u8 *data, unsigned int len)
{
	struct padlock_sha_parts p = padlock_sha_parts(pi, d);
	unsigned int bs = pi->bs, partial = *p.partial, fill;
	unsigned long n;

	/*
	 * partial <= bs (import refuses more), so bs - partial does not wrap;
	 * partial + len would, for a len close to 4 GiB.
	 */
	if (len < bs - partial) {
		memcpy(p.buf + partial, data, len);
		*p.partial = partial + len;
		return;
	}
	if (partial) {
		/* (an imported state may hold a whole block: fill = 0) */
		fill = bs - partial;
		memcpy(p.buf + partial, data, fill);
		padlock_sha_blocks(pi, d, p.buf, 1);
		padlock_sha_count_add(pi, d, bs);
		data += fill;
		len -= fill;
	}
	n = len / bs;
	padlock_sha_blocks(pi, d, data, n);
	padlock_sha_count_add(pi, d, (u64)n * bs);
	memcpy(p.buf, data + n * bs, len % bs);
	*p.partial = len % bs;
}

/* Hash the buffered bytes and @len more at @data, @ds bytes to @out. */
static void padlock_sha_do_finup(const struct padlock_sha_info *pi, union padlock_sha_desc *d,
				 const u8 *data, unsigned int len, u8 *out, unsigned int ds)
{
	struct padlock_sha_parts p = padlock_sha_parts(pi, d);
	unsigned int bs = pi->bs, partial = *p.partial, fill;
	u64 done = *p.count, hi = 0;

	/* SHA-384/512: the high word of the whole message's byte count */
	if (pi->fmt == PADLOCK_SHA_FMT512)
		hi = d->s512.count[1] + (done + partial + len < done);

	if (partial) {
		fill = min(len, bs - partial);
		memcpy(p.buf + partial, data, fill);
		partial += fill;
		data += fill;
		len -= fill;
		if (partial < bs || !len) {
			padlock_sha_finish(pi, d, done, p.buf, partial, out, ds, hi);
			goto wipe;
		}
		padlock_sha_blocks(pi, d, p.buf, 1);
		done += bs;
	}
	padlock_sha_finish(pi, d, done, data, len, out, ds, hi);
wipe:
	memzero_explicit(d, pi->desc_size);
}

/* ---- shash callbacks --------------------------------------------------- */

static inline union padlock_sha_desc *padlock_sha_desc(struct shash_desc *desc)
{
	return shash_desc_ctx(desc);
}

static inline struct padlock_sha_alg *padlock_sha_alg_of(struct crypto_shash *tfm)
{
	return container_of(crypto_shash_alg(tfm), struct padlock_sha_alg, alg);
}

static inline const struct padlock_sha_info *padlock_sha_info(struct shash_desc *desc)
{
	return padlock_sha_alg_of(desc->tfm)->info;
}

static int padlock_sha_init(struct shash_desc *desc)
{
	padlock_sha_start(padlock_sha_info(desc), padlock_sha_desc(desc));
	return 0;
}

static int padlock_sha_update(struct shash_desc *desc, const u8 *data, unsigned int len)
{
	padlock_sha_do_update(padlock_sha_info(desc), padlock_sha_desc(desc), data, len);
	return 0;
}

static int padlock_sha_finup(struct shash_desc *desc, const u8 *data, unsigned int len, u8 *out)
{
	const struct padlock_sha_info *pi = padlock_sha_info(desc);

	padlock_sha_do_finup(pi, padlock_sha_desc(desc), data, len, out, pi->ds);
	return 0;
}

static int padlock_sha_final(struct shash_desc *desc, u8 *out)
{
	return padlock_sha_finup(desc, NULL, 0, out);
}

static int padlock_sha_digest(struct shash_desc *desc, const u8 *data, unsigned int len,
			      u8 *out)
{
	const struct padlock_sha_info *pi = padlock_sha_info(desc);
	union padlock_sha_desc *d = padlock_sha_desc(desc);

	padlock_sha_start(pi, d);
	padlock_sha_finish(pi, d, 0, data, len, out, pi->ds, 0);
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

	memcpy(out, padlock_sha_desc(desc), pi->generic_size + 1);
	return 0;
}

static int padlock_sha_import(struct shash_desc *desc, const void *in)
{
	const struct padlock_sha_info *pi = padlock_sha_info(desc);
	union padlock_sha_desc *d = padlock_sha_desc(desc);
	struct padlock_sha_parts p = padlock_sha_parts(pi, d);

	memcpy(d, in, pi->generic_size + 1);
	*p.count += *p.partial;
	*p.partial = *p.count & (pi->bs - 1);
	*p.count -= *p.partial;
	return 0;
}

/* 6.15/6.16: the count as it is; a length above the block size is refused. */
static int padlock_sha_import_strict(struct shash_desc *desc, const void *in)
{
	const struct padlock_sha_info *pi = padlock_sha_info(desc);
	union padlock_sha_desc *d = padlock_sha_desc(desc);
	u8 *partial = padlock_sha_parts(pi, d).partial;

	memcpy(d, in, pi->generic_size + 1);
	if (*partial > pi->bs) {
		/* never leave a length that update would trust */
		*partial = 0;
		return -EOVERFLOW;
	}
	return 0;
}

/*
 * Before 6.15: the plain structure, its count including the buffered bytes
 * (SHA-384/512: a 128-bit count, the carry into the high word).
 */
static int padlock_sha_export_total(struct shash_desc *desc, void *out)
{
	const struct padlock_sha_info *pi = padlock_sha_info(desc);
	union padlock_sha_desc *d = padlock_sha_desc(desc);
	union padlock_sha_desc tmp;

	/* (@out need not be aligned for the count: worked on in a copy) */
	memcpy(&tmp, d, pi->desc_size);
	padlock_sha_count_add(pi, &tmp, *padlock_sha_parts(pi, d).partial);
	memcpy(out, &tmp, pi->generic_size);
	memzero_explicit(&tmp, sizeof(tmp));
	return 0;
}

static int padlock_sha_import_total(struct shash_desc *desc, const void *in)
{
	const struct padlock_sha_info *pi = padlock_sha_info(desc);
	union padlock_sha_desc *d = padlock_sha_desc(desc);
	struct padlock_sha_parts p = padlock_sha_parts(pi, d);

	memcpy(d, in, pi->generic_size);
	*p.partial = *p.count & (pi->bs - 1);
	*p.count -= *p.partial;
	return 0;
}

/*
 * The state without the partial block (words + count), which the hmac
 * template keeps for its inner and outer hash.
 */
static int padlock_sha_export_core(struct shash_desc *desc, void *out)
{
	memcpy(out, padlock_sha_desc(desc), padlock_sha_info(desc)->core_size);
	return 0;
}

static int padlock_sha_import_core(struct shash_desc *desc, const void *in)
{
	const struct padlock_sha_info *pi = padlock_sha_info(desc);
	union padlock_sha_desc *d = padlock_sha_desc(desc);

	memcpy(d, in, pi->core_size);
	*padlock_sha_parts(pi, d).partial = 0;
	return 0;
}

/* ---- HMAC -------------------------------------------------------------- */

static int padlock_hmac_setkey(struct crypto_shash *tfm, const u8 *key, unsigned int keylen)
{
	const struct padlock_sha_info *pi = padlock_sha_alg_of(tfm)->info;
	struct padlock_hmac_ctx *c = crypto_shash_ctx(tfm);
	u8 pad[SHA512_BLOCK_SIZE];
	unsigned int i;

	/* FIPS mode: the kernel's own hmac(NAME) refuses short keys (compat header). */
	if (PADLOCK_HMAC_FIPS_KEY_CHECK && fips_enabled &&
	    keylen < PADLOCK_HMAC_FIPS_MIN_KEYLEN)
		return -EINVAL;

	/* A key longer than a block is replaced by its digest. */
	if (keylen > pi->bs) {
		padlock_sha_start(pi, &c->inner);
		padlock_sha_finish(pi, &c->inner, 0, key, keylen, pad, pi->ds, 0);
		keylen = pi->ds;
	} else {
		memcpy(pad, key, keylen);
	}
	memset(pad + keylen, 0, pi->bs - keylen);

	for (i = 0; i < pi->bs; i++)
		pad[i] ^= HMAC_IPAD_VALUE;
	padlock_sha_start(pi, &c->inner);
	padlock_sha_blocks(pi, &c->inner, pad, 1);
	padlock_sha_count_add(pi, &c->inner, pi->bs);

	for (i = 0; i < pi->bs; i++)
		pad[i] ^= HMAC_IPAD_VALUE ^ HMAC_OPAD_VALUE;
	padlock_sha_start(pi, &c->outer);
	padlock_sha_blocks(pi, &c->outer, pad, 1);
	padlock_sha_count_add(pi, &c->outer, pi->bs);

	memzero_explicit(pad, sizeof(pad));
	return 0;
}

static int padlock_hmac_init(struct shash_desc *desc)
{
	const struct padlock_sha_info *pi = padlock_sha_info(desc);
	struct padlock_hmac_ctx *c = crypto_shash_ctx(desc->tfm);

	memcpy(padlock_sha_desc(desc), &c->inner, pi->desc_size);
	return 0;
}

static int padlock_hmac_finup(struct shash_desc *desc, const u8 *data, unsigned int len,
			      u8 *out)
{
	const struct padlock_sha_info *pi = padlock_sha_info(desc);
	struct padlock_hmac_ctx *c = crypto_shash_ctx(desc->tfm);
	union padlock_sha_desc *d = padlock_sha_desc(desc);
	u8 ih[SHA512_DIGEST_SIZE];

	padlock_sha_do_finup(pi, d, data, len, ih, pi->ds);
	/* the outer hash: one block (key ^ opad) done, the inner digest */
	memcpy(d, &c->outer, pi->desc_size);
	padlock_sha_finish(pi, d, pi->bs, ih, pi->ds, out, pi->ds, 0);
	memzero_explicit(d, pi->desc_size);
	memzero_explicit(ih, sizeof(ih));
	return 0;
}

static int padlock_hmac_final(struct shash_desc *desc, u8 *out)
{
	return padlock_hmac_finup(desc, NULL, 0, out);
}

static int padlock_hmac_digest(struct shash_desc *desc, const u8 *data, unsigned int len,
			       u8 *out)
{
	padlock_hmac_init(desc);
	return padlock_hmac_finup(desc, data, len, out);
}

static void padlock_hmac_exit_tfm(struct crypto_shash *tfm)
{
	memzero_explicit(crypto_shash_ctx(tfm), sizeof(struct padlock_hmac_ctx));
}

/* ---- registration ------------------------------------------------------ */

/* NAME, NAME-padlock, described by padlock_NAME_info. */
#define PADLOCK_SHA_ALG(name) {						\
	.info = &padlock_##name##_info,					\
	.alg.base.cra_name = #name,					\
	.alg.base.cra_driver_name = #name "-padlock",			\
	.alg.base.cra_module = THIS_MODULE,				\
}

/* hmac(NAME), hmac-NAME-padlock */
#define PADLOCK_HMAC_ALG(name) {					\
	.info = &padlock_##name##_info,	.hmac = true,			\
	.alg.base.cra_name = "hmac(" #name ")",				\
	.alg.base.cra_driver_name = "hmac-" #name "-padlock",		\
	.alg.base.cra_module = THIS_MODULE,				\
}

static struct padlock_sha_alg padlock_sha_algs[] = {
	PADLOCK_SHA_ALG(sha1),
	PADLOCK_SHA_ALG(sha224),
	PADLOCK_SHA_ALG(sha256),
	PADLOCK_SHA_ALG(sha384),
	PADLOCK_SHA_ALG(sha512),
	PADLOCK_HMAC_ALG(sha1),
	PADLOCK_HMAC_ALG(sha224),
	PADLOCK_HMAC_ALG(sha256),
	PADLOCK_HMAC_ALG(sha384),
	PADLOCK_HMAC_ALG(sha512),
};

static void padlock_sha_setup_alg(struct padlock_sha_alg *a)
{
	const struct padlock_sha_info *pi = a->info;
	struct shash_alg *alg = &a->alg;
	bool sha_ni_alg;

	/* hmac: its own ends and key; the inner hash's descriptor, export, import */
	alg->digestsize = pi->ds;
	alg->init = a->hmac ? padlock_hmac_init : padlock_sha_init;
	alg->update = padlock_sha_update;
	alg->final = a->hmac ? padlock_hmac_final : padlock_sha_final;
	alg->finup = a->hmac ? padlock_hmac_finup : padlock_sha_finup;
	alg->digest = a->hmac ? padlock_hmac_digest : padlock_sha_digest;
	if (a->hmac) {
		alg->setkey = padlock_hmac_setkey;
		alg->exit_tfm = padlock_hmac_exit_tfm;
		alg->base.cra_ctxsize = sizeof(struct padlock_hmac_ctx);
	}
	alg->export = padlock_sha_export;
	alg->import = PADLOCK_SHA_IMPORT_STRICT ? padlock_sha_import_strict :
						  padlock_sha_import;
	padlock_shash_set_export_core(alg, padlock_sha_export_core,
				      padlock_sha_import_core);
	alg->descsize = pi->desc_size;
	alg->statesize = pi->generic_size + 1;
	if (PADLOCK_SHA_STATE_TOTAL) {
		alg->export = padlock_sha_export_total;
		alg->import = padlock_sha_import_total;
		alg->statesize = pi->generic_size;
	}
	/* hmac: above the hmac template over our own hashes */
	sha_ni_alg = pi->engine == PADLOCK_SHA_XSHA1 || pi->engine == PADLOCK_SHA_XSHA256;
	alg->base.cra_priority = padlock_cpu_sha_priority(priority, sha_ni_alg) + a->hmac;
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

/* Our descriptor @ours starts with the generic drivers' state @theirs. */
#define PADLOCK_SHA_SAME_LAYOUT(ours, theirs, buffer) do {			\
	BUILD_BUG_ON(offsetof(ours, count) != offsetof(theirs, count));	\
	BUILD_BUG_ON(offsetof(ours, buf) != offsetof(theirs, buffer));	\
	BUILD_BUG_ON(offsetof(ours, partial) != sizeof(theirs));		\
} while (0)

static int __init padlock_sha_mod_init(void)
{
	static const char * const names[] = {
		[PADLOCK_SHA_FINAL_ONLY] = "VIA C7: software updates, final-mode end",
		[PADLOCK_SHA_NANO] = "VIA Nano: block-mode updates, final-mode end",
		[PADLOCK_SHA_ZHAOXIN] = "Zhaoxin: block mode, software padding",
	};
	bool phe2;
	int i, err, prio;

	/* export, import and the generic drivers' states: the same bytes */
	PADLOCK_SHA_SAME_LAYOUT(struct padlock_sha1_desc, struct sha1_state, buffer);
	PADLOCK_SHA_SAME_LAYOUT(struct padlock_sha256_desc, struct sha256_state, buf);
	PADLOCK_SHA_SAME_LAYOUT(struct padlock_sha512_desc, struct sha512_state, buf);

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
	prio = padlock_cpu_sha_priority(priority, true);
	if (prio != padlock_cpu_sha_priority(priority, false))
		pr_info("CPU also has SHA-NI: sha1/sha224/sha256 priority %d (hmac %d), below the kernel's SHA-NI drivers, so the kernel prefers SHA-NI (priority=%d prefers PadLock)\n",
			prio, prio + 1, PADLOCK_SHA_PRIORITY);
	pr_info("PadLock PHE%s: %s, priority %d (hmac %d)\n", phe2 ? "+PHE2" : "",
		names[padlock_sha_mode], prio, prio + 1);
	return 0;
}

static void __exit padlock_sha_mod_exit(void)
{
	padlock_sha_unregister_all();
}

module_init(padlock_sha_mod_init);
module_exit(padlock_sha_mod_exit);

MODULE_DESCRIPTION("VIA/Zhaoxin PadLock PHE SHA-1/SHA-224/SHA-256/SHA-384/SHA-512 and HMAC");
MODULE_LICENSE("GPL");
MODULE_VERSION(PADLOCK_VERSION);
/*
 * Autoload: the CPU-feature modalias (MODULE_DEVICE_TABLE above) loads the
 * module where PadLock exists; the aliases are the driver names only, so
 * that looking up a generic name ("sha256", "hmac(sha256)") on any machine
 * does not try to load it.
 */
MODULE_ALIAS_CRYPTO("sha1-padlock");
MODULE_ALIAS_CRYPTO("sha224-padlock");
MODULE_ALIAS_CRYPTO("sha256-padlock");
MODULE_ALIAS_CRYPTO("sha384-padlock");
MODULE_ALIAS_CRYPTO("sha512-padlock");
MODULE_ALIAS_CRYPTO("hmac-sha1-padlock");
MODULE_ALIAS_CRYPTO("hmac-sha224-padlock");
MODULE_ALIAS_CRYPTO("hmac-sha256-padlock");
MODULE_ALIAS_CRYPTO("hmac-sha384-padlock");
MODULE_ALIAS_CRYPTO("hmac-sha512-padlock");
