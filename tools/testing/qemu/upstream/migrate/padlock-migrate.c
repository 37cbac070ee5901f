// SPDX-License-Identifier: GPL-2.0
/*
 * System-mode guest for a migration check of the PadLock key cache: load
 * key A with an XCRYPT (EFLAGS bit 30 set), overwrite the key in memory
 * with zeros without loading EFLAGS, say READY and wait for a byte on
 * COM1 (the host migrates meanwhile), then XCRYPT again without a reload:
 * the engine must still use key A.  Built with QEMU's tests/tcg boot code
 * and minilib (see run).
 */
#include <stdint.h>
#include <minilib.h>

/* FIPS-197 C.1: AES-128 key, plaintext and ciphertext */
static const uint8_t key_a[16] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f };
static const uint8_t plain[16] = {
	0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
	0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff };
static const uint8_t want[16] = {
	0x69, 0xc4, 0xe0, 0xd8, 0x6a, 0x7b, 0x04, 0x30,
	0xd8, 0xcd, 0xb7, 0x80, 0x70, 0xb4, 0xc5, 0x5a };

/* every operand 16-byte aligned: control word, key, input, output */
static uint8_t area[80];
static uint8_t *cw, *key, *in, *out;

static void ecb(void)
{
	const void *s = in;
	void *d = out;
	unsigned long n = 1;

	asm volatile(".byte 0xf3, 0x0f, 0xa7, 0xc8"
		     : "+S"(s), "+D"(d), "+c"(n)
		     : "d"(cw), "b"(key) : "memory");
}

static int same(const uint8_t *a, const uint8_t *b)
{
	int i;

	for (i = 0; i < 16; i++)
		if (a[i] != b[i])
			return 0;
	return 1;
}

/* COM1's line status register: bit 0 says a byte was received */
static uint8_t com1_lsr(void)
{
	uint8_t v;

	asm volatile("inb %1, %0" : "=a"(v) : "Nd"((uint16_t)0x3fd));
	return v;
}

static int bit30(void)
{
	unsigned long fl;

	asm volatile("pushf; pop %0" : "=r"(fl));
	return !!(fl & (1ul << 30));
}

int main(void)
{
	uint8_t *base = (uint8_t *)(((uintptr_t)area + 15) & ~(uintptr_t)15);
	int i;

	cw = base;
	key = base + 16;
	in = base + 32;
	out = base + 48;
	for (i = 0; i < 16; i++) {
		cw[i] = i == 0 ? 0x0a : 0;	/* AES-128, encrypt, 10 rounds */
		key[i] = key_a[i];
		in[i] = plain[i];
	}

	asm volatile("pushf; popf" : : : "cc");	/* load the key */
	ecb();
	if (!same(out, want) || !bit30()) {
		ml_printf("FAIL setup: bit 30 %d\n", bit30());
		return 1;
	}
	for (i = 0; i < 16; i++)
		key[i] = 0;
	ml_printf("READY\n");

	/* wait for a byte on COM1; the host migrates meanwhile */
	while (!(com1_lsr() & 1))
		;
	out[0] ^= 0xff;
	ecb();
	if (!same(out, want)) {
		ml_printf("FAIL cached-key-after-wait: bit 30 %d, out[0] %x\n",
			  bit30(), out[0]);
		return 1;
	}
	ml_printf("PASS cached-key-after-wait (bit 30 %d)\n", bit30());
	return 0;
}
