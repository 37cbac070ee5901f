// SPDX-License-Identifier: GPL-2.0
/*
 * padlock-sim: seeing key reloads that do not sit right before an xcrypt.
 *
 * The engine reloads its key when EFLAGS bit 30 is clear, which "pushf;
 * popf" achieves wherever it runs before the xcrypt (docs/hardware.md 1.5).  The
 * simulator sees the two bytes right before a trapping xcrypt, but code
 * that issues its reload in an asm statement of its own (the kernel's
 * in-tree padlock_aes) has other instructions, or a branch, in between.
 * For the modules named in popf_watch, every "pushf; popf" pair in their
 * text that is not directly followed by an xcrypt gets a kprobe; when one
 * runs, this CPU's next xcrypt reloads.  Only pairs the kernel accepts as
 * an instruction boundary are probed.
 *
 * A task preempted between its popf and its xcrypt resumes with an iret,
 * which clears bit 30 on whatever CPU it then runs: so a watched popf also
 * marks the task (by pid and start time), and that task's next xcrypt
 * reloads wherever it runs.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/slab.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <linux/sched.h>
#include <linux/hash.h>
#include "sim.h"

DEFINE_PER_CPU(bool, sim_popf_seen);

/*
 * Tasks with a watched popf since their last xcrypt: a small table by pid,
 * without a lock.  Its writer is the kprobe's int3 handler and its reader
 * the invalid-opcode trap, both in exception context, where lockdep counts
 * a lock as taken in NMI context and a lock held when the breakpoint hits
 * could never be released: so each slot is one word, set with a plain store
 * and consumed with cmpxchg.  A slot holds a tag of (pid, start time); two
 * tasks whose tags collide in a slot only lose or share a mark, which makes
 * the key-cache model more lenient for that one xcrypt, never stricter.
 */
#define SIM_POPF_TASKS		64
static unsigned long sim_popf_tasks[SIM_POPF_TASKS];

static unsigned long sim_popf_tag(void)
{
	u64 t = (u64)current->pid << 32 ^ current->start_time;

	return (unsigned long)hash_64(t, BITS_PER_LONG) | 1;
}

static unsigned long *sim_popf_slot(void)
{
	return &sim_popf_tasks[(unsigned int)current->pid % SIM_POPF_TASKS];
}

/* The trap handler: consume current's mark. */
bool sim_popf_task_take(void)
{
	unsigned long tag = sim_popf_tag(), *slot = sim_popf_slot();

	return READ_ONCE(*slot) == tag && cmpxchg(slot, tag, 0) == tag;
}

static char *popf_watch = "padlock_aes";
module_param(popf_watch, charp, 0444);
MODULE_PARM_DESC(popf_watch,
		 "comma-separated modules whose separate pushf;popf key reloads are watched (default padlock_aes)");

#define SIM_POPF_MAX_PROBES	256

struct sim_popf_probe {
	struct kprobe kp;
	struct module *mod;
	struct list_head node;
};

static LIST_HEAD(sim_popf_probes);
static DEFINE_MUTEX(sim_popf_lock);

static int sim_popf_pre(struct kprobe *p, struct pt_regs *regs)
{
	this_cpu_write(sim_popf_seen, true);
	WRITE_ONCE(*sim_popf_slot(), sim_popf_tag());
	sim_count(SC_POPF_SEEN, 1);
	return 0;
}

static bool sim_popf_watched(const char *name)
{
	const char *w = popf_watch;
	size_t n = strlen(name);

	while (w && *w) {
		if (!strncmp(w, name, n) && (w[n] == ',' || !w[n]))
			return true;
		w = strchr(w, ',');
		if (w)
			w++;
	}
	return false;
}

static void sim_popf_watch(struct module *mod)
{
	unsigned long base, size, p;
	struct sim_popf_probe *sp;
	unsigned int n = 0;
	const u8 *b;

	base = SIM_MODULE_TEXT_BASE(mod);
	size = SIM_MODULE_TEXT_SIZE(mod);
	for (p = base; p + 2 <= base + size && n < SIM_POPF_MAX_PROBES; p++) {
		b = (const u8 *)p;
		if (b[0] != 0x9c || b[1] != 0x9d)
			continue;
		/* directly followed by F3 0F A7: the xcrypt sees it anyway */
		if (p + 5 <= base + size && b[2] == 0xf3 && b[3] == 0x0f &&
		    b[4] == 0xa7)
			continue;
		sp = kzalloc(sizeof(*sp), GFP_KERNEL);
		if (!sp)
			break;
		sp->kp.addr = (kprobe_opcode_t *)p;
		sp->kp.pre_handler = sim_popf_pre;
		sp->mod = mod;
		if (register_kprobe(&sp->kp)) {
			kfree(sp);	/* not an instruction boundary */
			continue;
		}
		list_add(&sp->node, &sim_popf_probes);
		n++;
	}
	if (n)
		pr_info("watching %u separate pushf;popf key reloads in %s\n",
			n, mod->name);
}

static void sim_popf_unwatch(struct module *mod)
{
	struct sim_popf_probe *sp, *tmp;

	list_for_each_entry_safe(sp, tmp, &sim_popf_probes, node) {
		if (mod && sp->mod != mod)
			continue;
		unregister_kprobe(&sp->kp);
		list_del(&sp->node);
		kfree(sp);
	}
}

static int sim_popf_notify(struct notifier_block *nb, unsigned long state,
			   void *data)
{
	struct module *mod = data;

	if (!sim_popf_watched(mod->name))
		return NOTIFY_DONE;
	mutex_lock(&sim_popf_lock);
	if (state == MODULE_STATE_COMING)
		sim_popf_watch(mod);
	else if (state == MODULE_STATE_GOING)
		sim_popf_unwatch(mod);
	mutex_unlock(&sim_popf_lock);
	return NOTIFY_DONE;
}

static struct notifier_block sim_popf_nb = {
	.notifier_call = sim_popf_notify,
};

int sim_popf_init(void)
{
	return register_module_notifier(&sim_popf_nb);
}

void sim_popf_exit(void)
{
	unregister_module_notifier(&sim_popf_nb);
	mutex_lock(&sim_popf_lock);
	sim_popf_unwatch(NULL);
	mutex_unlock(&sim_popf_lock);
}
