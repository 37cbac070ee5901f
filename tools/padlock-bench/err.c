// SPDX-License-Identifier: GPL-2.0
/*
 * padlock-bench: messages, fatal errors, the stop request, allocation.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

atomic_int stop_requested;
char fatal_error[512];

static int progress_shown;

void progress(const char *fmt, ...)
{
	va_list ap;

	if (!isatty(STDERR_FILENO))
		return;
	fputs("\r\033[K", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fflush(stderr);
	progress_shown = 1;
}

void progress_done(void)
{
	if (progress_shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		progress_shown = 0;
	}
}

noreturn void die(int status, const char *fmt, ...)
{
	va_list ap;

	progress_done();
	va_start(ap, fmt);
	vsnprintf(fatal_error, sizeof(fatal_error), fmt, ap);
	va_end(ap);
	fprintf(stderr, "padlock-bench: %s\n", fatal_error);
	cleanup_all();
	/* what was measured so far, with the error, for whoever asked for it */
	if (opt.json_file && status != EXIT_ENV)
		report_write_json(opt.json_file);
	exit(status);
}

void notice(const char *fmt, ...)
{
	va_list ap;
	char buf[512];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	progress_done();
	fprintf(stderr, "padlock-bench: note: %s\n", buf);
	report_note("%s", buf);
}

void check_stop(void)
{
	if (stop_requested)
		die(EXIT_SIGNAL, "interrupted by signal %d; everything set up was removed.",
		    atomic_load(&stop_requested));
}

void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz ? sz : 1);

	if (!p)
		die(EXIT_RUNTIME, "out of memory");
	return p;
}

void *xrealloc(void *p, size_t sz)
{
	p = realloc(p, sz ? sz : 1);
	if (!p)
		die(EXIT_RUNTIME, "out of memory");
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		die(EXIT_RUNTIME, "out of memory");
	return p;
}
