// SPDX-License-Identifier: GPL-2.0
/*
 * keycache: does an AF_ALG ecb(aes) request run under a key that user space
 * left in the PadLock engine?  Patch 0001's test program (keycache.sh).
 *
 *   keycache ROUNDS DRIVER
 *
 * On every CPU in turn, ROUNDS times, in two orders:
 *
 *   before   user-mode xcrypt with key U, then accept(), sendmsg() and
 *            read() on DRIVER with key K (the order of selftests/padlock/
 *            sim-user.sh): two returns to user space lie between the user's
 *            xcrypt and the kernel's, and each loads EFLAGS
 *   between  accept() and sendmsg() first, then the user-mode xcrypt with
 *            key U, then read(), which runs the request: nothing loads
 *            EFLAGS between the two xcrypts unless an interrupt comes
 *
 * Every output is compared with the kernel's generic AES (AF_ALG, ecb-aes-lib,
 * ecb(aes-lib) or ecb(aes-generic), the first that exists and is not DRIVER),
 * the user-mode one too.  Prints one line per order:
 *   ORDER RUNS WRONG USERWRONG
 * and exits 0 when it could run the requests (whatever they returned).
 *
 * The user-mode instruction is "pushf; popf; rep xcrypt-ecb" (AES-128,
 * hardware key expansion), from the test instruments' asm
 * (drivers/test/padlock-test-asm.h): build with -I drivers/test
 * -I selftests/padlock/lib.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/if_alg.h>

#include "padlock_user.h"

#ifndef SOL_ALG
#define SOL_ALG 279
#endif

#define BLOCKS	4
#define LEN	(16 * BLOCKS)

struct cword {
	uint32_t word, pad[3];
} __attribute__((aligned(16)));

/* AES-128 encryption: 10 rounds, hardware key expansion */
static const struct cword enc128 = { .word = 10 };

/* pushf; popf; rep xcrypt-ecb */
static void user_xcrypt_ecb(const void *key, const void *in, void *out,
			    unsigned long blocks)
{
	unsigned long r[6] = {
		(unsigned long)in, (unsigned long)out, blocks, 0,
		(unsigned long)&enc128, (unsigned long)key,
	};

	padlock_raw_reload_xcrypt_ecb(r);
}

static int tfm_with_key(const char *name, const void *key)
{
	struct sockaddr_alg sa = { .salg_family = AF_ALG };
	int s = socket(AF_ALG, SOCK_SEQPACKET, 0);

	if (s < 0)
		return -1;
	strcpy((char *)sa.salg_type, "skcipher");
	snprintf((char *)sa.salg_name, sizeof(sa.salg_name), "%s", name);
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) ||
	    setsockopt(s, SOL_ALG, ALG_SET_KEY, key, 16)) {
		close(s);
		return -1;
	}
	return s;
}

/* accept() and sendmsg() one encryption of LEN bytes: the op socket */
static int queue(int tfm, const void *in)
{
	char cbuf[CMSG_SPACE(sizeof(uint32_t))] = { 0 };
	struct iovec iov = { .iov_base = (void *)in, .iov_len = LEN };
	struct msghdr msg = {
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
		.msg_iov = &iov, .msg_iovlen = 1,
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	int op = accept(tfm, NULL, 0);

	if (op < 0)
		return -1;
	c->cmsg_level = SOL_ALG;
	c->cmsg_type = ALG_SET_OP;
	c->cmsg_len = CMSG_LEN(sizeof(uint32_t));
	*(uint32_t *)CMSG_DATA(c) = ALG_OP_ENCRYPT;
	if (sendmsg(op, &msg, 0) != LEN) {
		close(op);
		return -1;
	}
	return op;
}

/* read() the result: this is where the kernel runs the request */
static int finish(int op, void *out)
{
	ssize_t n = read(op, out, LEN);

	close(op);
	return n == LEN ? 0 : -1;
}

static int encrypt(int tfm, const void *in, void *out)
{
	int op = queue(tfm, in);

	return op < 0 ? -1 : finish(op, out);
}

static int generic(const void *key, const char *driver)
{
	static const char * const names[] = {
		"ecb-aes-lib", "ecb(aes-lib)", "ecb(aes-generic)",
	};
	unsigned int i;
	int s;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		/* never the driver under test (ecb-aes-lib in the library's lane) */
		if (!strcmp(names[i], driver))
			continue;
		s = tfm_with_key(names[i], key);
		if (s >= 0)
			return s;
	}
	return -1;
}

static void fill(void *p, size_t n)
{
	unsigned char *b = p;

	while (n--)
		*b++ = (unsigned char)random();
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

int main(int argc, char **argv)
{
	static uint8_t ukey[16] __attribute__((aligned(16)));
	static uint8_t uin[LEN] __attribute__((aligned(16)));
	static uint8_t uout[LEN] __attribute__((aligned(16)));
	uint8_t kkey[16], kin[LEN], kout[LEN], ref[LEN];
	static const char * const orders[] = { "before", "between" };
	long rounds, i, runs, wrong, uwrong;
	int cpus[1024], ncpu = 0, cpu, n, o, pad, gen_k, gen_u, op;
	const char *driver;
	cpu_set_t all;

	if (argc != 3) {
		fprintf(stderr, "usage: %s ROUNDS DRIVER\n", argv[0]);
		return 2;
	}
	rounds = atol(argv[1]);
	driver = argv[2];
	srandom(getpid());
	if (sched_getaffinity(0, sizeof(all), &all))
		return 1;
	for (cpu = 0; cpu < CPU_SETSIZE && ncpu < 1024; cpu++)
		if (CPU_ISSET(cpu, &all))
			cpus[ncpu++] = cpu;

	fill(kkey, sizeof(kkey));
	pad = tfm_with_key(driver, kkey);
	gen_k = generic(kkey, driver);
	gen_u = generic(kkey, driver);
	if (pad < 0 || gen_k < 0 || gen_u < 0) {
		fprintf(stderr, "%s or the generic AES: %s\n", driver, strerror(errno));
		return 1;
	}
	for (o = 0; o < 2; o++) {
		runs = wrong = uwrong = 0;
		for (i = 0; i < rounds; i++) {
			for (n = 0; n < ncpu; n++) {
				if (pin(cpus[n]))
					return 1;
				fill(ukey, sizeof(ukey));
				fill(uin, sizeof(uin));
				fill(kin, sizeof(kin));
				if (o == 0) {
					user_xcrypt_ecb(ukey, uin, uout, BLOCKS);
					if (encrypt(pad, kin, kout))
						return 1;
				} else {
					op = queue(pad, kin);
					if (op < 0)
						return 1;
					user_xcrypt_ecb(ukey, uin, uout, BLOCKS);
					if (finish(op, kout))
						return 1;
				}
				runs++;
				if (encrypt(gen_k, kin, ref))
					return 1;
				if (memcmp(ref, kout, LEN))
					wrong++;
				if (setsockopt(gen_u, SOL_ALG, ALG_SET_KEY, ukey, 16) ||
				    encrypt(gen_u, uin, ref))
					return 1;
				if (memcmp(ref, uout, LEN))
					uwrong++;
			}
		}
		printf("%s %ld %ld %ld\n", orders[o], runs, wrong, uwrong);
		fflush(stdout);
	}
	return 0;
}
