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
 * GCM.  The counter mode runs on PadLock as above (with GCM's 32-bit
 * counter); GHASH is computed in software in constant time: the
 * multiplication in GF(2^128) is a carry-less product made of integer
 * multiplications of operands with every fifth bit kept (64x64->128 on
 * 64-bit builds) or every fourth (32x32->64 on 32-bit ones), Karatsuba on
 * top, and a reduction by shifts and XORs, so no branch and no memory
 * address depends on the data, the key or H; what is known of the
 * multiplier's timing is in provider/README.md ("GHASH in constant time").
 * H and the key schedule are computed when the key is set; a message
 * costs E(J0) and its blocks.
 *
 * TLS.  With OpenSSL's TLS parameters set, each update is one TLS 1.x
 * record and the cipher does the record work libssl leaves to it: CBC
 * padding added, or checked and removed with the MAC taken out in constant
 * time; GCM's explicit IV and tag (see "TLS records" below).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include "padlock-prov.h"
#include "padlock-user-asm.h"

/* OpenSSL's EVP_CIPH_*_MODE values (evp.h), part of its ABI */
enum { PL_ECB = 1, PL_CBC = 2, PL_CFB = 3, PL_OFB = 4, PL_CTR = 5, PL_GCM = 6 };

#define PL_BOUNCE_BLOCKS	256
#define PL_SLACK_BLOCKS		8	/* the largest fetch group */
#define PL_PAGE			4096	/* the smallest x86 page */
#define PL_GCM_MAX_IVLEN	128
/*
 * GCM's limits per message (NIST SP 800-38D): 2^39 - 256 bits of data,
 * after which the 32-bit counter would come back to J0 and the keystream
 * to its start, and 2^64 - 1 bits of AAD.  A build for tests may set a
 * smaller data limit to reach it in reasonable time.
 */
#ifndef PL_GCM_MAX_DATA
#define PL_GCM_MAX_DATA		((((uint64_t)1) << 36) - 32)
#endif
#define PL_GCM_MAX_AAD		((((uint64_t)1) << 61) - 1)

/* TLS records (OpenSSL's ssl3.h, tls1.h, dtls1.h, evp.h values) */
#define PL_TLS1_VERSION		0x0301
#define PL_TLS1_1_VERSION	0x0302
#define PL_TLS1_2_VERSION	0x0303
#define PL_DTLS1_VERSION	0xfeff
#define PL_DTLS1_2_VERSION	0xfefd
#define PL_DTLS1_BAD_VER	0x0100
#define PL_TLS_MAX_MAC		64	/* EVP_MAX_MD_SIZE */
#define PL_TLS_AAD_LEN		13	/* seq_num, type, version, length */
#define PL_TLS_FIXED_IV		4	/* GCM: the implicit part, at least */
#define PL_TLS_EXPLICIT_IV	8	/* GCM: nonce_explicit in the record */
#define PL_TLS_TAG		16

/*
 * One 64-bit half of GHASH's key H as clmul64() takes it (below): on
 * 64-bit builds its five words of every fifth bit, on 32-bit builds its
 * two 32-bit halves and their sum.
 */
#if UINTPTR_MAX > 0xffffffffu
typedef uint64_t pl_hword;
#define PL_HWORDS	5
#else
typedef uint32_t pl_hword;
#define PL_HWORDS	3
#endif

struct pl_aes {
	unsigned char ekey[256] PL_ALIGNED;	/* encryption schedule */
	unsigned char dkey[256] PL_ALIGNED;	/* decryption schedule */
	unsigned char cw_enc[16] PL_ALIGNED;	/* encrypt with ekey */
	unsigned char cw_dec[16] PL_ALIGNED;	/* decrypt with dkey */
	unsigned char cw_cfbdec[16] PL_ALIGNED;	/* CFB decryption, ekey */
	unsigned char iv[16] PL_ALIGNED;	/* chaining value / counter */
	unsigned char ks[16] PL_ALIGNED;	/* keystream of a partial block */
	unsigned char bounce[(PL_BOUNCE_BLOCKS + PL_SLACK_BLOCKS) * 16] PL_ALIGNED;
	unsigned char oiv[PL_GCM_MAX_IVLEN];	/* the IV as given */
	unsigned char rawkey[32];		/* the key the schedules are of */
	unsigned char buf[16];			/* ECB/CBC: pending input */
	size_t bufsz;
	unsigned int num;			/* bytes of ks/iv used */
	struct pl_provctx *pc;
	int mode, enc, pad, key_set, iv_set;
	size_t keylen, ivlen;
	/* GCM */
	pl_hword hk[3 * PL_HWORDS];		/* H as gf128_mul() takes it */
	uint64_t s[2];
	unsigned char j0[16];
	unsigned char gbuf[16];
	size_t gbufn;
	uint64_t aadlen, ctlen;
	unsigned char tag[16];
	size_t taglen;
	int data_started, tag_set, tag_ready;
	int iv_spent;		/* no IV is made up after one was used */
	/* TLS records: CBC (tls-version, tls-mac-size), GCM (tlsaad, ...) */
	unsigned int tls_version;
	size_t tls_macsize;
	unsigned char tls_mac[PL_TLS_MAX_MAC];
	unsigned char tls_aad[PL_TLS_AAD_LEN];
	int tls_aad_set, tls_iv_gen;
};

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
static void aes_blocks(struct pl_aes *c, int mode, const unsigned char *cw,
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
static void ctr_inc(unsigned char *ctr, int from, int first)
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
				ctr_inc(c->iv, 13, first);
			ks += m * 16;
			n -= m;
		}
		return;
	}
	for (i = 0; i < n; i++) {
		memcpy(ks + 16 * i, c->iv, 16);
		ctr_inc(c->iv, 15, first);
	}
	plu_xcrypt_ecb(ks, ks, n, c->cw_enc, c->ekey);
}

/* E(K, block) for a single 16-byte block (aligned or not). */
static void aes_encrypt1(struct pl_aes *c, unsigned char *out, const unsigned char *in)
{
	memcpy(c->bounce, in, 16);
	plu_xcrypt_ecb(c->bounce, c->bounce, 1, c->cw_enc, c->ekey);
	memcpy(out, c->bounce, 16);
}

static void xor_bytes(unsigned char *out, const unsigned char *a,
		      const unsigned char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		out[i] = a[i] ^ b[i];
}

/* Nonzero if the n bytes differ; the time does not depend on where. */
static unsigned int bytes_differ(const unsigned char *a, const unsigned char *b,
				 size_t n)
{
	unsigned int diff = 0;
	size_t i;

	for (i = 0; i < n; i++)
		diff |= a[i] ^ b[i];
	return diff;
}

/* ---- GHASH, constant time (see the top of the file) ---- */

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
static void ghash_setkey(struct pl_aes *c, const unsigned char *h)
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

static void gcm_start(struct pl_aes *c)
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
	ctr_inc(c->iv, 15, 12);
	c->s[0] = 0;
	c->s[1] = 0;
	c->gbufn = 0;
	c->aadlen = 0;
	c->ctlen = 0;
	c->num = 0;
	c->data_started = 0;
	c->tag_ready = 0;
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

		aes_encrypt1(c, h, zero);
		ghash_setkey(c, h);
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
	/* (GCM keeps its place in the message: gcm_start() resets it) */
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
		if (!c->key_set || bytes_differ(key, c->rawkey, keylen))
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
			gcm_start(c);
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
			aes_blocks(c, c->mode, cw, key, out, c->buf, 1);
			out += 16;
			want--;
			c->bufsz = 0;
		}
	}
	if (want) {
		/*
		 * ECB on aligned buffers that aes_blocks() would run in one
		 * instruction (whole fetch groups, or an over-read that stays
		 * in the last input page): that instruction here, without its
		 * call and loop (ECB's calls are the shortest)
		 */
		if (c->mode == PL_ECB && !(((uintptr_t)in | (uintptr_t)out) & 15) &&
		    (!(want & (pl_cpu.ecb_fetch - 1)) ||
		     overread_in_page(in, want, pl_cpu.ecb_fetch)))
			plu_xcrypt_ecb(in, out, want, cw, key);
		else
			aes_blocks(c, c->mode, cw, key, out, in, want);
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
		aes_blocks(c, c->mode, c->cw_enc, c->ekey, out, c->buf, 1);
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
	aes_blocks(c, c->mode, c->cw_dec, c->dkey, blk, c->buf, 1);
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
static void ctr_stream(struct pl_aes *c, unsigned char *out,
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
		xor_bytes(out, in, c->bounce, n * 16);
		in += n * 16;
		out += n * 16;
		len -= n * 16;
	}
	if (len) {
		ctr_keystream(c, 1, first);
		memcpy(c->ks, c->bounce, 16);
		xor_bytes(out, in, c->ks, len);
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
		aes_blocks(c, PL_OFB, c->cw_enc, c->ekey, out, in, len / 16);
		in += len & ~(size_t)15;
		out += len & ~(size_t)15;
		len &= 15;
	}
	if (len) {
		aes_encrypt1(c, c->iv, c->iv);
		xor_bytes(out, in, c->iv, len);
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
		aes_blocks(c, PL_CFB, c->enc ? c->cw_enc : c->cw_cfbdec, c->ekey,
			   out, in, len / 16);
		in += len & ~(size_t)15;
		out += len & ~(size_t)15;
		len &= 15;
	}
	if (len) {
		aes_encrypt1(c, c->iv, c->iv);
		while (len--) {
			b = *in++;
			*out++ = b ^ c->iv[c->num];
			c->iv[c->num] = c->enc ? out[-1] : b;
			c->num++;
		}
	}
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
	gcm_start(c);
	return 1;
}

static int gcm_update(struct pl_aes *c, unsigned char *out, size_t *outl,
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
		ctr_stream(c, out, in, n, 12);
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
static void gcm_tag(struct pl_aes *c, unsigned char *tag)
{
	unsigned char lens[16];

	ghash_flush(c);
	store_be64(lens, c->aadlen * 8);
	store_be64(lens + 8, c->ctlen * 8);
	ghash_block(c->s, c->hk, lens);
	aes_encrypt1(c, tag, c->j0);
	store_be64(lens, c->s[0]);
	store_be64(lens + 8, c->s[1]);
	xor_bytes(tag, tag, lens, 16);
}

static int gcm_final(struct pl_aes *c, size_t *outl)
{
	unsigned char tag[16];
	unsigned int diff;

	*outl = 0;
	if (!gcm_need_iv(c))
		return 0;
	gcm_tag(c, tag);
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
	diff = bytes_differ(tag, c->tag, c->taglen);
	pl_cleanse(tag, sizeof(tag));
	if (diff) {
		PL_ERR(c->pc, PL_R_BAD_DECRYPT);
		return 0;
	}
	return 1;
}

/* ---- TLS records inside the cipher (libssl's provider interface) ---- */

/*
 * Comparisons of sizes that give all-ones for true and zero for false
 * without a branch: the result comes from the top bit of an arithmetic
 * expression, and passes through a value barrier so that the compiler
 * cannot turn its later use back into a conditional jump.
 */
#define PL_TOPBIT(x)	((x) >> (sizeof(size_t) * 8 - 1))

static size_t ct_lt(size_t a, size_t b)
{
	/* the borrow out of the top bit of a - b */
	return plu_value_barrier(0 - PL_TOPBIT((~a & b) | ((~a | b) & (a - b))));
}

static size_t ct_eq(size_t a, size_t b)
{
	size_t x = a ^ b;

	/* x - 1 borrows through every bit exactly when x == 0 */
	return plu_value_barrier(0 - PL_TOPBIT(~x & (x - 1)));
}

static int tls_version_known(size_t v)
{
	return v == PL_TLS1_VERSION || v == PL_TLS1_1_VERSION ||
	       v == PL_TLS1_2_VERSION || v == PL_DTLS1_VERSION ||
	       v == PL_DTLS1_2_VERSION || v == PL_DTLS1_BAD_VER;
}

/*
 * CBC, sending: libssl hands over the record (explicit IV block in TLS
 * 1.1 and later, data, MAC unless encrypt-then-MAC); the cipher appends
 * the padding, n + 1 bytes of value n up to the next whole block, and
 * encrypts the whole record with the chaining value carried over from the
 * previous record.
 */
static int cbc_tls_seal(struct pl_aes *c, unsigned char *rec, size_t *outl,
			size_t outsize, size_t inl)
{
	size_t padn = 16 - inl % 16;

	if (outsize < inl + padn) {
		PL_ERR(c->pc, PL_R_OUTPUT_BUFFER_TOO_SMALL);
		return 0;
	}
	memset(rec + inl, (int)(padn - 1), padn);
	inl += padn;
	aes_blocks(c, PL_CBC, c->cw_enc, c->ekey, rec, rec, inl / 16);
	*outl = inl;
	return 1;
}

/*
 * CBC, receiving: decrypt the record, skip the explicit IV (TLS 1.1+),
 * check and remove the padding and take the MAC out into c->tls_mac, where
 * libssl fetches it ("tls-mac") to compare with its own.
 *
 * The padding length and the MAC's position come from decrypted bytes, so
 * everything after the decryption is constant time: the padding check
 * reads the last 256 bytes (or the whole record) whatever the padding
 * length claims, and accumulates its verdict into a mask; the MAC is
 * gathered from every byte that could belong to it, each byte stored at a
 * position that depends only on the loop counter, and then rotated into
 * place by a loop that reads every byte for every position.  Bad padding
 * is not reported: the record keeps its full length and the MAC handed out
 * is random, so the caller's MAC check fails as it would for a bad MAC.
 * The random bytes are drawn for every record, good or bad.
 *
 * With encrypt-then-MAC libssl sets tls-mac-size 0 and has checked the MAC
 * before decrypting: bad padding is then an error.
 */
static int cbc_tls_open(struct pl_aes *c, unsigned char *rec, size_t *outl,
			size_t inl)
{
	unsigned char rot[PL_TLS_MAX_MAC], rnd[PL_TLS_MAX_MAC];
	size_t skip = c->tls_version == PL_TLS1_VERSION ? 0 : 16;
	size_t mac = c->tls_macsize, len, pad, good, body, mstart, lo;
	size_t i, j, k, r = 0;
	unsigned char *p;

	/* the record's length is public: these checks may branch */
	if (inl % 16 || inl < skip || inl - skip < 1 + mac) {
		PL_ERR(c->pc, PL_R_TLS_RECORD);
		return 0;
	}
	if (mac && getrandom(rnd, mac, 0) != (ssize_t)mac) {
		PL_ERR(c->pc, PL_R_RANDOM);
		return 0;
	}
	aes_blocks(c, PL_CBC, c->cw_dec, c->dkey, rec, rec, inl / 16);
	p = rec + skip;
	len = inl - skip;

	/* the last byte n, and the n bytes before it equal to n */
	pad = p[len - 1];
	good = ~ct_lt(len, 1 + mac + pad);
	for (i = 0; i < 256 && i < len; i++)
		good &= ~(~ct_lt(pad, i) & (size_t)(p[len - 1 - i] ^ pad));
	good = ct_eq(good & 0xff, 0xff);
	body = len - (good & (pad + 1));
	if (!mac) {
		if (!good) {
			PL_ERR(c->pc, PL_R_BAD_DECRYPT);
			return 0;
		}
		*outl = body;
		return 1;
	}

	/*
	 * The MAC starts at most 256 bytes before its position without
	 * padding.  rot[k] collects the bytes at offsets k, k + mac, ... from
	 * lo that lie inside the MAC; r is the slot of its first byte.
	 */
	mstart = body - mac;
	lo = len > mac + 256 ? len - mac - 256 : 0;
	memset(rot, 0, mac);
	for (i = lo, k = 0; i < len; i++) {
		size_t in = ~ct_lt(i, mstart) & ct_lt(i, mstart + mac);

		r |= ct_eq(i, mstart) & k;
		rot[k] |= p[i] & (unsigned char)in;
		k = k + 1 == mac ? 0 : k + 1;
	}
	for (j = 0; j < mac; j++) {
		size_t want = r + j, b = 0;

		want -= mac & ~ct_lt(want, mac);
		for (k = 0; k < mac; k++)
			b |= rot[k] & ct_eq(k, want);
		c->tls_mac[j] = (unsigned char)((b & good) | (rnd[j] & ~good));
	}
	pl_cleanse(rot, sizeof(rot));
	pl_cleanse(rnd, sizeof(rnd));
	*outl = body - mac;
	return 1;
}

/* One TLS record per update, in place (libssl) or copied there first. */
static int cbc_tls_record(struct pl_aes *c, unsigned char *out, size_t *outl,
			  size_t outsize, const unsigned char *in, size_t inl)
{
	if (!in || !out || outsize < inl) {
		PL_ERR(c->pc, PL_R_OUTPUT_BUFFER_TOO_SMALL);
		return 0;
	}
	if (in != out)
		memmove(out, in, inl);
	if (c->enc)
		return cbc_tls_seal(c, out, outl, outsize, inl);
	return cbc_tls_open(c, out, outl, inl);
}

/*
 * GCM's "tlsaad": the record header (sequence number, type, version,
 * length), whose length libssl gives as the record's; the AAD holds the
 * plaintext's length, so the explicit IV (and when decrypting the tag)
 * is taken off.  The record grows by the tag ("tlsaadpad").
 */
static int gcm_tls_aad(struct pl_aes *c, const OSSL_PARAM *p)
{
	const unsigned char *a = p->data;
	size_t len, less = PL_TLS_EXPLICIT_IV + (c->enc ? 0 : PL_TLS_TAG);

	if (p->data_type != OSSL_PARAM_OCTET_STRING || !a ||
	    p->data_size != PL_TLS_AAD_LEN)
		goto bad;
	len = (size_t)a[11] << 8 | a[12];
	if (len < less)
		goto bad;
	len -= less;
	memcpy(c->tls_aad, a, 11);
	c->tls_aad[11] = (unsigned char)(len >> 8);
	c->tls_aad[12] = (unsigned char)len;
	c->tls_aad_set = 1;
	return 1;
bad:
	PL_ERR(c->pc, PL_R_INVALID_AAD);
	return 0;
}

/*
 * "tlsivfixed": the implicit part of the nonce (TLS 1.2: 4 bytes from the
 * key block).  The explicit part, at least 8 bytes, is a counter that
 * starts at a random value when sending.  A length of (size_t)-1 gives the
 * whole IV (EVP_CTRL_GCM_SET_IV_FIXED with -1).
 */
static int gcm_tls_iv_fixed(struct pl_aes *c, const OSSL_PARAM *p)
{
	size_t n = p->data_size;

	if (p->data_type != OSSL_PARAM_OCTET_STRING || !p->data ||
	    (n != (size_t)-1 &&
	     (n < PL_TLS_FIXED_IV || n > c->ivlen || c->ivlen - n < PL_TLS_EXPLICIT_IV))) {
		PL_ERR(c->pc, PL_R_INVALID_IV_LENGTH);
		return 0;
	}
	if (n == (size_t)-1) {
		memcpy(c->oiv, p->data, c->ivlen);
	} else {
		memcpy(c->oiv, p->data, n);
		if (c->enc && n < c->ivlen &&
		    getrandom(c->oiv + n, c->ivlen - n, 0) != (ssize_t)(c->ivlen - n)) {
			PL_ERR(c->pc, PL_R_RANDOM);
			return 0;
		}
	}
	c->tls_iv_gen = 1;
	c->iv_set = 0;
	return 1;
}

/*
 * One GCM record: explicit IV (8 bytes), data, tag (16 bytes).  Sending,
 * the explicit IV is the counter in the last 8 bytes of the IV, written
 * into the record and incremented; receiving, it is read from the record.
 */
static int gcm_tls_record(struct pl_aes *c, unsigned char *out, size_t *outl,
			  size_t outsize, const unsigned char *in, size_t inl)
{
	unsigned char *iv = c->oiv + c->ivlen - PL_TLS_EXPLICIT_IV, tag[16];
	size_t len, n;
	unsigned int diff;

	c->tls_aad_set = 0;		/* an AAD serves one record */
	if (!in || !out || inl < PL_TLS_EXPLICIT_IV + PL_TLS_TAG || outsize < inl) {
		PL_ERR(c->pc, PL_R_TLS_RECORD);
		return 0;
	}
	if (!c->tls_iv_gen) {
		PL_ERR(c->pc, PL_R_NO_IV_SET);
		return 0;
	}
	if (in != out)
		memmove(out, in, inl);
	if (c->enc)
		memcpy(out, iv, PL_TLS_EXPLICIT_IV);
	else
		memcpy(iv, out, PL_TLS_EXPLICIT_IV);
	len = inl - PL_TLS_EXPLICIT_IV - PL_TLS_TAG;
	out += PL_TLS_EXPLICIT_IV;
	c->iv_set = 1;
	gcm_start(c);
	gcm_update(c, NULL, &n, 0, c->tls_aad, PL_TLS_AAD_LEN);
	gcm_update(c, out, &n, len, out, len);
	gcm_tag(c, tag);
	c->iv_set = 0;
	if (c->enc) {
		memcpy(out + len, tag, PL_TLS_TAG);
		ctr_inc(iv, PL_TLS_EXPLICIT_IV - 1, 0);
		*outl = inl;
		return 1;
	}
	diff = bytes_differ(tag, out + len, PL_TLS_TAG);
	pl_cleanse(tag, sizeof(tag));
	if (diff) {
		pl_cleanse(out, len);
		PL_ERR(c->pc, PL_R_BAD_DECRYPT);
		return 0;
	}
	*outl = len;
	return 1;
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
		return !inl || gcm_tls_record(c, out, outl, outsize, in, inl);
	if (c->mode == PL_GCM)
		return gcm_update(c, out, outl, outsize, in, inl);
	if (c->mode == PL_CBC && c->tls_version)
		return cbc_tls_record(c, out, outl, outsize, in, inl);
	if (!inl)
		return 1;
	if (c->mode == PL_ECB || c->mode == PL_CBC)
		return block_update(c, out, outl, outsize, in, inl);
	if (outsize < inl) {
		PL_ERR(c->pc, PL_R_OUTPUT_BUFFER_TOO_SMALL);
		return 0;
	}
	if (c->mode == PL_CTR)
		ctr_stream(c, out, in, inl, 0);
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
		return gcm_final(c, outl);
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
		aes_blocks(c, c->mode, c->enc ? c->cw_enc : c->cw_dec,
			   c->enc ? c->ekey : c->dkey, out, in, inl / 16);
		*outl = inl;
		return 1;
	}
	if (c->mode == PL_GCM && !in) {
		if (!gcm_final(c, outl))
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

/*
 * "tlsivgen": the explicit part of the next nonce (the last bytes of the
 * IV, all of it if asked for 0 bytes), then the counter moves on.
 */
static int gcm_tls_iv_gen(struct pl_aes *c, OSSL_PARAM *p)
{
	size_t n = p->data_size;

	if (c->mode != PL_GCM || !c->tls_iv_gen || !c->key_set ||
	    !p->data || p->data_type != OSSL_PARAM_OCTET_STRING) {
		PL_ERR(c->pc, PL_R_NO_IV_SET);
		return 0;
	}
	if (n == 0 || n > c->ivlen)
		n = c->ivlen;
	/* the next message runs on this IV, the one after on the next */
	c->iv_set = 1;
	gcm_start(c);
	memcpy(p->data, c->oiv + c->ivlen - n, n);
	p->return_size = n;
	ctr_inc(c->oiv + c->ivlen - PL_TLS_EXPLICIT_IV, PL_TLS_EXPLICIT_IV - 1, 0);
	return 1;
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
			ok = c->mode == PL_CBC &&
			     pl_param_set_octet_ptr(p, c->tls_mac, c->tls_macsize);
		} else if (!strcmp(p->key, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD)) {
			ok = c->mode == PL_GCM && pl_param_set_size(p, PL_TLS_TAG);
		} else if (!strcmp(p->key, OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN)) {
			ok = gcm_tls_iv_gen(c, p);
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
			if (v && !tls_version_known(v)) {
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
			if (!gcm_tls_aad(c, p))
				return 0;
		} else if (c->mode == PL_GCM &&
			   !strcmp(p->key, OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED)) {
			if (!gcm_tls_iv_fixed(c, p))
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
			gcm_start(c);
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

/* What is offered: AES where ACE passed its self-test, GCM where it pays. */
void pl_ciphers_setup(void)
{
	const OSSL_ALGORITHM *a;
	size_t n = 0;

	memset(pl_cipher_table, 0, sizeof(pl_cipher_table));
	for (a = pl_all_ciphers; pl_cpu.ace && a->algorithm_names; a++)
		if (pl_cpu.gcm || !strstr(a->algorithm_names, "-GCM"))
			pl_cipher_table[n++] = *a;
}

const OSSL_ALGORITHM *pl_ciphers(void)
{
	return pl_cipher_table[0].algorithm_names ? pl_cipher_table : NULL;
}
