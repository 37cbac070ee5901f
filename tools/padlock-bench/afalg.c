// SPDX-License-Identifier: GPL-2.0
/*
 * padlock-bench afalg: the userland AF_ALG interface through libkcapi.
 *
 * Every driver is pinned by its driver name; before any timing each driver's
 * output is compared with the baseline's on the same random input.  Then a
 * size sweep, encrypt and decrypt, several repetitions each, through the
 * access path of libkcapi that is fastest on this kernel.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <kcapi.h>

#include "bench.h"

static const struct {
	const char *cra;
	int keylen[2];
} ciphers[] = {
	{ "ecb(aes)", { 16, 32 } },
	{ "cbc(aes)", { 16, 32 } },
	{ "ctr(aes)", { 16, 32 } },
	{ "xts(aes)", { 32, 64 } },
};

static const char *const hashes[] = { "sha1", "sha256" };

/* the sweep; --sizes replaces it */
static long sizes[16] = { 16, 64, 256, 1024, 8192, 16384, 65536 };
static int nsizes = 7;
#define NSIZES nsizes
#define MAXSIZE 65536

enum path { P_SENDMSG, P_VMSPLICE, P_STREAM, P_AIO, P_DIGEST, NPATHS };
static const char *const path_names[NPATHS] = {
	"sendmsg", "vmsplice", "stream", "aio", "digest"
};

static enum path path_for[ARRAY_SIZE(sizes)];

struct bh {
	struct kcapi_handle *h;		/* one-shot, stream, digest */
	struct kcapi_handle *aio;	/* KCAPI_INIT_AIO handle, on demand */
	const char *name;
	int hash;
	u8 key[64];
	int keylen;
};

static u8 *inbuf, *outbuf, *refbuf;
static u8 ivbuf[16];

static int bh_open(struct bh *b, const char *name, int hash, const u8 *key, int keylen)
{
	int rc;

	memset(b, 0, sizeof(*b));
	b->name = name;
	b->hash = hash;
	if (hash)
		return kcapi_md_init(&b->h, name, 0);
	rc = kcapi_cipher_init(&b->h, name, 0);
	if (rc)
		return rc;
	memcpy(b->key, key, keylen);
	b->keylen = keylen;
	rc = kcapi_cipher_setkey(b->h, key, keylen);
	if (rc) {
		kcapi_cipher_destroy(b->h);
		b->h = NULL;
	}
	return rc;
}

static void bh_close(struct bh *b)
{
	if (b->h) {
		if (b->hash)
			kcapi_md_destroy(b->h);
		else
			kcapi_cipher_destroy(b->h);
	}
	if (b->aio)
		kcapi_cipher_destroy(b->aio);
	memset(b, 0, sizeof(*b));
}

/* one operation of len bytes; returns the number of output bytes */
static long do_op(struct bh *b, enum path p, int enc, const u8 *in, u8 *out, long len)
{
	struct iovec iov = { (void *)in, len }, oiov = { out, len };
	long r, got;

	switch (p) {
	case P_DIGEST:
		return kcapi_md_digest(b->h, in, len, out, 64);
	case P_SENDMSG:
	case P_VMSPLICE: {
		int acc = p == P_SENDMSG ? KCAPI_ACCESS_SENDMSG : KCAPI_ACCESS_VMSPLICE;

		if (enc)
			return kcapi_cipher_encrypt(b->h, in, len, ivbuf, out, len, acc);
		return kcapi_cipher_decrypt(b->h, in, len, ivbuf, out, len, acc);
	}
	case P_STREAM:
		r = enc ? kcapi_cipher_stream_init_enc(b->h, ivbuf, NULL, 0)
			: kcapi_cipher_stream_init_dec(b->h, ivbuf, NULL, 0);
		if (r < 0)
			return r;
		r = kcapi_cipher_stream_update_last(b->h, &iov, 1);
		if (r < 0)
			return r;
		for (got = 0; got < len; got += r) {
			oiov.iov_base = out + got;
			oiov.iov_len = len - got;
			r = kcapi_cipher_stream_op(b->h, &oiov, 1);
			if (r <= 0)
				return r < 0 ? r : -EIO;
		}
		return got;
	case P_AIO:
		if (!b->aio) {
			r = kcapi_cipher_init(&b->aio, b->name, KCAPI_INIT_AIO);
			if (r)
				return r;
			r = kcapi_cipher_setkey(b->aio, b->key, b->keylen);
			if (r)
				return r;
		}
		if (enc)
			return kcapi_cipher_encrypt_aio(b->aio, &iov, &oiov, 1, ivbuf,
							KCAPI_ACCESS_HEURISTIC);
		return kcapi_cipher_decrypt_aio(b->aio, &iov, &oiov, 1, ivbuf,
						KCAPI_ACCESS_HEURISTIC);
	default:
		return -EINVAL;
	}
}

struct meas {
	double mbps, ops, cpu_ns_per_byte;
	double n, dt;		/* requests, seconds */
};

/* one repetition: operations until budget seconds have passed (at least 2) */
static int measure_once(struct bh *b, enum path p, int enc, long len, double budget,
			struct meas *m)
{
	double t0, c0, dt, dc;
	long n = 0;
	long want = b->hash ? (p == P_DIGEST ? 0 : len) : len;

	t0 = now_s();
	c0 = cpu_s();
	do {
		long r = do_op(b, p, enc, inbuf, outbuf, len);

		if (b->hash ? r <= 0 : r != want)
			return r < 0 ? (int)r : -EIO;
		n++;
		dt = now_s() - t0;
	} while ((dt < budget || n < 2) && !stop_requested);
	dc = cpu_s() - c0;
	m->mbps = n * (double)len / dt / 1e6;
	m->ops = n / dt;
	m->cpu_ns_per_byte = dc * 1e9 / (n * (double)len);
	m->n = n;
	m->dt = dt;
	return 0;
}

static int measure(struct bh *b, enum path p, int enc, long len, struct row *row)
{
	double mb[64], ops[64], cpu[64];
	int runs = opt.runs > 64 ? 64 : opt.runs, i, rc, sim;
	struct sim_cost c0, c1;
	double n = 0, dt = 0;
	struct meas m;

	/* warm up: the first operations instantiate and fault in */
	rc = measure_once(b, p, enc, len, 0, &m);
	if (rc)
		return rc;
	/* under the simulator: its share of the timed repetitions */
	sim = sys_profile[0] && !sim_cost_read(&c0);
	for (i = 0; i < runs; i++) {
		rc = measure_once(b, p, enc, len, opt.time_ms / 1000.0, &m);
		if (rc)
			return rc;
		n += m.n;
		dt += m.dt;
		mb[i] = m.mbps;
		ops[i] = m.ops;
		cpu[i] = m.cpu_ns_per_byte;
	}
	qsort(mb, runs, sizeof(double), cmp_double);
	qsort(ops, runs, sizeof(double), cmp_double);
	qsort(cpu, runs, sizeof(double), cmp_double);
	row->runs = runs;
	row->mbps = runs % 2 ? mb[runs / 2] : (mb[runs / 2 - 1] + mb[runs / 2]) / 2;
	row->ops = runs % 2 ? ops[runs / 2] : (ops[runs / 2 - 1] + ops[runs / 2]) / 2;
	row->cpu_ns_per_byte = runs % 2 ? cpu[runs / 2] : (cpu[runs / 2 - 1] + cpu[runs / 2]) / 2;
	row->mbps_min = mb[0];
	row->mbps_max = mb[runs - 1];
	if (sim && !sim_cost_read(&c1)) {
		sim_cost_delta(row, &c0, &c1);
		row->sim_ops = n;
		row->sim_ns = dt * 1e9;
	}
	return 0;
}

/* ------------------------------------------------------------------ */

static void describe(struct row *r, const char *pinned)
{
	struct crypto_list l = { 0 };
	const struct calg *c = crypto_resolve(pinned, &l);

	snprintf(r->pinned, sizeof(r->pinned), "%s", pinned);
	snprintf(r->driver, sizeof(r->driver), "%s", c ? c->driver : pinned);
	snprintf(r->module, sizeof(r->module), "%s", c ? c->module : "");
	r->priority = c ? c->priority : -1;
	crypto_free(&l);
}

static void ctr_iv(int is_ctr)
{
	fill_random(ivbuf, sizeof(ivbuf));
	if (is_ctr) {
		/* make the counter carry across 16 and 32 bits within the request */
		ivbuf[12] = 0xff;
		ivbuf[13] = 0xff;
		ivbuf[14] = 0xff;
		ivbuf[15] = 0xfe;
	}
}

/* drop driver i from s (AF_ALG cannot use it) */
static void drop_driver(struct drvset *s, int i, int rc)
{
	notice("%s cannot be used through AF_ALG (%s); left out.", s->drv[i], strerror(-rc));
	memmove(&s->drv[i], &s->drv[i + 1], (s->ndrv - i - 1) * sizeof(s->drv[0]));
	memmove(&s->padlock[i], &s->padlock[i + 1], (s->ndrv - i - 1) * sizeof(s->padlock[0]));
	s->ndrv--;
}

/*
 * Differential check of every driver against the baseline.  Dies on a
 * mismatch.  Returns 0 when the baseline itself is unusable (the algorithm
 * is skipped).
 */
static int check_cipher(struct drvset *s, int keylen)
{
	static const long csz[] = { 16, 4112 };
	u8 key[64];
	struct bh base, b;
	int i, k, rc;
	char alg[80];

	snprintf(alg, sizeof(alg), "%.60s %d-bit key", s->cra, keylen * 8);
	fill_random(key, keylen);
	rc = bh_open(&base, s->drv[0], 0, key, keylen);
	if (rc) {
		if (rc == -EAFNOSUPPORT)
			die(EXIT_ENV,
			    "AF_ALG is not available in this kernel (socket: %s).",
			    strerror(-rc));
		notice("the baseline %s cannot be used through AF_ALG (%s); %s skipped.",
		       s->drv[0], strerror(-rc), alg);
		return 0;
	}
	for (i = 1; i < s->ndrv; i++) {
		check_stop();
		progress("[afalg] checking %s against %s, %s", s->drv[i], s->drv[0], alg);
		rc = bh_open(&b, s->drv[i], 0, key, keylen);
		if (rc) {
			drop_driver(s, i--, rc);
			continue;
		}
		for (k = 0; k < 2; k++) {
			long n = csz[k];

			ctr_iv(!strncmp(s->cra, "ctr", 3));
			fill_random(inbuf, n);
			if (do_op(&base, P_SENDMSG, 1, inbuf, refbuf, n) != n ||
			    do_op(&b, P_SENDMSG, 1, inbuf, outbuf, n) != n)
				die(EXIT_RUNTIME,
				    "encryption with %s or %s failed (%s, %ld bytes).",
				    s->drv[0], s->drv[i], alg, n);
			if (memcmp(refbuf, outbuf, n)) {
				report_check("afalg", s->cra, keylen * 8, s->drv[i], "encrypt", 0);
				die(EXIT_RUNTIME,
				    "correctness check failed: %s encrypts differently from the baseline %s (%s, %ld bytes); no timing was done.",
				    s->drv[i], s->drv[0], alg, n);
			}
			/* and decrypting the baseline's ciphertext gives the input back */
			if (do_op(&b, P_SENDMSG, 0, refbuf, outbuf, n) != n ||
			    memcmp(outbuf, inbuf, n)) {
				report_check("afalg", s->cra, keylen * 8, s->drv[i], "decrypt", 0);
				die(EXIT_RUNTIME,
				    "correctness check failed: %s does not decrypt the baseline %s's ciphertext (%s, %ld bytes); no timing was done.",
				    s->drv[i], s->drv[0], alg, n);
			}
		}
		report_check("afalg", s->cra, keylen * 8, s->drv[i],
			     "encrypt+decrypt vs baseline, 16 and 4112 bytes", 1);
		bh_close(&b);
	}
	bh_close(&base);
	return 1;
}

static int check_hash(struct drvset *s)
{
	static const long hsz[] = { 0, 3, 64, 4099 };
	struct bh base, b;
	u8 ref[64], out[64];
	int i, k, rc;
	long n1, n2;

	rc = bh_open(&base, s->drv[0], 1, NULL, 0);
	if (rc) {
		if (rc == -EAFNOSUPPORT)
			die(EXIT_ENV,
			    "AF_ALG is not available in this kernel (socket: %s).",
			    strerror(-rc));
		notice("the baseline %s cannot be used through AF_ALG (%s); %s skipped.",
		       s->drv[0], strerror(-rc), s->cra);
		return 0;
	}
	for (i = 1; i < s->ndrv; i++) {
		check_stop();
		progress("[afalg] checking %s against %s", s->drv[i], s->drv[0]);
		rc = bh_open(&b, s->drv[i], 1, NULL, 0);
		if (rc) {
			drop_driver(s, i--, rc);
			continue;
		}
		for (k = 0; k < 4; k++) {
			fill_random(inbuf, hsz[k] + 1);
			n1 = kcapi_md_digest(base.h, inbuf, hsz[k], ref, sizeof(ref));
			if (n1 <= 0)
				continue;	/* the baseline cannot do it either */
			n2 = kcapi_md_digest(b.h, inbuf, hsz[k], out, sizeof(out));
			if (n2 != n1 || memcmp(ref, out, n1)) {
				report_check("afalg", s->cra, 0, s->drv[i], "digest", 0);
				die(EXIT_RUNTIME,
				    "correctness check failed: %s gives a different %s digest than the baseline %s (%ld bytes); no timing was done.",
				    s->drv[i], s->cra, s->drv[0], hsz[k]);
			}
		}
		report_check("afalg", s->cra, 0, s->drv[i],
			     "digest vs baseline, 0, 3, 64 and 4099 bytes", 1);
		bh_close(&b);
	}
	bh_close(&base);
	return 1;
}

/*
 * Does the kernel read spliced pages at recv() time (zero-copy) or copy
 * them at splice time (Linux 7.2 removed zero-copy from algif_skcipher)?
 * Send a page of zeros through libkcapi's stream path (vmsplice), overwrite
 * it before reading the result, and see which plaintext was encrypted.
 */
static const char *zero_copy_probe(const char *ecb)
{
	struct bh b;
	u8 key[16];
	u8 *page = inbuf, *ones = refbuf + 8192;
	struct iovec iov = { page, 4096 }, oiov = { outbuf, 4096 };
	const char *res = "unknown";

	fill_random(key, sizeof(key));
	if (bh_open(&b, ecb, 0, key, 16))
		return res;
	memset(page, 0xff, 4096);
	if (do_op(&b, P_SENDMSG, 1, page, ones, 4096) != 4096)
		goto out;
	memset(page, 0, 4096);
	if (do_op(&b, P_SENDMSG, 1, page, refbuf, 4096) != 4096)
		goto out;
	if (kcapi_cipher_stream_init_enc(b.h, NULL, NULL, 0) < 0 ||
	    kcapi_cipher_stream_update_last(b.h, &iov, 1) != 4096)
		goto out;
	memset(page, 0xff, 4096);
	if (kcapi_cipher_stream_op(b.h, &oiov, 1) != 4096)
		goto out;
	if (!memcmp(outbuf, refbuf, 4096))
		res = "copy";
	else if (!memcmp(outbuf, ones, 4096))
		res = "zero-copy";
out:
	bh_close(&b);
	return res;
}

/* pick the fastest libkcapi access path per size on the baseline cbc(aes) */
static void calibrate(const struct drvset *cbc)
{
	u8 key[16];
	struct bh b;
	int i, p;
	double budget = opt.time_ms / 2000.0;

	for (i = 0; i < NSIZES; i++)
		path_for[i] = P_SENDMSG;
	if (opt.path) {
		for (p = 0; p < P_DIGEST; p++)
			if (!strcmp(opt.path, path_names[p]))
				break;
		for (i = 0; i < NSIZES; i++)
			path_for[i] = p;
		report_meta("afalg_path_choice", "forced by --path %s", opt.path);
		return;
	}
	if (!cbc)
		return;
	fill_random(key, sizeof(key));
	if (bh_open(&b, cbc->drv[0], 0, key, 16))
		return;
	for (i = 0; i < NSIZES; i++) {
		double best = 0;

		for (p = 0; p < P_DIGEST; p++) {
			struct meas m;

			check_stop();
			progress("[afalg] calibrating access paths: %s at %ld bytes",
				 path_names[p], sizes[i]);
			fill_random(ivbuf, sizeof(ivbuf));
			if (measure_once(&b, p, 1, sizes[i], budget, &m))
				continue;
			if (m.mbps > best) {
				best = m.mbps;
				path_for[i] = p;
			}
		}
	}
	bh_close(&b);
	report_meta("afalg_path_choice",
		    "fastest of sendmsg, vmsplice, stream and aio per size, measured on %s",
		    cbc->drv[0]);
}

/* make the kernel build a template instance (it stays registered) */
int afalg_instantiate(const char *name, int hash)
{
	struct kcapi_handle *h;
	int rc = hash ? kcapi_md_init(&h, name, 0) : kcapi_cipher_init(&h, name, 0);

	if (!rc) {
		if (hash)
			kcapi_md_destroy(h);
		else
			kcapi_cipher_destroy(h);
	}
	return rc;
}

/* every size, both directions (or the digest), of driver d of s */
static void sweep(const struct drvset *s, int d, int keylen, int *done, int total)
{
	const char *name = s->drv[d];
	int hash = keylen == 0, op, j, rc;
	struct bh b;
	u8 key[64];

	fill_random(key, sizeof(key));
	rc = bh_open(&b, name, hash, key, keylen);
	if (rc)
		die(EXIT_RUNTIME, "cannot use driver %s through AF_ALG: %s.", name, strerror(-rc));
	for (op = 1; op >= (hash ? 1 : 0); op--) {
		const char *opname = hash ? "digest" : op ? "encrypt" : "decrypt";

		for (j = 0; j < NSIZES; j++) {
			enum path p = hash ? P_DIGEST : path_for[j];
			struct row *r;

			check_stop();
			progress("[afalg %d/%d] %s %s %s %ld B",
				 ++*done, total, s->cra, name, opname,
				 sizes[j]);
			ctr_iv(0);
			fill_random(inbuf, sizes[j]);
			r = row_add();
			snprintf(r->test, sizeof(r->test), "afalg");
			snprintf(r->alg, sizeof(r->alg), "%.63s", s->cra);
			r->keybits = keylen * 8;
			snprintf(r->op, sizeof(r->op), "%s", opname);
			describe(r, name);
			r->padlock = s->padlock[d];
			r->baseline = d == 0;
			r->size = sizes[j];
			snprintf(r->path, sizeof(r->path), "%s", path_names[p]);
			rc = measure(&b, p, op, sizes[j], r);
			if (rc)
				die(EXIT_RUNTIME,
				    "%s with %s failed at %ld bytes (%s path): %s.",
				    opname,
				    name, sizes[j], r->path, strerror(-rc));
		}
	}
	bh_close(&b);
}

/* the drivers to compare per cipher and hash; have_*: drivers_for()'s count */
struct afalg_plan {
	struct drvset cs[4][1], hs[2];
	int have_c[4], have_h[2];
};

/* measurements the plan makes */
static int plan_total(const struct afalg_plan *p)
{
	int i, total = 0;

	for (i = 0; i < 4; i++)
		if (p->have_c[i] > 0)
			total += p->cs[i]->ndrv * 2 * 2 * NSIZES;
	for (i = 0; i < 2; i++)
		if (p->have_h[i] > 0)
			total += p->hs[i].ndrv * NSIZES;
	return total;
}

static void plan_drivers(struct afalg_plan *p)
{
	int i, d, total = 0, any_padlock = 0;

	for (i = 0; i < 4; i++) {
		p->have_c[i] = drivers_for(ciphers[i].cra, p->cs[i], 0);
		if (p->have_c[i] < 0)
			notice("the kernel has no %s; skipped.", ciphers[i].cra);
		if (p->have_c[i] > 0) {
			total += p->have_c[i] * 2 * 2 * NSIZES;
			for (d = 0; d < p->cs[i]->ndrv; d++)
				any_padlock |= p->cs[i]->padlock[d];
		}
	}
	for (i = 0; i < 2; i++) {
		p->have_h[i] = drivers_for(hashes[i], &p->hs[i], 1);
		if (p->have_h[i] < 0)
			notice("the kernel has no %s; skipped.", hashes[i]);
		if (p->have_h[i] > 0) {
			total += p->have_h[i] * NSIZES;
			for (d = 0; d < p->hs[i].ndrv; d++)
				any_padlock |= p->hs[i].padlock[d];
		}
	}
	if (!total)
		die(EXIT_ENV,
		    "nothing to measure: no algorithm has a driver selected by --driver.");
	if (!any_padlock)
		notice("%s",
		       "no PadLock driver is present (no driver name with \"padlock\" in /proc/crypto); afalg compares the drivers that exist.");
}

/* correctness before any timing: what fails a check is left out */
static void plan_check(struct afalg_plan *p)
{
	int i, k;

	for (i = 0; i < 4; i++) {
		int ok = p->have_c[i] > 0;

		for (k = 0; k < 2 && ok; k++)
			ok = check_cipher(p->cs[i], ciphers[i].keylen[k]);
		if (p->have_c[i] > 0 && !ok)
			p->have_c[i] = 0;
	}
	for (i = 0; i < 2; i++)
		if (p->have_h[i] > 0 && !check_hash(&p->hs[i]))
			p->have_h[i] = 0;
}

/* the access path per size, and whether splicing copies */
static void plan_paths(const struct afalg_plan *p)
{
	char paths[256] = "";
	int i;

	calibrate(p->have_c[1] > 0 ? p->cs[1] : NULL);
	for (i = 0; i < NSIZES; i++)
		snprintf(paths + strlen(paths), sizeof(paths) - strlen(paths), "%s%ld:%s",
			 i ? " " : "", sizes[i], path_names[path_for[i]]);
	report_meta("afalg_path", "%s", paths);
	if (p->have_c[0] > 0) {
		const char *zc = zero_copy_probe(p->cs[0]->drv[0]);

		report_meta("afalg_splice", "%s", zc);
		if (!strcmp(zc, "copy"))
			notice("%s",
			       "AF_ALG copies spliced data on this kernel (zero-copy removed, as in Linux 7.2 and its backports): vmsplice/stream numbers include a copy.");
	}
}

int cmd_afalg(void)
{
	struct afalg_plan p;
	int i, k, d, total, done = 0;

	if (opt.nsizes) {
		memcpy(sizes, opt.sizes, opt.nsizes * sizeof(sizes[0]));
		nsizes = opt.nsizes;
	}
	inbuf = aligned_alloc(4096, MAXSIZE + 8192);
	outbuf = aligned_alloc(4096, MAXSIZE + 8192);
	refbuf = aligned_alloc(4096, MAXSIZE + 16384);
	if (!inbuf || !outbuf || !refbuf)
		die(EXIT_RUNTIME, "out of memory");

	plan_drivers(&p);
	plan_check(&p);
	total = plan_total(&p);
	if (!total)
		die(EXIT_ENV, "no algorithm could be used through AF_ALG (see the notes above).");
	plan_paths(&p);

	/* the sweep */
	for (i = 0; i < 4; i++)
		for (k = 0; k < 2 && p.have_c[i] > 0; k++)
			for (d = 0; d < p.cs[i]->ndrv; d++)
				sweep(p.cs[i], d, ciphers[i].keylen[k], &done, total);
	for (i = 0; i < 2; i++)
		for (d = 0; d < p.hs[i].ndrv && p.have_h[i] > 0; d++)
			sweep(&p.hs[i], d, 0, &done, total);
	progress_done();
	free(inbuf);
	free(outbuf);
	free(refbuf);
	return 0;
}
