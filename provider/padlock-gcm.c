// SPDX-License-Identifier: GPL-2.0
/*
 * AES-GCM on PadLock ACE: the message (J0, the counter mode through
 * padlock-aes.c, AAD and data hashed, the tag) and GHASH.
 *
 * The counter mode runs on PadLock as padlock-aes.c runs CTR (with GCM's
 * 32-bit counter); GHASH is computed in software in constant time: the
 * multiplication in GF(2^128) is a carry-less product made of integer
 * multiplications of operands with every fifth bit kept (64x64->128 on
 * 64-bit builds) or every fourth (32x32->64 on 32-bit ones), Karatsuba on
 * top, and a reduction by shifts and XORs, so no branch and no memory
 * address depends on the data, the key or H; what is known of the
 * multiplier's timing is in provider/README.md ("GHASH in constant time").
 * H and the key schedule are computed when the key is set; a message
 * costs E(J0) and its blocks.
 */
#include <string.h>
#include <sys/random.h>
#include "padlock-prov.h"
#include "padlock-aes.h"

/* ---- GHASH, constant time (see above) ---- */

static uint64_t load_be64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return __builtin_bswap64(v);	/* x86 is little-endian */
}

static void store_be64(unsigned char *p, uint64_t v)
{
	int i;

	for (i = 7; i >= 0; i--) {
		p[i] = (unsigned char)v;
		v >>= 8;
	}
}

/*
 * Carry-less (GF(2)[x]) multiplication from integer multiplications.
 * Each operand is split into words that keep every k-th bit (k = 4: bits
 * 0, 4, 8, ... in the first word, 1, 5, 9, ... in the next), so between
 * two kept bits there are k - 1 zero bits.  In the integer product of two
 * such words the positions of one class (equal modulo k) receive sums of
 * one-bit products; while a sum stays below 2^k it fits in the k bits up
 * to the next position of its class, no carry reaches a bit that is kept,
 * and the sum's lowest bit is their XOR: the carry-less product's bit.
 * The products whose classes add up to one class are XORed and masked to
 * it.  Nothing here branches or indexes memory on the operands; the time
 * is constant as far as MUL's is (provider/README.md, "GHASH in constant
 * time").
 */
#if UINTPTR_MAX > 0xffffffffu
/*
 * 64-bit builds: 64x64->128 multiplications (one MUL each) of words that
 * keep every fifth bit: at most 13 kept bits per word, sums of at most 13,
 * below 2^5.  Classes modulo 5; bit 64 + q of a product is in the class
 * of q + 4.
 */
static const uint64_t clmul_mask[5] = {
	0x1084210842108421ULL, 0x2108421084210842ULL, 0x4210842108421084ULL,
	0x8421084210842108ULL, 0x0842108421084210ULL,
};

static void clmul64_split(pl_hword w[PL_HWORDS], uint64_t v)
{
	int i;

	for (i = 0; i < 5; i++)
		w[i] = v & clmul_mask[i];
}

/* r = a * b, 128 bits (r[0] high); b as clmul64_split() made it. */
static void clmul64(uint64_t r[2], uint64_t a, const pl_hword b[PL_HWORDS])
{
	uint64_t x[5], hi = 0, lo = 0;
	unsigned __int128 z;
	int i, k;

	for (i = 0; i < 5; i++)
		x[i] = a & clmul_mask[i];
#pragma GCC unroll 5
	for (k = 0; k < 5; k++) {
		z = 0;
#pragma GCC unroll 5
		for (i = 0; i < 5; i++)
			z ^= (unsigned __int128)x[i] * b[(k + 5 - i) % 5];
		lo |= (uint64_t)z & clmul_mask[k];
		hi |= (uint64_t)(z >> 64) & clmul_mask[(k + 1) % 5];
	}
	r[0] = hi;
	r[1] = lo;
}
#else
/*
 * 32-bit builds: the 64-bit product of two 32-bit words that keep every
 * fourth bit: 8 kept bits per word, sums of at most 8, below 2^4.  Each
 * multiplication is one 32x32->64 MUL.
 */
static uint64_t clmul32(uint32_t x, uint32_t y)
{
	const uint32_t m0 = 0x11111111, m1 = 0x22222222;
	const uint32_t m2 = 0x44444444, m3 = 0x88888888;
	uint32_t x0 = x & m0, x1 = x & m1, x2 = x & m2, x3 = x & m3;
	uint32_t y0 = y & m0, y1 = y & m1, y2 = y & m2, y3 = y & m3;
	uint64_t z0, z1, z2, z3;

	z0 = (uint64_t)x0 * y0 ^ (uint64_t)x1 * y3 ^
	     (uint64_t)x2 * y2 ^ (uint64_t)x3 * y1;
	z1 = (uint64_t)x0 * y1 ^ (uint64_t)x1 * y0 ^
	     (uint64_t)x2 * y3 ^ (uint64_t)x3 * y2;
	z2 = (uint64_t)x0 * y2 ^ (uint64_t)x1 * y1 ^
	     (uint64_t)x2 * y0 ^ (uint64_t)x3 * y3;
	z3 = (uint64_t)x0 * y3 ^ (uint64_t)x1 * y2 ^
	     (uint64_t)x2 * y1 ^ (uint64_t)x3 * y0;
	return (z0 & 0x1111111111111111ULL) | (z1 & 0x2222222222222222ULL) |
	       (z2 & 0x4444444444444444ULL) | (z3 & 0x8888888888888888ULL);
}

static void clmul64_split(pl_hword w[PL_HWORDS], uint64_t v)
{
	w[0] = (uint32_t)(v >> 32);
	w[1] = (uint32_t)v;
	w[2] = w[0] ^ w[1];
}

/* r = a * b, 128 bits (r[0] high); Karatsuba on 32-bit halves. */
static void clmul64(uint64_t r[2], uint64_t a, const pl_hword b[PL_HWORDS])
{
	uint32_t a1 = (uint32_t)(a >> 32), a0 = (uint32_t)a;
	uint64_t hi = clmul32(a1, b[0]), lo = clmul32(a0, b[1]);
	uint64_t mid = clmul32(a1 ^ a0, b[2]) ^ hi ^ lo;

	r[0] = hi ^ mid >> 32;
	r[1] = lo ^ mid << 32;
}
#endif

/*
 * H for gf128_mul(): its 64-bit halves and their sum (Karatsuba's three
 * products), each split for clmul64().
 */
void pl_ghash_setkey(struct pl_aes *c, const unsigned char *h)
{
	uint64_t h1 = load_be64(h), h0 = load_be64(h + 8);

	clmul64_split(c->hk, h1);
	clmul64_split(c->hk + PL_HWORDS, h0);
	clmul64_split(c->hk + 2 * PL_HWORDS, h1 ^ h0);
}

/*
 * x = x * H in GCM's field.  GCM stores the coefficient of x^0 in the most
 * significant bit, so the 128-bit integers are the polynomials with their
 * bits reversed; their carry-less product (Karatsuba on 64-bit halves) is
 * the product's 255 bits reversed, and one shift to the left makes it the
 * reversed 256-bit product.  The reduction by x^128 + x^7 + x^2 + x + 1
 * then folds the low 128 bits (degrees 128 to 255) into the high ones,
 * the lowest word first: shifts and XORs only.
 */
static void gf128_mul(uint64_t x[2], const pl_hword *hk)
{
	uint64_t hh[2], ll[2], mm[2], v0, v1, v2, v3;

	clmul64(hh, x[0], hk);
	clmul64(ll, x[1], hk + PL_HWORDS);
	clmul64(mm, x[0] ^ x[1], hk + 2 * PL_HWORDS);
	v3 = hh[0];
	v2 = hh[1] ^ mm[0] ^ hh[0] ^ ll[0];
	v1 = ll[0] ^ mm[1] ^ hh[1] ^ ll[1];
	v0 = ll[1];
	v3 = v3 << 1 | v2 >> 63;
	v2 = v2 << 1 | v1 >> 63;
	v1 = v1 << 1 | v0 >> 63;
	v0 <<= 1;
	v2 ^= v0 ^ v0 >> 1 ^ v0 >> 2 ^ v0 >> 7;
	v1 ^= v0 << 63 ^ v0 << 62 ^ v0 << 57;
	v3 ^= v1 ^ v1 >> 1 ^ v1 >> 2 ^ v1 >> 7;
	v2 ^= v1 << 63 ^ v1 << 62 ^ v1 << 57;
	x[0] = v3;
	x[1] = v2;
}

static void ghash_block(uint64_t s[2], const pl_hword *hk, const unsigned char *b)
{
	s[0] ^= load_be64(b);
	s[1] ^= load_be64(b + 8);
	gf128_mul(s, hk);
}

static void ghash_update(struct pl_aes *c, const unsigned char *p, size_t n)
{
	if (c->gbufn) {
		size_t k = 16 - c->gbufn < n ? 16 - c->gbufn : n;

		memcpy(c->gbuf + c->gbufn, p, k);
		c->gbufn += k;
		p += k;
		n -= k;
		if (c->gbufn < 16)
			return;
		ghash_block(c->s, c->hk, c->gbuf);
		c->gbufn = 0;
	}
	for (; n >= 16; n -= 16, p += 16)
		ghash_block(c->s, c->hk, p);
	memcpy(c->gbuf, p, n);
	c->gbufn = n;
}

/* Zero-pad a partial block of AAD or ciphertext into the hash. */
static void ghash_flush(struct pl_aes *c)
{
	if (!c->gbufn)
		return;
	memset(c->gbuf + c->gbufn, 0, 16 - c->gbufn);
	ghash_block(c->s, c->hk, c->gbuf);
	c->gbufn = 0;
}

void pl_gcm_start(struct pl_aes *c)
{
	unsigned char lens[16];

	if (c->ivlen == 12) {
		memcpy(c->j0, c->oiv, 12);
		memset(c->j0 + 12, 0, 4);
		c->j0[15] = 1;
	} else {
		c->s[0] = 0;
		c->s[1] = 0;
		c->gbufn = 0;
		ghash_update(c, c->oiv, c->ivlen);
		ghash_flush(c);
		memset(lens, 0, 8);
		store_be64(lens + 8, (uint64_t)c->ivlen * 8);
		ghash_block(c->s, c->hk, lens);
		store_be64(c->j0, c->s[0]);
		store_be64(c->j0 + 8, c->s[1]);
	}
	memcpy(c->iv, c->j0, 16);
	pl_ctr_inc(c->iv, 15, 12);
	c->s[0] = 0;
	c->s[1] = 0;
	c->gbufn = 0;
	c->aadlen = 0;
	c->ctlen = 0;
	c->num = 0;
	c->data_started = 0;
	c->tag_ready = 0;
}

/*
 * A message encrypted without an IV gets a random one of the IV length
 * (12 bytes unless set longer; at least 12), which the caller reads back
 * as the cipher's IV, as OpenSSL's own GCM does.  Only for a key that has
 * not served a message since its IV was set: the IV of a finished message
 * is never made up again, and decryption needs the sender's IV.
 */
static int gcm_need_iv(struct pl_aes *c)
{
	if (c->iv_set)
		return 1;
	if (!c->key_set) {
		PL_ERR(c->pc, PL_R_NO_KEY_SET);
		return 0;
	}
	if (!c->enc || c->iv_spent || c->ivlen < 12) {
		PL_ERR(c->pc, PL_R_NO_IV_SET);
		return 0;
	}
	if (getrandom(c->oiv, c->ivlen, 0) != (ssize_t)c->ivlen) {
		PL_ERR(c->pc, PL_R_RANDOM);
		return 0;
	}
	c->iv_set = 1;
	pl_gcm_start(c);
	return 1;
}

int pl_gcm_update(struct pl_aes *c, unsigned char *out, size_t *outl,
		  size_t outsize, const unsigned char *in, size_t inl)
{
	*outl = 0;
	if (!gcm_need_iv(c))
		return 0;
	if (!out) {			/* additional authenticated data */
		if (c->data_started) {
			PL_ERR(c->pc, PL_R_UNSUPPORTED);
			return 0;
		}
		if (inl > PL_GCM_MAX_AAD - c->aadlen) {
			PL_ERR(c->pc, PL_R_MESSAGE_TOO_LONG);
			return 0;
		}
		ghash_update(c, in, inl);
		c->aadlen += inl;
		*outl = inl;
		return 1;
	}
	if (outsize < inl) {
		PL_ERR(c->pc, PL_R_OUTPUT_BUFFER_TOO_SMALL);
		return 0;
	}
	if (inl > PL_GCM_MAX_DATA - c->ctlen) {
		PL_ERR(c->pc, PL_R_MESSAGE_TOO_LONG);
		return 0;
	}
	if (!c->data_started) {
		ghash_flush(c);
		c->data_started = 1;
	}
	while (inl) {			/* in pieces: in and out may be the same */
		size_t n = inl < 4096 ? inl : 4096;

		if (!c->enc)
			ghash_update(c, in, n);
		pl_ctr_stream(c, out, in, n, 12);
		if (c->enc)
			ghash_update(c, out, n);
		c->ctlen += n;
		in += n;
		out += n;
		inl -= n;
		*outl += n;
	}
	return 1;
}

/* The full 16-byte tag of the message hashed so far. */
void pl_gcm_tag(struct pl_aes *c, unsigned char *tag)
{
	unsigned char lens[16];

	ghash_flush(c);
	store_be64(lens, c->aadlen * 8);
	store_be64(lens + 8, c->ctlen * 8);
	ghash_block(c->s, c->hk, lens);
	pl_aes_encrypt1(c, tag, c->j0);
	store_be64(lens, c->s[0]);
	store_be64(lens + 8, c->s[1]);
	pl_xor_bytes(tag, tag, lens, 16);
}

int pl_gcm_final(struct pl_aes *c, size_t *outl)
{
	unsigned char tag[16];
	unsigned int diff;

	*outl = 0;
	if (!gcm_need_iv(c))
		return 0;
	pl_gcm_tag(c, tag);
	c->iv_set = 0;			/* an IV serves one message */
	c->iv_spent = 1;
	if (c->enc) {
		memcpy(c->tag, tag, 16);
		c->tag_ready = 1;
		return 1;
	}
	if (!c->tag_set) {
		PL_ERR(c->pc, PL_R_INVALID_TAG);
		return 0;
	}
	diff = pl_bytes_differ(tag, c->tag, c->taglen);
	pl_cleanse(tag, sizeof(tag));
	if (diff) {
		PL_ERR(c->pc, PL_R_BAD_DECRYPT);
		return 0;
	}
	return 1;
}
