// SPDX-License-Identifier: GPL-2.0
/*
 * padlock-bench: errors, cleanup on exit and on signals, running programs,
 * /proc/crypto, system description, a small JSON reader.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "bench.h"

atomic_int stop_requested;
char fatal_error[512];

/* ------------------------------------------------------------------ */
/* messages */

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

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		die(EXIT_RUNTIME, "out of memory");
	return p;
}

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

/* ------------------------------------------------------------------ */
/* cleanup: everything the tool sets up registers how to undo it */

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

/* ------------------------------------------------------------------ */
/* programs and modules */

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
 * NUL-terminated) when out is not NULL, its standard error is kept for the
 * error message in the same buffer after the output when out is NULL.
 * A signal kills the child and makes check_stop() end the run.
 */
static char last_stderr[2048];

const char *run_stderr(void)
{
	return last_stderr;
}

int run_argv(char **out, char *const argv[])
{
	int op[2], ep[2], status = 0;
	char *buf = NULL;
	size_t len = 0, cap = 0, elen = 0;
	pid_t pid;
	struct pollfd pfd[2];
	int open_fds = 2, killed = 0;

	double t0 = now_s();

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
	last_stderr[0] = 0;
	pfd[0].fd = op[0];
	pfd[1].fd = ep[0];
	pfd[0].events = POLLIN;
	pfd[1].events = POLLIN;
	while (open_fds) {
		char tmp[4096];
		int i;

		/* a stop ends the running program, but never the undoing */
		if (stop_requested && !killed && !in_cleanup) {
			kill(pid, SIGTERM);
			killed = 1;
		}
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
			if (i == 0) {
				if (len + r + 1 > cap) {
					cap = (len + r + 1) * 2;
					buf = realloc(buf, cap);
					if (!buf)
						die(EXIT_RUNTIME, "out of memory");
				}
				memcpy(buf + len, tmp, r);
				len += r;
			} else if (elen + 1 < sizeof(last_stderr)) {
				size_t n = sizeof(last_stderr) - 1 - elen;

				if ((size_t)r < n)
					n = r;
				memcpy(last_stderr + elen, tmp, n);
				elen += n;
				last_stderr[elen] = 0;
			}
		}
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
		if (!killed && !in_cleanup) {
			kill(pid, SIGTERM);
			killed = 1;
		}
	}
	if (opt.verbose) {
		int i;

		progress_done();
		fprintf(stderr, "padlock-bench: %.2f s:", now_s() - t0);
		for (i = 0; argv[i]; i++)
			fprintf(stderr, " %s", argv[i]);
		fputc('\n', stderr);
	}
	if (!buf)
		buf = xcalloc(1, 1);
	buf[len] = 0;
	/* drop trailing newlines of stderr for one-line messages */
	while (elen && (last_stderr[elen - 1] == '\n' || last_stderr[elen - 1] == ' '))
		last_stderr[--elen] = 0;
	if (out)
		*out = buf;
	else
		free(buf);
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

/* ------------------------------------------------------------------ */
/* /proc/crypto */

static const char *proc_crypto = "/proc/crypto";

int crypto_read(struct crypto_list *l)
{
	FILE *f = fopen(proc_crypto, "r");
	char line[512];
	struct calg *cur = NULL;
	int cap = 0;

	crypto_free(l);
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *colon, *key, *val, *e;

		line[strcspn(line, "\n")] = 0;
		if (!line[0]) {
			cur = NULL;
			continue;
		}
		colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = 0;
		key = line;
		val = colon + 1;
		for (e = colon - 1; e >= key && isspace((unsigned char)*e); e--)
			*e = 0;
		while (isspace((unsigned char)*val))
			val++;
		if (!strcmp(key, "name")) {
			if (l->n == cap) {
				cap = cap ? cap * 2 : 256;
				l->a = realloc(l->a, cap * sizeof(*l->a));
				if (!l->a)
					die(EXIT_RUNTIME, "out of memory");
			}
			cur = &l->a[l->n++];
			memset(cur, 0, sizeof(*cur));
			snprintf(cur->name, sizeof(cur->name), "%s", val);
			cur->selftest_ok = 1;
			continue;
		}
		if (!cur)
			continue;
		if (!strcmp(key, "driver"))
			snprintf(cur->driver, sizeof(cur->driver), "%s", val);
		else if (!strcmp(key, "module"))
			snprintf(cur->module, sizeof(cur->module), "%s", val);
		else if (!strcmp(key, "type"))
			snprintf(cur->type, sizeof(cur->type), "%s", val);
		else if (!strcmp(key, "priority"))
			cur->priority = atoi(val);
		else if (!strcmp(key, "internal"))
			cur->internal = !strcmp(val, "yes");
		else if (!strcmp(key, "selftest"))
			cur->selftest_ok = !strcmp(val, "passed");
	}
	fclose(f);
	return 0;
}

void crypto_free(struct crypto_list *l)
{
	free(l->a);
	l->a = NULL;
	l->n = 0;
}

const struct calg *crypto_find_driver(const struct crypto_list *l, const char *driver)
{
	int i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->a[i].driver, driver))
			return &l->a[i];
	return NULL;
}

/*
 * The /proc/crypto entry that a pinned name ended up as: the same driver
 * name, or for "xts(X)" the instance "xts(ecb(X))" the template builds.
 */
const struct calg *crypto_resolve(const char *pinned, struct crypto_list *l)
{
	const struct calg *c;
	char alt[200];
	size_t n = strlen(pinned);

	crypto_read(l);
	c = crypto_find_driver(l, pinned);
	if (c)
		return c;
	if (!strncmp(pinned, "xts(", 4) && strncmp(pinned, "xts(ecb", 7) && n > 5) {
		snprintf(alt, sizeof(alt), "xts(ecb(%.*s))", (int)(n - 5), pinned + 4);
		return crypto_find_driver(l, alt);
	}
	return NULL;
}

int is_padlock_driver(const char *driver)
{
	return !!strstr(driver, "padlock");
}

/* ------------------------------------------------------------------ */
/* the machine */

char sys_kernel[128], sys_cpu[160], sys_profile[128];
int sys_icount;

void sysinfo_read(void)
{
	struct utsname u;
	FILE *f;
	char line[512];

	if (uname(&u) == 0)
		snprintf(sys_kernel, sizeof(sys_kernel), "%s", u.release);
	snprintf(sys_cpu, sizeof(sys_cpu), "unknown");
	f = fopen("/proc/cpuinfo", "r");
	if (f) {
		while (fgets(line, sizeof(line), f)) {
			char *v;

			if (strncmp(line, "model name", 10))
				continue;
			v = strchr(line, ':');
			if (!v)
				continue;
			v++;
			while (*v == ' ' || *v == '\t')
				v++;
			v[strcspn(v, "\n")] = 0;
			snprintf(sys_cpu, sizeof(sys_cpu), "%s", v);
			break;
		}
		fclose(f);
	}
	/* set by the project's VM runner: QEMU -icount shift=0, 1 ns per instruction */
	sys_icount = getenv("PADLOCK_ICOUNT") && !strcmp(getenv("PADLOCK_ICOUNT"), "1");
	sys_profile[0] = 0;
	f = fopen("/sys/kernel/debug/padlock-sim/profile", "r");
	if (f) {
		if (fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n")] = 0;
			snprintf(sys_profile, sizeof(sys_profile), "%.127s", line);
		}
		fclose(f);
	}
}

/*
 * The simulator's cost file: "name count handler_cycles" per opcode class,
 * then "trap_overhead_cycles N".  Returns 0, or -errno when it is missing.
 */
int sim_cost_read(struct sim_cost *c)
{
	FILE *f = fopen("/sys/kernel/debug/padlock-sim/cost", "r");
	char line[256], name[24];
	unsigned long long n, cyc;

	memset(c, 0, sizeof(*c));
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "trap_overhead_cycles %llu", &n) == 1) {
			c->trap_overhead = n;
			continue;
		}
		if (sscanf(line, "%23s %llu %llu", name, &n, &cyc) != 3 ||
		    c->n == SIM_COST_MAX)
			continue;
		snprintf(c->name[c->n], sizeof(c->name[0]), "%s", name);
		c->count[c->n] = n;
		c->cycles[c->n] = cyc;
		c->n++;
	}
	fclose(f);
	return c->n ? 0 : -EINVAL;
}

/* what the simulator spent between two readings a and b, into row r */
void sim_cost_delta(struct row *r, const struct sim_cost *a, const struct sim_cost *b)
{
	size_t len = 0;
	int i;

	r->sim_traps = 0;
	r->sim_handler = 0;
	r->sim_classes[0] = 0;
	for (i = 0; i < b->n && i < a->n; i++) {
		unsigned long long n = b->count[i] - a->count[i];

		r->sim_traps += n;
		r->sim_handler += b->cycles[i] - a->cycles[i];
		if (n && len < sizeof(r->sim_classes))
			len += snprintf(r->sim_classes + len, sizeof(r->sim_classes) - len,
					"%s%s:%llu", len ? " " : "", b->name[i], n);
	}
	r->sim_trap_overhead = b->trap_overhead;
	r->sim = 1;
}

/* ------------------------------------------------------------------ */
/* JSON reader: enough for fio --output-format=json and iperf3 --json */

enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jval {
	int type;
	double num;
	char *str;
	int n;
	char **keys;
	struct jval **items;
};

struct jparser {
	const char *p;
	int depth;
};

static void jskip(struct jparser *j)
{
	while (*j->p && isspace((unsigned char)*j->p))
		j->p++;
}

static struct jval *jparse_value(struct jparser *j);

static char *jparse_string(struct jparser *j)
{
	size_t cap = 32, len = 0;
	char *s;

	if (*j->p != '"')
		return NULL;
	j->p++;
	s = xcalloc(1, cap);
	while (*j->p && *j->p != '"') {
		char c = *j->p++;

		if (c == '\\' && *j->p) {
			c = *j->p++;
			switch (c) {
			case 'n':
				c = '\n';
				break;
			case 't':
				c = '\t';
				break;
			case 'r':
				c = '\r';
				break;
			case 'b':
				c = '\b';
				break;
			case 'f':
				c = '\f';
				break;
			case 'u':
				/* keep it simple: non-ASCII escapes become '?' */
				c = '?';
				if (strlen(j->p) >= 4)
					j->p += 4;
				break;
			default:
				break;
			}
		}
		if (len + 2 > cap) {
			cap *= 2;
			s = realloc(s, cap);
			if (!s)
				die(EXIT_RUNTIME, "out of memory");
		}
		s[len++] = c;
	}
	s[len] = 0;
	if (*j->p != '"') {
		free(s);
		return NULL;
	}
	j->p++;
	return s;
}

static int jadd(struct jval *v, char *key, struct jval *item)
{
	v->items = realloc(v->items, (v->n + 1) * sizeof(*v->items));
	v->keys = realloc(v->keys, (v->n + 1) * sizeof(*v->keys));
	if (!v->items || !v->keys)
		die(EXIT_RUNTIME, "out of memory");
	v->items[v->n] = item;
	v->keys[v->n] = key;
	v->n++;
	return 0;
}

static struct jval *jparse_value(struct jparser *j)
{
	struct jval *v;

	jskip(j);
	if (++j->depth > 64)
		return NULL;
	v = xcalloc(1, sizeof(*v));
	if (*j->p == '{' || *j->p == '[') {
		int obj = *j->p == '{';
		char close = obj ? '}' : ']';

		v->type = obj ? J_OBJ : J_ARR;
		j->p++;
		jskip(j);
		if (*j->p == close) {
			j->p++;
			goto out;
		}
		for (;;) {
			char *key = NULL;
			struct jval *item;

			jskip(j);
			if (obj) {
				key = jparse_string(j);
				jskip(j);
				if (!key || *j->p != ':') {
					free(key);
					goto bad;
				}
				j->p++;
			}
			item = jparse_value(j);
			if (!item) {
				free(key);
				goto bad;
			}
			jadd(v, key, item);
			jskip(j);
			if (*j->p == ',') {
				j->p++;
				continue;
			}
			if (*j->p == close) {
				j->p++;
				break;
			}
			goto bad;
		}
	} else if (*j->p == '"') {
		v->type = J_STR;
		v->str = jparse_string(j);
		if (!v->str)
			goto bad;
	} else if (!strncmp(j->p, "true", 4) || !strncmp(j->p, "false", 5)) {
		v->type = J_BOOL;
		v->num = *j->p == 't';
		j->p += *j->p == 't' ? 4 : 5;
	} else if (!strncmp(j->p, "null", 4)) {
		v->type = J_NULL;
		j->p += 4;
	} else {
		char *e;

		v->type = J_NUM;
		v->num = strtod(j->p, &e);
		if (e == j->p)
			goto bad;
		j->p = e;
	}
out:
	j->depth--;
	return v;
bad:
	json_free(v);
	return NULL;
}

struct jval *json_parse(const char *text)
{
	struct jparser j = { text, 0 };

	/* programs sometimes print a line before the document */
	j.p = strchr(text, '{');
	if (!j.p)
		return NULL;
	return jparse_value(&j);
}

void json_free(struct jval *v)
{
	int i;

	if (!v)
		return;
	for (i = 0; i < v->n; i++) {
		json_free(v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
	free(v);
}

const struct jval *json_get(const struct jval *v, const char *path)
{
	char seg[128];

	while (v && *path) {
		size_t n = strcspn(path, ".");
		int i, found = 0;

		snprintf(seg, sizeof(seg), "%.*s", (int)n, path);
		path += n;
		if (*path == '.')
			path++;
		if (v->type != J_OBJ)
			return NULL;
		for (i = 0; i < v->n; i++) {
			if (v->keys[i] && !strcmp(v->keys[i], seg)) {
				v = v->items[i];
				found = 1;
				break;
			}
		}
		if (!found)
			return NULL;
	}
	return v;
}

double json_num(const struct jval *v, const char *path, double dflt)
{
	v = json_get(v, path);
	return v && (v->type == J_NUM || v->type == J_BOOL) ? v->num : dflt;
}

const char *json_str(const struct jval *v, const char *path)
{
	v = json_get(v, path);
	return v && v->type == J_STR ? v->str : NULL;
}

int json_len(const struct jval *v)
{
	return v && v->type == J_ARR ? v->n : 0;
}

const struct jval *json_idx(const struct jval *v, int i)
{
	return v && v->type == J_ARR && i < v->n ? v->items[i] : NULL;
}
