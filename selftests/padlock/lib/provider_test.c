// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the padlock OpenSSL provider through OpenSSL's EVP interface
 * (selftests/padlock/provider.sh).  Every algorithm is fetched with the
 * property query "provider=padlock"; the reference is OpenSSL's default
 * provider.  Output lines are "PASS desc", "FAIL desc | why" or
 * "SKIP desc | why" (lib/ktap-lib.sh, ktap_report).
 *
 *   provider_test kat FILE...         OpenSSL's EVP test files (evpciph_*,
 *                                     evpmd_*): every stanza whose algorithm
 *                                     padlock offers, one-shot and split
 *   provider_test diff ALG COUNT SEED random cases against the default
 *                                     provider: random sizes, update splits,
 *                                     unaligned and in-place buffers, dup
 *   provider_test tls COUNT SEED      TLS records (libssl's CBC and GCM
 *                                     record parameters) against the default
 *                                     provider, tampered records included
 *   provider_test errors              OpenSSL's errors on bad input
 *   provider_test big MIB             one MIB-sized unaligned in-place
 *                                     buffer per cipher mode
 *   provider_test edge                buffers that end at an unreadable page
 *   provider_test offers              print what padlock offers
 *   provider_test contract            OpenSSL's API contract beyond one
 *                                     message (IV read-back, re-inits, GCM
 *                                     tag order, GCM IV made up)
 *   provider_test gcmlimit BYTES      GCM's per-message limit, on a build
 *                                     with PL_GCM_MAX_DATA=BYTES
 *   provider_test version             the libcrypto it runs with
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <unistd.h>
#include <openssl/asn1.h>
#include <openssl/crypto.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#define PL	"provider=padlock"
#define DEF	"provider=default"

static int failures;

static void fail(const char *desc, const char *fmt, ...)
{
	va_list ap;
	unsigned long e;

	printf("FAIL %s | ", desc);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	e = ERR_peek_last_error();
	if (e)
		printf(" (%s)", ERR_reason_error_string(e) ? ERR_reason_error_string(e) : "?");
	printf("\n");
	ERR_clear_error();
	failures++;
}

/* ---- a small deterministic PRNG for the random cases ---- */

static uint64_t rng_state;

static uint32_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 11);
}

static size_t rndn(size_t n)
{
	return n ? rnd() % n : 0;
}

static void rnd_bytes(unsigned char *p, size_t n)
{
	while (n--)
		*p++ = (unsigned char)rnd();
}

/* ---- one cipher run with splits ---- */

struct split {
	size_t n;
	size_t len[64];
};

static void make_split(struct split *s, size_t total, int pieces)
{
	size_t left = total;
	int i;

	s->n = 0;
	for (i = 0; i < pieces - 1 && left; i++) {
		size_t k = rndn(4) == 0 ? 0 : rndn(left + 1);	/* zero-length too */

		if (rndn(3) == 0 && left >= 16)
			k = rndn(left / 16 + 1) * 16;
		s->len[s->n++] = k;
		left -= k;
	}
	s->len[s->n++] = left;
}

/*
 * Encrypt or decrypt in pieces.  out gets everything (update + final);
 * returns the output length or -1.  tag: in (decrypt) / out (encrypt) for
 * AEAD, taglen 0 otherwise.
 */
static long run_cipher(EVP_CIPHER *c, int enc, const unsigned char *key,
		       const unsigned char *iv, size_t ivlen, int pad,
		       const unsigned char *aad, size_t aadlen,
		       const unsigned char *in, size_t inl, unsigned char *out,
		       const struct split *sp, unsigned char *tag, size_t taglen)
{
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	long total = -1;
	int outl, aead = EVP_CIPHER_get_mode(c) == EVP_CIPH_GCM_MODE;
	size_t i, off = 0;
	OSSL_PARAM p[2] = { OSSL_PARAM_END, OSSL_PARAM_END };

	(void)inl;		/* the pieces of sp add up to it */
	if (!ctx)
		return -1;
	if (!EVP_CipherInit_ex2(ctx, c, NULL, NULL, enc, NULL))
		goto out;
	if (aead && ivlen != 12) {
		p[0] = OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &ivlen);
		if (!EVP_CIPHER_CTX_set_params(ctx, p))
			goto out;
	}
	if (!EVP_CipherInit_ex2(ctx, NULL, key, iv, enc, NULL))
		goto out;
	EVP_CIPHER_CTX_set_padding(ctx, pad);
	if (aead && aadlen && !EVP_CipherUpdate(ctx, NULL, &outl, aad, (int)aadlen))
		goto out;
	total = 0;
	for (i = 0; i < sp->n; i++) {
		if (!EVP_CipherUpdate(ctx, out + total, &outl, in + off, (int)sp->len[i])) {
			total = -1;
			goto out;
		}
		off += sp->len[i];
		total += outl;
	}
	if (aead && !enc) {
		p[0] = OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG,
							 tag, taglen);
		if (!EVP_CIPHER_CTX_set_params(ctx, p)) {
			total = -1;
			goto out;
		}
	}
	if (!EVP_CipherFinal_ex(ctx, out + total, &outl)) {
		total = -1;
		goto out;
	}
	total += outl;
	if (aead && enc) {
		p[0] = OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG,
							 tag, taglen);
		if (!EVP_CIPHER_CTX_get_params(ctx, p))
			total = -1;
	}
out:
	EVP_CIPHER_CTX_free(ctx);
	return total;
}

/* ---- KAT files ---- */

struct stanza {
	char alg[64];
	unsigned char *key, *iv, *pt, *ct, *aad, *tag, *output, *nextiv;
	size_t keyl, ivl, ptl, ctl, aadl, tagl, outputl, nextivl;
	/* digest input: buffers, each repeated ncopy times, that count times */
	unsigned char *input[8];
	size_t inputl[8];
	long ncopy[8], count[8];
	int ninput;
	int op;			/* 0 both, 1 encrypt, 2 decrypt */
	int expect_fail, cipher, line, skip;
};

static unsigned char *parse_value(const char *v, size_t *len)
{
	size_t n = strlen(v), i;
	unsigned char *b;

	if (v[0] == '"') {
		const char *e = strrchr(v + 1, '"');

		n = e ? (size_t)(e - v - 1) : 0;
		b = malloc(n + 1);
		memcpy(b, v + 1, n);
		*len = n;
		return b;
	}
	b = malloc(n / 2 + 1);
	for (i = 0; i + 1 < n + 1 && isxdigit((unsigned char)v[2 * i]) &&
	     isxdigit((unsigned char)v[2 * i + 1]); i++) {
		unsigned int x;

		sscanf(v + 2 * i, "%2x", &x);
		b[i] = (unsigned char)x;
	}
	*len = i;
	return b;
}

static void stanza_free(struct stanza *s)
{
	free(s->key);
	free(s->iv);
	free(s->pt);
	free(s->ct);
	free(s->aad);
	free(s->tag);
	while (s->ninput)
		free(s->input[--s->ninput]);
	free(s->output);
	free(s->nextiv);
	memset(s, 0, sizeof(*s));
}

static int kat_cipher(struct stanza *s, EVP_CIPHER *c, const char *file)
{
	unsigned char out[4096], tag[16];
	struct split sp;
	int mode = EVP_CIPHER_get_mode(c), pass, pad;
	char desc[256];
	long n;

	snprintf(desc, sizeof(desc), "kat %s:%d %s", file, s->line, s->alg);
	pad = s->ctl != s->ptl;
	for (pass = 0; pass < 2; pass++) {
		if (pass == 0) {
			sp.n = 1;
			sp.len[0] = s->ptl;
		} else {
			make_split(&sp, s->ptl, 5);
		}
		if (s->op != 2) {
			sp.len[sp.n - 1] += 0;
			n = run_cipher(c, 1, s->key, s->iv, s->ivl, pad, s->aad, s->aadl,
				       s->pt, s->ptl, out, &sp, tag, s->tagl ? s->tagl : 16);
			if (s->expect_fail) {
				if (n >= 0 && mode != EVP_CIPH_GCM_MODE) {
					fail(desc, "encryption succeeded, expected an error");
					return 0;
				}
			} else if (n != (long)s->ctl || memcmp(out, s->ct, s->ctl) ||
				   (s->tagl && memcmp(tag, s->tag, s->tagl))) {
				fail(desc, "encryption (%s) differs", pass ? "split" : "one-shot");
				return 0;
			}
		}
		if (s->op != 1) {
			struct split sd;

			if (pass == 0) {
				sd.n = 1;
				sd.len[0] = s->ctl;
			} else {
				make_split(&sd, s->ctl, 5);
			}
			memcpy(tag, s->tag ? s->tag : (unsigned char *)"", s->tagl);
			n = run_cipher(c, 0, s->key, s->iv, s->ivl, pad, s->aad, s->aadl,
				       s->ct, s->ctl, out, &sd, tag, s->tagl);
			if (s->expect_fail) {
				if (n >= 0) {
					fail(desc, "decryption succeeded, expected an error");
					return 0;
				}
				ERR_clear_error();
			} else if (n != (long)s->ptl || memcmp(out, s->pt, s->ptl)) {
				fail(desc, "decryption (%s) differs", pass ? "split" : "one-shot");
				return 0;
			}
		}
	}
	/* NextIV: the chaining value after encrypting the plaintext */
	if (s->nextiv && !s->expect_fail) {
		EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
		unsigned char niv[16];
		int outl;

		if (!EVP_EncryptInit_ex2(ctx, c, s->key, s->iv, NULL) ||
		    !EVP_CIPHER_CTX_set_padding(ctx, 0) ||
		    !EVP_EncryptUpdate(ctx, out, &outl, s->pt, (int)s->ptl) ||
		    !EVP_CIPHER_CTX_get_updated_iv(ctx, niv, sizeof(niv)) ||
		    memcmp(niv, s->nextiv, s->nextivl)) {
			fail(desc, "NextIV differs");
			EVP_CIPHER_CTX_free(ctx);
			return 0;
		}
		EVP_CIPHER_CTX_free(ctx);
	}
	return 1;
}

static int kat_digest(struct stanza *s, EVP_MD *md, const char *file)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned char out[64];
	unsigned int outl;
	char desc[256];
	long i, j;
	int ok, b;

	snprintf(desc, sizeof(desc), "kat %s:%d %s", file, s->line, s->alg);
	ok = EVP_DigestInit_ex2(ctx, md, NULL);
	/* as OpenSSL's evp_test: Ncopy copies in one buffer, updated Count times */
	for (b = 0; ok && b < s->ninput; b++) {
		long nc = s->ncopy[b] ? s->ncopy[b] : 1;
		size_t len = s->inputl[b] * (size_t)nc;
		unsigned char *m = malloc(len + 1);

		for (j = 0; j < nc; j++)
			memcpy(m + (size_t)j * s->inputl[b], s->input[b], s->inputl[b]);
		for (i = 0; ok && i < (s->count[b] ? s->count[b] : 1); i++)
			ok = EVP_DigestUpdate(ctx, m, len);
		free(m);
	}
	ok = ok && EVP_DigestFinal_ex(ctx, out, &outl);
	EVP_MD_CTX_free(ctx);
	if (!ok || outl != s->outputl || memcmp(out, s->output, outl)) {
		fail(desc, "digest differs");
		return 0;
	}
	return 1;
}

static void kat_file(const char *path)
{
	FILE *f = fopen(path, "r");
	const char *file = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char line[16384], desc[256];
	struct stanza s;
	int lineno = 0, ran = 0, skipped = 0, bad = 0, have = 0, eof = 0;
	char offered[1024] = "";

	snprintf(desc, sizeof(desc), "kat %s", file);
	if (!f) {
		fail(desc, "cannot open %s", path);
		return;
	}
	memset(&s, 0, sizeof(s));
	while (!eof) {
		char *k, *v, *e;

		if (!fgets(line, sizeof(line), f)) {
			eof = 1;
			line[0] = 0;
		}
		lineno++;
		line[strcspn(line, "\r\n")] = 0;
		if (line[0] == '#')
			continue;
		if (line[0] == 0) {
			if (have && !s.skip) {
				if (s.cipher) {
					EVP_CIPHER *c = EVP_CIPHER_fetch(NULL, s.alg, PL);

					if (!c) {
						skipped++;
					} else {
						bad += !kat_cipher(&s, c, file);
						ran++;
						if (!strstr(offered, EVP_CIPHER_get0_name(c)) &&
						    strlen(offered) < 900) {
							strcat(offered, " ");
							strcat(offered, EVP_CIPHER_get0_name(c));
						}
						EVP_CIPHER_free(c);
					}
				} else {
					EVP_MD *md = EVP_MD_fetch(NULL, s.alg, PL);

					if (!md) {
						skipped++;
					} else {
						bad += !kat_digest(&s, md, file);
						ran++;
						if (!strstr(offered, EVP_MD_get0_name(md)) &&
						    strlen(offered) < 900) {
							strcat(offered, " ");
							strcat(offered, EVP_MD_get0_name(md));
						}
						EVP_MD_free(md);
					}
				}
				ERR_clear_error();
			} else if (have) {
				skipped++;
			}
			stanza_free(&s);
			have = 0;
			continue;
		}
		e = strstr(line, " = ");
		if (!e)
			continue;
		*e = 0;
		k = line;
		v = e + 3;
		if (!strcmp(k, "Cipher") || !strcmp(k, "Digest")) {
			snprintf(s.alg, sizeof(s.alg), "%s", v);
			s.cipher = k[0] == 'C';
			s.line = lineno;
			have = 1;
		} else if (!strcmp(k, "Availablein") || !strcmp(k, "FIPSversion")) {
			if (strcmp(v, "default") && strstr(k, "Available"))
				s.skip = 1;
		} else if (!strcmp(k, "Key")) {
			s.key = parse_value(v, &s.keyl);
		} else if (!strcmp(k, "IV")) {
			s.iv = parse_value(v, &s.ivl);
		} else if (!strcmp(k, "Plaintext")) {
			s.pt = parse_value(v, &s.ptl);
		} else if (!strcmp(k, "Ciphertext")) {
			s.ct = parse_value(v, &s.ctl);
		} else if (!strcmp(k, "AAD")) {
			s.aad = parse_value(v, &s.aadl);
		} else if (!strcmp(k, "Tag")) {
			s.tag = parse_value(v, &s.tagl);
		} else if (!strcmp(k, "NextIV")) {
			s.nextiv = parse_value(v, &s.nextivl);
		} else if (!strcmp(k, "Input") && s.ninput < 8) {
			s.input[s.ninput] = parse_value(v, &s.inputl[s.ninput]);
			s.ninput++;
		} else if (!strcmp(k, "Output")) {
			s.output = parse_value(v, &s.outputl);
		} else if (!strcmp(k, "Ncopy")) {
			if (s.ninput)
				s.ncopy[s.ninput - 1] = atol(v);
		} else if (!strcmp(k, "Count")) {
			if (s.ninput)
				s.count[s.ninput - 1] = atol(v);
		} else if (!strcmp(k, "Operation")) {
			s.op = !strcasecmp(v, "ENCRYPT") ? 1 : !strcasecmp(v, "DECRYPT") ? 2 : 0;
		} else if (!strcmp(k, "Result")) {
			s.expect_fail = 1;
		} else if (s.cipher && strcmp(k, "Title") && strcmp(k, "SetTagLate")) {
			s.skip = 1;	/* a keyword this program does not model */
		}
	}
	fclose(f);
	if (!bad && ran) {
		printf("PASS %s: %d vectors through padlock (%d for algorithms padlock does not offer here)\n",
		       desc, ran, skipped);
		printf("# %s:%s\n", file, offered);
	} else if (!ran) {
		printf("SKIP %s | padlock offers none of its %d algorithms' vectors here\n",
		       desc, skipped);
	} else {
		fail(desc, "%d of %d vectors failed", bad, ran);
	}
}

/* ---- random differential cases ---- */

static EVP_CIPHER *fetch_cipher(const char *name, const char *props)
{
	return EVP_CIPHER_fetch(NULL, name, props);
}

static int diff_cipher(const char *mode, long count)
{
	static unsigned char *buf, *ref, *got, *tmp;
	const size_t cap = 1 << 16;
	char desc[128];
	long i;
	int bits[3] = { 128, 192, 256 }, b, gcm = !strcasecmp(mode, "gcm");

	snprintf(desc, sizeof(desc), "diff aes-*-%s: %ld random cases against the default provider",
		 mode, count);
	if (!buf) {
		buf = malloc(cap + 64);
		ref = malloc(cap + 64);
		got = malloc(cap + 64);
		tmp = malloc(cap + 64);
	}
	for (b = 0; b < 3; b++) {
		char name[32];
		EVP_CIPHER *pc, *dc;

		snprintf(name, sizeof(name), "AES-%d-%s", bits[b], mode);
		pc = fetch_cipher(name, PL);
		dc = fetch_cipher(name, DEF);
		if (!pc || !dc) {
			printf("SKIP %s | padlock does not offer %s here\n", desc, name);
			EVP_CIPHER_free(pc);
			EVP_CIPHER_free(dc);
			return 1;
		}
		for (i = b; i < count; i += 3) {
			unsigned char key[32], iv[64], aad[64], tag1[16], tag2[16];
			size_t len = rndn(32) == 0 ? rndn(cap - 32) : rndn(600);
			size_t ivlen = gcm && rndn(4) == 0 ? 1 + rndn(64) : gcm ? 12 : 16;
			size_t aadlen = gcm ? rndn(40) : 0;
			size_t inoff = rndn(16), outoff = rndn(16);
			int pad = rndn(4) != 0, inplace = rndn(4) == 0;
			int blockmode = !strcasecmp(mode, "ECB") || !strcasecmp(mode, "CBC");
			struct split one = { 1, { 0 } }, sp, sd;
			long n1, n2, n3;
			unsigned char *in, *out;

			if (blockmode && !pad)
				len &= ~(size_t)15;
			rnd_bytes(key, sizeof(key));
			rnd_bytes(iv, sizeof(iv));
			rnd_bytes(aad, sizeof(aad));
			rnd_bytes(buf, len);
			one.len[0] = len;
			n1 = run_cipher(dc, 1, key, iv, ivlen, pad, aad, aadlen, buf, len,
					ref, &one, tag1, 16);
			make_split(&sp, len, 1 + (int)rndn(8));
			/* in place: the same buffer, only where OpenSSL allows it */
			in = tmp + inoff;
			memcpy(in, buf, len);
			if (inplace && (!blockmode || (len % 16 == 0 && !pad))) {
				size_t k;

				for (k = 0; k < sp.n; k++)
					sp.len[k] = blockmode ? sp.len[k] & ~(size_t)15 : sp.len[k];
				for (k = 0, n3 = 0; k < sp.n; k++)
					n3 += (long)sp.len[k];
				sp.len[sp.n - 1] += len - (size_t)n3;
				out = in;
			} else {
				out = got + outoff;
			}
			n2 = run_cipher(pc, 1, key, iv, ivlen, pad, aad, aadlen, in, len,
					out, &sp, tag2, 16);
			if (n1 < 0 || n1 != n2 || memcmp(ref, out, (size_t)n1) ||
			    (gcm && memcmp(tag1, tag2, 16))) {
				fail(desc, "%s case %ld: %zu bytes, key %d, split %zu pieces, %s, offsets %zu/%zu, pad %d: encryption differs (%ld/%ld)",
				     name, i, len, bits[b], sp.n, out == in ? "in place" : "out of place",
				     inoff, outoff, pad, n1, n2);
				return 0;
			}
			/* decrypt padlock's ciphertext in other pieces */
			make_split(&sd, (size_t)n1, 1 + (int)rndn(8));
			memcpy(tmp + outoff, ref, (size_t)n1);
			n3 = run_cipher(pc, 0, key, iv, ivlen, pad, aad, aadlen, tmp + outoff,
					(size_t)n1, got + inoff, &sd, tag1, 16);
			if (n3 != (long)len || memcmp(got + inoff, buf, len)) {
				fail(desc, "%s case %ld: %zu bytes: decryption differs (%ld)",
				     name, i, len, n3);
				return 0;
			}
		}
		EVP_CIPHER_free(pc);
		EVP_CIPHER_free(dc);
	}
	printf("PASS %s\n", desc);
	return 1;
}

static int diff_digest(const char *name, long count)
{
	static unsigned char *buf;
	const size_t cap = 1 << 16;
	EVP_MD *pm = EVP_MD_fetch(NULL, name, PL), *dm = EVP_MD_fetch(NULL, name, DEF);
	char desc[128];
	long i;

	snprintf(desc, sizeof(desc), "diff %s: %ld random cases (splits, dup mid-stream) against the default provider",
		 name, count);
	if (!pm || !dm) {
		printf("SKIP %s | padlock does not offer %s here\n", desc, name);
		EVP_MD_free(pm);
		EVP_MD_free(dm);
		return 1;
	}
	if (!buf)
		buf = malloc(cap + 16);
	for (i = 0; i < count; i++) {
		size_t len = rndn(32) == 0 ? rndn(cap) : rndn(700), off = rndn(16), k, done = 0;
		size_t dupat = rndn(len + 1);
		unsigned char d1[64], d2[64], d3[64];
		unsigned int l1, l2, l3;
		EVP_MD_CTX *c = EVP_MD_CTX_new(), *dup = NULL;
		struct split sp;

		rnd_bytes(buf + off, len);
		EVP_Digest(buf + off, len, d1, &l1, dm, NULL);
		make_split(&sp, len, 1 + (int)rndn(10));
		EVP_DigestInit_ex2(c, pm, NULL);
		for (k = 0; k < sp.n; k++) {
			if (!dup && done >= dupat) {
				dup = EVP_MD_CTX_new();
				EVP_MD_CTX_copy_ex(dup, c);
				EVP_DigestUpdate(dup, buf + off + done, len - done);
			}
			EVP_DigestUpdate(c, buf + off + done, sp.len[k]);
			done += sp.len[k];
		}
		if (!dup) {
			dup = EVP_MD_CTX_new();
			EVP_MD_CTX_copy_ex(dup, c);
		}
		l2 = l3 = 0;
		EVP_DigestFinal_ex(c, d2, &l2);
		EVP_DigestFinal_ex(dup, d3, &l3);
		EVP_MD_CTX_free(c);
		EVP_MD_CTX_free(dup);
		if (l1 != l2 || memcmp(d1, d2, l1) || l1 != l3 || memcmp(d1, d3, l1)) {
			fail(desc, "case %ld: %zu bytes, %zu pieces, dup at %zu: digest differs",
			     i, len, sp.n, dupat);
			return 0;
		}
	}
	EVP_MD_free(pm);
	EVP_MD_free(dm);
	printf("PASS %s\n", desc);
	return 1;
}

/* OpenSSL's HMAC (default provider) over padlock's digest */
static int diff_hmac(const char *digest, long count)
{
	EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
	EVP_MD *pm = EVP_MD_fetch(NULL, digest, PL);
	unsigned char key[200], msg[3000], m1[64], m2[64];
	char desc[128];
	long i;

	snprintf(desc, sizeof(desc), "diff HMAC-%s: %ld random keys and messages, digest from padlock",
		 digest, count);
	if (!pm) {
		printf("SKIP %s | padlock does not offer %s here\n", desc, digest);
		EVP_MAC_free(mac);
		return 1;
	}
	EVP_MD_free(pm);
	for (i = 0; i < count; i++) {
		size_t kl = 1 + rndn(sizeof(key)), ml = rndn(sizeof(msg)), l1 = 0, l2 = 0;
		int pass;
		unsigned char *res[2] = { m1, m2 };
		size_t *rl[2] = { &l1, &l2 };

		rnd_bytes(key, kl);
		rnd_bytes(msg, ml);
		for (pass = 0; pass < 2; pass++) {
			EVP_MAC_CTX *ctx = EVP_MAC_CTX_new(mac);
			OSSL_PARAM p[3];
			size_t cut = rndn(ml + 1);

			p[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)digest, 0);
			p[1] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_PROPERTIES,
								pass ? PL : DEF, 0);
			p[2] = OSSL_PARAM_construct_end();
			if (!EVP_MAC_init(ctx, key, kl, p) ||
			    !EVP_MAC_update(ctx, msg, cut) ||
			    !EVP_MAC_update(ctx, msg + cut, ml - cut) ||
			    !EVP_MAC_final(ctx, res[pass], rl[pass], 64)) {
				fail(desc, "case %ld: HMAC failed", i);
				EVP_MAC_CTX_free(ctx);
				return 0;
			}
			EVP_MAC_CTX_free(ctx);
		}
		if (l1 != l2 || memcmp(m1, m2, l1)) {
			fail(desc, "case %ld: key %zu, message %zu bytes: HMAC differs", i, kl, ml);
			return 0;
		}
	}
	EVP_MAC_free(mac);
	printf("PASS %s\n", desc);
	return 1;
}

/* ---- TLS records: the cipher does the record work (libssl 3) ---- */

#define TLS_MAXREC	(16384 + 256 + 64 + 16)

static unsigned char tls_last_mac[64];	/* padlock's MAC of the last record */

struct tls_pair {
	EVP_CIPHER_CTX *pl, *def;
};

/*
 * Contexts as libssl sets them up: CBC with tls-version and tls-mac-size
 * (0 with encrypt-then-MAC), GCM with the fixed IV (ivfixed bytes, or the
 * whole IV for -1).
 */
static int tls_ctx(EVP_CIPHER_CTX *ctx, EVP_CIPHER *c, int enc, const unsigned char *key,
		   const unsigned char *iv, int version, size_t macsize, int ivfixed)
{
	OSSL_PARAM p[3];

	if (!EVP_CipherInit_ex2(ctx, c, key, EVP_CIPHER_get_mode(c) == EVP_CIPH_CBC_MODE ? iv : NULL,
				enc, NULL))
		return 0;
	if (EVP_CIPHER_get_mode(c) == EVP_CIPH_GCM_MODE)
		return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IV_FIXED, ivfixed,
					   (void *)iv) > 0;
	p[0] = OSSL_PARAM_construct_int(OSSL_CIPHER_PARAM_TLS_VERSION, &version);
	p[1] = OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_TLS_MAC_SIZE, &macsize);
	p[2] = OSSL_PARAM_construct_end();
	return EVP_CIPHER_CTX_set_params(ctx, p);
}

static int tls_pair_init(struct tls_pair *t, EVP_CIPHER *pc, EVP_CIPHER *dc, int enc,
			 const unsigned char *key, const unsigned char *iv, int version,
			 size_t macsize, int ivfixed)
{
	return tls_ctx(t->pl, pc, enc, key, iv, version, macsize, ivfixed) &&
	       tls_ctx(t->def, dc, enc, key, iv, version, macsize, ivfixed);
}

/* One record through one context, in place; -1 if the cipher refused it. */
static long tls_rec(EVP_CIPHER_CTX *ctx, unsigned char *rec, size_t len,
		    const unsigned char *aad, size_t macsize, unsigned char **mac)
{
	int outl;

	if (aad) {
		unsigned char a[13];

		memcpy(a, aad, 13);
		if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, 13, a) != 16)
			return -1;
	}
	if (!EVP_CipherUpdate(ctx, rec, &outl, rec, (int)len))
		return -1;
	*mac = NULL;
	/*
	 * libssl asks for the MAC after every record it opens: TLS where the
	 * suite has one, DTLS always (GCM included, with a size of 0).
	 */
	if (!EVP_CIPHER_CTX_is_encrypting(ctx)) {
		OSSL_PARAM p[2];

		p[0] = OSSL_PARAM_construct_octet_ptr(OSSL_CIPHER_PARAM_TLS_MAC,
						      (void **)mac, macsize);
		p[1] = OSSL_PARAM_construct_end();
		if (!EVP_CIPHER_CTX_get_params(ctx, p) || (macsize && !*mac))
			return -2;
	}
	return outl;
}

/*
 * The same record through padlock and the default provider: same result
 * (refused, or the same length, bytes and MAC).  With MAC-then-encrypt a
 * record with bad padding is accepted by both, at full length, with a
 * random MAC: then the two MACs must differ from each other.
 */
static int tls_same(const char *desc, struct tls_pair *t, const unsigned char *rec,
		    size_t len, const unsigned char *aad, size_t macsize, size_t skip,
		    unsigned char *a, unsigned char *b, long *res)
{
	unsigned char *ma, *mb;
	long na, nb;

	memcpy(a, rec, len);
	memcpy(b, rec, len);
	ERR_set_mark();
	nb = tls_rec(t->def, b, len, aad, macsize, &mb);
	na = tls_rec(t->pl, a, len, aad, macsize, &ma);
	ERR_pop_to_mark();
	*res = na;
	if (na != nb) {
		fail(desc, "%zu-byte record: padlock %ld, default provider %ld", len, na, nb);
		return 0;
	}
	if (na < 0)
		return 1;
	if (memcmp(a, b, EVP_CIPHER_CTX_is_encrypting(t->pl) ? (size_t)na : (size_t)na + skip)) {
		fail(desc, "%zu-byte record: output differs", len);
		return 0;
	}
	if (macsize && !EVP_CIPHER_CTX_is_encrypting(t->pl)) {
		int good = (size_t)na + macsize + skip != len;

		memcpy(tls_last_mac, ma, macsize);
		if (good != !memcmp(ma, mb, macsize)) {
			fail(desc, "%zu-byte record: MAC %s", len,
			     good ? "differs" : "of bad padding not random");
			return 0;
		}
	}
	return 1;
}

static int fetch_pair(const char *name, const char *desc, EVP_CIPHER **pc, EVP_CIPHER **dc);

/* both pairs (sending, receiving) from key and iv */
static int tls_cbc_init(struct tls_pair *e, struct tls_pair *d, EVP_CIPHER *pc, EVP_CIPHER *dc,
			const unsigned char *key, const unsigned char *iv, int version, size_t mac)
{
	return tls_pair_init(e, pc, dc, 1, key, iv, version, mac, 0) &&
	       tls_pair_init(d, pc, dc, 0, key, iv, version, mac, 0);
}

/*
 * A record with bad padding or a bad length, from the good record rec
 * (len bytes, no padding yet): padding of a random length with one byte
 * wrong, or a padding length beyond the record; or a length that is not
 * whole blocks, or too short for the MAC.  Encrypted with plain CBC from
 * the receiver's chaining value.  Returns its length.
 */
static size_t tls_cbc_tamper(EVP_CIPHER_CTX *raw, EVP_CIPHER_CTX *recv, const unsigned char *key,
			     unsigned char *ct, const unsigned char *rec, size_t len,
			     size_t skip, size_t mac)
{
	size_t padn = rndn(241), clen = (len + padn + 1 + 15) & ~(size_t)15, body;
	unsigned char iv[16];
	int outl, how = (int)rndn(4);

	padn = clen - len - 1;
	memcpy(ct, rec, len);
	memset(ct + len, (int)padn, padn + 1);
	body = clen - skip - mac;	/* a padding length this or more is too long */
	if (how == 0 && padn == 0)
		how = 1;
	if (how == 1 && body > 255)
		how = padn ? 0 : 2;
	switch (how) {
	case 0:			/* a byte of the padding before its length byte */
		ct[len + rndn(padn)] ^= (unsigned char)(1 + rndn(255));
		break;
	case 1:
		ct[clen - 1] = (unsigned char)(body + rndn(256 - body));
		break;
	case 2:
		return clen - 1 - rndn(15);
	default:
		body = skip + 16 * rndn(mac / 16 + 1);
		return body ? body : clen - 1 - rndn(15);
	}
	if (!EVP_CipherInit_ex2(raw, EVP_CIPHER_CTX_get0_cipher(recv), key, NULL, 1, NULL) ||
	    !EVP_CIPHER_CTX_get_updated_iv(recv, iv, 16) ||
	    !EVP_CipherInit_ex2(raw, NULL, NULL, iv, 1, NULL) ||
	    !EVP_CIPHER_CTX_set_padding(raw, 0) ||
	    !EVP_CipherUpdate(raw, ct, &outl, ct, (int)clen))
		return 0;
	return clen;
}

static void tls_cbc(long count, unsigned char *rec, unsigned char *ct,
		    unsigned char *a, unsigned char *b)
{
	static const int versions[] = { 0x0301, 0x0302, 0x0303 };
	static const size_t macs[] = { 0, 20, 32, 48 };
	static const char * const macname[] = {
		"encrypt-then-MAC", "MAC-then-encrypt (HMAC-SHA1)",
		"MAC-then-encrypt (HMAC-SHA256)", "MAC-then-encrypt (HMAC-SHA384)"
	};
	struct tls_pair e = { EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_new() };
	struct tls_pair d = { EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_new() };
	EVP_CIPHER_CTX *raw = EVP_CIPHER_CTX_new();
	long i, records = 0, badpad = 0, refused = 0, n;
	int v, m, bits[2] = { 128, 256 };
	char desc[200];

	for (v = 0; v < 3; v++) {
		for (m = 0; m < 4; m++) {
			int version = versions[v], kb = bits[(v + m) & 1];
			size_t mac = macs[m], skip = version == 0x0301 ? 0 : 16;
			char name[16];
			EVP_CIPHER *pc, *dc;
			unsigned char key[32], iv[16];

			snprintf(name, sizeof(name), "AES-%d-CBC", kb);
			snprintf(desc, sizeof(desc), "tls %s TLS 1.%d %s: %ld records, about half of them also tampered, against the default provider",
				 name, version - 0x0301, macname[m], count);
			if (!fetch_pair(name, desc, &pc, &dc))
				goto out;
			rnd_bytes(key, sizeof(key));
			rnd_bytes(iv, sizeof(iv));
			if (!tls_cbc_init(&e, &d, pc, dc, key, iv, version, mac)) {
				fail(desc, "setting the TLS parameters failed");
				goto next;
			}
			for (i = 0; i < count; i++) {
				size_t len = skip + (rndn(8) == 0 ? rndn(16385) : rndn(1200)) + mac;
				size_t clen;

				/* a record as libssl sends it: sealed and opened by both */
				rnd_bytes(rec, len);
				if (!tls_same(desc, &e, rec, len, NULL, mac, skip, a, b, &n))
					goto next;
				memcpy(ct, a, (size_t)n);
				if (!tls_same(desc, &d, ct, (size_t)n, NULL, mac, skip, a, b, &n))
					goto next;
				if (n < 0 || (size_t)n + skip + mac != len ||
				    memcmp(a + skip, rec + skip, len - skip - mac) ||
				    (mac && memcmp(tls_last_mac, rec + len - mac, mac))) {
					fail(desc, "%zu-byte record: not opened to what was sealed (%ld)",
					     len, n);
					goto next;
				}
				records += 2;
				if (rndn(2))
					continue;
				clen = tls_cbc_tamper(raw, d.def, key, ct, rec, len, skip, mac);
				if (!clen) {
					fail(desc, "plain CBC for a tampered record failed");
					goto next;
				}
				if (!tls_same(desc, &d, ct, clen, NULL, mac, skip, a, b, &n))
					goto next;
				records++;
				if (n < 0) {
					refused++;
				} else if (!mac || (size_t)n + skip + mac != clen) {
					fail(desc, "%zu-byte tampered record accepted as good (%ld)", clen, n);
					goto next;
				} else {
					badpad++;
				}
				/* the receiver's chaining value moved on: both start afresh */
				rnd_bytes(iv, sizeof(iv));
				if (!tls_cbc_init(&e, &d, pc, dc, key, iv, version, mac)) {
					fail(desc, "setting the TLS parameters failed");
					goto next;
				}
			}
			printf("PASS %s\n", desc);
next:
			EVP_CIPHER_free(pc);
			EVP_CIPHER_free(dc);
		}
	}
	printf("# tls cbc: %ld records; tampered: %ld accepted with a random MAC (bad padding), %ld refused\n",
	       records, badpad, refused);
out:
	EVP_CIPHER_CTX_free(e.pl);
	EVP_CIPHER_CTX_free(e.def);
	EVP_CIPHER_CTX_free(d.pl);
	EVP_CIPHER_CTX_free(d.def);
	EVP_CIPHER_CTX_free(raw);
}

/*
 * The record header libssl hands over as "tlsaad": sequence number, type,
 * version, length (sending: explicit IV and data; receiving: the record).
 */
static void tls_aad(unsigned char *aad, uint64_t seq, size_t len)
{
	int i;

	for (i = 7; i >= 0; i--, seq >>= 8)
		aad[i] = (unsigned char)seq;
	aad[8] = 23;			/* application data */
	aad[9] = 3;
	aad[10] = 3;
	aad[11] = (unsigned char)(len >> 8);
	aad[12] = (unsigned char)len;
}

static void tls_gcm(long count, unsigned char *rec, unsigned char *ct,
		    unsigned char *a, unsigned char *b)
{
	struct tls_pair e = { EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_new() };
	struct tls_pair d = { EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_new() };
	long i, records = 0, refused = 0, n;
	int k, bits[2] = { 128, 256 };
	char desc[200];

	for (k = 0; k < 2; k++) {
		char name[16];
		EVP_CIPHER *pc, *dc;
		unsigned char key[32], iv[12], aad[13], x0[8] = { 0 };

		snprintf(name, sizeof(name), "AES-%d-GCM", bits[k]);
		snprintf(desc, sizeof(desc), "tls %s TLS 1.2 records (whole fixed IV): %ld records, about half of them also tampered, against the default provider",
			 name, count);
		if (!fetch_pair(name, desc, &pc, &dc))
			goto out;
		rnd_bytes(key, sizeof(key));
		rnd_bytes(iv, sizeof(iv));
		if (!tls_pair_init(&e, pc, dc, 1, key, iv, 0, 0, -1) ||
		    !tls_pair_init(&d, pc, dc, 0, key, iv, 0, 0, -1)) {
			fail(desc, "setting the fixed IV failed");
			goto next;
		}
		for (i = 0; i < count; i++) {
			size_t len = 8 + (rndn(8) == 0 ? rndn(16385) : rndn(1200)) + 16, clen;

			/* the header's length: sending without the tag, receiving with */
			rnd_bytes(rec, len);
			tls_aad(aad, (uint64_t)i, len - 16);
			if (!tls_same(desc, &e, rec, len, aad, 0, 0, a, b, &n))
				goto next;
			memcpy(ct, a, (size_t)n);
			tls_aad(aad, (uint64_t)i, len);
			if (!tls_same(desc, &d, ct, (size_t)n, aad, 0, 8, a, b, &n))
				goto next;
			if (n < 0 || (size_t)n != len - 24 || memcmp(a + 8, rec + 8, (size_t)n)) {
				fail(desc, "%zu-byte record: not opened to what was sealed (%ld)", len, n);
				goto next;
			}
			records += 2;
			if (rndn(2))
				continue;
			/* a bit flipped in the record or its header, or too short */
			clen = len;
			switch (rndn(4)) {
			case 0:
				ct[rndn(8)] ^= (unsigned char)(1 << rndn(8));	/* explicit IV */
				break;
			case 1:
				ct[8 + rndn(len - 8)] ^= (unsigned char)(1 << rndn(8));
				break;
			case 2:
				aad[rndn(13)] ^= (unsigned char)(1 << rndn(8));
				break;
			default:	/* as the header says, or only the record */
				clen = 1 + rndn(23);
				if (rndn(2))
					tls_aad(aad, (uint64_t)i, clen);
				break;
			}
			if (!tls_same(desc, &d, ct, clen, aad, 0, 8, a, b, &n))
				goto next;
			records++;
			if (n >= 0) {
				fail(desc, "%zu-byte tampered record accepted", clen);
				goto next;
			}
			refused++;
		}
		printf("PASS %s\n", desc);

		/*
		 * As libssl: a 4-byte fixed IV, the sender's explicit part
		 * random, counting up by one per record.  padlock's records
		 * open with the default provider and the other way round.
		 */
		snprintf(desc, sizeof(desc), "tls %s TLS 1.2 records (4-byte fixed IV, random explicit IV counting up): %ld each way between padlock and the default provider",
			 name, count);
		if (!tls_pair_init(&e, pc, dc, 1, key, iv, 0, 0, 4) ||
		    !tls_pair_init(&d, pc, dc, 0, key, iv, 0, 0, 4)) {
			fail(desc, "setting the fixed IV failed");
			goto next;
		}
		for (i = 0; i < 2 * count; i++) {
			EVP_CIPHER_CTX *snd = i & 1 ? e.def : e.pl, *rcv = i & 1 ? d.pl : d.def;
			size_t len = 8 + rndn(300) + 16;
			unsigned char *mac;
			uint64_t x = 0, y = 0;
			int j;

			rnd_bytes(rec, len);
			memcpy(a, rec, len);
			tls_aad(aad, (uint64_t)i, len - 16);
			n = tls_rec(snd, a, len, aad, 0, &mac);
			tls_aad(aad, (uint64_t)i, (size_t)n);
			if (n == (long)len)
				n = tls_rec(rcv, a, len, aad, 0, &mac);
			if (n != (long)len - 24 || memcmp(a + 8, rec + 8, (size_t)n)) {
				fail(desc, "record %ld (%s to %s): not opened (%ld)", i,
				     i & 1 ? "default" : "padlock", i & 1 ? "padlock" : "default", n);
				goto next;
			}
			if (i & 1)
				continue;
			for (j = 0; j < 8; j++) {
				x = x << 8 | x0[j];
				y = y << 8 | a[j];
			}
			if (i && y != x + 1) {
				fail(desc, "padlock's explicit IVs do not count up by one");
				goto next;
			}
			/* the next padlock record is two records on */
			memcpy(x0, a, 8);
			records += 2;
		}
		printf("PASS %s\n", desc);
next:
		EVP_CIPHER_free(pc);
		EVP_CIPHER_free(dc);
	}
	printf("# tls gcm: %ld records, %ld tampered ones refused\n", records, refused);
out:
	EVP_CIPHER_CTX_free(e.pl);
	EVP_CIPHER_CTX_free(e.def);
	EVP_CIPHER_CTX_free(d.pl);
	EVP_CIPHER_CTX_free(d.def);
}

/*
 * One message through the ordinary AEAD calls on a context whose IV is
 * set (tlsivgen, tlsivinv): AAD, data in the pieces of sp, then the tag
 * (fetched when sealing, checked when opening).  Returns whether every
 * call succeeded; *outl: the bytes the updates wrote, -1 if one failed.
 */
static int gcm_msg(EVP_CIPHER_CTX *ctx, const unsigned char *aad, size_t aadlen,
		   const unsigned char *in, const struct split *sp, unsigned char *out,
		   unsigned char *tag, long *outl)
{
	int enc = EVP_CIPHER_CTX_is_encrypting(ctx), n;
	size_t i, off = 0;

	*outl = -1;
	if (!enc && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag) <= 0)
		return 0;
	if (aadlen && !EVP_CipherUpdate(ctx, NULL, &n, aad, (int)aadlen))
		return 0;
	for (i = 0; i < sp->n; i++) {
		if (!EVP_CipherUpdate(ctx, out + off, &n, in + off, (int)sp->len[i]))
			return 0;
		off += (size_t)n;
	}
	*outl = (long)off;
	if (!EVP_CipherFinal_ex(ctx, out + off, &n))
		return 0;
	return !enc || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag) > 0;
}

/*
 * The explicit IV handed out by "tlsivgen" (EVP_CTRL_GCM_IV_GEN) and set
 * by the receiver with "tlsivinv" (EVP_CTRL_GCM_SET_IV_INV), the message
 * itself through the ordinary AEAD calls.  Sending, padlock and the
 * default provider start from the same whole IV (fixed part -1), so their
 * explicit IVs, ciphertexts and tags must be equal.  Receiving, both have
 * the same 4-byte fixed part and get the same explicit IV per message: all
 * 8 bytes, or only its last 1-7 (the others stay from the message
 * before), sometimes none (the IV was used up: refused); about half of the
 * messages are tampered (explicit IV, data, AAD or tag).  Both must open
 * or refuse alike, with the same bytes, and open exactly the messages
 * whose IV, data, AAD and tag are the sender's.
 */
static void tls_gcm_ivinv(long count, unsigned char *msg, unsigned char *ct,
			  unsigned char *a, unsigned char *b)
{
	struct tls_pair e = { EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_new() };
	struct tls_pair d = { EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_new() };
	EVP_CIPHER_CTX *fresh = EVP_CIPHER_CTX_new();
	long i, opened = 0, refused = 0, na, nb;
	int k, bits[2] = { 128, 256 };
	char desc[300];

	for (k = 0; k < 2; k++) {
		char name[16];
		EVP_CIPHER *pc, *dc;
		unsigned char key[32], iv[12], aad[40], xa[8], xb[8], ta[16], tb[16];
		unsigned char riv[8] = { 0 };	/* the receiver's explicit IV */
		int ra, rb;

		snprintf(name, sizeof(name), "AES-%d-GCM", bits[k]);
		snprintf(desc, sizeof(desc), "tls %s tlsivgen/tlsivinv: %ld messages sealed on the explicit IV from tlsivgen, opened after tlsivinv (all of it, its last bytes or none), about half tampered, against the default provider",
			 name, count);
		if (!fetch_pair(name, desc, &pc, &dc))
			goto out;
		rnd_bytes(key, sizeof(key));
		rnd_bytes(iv, sizeof(iv));
		/* near a carry, so that the upper bytes of the count change too */
		iv[11] = (unsigned char)(0xff - rndn(4));
		if (rndn(2))
			iv[10] = 0xff;
		if (!tls_pair_init(&e, pc, dc, 1, key, iv, 0, 0, -1) ||
		    !tls_pair_init(&d, pc, dc, 0, key, iv, 0, 0, 4)) {
			fail(desc, "setting the fixed IV failed");
			goto next;
		}
		/* refused by both: on the sending side, and before any fixed IV */
		ERR_set_mark();
		ra = EVP_CIPHER_CTX_ctrl(e.pl, EVP_CTRL_GCM_SET_IV_INV, 8, iv + 4) > 0;
		rb = EVP_CIPHER_CTX_ctrl(e.def, EVP_CTRL_GCM_SET_IV_INV, 8, iv + 4) > 0;
		ERR_pop_to_mark();
		if (ra || rb) {
			fail(desc, "tlsivinv on an encrypting context accepted (padlock %d, default %d)",
			     ra, rb);
			goto next;
		}
		ERR_set_mark();
		ra = EVP_CipherInit_ex2(fresh, pc, key, NULL, 0, NULL) &&
		     EVP_CIPHER_CTX_ctrl(fresh, EVP_CTRL_GCM_SET_IV_INV, 8, iv + 4) > 0;
		rb = EVP_CipherInit_ex2(fresh, dc, key, NULL, 0, NULL) &&
		     EVP_CIPHER_CTX_ctrl(fresh, EVP_CTRL_GCM_SET_IV_INV, 8, iv + 4) > 0;
		ERR_pop_to_mark();
		if (ra || rb) {
			fail(desc, "tlsivinv without tlsivfixed accepted (padlock %d, default %d)",
			     ra, rb);
			goto next;
		}
		for (i = 0; i < count; i++) {
			size_t len = rndn(8) == 0 ? rndn(16385) : rndn(1200);
			size_t aadlen = rndn(4) == 0 ? 13 : rndn(sizeof(aad) + 1);
			size_t given = i && rndn(4) == 0 ? 1 + rndn(7) : 8;
			int tamper = rndn(2) ? 1 + (int)rndn(4) : 0, skip = i && rndn(16) == 0;
			int want;
			unsigned char inv[8];
			struct split sp;

			rnd_bytes(msg, len);
			rnd_bytes(aad, aadlen);
			make_split(&sp, len, 1 + (int)rndn(5));
			/* sealing: tlsivgen, then the message */
			if (EVP_CIPHER_CTX_ctrl(e.pl, EVP_CTRL_GCM_IV_GEN, 8, xa) <= 0 ||
			    EVP_CIPHER_CTX_ctrl(e.def, EVP_CTRL_GCM_IV_GEN, 8, xb) <= 0 ||
			    memcmp(xa, xb, 8)) {
				fail(desc, "message %ld: tlsivgen failed or differs", i);
				goto next;
			}
			ra = gcm_msg(e.pl, aad, aadlen, msg, &sp, a, ta, &na);
			rb = gcm_msg(e.def, aad, aadlen, msg, &sp, b, tb, &nb);
			if (!ra || !rb || na != (long)len || nb != na || memcmp(a, b, len) ||
			    memcmp(ta, tb, 16)) {
				fail(desc, "message %ld, %zu bytes, AAD %zu: sealing differs (padlock %d %ld, default %d %ld)",
				     i, len, aadlen, ra, na, rb, nb);
				goto next;
			}
			memcpy(ct, a, len);
			/* opening: tlsivinv with the explicit IV, maybe tampered */
			memcpy(inv, xa, 8);
			/* data or AAD only where there is some, else the tag */
			if (tamper == 2 && !len)
				tamper = 3;
			if (tamper == 3 && !aadlen)
				tamper = 4;
			if (tamper == 1)
				inv[8 - given + rndn(given)] ^= (unsigned char)(1 << rndn(8));
			else if (tamper == 2)
				ct[rndn(len)] ^= (unsigned char)(1 << rndn(8));
			else if (tamper == 3)
				aad[rndn(aadlen)] ^= (unsigned char)(1 << rndn(8));
			else if (tamper == 4)
				ta[rndn(16)] ^= (unsigned char)(1 << rndn(8));
			if (!skip) {
				ra = EVP_CIPHER_CTX_ctrl(d.pl, EVP_CTRL_GCM_SET_IV_INV, (int)given,
							 inv + 8 - given) > 0;
				rb = EVP_CIPHER_CTX_ctrl(d.def, EVP_CTRL_GCM_SET_IV_INV, (int)given,
							 inv + 8 - given) > 0;
				if (!ra || !rb) {
					fail(desc, "message %ld: tlsivinv of %zu bytes refused (padlock %d, default %d)",
					     i, given, ra, rb);
					goto next;
				}
				memcpy(riv + 8 - given, inv + 8 - given, given);
			}
			want = !skip && !memcmp(riv, xa, 8) && (!tamper || tamper == 1);
			make_split(&sp, len, 1 + (int)rndn(5));
			memcpy(tb, ta, 16);
			ERR_set_mark();
			ra = gcm_msg(d.pl, aad, aadlen, ct, &sp, a, ta, &na);
			rb = gcm_msg(d.def, aad, aadlen, ct, &sp, b, tb, &nb);
			ERR_pop_to_mark();
			if (ra != rb || ra != want ||
			    (na == (long)len && nb == na && memcmp(a, b, len)) ||
			    (want && (na != (long)len || memcmp(a, msg, len)))) {
				fail(desc, "message %ld, %zu bytes, AAD %zu, %zu IV bytes given%s, tampered %d: padlock %s (%ld), default provider %s (%ld), expected %s",
				     i, len, aadlen, given, skip ? " (no tlsivinv)" : "", tamper,
				     ra ? "opened" : "refused", na, rb ? "opened" : "refused", nb,
				     want ? "opened" : "refused");
				goto next;
			}
			if (want)
				opened++;
			else
				refused++;
		}
		printf("PASS %s\n", desc);
next:
		EVP_CIPHER_free(pc);
		EVP_CIPHER_free(dc);
	}
	printf("# tls gcm tlsivinv: %ld messages opened, %ld refused by both\n", opened, refused);
out:
	EVP_CIPHER_CTX_free(fresh);
	EVP_CIPHER_CTX_free(e.pl);
	EVP_CIPHER_CTX_free(e.def);
	EVP_CIPHER_CTX_free(d.pl);
	EVP_CIPHER_CTX_free(d.def);
}

static void tls(long count)
{
	unsigned char *rec = malloc(TLS_MAXREC), *ct = malloc(TLS_MAXREC);
	unsigned char *a = malloc(TLS_MAXREC), *b = malloc(TLS_MAXREC);

	tls_cbc(count, rec, ct, a, b);
	tls_gcm(count, rec, ct, a, b);
	tls_gcm_ivinv(count, rec, ct, a, b);
	free(rec);
	free(ct);
	free(a);
	free(b);
}

/* ---- errors ---- */

static int expect_err(const char *desc, int ok, const char *reason)
{
	unsigned long e = ERR_peek_last_error();
	const char *r = e ? ERR_reason_error_string(e) : NULL;

	if (ok) {
		fail(desc, "succeeded, expected \"%s\"", reason);
		return 0;
	}
	if (reason && (!r || !strstr(r, reason))) {
		fail(desc, "error \"%s\", expected \"%s\"", r ? r : "none", reason);
		return 0;
	}
	printf("PASS %s (\"%s\")\n", desc, r ? r : "failed");
	ERR_clear_error();
	return 1;
}

static void errors(void)
{
	EVP_CIPHER *cbc = fetch_cipher("AES-128-CBC", PL), *gcm = fetch_cipher("AES-128-GCM", PL);
	EVP_CIPHER *dcbc = fetch_cipher("AES-128-CBC", DEF);
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	unsigned char key[32] = { 1 }, key2[16] = { 2 }, iv[16] = { 3 }, in[64] = { 4 };
	unsigned char out[128], ref[128], tag[16];
	int outl, l2, ok;
	OSSL_PARAM p[2];
	size_t zero = 0;

	if (!cbc || !gcm || !dcbc) {
		printf("SKIP errors | padlock offers no AES here\n");
		return;
	}
	/* wrong key length */
	ok = EVP_EncryptInit_ex2(ctx, cbc, NULL, NULL, NULL) &&
	     EVP_CIPHER_CTX_set_key_length(ctx, 24);
	expect_err("errors: AES-128-CBC with a 24-byte key length", ok, "invalid key length");
	/* GCM IV length 0 */
	p[0] = OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &zero);
	p[1] = OSSL_PARAM_construct_end();
	ok = EVP_EncryptInit_ex2(ctx, gcm, NULL, NULL, NULL) && EVP_CIPHER_CTX_set_params(ctx, p);
	expect_err("errors: AES-128-GCM with IV length 0", ok, "invalid iv length");
	/* final on a partial block without padding */
	ok = EVP_EncryptInit_ex2(ctx, cbc, key, iv, NULL) &&
	     EVP_CIPHER_CTX_set_padding(ctx, 0) &&
	     EVP_EncryptUpdate(ctx, out, &outl, in, 20) &&
	     EVP_EncryptFinal_ex(ctx, out + outl, &l2);
	expect_err("errors: CBC encrypt final on a partial block, padding off", ok,
		   "wrong final block length");
	ok = EVP_DecryptInit_ex2(ctx, cbc, key, iv, NULL) &&
	     EVP_DecryptUpdate(ctx, out, &outl, in, 20) &&
	     EVP_DecryptFinal_ex(ctx, out + outl, &l2);
	expect_err("errors: CBC decrypt final on a partial block", ok, "wrong final block length");
	/* bad padding: decrypt random blocks (key chosen so the last byte is not 1) */
	{
		int tries, bad = 0;

		for (tries = 0; tries < 20 && !bad; tries++) {
			key[1] = (unsigned char)tries;
			ok = EVP_DecryptInit_ex2(ctx, cbc, key, iv, NULL) &&
			     EVP_CIPHER_CTX_set_padding(ctx, 1) &&
			     EVP_DecryptUpdate(ctx, out, &outl, in, 32) &&
			     EVP_DecryptFinal_ex(ctx, out + outl, &l2);
			if (!ok)
				bad = 1;
		}
		expect_err("errors: CBC decrypt with bad padding", !bad, "bad decrypt");
	}
	/* GCM with a wrong tag */
	ok = EVP_EncryptInit_ex2(ctx, gcm, key, iv, NULL) &&
	     EVP_EncryptUpdate(ctx, out, &outl, in, 40) &&
	     EVP_EncryptFinal_ex(ctx, out + outl, &l2);
	p[0] = OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, tag, 16);
	ok = ok && EVP_CIPHER_CTX_get_params(ctx, p);
	tag[3] ^= 1;
	ok = ok && EVP_DecryptInit_ex2(ctx, gcm, key, iv, NULL) &&
	     EVP_DecryptUpdate(ctx, ref, &outl, out, 40) &&
	     EVP_CIPHER_CTX_set_params(ctx, p);
	if (!ok)
		fail("errors: GCM decrypt with a wrong tag", "set-up failed");
	else
		expect_err("errors: GCM decrypt with a wrong tag",
			   EVP_DecryptFinal_ex(ctx, ref + outl, &l2), NULL);
	/* zero-length updates and a context re-keyed mid-use */
	ok = EVP_EncryptInit_ex2(ctx, cbc, key, iv, NULL) &&
	     EVP_CIPHER_CTX_set_padding(ctx, 1) &&
	     EVP_EncryptUpdate(ctx, out, &outl, in, 0) &&
	     EVP_EncryptUpdate(ctx, out, &outl, in, 7) &&
	     EVP_EncryptInit_ex2(ctx, NULL, key2, iv, NULL) &&
	     EVP_EncryptUpdate(ctx, out, &outl, in, 0) &&
	     EVP_EncryptUpdate(ctx, out, &outl, in, 33) &&
	     EVP_EncryptUpdate(ctx, out + outl, &l2, in + 33, 0) &&
	     EVP_EncryptFinal_ex(ctx, out + outl + l2, &l2);
	{
		int rl, rl2;

		EVP_EncryptInit_ex2(ctx, dcbc, key2, iv, NULL);
		EVP_EncryptUpdate(ctx, ref, &rl, in, 33);
		EVP_EncryptFinal_ex(ctx, ref + rl, &rl2);
		if (ok && outl + l2 == rl + rl2 && !memcmp(out, ref, (size_t)(rl + rl2)))
			printf("PASS errors: zero-length updates, a context re-keyed after a partial block\n");
		else
			fail("errors: zero-length updates, a context re-keyed after a partial block",
			     "output differs from the default provider's");
	}
	EVP_CIPHER_CTX_free(ctx);
	EVP_CIPHER_free(cbc);
	EVP_CIPHER_free(gcm);
	EVP_CIPHER_free(dcbc);
}

/* padlock's and the default provider's NAME; 0 (and a SKIP line) if padlock lacks it */
static int fetch_pair(const char *name, const char *desc, EVP_CIPHER **pc, EVP_CIPHER **dc)
{
	*pc = fetch_cipher(name, PL);
	*dc = fetch_cipher(name, DEF);
	if (*pc && *dc)
		return 1;
	printf("SKIP %s | not offered\n", desc);
	EVP_CIPHER_free(*pc);
	EVP_CIPHER_free(*dc);
	return 0;
}

static void big(long mib)
{
	static const char *modes[] = { "ECB", "CBC", "CTR", "CFB", "OFB", "GCM" };
	size_t len = (size_t)mib << 20, m;
	unsigned char *a = malloc(len + 64), *r = malloc(len + 64);
	unsigned char key[32], iv[16], t1[16], t2[16];
	char desc[128];

	rnd_bytes(key, 32);
	rnd_bytes(iv, 16);
	for (m = 0; m < 6; m++) {
		EVP_CIPHER *pc, *dc;
		char name[32];
		struct split one = { 1, { len } };
		long n1, n2;

		snprintf(name, sizeof(name), "AES-256-%s", modes[m]);
		snprintf(desc, sizeof(desc), "big %s: %ld MiB, in place at offset 3", name, mib);
		if (!fetch_pair(name, desc, &pc, &dc))
			continue;
		rnd_bytes(a + 3, len);
		n1 = run_cipher(dc, 1, key, iv, 12, 0, NULL, 0, a + 3, len, r, &one, t1, 16);
		n2 = run_cipher(pc, 1, key, iv, 12, 0, NULL, 0, a + 3, len, a + 3, &one, t2, 16);
		if (n1 != (long)len || n1 != n2 || memcmp(r, a + 3, len) ||
		    (m == 5 && memcmp(t1, t2, 16)))
			fail(desc, "differs from the default provider");
		else
			printf("PASS %s\n", desc);
		EVP_CIPHER_free(pc);
		EVP_CIPHER_free(dc);
	}
	free(a);
	free(r);
}

/*
 * Input and output that end right before an unreadable page, aligned, for
 * 1 ... 9 blocks: an engine that reads past the end of its input (the
 * prefetch erratum, docs/hardware.md 2.2) faults there unless the provider
 * keeps the over-read inside its own buffers.
 */
static void edge(void)
{
	static const char *modes[] = { "ECB", "CBC", "CTR", "CFB", "OFB", "GCM" };
	long pg = sysconf(_SC_PAGESIZE);
	unsigned char *in = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned char *out = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned char key[32], iv[16], ref[256], t1[16], t2[16];
	size_t m, n;
	char desc[128];

	if (in == MAP_FAILED || out == MAP_FAILED ||
	    mprotect(in + pg, pg, PROT_NONE) || mprotect(out + pg, pg, PROT_NONE)) {
		printf("SKIP edge | mmap/mprotect failed\n");
		return;
	}
	rnd_bytes(key, 32);
	rnd_bytes(iv, 16);
	for (m = 0; m < 6; m++) {
		EVP_CIPHER *pc, *dc;
		char name[32];
		int ok = 1, enc;

		snprintf(name, sizeof(name), "AES-128-%s", modes[m]);
		snprintf(desc, sizeof(desc), "edge %s: 1 ... 9 blocks ending at an unreadable page, both directions",
			 name);
		if (!fetch_pair(name, desc, &pc, &dc))
			continue;
		for (n = 1; ok && n <= 9; n++) {
			size_t len = 16 * n;
			struct split one = { 1, { len } };
			unsigned char *i = in + pg - len, *o = out + pg - len;

			/* GCM decryption reads its input only in software */
			for (enc = 1; ok && enc >= (m == 5); enc--) {
				long n1, n2;

				rnd_bytes(i, len);
				n1 = run_cipher(dc, enc, key, iv, 12, 0, NULL, 0, i, len, ref, &one, t1, 16);
				n2 = run_cipher(pc, enc, key, iv, 12, 0, NULL, 0, i, len, o, &one, t2, 16);
				if (n1 != (long)len || n1 != n2 || memcmp(ref, o, len)) {
					fail(desc, "%zu blocks, %s: differs", n, enc ? "encrypt" : "decrypt");
					ok = 0;
				}
			}
		}
		if (ok)
			printf("PASS %s\n", desc);
		EVP_CIPHER_free(pc);
		EVP_CIPHER_free(dc);
	}
}

/*
 * One context re-initialised again and again, as `openssl speed`, TLS and
 * OpenSSH use theirs: the same key with a new IV (what the key alone
 * determines must be kept), a key that differs only in its last or its
 * first byte (it must not be), an IV without a key, encryption and
 * decryption alternating.  Every message is checked against a fresh
 * context of the default provider.
 */
static void rekey(void)
{
	static const char *const modes[] = { "ECB", "CBC", "CTR", "CFB", "OFB", "GCM" };
	/* which key (0: none, the last one stays), and the direction */
	static const struct { int key, enc; } steps[] = {
		{ 1, 1 }, { 1, 1 }, { 2, 1 }, { 1, 1 }, { 0, 1 }, { 3, 0 },
		{ 3, 0 }, { 1, 0 }, { 0, 0 }, { 1, 1 }, { 2, 0 }, { 2, 1 },
	};
	int bits[3] = { 128, 192, 256 }, m, b;
	size_t st;

	for (m = 0; m < 6; m++) {
		int gcm = !strcmp(modes[m], "GCM"), block = m < 2, ok = 1;
		char desc[128];

		snprintf(desc, sizeof(desc),
			 "rekey aes-*-%s: one context, the same key again, keys one byte apart, IV-only re-inits",
			 modes[m]);
		for (b = 0; b < 3 && ok; b++) {
			unsigned char keys[4][32], iv[16], aad[20], pt[96], ct[96], ref[96], got[96];
			unsigned char tag[16], rtag[16];
			struct split one = { 1, { 0 } };
			size_t keylen = (size_t)bits[b] / 8, ivlen = gcm ? 12 : 16;
			char name[32];
			EVP_CIPHER *pc, *dc;
			EVP_CIPHER_CTX *ctx;
			int cur = 1;

			snprintf(name, sizeof(name), "AES-%d-%s", bits[b], modes[m]);
			pc = fetch_cipher(name, PL);
			dc = fetch_cipher(name, DEF);
			if (!pc || !dc) {
				EVP_CIPHER_free(pc);
				EVP_CIPHER_free(dc);
				printf("SKIP %s | padlock does not offer %s here\n", desc, name);
				ok = -1;
				break;
			}
			rnd_bytes(keys[1], keylen);
			memcpy(keys[2], keys[1], keylen);
			keys[2][keylen - 1] ^= 1;
			memcpy(keys[3], keys[1], keylen);
			keys[3][0] ^= 0x80;
			ctx = EVP_CIPHER_CTX_new();
			ok = ctx && EVP_CipherInit_ex2(ctx, pc, NULL, NULL, 1, NULL);
			for (st = 0; ok && st < sizeof(steps) / sizeof(steps[0]); st++) {
				int enc = steps[st].enc, outl, l2;
				size_t len = block ? 16 * (1 + rndn(6)) : 1 + rndn(sizeof(pt) - 1);
				OSSL_PARAM p[2] = { OSSL_PARAM_END, OSSL_PARAM_END };
				long n;

				if (steps[st].key)
					cur = steps[st].key;
				rnd_bytes(iv, sizeof(iv));
				rnd_bytes(aad, sizeof(aad));
				rnd_bytes(pt, len);
				one.len[0] = len;
				/* the reference: a fresh default-provider context */
				if (enc || !gcm) {
					n = run_cipher(dc, enc, keys[cur], iv, ivlen, 0, aad,
						       gcm ? sizeof(aad) : 0, pt, len, ref, &one,
						       rtag, 16);
				} else {
					/* GCM decryption: a message and tag made by default */
					n = run_cipher(dc, 1, keys[cur], iv, ivlen, 0, aad,
						       sizeof(aad), pt, len, ct, &one, rtag, 16);
					memcpy(ref, pt, len);
					memcpy(pt, ct, len);
					memcpy(tag, rtag, 16);
				}
				ok = n == (long)len &&
				     EVP_CipherInit_ex2(ctx, NULL, steps[st].key ? keys[cur] : NULL,
							iv, enc, NULL) &&
				     EVP_CIPHER_CTX_set_padding(ctx, 0) &&
				     (!gcm || EVP_CipherUpdate(ctx, NULL, &outl, aad, sizeof(aad))) &&
				     EVP_CipherUpdate(ctx, got, &outl, pt, (int)len);
				if (ok && gcm && !enc) {
					p[0] = OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG,
										 tag, 16);
					ok = EVP_CIPHER_CTX_set_params(ctx, p);
				}
				ok = ok && EVP_CipherFinal_ex(ctx, got + outl, &l2) &&
				     outl + l2 == (int)len && !memcmp(got, ref, len);
				if (ok && gcm && enc) {
					p[0] = OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG,
										 tag, 16);
					ok = EVP_CIPHER_CTX_get_params(ctx, p) && !memcmp(tag, rtag, 16);
				}
				if (!ok)
					fail(desc, "%s step %zu (%s, key %d%s): differs from the default provider",
					     name, st, enc ? "encrypt" : "decrypt", cur,
					     steps[st].key ? "" : " kept, IV only");
			}
			EVP_CIPHER_CTX_free(ctx);
			EVP_CIPHER_free(pc);
			EVP_CIPHER_free(dc);
		}
		if (ok == 1)
			printf("PASS %s\n", desc);
	}
}

/*
 * OpenSSL's API contract beyond one message, as OpenSSL's own callers use
 * it: the IV read back as a pointer into the context (EVP_CIPHER_CTX_iv(),
 * EVP_CIPHER_CTX_original_iv(), and through them the ASN.1 parameters CMS,
 * PKCS#7, PKCS#8 and PKCS#12 write); a re-init without IV in the middle of
 * a CTR or GCM stream, which must not repeat keystream; a GCM tag set
 * before the init that gives key and IV (evp_test, CMS AuthEnvelopedData).
 * Every result is compared with the default provider doing the same.
 */
static const unsigned char *ctx_iv_ptr(EVP_CIPHER_CTX *ctx, const char *which)
{
	void *v = NULL;
	OSSL_PARAM p[2] = { OSSL_PARAM_END, OSSL_PARAM_END };

	p[0] = OSSL_PARAM_construct_octet_ptr(which, &v, 16);
	if (!EVP_CIPHER_CTX_get_params(ctx, p))
		return NULL;
	return v;
}

/* Did bytes 40..79 of @out run on the keystream of bytes 0..39? */
static int keystream_again(const unsigned char *out, const unsigned char *pt)
{
	int i;

	for (i = 0; i < 40; i++)
		if ((out[i] ^ pt[i]) != (out[40 + i] ^ pt[40 + i]))
			return 0;
	return 1;
}

/* 1 pass, 0 fail (reported), -1 padlock does not offer @name here */
static int contract_iv(const char *desc, const char *name, const unsigned char *key,
		       const unsigned char *iv, const unsigned char *pt)
{
	EVP_CIPHER *pc = fetch_cipher(name, PL), *dc = fetch_cipher(name, DEF);
	EVP_CIPHER_CTX *p = EVP_CIPHER_CTX_new(), *d = EVP_CIPHER_CTX_new();
	EVP_CIPHER_CTX *r = EVP_CIPHER_CTX_new();
	unsigned char a[64], b[64], back[64];
	const unsigned char *po, *pu, *du;
	ASN1_TYPE *t = ASN1_TYPE_new();
	size_t ivlen;
	int ok = 0, l1, l2, l3;

	if (!pc) {
		ok = -1;
		goto out;
	}
	if (!dc || !p || !d || !r || !t) {
		fail(desc, "%s: set-up failed", name);
		goto out;
	}
	ivlen = (size_t)EVP_CIPHER_get_iv_length(pc);
	if (!EVP_EncryptInit_ex2(p, pc, key, iv, NULL) ||
	    !EVP_EncryptInit_ex2(d, dc, key, iv, NULL) ||
	    !EVP_CIPHER_CTX_set_padding(p, 0) || !EVP_CIPHER_CTX_set_padding(d, 0)) {
		fail(desc, "%s: init failed", name);
		goto out;
	}
	po = ctx_iv_ptr(p, OSSL_CIPHER_PARAM_IV);
	if (!po || memcmp(po, iv, ivlen)) {
		fail(desc, "%s: the original IV read as a pointer is %s", name,
		     po ? "wrong" : "NULL");
		goto out;
	}
	if (!EVP_EncryptUpdate(p, a, &l1, pt, 32) || !EVP_EncryptUpdate(d, b, &l2, pt, 32) ||
	    l1 != 32 || l2 != 32 || memcmp(a, b, 32)) {
		fail(desc, "%s: 32 bytes differ from the default provider", name);
		goto out;
	}
	pu = ctx_iv_ptr(p, OSSL_CIPHER_PARAM_UPDATED_IV);
	du = ctx_iv_ptr(d, OSSL_CIPHER_PARAM_UPDATED_IV);
	if (!pu || !du || memcmp(pu, du, ivlen)) {
		fail(desc, "%s: the updated IV read as a pointer is %s", name,
		     pu ? "not the default provider's" : "NULL");
		goto out;
	}
	/* CMS: the IV goes into the AlgorithmIdentifier; a reader without us decrypts */
	if (strstr(name, "CBC") &&
	    !(EVP_CIPHER_param_to_asn1(p, t) > 0 &&
	      EVP_DecryptInit_ex2(r, dc, key, NULL, NULL) &&
	      EVP_CIPHER_asn1_to_param(r, t) > 0 &&
	      EVP_CIPHER_CTX_set_padding(r, 0) &&
	      EVP_DecryptUpdate(r, back, &l3, a, 32) && l3 == 32 && !memcmp(back, pt, 32))) {
		fail(desc, "%s: the IV EVP_CIPHER_param_to_asn1() wrote does not decrypt with the default provider",
		     name);
		goto out;
	}
	ok = 1;
out:
	ASN1_TYPE_free(t);
	EVP_CIPHER_CTX_free(p);
	EVP_CIPHER_CTX_free(d);
	EVP_CIPHER_CTX_free(r);
	EVP_CIPHER_free(pc);
	EVP_CIPHER_free(dc);
	return ok;
}

/*
 * One stream on @c into @out: key and IV, 20 bytes of AAD (GCM), 40 bytes,
 * a re-init with the key again (@rekey) or with nothing, 40 bytes more.
 * With @tag (GCM) the tag too, and then a re-init with nothing, after which
 * the spent IV must refuse more data.  Returns 1 when all that went as
 * described, 0 when a step failed.
 */
static int contract_stream(EVP_CIPHER *c, int gcm, int rekey, const unsigned char *key,
			   const unsigned char *iv, const unsigned char *pt,
			   unsigned char *out, unsigned char *tag)
{
	EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
	unsigned char aad[20], more[16];
	OSSL_PARAM p[2] = { OSSL_PARAM_END, OSSL_PARAM_END };
	int ok, l;

	memset(aad, 0xa5, sizeof(aad));
	ok = x && EVP_EncryptInit_ex2(x, c, key, iv, NULL) &&
	     (!gcm || EVP_EncryptUpdate(x, NULL, &l, aad, sizeof(aad))) &&
	     EVP_EncryptUpdate(x, out, &l, pt, 40) && l == 40 &&
	     EVP_EncryptInit_ex2(x, NULL, rekey ? key : NULL, NULL, NULL) &&
	     EVP_EncryptUpdate(x, out + 40, &l, pt + 40, 40) && l == 40;
	if (ok && tag) {
		p[0] = OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, tag, 16);
		ok = EVP_EncryptFinal_ex(x, more, &l) && EVP_CIPHER_CTX_get_params(x, p) &&
		     EVP_EncryptInit_ex2(x, NULL, NULL, NULL, NULL) &&
		     !EVP_EncryptUpdate(x, more, &l, pt, 16);
	}
	ERR_clear_error();
	EVP_CIPHER_CTX_free(x);
	return ok;
}

static void contract_result(const char *desc, int ok, int ran)
{
	if (!ran)
		printf("SKIP %s | padlock does not offer these ciphers here\n", desc);
	else if (ok)
		printf("PASS %s\n", desc);
}

/*
 * One GCM message encrypted with no IV given (key only): 20 bytes of AAD,
 * 40 of data, its tag and the IV read back, then a re-init with nothing,
 * after which the next message must be refused (its IV was used).
 * Returns 1 when the message went through, 0 when a step failed; *again
 * is 1 when the second message was accepted.
 */
static int gcm_noiv(EVP_CIPHER *c, const unsigned char *key, const unsigned char *pt,
		    unsigned char *out, unsigned char *tag, unsigned char *iv, int *again)
{
	EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
	unsigned char aad[20], more[16];
	OSSL_PARAM p[2] = { OSSL_PARAM_END, OSSL_PARAM_END };
	int ok, l;

	memset(aad, 0x5a, sizeof(aad));
	p[0] = OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, tag, 16);
	ok = x && EVP_EncryptInit_ex2(x, c, key, NULL, NULL) &&
	     EVP_EncryptUpdate(x, NULL, &l, aad, sizeof(aad)) &&
	     EVP_EncryptUpdate(x, out, &l, pt, 40) && l == 40 &&
	     EVP_EncryptFinal_ex(x, more, &l) && EVP_CIPHER_CTX_get_params(x, p) &&
	     EVP_CIPHER_CTX_get_updated_iv(x, iv, 12);
	*again = ok && EVP_EncryptInit_ex2(x, NULL, NULL, NULL, NULL) &&
		 EVP_EncryptUpdate(x, more, &l, pt, 16);
	ERR_clear_error();
	EVP_CIPHER_CTX_free(x);
	return ok;
}

/* GCM encryption with no IV: the provider makes one up, as OpenSSL's does */
static void contract_gcm_noiv(const unsigned char *key, const unsigned char *pt)
{
	const char *desc = "contract: GCM encryption without an IV makes a random one up, read back, that decrypts without us; never twice";
	static const unsigned char zero[12];
	unsigned char a[40], b[40], ta[16], tb[16], iva[12], ivb[12], back[40];
	int ok = 1, ran = 0, i, again_p, again_d, l, l2;

	for (i = 0; ok && i < 2; i++) {
		const char *name = i ? "AES-256-GCM" : "AES-128-GCM";
		EVP_CIPHER *pc = fetch_cipher(name, PL), *dc = fetch_cipher(name, DEF);
		EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
		unsigned char aad[20];
		OSSL_PARAM p[2] = { OSSL_PARAM_END, OSSL_PARAM_END };

		if (!pc) {
			EVP_CIPHER_free(dc);
			EVP_CIPHER_CTX_free(x);
			continue;
		}
		ran++;
		memset(aad, 0x5a, sizeof(aad));
		if (!dc || !x || !gcm_noiv(dc, key, pt, b, tb, ivb, &again_d)) {
			fail(desc, "%s: the default provider's message failed", name);
			ok = 0;
		} else if (!gcm_noiv(pc, key, pt, a, ta, iva, &again_p)) {
			fail(desc, "%s: refused a message without IV (the default provider makes one up)",
			     name);
			ok = 0;
		} else if (!memcmp(iva, zero, 12) || !memcmp(iva, ivb, 12)) {
			fail(desc, "%s: the IV read back is %s", name,
			     memcmp(iva, zero, 12) ? "the default provider's (not random)" : "zero");
			ok = 0;
		} else if (again_p != again_d) {
			fail(desc, "%s: a second message on the made-up IV was %s, by the default provider %s",
			     name, again_p ? "accepted" : "refused", again_d ? "accepted" : "refused");
			ok = 0;
		} else {
			/* OpenSSL without padlock decrypts it with the IV read back */
			p[0] = OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, ta, 16);
			if (!EVP_DecryptInit_ex2(x, dc, key, iva, NULL) ||
			    !EVP_DecryptUpdate(x, NULL, &l, aad, sizeof(aad)) ||
			    !EVP_DecryptUpdate(x, back, &l, a, 40) || l != 40 ||
			    !EVP_CIPHER_CTX_set_params(x, p) ||
			    !EVP_DecryptFinal_ex(x, back + 40, &l2) || memcmp(back, pt, 40)) {
				fail(desc, "%s: the default provider does not decrypt it with the IV read back",
				     name);
				ok = 0;
			} else if (gcm_noiv(pc, key, pt, b, tb, ivb, &again_p) &&
				   !memcmp(iva, ivb, 12)) {
				fail(desc, "%s: two messages got the same IV", name);
				ok = 0;
			}
		}
		ERR_clear_error();
		EVP_CIPHER_CTX_free(x);
		EVP_CIPHER_free(pc);
		EVP_CIPHER_free(dc);
	}
	contract_result(desc, ok, ran);
}

/*
 * GCM's per-message data limit, on a provider built with a small one
 * (PL_GCM_MAX_DATA=@limit): @limit bytes in pieces are taken and match the
 * default provider; one byte more is refused, and the context then takes
 * a new message on a new IV.  The limit itself, 2^36 - 32 bytes, is the
 * same comparison with another constant.
 */
static void gcm_limit(size_t limit)
{
	const char *desc = "GCM refuses data past the per-message limit (a build with a small one)";
	EVP_CIPHER *pc = fetch_cipher("AES-128-GCM", PL), *dc = fetch_cipher("AES-128-GCM", DEF);
	EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new(), *y = EVP_CIPHER_CTX_new();
	unsigned char key[16], iv[12], *pt = malloc(limit + 16), *a = malloc(limit + 16);
	unsigned char *b = malloc(limit + 16);
	size_t done = 0, n;
	int l, ok;

	if (!pc) {
		printf("SKIP %s | padlock does not offer AES-128-GCM here\n", desc);
		goto out;
	}
	if (!dc || !x || !y || !pt || !a || !b) {
		fail(desc, "set-up failed");
		goto out;
	}
	rnd_bytes(key, sizeof(key));
	rnd_bytes(iv, sizeof(iv));
	rnd_bytes(pt, limit + 16);
	ok = EVP_EncryptInit_ex2(x, pc, key, iv, NULL) && EVP_EncryptInit_ex2(y, dc, key, iv, NULL);
	while (ok && done < limit) {
		n = 1 + rndn(limit / 3);
		if (n > limit - done)
			n = limit - done;
		ok = EVP_EncryptUpdate(x, a + done, &l, pt + done, (int)n) && (size_t)l == n &&
		     EVP_EncryptUpdate(y, b + done, &l, pt + done, (int)n);
		done += n;
	}
	if (!ok || memcmp(a, b, limit)) {
		fail(desc, "%zu bytes up to the limit: %s", limit,
		     ok ? "differ from the default provider" : "refused");
		goto out;
	}
	if (EVP_EncryptUpdate(x, a + limit, &l, pt + limit, 1)) {
		fail(desc, "one byte past %zu bytes was taken", limit);
		goto out;
	}
	ERR_clear_error();
	iv[0] ^= 1;
	if (!EVP_EncryptInit_ex2(x, NULL, NULL, iv, NULL) ||
	    !EVP_EncryptUpdate(x, a, &l, pt, 16) || l != 16) {
		fail(desc, "no new message on a new IV after the refusal");
		goto out;
	}
	if (!EVP_EncryptInit_ex2(x, NULL, NULL, iv, NULL) ||
	    EVP_EncryptUpdate(x, a, &l, pt, (int)limit + 1)) {
		fail(desc, "%zu bytes in one piece were taken", limit + 1);
		goto out;
	}
	printf("PASS %s: %zu bytes taken, one more refused\n", desc, limit);
out:
	ERR_clear_error();
	free(pt);
	free(a);
	free(b);
	EVP_CIPHER_CTX_free(x);
	EVP_CIPHER_CTX_free(y);
	EVP_CIPHER_free(pc);
	EVP_CIPHER_free(dc);
}

static void contract(void)
{
	static const char *const ivnames[] = {
		"AES-128-CBC", "AES-256-CBC", "AES-128-CFB", "AES-256-OFB",
		"AES-128-CTR", "AES-256-CTR", "AES-128-GCM", "AES-256-GCM",
	};
	unsigned char key[32], iv[16], pt[96], a[96], b[96], ta[16], tb[16], got[96];
	const char *desc;
	size_t i;
	int ok, r, ran;

	rnd_bytes(key, sizeof(key));
	rnd_bytes(iv, sizeof(iv));
	rnd_bytes(pt, sizeof(pt));

	desc = "contract: the IV read back as a pointer (EVP_CIPHER_CTX_iv, CMS's AlgorithmIdentifier)";
	for (ok = 1, ran = 0, i = 0; i < sizeof(ivnames) / sizeof(ivnames[0]); i++) {
		r = contract_iv(desc, ivnames[i], key, iv, pt);
		ok &= r != 0;
		ran += r >= 0;
	}
	contract_result(desc, ok, ran);

	desc = "contract: a re-init without IV in the middle of a CTR stream goes on, no keystream again";
	for (ok = 1, ran = 0, i = 0; ok && i < 4; i++) {
		const char *name = i & 1 ? "AES-256-CTR" : "AES-128-CTR";
		EVP_CIPHER *pc = fetch_cipher(name, PL), *dc = fetch_cipher(name, DEF);

		if (!pc) {
			EVP_CIPHER_free(dc);
			continue;
		}
		ran++;
		if (!dc || !contract_stream(pc, 0, (int)(i >> 1), key, iv, pt, a, NULL) ||
		    !contract_stream(dc, 0, (int)(i >> 1), key, iv, pt, b, NULL)) {
			fail(desc, "%s: a step failed", name);
			ok = 0;
		} else if (memcmp(a, b, 80)) {
			fail(desc, "%s, re-init with %s: differs from the default provider%s", name,
			     i >> 1 ? "the key" : "nothing",
			     keystream_again(a, pt) ? " (the keystream started again)" : "");
			ok = 0;
		}
		EVP_CIPHER_free(pc);
		EVP_CIPHER_free(dc);
	}
	contract_result(desc, ok, ran);

	desc = "contract: GCM goes on after a re-init with nothing, then refuses its spent IV; a new key mid-message never restarts the IV";
	for (ok = 1, ran = 0, i = 0; ok && i < 2; i++) {
		const char *name = i ? "AES-256-GCM" : "AES-128-GCM";
		EVP_CIPHER *pc = fetch_cipher(name, PL), *dc = fetch_cipher(name, DEF);

		if (!pc) {
			EVP_CIPHER_free(dc);
			continue;
		}
		ran++;
		if (!dc || !contract_stream(dc, 1, 0, key, iv, pt, b, tb)) {
			fail(desc, "%s: the default provider's stream failed", name);
			ok = 0;
		} else if (!contract_stream(pc, 1, 0, key, iv, pt, a, ta) ||
			   memcmp(a, b, 80) || memcmp(ta, tb, 16)) {
			fail(desc, "%s, re-init with nothing: %s", name,
			     keystream_again(a, pt) ? "the keystream started again" :
			     "a step failed, or data or tag differ from the default provider");
			ok = 0;
		} else if (contract_stream(pc, 1, 1, key, iv, pt, a, NULL) &&
			   keystream_again(a, pt)) {
			fail(desc, "%s: a re-init with the key in the middle restarted the IV", name);
			ok = 0;
		}
		EVP_CIPHER_free(pc);
		EVP_CIPHER_free(dc);
	}
	contract_result(desc, ok, ran);

	desc = "contract: a GCM tag set before key and IV (evp_test's order) decrypts";
	for (ok = 1, ran = 0, i = 0; ok && i < 2; i++) {
		const char *name = i ? "AES-256-GCM" : "AES-128-GCM";
		EVP_CIPHER *pc = fetch_cipher(name, PL), *dc = fetch_cipher(name, DEF);
		EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
		OSSL_PARAM p[2] = { OSSL_PARAM_END, OSSL_PARAM_END };
		struct split one = { 1, { 64 } };
		int l = 0, l2 = 0;

		if (!pc) {
			EVP_CIPHER_free(dc);
			EVP_CIPHER_CTX_free(x);
			continue;
		}
		ran++;
		/* a message and its tag from the default provider */
		ok = dc && x &&
		     run_cipher(dc, 1, key, iv, 12, 0, NULL, 0, pt, 64, a, &one, tb, 16) == 64;
		p[0] = OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, tb, 16);
		ok = ok && EVP_DecryptInit_ex2(x, pc, NULL, NULL, NULL) &&
		     EVP_CIPHER_CTX_set_params(x, p) &&
		     EVP_DecryptInit_ex2(x, NULL, key, iv, NULL) &&
		     EVP_DecryptUpdate(x, got, &l, a, 64) &&
		     EVP_DecryptFinal_ex(x, got + l, &l2) && l + l2 == 64 && !memcmp(got, pt, 64);
		if (!ok)
			fail(desc, "%s: refused or wrong", name);
		EVP_CIPHER_CTX_free(x);
		EVP_CIPHER_free(pc);
		EVP_CIPHER_free(dc);
	}
	contract_result(desc, ok, ran);

	contract_gcm_noiv(key, pt);
}

static void offers(void)
{
	static const char *names[] = {
		"AES-128-ECB", "AES-192-CBC", "AES-256-CTR", "AES-128-CFB", "AES-128-OFB",
		"AES-256-GCM", "SHA1", "SHA224", "SHA256", "SHA384", "SHA512", NULL
	};
	int i;

	for (i = 0; names[i]; i++) {
		EVP_CIPHER *c = EVP_CIPHER_fetch(NULL, names[i], PL);
		EVP_MD *m = c ? NULL : EVP_MD_fetch(NULL, names[i], PL);

		printf("%s %s\n", names[i], c || m ? "yes" : "no");
		EVP_CIPHER_free(c);
		EVP_MD_free(m);
	}
	ERR_clear_error();
}

int main(int argc, char **argv)
{
	OSSL_PROVIDER *pl, *def;
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: %s kat FILE... | diff ALG COUNT SEED | tls COUNT SEED | errors | rekey | big MIB | edge | offers | contract | gcmlimit BYTES\n",
			argv[0]);
		return 2;
	}
	if (!strcmp(argv[1], "version")) {
		printf("%s\n", OpenSSL_version(OPENSSL_VERSION));
		return 0;
	}
	def = OSSL_PROVIDER_load(NULL, "default");
	pl = OSSL_PROVIDER_load(NULL, "padlock");
	if (!pl || !def) {
		printf("FAIL load | OSSL_PROVIDER_load(padlock) failed (OPENSSL_MODULES=%s)\n",
		       getenv("OPENSSL_MODULES") ? getenv("OPENSSL_MODULES") : "unset");
		ERR_print_errors_fp(stdout);
		return 1;
	}
	if (!strcmp(argv[1], "kat")) {
		for (i = 2; i < argc; i++)
			kat_file(argv[i]);
	} else if (!strcmp(argv[1], "diff") && argc == 5) {
		const char *a = argv[2];
		long n = atol(argv[3]);

		rng_state = (uint64_t)atoll(argv[4]) * 0x9e3779b97f4a7c15ULL + 1;
		if (!strncmp(a, "hmac-", 5))
			diff_hmac(a + 5, n);
		else if (!strncmp(a, "SHA", 3))
			diff_digest(a, n);
		else
			diff_cipher(a, n);
	} else if (!strcmp(argv[1], "tls") && argc == 4) {
		rng_state = (uint64_t)atoll(argv[3]) * 0x9e3779b97f4a7c15ULL + 1;
		tls(atol(argv[2]));
	} else if (!strcmp(argv[1], "errors")) {
		errors();
	} else if (!strcmp(argv[1], "big") && argc == 3) {
		rng_state = 12345;
		big(atol(argv[2]));
	} else if (!strcmp(argv[1], "edge")) {
		rng_state = 777;
		edge();
	} else if (!strcmp(argv[1], "rekey")) {
		rng_state = 4242;
		rekey();
	} else if (!strcmp(argv[1], "offers")) {
		offers();
	} else if (!strcmp(argv[1], "contract")) {
		rng_state = 9090;
		contract();
	} else if (!strcmp(argv[1], "gcmlimit") && argc == 3) {
		rng_state = 3636;
		gcm_limit((size_t)atol(argv[2]));
	} else {
		fprintf(stderr, "%s: unknown command %s\n", argv[0], argv[1]);
		return 2;
	}
	OSSL_PROVIDER_unload(pl);
	OSSL_PROVIDER_unload(def);
	return failures ? 1 : 0;
}
