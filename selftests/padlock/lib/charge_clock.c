// SPDX-License-Identifier: GPL-2.0
/*
 * The guest clock across PadLock instructions on the project's QEMU with
 * the engine's time charged (tools/testing/vm/run --icount --cpu-model qemu
 * --charge MODEL).  Under -icount the guest's clock counts executed
 * instructions, so the same loop run with more blocks per instruction takes
 * longer only by the engine's time: the difference between two loops that
 * differ only in the blocks (or hashed bytes) per instruction must be the
 * model's cycles at its clock.
 *
 * usage: charge_clock KEY=VALUE...   the model's section of
 *        tools/padlock-bench/cpu-models.conf (clock_mhz, xcrypt_start,
 *        ecb_block, cbc_block, xsha_start, xsha256_byte) and tolerance=R,
 *        the relative deviation allowed (default 0.01), phe=1 when the CPU
 *        hashes in block mode (Nano, Zhaoxin); long=1 runs only the check
 *        of one instruction whose charge outlasts the next timer tick (the
 *        caller makes REP forms run in one step: padlock-msr --set chunk)
 * Output: "PASS|FAIL|SKIP description | diagnostic" lines (ktap_report).
 *
 * Each loop runs in several batches and keeps the fastest: a timer tick
 * that falls into a batch adds its handler's instructions to that batch
 * only.  A batch stays well below the tick period (4 ms at HZ=250).
 * The opcodes come from provider/padlock-user-asm.h (build with
 * -I provider).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "padlock-user-asm.h"

#define MAX_BLOCKS 600
#define LONG_BLOCKS 65536
#define BATCHES 9

static double clock_mhz, xcrypt_start, ecb_block, cbc_block;
static double xsha_start, xsha256_byte;
static double tolerance = 0.01;
static int phe, long_only;
static int failed;

static uint8_t buf_in[MAX_BLOCKS * 16] __attribute__((aligned(16)));
static uint8_t buf_out[MAX_BLOCKS * 16] __attribute__((aligned(16)));
static uint8_t key[256] __attribute__((aligned(16)));
static uint32_t cw[4] __attribute__((aligned(16)));
static uint8_t iv[16] __attribute__((aligned(16)));
static uint8_t state[128] __attribute__((aligned(16)));
/* where the xcrypt loops read and write: buf_in/buf_out, or 1 MiB each */
static uint8_t *src = buf_in, *dst = buf_out;

enum op { ECB128, CBC256, SHA256 };

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* one call: n blocks (16 bytes for xcrypt, 64 for xsha256) */
static void run_one(enum op op, size_t n)
{
	switch (op) {
	case ECB128:
		plu_xcrypt_ecb(src, dst, n, cw, key);
		break;
	case CBC256:
		plu_xcrypt_cbc(src, dst, n, cw, key, iv);
		break;
	case SHA256:
		plu_xsha256_blocks(buf_in, state, n);
		break;
	}
}

/* guest nanoseconds per call of calls calls with n blocks each */
static double per_call(enum op op, size_t n, int calls)
{
	double best = 0;
	int b, i;

	for (b = 0; b < BATCHES; b++) {
		double t0 = now_ns(), t;

		for (i = 0; i < calls; i++)
			run_one(op, n);
		t = (now_ns() - t0) / calls;
		if (!b || t < best)
			best = t;
	}
	return best;
}

static void set_cw(enum op op)
{
	memset(cw, 0, sizeof(cw));
	if (op == ECB128) {
		/* 10 rounds, hardware key expansion, encryption */
		cw[0] = 10;
	} else {
		/* 14 rounds, software key schedule, 256-bit key */
		cw[0] = 14 | (1u << 7) | (2u << 10);
	}
}

/* compare a measured difference with the model's cycles */
static void check(const char *what, double measured_ns, double cycles)
{
	double want = cycles * 1000 / clock_mhz;
	double dev = want ? (measured_ns - want) / want : measured_ns;

	if (dev < -tolerance || dev > tolerance) {
		failed = 1;
		printf("FAIL %s | measured %.2f ns, the model gives %.2f ns (%.0f cycles at %g MHz): %+.2f %%, tolerance %.2f %%\n",
		       what, measured_ns, want, cycles, clock_mhz, 100 * dev,
		       100 * tolerance);
	} else {
		printf("# %s: measured %.2f ns, model %.2f ns (%+.3f %%)\n",
		       what, measured_ns, want, 100 * dev);
		printf("PASS %s\n", what);
	}
}

/* the KEY=VALUE arguments this program uses; others are ignored */
static void parse(const char *arg)
{
	static double phe_arg, long_arg;
	static const struct {
		const char *name;
		double *value;
	} keys[] = {
		{ "clock_mhz", &clock_mhz }, { "xcrypt_start", &xcrypt_start },
		{ "ecb_block", &ecb_block }, { "cbc_block", &cbc_block },
		{ "xsha_start", &xsha_start }, { "xsha256_byte", &xsha256_byte },
		{ "tolerance", &tolerance }, { "phe", &phe_arg },
		{ "long", &long_arg },
	};
	const char *eq = strchr(arg, '=');
	size_t i;

	for (i = 0; eq && i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strlen(keys[i].name) == (size_t)(eq - arg) &&
		    !strncmp(arg, keys[i].name, eq - arg))
			*keys[i].value = atof(eq + 1);
	phe = phe_arg != 0;
	long_only = long_arg != 0;
}

/*
 * One CBC instruction of 1 MiB with a 256-bit key: 1.2 ms of engine time on
 * a 1.6 GHz model, 0.65 ms at 3 GHz; 8 calls make a batch longer than the
 * 4 ms tick period, so in every batch a charge runs past a timer deadline
 * and QEMU carries the rest over to the following budgets.  Time lost or
 * counted twice there shows in the difference to a 256-block instruction.
 */
static int long_check(void)
{
	double t256, tlong;

	src = aligned_alloc(16, LONG_BLOCKS * 16);
	dst = aligned_alloc(16, LONG_BLOCKS * 16);
	if (!src || !dst) {
		printf("FAIL xcrypt-cbc: 1 MiB per instruction | no memory\n");
		return 1;
	}
	memset(src, 0x5a, LONG_BLOCKS * 16);
	set_cw(CBC256);
	run_one(CBC256, LONG_BLOCKS);
	t256 = per_call(CBC256, 256, 8);
	tlong = per_call(CBC256, LONG_BLOCKS, 8);
	printf("# CBC-256 ns per call: 256 blocks %.2f, %d %.2f\n", t256,
	       LONG_BLOCKS, tlong);
	check("xcrypt-cbc 256-bit key: 1 MiB in one step, past timer deadlines",
	      tlong - t256, (LONG_BLOCKS - 256) * cbc_block * 1.4);
	return failed;
}

int main(int argc, char **argv)
{
	double t0, t1, t17, t256, t600;
	int i;

	for (i = 1; i < argc; i++)
		parse(argv[i]);
	if (clock_mhz <= 0) {
		printf("FAIL arguments | no clock_mhz\n");
		return 1;
	}
	if (long_only)
		return long_check();
	for (i = 0; i < (int)sizeof(buf_in); i++)
		buf_in[i] = i * 7;
	for (i = 0; i < (int)sizeof(key); i++)
		key[i] = i;
	/* a first call of each kind, so that page faults are not timed */
	set_cw(ECB128);
	run_one(ECB128, MAX_BLOCKS);

	t0 = per_call(ECB128, 0, 100);
	t1 = per_call(ECB128, 1, 100);
	t17 = per_call(ECB128, 17, 100);
	t256 = per_call(ECB128, 256, 100);
	t600 = per_call(ECB128, 600, 50);
	printf("# ECB-128 ns per call: 0 blocks %.2f, 1 %.2f, 17 %.2f, 256 %.2f, 600 %.2f\n",
	       t0, t1, t17, t256, t600);
	/* an instruction with no block does no work and costs nothing */
	check("xcrypt-ecb: start and first block", t1 - t0,
	      xcrypt_start + ecb_block);
	check("xcrypt-ecb: 239 more blocks per instruction", t256 - t17,
	      239 * ecb_block);
	/* 600 blocks run in three steps of the REP form: one start only */
	check("xcrypt-ecb: 344 more blocks over three REP steps", t600 - t256,
	      344 * ecb_block);

	set_cw(CBC256);
	run_one(CBC256, MAX_BLOCKS);
	t17 = per_call(CBC256, 17, 100);
	t256 = per_call(CBC256, 256, 100);
	printf("# CBC-256 ns per call: 17 blocks %.2f, 256 %.2f\n", t17, t256);
	/* 14 rounds: 14/10 of the AES-128 block (cpu-models.conf) */
	check("xcrypt-cbc 256-bit key: 239 more blocks", t256 - t17,
	      239 * cbc_block * 1.4);

	if (!phe || !xsha256_byte) {
		printf("SKIP xsha256: block-mode bytes | %s\n",
		       phe ? "the model has no xsha256_byte" :
		       "no XSHA256 block mode on this CPU");
	} else {
		run_one(SHA256, 64);
		t0 = per_call(SHA256, 0, 100);
		t1 = per_call(SHA256, 1, 100);
		t600 = per_call(SHA256, 64, 50);
		printf("# XSHA256 block mode ns per call: 0 blocks %.2f, 1 %.2f, 64 %.2f\n",
		       t0, t1, t600);
		check("xsha256: start and first 64 bytes", t1 - t0,
		      xsha_start + 64 * xsha256_byte);
		check("xsha256: 63 more blocks", t600 - t1,
		      63 * 64 * xsha256_byte);
	}
	return failed;
}
