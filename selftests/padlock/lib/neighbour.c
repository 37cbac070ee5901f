// SPDX-License-Identifier: GPL-2.0
/*
 * The padlock provider as a neighbour on the one PadLock engine of a CPU:
 * GnuTLS's own PadLock code and the provider interleaved in one process.
 *
 *   neighbour alone|mixed ROUNDS
 *
 * GnuTLS (the same PadLock helpers as OpenSSL's old engine) skips its key
 * reload while EFLAGS bit 30 is set and the context is the one it used last
 * (docs/hardware.md 1.5).  A provider that left bit 30 set after its own
 * xcrypt would have GnuTLS encrypt under the provider's key.  Each round
 * encrypts 64 bytes with GnuTLS's AES-128-CBC (key 1) and, in "mixed", then
 * 64 bytes with the provider's AES-128-CBC (key 2); GnuTLS's output is
 * compared with OpenSSL's default provider under key 1, and EFLAGS bit 30
 * is read right after each of the provider's operations.  One line:
 * PASS/FAIL/SKIP, the wrong rounds and the rounds that found bit 30 set.
 *
 * guest-build: needs gnutls/crypto.h links -lgnutls -lcrypto
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gnutls/gnutls.h>
#include <gnutls/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#define EFLAGS_KEY	(1UL << 30)

static unsigned long eflags(void)
{
#ifdef __x86_64__
	return __builtin_ia32_readeflags_u64();
#else
	return __builtin_ia32_readeflags_u32();
#endif
}

static EVP_CIPHER_CTX *cbc(const char *props, const unsigned char *key,
			   const unsigned char *iv)
{
	EVP_CIPHER *c = EVP_CIPHER_fetch(NULL, "AES-128-CBC", props);
	EVP_CIPHER_CTX *x = c ? EVP_CIPHER_CTX_new() : NULL;

	if (!x || !EVP_EncryptInit_ex2(x, c, key, iv, NULL) ||
	    !EVP_CIPHER_CTX_set_padding(x, 0)) {
		EVP_CIPHER_CTX_free(x);
		x = NULL;
	}
	EVP_CIPHER_free(c);
	return x;
}

int main(int argc, char **argv)
{
	unsigned char k1[16], k2[16], iv1[16], iv2[16], m[64], g[64], r[64], p[64];
	gnutls_datum_t key = { k1, 16 }, iv = { iv1, 16 };
	gnutls_cipher_hd_t h;
	EVP_CIPHER_CTX *ref, *pl;
	long rounds, i, wrong = 0, bit30 = 0;
	int mixed, l;

	if (argc != 3 || (strcmp(argv[1], "alone") && strcmp(argv[1], "mixed"))) {
		fprintf(stderr, "usage: %s alone|mixed ROUNDS\n", argv[0]);
		return 2;
	}
	mixed = !strcmp(argv[1], "mixed");
	rounds = atol(argv[2]);
	if (!OSSL_PROVIDER_load(NULL, "default") || !OSSL_PROVIDER_load(NULL, "padlock")) {
		printf("SKIP neighbour %s | the padlock provider does not load\n", argv[1]);
		return 0;
	}
	if (gnutls_global_init() < 0 ||
	    gnutls_rnd(GNUTLS_RND_NONCE, k1, 16) || gnutls_rnd(GNUTLS_RND_NONCE, k2, 16) ||
	    gnutls_rnd(GNUTLS_RND_NONCE, iv1, 16) || gnutls_rnd(GNUTLS_RND_NONCE, iv2, 16) ||
	    gnutls_cipher_init(&h, GNUTLS_CIPHER_AES_128_CBC, &key, &iv) < 0) {
		printf("FAIL neighbour %s | GnuTLS's AES-128-CBC did not start\n", argv[1]);
		return 1;
	}
	ref = cbc("provider=default", k1, iv1);
	pl = cbc("provider=padlock", k2, iv2);
	if (!ref || !pl) {
		printf("SKIP neighbour %s | the padlock provider offers no AES-128-CBC here\n",
		       argv[1]);
		return 0;
	}
	for (i = 0; i < rounds; i++) {
		gnutls_rnd(GNUTLS_RND_NONCE, m, sizeof(m));
		if (gnutls_cipher_encrypt2(h, m, sizeof(m), g, sizeof(g)) < 0 ||
		    !EVP_EncryptUpdate(ref, r, &l, m, sizeof(m)))
			break;
		wrong += memcmp(g, r, sizeof(g)) != 0;
		if (mixed) {
			if (!EVP_EncryptUpdate(pl, p, &l, m, sizeof(m)))
				break;
			bit30 += (eflags() & EFLAGS_KEY) != 0;
		}
	}
	if (i < rounds) {
		printf("FAIL neighbour %s | an operation failed in round %ld\n", argv[1], i);
		ERR_print_errors_fp(stdout);
		return 1;
	}
	printf("%s neighbour %s | GnuTLS's AES-128-CBC: %ld of %ld rounds wrong; EFLAGS bit 30 set after %ld of the provider's\n",
	       wrong || bit30 ? "FAIL" : "PASS", argv[1], wrong, rounds, bit30);
	gnutls_cipher_deinit(h);
	EVP_CIPHER_CTX_free(ref);
	EVP_CIPHER_CTX_free(pl);
	return wrong || bit30;
}
