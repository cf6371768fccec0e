// SPDX-License-Identifier: GPL-2.0
/*
 * file.c - /dev/<name>: open, read, write and llseek, each coherent with
 * the device without a separate sync.
 */
#include <linux/fs.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "uiomem.h"

static int uiomem_open(struct inode *inode, struct file *file)
{
	struct uiomem *um = container_of(inode->i_cdev, struct uiomem, cdev);

	if (mutex_lock_interruptible(&um->lock))
		return -ERESTARTSYS;
	if (um->dead) {
		mutex_unlock(&um->lock);
		return -ENODEV;
	}
	/*
	 * Every file of the region, whichever device node it was opened
	 * through, maps through one address space, so that removal finds
	 * all user mappings there.
	 */
	if (!um->map_inode)
		um->map_inode = igrab(inode);
	if (um->map_inode)
		file->f_mapping = um->map_inode->i_mapping;
	get_device(&um->dev);
	mutex_unlock(&um->lock);
	file->private_data = um;
	return 0;
}

static int uiomem_release(struct inode *inode, struct file *file)
{
	struct uiomem *um = file->private_data;

	put_device(&um->dev);
	return 0;
}

/*
 * read() and write() move the data through a kernel bounce buffer, one
 * chunk per hold of @um->lock: the lock covers the region's alias (which
 * unbind unmaps) and the cache maintenance, never a user copy.  A user copy
 * can fault and take mmap_lock, while mmap() takes @um->lock with mmap_lock
 * held: holding the lock across the copy would deadlock (ABBA).
 */
#define UIOMEM_RW_CHUNK		SZ_64K

/*
 * Clamp [pos, pos + count) to the region and to one chunk; 0 when nothing
 * is left.  The size never changes, so no lock is needed.
 */
static ssize_t uiomem_rw_span(struct uiomem *um, size_t count, loff_t pos)
{
	if (pos < 0)
		return -EINVAL;
	if (pos >= um->size)
		return 0;
	return min_t(u64, min_t(u64, count, um->size - pos), UIOMEM_RW_CHUNK);
}

static void *uiomem_bounce_alloc(size_t count)
{
	return kvmalloc(min_t(size_t, count, UIOMEM_RW_CHUNK), GFP_KERNEL);
}

/*
 * Copy @n bytes between @bounce and @pos of the region: to the region, and
 * through to the device, for a write; from it for a read.
 */
static int uiomem_copy_chunk(struct uiomem *um, void *bounce, loff_t pos,
			     size_t n, bool write)
{
	if (mutex_lock_interruptible(&um->lock))
		return -ERESTARTSYS;
	if (um->dead) {
		mutex_unlock(&um->lock);
		return -ENODEV;
	}
	/* The sync checker: may the CPU copy what the device owns? */
	if (unlikely(um->sync_check)) {
		int err = uiomem_chk_rw(um, pos, n, write);

		if (err) {
			mutex_unlock(&um->lock);
			return err;
		}
	}
	if (write) {
		memcpy(um->vaddr + pos, bounce, n);
		uiomem_sync_for_device(um, pos, n, UDMEM_SYNC_TO_DEVICE);
	} else {
		/*
		 * Flushes, not invalidates: a reader must not discard what a
		 * writer through a cached mapping has not yet written back.
		 */
		uiomem_sync_flush(um, pos, n, 0);
		memcpy(bounce, um->vaddr + pos, n);
		/* Lines the copy pulled in must not hide the device's next writes. */
		uiomem_sync_flush(um, pos, n, 1);
	}
	mutex_unlock(&um->lock);
	return 0;
}

/*
 * One chunk of a read() or write() between @ubuf and @pos: the bytes it
 * moved, and in *@err 0 or why it moved fewer than @n.  A write that could
 * copy part of @ubuf writes that part to the region.
 */
static size_t uiomem_rw_chunk(struct uiomem *um, void *bounce,
			      char __user *ubuf, loff_t pos, size_t n,
			      bool write, int *err)
{
	size_t left;

	if (write) {
		left = copy_from_user(bounce, ubuf, n);
		*err = left == n ? -EFAULT :
		       uiomem_copy_chunk(um, bounce, pos, n - left, true);
	} else {
		left = n;
		*err = uiomem_copy_chunk(um, bounce, pos, n, false);
		if (!*err)
			left = copy_to_user(ubuf, bounce, n);
	}
	if (*err)
		return 0;
	if (left)
		*err = -EFAULT;
	return n - left;
}

/* Between chunks: let others run, stop for a fatal signal. */
static bool uiomem_rw_stop(void)
{
	cond_resched();
	return fatal_signal_pending(current);
}

/* read() and write(), chunk by chunk through a bounce buffer. */
static ssize_t uiomem_rw(struct file *file, char __user *ubuf, size_t count,
			 loff_t *ppos, bool write)
{
	struct uiomem *um = file->private_data;
	loff_t pos = *ppos;
	void *bounce;
	size_t done = 0;
	ssize_t ret;
	int err;

	if (READ_ONCE(um->dead))
		return -ENODEV;
	ret = uiomem_rw_span(um, count, pos);
	if (write && ret == 0 && count)
		ret = -ENOSPC;
	if (ret <= 0)
		return ret;
	bounce = uiomem_bounce_alloc(count);
	if (!bounce)
		return -ENOMEM;
	do {
		done += uiomem_rw_chunk(um, bounce, ubuf + done, pos + done, ret,
					write, &err);
		if (err) {
			ret = err;
			break;
		}
		if (uiomem_rw_stop()) {
			ret = -EINTR;
			break;
		}
		ret = uiomem_rw_span(um, count - done, pos + done);
	} while (ret > 0);
	kvfree(bounce);
	if (!done)
		return ret;
	*ppos = pos + done;
	return done;
}

static ssize_t uiomem_read(struct file *file, char __user *buf, size_t count,
			   loff_t *ppos)
{
	return uiomem_rw(file, buf, count, ppos, false);
}

static ssize_t uiomem_write(struct file *file, const char __user *buf,
			    size_t count, loff_t *ppos)
{
	/* uiomem_rw() only reads from @buf when writing. */
	return uiomem_rw(file, (char __user *)buf, count, ppos, true);
}

static loff_t uiomem_llseek(struct file *file, loff_t offset, int whence)
{
	struct uiomem *um = file->private_data;

	return fixed_size_llseek(file, offset, whence, um->size);
}

const struct file_operations uiomem_fops = {
	.owner = THIS_MODULE,
	.open = uiomem_open,
	.release = uiomem_release,
	.read = uiomem_read,
	.write = uiomem_write,
	.llseek = uiomem_llseek,
	.mmap = uiomem_mmap,
	.unlocked_ioctl = uiomem_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};
