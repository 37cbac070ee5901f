// SPDX-License-Identifier: GPL-2.0
/*
 * padlock-aes: AES on the VIA / Centaur / Zhaoxin PadLock ACE unit.
 *
 * Registers, all synchronous and on-CPU:
 *   aes       aes-padlock       single-block cipher, for templates
 *   ecb(aes)  ecb-aes-padlock   skcipher
 *   cbc(aes)  cbc-aes-padlock   skcipher
 *   ctr(aes)  ctr-aes-padlock   hardware CTR on ACE2 CPUs, ECB based otherwise
 *   xts(aes)  xts-aes-padlock   ECB based, with ciphertext stealing
 *   cfb(aes), ofb(aes)          only on kernels that still have those modes
 *
 * Hardware facts used here: docs/hardware.md (sections 1.2 to
 * 1.5 and 2.2).  All PadLock instructions come from padlock-asm.h.
 */

#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/crypto.h>
#include <linux/string.h>
#include <linux/mm.h>
#include <crypto/aes.h>
#include <crypto/algapi.h>
#include <crypto/gf128mul.h>
#include <crypto/internal/skcipher.h>
#include <crypto/scatterwalk.h>
#include <crypto/xts.h>
#include <asm/cpu_device_id.h>

#include "padlock-asm.h"
#include "padlock-cpu.h"

static int priority;
module_param(priority, int, 0444);
MODULE_PARM_DESC(priority,
		 "crypto priority of the skciphers (the single-block aes gets 100 less); 0 = 450, or 350 (below aesni) when the CPU also has AES-NI");

/*
 * The engine may read up to 256 bytes of key schedule (docs/hardware.md 1.4), and
 * wants the key, the control word and all data 16-byte aligned.
 */
#define PL_KEY_WORDS		64

struct pl_key {
	u32 e[PL_KEY_WORDS] __aligned(PADLOCK_ALIGN);	/* raw key or enc schedule */
	u32 d[PL_KEY_WORDS] __aligned(PADLOCK_ALIGN);	/* dec schedule (192/256) */
	struct padlock_cword cw_enc;
	struct padlock_cword cw_dec;
	/* CFB decryption: decrypt direction, but the encryption schedule */
	struct padlock_cword cw_fbdec;
	unsigned int keylen;
};

struct pl_xts_ctx {
	struct pl_key data;
	struct pl_key tweak;
};

/* Context memory is only guaranteed CRYPTO_MINALIGN: align it ourselves. */
#define PL_CTXSIZE(type)	(sizeof(type) + PADLOCK_ALIGN - 1)

static inline void *pl_align(void *p)
{
	return PTR_ALIGN(p, PADLOCK_ALIGN);
}

static inline struct pl_key *pl_skcipher_key(struct crypto_skcipher *tfm)
{
	return pl_align(crypto_skcipher_ctx(tfm));
}

static inline struct pl_xts_ctx *pl_xts_ctx(struct crypto_skcipher *tfm)
{
	return pl_align(crypto_skcipher_ctx(tfm));
}

static inline const u32 *pl_dec_key(const struct pl_key *k)
{
	/* Hardware key expansion (128 bits) takes the raw key both ways. */
	return k->keylen == AES_KEYSIZE_128 ? k->e : k->d;
}

/* Blocks the engine fetches per instruction (docs/hardware.md 2.2), set at load. */
static unsigned int pl_ecb_fetch __read_mostly = 2;
static unsigned int pl_cbc_fetch __read_mostly = 1;
static bool pl_hw_ctr __read_mostly;

#ifdef PADLOCK_CFB_OFB
#define PL_FB_NAMES	" cfb ofb"
#else
#define PL_FB_NAMES	""
#endif

/*
 * No key cache in software: every xcrypt of padlock-asm.h reloads the key
 * and control word (pushf; popf in the same asm statement), because EFLAGS
 * bit 30 may be set on entry to the kernel by a user-space xcrypt with the
 * user's key, and survives anything but an EFLAGS load (docs/hardware.md 1.5).
 */

static int pl_setkey(struct pl_key *k, const u8 *key, unsigned int len)
{
	struct crypto_aes_ctx gen;
	u32 w;
	int err;

	if (len != AES_KEYSIZE_128 && len != AES_KEYSIZE_192 &&
	    len != AES_KEYSIZE_256)
		return -EINVAL;

	memzero_explicit(k, sizeof(*k));
	w = (10 + (len - 16) / 4) | ((len - 16) / 8) << PADLOCK_CW_KSIZE_SHIFT;
	if (len == AES_KEYSIZE_128) {
		/* Hardware expansion; reliable for 128-bit keys only (docs/hardware.md 1.4). */
		memcpy(k->e, key, len);
	} else {
		err = aes_expandkey(&gen, key, len);
		if (err) {
			memzero_explicit(&gen, sizeof(gen));
			return err;
		}
		/* FIPS-197 byte order, exactly what the engine reads. */
		memcpy(k->e, gen.key_enc, sizeof(gen.key_enc));
		memcpy(k->d, gen.key_dec, sizeof(gen.key_dec));
		memzero_explicit(&gen, sizeof(gen));
		w |= PADLOCK_CW_KEYGEN_SW;
	}
	k->cw_enc.word = w;
	k->cw_dec.word = w | PADLOCK_CW_DECRYPT;
	k->cw_fbdec.word = w | PADLOCK_CW_DECRYPT;
	k->keylen = len;
	return 0;
}

static void pl_wipe_key(struct pl_key *k)
{
	memzero_explicit(k, sizeof(*k));
}

/* ---- running instructions ------------------------------------------------ */

enum pl_mode { PL_ECB, PL_CBC, PL_CTR, PL_CFB, PL_OFB };

/*
 * One instruction.  For the chaining modes the next IV is copied from the
 * address the engine leaves in rAX (docs/hardware.md 1.2) into @iv; for CTR the engine
 * advances the counter block at @iv in place.
 */
static __always_inline void pl_issue(enum pl_mode mode,
				     const struct padlock_cword *cw,
				     const void *key, const u8 *in, u8 *out,
				     unsigned long n, u8 *iv)
{
	const u8 *next = iv;

	switch (mode) {
	case PL_ECB:
		padlock_xcrypt_ecb(in, out, key, cw, n);
		break;
	case PL_CBC:
		next = padlock_xcrypt_cbc(in, out, key, cw, iv, n);
		break;
	case PL_CFB:
		next = padlock_xcrypt_cfb(in, out, key, cw, iv, n);
		break;
	case PL_OFB:
		next = padlock_xcrypt_ofb(in, out, key, cw, iv, n);
		break;
	case PL_CTR:
		padlock_xcrypt_ctr(in, out, key, cw, iv, n);
		break;
	}
	if (next != iv)
		memcpy(iv, next, AES_BLOCK_SIZE);
}

#define PL_MAX_FETCH		8
#define PL_WINDOW		(PL_MAX_FETCH * AES_BLOCK_SIZE)
#define PL_BOUNCE_BYTES		(2 * PL_WINDOW + PADLOCK_ALIGN - 1)

/*
 * A 16-byte aligned PL_WINDOW-byte area inside @buf (PL_BOUNCE_BYTES long)
 * that does not cross a page boundary: the engine's over-read of a bounced
 * input stays in the page of its last byte.
 */
static u8 *pl_bounce_window(u8 *buf)
{
	unsigned long p = ALIGN((unsigned long)buf, PADLOCK_ALIGN);

	if ((p ^ (p + PL_WINDOW - 1)) & PAGE_MASK)
		p = (p + PL_WINDOW - 1) & PAGE_MASK;
	return (u8 *)p;
}

static unsigned int pl_fetch_blocks(enum pl_mode mode)
{
	/* CFB/OFB fetch sizes are not documented: assume ECB's (the larger). */
	return mode == PL_CBC ? pl_cbc_fetch : pl_ecb_fetch;
}

/*
 * Run @n blocks through the engine as one instruction, except where the
 * prefetch erratum (docs/hardware.md 2.2) would make it read past the page holding
 * the last input byte.  The engine reads roundup(n, fetch) blocks; then
 * the whole multiple of the fetch size runs in place and only the last
 * (n % fetch) blocks go through an aligned stack window.  At most two
 * instructions, and only when the over-read would cross a page.
 */
static void pl_run(enum pl_mode mode, const struct padlock_cword *cw,
		   const void *key, const u8 *in, u8 *out, unsigned long n,
		   u8 *iv)
{
	unsigned int fetch = pl_fetch_blocks(mode);
	unsigned long rem = n & (fetch - 1);
	unsigned long last, end;
	u8 buf[PL_BOUNCE_BYTES];
	u8 *tmp;

	if (!n)
		return;
	last = (unsigned long)in + n * AES_BLOCK_SIZE - 1;
	end = last + (fetch - rem) * AES_BLOCK_SIZE;
	if (likely(!rem || !((last ^ end) & PAGE_MASK))) {
		pl_issue(mode, cw, key, in, out, n, iv);
		return;
	}
	if (n > rem) {
		pl_issue(mode, cw, key, in, out, n - rem, iv);
		in += (n - rem) * AES_BLOCK_SIZE;
		out += (n - rem) * AES_BLOCK_SIZE;
	}
	tmp = pl_bounce_window(buf);
	memcpy(tmp, in, rem * AES_BLOCK_SIZE);
	pl_issue(mode, cw, key, tmp, out, rem, iv);
	memzero_explicit(tmp, rem * AES_BLOCK_SIZE);
}

/* One block through a page-safe aligned stack copy (any alignment in/out). */
static void pl_one_block(const struct padlock_cword *cw, const void *key,
			 u8 *out, const u8 *in)
{
	u8 buf[PL_BOUNCE_BYTES];
	u8 *tmp = pl_bounce_window(buf);

	memcpy(tmp, in, AES_BLOCK_SIZE);
	pl_issue(PL_ECB, cw, key, tmp, tmp, 1, NULL);
	memcpy(out, tmp, AES_BLOCK_SIZE);
	memzero_explicit(tmp, AES_BLOCK_SIZE);
}

/* ---- aes: the single-block cipher ------------------------------------- */

static struct pl_key *pl_cipher_key(struct crypto_tfm *tfm)
{
	return pl_align(crypto_tfm_ctx(tfm));
}

static int pl_cipher_setkey(struct crypto_tfm *tfm, const u8 *key,
			    unsigned int len)
{
	return pl_setkey(pl_cipher_key(tfm), key, len);
}

static void pl_cipher_encrypt(struct crypto_tfm *tfm, u8 *out, const u8 *in)
{
	struct pl_key *k = pl_cipher_key(tfm);

	pl_run(PL_ECB, &k->cw_enc, k->e, in, out, 1, NULL);
}

static void pl_cipher_decrypt(struct crypto_tfm *tfm, u8 *out, const u8 *in)
{
	struct pl_key *k = pl_cipher_key(tfm);

	pl_run(PL_ECB, &k->cw_dec, pl_dec_key(k), in, out, 1, NULL);
}

static void pl_cipher_exit(struct crypto_tfm *tfm)
{
	pl_wipe_key(pl_cipher_key(tfm));
}

static struct crypto_alg pl_cipher_alg = {
	.cra_name		= "aes",
	.cra_driver_name	= "aes-padlock",
	.cra_flags		= CRYPTO_ALG_TYPE_CIPHER,
	.cra_blocksize		= AES_BLOCK_SIZE,
	.cra_ctxsize		= PL_CTXSIZE(struct pl_key),
	.cra_alignmask		= PADLOCK_ALIGN - 1,
	.cra_module		= THIS_MODULE,
	.cra_exit		= pl_cipher_exit,
	.cra_u			= {
		.cipher = {
			.cia_min_keysize	= AES_MIN_KEY_SIZE,
			.cia_max_keysize	= AES_MAX_KEY_SIZE,
			.cia_setkey		= pl_cipher_setkey,
			.cia_encrypt		= pl_cipher_encrypt,
			.cia_decrypt		= pl_cipher_decrypt,
		}
	}
};

/* ---- skciphers ----------------------------------------------------------- */

static int pl_skcipher_setkey(struct crypto_skcipher *tfm, const u8 *key,
			      unsigned int len)
{
	return pl_setkey(pl_skcipher_key(tfm), key, len);
}

static void pl_skcipher_exit(struct crypto_skcipher *tfm)
{
	pl_wipe_key(pl_skcipher_key(tfm));
}

static int pl_ecb_crypt(struct skcipher_request *req, bool enc)
{
	struct pl_key *k = pl_skcipher_key(crypto_skcipher_reqtfm(req));
	const struct padlock_cword *cw = enc ? &k->cw_enc : &k->cw_dec;
	const u32 *key = enc ? k->e : pl_dec_key(k);
	struct skcipher_walk walk;
	unsigned int nbytes;
	int err;

	if (req->cryptlen % AES_BLOCK_SIZE)
		return -EINVAL;
	err = skcipher_walk_virt(&walk, req, false);
	while ((nbytes = walk.nbytes) != 0) {
		pl_run(PL_ECB, cw, key, walk.src.virt.addr, walk.dst.virt.addr,
		       nbytes / AES_BLOCK_SIZE, NULL);
		err = skcipher_walk_done(&walk, nbytes % AES_BLOCK_SIZE);
	}
	return err;
}

static int pl_ecb_encrypt(struct skcipher_request *req)
{
	return pl_ecb_crypt(req, true);
}

static int pl_ecb_decrypt(struct skcipher_request *req)
{
	return pl_ecb_crypt(req, false);
}

static int pl_cbc_crypt(struct skcipher_request *req, bool enc)
{
	struct pl_key *k = pl_skcipher_key(crypto_skcipher_reqtfm(req));
	const struct padlock_cword *cw = enc ? &k->cw_enc : &k->cw_dec;
	const u32 *key = enc ? k->e : pl_dec_key(k);
	struct skcipher_walk walk;
	unsigned int nbytes;
	int err;

	if (req->cryptlen % AES_BLOCK_SIZE)
		return -EINVAL;
	err = skcipher_walk_virt(&walk, req, false);
	while ((nbytes = walk.nbytes) != 0) {
		/* walk.iv is aligned (alignmask) and receives the next IV */
		pl_run(PL_CBC, cw, key, walk.src.virt.addr, walk.dst.virt.addr,
		       nbytes / AES_BLOCK_SIZE, walk.iv);
		err = skcipher_walk_done(&walk, nbytes % AES_BLOCK_SIZE);
	}
	return err;
}

static int pl_cbc_encrypt(struct skcipher_request *req)
{
	return pl_cbc_crypt(req, true);
}

static int pl_cbc_decrypt(struct skcipher_request *req)
{
	return pl_cbc_crypt(req, false);
}

/* CTR on ACE2: the engine increments only the low 16 bits (docs/hardware.md 1.2). */
static void pl_ctr_hw(struct pl_key *k, const u8 *in, u8 *out,
		      unsigned long n, u8 *ctr)
{
	unsigned long room, c;

	while (n) {
		room = 0x10000 - ((ctr[14] << 8) | ctr[15]);
		c = min(n, room);
		pl_run(PL_CTR, &k->cw_enc, k->e, in, out, c, ctr);
		if (c == room)			/* low 16 bits wrapped to 0 */
			crypto_inc(ctr, AES_BLOCK_SIZE - 2);
		in += c * AES_BLOCK_SIZE;
		out += c * AES_BLOCK_SIZE;
		n -= c;
	}
}

#define PL_CTR_BATCH	16

/* CTR without ACE2: encrypt counter blocks with ECB, then XOR. */
static void pl_ctr_ecb(struct pl_key *k, const u8 *in, u8 *out,
		       unsigned long n, u8 *ctr)
{
	u8 buf[PL_CTR_BATCH * AES_BLOCK_SIZE + PADLOCK_ALIGN - 1];
	u8 *ks = pl_align(buf);
	unsigned long i, c;

	if (in != out) {
		/* The destination holds the counters: one instruction. */
		for (i = 0; i < n; i++) {
			memcpy(out + i * AES_BLOCK_SIZE, ctr, AES_BLOCK_SIZE);
			crypto_inc(ctr, AES_BLOCK_SIZE);
		}
		pl_run(PL_ECB, &k->cw_enc, k->e, out, out, n, NULL);
		crypto_xor(out, in, n * AES_BLOCK_SIZE);
		return;
	}
	while (n) {
		c = min_t(unsigned long, n, PL_CTR_BATCH);
		for (i = 0; i < c; i++) {
			memcpy(ks + i * AES_BLOCK_SIZE, ctr, AES_BLOCK_SIZE);
			crypto_inc(ctr, AES_BLOCK_SIZE);
		}
		pl_run(PL_ECB, &k->cw_enc, k->e, ks, ks, c, NULL);
		crypto_xor(out, ks, c * AES_BLOCK_SIZE);
		out += c * AES_BLOCK_SIZE;
		n -= c;
	}
	memzero_explicit(buf, sizeof(buf));
}

/* Keystream for a final partial block: E(iv), through a stack copy. */
static void pl_final_partial(struct pl_key *k, struct skcipher_walk *walk,
			     unsigned int nbytes)
{
	u8 ks[AES_BLOCK_SIZE];

	pl_one_block(&k->cw_enc, k->e, ks, walk->iv);
	crypto_xor_cpy(walk->dst.virt.addr, walk->src.virt.addr, ks, nbytes);
	memzero_explicit(ks, sizeof(ks));
}

static int pl_ctr_crypt(struct skcipher_request *req)
{
	struct pl_key *k = pl_skcipher_key(crypto_skcipher_reqtfm(req));
	struct skcipher_walk walk;
	unsigned int nbytes;
	int err;

	err = skcipher_walk_virt(&walk, req, false);
	while ((nbytes = walk.nbytes) >= AES_BLOCK_SIZE) {
		if (pl_hw_ctr)
			pl_ctr_hw(k, walk.src.virt.addr, walk.dst.virt.addr,
				  nbytes / AES_BLOCK_SIZE, walk.iv);
		else
			pl_ctr_ecb(k, walk.src.virt.addr, walk.dst.virt.addr,
				   nbytes / AES_BLOCK_SIZE, walk.iv);
		err = skcipher_walk_done(&walk, nbytes % AES_BLOCK_SIZE);
	}
	if (nbytes) {
		pl_final_partial(k, &walk, nbytes);
		crypto_inc(walk.iv, AES_BLOCK_SIZE);
		err = skcipher_walk_done(&walk, 0);
	}
	return err;
}

#ifdef PADLOCK_CFB_OFB
static int pl_fb_crypt(struct skcipher_request *req, enum pl_mode mode,
		       bool enc)
{
	struct pl_key *k = pl_skcipher_key(crypto_skcipher_reqtfm(req));
	/* CFB/OFB use the encryption schedule; OFB always encrypts (1.4). */
	const struct padlock_cword *cw = enc || mode == PL_OFB ?
					 &k->cw_enc : &k->cw_fbdec;
	struct skcipher_walk walk;
	unsigned int nbytes;
	int err;

	err = skcipher_walk_virt(&walk, req, false);
	while ((nbytes = walk.nbytes) >= AES_BLOCK_SIZE) {
		pl_run(mode, cw, k->e, walk.src.virt.addr, walk.dst.virt.addr,
		       nbytes / AES_BLOCK_SIZE, walk.iv);
		err = skcipher_walk_done(&walk, nbytes % AES_BLOCK_SIZE);
	}
	if (nbytes) {
		pl_final_partial(k, &walk, nbytes);
		err = skcipher_walk_done(&walk, 0);
	}
	return err;
}

static int pl_cfb_encrypt(struct skcipher_request *req)
{
	return pl_fb_crypt(req, PL_CFB, true);
}

static int pl_cfb_decrypt(struct skcipher_request *req)
{
	return pl_fb_crypt(req, PL_CFB, false);
}

static int pl_ofb_crypt(struct skcipher_request *req)
{
	return pl_fb_crypt(req, PL_OFB, true);
}
#endif /* PADLOCK_CFB_OFB */

/* ---- xts(aes) ------------------------------------------------------------- */

static int pl_xts_setkey(struct crypto_skcipher *tfm, const u8 *key,
			 unsigned int len)
{
	struct pl_xts_ctx *x = pl_xts_ctx(tfm);
	int err;

	/* odd lengths, and key1 == key2 where the generic xts refuses it */
	err = xts_verify_key(tfm, key, len);
	if (err)
		return err;
	err = pl_setkey(&x->data, key, len / 2);
	if (!err)
		err = pl_setkey(&x->tweak, key + len / 2, len / 2);
	return err;
}

static void pl_xts_exit(struct crypto_skcipher *tfm)
{
	struct pl_xts_ctx *x = pl_xts_ctx(tfm);

	pl_wipe_key(&x->data);
	pl_wipe_key(&x->tweak);
}

/*
 * n whole blocks: dst = E(src ^ T_i) ^ T_i with one ECB instruction over
 * the destination; *t advances by n.
 */
static void pl_xts_blocks(const struct padlock_cword *cw, const void *key,
			  const u8 *src, u8 *dst, unsigned long n, le128 *t)
{
	le128 t0 = *t;
	unsigned long i;

	for (i = 0; i < n; i++) {
		crypto_xor_cpy(dst + i * AES_BLOCK_SIZE, src + i * AES_BLOCK_SIZE,
			       (const u8 *)t, AES_BLOCK_SIZE);
		gf128mul_x_ble(t, t);
	}
	pl_run(PL_ECB, cw, key, dst, dst, n, NULL);
	for (i = 0; i < n; i++) {
		crypto_xor(dst + i * AES_BLOCK_SIZE, (const u8 *)&t0,
			   AES_BLOCK_SIZE);
		gf128mul_x_ble(&t0, &t0);
	}
	memzero_explicit(&t0, sizeof(t0));
}

/* One block in place in an aligned stack buffer. */
static void pl_xts_one(const struct padlock_cword *cw, const void *key,
		       u8 *blk, const le128 *t)
{
	crypto_xor(blk, (const u8 *)t, AES_BLOCK_SIZE);
	pl_one_block(cw, key, blk, blk);
	crypto_xor(blk, (const u8 *)t, AES_BLOCK_SIZE);
}

static int pl_xts_crypt(struct skcipher_request *req, bool enc)
{
	struct crypto_skcipher *tfm = crypto_skcipher_reqtfm(req);
	struct pl_xts_ctx *x = pl_xts_ctx(tfm);
	const struct padlock_cword *cw = enc ? &x->data.cw_enc : &x->data.cw_dec;
	const u32 *key = enc ? x->data.e : pl_dec_key(&x->data);
	unsigned int tail = req->cryptlen % AES_BLOCK_SIZE;
	unsigned int len = req->cryptlen;
	struct skcipher_request subreq;
	struct skcipher_request *r = req;
	struct skcipher_walk walk;
	u8 buf[2 * AES_BLOCK_SIZE + PADLOCK_ALIGN - 1];
	u8 *b = pl_align(buf);
	le128 t, t2;
	unsigned int nbytes;
	int err;

	if (req->cryptlen < AES_BLOCK_SIZE)
		return -EINVAL;

	if (tail) {
		/* all whole blocks but the last; that one and the tail: CTS */
		len -= AES_BLOCK_SIZE + tail;
		skcipher_request_set_tfm(&subreq, tfm);
		skcipher_request_set_callback(&subreq,
					      skcipher_request_flags(req),
					      NULL, NULL);
		skcipher_request_set_crypt(&subreq, req->src, req->dst, len,
					   req->iv);
		r = &subreq;
	}

	/* T = E_k2(IV) */
	pl_one_block(&x->tweak.cw_enc, x->tweak.e, (u8 *)&t, req->iv);

	err = skcipher_walk_virt(&walk, r, false);
	while ((nbytes = walk.nbytes) != 0) {
		pl_xts_blocks(cw, key, walk.src.virt.addr, walk.dst.virt.addr,
			      nbytes / AES_BLOCK_SIZE, &t);
		err = skcipher_walk_done(&walk, nbytes % AES_BLOCK_SIZE);
	}
	if (err || !tail)
		goto out;

	/* Ciphertext stealing over the last full block and the tail. */
	scatterwalk_map_and_copy(b, req->src, len, AES_BLOCK_SIZE + tail, 0);
	t2 = t;
	gf128mul_x_ble(&t2, &t2);
	if (enc) {
		/* CC = E(P[m-1]); C[m] = CC[0:tail]; C[m-1] = E(P[m] | CC[tail:]) */
		pl_xts_one(cw, key, b, &t);
	} else {
		/* PP = D(C[m-1]) with T[m]; P[m] = PP[0:tail]; P[m-1] = D(C[m] | PP[tail:]) */
		pl_xts_one(cw, key, b, &t2);
	}
	{
		u8 last[AES_BLOCK_SIZE];

		/* b[0:16] = the stolen-from block, b[16:16+tail] = the tail */
		memcpy(last, b + AES_BLOCK_SIZE, tail);
		memcpy(b + AES_BLOCK_SIZE, b, tail);
		memcpy(b, last, tail);
		memzero_explicit(last, sizeof(last));
	}
	pl_xts_one(cw, key, b, enc ? &t2 : &t);
	scatterwalk_map_and_copy(b, req->dst, len, AES_BLOCK_SIZE + tail, 1);
out:
	memzero_explicit(buf, sizeof(buf));
	memzero_explicit(&t, sizeof(t));
	memzero_explicit(&t2, sizeof(t2));
	return err;
}

static int pl_xts_encrypt(struct skcipher_request *req)
{
	return pl_xts_crypt(req, true);
}

static int pl_xts_decrypt(struct skcipher_request *req)
{
	return pl_xts_crypt(req, false);
}

/* ---- registration ------------------------------------------------------ */

#define PL_SKCIPHER_BASE(name, drv, bs, ctx)				\
	.base.cra_name		= name,					\
	.base.cra_driver_name	= drv,					\
	.base.cra_blocksize	= bs,					\
	.base.cra_ctxsize	= PL_CTXSIZE(ctx),			\
	.base.cra_alignmask	= PADLOCK_ALIGN - 1,			\
	.base.cra_module	= THIS_MODULE

static struct skcipher_alg pl_skciphers[] = {
	{
		PL_SKCIPHER_BASE("ecb(aes)", "ecb-aes-padlock", AES_BLOCK_SIZE,
				 struct pl_key),
		.min_keysize	= AES_MIN_KEY_SIZE,
		.max_keysize	= AES_MAX_KEY_SIZE,
		.setkey		= pl_skcipher_setkey,
		.encrypt	= pl_ecb_encrypt,
		.decrypt	= pl_ecb_decrypt,
		.exit		= pl_skcipher_exit,
	}, {
		PL_SKCIPHER_BASE("cbc(aes)", "cbc-aes-padlock", AES_BLOCK_SIZE,
				 struct pl_key),
		.min_keysize	= AES_MIN_KEY_SIZE,
		.max_keysize	= AES_MAX_KEY_SIZE,
		.ivsize		= AES_BLOCK_SIZE,
		.setkey		= pl_skcipher_setkey,
		.encrypt	= pl_cbc_encrypt,
		.decrypt	= pl_cbc_decrypt,
		.exit		= pl_skcipher_exit,
	}, {
		PL_SKCIPHER_BASE("ctr(aes)", "ctr-aes-padlock", 1,
				 struct pl_key),
		.min_keysize	= AES_MIN_KEY_SIZE,
		.max_keysize	= AES_MAX_KEY_SIZE,
		.ivsize		= AES_BLOCK_SIZE,
		.chunksize	= AES_BLOCK_SIZE,
		.setkey		= pl_skcipher_setkey,
		.encrypt	= pl_ctr_crypt,
		.decrypt	= pl_ctr_crypt,
		.exit		= pl_skcipher_exit,
	}, {
		PL_SKCIPHER_BASE("xts(aes)", "xts-aes-padlock", AES_BLOCK_SIZE,
				 struct pl_xts_ctx),
		.min_keysize	= 2 * AES_MIN_KEY_SIZE,
		.max_keysize	= 2 * AES_MAX_KEY_SIZE,
		.ivsize		= AES_BLOCK_SIZE,
		.setkey		= pl_xts_setkey,
		.encrypt	= pl_xts_encrypt,
		.decrypt	= pl_xts_decrypt,
		.exit		= pl_xts_exit,
#ifdef PADLOCK_CFB_OFB
	}, {
		PL_SKCIPHER_BASE("cfb(aes)", "cfb-aes-padlock", 1,
				 struct pl_key),
		.min_keysize	= AES_MIN_KEY_SIZE,
		.max_keysize	= AES_MAX_KEY_SIZE,
		.ivsize		= AES_BLOCK_SIZE,
		.chunksize	= AES_BLOCK_SIZE,
		.setkey		= pl_skcipher_setkey,
		.encrypt	= pl_cfb_encrypt,
		.decrypt	= pl_cfb_decrypt,
		.exit		= pl_skcipher_exit,
	}, {
		PL_SKCIPHER_BASE("ofb(aes)", "ofb-aes-padlock", 1,
				 struct pl_key),
		.min_keysize	= AES_MIN_KEY_SIZE,
		.max_keysize	= AES_MAX_KEY_SIZE,
		.ivsize		= AES_BLOCK_SIZE,
		.chunksize	= AES_BLOCK_SIZE,
		.setkey		= pl_skcipher_setkey,
		.encrypt	= pl_ofb_crypt,
		.decrypt	= pl_ofb_crypt,
		.exit		= pl_skcipher_exit,
#endif
	}
};

static const struct x86_cpu_id padlock_aes_ids[] = {
	X86_MATCH_FEATURE(X86_FEATURE_XCRYPT, NULL),
	{}
};
MODULE_DEVICE_TABLE(x86cpu, padlock_aes_ids);

static int __init padlock_aes_init(void)
{
	int prio, i, err;

	if (!x86_match_cpu(padlock_aes_ids) || !padlock_cpu_has_ace()) {
		pr_info("no VIA/Zhaoxin PadLock ACE (xcrypt) unit on this CPU, or it is disabled\n");
		return -ENODEV;
	}

	pl_ecb_fetch = padlock_cpu_ecb_fetch_blocks();
	pl_cbc_fetch = padlock_cpu_cbc_fetch_blocks();
	if (WARN_ON(pl_ecb_fetch > PL_MAX_FETCH || pl_cbc_fetch > PL_MAX_FETCH ||
		    !is_power_of_2(pl_ecb_fetch) || !is_power_of_2(pl_cbc_fetch)))
		return -ENODEV;
	pl_hw_ctr = padlock_cpu_ctr_sound();
	prio = padlock_cpu_aes_priority(priority);

	pl_cipher_alg.cra_priority = prio > 100 ? prio - 100 : 1;
	for (i = 0; i < ARRAY_SIZE(pl_skciphers); i++)
		pl_skciphers[i].base.cra_priority = prio;

	err = crypto_register_alg(&pl_cipher_alg);
	if (err)
		return err;
	err = crypto_register_skciphers(pl_skciphers, ARRAY_SIZE(pl_skciphers));
	if (err) {
		crypto_unregister_alg(&pl_cipher_alg);
		return err;
	}
	pr_info("PadLock ACE: aes ecb cbc ctr(%s) xts%s, priority %d, fetch ECB %u/CBC %u blocks%s\n",
		pl_hw_ctr ? "ACE2" : "via ECB",
		PL_FB_NAMES, prio,
		pl_ecb_fetch, pl_cbc_fetch,
		padlock_cpu_nano_stepping2() ? " (Nano stepping 2 prefetch erratum)" : "");
	return 0;
}

static void __exit padlock_aes_exit(void)
{
	crypto_unregister_skciphers(pl_skciphers, ARRAY_SIZE(pl_skciphers));
	crypto_unregister_alg(&pl_cipher_alg);
}

module_init(padlock_aes_init);
module_exit(padlock_aes_exit);

MODULE_DESCRIPTION("AES with the VIA/Zhaoxin PadLock ACE unit (ecb, cbc, ctr, xts)");
MODULE_LICENSE("GPL");
MODULE_VERSION(PADLOCK_VERSION);
PADLOCK_IMPORT_CRYPTO_INTERNAL();
MODULE_ALIAS_CRYPTO("aes");
MODULE_ALIAS_CRYPTO("aes-padlock");
MODULE_ALIAS_CRYPTO("ecb(aes)");
MODULE_ALIAS_CRYPTO("ecb-aes-padlock");
MODULE_ALIAS_CRYPTO("cbc(aes)");
MODULE_ALIAS_CRYPTO("cbc-aes-padlock");
MODULE_ALIAS_CRYPTO("ctr(aes)");
MODULE_ALIAS_CRYPTO("ctr-aes-padlock");
MODULE_ALIAS_CRYPTO("xts(aes)");
MODULE_ALIAS_CRYPTO("xts-aes-padlock");
#ifdef PADLOCK_CFB_OFB
MODULE_ALIAS_CRYPTO("cfb(aes)");
MODULE_ALIAS_CRYPTO("cfb-aes-padlock");
MODULE_ALIAS_CRYPTO("ofb(aes)");
MODULE_ALIAS_CRYPTO("ofb-aes-padlock");
#endif
