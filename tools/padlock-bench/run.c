// SPDX-License-Identifier: GPL-2.0
/*
 * padlock-bench: running programs, the programs and privileges a
 * subcommand needs, kernel modules.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "bench.h"

int have_program(const char *prog)
{
	const char *path = getenv("PATH");
	char buf[4096];

	if (strchr(prog, '/'))
		return access(prog, X_OK) == 0;
	if (!path)
		path = "/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path, prog);
		if (n && access(buf, X_OK) == 0)
			return 1;
		path += n;
		if (*path == ':')
			path++;
	}
	return 0;
}

void need_program(const char *prog, const char *package)
{
	if (!have_program(prog))
		die(EXIT_ENV, "the program %s is not in PATH; install the %s package.",
		    prog, package);
}

void need_root(const char *what)
{
	if (geteuid() != 0)
		die(EXIT_ENV,
		    "%s needs root (it sets up kernel devices and namespaces); run it with sudo.",
		    what);
}

/*
 * Run argv, wait for it; its standard output goes to *out (malloc'ed,
 * NUL-terminated) when out is not NULL, its standard error is kept for
 * run_stderr() (the error message).  A signal kills the child and makes
 * check_stop() end the run.
 */
static char last_stderr[2048];

const char *run_stderr(void)
{
	return last_stderr;
}

/* what a running child produces: its output, the start of its errors */
struct child {
	pid_t pid;
	int killed;
	char *out;
	size_t len, cap, elen;
};

/* fork and exec argv; *ofd, *efd: the read ends of its stdout and stderr */
static pid_t spawn(char *const argv[], int *ofd, int *efd)
{
	int op[2], ep[2];
	pid_t pid;

	if (pipe2(op, O_CLOEXEC) || pipe2(ep, O_CLOEXEC))
		die(EXIT_RUNTIME, "pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		die(EXIT_RUNTIME, "fork: %s", strerror(errno));
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		dup2(null, 0);
		dup2(op[1], 1);
		dup2(ep[1], 2);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		execvp(argv[0], argv);
		fprintf(stderr, "%s: %s", argv[0], strerror(errno));
		_exit(127);
	}
	close(op[1]);
	close(ep[1]);
	*ofd = op[0];
	*efd = ep[0];
	return pid;
}

/* a stop ends the running program, but never the undoing */
static void kill_on_stop(struct child *ch)
{
	if (stop_requested && !ch->killed && !cleanup_running()) {
		kill(ch->pid, SIGTERM);
		ch->killed = 1;
	}
}

static void keep_output(struct child *ch, int err, const char *buf, size_t r)
{
	if (!err) {
		if (ch->len + r + 1 > ch->cap) {
			ch->cap = (ch->len + r + 1) * 2;
			ch->out = xrealloc(ch->out, ch->cap);
		}
		memcpy(ch->out + ch->len, buf, r);
		ch->len += r;
	} else if (ch->elen + 1 < sizeof(last_stderr)) {
		size_t n = sizeof(last_stderr) - 1 - ch->elen;

		if (r < n)
			n = r;
		memcpy(last_stderr + ch->elen, buf, n);
		ch->elen += n;
		last_stderr[ch->elen] = 0;
	}
}

/* read both pipes until the child closes them */
static void collect(struct child *ch, int ofd, int efd)
{
	struct pollfd pfd[2] = { { ofd, POLLIN, 0 }, { efd, POLLIN, 0 } };
	int open_fds = 2;

	while (open_fds) {
		char tmp[4096];
		int i;

		kill_on_stop(ch);
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (i = 0; i < 2; i++) {
			ssize_t r;

			if (pfd[i].fd < 0 || !(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			r = read(pfd[i].fd, tmp, sizeof(tmp));
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0) {
				close(pfd[i].fd);
				pfd[i].fd = -1;
				open_fds--;
				continue;
			}
			keep_output(ch, i, tmp, r);
		}
	}
}

static void log_command(char *const argv[], double t0)
{
	int i;

	progress_done();
	fprintf(stderr, "padlock-bench: %.2f s:", now_s() - t0);
	for (i = 0; argv[i]; i++)
		fprintf(stderr, " %s", argv[i]);
	fputc('\n', stderr);
}

int run_argv(char **out, char *const argv[])
{
	struct child ch = { 0 };
	double t0 = now_s();
	int ofd, efd, status = 0;

	ch.pid = spawn(argv, &ofd, &efd);
	last_stderr[0] = 0;
	collect(&ch, ofd, efd);
	while (waitpid(ch.pid, &status, 0) < 0 && errno == EINTR) {
		if (!ch.killed && !cleanup_running()) {
			kill(ch.pid, SIGTERM);
			ch.killed = 1;
		}
	}
	if (opt.verbose)
		log_command(argv, t0);
	if (!ch.out)
		ch.out = xcalloc(1, 1);
	ch.out[ch.len] = 0;
	/* drop trailing newlines of stderr for one-line messages */
	while (ch.elen && (last_stderr[ch.elen - 1] == '\n' || last_stderr[ch.elen - 1] == ' '))
		last_stderr[--ch.elen] = 0;
	if (out)
		*out = ch.out;
	else
		free(ch.out);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* run a shell command line built with printf formatting */
int run_cmd(char **out, const char *fmt, ...)
{
	char cmd[2048];
	char *argv[4];
	va_list ap;

	argv[0] = "/bin/sh";
	argv[1] = "-c";
	argv[2] = cmd;
	argv[3] = NULL;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return run_argv(out, argv);
}

int module_loaded(const char *mod)
{
	char p[128], m[64];
	size_t i;

	snprintf(m, sizeof(m), "%s", mod);
	for (i = 0; m[i]; i++)
		if (m[i] == '-')
			m[i] = '_';
	snprintf(p, sizeof(p), "/sys/module/%s", m);
	return access(p, F_OK) == 0;
}

/*
 * Make sure a kernel module is there.  Returns 1 when we loaded it (the
 * caller unloads it again), 0 when it was there already (or built in).
 */
int need_module(const char *mod, const char *params)
{
	char *argv[8];
	int argc = 0, rc;
	char pbuf[256], *tok, *save = NULL;

	if (module_loaded(mod))
		return 0;
	need_program("modprobe", "kmod");
	argv[argc++] = "modprobe";
	argv[argc++] = (char *)mod;
	snprintf(pbuf, sizeof(pbuf), "%s", params ? params : "");
	for (tok = strtok_r(pbuf, " ", &save); tok && argc < 7; tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	rc = run_argv(NULL, argv);
	check_stop();
	if (rc)
		die(EXIT_ENV, "the kernel module %s is missing (modprobe %s: %s).",
		    mod, mod, last_stderr[0] ? last_stderr : "failed");
	return 1;
}
