// SPDX-License-Identifier: GPL-2.0
/*
 * padlock-bench: the machine (kernel, CPU, padlock-sim profile) and the
 * simulator's cost counters.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "bench.h"

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

/* idle and iowait time of all CPUs from /proc/stat, in seconds; -1 when unreadable */
static double idle_s(void)
{
	unsigned long long v[5];
	long hz = sysconf(_SC_CLK_TCK);
	FILE *f = fopen("/proc/stat", "r");
	int n;

	if (!f)
		return -1;
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4]);
	fclose(f);
	if (n != 5 || hz <= 0)
		return -1;
	return (double)(v[3] + v[4]) / hz;
}

/*
 * The time tasks have run on all CPUs, in ns: the scheduler's rq_cpu_time
 * (/proc/schedstat, field 7 of each cpu line), counted when a task leaves
 * the CPU.  -1 when the kernel does not show it.
 */
static double task_ns(void)
{
	FILE *f = fopen("/proc/schedstat", "r");
	unsigned long long v[7];
	char line[512];
	double sum = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "cpu", 3) || !isdigit((unsigned char)line[3]))
			continue;
		if (sscanf(line, "cpu%*u %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
			   &v[2], &v[3], &v[4], &v[5], &v[6]) != 7)
			continue;
		sum = (sum < 0 ? 0 : sum) + (double)v[6];
	}
	fclose(f);
	return sum;
}

/* the engine's work so far: AES blocks and hashed bytes; 0 or -errno */
static int sim_work_read(struct sim_snap *s)
{
	FILE *f = fopen("/sys/kernel/debug/padlock-sim/counters", "r");
	char line[128], name[32];
	unsigned long long v;
	int found = 0;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%31s %llu", name, &v) != 2)
			continue;
		if (!strcmp(name, "aes_blocks")) {
			s->aes_blocks = v;
			found |= 1;
		} else if (!strcmp(name, "sha_bytes")) {
			s->sha_bytes = v;
			found |= 2;
		}
	}
	fclose(f);
	return found == 3 ? 0 : -EINVAL;
}

/*
 * One end of a window around a dm-crypt or IPsec run, taken only when those
 * rows are projected (under padlock-sim with a model, under --icount).  The
 * clock is read last at the start and first at the end, so that the
 * readings themselves stay out of the window as far as possible.
 */
void sim_snap_read(struct sim_snap *s, int start)
{
	memset(s, 0, sizeof(*s));
	if (!proj.system)
		return;
	if (start) {
		usleep(1);	/* our own time so far goes into rq_cpu_time now */
	} else {
		s->t = now_s();
		s->task_ns = task_ns();
	}
	s->idle = idle_s();
	s->ok = s->idle >= 0 && !sim_cost_read(&s->cost) && !sim_work_read(s);
	if (start) {
		s->task_ns = task_ns();
		s->t = now_s();
	}
}

/*
 * Busy guest time of the window a..b in ns: the time tasks ran, else guest
 * time minus idle time.  The tasks' run time is exact; the idle time is
 * kept in 10 ms units and, over windows that idle for hundreds of seconds
 * (an idle vCPU's clock jumps to its next timer under --icount), drifts by
 * tens of ms.
 */
static double busy_ns(const struct sim_snap *a, const struct sim_snap *b, int *task_time)
{
	if (a->task_ns >= 0 && b->task_ns > a->task_ns) {
		*task_time = 1;
		return b->task_ns - a->task_ns;
	}
	*task_time = 0;
	return ((b->t - a->t) - (b->idle - a->idle)) * 1e9;
}

/* (w1 - w0) - (w3 - w2) of a counter, not below 0 */
static unsigned long long diff2(unsigned long long w0, unsigned long long w1,
				unsigned long long w2, unsigned long long w3)
{
	return w1 - w0 > w3 - w2 ? (w1 - w0) - (w3 - w2) : 0;
}

/*
 * The window of a run less the window of a short run of the same command
 * into row r.  A window's guest instructions are its busy time (see
 * busy_ns(): under --icount a busy CPU's time counts instructions, an idle
 * one's clock jumps to the next timer).  What a fio or iperf3 process costs
 * whatever it does (start, clock calibration, setup, exit) is in both
 * windows and drops out: what remains is the cost of the run's extra
 * requests.
 */
void sim_window_row(struct row *r, const struct sim_window *sw)
{
	const struct sim_snap *w = sw->w;
	struct sim_cost zero, d;
	int i;

	for (i = 0; i < 4; i++)
		if (!w[i].ok || w[i].cost.n != w[1].cost.n)
			return;
	if (sw->ops <= 0 || sw->bytes <= 0)
		return;
	d = w[1].cost;
	for (i = 0; i < d.n; i++) {
		d.count[i] = diff2(w[0].cost.count[i], w[1].cost.count[i],
				   w[2].cost.count[i], w[3].cost.count[i]);
		d.cycles[i] = diff2(w[0].cost.cycles[i], w[1].cost.cycles[i],
				    w[2].cost.cycles[i], w[3].cost.cycles[i]);
	}
	zero = d;
	memset(zero.count, 0, sizeof(zero.count));
	memset(zero.cycles, 0, sizeof(zero.cycles));
	sim_cost_delta(r, &zero, &d);
	r->sim_ops = sw->ops;
	r->sim_short_ns = busy_ns(&w[2], &w[3], &i);
	r->sim_ns = busy_ns(&w[0], &w[1], &r->sim_task_time) - r->sim_short_ns;
	if (i != r->sim_task_time)
		r->sim = 0;	/* the two windows were not measured alike */
	r->sim_idle_ns = (w[1].idle - w[0].idle) * 1e9;
	r->sim_bytes = sw->bytes;
	r->sim_aes_blocks = diff2(w[0].aes_blocks, w[1].aes_blocks, w[2].aes_blocks,
				  w[3].aes_blocks);
	r->sim_sha_bytes = diff2(w[0].sha_bytes, w[1].sha_bytes, w[2].sha_bytes,
				 w[3].sha_bytes);
}
