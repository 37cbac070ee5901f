/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The AES ciphers' context and what the files that work on it share:
 * padlock-aes.c (keys, the engine, the block and stream modes, parameters,
 * the algorithm table), padlock-gcm.c (GHASH and the GCM message),
 * padlock-tls.c (TLS records inside CBC and GCM).  Internal to the provider.
 */
#ifndef PADLOCK_AES_H
#define PADLOCK_AES_H

#include <stddef.h>
#include <stdint.h>
#include "padlock-prov.h"

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

/* padlock-aes.c: the engine and the helpers the others use */
void pl_aes_blocks(struct pl_aes *c, int mode, const unsigned char *cw,
		   const unsigned char *key, unsigned char *out,
		   const unsigned char *in, size_t n);
void pl_ctr_inc(unsigned char *ctr, int from, int first);
void pl_aes_encrypt1(struct pl_aes *c, unsigned char *out, const unsigned char *in);
void pl_xor_bytes(unsigned char *out, const unsigned char *a,
		  const unsigned char *b, size_t n);
unsigned int pl_bytes_differ(const unsigned char *a, const unsigned char *b,
			     size_t n);
void pl_ctr_stream(struct pl_aes *c, unsigned char *out,
		   const unsigned char *in, size_t len, int first);

/* padlock-gcm.c */
void pl_ghash_setkey(struct pl_aes *c, const unsigned char *h);
void pl_gcm_start(struct pl_aes *c);
int pl_gcm_update(struct pl_aes *c, unsigned char *out, size_t *outl,
		  size_t outsize, const unsigned char *in, size_t inl);
void pl_gcm_tag(struct pl_aes *c, unsigned char *tag);
int pl_gcm_final(struct pl_aes *c, size_t *outl);

/* padlock-tls.c */
int pl_tls_version_known(size_t v);
int pl_cbc_tls_record(struct pl_aes *c, unsigned char *out, size_t *outl,
		      size_t outsize, const unsigned char *in, size_t inl);
int pl_gcm_tls_aad(struct pl_aes *c, const OSSL_PARAM *p);
int pl_gcm_tls_iv_fixed(struct pl_aes *c, const OSSL_PARAM *p);
int pl_gcm_tls_record(struct pl_aes *c, unsigned char *out, size_t *outl,
		      size_t outsize, const unsigned char *in, size_t inl);
int pl_gcm_tls_iv_gen(struct pl_aes *c, OSSL_PARAM *p);

#endif
