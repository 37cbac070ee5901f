// SPDX-License-Identifier: GPL-2.0
/*
 * padlock-sim: a simulated VIA / Centaur / Zhaoxin PadLock CPU, for tests.
 *
 * QEMU under software emulation has no PadLock unit.  This module makes the
 * booted (Centaur-branded) virtual CPU look like one: it sets the PadLock
 * CPUID capability bits of its profile and executes the PadLock
 * instructions in a die notifier when they raise an invalid-opcode trap, in
 * kernel or in user mode (sim-user.c).  The model follows docs/hardware.md and is strict:
 * anything the hardware would not accept (misaligned operands, reserved
 * control-word bits, over-reads into another page, modes the profile lacks)
 * is a counted and logged violation, and the instruction is then left to
 * the kernel as an invalid opcode.
 *
 * Never autoloaded (no device table, no aliases); never install it on real
 * hardware.
 */
#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/init.h>
#include <linux/kdebug.h>
#include <linux/notifier.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/random.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/ratelimit.h>
#include <asm/processor.h>
#include <asm/cpufeature.h>
#include <asm/traps.h>
#include <asm/trapnr.h>
#include <asm/tsc.h>
#include "sim.h"

/* ---- profiles ------------------------------------------------------------ */

/*
 * Family, model, stepping and vendor must match the CPU QEMU presents
 * (tools/testing/vm/profiles holds QEMU's -cpu option for each profile).
 */
static const struct sim_profile profiles[] = {
	{
		.name = "c3", .family = 6, .model = 9, .stepping = 8,
		.vendor = "CentaurHauls", .is_64bit = false,
		.features = SIM_HAS_RNG | SIM_HAS_ACE,
		.ecb_fetch = 2, .cbc_fetch = 1,
	}, {
		.name = "c7", .family = 6, .model = 10, .stepping = 9,
		.vendor = "CentaurHauls", .is_64bit = false,
		.features = SIM_HAS_RNG | SIM_HAS_ACE | SIM_HAS_PHE,
		.ecb_fetch = 2, .cbc_fetch = 1,
	}, {
		.name = "nano", .family = 6, .model = 15, .stepping = 3,
		.vendor = "CentaurHauls", .is_64bit = true,
		.features = SIM_HAS_RNG | SIM_HAS_ACE | SIM_HAS_ACE2 |
			    SIM_HAS_PHE | SIM_HAS_PHE_BLK,
		.ecb_fetch = 2, .cbc_fetch = 1,
	}, {
		.name = "nano-s2", .family = 6, .model = 15, .stepping = 2,
		.vendor = "CentaurHauls", .is_64bit = true,
		.features = SIM_HAS_RNG | SIM_HAS_ACE | SIM_HAS_ACE2 |
			    SIM_HAS_PHE | SIM_HAS_PHE_BLK,
		.ecb_fetch = 8, .cbc_fetch = 4,
	}, {
		/* KX-5000 (WuDaoKou) */
		.name = "zhaoxin", .family = 7, .model = 0x1b, .stepping = 0,
		.vendor = "CentaurHauls", .is_64bit = true,
		.features = SIM_HAS_RNG | SIM_HAS_ACE | SIM_HAS_ACE2 |
			    SIM_HAS_PHE | SIM_HAS_PHE_BLK | SIM_HAS_PHE2 |
			    SIM_ZX_SHA,
		.ecb_fetch = 2, .cbc_fetch = 1,
	}, {
		/* KX-6000 (LuJiaZui) with Zhaoxin's own vendor string */
		.name = "zhaoxin-sh", .family = 7, .model = 0x3b, .stepping = 0,
		.vendor = "  Shanghai  ", .is_64bit = true,
		.features = SIM_HAS_RNG | SIM_HAS_ACE | SIM_HAS_ACE2 |
			    SIM_HAS_PHE | SIM_HAS_PHE_BLK | SIM_HAS_PHE2 |
			    SIM_ZX_SHA,
		.ecb_fetch = 2, .cbc_fetch = 1,
	},
};

const struct sim_profile *sim_prof;

/* ---- parameters ---------------------------------------------------------- */

static char *profile = "nano";
module_param(profile, charp, 0444);
MODULE_PARM_DESC(profile, "CPU profile: c3, c7, nano, nano-s2, zhaoxin");

static bool force;
module_param(force, bool, 0444);
MODULE_PARM_DESC(force, "load even if the booted CPU does not match the profile");

static char *on_violation = "fault";
module_param(on_violation, charp, 0444);
MODULE_PARM_DESC(on_violation,
		 "fault: a violating instruction is not executed (invalid opcode, default); count: count and log it, then execute it anyway");
static bool exec_on_violation;
/* debugfs only: count every violation as expected (tests of known bugs) */
static bool expect_all;

unsigned int sim_interrupt_rate;
module_param_named(interrupt_rate, sim_interrupt_rate, uint, 0644);
MODULE_PARM_DESC(interrupt_rate,
		 "per mille of rep instructions stopped part-way as by an interrupt (0-999)");

unsigned int sim_clobber = SIM_CLOBBER_ECB_RAX | SIM_CLOBBER_SHA_REGS |
			   SIM_CLOBBER_SHA_SCRATCH | SIM_CLOBBER_XCRYPT_REGS;
module_param_named(clobber, sim_clobber, uint, 0644);
MODULE_PARM_DESC(clobber,
		 "scramble what the instructions leave undefined, bit mask: 1 rAX after xcrypt-ecb, 2 rAX/rCX/rSI after xsha, 4 xsha scratch area, 8 rBX after xcrypt-ctr/cfb/ofb and rAX after xcrypt-ctr (default 15)");

/*
 * Test-only deliberate fault, for proving that a test lane can fail (the
 * debug-kernel lane, tools/testing/debug): the next N xcrypt instructions flip one
 * bit of the first block they store.  Never set outside such a test.
 */
atomic_t sim_corrupt_xcrypt = ATOMIC_INIT(0);
atomic_t sim_corrupt_xsha = ATOMIC_INIT(0);

unsigned int sim_rng_nodata_rate;
module_param_named(rng_nodata_rate, sim_rng_nodata_rate, uint, 0644);
MODULE_PARM_DESC(rng_nodata_rate, "per mille of xstore returning no data (count 0), and of rep xstore running out of data part-way (it waits and resumes)");

bool sim_rng_rawbits;
module_param_named(rng_rawbits, sim_rng_rawbits, bool, 0644);
MODULE_PARM_DESC(rng_rawbits, "RNG reports raw bits (status bit 13) and returns biased data");

unsigned int sim_rng_dc_bias;
module_param_named(rng_dc_bias, sim_rng_dc_bias, uint, 0644);
MODULE_PARM_DESC(rng_dc_bias, "RNG DC bias field (status bits 12:10), 0-7");

bool sim_rng_strfilt_fail;
module_param_named(rng_strfilt_fail, sim_rng_strfilt_fail, bool, 0644);
MODULE_PARM_DESC(rng_strfilt_fail, "RNG string filter enabled and failed (status bits 14, 15)");

bool sim_rng_disabled;
module_param_named(rng_disabled, sim_rng_disabled, bool, 0644);
MODULE_PARM_DESC(rng_disabled, "RNG disabled (status bit 6 clear, nothing stored)");

/*
 * Units that are present but disabled, as firmware can leave them: CPUID
 * 0xC0000001 EDX has the unit's "present" bit without its "enabled" bit
 * (docs/hardware.md 3.1).  A SIM_HAS_* mask; changing it at run time
 * updates the capability bits.  A disabled ACE or PHE does not execute
 * (a violation, invalid opcode); a disabled RNG executes XSTORE with
 * status bit 6 clear and stores nothing, as rng_disabled.
 */
unsigned int sim_units_disabled;
static void sim_apply_enable_bits(void);

static int units_disabled_set(const char *val, const struct kernel_param *kp)
{
	unsigned int v;
	int err = kstrtouint(val, 0, &v);

	if (err)
		return err;
	WRITE_ONCE(sim_units_disabled, v);
	if (sim_prof)
		sim_apply_enable_bits();
	return 0;
}

static const struct kernel_param_ops units_disabled_ops = {
	.set = units_disabled_set,
	.get = param_get_uint,
};
module_param_cb(units_disabled, &units_disabled_ops, &sim_units_disabled, 0644);
MODULE_PARM_DESC(units_disabled,
		 "units present but disabled (CPUID present bit without enabled bit), mask: 1 rng, 2 ace, 4 ace2, 8 phe, 32 phe2");

/*
 * claim_sha_ni: the CPU claims SHA-NI (X86_FEATURE_SHA_NI), as some Zhaoxin
 * parts have it, so that a driver's choice for such a CPU can be seen
 * (load.sh: padlock-sha's priorities).  Only the capability bit: the
 * virtual CPU cannot execute SHA-NI, so nothing may use it while it is set
 * (a kernel SHA driver loaded then would register a SHA-NI path).  Set
 * only if the CPU did not have it already; cleared again on 0 and when
 * the simulator goes.
 */
static bool sim_claim_sha_ni, sim_sha_ni_ours;
static void sim_cap_bit(unsigned int bit, bool on);

static int claim_sha_ni_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int err = kstrtobool(val, &on);

	if (err)
		return err;
	if (on && !sim_sha_ni_ours && !boot_cpu_has(X86_FEATURE_SHA_NI)) {
		sim_cap_bit(X86_FEATURE_SHA_NI, true);
		sim_sha_ni_ours = true;
	} else if (!on && sim_sha_ni_ours) {
		sim_cap_bit(X86_FEATURE_SHA_NI, false);
		sim_sha_ni_ours = false;
	}
	sim_claim_sha_ni = on;
	return 0;
}

static const struct kernel_param_ops claim_sha_ni_ops = {
	.set = claim_sha_ni_set,
	.get = param_get_bool,
};
module_param_cb(claim_sha_ni, &claim_sha_ni_ops, &sim_claim_sha_ni, 0644);
MODULE_PARM_DESC(claim_sha_ni,
		 "the CPU claims SHA-NI (capability bit only: nothing may execute it meanwhile); 0 clears what this set");

/* ---- counters, random numbers -------------------------------------------- */

DEFINE_PER_CPU(struct sim_cpu_stats, sim_stats);
DEFINE_PER_CPU(bool, sim_expect_fault);
static DEFINE_PER_CPU(u64, sim_rng_state);

static const char * const counter_names[SC_NR] = {
	[SC_TRAPS] = "traps",
	[SC_XCRYPT_ECB] = "xcrypt_ecb",
	[SC_XCRYPT_CBC] = "xcrypt_cbc",
	[SC_XCRYPT_CTR] = "xcrypt_ctr",
	[SC_XCRYPT_CFB] = "xcrypt_cfb",
	[SC_XCRYPT_OFB] = "xcrypt_ofb",
	[SC_XSHA1] = "xsha1",
	[SC_XSHA256] = "xsha256",
	[SC_XSHA384] = "xsha384",
	[SC_XSHA512] = "xsha512",
	[SC_XSTORE] = "xstore",
	[SC_REP_XSTORE] = "rep_xstore",
	[SC_AES_BLOCKS] = "aes_blocks",
	[SC_CORRUPTED] = "corrupted_outputs",
	[SC_SHA_BYTES] = "sha_bytes",
	[SC_RNG_BYTES] = "rng_bytes",
	[SC_VIOLATIONS] = "violations",
	[SC_INTERRUPTS] = "interrupts",
	[SC_RNG_FAULTS] = "rng_faults_injected",
	[SC_VIOLATIONS_EXPECTED] = "violations_expected",
	[SC_RNG_NODATA] = "rng_nodata",
	[SC_KEY_LOADS] = "key_loads",
	[SC_KEY_CACHED] = "key_cached",
	[SC_KEY_STALE] = "key_stale",
	[SC_USER_TRAPS] = "user_traps",
	[SC_POPF_SEEN] = "popf_seen",
	[SC_USER_OVERREAD] = "user_overread",
	[SC_XSHA_DIRTY] = "xsha_dirty_area",
};

/* xorshift64*: cheap, per CPU, for interruption points and garbage */
u64 sim_rand64(void)
{
	u64 *s = this_cpu_ptr(&sim_rng_state);
	u64 x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dULL;
}

long sim_interrupt_point(unsigned long units)
{
	unsigned int rate = min(sim_interrupt_rate, 999U);

	if (!rate || !units)
		return -1;
	if ((u32)sim_rand64() % 1000 >= rate)
		return -1;
	sim_count(SC_INTERRUPTS, 1);
	return (long)((unsigned long)sim_rand64() % units);
}

/* ---- violations ---------------------------------------------------------- */

#define VLOG_ENTRIES	32
#define VLOG_LEN	192
static char vlog[VLOG_ENTRIES][VLOG_LEN];
static unsigned int vlog_next;
static DEFINE_RAW_SPINLOCK(vlog_lock);
static DEFINE_RATELIMIT_STATE(vlog_rs, 5 * HZ, 10);

static __printf(2, 0) void sim_vreport(struct pt_regs *regs, const char *fmt,
				       va_list ap)
{
	bool expected = this_cpu_read(sim_expect_fault) || READ_ONCE(expect_all);
	char msg[VLOG_LEN];
	unsigned long flags;

	vscnprintf(msg, sizeof(msg), fmt, ap);
	sim_count(expected ? SC_VIOLATIONS_EXPECTED : SC_VIOLATIONS, 1);
	raw_spin_lock_irqsave(&vlog_lock, flags);
	scnprintf(vlog[vlog_next], VLOG_LEN, "cpu%d %pS: %s%s",
		  smp_processor_id(), (void *)regs->ip, msg,
		  expected ? " (expected by the test)" : "");
	vlog_next = (vlog_next + 1) % VLOG_ENTRIES;
	raw_spin_unlock_irqrestore(&vlog_lock, flags);
	if (expected)
		pr_info_ratelimited("expected violation at %pS: %s\n",
				    (void *)regs->ip, msg);
	else if (__ratelimit(&vlog_rs))
		pr_err("VIOLATION at %pS: %s%s\n", (void *)regs->ip, msg,
		       exec_on_violation ? " (executed: on_violation=count)" : "");
}

bool sim_violation(struct pt_regs *regs, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sim_vreport(regs, fmt, ap);
	va_end(ap);
	return !exec_on_violation;
}

void sim_fault(struct pt_regs *regs, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sim_vreport(regs, fmt, ap);
	va_end(ap);
}

/*
 * For padlock-simtest: the next violations on this CPU are deliberate
 * (the test catches the invalid opcode with an exception-table fixup), so
 * count them as violations_expected instead of violations.
 */
void padlock_sim_expect_fault(bool on)
{
	this_cpu_write(sim_expect_fault, on);
}
EXPORT_SYMBOL_GPL(padlock_sim_expect_fault);

/* ---- decoding and execution ---------------------------------------------- */

enum sim_op {
	OP_NONE, OP_XSTORE, OP_REP_XSTORE,
	OP_ECB, OP_CBC, OP_CTR, OP_CFB, OP_OFB,
	OP_SHA1, OP_SHA256, OP_SHA384, OP_SHA512,
	OP_OTHER,	/* PadLock opcode space, not modelled */
	OP_NR
};

static const struct {
	const char *name;
	u32 needs;
	enum sim_counter counter;
} ops[] = {
	[OP_XSTORE] = { "xstore", SIM_HAS_RNG, SC_XSTORE },
	[OP_REP_XSTORE] = { "rep xstore", SIM_HAS_RNG, SC_REP_XSTORE },
	[OP_ECB] = { "rep xcrypt-ecb", SIM_HAS_ACE, SC_XCRYPT_ECB },
	[OP_CBC] = { "rep xcrypt-cbc", SIM_HAS_ACE, SC_XCRYPT_CBC },
	[OP_CTR] = { "rep xcrypt-ctr", SIM_HAS_ACE2, SC_XCRYPT_CTR },
	[OP_CFB] = { "rep xcrypt-cfb", SIM_HAS_ACE, SC_XCRYPT_CFB },
	[OP_OFB] = { "rep xcrypt-ofb", SIM_HAS_ACE, SC_XCRYPT_OFB },
	[OP_SHA1] = { "rep xsha1", SIM_HAS_PHE, SC_XSHA1 },
	[OP_SHA256] = { "rep xsha256", SIM_HAS_PHE, SC_XSHA256 },
	[OP_SHA384] = { "rep xsha384", SIM_HAS_PHE2, SC_XSHA384 },
	[OP_SHA512] = { "rep xsha512", SIM_HAS_PHE2, SC_XSHA512 },
};

static enum sim_op decode_modrm(u8 opc, u8 modrm)
{
	if (opc == 0xa7) {
		switch (modrm) {
		case 0xc0: return OP_REP_XSTORE;
		case 0xc8: return OP_ECB;
		case 0xd0: return OP_CBC;
		case 0xd8: return OP_CTR;
		case 0xe0: return OP_CFB;
		case 0xe8: return OP_OFB;
		}
	} else {
		switch (modrm) {
		case 0xc8: return OP_SHA1;
		case 0xd0: return OP_SHA256;
		case 0xd8: return OP_SHA384;
		case 0xe0: return OP_SHA512;
		}
	}
	return OP_OTHER;
}

static enum sim_result sim_execute(struct pt_regs *regs, enum sim_op op)
{
	switch (op) {
	case OP_XSTORE:
		return sim_xstore(regs, false);
	case OP_REP_XSTORE:
		return sim_xstore(regs, true);
	case OP_ECB:
		return sim_xcrypt(regs, XM_ECB);
	case OP_CBC:
		return sim_xcrypt(regs, XM_CBC);
	case OP_CTR:
		return sim_xcrypt(regs, XM_CTR);
	case OP_CFB:
		return sim_xcrypt(regs, XM_CFB);
	case OP_OFB:
		return sim_xcrypt(regs, XM_OFB);
	case OP_SHA1:
		return sim_xsha(regs, XS_SHA1);
	case OP_SHA256:
		return sim_xsha(regs, XS_SHA256);
	case OP_SHA384:
		return sim_xsha(regs, XS_SHA384);
	case OP_SHA512:
		return sim_xsha(regs, XS_SHA512);
	default:
		return SIM_FAULT;
	}
}

/* User mode: are the operand pages of op present (sim-user.c)? */
static bool sim_user_ready_op(struct pt_regs *regs, enum sim_op op)
{
	switch (op) {
	case OP_XSTORE:
	case OP_REP_XSTORE:
		return sim_user_ready(regs, SU_XSTORE, op == OP_REP_XSTORE);
	case OP_ECB:
		return sim_user_ready(regs, SU_XCRYPT, XM_ECB);
	case OP_CBC:
		return sim_user_ready(regs, SU_XCRYPT, XM_CBC);
	case OP_CTR:
		return sim_user_ready(regs, SU_XCRYPT, XM_CTR);
	case OP_CFB:
		return sim_user_ready(regs, SU_XCRYPT, XM_CFB);
	case OP_OFB:
		return sim_user_ready(regs, SU_XCRYPT, XM_OFB);
	case OP_SHA1:
		return sim_user_ready(regs, SU_XSHA, XS_SHA1);
	case OP_SHA256:
		return sim_user_ready(regs, SU_XSHA, XS_SHA256);
	case OP_SHA384:
		return sim_user_ready(regs, SU_XSHA, XS_SHA384);
	case OP_SHA512:
		return sim_user_ready(regs, SU_XSHA, XS_SHA512);
	default:
		return true;
	}
}

/*
 * One invalid-opcode trap, from kernel or user mode.  User mode works on
 * user memory with the same rules and the same per-CPU engine; a violation
 * leaves the trap to the kernel, which sends SIGILL (silicon: #UD/#GP).
 */
static int sim_trap(struct pt_regs *regs, bool user, enum sim_op *opp)
{
	enum sim_op op = OP_NONE;
	unsigned int len = 0;
	enum sim_result res;
	u8 b[4];

	if (!sim_read(b, regs->ip, 3))
		return NOTIFY_DONE;
	if (b[0] == 0x0f && b[1] == 0xa7 && b[2] == 0xc0) {
		op = OP_XSTORE;
		len = 3;
	} else if ((b[0] == 0xf3 || b[0] == 0xf2) && b[1] == 0x0f &&
		   (b[2] == 0xa6 || b[2] == 0xa7) &&
		   sim_read(&b[3], regs->ip + 3, 1)) {
		op = decode_modrm(b[2], b[3]);
		len = 4;
	}
	*opp = op;
	if (op == OP_NONE)
		return NOTIFY_DONE;

	sim_count(SC_TRAPS, 1);
	if (user)
		sim_count(SC_USER_TRAPS, 1);
	if (op == OP_OTHER) {
		sim_violation(regs,
			      "opcode %02x %02x %02x %02x is not modelled (left as invalid opcode)",
			      b[0], b[1], b[2], b[3]);
		return NOTIFY_DONE;
	}
	if (b[0] == 0xf2) {
		sim_violation(regs, "F2-prefixed %s is undefined",
			      ops[op].name);
		return NOTIFY_DONE;
	}
	if ((sim_prof->features & ops[op].needs) != ops[op].needs) {
		sim_violation(regs, "%s is not available on profile %s",
			      ops[op].name, sim_prof->name);
		return NOTIFY_DONE;
	}
	if (ops[op].needs & READ_ONCE(sim_units_disabled) & ~SIM_HAS_RNG) {
		sim_violation(regs, "%s: its unit is disabled (units_disabled)",
			      ops[op].name);
		return NOTIFY_DONE;
	}

	/* a page is not present: re-executed once it is faulted in */
	if (user && !sim_user_ready_op(regs, op))
		return NOTIFY_STOP;

	res = sim_execute(regs, op);
	switch (res) {
	case SIM_DONE:
		sim_count(ops[op].counter, 1);
		regs->ip += len;
		return NOTIFY_STOP;
	case SIM_INTERRUPTED:
		return NOTIFY_STOP;	/* the CPU re-executes it */
	default:
		return NOTIFY_DONE;	/* invalid opcode */
	}
}

/* ---- cost accounting ---------------------------------------------------- */

/*
 * What the simulator costs, so that a measurement of guest time can be
 * split into the simulator's share and the rest (the driver and kernel's
 * software path).  The guest TSC is read at entry and exit of the die
 * notifier; under QEMU's -icount shift=0 (tools/testing/vm/run --icount) it counts
 * executed guest instructions, so the figures are exact and repeatable.
 * Every trap of a PadLock opcode counts, interrupted and refused ones too:
 * each costs a trap.  What the notifier cannot see, the exception's entry
 * (up to notify_die()) and exit (iret), is measured by padlock-simtest's
 * calibrate file (padlock_sim_set_trap_overhead()) and shown as
 * trap_overhead_cycles.
 */
static const char * const cost_names[OP_NR] = {
	[OP_XSTORE] = "xstore", [OP_REP_XSTORE] = "rep-xstore",
	[OP_ECB] = "xcrypt-ecb", [OP_CBC] = "xcrypt-cbc",
	[OP_CTR] = "xcrypt-ctr", [OP_CFB] = "xcrypt-cfb",
	[OP_OFB] = "xcrypt-ofb", [OP_SHA1] = "xsha1",
	[OP_SHA256] = "xsha256", [OP_SHA384] = "xsha384",
	[OP_SHA512] = "xsha512", [OP_OTHER] = "other",
};

struct sim_cpu_cost {
	u64 count[OP_NR];
	u64 cycles[OP_NR];
};

static DEFINE_PER_CPU(struct sim_cpu_cost, sim_cost);
/* handler cycles of this CPU's latest trap (for the calibration) */
static DEFINE_PER_CPU(u64, sim_cost_last);
static u64 sim_trap_overhead;

static int sim_die_notify(struct notifier_block *nb, unsigned long val,
			  void *data)
{
	struct die_args *args = data;
	struct pt_regs *regs = args->regs;
	enum sim_op op = OP_NONE;
	struct sim_cpu_cost *cost;
	u64 t0, t;
	bool user;
	int ret;

	if (val != DIE_TRAP || args->trapnr != X86_TRAP_UD || !regs)
		return NOTIFY_DONE;
	t0 = rdtsc_ordered();
	user = user_mode(regs);
	if (!user) {
		ret = sim_trap(regs, false, &op);
	} else {
		/* interrupts are off: nothing else runs on this CPU meanwhile */
		this_cpu_write(sim_user_trap, true);
		ret = sim_trap(regs, true, &op);
		this_cpu_write(sim_user_trap, false);
	}
	if (op != OP_NONE) {
		t = rdtsc_ordered() - t0;
		cost = this_cpu_ptr(&sim_cost);
		cost->count[op]++;
		cost->cycles[op] += t;
		this_cpu_write(sim_cost_last, t);
	}
	return ret;
}

/*
 * The trap's entry and exit path (exception entry up to notify_die(), and
 * the iret) is not inside the handler's timed region.  padlock-simtest
 * measures it (its debugfs file "calibrate": the guest time of a kernel
 * XSTORE minus the handler cycles read back here) and stores the figure,
 * which the cost file shows as trap_overhead_cycles.  The simulator itself
 * executes no PadLock instruction.
 */
u64 padlock_sim_last_cost(void)
{
	return this_cpu_read(sim_cost_last);
}
EXPORT_SYMBOL_GPL(padlock_sim_last_cost);

void padlock_sim_set_trap_overhead(u64 cycles)
{
	WRITE_ONCE(sim_trap_overhead, cycles);
}
EXPORT_SYMBOL_GPL(padlock_sim_set_trap_overhead);

static struct notifier_block sim_die_nb = {
	.notifier_call = sim_die_notify,
	.priority = INT_MAX,	/* before anybody else looks at the trap */
};

/* ---- CPU capability bits ------------------------------------------------- */

#ifdef X86_FEATURE_PHE2
#define SIM_FEATURE_PHE2	X86_FEATURE_PHE2
#define SIM_FEATURE_PHE2_EN	X86_FEATURE_PHE2_EN
#else
/* CPUID 0xC0000001 EDX bits 25/26; no kernel of the matrix names them */
#define SIM_FEATURE_PHE2	(5 * 32 + 25)
#define SIM_FEATURE_PHE2_EN	(5 * 32 + 26)
#endif

static const struct {
	u32 unit;
	unsigned int bit;
	bool enable;	/* the "enabled" bit of the pair */
} cap_bits[] = {
	{ SIM_HAS_RNG, X86_FEATURE_XSTORE, false },
	{ SIM_HAS_RNG, X86_FEATURE_XSTORE_EN, true },
	{ SIM_HAS_ACE, X86_FEATURE_XCRYPT, false },
	{ SIM_HAS_ACE, X86_FEATURE_XCRYPT_EN, true },
	{ SIM_HAS_ACE2, X86_FEATURE_ACE2, false },
	{ SIM_HAS_ACE2, X86_FEATURE_ACE2_EN, true },
	{ SIM_HAS_PHE, X86_FEATURE_PHE, false },
	{ SIM_HAS_PHE, X86_FEATURE_PHE_EN, true },
	{ SIM_HAS_PHE2, SIM_FEATURE_PHE2, false },
	{ SIM_HAS_PHE2, SIM_FEATURE_PHE2_EN, true },
};

static DECLARE_BITMAP(caps_set, ARRAY_SIZE(cap_bits));

static unsigned long *cap_words(struct cpuinfo_x86 *c)
{
	return (unsigned long *)c->x86_capability;
}

static void sim_cap_bit(unsigned int bit, bool on)
{
	int cpu;

	if (on) {
		set_bit(bit, cap_words(&boot_cpu_data));
		for_each_online_cpu(cpu)
			set_bit(bit, cap_words(&cpu_data(cpu)));
	} else {
		clear_bit(bit, cap_words(&boot_cpu_data));
		for_each_possible_cpu(cpu)
			clear_bit(bit, cap_words(&cpu_data(cpu)));
	}
}

static bool sim_cap_wanted(unsigned int i)
{
	return !cap_bits[i].enable ||
	       !(cap_bits[i].unit & READ_ONCE(sim_units_disabled));
}

static void sim_set_caps(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cap_bits); i++) {
		if (!(sim_prof->features & cap_bits[i].unit))
			continue;
		if (test_bit(cap_bits[i].bit, cap_words(&boot_cpu_data)))
			continue;	/* not ours to clear later */
		__set_bit(i, caps_set);
		if (sim_cap_wanted(i))
			sim_cap_bit(cap_bits[i].bit, true);
	}
}

/* units_disabled changed: the enabled bits of our units follow it */
static void sim_apply_enable_bits(void)
{
	unsigned int i;

	for_each_set_bit(i, caps_set, ARRAY_SIZE(cap_bits))
		if (cap_bits[i].enable)
			sim_cap_bit(cap_bits[i].bit, sim_cap_wanted(i));
}

/*
 * A CPU coming online is identified again from the (virtual) CPU's own
 * CPUID, which lacks our units, and the kernel ANDs its capabilities into
 * boot_cpu_data: put ours back, on it and there (rng.sh takes a CPU off and
 * on).  Registered before any driver loads, so this runs before their
 * hotplug callbacks.
 */
static int sim_cpu_online(unsigned int cpu)
{
	unsigned int i;

	for_each_set_bit(i, caps_set, ARRAY_SIZE(cap_bits)) {
		if (!sim_cap_wanted(i))
			continue;
		set_bit(cap_bits[i].bit, cap_words(&boot_cpu_data));
		set_bit(cap_bits[i].bit, cap_words(&cpu_data(cpu)));
	}
	return 0;
}

static int sim_cpuhp;

static void sim_clear_caps(void)
{
	unsigned int i;

	for_each_set_bit(i, caps_set, ARRAY_SIZE(cap_bits))
		sim_cap_bit(cap_bits[i].bit, false);
}

static int sim_check_cpu(void)
{
	const struct cpuinfo_x86 *c = &boot_cpu_data;

	/*
	 * The vendor string decides the kernel's vendor (CentaurHauls:
	 * X86_VENDOR_CENTAUR, "  Shanghai  ": X86_VENDOR_ZHAOXIN), and with
	 * it which setup code filled capability word 5.
	 */
	if (!strncmp(c->x86_vendor_id, sim_prof->vendor,
		     sizeof(c->x86_vendor_id)) &&
	    c->x86 == sim_prof->family &&
	    c->x86_model == sim_prof->model &&
	    c->x86_stepping == sim_prof->stepping &&
	    IS_ENABLED(CONFIG_X86_64) == sim_prof->is_64bit)
		return 0;
	if (force)
		return 0;
	pr_err("profile %s needs vendor \"%s\" family %u model %u stepping %u and a %d-bit kernel (this CPU: vendor \"%s\" family %u model %u stepping %u, %d-bit kernel; tools/testing/vm/profiles has the QEMU -cpu option); force=1 overrides\n",
	       sim_prof->name, sim_prof->vendor, sim_prof->family,
	       sim_prof->model, sim_prof->stepping,
	       sim_prof->is_64bit ? 64 : 32,
	       c->x86_vendor_id, c->x86, c->x86_model, c->x86_stepping,
	       IS_ENABLED(CONFIG_X86_64) ? 64 : 32);
	return -EINVAL;
}

/* ---- debugfs ------------------------------------------------------------- */

static struct dentry *sim_dir;

/*
 * cost: one line per opcode class, "name count handler_cycles" summed over
 * the CPUs, then "trap_overhead_cycles N" (per trap, set by padlock-simtest).
 * The simulator's share of a run = sum(handler_cycles) + sum(count) * N.
 */
static int cost_show(struct seq_file *m, void *v)
{
	unsigned int op;
	int cpu;

	for (op = OP_XSTORE; op < OP_NR; op++) {
		u64 n = 0, c = 0;

		for_each_possible_cpu(cpu) {
			n += per_cpu(sim_cost, cpu).count[op];
			c += per_cpu(sim_cost, cpu).cycles[op];
		}
		seq_printf(m, "%s %llu %llu\n", cost_names[op], n, c);
	}
	seq_printf(m, "trap_overhead_cycles %llu\n", sim_trap_overhead);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cost);

static int counters_show(struct seq_file *m, void *v)
{
	long which = (long)m->private;	/* CPU number, or -1 for totals */
	unsigned int i;
	int cpu;

	for (i = 0; i < SC_NR; i++) {
		u64 sum = 0;

		if (which >= 0)
			sum = per_cpu(sim_stats, which).c[i];
		else
			for_each_possible_cpu(cpu)
				sum += per_cpu(sim_stats, cpu).c[i];
		seq_printf(m, "%s %llu\n", counter_names[i], sum);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(counters);

static int profile_show(struct seq_file *m, void *v)
{
	static const char * const units[] = {
		"rng", "ace", "ace2", "phe", "phe-block", "phe2", "zhaoxin-sha",
	};
	unsigned int i;

	seq_printf(m, "%s family %u model %u stepping %u %d-bit ecb_fetch %u cbc_fetch %u\n",
		   sim_prof->name, sim_prof->family, sim_prof->model,
		   sim_prof->stepping, sim_prof->is_64bit ? 64 : 32,
		   sim_prof->ecb_fetch, sim_prof->cbc_fetch);
	seq_puts(m, "units");
	for (i = 0; i < ARRAY_SIZE(units); i++)
		if (sim_prof->features & BIT(i))
			seq_printf(m, " %s", units[i]);
	seq_puts(m, "\n");
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(profile);

static int violations_log_show(struct seq_file *m, void *v)
{
	unsigned int i, n;
	unsigned long flags;
	char *copy;

	copy = kmalloc(sizeof(vlog), GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	raw_spin_lock_irqsave(&vlog_lock, flags);
	memcpy(copy, vlog, sizeof(vlog));
	n = vlog_next;
	raw_spin_unlock_irqrestore(&vlog_lock, flags);
	for (i = 0; i < VLOG_ENTRIES; i++) {
		const char *e = copy + ((n + i) % VLOG_ENTRIES) * VLOG_LEN;

		if (*e)
			seq_printf(m, "%s\n", e);
	}
	kfree(copy);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(violations_log);

static ssize_t reset_write(struct file *file, const char __user *buf,
			   size_t len, loff_t *ppos)
{
	unsigned long flags;
	int cpu;

	for_each_possible_cpu(cpu) {
		memset(per_cpu_ptr(&sim_stats, cpu), 0,
		       sizeof(struct sim_cpu_stats));
		memset(per_cpu_ptr(&sim_cost, cpu), 0,
		       sizeof(struct sim_cpu_cost));
	}
	raw_spin_lock_irqsave(&vlog_lock, flags);
	memset(vlog, 0, sizeof(vlog));
	vlog_next = 0;
	raw_spin_unlock_irqrestore(&vlog_lock, flags);
	return len;
}

static const struct file_operations reset_fops = {
	.owner = THIS_MODULE,
	.write = reset_write,
	.llseek = noop_llseek,
};

static void sim_debugfs_init(void)
{
	char name[16];
	int cpu;

	sim_dir = debugfs_create_dir("padlock-sim", NULL);
	debugfs_create_file("counters", 0444, sim_dir, (void *)-1L,
			    &counters_fops);
	for_each_possible_cpu(cpu) {
		struct dentry *d;

		snprintf(name, sizeof(name), "cpu%d", cpu);
		d = debugfs_create_dir(name, sim_dir);
		debugfs_create_file("counters", 0444, d, (void *)(long)cpu,
				    &counters_fops);
	}
	debugfs_create_file("reset", 0200, sim_dir, NULL, &reset_fops);
	debugfs_create_file("cost", 0444, sim_dir, NULL, &cost_fops);
	debugfs_create_file("profile", 0444, sim_dir, NULL, &profile_fops);
	debugfs_create_file("violations_log", 0444, sim_dir, NULL,
			    &violations_log_fops);
	debugfs_create_u32("interrupt_rate", 0644, sim_dir,
			   &sim_interrupt_rate);
	debugfs_create_u32("clobber", 0644, sim_dir, &sim_clobber);
	debugfs_create_bool("exec_on_violation", 0644, sim_dir,
			    &exec_on_violation);
	debugfs_create_bool("expect_violations", 0644, sim_dir, &expect_all);
	debugfs_create_u32("rng_nodata_rate", 0644, sim_dir,
			   &sim_rng_nodata_rate);
	debugfs_create_bool("rng_rawbits", 0644, sim_dir, &sim_rng_rawbits);
	debugfs_create_u32("rng_dc_bias", 0644, sim_dir, &sim_rng_dc_bias);
	debugfs_create_bool("rng_strfilt_fail", 0644, sim_dir,
			    &sim_rng_strfilt_fail);
	debugfs_create_bool("rng_disabled", 0644, sim_dir, &sim_rng_disabled);
	debugfs_create_atomic_t("fault_corrupt_xcrypt", 0600, sim_dir,
				&sim_corrupt_xcrypt);
	debugfs_create_atomic_t("fault_corrupt_xsha", 0600, sim_dir,
				&sim_corrupt_xsha);
}

/* ---- module -------------------------------------------------------------- */

static int __init padlock_sim_init(void)
{
	unsigned int i;
	int cpu, err;

	for (i = 0; i < ARRAY_SIZE(profiles); i++)
		if (!strcmp(profile, profiles[i].name))
			sim_prof = &profiles[i];
	if (!sim_prof) {
		pr_err("unknown profile '%s' (c3, c7, nano, nano-s2, zhaoxin, zhaoxin-sh)\n",
		       profile);
		return -EINVAL;
	}
	if (!strcmp(on_violation, "count")) {
		exec_on_violation = true;
	} else if (strcmp(on_violation, "fault")) {
		pr_err("on_violation must be 'fault' or 'count'\n");
		return -EINVAL;
	}
	err = sim_check_cpu();
	if (err)
		return err;

	for_each_possible_cpu(cpu)
		per_cpu(sim_rng_state, cpu) = get_random_u64() | 1;
	sim_aes_init_tables();

	err = register_die_notifier(&sim_die_nb);
	if (err)
		return err;
	err = sim_popf_init();
	if (err) {
		unregister_die_notifier(&sim_die_nb);
		return err;
	}
	for_each_possible_cpu(cpu) {
		memset(per_cpu_ptr(&sim_stats, cpu), 0,
		       sizeof(struct sim_cpu_stats));
		memset(per_cpu_ptr(&sim_cost, cpu), 0,
		       sizeof(struct sim_cpu_cost));
	}
	sim_set_caps();
	err = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "padlock-sim:online",
					sim_cpu_online, NULL);
	if (err < 0) {
		sim_clear_caps();
		sim_popf_exit();
		unregister_die_notifier(&sim_die_nb);
		return err;
	}
	sim_cpuhp = err;
	sim_debugfs_init();
	sim_user_init(sim_dir);
	pr_warn("SIMULATED PadLock CPU, profile %s: for tests only, not real hardware%s\n",
		sim_prof->name, force ? " (force=1: CPU check skipped)" : "");
	return 0;
}

static void __exit padlock_sim_exit(void)
{
	debugfs_remove_recursive(sim_dir);
	cpuhp_remove_state_nocalls(sim_cpuhp);
	if (sim_sha_ni_ours)
		sim_cap_bit(X86_FEATURE_SHA_NI, false);
	sim_clear_caps();
	unregister_die_notifier(&sim_die_nb);
	sim_popf_exit();
	sim_user_exit();
	pr_info("simulated PadLock CPU removed\n");
}

module_init(padlock_sim_init);
module_exit(padlock_sim_exit);

MODULE_DESCRIPTION("Simulated VIA/Zhaoxin PadLock CPU, for tests only");
MODULE_LICENSE("GPL");
