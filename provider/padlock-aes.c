// SPDX-License-Identifier: GPL-2.0
/*
 * AES on PadLock ACE: ECB, CBC, CTR, CFB, OFB and GCM, with OpenSSL's
 * names, padding, IV handling and streaming updates.
 *
 * Keys.  The engine takes a software key schedule (control word keygen = 1,
 * docs/hardware.md 1.3, 1.4): round keys in FIPS-197 byte order, the
 * decryption schedule as the equivalent inverse cipher.  The expansion is
 * computed here without table lookups: the S-box value is the GF(2^8)
 * inverse (x^254) and the affine map, so nothing indexed by key bytes.
 * Schedules are 256 bytes (the engine may read 16 round keys), 16-byte
 * aligned, and wiped when the context is freed or re-keyed.  Only ECB and
 * CBC decrypt with the inverse cipher, so only they get a decryption
 * schedule.  A context given the key it already holds (OpenSSL callers
 * that pass the key with every new IV) keeps its schedules and GHASH key:
 * everything derived from the key belongs to the key, not to the message.
 *
 * Buffers.  Every operand must be 16-byte aligned (docs/hardware.md 2.1),
 * and ECB/CBC read whole fetch groups past the end of their input (2.2:
 * 2/1 blocks, 8/4 on VIA Nano stepping 2).  Data goes straight to the
 * engine when input and output are aligned, in a multiple of the fetch
 * group, or whole when the over-read stays in the page of the last input
 * byte; the rest (unaligned data, the last blocks of a request that ends
 * near a page boundary) goes through the context's aligned bounce buffer,
 * which has a fetch group of spare room after it.  CFB and OFB are
 * treated with ECB's fetch size.
 *
 * CTR.  On 64-bit capable Nano/Zhaoxin parts with ACE2 the keystream comes
 * from rep xcrypt-ctr over zeroes; that counter only counts its low 16 bits
 * (docs/hardware.md 1.2), so no instruction crosses a 2^16 boundary and
 * the carry is done here.  Elsewhere (C3, C7) the counter blocks are
 * encrypted with xcrypt-ecb.
 *
 * GCM (GHASH and the message) is in padlock-gcm.c, the TLS record code in
 * padlock-tls.c; what they share with this file is in padlock-aes.h.
 */
#include <stdlib.h>
#include <string.h>
#include "padlock-prov.h"
#include "padlock-aes.h"
#include "padlock-user-asm.h"

/* ---- key expansion, constant time ---- */

static uint8_t gf8_mul(unsigned int a, unsigned int b)
{
	unsigned int p = 0;
	int i;

	for (i = 0; i < 8; i++) {
		p ^= a & (0u - (b & 1));
		a = (a << 1) ^ (0x11bu & (0u - (a >> 7 & 1)));
		b >>= 1;
	}
	return (uint8_t)p;
}

static uint8_t aes_sbox(uint8_t x)
{
	unsigned int r = x, b;
	int i;

	for (i = 0; i < 6; i++)		/* x^127 */
		r = gf8_mul(gf8_mul(r, r), x);
	b = gf8_mul(r, r);		/* x^254 = x^-1, 0 for 0 */
	b = b ^ (b << 1) ^ (b << 2) ^ (b << 3) ^ (b << 4);
	b = (b ^ (b >> 8)) & 0xff;
	return (uint8_t)(b ^ 0x63);
}

/* The encryption schedule into ek, the decryption one into dk unless NULL. */
static void aes_expand(const unsigned char *key, size_t keylen,
		       unsigned char *ek, unsigned char *dk)
{
	unsigned int nk = (unsigned int)keylen / 4, nr = nk + 6, i, j, r;
	unsigned int rcon = 1;
	unsigned char t[4], *w = ek;

	memcpy(w, key, keylen);
	for (i = nk; i < 4 * (nr + 1); i++) {
		memcpy(t, w + 4 * (i - 1), 4);
		if (i % nk == 0) {
			unsigned char t0 = t[0];

			t[0] = aes_sbox(t[1]) ^ (uint8_t)rcon;
			t[1] = aes_sbox(t[2]);
			t[2] = aes_sbox(t[3]);
			t[3] = aes_sbox(t0);
			rcon = gf8_mul(rcon, 2);
		} else if (nk > 6 && i % nk == 4) {
			for (j = 0; j < 4; j++)
				t[j] = aes_sbox(t[j]);
		}
		for (j = 0; j < 4; j++)
			w[4 * i + j] = w[4 * (i - nk) + j] ^ t[j];
	}
	/* equivalent inverse cipher: reversed, InvMixColumns inside */
	for (r = 0; dk && r <= nr; r++) {
		const unsigned char *src = ek + 16 * (nr - r);
		unsigned char *dst = dk + 16 * r;

		if (r == 0 || r == nr) {
			memcpy(dst, src, 16);
			continue;
		}
		for (j = 0; j < 16; j += 4) {
			unsigned int a0 = src[j], a1 = src[j + 1];
			unsigned int a2 = src[j + 2], a3 = src[j + 3];

			dst[j] = gf8_mul(a0, 14) ^ gf8_mul(a1, 11) ^
				 gf8_mul(a2, 13) ^ gf8_mul(a3, 9);
			dst[j + 1] = gf8_mul(a0, 9) ^ gf8_mul(a1, 14) ^
				     gf8_mul(a2, 11) ^ gf8_mul(a3, 13);
			dst[j + 2] = gf8_mul(a0, 13) ^ gf8_mul(a1, 9) ^
				     gf8_mul(a2, 14) ^ gf8_mul(a3, 11);
			dst[j + 3] = gf8_mul(a0, 11) ^ gf8_mul(a1, 13) ^
				     gf8_mul(a2, 9) ^ gf8_mul(a3, 14);
		}
	}
}

/* Control word (docs/hardware.md 1.3): rounds, keygen = 1, encdec, ksize. */
static void aes_cword(unsigned char *cw, size_t keylen, int decrypt)
{
	uint32_t w = (uint32_t)(keylen / 4 + 6) | 1u << 7 |
		     (decrypt ? 1u << 9 : 0) | (uint32_t)(keylen / 8 - 2) << 10;

	memset(cw, 0, 16);
	memcpy(cw, &w, 4);
}

static void aes_setkey(struct pl_aes *c, const unsigned char *key)
{
	int inverse = c->mode == PL_ECB || c->mode == PL_CBC;

	aes_expand(key, c->keylen, c->ekey, inverse ? c->dkey : NULL);
	aes_cword(c->cw_enc, c->keylen, 0);
	aes_cword(c->cw_dec, c->keylen, 1);
	aes_cword(c->cw_cfbdec, c->keylen, 1);
	c->key_set = 1;
}

/* ---- running the engine ---- */

/* One instruction; the chaining value comes back into c->iv. */
static void aes_hw(struct pl_aes *c, int mode, const unsigned char *cw,
		   const unsigned char *key, unsigned char *out,
		   const unsigned char *in, size_t n)
{
	void *next;

	/* ECB first: its calls are the shortest, so one compare there weighs most */
	if (mode == PL_ECB) {
		plu_xcrypt_ecb(in, out, n, cw, key);
		return;
	}
	switch (mode) {
	case PL_CBC:
		next = plu_xcrypt_cbc(in, out, n, cw, key, c->iv);
		break;
	case PL_CFB:
		next = plu_xcrypt_cfb(in, out, n, cw, key, c->iv);
		break;
	default:
		next = plu_xcrypt_ofb(in, out, n, cw, key, c->iv);
		break;
	}
	if (next != c->iv)
		memcpy(c->iv, next, 16);
}

/*
 * Whether an instruction over n blocks at in may run on the caller's
 * buffer although n is not a multiple of the fetch group: the over-read
 * (n rounded up to whole groups, docs/hardware.md 2.2) stays in the page of
 * the last input byte, which is readable since that byte is.  Fetch groups
 * are 1, 2, 4 or 8 blocks.
 */
static int overread_in_page(const unsigned char *in, size_t n, size_t fetch)
{
	uintptr_t last = (uintptr_t)in + n * 16 - 1;
	uintptr_t end = (uintptr_t)in + ((n + fetch - 1) & ~(fetch - 1)) * 16 - 1;

	return last / PL_PAGE == end / PL_PAGE;
}

/*
 * n whole blocks, in place or not, any alignment: straight to the engine
 * when both buffers are aligned, in multiples of the fetch group, or all
 * n blocks in one instruction if the over-read stays in the input's last
 * page; the rest through the bounce buffer (whose spare room takes the
 * over-read).
 */
void pl_aes_blocks(struct pl_aes *c, int mode, const unsigned char *cw,
		   const unsigned char *key, unsigned char *out,
		   const unsigned char *in, size_t n)
{
	size_t fetch = mode == PL_CBC ? pl_cpu.cbc_fetch : pl_cpu.ecb_fetch;

	while (n) {
		const unsigned char *src = in;
		unsigned char *dst = out;
		size_t m = n & ~(fetch - 1);

		if (m != n && overread_in_page(in, n, fetch))
			m = n;
		if (!m || (((uintptr_t)in | (uintptr_t)out) & 15)) {
			m = n < PL_BOUNCE_BLOCKS ? n : PL_BOUNCE_BLOCKS;
			memcpy(c->bounce, in, m * 16);
			src = c->bounce;
			dst = c->bounce;
		}
		/* one call site: the compiler inlines the instruction here */
		aes_hw(c, mode, cw, key, dst, src, m);
		if (dst != out)
			memcpy(out, dst, m * 16);
		in += m * 16;
		out += m * 16;
		n -= m;
	}
}

/* Counter + 1 over bytes 15 ... first (0: 128-bit CTR, 12: GCM's 32 bits). */
void pl_ctr_inc(unsigned char *ctr, int from, int first)
{
	int i;

	for (i = from; i >= first; i--)
		if (++ctr[i])
			break;
}

/*
 * n (<= PL_BOUNCE_BLOCKS) keystream blocks into c->bounce from the counter
 * in c->iv, which advances by n.
 */
static void ctr_keystream(struct pl_aes *c, size_t n, int first)
{
	unsigned char *ks = c->bounce;
	size_t i;

	if (pl_cpu.ctr_hw) {
		memset(ks, 0, n * 16);
		while (n) {
			size_t low = (size_t)c->iv[14] << 8 | c->iv[15];
			size_t m = n < 65536 - low ? n : 65536 - low;

			plu_xcrypt_ctr(ks, ks, m, c->cw_enc, c->ekey, c->iv);
			if (low + m == 65536)	/* the engine wrapped 16 bits */
				pl_ctr_inc(c->iv, 13, first);
			ks += m * 16;
			n -= m;
		}
		return;
	}
	for (i = 0; i < n; i++) {
		memcpy(ks + 16 * i, c->iv, 16);
		pl_ctr_inc(c->iv, 15, first);
	}
	plu_xcrypt_ecb(ks, ks, n, c->cw_enc, c->ekey);
}

/* E(K, block) for a single 16-byte block (aligned or not). */
void pl_aes_encrypt1(struct pl_aes *c, unsigned char *out, const unsigned char *in)
{
	memcpy(c->bounce, in, 16);
	plu_xcrypt_ecb(c->bounce, c->bounce, 1, c->cw_enc, c->ekey);
	memcpy(out, c->bounce, 16);
}

/*
 * out = a ^ b, eight bytes at a time (the keystream of CTR, OFB and GCM:
 * byte by byte this cost several times the engine's own time).  out may
 * be a, not overlap it otherwise.
 */
void pl_xor_bytes(unsigned char *out, const unsigned char *a,
		  const unsigned char *b, size_t n)
{
	size_t i = 0;

	for (; n - i >= 8; i += 8) {
		uint64_t x, y;

		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		x ^= y;
		memcpy(out + i, &x, 8);
	}
	for (; i < n; i++)
		out[i] = a[i] ^ b[i];
}

/* Nonzero if the n bytes differ; the time does not depend on where. */
unsigned int pl_bytes_differ(const unsigned char *a, const unsigned char *b,
			     size_t n)
{
	unsigned int diff = 0;
	size_t i;

	for (i = 0; i < n; i++)
		diff |= a[i] ^ b[i];
	return diff;
}


/* ---- contexts ---- */

static void *aes_newctx(void *provctx, int mode, size_t keylen)
{
	struct pl_aes *c = pl_zalloc_aligned(sizeof(*c));

	if (!c) {
		PL_ERR(provctx, PL_R_MALLOC_FAILURE);
		return NULL;
	}
	c->pc = provctx;
	c->mode = mode;
	c->keylen = keylen;
	c->ivlen = mode == PL_ECB ? 0 : mode == PL_GCM ? 12 : 16;
	c->pad = 1;
	c->taglen = 16;
	return c;
}

static void aes_freectx(void *vc)
{
	pl_free_aligned(vc, sizeof(struct pl_aes));
}

static void *aes_dupctx(void *vc)
{
	struct pl_aes *c = vc, *d = pl_zalloc_aligned(sizeof(*d));

	if (!d) {
		PL_ERR(c->pc, PL_R_MALLOC_FAILURE);
		return NULL;
	}
	memcpy(d, c, sizeof(*d));
	return d;
}

/* Everything that depends on the key alone: schedules, GCM's H. */
static void aes_rekey(struct pl_aes *c, const unsigned char *key)
{
	pl_cleanse(c->ekey, sizeof(c->ekey));
	pl_cleanse(c->dkey, sizeof(c->dkey));
	/* data and keystream of the old key */
	pl_cleanse(c->bounce, sizeof(c->bounce));
	pl_cleanse(c->ks, sizeof(c->ks));
	memcpy(c->rawkey, key, c->keylen);
	aes_setkey(c, key);
	if (c->mode == PL_GCM) {
		unsigned char zero[16] = { 0 }, h[16];

		pl_aes_encrypt1(c, h, zero);
		pl_ghash_setkey(c, h);
		pl_cleanse(h, sizeof(h));
	}
}

static int aes_init(void *vc, const unsigned char *key, size_t keylen,
		    const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[],
		    int enc);
static int aes_set_ctx_params(void *vc, const OSSL_PARAM params[]);

static int aes_einit(void *vc, const unsigned char *key, size_t keylen,
		     const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[])
{
	return aes_init(vc, key, keylen, iv, ivlen, params, 1);
}

static int aes_dinit(void *vc, const unsigned char *key, size_t keylen,
		     const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[])
{
	return aes_init(vc, key, keylen, iv, ivlen, params, 0);
}

static int aes_init(void *vc, const unsigned char *key, size_t keylen,
		    const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[],
		    int enc)
{
	struct pl_aes *c = vc;

	c->enc = enc;
	c->bufsz = 0;
	/* (GCM keeps its place in the message: pl_gcm_start() resets it) */
	if (c->mode != PL_GCM)
		c->num = 0;
	/*
	 * A GCM tag set for decryption stays: OpenSSL's own evp_test and its
	 * CMS code set it before the init that gives key and IV.
	 */
	c->tag_ready = 0;
	if (!aes_set_ctx_params(c, params))
		return 0;
	if (iv && c->mode != PL_ECB) {
		if (ivlen != c->ivlen) {
			PL_ERR(c->pc, PL_R_INVALID_IV_LENGTH);
			return 0;
		}
		memcpy(c->oiv, iv, ivlen);
		if (c->mode != PL_GCM)
			memcpy(c->iv, iv, 16);
		c->iv_set = 1;
		c->iv_spent = 0;
	} else if (c->iv_set && (c->mode == PL_CBC || c->mode == PL_CFB ||
				 c->mode == PL_OFB)) {
		/*
		 * A new key or a restart without IV: CBC, CFB and OFB start
		 * again from the IV given last, as OpenSSL's do.  CTR goes on
		 * from its counter (the keystream must not repeat), dropping
		 * what is left of a partial block, as OpenSSL's does.
		 */
		memcpy(c->iv, c->oiv, 16);
	}
	if (key) {
		if (keylen != c->keylen) {
			PL_ERR(c->pc, PL_R_INVALID_KEY_LENGTH);
			return 0;
		}
		/*
		 * The same key again (a new IV for the next message): the
		 * schedules and H are those of this key already.  Whether
		 * the key changed is all the comparison's time tells.
		 */
		if (!c->key_set || pl_bytes_differ(key, c->rawkey, keylen))
			aes_rekey(c, key);
	}
	if (c->mode == PL_GCM && c->key_set && c->iv_set) {
		/*
		 * A new IV, or key and IV complete before the message began:
		 * the message starts.  A re-init with neither in the middle of
		 * a message goes on with it, as OpenSSL's does; a new key in
		 * the middle of one ends it, and its IV serves no other (never
		 * the same keystream twice).
		 */
		if (iv || (!c->data_started && !c->aadlen)) {
			pl_gcm_start(c);
		} else if (key) {
			c->iv_set = 0;
			c->iv_spent = 1;
		}
	}
	return 1;
}

/* ECB / CBC with OpenSSL's block buffering and PKCS#7 padding. */
static int block_update(struct pl_aes *c, unsigned char *out, size_t *outl,
			size_t outsize, const unsigned char *in, size_t inl)
{
	const unsigned char *cw = c->enc ? c->cw_enc : c->cw_dec;
	const unsigned char *key = c->enc ? c->ekey : c->dkey;
	size_t total = c->bufsz + inl, want = total / 16;

	if (!c->enc && c->pad && want && total % 16 == 0)
		want--;			/* the last block may be padding */
	if (outsize < want * 16) {
		PL_ERR(c->pc, PL_R_OUTPUT_BUFFER_TOO_SMALL);
		return 0;
	}
	*outl = want * 16;
	if (c->bufsz) {
		size_t k = 16 - c->bufsz < inl ? 16 - c->bufsz : inl;

		memcpy(c->buf + c->bufsz, in, k);
		c->bufsz += k;
		in += k;
		inl -= k;
		if (c->bufsz == 16 && want) {
			pl_aes_blocks(c, c->mode, cw, key, out, c->buf, 1);
			out += 16;
			want--;
			c->bufsz = 0;
		}
	}
	if (want) {
		/*
		 * ECB on aligned buffers that pl_aes_blocks() would run in one
		 * instruction (whole fetch groups, or an over-read that stays
		 * in the last input page): that instruction here, without its
		 * call and loop (ECB's calls are the shortest)
		 */
		if (c->mode == PL_ECB && !(((uintptr_t)in | (uintptr_t)out) & 15) &&
		    (!(want & (pl_cpu.ecb_fetch - 1)) ||
		     overread_in_page(in, want, pl_cpu.ecb_fetch)))
			plu_xcrypt_ecb(in, out, want, cw, key);
		else
			pl_aes_blocks(c, c->mode, cw, key, out, in, want);
		in += want * 16;
		inl -= want * 16;
	}
	if (inl) {
		memcpy(c->buf + c->bufsz, in, inl);
		c->bufsz += inl;
	}
	return 1;
}

static int block_final(struct pl_aes *c, unsigned char *out, size_t *outl,
		       size_t outsize)
{
	unsigned char blk[16];
	unsigned int p, i, bad = 0;

	*outl = 0;
	if (c->enc) {
		if (!c->pad) {
			if (c->bufsz) {
				PL_ERR(c->pc, PL_R_WRONG_FINAL_BLOCK_LENGTH);
				return 0;
			}
			return 1;
		}
		if (outsize < 16) {
			PL_ERR(c->pc, PL_R_OUTPUT_BUFFER_TOO_SMALL);
			return 0;
		}
		p = 16 - (unsigned int)c->bufsz;
		memset(c->buf + c->bufsz, (int)p, p);
		pl_aes_blocks(c, c->mode, c->cw_enc, c->ekey, out, c->buf, 1);
		c->bufsz = 0;
		*outl = 16;
		return 1;
	}
	if (!c->pad) {
		if (c->bufsz) {
			PL_ERR(c->pc, PL_R_WRONG_FINAL_BLOCK_LENGTH);
			return 0;
		}
		return 1;
	}
	if (c->bufsz != 16) {
		PL_ERR(c->pc, PL_R_WRONG_FINAL_BLOCK_LENGTH);
		return 0;
	}
	pl_aes_blocks(c, c->mode, c->cw_dec, c->dkey, blk, c->buf, 1);
	c->bufsz = 0;
	p = blk[15];
	if (p == 0 || p > 16)
		bad = 1;
	for (i = 16 - (p > 16 ? 16 : p); i < 16; i++)
		bad |= blk[i] != p;
	if (bad) {
		pl_cleanse(blk, sizeof(blk));
		PL_ERR(c->pc, PL_R_BAD_DECRYPT);
		return 0;
	}
	if (outsize < 16 - p) {
		pl_cleanse(blk, sizeof(blk));
		PL_ERR(c->pc, PL_R_OUTPUT_BUFFER_TOO_SMALL);
		return 0;
	}
	memcpy(out, blk, 16 - p);
	*outl = 16 - p;
	pl_cleanse(blk, sizeof(blk));
	return 1;
}

/* CTR (128-bit counter) and GCM's counter mode (32-bit), streaming. */
void pl_ctr_stream(struct pl_aes *c, unsigned char *out,
		   const unsigned char *in, size_t len, int first)
{
	while (len && c->num) {
		*out++ = *in++ ^ c->ks[c->num];
		c->num = (c->num + 1) & 15;
		len--;
	}
	while (len >= 16) {
		size_t n = len / 16 < PL_BOUNCE_BLOCKS ? len / 16 : PL_BOUNCE_BLOCKS;

		ctr_keystream(c, n, first);
		pl_xor_bytes(out, in, c->bounce, n * 16);
		in += n * 16;
		out += n * 16;
		len -= n * 16;
	}
	if (len) {
		ctr_keystream(c, 1, first);
		memcpy(c->ks, c->bounce, 16);
		pl_xor_bytes(out, in, c->ks, len);
		c->num = (unsigned int)len;
	}
}

/* OFB: the IV register is the keystream. */
static void ofb_stream(struct pl_aes *c, unsigned char *out,
		       const unsigned char *in, size_t len)
{
	while (len && c->num) {
		*out++ = *in++ ^ c->iv[c->num];
		c->num = (c->num + 1) & 15;
		len--;
	}
	if (len >= 16) {
		pl_aes_blocks(c, PL_OFB, c->cw_enc, c->ekey, out, in, len / 16);
		in += len & ~(size_t)15;
		out += len & ~(size_t)15;
		len &= 15;
	}
	if (len) {
		pl_aes_encrypt1(c, c->iv, c->iv);
		pl_xor_bytes(out, in, c->iv, len);
		c->num = (unsigned int)len;
	}
}

/* CFB-128: the IV register fills with ciphertext. */
static void cfb_stream(struct pl_aes *c, unsigned char *out,
		       const unsigned char *in, size_t len)
{
	unsigned char b;

	while (len && c->num) {
		b = *in++;
		*out++ = b ^ c->iv[c->num];
		c->iv[c->num] = c->enc ? out[-1] : b;
		c->num = (c->num + 1) & 15;
		len--;
	}
	if (len >= 16) {
		pl_aes_blocks(c, PL_CFB, c->enc ? c->cw_enc : c->cw_cfbdec, c->ekey,
			   out, in, len / 16);
		in += len & ~(size_t)15;
		out += len & ~(size_t)15;
		len &= 15;
	}
	if (len) {
		pl_aes_encrypt1(c, c->iv, c->iv);
		while (len--) {
			b = *in++;
			*out++ = b ^ c->iv[c->num];
			c->iv[c->num] = c->enc ? out[-1] : b;
			c->num++;
		}
	}
}



static int aes_update(void *vc, unsigned char *out, size_t *outl, size_t outsize,
		      const unsigned char *in, size_t inl)
{
	struct pl_aes *c = vc;

	*outl = 0;
	if (!c->key_set) {
		PL_ERR(c->pc, PL_R_NO_KEY_SET);
		return 0;
	}
	if (c->mode == PL_GCM && c->tls_aad_set)	/* an empty update waits */
		return !inl || pl_gcm_tls_record(c, out, outl, outsize, in, inl);
	if (c->mode == PL_GCM)
		return pl_gcm_update(c, out, outl, outsize, in, inl);
	if (c->mode == PL_CBC && c->tls_version)
		return pl_cbc_tls_record(c, out, outl, outsize, in, inl);
	if (!inl)
		return 1;
	if (c->mode == PL_ECB || c->mode == PL_CBC)
		return block_update(c, out, outl, outsize, in, inl);
	if (outsize < inl) {
		PL_ERR(c->pc, PL_R_OUTPUT_BUFFER_TOO_SMALL);
		return 0;
	}
	if (c->mode == PL_CTR)
		pl_ctr_stream(c, out, in, inl, 0);
	else if (c->mode == PL_OFB)
		ofb_stream(c, out, in, inl);
	else
		cfb_stream(c, out, in, inl);
	*outl = inl;
	return 1;
}

static int aes_final(void *vc, unsigned char *out, size_t *outl, size_t outsize)
{
	struct pl_aes *c = vc;

	*outl = 0;
	if (!c->key_set) {
		PL_ERR(c->pc, PL_R_NO_KEY_SET);
		return 0;
	}
	if (c->mode == PL_GCM)
		return pl_gcm_final(c, outl);
	if (c->mode == PL_CBC && c->tls_version) {
		/* each TLS record is complete in its update */
		PL_ERR(c->pc, PL_R_UNSUPPORTED);
		return 0;
	}
	if (c->mode == PL_ECB || c->mode == PL_CBC)
		return block_final(c, out, outl, outsize);
	return 1;
}

/* EVP_Cipher(): whole blocks for ECB/CBC, no padding, no buffering. */
static int aes_cipher(void *vc, unsigned char *out, size_t *outl, size_t outsize,
		      const unsigned char *in, size_t inl)
{
	struct pl_aes *c = vc;

	if (c->mode == PL_ECB || c->mode == PL_CBC) {
		if (!c->key_set) {
			PL_ERR(c->pc, PL_R_NO_KEY_SET);
			return 0;
		}
		if (inl % 16) {
			PL_ERR(c->pc, PL_R_WRONG_FINAL_BLOCK_LENGTH);
			return 0;
		}
		if (outsize < inl) {
			PL_ERR(c->pc, PL_R_OUTPUT_BUFFER_TOO_SMALL);
			return 0;
		}
		pl_aes_blocks(c, c->mode, c->enc ? c->cw_enc : c->cw_dec,
			   c->enc ? c->ekey : c->dkey, out, in, inl / 16);
		*outl = inl;
		return 1;
	}
	if (c->mode == PL_GCM && !in) {
		if (!pl_gcm_final(c, outl))
			return 0;
		return 1;
	}
	return aes_update(vc, out, outl, outsize, in, inl);
}

/* ---- parameters ---- */

static const OSSL_PARAM aes_gettable[] = {
	{ OSSL_CIPHER_PARAM_MODE, OSSL_PARAM_UNSIGNED_INTEGER, NULL, sizeof(unsigned int), 0 },
	{ OSSL_CIPHER_PARAM_KEYLEN, OSSL_PARAM_UNSIGNED_INTEGER, NULL, sizeof(size_t), 0 },
	{ OSSL_CIPHER_PARAM_IVLEN, OSSL_PARAM_UNSIGNED_INTEGER, NULL, sizeof(size_t), 0 },
	{ OSSL_CIPHER_PARAM_BLOCK_SIZE, OSSL_PARAM_UNSIGNED_INTEGER, NULL, sizeof(size_t), 0 },
	{ OSSL_CIPHER_PARAM_AEAD, OSSL_PARAM_INTEGER, NULL, sizeof(int), 0 },
	{ OSSL_CIPHER_PARAM_CUSTOM_IV, OSSL_PARAM_INTEGER, NULL, sizeof(int), 0 },
	{ OSSL_CIPHER_PARAM_CTS, OSSL_PARAM_INTEGER, NULL, sizeof(int), 0 },
	{ OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK, OSSL_PARAM_INTEGER, NULL, sizeof(int), 0 },
	{ OSSL_CIPHER_PARAM_HAS_RAND_KEY, OSSL_PARAM_INTEGER, NULL, sizeof(int), 0 },
	{ NULL, 0, NULL, 0, 0 }
};

static const OSSL_PARAM *aes_gettable_params(void *provctx)
{
	(void)provctx;
	return aes_gettable;
}

static int aes_get_params(OSSL_PARAM params[], int mode, size_t keylen)
{
	OSSL_PARAM *p;

	for (p = params; p && p->key; p++) {
		int ok = 1;

		if (!strcmp(p->key, OSSL_CIPHER_PARAM_MODE))
			ok = pl_param_set_size(p, (size_t)mode);
		else if (!strcmp(p->key, OSSL_CIPHER_PARAM_KEYLEN))
			ok = pl_param_set_size(p, keylen);
		else if (!strcmp(p->key, OSSL_CIPHER_PARAM_IVLEN))
			ok = pl_param_set_size(p, mode == PL_ECB ? 0 : mode == PL_GCM ? 12 : 16);
		else if (!strcmp(p->key, OSSL_CIPHER_PARAM_BLOCK_SIZE))
			ok = pl_param_set_size(p, mode == PL_ECB || mode == PL_CBC ? 16 : 1);
		else if (!strcmp(p->key, OSSL_CIPHER_PARAM_AEAD))
			ok = pl_param_set_int(p, mode == PL_GCM);
		else if (!strcmp(p->key, OSSL_CIPHER_PARAM_CUSTOM_IV))
			ok = pl_param_set_int(p, mode == PL_GCM);
		else if (!strcmp(p->key, OSSL_CIPHER_PARAM_CTS) ||
			 !strcmp(p->key, OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK) ||
			 !strcmp(p->key, OSSL_CIPHER_PARAM_HAS_RAND_KEY))
			ok = pl_param_set_int(p, 0);
		if (!ok)
			return 0;
	}
	return 1;
}

static const OSSL_PARAM aes_ctx_gettable[] = {
	{ OSSL_CIPHER_PARAM_KEYLEN, OSSL_PARAM_UNSIGNED_INTEGER, NULL, sizeof(size_t), 0 },
	{ OSSL_CIPHER_PARAM_IVLEN, OSSL_PARAM_UNSIGNED_INTEGER, NULL, sizeof(size_t), 0 },
	{ OSSL_CIPHER_PARAM_PADDING, OSSL_PARAM_UNSIGNED_INTEGER, NULL, sizeof(unsigned int), 0 },
	{ OSSL_CIPHER_PARAM_NUM, OSSL_PARAM_UNSIGNED_INTEGER, NULL, sizeof(unsigned int), 0 },
	{ OSSL_CIPHER_PARAM_IV, OSSL_PARAM_OCTET_STRING, NULL, 0, 0 },
	{ OSSL_CIPHER_PARAM_UPDATED_IV, OSSL_PARAM_OCTET_STRING, NULL, 0, 0 },
	{ OSSL_CIPHER_PARAM_AEAD_TAG, OSSL_PARAM_OCTET_STRING, NULL, 0, 0 },
	{ OSSL_CIPHER_PARAM_AEAD_TAGLEN, OSSL_PARAM_UNSIGNED_INTEGER, NULL, sizeof(size_t), 0 },
	{ OSSL_CIPHER_PARAM_TLS_MAC, OSSL_PARAM_OCTET_PTR, NULL, 0, 0 },
	{ OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD, OSSL_PARAM_UNSIGNED_INTEGER, NULL, sizeof(size_t),
	  0 },
	{ OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN, OSSL_PARAM_OCTET_STRING, NULL, 0, 0 },
	{ NULL, 0, NULL, 0, 0 }
};

static const OSSL_PARAM aes_ctx_settable[] = {
	{ OSSL_CIPHER_PARAM_KEYLEN, OSSL_PARAM_UNSIGNED_INTEGER, NULL, sizeof(size_t), 0 },
	{ OSSL_CIPHER_PARAM_PADDING, OSSL_PARAM_UNSIGNED_INTEGER, NULL, sizeof(unsigned int), 0 },
	{ OSSL_CIPHER_PARAM_NUM, OSSL_PARAM_UNSIGNED_INTEGER, NULL, sizeof(unsigned int), 0 },
	{ OSSL_CIPHER_PARAM_AEAD_IVLEN, OSSL_PARAM_UNSIGNED_INTEGER, NULL, sizeof(size_t), 0 },
	{ OSSL_CIPHER_PARAM_AEAD_TAG, OSSL_PARAM_OCTET_STRING, NULL, 0, 0 },
	{ OSSL_CIPHER_PARAM_TLS_VERSION, OSSL_PARAM_UNSIGNED_INTEGER, NULL, sizeof(unsigned int),
	  0 },
	{ OSSL_CIPHER_PARAM_TLS_MAC_SIZE, OSSL_PARAM_UNSIGNED_INTEGER, NULL, sizeof(size_t), 0 },
	{ OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, OSSL_PARAM_OCTET_STRING, NULL, 0, 0 },
	{ OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, OSSL_PARAM_OCTET_STRING, NULL, 0, 0 },
	{ OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV, OSSL_PARAM_OCTET_STRING, NULL, 0, 0 },
	{ NULL, 0, NULL, 0, 0 }
};

static const OSSL_PARAM *aes_gettable_ctx_params(void *cctx, void *provctx)
{
	(void)cctx;
	(void)provctx;
	return aes_ctx_gettable;
}

static const OSSL_PARAM *aes_settable_ctx_params(void *cctx, void *provctx)
{
	(void)cctx;
	(void)provctx;
	return aes_ctx_settable;
}


static int aes_get_ctx_params(void *vc, OSSL_PARAM params[])
{
	struct pl_aes *c = vc;
	OSSL_PARAM *p;

	for (p = params; p && p->key; p++) {
		int ok = 1;

		if (!strcmp(p->key, OSSL_CIPHER_PARAM_KEYLEN)) {
			ok = pl_param_set_size(p, c->keylen);
		} else if (!strcmp(p->key, OSSL_CIPHER_PARAM_IVLEN)) {
			ok = pl_param_set_size(p, c->ivlen);
		} else if (!strcmp(p->key, OSSL_CIPHER_PARAM_PADDING)) {
			ok = pl_param_set_size(p, (size_t)c->pad);
		} else if (!strcmp(p->key, OSSL_CIPHER_PARAM_NUM)) {
			ok = pl_param_set_size(p, c->num);
		} else if (!strcmp(p->key, OSSL_CIPHER_PARAM_IV)) {
			ok = pl_param_set_iv(p, c->oiv, c->ivlen);
		} else if (!strcmp(p->key, OSSL_CIPHER_PARAM_UPDATED_IV)) {
			ok = pl_param_set_iv(p, c->mode == PL_GCM ? c->oiv : c->iv,
					     c->ivlen);
		} else if (!strcmp(p->key, OSSL_CIPHER_PARAM_AEAD_TAGLEN)) {
			ok = c->mode == PL_GCM && pl_param_set_size(p, c->taglen);
		} else if (!strcmp(p->key, OSSL_CIPHER_PARAM_AEAD_TAG)) {
			ok = c->mode == PL_GCM && c->enc && c->tag_ready &&
			     p->data_size >= 1 && p->data_size <= 16 &&
			     pl_param_set_octets(p, c->tag, p->data_size);
			if (!ok)
				PL_ERR(c->pc, PL_R_INVALID_TAG);
		} else if (!strcmp(p->key, OSSL_CIPHER_PARAM_TLS_MAC)) {
			/*
			 * The MAC of the last CBC record; none in other modes.
			 * libssl asks for it after every DTLS record, AEAD ones
			 * included, and GCM leaves the request unanswered as
			 * OpenSSL's own GCM does.
			 */
			ok = c->mode == PL_GCM ||
			     pl_param_set_octet_ptr(p, c->mode == PL_CBC ? c->tls_mac : NULL,
						    c->tls_macsize);
		} else if (!strcmp(p->key, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD)) {
			ok = c->mode == PL_GCM && pl_param_set_size(p, PL_TLS_TAG);
		} else if (!strcmp(p->key, OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN)) {
			ok = pl_gcm_tls_iv_gen(c, p);
		}
		if (!ok)
			return 0;
	}
	return 1;
}

static int aes_set_ctx_params(void *vc, const OSSL_PARAM params[])
{
	struct pl_aes *c = vc;
	const OSSL_PARAM *p;
	size_t v;

	for (p = params; p && p->key; p++) {
		if (!strcmp(p->key, OSSL_CIPHER_PARAM_PADDING)) {
			if (!pl_param_get_size(p, &v))
				goto bad;
			c->pad = v != 0;
		} else if (!strcmp(p->key, OSSL_CIPHER_PARAM_NUM)) {
			if (!pl_param_get_size(p, &v) || v > 15 ||
			    c->mode == PL_ECB || c->mode == PL_CBC)
				goto bad;
			c->num = (unsigned int)v;
		} else if (!strcmp(p->key, OSSL_CIPHER_PARAM_KEYLEN)) {
			if (!pl_param_get_size(p, &v) || v != c->keylen) {
				PL_ERR(c->pc, PL_R_INVALID_KEY_LENGTH);
				return 0;
			}
		} else if (c->mode == PL_GCM &&
			   !strcmp(p->key, OSSL_CIPHER_PARAM_AEAD_IVLEN)) {
			if (!pl_param_get_size(p, &v) || v == 0 ||
			    v > PL_GCM_MAX_IVLEN) {
				PL_ERR(c->pc, PL_R_INVALID_IV_LENGTH);
				return 0;
			}
			if (v != c->ivlen) {
				/* an IV of the old length is no longer one */
				if (c->iv_set)
					c->iv_spent = 1;
				c->iv_set = 0;
			}
			c->ivlen = v;
		} else if (c->mode == PL_GCM &&
			   !strcmp(p->key, OSSL_CIPHER_PARAM_AEAD_TAG)) {
			if (p->data_type != OSSL_PARAM_OCTET_STRING ||
			    p->data_size < 1 || p->data_size > 16) {
				PL_ERR(c->pc, PL_R_INVALID_TAG_LENGTH);
				return 0;
			}
			c->taglen = p->data_size;
			if (p->data) {
				if (c->enc) {
					PL_ERR(c->pc, PL_R_INVALID_TAG);
					return 0;
				}
				memcpy(c->tag, p->data, p->data_size);
				c->tag_set = 1;
			}
		} else if (c->mode == PL_CBC &&
			   !strcmp(p->key, OSSL_CIPHER_PARAM_TLS_VERSION)) {
			if (!pl_param_get_size(p, &v))
				goto bad;
			if (v && !pl_tls_version_known(v)) {
				PL_ERR(c->pc, PL_R_UNSUPPORTED);
				return 0;
			}
			c->tls_version = (unsigned int)v;
		} else if (c->mode == PL_CBC &&
			   !strcmp(p->key, OSSL_CIPHER_PARAM_TLS_MAC_SIZE)) {
			if (!pl_param_get_size(p, &v) || v > PL_TLS_MAX_MAC)
				goto bad;
			c->tls_macsize = v;
		} else if (c->mode == PL_GCM &&
			   (!strcmp(p->key, OSSL_CIPHER_PARAM_TLS_VERSION) ||
			    !strcmp(p->key, OSSL_CIPHER_PARAM_TLS_MAC_SIZE))) {
			/* libssl sets them for every cipher; GCM records need neither */
			if (!pl_param_get_size(p, &v))
				goto bad;
		} else if (c->mode == PL_GCM &&
			   !strcmp(p->key, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD)) {
			if (!pl_gcm_tls_aad(c, p))
				return 0;
		} else if (c->mode == PL_GCM &&
			   !strcmp(p->key, OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED)) {
			if (!pl_gcm_tls_iv_fixed(c, p))
				return 0;
		} else if (c->mode == PL_GCM &&
			   !strcmp(p->key, OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV)) {
			if (p->data_type != OSSL_PARAM_OCTET_STRING || !p->data ||
			    c->enc || !c->tls_iv_gen || !c->key_set ||
			    p->data_size > c->ivlen) {
				PL_ERR(c->pc, PL_R_INVALID_IV_LENGTH);
				return 0;
			}
			/* the receiver's explicit IV: the next message runs on it */
			memcpy(c->oiv + c->ivlen - p->data_size, p->data, p->data_size);
			c->iv_set = 1;
			pl_gcm_start(c);
		} else if (!strcmp(p->key, OSSL_CIPHER_PARAM_TLS_VERSION) ||
			   !strcmp(p->key, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD) ||
			   !strcmp(p->key, OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED)) {
			/* TLS records only for the modes TLS uses (CBC, GCM) */
			PL_ERR(c->pc, PL_R_UNSUPPORTED);
			return 0;
		}
	}
	return 1;
bad:
	PL_ERR(c->pc, PL_R_FAILED_TO_SET_PARAMETER);
	return 0;
}

/* ---- the algorithm table ---- */

#define PL_AES(bits, lmode, MODE)					\
static void *aes##bits##lmode##_newctx(void *provctx)			\
{									\
	return aes_newctx(provctx, MODE, (bits) / 8);			\
}									\
static int aes##bits##lmode##_get_params(OSSL_PARAM params[])		\
{									\
	return aes_get_params(params, MODE, (bits) / 8);		\
}									\
static const OSSL_DISPATCH aes##bits##lmode##_fns[] = {			\
	{ OSSL_FUNC_CIPHER_NEWCTX, PL_FN(aes##bits##lmode##_newctx) },	\
	{ OSSL_FUNC_CIPHER_FREECTX, PL_FN(aes_freectx) },		\
	{ OSSL_FUNC_CIPHER_DUPCTX, PL_FN(aes_dupctx) },			\
	{ OSSL_FUNC_CIPHER_ENCRYPT_INIT, PL_FN(aes_einit) },		\
	{ OSSL_FUNC_CIPHER_DECRYPT_INIT, PL_FN(aes_dinit) },		\
	{ OSSL_FUNC_CIPHER_UPDATE, PL_FN(aes_update) },			\
	{ OSSL_FUNC_CIPHER_FINAL, PL_FN(aes_final) },			\
	{ OSSL_FUNC_CIPHER_CIPHER, PL_FN(aes_cipher) },			\
	{ OSSL_FUNC_CIPHER_GET_PARAMS, PL_FN(aes##bits##lmode##_get_params) }, \
	{ OSSL_FUNC_CIPHER_GETTABLE_PARAMS, PL_FN(aes_gettable_params) }, \
	{ OSSL_FUNC_CIPHER_GET_CTX_PARAMS, PL_FN(aes_get_ctx_params) },	\
	{ OSSL_FUNC_CIPHER_SET_CTX_PARAMS, PL_FN(aes_set_ctx_params) },	\
	{ OSSL_FUNC_CIPHER_GETTABLE_CTX_PARAMS, PL_FN(aes_gettable_ctx_params) }, \
	{ OSSL_FUNC_CIPHER_SETTABLE_CTX_PARAMS, PL_FN(aes_settable_ctx_params) }, \
	{ 0, NULL }							\
}

#define PL_FN(f)	((void (*)(void))(f))

#define PL_AES_ALL(lmode, MODE)		\
	PL_AES(128, lmode, MODE);	\
	PL_AES(192, lmode, MODE);	\
	PL_AES(256, lmode, MODE)

PL_AES_ALL(ecb, PL_ECB);
PL_AES_ALL(cbc, PL_CBC);
PL_AES_ALL(ofb, PL_OFB);
PL_AES_ALL(cfb, PL_CFB);
PL_AES_ALL(ctr, PL_CTR);
PL_AES_ALL(gcm, PL_GCM);

#define PL_PROPS	"provider=padlock"

/* OpenSSL's own names and OIDs, so that every alias finds these too. */
static const OSSL_ALGORITHM pl_all_ciphers[] = {
	{ "AES-256-ECB:2.16.840.1.101.3.4.1.41", PL_PROPS, aes256ecb_fns, NULL },
	{ "AES-192-ECB:2.16.840.1.101.3.4.1.21", PL_PROPS, aes192ecb_fns, NULL },
	{ "AES-128-ECB:2.16.840.1.101.3.4.1.1", PL_PROPS, aes128ecb_fns, NULL },
	{ "AES-256-CBC:AES256:2.16.840.1.101.3.4.1.42", PL_PROPS, aes256cbc_fns, NULL },
	{ "AES-192-CBC:AES192:2.16.840.1.101.3.4.1.22", PL_PROPS, aes192cbc_fns, NULL },
	{ "AES-128-CBC:AES128:2.16.840.1.101.3.4.1.2", PL_PROPS, aes128cbc_fns, NULL },
	{ "AES-256-OFB:2.16.840.1.101.3.4.1.43", PL_PROPS, aes256ofb_fns, NULL },
	{ "AES-192-OFB:2.16.840.1.101.3.4.1.23", PL_PROPS, aes192ofb_fns, NULL },
	{ "AES-128-OFB:2.16.840.1.101.3.4.1.3", PL_PROPS, aes128ofb_fns, NULL },
	{ "AES-256-CFB:2.16.840.1.101.3.4.1.44", PL_PROPS, aes256cfb_fns, NULL },
	{ "AES-192-CFB:2.16.840.1.101.3.4.1.24", PL_PROPS, aes192cfb_fns, NULL },
	{ "AES-128-CFB:2.16.840.1.101.3.4.1.4", PL_PROPS, aes128cfb_fns, NULL },
	{ "AES-256-CTR", PL_PROPS, aes256ctr_fns, NULL },
	{ "AES-192-CTR", PL_PROPS, aes192ctr_fns, NULL },
	{ "AES-128-CTR", PL_PROPS, aes128ctr_fns, NULL },
	{ "AES-256-GCM:id-aes256-GCM:2.16.840.1.101.3.4.1.46", PL_PROPS, aes256gcm_fns, NULL },
	{ "AES-192-GCM:id-aes192-GCM:2.16.840.1.101.3.4.1.26", PL_PROPS, aes192gcm_fns, NULL },
	{ "AES-128-GCM:id-aes128-GCM:2.16.840.1.101.3.4.1.6", PL_PROPS, aes128gcm_fns, NULL },
	{ NULL, NULL, NULL, NULL }
};

static OSSL_ALGORITHM pl_cipher_table[sizeof(pl_all_ciphers) / sizeof(pl_all_ciphers[0])];

/* Every cipher the provider has, for the self-test (padlock-selftest.c). */
const OSSL_ALGORITHM *pl_cipher_algs(void)
{
	return pl_all_ciphers;
}

/*
 * What is offered: AES where ACE passed its self-test and OpenSSL's own has
 * no AES-NI, GCM where it pays (padlock-prov.c).
 */
void pl_ciphers_setup(void)
{
	const OSSL_ALGORITHM *a;
	size_t n = 0;

	memset(pl_cipher_table, 0, sizeof(pl_cipher_table));
	for (a = pl_all_ciphers; pl_cpu.ace && !pl_cpu.aes_ni && a->algorithm_names; a++)
		if (pl_cpu.gcm || !strstr(a->algorithm_names, "-GCM"))
			pl_cipher_table[n++] = *a;
}

const OSSL_ALGORITHM *pl_ciphers(void)
{
	return pl_cipher_table[0].algorithm_names ? pl_cipher_table : NULL;
}
