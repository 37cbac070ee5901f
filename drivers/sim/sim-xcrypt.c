// SPDX-License-Identifier: GPL-2.0
/*
 * padlock-sim: REP XCRYPT-ECB/CBC/CTR/CFB/OFB (docs/hardware.md 1.2-1.5, 2.1, 2.2).
 *
 * Registers: rSI input, rDI output, rCX blocks, rDX control word, rBX key
 * (raw with KEYGEN=0, schedule with KEYGEN=1), rAX IV / counter.
 *
 * The key cache (docs/hardware.md 1.5), modelled strictly, per CPU: the engine loads
 * the control word and key from [rDX]/[rBX] only when EFLAGS bit 30 is
 * clear, and an xcrypt sets it.  A simulator cannot keep bit 30 in EFLAGS
 * (the exception return drops it), so it decides from what it can see
 * whether the bit would be clear:
 *  - the instruction is immediately preceded by "pushf; popf" (9c 9d);
 *  - the engine of this CPU has loaded nothing yet, or its last
 *    instruction was stopped part-way (an interrupt: iret loads EFLAGS);
 *  - a context switch happened since the engine's last load on this CPU
 *    (__switch_to_asm pops the flags), or the instruction runs at a
 *    shallower level than that load (user space after the kernel, a task
 *    after an interrupt: iret/sysret load EFLAGS);
 *  - a watched "pushf; popf" elsewhere ran on this CPU since its last
 *    xcrypt (sim-popf.c: the in-tree padlock_aes reloads that way).
 * Anything else, in particular entering the kernel (syscall, sysenter,
 * interrupts), keeps the bit: the instruction then runs on the key and
 * control word loaded last on this CPU, whatever rBX/rDX point at.  Such a
 * use is counted (key_cached), and when memory no longer holds what the
 * engine uses, also as key_stale.
 *
 * The parameter key_cache selects the model: 2 (default) as above; 1
 * "pointer": also reload when rBX or rDX differ from the last load (the
 * optimistic reading of hardware.md 1.5, under which the kernel's in-tree
 * padlock_aes can be assessed at all: it issues its popf in a separate asm
 * statement, several instructions before the xcrypt, which the simulator
 * cannot see); 0: no cache, every instruction loads from memory.
 */
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include "sim.h"

static unsigned int sim_key_cache = 2;
module_param_named(key_cache, sim_key_cache, uint, 0644);
MODULE_PARM_DESC(key_cache,
		 "ACE key cache model: 2 strict (reload only after pushf; popf right before xcrypt, an interruption, or a return to user space; default), 1 also when rBX/rDX change, 0 none");

struct sim_engine {
	bool loaded;
	unsigned long bx, dx;		/* rBX/rDX of the last load */
	bool user;			/* loaded by a user-mode instruction */
	pid_t pid;			/* ... of this task (pid and start */
	u64 start;			/* time: a task_struct may be reused) */
	unsigned long nsw;		/* its context switches by then */
	unsigned int ctx;		/* sim_ctx_level() of the load */
	u32 cw[4];			/* the control word in use */
	u8 key[256];			/* key material as read at load time */
};

static DEFINE_PER_CPU(struct sim_engine, sim_engine);

/* Called when an instruction stops part-way or faults (exception, iret). */
static void sim_engine_drop(void)
{
	this_cpu_ptr(&sim_engine)->loaded = false;
}

/*
 * How deep the trapping code runs: 0 user, 1 task, 2 softirq, 3 hardirq,
 * 4 NMI.  Entering a deeper level (syscall, interrupt) loads no EFLAGS;
 * returning to a shallower one does (iret, sysret).
 */
static unsigned int sim_ctx_level(struct pt_regs *regs)
{
	if (user_mode(regs))
		return 0;
	if (in_nmi())
		return 4;
	if (hardirq_count())
		return 3;
	if (in_serving_softirq())
		return 2;
	return 1;
}

/*
 * Was EFLAGS loaded on this CPU since the engine's last load, as far as
 * the trap can tell?  A context switch does (__switch_to_asm saves and
 * restores the flags since Linux 5.1), so does returning from an
 * interrupt level to the code it interrupted.  Entering the kernel does
 * not: a kernel xcrypt right after a user-mode one by the same task keeps
 * the user's key.
 */
static bool sim_eflags_loaded(struct sim_engine *eng, struct pt_regs *regs)
{
	unsigned int ctx = sim_ctx_level(regs);

	if (eng->pid != current->pid || eng->start != current->start_time ||
	    eng->nsw != current->nvcsw + current->nivcsw)
		return true;
	if (ctx == 0)
		return !eng->user;	/* back in user space after the kernel */
	return ctx < eng->ctx;
}

/* Does "pushf; popf" (9c 9d) end right before the instruction at rIP? */
static bool sim_reload_prefix(struct pt_regs *regs)
{
	u8 b[2];

	return sim_read(b, regs->ip - 2, 2) && b[0] == 0x9c && b[1] == 0x9d;
}

#define CW_ROUNDS	0x00f
#define CW_ALGO		0x070
#define CW_KEYGEN	0x080
#define CW_INTERM	0x100
#define CW_DECRYPT	0x200
#define CW_KSIZE	0xc00
#define CW_DEFINED	0xfff

static const char * const mode_name[] = {
	[XM_ECB] = "ecb", [XM_CBC] = "cbc", [XM_CTR] = "ctr",
	[XM_CFB] = "cfb", [XM_OFB] = "ofb",
};

static void xor16(u8 *d, const u8 *a, const u8 *b)
{
	unsigned int i;

	for (i = 0; i < 16; i++)
		d[i] = a[i] ^ b[i];
}

/* The low 16 bits of the counter block, big-endian, wrap without carry. */
static void ctr16_inc(u8 *ctr)
{
	u16 v = ((u16)ctr[14] << 8 | ctr[15]) + 1;

	ctr[14] = v >> 8;
	ctr[15] = v;
}

static bool misaligned(unsigned long addr)
{
	return addr & 15;
}

/*
 * An over-read that leaves the page of the last input byte (hardware.md
 * 2.2).  Kernel mode: always a violation, mapped or not: whether the next
 * page of a kernel buffer is mapped (direct map) or a guard page (vmalloc,
 * vmap'ed stacks) is luck to the driver.  User mode: silicon faults only
 * when the fetched page is not readable, and a program may know that it is:
 * OpenSSL's engine runs short tails from a copy on its own stack, whose
 * next page is the caller's frames.  There, only an unreadable page
 * faults.
 */
static bool overread_violates(struct pt_regs *regs, unsigned long end)
{
	u8 probe;

	if (!user_mode(regs))
		return true;
	if (sim_read(&probe, end, 1)) {
		sim_count(SC_USER_OVERREAD, 1);
		return false;
	}
	return true;
}

/* Check the control word; returns a reason or NULL. */
static const char *check_cword(const u32 *cw, enum sim_xcrypt_mode mode)
{
	unsigned int rounds = cw[0] & CW_ROUNDS;
	unsigned int ksize = (cw[0] & CW_KSIZE) >> 10;

	if ((cw[0] & ~CW_DEFINED) || cw[1] || cw[2] || cw[3])
		return "reserved control word bits set";
	if (cw[0] & CW_ALGO)
		return "control word algorithm field is not 0 (AES)";
	if (cw[0] & CW_INTERM)
		return "control word intermediate-result mode (not modelled)";
	if (ksize > 2)
		return "control word key size 3 is reserved";
	if (rounds != 10 + 2 * ksize)
		return "control word rounds do not match the key size";
	if (!(cw[0] & CW_KEYGEN) && ksize)
		return "hardware key expansion (KEYGEN=0) with a 192/256-bit key";
	if ((mode == XM_OFB || mode == XM_CTR) && (cw[0] & CW_DECRYPT))
		return "OFB/CTR need encdec=0 (encryption)";
	return NULL;
}

/* Is this control word refused (a violation)?  For sim-user.c. */
bool sim_xcrypt_cword_bad(const u32 *cw, enum sim_xcrypt_mode mode)
{
	return check_cword(cw, mode);
}

/*
 * One XCRYPT instruction: its operands (read from the registers when it
 * traps) and its working state.  rk and keymem hold key material and are
 * cleared on every path out of sim_xcrypt().
 */
struct xc_op {
	struct pt_regs *regs;
	enum sim_xcrypt_mode mode;
	const char *name;		/* mode_name[mode] */
	unsigned long si, di, cx, ax, bx, dx;
	unsigned int keylen;		/* bytes read at [rBX] */
	unsigned int rounds;
	unsigned int fetch;		/* blocks per fetch group */
	unsigned long groups;		/* fetch groups for cx blocks */
	bool decrypt, use_dec;
	u32 cw[4];
	u32 rk[64];
	u8 keymem[256];
	u8 chain[16];
};

/* All operands 16-byte aligned (rAX not used by ECB); true: it faults. */
static bool xc_misaligned(struct xc_op *x)
{
	if (misaligned(x->si) || misaligned(x->di) || misaligned(x->bx) ||
	    misaligned(x->dx) || (x->mode != XM_ECB && misaligned(x->ax)))
		return sim_violation(x->regs,
				     "xcrypt-%s: misaligned operand (rsi %lx rdi %lx rbx %lx rdx %lx rax %lx)",
				     x->name, x->si, x->di, x->bx, x->dx,
				     x->mode == XM_ECB ? 0 : x->ax);
	return false;
}

/* Would EFLAGS bit 30 be clear, i.e. does the engine load cw and key? */
static bool xc_reload(struct xc_op *x, struct sim_engine *eng)
{
	/* a watched popf of this task, on any CPU: consumed here either way */
	bool popf = sim_popf_task_take();

	return !eng->loaded || sim_reload_prefix(x->regs) || popf ||
	       this_cpu_read(sim_popf_seen) || sim_eflags_loaded(eng, x->regs) ||
	       sim_key_cache == 0 ||
	       (sim_key_cache == 1 && (x->bx != eng->bx || x->dx != eng->dx));
}

/*
 * Read the control word and the key from memory, whether the engine loads
 * them or not (to tell a stale cache); the key's size follows the control
 * word in use.  false: a fault.
 */
static bool xc_read_cw_key(struct xc_op *x, struct sim_engine *eng,
			   bool reload)
{
	if (!sim_read(x->cw, x->dx, sizeof(x->cw))) {
		sim_fault(x->regs, "xcrypt-%s: control word at %lx not readable",
			  x->name, x->dx);
		return false;
	}
	x->keylen = (x->cw[0] & CW_KEYGEN) ? 256 : 16;
	if (!reload)
		x->keylen = (eng->cw[0] & CW_KEYGEN) ? 256 : 16;
	if (!sim_read(x->keymem, x->bx, x->keylen)) {
		sim_fault(x->regs, "xcrypt-%s: key at %lx (%u bytes) not readable",
			  x->name, x->bx, x->keylen);
		return false;
	}
	return true;
}

/* The engine loads the control word and key just read.  false: a fault. */
static bool xc_engine_load(struct xc_op *x, struct sim_engine *eng)
{
	const char *why = check_cword(x->cw, x->mode);

	if (why && sim_violation(x->regs, "xcrypt-%s: %s (cword %08x %08x %08x %08x)",
				 x->name, why, x->cw[0], x->cw[1],
				 x->cw[2], x->cw[3]))
		return false;
	memcpy(eng->cw, x->cw, sizeof(x->cw));
	memcpy(eng->key, x->keymem, x->keylen);
	eng->loaded = true;
	eng->bx = x->bx;
	eng->dx = x->dx;
	eng->user = user_mode(x->regs);
	eng->pid = current->pid;
	eng->start = current->start_time;
	eng->nsw = current->nvcsw + current->nivcsw;
	eng->ctx = sim_ctx_level(x->regs);
	sim_count(SC_KEY_LOADS, 1);
	return true;
}

/* The engine runs on what it loaded last.  false: a fault. */
static bool xc_engine_cached(struct xc_op *x, struct sim_engine *eng)
{
	const char *why;

	sim_count(SC_KEY_CACHED, 1);
	if (memcmp(eng->cw, x->cw, sizeof(x->cw)) ||
	    memcmp(eng->key, x->keymem, x->keylen))
		sim_count(SC_KEY_STALE, 1);
	/* what the engine holds, not what memory says now */
	memcpy(x->cw, eng->cw, sizeof(x->cw));
	why = check_cword(x->cw, x->mode);
	if (why && sim_violation(x->regs, "xcrypt-%s: cached control word: %s (cword %08x)",
				 x->name, why, x->cw[0]))
		return false;
	return true;
}

/* Direction and round keys from the control word and key in use. */
static void xc_schedule(struct xc_op *x, struct sim_engine *eng)
{
	x->rounds = x->cw[0] & CW_ROUNDS;
	if (x->rounds != 10 && x->rounds != 12 && x->rounds != 14)
		x->rounds = 10;	/* on_violation=count: run something */
	x->decrypt = x->cw[0] & CW_DECRYPT;
	/* CFB and OFB run the forward cipher in both directions. */
	x->use_dec = x->decrypt && (x->mode == XM_ECB || x->mode == XM_CBC);

	if (x->cw[0] & CW_KEYGEN) {
		/* a software schedule: the engine reads 16 round keys */
		memcpy(x->rk, eng->key, sizeof(x->rk));
	} else {
		sim_aes_expand_key(x->rk, eng->key, 16);
		x->rounds = 10;
		if (x->use_dec)
			sim_aes_invert_schedule(x->rk, x->rounds);
	}
	memzero_explicit(x->keymem, sizeof(x->keymem));
}

/* Blocks per fetch group of the profile (docs/hardware.md 2.2). */
unsigned int sim_xcrypt_fetch(enum sim_xcrypt_mode mode)
{
	/*
	 * CTR: 2 blocks on every part.  OpenSSL's x86-64 engine, run on Nano
	 * silicon including stepping 2, assumes a 32-byte over-read for CTR
	 * whatever the stepping (hardware.md 2.2); modelling ECB's 8 blocks
	 * there made the simulator fault a working program.
	 */
	return mode == XM_CBC ? sim_prof->cbc_fetch :
	       mode == XM_ECB ? sim_prof->ecb_fetch :
	       mode == XM_CTR ? min(2U, sim_prof->ecb_fetch) : 1;
}

/* Block count and input footprint checks.  false: a fault. */
static bool xc_footprint(struct xc_op *x)
{
	unsigned long cx = x->cx, si = x->si;

	if (cx > (1UL << 27)) {
		if (sim_violation(x->regs, "xcrypt-%s: absurd block count %lu",
				  x->name, cx))
			return false;
	}

	/* The input footprint (docs/hardware.md 2.2): whole fetch groups are read. */
	x->fetch = sim_xcrypt_fetch(x->mode);
	x->groups = DIV_ROUND_UP(cx, x->fetch);
	if (cx) {
		unsigned long last = si + cx * 16 - 1;
		unsigned long end = si + x->groups * x->fetch * 16 - 1;

		if ((last >> PAGE_SHIFT) != (end >> PAGE_SHIFT) &&
		    overread_violates(x->regs, end) &&
		    sim_violation(x->regs,
				  "xcrypt-%s: over-read: %lu blocks at %lx fetch %lu bytes past the input into the next page (fetch %u blocks)",
				  x->name, cx, si, end - last, x->fetch))
			return false;
	}
	return true;
}

/* One block in the instruction's mode; advances the chaining value. */
static void xc_block(struct xc_op *x, u8 *out, const u8 *in)
{
	u8 *chain = x->chain;
	u8 ks[16];

	switch (x->mode) {
	case XM_ECB:
		if (x->use_dec)
			sim_aes_decrypt(x->rk, x->rounds, out, in);
		else
			sim_aes_encrypt(x->rk, x->rounds, out, in);
		break;
	case XM_CBC:
		if (x->use_dec) {
			sim_aes_decrypt(x->rk, x->rounds, ks, in);
			xor16(out, ks, chain);
			memcpy(chain, in, 16);
		} else {
			xor16(ks, in, chain);
			sim_aes_encrypt(x->rk, x->rounds, out, ks);
			memcpy(chain, out, 16);
		}
		break;
	case XM_CFB:
		sim_aes_encrypt(x->rk, x->rounds, ks, chain);
		xor16(out, in, ks);
		memcpy(chain, x->decrypt ? in : out, 16);
		break;
	case XM_OFB:
		sim_aes_encrypt(x->rk, x->rounds, chain, chain);
		xor16(out, in, chain);
		break;
	case XM_CTR:
		sim_aes_encrypt(x->rk, x->rounds, ks, chain);
		xor16(out, in, ks);
		ctr16_inc(chain);
		break;
	}
}

/* Process the first todo blocks.  false: a fault. */
static bool xc_run(struct xc_op *x, unsigned long todo)
{
	u8 in[16], out[16];
	unsigned int i;

	for (i = 0; i < todo; i++) {
		if (!sim_read(in, x->si + 16 * i, 16)) {
			sim_fault(x->regs, "xcrypt-%s: input block at %lx not readable",
				  x->name, x->si + 16 * i);
			return false;
		}
		xc_block(x, out, in);
		if (i == 0 && atomic_read(&sim_corrupt_xcrypt) > 0 &&
		    atomic_dec_if_positive(&sim_corrupt_xcrypt) >= 0) {
			out[0] ^= 0x01;		/* deliberate fault (tools/testing/debug) */
			sim_count(SC_CORRUPTED, 1);
		}
		if (!sim_write(x->di + 16 * i, out, 16)) {
			sim_fault(x->regs, "xcrypt-%s: output block at %lx not writable",
				  x->name, x->di + 16 * i);
			return false;
		}
	}
	sim_count(SC_AES_BLOCKS, todo);
	return true;
}

/*
 * Chaining value (docs/hardware.md 1.2, consistent model): where it is in the
 * output (CBC/CFB encryption) rAX points at the last output block;
 * otherwise it is written back to the IV buffer.  false: a fault.
 */
static bool xc_write_chain(struct xc_op *x, unsigned long todo)
{
	if (!todo || x->mode == XM_ECB)
		return true;
	if (!x->decrypt && (x->mode == XM_CBC || x->mode == XM_CFB)) {
		x->regs->ax = x->di + 16 * (todo - 1);
	} else if (!sim_write(x->ax, x->chain, 16)) {
		sim_fault(x->regs, "xcrypt-%s: IV at %lx not writable",
			  x->name, x->ax);
		return false;
	}
	return true;
}

/*
 * What a completed instruction leaves undefined beyond rAX after ECB
 * (docs/hardware.md 1.2, "Registers after XCRYPT"): rBX after CTR, CFB and
 * OFB, and rAX after CTR.  Silicon-tested code keeps the key pointer in rBX
 * across ECB and CBC only (Linux's in-tree driver) and reads rAX after
 * CBC, CFB and OFB only (OpenSSL copies the chaining value from it); rDX
 * is read after every mode (OpenSSL).  A driver that keeps anything else in
 * those registers across the instruction fails here.
 */
static void xc_clobber(struct pt_regs *regs, enum sim_xcrypt_mode mode)
{
	if (mode == XM_CTR || mode == XM_CFB || mode == XM_OFB)
		regs->bx = sim_garbage();
	if (mode == XM_CTR)
		regs->ax = sim_garbage();
}

enum sim_result sim_xcrypt(struct pt_regs *regs, enum sim_xcrypt_mode mode)
{
	struct sim_engine *eng;
	unsigned long todo;
	struct xc_op x;
	bool reload;
	long stop;

	x.regs = regs;
	x.mode = mode;
	x.name = mode_name[mode];
	x.si = regs->si;
	x.di = regs->di;
	x.cx = regs->cx;
	x.ax = regs->ax;
	x.bx = regs->bx;
	x.dx = regs->dx;
	if (xc_misaligned(&x)) {
		sim_engine_drop();
		return SIM_FAULT;
	}
	eng = this_cpu_ptr(&sim_engine);
	reload = xc_reload(&x, eng);
	if (!xc_read_cw_key(&x, eng, reload))
		goto fault;
	if (reload ? !xc_engine_load(&x, eng) : !xc_engine_cached(&x, eng))
		goto fault;
	xc_schedule(&x, eng);
	if (!xc_footprint(&x))
		goto fault;
	if (mode != XM_ECB && !sim_read(x.chain, x.ax, 16)) {
		sim_fault(regs, "xcrypt-%s: IV at %lx not readable",
			  x.name, x.ax);
		goto fault;
	}

	/* Interruption stops between fetch groups. */
	stop = sim_interrupt_point(x.groups);
	todo = stop < 0 ? x.cx : (unsigned long)stop * x.fetch;
	if (!xc_run(&x, todo) || !xc_write_chain(&x, todo))
		goto fault;
	regs->si = x.si + 16 * todo;
	regs->di = x.di + 16 * todo;
	regs->cx = x.cx - todo;
	memzero_explicit(x.rk, sizeof(x.rk));
	this_cpu_write(sim_popf_seen, false);	/* bit 30 is set again */
	if (todo < x.cx) {
		sim_engine_drop();	/* the interrupt returns with iret */
		return SIM_INTERRUPTED;
	}
	if (mode == XM_ECB && (sim_clobber & SIM_CLOBBER_ECB_RAX))
		regs->ax = sim_garbage();	/* undefined after ECB */
	if (sim_clobber & SIM_CLOBBER_XCRYPT_REGS)
		xc_clobber(regs, mode);
	return SIM_DONE;

fault:
	sim_engine_drop();
	memzero_explicit(x.rk, sizeof(x.rk));
	memzero_explicit(x.keymem, sizeof(x.keymem));
	return SIM_FAULT;
}
