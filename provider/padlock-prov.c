// SPDX-License-Identifier: GPL-2.0
/*
 * padlock: an OpenSSL provider (OpenSSL 3.0 and later, ENGINEs are gone in
 * 4.0) for the VIA / Zhaoxin PadLock units: AES (ECB, CBC, CTR, CFB, OFB,
 * GCM) on ACE, SHA-1/224/256 (and SHA-384/512 on PHE2) on PHE.  It offers
 * only what the CPU runs in hardware; on any other CPU it loads, offers
 * nothing, and says why in its "buildinfo" parameter (shown by
 * `openssl list -providers -verbose`); OpenSSL's default provider serves.
 * There is no RNG here: the kernel's padlock-rng feeds the kernel's pool,
 * which OpenSSL reads through getrandom().
 */
#define _GNU_SOURCE		/* secure_getenv() */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "padlock-prov.h"
#include "padlock-user-asm.h"

#define PL_VERSION	"1.0"

struct pl_cpu pl_cpu;

static OSSL_FUNC_core_new_error_fn *core_new_error;
static OSSL_FUNC_core_set_error_debug_fn *core_set_error_debug;
static OSSL_FUNC_core_vset_error_fn *core_vset_error;

static const OSSL_ITEM pl_reason_strings[] = {
	{ PL_R_INVALID_KEY_LENGTH, "invalid key length" },
	{ PL_R_INVALID_IV_LENGTH, "invalid iv length" },
	{ PL_R_WRONG_FINAL_BLOCK_LENGTH, "wrong final block length" },
	{ PL_R_BAD_DECRYPT, "bad decrypt" },
	{ PL_R_OUTPUT_BUFFER_TOO_SMALL, "output buffer too small" },
	{ PL_R_NO_KEY_SET, "no key set" },
	{ PL_R_INVALID_TAG, "invalid tag" },
	{ PL_R_INVALID_TAG_LENGTH, "invalid tag length" },
	{ PL_R_FAILED_TO_SET_PARAMETER, "failed to set parameter" },
	{ PL_R_MALLOC_FAILURE, "out of memory" },
	{ PL_R_NO_IV_SET, "no iv set" },
	{ PL_R_UNSUPPORTED, "unsupported" },
	{ PL_R_INVALID_AAD, "invalid TLS AAD" },
	{ PL_R_TLS_RECORD, "invalid TLS record" },
	{ PL_R_RANDOM, "getrandom failed" },
	{ PL_R_MESSAGE_TOO_LONG, "message too long for one GCM IV" },
	{ 0, NULL }
};

static void pl_set_error(const OSSL_CORE_HANDLE *h, int reason, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	core_vset_error(h, reason, fmt, ap);
	va_end(ap);
}

void pl_error(const struct pl_provctx *pc, int reason, const char *func)
{
	if (!pc || !core_new_error || !core_vset_error)
		return;
	core_new_error(pc->handle);
	if (core_set_error_debug)
		core_set_error_debug(pc->handle, "padlock.so", 0, func);
	pl_set_error(pc->handle, reason, NULL);
}

/* ---- parameters ---- */

OSSL_PARAM *pl_param_locate(OSSL_PARAM *p, const char *key)
{
	for (; p && p->key; p++)
		if (!strcmp(p->key, key))
			return p;
	return NULL;
}

const OSSL_PARAM *pl_param_locate_const(const OSSL_PARAM *p, const char *key)
{
	for (; p && p->key; p++)
		if (!strcmp(p->key, key))
			return p;
	return NULL;
}

int pl_param_set_size(OSSL_PARAM *p, size_t v)
{
	if (p->data_type != OSSL_PARAM_UNSIGNED_INTEGER &&
	    p->data_type != OSSL_PARAM_INTEGER)
		return 0;
	p->return_size = p->data_size;
	if (!p->data)
		return 1;
	switch (p->data_size) {
	case sizeof(uint32_t):
		if (v > (p->data_type == OSSL_PARAM_INTEGER ? INT32_MAX : UINT32_MAX))
			return 0;
		*(uint32_t *)p->data = (uint32_t)v;
		return 1;
	case sizeof(uint64_t):
		*(uint64_t *)p->data = v;
		return 1;
	}
	return 0;
}

int pl_param_set_int(OSSL_PARAM *p, int v)
{
	if (v < 0)
		return 0;
	return pl_param_set_size(p, (size_t)v);
}

int pl_param_get_size(const OSSL_PARAM *p, size_t *v)
{
	if ((p->data_type != OSSL_PARAM_UNSIGNED_INTEGER &&
	     p->data_type != OSSL_PARAM_INTEGER) || !p->data)
		return 0;
	switch (p->data_size) {
	case sizeof(uint32_t):
		if (p->data_type == OSSL_PARAM_INTEGER && *(int32_t *)p->data < 0)
			return 0;
		*v = *(uint32_t *)p->data;
		return 1;
	case sizeof(uint64_t):
		if (p->data_type == OSSL_PARAM_INTEGER && *(int64_t *)p->data < 0)
			return 0;
		*v = (size_t)*(uint64_t *)p->data;
		return 1;
	}
	return 0;
}

int pl_param_get_uint(const OSSL_PARAM *p, unsigned int *v)
{
	size_t s;

	if (!pl_param_get_size(p, &s) || s > UINT32_MAX)
		return 0;
	*v = (unsigned int)s;
	return 1;
}

int pl_param_set_utf8(OSSL_PARAM *p, const char *s)
{
	size_t len = strlen(s);

	p->return_size = len;
	if (p->data_type == OSSL_PARAM_UTF8_PTR) {
		*(const char **)p->data = s;
		return 1;
	}
	if (p->data_type != OSSL_PARAM_UTF8_STRING)
		return 0;
	if (!p->data)
		return 1;
	if (p->data_size < len + 1)
		return 0;
	memcpy(p->data, s, len + 1);
	return 1;
}

int pl_param_set_octets(OSSL_PARAM *p, const void *v, size_t len)
{
	if (p->data_type != OSSL_PARAM_OCTET_STRING)
		return 0;
	p->return_size = len;
	if (!p->data)
		return 1;
	if (p->data_size < len)
		return 0;
	memcpy(p->data, v, len);
	return 1;
}

/*
 * An IV, in the form the caller asked for: a copy (EVP_CIPHER_CTX_get_iv()
 * and friends) or a pointer into the context, valid while it lives, which
 * EVP_CIPHER_CTX_iv(), EVP_CIPHER_CTX_original_iv() and through them the
 * ASN.1 parameter code of CMS, PKCS#7, PKCS#8 and PKCS#12 ask for.
 */
int pl_param_set_iv(OSSL_PARAM *p, const void *iv, size_t len)
{
	if (p->data_type == OSSL_PARAM_OCTET_PTR)
		return pl_param_set_octet_ptr(p, iv, len);
	return pl_param_set_octets(p, iv, len);
}

/* A pointer into the provider's memory (TLS MAC), valid until the next call. */
int pl_param_set_octet_ptr(OSSL_PARAM *p, const void *v, size_t len)
{
	if (p->data_type != OSSL_PARAM_OCTET_PTR)
		return 0;
	p->return_size = len;
	if (p->data)
		*(const void **)p->data = v;
	return 1;
}

/* ---- memory ---- */

/*
 * A wipe the compiler may not drop: keys and buffers before free().  The C
 * library's explicit_bzero() runs at memset()'s speed, where a loop of
 * volatile byte stores costs a few instructions per byte, more than the
 * engine's whole work on a short message.
 */
void pl_cleanse(void *p, size_t n)
{
	explicit_bzero(p, n);
}

/*
 * Contexts hold the engine's operands (16-byte aligned): the C library's
 * own alignment, so that this costs a plain malloc().
 */
void *pl_zalloc_aligned(size_t n)
{
	void *p;

	if (posix_memalign(&p, 16, n))
		return NULL;
	memset(p, 0, n);
	return p;
}

void pl_free_aligned(void *p, size_t n)
{
	if (!p)
		return;
	pl_cleanse(p, n);
	free(p);
}

/* ---- the CPU (docs/hardware.md 3) ---- */

#define PL_EDX_PAIR(edx, bit)	(((edx) >> (bit) & 3) == 3)

/*
 * The CPU features OpenSSL uses, as it reads them: CPUID leaf 1 ECX:EDX
 * (cap[0]) and leaf 7 ECX:EBX (cap[1]), after its OPENSSL_ia32cap setting
 * "X[:Y]": "~MASK" clears bits of a vector, a plain value replaces it, an
 * empty X keeps the first as detected.
 */
static void pl_openssl_caps(unsigned long long cap[2])
{
	const char *env = secure_getenv("OPENSSL_ia32cap");
	unsigned long long v;

	if (!env || !*env)
		return;
	if (*env != ':') {
		v = strtoull(env + (*env == '~'), NULL, 0);
		cap[0] = *env == '~' ? cap[0] & ~v : v;
	}
	env = strchr(env, ':');
	if (env) {
		env++;
		v = strtoull(env + (*env == '~'), NULL, 0);
		cap[1] = *env == '~' ? cap[1] & ~v : v;
	}
}

/*
 * Where OpenSSL's own is faster than the provider (docs/performance.md
 * 5.2, tools/measure/provider-speed), the provider leaves the algorithm to
 * it.  AES: with AES-NI (leaf 1 ECX 25: Zhaoxin's KX-6000 and later)
 * OpenSSL's counter mode and CBC decryption run several blocks at once and
 * overtake ACE, and its one-block calls are shorter, so no AES is offered
 * there (the kernel driver, likewise, ranks below AES-NI).  GCM: ACE's
 * counter mode with the provider's constant-time GHASH in software loses,
 * from about 1 KiB, to SSSE3 (ECX 9: the VIA Nano, OpenSSL's vector-permute
 * AES and table GHASH).  SHA-1/224/256: SHA-NI (leaf 7 EBX 29) hashes in
 * fewer cycles per byte than PHE's XSHA.
 */
#define PL_CAP_SSSE3		(1ULL << (32 + 9))
#define PL_CAP_AESNI		(1ULL << (32 + 25))
#define PL_CAP_SHA_NI		(1ULL << 29)

static void pl_cpu_detect(void)
{
	struct pl_cpu *c = &pl_cpu;
	unsigned int r[4], max, edx = 0, base_family, lm = 0;
	unsigned long long cap[2] = { 0, 0 };
	int centaur, shanghai, zhaoxin, nano_or_later, via_c3_c7;
	char *s = c->status;
	size_t room = sizeof(c->status);

	plu_cpuid(0, r);
	max = r[0];
	memcpy(c->vendor, &r[1], 4);
	memcpy(c->vendor + 4, &r[3], 4);
	memcpy(c->vendor + 8, &r[2], 4);
	c->vendor[12] = 0;
	if (max >= 1) {
		plu_cpuid(1, r);
		base_family = r[0] >> 8 & 0xf;
		c->family = base_family;
		if (base_family == 0xf)
			c->family += r[0] >> 20 & 0xff;
		c->model = r[0] >> 4 & 0xf;
		if (c->family >= 6)
			c->model |= (r[0] >> 16 & 0xf) << 4;
		c->stepping = r[0] & 0xf;
		cap[0] = (unsigned long long)r[2] << 32 | r[3];
	}
	if (max >= 7) {
		plu_cpuid(7, r);
		cap[1] = (unsigned long long)r[2] << 32 | r[1];
	}
	pl_openssl_caps(cap);
	plu_cpuid(0x80000000, r);
	if (r[0] >= 0x80000001) {
		plu_cpuid(0x80000001, r);
		lm = r[3] >> 29 & 1;
	}

	centaur = !strcmp(c->vendor, "CentaurHauls");
	shanghai = !strcmp(c->vendor, "  Shanghai  ");
	if (!centaur && !shanghai) {
		snprintf(s, room, "padlock %s: no PadLock: CPU vendor \"%s\" is neither VIA/Centaur nor Zhaoxin; no algorithms offered, OpenSSL's default provider serves",
			 PL_VERSION, c->vendor);
		return;
	}
	plu_cpuid_c0000000(r);
	if (r[0] >= 0xc0000001) {
		plu_cpuid_c0000001(r);
		edx = r[3];
	}

	/*
	 * The kernel drivers' rules (include/padlock-cpu.h): Zhaoxin is
	 * "  Shanghai  ", or CentaurHauls family 7 or later, or PHE2, or the
	 * older ZX-C (family 6 model 0x0f stepping >= 0x0e, or model 0x19).
	 */
	zhaoxin = shanghai || c->family >= 7 || PL_EDX_PAIR(edx, 25) ||
		  (c->family == 6 && ((c->model == 0x0f && c->stepping >= 0x0e) ||
				      c->model == 0x19));
	via_c3_c7 = centaur && c->family == 6 && c->model < 0x0f;
	nano_or_later = zhaoxin || (centaur && c->family == 6 && c->model >= 0x0f);

	c->ace = PL_EDX_PAIR(edx, 6) && (zhaoxin || (centaur && c->family == 6));
	c->aes_ni = !!(cap[0] & PL_CAP_AESNI);
	/* hardware CTR only on 64-bit capable parts (docs/hardware.md 1.2, 3.2) */
	c->ctr_hw = c->ace && PL_EDX_PAIR(edx, 8) && nano_or_later && lm;
	c->phe_blocks = PL_EDX_PAIR(edx, 10) && nano_or_later;
	c->phe_final_only = PL_EDX_PAIR(edx, 10) && via_c3_c7;
	c->phe2 = c->phe_blocks && PL_EDX_PAIR(edx, 25) && zhaoxin;
	c->gcm = c->ace && !c->aes_ni && !(cap[0] & PL_CAP_SSSE3);
	c->sha_ni = !!(cap[1] & PL_CAP_SHA_NI);
	/* VIA Nano stepping 2: the prefetch erratum (docs/hardware.md 2.2) */
	if (centaur && c->family == 6 && c->model == 0x0f && c->stepping == 2) {
		c->ecb_fetch = 8;
		c->cbc_fetch = 4;
	} else {
		c->ecb_fetch = 2;
		c->cbc_fetch = 1;
	}

	snprintf(s, room, "padlock %s: %s family %u model %#x stepping %u, CPUID 0xC0000001 EDX %#x:%s%s%s%s%s%s%s%s",
		 PL_VERSION, c->vendor, c->family, c->model, c->stepping, edx,
		 c->ace && !c->aes_ni ? (c->gcm ? " AES-ECB/CBC/CFB/OFB/GCM" : " AES-ECB/CBC/CFB/OFB") : "",
		 c->ace && !c->aes_ni ? (c->ctr_hw ? " AES-CTR(xcrypt-ctr)" : " AES-CTR(on xcrypt-ecb)") : "",
		 c->phe_blocks && !c->sha_ni ? " SHA-1/224/256" : "",
		 c->phe2 ? " SHA-384/512" : "",
		 c->phe_final_only ? " (PHE is final-mode only here: SHA left to the default provider)" : "",
		 !c->ace && !c->phe_blocks ? " no usable PadLock unit (absent or disabled); no algorithms offered, OpenSSL's default provider serves" : "",
		 !c->ace ? "" : c->aes_ni ? " (AES left to the default provider: OpenSSL's own runs on AES-NI here, faster)" :
		 !c->gcm ? " (AES-GCM left to the default provider: OpenSSL's own is faster here, on SSSE3)" : "",
		 c->phe_blocks && c->sha_ni ? " (SHA-1/224/256 left to the default provider: OpenSSL's own runs on SHA-NI here, faster)" : "");
}

/* ---- the provider ---- */

static const OSSL_PARAM pl_gettable[] = {
	{ OSSL_PROV_PARAM_NAME, OSSL_PARAM_UTF8_PTR, NULL, 0, 0 },
	{ OSSL_PROV_PARAM_VERSION, OSSL_PARAM_UTF8_PTR, NULL, 0, 0 },
	{ OSSL_PROV_PARAM_BUILDINFO, OSSL_PARAM_UTF8_PTR, NULL, 0, 0 },
	{ OSSL_PROV_PARAM_STATUS, OSSL_PARAM_INTEGER, NULL, 0, 0 },
	{ NULL, 0, NULL, 0, 0 }
};

static const OSSL_PARAM *pl_gettable_params(void *provctx)
{
	(void)provctx;
	return pl_gettable;
}

static int pl_get_params(void *provctx, OSSL_PARAM params[])
{
	OSSL_PARAM *p;

	(void)provctx;
	p = pl_param_locate(params, OSSL_PROV_PARAM_NAME);
	if (p && !pl_param_set_utf8(p, "VIA/Zhaoxin PadLock provider"))
		return 0;
	p = pl_param_locate(params, OSSL_PROV_PARAM_VERSION);
	if (p && !pl_param_set_utf8(p, PL_VERSION))
		return 0;
	p = pl_param_locate(params, OSSL_PROV_PARAM_BUILDINFO);
	if (p && !pl_param_set_utf8(p, pl_cpu.status))
		return 0;
	p = pl_param_locate(params, OSSL_PROV_PARAM_STATUS);
	if (p && !pl_param_set_int(p, 1))
		return 0;
	return 1;
}

static const OSSL_ALGORITHM *pl_query(void *provctx, int op, int *no_cache)
{
	(void)provctx;
	*no_cache = 0;
	switch (op) {
	case OSSL_OP_CIPHER:
		return pl_ciphers();
	case OSSL_OP_DIGEST:
		return pl_digests();
	}
	return NULL;
}

static const OSSL_ITEM *pl_reasons(void *provctx)
{
	(void)provctx;
	return pl_reason_strings;
}

static void pl_teardown(void *provctx)
{
	free(provctx);
}

#define PL_FN(f)	((void (*)(void))(f))

static const OSSL_DISPATCH pl_dispatch[] = {
	{ OSSL_FUNC_PROVIDER_TEARDOWN, PL_FN(pl_teardown) },
	{ OSSL_FUNC_PROVIDER_GETTABLE_PARAMS, PL_FN(pl_gettable_params) },
	{ OSSL_FUNC_PROVIDER_GET_PARAMS, PL_FN(pl_get_params) },
	{ OSSL_FUNC_PROVIDER_QUERY_OPERATION, PL_FN(pl_query) },
	{ OSSL_FUNC_PROVIDER_GET_REASON_STRINGS, PL_FN(pl_reasons) },
	{ 0, NULL }
};

static pthread_once_t pl_setup_once = PTHREAD_ONCE_INIT;

static void pl_setup(void)
{
	pl_cpu_detect();
	pl_selftest();
	pl_ciphers_setup();
	pl_digests_setup();
}

__attribute__((visibility("default")))
int OSSL_provider_init(const OSSL_CORE_HANDLE *handle, const OSSL_DISPATCH *in,
		       const OSSL_DISPATCH **out, void **provctx)
{
	struct pl_provctx *pc;

	for (; in->function_id; in++) {
		switch (in->function_id) {
		case OSSL_FUNC_CORE_NEW_ERROR:
			core_new_error = OSSL_FUNC_core_new_error(in);
			break;
		case OSSL_FUNC_CORE_SET_ERROR_DEBUG:
			core_set_error_debug = OSSL_FUNC_core_set_error_debug(in);
			break;
		case OSSL_FUNC_CORE_VSET_ERROR:
			core_vset_error = OSSL_FUNC_core_vset_error(in);
			break;
		}
	}
	pc = calloc(1, sizeof(*pc));
	if (!pc)
		return 0;
	pc->handle = handle;
	/*
	 * The CPU description and the algorithm tables are the process's,
	 * made once: every library context runs this function, and another
	 * context may be using the tables meanwhile.
	 */
	pthread_once(&pl_setup_once, pl_setup);
	*out = pl_dispatch;
	*provctx = pc;
	return 1;
}
