/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the request-driven test modules (padlock-hashtest, padlock-difftest)
 * share: their pseudo-random stream and their debugfs "run" file.  Tests
 * only, never shipped.
 */
#ifndef PADLOCK_TEST_RUN_H
#define PADLOCK_TEST_RUN_H

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <linux/types.h>
#include <linux/uaccess.h>

/* splitmix64: a deterministic stream from the state's seed */
static inline u64 pt_rand(u64 *state)
{
	u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* 0 .. n - 1 (multiply-shift: no 64-bit division on 32-bit kernels) */
static inline u32 pt_below(u64 *state, u32 n)
{
	return (u32)(((pt_rand(state) >> 32) * n) >> 32);
}

static inline void pt_fill(u64 *state, u8 *p, size_t len)
{
	u64 v;

	for (; len >= 8; p += 8, len -= 8) {
		v = pt_rand(state);
		memcpy(p, &v, 8);
	}
	v = pt_rand(state);
	memcpy(p, &v, len);
}

#define PT_LINE_LEN	128
#define PT_RESULT_LEN	1024

/*
 * The "run" file: writing a line runs one request (->exec, which returns 0
 * or a negative errno for the write and leaves its one-line result in
 * ->result); reading returns that line.  One request at a time.
 */
struct pt_run_file {
	struct mutex lock;	/* one request at a time, result included */
	char result[PT_RESULT_LEN];
	int (*exec)(char *line);
	struct dentry *dir;
};

static ssize_t pt_run_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	struct pt_run_file *rf = file->private_data;
	char line[PT_LINE_LEN];
	int err;

	if (len >= sizeof(line))
		return -EINVAL;
	if (copy_from_user(line, ubuf, len))
		return -EFAULT;
	line[len] = 0;
	mutex_lock(&rf->lock);
	rf->result[0] = 0;
	err = rf->exec(line);
	mutex_unlock(&rf->lock);
	return err ? err : len;
}

static ssize_t pt_run_read(struct file *file, char __user *ubuf, size_t len,
			   loff_t *ppos)
{
	struct pt_run_file *rf = file->private_data;
	ssize_t ret;

	mutex_lock(&rf->lock);
	ret = simple_read_from_buffer(ubuf, len, ppos, rf->result,
				      strlen(rf->result));
	mutex_unlock(&rf->lock);
	return ret;
}

static const struct file_operations pt_run_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = pt_run_write,
	.read = pt_run_read,
	.llseek = default_llseek,
};

/* /sys/kernel/debug/@dir/run */
static inline void pt_run_file_create(struct pt_run_file *rf, const char *dir)
{
	mutex_init(&rf->lock);
	rf->dir = debugfs_create_dir(dir, NULL);
	debugfs_create_file("run", 0600, rf->dir, rf, &pt_run_fops);
}

static inline void pt_run_file_remove(struct pt_run_file *rf)
{
	debugfs_remove_recursive(rf->dir);
}

#endif /* PADLOCK_TEST_RUN_H */
