// SPDX-License-Identifier: GPL-2.0
/*
 * padlock-bench: results, tables, crossover, JSON, CSV and the plot.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>

#include "bench.h"

struct row *rows;
int nrows;
static int cap_rows;

static char *notes[64];
static int nnotes;

struct check {
	char test[12], alg[64], driver[160], what[96];
	int keybits, ok;
};

static struct check checks[128];
static int nchecks;

static char meta_key[32][32], meta_val[32][512];
static int nmeta;

struct xover {
	char test[12], alg[64], op[16], padlock[160], base[160];
	int keybits;
	long from;	/* -1: never */
	int pstate;	/* projected: 0 not, 1 pfrom, 2 no model */
	long pfrom;	/* -1: never */
};

static struct xover xovers[128];
static int nxovers;

struct row *row_add(void)
{
	if (nrows == cap_rows) {
		cap_rows = cap_rows ? cap_rows * 2 : 256;
		rows = realloc(rows, cap_rows * sizeof(*rows));
		if (!rows)
			die(EXIT_RUNTIME, "out of memory");
	}
	memset(&rows[nrows], 0, sizeof(rows[0]));
	return &rows[nrows++];
}

void report_note(const char *fmt, ...)
{
	va_list ap;
	char buf[512];

	if (nnotes == (int)ARRAY_SIZE(notes))
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	notes[nnotes++] = xstrdup(buf);
}

void report_check(const char *test, const char *alg, int keybits,
		  const char *driver, const char *what, int ok)
{
	struct check *c;

	if (nchecks == (int)ARRAY_SIZE(checks))
		return;
	c = &checks[nchecks++];
	snprintf(c->test, sizeof(c->test), "%s", test);
	snprintf(c->alg, sizeof(c->alg), "%s", alg);
	snprintf(c->driver, sizeof(c->driver), "%s", driver);
	snprintf(c->what, sizeof(c->what), "%s", what);
	c->keybits = keybits;
	c->ok = ok;
}

void report_meta(const char *key, const char *fmt, ...)
{
	va_list ap;
	int i;

	for (i = 0; i < nmeta; i++)
		if (!strcmp(meta_key[i], key))
			break;
	if (i == nmeta) {
		if (nmeta == 32)
			return;
		nmeta++;
	}
	snprintf(meta_key[i], sizeof(meta_key[0]), "%s", key);
	va_start(ap, fmt);
	vsnprintf(meta_val[i], sizeof(meta_val[0]), fmt, ap);
	va_end(ap);
}

static const char *meta(const char *key)
{
	int i;

	for (i = 0; i < nmeta; i++)
		if (!strcmp(meta_key[i], key))
			return meta_val[i];
	return NULL;
}

/* ------------------------------------------------------------------ */
/* tables */

static int same_group(const struct row *a, const struct row *b)
{
	return !strcmp(a->test, b->test) && !strcmp(a->alg, b->alg) &&
	       a->keybits == b->keybits && !strcmp(a->op, b->op);
}

static const char *size_str(long s, char *buf, size_t n)
{
	if (s >= 1048576 && s % 1048576 == 0)
		snprintf(buf, n, "%ld MiB", s / 1048576);
	else if (s >= 1024 && s % 1024 == 0)
		snprintf(buf, n, "%ld KiB", s / 1024);
	else
		snprintf(buf, n, "%ld B", s);
	return buf;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/* sizes and drivers of the group that starts at row g */
static int group_sizes(int g, long *sz, int max)
{
	int i, j, n = 0;

	for (i = g; i < nrows; i++) {
		if (!same_group(&rows[g], &rows[i]))
			continue;
		for (j = 0; j < n; j++)
			if (sz[j] == rows[i].size)
				break;
		if (j == n && n < max)
			sz[n++] = rows[i].size;
	}
	qsort(sz, n, sizeof(long), cmp_long);
	return n;
}

static int group_drivers(int g, const struct row **drv, int max)
{
	int i, j, n = 0;

	for (i = g; i < nrows; i++) {
		if (!same_group(&rows[g], &rows[i]))
			continue;
		for (j = 0; j < n; j++)
			if (!strcmp(drv[j]->driver, rows[i].driver))
				break;
		if (j == n && n < max)
			drv[n++] = &rows[i];
	}
	return n;
}

static const struct row *find(int g, const char *driver, long size)
{
	int i;

	for (i = g; i < nrows; i++)
		if (same_group(&rows[g], &rows[i]) && rows[i].size == size &&
		    !strcmp(rows[i].driver, driver))
			return &rows[i];
	return NULL;
}

static int group_first(int i)
{
	int j;

	for (j = 0; j < i; j++)
		if (same_group(&rows[j], &rows[i]))
			return 0;
	return 1;
}

/* one table: a test, algorithm, key size and operation over drivers and sizes */
struct group {
	int g;			/* its first row */
	long sz[16];
	int ns;
	const struct row *drv[16], *base;
	int nd;
};

static void group_load(int g, struct group *t)
{
	int i;

	t->g = g;
	t->ns = group_sizes(g, t->sz, 16);
	t->nd = group_drivers(g, t->drv, 16);
	t->base = NULL;
	for (i = 0; i < t->nd; i++)
		if (t->drv[i]->baseline)
			t->base = t->drv[i];
}

#define TABLE_W 34

/* IPsec is shown in Mbit/s, the rest in MB/s; the JSON and CSV keep MB/s */
static double unit_scale(const char *test)
{
	return strcmp(test, "ipsec") ? 1.0 : 8.0;
}

static const char *unit_name(const char *test)
{
	return strcmp(test, "ipsec") ? "MB/s" : "Mbit/s";
}

/* the driver column: wider when a projected row's label needs it */
static int table_w = TABLE_W;

/* the projected line of driver d, under padlock-sim with a model */
static void print_projected(const struct group *t, const struct row *d)
{
	int j, any = 0;

	for (j = 0; j < t->ns; j++) {
		const struct row *r = find(t->g, d->driver, t->sz[j]);

		any |= r && r->sim;
	}
	if (!proj.on || !any)
		return;
	printf("  %-*s", table_w + 4, proj.label);
	for (j = 0; j < t->ns; j++) {
		const struct row *r = find(t->g, d->driver, t->sz[j]);

		if (r && r->proj == 1)
			printf(" %10.2f", r->proj_mbps * unit_scale(d->test));
		else
			printf(" %10s", !r ? "-" : r->proj ? "n/a" : "no model");
	}
	printf("\n");
}

/* the MB/s line of driver d, and its speed-up line */
static void print_driver(const struct group *t, const struct row *d)
{
	char name[200];
	const char *tag = d->baseline ? " [base]" : d->padlock ? " [padlock]" : "";
	int j;

	snprintf(name, sizeof(name), "%s%s", d->driver, tag);
	printf("%-*s %5d", table_w, name, d->priority);
	for (j = 0; j < t->ns; j++) {
		const struct row *r = find(t->g, d->driver, t->sz[j]);

		if (r)
			printf(" %10.2f", r->mbps * unit_scale(d->test));
		else
			printf(" %10s", "-");
	}
	printf("\n");
	print_projected(t, d);
	if (!t->base || d == t->base)
		return;
	printf("%-*s %5s", table_w, "  speed-up vs base", "");
	for (j = 0; j < t->ns; j++) {
		const struct row *r = find(t->g, d->driver, t->sz[j]);
		const struct row *b = find(t->g, t->base->driver, t->sz[j]);

		if (r && b && b->mbps > 0)
			printf(" %9.2fx", r->mbps / b->mbps);
		else
			printf(" %10s", "-");
	}
	printf("\n");
}

/* per-operation cost at the smallest size, CPU at the largest */
static void print_costs(const struct group *t, const struct row *d)
{
	const struct row *s = find(t->g, d->driver, t->sz[0]);
	const struct row *l = find(t->g, d->driver, t->sz[t->ns - 1]);
	char sb[32];

	if (!s || !l)
		return;
	printf("  %s:", d->driver);
	if (s->ops > 0)
		printf(" %s %.0f ops/s (%.1f us/op)",
		       size_str(t->sz[0], sb, sizeof(sb)),
		       s->ops, 1e6 / s->ops);
	if (l->cpu_ns_per_byte > 0)
		printf(" CPU %.2f ns/byte at %s", l->cpu_ns_per_byte,
		       size_str(t->sz[t->ns - 1], sb, sizeof(sb)));
	if (l->cpu_pct > 0)
		printf(" CPU %.0f%% at %s",
		       l->cpu_pct, size_str(t->sz[t->ns - 1], sb, sizeof(sb)));
	if (l->runs > 1)
		printf(" min..max %.2f..%.2f %s", l->mbps_min * unit_scale(d->test),
		       l->mbps_max * unit_scale(d->test), unit_name(d->test));
	printf("\n");
}

static void print_table(const struct group *t)
{
	const struct row *first = &rows[t->g];
	char sb[32];
	int i, j;

	printf("\n%s", first->alg);
	if (first->keybits)
		printf(" %d-bit key", first->keybits);
	printf(", %s (%s)\n", first->op, unit_name(first->test));
	printf("%-*s %5s", table_w, "driver", "prio");
	for (j = 0; j < t->ns; j++)
		printf(" %10s", size_str(t->sz[j], sb, sizeof(sb)));
	printf("\n");
	for (i = 0; i < t->nd; i++)
		print_driver(t, t->drv[i]);
	for (i = 0; i < t->nd; i++)
		print_costs(t, t->drv[i]);
}

/* above the AF_ALG tables: what the projected rows are */
static void print_projection_note(void)
{
	int i, na = 0;

	for (i = 0; i < nrows; i++)
		na += rows[i].proj == 2;
	if ((int)strlen(proj.label) - 4 > table_w)
		table_w = strlen(proj.label) - 4;
	printf("Under padlock-sim the PadLock rows time the simulator.  The row \"%s\"\n",
	       proj.label);
	printf("%s%g%s%s (model %s [%s])%s\n",
	       "under each driver is a MODEL, not a measurement: the request's software path\n"
	       "(guest time minus the simulator's share) at ", proj.cpi,
	       " cycles per instruction\nplus the engine's modelled cycles, on ", proj.name,
	       proj.model, proj.cpu, proj.icount ? "." :
	       ";\nnot measured under --icount: the guest time is not instruction-exact.");
	if (na)
		printf("n/a (%d rows): %s%s.\n", na,
		       "the simulator's share exceeded the guest time, no projection",
		       proj.icount ? "" : " (run under tools/testing/vm/run --icount)");
}

/* above the dm-crypt and IPsec tables: their projected rows, or why there are none */
static void print_window_note(const char *test)
{
	int i, any = 0;

	for (i = 0; i < nrows; i++)
		any |= !strcmp(rows[i].test, test) && rows[i].sim;
	if (!proj.system) {
		printf("Under padlock-sim %s is not projected onto the simulated CPU: %s.\n",
		       strcmp(test, "ipsec") ? "dm-crypt" : "IPsec", proj.system_why);
		return;
	}
	if (!any)
		return;
	if ((int)strlen(proj.label) - 4 > table_w)
		table_w = strlen(proj.label) - 4;
	printf("The row \"%s\" under each driver is a MODEL, not a measurement:\n", proj.label);
	printf("per %s, the machine's busy guest instructions while %s ran (less a run of\n",
	       strcmp(test, "ipsec") ? "fio I/O" : "ESP packet",
	       strcmp(test, "ipsec") ? "fio" : "iperf3");
	printf("the same %s) minus the simulator's share, at %g cycles per instruction,\n",
	       strcmp(test, "ipsec") ? "job for one I/O" : "test for one write", proj.cpi);
	printf("plus the engine's modelled cycles for every PadLock instruction that ran\n");
	printf("(padlock-sim's AES blocks and hashed bytes), on %s (model %s [%s]); %s.\n",
	       proj.name, proj.model, proj.cpu,
	       strcmp(test, "ipsec") ? "MB/s of disk I/O" :
	       "Mbit/s of iperf3 payload carried by ESP");
}

void report_tables(const char *test, const char *unit_note)
{
	struct group t;
	int g, printed = 0;

	for (g = 0; g < nrows; g++) {
		if (strcmp(rows[g].test, test) || !group_first(g))
			continue;
		if (!printed++) {
			printf("\n%s on %s, CPU %s%s%s\n", test, sys_kernel, sys_cpu,
			       sys_profile[0] ? ", padlock-sim profile " : "", sys_profile);
			if (unit_note)
				printf("%s\n", unit_note);
			table_w = TABLE_W;
			if (!strcmp(test, "afalg") && proj.on)
				print_projection_note();
			else if (proj.on)
				print_window_note(test);
		}
		group_load(g, &t);
		print_table(&t);
	}
	fflush(stdout);
}

/* the smallest size from which d beats the baseline at every larger size; -1: none */
static long crossover_from(const struct group *t, const struct row *d)
{
	long from = -1;
	int j;

	for (j = t->ns - 1; j >= 0; j--) {
		const struct row *r = find(t->g, d->driver, t->sz[j]);
		const struct row *b = find(t->g, t->base->driver, t->sz[j]);

		if (!r || !b || r->mbps <= b->mbps)
			break;
		from = t->sz[j];
	}
	return from;
}

/*
 * The same for the projected figures (tools/measure/project.py's rule); 0 when a
 * size of d has no projection ("no model"), else 1 and the size or -1 in *from
 */
static int crossover_projected(const struct group *t, const struct row *d, long *from)
{
	int j;

	for (j = 0; j < t->ns; j++) {
		const struct row *r = find(t->g, d->driver, t->sz[j]);

		if (!r || !r->proj)
			return 0;
	}
	*from = -1;
	for (j = t->ns - 1; j >= 0; j--) {
		const struct row *r = find(t->g, d->driver, t->sz[j]);
		const struct row *b = find(t->g, t->base->driver, t->sz[j]);

		if (!b || !b->proj || r->proj_mbps <= b->proj_mbps)
			break;
		*from = t->sz[j];
	}
	return 1;
}

/* modelled: 0 prints "no model" */
static void print_crossover(const struct group *t, const struct row *d, long from,
			    int modelled)
{
	const struct row *first = &rows[t->g];
	char sb[32];

	printf("  %s", first->alg);
	if (first->keybits)
		printf(" %d-bit", first->keybits);
	printf(" %s: %s vs %s: ", first->op, d->driver, t->base->driver);
	if (!modelled)
		printf("no model\n");
	else if (from < 0)
		printf("never (not at the largest size tested)\n");
	else if (from == t->sz[0])
		printf("from %s (every size tested)\n",
		       size_str(from, sb, sizeof(sb)));
	else
		printf("from %s\n", size_str(from, sb, sizeof(sb)));
}

static struct xover *keep_crossover(const char *test, const struct group *t,
				    const struct row *d, long from)
{
	const struct row *first = &rows[t->g];
	struct xover *x;

	if (nxovers == (int)ARRAY_SIZE(xovers))
		return NULL;
	x = &xovers[nxovers++];
	snprintf(x->test, sizeof(x->test), "%s", test);
	snprintf(x->alg, sizeof(x->alg), "%s", first->alg);
	snprintf(x->op, sizeof(x->op), "%s", first->op);
	snprintf(x->padlock, sizeof(x->padlock), "%s", d->driver);
	snprintf(x->base, sizeof(x->base), "%s", t->base->driver);
	x->keybits = first->keybits;
	x->from = from;
	return x;
}

/* the crossover of the projected AF_ALG rows, kept with the measured one */
static void report_crossover_projected(int first_xover)
{
	struct group t;
	int g, i, k = first_xover, any = 0;

	for (g = 0; g < nrows; g++) {
		if (strcmp(rows[g].test, "afalg") || !group_first(g))
			continue;
		group_load(g, &t);
		for (i = 0; i < t.nd && t.base; i++) {
			long from = -1;
			int ok;

			if (!t.drv[i]->padlock)
				continue;
			ok = crossover_projected(&t, t.drv[i], &from);
			if (!any++)
				printf("\ncrossover (AF_ALG, %s): %s\n", proj.label,
				       "smallest request size from which the PadLock driver beats the baseline");
			print_crossover(&t, t.drv[i], from, ok);
			if (k < nxovers) {
				xovers[k].pstate = ok ? 1 : 2;
				xovers[k].pfrom = from;
				k++;
			}
		}
	}
	fflush(stdout);
}

/* under padlock-sim without a projection: why (once) */
void report_projection_note(void)
{
	static int done;

	if (sys_profile[0] && !proj.on && !done++)
		printf("\n%s: %s.\n",
		       "Under padlock-sim the PadLock rows time the simulator; nothing is projected onto the simulated CPU",
		       proj.why);
}

void report_crossover(const char *test)
{
	struct group t;
	int g, i, any = 0, first_xover = nxovers;

	for (g = 0; g < nrows; g++) {
		if (strcmp(rows[g].test, test) || !group_first(g))
			continue;
		group_load(g, &t);
		for (i = 0; i < t.nd && t.base; i++) {
			long from;

			if (!t.drv[i]->padlock)
				continue;
			from = crossover_from(&t, t.drv[i]);
			if (!any++)
				printf("\ncrossover (%s%s): %s\n", test,
				       sys_profile[0] ?
				       ", measured: the PadLock rows time padlock-sim" : "",
				       "smallest request size from which the PadLock driver beats the baseline");
			print_crossover(&t, t.drv[i], from, 1);
			keep_crossover(test, &t, t.drv[i], from);
		}
	}
	if (any && proj.on && !strcmp(test, "afalg"))
		report_crossover_projected(first_xover);
	if (!any) {
		for (g = 0; g < nrows; g++)
			if (!strcmp(rows[g].test, test))
				break;
		if (g < nrows)
			printf("\ncrossover (%s): %s\n", test,
			       "no PadLock driver was measured, nothing to compare.");
	}
	fflush(stdout);
}

/*
 * The JSON report, built with json-c.  Numbers keep the six significant
 * digits of the text tables (%.6g); NaN, "not measured", is null.
 */
static struct json_object *jnum(double v)
{
	char buf[32];

	if (v != v)
		return NULL;
	snprintf(buf, sizeof(buf), "%.6g", v);
	return json_object_new_double_s(v, buf);
}

/* a whole number kept in a double (%.0f) */
static struct json_object *jcount(double v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%.0f", v);
	return json_object_new_double_s(v, buf);
}

static void jadd(struct json_object *o, const char *key, struct json_object *v)
{
	json_object_object_add(o, key, v);
}

static void jadd_str(struct json_object *o, const char *key, const char *s)
{
	json_object_object_add(o, key, json_object_new_string(s));
}

/* a string member that is null when empty */
static void jadd_str_or_null(struct json_object *o, const char *key, const char *s)
{
	json_object_object_add(o, key, s[0] ? json_object_new_string(s) : NULL);
}

static void jadd_bool(struct json_object *o, const char *key, int b)
{
	json_object_object_add(o, key, json_object_new_boolean(b));
}

/* the test's own members, kept as JSON object members text in row->extra */
static void jadd_extra(struct json_object *o, const char *extra)
{
	char buf[sizeof(((struct row *)0)->extra) + 2];
	struct json_object *x;

	if (!extra[0])
		return;
	snprintf(buf, sizeof(buf), "{%s}", extra);
	x = json_tokener_parse(buf);
	if (!x)
		return;
	json_object_object_foreach(x, k, v)
		json_object_object_add(o, k, json_object_get(v));
	json_object_put(x);
}

static struct json_object *json_sim(const struct row *r)
{
	struct json_object *o = json_object_new_object();

	jadd(o, "ops", jcount(r->sim_ops));
	jadd(o, "ns", jcount(r->sim_ns));
	jadd(o, "traps", json_object_new_uint64(r->sim_traps));
	jadd(o, "handler_cycles", json_object_new_uint64(r->sim_handler));
	jadd(o, "trap_overhead_cycles", json_object_new_uint64(r->sim_trap_overhead));
	jadd_str(o, "classes", r->sim_classes);
	jadd_bool(o, "icount", sys_icount);
	if (strcmp(r->test, "afalg")) {
		/* the whole machine's window around fio or iperf3 */
		jadd(o, "bytes", jcount(r->sim_bytes));
		jadd(o, "idle_ns", jcount(r->sim_idle_ns));
		jadd(o, "short_run_ns", jcount(r->sim_short_ns));
		jadd_str(o, "busy_time", r->sim_task_time ? "tasks' run time (/proc/schedstat)" :
			 "guest time minus idle time (/proc/stat)");
		jadd(o, "aes_blocks", json_object_new_uint64(r->sim_aes_blocks));
		jadd(o, "sha_bytes", json_object_new_uint64(r->sim_sha_bytes));
	}
	return o;
}

static struct json_object *json_row(const struct row *r)
{
	struct json_object *o = json_object_new_object();

	jadd_str(o, "test", r->test);
	jadd_str(o, "kernel", sys_kernel);
	jadd_str(o, "cpu", sys_cpu);
	jadd_str_or_null(o, "sim_profile", sys_profile);
	jadd_str(o, "algorithm", r->alg);
	jadd(o, "keybits", json_object_new_int(r->keybits));
	jadd_str(o, "op", r->op);
	jadd_str(o, "driver", r->driver);
	jadd_str(o, "pinned", r->pinned);
	jadd_str(o, "module", r->module);
	jadd(o, "priority", json_object_new_int(r->priority));
	jadd_bool(o, "padlock", r->padlock);
	jadd_bool(o, "baseline", r->baseline);
	jadd(o, "size", json_object_new_int64(r->size));
	jadd_str(o, "path", r->path);
	jadd(o, "runs", json_object_new_int(r->runs));
	jadd(o, "mbps_median", jnum(r->mbps));
	jadd(o, "mbps_min", jnum(r->mbps_min));
	jadd(o, "mbps_max", jnum(r->mbps_max));
	jadd(o, "ops_per_s", jnum(r->ops));
	jadd(o, "cpu_ns_per_byte", jnum(r->cpu_ns_per_byte));
	jadd(o, "cpu_percent", jnum(r->cpu_pct));
	jadd_extra(o, r->extra);
	if (r->sim)
		jadd(o, "sim", json_sim(r));
	if (r->sim && proj.on) {
		jadd(o, "projected_mbps", r->proj == 1 ? jnum(r->proj_mbps) : NULL);
		jadd_str(o, "projected_cpu", proj.cpu);
		/* per request: instructions of software path, the engine's cycles */
		jadd(o, "projected_path", r->proj ? jnum(r->proj_path) : NULL);
		jadd(o, "projected_engine_cycles", r->proj ? jnum(r->proj_engine) : NULL);
	}
	return o;
}

static struct json_object *json_check(const struct check *c)
{
	struct json_object *o = json_object_new_object();

	jadd_str(o, "test", c->test);
	jadd_str(o, "algorithm", c->alg);
	jadd(o, "keybits", json_object_new_int(c->keybits));
	jadd_str(o, "driver", c->driver);
	jadd_str(o, "what", c->what);
	jadd_bool(o, "passed", c->ok);
	return o;
}

static struct json_object *json_xover(const struct xover *x)
{
	struct json_object *o = json_object_new_object();

	jadd_str(o, "test", x->test);
	jadd_str(o, "algorithm", x->alg);
	jadd(o, "keybits", json_object_new_int(x->keybits));
	jadd_str(o, "op", x->op);
	jadd_str(o, "padlock_driver", x->padlock);
	jadd_str(o, "baseline_driver", x->base);
	jadd(o, "from_size", x->from < 0 ? NULL : json_object_new_int64(x->from));
	if (x->pstate) {
		/* projected: null when never; projected_modelled false: no model */
		jadd(o, "projected_from_size", x->pstate == 1 && x->pfrom >= 0 ?
		     json_object_new_int64(x->pfrom) : NULL);
		jadd_bool(o, "projected_modelled", x->pstate == 1);
	}
	return o;
}

/* the model the AF_ALG rows were projected with; null when none */
static struct json_object *json_projection(void)
{
	struct json_object *o;

	if (!proj.on)
		return NULL;
	o = json_object_new_object();
	jadd_str(o, "cpu", proj.cpu);
	jadd_str(o, "name", proj.name);
	jadd(o, "clock_mhz", jnum(proj.clock_mhz));
	jadd(o, "cpi", jnum(proj.cpi));
	jadd(o, "irq_share", jnum(proj.irq_share));
	jadd_str(o, "model", proj.model);
	jadd_bool(o, "icount", proj.icount);
	jadd_str(o, "label", proj.label);
	jadd_bool(o, "dmcrypt_ipsec", proj.system);
	jadd_str_or_null(o, "dmcrypt_ipsec_why", proj.system_why);
	return o;
}

static struct json_object *json_report(void)
{
	struct json_object *d = json_object_new_object(), *a, *m;
	int i;

	jadd_str(d, "tool", "padlock-bench");
	jadd_str(d, "version", PB_VERSION);
	jadd_str(d, "kernel", sys_kernel);
	jadd_str(d, "cpu", sys_cpu);
	jadd_str_or_null(d, "sim_profile", sys_profile);
	jadd_bool(d, "quick", opt.quick);
	jadd(d, "projection", json_projection());
	jadd_bool(d, "complete", !fatal_error[0]);
	jadd_str_or_null(d, "error", fatal_error);
	m = json_object_new_object();
	for (i = 0; i < nmeta; i++)
		jadd_str(m, meta_key[i], meta_val[i]);
	jadd(d, "meta", m);
	a = json_object_new_array();
	for (i = 0; i < nnotes; i++)
		json_object_array_add(a, json_object_new_string(notes[i]));
	jadd(d, "notes", a);
	a = json_object_new_array();
	for (i = 0; i < nchecks; i++)
		json_object_array_add(a, json_check(&checks[i]));
	jadd(d, "checks", a);
	a = json_object_new_array();
	for (i = 0; i < nrows; i++)
		json_object_array_add(a, json_row(&rows[i]));
	jadd(d, "rows", a);
	a = json_object_new_array();
	for (i = 0; i < nxovers; i++)
		json_object_array_add(a, json_xover(&xovers[i]));
	jadd(d, "crossover", a);
	return d;
}

int report_write_json(const char *file)
{
	FILE *f = fopen(file, "w");
	struct json_object *d;
	int err = 0;

	if (!f)
		return -errno;
	d = json_report();
	if (fputs(json_object_to_json_string_ext(d, JSON_C_TO_STRING_PRETTY |
						 JSON_C_TO_STRING_SPACED |
						 JSON_C_TO_STRING_NOSLASHESCAPE), f) < 0 ||
	    fputc('\n', f) == EOF)
		err = -errno;
	json_object_put(d);
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

static void csv_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

int report_write_csv(const char *file)
{
	FILE *f = fopen(file, "w");
	int i;

	if (!f)
		return -errno;
	fputs("test,kernel,cpu,sim_profile,algorithm,keybits,op,driver,pinned,module,priority,",
	      f);
	fputs("padlock,baseline,size,path,runs,mbps_median,mbps_min,mbps_max,ops_per_s,", f);
	fputs("cpu_ns_per_byte,cpu_percent,", f);
	fputs("sim_ops,sim_ns,sim_traps,sim_handler_cycles,", f);
	fputs("sim_trap_overhead_cycles,sim_classes,sim_icount,", f);
	fputs("projected_mbps,projected_cpu,sim_bytes,sim_aes_blocks,sim_sha_bytes\n", f);
	for (i = 0; i < nrows; i++) {
		struct row *r = &rows[i];

		csv_str(f, r->test);
		fputc(',', f);
		csv_str(f, sys_kernel);
		fputc(',', f);
		csv_str(f, sys_cpu);
		fputc(',', f);
		csv_str(f, sys_profile);
		fputc(',', f);
		csv_str(f, r->alg);
		fprintf(f, ",%d,", r->keybits);
		csv_str(f, r->op);
		fputc(',', f);
		csv_str(f, r->driver);
		fputc(',', f);
		csv_str(f, r->pinned);
		fputc(',', f);
		csv_str(f, r->module);
		fprintf(f, ",%d,%d,%d,%ld,", r->priority, r->padlock, r->baseline, r->size);
		csv_str(f, r->path);
		fprintf(f, ",%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,", r->runs, r->mbps, r->mbps_min,
			r->mbps_max, r->ops, r->cpu_ns_per_byte, r->cpu_pct);
		if (r->sim) {
			fprintf(f, "%.0f,%.0f,%llu,%llu,%llu,", r->sim_ops, r->sim_ns,
				r->sim_traps, r->sim_handler, r->sim_trap_overhead);
			csv_str(f, r->sim_classes);
			fprintf(f, ",%d,", sys_icount);
		} else {
			fputs(",,,,,,,", f);
		}
		if (r->proj == 1)
			fprintf(f, "%.6g,", r->proj_mbps);
		else
			fputc(',', f);
		if (r->sim && proj.on)
			csv_str(f, proj.cpu);
		if (r->sim && strcmp(r->test, "afalg"))
			fprintf(f, ",%.0f,%llu,%llu\n", r->sim_bytes, r->sim_aes_blocks,
				r->sim_sha_bytes);
		else
			fputs(",,,\n", f);
	}
	if (fclose(f))
		return -errno;
	return 0;
}

/* ------------------------------------------------------------------ */
/* plot: AF_ALG throughput against request size, one panel per algorithm */

/* AF_ALG tables that get a plot panel (decryption looks like encryption) */
static int plot_group(int g)
{
	return !strcmp(rows[g].test, "afalg") && strcmp(rows[g].op, "decrypt") &&
	       group_first(g);
}

/* the gnuplot commands before the panels */
static void plot_header(FILE *gp, const char *file, int panels)
{
	const char *title = meta("afalg_path");
	int cols = panels > 6 ? 4 : panels > 2 ? 3 : panels;
	int lines = (panels + cols - 1) / cols;

	fprintf(gp, "set terminal pngcairo size %d,%d font ',9'\nset output '%s'\n",
		cols * 480, lines * 360 + 40, file);
	fprintf(gp,
		"set multiplot layout %d,%d title \"padlock-bench AF_ALG, %s, %s%s%s (path %s)\" noenhanced\n",
		lines, cols, sys_kernel, sys_cpu, sys_profile[0] ? ", sim " : "", sys_profile,
		title ? title : "?");
	fputs("set logscale x 2\nset xlabel 'request size (bytes)'\nset ylabel 'MB/s'\n", gp);
	fputs("set key top left noenhanced font ',7'\nset grid\n", gp);
}

/* one panel: a data block per driver into f, its plot command into gp */
static void plot_panel(FILE *f, FILE *gp, const char *dat, int g, int *idx)
{
	const struct row *first = &rows[g];
	struct group t;
	int i, j;

	group_load(g, &t);
	fprintf(gp, "set title \"%s%s%.0d%s %s\" noenhanced\nplot ", first->alg,
		first->keybits ? " " : "", first->keybits, first->keybits ? "-bit" : "",
		first->op);
	for (i = 0; i < t.nd; i++) {
		fprintf(f, "# %s\n", t.drv[i]->driver);
		for (j = 0; j < t.ns; j++) {
			const struct row *r = find(g, t.drv[i]->driver, t.sz[j]);

			if (r)
				fprintf(f, "%ld %.6g\n", r->size, r->mbps);
		}
		fputs("\n\n", f);
		fprintf(gp, "%s'%s' index %d using 1:2 with linespoints title \"%s\"",
			i ? ", " : "", dat, (*idx)++, t.drv[i]->driver);
	}
	fputs("\n", gp);
}

void report_plot(const char *file)
{
	char dat[] = "/tmp/padlock-bench-plot.XXXXXX";
	int fd, g, panels = 0, idx = 0;
	FILE *f, *gp;
	char *cmds = NULL;
	size_t cmdlen = 0;

	if (!have_program("gnuplot")) {
		notice("gnuplot is not installed, so no plot was drawn (install gnuplot-nox).");
		return;
	}
	for (g = 0; g < nrows; g++)
		panels += plot_group(g);
	if (!panels) {
		notice("--plot: no AF_ALG results to plot.");
		return;
	}
	fd = mkstemp(dat);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		notice("--plot: cannot create a temporary file: %s", strerror(errno));
		return;
	}
	/* commands collected first: gnuplot must see the finished data file */
	gp = open_memstream(&cmds, &cmdlen);
	if (!gp) {
		fclose(f);
		unlink(dat);
		notice("--plot: out of memory.");
		return;
	}
	plot_header(gp, file, panels);
	for (g = 0; g < nrows; g++)
		if (plot_group(g))
			plot_panel(f, gp, dat, g, &idx);
	fclose(f);
	fputs("unset multiplot\n", gp);
	fclose(gp);
	gp = popen("gnuplot", "w");
	if (!gp || fputs(cmds, gp) < 0 || pclose(gp) != 0)
		notice("--plot: gnuplot reported an error; %s may be incomplete.", file);
	free(cmds);
	unlink(dat);
}
