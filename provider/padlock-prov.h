/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The padlock OpenSSL provider: what its parts share.  The provider uses
 * only OpenSSL's core interface (core.h, core_dispatch.h, core_names.h:
 * types, dispatch numbers and parameter names) and links no libcrypto, so
 * that one build loads into OpenSSL 3.0 and later.
 */
#ifndef PADLOCK_PROV_H
#define PADLOCK_PROV_H

#include <stddef.h>
#include <stdint.h>
#include <openssl/core.h>
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>

#define PL_ALIGNED	__attribute__((aligned(16)))

/* What the CPU offers (docs/hardware.md 3), decided once at load. */
struct pl_cpu {
	char vendor[13];
	unsigned int family, model, stepping;
	int ace;		/* ECB, CBC, CFB, OFB */
	int aes_ni;		/* OpenSSL's AES on AES-NI: faster */
	int ctr_hw;		/* ACE2 and sound: hardware CTR */
	int phe_blocks;		/* SHA-1/256 in block mode */
	int phe_final_only;	/* C7: final mode only (not used, see sha) */
	int phe2;		/* SHA-384/512 (Zhaoxin) */
	int gcm;		/* offer GCM: OpenSSL's own is not faster */
	int sha_ni;		/* OpenSSL's SHA-1/256 on SHA-NI: faster */
	unsigned int ecb_fetch, cbc_fetch;	/* blocks per fetch group */
	char status[512];
};

extern struct pl_cpu pl_cpu;

struct pl_provctx {
	const OSSL_CORE_HANDLE *handle;
};

/* Reason codes of the provider's errors (strings in padlock-prov.c). */
enum {
	PL_R_INVALID_KEY_LENGTH = 1,
	PL_R_INVALID_IV_LENGTH,
	PL_R_WRONG_FINAL_BLOCK_LENGTH,
	PL_R_BAD_DECRYPT,
	PL_R_OUTPUT_BUFFER_TOO_SMALL,
	PL_R_NO_KEY_SET,
	PL_R_INVALID_TAG,
	PL_R_INVALID_TAG_LENGTH,
	PL_R_FAILED_TO_SET_PARAMETER,
	PL_R_MALLOC_FAILURE,
	PL_R_NO_IV_SET,
	PL_R_UNSUPPORTED,
	PL_R_INVALID_AAD,
	PL_R_TLS_RECORD,
	PL_R_RANDOM,
	PL_R_MESSAGE_TOO_LONG,
};

void pl_error(const struct pl_provctx *pc, int reason, const char *func);
#define PL_ERR(pc, r)	pl_error((pc), (r), __func__)

/* Parameter helpers: the provider cannot call libcrypto's OSSL_PARAM_*. */
OSSL_PARAM *pl_param_locate(OSSL_PARAM *p, const char *key);
const OSSL_PARAM *pl_param_locate_const(const OSSL_PARAM *p, const char *key);
int pl_param_set_size(OSSL_PARAM *p, size_t v);
int pl_param_set_int(OSSL_PARAM *p, int v);
int pl_param_get_size(const OSSL_PARAM *p, size_t *v);
int pl_param_get_uint(const OSSL_PARAM *p, unsigned int *v);
int pl_param_set_utf8(OSSL_PARAM *p, const char *s);
int pl_param_set_octets(OSSL_PARAM *p, const void *v, size_t len);
int pl_param_set_octet_ptr(OSSL_PARAM *p, const void *v, size_t len);
int pl_param_set_iv(OSSL_PARAM *p, const void *iv, size_t len);

void pl_cleanse(void *p, size_t n);
void *pl_zalloc_aligned(size_t n);
void pl_free_aligned(void *p, size_t n);

const OSSL_ALGORITHM *pl_ciphers(void);
const OSSL_ALGORITHM *pl_digests(void);
void pl_ciphers_setup(void);
void pl_digests_setup(void);
const OSSL_ALGORITHM *pl_cipher_algs(void);
const OSSL_ALGORITHM *pl_digest_algs(void);
void pl_selftest(void);

#endif /* PADLOCK_PROV_H */
