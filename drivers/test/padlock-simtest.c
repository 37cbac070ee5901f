// SPDX-License-Identifier: GPL-2.0
/*
 * padlock-simtest: a test helper for padlock-sim (not a driver).
 *
 * It issues the PadLock instructions (raw, with every register given,
 * through the padlock_raw_*() wrappers of padlock-test-asm.h, the test
 * instruments' header beside it) so that selftests/padlock/sim.sh can check
 * the simulator against known answers and exercise its violation paths.
 * A request written to /sys/kernel/debug/padlock-simtest/exec describes one
 * instruction (opcode, register values, operand placement, key/IV/state/
 * data); reading the file returns the registers and memory the instruction
 * left behind.  Every
 * instruction runs under an exception-table fixup, so a violation (the
 * simulator leaves the instruction as an invalid opcode) comes back as
 * "faulted" instead of an oops.
 *
 * Layout of request and result: struct simtest_req / simtest_res below,
 * little-endian, mirrored by selftests/padlock/lib/sim_simtest.py.
 */
#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/debugfs.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/mutex.h>
#include <linux/uaccess.h>
#include <linux/gfp.h>
#include <asm/tsc.h>

#include "padlock-test-asm.h"
#include "../sim/sim-export.h"

#define SIMTEST_MAGIC	0x54534c50	/* "PLST" */
#define SIMTEST_MAX_DATA 8192

enum simtest_op {
	ST_XSTORE, ST_REP_XSTORE,
	ST_ECB, ST_CBC, ST_CTR, ST_CFB, ST_OFB,
	ST_SHA1, ST_SHA256, ST_SHA384, ST_SHA512,
	ST_F2_ECB,	/* F2 0F A7 C8: undefined */
	ST_MONTMUL,	/* F3 0F A6 C0: not modelled */
	ST_NR
};

#define STF_EXPECT_FAULT	BIT(0)	/* tell the sim the fault is deliberate */
#define STF_PAGE_END		BIT(1)	/* input ends at the end of a page */
#define STF_UNMAPPED		BIT(2)	/* input in an unmapped guard page */
#define STF_IN_PLACE		BIT(3)	/* output = input */
#define STF_RAX_IS_PTR		BIT(4)	/* rax = IV buffer (else req.rax) */
/* xsha only: operands that are not memory (strictness with a count of 0) */
#define STF_SHA_NULL_RSI	BIT(8)	/* rsi = NULL */
#define STF_SHA_NULL_RDI	BIT(9)	/* rdi (state) = NULL */
#define STF_SHA_UNMAPPED_RDI	BIT(10)	/* rdi (state) in a guard page */
#define STF_NO_RELOAD		BIT(5)	/* xcrypt without pushf; popf before it */

struct simtest_req {
	__le32 magic, op, flags, data_len;
	__le64 rcx, rax, rdx;
	__le32 in_off, out_off, key_off, cw_off, iv_off, state_off;
	u8 cword[16];
	u8 key[256];
	u8 iv[16];
	u8 state[128];
	u8 data[];
} __packed;

struct simtest_res {
	__le32 magic, faulted;
	__le64 rsi_adv, rdi_adv, rcx, rax, rdx, rbx;
	__le64 rax_minus_iv, rax_minus_out;
	u8 iv[16];
	u8 state[160];
	u8 data[];
} __packed;

static DEFINE_MUTEX(st_lock);
static struct simtest_res *st_res;
static size_t st_res_len;

/*
 * [op][0]: the instruction as the drivers issue it (xcrypt after the key
 * reload); [op][1]: the same xcrypt without the reload (STF_NO_RELOAD).
 */
#define ST_RAW_XCRYPT(mode) \
	{ padlock_raw_reload_xcrypt_##mode, padlock_raw_xcrypt_##mode }

static bool (*const st_raw[ST_NR][2])(unsigned long r[6]) = {
	[ST_XSTORE] = { padlock_raw_xstore },
	[ST_REP_XSTORE] = { padlock_raw_rep_xstore },
	[ST_ECB] = ST_RAW_XCRYPT(ecb),
	[ST_CBC] = ST_RAW_XCRYPT(cbc),
	[ST_CTR] = ST_RAW_XCRYPT(ctr),
	[ST_CFB] = ST_RAW_XCRYPT(cfb),
	[ST_OFB] = ST_RAW_XCRYPT(ofb),
	[ST_SHA1] = { padlock_raw_xsha1 },
	[ST_SHA256] = { padlock_raw_xsha256 },
	[ST_SHA384] = { padlock_raw_xsha384 },
	[ST_SHA512] = { padlock_raw_xsha512 },
	[ST_F2_ECB] = { padlock_raw_f2_xcrypt_ecb },
	[ST_MONTMUL] = { padlock_raw_montmul },
};

/* regs6: rSI, rDI, rCX, rAX, rDX, rBX in and out; returns "faulted". */
static int st_exec(unsigned int op, unsigned int flags, unsigned long *regs6)
{
	if (op >= ST_NR || !st_raw[op][0])
		return 1;
	if ((flags & STF_NO_RELOAD) && st_raw[op][1])
		return st_raw[op][1](regs6);
	return st_raw[op][0](regs6);
}

/* Buffers of one request, and where its operands sit in them. */
struct st_buf {
	u8 *data, *outbuf, *misc, *guard;
	unsigned long in, out, cw, iv, key, state;
};

static bool st_req_ok(const struct simtest_req *req, size_t len)
{
	unsigned int dlen = le32_to_cpu(req->data_len);

	if (le32_to_cpu(req->magic) != SIMTEST_MAGIC ||
	    le32_to_cpu(req->op) >= ST_NR ||
	    dlen > SIMTEST_MAX_DATA || len != sizeof(*req) + dlen ||
	    le32_to_cpu(req->in_off) > 64 || le32_to_cpu(req->out_off) > 64 ||
	    le32_to_cpu(req->key_off) > 15 || le32_to_cpu(req->cw_off) > 15 ||
	    le32_to_cpu(req->iv_off) > 15 || le32_to_cpu(req->state_off) > 15)
		return false;
	return true;
}

/* Place the operands in the buffers and copy the request's bytes there. */
static void st_place(const struct simtest_req *req, struct st_buf *b)
{
	unsigned int flags = le32_to_cpu(req->flags);
	unsigned int dlen = le32_to_cpu(req->data_len);

	if (flags & STF_PAGE_END)
		b->in = (unsigned long)b->data + PAGE_SIZE - round_up(dlen, 16);
	else
		b->in = (unsigned long)b->data + le32_to_cpu(req->in_off);
	memcpy((void *)b->in, req->data, dlen);
	if (flags & STF_UNMAPPED)
		b->in = (unsigned long)b->guard + PAGE_SIZE;	/* vmalloc guard page */
	b->out = (unsigned long)b->outbuf + le32_to_cpu(req->out_off);
	memset((void *)b->out, 0xa5, dlen + 16);
	if (flags & STF_IN_PLACE)
		b->out = b->in;

	b->cw = (unsigned long)b->misc + le32_to_cpu(req->cw_off);
	b->iv = (unsigned long)b->misc + 64 + le32_to_cpu(req->iv_off);
	b->key = (unsigned long)b->misc + 128 + le32_to_cpu(req->key_off);
	b->state = (unsigned long)b->misc + 512 + le32_to_cpu(req->state_off);
	memcpy((void *)b->cw, req->cword, 16);
	memcpy((void *)b->iv, req->iv, 16);
	memcpy((void *)b->key, req->key, 256);
	memcpy((void *)b->state, req->state, 128);
	memset((void *)(b->state + 128), 0xa5, 32);
}

/* regs6 (rSI, rDI, rCX, rAX, rDX, rBX) for the request's instruction. */
static void st_set_regs(const struct simtest_req *req,
			const struct st_buf *b, unsigned long *regs6)
{
	unsigned int op = le32_to_cpu(req->op);
	unsigned int flags = le32_to_cpu(req->flags);

	regs6[2] = le64_to_cpu(req->rcx);
	regs6[4] = le64_to_cpu(req->rdx);
	regs6[5] = b->key;
	regs6[3] = (flags & STF_RAX_IS_PTR) ? b->iv : le64_to_cpu(req->rax);
	if (op >= ST_SHA1 && op <= ST_SHA512) {
		regs6[0] = (flags & STF_SHA_NULL_RSI) ? 0 : b->in;
		regs6[1] = b->state;
		if (flags & STF_SHA_NULL_RDI)
			regs6[1] = 0;
		else if (flags & STF_SHA_UNMAPPED_RDI)
			regs6[1] = (unsigned long)b->guard + PAGE_SIZE;
	} else if (op == ST_XSTORE || op == ST_REP_XSTORE) {
		regs6[0] = b->in;
		regs6[1] = b->out;
	} else {
		regs6[0] = b->in;
		regs6[1] = b->out;
		regs6[4] = b->cw;
	}
}

/* Issue the instruction and record what it left behind in res. */
static void st_issue(const struct simtest_req *req, const struct st_buf *b,
		     unsigned long *regs6, struct simtest_res *res)
{
	unsigned int op = le32_to_cpu(req->op);
	unsigned int flags = le32_to_cpu(req->flags);
	unsigned int dlen = le32_to_cpu(req->data_len);
	unsigned long si0 = regs6[0], di0 = regs6[1];
	int faulted;

	preempt_disable();
	padlock_sim_expect_fault(flags & STF_EXPECT_FAULT);
	faulted = st_exec(op, flags, regs6);
	padlock_sim_expect_fault(false);
	preempt_enable();

	res->magic = cpu_to_le32(SIMTEST_MAGIC);
	res->faulted = cpu_to_le32(faulted);
	res->rsi_adv = cpu_to_le64(regs6[0] - si0);
	res->rdi_adv = cpu_to_le64(regs6[1] - di0);
	res->rcx = cpu_to_le64(regs6[2]);
	res->rax = cpu_to_le64(regs6[3]);
	res->rdx = cpu_to_le64(regs6[4]);
	res->rbx = cpu_to_le64(regs6[5] - b->key);
	res->rax_minus_iv = cpu_to_le64(regs6[3] - b->iv);
	res->rax_minus_out = cpu_to_le64(regs6[3] - b->out);
	memcpy(res->iv, (void *)b->iv, 16);
	memcpy(res->state, (void *)b->state, 160);
	if (!(flags & STF_UNMAPPED))
		memcpy(res->data, (void *)b->out, dlen);
}

static int st_run(const struct simtest_req *req, size_t len)
{
	unsigned int dlen = le32_to_cpu(req->data_len);
	struct st_buf b = { };
	struct simtest_res *res;
	unsigned long regs6[6];
	int err = -ENOMEM;

	if (!st_req_ok(req, len))
		return -EINVAL;

	/* 4 pages each: physically contiguous, so an over-read is mapped */
	b.data = (u8 *)__get_free_pages(GFP_KERNEL | __GFP_ZERO, 2);
	b.outbuf = (u8 *)__get_free_pages(GFP_KERNEL | __GFP_ZERO, 2);
	b.misc = kzalloc(1024, GFP_KERNEL);
	b.guard = vmalloc(PAGE_SIZE);
	res = kzalloc(sizeof(*res) + dlen, GFP_KERNEL);
	if (!b.data || !b.outbuf || !b.misc || !b.guard || !res)
		goto out;

	st_place(req, &b);
	st_set_regs(req, &b, regs6);
	st_issue(req, &b, regs6, res);

	kfree(st_res);
	st_res = res;
	st_res_len = sizeof(*res) + dlen;
	res = NULL;
	err = 0;
out:
	kfree(res);
	vfree(b.guard);
	kfree(b.misc);
	free_pages((unsigned long)b.outbuf, 2);
	free_pages((unsigned long)b.data, 2);
	return err;
}

static ssize_t exec_write(struct file *file, const char __user *ubuf,
			  size_t len, loff_t *ppos)
{
	struct simtest_req *req;
	int err;

	if (len < sizeof(*req) || len > sizeof(*req) + SIMTEST_MAX_DATA)
		return -EINVAL;
	req = memdup_user(ubuf, len);
	if (IS_ERR(req))
		return PTR_ERR(req);
	mutex_lock(&st_lock);
	err = st_run(req, len);
	mutex_unlock(&st_lock);
	kfree(req);
	return err ? err : len;
}

static ssize_t exec_read(struct file *file, char __user *ubuf, size_t len,
			 loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&st_lock);
	ret = st_res ? simple_read_from_buffer(ubuf, len, ppos, st_res,
					       st_res_len) : -ENODATA;
	mutex_unlock(&st_lock);
	return ret;
}

static const struct file_operations exec_fops = {
	.owner = THIS_MODULE,
	.write = exec_write,
	.read = exec_read,
	.llseek = default_llseek,
};

/*
 * Deliberate fault for the debug-kernel lane (tools/testing/debug): writing to
 * kasan_oob stores one byte past the end of a 64-byte allocation, which a
 * KASAN kernel must report.  The file exists only on KASAN kernels.
 */
static ssize_t kasan_oob_write(struct file *file, const char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	size_t n = 64;
	u8 *p;

	p = kmalloc(n, GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	OPTIMIZER_HIDE_VAR(n);
	p[n] = 0x5a;		/* one past the end: KASAN reports it */
	kfree(p);
	pr_info("kasan_oob: wrote one byte past a %zu-byte allocation\n", n);
	return len;
}

static const struct file_operations kasan_oob_fops = {
	.owner = THIS_MODULE,
	.write = kasan_oob_write,
};

/*
 * calibrate (read): the cost of the trap's entry and exit path, which the
 * simulator's handler cannot time itself.  With interrupts off, time a
 * plain XSTORE (rDX = 3: one byte, the cheapest instruction every profile
 * with an RNG has) and subtract the handler's own cycles (read back from the
 * simulator) and the cost of the two TSC reads (the same timed region
 * without the instruction).  The minimum over CAL_ROUNDS rounds is kept, so
 * a stray host or QEMU event cannot inflate it; the simulator then shows it
 * as trap_overhead_cycles.  Under icount the cycles are guest instructions.
 */
#define CAL_ROUNDS	64

static ssize_t calibrate_read(struct file *file, char __user *ubuf,
			      size_t len, loff_t *ppos)
{
	u64 best = U64_MAX, empty = U64_MAX, t0, t1, h;
	u8 buf[16] __aligned(16);
	unsigned long flags, r[6];
	char out[32];
	int i, n;

	if (*ppos)
		return 0;
	local_irq_save(flags);
	for (i = 0; i < CAL_ROUNDS; i++) {
		t0 = rdtsc_ordered();
		t1 = rdtsc_ordered();
		empty = min(empty, t1 - t0);
	}
	for (i = 0; i < CAL_ROUNDS; i++) {
		memset(r, 0, sizeof(r));
		r[1] = (unsigned long)buf;	/* rDI */
		r[4] = 3;			/* rDX */
		t0 = rdtsc_ordered();
		if (padlock_raw_xstore(r))
			break;
		t1 = rdtsc_ordered();
		h = padlock_sim_last_cost();
		if (t1 - t0 > h + empty)
			best = min(best, t1 - t0 - h - empty);
	}
	local_irq_restore(flags);
	if (best == U64_MAX)
		return -EIO;
	padlock_sim_set_trap_overhead(best);
	n = scnprintf(out, sizeof(out), "%llu\n", best);
	return simple_read_from_buffer(ubuf, len, ppos, out, n);
}

static const struct file_operations calibrate_fops = {
	.owner = THIS_MODULE,
	.read = calibrate_read,
};

static struct dentry *st_dir;

static int __init simtest_init(void)
{
	st_dir = debugfs_create_dir("padlock-simtest", NULL);
	debugfs_create_file("exec", 0600, st_dir, NULL, &exec_fops);
	debugfs_create_file("calibrate", 0400, st_dir, NULL, &calibrate_fops);
	if (IS_ENABLED(CONFIG_KASAN))
		debugfs_create_file("kasan_oob", 0200, st_dir, NULL,
				    &kasan_oob_fops);
	pr_info("padlock-sim test helper ready (for tests only)\n");
	return 0;
}

static void __exit simtest_exit(void)
{
	debugfs_remove_recursive(st_dir);
	kfree(st_res);
}

module_init(simtest_init);
module_exit(simtest_exit);

MODULE_DESCRIPTION("Test helper for padlock-sim: issues PadLock instructions");
MODULE_LICENSE("GPL");
