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
 * /sys/module/padlock_rng/parameters/failures.  Unwhitened output is never
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
 * A poll that finds no data ("no data yet", counted in .../parameters/
 * nodata, not a failure) is retried within a fixed budget per read:
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
 * 0x110B, on every CPU; the enable is verified from the status word of a
 * first XSTORE, which is a copy of that MSR, and again on every read.
 * Nano and Zhaoxin have no such MSR and report the RNG enabled in CPUID;
 * their status word's bit 6 is not relied on.
 */

#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/hw_random.h>
#include <linux/delay.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/kthread.h>
#include <linux/string.h>
#include <linux/cpuhotplug.h>
#include <asm/cpu_device_id.h>
#include <asm/msr.h>

#include "padlock-asm.h"
#include "padlock-cpu.h"

static unsigned short quality = 1;
module_param(quality, ushort, 0444);
MODULE_PARM_DESC(quality, "entropy credited per 1024 bits of output (default 1: mixed into the pool, next to no credit; 1..1024)");

static unsigned long failures;
module_param(failures, ulong, 0444);
MODULE_PARM_DESC(failures, "reads refused because the RNG status word was bad or the RNG delivered nothing within the retry budget (read-only)");

static unsigned long nodata;
module_param(nodata, ulong, 0444);
MODULE_PARM_DESC(nodata, "XSTOREs that found no data yet (byte count 0), retried within the budget (read-only)");

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

/*
 * One XSTORE into @raw (PADLOCK_RNG_STORE bytes + slack): returns at once, with
 * a byte count of 0 when the RNG has no data; a byte found is @raw[0].
 */
static u32 padlock_rng_poll(u8 *raw)
{
	return padlock_xstore(raw, PADLOCK_RNG_RATE);
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
		status = padlock_rng_poll(raw);
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
 */
static int padlock_rng_setup_msr(unsigned int cpu)
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

/* The hotplug state of padlock_rng_setup_msr() (C3/C7), or 0. */
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
	u32 status;
	int err;

	/* C3/C7: the driver enables the RNG itself, through the MSR */
	if (!x86_match_cpu(padlock_rng_ids) ||
	    (!old_via && !padlock_cpu_has_rng()))
		return padlock_cpu_refuse(X86_FEATURE_XSTORE, "RNG (xstore)");
	if (old_via) {
		err = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "crypto/padlock-rng:online",
					padlock_rng_setup_msr, NULL);
		if (err < 0) {
			pr_info("cannot configure the RNG through MSR 0x%x: not registering\n",
				PADLOCK_RNG_MSR);
			return -ENODEV;
		}
		padlock_rng_cpuhp = err;

		/*
		 * Here the status word is a copy of that MSR: check the
		 * enable (XSTORE returns it even when the RNG has no data).
		 */
		padlock_rng_status_enable = true;
		status = padlock_rng_poll(raw);
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
	hwrng_unregister(&padlock_rng);
	if (padlock_rng_cpuhp)
		cpuhp_remove_state_nocalls(padlock_rng_cpuhp);
}

module_init(padlock_rng_mod_init);
module_exit(padlock_rng_mod_exit);

MODULE_DESCRIPTION("VIA/Zhaoxin PadLock RNG (xstore) hwrng driver");
MODULE_LICENSE("GPL");
MODULE_VERSION(PADLOCK_VERSION);
