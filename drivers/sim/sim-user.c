// SPDX-License-Identifier: GPL-2.0
/*
 * padlock-sim: PadLock instructions raised in user mode, and the PadLock
 * CPUID leaves for user space.
 *
 * User mode.  The die notifier executes a user-mode PadLock instruction on
 * the user's memory, on the same per-CPU engine as the kernel's (silicon has
 * one engine per CPU).  While it does, sim_read()/sim_write() access user
 * addresses (sim_user_trap is set on this CPU).  The notifier runs with
 * interrupts off and cannot sleep, so it cannot fault pages in: before
 * executing, it checks that every page the instruction will read or write is
 * present (and writable where it writes).  If one is not, the instruction is
 * not executed at all (nothing written, registers untouched); a task_work
 * faults that page in when the task returns to user space, and the
 * instruction then raises its trap again: the same thing silicon does with a
 * page fault.  A page that cannot be faulted in (unmapped, wrong
 * protection) gets SIGSEGV, as the page fault would.  Violations of the
 * PadLock rules leave the instruction as an invalid opcode: SIGILL.
 *
 * CPUID.  OpenSSL's padlock engine (and other user-space code) reads CPUID
 * leaf 0xC0000001 itself, and QEMU's software CPU hides the PadLock bits.
 * There is no CPUID faulting under QEMU's TCG (MSR 0xce bit 31 reads 0, MSR
 * 0x140 does not keep bit 0), so a user-mode CPUID cannot be trapped in
 * general.  Instead a test registers, through debugfs user_cpuid, the code
 * locations right after a CPUID instruction together with the leaf that
 * CPUID was asked for ("PATH OFFSET LEAF"): a uprobe there replaces the
 * result with the simulated profile's leaf.  Only 0xC0000000 and
 * 0xC0000001 are replaced; the probes go when the simulator unloads.
 *
 * Key reloads.  User code such as OpenSSL's engine clears EFLAGS bit 30
 * with a "pushf; popf" that is not right before its xcrypt (docs/hardware.md 1.5).
 * Through debugfs user_popf ("PATH OFFSET" of the instruction right after
 * such a pair; a uprobe on pushf itself would leak the single-step flag
 * into the popf) a uprobe marks this CPU's engine for a reload, as
 * sim-popf.c does for kernel modules.
 */
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/task_work.h>
#include <linux/uaccess.h>
#include <linux/uprobes.h>
#include <linux/namei.h>
#include <linux/fs.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/mutex.h>
#include <linux/delay.h>
#include <linux/err.h>
#include "sim.h"

DEFINE_PER_CPU(bool, sim_user_trap);

/* ---- pages present before a user-mode instruction runs ----------------- */

/* Larger operands are not checked beforehand (a fault is then a violation). */
#define SIM_USER_CHECK_MAX	(64UL << 20)

/* Control word bits this file needs (docs/hardware.md 1.3). */
#define CW_KEYGEN	0x080
#define CW_DECRYPT	0x200

struct sim_range {
	unsigned long addr, len;
	bool write;
};

struct sim_fault_work {
	struct callback_head cb;
	unsigned long addr;
	bool write;
};

static atomic_t sim_fault_works = ATOMIC_INIT(0);

static void sim_user_fault_in(struct callback_head *cb)
{
	struct sim_fault_work *w = container_of(cb, struct sim_fault_work, cb);
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	int err = -EFAULT, code;

	if (mm && !(current->flags & PF_EXITING)) {
		mmap_read_lock(mm);
		err = fixup_user_fault(mm, w->addr,
				       w->write ? FAULT_FLAG_WRITE : 0, NULL);
		vma = err ? find_vma(mm, w->addr) : NULL;
		code = vma && vma->vm_start <= w->addr ? SEGV_ACCERR :
			SEGV_MAPERR;
		mmap_read_unlock(mm);
		/*
		 * The page fault silicon takes could not be resolved either:
		 * SIGSEGV with the address of the first byte the instruction
		 * could not access, as the page fault reports it (modules
		 * have send_sig_info(), not force_sig_fault()).
		 */
		if (err) {
			kernel_siginfo_t info;

			clear_siginfo(&info);
			info.si_signo = SIGSEGV;
			info.si_code = code;
			info.si_addr = (void __user *)w->addr;
			send_sig_info(SIGSEGV, &info, current);
		}
	}
	kfree(w);
	atomic_dec(&sim_fault_works);
}

/*
 * Is every page of r present (and writable for a write)?  A write is
 * checked by storing back the byte just read: the instruction writes the
 * whole range anyway.
 */
static bool sim_range_present(const struct sim_range *r, unsigned long *bad)
{
	unsigned long a = r->addr, last = r->addr + r->len - 1;
	u8 b;

	if (!r->len || r->len > SIM_USER_CHECK_MAX || last < r->addr)
		return true;
	for (;;) {
		if (copy_from_user_nofault(&b, (const void __user *)a, 1) ||
		    (r->write &&
		     copy_to_user_nofault((void __user *)a, &b, 1))) {
			*bad = a;
			return false;
		}
		if ((a & PAGE_MASK) == (last & PAGE_MASK))
			return true;
		a = (a & PAGE_MASK) + PAGE_SIZE;
	}
}

/*
 * True when all of r[] is present.  Otherwise queue the fault-in of the
 * first missing page for the return to user space and return false: the
 * caller leaves the instruction to be executed again.
 */
static bool sim_ranges_present(const struct sim_range *r, unsigned int n)
{
	struct sim_fault_work *w;
	unsigned long bad;
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!sim_range_present(&r[i], &bad))
			break;
	if (i == n)
		return true;
	w = kmalloc(sizeof(*w), GFP_ATOMIC);
	if (!w)
		return false;	/* it traps again and retries */
	w->addr = bad;
	w->write = r[i].write;
	init_task_work(&w->cb, sim_user_fault_in);
	atomic_inc(&sim_fault_works);
	if (task_work_add(current, &w->cb, TWA_RESUME)) {
		atomic_dec(&sim_fault_works);
		kfree(w);
	}
	return false;
}

static bool sim_user_ready_xcrypt(struct pt_regs *regs,
				  enum sim_xcrypt_mode mode)
{
	unsigned long blocks = regs->cx;
	struct sim_range r[5] = {
		{ regs->dx, 16, false },
	};
	unsigned int n = 1;
	u32 cw[4];
	bool dec;

	/* a misaligned operand is a violation, reported before any access */
	if ((regs->si | regs->di | regs->dx | regs->bx |
	     (mode != XM_ECB ? regs->ax : 0)) & 15)
		return true;
	if (!sim_ranges_present(r, 1))
		return false;
	if (copy_from_user_nofault(cw, (const void __user *)regs->dx,
				   sizeof(cw)))
		return true;	/* gone again: the simulator reports it */
	/* a refused control word too, before the data is touched */
	if (sim_xcrypt_cword_bad(cw, mode))
		return true;
	dec = cw[0] & CW_DECRYPT;
	r[n++] = (struct sim_range){ regs->bx, (cw[0] & CW_KEYGEN) ? 256 : 16,
				     false };
	/* CBC/CFB encryption leave rAX at the output, else it is rewritten */
	if (mode != XM_ECB)
		r[n++] = (struct sim_range){ regs->ax, 16,
			dec || (mode != XM_CBC && mode != XM_CFB) };
	if (blocks <= SIM_USER_CHECK_MAX / 16) {
		/* whole fetch groups are read (docs/hardware.md 2.2) */
		r[n++] = (struct sim_range){ regs->si,
			roundup(blocks, sim_xcrypt_fetch(mode)) * 16, false };
		r[n++] = (struct sim_range){ regs->di, blocks * 16, true };
	}
	return sim_ranges_present(r, n);
}

static bool sim_user_ready_xsha(struct pt_regs *regs, enum sim_xsha_alg alg)
{
	static const unsigned int state_bytes[] = {
		[XS_SHA1] = 20, [XS_SHA256] = 32, [XS_SHA384] = 64,
		[XS_SHA512] = 64,
	};
	unsigned int bs = alg >= XS_SHA384 ? 128 : 64;
	unsigned long ax = regs->ax, cx = regs->cx, in;
	bool block_mode = sim_xsha_block_mode(regs);
	struct sim_range r[2];

	/* a misaligned area is a violation, reported before any access */
	if (regs->di & 15)
		return true;
	if (block_mode)
		in = cx <= SIM_USER_CHECK_MAX / bs ? cx * bs : 0;
	else
		in = ax <= cx ? cx - ax : 0;
	/* rSI must be mapped even when there is nothing to hash */
	in = max(in, 1UL);
	r[0] = (struct sim_range){ regs->di,
		(sim_prof->features & SIM_ZX_SHA) ?
		max(32U, state_bytes[alg]) : 128, true };
	r[1] = (struct sim_range){ regs->si, in, false };
	return sim_ranges_present(r, 2);
}

static bool sim_user_ready_xstore(struct pt_regs *regs, bool rep)
{
	struct sim_range r = {
		regs->di, rep ? regs->cx : ((regs->dx & 3) ? 4 : 8), true
	};

	return sim_ranges_present(&r, 1);
}

bool sim_user_ready(struct pt_regs *regs, enum sim_unit unit,
		    unsigned int sub)
{
	switch (unit) {
	case SU_XCRYPT:
		return sim_user_ready_xcrypt(regs, sub);
	case SU_XSHA:
		return sim_user_ready_xsha(regs, sub);
	default:
		return sim_user_ready_xstore(regs, sub);
	}
}

/* ---- CPUID leaves 0xC0000000/0xC0000001 for user space ------------------ */

#ifdef PADLOCK_HAVE_UPROBE_NOSYNC
#define SIM_UPROBE_HANDLE	struct uprobe *
#else
#define SIM_UPROBE_HANDLE	int
#endif

/* A probed user location: after a CPUID (leaf), or a pushf; popf (leaf 0) */
struct sim_cpuid_site {
	struct list_head node;
	struct uprobe_consumer uc;
	SIM_UPROBE_HANDLE uprobe;
	struct path path;
	loff_t offset;
	u32 leaf;
	atomic_t hits;
};

#define SIM_SITE_POPF	0

static LIST_HEAD(sim_cpuid_sites);
static DEFINE_MUTEX(sim_cpuid_lock);

/* CPUID 0xC0000001 EDX: present/enabled pairs of the profile's units */
static u32 sim_cpuid_c0000001_edx(void)
{
	static const struct {
		u32 unit;
		unsigned int bit;
	} pairs[] = {
		{ SIM_HAS_RNG, 2 }, { SIM_HAS_ACE, 6 }, { SIM_HAS_ACE2, 8 },
		{ SIM_HAS_PHE, 10 }, { SIM_HAS_PHE2, 25 },
	};
	unsigned int i;
	u32 edx = 0;

	for (i = 0; i < ARRAY_SIZE(pairs); i++)
		if (sim_prof->features & pairs[i].unit)
			edx |= ((pairs[i].unit & READ_ONCE(sim_units_disabled)) ?
				1U : 3U) << pairs[i].bit;
	return edx;
}

static int sim_cpuid_hit(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	struct sim_cpuid_site *s = container_of(uc, struct sim_cpuid_site, uc);
	u8 insn[2];

	if (s->leaf == SIM_SITE_POPF) {
		/* after "pushf; popf": the next xcrypt on this CPU reloads */
		if (copy_from_user_nofault(insn,
					   (const void __user *)(regs->ip - 2),
					   2) || insn[0] != 0x9c || insn[1] != 0x9d)
			return 0;
		this_cpu_write(sim_popf_seen, true);
		sim_count(SC_POPF_SEEN, 1);
		atomic_inc(&s->hits);
		return 0;
	}
	/* only right after a CPUID instruction (0f a2) */
	if (copy_from_user_nofault(insn, (const void __user *)(regs->ip - 2),
				   2) || insn[0] != 0x0f || insn[1] != 0xa2)
		return 0;
	if (s->leaf == 0xc0000000) {
		if ((u32)regs->ax < 0xc0000001 || (u32)regs->ax > 0xc00000ff)
			regs->ax = 0xc0000001;
		regs->bx = 0;
		regs->cx = 0;
		regs->dx = 0;
	} else {
		regs->ax = 0;
		regs->bx = 0;
		regs->cx = 0;
		regs->dx = sim_cpuid_c0000001_edx();
	}
	atomic_inc(&s->hits);
	return 0;
}

#ifdef PADLOCK_HAVE_UPROBE_HANDLER_DATA
static int sim_cpuid_handler(struct uprobe_consumer *uc, struct pt_regs *regs,
			     __u64 *data)
{
	return sim_cpuid_hit(uc, regs);
}
#else
#define sim_cpuid_handler sim_cpuid_hit
#endif

static int sim_cpuid_register(struct sim_cpuid_site *s)
{
	struct inode *inode = d_real_inode(s->path.dentry);

	s->uc.handler = sim_cpuid_handler;
#ifdef PADLOCK_HAVE_UPROBE_NOSYNC
	s->uprobe = uprobe_register(inode, s->offset, 0, &s->uc);
	return PTR_ERR_OR_ZERO(s->uprobe);
#else
	return uprobe_register(inode, s->offset, &s->uc);
#endif
}

static void sim_cpuid_unregister(struct sim_cpuid_site *s)
{
#ifdef PADLOCK_HAVE_UPROBE_NOSYNC
	uprobe_unregister_nosync(s->uprobe, &s->uc);
#else
	uprobe_unregister(d_real_inode(s->path.dentry), s->offset, &s->uc);
#endif
}

/* Callers hold sim_cpuid_lock. */
static void sim_cpuid_clear(void)
{
	struct sim_cpuid_site *s, *t;

	if (list_empty(&sim_cpuid_sites))
		return;
	list_for_each_entry(s, &sim_cpuid_sites, node)
		sim_cpuid_unregister(s);
#ifdef PADLOCK_HAVE_UPROBE_NOSYNC
	uprobe_unregister_sync();
#endif
	list_for_each_entry_safe(s, t, &sim_cpuid_sites, node) {
		list_del(&s->node);
		path_put(&s->path);
		kfree(s);
	}
}

/* "PATH OFFSET LEAF" (user_cpuid) or "PATH OFFSET" (user_popf) */
static int sim_cpuid_add(char *line, bool popf)
{
	char *file = strsep(&line, " \t");
	char *off = strsep(&line, " \t");
	struct sim_cpuid_site *s;
	unsigned long long o;
	u32 leaf = SIM_SITE_POPF;
	int err;

	if (!file || !*file || !off || kstrtoull(off, 0, &o) || o > LLONG_MAX)
		return -EINVAL;
	if (popf ? line && *strim(line) :
	    !line || kstrtou32(strim(line), 0, &leaf) ||
	    (leaf != 0xc0000000 && leaf != 0xc0000001))
		return -EINVAL;
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	s->offset = o;
	s->leaf = leaf;
	err = kern_path(file, LOOKUP_FOLLOW, &s->path);
	if (err)
		goto out_free;
	err = -EINVAL;
	if (!d_is_reg(s->path.dentry))
		goto out_put;
	err = sim_cpuid_register(s);
	if (err)
		goto out_put;
	list_add_tail(&s->node, &sim_cpuid_sites);
	return 0;
out_put:
	path_put(&s->path);
out_free:
	kfree(s);
	return err;
}

static int user_cpuid_show(struct seq_file *m, void *v)
{
	struct sim_cpuid_site *s;

	mutex_lock(&sim_cpuid_lock);
	list_for_each_entry(s, &sim_cpuid_sites, node) {
		bool popf = s->leaf == SIM_SITE_POPF;

		if (popf == !!m->private)
			seq_printf(m, "%pd %#llx %#x hits %d\n",
				   s->path.dentry,
				   (unsigned long long)s->offset, s->leaf,
				   atomic_read(&s->hits));
	}
	mutex_unlock(&sim_cpuid_lock);
	return 0;
}

static int user_cpuid_open(struct inode *inode, struct file *file)
{
	return single_open(file, user_cpuid_show, inode->i_private);
}

/* A line adds a site; "clear" removes them all (CPUID and popf sites). */
static ssize_t user_cpuid_write(struct file *file, const char __user *buf,
				size_t len, loff_t *ppos)
{
	char *line;
	int err;

	if (len >= PATH_MAX + 64)
		return -EINVAL;
	line = memdup_user_nul(buf, len);
	if (IS_ERR(line))
		return PTR_ERR(line);
	mutex_lock(&sim_cpuid_lock);
	if (!strcmp(strim(line), "clear")) {
		sim_cpuid_clear();
		err = 0;
	} else {
		err = sim_cpuid_add(strim(line),
				    !!file_inode(file)->i_private);
	}
	mutex_unlock(&sim_cpuid_lock);
	kfree(line);
	return err ? err : len;
}

static const struct file_operations user_cpuid_fops = {
	.owner = THIS_MODULE,
	.open = user_cpuid_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = user_cpuid_write,
};

void sim_user_init(struct dentry *dir)
{
	debugfs_create_file("user_cpuid", 0600, dir, NULL, &user_cpuid_fops);
	debugfs_create_file("user_popf", 0600, dir, (void *)1L,
			    &user_cpuid_fops);
}

/* After the die notifier is gone: no new fault-in work can be queued. */
void sim_user_exit(void)
{
	mutex_lock(&sim_cpuid_lock);
	sim_cpuid_clear();
	mutex_unlock(&sim_cpuid_lock);
	while (atomic_read(&sim_fault_works))
		msleep(20);
}
