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

void report_tables(const char *test, const char *unit_note)
{
	int g, i, j, printed = 0;
	char sb[32];

	for (g = 0; g < nrows; g++) {
		long sz[16];
		const struct row *drv[16], *base = NULL;
		int ns, nd, w = 34;

		if (strcmp(rows[g].test, test) || !group_first(g))
			continue;
		if (!printed++) {
			printf("\n%s on %s, CPU %s%s%s\n", test, sys_kernel, sys_cpu,
			       sys_profile[0] ? ", padlock-sim profile " : "", sys_profile);
			if (unit_note)
				printf("%s\n", unit_note);
		}
		ns = group_sizes(g, sz, 16);
		nd = group_drivers(g, drv, 16);
		for (i = 0; i < nd; i++)
			if (drv[i]->baseline)
				base = drv[i];
		printf("\n%s", rows[g].alg);
		if (rows[g].keybits)
			printf(" %d-bit key", rows[g].keybits);
		printf(", %s (MB/s)\n", rows[g].op);
		printf("%-*s %5s", w, "driver", "prio");
		for (j = 0; j < ns; j++)
			printf(" %10s", size_str(sz[j], sb, sizeof(sb)));
		printf("\n");
		for (i = 0; i < nd; i++) {
			char name[200];
			const char *tag = drv[i]->baseline ? " [base]" :
					  drv[i]->padlock ? " [padlock]" : "";

			snprintf(name, sizeof(name), "%s%s", drv[i]->driver, tag);
			printf("%-*s %5d", w, name, drv[i]->priority);
			for (j = 0; j < ns; j++) {
				const struct row *r = find(g, drv[i]->driver, sz[j]);

				if (r)
					printf(" %10.2f", r->mbps);
				else
					printf(" %10s", "-");
			}
			printf("\n");
			if (base && drv[i] != base) {
				printf("%-*s %5s", w, "  speed-up vs base", "");
				for (j = 0; j < ns; j++) {
					const struct row *r = find(g, drv[i]->driver, sz[j]);
					const struct row *b = find(g, base->driver, sz[j]);

					if (r && b && b->mbps > 0)
						printf(" %9.2fx", r->mbps / b->mbps);
					else
						printf(" %10s", "-");
				}
				printf("\n");
			}
		}
		/* per-operation cost at the smallest size, CPU at the largest */
		for (i = 0; i < nd; i++) {
			const struct row *s = find(g, drv[i]->driver, sz[0]);
			const struct row *l = find(g, drv[i]->driver, sz[ns - 1]);

			if (!s || !l)
				continue;
			printf("  %s:", drv[i]->driver);
			if (s->ops > 0)
				printf(" %s %.0f ops/s (%.1f us/op)",
				       size_str(sz[0], sb, sizeof(sb)),
				       s->ops, 1e6 / s->ops);
			if (l->cpu_ns_per_byte > 0)
				printf(" CPU %.2f ns/byte at %s", l->cpu_ns_per_byte,
				       size_str(sz[ns - 1], sb, sizeof(sb)));
			if (l->cpu_pct > 0)
				printf(" CPU %.0f%% at %s",
				       l->cpu_pct, size_str(sz[ns - 1], sb, sizeof(sb)));
			if (l->runs > 1)
				printf(" min..max %.2f..%.2f MB/s", l->mbps_min, l->mbps_max);
			printf("\n");
		}
	}
	fflush(stdout);
}

void report_crossover(const char *test)
{
	int g, i, j, any = 0;
	char sb[32];

	for (g = 0; g < nrows; g++) {
		long sz[16];
		const struct row *drv[16], *base = NULL;
		int ns, nd;

		if (strcmp(rows[g].test, test) || !group_first(g))
			continue;
		ns = group_sizes(g, sz, 16);
		nd = group_drivers(g, drv, 16);
		for (i = 0; i < nd; i++)
			if (drv[i]->baseline)
				base = drv[i];
		if (!base)
			continue;
		for (i = 0; i < nd; i++) {
			struct xover *x;
			long from = -1;

			if (!drv[i]->padlock)
				continue;
			for (j = ns - 1; j >= 0; j--) {
				const struct row *r = find(g, drv[i]->driver, sz[j]);
				const struct row *b = find(g, base->driver, sz[j]);

				if (!r || !b || r->mbps <= b->mbps)
					break;
				from = sz[j];
			}
			if (!any++)
				printf("\ncrossover (%s%s): %s\n", test,
				       sys_profile[0] ?
				       ", measured: the PadLock rows time padlock-sim" : "",
				       "smallest request size from which the PadLock driver beats the baseline");
			printf("  %s", rows[g].alg);
			if (rows[g].keybits)
				printf(" %d-bit", rows[g].keybits);
			printf(" %s: %s vs %s: ", rows[g].op, drv[i]->driver, base->driver);
			if (from < 0)
				printf("never (not at the largest size tested)\n");
			else if (from == sz[0])
				printf("from %s (every size tested)\n",
				       size_str(from, sb, sizeof(sb)));
			else
				printf("from %s\n", size_str(from, sb, sizeof(sb)));
			if (nxovers < (int)ARRAY_SIZE(xovers)) {
				x = &xovers[nxovers++];
				snprintf(x->test, sizeof(x->test), "%s", test);
				snprintf(x->alg, sizeof(x->alg), "%s", rows[g].alg);
				snprintf(x->op, sizeof(x->op), "%s", rows[g].op);
				snprintf(x->padlock, sizeof(x->padlock), "%s", drv[i]->driver);
				snprintf(x->base, sizeof(x->base), "%s", base->driver);
				x->keybits = rows[g].keybits;
				x->from = from;
			}
		}
	}
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

/* ------------------------------------------------------------------ */
/* JSON and CSV */

void json_escape(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void jnum(FILE *f, double v)
{
	if (v != v)
		fputs("null", f);
	else
		fprintf(f, "%.6g", v);
}

int report_write_json(const char *file)
{
	FILE *f = fopen(file, "w");
	int i;

	if (!f)
		return -errno;
	fprintf(f, "{\n  \"tool\": \"padlock-bench\",\n  \"version\": \"%s\",\n", PB_VERSION);
	fputs("  \"kernel\": ", f);
	json_escape(f, sys_kernel);
	fputs(",\n  \"cpu\": ", f);
	json_escape(f, sys_cpu);
	fputs(",\n  \"sim_profile\": ", f);
	if (sys_profile[0])
		json_escape(f, sys_profile);
	else
		fputs("null", f);
	fprintf(f, ",\n  \"quick\": %s,\n  \"complete\": %s,\n  \"error\": ",
		opt.quick ? "true" : "false", fatal_error[0] ? "false" : "true");
	if (fatal_error[0])
		json_escape(f, fatal_error);
	else
		fputs("null", f);
	fputs(",\n  \"meta\": {", f);
	for (i = 0; i < nmeta; i++) {
		fprintf(f, "%s\n    ", i ? "," : "");
		json_escape(f, meta_key[i]);
		fputs(": ", f);
		json_escape(f, meta_val[i]);
	}
	fputs("\n  },\n  \"notes\": [", f);
	for (i = 0; i < nnotes; i++) {
		fprintf(f, "%s\n    ", i ? "," : "");
		json_escape(f, notes[i]);
	}
	fputs("\n  ],\n  \"checks\": [", f);
	for (i = 0; i < nchecks; i++) {
		struct check *c = &checks[i];

		fprintf(f, "%s\n    {\"test\": ", i ? "," : "");
		json_escape(f, c->test);
		fputs(", \"algorithm\": ", f);
		json_escape(f, c->alg);
		fprintf(f, ", \"keybits\": %d, \"driver\": ", c->keybits);
		json_escape(f, c->driver);
		fputs(", \"what\": ", f);
		json_escape(f, c->what);
		fprintf(f, ", \"passed\": %s}", c->ok ? "true" : "false");
	}
	fputs("\n  ],\n  \"rows\": [", f);
	for (i = 0; i < nrows; i++) {
		struct row *r = &rows[i];

		fprintf(f, "%s\n    {\"test\": ", i ? "," : "");
		json_escape(f, r->test);
		fputs(", \"kernel\": ", f);
		json_escape(f, sys_kernel);
		fputs(", \"cpu\": ", f);
		json_escape(f, sys_cpu);
		fputs(", \"sim_profile\": ", f);
		if (sys_profile[0])
			json_escape(f, sys_profile);
		else
			fputs("null", f);
		fputs(", \"algorithm\": ", f);
		json_escape(f, r->alg);
		fprintf(f, ", \"keybits\": %d, \"op\": ", r->keybits);
		json_escape(f, r->op);
		fputs(", \"driver\": ", f);
		json_escape(f, r->driver);
		fputs(", \"pinned\": ", f);
		json_escape(f, r->pinned);
		fputs(", \"module\": ", f);
		json_escape(f, r->module);
		fprintf(f, ", \"priority\": %d, \"padlock\": %s, \"baseline\": %s, \"size\": %ld",
			r->priority, r->padlock ? "true" : "false", r->baseline ? "true" : "false",
			r->size);
		fputs(", \"path\": ", f);
		json_escape(f, r->path);
		fprintf(f, ", \"runs\": %d, \"mbps_median\": ", r->runs);
		jnum(f, r->mbps);
		fputs(", \"mbps_min\": ", f);
		jnum(f, r->mbps_min);
		fputs(", \"mbps_max\": ", f);
		jnum(f, r->mbps_max);
		fputs(", \"ops_per_s\": ", f);
		jnum(f, r->ops);
		fputs(", \"cpu_ns_per_byte\": ", f);
		jnum(f, r->cpu_ns_per_byte);
		fputs(", \"cpu_percent\": ", f);
		jnum(f, r->cpu_pct);
		if (r->extra[0])
			fprintf(f, ", %s", r->extra);
		if (r->sim) {
			fprintf(f, ", \"sim\": {\"ops\": %.0f, \"ns\": %.0f, \"traps\": %llu",
				r->sim_ops, r->sim_ns, r->sim_traps);
			fprintf(f, ", \"handler_cycles\": %llu, \"trap_overhead_cycles\": %llu",
				r->sim_handler, r->sim_trap_overhead);
			fputs(", \"classes\": ", f);
			json_escape(f, r->sim_classes);
			fprintf(f, ", \"icount\": %s}", sys_icount ? "true" : "false");
		}
		fputs("}", f);
	}
	fputs("\n  ],\n  \"crossover\": [", f);
	for (i = 0; i < nxovers; i++) {
		struct xover *x = &xovers[i];

		fprintf(f, "%s\n    {\"test\": ", i ? "," : "");
		json_escape(f, x->test);
		fputs(", \"algorithm\": ", f);
		json_escape(f, x->alg);
		fprintf(f, ", \"keybits\": %d, \"op\": ", x->keybits);
		json_escape(f, x->op);
		fputs(", \"padlock_driver\": ", f);
		json_escape(f, x->padlock);
		fputs(", \"baseline_driver\": ", f);
		json_escape(f, x->base);
		if (x->from < 0)
			fputs(", \"from_size\": null}", f);
		else
			fprintf(f, ", \"from_size\": %ld}", x->from);
	}
	fputs("\n  ]\n}\n", f);
	if (fclose(f))
		return -errno;
	return 0;
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
	fputs("sim_trap_overhead_cycles,sim_classes,sim_icount\n", f);
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
			fprintf(f, ",%d\n", sys_icount);
		} else {
			fputs(",,,,,,\n", f);
		}
	}
	if (fclose(f))
		return -errno;
	return 0;
}

/* ------------------------------------------------------------------ */
/* plot: AF_ALG throughput against request size, one panel per algorithm */

void report_plot(const char *file)
{
	char dat[] = "/tmp/padlock-bench-plot.XXXXXX";
	int fd, g, i, j, panels = 0, idx = 0, cols, lines;
	FILE *f, *gp;
	char *cmds = NULL;
	size_t cmdlen = 0;
	const char *title = meta("afalg_path");

	if (!have_program("gnuplot")) {
		notice("gnuplot is not installed, so no plot was drawn (install gnuplot-nox).");
		return;
	}
	for (g = 0; g < nrows; g++)
		if (!strcmp(rows[g].test,
			    "afalg") && strcmp(rows[g].op, "decrypt") && group_first(g))
			panels++;
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
	cols = panels > 6 ? 4 : panels > 2 ? 3 : panels;
	lines = (panels + cols - 1) / cols;
	/* commands collected first: gnuplot must see the finished data file */
	gp = open_memstream(&cmds, &cmdlen);
	if (!gp) {
		fclose(f);
		unlink(dat);
		notice("--plot: out of memory.");
		return;
	}
	fprintf(gp, "set terminal pngcairo size %d,%d font ',9'\nset output '%s'\n",
		cols * 480, lines * 360 + 40, file);
	fprintf(gp,
		"set multiplot layout %d,%d title \"padlock-bench AF_ALG, %s, %s%s%s (path %s)\" noenhanced\n",
		lines, cols, sys_kernel, sys_cpu, sys_profile[0] ? ", sim " : "", sys_profile,
		title ? title : "?");
	fputs("set logscale x 2\nset xlabel 'request size (bytes)'\nset ylabel 'MB/s'\n", gp);
	fputs("set key top left noenhanced font ',7'\nset grid\n", gp);
	for (g = 0; g < nrows; g++) {
		const struct row *drv[16];
		long sz[16];
		int nd, ns;

		if (strcmp(rows[g].test,
			   "afalg") || !strcmp(rows[g].op, "decrypt") || !group_first(g))
			continue;
		nd = group_drivers(g, drv, 16);
		ns = group_sizes(g, sz, 16);
		fprintf(gp, "set title \"%s%s%.0d%s %s\" noenhanced\nplot ", rows[g].alg,
			rows[g].keybits ? " " : "", rows[g].keybits, rows[g].keybits ? "-bit" : "",
			rows[g].op);
		for (i = 0; i < nd; i++) {
			fprintf(f, "# %s\n", drv[i]->driver);
			for (j = 0; j < ns; j++) {
				const struct row *r = find(g, drv[i]->driver, sz[j]);

				if (r)
					fprintf(f, "%ld %.6g\n", r->size, r->mbps);
			}
			fputs("\n\n", f);
			fprintf(gp, "%s'%s' index %d using 1:2 with linespoints title \"%s\"",
				i ? ", " : "", dat, idx++, drv[i]->driver);
		}
		fputs("\n", gp);
	}
	fclose(f);
	fputs("unset multiplot\n", gp);
	fclose(gp);
	gp = popen("gnuplot", "w");
	if (!gp || fputs(cmds, gp) < 0 || pclose(gp) != 0)
		notice("--plot: gnuplot reported an error; %s may be incomplete.", file);
	free(cmds);
	unlink(dat);
}
