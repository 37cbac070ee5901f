#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check 0006/0007's walk (lib/crypto/x86/aes.h) in user space against a mock engine.

usage: patches/linux/aes-walk.py PATH/lib/crypto/x86/aes.h [--replace OLD NEW]...

Takes the PadLock part of aes.h (struct padlock_ctx to the end of the CBC
hooks) as it is, replaces the asm of padlock_xcrypt() with a C engine (a toy
block cipher keyed by the schedule's first byte, ECB and CBC as the engine
chains them), and runs the ECB and CBC hooks (and 0007's CTR hook) over 1 to 20 blocks, in place and not,
ending at a page end before a PROT_NONE page, straddling a page boundary and
inside a page, with the fetch sizes 2/1 (ECB/CBC) and 8/4 (the Nano stepping
2).  CTR also runs 1 to 20 blocks plus 0 to 15 bytes from counters whose low
16 bits (and low 128 bits) are about to wrap.  Each run is compared with a
reference ECB/CBC/CTR of the same toy cipher, output and next IV or counter.  The mock flags any operand not 16-byte aligned and any
group read (roundup(blocks, fetch) blocks from the source) that passes the
input's end and leaves the page of its last byte (docs/hardware.md 2.1,
2.2), and overwrites the IV it was given after each instruction, so that no
result depends on what the engine leaves there (docs/hardware.md 1.2); CTR
increments only the counter's low 16 bits, as ACE2 does.
--replace edits the extracted code first (a broken variant).  Exit 0 when
nothing is wrong.  Needs gcc.
"""
import argparse
import os
import subprocess
import sys
import tempfile

HEADER = r'''
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <stdbool.h>
#include <sys/mman.h>
typedef uint8_t u8;
typedef uint32_t u32;
typedef uint16_t u16;
#define min_t(t, a, b) ((t)(a) < (t)(b) ? (t)(a) : (t)(b))
static u16 get_unaligned_be16(const u8 *p) { return p[0] << 8 | p[1]; }
static void put_unaligned_be16(unsigned v, u8 *p) { p[0] = v >> 8; p[1] = v; }
static void crypto_inc(u8 *a, unsigned int n) { while (n-- && !++a[n]); }
static void crypto_xor_cpy(u8 *d, const u8 *a, const u8 *b, unsigned n) { while (n--) *d++ = *a++ ^ *b++; }
#define AES_BLOCK_SIZE 16
#define AES_KEYSIZE_128 16
#define PAGE_SHIFT 12
#define likely(x) (x)
#define noinline __attribute__((noinline))
#define __aligned(x) __attribute__((aligned(x)))
#define __always_inline inline
#define IS_ALIGNED(x, a) (((x) & ((a) - 1)) == 0)
#define memzero_explicit(p, n) memset(p, 0, n)
#define static_branch_likely(x) 1
#define PADLOCK_CW_KEYGEN 0x080
#define PADLOCK_CW_DECRYPT 0x200
static unsigned int padlock_ecb_fetch = 2, padlock_cbc_fetch = 1;
struct aes_enckey { u32 len; u32 nrounds; u32 padding[2]; union { u32 rndkeys[60]; } k; };
struct aes_key { struct aes_enckey; union { u32 inv_rndkeys[60]; } inv_k; };
static const u8 *in_lo, *in_hi;
static int bad;
static void toy(u8 *o, const u8 *i, u8 k, bool dec)
{
	for (int b = 0; b < 16; b++)
		o[b] = dec ? (u8)((i[b] ^ k) - b) : (u8)((i[b] + b) ^ k);
}
'''

MOCK = r'''
static void padlock_xcrypt(int mode, struct padlock_ctx *pc, u8 *dst,
			   const u8 *src, const u8 *iv, size_t n)
{
	bool cbc = mode == 1, ctr = mode == 2;
	unsigned int fetch = cbc ? padlock_cbc_fetch : padlock_ecb_fetch;
	size_t rd = (n + fetch - 1) / fetch * fetch;
	bool dec = pc->cword[0] & PADLOCK_CW_DECRYPT;
	u8 k = ((u8 *)pc->rndkeys)[0], chain[16];

	if (((uintptr_t)src | (uintptr_t)dst | (uintptr_t)iv |
	     (uintptr_t)pc->rndkeys | (uintptr_t)pc->cword) & 15) {
		printf("misaligned operand\n");
		bad++;
	}
	if (src >= in_lo && src < in_hi) {
		uintptr_t last = (uintptr_t)src + n * 16 - 1;
		uintptr_t end = (uintptr_t)src + rd * 16 - 1;

		if (end >= (uintptr_t)in_hi && (last >> 12) != (end >> 12)) {
			printf("group read leaves the page of the input's end\n");
			bad++;
		}
	}
	if (cbc)
		memcpy(chain, iv, 16);
	for (size_t b = 0; b < n; b++) {
		u8 in[16], out[16], x[16];

		memcpy(in, src + 16 * b, 16);
		if (ctr) {
			u8 *c = (u8 *)iv;
			unsigned low = (c[14] << 8 | c[15]) + 1;

			toy(x, c, k, 0);
			for (int t = 0; t < 16; t++)
				out[t] = in[t] ^ x[t];
			c[14] = low >> 8;
			c[15] = low;
		} else if (!cbc) {
			toy(out, in, k, dec);
		} else if (!dec) {
			for (int t = 0; t < 16; t++)
				x[t] = in[t] ^ chain[t];
			toy(out, x, k, 0);
			memcpy(chain, out, 16);
		} else {
			toy(out, in, k, 1);
			for (int t = 0; t < 16; t++)
				out[t] ^= chain[t];
			memcpy(chain, in, 16);
		}
		memcpy(dst + 16 * b, out, 16);
	}
	if (cbc)
		memset((void *)iv, 0xee, 16);
	if (ctr)
		memset((void *)iv, 0xee, 14);
}
'''

MAIN = r'''
static void ref(bool cbc, bool dec, u8 *o, const u8 *in, size_t n, u8 *iv, u8 k)
{
	u8 chain[16];

	memcpy(chain, iv, 16);
	for (size_t b = 0; b < n; b++) {
		u8 x[16], y[16];

		memcpy(x, in + 16 * b, 16);
		if (!cbc) {
			toy(y, x, k, dec);
		} else if (!dec) {
			for (int t = 0; t < 16; t++)
				x[t] ^= chain[t];
			toy(y, x, k, 0);
			memcpy(chain, y, 16);
		} else {
			toy(y, x, k, 1);
			for (int t = 0; t < 16; t++)
				y[t] ^= chain[t];
			memcpy(chain, in + 16 * b, 16);
		}
		memcpy(o + 16 * b, y, 16);
	}
	memcpy(iv, chain, 16);
}

int main(void)
{
	static u8 dstbuf[4096] __aligned(16);
	u8 *m = mmap(0, 3 * 4096, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct aes_key key;
	int runs = 0;

	mprotect(m + 2 * 4096, 4096, PROT_NONE);
	memset(&key, 0, sizeof(key));
	key.len = 16;
	key.nrounds = 10;
	((u8 *)key.k.rndkeys)[0] = 0x5a;
	((u8 *)key.inv_k.inv_rndkeys)[0] = 0x5a;
	for (int fs = 0; fs < 2; fs++) {
		padlock_ecb_fetch = fs ? 8 : 2;
		padlock_cbc_fetch = fs ? 4 : 1;
		for (int mode = 0; mode < 4; mode++)
		for (size_t n = 1; n <= 20; n++)
		for (int pos = 0; pos < 3; pos++)
		for (int inplace = 0; inplace < 2; inplace++) {
			bool cbc = mode >= 2, dec = mode & 1, ok;
			u8 *src = pos == 0 ? m + 2 * 4096 - n * 16 :
				  pos == 1 ? m + 4096 - n * 16 + 16 * (n / 2) :
				  m + 512;
			u8 *dst = inplace ? src : dstbuf;
			u8 plain[20 * 16], iv[16], iv2[16], expect[20 * 16];

			for (size_t t = 0; t < n * 16; t++)
				plain[t] = rand();
			memcpy(src, plain, n * 16);
			for (int t = 0; t < 16; t++)
				iv[t] = rand();
			memcpy(iv2, iv, 16);
			ref(cbc, dec, expect, plain, n, iv2, 0x5a);
			in_lo = src;
			in_hi = src + n * 16;
			if (!cbc && !dec)
				ok = aes_ecb_encrypt_arch(dst, src, n * 16, (struct aes_enckey *)&key);
			else if (!cbc)
				ok = aes_ecb_decrypt_arch(dst, src, n * 16, &key);
			else if (!dec)
				ok = aes_cbc_encrypt_arch(dst, src, n * 16, iv, (struct aes_enckey *)&key);
			else
				ok = aes_cbc_decrypt_arch(dst, src, n * 16, iv, &key);
			if (!ok || memcmp(dst, expect, n * 16) ||
			    (cbc && memcmp(iv, iv2, 16))) {
				printf("wrong: fetch %u/%u %s %s, %zu blocks, %s, %s\n",
				       padlock_ecb_fetch, padlock_cbc_fetch,
				       cbc ? "cbc" : "ecb", dec ? "decrypt" : "encrypt", n,
				       pos == 0 ? "page end" : pos == 1 ? "straddling" : "mid-page",
				       inplace ? "in place" : "out of place");
				bad++;
			}
			runs++;
		}
	}
#ifdef aes_ctr_arch
	for (int fs = 0; fs < 2; fs++) {
		padlock_ecb_fetch = fs ? 8 : 2;
		for (size_t n = 0; n <= 20; n++)
		for (size_t tail = 0; tail < 16; tail += 5)
		for (int cs = 0; cs < 3; cs++)
		for (int pos = 0; pos < 3; pos++) {
			size_t len = n * 16 + tail;
			u8 *src = pos == 0 ? m + 2 * 4096 - ((len + 15) & ~15) :
				  pos == 1 ? m + 4096 - 16 * (n / 2) : m + 512;
			u8 *dst = dstbuf;
			u8 plain[21 * 16], c[16], c2[16], expect[21 * 16], ks[16];

			for (size_t t = 0; t < len; t++)
				plain[t] = rand();
			memcpy(src, plain, len);
			for (int t = 0; t < 16; t++)
				c[t] = cs == 2 ? 0xff : rand();
			if (cs == 1)
				c[14] = 0xff, c[15] = 0xff - n / 2;
			memcpy(c2, c, 16);
			for (size_t b = 0; b * 16 < len; b++) {
				toy(ks, c2, 0x5a, 0);
				for (size_t t = 0; t < 16 && b * 16 + t < len; t++)
					expect[b * 16 + t] = plain[b * 16 + t] ^ ks[t];
				crypto_inc(c2, 16);
			}
			in_lo = src;
			in_hi = src + len;
			if (!aes_ctr_arch(dst, src, len, c, (struct aes_enckey *)&key) ||
			    memcmp(dst, expect, len) || memcmp(c, c2, 16)) {
				printf("wrong: fetch %u ctr, %zu bytes, counter %d, pos %d\n",
				       padlock_ecb_fetch, len, cs, pos);
				bad++;
			}
			runs++;
		}
	}
#endif
	printf("%d runs, %d wrong\n", runs, bad);
	return bad != 0;
}
'''


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("aes_h")
    ap.add_argument("--replace", nargs=2, action="append", default=[],
                    metavar=("OLD", "NEW"))
    a = ap.parse_args()
    src = open(a.aes_h).read()
    end = src.find("#endif /* CONFIG_CRYPTO_LIB_AES_CTR */")
    if end < 0:
        end = src.index("#endif /* CONFIG_CRYPTO_LIB_AES_CBC */")
    start = src.find("enum padlock_mode {")
    if start < 0:
        start = src.index("struct padlock_ctx {")
    body = src[start:end]
    body = body.replace("static __ro_after_init DEFINE_STATIC_KEY_FALSE", "// ")
    i = body.index("static __always_inline void padlock_xcrypt(")
    j = body.index("/* Fewer blocks than the engine reads")
    body = body[:i] + MOCK + body[j:]
    for line in ("#endif /* CONFIG_CRYPTO_LIB_AES_ECB */",
                 "#if IS_ENABLED(CONFIG_CRYPTO_LIB_AES_CBC)",
                 "#if IS_ENABLED(CONFIG_CRYPTO_LIB_AES_ECB)",
                 "#endif /* CONFIG_CRYPTO_LIB_AES_CBC */",
                 "#if IS_ENABLED(CONFIG_CRYPTO_LIB_AES_CTR)"):
        body = body.replace(line, "")
    for old, new in a.replace:
        if old not in body:
            sys.exit("aes-walk: --replace: not found: " + old)
        body = body.replace(old, new)
    with tempfile.TemporaryDirectory() as d:
        c = os.path.join(d, "walk.c")
        exe = os.path.join(d, "walk")
        with open(c, "w") as f:
            f.write(HEADER + body + MAIN)
        subprocess.run(["gcc", "-O1", "-fms-extensions", "-w", "-o", exe, c],
                       check=True)
        r = subprocess.run([exe], stdout=subprocess.PIPE, text=True)
    out = r.stdout.splitlines()
    if len(out) > 11:
        out = out[:10] + ["..."] + out[-1:]
    print("\n".join(out))
    return r.returncode


if __name__ == "__main__":
    sys.exit(main())
