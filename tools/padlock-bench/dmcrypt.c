// SPDX-License-Identifier: GPL-2.0
/*
 * padlock-bench dmcrypt: dm-crypt on a RAM disk, one plain cryptsetup
 * mapping per driver, pinned with a capi: cipher spec; fio measures
 * sequential and 4 KiB random writes and reads; afterwards a block of random
 * data is written, read back and compared (and read back once more through
 * the baseline driver: the on-disk format must not depend on the driver).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <kcapi.h>
#include <json-c/json.h>

#include "bench.h"

static const struct {
	const char *spec;	/* the usual cryptsetup name */
	const char *cra;	/* skcipher to pin */
	const char *iv;
	int keybits;
} dmc[] = {
	{ "aes-xts-plain64", "xts(aes)", "plain64", 512 },
	{ "aes-cbc-essiv:sha256", "cbc(aes)", "essiv:sha256", 256 },
};

static const struct {
	const char *rw, *op;
	long bs;
} jobs[] = {
	{ "write", "write", 1048576 },
	{ "read", "read", 1048576 },
	{ "randwrite", "write", 4096 },
	{ "randread", "read", 4096 },
};

#define VERIFY_MAX (4L << 20)
static long verify_len;
static u8 *vdata, *vback;	/* written, read back */

static char mapname[64], mappath[128], ramdev[64] = "/dev/ram0";
static char tmpdir[64], keyfile[128];

static void rm_tmpdir(void *arg)
{
	(void)arg;
	if (keyfile[0])
		unlink(keyfile);
	if (tmpdir[0])
		rmdir(tmpdir);
}

static void unload_brd(void *arg)
{
	int i;

	(void)arg;
	/* the device can stay busy for a moment after its mapping went away */
	for (i = 0; i < 10 && module_loaded("brd"); i++) {
		if (!run_cmd(NULL, "rmmod brd"))
			return;
		usleep(500000);
	}
	if (module_loaded("brd"))
		fprintf(stderr, "padlock-bench: warning: could not unload brd: %s\n", run_stderr());
}

/* is our mapping there?  Asks sysfs: the /dev/mapper node may be missing */
static int mapping_exists(void)
{
	DIR *d = opendir("/sys/block");
	struct dirent *e;
	int found = 0;

	if (!d)
		return access(mappath, F_OK) == 0;
	while (!found && (e = readdir(d))) {
		char p[300], name[128] = "";
		FILE *f;

		if (strncmp(e->d_name, "dm-", 3))
			continue;
		snprintf(p, sizeof(p), "/sys/block/%s/dm/name", e->d_name);
		f = fopen(p, "r");
		if (!f)
			continue;
		if (fgets(name, sizeof(name), f))
			name[strcspn(name, "\n")] = 0;
		fclose(f);
		found = !strcmp(name, mapname);
	}
	closedir(d);
	return found;
}

/* cryptsetup close; without udev it may say busy right after I/O: retry */
static void close_mapping(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 10 && mapping_exists(); i++) {
		if (run_cmd(NULL, "cryptsetup close %s", mapname) == 0)
			break;
		usleep(300000);
		if (run_cmd(NULL, "dmsetup remove --retry %s", mapname) == 0)
			break;
		usleep(500000);
	}
	if (mapping_exists())
		fprintf(stderr,
			"padlock-bench: warning: could not remove the mapping %s; run 'dmsetup remove %s'.\n",
			mapname, mapname);
}

/*
 * cryptsetup keeps at most 31 characters after the first '-' of a cipher
 * spec and silently cuts the rest (capi:cbc-aes-padlock-essiv:sha256-generic
 * would lose its last letter).  Such a mapping is set up with dmsetup and a
 * table file instead, which is the same dm-crypt target cryptsetup would load.
 */
static int dmsetup_mapping(const char *capi, int keybits)
{
	char table[128], line[512];
	u8 key[64];
	unsigned long long sectors = 0;
	FILE *f = fopen("/sys/block/ram0/size", "r");
	int fd, i, rc;

	if (!f || fscanf(f, "%llu", &sectors) != 1)
		sectors = 0;
	if (f)
		fclose(f);
	fd = open(keyfile, O_RDONLY);
	if (fd < 0 || read(fd, key, keybits / 8) != keybits / 8 || !sectors) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	snprintf(line, sizeof(line), "0 %llu crypt %s ", sectors, capi);
	for (i = 0; i < keybits / 8; i++)
		sprintf(line + strlen(line), "%02x", key[i]);
	strncat(line, " 0 /dev/ram0 0\n", sizeof(line) - strlen(line) - 1);
	memset(key, 0, sizeof(key));
	snprintf(table, sizeof(table), "%s/table", tmpdir);
	fd = open(table, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	rc = fd < 0 || write(fd, line, strlen(line)) != (ssize_t)strlen(line);
	if (fd >= 0)
		close(fd);
	memset(line, 0, sizeof(line));
	/* without udev, dmsetup leaves the /dev/mapper node to mknodes */
	if (!rc)
		rc = run_cmd(NULL, "dmsetup create %s %s && dmsetup mknodes %s", mapname, table,
			     mapname);
	unlink(table);
	return rc ? -1 : 0;
}

/* 0, or -1 when the mapping could not be set up and !fatal */
static int open_mapping(const char *capi, int keybits, int fatal)
{
	char ks[16];
	char *argv[14];
	const char *mode = strchr(capi, '-');
	int n = 0;

	if (mode && strlen(mode + 1) > 31) {
		cleanup_push("dm mapping", close_mapping, NULL);
		if (!dmsetup_mapping(capi, keybits))
			return 0;
		check_stop();
		if (fatal)
			die(EXIT_RUNTIME, "dmsetup could not set up a dm-crypt mapping with %s: %s",
			    capi, run_stderr());
		cleanup_pop_run("dm mapping");
		notice("dm-crypt cannot use %s (dmsetup: %s); left out.", capi, run_stderr());
		return -1;
	}
	snprintf(ks, sizeof(ks), "%d", keybits);
	argv[n++] = "cryptsetup";
	argv[n++] = "open";
	argv[n++] = "--type";
	argv[n++] = "plain";
	argv[n++] = "--cipher";
	argv[n++] = (char *)capi;
	argv[n++] = "--key-size";
	argv[n++] = ks;
	argv[n++] = "--key-file";
	argv[n++] = keyfile;
	argv[n++] = "--batch-mode";
	argv[n++] = ramdev;
	argv[n++] = mapname;
	argv[n] = NULL;
	cleanup_push("dm mapping", close_mapping, NULL);
	if (run_argv(NULL, argv)) {
		char msg[512];

		snprintf(msg, sizeof(msg), "%s", run_stderr());
		check_stop();
		if (fatal)
			die(EXIT_RUNTIME,
			    "cryptsetup could not open a plain mapping with cipher %s: %s",
			    capi, msg[0] ? msg : "failed");
		cleanup_pop_run("dm mapping");
		notice("dm-crypt cannot use %s (cryptsetup: %s); left out.", capi,
		       msg[0] ? msg : "failed");
		return -1;
	}
	check_stop();
	return 0;
}

static double cpu_busy(double *total)
{
	FILE *f = fopen("/proc/stat", "r");
	unsigned long long v[10] = { 0 };
	double busy = 0;

	*total = 0;
	if (!f)
		return 0;
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
		   &v[3], &v[4], &v[5], &v[6], &v[7]) == 8) {
		int i;

		for (i = 0; i < 8; i++)
			*total += v[i];
		busy = *total - v[3] - v[4];
	}
	fclose(f);
	return busy;
}

/* what one fio job measured: where, with which driver */
struct fio_ctx {
	const char *spec, *pinned;
	const struct calg *c;
	int keybits, padlock, baseline;
	int first, n;		/* jobs[first..first+n-1] */
	double busy, total;	/* machine CPU time: busy and all, in ticks */
};

/*
 * fio's command line for jobs first..first+n-1; opts holds the strings.
 * one_io: a single I/O instead of the timed run.
 */
static void fio_argv(char *argv[41], char opts[4][5][32], char rt[32], char size[32],
		     int first, int n, int one_io)
{
	int argc = 0, j, k;

	snprintf(size, 32, "--size=%dM", opt.ram_mib * 3 / 4);
	argv[argc++] = "fio";
	argv[argc++] = "--output-format=json";
	argv[argc++] = "--filename";
	argv[argc++] = mappath;
	argv[argc++] = "--direct=1";
	argv[argc++] = "--allow_file_create=0";
	argv[argc++] = "--ioengine=libaio";
	if (one_io) {
		snprintf(rt, 32, "--io_size=%ld", jobs[first].bs);
	} else {
		snprintf(rt, 32, "--runtime=%d", opt.fio_seconds);
		argv[argc++] = "--time_based";
	}
	argv[argc++] = rt;
	argv[argc++] = size;
	for (j = 0; j < n; j++) {
		const char *rw = jobs[first + j].rw;
		long bs = jobs[first + j].bs;

		snprintf(opts[j][0], 32, "--name=%s", rw);
		snprintf(opts[j][1], 32, "--rw=%s", rw);
		snprintf(opts[j][2], 32, "--bs=%ld", bs);
		/* short runs: little I/O in flight, so that fio's drain stays short */
		snprintf(opts[j][3], 32, "--iodepth=%d",
			 opt.quick ? (bs > 4096 ? 1 : 4) : (bs > 4096 ? 4 : 16));
		snprintf(opts[j][4], 32, "--stonewall");
		for (k = 0; k < 5; k++)
			argv[argc++] = opts[j][k];
	}
	argv[argc] = NULL;
}

/*
 * The report row of fio job number j of x, from its JSON object.  When the
 * rows are projected (x->n is 1), sjob is the same job run for one I/O,
 * and w holds the windows around both fio processes.
 */
static void fio_row(const struct fio_ctx *x, int j, struct json_object *job,
		    struct json_object *sjob, const struct sim_window *w)
{
	int rd = !strcmp(jobs[x->first + j].op, "read");
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct row *r = row_add();
	double bw, secs;

	snprintf(r->test, sizeof(r->test), "dmcrypt");
	snprintf(r->alg, sizeof(r->alg), "%s", x->spec);
	r->keybits = x->keybits;
	snprintf(r->op, sizeof(r->op), "%s", jobs[x->first + j].op);
	snprintf(r->pinned, sizeof(r->pinned), "%s", x->pinned);
	snprintf(r->driver, sizeof(r->driver), "%s", x->c ? x->c->driver : x->pinned);
	snprintf(r->module, sizeof(r->module), "%s", x->c ? x->c->module : "");
	r->priority = x->c ? x->c->priority : -1;
	r->padlock = x->padlock;
	r->baseline = x->baseline;
	r->size = jobs[x->first + j].bs;
	snprintf(r->path, sizeof(r->path), "%s", jobs[x->first + j].rw);
	r->runs = 1;
	bw = json_at_num(job, rd ? "/read/bw_bytes" : "/write/bw_bytes", 0);
	r->mbps = bw / 1e6;
	r->mbps_min = r->mbps;
	r->mbps_max = r->mbps;
	r->ops = json_at_num(job, rd ? "/read/iops" : "/write/iops", 0);
	secs = json_at_num(job, "/job_runtime", 0) / 1000.0;
	if (x->total > 0 && ncpu > 0) {
		/* percent of one CPU, whole machine: dm-crypt works in kworkers */
		r->cpu_pct = x->busy / x->total * 100.0 * ncpu;
		if (bw > 0 && secs > 0)
			r->cpu_ns_per_byte = x->busy / x->total * ncpu * 1e9 / bw;
	}
	snprintf(r->extra, sizeof(r->extra),
		 "\"iops\": %.6g, \"fio_usr_cpu\": %.4g, \"fio_sys_cpu\": %.4g, \"fio_runtime_ms\": %.6g, \"cpu_scope\": \"%s\"",
		 r->ops, json_at_num(job, "/usr_cpu", 0), json_at_num(job, "/sys_cpu", 0),
		 secs * 1000, x->n > 1 ? "average of the fio jobs run together" : "this job");
	/* the projection's request: one fio I/O */
	if (sjob) {
		const char *ios = rd ? "/read/total_ios" : "/write/total_ios";
		const char *bytes = rd ? "/read/io_bytes" : "/write/io_bytes";
		struct sim_window sw = *w;

		sw.ops = json_at_num(job, ios, 0) - json_at_num(sjob, ios, 0);
		sw.bytes = json_at_num(job, bytes, 0) - json_at_num(sjob, bytes, 0);
		sim_window_row(r, &sw);
	}
}

/*
 * One fio process for jobs first..first+n-1 of x (one I/O: one_io), read
 * around by a and b; its JSON, or the run ends with an error.
 */
static struct json_object *fio_process(struct fio_ctx *x, int one_io, struct sim_snap *a,
				       struct sim_snap *b)
{
	char opts[4][5][32], rt[32], size[32];
	char *argv[41], *out = NULL;
	double b0, t0, b1, t1;
	struct json_object *js;
	int rc;

	fio_argv(argv, opts, rt, size, x->first, x->n, one_io);
	b0 = cpu_busy(&t0);
	sim_snap_read(a, 1);
	rc = run_argv(&out, argv);
	sim_snap_read(b, 0);
	b1 = cpu_busy(&t1);
	check_stop();
	js = rc ? NULL : json_output_parse(out);
	if (json_at_len(js, "/jobs") != x->n) {
		char msg[300];

		snprintf(msg, sizeof(msg), "%s", run_stderr());
		free(out);
		json_object_put(js);
		die(EXIT_RUNTIME, "fio %s on %s failed: %s", jobs[x->first].rw, mappath,
		    msg[0] ? msg : "no JSON output");
	}
	free(out);
	if (!one_io) {
		x->busy = t1 > t0 ? b1 - b0 : 0;
		x->total = t1 > t0 ? t1 - t0 : 0;
	}
	return js;
}

/*
 * fio jobs first..first+n-1 in one fio process (stonewalled, one after the
 * other).  A normal run starts fio per job so that the machine's CPU use
 * belongs to one job; --quick runs all four in one process to save fio's
 * start-up and reports the average CPU use of the four, except when the
 * rows are projected: a projection needs each job's own instructions, and
 * the job is run once more for a single I/O, whose window is taken off the
 * timed run's (fio's own start, clock calibration and exit drop out).
 */
static void fio_jobs(struct fio_ctx *x)
{
	struct json_object *js, *jl, *sjs = NULL;
	struct sim_window w;
	int j;

	progress("[dmcrypt] %s %s: fio %s%s", x->spec, x->pinned, jobs[x->first].rw,
		 x->n > 1 ? " and the others" : "");
	memset(&w, 0, sizeof(w));
	js = fio_process(x, 0, &w.w[0], &w.w[1]);
	if (proj.system && x->n == 1)
		sjs = fio_process(x, 1, &w.w[2], &w.w[3]);
	jl = json_at(js, "/jobs");
	for (j = 0; j < x->n; j++)
		fio_row(x, j, json_object_array_get_idx(jl, j),
			sjs ? json_object_array_get_idx(json_at(sjs, "/jobs"), 0) : NULL, &w);
	json_object_put(sjs);
	json_object_put(js);
}

static void run_fio(const char *spec, int keybits, const char *pinned, int padlock, int baseline)
{
	struct crypto_list l = { 0 };
	struct fio_ctx x = {
		.spec = spec, .pinned = pinned, .keybits = keybits,
		.padlock = padlock, .baseline = baseline,
	};
	int j;

	x.c = crypto_resolve(pinned, &l);
	if (opt.quick && !proj.system) {
		x.first = 0;
		x.n = 4;
		fio_jobs(&x);
	} else {
		for (j = 0; j < 4; j++) {
			x.first = j;
			x.n = 1;
			fio_jobs(&x);
		}
	}
	crypto_free(&l);
}

static int rw_direct(const char *dev, int write, void *buf, size_t len)
{
	int fd = open(dev, (write ? O_WRONLY : O_RDONLY) | O_DIRECT);
	ssize_t r;

	if (fd < 0)
		return -errno;
	r = write ? pwrite(fd, buf, len, 0) : pread(fd, buf, len, 0);
	if (write && r == (ssize_t)len && fsync(fd))
		r = -1;
	close(fd);
	return r == (ssize_t)len ? 0 : -EIO;
}

/*
 * The dm-crypt cipher spec pinning a driver.  For ESSIV dm-crypt asks the
 * crypto API for "essiv(<cipher>,<hash>)"; the kernel builds an instance only
 * when that name is exactly the instance's driver name, so both parts must be
 * driver names: capi:cbc-aes-padlock-essiv:sha256-generic.  The hash only
 * turns the key into the IV key; the baseline hash driver is used for all.
 */
static char essiv_hash[128];

static void capi_spec(char *buf, size_t n, const char *driver, const char *iv)
{
	if (!strncmp(iv, "essiv:", 6))
		snprintf(buf, n, "capi:%s-essiv:%.80s", driver, essiv_hash);
	else
		snprintf(buf, n, "capi:%s-%s", driver, iv);
}

static int dir_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int empty = 1;

	if (!d)
		return 1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			empty = 0;
	closedir(d);
	return empty;
}

static void hex(const u8 *d, int n, char *out)
{
	int i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", d[i]);
}

/* brd with a /dev/ram0 of --ram-mib; 1 when we loaded it (and unload it) */
static int setup_ramdisk(void)
{
	char params[64];
	struct stat st;
	int loaded;

	if (module_loaded("brd")) {
		const char *holders = "/sys/block/ram0/holders";
		FILE *f = fopen("/sys/block/ram0/size", "r");
		unsigned long long sectors = 0;

		if (f) {
			if (fscanf(f, "%llu", &sectors) != 1)
				sectors = 0;
			fclose(f);
		}
		if (!sectors || sectors * 512 < (unsigned long long)opt.ram_mib << 20)
			die(EXIT_ENV,
			    "brd is already loaded with a /dev/ram0 smaller than %d MiB (or none); unload it (rmmod brd) or use --ram-mib.",
			    opt.ram_mib);
		if (!dir_empty(holders))
			die(EXIT_ENV,
			    "brd is already loaded and /dev/ram0 is in use (see %s); not touching it.",
			    holders);
		notice("%s",
		       "brd was already loaded: using its /dev/ram0 (its contents are overwritten).");
		loaded = 0;
	} else {
		snprintf(params, sizeof(params), "rd_nr=1 rd_size=%d", opt.ram_mib * 1024);
		loaded = need_module("brd", params);
	}
	if (loaded)
		cleanup_push("brd", unload_brd, NULL);
	if (stat(ramdev, &st) || !S_ISBLK(st.st_mode))
		die(EXIT_ENV, "%s is not there after loading brd (no devtmpfs?).", ramdev);
	return loaded;
}

/* the temporary directory with the key file, the ESSIV hash */
static void setup_key_dir(void)
{
	struct drvset hs;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/padlock-bench.XXXXXX");
	if (!mkdtemp(tmpdir))
		die(EXIT_RUNTIME, "cannot create a temporary directory: %s", strerror(errno));
	snprintf(keyfile, sizeof(keyfile), "%s/key", tmpdir);
	cleanup_push("key file", rm_tmpdir, NULL);
	if (drivers_for("sha256", &hs, 1) < 0)
		die(EXIT_ENV, "the kernel has no sha256, which ESSIV needs.");
	snprintf(essiv_hash, sizeof(essiv_hash), "%.120s", hs.drv[0]);
}

static void write_random_key(int keybits)
{
	u8 key[64];
	int fd;

	fill_random(key, keybits / 8);
	fd = open(keyfile, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, key, keybits / 8) != keybits / 8 || close(fd))
		die(EXIT_RUNTIME,
		    "cannot write the key file %s: %s",
		    keyfile, strerror(errno));
	memset(key, 0, sizeof(key));
}

/* the data read back is the data written, and it is encrypted */
static void verify_round_trip(int i, const char *drv, const char *capi, char dig[65])
{
	const char *spec = dmc[i].spec;
	int bits = dmc[i].keybits, rc;
	u8 md[32];

	progress("[dmcrypt] %s %s: verifying", spec, drv);
	fill_random(vdata, verify_len);
	if (rw_direct(mappath, 1, vdata, verify_len) ||
	    rw_direct(mappath, 0, vback, verify_len))
		die(EXIT_RUNTIME, "I/O on %s (%s) failed.", mappath, capi);
	if (memcmp(vdata, vback, verify_len)) {
		report_check("dmcrypt", spec, bits, drv, "read back = written", 0);
		die(EXIT_RUNTIME,
		    "data read back through %s differs from the data written (%s).",
		    capi, mappath);
	}
	kcapi_md_sha256(vdata, verify_len, md, sizeof(md));
	hex(md, 32, dig);
	report_check("dmcrypt", spec, bits, drv, opt.quick ?
		     "1 MiB read back = written" : "4 MiB read back = written", 1);
	close_mapping(NULL);
	cleanup_pop_run("dm mapping");	/* already closed: a no-op */
	rc = rw_direct(ramdev, 0, vback, verify_len);
	if (!rc && !memcmp(vdata, vback, verify_len))
		die(EXIT_RUNTIME,
		    "the RAM disk holds the plaintext: %s did not encrypt.",
		    capi);
}

/* the baseline reads what the driver behind capi wrote */
static void verify_baseline_reads(int i, const char *drv, const char *capi,
				  const char *base_capi)
{
	const char *spec = dmc[i].spec;
	int bits = dmc[i].keybits;

	open_mapping(base_capi, dmc[i].keybits, 1);
	if (rw_direct(mappath, 0, vback, verify_len))
		die(EXIT_RUNTIME,
		    "reading %s through %s failed.",
		    mappath, base_capi);
	if (memcmp(vdata, vback, verify_len)) {
		report_check("dmcrypt", spec, bits, drv,
			     "baseline reads what it wrote", 0);
		die(EXIT_RUNTIME,
		    "data written through %s reads back differently through the baseline %s: the drivers disagree.",
		    capi, base_capi);
	}
	report_check("dmcrypt", spec, bits, drv,
		     "baseline driver reads back what it wrote", 1);
	close_mapping(NULL);
	cleanup_pop_run("dm mapping");
}

/* dmc[i] through driver d of s: fio, then the checks */
static void measure_driver(int i, const struct drvset *s, int d, const char *base_capi)
{
	const char *drv = s->drv[d];
	char capi[256], dig[65];
	int k, first = nrows;

	capi_spec(capi, sizeof(capi), drv, dmc[i].iv);
	progress("[dmcrypt] %s: opening %s", dmc[i].spec, capi);
	if (open_mapping(capi, dmc[i].keybits, d == 0))
		return;
	run_fio(dmc[i].spec, dmc[i].keybits, drv, s->padlock[d], d == 0);
	verify_round_trip(i, drv, capi, dig);
	if (d > 0 && (s->padlock[d] || !opt.quick))
		verify_baseline_reads(i, drv, capi, base_capi);
	for (k = first; k < nrows; k++)
		strncat(rows[k].extra, ", \"verified\": true",
			sizeof(rows[k].extra) - strlen(rows[k].extra) - 1);
	if (opt.verbose)
		fprintf(stderr,
			"padlock-bench: %s: %ld bytes verified, sha256 %s\n",
			capi, verify_len, dig);
}

/* one cipher spec (dmc[i]) with every driver to compare */
static void measure_spec(int i)
{
	struct drvset s;
	int n = drivers_for(dmc[i].cra, &s, 0), d;
	char base_capi[256];

	if (n < 0) {
		notice("the kernel has no %s; %s skipped.", dmc[i].cra, dmc[i].spec);
		return;
	}
	if (!n)
		return;
	drivers_quick_trim(&s);
	write_random_key(dmc[i].keybits);
	capi_spec(base_capi, sizeof(base_capi), s.drv[0], dmc[i].iv);
	for (d = 0; d < s.ndrv; d++)
		measure_driver(i, &s, d, base_capi);
}

int cmd_dmcrypt(void)
{
	int loaded_brd, i;

	snprintf(mapname, sizeof(mapname), "plbench-%d", (int)getpid());
	snprintf(mappath, sizeof(mappath), "/dev/mapper/%s", mapname);

	need_module("dm_crypt", NULL);
	loaded_brd = setup_ramdisk();
	setup_key_dir();
	verify_len = opt.quick ? VERIFY_MAX / 4 : VERIFY_MAX;
	vdata = aligned_alloc(4096, verify_len);
	vback = aligned_alloc(4096, verify_len);
	if (!vdata || !vback)
		die(EXIT_RUNTIME, "out of memory");

	for (i = 0; i < (int)ARRAY_SIZE(dmc); i++)
		measure_spec(i);
	progress_done();
	free(vdata);
	free(vback);
	cleanup_pop_run("key file");
	if (loaded_brd)
		cleanup_pop_run("brd");
	return 0;
}
