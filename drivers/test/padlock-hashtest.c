// SPDX-License-Identifier: GPL-2.0
/*
 * padlock-hashtest: a test helper for padlock-sha (not a driver; built only
 * with padlock-sim, never installed by DKMS).
 *
 * AF_ALG can export and import a hash state only within one tfm, so it
 * cannot show that padlock-sha's exported state interoperates with the
 * kernel's generic SHA drivers.  This module does it through the crypto API
 * (shash) in the kernel:
 *
 *   echo "interop sha256 1000 42 [MAXLEN]" > /sys/kernel/debug/padlock-hashtest/run
 *   cat /sys/kernel/debug/padlock-hashtest/run
 *
 * interop: random messages (0 .. MAXLEN bytes, default 4096) and random
 *	split points; the prefix is hashed by the generic driver, exported,
 *	imported into shaN-padlock and finished there, and the other way
 *	round; both digests must equal the generic driver's one-shot digest,
 *	and a state re-exported right after the import must equal the blob
 *	that was imported.
 * corrupt: a mid-stream state of the generic driver is corrupted (random
 *	bit flips, the byte-count field, the partial-block length byte of the
 *	newer format, all-0xff, all-zero, random) and imported into both
 *	drivers, which then finish the message: the return codes must be
 *	equal, and where both succeed the digests too.
 *
 * ALG may also be hmac(shaN): the generic side is then hmac(shaN-generic)
 * (the template; hmac-shash(shaN-generic) as a shash in 6.16) or
 * hmac-shaN-lib (6.17 on), ours hmac-shaN-padlock, and both get the same
 * random key before every message (keys of 0 .. 3 blocks); their exported
 * states are the inner hash's on every kernel.
 *
 *   echo "fipskey hmac(sha256) 1 42" > /sys/kernel/debug/padlock-hashtest/run
 *
 * fipskey (hmac only): every key length from 0 to two blocks + 1, random
 *	keys, set on both tfms in FIPS mode and out of it: the return codes
 *	must be equal (the kernel's hmac refuses keys under 112 bits in FIPS
 *	mode on some kernels, padlock-sha must do as it does).  FIPS mode is
 *	fips_enabled: as booted (fips=1), or else set to 1 around the two
 *	setkey calls alone and restored at once; a kernel without
 *	CONFIG_CRYPTO_FIPS has no such mode (SKIP).
 *
 *   echo "bigupdate sha1 1 0" > /sys/kernel/debug/padlock-hashtest/run
 *
 * bigupdate: one byte, then one update of 4 GiB - 1 bytes (the largest an
 *	unsigned int length can say, so that buffered + new bytes wrap in 32
 *	bits), then final, through shaN-padlock; the message is one page
 *	(byte i = i mod 251) repeated, mapped 2^20 times (64-bit kernels
 *	only).  Reports the digest for the caller to compare.
 *
 * The generic driver is looked up by driver name, "shaN-generic" (before
 * 7.x) or "shaN-lib" (7.x).  The statesizes of the two drivers must match.
 * The pseudo-random stream is a function of the seed only, so a failing
 * run can be repeated exactly.  The result is one line:
 *
 *   ok|FAIL|SKIP TEST ALG key=value... [: first problem]
 *
 * The module knows nothing of padlock-sha's internals: it uses the crypto
 * API and the kernel's SHA headers only.
 */
#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/string.h>
#include <linux/err.h>
#include <linux/mm.h>
#include <linux/numa.h>
#include <linux/fips.h>
#include <crypto/hash.h>
#include <crypto/sha1.h>
#include <crypto/sha2.h>

#include "padlock-test-run.h"

#define HT_DEFAULT_MAXLEN	4096
#define HT_MAX_MAXLEN		(1024 * 1024)
#define HT_MAX_ITERATIONS	10000000

struct ht_alg {
	const char *name;
	unsigned int count_off;	/* the byte count in the exported state */
	unsigned int count_len;	/* 8, or 16 for SHA-384/512 */
};

static const struct ht_alg ht_algs[] = {
	{ "sha1", offsetof(struct sha1_state, count), 8 },
	{ "sha224", offsetof(struct sha256_state, count), 8 },
	{ "sha256", offsetof(struct sha256_state, count), 8 },
	{ "sha384", offsetof(struct sha512_state, count), 16 },
	{ "sha512", offsetof(struct sha512_state, count), 16 },
};

/* One run: both drivers, their descriptors and the buffers. */
struct ht_run {
	const struct ht_alg *alg;
	struct crypto_shash *gen, *ours;
	struct shash_desc *dg, *dp;
	unsigned int ss, ds, bs;
	bool has_plen;		/* state ends in a partial-length byte */
	bool hmac;		/* hmac(ALG): both tfms keyed */
	u8 key[3 * 128];
	u8 *msg, *st, *st2, *ref, *out, *out2;
	u64 prng;
	char problem[160];
};

/* (defined with its request parser at the end) */
static struct pt_run_file ht_run_file;

static u32 ht_below(struct ht_run *r, u32 n)
{
	return pt_below(&r->prng, n);
}

static void ht_fill(struct ht_run *r, u8 *p, size_t len)
{
	pt_fill(&r->prng, p, len);
}

/*
 * A message length: a quarter small (up to two blocks), a quarter on or
 * next to a block boundary, the rest anywhere up to @maxlen.
 */
static unsigned int ht_len(struct ht_run *r, unsigned int maxlen)
{
	unsigned int bs = r->bs, n;

	switch (ht_below(r, 4)) {
	case 0:
		n = ht_below(r, 2 * bs + 2);
		break;
	case 1:
		n = ht_below(r, maxlen / bs + 1) * bs;
		n = n + ht_below(r, 3);
		n = n ? n - 1 : 0;
		break;
	default:
		n = ht_below(r, maxlen + 1);
		break;
	}
	return min(n, maxlen);
}

/* A split point: often on a block boundary, otherwise anywhere. */
static unsigned int ht_split(struct ht_run *r, unsigned int len)
{
	if (ht_below(r, 3) == 0)
		return ht_below(r, len / r->bs + 1) * r->bs;
	return ht_below(r, len + 1);
}

static __printf(2, 3) void ht_problem(struct ht_run *r, const char *fmt, ...)
{
	va_list ap;

	if (r->problem[0])
		return;		/* keep the first one */
	va_start(ap, fmt);
	vscnprintf(r->problem, sizeof(r->problem), fmt, ap);
	va_end(ap);
}

static struct crypto_shash *ht_alloc(const char *drv)
{
	struct crypto_shash *tfm = crypto_alloc_shash(drv, 0, 0);

	if (IS_ERR(tfm))
		return NULL;
	/* by driver name: make sure nothing else was substituted */
	if (strcmp(crypto_tfm_alg_driver_name(crypto_shash_tfm(tfm)), drv)) {
		crypto_free_shash(tfm);
		return NULL;
	}
	return tfm;
}

static struct shash_desc *ht_desc(struct crypto_shash *tfm)
{
	struct shash_desc *d;

	d = kzalloc(sizeof(*d) + crypto_shash_descsize(tfm), GFP_KERNEL);
	if (d)
		d->tfm = tfm;
	return d;
}

static void ht_free(struct ht_run *r)
{
	kfree_sensitive(r->dg);
	kfree_sensitive(r->dp);
	if (r->gen)
		crypto_free_shash(r->gen);
	if (r->ours)
		crypto_free_shash(r->ours);
	vfree(r->msg);
	kfree(r->st);
	kfree(r->st2);
	kfree(r->ref);
	kfree(r->out);
	kfree(r->out2);
}

/*
 * Set up a run: 0, a negative errno, or 1 with the result line already saying why
 * the run is skipped.
 */
static int ht_setup(struct ht_run *r, const char *test, const char *name,
		    unsigned int maxlen)
{
	/*
	 * The kernel's own: the C driver or the library driver; for hmac the
	 * template over the C driver (named hmac-shash(...) as a shash in 6.16)
	 * or the library's hmac driver.
	 */
	static const char * const gen_fmt[] = { "%s-generic", "%s-lib", NULL };
	static const char * const hmac_fmt[] = { "hmac(%s-generic)", "hmac-shash(%s-generic)",
						 "hmac-%s-lib" };
	const char * const *fmt;
	char drv[CRYPTO_MAX_ALG_NAME], hash[16];
	unsigned int i;
	size_t n;

	/* hmac(shaN): shaN's state layout, keyed tfms */
	n = strlen(name);
	r->hmac = n > 6 && !strncmp(name, "hmac(", 5) && name[n - 1] == ')';
	if (r->hmac)
		strscpy(hash, name + 5, min_t(size_t, n - 5, sizeof(hash)));
	else
		strscpy(hash, name, sizeof(hash));
	for (i = 0; i < ARRAY_SIZE(ht_algs); i++)
		if (!strcmp(hash, ht_algs[i].name))
			r->alg = &ht_algs[i];
	if (!r->alg)
		return -EINVAL;

	fmt = r->hmac ? hmac_fmt : gen_fmt;
	for (i = 0; i < ARRAY_SIZE(gen_fmt) && fmt[i] && !r->gen; i++) {
		snprintf(drv, sizeof(drv), fmt[i], hash);
		r->gen = ht_alloc(drv);
	}
	if (!r->gen) {
		scnprintf(ht_run_file.result, sizeof(ht_run_file.result),
			  "SKIP %s %s: no generic driver (%s) in this kernel\n",
			  test, name,
			  r->hmac ?
			  "hmac(shaN-generic), hmac-shash(shaN-generic) or hmac-shaN-lib" :
			  "shaN-generic or shaN-lib");
		return 1;
	}
	snprintf(drv, sizeof(drv), r->hmac ? "hmac-%s-padlock" : "%s-padlock", hash);
	r->ours = ht_alloc(drv);
	if (!r->ours) {
		scnprintf(ht_run_file.result, sizeof(ht_run_file.result),
			  "SKIP %s %s: %s is not registered (padlock-sha not loaded, or no such engine on this CPU)\n",
			  test, name, drv);
		return 1;
	}

	r->ss = crypto_shash_statesize(r->gen);
	r->ds = crypto_shash_digestsize(r->gen);
	r->bs = crypto_shash_blocksize(r->gen);
	r->has_plen = r->ss == r->alg->count_off + r->alg->count_len +
			       r->bs + 1;
	r->dg = ht_desc(r->gen);
	r->dp = ht_desc(r->ours);
	r->msg = vmalloc(maxlen + 1);
	r->st = kmalloc(r->ss, GFP_KERNEL);
	r->st2 = kmalloc(r->ss, GFP_KERNEL);
	r->ref = kmalloc(r->ds, GFP_KERNEL);
	r->out = kmalloc(r->ds, GFP_KERNEL);
	r->out2 = kmalloc(r->ds, GFP_KERNEL);
	if (!r->dg || !r->dp || !r->msg || !r->st || !r->st2 || !r->ref ||
	    !r->out || !r->out2)
		return -ENOMEM;
	return 0;
}

/* Hash @a bytes of the message with @d, in one or two updates. */
static int ht_prefix(struct ht_run *r, struct shash_desc *d, unsigned int a)
{
	unsigned int b = ht_below(r, 2) ? ht_below(r, a + 1) : a;

	return crypto_shash_init(d) ?:
	       crypto_shash_update(d, r->msg, b) ?:
	       crypto_shash_update(d, r->msg + b, a - b);
}

/*
 * One direction: prefix on @from, export, import into @to, re-export
 * (must give the same blob), finish on @to.  1 on a mismatch, 0 if all is
 * well, a negative errno from the API.
 */
static int ht_transfer(struct ht_run *r, struct shash_desc *from,
		       struct shash_desc *to, unsigned int len, unsigned int a,
		       const char *dir)
{
	int err;

	err = ht_prefix(r, from, a);
	if (!err)
		err = crypto_shash_export(from, r->st);
	if (err) {
		ht_problem(r, "%s: len %u split %u: hashing/export on the source failed: %d",
			   dir, len, a, err);
		return err;
	}
	err = crypto_shash_import(to, r->st);
	if (!err)
		err = crypto_shash_export(to, r->st2);
	if (err) {
		ht_problem(r, "%s: len %u split %u: import/re-export failed: %d",
			   dir, len, a, err);
		return err;
	}
	if (memcmp(r->st, r->st2, r->ss)) {
		ht_problem(r, "%s: len %u split %u: re-exported state != imported one",
			   dir, len, a);
		return 1;
	}
	err = crypto_shash_finup(to, r->msg + a, len - a, r->out);
	if (err) {
		ht_problem(r, "%s: len %u split %u: finup after import failed: %d",
			   dir, len, a, err);
		return err;
	}
	if (memcmp(r->out, r->ref, r->ds)) {
		ht_problem(r, "%s: len %u split %u: digest != generic one-shot digest",
			   dir, len, a);
		return 1;
	}
	return 0;
}

/* hmac: the same random key (0 .. 3 blocks) for both tfms */
static int ht_rekey(struct ht_run *r)
{
	unsigned int klen;
	int err;

	if (!r->hmac)
		return 0;
	klen = ht_below(r, 4) ? ht_below(r, 3 * r->bs + 1) :
				r->bs - 1 + ht_below(r, 3);
	ht_fill(r, r->key, klen);
	err = crypto_shash_setkey(r->gen, r->key, klen) ?:
	      crypto_shash_setkey(r->ours, r->key, klen);
	if (err)
		ht_problem(r, "setkey of a %u-byte key failed: %d", klen, err);
	return err;
}

#ifdef CONFIG_CRYPTO_FIPS
/*
 * Set the same @klen-byte key on both tfms, in FIPS mode if @fips; the two
 * return codes to @eg and @ep.  fips_enabled is forced only around the two
 * calls (a test VM; nothing else should start in that moment).
 */
static void ht_fips_setkeys(struct ht_run *r, unsigned int klen, bool fips,
			    int *eg, int *ep)
{
	int booted = READ_ONCE(fips_enabled);

	if (fips)
		WRITE_ONCE(fips_enabled, 1);
	*eg = crypto_shash_setkey(r->gen, r->key, klen);
	*ep = crypto_shash_setkey(r->ours, r->key, klen);
	WRITE_ONCE(fips_enabled, booted);
}

static void ht_fipskey(struct ht_run *r)
{
	unsigned int klen, max = 2 * r->bs + 1, refused[2][2] = {}, bad = 0;
	int eg, ep, fips;

	for (fips = 0; fips < 2; fips++) {
		for (klen = 0; klen <= max; klen++) {
			ht_fill(r, r->key, klen);
			ht_fips_setkeys(r, klen, fips, &eg, &ep);
			refused[fips][0] += !!eg;
			refused[fips][1] += !!ep;
			if (eg != ep) {
				bad++;
				ht_problem(r, "%u-byte key%s: %d (generic), %d (padlock)",
					   klen, fips ? " in FIPS mode" : "", eg, ep);
			}
		}
		cond_resched();
	}
	scnprintf(ht_run_file.result, sizeof(ht_run_file.result),
		  "%s fipskey hmac(%s) generic=%s ours=%s fips_enabled=%d keylens=0..%u refused_fips=%u/%u refused_otherwise=%u/%u mismatches=%u%s%s\n",
		  bad ? "FAIL" : "ok", r->alg->name,
		  crypto_tfm_alg_driver_name(crypto_shash_tfm(r->gen)),
		  crypto_tfm_alg_driver_name(crypto_shash_tfm(r->ours)),
		  READ_ONCE(fips_enabled), max, refused[1][0], refused[1][1],
		  refused[0][0], refused[0][1], bad, r->problem[0] ? ": " : "",
		  r->problem);
}
#else
static void ht_fipskey(struct ht_run *r)
{
	scnprintf(ht_run_file.result, sizeof(ht_run_file.result),
		  "SKIP fipskey hmac(%s): a kernel without CONFIG_CRYPTO_FIPS has no FIPS mode\n",
		  r->alg->name);
}
#endif

static void ht_interop(struct ht_run *r, unsigned long iters,
		       unsigned int maxlen)
{
	unsigned long i, g2p = 0, p2g = 0, bad = 0, errs = 0;
	unsigned int len, a;
	int err;

	for (i = 0; i < iters; i++) {
		if (ht_rekey(r)) {
			errs++;
			continue;
		}
		len = ht_len(r, maxlen);
		ht_fill(r, r->msg, len);
		err = crypto_shash_digest(r->dg, r->msg, len, r->ref);
		if (err) {
			errs++;
			ht_problem(r, "generic one-shot digest failed: %d", err);
			continue;
		}
		a = ht_split(r, len);
		err = ht_transfer(r, r->dg, r->dp, len, a, "generic->padlock");
		if (!err)
			g2p++;
		else if (err > 0)
			bad++;
		else
			errs++;
		a = ht_split(r, len);
		err = ht_transfer(r, r->dp, r->dg, len, a, "padlock->generic");
		if (!err)
			p2g++;
		else if (err > 0)
			bad++;
		else
			errs++;
		cond_resched();
	}
	scnprintf(ht_run_file.result, sizeof(ht_run_file.result),
		  "%s interop %s generic=%s ours=%s statesize=%u/%u iterations=%lu generic_to_padlock=%lu padlock_to_generic=%lu mismatches=%lu errors=%lu%s%s\n",
		  bad || errs ? "FAIL" : "ok", r->alg->name,
		  crypto_tfm_alg_driver_name(crypto_shash_tfm(r->gen)),
		  crypto_tfm_alg_driver_name(crypto_shash_tfm(r->ours)),
		  r->ss, crypto_shash_statesize(r->ours), iters, g2p, p2g,
		  bad, errs, r->problem[0] ? ": " : "", r->problem);
}

enum ht_corruption {
	HC_FLIP_ANY,		/* 1..4 random bits anywhere */
	HC_FLIP_COUNT,		/* 1..4 bits of the byte count */
	HC_RANDOM_COUNT,	/* a random byte count */
	HC_PARTIAL_LEN,		/* the partial-length byte (or the buffer) */
	HC_ALL_FF,
	HC_ALL_ZERO,
	HC_RANDOM,		/* random bytes everywhere */
	HC_NR
};

static const char * const hc_names[HC_NR] = {
	"flip", "flip-count", "random-count", "partial-len", "all-ff",
	"all-zero", "random",
};

static void ht_corrupt(struct ht_run *r, enum ht_corruption kind)
{
	unsigned int i, n, pos, coff = r->alg->count_off;
	unsigned int clen = r->alg->count_len;

	switch (kind) {
	case HC_FLIP_ANY:
		for (n = 1 + ht_below(r, 4), i = 0; i < n; i++) {
			pos = ht_below(r, r->ss * 8);
			r->st[pos / 8] ^= 1 << (pos % 8);
		}
		break;
	case HC_FLIP_COUNT:
		for (n = 1 + ht_below(r, 4), i = 0; i < n; i++) {
			pos = ht_below(r, clen * 8);
			r->st[coff + pos / 8] ^= 1 << (pos % 8);
		}
		break;
	case HC_RANDOM_COUNT:
		ht_fill(r, r->st + coff, clen);
		break;
	case HC_PARTIAL_LEN:
		if (r->has_plen) {
			/* half of the time a value above the block size */
			r->st[r->ss - 1] = ht_below(r, 2) ?
					   ht_below(r, 256) :
					   ht_below(r, r->bs + 1);
		} else {
			pos = coff + clen + ht_below(r, r->ss - coff - clen);
			r->st[pos] ^= 1 << ht_below(r, 8);
		}
		break;
	case HC_ALL_FF:
		memset(r->st, 0xff, r->ss);
		break;
	case HC_ALL_ZERO:
		memset(r->st, 0, r->ss);
		break;
	default:
		ht_fill(r, r->st, r->ss);
		break;
	}
}

static void ht_corrupted(struct ht_run *r, unsigned long iters,
			 unsigned int maxlen)
{
	unsigned long i, bad = 0, errs = 0, both_ok = 0, both_refused = 0;
	unsigned long done[HC_NR] = { 0 }, differ[HC_NR] = { 0 };
	enum ht_corruption kind;
	unsigned int len, a, n;
	int eg, ep, fg, fp;
	char kinds[192];
	int off = 0;

	for (i = 0; i < iters; i++) {
		kind = i % HC_NR;
		if (ht_rekey(r)) {
			errs++;
			continue;
		}
		len = ht_len(r, maxlen);
		ht_fill(r, r->msg, len);
		a = ht_split(r, len);
		/*
		 * Half of the time the rest is 0, 1 or about a block long:
		 * the edges of counts near 2^64 and of the partial block.
		 */
		if (ht_below(r, 2)) {
			/* 0, 1, bs - 1, bs, bs + 1 or 2 bs */
			n = ht_below(r, 6);
			n = n < 2 ? n : n == 5 ? 2 * r->bs : r->bs + n - 3;
			a = len - min(len, n);
		}
		eg = ht_prefix(r, r->dg, a) ?: crypto_shash_export(r->dg, r->st);
		if (eg) {
			errs++;
			ht_problem(r, "generic: hashing/export failed: %d", eg);
			continue;
		}
		ht_corrupt(r, kind);
		done[kind]++;

		eg = crypto_shash_import(r->dg, r->st);
		ep = crypto_shash_import(r->dp, r->st);
		if (eg != ep) {
			bad++;
			differ[kind]++;
			ht_problem(r, "%s: len %u split %u: import: %d (generic), %d (padlock)",
				   hc_names[kind], len, a, eg, ep);
			continue;
		}
		if (eg) {
			both_refused++;
			continue;
		}
		fg = crypto_shash_finup(r->dg, r->msg + a, len - a, r->out);
		fp = crypto_shash_finup(r->dp, r->msg + a, len - a, r->out2);
		if (fg != fp) {
			bad++;
			differ[kind]++;
			ht_problem(r, "%s: len %u split %u: finup: %d (generic), %d (padlock)",
				   hc_names[kind], len, a, fg, fp);
		} else if (fg) {
			both_refused++;
		} else if (memcmp(r->out, r->out2, r->ds)) {
			bad++;
			differ[kind]++;
			ht_problem(r, "%s: len %u split %u: the digests differ",
				   hc_names[kind], len, a);
		} else {
			both_ok++;
		}
		cond_resched();
	}
	for (kind = 0; kind < HC_NR; kind++)
		off += scnprintf(kinds + off, sizeof(kinds) - off,
				 "%s%s:%lu/%lu", kind ? "," : "",
				 hc_names[kind], differ[kind], done[kind]);
	scnprintf(ht_run_file.result, sizeof(ht_run_file.result),
		  "%s corrupt %s generic=%s ours=%s statesize=%u/%u iterations=%lu same_digest=%lu same_error=%lu mismatches=%lu errors=%lu differing/kind=%s%s%s\n",
		  bad || errs ? "FAIL" : "ok", r->alg->name,
		  crypto_tfm_alg_driver_name(crypto_shash_tfm(r->gen)),
		  crypto_tfm_alg_driver_name(crypto_shash_tfm(r->ours)),
		  r->ss, crypto_shash_statesize(r->ours), iters, both_ok,
		  both_refused, bad, errs, kinds,
		  r->problem[0] ? ": " : "", r->problem);
}

#define HT_BIG_PAGES	(1UL << (32 - PAGE_SHIFT))	/* 4 GiB */

/*
 * One byte, then 4 GiB - 1 bytes in one update, then final, on the
 * driver's own: an update whose length plus the buffered byte wraps in
 * 32 bits.  The message is one page mapped HT_BIG_PAGES times.
 */
static void ht_bigupdate(struct ht_run *r)
{
	struct page *pg, **pages = NULL;
	u8 *p, *msg = NULL;
	unsigned long i;
	int err = -ENOMEM;

	if (!IS_ENABLED(CONFIG_64BIT)) {
		scnprintf(ht_run_file.result, sizeof(ht_run_file.result),
			  "SKIP bigupdate %s: a 32-bit kernel cannot map a 4 GiB message\n",
			  r->alg->name);
		return;
	}
	pg = alloc_page(GFP_KERNEL);
	if (!pg)
		goto out;
	p = page_address(pg);
	for (i = 0; i < PAGE_SIZE; i++)
		p[i] = i % 251;
	pages = kvmalloc_array(HT_BIG_PAGES, sizeof(*pages), GFP_KERNEL);
	if (pages) {
		for (i = 0; i < HT_BIG_PAGES; i++)
			pages[i] = pg;
		/* (vmap() refuses more pages than the machine has) */
		msg = vm_map_ram(pages, HT_BIG_PAGES, NUMA_NO_NODE);
	}
	if (msg)
		err = crypto_shash_init(r->dp) ?:
		      crypto_shash_update(r->dp, msg, 1) ?:
		      crypto_shash_update(r->dp, msg + 1, U32_MAX) ?:
		      crypto_shash_final(r->dp, r->out);
	if (!err) {
		scnprintf(ht_run_file.result, sizeof(ht_run_file.result),
			  "ok bigupdate %s ours=%s length=%llu digest=%*phN\n", r->alg->name,
			  crypto_tfm_alg_driver_name(crypto_shash_tfm(r->ours)),
			  (u64)U32_MAX + 1, r->ds, r->out);
	}
	if (msg)
		vm_unmap_ram(msg, HT_BIG_PAGES);
	kvfree(pages);
	__free_page(pg);
out:
	if (err)
		scnprintf(ht_run_file.result, sizeof(ht_run_file.result), "FAIL bigupdate %s: %d\n",
			  r->alg->name, err);
}

static int ht_exec(const char *test, const char *alg, unsigned long iters,
		   u64 seed, unsigned int maxlen)
{
	struct ht_run *r;
	int err;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	r->prng = seed;
	err = ht_setup(r, test, alg, strcmp(test, "bigupdate") ? maxlen : 1);
	if (err)
		goto out;
	if (!strcmp(test, "bigupdate")) {
		ht_bigupdate(r);
		goto out;
	}
	if (r->ss != crypto_shash_statesize(r->ours)) {
		scnprintf(ht_run_file.result, sizeof(ht_run_file.result),
			  "FAIL %s %s: statesize %u (%s) != %u (%s)\n", test,
			  alg, r->ss,
			  crypto_tfm_alg_driver_name(crypto_shash_tfm(r->gen)),
			  crypto_shash_statesize(r->ours),
			  crypto_tfm_alg_driver_name(crypto_shash_tfm(r->ours)));
		goto out;
	}
	if (!strcmp(test, "interop"))
		ht_interop(r, iters, maxlen);
	else if (!strcmp(test, "fipskey"))
		ht_fipskey(r);
	else
		ht_corrupted(r, iters, maxlen);
out:
	ht_free(r);
	kfree_sensitive(r);	/* the hmac key */
	return err < 0 ? err : 0;
}

/* TEST ALG ITERATIONS SEED [MAXLEN] */
static int ht_run(char *line)
{
	char test[16], alg[16];
	unsigned long iters;
	unsigned int maxlen = HT_DEFAULT_MAXLEN;
	unsigned long long seed;
	int n;

	n = sscanf(line, "%15s %15s %lu %llu %u", test, alg, &iters, &seed,
		   &maxlen);
	if (n < 4 || (strcmp(test, "interop") && strcmp(test, "corrupt") &&
		      strcmp(test, "bigupdate") && strcmp(test, "fipskey")) ||
	    (!strcmp(test, "fipskey") && strncmp(alg, "hmac(", 5)) ||
	    !iters || iters > HT_MAX_ITERATIONS || !maxlen ||
	    maxlen > HT_MAX_MAXLEN)
		return -EINVAL;
	return ht_exec(test, alg, iters, seed, maxlen);
}

static struct pt_run_file ht_run_file = { .exec = ht_run };

static int __init ht_init(void)
{
	pt_run_file_create(&ht_run_file, "padlock-hashtest");
	return 0;
}

static void __exit ht_exit(void)
{
	pt_run_file_remove(&ht_run_file);
}

module_init(ht_init);
module_exit(ht_exit);

MODULE_DESCRIPTION("padlock-sha test helper: state interoperability with the generic SHA and HMAC drivers, HMAC keys in FIPS mode, 4 GiB updates (tests only)");
MODULE_LICENSE("GPL");
