// SPDX-License-Identifier: GPL-2.0
/*
 * padlock-sim: the simulator's own SHA-1 / SHA-256 / SHA-512 compression
 * functions (FIPS 180-4), written for the model.  The round constants were
 * generated from their definition (fractional parts of cube roots of the
 * first primes).  Message schedules are kept in a 16-word ring to keep the
 * exception-context stack use small.
 */
#include <linux/kernel.h>
#include <linux/bitops.h>
#include "sim.h"

static const u32 k256[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5,
	0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
	0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
	0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3,
	0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5,
	0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static const u64 k512[80] = {
	0x428a2f98d728ae22ULL, 0x7137449123ef65cdULL,
	0xb5c0fbcfec4d3b2fULL, 0xe9b5dba58189dbbcULL,
	0x3956c25bf348b538ULL, 0x59f111f1b605d019ULL,
	0x923f82a4af194f9bULL, 0xab1c5ed5da6d8118ULL,
	0xd807aa98a3030242ULL, 0x12835b0145706fbeULL,
	0x243185be4ee4b28cULL, 0x550c7dc3d5ffb4e2ULL,
	0x72be5d74f27b896fULL, 0x80deb1fe3b1696b1ULL,
	0x9bdc06a725c71235ULL, 0xc19bf174cf692694ULL,
	0xe49b69c19ef14ad2ULL, 0xefbe4786384f25e3ULL,
	0x0fc19dc68b8cd5b5ULL, 0x240ca1cc77ac9c65ULL,
	0x2de92c6f592b0275ULL, 0x4a7484aa6ea6e483ULL,
	0x5cb0a9dcbd41fbd4ULL, 0x76f988da831153b5ULL,
	0x983e5152ee66dfabULL, 0xa831c66d2db43210ULL,
	0xb00327c898fb213fULL, 0xbf597fc7beef0ee4ULL,
	0xc6e00bf33da88fc2ULL, 0xd5a79147930aa725ULL,
	0x06ca6351e003826fULL, 0x142929670a0e6e70ULL,
	0x27b70a8546d22ffcULL, 0x2e1b21385c26c926ULL,
	0x4d2c6dfc5ac42aedULL, 0x53380d139d95b3dfULL,
	0x650a73548baf63deULL, 0x766a0abb3c77b2a8ULL,
	0x81c2c92e47edaee6ULL, 0x92722c851482353bULL,
	0xa2bfe8a14cf10364ULL, 0xa81a664bbc423001ULL,
	0xc24b8b70d0f89791ULL, 0xc76c51a30654be30ULL,
	0xd192e819d6ef5218ULL, 0xd69906245565a910ULL,
	0xf40e35855771202aULL, 0x106aa07032bbd1b8ULL,
	0x19a4c116b8d2d0c8ULL, 0x1e376c085141ab53ULL,
	0x2748774cdf8eeb99ULL, 0x34b0bcb5e19b48a8ULL,
	0x391c0cb3c5c95a63ULL, 0x4ed8aa4ae3418acbULL,
	0x5b9cca4f7763e373ULL, 0x682e6ff3d6b2b8a3ULL,
	0x748f82ee5defb2fcULL, 0x78a5636f43172f60ULL,
	0x84c87814a1f0ab72ULL, 0x8cc702081a6439ecULL,
	0x90befffa23631e28ULL, 0xa4506cebde82bde9ULL,
	0xbef9a3f7b2c67915ULL, 0xc67178f2e372532bULL,
	0xca273eceea26619cULL, 0xd186b8c721c0c207ULL,
	0xeada7dd6cde0eb1eULL, 0xf57d4f7fee6ed178ULL,
	0x06f067aa72176fbaULL, 0x0a637dc5a2c898a6ULL,
	0x113f9804bef90daeULL, 0x1b710b35131c471bULL,
	0x28db77f523047d84ULL, 0x32caab7b40c72493ULL,
	0x3c9ebe0a15c9bebcULL, 0x431d67c49c100d4cULL,
	0x4cc5d4becb3e42b6ULL, 0x597f299cfc657e2aULL,
	0x5fcb6fab3ad6faecULL, 0x6c44198c4a475817ULL,
};

void sim_sha1_block(u32 *h, const u8 *block)
{
	u32 w[16], a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
	unsigned int t;

	for (t = 0; t < 80; t++) {
		u32 f, k, tmp;

		if (t < 16) {
			w[t] = sim_get_be32(block + 4 * t);
		} else {
			w[t & 15] = rol32(w[(t + 13) & 15] ^ w[(t + 8) & 15] ^
					  w[(t + 2) & 15] ^ w[t & 15], 1);
		}
		if (t < 20) {
			f = (b & c) | (~b & d);
			k = 0x5a827999;
		} else if (t < 40) {
			f = b ^ c ^ d;
			k = 0x6ed9eba1;
		} else if (t < 60) {
			f = (b & c) | (b & d) | (c & d);
			k = 0x8f1bbcdc;
		} else {
			f = b ^ c ^ d;
			k = 0xca62c1d6;
		}
		tmp = rol32(a, 5) + f + e + k + w[t & 15];
		e = d;
		d = c;
		c = rol32(b, 30);
		b = a;
		a = tmp;
	}
	h[0] += a;
	h[1] += b;
	h[2] += c;
	h[3] += d;
	h[4] += e;
}

void sim_sha256_block(u32 *h, const u8 *block)
{
	u32 w[16], v[8];
	unsigned int t, i;

	for (i = 0; i < 8; i++)
		v[i] = h[i];
	for (t = 0; t < 64; t++) {
		u32 t1, t2;

		if (t < 16) {
			w[t] = sim_get_be32(block + 4 * t);
		} else {
			u32 x = w[(t + 1) & 15], y = w[(t + 14) & 15];
			u32 s0 = ror32(x, 7) ^ ror32(x, 18) ^ (x >> 3);
			u32 s1 = ror32(y, 17) ^ ror32(y, 19) ^ (y >> 10);

			w[t & 15] += s0 + w[(t + 9) & 15] + s1;
		}
		t1 = v[7] + (ror32(v[4], 6) ^ ror32(v[4], 11) ^
			     ror32(v[4], 25)) +
		     ((v[4] & v[5]) ^ (~v[4] & v[6])) + k256[t] + w[t & 15];
		t2 = (ror32(v[0], 2) ^ ror32(v[0], 13) ^ ror32(v[0], 22)) +
		     ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));
		for (i = 7; i > 0; i--)
			v[i] = v[i - 1];
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (i = 0; i < 8; i++)
		h[i] += v[i];
}

void sim_sha512_block(u64 *h, const u8 *block)
{
	u64 w[16], v[8];
	unsigned int t, i;

	for (i = 0; i < 8; i++)
		v[i] = h[i];
	for (t = 0; t < 80; t++) {
		u64 t1, t2;

		if (t < 16) {
			w[t] = sim_get_be64(block + 8 * t);
		} else {
			u64 x = w[(t + 1) & 15], y = w[(t + 14) & 15];
			u64 s0 = ror64(x, 1) ^ ror64(x, 8) ^ (x >> 7);
			u64 s1 = ror64(y, 19) ^ ror64(y, 61) ^ (y >> 6);

			w[t & 15] += s0 + w[(t + 9) & 15] + s1;
		}
		t1 = v[7] + (ror64(v[4], 14) ^ ror64(v[4], 18) ^
			     ror64(v[4], 41)) +
		     ((v[4] & v[5]) ^ (~v[4] & v[6])) + k512[t] + w[t & 15];
		t2 = (ror64(v[0], 28) ^ ror64(v[0], 34) ^ ror64(v[0], 39)) +
		     ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));
		for (i = 7; i > 0; i--)
			v[i] = v[i - 1];
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (i = 0; i < 8; i++)
		h[i] += v[i];
}
