// SPDX-License-Identifier: GPL-2.0
/*
 * u-dma-buf-mgr: create and delete u-dma-buf buffers at run time.
 *
 * /dev/u-dma-buf-mgr takes text commands, each ended by '\n', ';' or NUL,
 * possibly several per write or one over several writes:
 *
 *   create <name> <size> [bus=<bus>] [device=<dev>] [dma-mask=<bits>]
 *          [quirk-mmap-on|quirk-mmap-off|quirk-mmap-auto|quirk-mmap-page]
 *          [dma-coherent] [keep-contents] [sync-check=off|report|strict]
 *   delete <name>
 *
 * Numbers are base 0 without suffixes; <size> may also be given as size=N.
 * Keywords match by prefix, as in the original manager; our additions
 * dma-coherent (a new platform device only) and keep-contents (the no-map
 * memory-region of device=, see alloc.c) match whole, and so does the
 * value of sync-check= (also spelled sync_check=; the sync checker,
 * docs/sync-checker.md).  A write returns
 * its byte count, or the errno of the first failing command (the rest of
 * that write is dropped): -EINVAL for a malformed command, -ENOENT for an
 * unknown name, -EEXIST for a duplicate, -EBUSY for deleting a buffer that
 * is open, mapped or exported (or for keep-contents on a region in use),
 * -ENOMEM or -E2BIG for a size that cannot be
 * had, -ENODEV when the new buffer's device was unbound before the create
 * returned, -ENOSPC for a command over 1023 bytes.
 */
#include <linux/device.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "compat.h"
#include "u-dma-buf-funcs.h"

#define UDMABUF_MGR_NAME	"u-dma-buf-mgr"
#define UDMABUF_MGR_LINE_MAX	1024
#define UDMABUF_MGR_TOKENS	16

/*
 * The command being written to one open file.  Character devices get no
 * f_pos lock, so threads sharing the file write concurrently: the lock
 * keeps the line and its length consistent.
 */
struct udmabuf_mgr_file {
	struct mutex lock;	/* the line and its length */
	char line[UDMABUF_MGR_LINE_MAX];
	size_t len;
};

/* sync-check= values, in the order of option bits [15:14] minus one */
static const char * const udmabuf_mgr_checks[] = { "off", "report", "strict" };

/* One command at a time, so that search-then-remove cannot race. */
static DEFINE_MUTEX(udmabuf_mgr_lock);

static bool udmabuf_mgr_keyword(const char *tok, const char *kw)
{
	return !strncmp(tok, kw, strlen(kw));
}

static int udmabuf_mgr_number(const char *s, u64 *val)
{
	return kstrtoull(s, 0, val) ? -EINVAL : 0;
}

static struct device *udmabuf_mgr_find_device(const char *bus, const char *name)
{
	const struct bus_type *type;

	if (!bus || !strcmp(bus, "platform"))
		return bus_find_device_by_name(&platform_bus_type, NULL, name);
	type = u_dma_buf_find_available_bus_type(bus, strlen(bus));
	return type ? udmem_bus_find_device_by_name(type, name) : NULL;
}

static int udmabuf_mgr_create(char **tok, int ntok)
{
	const char *name, *bus = NULL, *devname = NULL;
	struct device *parent = NULL, *dev;
	u64 size = 0, option = 0, val;
	bool have_size = false;
	int i, ret;

	if (ntok < 2)
		return -EINVAL;
	name = tok[1];
	for (i = 2; i < ntok; i++) {
		char *t = tok[i];

		if (udmabuf_mgr_keyword(t, "size=")) {
			if (udmabuf_mgr_number(t + 5, &size))
				return -EINVAL;
			have_size = true;
		} else if (udmabuf_mgr_keyword(t, "bus=")) {
			bus = t + 4;
		} else if (udmabuf_mgr_keyword(t, "device=")) {
			devname = t + 7;
		} else if (udmabuf_mgr_keyword(t, "dma-mask=")) {
			if (udmabuf_mgr_number(t + 9, &val) || val > 0xff)
				return -EINVAL;
			option = (option & ~(u64)0xff) | val;
		} else if (!strcmp(t, "dma-coherent")) {
			option |= U_DMA_BUF_OPTION_DMA_COHERENT;
		} else if (!strcmp(t, "keep-contents")) {
			option |= U_DMA_BUF_OPTION_KEEP_CONTENTS;
		} else if (!strncmp(t, "sync-check=", 11) || !strncmp(t, "sync_check=", 11)) {
			ret = match_string(udmabuf_mgr_checks, ARRAY_SIZE(udmabuf_mgr_checks),
					   t + 11);
			if (ret < 0)
				return -EINVAL;
			option &= ~((u64)U_DMA_BUF_OPTION_SYNC_CHECK_MASK <<
				    U_DMA_BUF_OPTION_SYNC_CHECK_SHIFT);
			option |= (u64)(ret + 1) << U_DMA_BUF_OPTION_SYNC_CHECK_SHIFT;
		} else if (udmabuf_mgr_keyword(t, "quirk-mmap-on")) {
			option = (option & ~(7ULL << 10)) | (2ULL << 10);
		} else if (udmabuf_mgr_keyword(t, "quirk-mmap-off")) {
			option = (option & ~(7ULL << 10)) | (1ULL << 10);
		} else if (udmabuf_mgr_keyword(t, "quirk-mmap-auto")) {
			option = (option & ~(7ULL << 10)) | (3ULL << 10);
		} else if (udmabuf_mgr_keyword(t, "quirk-mmap-page")) {
			option = (option & ~(7ULL << 10)) | (4ULL << 10);
		} else if (!udmabuf_mgr_number(t, &size)) {
			have_size = true;
		} else {
			return -EINVAL;
		}
	}
	if (!have_size || !size)
		return -EINVAL;
	if (size > SIZE_MAX)
		return -E2BIG;		/* a 32-bit kernel's limit */
	if (devname) {
		parent = udmabuf_mgr_find_device(bus, devname);
		if (!parent)
			return -EINVAL;
	} else if (bus) {
		return -EINVAL;
	}
	dev = u_dma_buf_device_create(name, -1, size, option, parent);
	put_device(parent);
	if (IS_ERR(dev))
		return PTR_ERR(dev);
	pr_info(UDMABUF_MGR_NAME ": create %s size=%llu\n", name, size);
	return 0;
}

static int udmabuf_mgr_delete(char **tok, int ntok)
{
	struct device *dev;
	int ret;

	if (ntok < 2)
		return -EINVAL;
	dev = u_dma_buf_device_search(tok[1], -1);
	if (IS_ERR(dev))
		return -ENOENT;
	ret = u_dma_buf_device_remove(dev);
	if (!ret)
		pr_info(UDMABUF_MGR_NAME ": delete %s\n", tok[1]);
	return ret;
}

static int udmabuf_mgr_run(char *line)
{
	char *tok[UDMABUF_MGR_TOKENS];
	int ntok = 0, ret;
	char *t;

	while ((t = strsep(&line, " \t")) != NULL) {
		if (!*t)
			continue;
		if (ntok == UDMABUF_MGR_TOKENS)
			return -EINVAL;
		tok[ntok++] = t;
	}
	if (!ntok)
		return 0;
	mutex_lock(&udmabuf_mgr_lock);
	if (udmabuf_mgr_keyword(tok[0], "create"))
		ret = udmabuf_mgr_create(tok, ntok);
	else if (udmabuf_mgr_keyword(tok[0], "delete"))
		ret = udmabuf_mgr_delete(tok, ntok);
	else
		ret = -EINVAL;
	mutex_unlock(&udmabuf_mgr_lock);
	return ret;
}

static ssize_t udmabuf_mgr_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	struct udmabuf_mgr_file *st = file->private_data;
	char chunk[64];
	size_t done = 0, n, i;
	int ret = 0;

	if (mutex_lock_interruptible(&st->lock))
		return -ERESTARTSYS;
	while (done < count) {
		n = min(count - done, sizeof(chunk));
		if (copy_from_user(chunk, ubuf + done, n)) {
			ret = -EFAULT;
			goto out_unlock;
		}
		for (i = 0; i < n; i++) {
			char c = chunk[i];

			if (c == '\n' || c == ';' || c == '\0') {
				st->line[st->len] = '\0';
				st->len = 0;
				ret = udmabuf_mgr_run(st->line);
				if (ret)
					goto out_unlock;
				continue;
			}
			if (st->len >= UDMABUF_MGR_LINE_MAX - 1) {
				st->len = 0;
				ret = -ENOSPC;
				goto out_unlock;
			}
			st->line[st->len++] = c;
		}
		done += n;
	}
out_unlock:
	mutex_unlock(&st->lock);
	return ret ? ret : count;
}

static int udmabuf_mgr_open(struct inode *inode, struct file *file)
{
	struct udmabuf_mgr_file *st = kzalloc(sizeof(*st), GFP_KERNEL);

	if (!st)
		return -ENOMEM;
	mutex_init(&st->lock);
	file->private_data = st;
	return 0;
}

static int udmabuf_mgr_release(struct inode *inode, struct file *file)
{
	struct udmabuf_mgr_file *st = file->private_data;

	mutex_destroy(&st->lock);
	kfree(st);
	return 0;
}

static const struct file_operations udmabuf_mgr_fops = {
	.owner = THIS_MODULE,
	.open = udmabuf_mgr_open,
	.release = udmabuf_mgr_release,
	.write = udmabuf_mgr_write,
	.llseek = noop_llseek,
};

static struct miscdevice udmabuf_mgr_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = UDMABUF_MGR_NAME,
	.fops = &udmabuf_mgr_fops,
	.mode = 0600,
};

module_misc_device(udmabuf_mgr_misc);

MODULE_DESCRIPTION("u-dma-buf-mgr: create and delete u-dma-buf buffers at run time");
MODULE_AUTHOR("udmem project");
MODULE_LICENSE("GPL");
