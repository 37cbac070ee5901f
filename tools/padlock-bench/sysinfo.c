// SPDX-License-Identifier: GPL-2.0
/*
 * padlock-bench: the machine (kernel, CPU, padlock-sim profile) and the
 * simulator's cost counters.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
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
