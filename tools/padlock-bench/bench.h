/* SPDX-License-Identifier: GPL-2.0 */
/*
 * padlock-bench: what the PadLock drivers buy for AF_ALG, dm-crypt and IPsec
 * compared with the generic AES/SHA drivers of the running kernel.
 */
#ifndef PADLOCK_BENCH_H
#define PADLOCK_BENCH_H

#include <assert.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdnoreturn.h>
#include <signal.h>

/* __printf(a, b) comes from the Makefile, as the kernel's compiler.h gives it */
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
typedef unsigned char u8;
typedef unsigned int u32;

#define PB_VERSION "0.1"

/* exit statuses */
#define EXIT_RUNTIME	1	/* a measurement or a check failed */
#define EXIT_ENV	2	/* usage, privileges, missing program/module/driver */
#define EXIT_SIGNAL	130	/* interrupted (SIGINT/SIGTERM) */

struct options {
	int quick;
	int runs;		/* repetitions per afalg measurement */
	int time_ms;		/* minimum duration of one repetition */
	int fio_seconds;
	int iperf_seconds;
	int ram_mib;
	const char *json_file;
	const char *csv_file;
	const char *plot_file;
	const char *drivers[32];	/* --driver: restrict to these */
	int ndrivers;
	const char *path;	/* --path: force an AF_ALG access path */
	long sizes[16];		/* --sizes: AF_ALG request sizes */
	int nsizes;
	int verbose;
};

extern struct options opt;
extern atomic_int stop_requested;
extern char fatal_error[512];	/* the message die() printed */

/* One line of /proc/crypto */
struct calg {
	char name[128];
	char driver[128];
	char module[64];
	char type[32];
	int priority;
	int internal;
	int selftest_ok;
};

struct crypto_list {
	struct calg *a;
	int n;
};

/* One measurement result: a line of the report */
struct row {
	char test[12];		/* afalg, dmcrypt, ipsec */
	char alg[64];		/* cbc(aes), sha256, aes-xts-plain64, ... */
	int keybits;
	char op[16];		/* encrypt, decrypt, digest, write, read, tcp, udp */
	char driver[160];	/* driver name as in /proc/crypto */
	char pinned[160];	/* the name that was asked for */
	char module[64];
	int priority;
	int padlock;
	int baseline;
	long size;		/* request size in bytes */
	char path[16];		/* AF_ALG access path */
	int runs;
	double mbps, mbps_min, mbps_max;	/* 10^6 bytes per second */
	double ops;		/* operations (requests, packets) per second */
	double cpu_ns_per_byte;	/* CPU time per byte (0: not measured) */
	double cpu_pct;		/* CPU use in percent (dmcrypt, ipsec) */
	char extra[256];	/* test specific, JSON object members */
	/*
	 * Under padlock-sim: the simulator's cost file read around the timed
	 * repetitions (afalg rows), or around the fio or iperf3 run (dmcrypt
	 * and ipsec rows, under --icount only), for tools/measure/project.py
	 * --bench
	 */
	int sim;		/* the sim_* members are set */
	double sim_ops;		/* requests: AF_ALG requests, fio I/Os, ESP packets */
	double sim_ns;		/* their time (guest instructions under icount) */
	unsigned long long sim_traps, sim_handler, sim_trap_overhead;
	char sim_classes[160];	/* "xcrypt-ecb:N ..." the non-zero counts */
	/* dmcrypt and ipsec rows: what the whole machine did in the window */
	double sim_bytes;	/* disk I/O bytes, iperf3 payload bytes */
	double sim_idle_ns;	/* the idle time left out of sim_ns */
	double sim_short_ns;	/* the short run's busy time, taken off sim_ns */
	int sim_task_time;	/* busy time from the tasks' run time, not clock - idle */
	unsigned long long sim_aes_blocks, sim_sha_bytes;	/* the engine's work */
	int proj;		/* proj_mbps: 1 set, 2 not positive (n/a) */
	double proj_mbps;	/* projected onto the simulated CPU: a model */
	double proj_path;	/* its software path per request, instructions */
	double proj_engine;	/* its engine cycles per request */
};

/* err.c: messages, fatal errors, the stop request, allocation */
noreturn void die(int status, const char *fmt, ...) __printf(2, 3);
void notice(const char *fmt, ...) __printf(1, 2);
void progress(const char *fmt, ...) __printf(1, 2);
void progress_done(void);
void check_stop(void);
void *xcalloc(size_t n, size_t sz);
void *xrealloc(void *p, size_t sz);
char *xstrdup(const char *s);

/* measure.c: clocks, random data, sorting */
double now_s(void);
double cpu_s(void);
void fill_random(void *buf, size_t len);
int cmp_double(const void *a, const void *b);

/* cleanup.c: the cleanup stack, signals */
typedef void (*cleanup_fn)(void *arg);
void cleanup_push(const char *what, cleanup_fn fn, void *arg);
void cleanup_pop_run(const char *what);
void cleanup_all(void);
int cleanup_running(void);
void install_signals(void);

/* run.c: programs, privileges, kernel modules */
int have_program(const char *prog);
void need_program(const char *prog, const char *package);
void need_root(const char *what);
int run_cmd(char **out, const char *fmt, ...) __printf(2, 3);
int run_argv(char **out, char *const argv[]);
const char *run_stderr(void);
int module_loaded(const char *mod);
int need_module(const char *mod, const char *params);

/* proccrypto.c: /proc/crypto */
int crypto_read(struct crypto_list *l);
void crypto_free(struct crypto_list *l);
const struct calg *crypto_find_driver(const struct crypto_list *l, const char *driver);
const struct calg *crypto_resolve(const char *pinned, struct crypto_list *l);
int is_padlock_driver(const char *driver);

/* sysinfo.c: the machine, the simulator's cost counters */
extern char sys_kernel[128], sys_cpu[160], sys_profile[128];
extern int sys_icount;	/* guest time counts instructions (tools/testing/vm/run --icount) */
void sysinfo_read(void);

/* /sys/kernel/debug/padlock-sim/cost: per opcode class, then the trap cost */
#define SIM_COST_MAX	24
struct sim_cost {
	int n;
	char name[SIM_COST_MAX][24];
	unsigned long long count[SIM_COST_MAX], cycles[SIM_COST_MAX];
	unsigned long long trap_overhead;
};

int sim_cost_read(struct sim_cost *c);
void sim_cost_delta(struct row *r, const struct sim_cost *a, const struct sim_cost *b);

/*
 * A reading of the whole machine around a dm-crypt or IPsec run: guest
 * time, idle time, the simulator's cost and the engine's work counters.
 */
struct sim_snap {
	int ok;
	double t, idle;		/* CLOCK_MONOTONIC, idle + iowait time; seconds */
	double task_ns;		/* time tasks ran (/proc/schedstat), -1: unknown */
	struct sim_cost cost;
	unsigned long long aes_blocks, sha_bytes;
};

/* a run and a short run of the same command: w[0], w[1] and w[2], w[3] */
struct sim_window {
	struct sim_snap w[4];
	double ops, bytes;	/* the run's requests and bytes minus the short run's */
};

void sim_snap_read(struct sim_snap *s, int start);
void sim_window_row(struct row *r, const struct sim_window *w);

/* project.c: the rows projected onto the simulated CPU (a model) */
struct projection {
	int on;			/* the rows are projected */
	int icount;		/* measured under --icount */
	char model[4160];	/* the model file found ("": none) */
	char cpu[32];		/* its CPU section */
	char name[128];		/* the CPU's name */
	double clock_mhz, cpi, irq_share;
	char label[96];		/* "projected on CPU at N GHz (model)" */
	char why[4400];		/* under padlock-sim: why nothing is projected */
	int system;		/* the dmcrypt and ipsec rows are projected too */
	char system_why[160];	/* why they are not */
};

extern const char *model_file;	/* --model FILE */
extern struct projection proj;
void project_init(void);
void project_rows(const char *test);

/* json.c: fio and iperf3 output through json-c; members by JSON pointer */
struct json_object;
struct json_object *json_output_parse(const char *text);
struct json_object *json_at(struct json_object *doc, const char *ptr);
double json_at_num(struct json_object *doc, const char *ptr, double dflt);
const char *json_at_str(struct json_object *doc, const char *ptr);
int json_at_len(struct json_object *doc, const char *ptr);

/* report.c */
struct row *row_add(void);
extern struct row *rows;
extern int nrows;
void report_note(const char *fmt, ...) __printf(1, 2);
void report_check(const char *test, const char *alg, int keybits,
		  const char *driver, const char *what, int ok);
void report_meta(const char *key, const char *fmt, ...) __printf(2, 3);
void report_tables(const char *test, const char *unit_note);
void report_crossover(const char *test);
void report_projection_note(void);
int report_write_json(const char *file);
int report_write_csv(const char *file);
void report_plot(const char *file);

/* drivers.c: which drivers to compare */
struct drvset {
	char cra[64];		/* cra_name: cbc(aes), sha256 */
	int ndrv;
	char drv[12][160];	/* names to pin (driver names or templates) */
	int padlock[12];
	int baseline;		/* index of the baseline in drv[] */
};

int drivers_for(const char *cra, struct drvset *s, int want_hash);
int driver_selected(const char *name);
void drivers_quick_trim(struct drvset *s);
void drivers_validate_option(void);

/* subcommands */
int cmd_afalg(void);
int afalg_instantiate(const char *name, int hash);
int cmd_dmcrypt(void);
int cmd_ipsec(void);

#endif
