// SPDX-License-Identifier: GPL-2.0
/*
 * padlock-difftest: random requests to every algorithm of padlock-aes and
 * padlock-sha, each compared with the kernel's own implementation (a test
 * helper, not a driver; built only with padlock-sim, never installed by
 * DKMS).  In the kernel, so that a request costs a function call, not a
 * system call and a user-space program under software emulation:
 *
 *   echo "cbc(aes) 1000000 42" > /sys/kernel/debug/padlock-difftest/run
 *   cat /sys/kernel/debug/padlock-difftest/run
 *
 * Syntax: ALG COUNT SEED [FIRST [MAXLEN]].  Requests FIRST .. FIRST +
 * COUNT - 1 are run; request K is a function of SEED and K alone, so
 * "ALG 1 SEED K" repeats request K by itself.  MAXLEN (default four pages
 * and a bit) bounds the data of one request.
 *
 * ALG is one of ecb(aes), cbc(aes), ctr(aes), xts(aes), cts(cbc(aes)),
 * aes (the single-block cipher), sha1, sha224, sha256, sha384, sha512 and
 * hmac() of each hash, or ctr(aes)-edges: not random requests but a fixed
 * sweep of the counter's 16-bit wrap (dt_edge_params(), 18,432 cases).
 * Ours is taken by its driver name (ecb-aes-padlock, sha256-padlock,
 * hmac-sha256-padlock, ...), the kernel's by the driver names of
 * padlock-test-compat.h (they changed between 5.10 and 7.x).
 *
 * Each request draws:
 *  - a key: mostly a valid size, sometimes any size up to twice the
 *    largest (both drivers must refuse alike, with the same error);
 *    hmac keys of 0 .. 3 blocks and around one block;
 *  - a length: mostly short, with a tail up to MAXLEN; for ecb/cbc mostly
 *    whole blocks, sometimes not (both must refuse alike);
 *  - for skciphers: encrypt or decrypt, in place or out of place, source
 *    and destination scatterlists of 1 .. 16 segments cut at random
 *    points, starting at random (odd, page-end) offsets, with gaps, so
 *    that segments cross pages; a random IV, for ctr often about to carry
 *    out of its low 32 or 64 bits or to wrap;
 *  - for the cipher: 1 .. 4 blocks, in place or not, at odd addresses;
 *  - for hashes: 1 .. 6 updates split at random points (or one digest
 *    call), at a random offset, ended by final or finup.
 *
 * The kernel's implementation gets the same request on linear buffers.
 * Compared: the return codes, the output, the chaining value left in the
 * IV (cbc, ctr; the other modes do not define it), that an out-of-place
 * source is unchanged, and that nothing outside the destination segments
 * was written.  The result is one line:
 *
 *   ok|FAIL|SKIP ALG ours=DRV generic=DRV seed=S first=F requests=N ...
 *	[: the first problem, with its request index and parameters]
 *
 * ours_ops counts the successful non-empty operations done by our driver
 * (skcipher requests, cipher blocks, digests), for the caller to compare
 * with the PadLock instructions the CPU executed.  The module knows
 * nothing of the drivers' internals: it uses the crypto API only.
 */
#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/err.h>
#include <linux/mm.h>
#include <linux/gfp.h>
#include <linux/scatterlist.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <crypto/aes.h>
#include <crypto/hash.h>
#include <crypto/skcipher.h>
#include <crypto/internal/cipher.h>

#include "padlock-test-compat.h"
#include "padlock-test-run.h"

#define DT_DEFAULT_MAXLEN	(4 * PAGE_SIZE + 100)
#define DT_MAX_MAXLEN		(64 * 1024)
#define DT_MAX_COUNT		100000000UL
#define DT_MAX_SEGS		16
#define DT_MAX_GAP		64
#define DT_GUARD		16
#define DT_MAX_KEY		128	/* twice the largest valid key */
#define DT_HMAC_MAX_KEY		(3 * 128 + 1)

enum dt_type { DT_SKCIPHER, DT_CIPHER, DT_SHASH };

/* skcipher flags */
#define DT_WHOLE_BLOCKS	BIT(0)	/* the length must be a multiple of 16 */
#define DT_MIN_BLOCK	BIT(1)	/* at least one block */
#define DT_IV_OUT	BIT(2)	/* the IV out is the chaining value */
#define DT_TWO_KEYS	BIT(3)	/* xts: data key and tweak key */
#define DT_COUNTER	BIT(4)	/* ctr: bias the IV to carries */
#define DT_EDGES	BIT(6)	/* ctr: the counter-wrap sweep, not random */
/* shash flags */
#define DT_KEYED	BIT(5)	/* hmac */

struct dt_alg {
	const char *name;
	enum dt_type type;
	const char *ours;	/* our driver name */
	const char *gen_fmt;	/* the kernel's, around the compat name */
	const char *hash;	/* shash: the hash's name */
	unsigned int flags;
};

#define DT_SK(n, o, g, f)	{ .name = n, .type = DT_SKCIPHER, .ours = o, \
				  .gen_fmt = g, .flags = f }
#define DT_SHA(n)	{ .name = #n, .type = DT_SHASH, .ours = #n "-padlock", \
			  .gen_fmt = PADLOCK_KERNEL_SHA_DRIVER, .hash = #n }
#define DT_HMAC(n)	{ .name = "hmac(" #n ")", .type = DT_SHASH, \
			  .ours = "hmac-" #n "-padlock", \
			  .gen_fmt = PADLOCK_KERNEL_HMAC_DRIVER, .hash = #n, \
			  .flags = DT_KEYED }

static const struct dt_alg dt_algs[] = {
	DT_SK("ecb(aes)", "ecb-aes-padlock", "ecb(%s)", DT_WHOLE_BLOCKS),
	DT_SK("cbc(aes)", "cbc-aes-padlock", "cbc(%s)", DT_WHOLE_BLOCKS | DT_IV_OUT),
	DT_SK("ctr(aes)", "ctr-aes-padlock", "ctr(%s)", DT_IV_OUT | DT_COUNTER),
	DT_SK("ctr(aes)-edges", "ctr-aes-padlock", "ctr(%s)", DT_IV_OUT | DT_EDGES),
	/* (an xts instance is named after the ecb it is built on) */
	DT_SK("xts(aes)", "xts-aes-padlock", "xts(ecb(%s))", DT_MIN_BLOCK | DT_TWO_KEYS),
	DT_SK("cts(cbc(aes))", "cts-cbc-aes-padlock", "cts(cbc(%s))", DT_MIN_BLOCK),
	{ .name = "aes", .type = DT_CIPHER, .ours = "aes-padlock", .gen_fmt = "%s" },
	DT_SHA(sha1), DT_SHA(sha224), DT_SHA(sha256), DT_SHA(sha384), DT_SHA(sha512),
	DT_HMAC(sha1), DT_HMAC(sha224), DT_HMAC(sha256), DT_HMAC(sha384),
	DT_HMAC(sha512),
};

/* A scatterlist layout in one buffer: segment offsets and lengths. */
struct dt_layout {
	unsigned int n, off[DT_MAX_SEGS], len[DT_MAX_SEGS];
	struct scatterlist sg[DT_MAX_SEGS];
};

struct dt_run {
	const struct dt_alg *alg;
	struct crypto_skcipher *sk_gen, *sk_ours;
	struct skcipher_request *rq_gen, *rq_ours;
	struct crypto_cipher *ci_gen, *ci_ours;
	struct crypto_shash *sh_gen, *sh_ours;
	struct shash_desc *dg, *dp;
	const char *gen_name, *ours_name;
	long gen_err, ours_err;
	unsigned int maxlen, bufsize, order, ds, bs;
	u8 *msg, *ref, *out;	/* linear: input, the kernel's output, ours */
	u8 *sbuf, *dbuf;	/* ours: source and destination pages */
	struct dt_layout src, dst;
	u8 key[DT_HMAC_MAX_KEY];
	u8 iv[AES_BLOCK_SIZE], iv_gen[AES_BLOCK_SIZE], iv_ours[AES_BLOCK_SIZE];
	u64 prng, seed, index;
	/* what the current request drew, for the report */
	unsigned int klen, len, nupd;
	bool enc, inplace;
	/* totals */
	unsigned long done, compared, refused, ops, bad;
	u64 bytes, blocks;
	char problem[400], desc[128];
};

/* (defined with its request parser at the end) */
static struct pt_run_file dt_run_file;

static u32 dt_below(struct dt_run *r, u32 n)
{
	return pt_below(&r->prng, n);
}

static void dt_fill(struct dt_run *r, u8 *p, size_t len)
{
	pt_fill(&r->prng, p, len);
}

/* request @index: a state from the seed and the index alone */
static void dt_start(struct dt_run *r, u64 index)
{
	r->index = index;
	r->prng = r->seed ^ ((index + 1) * 0xd1b54a32d192ed03ULL);
	pt_rand(&r->prng);
}

static __printf(2, 3) void dt_problem(struct dt_run *r, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (r->problem[0])
		return;		/* keep the first one */
	/* how to run this request alone */
	n = scnprintf(r->problem, sizeof(r->problem), "request %llu (\"%s 1 %llu %llu %u\"): ",
		      r->index, r->alg->name, r->seed, r->index, r->maxlen);
	va_start(ap, fmt);
	vscnprintf(r->problem + n, sizeof(r->problem) - n, fmt, ap);
	va_end(ap);
}

/*
 * A length: mostly short, so that millions of requests fit in minutes of
 * software emulation, with a tail up to @max.
 */
static unsigned int dt_len(struct dt_run *r, unsigned int max)
{
	unsigned int p = dt_below(r, 100), lim;

	lim = p < 50 ? 48 : p < 80 ? 256 : p < 95 ? 1024 : p < 99 ? 4096 : max;
	return dt_below(r, min(lim, max) + 1);
}

/*
 * Cut @len bytes into 1 .. DT_MAX_SEGS segments of a buffer: the first at
 * offset 0, a random one or just before a page end, the others after gaps
 * of 0 .. DT_MAX_GAP - 1 bytes; the buffer (r->bufsize) has room for all.
 */
static void dt_layout(struct dt_run *r, struct dt_layout *l, unsigned int len)
{
	unsigned int pos, left = len, i, n, want;

	switch (dt_below(r, 4)) {
	case 0:
		pos = DT_GUARD;
		break;
	case 1:
		pos = PAGE_SIZE - 1 - dt_below(r, 32);
		break;
	default:
		pos = DT_GUARD + dt_below(r, PAGE_SIZE);
		break;
	}
	want = dt_below(r, 2) ? 1 : 1 + dt_below(r, DT_MAX_SEGS);
	for (i = 0; i < want && (left || !i); i++) {
		n = i == want - 1 ? left : dt_below(r, 3) ? 1 + dt_below(r, left ?: 1) :
			       min_t(unsigned int, left, 1 + dt_below(r, 20));
		n = min(n, left);
		if (!n && i)
			break;
		l->off[i] = pos;
		l->len[i] = n;
		left -= n;
		pos += n + (dt_below(r, 2) ? 0 : dt_below(r, DT_MAX_GAP));
	}
	l->n = i;
	/* any rest goes to the last segment */
	l->len[i - 1] += left;
}

/* The layout's scatterlist over @buf; with @data, @data copied into it. */
static void dt_scatter(struct dt_layout *l, u8 *buf, const u8 *data)
{
	unsigned int i, at = 0;

	sg_init_table(l->sg, l->n);
	for (i = 0; i < l->n; i++) {
		sg_set_buf(&l->sg[i], buf + l->off[i], l->len[i]);
		if (data)
			memcpy(buf + l->off[i], data + at, l->len[i]);
		at += l->len[i];
	}
}

static void dt_gather(struct dt_layout *l, const u8 *buf, u8 *data)
{
	unsigned int i, at = 0;

	for (i = 0; i < l->n; i++) {
		memcpy(data + at, buf + l->off[i], l->len[i]);
		at += l->len[i];
	}
}

/* The first and last byte a layout's guard covers. */
static unsigned int dt_lo(struct dt_layout *l)
{
	return l->off[0] - DT_GUARD;
}

static unsigned int dt_hi(struct dt_layout *l)
{
	return l->off[l->n - 1] + l->len[l->n - 1] + DT_GUARD;
}

/* Fill what a layout spans (with its guards) with @c. */
static void dt_guard(struct dt_layout *l, u8 *buf, u8 c)
{
	memset(buf + dt_lo(l), c, dt_hi(l) - dt_lo(l));
}

/* Was anything around or between the segments written?  Its offset or -1. */
static int dt_guard_broken(struct dt_layout *l, const u8 *buf, u8 c)
{
	unsigned int i, from = dt_lo(l), to;
	const u8 *p;

	for (i = 0; i <= l->n; i++) {
		to = i < l->n ? l->off[i] : dt_hi(l);
		p = memchr_inv(buf + from, c, to - from);
		if (p)
			return p - buf;
		if (i < l->n)
			from = l->off[i] + l->len[i];
	}
	return -1;
}

static const char *dt_drv(struct crypto_tfm *tfm)
{
	return crypto_tfm_alg_driver_name(tfm);
}

/*
 * Both drivers answered a step of the request with @eg and @ep: true when
 * both succeeded; a difference is a mismatch, an error on both a refusal.
 */
static bool dt_alike(struct dt_run *r, int eg, int ep, const char *what)
{
	if (eg != ep) {
		r->bad++;
		dt_problem(r, "%s: %d (generic), %d (ours), klen %u len %u",
			   what, eg, ep, r->klen, r->len);
		return false;
	}
	if (eg)
		r->refused++;
	return !eg;
}

/* Both tfms get the same r->klen random bytes as their key. */
static bool dt_setkey(struct dt_run *r)
{
	int eg, ep;

	dt_fill(r, r->key, r->klen);
	switch (r->alg->type) {
	case DT_SKCIPHER:
		eg = crypto_skcipher_setkey(r->sk_gen, r->key, r->klen);
		ep = crypto_skcipher_setkey(r->sk_ours, r->key, r->klen);
		break;
	case DT_CIPHER:
		eg = crypto_cipher_setkey(r->ci_gen, r->key, r->klen);
		ep = crypto_cipher_setkey(r->ci_ours, r->key, r->klen);
		break;
	default:
		eg = crypto_shash_setkey(r->sh_gen, r->key, r->klen);
		ep = crypto_shash_setkey(r->sh_ours, r->key, r->klen);
		break;
	}
	return dt_alike(r, eg, ep, "setkey");
}

/* ---- skciphers ---------------------------------------------------------- */

static unsigned int dt_sk_keylen(struct dt_run *r)
{
	unsigned int k = r->alg->flags & DT_TWO_KEYS ? 2 : 1;

	if (!dt_below(r, 32))
		return dt_below(r, k * AES_MAX_KEY_SIZE + 9);
	return k * (AES_MIN_KEY_SIZE + 8 * dt_below(r, 3));
}

static void dt_sk_iv(struct dt_run *r)
{
	unsigned int i;

	dt_fill(r, r->iv, AES_BLOCK_SIZE);
	if (!(r->alg->flags & DT_COUNTER))
		return;
	/* the counter about to carry out of 32 or 64 bits, or to wrap */
	switch (dt_below(r, 8)) {
	case 0:
	case 1:
		memset(r->iv + 12, 0xff, 4);
		r->iv[15] -= dt_below(r, 4);
		break;
	case 2:
		memset(r->iv + 8, 0xff, 8);
		r->iv[15] -= dt_below(r, 4);
		break;
	case 3:
		memset(r->iv, 0xff, AES_BLOCK_SIZE);
		r->iv[15] -= dt_below(r, 4);
		break;
	case 4:
		/* a carry into the top byte of the low word */
		for (i = 13; i < AES_BLOCK_SIZE; i++)
			r->iv[i] = 0xff;
		break;
	}
}

static unsigned int dt_sk_len(struct dt_run *r)
{
	unsigned int len = dt_len(r, r->maxlen);
	unsigned int flags = r->alg->flags;

	/* now and then a length the mode refuses */
	if (dt_below(r, 16))
		if (flags & DT_WHOLE_BLOCKS)
			len = round_down(len, AES_BLOCK_SIZE);
	if ((flags & DT_MIN_BLOCK) && len < AES_BLOCK_SIZE && dt_below(r, 16))
		len += AES_BLOCK_SIZE;
	return len;
}

static int dt_sk_do(struct skcipher_request *rq, bool enc)
{
	return enc ? crypto_skcipher_encrypt(rq) : crypto_skcipher_decrypt(rq);
}

/* The current skcipher request's parameters, for a report. */
static const char *dt_sk_desc(struct dt_run *r)
{
	scnprintf(r->desc, sizeof(r->desc),
		  "%s klen %u len %u %s, source %u segments from %u, destination %u from %u",
		  r->enc ? "encrypt" : "decrypt", r->klen, r->len,
		  r->inplace ? "in place" : "out of place", r->src.n,
		  r->src.off[0], r->dst.n, r->dst.off[0]);
	return r->desc;
}

/*
 * ctr(aes)-edges: request K is case K of a fixed sweep of the counter's
 * 16-bit wrap, which the engine does not carry (docs/hardware.md 1.2); the
 * seed picks only the key, the data, the direction and the counter's other
 * bytes.  The low 16 bits of the counter stop ROOM = 1 .. 24 blocks before
 * they wrap; the carry out of them stops in byte 13, or runs out of 32 or
 * 64 bits, or wraps the whole block; the request is ROOM blocks and a few
 * more or fewer, with a partial block or none; its scatterlist is one
 * segment, one that ends at a page end (the engine's over-read), or two cut
 * exactly at the wrap or 5 bytes before it (a walk step ending inside a
 * block); in place and out of place; every key size.
 */
#define DT_EDGE_ROOMS	24
#define DT_EDGE_TOPS	4
#define DT_EDGE_LENS	8
#define DT_EDGE_CUTS	4
#define DT_EDGE_CASES	(DT_EDGE_ROOMS * DT_EDGE_TOPS * DT_EDGE_LENS * DT_EDGE_CUTS * 2 * 3)

static const int dt_edge_blocks[DT_EDGE_LENS] = { -1, 0, 0, 1, 1, 2, 9, 40 };
static const unsigned int dt_edge_tail[DT_EDGE_LENS] = { 0, 0, 7, 0, 15, 1, 0, 3 };

/* One or two segments of @buf for @len bytes, cut as case @cut says. */
static void dt_edge_layout(struct dt_layout *l, unsigned int len,
			   unsigned int cut, unsigned int wrap)
{
	unsigned int at = cut == 2 ? wrap : wrap - 5;

	l->n = 1;
	l->off[0] = DT_GUARD;
	l->len[0] = len;
	if (cut == 1) {
		l->off[0] = round_up(DT_GUARD + len, PAGE_SIZE) - len;
	} else if (cut >= 2 && at > 0 && at < len) {
		l->n = 2;
		l->len[0] = at;
		l->off[1] = DT_GUARD + at;
		l->len[1] = len - at;
	}
}

static void dt_edge_params(struct dt_run *r)
{
	u64 k = r->index % DT_EDGE_CASES;
	unsigned int room = 1 + k % DT_EDGE_ROOMS, blocks;
	unsigned int top = k / DT_EDGE_ROOMS % DT_EDGE_TOPS;
	unsigned int ln = k / (DT_EDGE_ROOMS * DT_EDGE_TOPS) % DT_EDGE_LENS;
	unsigned int cut = k / (DT_EDGE_ROOMS * DT_EDGE_TOPS * DT_EDGE_LENS) % DT_EDGE_CUTS;
	u64 rest = k / (DT_EDGE_ROOMS * DT_EDGE_TOPS * DT_EDGE_LENS * DT_EDGE_CUTS);

	r->inplace = rest & 1;
	r->klen = AES_MIN_KEY_SIZE + 8 * (rest >> 1);
	r->enc = dt_below(r, 2);
	blocks = max_t(int, 1, (int)room + dt_edge_blocks[ln]);
	r->len = blocks * AES_BLOCK_SIZE + dt_edge_tail[ln];

	dt_fill(r, r->iv, AES_BLOCK_SIZE);
	switch (top) {
	case 0:			/* the carry stops in byte 13 */
		r->iv[13] &= 0x7f;
		break;
	case 1:			/* out of 32 bits */
		memset(r->iv + 12, 0xff, 2);
		break;
	case 2:			/* out of 64 bits */
		memset(r->iv + 8, 0xff, 6);
		break;
	default:		/* the whole block wraps to zero */
		memset(r->iv, 0xff, 14);
		break;
	}
	r->iv[14] = (0x10000 - room) >> 8;
	r->iv[15] = (0x10000 - room) & 0xff;

	dt_edge_layout(&r->src, r->len, cut, room * AES_BLOCK_SIZE);
	dt_edge_layout(&r->dst, r->len, cut, room * AES_BLOCK_SIZE);
}

static void dt_sk_one(struct dt_run *r)
{
	bool edges = r->alg->flags & DT_EDGES;
	struct scatterlist sgi, sgo;
	struct dt_layout *dl;
	int eg, ep, at;

	if (edges)
		dt_edge_params(r);
	else
		r->klen = dt_sk_keylen(r);
	if (!dt_setkey(r))
		return;
	if (!edges) {
		r->len = dt_sk_len(r);
		r->enc = dt_below(r, 2);
		r->inplace = dt_below(r, 2);
		dt_sk_iv(r);
	}
	dt_fill(r, r->msg, r->len);

	/* the kernel's, linear and out of place */
	memcpy(r->iv_gen, r->iv, AES_BLOCK_SIZE);
	sg_init_one(&sgi, r->msg, r->len);
	sg_init_one(&sgo, r->ref, r->len);
	skcipher_request_set_crypt(r->rq_gen, &sgi, &sgo, r->len, r->iv_gen);
	eg = dt_sk_do(r->rq_gen, r->enc);

	/* ours, scattered */
	if (!edges)
		dt_layout(r, &r->src, r->len);
	dt_guard(&r->src, r->sbuf, 0x5a);
	dt_scatter(&r->src, r->sbuf, r->msg);
	if (r->inplace) {
		dl = &r->src;
		r->dst.n = r->src.n;	/* (for the report) */
		r->dst.off[0] = r->src.off[0];
	} else {
		if (!edges)
			dt_layout(r, &r->dst, r->len);
		dt_guard(&r->dst, r->dbuf, 0xa5);
		dt_scatter(&r->dst, r->dbuf, NULL);
		dl = &r->dst;
	}
	memcpy(r->iv_ours, r->iv, AES_BLOCK_SIZE);
	skcipher_request_set_crypt(r->rq_ours, r->src.sg, dl->sg, r->len,
				   r->iv_ours);
	ep = dt_sk_do(r->rq_ours, r->enc);
	if (!dt_alike(r, eg, ep, dt_sk_desc(r)))
		return;
	r->compared++;
	r->bytes += r->len;
	r->blocks += DIV_ROUND_UP(r->len, AES_BLOCK_SIZE);
	if (r->len)
		r->ops++;
	dt_gather(dl, r->inplace ? r->sbuf : r->dbuf, r->out);
	if (memcmp(r->out, r->ref, r->len)) {
		for (at = 0; r->out[at] == r->ref[at]; at++)
			;
		r->bad++;
		dt_problem(r, "output differs from byte %d: %s", at,
			   dt_sk_desc(r));
		return;
	}
	if ((r->alg->flags & DT_IV_OUT) &&
	    memcmp(r->iv_gen, r->iv_ours, AES_BLOCK_SIZE)) {
		r->bad++;
		dt_problem(r, "IV out %*phN (generic) != %*phN (ours), IV in %*phN: %s",
			   AES_BLOCK_SIZE, r->iv_gen, AES_BLOCK_SIZE,
			   r->iv_ours, AES_BLOCK_SIZE, r->iv, dt_sk_desc(r));
		return;
	}
	at = dt_guard_broken(dl, r->inplace ? r->sbuf : r->dbuf,
			     r->inplace ? 0x5a : 0xa5);
	if (at >= 0) {
		r->bad++;
		dt_problem(r, "wrote outside the destination (at %d): %s",
			   at, dt_sk_desc(r));
		return;
	}
	if (!r->inplace) {
		dt_gather(&r->src, r->sbuf, r->out);
		if (memcmp(r->out, r->msg, r->len)) {
			r->bad++;
			dt_problem(r, "changed its source: %s",
				   dt_sk_desc(r));
		}
	}
}

/* ---- the single-block cipher -------------------------------------------- */

static void dt_cipher_one(struct dt_run *r)
{
	unsigned int i, nb, soff, doff;
	u8 *src, *dst;

	r->klen = dt_below(r, 32) ? AES_MIN_KEY_SIZE + 8 * dt_below(r, 3) :
				    dt_below(r, AES_MAX_KEY_SIZE + 9);
	if (!dt_setkey(r))
		return;
	nb = 1 + dt_below(r, 4);
	r->len = nb * AES_BLOCK_SIZE;
	r->inplace = dt_below(r, 2);
	dt_fill(r, r->msg, r->len);
	r->compared++;
	for (i = 0; i < nb; i++) {
		const u8 *in = r->msg + i * AES_BLOCK_SIZE;

		r->enc = dt_below(r, 2);
		soff = dt_below(r, PAGE_SIZE);
		doff = dt_below(r, PAGE_SIZE);
		src = r->sbuf + soff;
		dst = r->inplace ? src : r->dbuf + doff;
		memcpy(src, in, AES_BLOCK_SIZE);
		if (r->enc) {
			crypto_cipher_encrypt_one(r->ci_gen, r->ref, in);
			crypto_cipher_encrypt_one(r->ci_ours, dst, src);
		} else {
			crypto_cipher_decrypt_one(r->ci_gen, r->ref, in);
			crypto_cipher_decrypt_one(r->ci_ours, dst, src);
		}
		r->ops++;
		r->blocks++;
		r->bytes += AES_BLOCK_SIZE;
		if (memcmp(dst, r->ref, AES_BLOCK_SIZE)) {
			r->bad++;
			dt_problem(r, "block %u of %u differs: %s klen %u %s, offsets %u to %u",
				   i, nb, r->enc ? "encrypt" : "decrypt",
				   r->klen, r->inplace ? "in place" : "out of place",
				   soff, r->inplace ? soff : doff);
			return;
		}
	}
}

/* ---- hashes and HMAC ---------------------------------------------------- */

static void dt_shash_one(struct dt_run *r)
{
	unsigned int off, at, n, i, way;
	u8 *data;
	int eg, ep;

	if (r->alg->flags & DT_KEYED) {
		switch (dt_below(r, 4)) {
		case 0:
			r->klen = r->bs - 1 + dt_below(r, 3);
			break;
		default:
			r->klen = dt_below(r, 3 * r->bs + 1);
			break;
		}
		if (!dt_setkey(r))
			return;
	}
	r->len = dt_len(r, r->maxlen);
	/* one block in four: on or next to a block boundary */
	if (!dt_below(r, 4)) {
		r->len = round_down(r->len, r->bs) + dt_below(r, 3);
		r->len = min(r->len ? r->len - 1 : 0, r->maxlen);
	}
	off = dt_below(r, 2) ? dt_below(r, PAGE_SIZE) : PAGE_SIZE - 1 - dt_below(r, 64);
	data = r->sbuf + off;
	dt_fill(r, data, r->len);
	eg = crypto_shash_digest(r->dg, data, r->len, r->ref);

	/* 0: digest, 1: updates + final, 2: updates + finup */
	way = dt_below(r, 8) ? 1 + dt_below(r, 2) : 0;
	r->nupd = way ? dt_below(r, 6) : 0;
	if (!way) {
		ep = crypto_shash_digest(r->dp, data, r->len, r->out);
	} else {
		ep = crypto_shash_init(r->dp);
		for (at = 0, i = 0; !ep && i < r->nupd; i++, at += n) {
			n = dt_below(r, 2) ? dt_below(r, r->len - at + 1) :
					     min(r->len - at, dt_below(r, 2 * r->bs));
			ep = crypto_shash_update(r->dp, data + at, n);
		}
		if (ep)
			;
		else if (way == 1)
			ep = crypto_shash_update(r->dp, data + at, r->len - at) ?:
			     crypto_shash_final(r->dp, r->out);
		else
			ep = crypto_shash_finup(r->dp, data + at, r->len - at, r->out);
	}
	scnprintf(r->desc, sizeof(r->desc), "at %u, %u updates + %s", off,
		  r->nupd, way ? way == 1 ? "final" : "finup" : "digest()");
	if (!dt_alike(r, eg, ep, r->desc))
		return;
	r->compared++;
	r->ops++;
	r->bytes += r->len;
	if (memcmp(r->out, r->ref, r->ds)) {
		r->bad++;
		dt_problem(r, "digest differs: klen %u len %u %s", r->klen,
			   r->len, r->desc);
	}
}

/* ---- set-up --------------------------------------------------------------- */

static void dt_free(struct dt_run *r)
{
	kfree_sensitive(r->dg);
	kfree_sensitive(r->dp);
	skcipher_request_free(r->rq_gen);
	skcipher_request_free(r->rq_ours);
	/* (5.10's crypto_destroy_tfm() takes NULL, not an ERR_PTR) */
	if (!IS_ERR_OR_NULL(r->sk_gen))
		crypto_free_skcipher(r->sk_gen);
	if (!IS_ERR_OR_NULL(r->sk_ours))
		crypto_free_skcipher(r->sk_ours);
	if (!IS_ERR_OR_NULL(r->ci_gen))
		crypto_free_cipher(r->ci_gen);
	if (!IS_ERR_OR_NULL(r->ci_ours))
		crypto_free_cipher(r->ci_ours);
	if (!IS_ERR_OR_NULL(r->sh_gen))
		crypto_free_shash(r->sh_gen);
	if (!IS_ERR_OR_NULL(r->sh_ours))
		crypto_free_shash(r->sh_ours);
	kfree_sensitive(r->msg);
	kfree_sensitive(r->ref);
	kfree_sensitive(r->out);
	if (r->sbuf)
		free_pages((unsigned long)r->sbuf, r->order);
	if (r->dbuf)
		free_pages((unsigned long)r->dbuf, r->order);
}

/*
 * The tfm, or NULL: ours must be the driver asked for, the kernel's must
 * not be ours (a template instance has a name of its own).
 */
static bool dt_tfm_ok(struct crypto_tfm *tfm, const char *drv, bool ours)
{
	const char *name = dt_drv(tfm);

	return ours ? !strcmp(name, drv) : !strstr(name, "padlock");
}

static int dt_alloc_tfms(struct dt_run *r, const char *gen)
{
	const struct dt_alg *a = r->alg;

	switch (a->type) {
	case DT_SKCIPHER:
		/* synchronous ones (CRYPTO_ALG_ASYNC in the mask) */
		r->sk_gen = crypto_alloc_skcipher(gen, 0, CRYPTO_ALG_ASYNC);
		r->sk_ours = crypto_alloc_skcipher(a->ours, 0, CRYPTO_ALG_ASYNC);
		r->gen_err = PTR_ERR_OR_ZERO(r->sk_gen);
		r->ours_err = PTR_ERR_OR_ZERO(r->sk_ours);
		if (r->gen_err || r->ours_err)
			break;
		r->gen_name = dt_drv(crypto_skcipher_tfm(r->sk_gen));
		r->ours_name = dt_drv(crypto_skcipher_tfm(r->sk_ours));
		r->rq_gen = skcipher_request_alloc(r->sk_gen, GFP_KERNEL);
		r->rq_ours = skcipher_request_alloc(r->sk_ours, GFP_KERNEL);
		if (!r->rq_gen || !r->rq_ours)
			return -ENOMEM;
		skcipher_request_set_callback(r->rq_gen, 0, NULL, NULL);
		skcipher_request_set_callback(r->rq_ours, 0, NULL, NULL);
		return dt_tfm_ok(crypto_skcipher_tfm(r->sk_gen), gen, false) &&
		       dt_tfm_ok(crypto_skcipher_tfm(r->sk_ours), a->ours, true) ? 0 : 1;
	case DT_CIPHER:
		r->ci_gen = crypto_alloc_cipher(gen, 0, 0);
		r->ci_ours = crypto_alloc_cipher(a->ours, 0, 0);
		r->gen_err = PTR_ERR_OR_ZERO(r->ci_gen);
		r->ours_err = PTR_ERR_OR_ZERO(r->ci_ours);
		if (r->gen_err || r->ours_err)
			break;
		r->gen_name = dt_drv(crypto_cipher_tfm(r->ci_gen));
		r->ours_name = dt_drv(crypto_cipher_tfm(r->ci_ours));
		return dt_tfm_ok(crypto_cipher_tfm(r->ci_gen), gen, false) &&
		       dt_tfm_ok(crypto_cipher_tfm(r->ci_ours), a->ours, true) ? 0 : 1;
	case DT_SHASH:
		r->sh_gen = crypto_alloc_shash(gen, 0, 0);
		r->sh_ours = crypto_alloc_shash(a->ours, 0, 0);
		r->gen_err = PTR_ERR_OR_ZERO(r->sh_gen);
		r->ours_err = PTR_ERR_OR_ZERO(r->sh_ours);
		if (r->gen_err || r->ours_err)
			break;
		r->gen_name = dt_drv(crypto_shash_tfm(r->sh_gen));
		r->ours_name = dt_drv(crypto_shash_tfm(r->sh_ours));
		r->ds = crypto_shash_digestsize(r->sh_gen);
		r->bs = crypto_shash_blocksize(r->sh_gen);
		r->dg = kzalloc(sizeof(*r->dg) + crypto_shash_descsize(r->sh_gen), GFP_KERNEL);
		r->dp = kzalloc(sizeof(*r->dp) + crypto_shash_descsize(r->sh_ours), GFP_KERNEL);
		if (!r->dg || !r->dp)
			return -ENOMEM;
		r->dg->tfm = r->sh_gen;
		r->dp->tfm = r->sh_ours;
		return dt_tfm_ok(crypto_shash_tfm(r->sh_gen), gen, false) &&
		       dt_tfm_ok(crypto_shash_tfm(r->sh_ours), a->ours, true) ? 0 : 1;
	}
	return 1;
}

/* 0, a negative errno, or 1 with the result line saying why the run is skipped */
static int dt_setup(struct dt_run *r, const char *name)
{
	char gen[CRYPTO_MAX_ALG_NAME];
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(dt_algs); i++)
		if (!strcmp(name, dt_algs[i].name))
			r->alg = &dt_algs[i];
	if (!r->alg)
		return -EINVAL;
	snprintf(gen, sizeof(gen), r->alg->gen_fmt,
		 r->alg->hash ?: PADLOCK_KERNEL_AES_DRIVER);

	err = dt_alloc_tfms(r, gen);
	/* registered, but refused by the crypto manager's self-test */
	if (r->gen_err == -ELIBBAD || r->ours_err == -ELIBBAD) {
		scnprintf(dt_run_file.result, sizeof(dt_run_file.result),
			  "FAIL %s: %s: %ld, %s: %ld (ELIBBAD: failed its self-test)\n",
			  name, gen, r->gen_err, r->alg->ours, r->ours_err);
		return 1;
	}
	if (r->gen_err || r->ours_err) {
		scnprintf(dt_run_file.result, sizeof(dt_run_file.result),
			  "SKIP %s: %s: %ld, %s: %ld (%s)\n",
			  name, gen, r->gen_err, r->alg->ours, r->ours_err,
			  "our module not loaded, no such engine on this CPU, or not in this kernel");
		return 1;
	}
	if (err > 0)
		scnprintf(dt_run_file.result, sizeof(dt_run_file.result),
			  "SKIP %s: asked for %s and %s, got %s and %s\n", name,
			  gen, r->alg->ours, r->gen_name, r->ours_name);
	if (err)
		return err;

	/* room for the layouts: start offset, gaps, guards */
	r->bufsize = r->maxlen + PAGE_SIZE + DT_GUARD + DT_MAX_SEGS * DT_MAX_GAP + DT_GUARD;
	r->order = get_order(r->bufsize);
	r->sbuf = (u8 *)__get_free_pages(GFP_KERNEL, r->order);
	r->dbuf = (u8 *)__get_free_pages(GFP_KERNEL, r->order);
	r->msg = kmalloc(r->maxlen + 1, GFP_KERNEL);
	r->ref = kmalloc(r->maxlen + 64, GFP_KERNEL);
	r->out = kmalloc(r->maxlen + 64, GFP_KERNEL);
	if (!r->sbuf || !r->dbuf || !r->msg || !r->ref || !r->out)
		return -ENOMEM;
	return 0;
}

static int dt_exec(const char *name, unsigned long count, u64 seed, u64 first,
		   unsigned int maxlen)
{
	struct dt_run *r;
	unsigned long i;
	u64 t0;
	int err;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	r->seed = seed;
	r->maxlen = maxlen;
	err = dt_setup(r, name);
	if (err)
		goto out;
	t0 = ktime_get_ns();
	for (i = 0; i < count; i++) {
		dt_start(r, first + i);
		r->klen = 0;
		r->len = 0;
		switch (r->alg->type) {
		case DT_SKCIPHER:
			dt_sk_one(r);
			break;
		case DT_CIPHER:
			dt_cipher_one(r);
			break;
		case DT_SHASH:
			dt_shash_one(r);
			break;
		}
		r->done++;
		cond_resched();
	}
	scnprintf(dt_run_file.result, sizeof(dt_run_file.result),
		  "%s %s ours=%s generic=%s seed=%llu first=%llu requests=%lu compared=%lu refused_alike=%lu ours_ops=%lu bytes=%llu blocks=%llu ms=%llu mismatches=%lu%s%s\n",
		  r->bad ? "FAIL" : "ok", name, r->ours_name, r->gen_name,
		  seed, first, r->done, r->compared, r->refused, r->ops,
		  r->bytes, r->blocks, div_u64(ktime_get_ns() - t0, NSEC_PER_MSEC),
		  r->bad, r->problem[0] ? ": " : "", r->problem);
out:
	dt_free(r);
	kfree_sensitive(r);	/* keys, IVs */
	return err < 0 ? err : 0;
}

/* ALG COUNT SEED [FIRST [MAXLEN]] */
static int dt_run(char *line)
{
	char alg[CRYPTO_MAX_ALG_NAME];
	unsigned long count;
	unsigned long long seed, first = 0;
	unsigned int maxlen = DT_DEFAULT_MAXLEN;
	int n;

	n = sscanf(line, "%63s %lu %llu %llu %u", alg, &count, &seed, &first,
		   &maxlen);
	if (n < 3 || !count || count > DT_MAX_COUNT ||
	    maxlen < 2 * AES_BLOCK_SIZE || maxlen > DT_MAX_MAXLEN)
		return -EINVAL;
	return dt_exec(alg, count, seed, first, maxlen);
}

static struct pt_run_file dt_run_file = { .exec = dt_run };

static int __init dt_init(void)
{
	pt_run_file_create(&dt_run_file, "padlock-difftest");
	return 0;
}

static void __exit dt_exit(void)
{
	pt_run_file_remove(&dt_run_file);
}

module_init(dt_init);
module_exit(dt_exit);

MODULE_DESCRIPTION("padlock-aes and padlock-sha against the kernel's own AES and SHA: random requests (tests only)");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS("CRYPTO_INTERNAL");
