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

/* Copy @n bytes at @pos of the region to @bounce. */
static int uiomem_read_chunk(struct uiomem *um, void *bounce, loff_t pos,
			     size_t n)
{
	if (mutex_lock_interruptible(&um->lock))
		return -ERESTARTSYS;
	if (um->dead) {
		mutex_unlock(&um->lock);
		return -ENODEV;
	}
	/*
	 * Flushes, not invalidates: a reader must not discard what a writer
	 * through a cached mapping has not yet written back.
	 */
	uiomem_sync_flush(um, pos, n, 0);
	memcpy(bounce, um->vaddr + pos, n);
	/* Lines the copy pulled in must not hide the device's next writes. */
	uiomem_sync_flush(um, pos, n, 1);
	mutex_unlock(&um->lock);
	return 0;
}

/* Copy @n bytes of @bounce to @pos of the region, through to the device. */
static int uiomem_write_chunk(struct uiomem *um, const void *bounce,
			      loff_t pos, size_t n)
{
	if (mutex_lock_interruptible(&um->lock))
		return -ERESTARTSYS;
	if (um->dead) {
		mutex_unlock(&um->lock);
		return -ENODEV;
	}
	memcpy(um->vaddr + pos, bounce, n);
	uiomem_sync_for_device(um, pos, n, UDMEM_SYNC_TO_DEVICE);
	mutex_unlock(&um->lock);
	return 0;
}

/* Between chunks: let others run, stop for a fatal signal. */
static bool uiomem_rw_stop(void)
{
	cond_resched();
	return fatal_signal_pending(current);
}

static ssize_t uiomem_read(struct file *file, char __user *buf, size_t count,
			   loff_t *ppos)
{
	struct uiomem *um = file->private_data;
	loff_t pos = *ppos;
	void *bounce = NULL;
	size_t done = 0;
	ssize_t ret;

	if (READ_ONCE(um->dead))
		return -ENODEV;
	ret = uiomem_rw_span(um, count, pos);
	if (ret <= 0)
		return ret;
	bounce = uiomem_bounce_alloc(count);
	if (!bounce)
		return -ENOMEM;
	do {
		size_t n = ret, left;

		ret = uiomem_read_chunk(um, bounce, pos + done, n);
		if (ret)
			break;
		left = copy_to_user(buf + done, bounce, n);
		done += n - left;
		if (left) {
			ret = -EFAULT;
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

static ssize_t uiomem_write(struct file *file, const char __user *buf,
			    size_t count, loff_t *ppos)
{
	struct uiomem *um = file->private_data;
	loff_t pos = *ppos;
	void *bounce = NULL;
	size_t done = 0;
	ssize_t ret;

	if (READ_ONCE(um->dead))
		return -ENODEV;
	ret = uiomem_rw_span(um, count, pos);
	if (ret == 0 && count)
		ret = -ENOSPC;
	if (ret <= 0)
		return ret;
	bounce = uiomem_bounce_alloc(count);
	if (!bounce)
		return -ENOMEM;
	do {
		size_t n = ret, left;

		left = copy_from_user(bounce, buf + done, n);
		if (left == n) {
			ret = -EFAULT;
			break;
		}
		/* Whatever part was copied goes to the device. */
		ret = uiomem_write_chunk(um, bounce, pos + done, n - left);
		if (ret)
			break;
		done += n - left;
		if (left) {
			ret = -EFAULT;
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
