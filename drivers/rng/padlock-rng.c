// SPDX-License-Identifier: GPL-2.0
/*
 * padlock-rng: hwrng "padlock" on the VIA / Centaur / Zhaoxin PadLock RNG
 * (XSTORE, hardware.md 1.8 and 6).
 *
 * Every XSTORE goes to an on-stack buffer with 8 bytes of slack (the engine
 * may write up to 7 bytes past its store).  The status word it returns is
 * checked every time: RNG enabled (bit 6, C3/C7 only: see below), raw
 * bits off (bit 13, i.e. whitening on), DC bias zero (bits 12:10), string
 * filter not failed (bit 15), and the byte count of the store (bits 4:0)
 * as asked: 1 for rDX = 3.  A bad status returns no data at all (-EIO),
 * logs (rate-limited) and counts the failure in
 * /sys/kernel/debug/padlock-rng/failures.  Unwhitened output is never
 * handed out.
 *
 * Only plain XSTORE, never REP XSTORE: a stalled RNG must not hang a CPU
 * (docs/hardware.md 1.8: "a 'rep xstore' could potentially pause a cpu for an
 * unreasonably long time").  REP XSTORE stores rCX bytes and only then
 * completes; when the RNG has nothing, the CPU waits inside the
 * instruction, takes interrupts and resumes it, and nothing the driver can
 * do gets it out.  Checking with XSTORE first that data flows does not
 * help: a reader spends most of its time inside the REP XSTORE, waiting
 * for the RNG's bytes, so an RNG that dies at an arbitrary moment most
 * likely dies right there.  Plain
 * XSTORE returns at once, with a byte count of 0 when the RNG has no data
 * yet; at rDX = 3 it stores one random byte per instruction, as the
 * in-tree via-rng does.
 *
 * A poll that finds no data ("no data yet", counted in
 * /sys/kernel/debug/padlock-rng/nodata, not a failure) is retried within a fixed budget per read:
 * PADLOCK_RNG_SPINS retries PADLOCK_RNG_SPIN_US apart (a healthy RNG
 * refills within microseconds), then PADLOCK_RNG_NAPS retries after
 * sleeping PADLOCK_RNG_NAP_MS each, i.e. about 0.2 s (0.25 s with jiffy
 * rounding) plus scheduling delays.  A read that already has data returns it
 * (short) instead of sleeping; a read that may not wait (O_NONBLOCK, the
 * core's early randomness) or is interrupted returns what it has, maybe 0
 * bytes; one that spent the whole budget without a byte fails with -EIO,
 * counts as a failure and logs (rate-limited): the RNG has stalled.  The
 * sleeps end early for a signal, for kthread_stop() of the hw_random fill
 * thread and when the module is being removed, so rmmod waits for one nap
 * at most.
 *
 * The entropy credit (quality=, per mille of 1024) defaults to a token 1:
 * the data is mixed into the kernel's pool but hardly credited, because
 * the RNG cannot be audited (docs/rng.md).
 *
 * On C3/C7 (family 6, model < 0x0f) the RNG is configured through MSR
 * 0x110B, on every CPU as it comes online; the enable is verified from the
 * status word of a first XSTORE, which is a copy of that MSR, and again on
 * every read.  A CPU whose MSR cannot be set up keeps its RNG as it was and
 * is left out: no XSTORE is issued there, a read that runs there fails
 * with -EIO (a failure), and the CPU comes online all the same
 * (msr_failures in debugfs counts such set-ups).  Nano and Zhaoxin have no
 * such MSR and report the RNG enabled in CPUID; their status word's bit 6
 * is not relied on.
 */

#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/hw_random.h>
#include <linux/delay.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/kthread.h>
#include <linux/string.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <asm/cpu_device_id.h>
#include <asm/msr.h>

#include "padlock-asm.h"
#include "padlock-cpu.h"

static unsigned short quality = 1;
module_param(quality, ushort, 0444);
MODULE_PARM_DESC(quality, "entropy credited per 1024 bits of output (default 1: mixed into the pool, next to no credit; 1..1024)");

/*
 * Statistics, in /sys/kernel/debug/padlock-rng/ (not an ABI): reads
 * refused (a bad status word, nothing within the retry budget, or a CPU
 * whose RNG is left out); XSTOREs that found no data yet (byte count 0),
 * retried within the budget; C3/C7 CPUs whose MSR could not be set up as
 * they came online.  The hw_random core serializes reads.
 */
static unsigned long failures;
static unsigned long nodata;
static unsigned long msr_failures;
static struct dentry *padlock_rng_debugfs;

/* RNG status word / MSR 0x110B bits (docs/hardware.md 1.8). */
#define PADLOCK_RNG_MSR			0x110b
#define PADLOCK_RNG_ST_COUNT		0x0000001fU	/* bytes stored by the last store */
#define PADLOCK_RNG_ST_ENABLE		0x00000040U
#define PADLOCK_RNG_ST_NOISE1		0x00000100U
#define PADLOCK_RNG_ST_NOISE2		0x00000200U
#define PADLOCK_RNG_ST_BIAS		0x00001c00U	/* DC bias, must be 0 */
#define PADLOCK_RNG_ST_RAWBITS		0x00002000U	/* whitening off */
#define PADLOCK_RNG_ST_SF_ENABLE	0x00004000U
#define PADLOCK_RNG_ST_SF_FAIL		0x00008000U
#define PADLOCK_RNG_ST_SF_COUNT		0x007f0000U

/*
 * rDX for XSTORE: 3 = one random byte per store (in a 32-bit store), the
 * slowest, most conservative rate setting, as used by the in-tree via-rng
 * (XSTORE), OpenBSD and Zhaoxin's own REP XSTORE code.
 */
#define PADLOCK_RNG_RATE	3
#define PADLOCK_RNG_STORE_BYTES	1	/* status byte count with rDX = 3 */
#define PADLOCK_RNG_STORE	4	/* bytes written by one store */
#define PADLOCK_RNG_SLACK	8

/* Retry budget of one read that finds no data: see the top of the file. */
#define PADLOCK_RNG_SPINS	4
#define PADLOCK_RNG_SPIN_US	10
#define PADLOCK_RNG_NAPS	20
#define PADLOCK_RNG_NAP_MS	10

/* Set while the module is going away: readers stop waiting. */
static bool padlock_rng_dying;

/*
 * Whether the status word carries the RNG enable (bit 6): on C3/C7 it is a
 * copy of MSR 0x110B, and a clear bit 6 means the RNG is off.  Nano and
 * Zhaoxin have no such MSR; nothing public says what bit 6 of their status
 * word holds (via-rng and OpenSSL never look at it), and CPUID's enabled
 * bit says the RNG is on (docs/hardware.md 1.8).
 */
static bool padlock_rng_status_enable __read_mostly;

enum padlock_rng_result { PADLOCK_RNG_OK, PADLOCK_RNG_EMPTY, PADLOCK_RNG_BAD };

static enum padlock_rng_result padlock_rng_check(u32 status)
{
	u32 count = status & PADLOCK_RNG_ST_COUNT;

	if ((padlock_rng_status_enable && !(status & PADLOCK_RNG_ST_ENABLE)) ||
	    (status & (PADLOCK_RNG_ST_BIAS | PADLOCK_RNG_ST_RAWBITS | PADLOCK_RNG_ST_SF_FAIL)))
		return PADLOCK_RNG_BAD;
	/* count 0: the store found no data yet */
	if (!count)
		return PADLOCK_RNG_EMPTY;
	/* any other count than the chunk asked for is unexpected */
	return count == PADLOCK_RNG_STORE_BYTES ? PADLOCK_RNG_OK : PADLOCK_RNG_BAD;
}

/* C3/C7: the CPUs whose MSR could not be set up, where the RNG is left out */
static struct cpumask padlock_rng_cpus_off;

/*
 * One XSTORE into @raw (PADLOCK_RNG_STORE bytes + slack), on this CPU and
 * only where the RNG is not left out (false: nothing issued).  Returns at
 * once, with a byte count of 0 in *@status when the RNG has no data; a
 * byte found is @raw[0].
 */
static bool padlock_rng_poll(u8 *raw, u32 *status)
{
	bool on = !cpumask_test_cpu(get_cpu(), &padlock_rng_cpus_off);

	if (on)
		*status = padlock_xstore(raw, PADLOCK_RNG_RATE);
	put_cpu();
	return on;
}

/* Must a waiting reader stop waiting now? */
static bool padlock_rng_stop_waiting(void)
{
	return signal_pending(current) || READ_ONCE(padlock_rng_dying) ||
	       ((current->flags & PF_KTHREAD) && kthread_should_stop());
}

/* Wait before retry number @retry (1-based) of a poll that found no data. */
static void padlock_rng_nap(unsigned int retry)
{
	if (retry <= PADLOCK_RNG_SPINS)
		udelay(PADLOCK_RNG_SPIN_US);
	else
		schedule_timeout_interruptible(msecs_to_jiffies(PADLOCK_RNG_NAP_MS));
}

static int padlock_rng_read(struct hwrng *rng, void *data, size_t max,
			    bool wait)
{
	u8 raw[PADLOCK_RNG_STORE + PADLOCK_RNG_SLACK];
	unsigned int empty = 0;	/* polls in a row without data */
	size_t done = 0;
	u32 status;
	int ret;

	while (done < max) {
		if (!padlock_rng_poll(raw, &status)) {
			failures++;
			pr_warn_ratelimited("the RNG is left out on CPU %d (its MSR 0x%x could not be set up): no data from there\n",
					    raw_smp_processor_id(), PADLOCK_RNG_MSR);
			memzero_explicit(data, done);
			done = 0;
			ret = -EIO;
			goto wipe;
		}
		switch (padlock_rng_check(status)) {
		case PADLOCK_RNG_OK:
			((u8 *)data)[done++] = raw[0];
			empty = 0;
			continue;
		case PADLOCK_RNG_EMPTY:
			/*
			 * No data yet: poll again within the budget, but
			 * return what we have rather than sleep for more.
			 */
			nodata++;
			if (!wait || padlock_rng_stop_waiting())
				goto out;
			if (++empty > PADLOCK_RNG_SPINS && done)
				goto out;
			if (empty > PADLOCK_RNG_SPINS + PADLOCK_RNG_NAPS) {
				failures++;
				pr_warn_ratelimited("RNG delivered no data in %u polls over about %u ms (stalled?): read fails with EIO\n",
						    empty, PADLOCK_RNG_NAPS * PADLOCK_RNG_NAP_MS);
				ret = -EIO;
				goto wipe;
			}
			padlock_rng_nap(empty);
			continue;
		case PADLOCK_RNG_BAD:
			failures++;
			pr_warn_ratelimited("RNG status 0x%08x is bad (disabled, raw bits, DC bias, string filter failure or unexpected byte count): no data returned\n",
					    status);
			/* Nothing of this call leaves the driver. */
			memzero_explicit(data, done);
			done = 0;
			ret = -EIO;
			goto wipe;
		}
	}
out:
	ret = done;
wipe:
	memzero_explicit(raw, sizeof(raw));
	return ret;
}

static struct hwrng padlock_rng = {
	.name = "padlock",
	.read = padlock_rng_read,
};

/*
 * C3/C7: MSR 0x110B holds the RNG configuration of its CPU.  Enable the RNG
 * and its noise source(s), switch raw bits, the string filter and the DC
 * bias off.  Nehemiah from stepping 8 and Esther (model >= 10) have a
 * second noise source.  Run on every CPU as it comes online (and on those
 * online now), by the hotplug thread bound to that CPU, so the read and
 * the write reach the same CPU's MSR; a reader may run on any of them.
 * 0 or -ENODEV.  Out of line and without arguments, so that it keeps its
 * name: the tests make it fail through a kretprobe.
 */
static noinline int padlock_rng_setup_msr(void)
{
	struct cpuinfo_x86 *c = &boot_cpu_data;
	u32 lo, hi;

	if (rdmsr_safe(PADLOCK_RNG_MSR, &lo, &hi))
		return -ENODEV;
	lo &= ~(PADLOCK_RNG_ST_COUNT | PADLOCK_RNG_ST_BIAS | PADLOCK_RNG_ST_RAWBITS |
		PADLOCK_RNG_ST_SF_ENABLE | PADLOCK_RNG_ST_SF_FAIL | PADLOCK_RNG_ST_SF_COUNT);
	lo |= PADLOCK_RNG_ST_ENABLE | PADLOCK_RNG_ST_NOISE1;
	if (c->x86_model >= 10 || (c->x86_model == 9 && c->x86_stepping > 7))
		lo |= PADLOCK_RNG_ST_NOISE2;
	if (wrmsr_safe(PADLOCK_RNG_MSR, lo, hi))
		return -ENODEV;
	return 0;
}

/*
 * The hotplug callback: a CPU whose MSR cannot be set up still comes
 * online; its RNG is left as it was and out of use (padlock_rng_poll()).
 */
static int padlock_rng_cpu_online(unsigned int cpu)
{
	if (padlock_rng_setup_msr()) {
		cpumask_set_cpu(cpu, &padlock_rng_cpus_off);
		msr_failures++;
		pr_warn("CPU %u: cannot set up the RNG through MSR 0x%x: the RNG is not used on that CPU\n",
			cpu, PADLOCK_RNG_MSR);
	} else {
		cpumask_clear_cpu(cpu, &padlock_rng_cpus_off);
	}
	return 0;
}

/* The hotplug state of padlock_rng_cpu_online() (C3/C7), or 0. */
static int padlock_rng_cpuhp;

static const struct x86_cpu_id padlock_rng_ids[] = {
	X86_MATCH_FEATURE(X86_FEATURE_XSTORE, NULL),
	{}
};
MODULE_DEVICE_TABLE(x86cpu, padlock_rng_ids);

static int __init padlock_rng_mod_init(void)
{
	u8 raw[PADLOCK_RNG_STORE + PADLOCK_RNG_SLACK];
	bool old_via = padlock_cpu_is_via_c3_c7();
	bool off;
	u32 status;
	int err;

	/* C3/C7: the driver enables the RNG itself, through the MSR */
	if (!x86_match_cpu(padlock_rng_ids) ||
	    (!old_via && !padlock_cpu_has_rng()))
		return padlock_cpu_refuse(X86_FEATURE_XSTORE, "RNG (xstore)");
	if (old_via) {
		err = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "crypto/padlock-rng:online",
					padlock_rng_cpu_online, NULL);
		if (err < 0) {
			pr_info("cannot set up CPU hotplug for MSR 0x%x: %d, not registering\n",
				PADLOCK_RNG_MSR, err);
			return -ENODEV;
		}
		padlock_rng_cpuhp = err;
		cpus_read_lock();
		off = cpumask_subset(cpu_online_mask, &padlock_rng_cpus_off);
		cpus_read_unlock();
		if (off) {
			pr_info("cannot configure the RNG through MSR 0x%x on any CPU: not registering\n",
				PADLOCK_RNG_MSR);
			err = -ENODEV;
			goto out_cpuhp;
		}

		/*
		 * Here the status word is a copy of that MSR: check the
		 * enable (XSTORE returns it even when the RNG has no data),
		 * on this CPU unless its RNG is left out.
		 */
		padlock_rng_status_enable = true;
		status = PADLOCK_RNG_ST_ENABLE;
		padlock_rng_poll(raw, &status);
		memzero_explicit(raw, sizeof(raw));
		if (!(status & PADLOCK_RNG_ST_ENABLE)) {
			pr_info("RNG is not enabled (status 0x%08x): not registering\n",
				status);
			err = -ENODEV;
			goto out_cpuhp;
		}
	}

	padlock_rng.quality = clamp_t(unsigned short, quality, 1, 1024);
	err = hwrng_register(&padlock_rng);
	if (err) {
		pr_err("hwrng_register failed: %d\n", err);
		goto out_cpuhp;
	}
	pr_info("hwrng \"padlock\" registered (XSTORE, quality %u/1024)\n",
		padlock_rng.quality);
	padlock_rng_debugfs = debugfs_create_dir("padlock-rng", NULL);
	debugfs_create_ulong("failures", 0444, padlock_rng_debugfs, &failures);
	debugfs_create_ulong("nodata", 0444, padlock_rng_debugfs, &nodata);
	debugfs_create_ulong("msr_failures", 0444, padlock_rng_debugfs, &msr_failures);
	return 0;

out_cpuhp:
	if (padlock_rng_cpuhp)
		cpuhp_remove_state_nocalls(padlock_rng_cpuhp);
	return err;
}

static void __exit padlock_rng_mod_exit(void)
{
	/* readers waiting for a stalled RNG give up at their next poll */
	WRITE_ONCE(padlock_rng_dying, true);
	debugfs_remove_recursive(padlock_rng_debugfs);
	hwrng_unregister(&padlock_rng);
	if (padlock_rng_cpuhp)
		cpuhp_remove_state_nocalls(padlock_rng_cpuhp);
}

module_init(padlock_rng_mod_init);
module_exit(padlock_rng_mod_exit);

MODULE_DESCRIPTION("VIA/Zhaoxin PadLock RNG (xstore) hwrng driver");
MODULE_LICENSE("GPL");
MODULE_VERSION(PADLOCK_VERSION);
