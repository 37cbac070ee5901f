// SPDX-License-Identifier: GPL-2.0
/*
 * SHA-1, SHA-224, SHA-256 on PadLock PHE, SHA-384 and SHA-512 on PHE2
 * (Zhaoxin), with OpenSSL's streaming interface: update any size any
 * number of times, duplicate the context mid-stream, final.
 *
 * The engine runs in block mode (docs/hardware.md 1.7: rAX = -1, whole
 * blocks, no padding), which VIA Nano and Zhaoxin have: input is buffered
 * to a whole block, whole blocks go to the engine straight from the
 * caller's buffer (XSHA has no alignment rule for its input), and final
 * builds the FIPS 180-4 padding here and hashes it on the engine too.
 * Final mode alone is not used: it cannot continue from a partial hash
 * (so no streaming without holding the whole message), and on Zhaoxin an
 * empty message leaves the state untouched (1.7).
 *
 * The VIA C7 has only final mode.  The provider offers no digest there:
 * streaming would mean holding each whole message in memory until final
 * (unbounded, for `openssl dgst` of a large file or a long TLS
 * transcript), and SHA-224 would need final mode on a state that is not
 * SHA-256's own IV, which no source documents.  OpenSSL's default provider
 * hashes on the C7; the kernel's padlock-sha serves it through AF_ALG.
 *
 * HMAC is OpenSSL's own (the default provider's HMAC fetches its digest
 * by name and property query, so "provider=padlock" puts these under it).
 *
 * The state area is 128 bytes, 16-byte aligned: VIA's microcode may use all
 * of it (1.7); the hash words are native little-endian.
 */
#include <stdlib.h>
#include <string.h>
#include "padlock-prov.h"
#include "padlock-user-asm.h"

struct pl_sha_alg {
	size_t block, out;
	int wide;			/* 64-bit words (SHA-384/512) */
	const void *iv;
	void (*blocks)(const void *in, void *state, size_t n);
};

struct pl_sha {
	unsigned char state[128] PL_ALIGNED;
	unsigned char buf[128];
	size_t bufn;
	uint64_t total;			/* bytes hashed so far */
	const struct pl_sha_alg *alg;
	struct pl_provctx *pc;
};

static const uint32_t sha1_iv[5] = {
	0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0
};

static const uint32_t sha224_iv[8] = {
	0xc1059ed8, 0x367cd507, 0x3070dd17, 0xf70e5939,
	0xffc00b31, 0x68581511, 0x64f98fa7, 0xbefa4fa4
};

static const uint32_t sha256_iv[8] = {
	0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
	0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19
};

static const uint64_t sha384_iv[8] = {
	0xcbbb9d5dc1059ed8ULL, 0x629a292a367cd507ULL, 0x9159015a3070dd17ULL,
	0x152fecd8f70e5939ULL, 0x67332667ffc00b31ULL, 0x8eb44a8768581511ULL,
	0xdb0c2e0d64f98fa7ULL, 0x47b5481dbefa4fa4ULL
};

static const uint64_t sha512_iv[8] = {
	0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL,
	0xa54ff53a5f1d36f1ULL, 0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL,
	0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL
};

static const struct pl_sha_alg alg_sha1 = { 64, 20, 0, sha1_iv, plu_xsha1_blocks };
static const struct pl_sha_alg alg_sha224 = { 64, 28, 0, sha224_iv, plu_xsha256_blocks };
static const struct pl_sha_alg alg_sha256 = { 64, 32, 0, sha256_iv, plu_xsha256_blocks };
static const struct pl_sha_alg alg_sha384 = { 128, 48, 1, sha384_iv, plu_xsha384_blocks };
static const struct pl_sha_alg alg_sha512 = { 128, 64, 1, sha512_iv, plu_xsha512_blocks };

static void *sha_newctx(void *provctx, const struct pl_sha_alg *alg)
{
	struct pl_sha *c = pl_zalloc_aligned(sizeof(*c));

	if (!c) {
		PL_ERR(provctx, PL_R_MALLOC_FAILURE);
		return NULL;
	}
	c->alg = alg;
	c->pc = provctx;
	return c;
}

static void sha_freectx(void *vc)
{
	pl_free_aligned(vc, sizeof(struct pl_sha));
}

static void *sha_dupctx(void *vc)
{
	struct pl_sha *c = vc, *d = pl_zalloc_aligned(sizeof(*d));

	if (!d) {
		PL_ERR(c->pc, PL_R_MALLOC_FAILURE);
		return NULL;
	}
	memcpy(d, c, sizeof(*d));
	return d;
}

static int sha_init(void *vc, const OSSL_PARAM params[])
{
	struct pl_sha *c = vc;

	(void)params;
	memset(c->state, 0, sizeof(c->state));
	memcpy(c->state, c->alg->iv, c->alg->wide ? 64 : c->alg->out == 20 ? 20 : 32);
	c->bufn = 0;
	c->total = 0;
	return 1;
}

static int sha_update(void *vc, const unsigned char *in, size_t len)
{
	struct pl_sha *c = vc;
	size_t bs = c->alg->block, n;

	c->total += len;
	if (c->bufn) {
		size_t k = bs - c->bufn < len ? bs - c->bufn : len;

		memcpy(c->buf + c->bufn, in, k);
		c->bufn += k;
		in += k;
		len -= k;
		if (c->bufn < bs)
			return 1;
		c->alg->blocks(c->buf, c->state, 1);
		c->bufn = 0;
	}
	n = len / bs;
	if (n) {
		c->alg->blocks(in, c->state, n);
		in += n * bs;
		len -= n * bs;
	}
	memcpy(c->buf, in, len);
	c->bufn = len;
	return 1;
}

static int sha_final(void *vc, unsigned char *out, size_t *outl, size_t outsz)
{
	struct pl_sha *c = vc;
	size_t bs = c->alg->block, lenpos = bs - (c->alg->wide ? 16 : 8), i;
	uint64_t bits = c->total * 8;

	if (outsz < c->alg->out) {
		PL_ERR(c->pc, PL_R_OUTPUT_BUFFER_TOO_SMALL);
		return 0;
	}
	c->buf[c->bufn++] = 0x80;
	if (c->bufn > lenpos) {
		memset(c->buf + c->bufn, 0, bs - c->bufn);
		c->alg->blocks(c->buf, c->state, 1);
		c->bufn = 0;
	}
	memset(c->buf + c->bufn, 0, bs - c->bufn);
	for (i = 0; i < 8; i++)
		c->buf[bs - 1 - i] = (unsigned char)(bits >> (8 * i));
	if (c->alg->wide)	/* the top half of the 128-bit bit length */
		c->buf[bs - 9] = (unsigned char)(c->total >> 61);
	c->alg->blocks(c->buf, c->state, 1);

	/* the state's native words, big-endian (every length is whole words) */
	for (i = 0; i < c->alg->out; i += c->alg->wide ? 8 : 4) {
		if (c->alg->wide) {
			uint64_t w;

			memcpy(&w, c->state + i, 8);
			w = __builtin_bswap64(w);
			memcpy(out + i, &w, 8);
		} else {
			uint32_t w;

			memcpy(&w, c->state + i, 4);
			w = __builtin_bswap32(w);
			memcpy(out + i, &w, 4);
		}
	}
	*outl = c->alg->out;
	pl_cleanse(c->buf, sizeof(c->buf));
	pl_cleanse(c->state, sizeof(c->state));
	return 1;
}

static const OSSL_PARAM sha_gettable[] = {
	{ OSSL_DIGEST_PARAM_BLOCK_SIZE, OSSL_PARAM_UNSIGNED_INTEGER, NULL, sizeof(size_t), 0 },
	{ OSSL_DIGEST_PARAM_SIZE, OSSL_PARAM_UNSIGNED_INTEGER, NULL, sizeof(size_t), 0 },
	{ OSSL_DIGEST_PARAM_XOF, OSSL_PARAM_INTEGER, NULL, sizeof(int), 0 },
	{ OSSL_DIGEST_PARAM_ALGID_ABSENT, OSSL_PARAM_INTEGER, NULL, sizeof(int), 0 },
	{ NULL, 0, NULL, 0, 0 }
};

static const OSSL_PARAM *sha_gettable_params(void *provctx)
{
	(void)provctx;
	return sha_gettable;
}

static int sha_get_params(OSSL_PARAM params[], const struct pl_sha_alg *alg)
{
	OSSL_PARAM *p;

	for (p = params; p && p->key; p++) {
		int ok = 1;

		if (!strcmp(p->key, OSSL_DIGEST_PARAM_BLOCK_SIZE))
			ok = pl_param_set_size(p, alg->block);
		else if (!strcmp(p->key, OSSL_DIGEST_PARAM_SIZE))
			ok = pl_param_set_size(p, alg->out);
		else if (!strcmp(p->key, OSSL_DIGEST_PARAM_XOF))
			ok = pl_param_set_int(p, 0);
		else if (!strcmp(p->key, OSSL_DIGEST_PARAM_ALGID_ABSENT))
			ok = pl_param_set_int(p, 1);
		if (!ok)
			return 0;
	}
	return 1;
}

#define PL_FN(f)	((void (*)(void))(f))

#define PL_SHA(name)							\
static void *name##_newctx(void *provctx)				\
{									\
	return sha_newctx(provctx, &alg_##name);			\
}									\
static int name##_get_params(OSSL_PARAM params[])			\
{									\
	return sha_get_params(params, &alg_##name);			\
}									\
static const OSSL_DISPATCH name##_fns[] = {				\
	{ OSSL_FUNC_DIGEST_NEWCTX, PL_FN(name##_newctx) },		\
	{ OSSL_FUNC_DIGEST_INIT, PL_FN(sha_init) },			\
	{ OSSL_FUNC_DIGEST_UPDATE, PL_FN(sha_update) },			\
	{ OSSL_FUNC_DIGEST_FINAL, PL_FN(sha_final) },			\
	{ OSSL_FUNC_DIGEST_FREECTX, PL_FN(sha_freectx) },		\
	{ OSSL_FUNC_DIGEST_DUPCTX, PL_FN(sha_dupctx) },			\
	{ OSSL_FUNC_DIGEST_GET_PARAMS, PL_FN(name##_get_params) },	\
	{ OSSL_FUNC_DIGEST_GETTABLE_PARAMS, PL_FN(sha_gettable_params) }, \
	{ 0, NULL }							\
}

PL_SHA(sha1);
PL_SHA(sha224);
PL_SHA(sha256);
PL_SHA(sha384);
PL_SHA(sha512);

#define PL_PROPS	"provider=padlock"

/* OpenSSL's names and OIDs */
static OSSL_ALGORITHM pl_digest_table[6];

/* PHE's three, then PHE2's two */
static const OSSL_ALGORITHM pl_sha_all[] = {
	{ "SHA1:SHA-1:SSL3-SHA1:1.3.14.3.2.26", PL_PROPS, sha1_fns, NULL },
	{ "SHA2-224:SHA-224:SHA224:2.16.840.1.101.3.4.2.4", PL_PROPS, sha224_fns, NULL },
	{ "SHA2-256:SHA-256:SHA256:2.16.840.1.101.3.4.2.1", PL_PROPS, sha256_fns, NULL },
	{ "SHA2-384:SHA-384:SHA384:2.16.840.1.101.3.4.2.2", PL_PROPS, sha384_fns, NULL },
	{ "SHA2-512:SHA-512:SHA512:2.16.840.1.101.3.4.2.3", PL_PROPS, sha512_fns, NULL },
	{ NULL, NULL, NULL, NULL }
};

/* Every digest the provider has, for the self-test (padlock-selftest.c). */
const OSSL_ALGORITHM *pl_digest_algs(void)
{
	return pl_sha_all;
}

/*
 * PHE's three where OpenSSL's own has no SHA-NI to run on, PHE2's two
 * where the CPU has them.
 */
void pl_digests_setup(void)
{
	size_t i, n = 0;

	memset(pl_digest_table, 0, sizeof(pl_digest_table));
	for (i = 0; pl_sha_all[i].algorithm_names; i++) {
		if (!pl_cpu.phe_blocks || (i < 3 ? pl_cpu.sha_ni : !pl_cpu.phe2))
			continue;
		pl_digest_table[n++] = pl_sha_all[i];
	}
}

const OSSL_ALGORITHM *pl_digests(void)
{
	return pl_digest_table[0].algorithm_names ? pl_digest_table : NULL;
}
