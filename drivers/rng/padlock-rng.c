// SPDX-License-Identifier: GPL-2.0
/*
 * padlock-rng: hwrng "padlock" on the VIA / Centaur / Zhaoxin PadLock RNG
 * (REP XSTORE, facts 1.8 and 6).
 *
 * Every REP XSTORE asks for at most PL_RNG_CHUNK bytes (so the instruction
 * can never stall the CPU for long), into an on-stack buffer with 8 bytes
 * of slack (the engine may write up to 7 bytes past the count).  The status
 * word it returns (a copy of the RNG configuration/status MSR) is checked
 * every time: RNG enabled (bit 6), raw bits off (bit 13, i.e. whitening on),
 * DC bias zero (bits 12:10), string filter not failed (bit 15), and the
 * byte count of the last store (bits 4:0) as asked: 1 for rDX = 3.  A bad
 * status returns no data at all (-EIO), logs (rate-limited) and counts the
 * failure in /sys/module/padlock_rng/parameters/failures.  Unwhitened
 * output is never handed out.
 *
 * "No data yet" (facts 1.8, 6): a store that finds the RNG empty reports a
 * byte count of 0.  REP XSTORE itself waits for the RNG until rCX bytes are
 * stored (an interrupt in between resumes it), which is why rCX is capped
 * at PL_RNG_CHUNK: a slow RNG then delays one call by at most 64 bytes'
 * worth.  Should an instruction still end with a count of 0 or bytes left
 * over, its output is dropped, the event counted in .../parameters/nodata,
 * and the read retried at most PL_RNG_RETRIES times with a short sleep; a
 * read that already has data returns it (short) instead of waiting, and
 * one that has none after the retries returns 0 bytes (the hw_random core
 * asks again).  No-data events are not failures.
 *
 * The entropy credit (quality=, per mille of 1024) defaults to a token 1:
 * the data is mixed into the kernel's pool but hardly credited, because
 * the RNG cannot be audited (README: "Trusting the PadLock RNG").
 *
 * On C3/C7 (family 6, model < 0x0f) the RNG is configured through MSR
 * 0x110B; Nano and Zhaoxin have no such MSR and report the RNG enabled in
 * CPUID.  The enable is verified from the status word of a first XSTORE,
 * which is a copy of that MSR, not by reading the MSR back.
 */

#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/hw_random.h>
#include <linux/delay.h>
#include <linux/string.h>
#include <asm/cpu_device_id.h>
#include <asm/msr.h>

#include "padlock-asm.h"
#include "padlock-cpu.h"

static unsigned short quality = 1;
module_param(quality, ushort, 0444);
MODULE_PARM_DESC(quality, "entropy credited per 1024 bits of output (default 1: mixed into the pool, next to no credit; 1..1024)");

static unsigned long failures;
module_param(failures, ulong, 0444);
MODULE_PARM_DESC(failures, "reads refused because the RNG status word was bad (read-only)");

static unsigned long nodata;
module_param(nodata, ulong, 0444);
MODULE_PARM_DESC(nodata, "REP XSTOREs that ended without their data ('no data yet': byte count 0 or bytes left), dropped and retried (read-only)");

/* RNG status word / MSR 0x110B bits (facts 1.8). */
#define PL_RNG_MSR		0x110b
#define PL_RNG_ST_COUNT		0x0000001fU	/* bytes stored by the last store */
#define PL_RNG_ST_ENABLE	0x00000040U
#define PL_RNG_ST_NOISE1	0x00000100U
#define PL_RNG_ST_NOISE2	0x00000200U
#define PL_RNG_ST_BIAS		0x00001c00U	/* DC bias, must be 0 */
#define PL_RNG_ST_RAWBITS	0x00002000U	/* whitening off */
#define PL_RNG_ST_SF_ENABLE	0x00004000U
#define PL_RNG_ST_SF_FAIL	0x00008000U
#define PL_RNG_ST_SF_COUNT	0x007f0000U

/*
 * rDX for REP XSTORE: 3 = the slowest, most conservative rate setting, as
 * used by OpenBSD and Zhaoxin's own REP XSTORE code.
 */
#define PL_RNG_RATE		3
#define PL_RNG_STORE_BYTES	1	/* status byte count with rDX = 3 */
#define PL_RNG_CHUNK		64
#define PL_RNG_SLACK		8
#define PL_RNG_RETRIES		20

enum pl_rng_result { PL_RNG_OK, PL_RNG_SHORT, PL_RNG_BAD };

static enum pl_rng_result pl_rng_check(u32 status, unsigned long left)
{
	u32 count = status & PL_RNG_ST_COUNT;

	if (!(status & PL_RNG_ST_ENABLE) ||
	    (status & (PL_RNG_ST_BIAS | PL_RNG_ST_RAWBITS | PL_RNG_ST_SF_FAIL)))
		return PL_RNG_BAD;
	/* count 0: the last store found no data yet */
	if (left || !count)
		return PL_RNG_SHORT;
	/* any other count than the chunk asked for is unexpected */
	return count == PL_RNG_STORE_BYTES ? PL_RNG_OK : PL_RNG_BAD;
}

/* One REP XSTORE of @n (<= PL_RNG_CHUNK) bytes into @raw (with slack). */
static u32 pl_rng_store(u8 *raw, unsigned long n, unsigned long *left)
{
	return padlock_rep_xstore(raw, n, PL_RNG_RATE, left);
}

static int padlock_rng_read(struct hwrng *rng, void *data, size_t max,
			    bool wait)
{
	u8 raw[PL_RNG_CHUNK + PL_RNG_SLACK];
	unsigned int retries = 0;
	unsigned long left;
	size_t done = 0, n;
	u32 status;
	int ret;

	while (done < max) {
		n = min_t(size_t, max - done, PL_RNG_CHUNK);
		status = pl_rng_store(raw, n, &left);
		switch (pl_rng_check(status, left)) {
		case PL_RNG_OK:
			memcpy((u8 *)data + done, raw, n);
			done += n;
			continue;
		case PL_RNG_SHORT:
			/*
			 * No data yet: drop this chunk; return what we have,
			 * or wait a little, a bounded number of times.
			 */
			nodata++;
			if (done || !wait || ++retries > PL_RNG_RETRIES)
				goto out;
			usleep_range(10, 20);
			continue;
		case PL_RNG_BAD:
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
 * C3/C7: MSR 0x110B holds the RNG configuration.  Enable the RNG and its
 * noise source(s), switch raw bits, the string filter and the DC bias off.
 * Nehemiah from stepping 8 and Esther (model >= 10) have a second noise
 * source.
 */
static int pl_rng_setup_msr(void)
{
	struct cpuinfo_x86 *c = &boot_cpu_data;
	u32 lo, hi;

	if (rdmsr_safe(PL_RNG_MSR, &lo, &hi))
		goto fail;
	lo &= ~(PL_RNG_ST_COUNT | PL_RNG_ST_BIAS | PL_RNG_ST_RAWBITS |
		PL_RNG_ST_SF_ENABLE | PL_RNG_ST_SF_FAIL | PL_RNG_ST_SF_COUNT);
	lo |= PL_RNG_ST_ENABLE | PL_RNG_ST_NOISE1;
	if (c->x86_model >= 10 || (c->x86_model == 9 && c->x86_stepping > 7))
		lo |= PL_RNG_ST_NOISE2;
	if (wrmsr_safe(PL_RNG_MSR, lo, hi))
		goto fail;
	return 0;
fail:
	pr_info("cannot configure the RNG through MSR 0x%x: not registering\n",
		PL_RNG_MSR);
	return -ENODEV;
}

static const struct x86_cpu_id padlock_rng_ids[] = {
	X86_MATCH_FEATURE(X86_FEATURE_XSTORE, NULL),
	{}
};
MODULE_DEVICE_TABLE(x86cpu, padlock_rng_ids);

static int __init padlock_rng_init(void)
{
	struct cpuinfo_x86 *c = &boot_cpu_data;
	u8 raw[8 + PL_RNG_SLACK];
	bool old_via = c->x86 == 6 && c->x86_model < 0x0f;
	unsigned long left;
	u32 status;
	int err;

	if (!x86_match_cpu(padlock_rng_ids) ||
	    (!old_via && !padlock_cpu_has_rng())) {
		pr_info("no VIA/Zhaoxin PadLock RNG (xstore) unit on this CPU, or it is disabled\n");
		return -ENODEV;
	}
	if (old_via) {
		err = pl_rng_setup_msr();
		if (err)
			return err;
	}

	/* The status word is a copy of the RNG MSR: check the enable there. */
	status = pl_rng_store(raw, 8, &left);
	memzero_explicit(raw, sizeof(raw));
	if (!(status & PL_RNG_ST_ENABLE)) {
		pr_info("RNG is not enabled (status 0x%08x): not registering\n",
			status);
		return -ENODEV;
	}

	padlock_rng.quality = clamp_t(unsigned short, quality, 1, 1024);
	err = hwrng_register(&padlock_rng);
	if (err) {
		pr_err("hwrng_register failed: %d\n", err);
		return err;
	}
	pr_info("hwrng \"padlock\" registered (REP XSTORE, quality %u/1024)\n",
		padlock_rng.quality);
	return 0;
}

static void __exit padlock_rng_exit(void)
{
	hwrng_unregister(&padlock_rng);
}

module_init(padlock_rng_init);
module_exit(padlock_rng_exit);

MODULE_DESCRIPTION("VIA/Zhaoxin PadLock RNG (xstore) hwrng driver");
MODULE_LICENSE("GPL");
MODULE_VERSION(PADLOCK_VERSION);
