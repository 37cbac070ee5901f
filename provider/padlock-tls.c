// SPDX-License-Identifier: GPL-2.0
/*
 * TLS records inside AES-CBC and AES-GCM, as libssl hands them to a
 * provider's cipher.
 *
 * With OpenSSL's TLS parameters set, each update is one TLS 1.x
 * record and the cipher does the record work libssl leaves to it: CBC
 * padding added, or checked and removed with the MAC taken out in constant
 * time; GCM's explicit IV and tag (below).
 */
#include <string.h>
#include <sys/random.h>
#include "padlock-prov.h"
#include "padlock-aes.h"
#include "padlock-user-asm.h"

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

int pl_tls_version_known(size_t v)
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
	pl_aes_blocks(c, PL_CBC, c->cw_enc, c->ekey, rec, rec, inl / 16);
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
	pl_aes_blocks(c, PL_CBC, c->cw_dec, c->dkey, rec, rec, inl / 16);
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
int pl_cbc_tls_record(struct pl_aes *c, unsigned char *out, size_t *outl,
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
int pl_gcm_tls_aad(struct pl_aes *c, const OSSL_PARAM *p)
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
int pl_gcm_tls_iv_fixed(struct pl_aes *c, const OSSL_PARAM *p)
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
int pl_gcm_tls_record(struct pl_aes *c, unsigned char *out, size_t *outl,
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
	pl_gcm_start(c);
	pl_gcm_update(c, NULL, &n, 0, c->tls_aad, PL_TLS_AAD_LEN);
	pl_gcm_update(c, out, &n, len, out, len);
	pl_gcm_tag(c, tag);
	c->iv_set = 0;
	if (c->enc) {
		memcpy(out + len, tag, PL_TLS_TAG);
		pl_ctr_inc(iv, PL_TLS_EXPLICIT_IV - 1, 0);
		*outl = inl;
		return 1;
	}
	diff = pl_bytes_differ(tag, out + len, PL_TLS_TAG);
	pl_cleanse(tag, sizeof(tag));
	if (diff) {
		pl_cleanse(out, len);
		PL_ERR(c->pc, PL_R_BAD_DECRYPT);
		return 0;
	}
	*outl = len;
	return 1;
}

/*
 * "tlsivgen": the explicit part of the next nonce (the last bytes of the
 * IV, all of it if asked for 0 bytes), then the counter moves on.
 */
int pl_gcm_tls_iv_gen(struct pl_aes *c, OSSL_PARAM *p)
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
	pl_gcm_start(c);
	memcpy(p->data, c->oiv + c->ivlen - n, n);
	p->return_size = n;
	pl_ctr_inc(c->oiv + c->ivlen - PL_TLS_EXPLICIT_IV, PL_TLS_EXPLICIT_IV - 1, 0);
	return 1;
}
