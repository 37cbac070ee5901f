// SPDX-License-Identifier: GPL-2.0
/*
 * padlock-sim: XSTORE and REP XSTORE (docs/hardware.md 1.8, 6).
 *
 * rDI destination, rDX[1:0] chunk selector, status word in EAX.  The random
 * bytes come from get_random_bytes(); knobs inject the RNG's failure modes.
 *
 * "No data yet" (rng_nodata_rate): plain XSTORE returns at once with a byte
 * count of 0 in the status word and stores nothing (software retries).
 * REP XSTORE has no such exit: it stores rCX bytes and only then completes,
 * so when the RNG runs dry part-way the instruction waits for it, which is
 * why a rep xstore can stall the CPU for long and must be given a bounded
 * rCX (docs/hardware.md 1.8 and 6).  The wait is modelled as what software can see of
 * it: the bytes stored so far (rDI advanced, rCX counted down), a short
 * delay, then an interruption; the CPU re-executes the instruction, which
 * resumes where it stopped.  Each such event counts as rng_nodata.
 *
 * A stalled RNG (rng_stall, rng_delay; module parameters of this file, so
 * tests flip them in /sys/module/padlock_sim/parameters/): the strictest
 * reading of hardware.md 1.8 ("a 'rep xstore' could potentially pause a cpu for
 * an unreasonably long time").  Plain XSTORE still returns at once, with a
 * byte count of 0 and nothing stored.  REP XSTORE (rCX > 0) makes no
 * progress at all: it returns as interrupted with rDI and rCX unchanged, so
 * the CPU re-executes it, again and again, for as long as the stall lasts;
 * interrupts are taken in between, but the task never leaves the
 * instruction, exactly like silicon spinning inside it.  A driver whose
 * time must stay bounded therefore cannot use REP XSTORE at all: a plain
 * XSTORE that has just found data says nothing about the bytes the next
 * REP XSTORE waits for.  Every fruitless execution counts in
 * rng_stall_spins.
 *   rng_stall=1   the RNG delivers nothing until the knob is cleared;
 *   rng_delay=N   the next N executions of (rep) xstore, on any CPU, find
 *                 no data (each one counts N down), then the RNG delivers
 *                 again: a generator that comes back after a long delay.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/delay.h>
#include "sim.h"

/* How long one "no data yet" wait inside REP XSTORE lasts, microseconds. */
#define SIM_RNG_NODATA_WAIT_US	10

#define ST_COUNT	0x1f
#define ST_ENABLED	BIT(6)
#define ST_NOISE1	BIT(8)
#define ST_NOISE2	BIT(9)
#define ST_DC_BIAS_SHIFT 10
#define ST_RAWBITS	BIT(13)
#define ST_STRFILT_EN	BIT(14)
#define ST_STRFILT_FAIL	BIT(15)

static const unsigned int chunk_bytes[4] = { 8, 4, 2, 1 };

static bool sim_rng_stall;
module_param_named(rng_stall, sim_rng_stall, bool, 0644);
MODULE_PARM_DESC(rng_stall, "RNG stalled: xstore stores nothing (count 0), rep xstore makes no progress and is re-executed until this is cleared");

static unsigned int sim_rng_delay;
module_param_named(rng_delay, sim_rng_delay, uint, 0644);
MODULE_PARM_DESC(rng_delay, "the next N executions of xstore / rep xstore find no data (each counts N down), then the RNG delivers again");

static unsigned long sim_rng_stall_spins;
module_param_named(rng_stall_spins, sim_rng_stall_spins, ulong, 0444);
MODULE_PARM_DESC(rng_stall_spins, "rep xstore executions that made no progress because of rng_stall or rng_delay (read-only)");

/*
 * Bit 6 of the status word (docs/hardware.md 1.8).  On C3/C7 the status is
 * a copy of MSR 0x110B, whose bit 6 is the RNG enable.  Nano and Zhaoxin
 * have no such MSR, and no source says what their bit 6 holds (via-rng and
 * OpenSSL never look at it; libgcrypt requires it, but only records a
 * failure nobody sees).  rng_status_enable: -1 (default) per profile, set
 * on C3/C7 and clear on the others (the strictest reading: a driver that
 * requires it there refuses a working RNG); 1 always set; 0 never set,
 * which on C3/C7 means the enable did not take: the RNG is off.
 */
static int sim_rng_status_enable = -1;
module_param_named(rng_status_enable, sim_rng_status_enable, int, 0644);
MODULE_PARM_DESC(rng_status_enable, "status bit 6 (RNG enabled): -1 per profile (set on c3/c7, clear on nano/zhaoxin, default), 1 always, 0 never (c3/c7: RNG off)");

/* C3/C7: the status word mirrors MSR 0x110B */
static bool rng_status_is_msr(void)
{
	return sim_prof->family == 6 && sim_prof->model < 15;
}

/*
 * Is the RNG silent for this execution?  Takes one unit of rng_delay (a
 * cmpxchg loop: the knob is counted down from every CPU at once).
 */
static bool rng_silent(void)
{
	unsigned int v, old;

	if (READ_ONCE(sim_rng_stall))
		return true;
	v = READ_ONCE(sim_rng_delay);
	while (v) {
		old = cmpxchg(&sim_rng_delay, v, v - 1);
		if (old == v)
			return true;
		v = old;
	}
	return false;
}

/*
 * The status word the RNG reports, without the byte count; *off when the
 * RNG is disabled (nothing stored).
 */
static u32 rng_status(bool *faulty, bool *off)
{
	int report = READ_ONCE(sim_rng_status_enable);
	u32 st = ST_ENABLED | ST_NOISE1 | ST_NOISE2;

	*faulty = false;
	*off = sim_rng_disabled || (READ_ONCE(sim_units_disabled) & SIM_HAS_RNG) ||
	       (rng_status_is_msr() && !report);
	if (report < 0)
		report = rng_status_is_msr();
	if (sim_rng_rawbits) {
		st |= ST_RAWBITS;
		*faulty = true;
	}
	if (sim_rng_dc_bias & 7) {
		st |= (sim_rng_dc_bias & 7) << ST_DC_BIAS_SHIFT;
		*faulty = true;
	}
	if (sim_rng_strfilt_fail) {
		st |= ST_STRFILT_EN | ST_STRFILT_FAIL;
		*faulty = true;
	}
	if (*off)
		*faulty = true;
	if (*off || !report)
		st &= ~ST_ENABLED;
	return st;
}

/* Random bytes; with raw bits on they are visibly biased (P(1) = 1/4). */
static void rng_fill(u8 *buf, unsigned int len)
{
	unsigned int i;

	get_random_bytes(buf, len);
	if (sim_rng_rawbits)
		for (i = 0; i < len; i++)
			buf[i] &= (u8)sim_rand64();
}

static enum sim_result rep_xstore(struct pt_regs *regs, u32 st, bool faulty,
				  bool off)
{
	unsigned long di = regs->di, cx = regs->cx, done = 0, todo;
	unsigned int sel = regs->dx & 3;
	long stop, dry = -1;
	u8 buf[64];

	if (faulty)
		sim_count(SC_RNG_FAULTS, 1);
	if (off) {
		regs->ax = st;
		return SIM_DONE;
	}
	if (cx && rng_silent()) {
		/*
		 * Stalled: not one byte; the instruction is re-executed, and
		 * the CPU stays in it until the RNG delivers again.
		 */
		sim_count(SC_RNG_NODATA, 1);
		WRITE_ONCE(sim_rng_stall_spins, sim_rng_stall_spins + 1);
		regs->ax = st;
		udelay(SIM_RNG_NODATA_WAIT_US);
		return SIM_INTERRUPTED;
	}
	stop = sim_interrupt_point(cx);
	/*
	 * The RNG runs dry after a random number of bytes.  At most 999 per
	 * mille: this knob models a slow RNG that always comes back; a dead
	 * one, which keeps the CPU in the instruction, is rng_stall's.
	 */
	if (!faulty && cx && sim_rng_nodata_rate &&
	    (u32)sim_rand64() % 1000 < min(sim_rng_nodata_rate, 999U)) {
		dry = (unsigned long)sim_rand64() % cx;
		if (stop < 0 || dry < stop)
			stop = dry;
		else
			dry = -1;
	}
	todo = stop < 0 ? cx : stop;
	while (done < todo) {
		unsigned int n = min_t(unsigned long, sizeof(buf), todo - done);

		rng_fill(buf, n);
		if (!sim_write(di + done, buf, n)) {
			sim_fault(regs, "rep xstore: destination at %lx not writable",
				  di + done);
			return SIM_FAULT;
		}
		done += n;
	}
	memzero_explicit(buf, sizeof(buf));
	sim_count(SC_RNG_BYTES, done);
	regs->di = di + done;
	regs->cx = cx - done;
	/* the count of the last store: none when rCX was 0 */
	regs->ax = st | (done ? chunk_bytes[sel] : 0);
	if (dry >= 0) {
		/* waiting for the RNG; the last store found nothing */
		sim_count(SC_RNG_NODATA, 1);
		regs->ax = st;
		udelay(SIM_RNG_NODATA_WAIT_US);
	}
	return done < cx ? SIM_INTERRUPTED : SIM_DONE;
}

enum sim_result sim_xstore(struct pt_regs *regs, bool rep)
{
	unsigned int sel = regs->dx & 3, n = chunk_bytes[sel];
	unsigned int store = sel ? 4 : 8;
	bool faulty, off;
	u32 st = rng_status(&faulty, &off);
	u8 buf[8] = { 0 };

	if (rep)
		return rep_xstore(regs, st, faulty, off);

	if (!faulty && sim_rng_nodata_rate &&
	    (u32)sim_rand64() % 1000 < sim_rng_nodata_rate) {
		/* no data yet: count 0, nothing stored */
		sim_count(SC_RNG_FAULTS, 1);
		sim_count(SC_RNG_NODATA, 1);
		regs->ax = st;
		return SIM_DONE;
	}
	if (faulty)
		sim_count(SC_RNG_FAULTS, 1);
	if (off) {
		regs->ax = st;
		return SIM_DONE;
	}
	if (rng_silent()) {
		/* stalled: returns at once, count 0, nothing stored */
		sim_count(SC_RNG_NODATA, 1);
		regs->ax = st;
		return SIM_DONE;
	}
	rng_fill(buf, n);
	if (!sim_write(regs->di, buf, store)) {
		sim_fault(regs, "xstore: destination at %lx not writable",
			  regs->di);
		return SIM_FAULT;
	}
	memzero_explicit(buf, sizeof(buf));
	sim_count(SC_RNG_BYTES, n);
	regs->di += store;
	regs->ax = st | n;
	return SIM_DONE;
}
