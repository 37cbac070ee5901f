// SPDX-License-Identifier: GPL-2.0
/*
 * padlock-bench: the projection of the rows measured under padlock-sim
 * onto the CPU the simulator plays, from the cost model cpu-models.conf
 * (the formula of tools/measure/project.py --bench).
 *
 *   cycles per request = path * cpi + engine cycles
 *   path = (guest time - simulator's share * (1 + irq_share)) / requests
 *
 * AF_ALG: the engine cycles, PadLock driver rows only, for the busiest
 * opcode class, from the request's size:
 *   xcrypt-MODE  traps * xcrypt_start + blocks * MODE_block * key scale
 *   xsha1/256    traps * xsha_start + hashed bytes * xshaN_byte
 *
 * dm-crypt (request: one fio I/O) and IPsec (request: one ESP packet): the
 * guest time is the whole machine's busy time while fio or iperf3 ran,
 * less that of a run of the same command for one I/O or one write (see
 * sim_window_row()), and the engine cycles are those of every PadLock
 * instruction of that difference, whichever driver issued it, from the
 * simulator's counters:
 *   xcrypt traps * xcrypt_start + AES blocks * slowest MODE_block * key scale
 *   + xsha traps * xsha_start + hashed bytes * slowest xshaN_byte
 * (an IPsec packet with PadLock runs xcrypt and xsha).  These need guest
 * time to count instructions, which only --icount gives.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

#define MODEL_NAME	"cpu-models.conf"
#define MODEL_SHARE	"/usr/share/padlock-bench/" MODEL_NAME

/* the model file: every "key = value" line with its section */
struct ini_entry {
	char sect[32];
	char key[64];
	char val[160];
};

static struct ini_entry *ini;
static int nini;

const char *model_file;		/* --model */
struct projection proj;

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

/* reads an INI file as Python's configparser does for this file: returns 0 or -errno */
static int ini_read(const char *file)
{
	FILE *f = fopen(file, "r");
	char line[512], sect[32] = "";
	int cap = 0;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *s = trim(line), *v;
		struct ini_entry *e;

		if (!*s || *s == '#')
			continue;
		if (*s == '[') {
			v = strchr(s, ']');
			if (v)
				*v = 0;
			snprintf(sect, sizeof(sect), "%s", s + 1);
			continue;
		}
		v = s + strcspn(s, "=:");
		if (!*v || !sect[0])
			continue;
		*v++ = 0;
		if (nini == cap) {
			cap = cap ? cap * 2 : 128;
			ini = xrealloc(ini, cap * sizeof(*ini));
		}
		e = &ini[nini++];
		snprintf(e->sect, sizeof(e->sect), "%s", sect);
		snprintf(e->key, sizeof(e->key), "%s", trim(s));
		for (s = e->key; *s; s++)	/* configparser lowers the keys */
			*s = tolower((unsigned char)*s);
		snprintf(e->val, sizeof(e->val), "%s", trim(v));
	}
	fclose(f);
	return 0;
}

static const char *ini_get(const char *sect, const char *key)
{
	int i;

	for (i = nini - 1; i >= 0; i--)
		if (!strcmp(ini[i].sect, sect) && !strcmp(ini[i].key, key))
			return ini[i].val;
	return NULL;
}

static int ini_has_section(const char *sect)
{
	int i;

	for (i = 0; i < nini; i++)
		if (!strcmp(ini[i].sect, sect))
			return 1;
	return 0;
}

/* the number key of the CPU's section: 1, or 0 when it is missing or no number */
static int cpu_num(const char *key, double *v)
{
	const char *s = ini_get(proj.cpu, key);
	char *end;

	if (!s || !*s)
		return 0;
	errno = 0;
	*v = strtod(s, &end);
	return !errno && !*end;
}

/* name into buf when it is a readable file (its canonical name when there is one) */
static int try_file(char *buf, size_t n, const char *name)
{
	char real[PATH_MAX];

	if (access(name, R_OK))
		return 0;
	snprintf(buf, n, "%s", realpath(name, real) ? real : name);
	return 1;
}

/*
 * The model file: --model, PADLOCK_BENCH_MODEL, next to the executable (a
 * checkout), the installation's share directory next to its sbin, then
 * /usr/share/padlock-bench.  An explicit file must exist.
 */
static int find_model(char *buf, size_t n)
{
	const char *env = getenv("PADLOCK_BENCH_MODEL");
	char exe[PATH_MAX], name[PATH_MAX + 64], *slash;
	ssize_t len;

	if (model_file || (env && *env)) {
		const char *f = model_file ? model_file : env;

		if (!try_file(buf, n, f))
			die(EXIT_ENV, "cannot read the CPU model %s (%s): %s", f,
			    model_file ? "--model" : "PADLOCK_BENCH_MODEL", strerror(errno));
		return 1;
	}
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len > 0) {
		exe[len] = 0;
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = 0;
			snprintf(name, sizeof(name), "%s/%s", exe, MODEL_NAME);
			if (try_file(buf, n, name))
				return 1;
			snprintf(name, sizeof(name), "%s/../share/padlock-bench/%s", exe,
				 MODEL_NAME);
			if (try_file(buf, n, name))
				return 1;
		}
	}
	return try_file(buf, n, MODEL_SHARE);
}

/*
 * After sysinfo_read(): under padlock-sim, the model of the simulated CPU.
 * proj.on is set when the rows can be projected; proj.why says otherwise.
 */
void project_init(void)
{
	char prof[64] = "";
	const char *sect, *irq;

	memset(&proj, 0, sizeof(proj));
	if (!find_model(proj.model, sizeof(proj.model)))
		proj.model[0] = 0;
	if (!sys_profile[0])
		return;			/* real hardware: measurements only */
	if (sscanf(sys_profile, "%63s", prof) != 1)
		return;
	if (!proj.model[0]) {
		snprintf(proj.why, sizeof(proj.why),
			 "no CPU model file (%s next to padlock-bench, %s, --model FILE)",
			 MODEL_NAME, MODEL_SHARE);
		return;
	}
	if (ini_read(proj.model)) {
		snprintf(proj.why, sizeof(proj.why), "cannot read the CPU model %s: %s",
			 proj.model, strerror(errno));
		return;
	}
	sect = ini_get("profiles", prof);
	if (!sect || !*sect || !strcmp(sect, "profiles") || !strcmp(sect, "published") ||
	    !strcmp(sect, "measurement") || !ini_has_section(sect)) {
		snprintf(proj.why, sizeof(proj.why),
			 "no model for padlock-sim profile %s in %s", prof, proj.model);
		return;
	}
	snprintf(proj.cpu, sizeof(proj.cpu), "%s", sect);
	snprintf(proj.name, sizeof(proj.name), "%s",
		 ini_get(sect, "name") ? ini_get(sect, "name") : sect);
	if (!cpu_num("clock_mhz", &proj.clock_mhz) || proj.clock_mhz <= 0 ||
	    !cpu_num("cpi", &proj.cpi)) {
		snprintf(proj.why, sizeof(proj.why),
			 "the CPU model [%s] in %s lacks clock_mhz or cpi", sect, proj.model);
		return;
	}
	irq = ini_get("measurement", "irq_share");
	proj.irq_share = irq ? strtod(irq, NULL) : 0;
	snprintf(proj.label, sizeof(proj.label), "projected on %s at %g GHz (model%s)",
		 proj.cpu, proj.clock_mhz / 1000, sys_icount ? "" : "; not --icount");
	proj.icount = sys_icount;
	proj.on = 1;
	proj.system = sys_icount;
	if (!sys_icount)
		snprintf(proj.system_why, sizeof(proj.system_why), "%s",
			 "its software path is the whole machine's busy time, which counts guest instructions only under --icount (tools/testing/vm/run --icount)");
}

/* the busiest PadLock opcode class of the row: its mode into mode[], or 0 */
static int row_engine(const struct row *r, char *mode, size_t n)
{
	char buf[sizeof(r->sim_classes)], *tok, *save = NULL;
	unsigned long long best = 0;
	int found = 0;

	snprintf(buf, sizeof(buf), "%s", r->sim_classes);
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		char *colon = strrchr(tok, ':');
		unsigned long long cnt;
		const char *m;

		if (!colon)
			continue;
		*colon = 0;
		cnt = strtoull(colon + 1, NULL, 10);
		if (!strncmp(tok, "xcrypt-", 7))
			m = tok + 7;
		else if (!strcmp(tok, "xsha1") || !strcmp(tok, "xsha256"))
			m = tok;
		else
			continue;
		if (!found || cnt > best) {
			snprintf(mode, n, "%s", m);
			best = cnt;
			found = 1;
		}
	}
	return found;
}

/* the engine's cycles per request of a PadLock row; 0 when the model has none */
static int engine_cycles(const struct row *r, double traps, double *c)
{
	char mode[24], key[48];
	double per, start, blocks = (double)((r->size + 15) / 16), scale = 1.0;
	int bits = r->keybits;

	if (!row_engine(r, mode, sizeof(mode)))
		return 0;
	if (!strncmp(mode, "xsha", 4)) {
		/* SHA-1/-2 pad to whole 64-byte blocks (0x80 and the 8-byte length) */
		double bytes = (double)((r->size + 8) / 64 * 64 + 64);

		snprintf(key, sizeof(key), "%s_byte", mode);
		if (!cpu_num(key, &per) || per == 0 || !cpu_num("xsha_start", &start))
			return 0;
		*c = traps * start + bytes * per;
		return 1;
	}
	snprintf(key, sizeof(key), "%s_block", mode);
	if (!cpu_num(key, &per) || !cpu_num("xcrypt_start", &start))
		return 0;
	if (!strncmp(r->alg, "xts(", 4)) {
		bits /= 2;		/* two keys: the data key's rounds count */
		blocks += 1;		/* and the tweak's encryption */
	}
	/* 192- and 256-bit keys: 12/10 and 14/10 of the rounds */
	if (bits == 192)
		scale = 1.2;
	else if (bits == 256)
		scale = 1.4;
	/* a kernel driver: no engine_call_adjust (OpenSSL-engine rows only) */
	*c = traps * start + blocks * per * scale;
	return 1;
}

/* the projected MB/s of one row into r->proj_mbps; r->proj says whether there is one */
static void project_row(struct row *r)
{
	double ops = r->sim_ops, path, c, e;

	r->proj = 0;
	if (!r->sim || ops <= 0)
		return;
	path = (r->sim_ns - (r->sim_handler + (double)r->sim_traps * r->sim_trap_overhead) *
		(1 + proj.irq_share)) / ops;
	c = path * proj.cpi;
	e = 0;
	if (r->padlock) {
		if (!engine_cycles(r, r->sim_traps / ops, &e))
			return;
		c += e;
	}
	r->proj_path = path;
	r->proj_engine = e;
	if (c <= 0) {
		/*
		 * Not a time: the simulator's share exceeded the guest time
		 * (host-time readings, not --icount).  Kept signed for the
		 * crossover rule; printed as n/a.
		 */
		r->proj = 2;
		r->proj_mbps = c < 0 ? r->size * proj.clock_mhz / c : 0;
		return;
	}
	r->proj_mbps = r->size * proj.clock_mhz / c;
	r->proj = 1;
}

/*
 * The engine's cycles for every PadLock instruction of a dm-crypt or IPsec
 * window; 0 when the model cannot price one of them.  The simulator counts
 * AES blocks and hashed bytes for all modes together: they are priced at
 * the slowest mode (and hash) that ran, so that a mix, such as ESSIV's one
 * ECB block per sector beside CBC, is never made cheaper than it is.  The
 * random number generator is not the workload's and is left out.
 */
static int window_engine(const struct row *r, double *c)
{
	char buf[sizeof(r->sim_classes)], *tok, *save = NULL, key[48];
	double xtraps = 0, straps = 0, blk = 0, byte = 0, per, xstart = 0, sstart = 0;
	double scale = 1.0;
	int bits = r->keybits;

	snprintf(buf, sizeof(buf), "%s", r->sim_classes);
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		char *colon = strrchr(tok, ':');
		double n;

		if (!colon)
			continue;
		*colon = 0;
		n = strtod(colon + 1, NULL);
		if (!strcmp(tok, "xstore") || !strcmp(tok, "rep-xstore"))
			continue;
		if (!strncmp(tok, "xcrypt-", 7)) {
			snprintf(key, sizeof(key), "%s_block", tok + 7);
			if (!cpu_num(key, &per))
				return 0;
			xtraps += n;
			blk = per > blk ? per : blk;
		} else if (!strcmp(tok, "xsha1") || !strcmp(tok, "xsha256")) {
			snprintf(key, sizeof(key), "%s_byte", tok);
			if (!cpu_num(key, &per) || per == 0)
				return 0;
			straps += n;
			byte = per > byte ? per : byte;
		} else {
			return 0;	/* an instruction the model has no figure for */
		}
	}
	if ((xtraps && !cpu_num("xcrypt_start", &xstart)) ||
	    (straps && !cpu_num("xsha_start", &sstart)))
		return 0;
	if (!strncmp(r->alg, "aes-xts", 7))
		bits /= 2;		/* two keys: the data key's rounds count */
	if (bits == 192)
		scale = 1.2;
	else if (bits == 256)
		scale = 1.4;
	*c = xtraps * xstart + (double)r->sim_aes_blocks * blk * scale +
	     straps * sstart + (double)r->sim_sha_bytes * byte;
	return 1;
}

/* the projected MB/s of a dm-crypt or IPsec row: its window's bytes at the projected time */
static void project_window(struct row *r)
{
	double ops = r->sim_ops, c, e;

	r->proj = 0;
	if (!r->sim || ops <= 0 || !window_engine(r, &e))
		return;
	r->proj_path = (r->sim_ns - (r->sim_handler +
				     (double)r->sim_traps * r->sim_trap_overhead) *
			(1 + proj.irq_share)) / ops;
	r->proj_engine = e / ops;
	c = r->proj_path * proj.cpi + r->proj_engine;
	if (c <= 0) {
		r->proj = 2;
		return;
	}
	r->proj_mbps = r->sim_bytes / ops * proj.clock_mhz / c;
	r->proj = 1;
}

/* every row of test that carries the simulator's cost */
void project_rows(const char *test)
{
	int i;

	if (!proj.on)
		return;
	for (i = 0; i < nrows; i++) {
		if (strcmp(rows[i].test, test))
			continue;
		if (!strcmp(test, "afalg"))
			project_row(&rows[i]);
		else
			project_window(&rows[i]);
	}
}
