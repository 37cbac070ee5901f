// SPDX-License-Identifier: GPL-2.0
/*
 * Random PadLock instruction streams for the cross-check of padlock-sim and
 * the QEMU model (xcheck.sh).
 *
 *   xcheck_exec MODEL PROFILE SEED COUNT [FIRST]
 *
 * MODEL is sim or qemu (it names how a rule violation arrives: SIGILL from
 * padlock-sim, #GP = SIGSEGV with si_code SI_KERNEL from the model), PROFILE
 * the CPU profile (which units and rules to draw from).  Instruction K
 * (FIRST <= K < COUNT) is drawn from (SEED, K) alone, so one instruction can
 * be run again by itself with FIRST = K, COUNT = K + 1.
 *
 * One line per instruction: "K OP inputs | results # notes".  The results
 * are what docs/hardware.md defines: the registers the instruction
 * advances or keeps, a hash of the memory it must write or keep ("mem") and
 * of the bytes around it ("guard"), and the fault: none, viol (a rule of
 * docs/hardware.md broken), ud, segv@ADDRESS (a page fault), bus.  The notes
 * are what the spec leaves undefined (rAX/rCX/rSI after XSHA, rAX and rBX
 * after XCRYPT-CTR, rBX after CFB/OFB, the random bytes of XSTORE, the
 * registers at a fault); two implementations may
 * differ there, so xcheck.sh compares up to the '#' only.  Addresses are
 * printed as region+offset (all regions are mapped at fixed addresses, so
 * both VMs use the same ones).
 *
 * The raw instruction wrappers (every operand register in and out) come
 * from drivers/test/padlock-test-asm.h: build with -I drivers/test.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <sys/mman.h>

#include "padlock_user.h"

#define PG		4096UL
/* the arena: fixed, below 4 GiB so that a 32-bit build uses the same */
#define ARENA		0x30000000UL
#define NPAGES		40
/* pages of the arena; GUARD_IN and GUARD_OUT are never mapped */
#define P_CW		0
#define P_KEY		1
#define P_IV		2
#define P_SHA		3
#define P_IN		4	/* input: pages 4..15 */
#define P_IN_END	16
#define GUARD_IN	16
#define P_OUT		17	/* output: pages 17..28 */
#define P_OUT_END	29
#define GUARD_OUT	29

enum { M_SIM, M_QEMU };
static int model;
static int zx, c3c7, has_ace2, has_phe, has_blk;

/* ---- deterministic random numbers: splitmix64 ---------------------------- */

static uint64_t rs;

static uint64_t rnd(void)
{
	uint64_t z = (rs += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned long below(unsigned long n)
{
	return n ? rnd() % n : 0;
}

/* true with probability p percent */
static int pct(unsigned int p)
{
	return below(100) < p;
}

static int mapped(unsigned long a)
{
	unsigned long pg = (a - ARENA) / PG;

	return a >= ARENA && pg < NPAGES && pg != GUARD_IN && pg != GUARD_OUT;
}

/* random bytes into [addr, addr + len), skipping what is not mapped */
static void fill(unsigned long addr, unsigned long len)
{
	for (; len--; addr++) {
		u8 b = (u8)rnd();

		if (mapped(addr))
			*(u8 *)addr = b;
	}
}

/* ---- hashes of memory: FNV-1a, 64 bits ----------------------------------- */

static uint64_t fnv(uint64_t h, unsigned long addr, unsigned long len)
{
	const u8 *p = (const u8 *)addr;

	while (len--)
		h = (h ^ *p++) * 0x100000001b3ULL;
	return h;
}

#define FNV0	0xcbf29ce484222325ULL

/* [a, a + len) clipped to the mapped pages of the arena */
static uint64_t fnv_mapped(uint64_t h, unsigned long a, unsigned long len)
{
	for (; len--; a++)
		if (mapped(a))
			h = (h ^ *(u8 *)a) * 0x100000001b3ULL;
	return h;
}

/* ---- addresses as region+offset ------------------------------------------ */

static const char *where(unsigned long v, char *buf, size_t n)
{
	static const char * const region[] = {
		"cw", "key", "iv", "sha",
	};
	unsigned long pg;

	if (v < ARENA || v >= ARENA + NPAGES * PG) {
		snprintf(buf, n, "%#lx", v);
		return buf;
	}
	pg = (v - ARENA) / PG;
	if (pg < P_IN)
		snprintf(buf, n, "%s+%#lx", region[pg], v - ARENA - pg * PG);
	else if (pg <= P_IN_END)
		snprintf(buf, n, "in+%#lx", v - ARENA - P_IN * PG);
	else
		snprintf(buf, n, "out+%#lx", v - ARENA - P_OUT * PG);
	return buf;
}

#define W(v)	where((v), (char[40]){ 0 }, 40)

/* ---- faults ------------------------------------------------------------- */

static sigjmp_buf jb;
static volatile int f_sig, f_code;
static volatile unsigned long f_addr, f_regs[6];

static void on_fault(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;

	f_sig = sig;
	f_code = si->si_code;
	f_addr = (unsigned long)si->si_addr;
#ifdef __x86_64__
	f_regs[0] = uc->uc_mcontext.gregs[REG_RSI];
	f_regs[1] = uc->uc_mcontext.gregs[REG_RDI];
	f_regs[2] = uc->uc_mcontext.gregs[REG_RCX];
	f_regs[3] = uc->uc_mcontext.gregs[REG_RAX];
#else
	f_regs[0] = uc->uc_mcontext.gregs[REG_ESI];
	f_regs[1] = uc->uc_mcontext.gregs[REG_EDI];
	f_regs[2] = uc->uc_mcontext.gregs[REG_ECX];
	f_regs[3] = uc->uc_mcontext.gregs[REG_EAX];
#endif
	siglongjmp(jb, 1);
}

/* The fault as the spec names it; "" when there was none. */
static const char *fault_name(char *buf, size_t n)
{
	if (!f_sig)
		return "none";
	if (f_sig == SIGILL)
		return model == M_SIM ? "viol" : "ud";
	if (f_sig == SIGSEGV && f_code == SI_KERNEL)
		return model == M_QEMU ? "viol" : "segv-noaddr";
	if (f_sig == SIGSEGV) {
		snprintf(buf, n, "segv@%s", W(f_addr));
		return buf;
	}
	if (f_sig == SIGBUS)
		return "bus";
	snprintf(buf, n, "sig%d", f_sig);
	return buf;
}

/* Run fn on r[]; 0 when it completed, 1 on a fault (f_* say which). */
static int run(void (*fn)(unsigned long *), unsigned long *r)
{
	f_sig = 0;
	if (sigsetjmp(jb, 1))
		return 1;
	fn(r);
	return 0;
}

/* ---- XCRYPT ------------------------------------------------------------- */

static const char * const xc_name[] = { "ecb", "cbc", "ctr", "cfb", "ofb" };
static void (* const xc_fn[])(unsigned long *) = {
	padlock_raw_reload_xcrypt_ecb, padlock_raw_reload_xcrypt_cbc,
	padlock_raw_reload_xcrypt_ctr, padlock_raw_reload_xcrypt_cfb,
	padlock_raw_reload_xcrypt_ofb,
};

/* Fetch group per mode and profile, to place inputs near a page end. */
static unsigned long blocks(void)
{
	unsigned long b = below(100);

	if (b < 6)
		return 0;
	if (b < 60)
		return 1 + below(9);
	if (b < 96)
		return 10 + below(60);
	return 250 + below(60);	/* beyond one step of a REP in the model */
}

static void one_xcrypt(unsigned long k)
{
	unsigned long r[6], cx, si, di, ax, bx, dx, in_len;
	unsigned int mode, ks, cw, odd = 0, rounds;
	int sw, dec, inplace, faulted;
	uint64_t mem, guard;
	char fb[64];

	do
		mode = below(5);
	while (mode == 2 && !has_ace2);
	ks = below(3);
	sw = ks ? 1 : pct(50);
	dec = mode == 2 || mode == 4 ? pct(4) : pct(50);
	rounds = 10 + 2 * ks;
	cw = rounds | (sw ? 0x80 : 0) | (dec ? 0x200 : 0) | ks << 10;
	if (pct(8)) {
		/* an odd control word: each of these is a violation */
		odd = 1 + below(7);
		switch (odd) {
		case 1: cw |= 1U << (12 + below(20)); break;	/* reserved */
		case 2: cw |= (1 + below(7)) << 4; break;	/* algorithm */
		case 3: cw |= 0x100; break;			/* intermediate */
		case 4: cw = (cw & ~0xc0fU) | 3 << 10 | 14; break; /* ksize 3 */
		case 5: cw ^= 2 + 2 * below(3); break;		/* rounds */
		case 6: cw = (cw & ~0x80U) | 1 << 10 | 12; break; /* hw key 192 */
		case 7: break;					/* word 1..3 */
		}
	}
	cx = blocks();
	in_len = cx * 16;
	if (in_len > (P_IN_END - P_IN) * PG)
		in_len = 0;

	/* operands */
	dx = ARENA + P_CW * PG + 16 * below(200);
	bx = ARENA + P_KEY * PG + 16 * below(200);
	ax = ARENA + P_IV * PG + 16 * below(200);
	if (pct(30)) {
		/* the input ends at, or a few blocks before, a page end */
		unsigned long end_pg = pct(60) ? P_IN_END : P_IN + 4 + below(8);
		unsigned long end = ARENA + end_pg * PG - 16 * below(9);

		si = end - in_len;
	} else {
		si = ARENA + P_IN * PG + 16 * below(((P_IN_END - P_IN) * PG -
						     in_len) / 16 + 1);
	}
	inplace = pct(15);
	di = inplace ? si : ARENA + P_OUT * PG + 16 * below(((P_OUT_END - P_OUT) *
							     PG - in_len) / 16 + 1);
	if (pct(6)) {
		/* one misaligned operand (rAX only matters outside ECB) */
		unsigned long off = 1 + below(15);

		switch (below(5)) {
		case 0: si += off; break;
		case 1: di += off; break;
		case 2: ax += off; break;
		case 3: bx += off; break;
		case 4: dx += off; break;
		}
	}

	/* memory */
	fill(dx & ~15UL, 32);
	*(u32 *)dx = cw;
	memset((void *)(dx + 4), 0, 12);
	if (odd == 7)
		((u32 *)dx)[1 + below(3)] = 1U << below(32);
	fill(bx, 256);
	fill(ax - 32, 80);
	if (mode == 2 && pct(30))
		((u8 *)ax)[14] = 0xff, ((u8 *)ax)[15] = 0xff - below(8);
	/* around the output too: an earlier fault may have left anything */
	fill(di - 64, in_len + 128);
	fill(si, in_len);

	r[0] = si; r[1] = di; r[2] = cx; r[3] = ax; r[4] = dx; r[5] = bx;
	printf("%lu xcrypt-%s cw=%#x%s cx=%lu si=%s di=%s ax=%s bx=%s dx=%s",
	       k, xc_name[mode], cw, odd == 7 ? "+w" : "", cx, W(si), W(di),
	       W(ax), W(bx), W(dx));
	faulted = run(xc_fn[mode], r);

	/* results: the output and the chaining value, and around them */
	mem = fnv_mapped(FNV0, di & ~15UL, in_len);
	mem = fnv(mem, ax & ~15UL, 16);
	if (!inplace)
		mem = fnv_mapped(mem, si & ~15UL, in_len);
	guard = fnv_mapped(FNV0, (di & ~15UL) - 64, 64);
	guard = fnv_mapped(guard, (di & ~15UL) + in_len, 64);
	guard = fnv(guard, (ax & ~15UL) - 32, 32);
	guard = fnv(guard, (ax & ~15UL) + 16, 32);
	if (faulted) {
		/* registers and memory at a fault are undefined (hardware.md 1.2) */
		printf(" | fault=%s # si=%s di=%s cx=%lu ax=%s\n",
		       fault_name(fb, sizeof(fb)), W(f_regs[0]), W(f_regs[1]),
		       f_regs[2], W(f_regs[3]));
		return;
	}
	/*
	 * rAX after ECB and CTR, rBX after CTR, CFB and OFB are undefined
	 * (hardware.md 1.2, "Registers after XCRYPT"): notes.
	 */
	printf(" | fault=none si=%s di=%s cx=%lu ax=%s bx=%s dx=%s mem=%016llx guard=%016llx",
	       W(r[0]), W(r[1]), r[2], mode && mode != 2 ? W(r[3]) : "-",
	       mode >= 2 ? "-" : W(r[5]), W(r[4]),
	       (unsigned long long)mem, (unsigned long long)guard);
	if (mode >= 2)
		printf(" # ax=%s bx=%s", W(r[3]), W(r[5]));
	printf("\n");
}

/* ---- XSHA --------------------------------------------------------------- */

static const u32 sha1_iv[5] = {
	0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0,
};

static void one_xsha(unsigned long k)
{
	static void (* const fn[])(unsigned long *) = {
		padlock_raw_xsha1, padlock_raw_xsha256, padlock_raw_xsha384,
		padlock_raw_xsha512,
	};
	static const char * const name[] = { "sha1", "sha256", "sha384", "sha512" };
	unsigned int alg = below(zx ? 4 : 2), bs = alg < 2 ? 64 : 128;
	unsigned int state = alg == 0 ? 20 : alg == 1 ? 32 : 64;
	unsigned int area = zx ? (state == 20 ? 32 : state) : 128;
	unsigned long r[6], si, di, cx, ax, len;
	int block = has_blk && pct(50), faulted;
	uint64_t mem, guard;
	char fb[64];

	if (block) {
		cx = below(100) < 10 ? 0 : 1 + below(below(100) < 90 ? 8 : 80);
		ax = ~0UL;
		len = cx * bs;
		if (pct(5)) {
			ax = 0xffffffffUL;	/* 32-bit -1 in a 64-bit rAX */
		}
	} else {
		cx = below(100) < 8 ? 0 : below(below(100) < 85 ? 300 : 5000);
		ax = bs * below(cx / bs + 1);
		if (pct(5)) {
			ax = cx + 1 + below(200);	/* rAX > rCX: violation */
		} else if (pct(5)) {
			ax += 1 + below(bs - 1);	/* not a block multiple */
		}
		len = cx > ax ? cx - ax : 0;
	}
	if (len > (P_IN_END - P_IN) * PG)
		len = 0, cx = 0;
	di = ARENA + P_SHA * PG + 16 * below(100);
	if (pct(4))
		di += 1 + below(15);
	if (pct(25))
		si = ARENA + P_IN_END * PG - len - (pct(50) ? 0 : below(70));
	else
		si = ARENA + P_IN * PG + below((P_IN_END - P_IN) * PG - len);
	if (!len && pct(10)) {
		si = ARENA + GUARD_IN * PG + 16 * below(100);	/* unmapped */
	}
	fill(si, len);
	fill((di & ~15UL) - 32, 32 + area + 64);
	if (pct(50)) {
		fill(di, state);
	} else if (alg == 0) {
		memcpy((void *)di, sha1_iv, 20);
	}
	memset((void *)(di + state), 0, area - state);	/* hardware.md 1.7 */

	r[0] = si; r[1] = di; r[2] = cx; r[3] = ax;
	r[4] = rnd(); r[5] = rnd();
#ifndef __x86_64__
	r[4] &= 0xffffffffUL; r[5] &= 0xffffffffUL;
#endif
	printf("%lu xsha-%s %s cx=%lu ax=%#lx si=%s di=%s", k, name[alg],
	       block ? "blocks" : "final", cx, ax, W(si), W(di));
	{
		unsigned long dx0 = r[4], bx0 = r[5];

		faulted = run(fn[alg], r);
		if (faulted) {
			printf(" | fault=%s # si=%s cx=%lu ax=%#lx\n",
			       fault_name(fb, sizeof(fb)), W(f_regs[0]),
			       f_regs[2], f_regs[3]);
			return;
		}
		/* the state words, the input; undefined: the rest of the area */
		mem = fnv(FNV0, di, state);
		mem = fnv_mapped(mem, si, len);
		guard = fnv(FNV0, (di & ~15UL) - 32, 32);
		guard = fnv(guard, (di & ~15UL) + area, 48);
		printf(" | fault=none di=%s bx=%s dx=%s mem=%016llx guard=%016llx # si=%s cx=%lu ax=%#lx\n",
		       W(r[1]), r[5] == bx0 ? "=" : "changed",
		       r[4] == dx0 ? "=" : "changed", (unsigned long long)mem,
		       (unsigned long long)guard, W(r[0]), r[2], r[3]);
	}
}

/* ---- XSTORE ------------------------------------------------------------- */

static void one_xstore(unsigned long k)
{
	unsigned long r[6], di, dx, cx = 0;
	int rep = pct(40), faulted;
	uint64_t guard;
	char fb[64];

	dx = below(4) | (pct(20) ? (rnd() & 0xfff0) : 0);
	di = ARENA + P_OUT * PG + below(4000);
	if (rep)
		cx = below(100) < 10 ? 0 : 1 + below(64);
	fill(di - 32, cx + 8 + 64);
	r[0] = 0x1234; r[1] = di; r[2] = cx; r[3] = 0; r[4] = dx; r[5] = 0x5678;
	printf("%lu %sxstore dx=%#lx cx=%lu di=%s", k, rep ? "rep-" : "", dx,
	       cx, W(di));
	faulted = run(rep ? padlock_raw_rep_xstore : padlock_raw_xstore, r);
	if (faulted) {
		printf(" | fault=%s\n", fault_name(fb, sizeof(fb)));
		return;
	}
	/*
	 * Up to 7 bytes past what is stored are undefined, and so is rDI
	 * after a plain XSTORE of 1 or 2 random bytes in a 4-byte store
	 * (hardware.md 1.8).
	 */
	guard = fnv_mapped(FNV0, di - 32, 32);
	guard = fnv_mapped(guard, di + (rep ? cx : 8) + 8, 24);
	printf(" | fault=none status=%#lx di=%s cx=%lu dx=%#lx si=%s bx=%s guard=%016llx",
	       r[3] & 0xffffffffUL, rep || !(dx & 2) ? W(r[1]) : "-", r[2],
	       r[4], r[0] == 0x1234 ? "=" : "changed",
	       r[5] == 0x5678 ? "=" : "changed", (unsigned long long)guard);
	printf(rep || !(dx & 2) ? "\n" : " # di=%s\n", W(r[1]));
}

/*
 * "digest": for each record on stdin, "K DIGEST", the digest of the record
 * up to its notes (what xcheck.sh compares with a reference).
 */
static int digest(void)
{
	char line[1024], *end;
	unsigned long k;

	while (fgets(line, sizeof(line), stdin)) {
		end = strstr(line, " #");
		if (!end)
			end = line + strcspn(line, "\n");
		k = strtoul(line, NULL, 10);
		printf("%lu %08llx\n", k,
		       (unsigned long long)fnv(FNV0, (unsigned long)line,
					       end - line) & 0xffffffffULL);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { 0 };
	unsigned long seed, count, first = 0, k;
	const char *prof;
	void *p;

	if (argc == 2 && !strcmp(argv[1], "digest"))
		return digest();
	if (argc < 5) {
		fprintf(stderr, "usage: %s sim|qemu PROFILE SEED COUNT [FIRST]\n",
			argv[0]);
		return 2;
	}
	model = strcmp(argv[1], "qemu") ? M_SIM : M_QEMU;
	prof = argv[2];
	seed = strtoul(argv[3], NULL, 0);
	count = strtoul(argv[4], NULL, 0);
	if (argc > 5)
		first = strtoul(argv[5], NULL, 0);
	zx = !strncmp(prof, "zhaoxin", 7);
	c3c7 = !strcmp(prof, "c3") || !strcmp(prof, "c7");
	has_ace2 = !c3c7;
	has_phe = strcmp(prof, "c3") != 0;
	has_blk = !c3c7;

	p = mmap((void *)ARENA, NPAGES * PG, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p != (void *)ARENA) {
		perror("mmap arena");
		return 2;
	}
	munmap((void *)(ARENA + GUARD_IN * PG), PG);
	munmap((void *)(ARENA + GUARD_OUT * PG), PG);

	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGILL, &sa, NULL);
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);

	for (k = first; k < count; k++) {
		unsigned long op;

		rs = seed * 0x100000001b3ULL ^ k * 0x9e3779b97f4a7c15ULL;
		rnd();
		op = below(100);
		if (op < 60 || (!has_phe && op < 90))
			one_xcrypt(k);
		else if (op < 90)
			one_xsha(k);
		else
			one_xstore(k);
	}
	return 0;
}
