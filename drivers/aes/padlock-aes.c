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
 *   cts(cbc(aes)) cts-cbc-aes-padlock  CBC with ciphertext stealing (CS3),
 *                                  as fscrypt encrypts file names
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
#include <crypto/internal/cipher.h>
#include <crypto/internal/skcipher.h>
#include <crypto/scatterwalk.h>
#include <crypto/xts.h>
#include <asm/cpu_device_id.h>

#include "padlock-asm.h"
#include "padlock-cpu.h"

static int priority;
module_param(priority, int, 0444);
MODULE_PARM_DESC(priority,
		 "crypto priority of the skciphers (the single-block aes gets 100 less, cts 1 more); 0 = 450, or 350 (below aesni, and aes below the kernel's AES-NI cipher) when the CPU also has AES-NI");

/*
 * The engine may read up to 256 bytes of key schedule (docs/hardware.md 1.4), and
 * wants the key, the control word and all data 16-byte aligned.
 */
#define PADLOCK_AES_KEY_WORDS	64

struct padlock_aes_key {
	u32 e[PADLOCK_AES_KEY_WORDS] __aligned(PADLOCK_ALIGN);	/* raw key or enc schedule */
	u32 d[PADLOCK_AES_KEY_WORDS] __aligned(PADLOCK_ALIGN);	/* dec schedule (192/256) */
	struct padlock_cword cw_enc;
	struct padlock_cword cw_dec;	/* also CFB decryption, with the enc schedule */
	unsigned int keylen;
};

struct padlock_aes_xts_ctx {
	struct padlock_aes_key data;
	struct padlock_aes_key tweak;
};

/* Context memory is only guaranteed CRYPTO_MINALIGN: align it ourselves. */
#define PADLOCK_AES_CTXSIZE(type)	(sizeof(type) + PADLOCK_ALIGN - 1)

static inline void *padlock_aes_align(void *p)
{
	return PTR_ALIGN(p, PADLOCK_ALIGN);
}

static inline struct padlock_aes_key *padlock_aes_skcipher_key(struct crypto_skcipher *tfm)
{
	return padlock_aes_align(crypto_skcipher_ctx(tfm));
}

static inline struct padlock_aes_xts_ctx *padlock_aes_xts_ctx(struct crypto_skcipher *tfm)
{
	return padlock_aes_align(crypto_skcipher_ctx(tfm));
}

static inline const u32 *padlock_aes_dec_key(const struct padlock_aes_key *k)
{
	/* Hardware key expansion (128 bits) takes the raw key both ways. */
	return k->keylen == AES_KEYSIZE_128 ? k->e : k->d;
}

/* Blocks the engine fetches per instruction (docs/hardware.md 2.2), set at load. */
static unsigned int padlock_aes_ecb_fetch __read_mostly = 2;
static unsigned int padlock_aes_cbc_fetch __read_mostly = 1;
static bool padlock_aes_hw_ctr __read_mostly;

#ifdef PADLOCK_CFB_OFB
#define PADLOCK_AES_FB_NAMES	" cfb ofb"
#else
#define PADLOCK_AES_FB_NAMES	""
#endif

/*
 * No key cache in software: every xcrypt of padlock-asm.h reloads the key
 * and control word (pushf; popf in the same asm statement), because EFLAGS
 * bit 30 may be set on entry to the kernel by a user-space xcrypt with the
 * user's key, and survives anything but an EFLAGS load (docs/hardware.md 1.5).
 */

static int padlock_aes_setkey(struct padlock_aes_key *k, const u8 *key, unsigned int len)
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
	k->keylen = len;
	return 0;
}

static void padlock_aes_wipe_key(struct padlock_aes_key *k)
{
	memzero_explicit(k, sizeof(*k));
}

/* ---- running instructions ------------------------------------------------ */

enum padlock_aes_mode {
	PADLOCK_AES_ECB, PADLOCK_AES_CBC, PADLOCK_AES_CTR, PADLOCK_AES_CFB, PADLOCK_AES_OFB
};

/*
 * One instruction.  For the chaining modes the next IV is copied from the
 * address the engine leaves in rAX (docs/hardware.md 1.2) into @iv; for CTR the engine
 * advances the counter block at @iv in place.
 */
static __always_inline void padlock_aes_issue(enum padlock_aes_mode mode,
					      const struct padlock_cword *cw,
					      const void *key, const u8 *in, u8 *out,
					      unsigned long n, u8 *iv)
{
	const u8 *next = iv;

	switch (mode) {
	case PADLOCK_AES_ECB:
		padlock_xcrypt_ecb(in, out, key, cw, n);
		break;
	case PADLOCK_AES_CBC:
		next = padlock_xcrypt_cbc(in, out, key, cw, iv, n);
		break;
	case PADLOCK_AES_CFB:
		next = padlock_xcrypt_cfb(in, out, key, cw, iv, n);
		break;
	case PADLOCK_AES_OFB:
		next = padlock_xcrypt_ofb(in, out, key, cw, iv, n);
		break;
	case PADLOCK_AES_CTR:
		padlock_xcrypt_ctr(in, out, key, cw, iv, n);
		break;
	}
	if (next != iv)
		memcpy(iv, next, AES_BLOCK_SIZE);
}

#define PADLOCK_AES_MAX_FETCH		8
#define PADLOCK_AES_WINDOW		(PADLOCK_AES_MAX_FETCH * AES_BLOCK_SIZE)
#define PADLOCK_AES_BOUNCE_BYTES	(2 * PADLOCK_AES_WINDOW + PADLOCK_ALIGN - 1)

/*
 * A 16-byte aligned PADLOCK_AES_WINDOW-byte area inside @buf
 * (PADLOCK_AES_BOUNCE_BYTES long) that does not cross a page boundary: the
 * engine's over-read of a bounced input stays in the page of its last byte.
 */
static u8 *padlock_aes_bounce_window(u8 *buf)
{
	unsigned long p = ALIGN((unsigned long)buf, PADLOCK_ALIGN);

	if ((p ^ (p + PADLOCK_AES_WINDOW - 1)) & PAGE_MASK)
		p = (p + PADLOCK_AES_WINDOW - 1) & PAGE_MASK;
	return (u8 *)p;
}

static unsigned int padlock_aes_fetch_blocks(enum padlock_aes_mode mode)
{
	/* CFB/OFB fetch sizes are not documented: assume ECB's (the larger). */
	return mode == PADLOCK_AES_CBC ? padlock_aes_cbc_fetch : padlock_aes_ecb_fetch;
}

/*
 * The slow path of padlock_aes_run(): a request shorter than one fetch group
 * whose over-read would leave the page goes through an aligned stack window.
 * Not inlined, so that only this path carries the buffer: a kernel built with
 * CONFIG_INIT_STACK_ALL_ZERO clears every on-stack array on each call.
 */
static noinline void padlock_aes_run_bounced(enum padlock_aes_mode mode,
					     const struct padlock_cword *cw,
					     const void *key, const u8 *in, u8 *out,
					     unsigned long n, u8 *iv)
{
	u8 buf[PADLOCK_AES_BOUNCE_BYTES];
	u8 *tmp = padlock_aes_bounce_window(buf);

	memcpy(tmp, in, n * AES_BLOCK_SIZE);
	padlock_aes_issue(mode, cw, key, tmp, out, n, iv);
	memzero_explicit(tmp, n * AES_BLOCK_SIZE);
}

/*
 * Run @n blocks through the engine as one instruction, except where the
 * prefetch erratum (docs/hardware.md 2.2) would make it read past the page
 * holding the last input byte: the engine reads roundup(n, fetch) blocks.
 * Then the n % fetch odd blocks go first, whose over-read stays inside this
 * request's own input, and the rest, whole fetch groups, ends exactly at the
 * input's end; the engine carries the IV or counter from one to the other.
 * Only a request shorter than one fetch group is copied.  Inlined into
 * each caller, whose mode is a constant: the mode's dispatch and the fetch
 * size then cost nothing per walk step.
 */
static __always_inline void padlock_aes_run(enum padlock_aes_mode mode,
					    const struct padlock_cword *cw,
					    const void *key, const u8 *in, u8 *out,
					    unsigned long n, u8 *iv)
{
	unsigned int fetch = padlock_aes_fetch_blocks(mode);
	unsigned long rem = n & (fetch - 1);
	unsigned long last, end;

	if (!n)
		return;
	last = (unsigned long)in + n * AES_BLOCK_SIZE - 1;
	end = last + (fetch - rem) * AES_BLOCK_SIZE;
	if (likely(!rem || !((last ^ end) & PAGE_MASK))) {
		padlock_aes_issue(mode, cw, key, in, out, n, iv);
	} else if (n > rem) {
		padlock_aes_issue(mode, cw, key, in, out, rem, iv);
		padlock_aes_issue(mode, cw, key, in + rem * AES_BLOCK_SIZE,
				  out + rem * AES_BLOCK_SIZE, n - rem, iv);
	} else {
		padlock_aes_run_bounced(mode, cw, key, in, out, n, iv);
	}
}

/* One block through a page-safe aligned stack copy (any alignment in/out). */
static void padlock_aes_one_block(const struct padlock_cword *cw, const void *key,
				  u8 *out, const u8 *in)
{
	u8 buf[PADLOCK_AES_BOUNCE_BYTES];
	u8 *tmp = padlock_aes_bounce_window(buf);

	memcpy(tmp, in, AES_BLOCK_SIZE);
	padlock_aes_issue(PADLOCK_AES_ECB, cw, key, tmp, tmp, 1, NULL);
	memcpy(out, tmp, AES_BLOCK_SIZE);
	memzero_explicit(tmp, AES_BLOCK_SIZE);
}

/* ---- aes: the single-block cipher ------------------------------------- */

static struct padlock_aes_key *padlock_aes_cipher_key(struct crypto_tfm *tfm)
{
	return padlock_aes_align(crypto_tfm_ctx(tfm));
}

static int padlock_aes_cipher_setkey(struct crypto_tfm *tfm, const u8 *key,
				     unsigned int len)
{
	return padlock_aes_setkey(padlock_aes_cipher_key(tfm), key, len);
}

static void padlock_aes_cipher_encrypt(struct crypto_tfm *tfm, u8 *out, const u8 *in)
{
	struct padlock_aes_key *k = padlock_aes_cipher_key(tfm);

	padlock_aes_run(PADLOCK_AES_ECB, &k->cw_enc, k->e, in, out, 1, NULL);
}

static void padlock_aes_cipher_decrypt(struct crypto_tfm *tfm, u8 *out, const u8 *in)
{
	struct padlock_aes_key *k = padlock_aes_cipher_key(tfm);

	padlock_aes_run(PADLOCK_AES_ECB, &k->cw_dec, padlock_aes_dec_key(k), in, out, 1, NULL);
}

static void padlock_aes_cipher_exit(struct crypto_tfm *tfm)
{
	padlock_aes_wipe_key(padlock_aes_cipher_key(tfm));
}

static struct crypto_alg padlock_aes_cipher_alg = {
	.cra_name		= "aes",
	.cra_driver_name	= "aes-padlock",
	.cra_flags		= CRYPTO_ALG_TYPE_CIPHER,
	.cra_blocksize		= AES_BLOCK_SIZE,
	.cra_ctxsize		= PADLOCK_AES_CTXSIZE(struct padlock_aes_key),
	.cra_alignmask		= PADLOCK_ALIGN - 1,
	.cra_module		= THIS_MODULE,
	.cra_exit		= padlock_aes_cipher_exit,
	.cra_u			= {
		.cipher = {
			.cia_min_keysize	= AES_MIN_KEY_SIZE,
			.cia_max_keysize	= AES_MAX_KEY_SIZE,
			.cia_setkey		= padlock_aes_cipher_setkey,
			.cia_encrypt		= padlock_aes_cipher_encrypt,
			.cia_decrypt		= padlock_aes_cipher_decrypt,
		}
	}
};

/* ---- skciphers ----------------------------------------------------------- */

static int padlock_aes_skcipher_setkey(struct crypto_skcipher *tfm, const u8 *key,
				       unsigned int len)
{
	return padlock_aes_setkey(padlock_aes_skcipher_key(tfm), key, len);
}

static void padlock_aes_skcipher_exit(struct crypto_skcipher *tfm)
{
	padlock_aes_wipe_key(padlock_aes_skcipher_key(tfm));
}

/*
 * ECB and CBC over the walk, whole blocks only, one instruction per walk
 * step; inlined so that @mode and @enc are constants.
 */
static __always_inline int padlock_aes_block_crypt(struct skcipher_request *req,
						   enum padlock_aes_mode mode, bool enc)
{
	struct padlock_aes_key *k = padlock_aes_skcipher_key(crypto_skcipher_reqtfm(req));
	const struct padlock_cword *cw = enc ? &k->cw_enc : &k->cw_dec;
	const u32 *key = enc ? k->e : padlock_aes_dec_key(k);
	struct skcipher_walk walk;
	unsigned int nbytes;
	int err;

	if (req->cryptlen % AES_BLOCK_SIZE)
		return -EINVAL;
	err = skcipher_walk_virt(&walk, req, false);
	while ((nbytes = walk.nbytes) != 0) {
		/* CBC: walk.iv is aligned (alignmask) and receives the next IV */
		padlock_aes_run(mode, cw, key, walk.src.virt.addr, walk.dst.virt.addr,
				nbytes / AES_BLOCK_SIZE, walk.iv);
		err = skcipher_walk_done(&walk, nbytes % AES_BLOCK_SIZE);
	}
	return err;
}

static int padlock_aes_ecb_encrypt(struct skcipher_request *req)
{
	return padlock_aes_block_crypt(req, PADLOCK_AES_ECB, true);
}

static int padlock_aes_ecb_decrypt(struct skcipher_request *req)
{
	return padlock_aes_block_crypt(req, PADLOCK_AES_ECB, false);
}

static int padlock_aes_cbc_encrypt(struct skcipher_request *req)
{
	return padlock_aes_block_crypt(req, PADLOCK_AES_CBC, true);
}

static int padlock_aes_cbc_decrypt(struct skcipher_request *req)
{
	return padlock_aes_block_crypt(req, PADLOCK_AES_CBC, false);
}

/* CTR on ACE2: the engine increments only the low 16 bits (docs/hardware.md 1.2). */
static void padlock_aes_ctr_hw(struct padlock_aes_key *k, const u8 *in, u8 *out,
			       unsigned long n, u8 *ctr)
{
	unsigned long room, c;

	while (n) {
		room = 0x10000 - ((ctr[14] << 8) | ctr[15]);
		c = min(n, room);
		padlock_aes_run(PADLOCK_AES_CTR, &k->cw_enc, k->e, in, out, c, ctr);
		if (c == room)			/* low 16 bits wrapped to 0 */
			crypto_inc(ctr, AES_BLOCK_SIZE - 2);
		in += c * AES_BLOCK_SIZE;
		out += c * AES_BLOCK_SIZE;
		n -= c;
	}
}

#define PADLOCK_AES_CTR_BATCH	16

/* CTR without ACE2: encrypt counter blocks with ECB, then XOR. */
static void padlock_aes_ctr_ecb(struct padlock_aes_key *k, const u8 *in, u8 *out,
				unsigned long n, u8 *ctr)
{
	u8 buf[PADLOCK_AES_CTR_BATCH * AES_BLOCK_SIZE + PADLOCK_ALIGN - 1];
	u8 *ks = padlock_aes_align(buf);
	unsigned long i, c;

	if (in != out) {
		/* The destination holds the counters: one instruction. */
		for (i = 0; i < n; i++) {
			memcpy(out + i * AES_BLOCK_SIZE, ctr, AES_BLOCK_SIZE);
			crypto_inc(ctr, AES_BLOCK_SIZE);
		}
		padlock_aes_run(PADLOCK_AES_ECB, &k->cw_enc, k->e, out, out, n, NULL);
		crypto_xor(out, in, n * AES_BLOCK_SIZE);
		return;
	}
	while (n) {
		c = min_t(unsigned long, n, PADLOCK_AES_CTR_BATCH);
		for (i = 0; i < c; i++) {
			memcpy(ks + i * AES_BLOCK_SIZE, ctr, AES_BLOCK_SIZE);
			crypto_inc(ctr, AES_BLOCK_SIZE);
		}
		padlock_aes_run(PADLOCK_AES_ECB, &k->cw_enc, k->e, ks, ks, c, NULL);
		crypto_xor(out, ks, c * AES_BLOCK_SIZE);
		out += c * AES_BLOCK_SIZE;
		n -= c;
	}
	memzero_explicit(buf, sizeof(buf));
}

/* Keystream for a final partial block: E(iv), through a stack copy. */
static void padlock_aes_final_partial(struct padlock_aes_key *k, struct skcipher_walk *walk,
				      unsigned int nbytes)
{
	u8 ks[AES_BLOCK_SIZE];

	padlock_aes_one_block(&k->cw_enc, k->e, ks, walk->iv);
	crypto_xor_cpy(walk->dst.virt.addr, walk->src.virt.addr, ks, nbytes);
	memzero_explicit(ks, sizeof(ks));
}

static int padlock_aes_ctr_crypt(struct skcipher_request *req)
{
	struct padlock_aes_key *k = padlock_aes_skcipher_key(crypto_skcipher_reqtfm(req));
	struct skcipher_walk walk;
	unsigned int nbytes;
	int err;

	err = skcipher_walk_virt(&walk, req, false);
	while ((nbytes = walk.nbytes) >= AES_BLOCK_SIZE) {
		if (padlock_aes_hw_ctr)
			padlock_aes_ctr_hw(k, walk.src.virt.addr, walk.dst.virt.addr,
					   nbytes / AES_BLOCK_SIZE, walk.iv);
		else
			padlock_aes_ctr_ecb(k, walk.src.virt.addr, walk.dst.virt.addr,
					    nbytes / AES_BLOCK_SIZE, walk.iv);
		err = skcipher_walk_done(&walk, nbytes % AES_BLOCK_SIZE);
	}
	if (nbytes) {
		padlock_aes_final_partial(k, &walk, nbytes);
		crypto_inc(walk.iv, AES_BLOCK_SIZE);
		err = skcipher_walk_done(&walk, 0);
	}
	return err;
}

#ifdef PADLOCK_CFB_OFB
static int padlock_aes_fb_crypt(struct skcipher_request *req, enum padlock_aes_mode mode,
				bool enc)
{
	struct padlock_aes_key *k = padlock_aes_skcipher_key(crypto_skcipher_reqtfm(req));
	/* CFB/OFB use the encryption schedule; OFB always encrypts (1.4). */
	const struct padlock_cword *cw = enc || mode == PADLOCK_AES_OFB ?
					 &k->cw_enc : &k->cw_dec;
	struct skcipher_walk walk;
	unsigned int nbytes;
	int err;

	err = skcipher_walk_virt(&walk, req, false);
	while ((nbytes = walk.nbytes) >= AES_BLOCK_SIZE) {
		padlock_aes_run(mode, cw, k->e, walk.src.virt.addr, walk.dst.virt.addr,
				nbytes / AES_BLOCK_SIZE, walk.iv);
		err = skcipher_walk_done(&walk, nbytes % AES_BLOCK_SIZE);
	}
	if (nbytes) {
		padlock_aes_final_partial(k, &walk, nbytes);
		err = skcipher_walk_done(&walk, 0);
	}
	return err;
}

static int padlock_aes_cfb_encrypt(struct skcipher_request *req)
{
	return padlock_aes_fb_crypt(req, PADLOCK_AES_CFB, true);
}

static int padlock_aes_cfb_decrypt(struct skcipher_request *req)
{
	return padlock_aes_fb_crypt(req, PADLOCK_AES_CFB, false);
}

static int padlock_aes_ofb_crypt(struct skcipher_request *req)
{
	return padlock_aes_fb_crypt(req, PADLOCK_AES_OFB, true);
}
#endif /* PADLOCK_CFB_OFB */

/* ---- xts(aes) ------------------------------------------------------------- */

static int padlock_aes_xts_setkey(struct crypto_skcipher *tfm, const u8 *key,
				  unsigned int len)
{
	struct padlock_aes_xts_ctx *x = padlock_aes_xts_ctx(tfm);
	int err;

	/* odd lengths, and key1 == key2 where the generic xts refuses it */
	err = xts_verify_key(tfm, key, len);
	if (err)
		return err;
	err = padlock_aes_setkey(&x->data, key, len / 2);
	if (!err)
		err = padlock_aes_setkey(&x->tweak, key + len / 2, len / 2);
	return err;
}

static void padlock_aes_xts_exit(struct crypto_skcipher *tfm)
{
	struct padlock_aes_xts_ctx *x = padlock_aes_xts_ctx(tfm);

	padlock_aes_wipe_key(&x->data);
	padlock_aes_wipe_key(&x->tweak);
}

/*
 * dst = src ^ T_i over @n blocks (16-byte aligned, the alignmask), T_0 = @t;
 * returns T_n.  The tweak goes in and out by value so that it stays in
 * registers: held in memory, it would be reloaded after every store to dst,
 * which the compiler must assume may alias it.
 */
static __always_inline le128 padlock_aes_xts_xor(u8 *dst, const u8 *src,
						 unsigned long n, le128 t)
{
	const le128 *s = (const le128 *)src;
	le128 *d = (le128 *)dst;
	unsigned long i;

	for (i = 0; i < n; i++) {
		le128_xor(&d[i], &s[i], &t);
		gf128mul_x_ble(&t, &t);
	}
	return t;
}

/*
 * n whole blocks: dst = E(src ^ T_i) ^ T_i with one ECB instruction over
 * the destination; *t advances by n.
 */
static void padlock_aes_xts_blocks(const struct padlock_cword *cw, const void *key,
				   const u8 *src, u8 *dst, unsigned long n, le128 *t)
{
	le128 t0 = *t;

	*t = padlock_aes_xts_xor(dst, src, n, t0);
	padlock_aes_run(PADLOCK_AES_ECB, cw, key, dst, dst, n, NULL);
	padlock_aes_xts_xor(dst, dst, n, t0);
}

/*
 * Ciphertext stealing swaps bytes between a full block at @b and the @tail
 * bytes that follow it: b[0:tail] and b[16:16 + tail] trade places.
 */
static void padlock_aes_swap_tail(u8 *b, unsigned int tail)
{
	u8 t[AES_BLOCK_SIZE];

	memcpy(t, b + AES_BLOCK_SIZE, tail);
	memcpy(b + AES_BLOCK_SIZE, b, tail);
	memcpy(b, t, tail);
	memzero_explicit(t, sizeof(t));
}

/* One block in place in an aligned stack buffer. */
static void padlock_aes_xts_one(const struct padlock_cword *cw, const void *key,
				u8 *blk, const le128 *t)
{
	crypto_xor(blk, (const u8 *)t, AES_BLOCK_SIZE);
	padlock_aes_one_block(cw, key, blk, blk);
	crypto_xor(blk, (const u8 *)t, AES_BLOCK_SIZE);
}

/*
 * Ciphertext stealing over the last full block and the @tail bytes after
 * it, at byte @off of the request; @t is the tweak of that full block.
 */
static void padlock_aes_xts_cts(struct skcipher_request *req,
				const struct padlock_cword *cw, const void *key,
				bool enc, unsigned int off, unsigned int tail,
				const le128 *t)
{
	u8 buf[2 * AES_BLOCK_SIZE + PADLOCK_ALIGN - 1];
	u8 *b = padlock_aes_align(buf);
	le128 t2 = *t;

	scatterwalk_map_and_copy(b, req->src, off, AES_BLOCK_SIZE + tail, 0);
	gf128mul_x_ble(&t2, &t2);
	/*
	 * Encryption: CC = E(P[m-1]); C[m] = CC[0:tail]; C[m-1] = E(P[m] | CC[tail:]).
	 * Decryption: PP = D(C[m-1]) with T[m]; P[m] = PP[0:tail];
	 * P[m-1] = D(C[m] | PP[tail:]) with T[m-1].
	 */
	padlock_aes_xts_one(cw, key, b, enc ? t : &t2);
	/* b[0:16] = the stolen-from block, b[16:16+tail] = the tail */
	padlock_aes_swap_tail(b, tail);
	padlock_aes_xts_one(cw, key, b, enc ? &t2 : t);
	scatterwalk_map_and_copy(b, req->dst, off, AES_BLOCK_SIZE + tail, 1);
	memzero_explicit(buf, sizeof(buf));
	memzero_explicit(&t2, sizeof(t2));
}

static int padlock_aes_xts_crypt(struct skcipher_request *req, bool enc)
{
	struct crypto_skcipher *tfm = crypto_skcipher_reqtfm(req);
	struct padlock_aes_xts_ctx *x = padlock_aes_xts_ctx(tfm);
	const struct padlock_cword *cw = enc ? &x->data.cw_enc : &x->data.cw_dec;
	const u32 *key = enc ? x->data.e : padlock_aes_dec_key(&x->data);
	unsigned int tail = req->cryptlen % AES_BLOCK_SIZE;
	unsigned int len = req->cryptlen;
	struct skcipher_request subreq;
	struct skcipher_request *r = req;
	struct skcipher_walk walk;
	unsigned int nbytes;
	le128 t;
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
	padlock_aes_one_block(&x->tweak.cw_enc, x->tweak.e, (u8 *)&t, req->iv);

	err = skcipher_walk_virt(&walk, r, false);
	while ((nbytes = walk.nbytes) != 0) {
		padlock_aes_xts_blocks(cw, key, walk.src.virt.addr, walk.dst.virt.addr,
				       nbytes / AES_BLOCK_SIZE, &t);
		err = skcipher_walk_done(&walk, nbytes % AES_BLOCK_SIZE);
	}
	if (!err && tail)
		padlock_aes_xts_cts(req, cw, key, enc, len, tail, &t);
	memzero_explicit(&t, sizeof(t));
	return err;
}

static int padlock_aes_xts_encrypt(struct skcipher_request *req)
{
	return padlock_aes_xts_crypt(req, true);
}

static int padlock_aes_xts_decrypt(struct skcipher_request *req)
{
	return padlock_aes_xts_crypt(req, false);
}

/* ---- cts(cbc(aes)) -------------------------------------------------------- */

/*
 * CBC with ciphertext stealing, the variant Linux's cts template implements
 * (NIST SP 800-38A addendum CS3, as Kerberos and fscrypt use it): a request
 * of exactly one block is plain CBC; otherwise the last full block and the
 * 1 to 16 bytes after it (the tail) are encrypted as CBC over the tail
 * padded with zeros, and the two final ciphertext blocks change places, the
 * second-to-last one truncated to the tail's length.  Shorter than a block:
 * -EINVAL.  Like the template, the IV left in req->iv is the ciphertext block
 * that ends at the tail (both ways), so that chained requests match it.
 *
 * The blocks that trade places, at @off - 16 (a full one) and @off (the
 * @tail bytes), once CBC has run over everything before them (encryption)
 * or before @off - 16 (decryption) and left its IV out in req->iv:
 *
 * Encryption: req->iv is C, the last ciphertext block so far.  The padded
 * tail, chained to it, goes at @off - 16; C, cut to @tail bytes, goes last.
 *
 * Decryption: req->iv is the block before C (or the IV), C is at @off - 16.
 * D = D_k(C); the tail's plaintext is D ^ (tail | 0), and the block that
 * encryption stole from is tail | D[tail:16], which decrypts with the block
 * before C as its IV.
 */
static void padlock_aes_cts_last(struct skcipher_request *req, struct padlock_aes_key *k,
				 bool enc, unsigned int off, unsigned int tail)
{
	u8 buf[4 * AES_BLOCK_SIZE + PADLOCK_ALIGN - 1];
	u8 *b = padlock_aes_align(buf);
	u8 *iv = b + 2 * AES_BLOCK_SIZE;
	u8 *out_iv = b + 3 * AES_BLOCK_SIZE;
	const u32 *dkey = padlock_aes_dec_key(k);

	memcpy(iv, req->iv, AES_BLOCK_SIZE);
	if (enc) {
		memset(b, 0, AES_BLOCK_SIZE);
		scatterwalk_map_and_copy(b, req->src, off, tail, 0);
		memcpy(b + AES_BLOCK_SIZE, iv, tail);
		padlock_aes_run(PADLOCK_AES_CBC, &k->cw_enc, k->e, b, b, 1, iv);
		memcpy(out_iv, b, AES_BLOCK_SIZE);
	} else {
		scatterwalk_map_and_copy(b, req->src, off - AES_BLOCK_SIZE,
					 AES_BLOCK_SIZE + tail, 0);
		memcpy(out_iv, b, AES_BLOCK_SIZE);
		padlock_aes_run(PADLOCK_AES_ECB, &k->cw_dec, dkey, b, b, 1, NULL);
		/* b[0:tail] = the tail's plaintext; it and the tail trade places */
		crypto_xor(b, b + AES_BLOCK_SIZE, tail);
		padlock_aes_swap_tail(b, tail);
		padlock_aes_run(PADLOCK_AES_CBC, &k->cw_dec, dkey, b, b, 1, iv);
	}
	scatterwalk_map_and_copy(b, req->dst, off - AES_BLOCK_SIZE,
				 AES_BLOCK_SIZE + tail, 1);
	memcpy(req->iv, out_iv, AES_BLOCK_SIZE);
	memzero_explicit(buf, sizeof(buf));
}

static int padlock_aes_cts_crypt(struct skcipher_request *req, bool enc)
{
	struct crypto_skcipher *tfm = crypto_skcipher_reqtfm(req);
	struct padlock_aes_key *k = padlock_aes_skcipher_key(tfm);
	unsigned int off, tail, len;
	struct skcipher_request subreq;
	int err;

	if (req->cryptlen < AES_BLOCK_SIZE)
		return -EINVAL;
	if (req->cryptlen == AES_BLOCK_SIZE)
		return padlock_aes_block_crypt(req, PADLOCK_AES_CBC, enc);

	off = rounddown(req->cryptlen - 1, AES_BLOCK_SIZE);
	tail = req->cryptlen - off;
	/* plain CBC up to the tail (decryption: up to the block before it) */
	len = enc ? off : off - AES_BLOCK_SIZE;
	if (len) {
		skcipher_request_set_tfm(&subreq, tfm);
		skcipher_request_set_callback(&subreq, skcipher_request_flags(req),
					      NULL, NULL);
		skcipher_request_set_crypt(&subreq, req->src, req->dst, len, req->iv);
		err = padlock_aes_block_crypt(&subreq, PADLOCK_AES_CBC, enc);
		if (err)
			return err;
	}
	padlock_aes_cts_last(req, k, enc, off, tail);
	return 0;
}

static int padlock_aes_cts_encrypt(struct skcipher_request *req)
{
	return padlock_aes_cts_crypt(req, true);
}

static int padlock_aes_cts_decrypt(struct skcipher_request *req)
{
	return padlock_aes_cts_crypt(req, false);
}

/* ---- registration ------------------------------------------------------ */

#define PADLOCK_AES_NAMED_BASE(name, drv, bs, ctx)			\
	.base.cra_name		= (name),				\
	.base.cra_driver_name	= (drv),				\
	.base.cra_blocksize	= (bs),					\
	.base.cra_ctxsize	= PADLOCK_AES_CTXSIZE(ctx),		\
	.base.cra_alignmask	= PADLOCK_ALIGN - 1,			\
	.base.cra_module	= THIS_MODULE,				\
	.chunksize		= AES_BLOCK_SIZE

#define PADLOCK_AES_SKCIPHER_BASE(mode, bs, ctx)			\
	PADLOCK_AES_NAMED_BASE(#mode "(aes)", #mode "-aes-padlock", bs, ctx)

/*
 * @name, driver @drv on one struct padlock_aes_key.  The stream modes
 * (block size 1) take a final partial block; @iv is 0 for ECB.
 */
#define PADLOCK_AES_NAMED(name, drv, bs, iv, enc, dec) {		\
	PADLOCK_AES_NAMED_BASE(name, drv, bs, struct padlock_aes_key),	\
	.min_keysize	= AES_MIN_KEY_SIZE,				\
	.max_keysize	= AES_MAX_KEY_SIZE,				\
	.ivsize		= (iv),						\
	.setkey		= padlock_aes_skcipher_setkey,			\
	.encrypt	= (enc),					\
	.decrypt	= (dec),					\
	.exit		= padlock_aes_skcipher_exit,			\
}

/* MODE(aes), MODE-aes-padlock */
#define PADLOCK_AES_SKCIPHER(mode, bs, iv, enc, dec)			\
	PADLOCK_AES_NAMED(#mode "(aes)", #mode "-aes-padlock", bs, iv, enc, dec)

/* Where cts(cbc(aes)) sits in padlock_aes_skciphers[] (its priority differs). */
#define PADLOCK_AES_CTS		4

static struct skcipher_alg padlock_aes_skciphers[] = {
	PADLOCK_AES_SKCIPHER(ecb, AES_BLOCK_SIZE, 0,
			     padlock_aes_ecb_encrypt, padlock_aes_ecb_decrypt),
	PADLOCK_AES_SKCIPHER(cbc, AES_BLOCK_SIZE, AES_BLOCK_SIZE,
			     padlock_aes_cbc_encrypt, padlock_aes_cbc_decrypt),
	PADLOCK_AES_SKCIPHER(ctr, 1, AES_BLOCK_SIZE,
			     padlock_aes_ctr_crypt, padlock_aes_ctr_crypt),
	{
		/* two keys: data and tweak */
		PADLOCK_AES_SKCIPHER_BASE(xts, AES_BLOCK_SIZE,
					  struct padlock_aes_xts_ctx),
		.min_keysize	= 2 * AES_MIN_KEY_SIZE,
		.max_keysize	= 2 * AES_MAX_KEY_SIZE,
		.ivsize		= AES_BLOCK_SIZE,
		.setkey		= padlock_aes_xts_setkey,
		.encrypt	= padlock_aes_xts_encrypt,
		.decrypt	= padlock_aes_xts_decrypt,
		.exit		= padlock_aes_xts_exit,
	},
	[PADLOCK_AES_CTS] =
	PADLOCK_AES_NAMED("cts(cbc(aes))", "cts-cbc-aes-padlock", AES_BLOCK_SIZE,
			  AES_BLOCK_SIZE, padlock_aes_cts_encrypt,
			  padlock_aes_cts_decrypt),
#ifdef PADLOCK_CFB_OFB
	PADLOCK_AES_SKCIPHER(cfb, 1, AES_BLOCK_SIZE,
			     padlock_aes_cfb_encrypt, padlock_aes_cfb_decrypt),
	PADLOCK_AES_SKCIPHER(ofb, 1, AES_BLOCK_SIZE,
			     padlock_aes_ofb_crypt, padlock_aes_ofb_crypt),
#endif
};

static const struct x86_cpu_id padlock_aes_ids[] = {
	X86_MATCH_FEATURE(X86_FEATURE_XCRYPT, NULL),
	{}
};
MODULE_DEVICE_TABLE(x86cpu, padlock_aes_ids);

static int __init padlock_aes_mod_init(void)
{
	int prio, i, err;

	if (!x86_match_cpu(padlock_aes_ids) || !padlock_cpu_has_ace())
		return padlock_cpu_refuse(X86_FEATURE_XCRYPT, "ACE (xcrypt)");

	padlock_aes_ecb_fetch = padlock_cpu_ecb_fetch_blocks();
	padlock_aes_cbc_fetch = padlock_cpu_cbc_fetch_blocks();
	if (WARN_ON(padlock_aes_ecb_fetch > PADLOCK_AES_MAX_FETCH ||
		    padlock_aes_cbc_fetch > PADLOCK_AES_MAX_FETCH ||
		    !is_power_of_2(padlock_aes_ecb_fetch) ||
		    !is_power_of_2(padlock_aes_cbc_fetch)))
		return -ENODEV;
	padlock_aes_hw_ctr = padlock_cpu_ctr_sound();
	prio = padlock_cpu_aes_priority(priority);

	padlock_aes_cipher_alg.cra_priority = padlock_cpu_aes_cipher_priority(priority, prio);
	for (i = 0; i < ARRAY_SIZE(padlock_aes_skciphers); i++)
		padlock_aes_skciphers[i].base.cra_priority = prio;
	/*
	 * One above the others: an instance of the cts template over our own
	 * cbc (someone asking for "cts(cbc-aes-padlock)") would have our cbc's
	 * priority, and the newer of two equals wins a lookup.  Still below
	 * aesni's cts (400) where padlock-aes ranks below AES-NI (351).
	 */
	padlock_aes_skciphers[PADLOCK_AES_CTS].base.cra_priority = prio + 1;

	err = crypto_register_alg(&padlock_aes_cipher_alg);
	if (err)
		return err;
	err = crypto_register_skciphers(padlock_aes_skciphers, ARRAY_SIZE(padlock_aes_skciphers));
	if (err) {
		crypto_unregister_alg(&padlock_aes_cipher_alg);
		return err;
	}
	pr_info("PadLock ACE: aes ecb cbc ctr(%s) xts cts%s, priority %d (aes %d), fetch ECB %u/CBC %u blocks%s\n",
		padlock_aes_hw_ctr ? "ACE2" : "via ECB",
		PADLOCK_AES_FB_NAMES, prio, padlock_aes_cipher_alg.cra_priority,
		padlock_aes_ecb_fetch, padlock_aes_cbc_fetch,
		padlock_cpu_nano_stepping2() ? " (Nano stepping 2 prefetch erratum)" : "");
	return 0;
}

static void __exit padlock_aes_mod_exit(void)
{
	crypto_unregister_skciphers(padlock_aes_skciphers, ARRAY_SIZE(padlock_aes_skciphers));
	crypto_unregister_alg(&padlock_aes_cipher_alg);
}

module_init(padlock_aes_mod_init);
module_exit(padlock_aes_mod_exit);

MODULE_DESCRIPTION("AES with the VIA/Zhaoxin PadLock ACE unit (ecb, cbc, ctr, xts, cts)");
MODULE_LICENSE("GPL");
MODULE_VERSION(PADLOCK_VERSION);
MODULE_IMPORT_NS("CRYPTO_INTERNAL");
/*
 * Autoload: the CPU-feature modalias (MODULE_DEVICE_TABLE above) loads the
 * module where PadLock exists; the aliases are the driver names only, so
 * that looking up a generic name ("aes", "xts(aes)") on any machine does
 * not try to load it.
 */
MODULE_ALIAS_CRYPTO("aes-padlock");
MODULE_ALIAS_CRYPTO("ecb-aes-padlock");
MODULE_ALIAS_CRYPTO("cbc-aes-padlock");
MODULE_ALIAS_CRYPTO("ctr-aes-padlock");
MODULE_ALIAS_CRYPTO("xts-aes-padlock");
MODULE_ALIAS_CRYPTO("cts-cbc-aes-padlock");
#ifdef PADLOCK_CFB_OFB
MODULE_ALIAS_CRYPTO("cfb-aes-padlock");
MODULE_ALIAS_CRYPTO("ofb-aes-padlock");
#endif
