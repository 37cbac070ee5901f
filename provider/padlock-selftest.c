// SPDX-License-Identifier: GPL-2.0
/*
 * Known answers at load, before anything is offered: every mode and
 * digest the CPU would get is run once through the same dispatch
 * functions OpenSSL calls, and checked against answers computed elsewhere
 * (NIST's algorithms, any correct implementation).  An engine that answers
 * wrongly on this CPU (a stepping's erratum, a unit that misbehaves, a
 * hypervisor that emulates it badly) leaves that algorithm to OpenSSL's
 * default provider rather than to wrong results, and the provider's build
 * information says which check failed.
 *
 * AES: ECB with the three key sizes (both directions), CBC, CFB and OFB
 * over two blocks both ways, CTR over four blocks whose counter carries
 * out of its low 16 bits (what the hardware counter does not do itself),
 * GCM over 60 bytes with AAD, its tag checked both ways.  A CTR answer
 * that is wrong on xcrypt-ctr alone moves CTR onto xcrypt-ecb and is
 * checked again there.  SHA: the empty message, "abc" and 1000 bytes in
 * three updates, for each digest.
 */
#include <stdio.h>
#include <string.h>
#include "padlock-prov.h"

/* the inputs: bytes made by a formula, the answers of those inputs */
static const unsigned char kat_ecb[3][16] = {
	{ 0x26, 0x85, 0x90, 0x87, 0x3e, 0xf1, 0x80, 0xab,
	  0x53, 0x9c, 0xf4, 0x61, 0xa5, 0xc5, 0xf8, 0x92 },
	{ 0x3f, 0xf9, 0xb2, 0x67, 0xa6, 0xd1, 0x7d, 0xa3,
	  0x0e, 0xc2, 0xfd, 0xf1, 0x86, 0x9e, 0x40, 0x2a },
	{ 0xae, 0x5b, 0xf9, 0xdd, 0xaa, 0xd5, 0x3f, 0x23,
	  0xde, 0xb4, 0xef, 0xae, 0x9d, 0xb7, 0x24, 0x62 },
};

static const unsigned char kat_cbc[32] = {
	0x29, 0xc9, 0x9e, 0xa9, 0x86, 0xfa, 0x95, 0xed, 0xf1, 0xf0, 0x1a, 0x6a, 0x9b, 0xa4, 0xb1, 0xf9,
	0x99, 0x0e, 0x43, 0xbb, 0x4c, 0x15, 0x1b, 0x5a, 0xfb, 0x71, 0x46, 0xd2, 0x75, 0x6c, 0xde, 0x07,
};

static const unsigned char kat_cfb[32] = {
	0x65, 0xad, 0xd6, 0xf0, 0x2b, 0x74, 0x1c, 0x7c, 0xac, 0x13, 0x97, 0x57, 0x64, 0x48, 0xc8, 0xc1,
	0x19, 0x41, 0x4d, 0x53, 0x3d, 0xd8, 0xe8, 0xb8, 0x77, 0x4e, 0x63, 0x2d, 0x1a, 0x8e, 0x7b, 0x20,
};

static const unsigned char kat_ofb[32] = {
	0x65, 0xad, 0xd6, 0xf0, 0x2b, 0x74, 0x1c, 0x7c, 0xac, 0x13, 0x97, 0x57, 0x64, 0x48, 0xc8, 0xc1,
	0x1d, 0x1b, 0x18, 0x32, 0xd9, 0x43, 0x11, 0xf6, 0xa0, 0xdc, 0xdc, 0xd6, 0x36, 0x04, 0x54, 0x76,
};

static const unsigned char kat_ctr[64] = {
	0x5d, 0xd5, 0x51, 0x83, 0x35, 0xa3, 0x39, 0x61, 0x69, 0xfa, 0x2c, 0x1d, 0xf3, 0x07, 0x82, 0xe2,
	0x36, 0xe3, 0x76, 0xba, 0x4c, 0x4a, 0xf5, 0x8c, 0xef, 0x81, 0xa0, 0xef, 0xe9, 0xb8, 0x83, 0xc0,
	0xb2, 0x09, 0xf6, 0xb6, 0x9b, 0x61, 0x7c, 0x83, 0x54, 0x70, 0xb2, 0xfa, 0x52, 0x7d, 0x78, 0x2e,
	0x36, 0x66, 0x97, 0xc8, 0xa4, 0x54, 0x96, 0xae, 0x7c, 0x17, 0xd9, 0x9a, 0x53, 0x8e, 0x77, 0x4a,
};

/* 60 bytes of ciphertext, then the 16-byte tag */
static const unsigned char kat_gcm[76] = {
	0x12, 0x10, 0xf7, 0x6b, 0x25, 0xfe, 0x48, 0x40, 0x08, 0xbe, 0x76, 0xe0, 0x80, 0x5e, 0xc8, 0x1b,
	0x36, 0xf5, 0xa2, 0xbc, 0x64, 0x5d, 0x6a, 0xe9, 0x73, 0x03, 0x6c, 0x8b, 0xa3, 0x7f, 0xcd, 0x7e,
	0xf1, 0x8c, 0x1c, 0xf9, 0x93, 0x9d, 0xf4, 0x71, 0x8d, 0x3a, 0x59, 0x62, 0x83, 0x4b, 0xb4, 0x9c,
	0x6a, 0x1c, 0xcd, 0xec, 0xe0, 0x61, 0x24, 0x6a, 0x05, 0x0a, 0x01, 0xb6, 0xf6, 0x5c, 0xde, 0x99,
	0x48, 0xa5, 0x13, 0xe8, 0xab, 0xac, 0xc6, 0xbe, 0x30, 0xa5, 0x86, 0xb7,
};

struct kat_md {
	const char *name;
	size_t len;
	/* the empty message, "abc", the 1000 bytes */
	const char *hex[3];
};

static const struct kat_md kat_mds[] = {
	{ "SHA1", 20, { "da39a3ee5e6b4b0d3255bfef95601890afd80709",
			"a9993e364706816aba3e25717850c26c9cd0d89d",
			"54dbdbfec6ddb4dfc3996c9d7d14e50098054df1" } },
	{ "SHA2-224", 28, { "d14a028c2a3a2bc9476102bb288234c415a2b01f828ea62ac5b3e42f",
			    "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7",
			    "3fdd444befdcb8ee24629122582c27944c493d878e93db484b10ce81" } },
	{ "SHA2-256", 32, { "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
			    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
			    "7bb2fa7ff0db797646f30a289a3774ea64034902ab739bad37e4d9af29509239" } },
	{ "SHA2-384", 48, { "38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da"
			    "274edebfe76f65fbd51ad2f14898b95b",
			    "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed"
			    "8086072ba1e7cc2358baeca134c825a7",
			    "237b682cfe7d1e20822298283643e9871562dcd9de1453535633aeb3d272d765"
			    "faa4d1fb707a007e65400a9d20461ea2" } },
	{ "SHA2-512", 64, { "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce"
			    "47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e",
			    "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
			    "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
			    "d14270cf0199a09f200decb1cc9643a4479147d5ddfd709fcb47fa63bef73411"
			    "96595d4a2087168fde35d1a7cf60db53b0d1dec5e1a890cccee921f77e117ebc" } },
};

struct kat_in {
	unsigned char key[32], iv[16], ctr_iv[16], pt[64], aad[20], msg[1000];
};

static void kat_inputs(struct kat_in *in)
{
	unsigned int i;

	for (i = 0; i < 32; i++)
		in->key[i] = (unsigned char)i;
	for (i = 0; i < 16; i++)
		in->iv[i] = (unsigned char)(0xf0 + i);
	for (i = 0; i < 14; i++)
		in->ctr_iv[i] = (unsigned char)(0xa0 + i);
	in->ctr_iv[14] = 0xff;		/* the counter's low 16 bits wrap */
	in->ctr_iv[15] = 0xfe;		/* after the second block */
	for (i = 0; i < 64; i++)
		in->pt[i] = (unsigned char)(i * 7 + 3);
	for (i = 0; i < 20; i++)
		in->aad[i] = (unsigned char)i;
	for (i = 0; i < 1000; i++)
		in->msg[i] = (unsigned char)(i * 13 + 1);
}

static void (*kat_fn(const OSSL_DISPATCH *d, int id))(void)
{
	for (; d && d->function_id; d++)
		if (d->function_id == id)
			return d->function;
	return NULL;
}

/* The dispatch table of the algorithm whose first name is @name. */
static const OSSL_DISPATCH *kat_find(const OSSL_ALGORITHM *t, const char *name)
{
	size_t n = strlen(name);

	for (; t && t->algorithm_names; t++)
		if (!strncmp(t->algorithm_names, name, n) &&
		    (t->algorithm_names[n] == ':' || !t->algorithm_names[n]))
			return t->implementation;
	return NULL;
}

/*
 * One cipher, one direction, through OpenSSL's calls: init with key and
 * IV, padding off, AAD and a tag where given (GCM), update, final; then
 * the output and the tag (GCM encryption) are compared.  1 when right.
 */
static int kat_cipher(const OSSL_ALGORITHM *t, const char *name, int enc,
		      const unsigned char *key, size_t keylen, const unsigned char *iv,
		      size_t ivlen, const unsigned char *aad, size_t aadlen,
		      const unsigned char *in, const unsigned char *want, size_t len,
		      const unsigned char *tag)
{
	const OSSL_DISPATCH *d = kat_find(t, name);
	OSSL_FUNC_cipher_newctx_fn *newctx;
	OSSL_FUNC_cipher_freectx_fn *freectx;
	OSSL_FUNC_cipher_encrypt_init_fn *init;
	OSSL_FUNC_cipher_update_fn *update;
	OSSL_FUNC_cipher_final_fn *final;
	OSSL_FUNC_cipher_get_ctx_params_fn *get;
	OSSL_FUNC_cipher_set_ctx_params_fn *set;
	unsigned char out[64], got[16];
	unsigned int zero = 0;
	size_t n = 0, m = 0, a = 0;
	OSSL_PARAM pad[2] = {
		{ OSSL_CIPHER_PARAM_PADDING, OSSL_PARAM_UNSIGNED_INTEGER, &zero, sizeof(zero), 0 },
		{ NULL, 0, NULL, 0, 0 }
	};
	OSSL_PARAM tp[2] = {
		{ OSSL_CIPHER_PARAM_AEAD_TAG, OSSL_PARAM_OCTET_STRING, NULL, 16, 0 },
		{ NULL, 0, NULL, 0, 0 }
	};
	void *ctx;
	int ok;

	newctx = (OSSL_FUNC_cipher_newctx_fn *)kat_fn(d, OSSL_FUNC_CIPHER_NEWCTX);
	freectx = (OSSL_FUNC_cipher_freectx_fn *)kat_fn(d, OSSL_FUNC_CIPHER_FREECTX);
	init = (OSSL_FUNC_cipher_encrypt_init_fn *)
		kat_fn(d, enc ? OSSL_FUNC_CIPHER_ENCRYPT_INIT : OSSL_FUNC_CIPHER_DECRYPT_INIT);
	update = (OSSL_FUNC_cipher_update_fn *)kat_fn(d, OSSL_FUNC_CIPHER_UPDATE);
	final = (OSSL_FUNC_cipher_final_fn *)kat_fn(d, OSSL_FUNC_CIPHER_FINAL);
	get = (OSSL_FUNC_cipher_get_ctx_params_fn *)kat_fn(d, OSSL_FUNC_CIPHER_GET_CTX_PARAMS);
	set = (OSSL_FUNC_cipher_set_ctx_params_fn *)kat_fn(d, OSSL_FUNC_CIPHER_SET_CTX_PARAMS);
	if (!newctx || !freectx || !init || !update || !final || !get || !set ||
	    len > sizeof(out))
		return 0;
	/* no provider context: a failing call here raises no OpenSSL error */
	ctx = newctx(NULL);
	if (!ctx)
		return 0;
	if (tag && !enc)
		tp[0].data = (void *)tag;
	ok = init(ctx, key, keylen, iv, ivlen, NULL) && set(ctx, pad) &&
	     (!tp[0].data || set(ctx, tp)) &&
	     (!aad || update(ctx, NULL, &a, 0, aad, aadlen)) &&
	     update(ctx, out, &n, sizeof(out), in, len) &&
	     final(ctx, out + n, &m, sizeof(out) - n) && n + m == len &&
	     !memcmp(out, want, len);
	if (ok && tag && enc) {
		tp[0].data = got;
		ok = get(ctx, tp) && !memcmp(got, tag, 16);
	}
	freectx(ctx);
	return ok;
}

/* Both directions of one cipher over @len bytes of the inputs. */
static int kat_both(const OSSL_ALGORITHM *t, const char *name, const struct kat_in *in,
		    size_t keylen, const unsigned char *iv, size_t ivlen,
		    const unsigned char *want, size_t len)
{
	return kat_cipher(t, name, 1, in->key, keylen, iv, ivlen, NULL, 0, in->pt, want, len,
			  NULL) &&
	       kat_cipher(t, name, 0, in->key, keylen, iv, ivlen, NULL, 0, want, in->pt, len,
			  NULL);
}

static int kat_hexbyte(const char *h)
{
	int v = 0, i;

	for (i = 0; i < 2; i++) {
		char c = h[i];

		v = v * 16 + (c <= '9' ? c - '0' : c - 'a' + 10);
	}
	return v;
}

/* One digest over its three messages, the 1000 bytes in three updates. */
static int kat_digest(const OSSL_ALGORITHM *t, const struct kat_md *k,
		      const struct kat_in *in)
{
	const OSSL_DISPATCH *d = kat_find(t, k->name);
	OSSL_FUNC_digest_newctx_fn *newctx;
	OSSL_FUNC_digest_freectx_fn *freectx;
	OSSL_FUNC_digest_init_fn *init;
	OSSL_FUNC_digest_update_fn *update;
	OSSL_FUNC_digest_final_fn *final;
	static const size_t cut[] = { 1, 64 };
	unsigned char out[64];
	size_t n, i, j;
	void *ctx;
	int ok = 1;

	newctx = (OSSL_FUNC_digest_newctx_fn *)kat_fn(d, OSSL_FUNC_DIGEST_NEWCTX);
	freectx = (OSSL_FUNC_digest_freectx_fn *)kat_fn(d, OSSL_FUNC_DIGEST_FREECTX);
	init = (OSSL_FUNC_digest_init_fn *)kat_fn(d, OSSL_FUNC_DIGEST_INIT);
	update = (OSSL_FUNC_digest_update_fn *)kat_fn(d, OSSL_FUNC_DIGEST_UPDATE);
	final = (OSSL_FUNC_digest_final_fn *)kat_fn(d, OSSL_FUNC_DIGEST_FINAL);
	if (!newctx || !freectx || !init || !update || !final)
		return 0;
	for (i = 0; ok && i < 3; i++) {
		ctx = newctx(NULL);
		if (!ctx)
			return 0;
		ok = init(ctx, NULL);
		if (ok && i == 1)
			ok = update(ctx, (const unsigned char *)"abc", 3);
		if (ok && i == 2)
			ok = update(ctx, in->msg, cut[0]) &&
			     update(ctx, in->msg + cut[0], cut[1] - cut[0]) &&
			     update(ctx, in->msg + cut[1], sizeof(in->msg) - cut[1]);
		ok = ok && final(ctx, out, &n, sizeof(out)) && n == k->len;
		for (j = 0; ok && j < k->len; j++)
			ok = out[j] == kat_hexbyte(k->hex[i] + 2 * j);
		freectx(ctx);
	}
	return ok;
}

/* The first of kat_mds[from ... to - 1] that answers wrongly, or NULL. */
static const char *kat_digests(const OSSL_ALGORITHM *t, size_t from, size_t to,
			       const struct kat_in *in)
{
	for (; from < to; from++)
		if (!kat_digest(t, &kat_mds[from], in))
			return kat_mds[from].name;
	return NULL;
}

/* Appends to the build information what failed and what it means. */
static void kat_note(const char *fmt, const char *what)
{
	size_t used = strlen(pl_cpu.status);

	if (used < sizeof(pl_cpu.status))
		snprintf(pl_cpu.status + used, sizeof(pl_cpu.status) - used, fmt, what);
}

void pl_selftest(void)
{
	const OSSL_ALGORITHM *ct = pl_cipher_algs(), *dt = pl_digest_algs();
	static const char *const ecb[] = { "AES-128-ECB", "AES-192-ECB", "AES-256-ECB" };
	struct kat_in in;
	const char *bad = NULL;
	size_t i;

	kat_inputs(&in);
	if (pl_cpu.ace && !pl_cpu.aes_ni) {
		for (i = 0; !bad && i < 3; i++)
			if (!kat_both(ct, ecb[i], &in, 16 + 8 * i, NULL, 0, kat_ecb[i], 16))
				bad = ecb[i];
		if (!bad && !kat_both(ct, "AES-128-CBC", &in, 16, in.iv, 16, kat_cbc, 32))
			bad = "AES-128-CBC";
		if (!bad && !kat_both(ct, "AES-128-CFB", &in, 16, in.iv, 16, kat_cfb, 32))
			bad = "AES-128-CFB";
		if (!bad && !kat_both(ct, "AES-128-OFB", &in, 16, in.iv, 16, kat_ofb, 32))
			bad = "AES-128-OFB";
		if (!bad && !(kat_cipher(ct, "AES-128-GCM", 1, in.key, 16, in.iv, 12, in.aad, 20,
					 in.pt, kat_gcm, 60, kat_gcm + 60) &&
			      kat_cipher(ct, "AES-128-GCM", 0, in.key, 16, in.iv, 12, in.aad, 20,
					 kat_gcm, in.pt, 60, kat_gcm + 60)))
			bad = "AES-128-GCM";
		if (!bad && !kat_both(ct, "AES-128-CTR", &in, 16, in.ctr_iv, 16, kat_ctr, 64)) {
			if (pl_cpu.ctr_hw) {
				pl_cpu.ctr_hw = 0;
				kat_note("; self-test: AES-CTR wrong on xcrypt-ctr, run on xcrypt-ecb instead%s",
					 "");
			}
			if (!kat_both(ct, "AES-128-CTR", &in, 16, in.ctr_iv, 16, kat_ctr, 64))
				bad = "AES-128-CTR";
		}
		if (bad) {
			pl_cpu.ace = 0;
			pl_cpu.ctr_hw = 0;
			kat_note("; self-test: %s gave a wrong answer, no AES offered (OpenSSL's default provider serves)",
				 bad);
		}
	}
	bad = pl_cpu.phe_blocks ? kat_digests(dt, 0, 3, &in) : NULL;
	if (bad) {
		pl_cpu.phe_blocks = 0;
		pl_cpu.phe2 = 0;
		kat_note("; self-test: %s gave a wrong answer, no SHA offered (OpenSSL's default provider serves)",
			 bad);
	}
	bad = pl_cpu.phe2 ? kat_digests(dt, 3, 5, &in) : NULL;
	if (bad) {
		pl_cpu.phe2 = 0;
		kat_note("; self-test: %s gave a wrong answer, no SHA-384/512 offered (OpenSSL's default provider serves)",
			 bad);
	}
	pl_cleanse(&in, sizeof(in));
}
