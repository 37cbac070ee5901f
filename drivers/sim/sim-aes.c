// SPDX-License-Identifier: GPL-2.0
/*
 * padlock-sim: the simulator's own AES (FIPS-197), written for the model.
 *
 * The tables are computed at load time from the field arithmetic, so
 * nothing is shared with the kernel's AES library (whose interface also
 * changed in 7.x and cannot run from a given schedule).
 *
 * State and round keys are handled as four little-endian 32-bit columns:
 * byte 0 of a column is its least significant byte.  That is how a
 * FIPS-197 byte-order schedule (PadLock KEYGEN=1, the kernel's key_enc /
 * key_dec) reads on x86.
 */
#include <linux/kernel.h>
#include <linux/bitops.h>
#include "sim.h"

static u8 sbox[256], inv_sbox[256];
static u32 te[256];	/* SubBytes + MixColumns for row 0 */
static u32 td[256];	/* InvSubBytes + InvMixColumns for row 0 */

static u8 gf_mul(u8 a, u8 b)
{
	u8 r = 0;

	while (b) {
		if (b & 1)
			r ^= a;
		a = (a << 1) ^ ((a & 0x80) ? 0x1b : 0);
		b >>= 1;
	}
	return r;
}

void sim_aes_init_tables(void)
{
	unsigned int i;

	for (i = 0; i < 256; i++) {
		u8 inv = 0, s;
		unsigned int j;

		/* multiplicative inverse by search: 64 K steps, load time only */
		if (i)
			for (j = 1; j < 256; j++)
				if (gf_mul(i, j) == 1) {
					inv = j;
					break;
				}
		s = inv ^ rol8(inv, 1) ^ rol8(inv, 2) ^ rol8(inv, 3) ^
		    rol8(inv, 4) ^ 0x63;
		sbox[i] = s;
		inv_sbox[s] = i;
	}
	for (i = 0; i < 256; i++) {
		u8 s = sbox[i], t = inv_sbox[i];

		te[i] = gf_mul(s, 2) | (u32)s << 8 | (u32)s << 16 |
			(u32)gf_mul(s, 3) << 24;
		td[i] = gf_mul(t, 14) | (u32)gf_mul(t, 9) << 8 |
			(u32)gf_mul(t, 13) << 16 | (u32)gf_mul(t, 11) << 24;
	}
}

static u32 sub_word(u32 w)
{
	return sbox[w & 0xff] | (u32)sbox[(w >> 8) & 0xff] << 8 |
	       (u32)sbox[(w >> 16) & 0xff] << 16 | (u32)sbox[w >> 24] << 24;
}

/* Key expansion (FIPS-197 5.2): rk gets 4 * (rounds + 1) words. */
void sim_aes_expand_key(u32 *rk, const u8 *key, unsigned int key_len)
{
	unsigned int nk = key_len / 4, total = 4 * (nk + 7), i;
	u8 rcon = 1;

	for (i = 0; i < nk; i++)
		rk[i] = sim_get_le32(key + 4 * i);
	for (i = nk; i < total; i++) {
		u32 t = rk[i - 1];

		if (i % nk == 0) {
			t = sub_word(ror32(t, 8)) ^ rcon;
			rcon = gf_mul(rcon, 2);
		} else if (nk > 6 && i % nk == 4) {
			t = sub_word(t);
		}
		rk[i] = rk[i - nk] ^ t;
	}
}

static u32 inv_mix_column(u32 w)
{
	u8 a0 = w, a1 = w >> 8, a2 = w >> 16, a3 = w >> 24;

	return (gf_mul(a0, 14) ^ gf_mul(a1, 11) ^ gf_mul(a2, 13) ^
		gf_mul(a3, 9)) |
	       (u32)(gf_mul(a0, 9) ^ gf_mul(a1, 14) ^ gf_mul(a2, 11) ^
		     gf_mul(a3, 13)) << 8 |
	       (u32)(gf_mul(a0, 13) ^ gf_mul(a1, 9) ^ gf_mul(a2, 14) ^
		     gf_mul(a3, 11)) << 16 |
	       (u32)(gf_mul(a0, 11) ^ gf_mul(a1, 13) ^ gf_mul(a2, 9) ^
		     gf_mul(a3, 14)) << 24;
}

/*
 * Turn an encryption schedule into the equivalent inverse cipher's schedule
 * (FIPS-197 5.3.5), in place: round keys in reverse order, InvMixColumns
 * applied to all but the first and the last.
 */
void sim_aes_invert_schedule(u32 *rk, unsigned int rounds)
{
	unsigned int r, c;

	for (r = 0; r < (rounds + 1) / 2; r++)
		for (c = 0; c < 4; c++)
			swap(rk[4 * r + c], rk[4 * (rounds - r) + c]);
	for (r = 1; r < rounds; r++)
		for (c = 0; c < 4; c++)
			rk[4 * r + c] = inv_mix_column(rk[4 * r + c]);
}

#define TE(x, n)	rol32(te[(x) & 0xff], 8 * (n))
#define TD(x, n)	rol32(td[(x) & 0xff], 8 * (n))
#define BYTE(w, n)	(((w) >> (8 * (n))) & 0xff)

void sim_aes_encrypt(const u32 *rk, unsigned int rounds, u8 *out,
		     const u8 *in)
{
	u32 s[4], t[4];
	unsigned int r, c;

	for (c = 0; c < 4; c++)
		s[c] = sim_get_le32(in + 4 * c) ^ rk[c];
	for (r = 1; r < rounds; r++) {
		for (c = 0; c < 4; c++)
			t[c] = TE(s[c], 0) ^
			       TE(s[(c + 1) & 3] >> 8, 1) ^
			       TE(s[(c + 2) & 3] >> 16, 2) ^
			       TE(s[(c + 3) & 3] >> 24, 3) ^ rk[4 * r + c];
		memcpy(s, t, sizeof(s));
	}
	for (c = 0; c < 4; c++) {
		t[c] = sbox[BYTE(s[c], 0)] |
		       (u32)sbox[BYTE(s[(c + 1) & 3], 1)] << 8 |
		       (u32)sbox[BYTE(s[(c + 2) & 3], 2)] << 16 |
		       (u32)sbox[BYTE(s[(c + 3) & 3], 3)] << 24;
		sim_put_le32(t[c] ^ rk[4 * rounds + c], out + 4 * c);
	}
}

void sim_aes_decrypt(const u32 *dk, unsigned int rounds, u8 *out,
		     const u8 *in)
{
	u32 s[4], t[4];
	unsigned int r, c;

	for (c = 0; c < 4; c++)
		s[c] = sim_get_le32(in + 4 * c) ^ dk[c];
	for (r = 1; r < rounds; r++) {
		for (c = 0; c < 4; c++)
			t[c] = TD(s[c], 0) ^
			       TD(s[(c + 3) & 3] >> 8, 1) ^
			       TD(s[(c + 2) & 3] >> 16, 2) ^
			       TD(s[(c + 1) & 3] >> 24, 3) ^ dk[4 * r + c];
		memcpy(s, t, sizeof(s));
	}
	for (c = 0; c < 4; c++) {
		t[c] = inv_sbox[BYTE(s[c], 0)] |
		       (u32)inv_sbox[BYTE(s[(c + 3) & 3], 1)] << 8 |
		       (u32)inv_sbox[BYTE(s[(c + 2) & 3], 2)] << 16 |
		       (u32)inv_sbox[BYTE(s[(c + 1) & 3], 3)] << 24;
		sim_put_le32(t[c] ^ dk[4 * rounds + c], out + 4 * c);
	}
}
