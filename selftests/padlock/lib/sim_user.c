// SPDX-License-Identifier: GPL-2.0
/*
 * User-mode PadLock instructions under padlock-sim (sim-user.sh).
 *
 *   sim_user keycache ITER    on every CPU, ITER times: a user-mode
 *                             "pushf; popf; rep xcrypt-ecb" with key U,
 *                             then an AF_ALG ecb(aes) request on the
 *                             driver ecb-aes-padlock with key K; both
 *                             outputs against the kernel's generic AES
 *   sim_user memory           user operands on pages not yet faulted in,
 *                             read-only and misaligned operands
 *
 * Prints one line per check: PASS|FAIL|SKIP description [| diagnostic].
 * The instructions come from drivers/test/padlock-test-asm.h (build with
 * -I drivers/test).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <linux/if_alg.h>

#include "padlock_user.h"

#ifndef SOL_ALG
#define SOL_ALG 279
#endif

static int failures;

static void report(int ok, const char *desc, const char *fmt, ...)
{
	va_list ap;

	printf("%s %s", ok ? "PASS" : "FAIL", desc);
	if (!ok && fmt) {
		printf(" | ");
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
	}
	printf("\n");
	fflush(stdout);
	if (!ok)
		failures++;
}

static void fill_random(void *p, size_t n)
{
	unsigned char *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = (unsigned char)random();
}

/* ---- AF_ALG ------------------------------------------------------------- */

static int alg_tfm(const char *type, const char *name)
{
	struct sockaddr_alg sa = { .salg_family = AF_ALG };
	int s = socket(AF_ALG, SOCK_SEQPACKET, 0);

	if (s < 0)
		return -1;
	snprintf((char *)sa.salg_type, sizeof(sa.salg_type), "%s", type);
	snprintf((char *)sa.salg_name, sizeof(sa.salg_name), "%s", name);
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa))) {
		close(s);
		return -1;
	}
	return s;
}

/* ECB encryption of len bytes through tfm (key already set). */
static int alg_ecb(int tfm, const void *in, void *out, size_t len)
{
	char cbuf[CMSG_SPACE(sizeof(uint32_t))] = { 0 };
	struct iovec iov = { .iov_base = (void *)in, .iov_len = len };
	struct msghdr msg = {
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
		.msg_iov = &iov, .msg_iovlen = 1,
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	int op = accept(tfm, NULL, 0);
	ssize_t n;

	if (op < 0)
		return -1;
	c->cmsg_level = SOL_ALG;
	c->cmsg_type = ALG_SET_OP;
	c->cmsg_len = CMSG_LEN(sizeof(uint32_t));
	*(uint32_t *)CMSG_DATA(c) = ALG_OP_ENCRYPT;
	n = sendmsg(op, &msg, 0);
	if (n == (ssize_t)len)
		n = read(op, out, len);
	close(op);
	return n == (ssize_t)len ? 0 : -1;
}

static int alg_ecb_key(const char *name, const void *key, size_t klen)
{
	int s = alg_tfm("skcipher", name);

	if (s >= 0 && setsockopt(s, SOL_ALG, ALG_SET_KEY, key, klen)) {
		close(s);
		return -1;
	}
	return s;
}

/* The kernel's C AES: aes-generic, or aes-lib on 7.x. */
static int generic_ecb(const void *key)
{
	static const char * const names[] = {
		"ecb(aes-generic)", "ecb(aes-lib)", "ecb-aes-lib",
	};
	unsigned int i;
	int s;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		s = alg_ecb_key(names[i], key, 16);
		if (s >= 0)
			return s;
	}
	return -1;
}

/* ---- user-mode xcrypt-ecb, AES-128, hardware key expansion -------------- */

/* The 16-byte ACE control word (docs/hardware.md 1.3) */
struct padlock_cword {
	u32 word;
	u32 reserved[3];
} __attribute__((aligned(16)));

/* pushf; popf; rep xcrypt-ecb, as the drivers issue it */
static void xcrypt_ecb(const void *in, void *out, const void *key,
		       const struct padlock_cword *cw, unsigned long blocks)
{
	unsigned long r[6] = {
		(unsigned long)in, (unsigned long)out, blocks, 0,
		(unsigned long)cw, (unsigned long)key,
	};

	padlock_raw_reload_xcrypt_ecb(r);
}

static const struct padlock_cword cw_enc128 = { .word = 10 };

static void user_ecb(const void *key, const void *in, void *out,
		     unsigned long blocks)
{
	xcrypt_ecb(in, out, key, &cw_enc128, blocks);
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

#define KC_BLOCKS	4

static int keycache(long iters, const char *driver)
{
	static uint8_t ukey[16] __attribute__((aligned(16)));
	static uint8_t uin[16 * KC_BLOCKS] __attribute__((aligned(16)));
	static uint8_t uout[16 * KC_BLOCKS] __attribute__((aligned(16)));
	uint8_t kkey[16], kin[16 * KC_BLOCKS], kout[16 * KC_BLOCKS];
	uint8_t ref[16 * KC_BLOCKS];
	long i, user_bad = 0, drv_bad = 0, runs = 0, ncpu;
	int pad, gen_k, cpu, cpus[256], n = 0;
	cpu_set_t all;
	char desc[200];

	if (sched_getaffinity(0, sizeof(all), &all))
		return 1;
	for (cpu = 0; cpu < CPU_SETSIZE && n < 256; cpu++)
		if (CPU_ISSET(cpu, &all))
			cpus[n++] = cpu;
	ncpu = n;
	fill_random(kkey, sizeof(kkey));
	pad = alg_ecb_key(driver, kkey, sizeof(kkey));
	gen_k = generic_ecb(kkey);
	if (pad < 0 || gen_k < 0) {
		/* the crypto API refuses an algorithm that failed its tests */
		snprintf(desc, sizeof(desc), "%s: %s%s", pad < 0 ? driver :
			 "ecb(aes-generic)/ecb(aes-lib)", strerror(errno),
			 errno == ELIBBAD ? " (it failed its crypto self-test)" : "");
		report(0, "AF_ALG transforms", "%s", desc);
		printf("WRONG no request possible: %s\n", desc);
		return 1;
	}
	for (i = 0; i < iters; i++) {
		for (n = 0; n < ncpu; n++) {
			int gen_u;

			if (pin(cpus[n])) {
				report(0, "sched_setaffinity", "cpu %d: %s",
				       cpus[n], strerror(errno));
				return 1;
			}
			fill_random(ukey, sizeof(ukey));
			fill_random(uin, sizeof(uin));
			fill_random(kin, sizeof(kin));
			/* back to back: user-mode U, then the driver with K */
			user_ecb(ukey, uin, uout, KC_BLOCKS);
			if (alg_ecb(pad, kin, kout, sizeof(kin))) {
				report(0, "AF_ALG request", "%s: %s", driver,
				       strerror(errno));
				return 1;
			}
			runs++;
			if (alg_ecb(gen_k, kin, ref, sizeof(kin)) ||
			    memcmp(ref, kout, sizeof(ref)))
				drv_bad++;
			gen_u = generic_ecb(ukey);
			if (gen_u < 0 || alg_ecb(gen_u, uin, ref, sizeof(uin)) ||
			    memcmp(ref, uout, sizeof(ref)))
				user_bad++;
			if (gen_u >= 0)
				close(gen_u);
		}
	}
	printf("# %ld rounds on %ld CPUs: %ld wrong %s outputs, %ld wrong user-mode outputs\n",
	       runs, ncpu, drv_bad, driver, user_bad);
	snprintf(desc, sizeof(desc),
		 "user-mode xcrypt-ecb (key U) correct, %ld rounds on %ld CPUs",
		 runs, ncpu);
	report(user_bad == 0, desc, "%ld of %ld wrong", user_bad, runs);
	snprintf(desc, sizeof(desc),
		 "%s (key K) right after user-mode key U: equal to the generic AES, %ld rounds",
		 driver, runs);
	report(drv_bad == 0, desc, "%ld of %ld wrong", drv_bad, runs);
	printf("WRONG %ld\n", drv_bad);
	close(pad);
	close(gen_k);
	return 0;
}

/* ---- memory: faults, protection, alignment ------------------------------ */

/* Run fn in a child; returns the signal that ended it, 0 on exit(0). */
static int in_child(void (*fn)(void *), void *arg)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (!pid) {
		fn(arg);
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	if (WIFSIGNALED(st))
		return WTERMSIG(st);
	return WEXITSTATUS(st) ? 256 + WEXITSTATUS(st) : 0;
}

struct ecb_args {
	const void *key, *in;
	void *out;
	const struct padlock_cword *cw;
	unsigned long blocks;
};

static void child_ecb(void *p)
{
	struct ecb_args *a = p;

	xcrypt_ecb(a->in, a->out, a->key, a->cw, a->blocks);
}

static void check_signal(const char *desc, struct ecb_args *a, int want)
{
	int got = in_child(child_ecb, a);

	report(got == want, desc, "child ended with %d (%s), wanted %s", got,
	       got > 0 && got < 64 ? strsignal(got) : "exit",
	       want ? strsignal(want) : "exit 0");
}

static int memory(void)
{
	static uint8_t key[32] __attribute__((aligned(16)));
	static struct padlock_cword bad_cw;
	long page = sysconf(_SC_PAGESIZE);
	size_t len = 3 * page;
	uint8_t *buf, *ref, *ro, *copy, *hole;
	struct ecb_args a;
	int gen, i;

	fill_random(key, sizeof(key));
	gen = generic_ecb(key);
	ref = malloc(len);
	copy = malloc(len);
	if (gen < 0 || !ref || !copy) {
		report(0, "generic AES and buffers", "%s", strerror(errno));
		return 1;
	}

	/*
	 * In place over three pages that were never touched: the simulator
	 * faults them in and executes the instruction once they are there.
	 */
	buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return 1;
	user_ecb(key, buf, buf, len / 16);
	memset(copy, 0, len);
	report(!alg_ecb(gen, copy, ref, len) && !memcmp(ref, buf, len),
	       "in place over 3 pages not faulted in yet (zero pages)",
	       "output differs from the generic AES");

	/* input from a file-backed page cache page, output fresh */
	for (i = 0; i < 2; i++) {
		uint8_t *in = mmap(NULL, len, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		uint8_t *out = mmap(NULL, len, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (in == MAP_FAILED || out == MAP_FAILED)
			return 1;
		fill_random(in, len);
		memcpy(copy, in, len);
		/* give the input pages back: they fault in again as zero */
		if (i && madvise(in, len, MADV_DONTNEED) == 0)
			memset(copy, 0, len);
		user_ecb(key, in, out, len / 16);
		report(!alg_ecb(gen, copy, ref, len) && !memcmp(ref, out, len),
		       i ? "input pages dropped (MADV_DONTNEED), output not faulted in" :
			   "output pages not faulted in yet",
		       "output differs from the generic AES");
		munmap(in, len);
		munmap(out, len);
	}

	/* a read-only destination: the page fault cannot be resolved */
	ro = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	a = (struct ecb_args){ key, buf, ro, &cw_enc128, 1 };
	check_signal("read-only destination: SIGSEGV", &a, SIGSEGV);

	/*
	 * An unmapped source: a page mapped and given back, so nothing else
	 * can be there (an address at a distance from a mapping could land in
	 * another one, depending on the kernel's mmap layout).
	 */
	hole = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (hole == MAP_FAILED || munmap(hole, page))
		return 1;
	a = (struct ecb_args){ key, hole, buf, &cw_enc128, 1 };
	check_signal("unmapped source: SIGSEGV", &a, SIGSEGV);

	/*
	 * One block in the last 16 bytes of a page: the ECB fetch (2 blocks or
	 * more on every profile) reads into the next page.  Silicon faults
	 * only when that page cannot be read (docs/hardware.md 2.2).
	 */
	a = (struct ecb_args){ key, buf + page - 16, copy, &cw_enc128, 1 };
	check_signal("over-read into a mapped next page: exit 0", &a, 0);
	hole = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (hole == MAP_FAILED || munmap(hole + page, page))
		return 1;
	memset(hole, 0, page);
	a = (struct ecb_args){ key, hole + page - 16, copy, &cw_enc128, 1 };
	/* the page fault silicon takes there: SIGSEGV, not a rule violation */
	check_signal("over-read into an unmapped next page: SIGSEGV", &a, SIGSEGV);
	munmap(hole, page);

	/* the rules: violations are SIGILL (silicon: #UD/#GP) */
	a = (struct ecb_args){ key + 8, buf, buf, &cw_enc128, 1 };
	check_signal("misaligned key (rbx % 16 = 8): SIGILL", &a, SIGILL);
	a = (struct ecb_args){ key, buf + 4, buf, &cw_enc128, 1 };
	check_signal("misaligned source (rsi % 16 = 4): SIGILL", &a, SIGILL);
	bad_cw.word = 10;
	bad_cw.reserved[1] = 1;
	a = (struct ecb_args){ key, buf, buf, &bad_cw, 1 };
	check_signal("reserved control word bits: SIGILL", &a, SIGILL);

	/* and still fine afterwards, in this process */
	a = (struct ecb_args){ key, buf, buf, &cw_enc128, 3 * page / 16 };
	check_signal("valid instruction after the violations: exit 0", &a, 0);

	munmap(buf, len);
	munmap(ro, page);
	close(gen);
	return 0;
}

int main(int argc, char **argv)
{
	srandom(getpid() ^ 0x5eed);
	if (argc >= 2 && !strcmp(argv[1], "keycache"))
		return keycache(argc >= 3 ? atol(argv[2]) : 50,
				argc >= 4 ? argv[3] : "ecb-aes-padlock") ||
		       failures;
	if (argc >= 2 && !strcmp(argv[1], "memory"))
		return memory() || failures;
	fprintf(stderr, "usage: %s keycache [ITER [DRIVER]] | memory\n",
		argv[0]);
	return 2;
}
