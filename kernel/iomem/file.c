// SPDX-License-Identifier: GPL-2.0
/*
 * file.c - /dev/<name>: open, read, write and llseek, each coherent with
 * the device without a separate sync.
 */
#include <linux/fs.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/uaccess.h>

#include "uiomem.h"

static int uiomem_open(struct inode *inode, struct file *file)
{
	struct uiomem *um = container_of(inode->i_cdev, struct uiomem, cdev);

	get_device(&um->dev);
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
 * Clamp [*ppos, *ppos + count) to the region; 0 when nothing is left.
 * @um->lock held.
 */
static ssize_t uiomem_rw_span(struct uiomem *um, size_t count, loff_t pos)
{
	if (um->dead)
		return -ENODEV;
	if (pos < 0)
		return -EINVAL;
	if (pos >= um->size)
		return 0;
	return min_t(u64, count, um->size - pos);
}

static ssize_t uiomem_read(struct file *file, char __user *buf, size_t count,
			   loff_t *ppos)
{
	struct uiomem *um = file->private_data;
	loff_t pos = *ppos;
	ssize_t n;
	size_t left;

	if (mutex_lock_interruptible(&um->lock))
		return -ERESTARTSYS;
	n = uiomem_rw_span(um, count, pos);
	if (n <= 0)
		goto out_unlock;
	uiomem_sync_for_cpu(um, pos, n, UDMEM_SYNC_FROM_DEVICE);
	left = copy_to_user(buf, um->vaddr + pos, n);
	/* Lines the copy pulled in must not hide the device's next writes. */
	uiomem_sync_for_device(um, pos, n, UDMEM_SYNC_FROM_DEVICE);
	if (left == n) {
		n = -EFAULT;
		goto out_unlock;
	}
	n -= left;
	*ppos = pos + n;
out_unlock:
	mutex_unlock(&um->lock);
	return n;
}

static ssize_t uiomem_write(struct file *file, const char __user *buf,
			    size_t count, loff_t *ppos)
{
	struct uiomem *um = file->private_data;
	loff_t pos = *ppos;
	ssize_t n;
	size_t left;

	if (mutex_lock_interruptible(&um->lock))
		return -ERESTARTSYS;
	n = uiomem_rw_span(um, count, pos);
	if (n == 0 && count)
		n = -ENOSPC;
	if (n <= 0)
		goto out_unlock;
	left = copy_from_user(um->vaddr + pos, buf, n);
	/* Whatever part was copied goes to the device. */
	uiomem_sync_for_device(um, pos, n, UDMEM_SYNC_TO_DEVICE);
	if (left == n) {
		n = -EFAULT;
		goto out_unlock;
	}
	n -= left;
	*ppos = pos + n;
out_unlock:
	mutex_unlock(&um->lock);
	return n;
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
