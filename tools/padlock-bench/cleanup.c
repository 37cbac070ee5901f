// SPDX-License-Identifier: GPL-2.0
/*
 * padlock-bench: the cleanup stack.  Everything the tool sets up registers
 * how to undo it; the undoing runs at the end, on a fatal error and after a
 * signal (SIGINT, SIGTERM, SIGHUP only request a stop: see check_stop()).
 */
#define _GNU_SOURCE
#include <string.h>

#include "bench.h"

struct cleanup {
	char what[96];
	cleanup_fn fn;
	void *arg;
};

static struct cleanup cleanups[64];
static int ncleanups;
static int in_cleanup;

void cleanup_push(const char *what, cleanup_fn fn, void *arg)
{
	if (ncleanups == (int)ARRAY_SIZE(cleanups))
		die(EXIT_RUNTIME, "internal error: too many cleanup actions");
	snprintf(cleanups[ncleanups].what, sizeof(cleanups[0].what), "%s", what);
	cleanups[ncleanups].fn = fn;
	cleanups[ncleanups].arg = arg;
	ncleanups++;
}

void cleanup_pop_run(const char *what)
{
	int i;

	for (i = ncleanups - 1; i >= 0; i--) {
		struct cleanup c;

		if (strcmp(cleanups[i].what, what))
			continue;
		c = cleanups[i];
		memmove(&cleanups[i], &cleanups[i + 1],
			(ncleanups - i - 1) * sizeof(cleanups[0]));
		ncleanups--;
		c.fn(c.arg);
		return;
	}
}

void cleanup_all(void)
{
	if (in_cleanup)
		return;
	in_cleanup = 1;
	/* signals that arrive now must not interrupt the undoing */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	while (ncleanups > 0) {
		struct cleanup c = cleanups[--ncleanups];

		if (opt.verbose)
			fprintf(stderr, "padlock-bench: cleanup: %s\n", c.what);
		c.fn(c.arg);
	}
	in_cleanup = 0;
}

/* true while cleanup_all() undoes things: programs it runs must not be killed */
int cleanup_running(void)
{
	return in_cleanup;
}

static void on_signal(int sig)
{
	stop_requested = sig;
}

void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: blocking calls return EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}
