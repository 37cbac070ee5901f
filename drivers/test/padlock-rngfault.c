// SPDX-License-Identifier: GPL-2.0
/*
 * padlock-rngfault: a test helper for padlock-rng (not a driver; built only
 * with padlock-sim, never installed by DKMS).
 *
 * On a VIA C3/C7, padlock-rng sets up MSR 0x110B of every CPU as it comes
 * online (padlock_rng_setup_msr(), 0 or a negative errno).  Neither QEMU
 * nor padlock-sim can make that MSR fault, so this module makes the set-up
 * fail: a kretprobe on padlock_rng_setup_msr() replaces its return value by
 * -ENODEV on the CPUs of the list it was loaded with,
 *
 *   insmod padlock-rngfault.ko cpus=1
 *
 * and counts those in /sys/module/padlock_rngfault/parameters/hits.  The
 * MSR itself is set up all the same (the simulated CPU ignores it): what is
 * tested is what the driver does with a failed set-up (rng.sh).  Load it
 * after padlock-rng.
 */
#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/cpumask.h>
#include <linux/ptrace.h>
#include <linux/smp.h>

static char *cpus = "";
module_param(cpus, charp, 0444);
MODULE_PARM_DESC(cpus, "CPU list (as in cpulist) whose MSR set-up is made to fail");

static unsigned long hits;
module_param(hits, ulong, 0444);
MODULE_PARM_DESC(hits, "set-ups made to fail (read-only)");

static struct cpumask rf_cpus;

/* The hotplug callback runs bound to the CPU it sets up. */
static int rf_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (cpumask_test_cpu(raw_smp_processor_id(), &rf_cpus)) {
		regs_set_return_value(regs, -ENODEV);
		hits++;
	}
	return 0;
}

static struct kretprobe rf_probe = {
	.kp.symbol_name = "padlock_rng_setup_msr",
	.handler = rf_ret,
	.maxactive = 4,
};

static int __init rf_init(void)
{
	int err;

	err = cpulist_parse(cpus, &rf_cpus);
	if (err)
		return err;
	err = register_kretprobe(&rf_probe);
	if (err)
		pr_err("kretprobe on padlock_rng_setup_msr: %d (padlock-rng loaded?)\n", err);
	return err;
}

static void __exit rf_exit(void)
{
	unregister_kretprobe(&rf_probe);
}

module_init(rf_init);
module_exit(rf_exit);

MODULE_DESCRIPTION("padlock-rng test helper: MSR 0x110B set-up failures on chosen CPUs (tests only)");
MODULE_LICENSE("GPL");
