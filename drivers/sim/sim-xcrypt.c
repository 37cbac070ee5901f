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

/* Check the control word; returns a reason or NULL. */
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

enum sim_result sim_xcrypt(struct pt_regs *regs, enum sim_xcrypt_mode mode)
{
	unsigned long si = regs->si, di = regs->di, cx = regs->cx;
	unsigned long ax = regs->ax, bx = regs->bx, dx = regs->dx;
	unsigned int fetch, rounds, i;
	u32 cw[4], rk[64];
	u8 chain[16], in[16], out[16], ks[16];
	unsigned long todo, groups;
	const char *why;
	bool decrypt, use_dec, reload;
	struct sim_engine *eng;
	unsigned int keylen;
	u8 keymem[256];
	long stop;

	if (misaligned(si) || misaligned(di) || misaligned(bx) ||
	    misaligned(dx) || (mode != XM_ECB && misaligned(ax))) {
		if (sim_violation(regs,
				  "xcrypt-%s: misaligned operand (rsi %lx rdi %lx rbx %lx rdx %lx rax %lx)",
				  mode_name[mode], si, di, bx, dx,
				  mode == XM_ECB ? 0 : ax)) {
			sim_engine_drop();
			return SIM_FAULT;
		}
	}
	eng = this_cpu_ptr(&sim_engine);
	/* a watched popf of this task, on any CPU: consumed here either way */
	reload = sim_popf_task_take();
	reload = !eng->loaded || sim_reload_prefix(regs) || reload ||
		 this_cpu_read(sim_popf_seen) || sim_eflags_loaded(eng, regs) ||
		 sim_key_cache == 0 ||
		 (sim_key_cache == 1 && (bx != eng->bx || dx != eng->dx));

	if (!sim_read(cw, dx, sizeof(cw))) {
		sim_fault(regs, "xcrypt-%s: control word at %lx not readable",
			  mode_name[mode], dx);
		goto fault;
	}
	keylen = (cw[0] & CW_KEYGEN) ? 256 : 16;
	if (!reload)
		keylen = (eng->cw[0] & CW_KEYGEN) ? 256 : 16;
	if (!sim_read(keymem, bx, keylen)) {
		sim_fault(regs, "xcrypt-%s: key at %lx (%u bytes) not readable",
			  mode_name[mode], bx, keylen);
		goto fault;
	}
	if (reload) {
		why = check_cword(cw, mode);
		if (why && sim_violation(regs, "xcrypt-%s: %s (cword %08x %08x %08x %08x)",
					 mode_name[mode], why, cw[0], cw[1],
					 cw[2], cw[3]))
			goto fault;
		memcpy(eng->cw, cw, sizeof(cw));
		memcpy(eng->key, keymem, keylen);
		eng->loaded = true;
		eng->bx = bx;
		eng->dx = dx;
		eng->user = user_mode(regs);
		eng->pid = current->pid;
		eng->start = current->start_time;
		eng->nsw = current->nvcsw + current->nivcsw;
		eng->ctx = sim_ctx_level(regs);
		sim_count(SC_KEY_LOADS, 1);
	} else {
		sim_count(SC_KEY_CACHED, 1);
		if (memcmp(eng->cw, cw, sizeof(cw)) ||
		    memcmp(eng->key, keymem, keylen))
			sim_count(SC_KEY_STALE, 1);
		/* what the engine holds, not what memory says now */
		memcpy(cw, eng->cw, sizeof(cw));
		why = check_cword(cw, mode);
		if (why && sim_violation(regs, "xcrypt-%s: cached control word: %s (cword %08x)",
					 mode_name[mode], why, cw[0]))
			goto fault;
	}
	rounds = cw[0] & CW_ROUNDS;
	if (rounds != 10 && rounds != 12 && rounds != 14)
		rounds = 10;	/* on_violation=count: run something */
	decrypt = cw[0] & CW_DECRYPT;
	/* CFB and OFB run the forward cipher in both directions. */
	use_dec = decrypt && (mode == XM_ECB || mode == XM_CBC);

	if (cw[0] & CW_KEYGEN) {
		/* a software schedule: the engine reads 16 round keys */
		memcpy(rk, eng->key, sizeof(rk));
	} else {
		sim_aes_expand_key(rk, eng->key, 16);
		rounds = 10;
		if (use_dec)
			sim_aes_invert_schedule(rk, rounds);
	}
	memzero_explicit(keymem, sizeof(keymem));

	if (cx > (1UL << 27)) {
		if (sim_violation(regs, "xcrypt-%s: absurd block count %lu",
				  mode_name[mode], cx))
			goto fault;
	}

	/* The input footprint (docs/hardware.md 2.2): whole fetch groups are read. */
	/*
	 * CTR: 2 blocks on every part.  OpenSSL's x86-64 engine, run on Nano
	 * silicon including stepping 2, assumes a 32-byte over-read for CTR
	 * whatever the stepping (hardware.md 2.2); modelling ECB's 8 blocks
	 * there made the simulator fault a working program.
	 */
	fetch = mode == XM_CBC ? sim_prof->cbc_fetch :
		mode == XM_ECB ? sim_prof->ecb_fetch :
		mode == XM_CTR ? min(2U, sim_prof->ecb_fetch) : 1;
	groups = DIV_ROUND_UP(cx, fetch);
	if (cx) {
		unsigned long last = si + cx * 16 - 1;
		unsigned long end = si + groups * fetch * 16 - 1;

		if ((last >> PAGE_SHIFT) != (end >> PAGE_SHIFT) &&
		    overread_violates(regs, end) &&
		    sim_violation(regs,
				  "xcrypt-%s: over-read: %lu blocks at %lx fetch %lu bytes past the input into the next page (fetch %u blocks)",
				  mode_name[mode], cx, si, end - last, fetch))
			goto fault;
	}

	if (mode != XM_ECB && !sim_read(chain, ax, 16)) {
		sim_fault(regs, "xcrypt-%s: IV at %lx not readable",
			  mode_name[mode], ax);
		goto fault;
	}

	/* Interruption stops between fetch groups. */
	stop = sim_interrupt_point(groups);
	todo = stop < 0 ? cx : (unsigned long)stop * fetch;

	for (i = 0; i < todo; i++) {
		if (!sim_read(in, si + 16 * i, 16)) {
			sim_fault(regs, "xcrypt-%s: input block at %lx not readable",
				  mode_name[mode], si + 16 * i);
			goto fault;
		}
		switch (mode) {
		case XM_ECB:
			if (use_dec)
				sim_aes_decrypt(rk, rounds, out, in);
			else
				sim_aes_encrypt(rk, rounds, out, in);
			break;
		case XM_CBC:
			if (use_dec) {
				sim_aes_decrypt(rk, rounds, ks, in);
				xor16(out, ks, chain);
				memcpy(chain, in, 16);
			} else {
				xor16(ks, in, chain);
				sim_aes_encrypt(rk, rounds, out, ks);
				memcpy(chain, out, 16);
			}
			break;
		case XM_CFB:
			sim_aes_encrypt(rk, rounds, ks, chain);
			xor16(out, in, ks);
			memcpy(chain, decrypt ? in : out, 16);
			break;
		case XM_OFB:
			sim_aes_encrypt(rk, rounds, chain, chain);
			xor16(out, in, chain);
			break;
		case XM_CTR:
			sim_aes_encrypt(rk, rounds, ks, chain);
			xor16(out, in, ks);
			ctr16_inc(chain);
			break;
		}
		if (i == 0 && atomic_read(&sim_corrupt_xcrypt) > 0 &&
		    atomic_dec_if_positive(&sim_corrupt_xcrypt) >= 0) {
			out[0] ^= 0x01;		/* deliberate fault (tools/debug) */
			sim_count(SC_CORRUPTED, 1);
		}
		if (!sim_write(di + 16 * i, out, 16)) {
			sim_fault(regs, "xcrypt-%s: output block at %lx not writable",
				  mode_name[mode], di + 16 * i);
			goto fault;
		}
	}
	sim_count(SC_AES_BLOCKS, todo);

	/*
	 * Chaining value (docs/hardware.md 1.2, consistent model): where it is in the
	 * output (CBC/CFB encryption) rAX points at the last output block;
	 * otherwise it is written back to the IV buffer.
	 */
	if (todo && mode != XM_ECB) {
		if (!decrypt && (mode == XM_CBC || mode == XM_CFB)) {
			regs->ax = di + 16 * (todo - 1);
		} else if (!sim_write(ax, chain, 16)) {
			sim_fault(regs, "xcrypt-%s: IV at %lx not writable",
				  mode_name[mode], ax);
			goto fault;
		}
	}
	regs->si = si + 16 * todo;
	regs->di = di + 16 * todo;
	regs->cx = cx - todo;
	memzero_explicit(rk, sizeof(rk));
	this_cpu_write(sim_popf_seen, false);	/* bit 30 is set again */
	if (todo < cx) {
		sim_engine_drop();	/* the interrupt returns with iret */
		return SIM_INTERRUPTED;
	}
	if (mode == XM_ECB && (sim_clobber & SIM_CLOBBER_ECB_RAX))
		regs->ax = sim_garbage();	/* undefined after ECB */
	return SIM_DONE;

fault:
	sim_engine_drop();
	memzero_explicit(rk, sizeof(rk));
	memzero_explicit(keymem, sizeof(keymem));
	return SIM_FAULT;
}
