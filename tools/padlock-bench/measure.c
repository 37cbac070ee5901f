// SPDX-License-Identifier: GPL-2.0
/*
 * padlock-bench: what measurements need: clocks, random data, sorting.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <time.h>
#include <sys/random.h>
#include <sys/resource.h>

#include "bench.h"

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

void fill_random(void *buf, size_t len)
{
	unsigned char *p = buf;

	while (len) {
		ssize_t r = getrandom(p, len, 0);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			die(EXIT_RUNTIME, "getrandom failed: %s", strerror(errno));
		}
		p += r;
		len -= r;
	}
}

int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}
