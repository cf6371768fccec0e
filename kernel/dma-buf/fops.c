// SPDX-License-Identifier: GPL-2.0
/*
 * u-dma-buf: file operations of /dev/<name>.
 *
 * read() and write() copy through the kernel mapping and are bounded by the
 * buffer size; with O_SYNC or sync_mode bit 2 they hand the range to the
 * CPU before the copy and back to the device after it.
 */
#include <linux/fs.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/uaccess.h>

#include "udmabuf.h"

static int udmabuf_open(struct inode *inode, struct file *file)
{
	struct udmabuf *buf = udmabuf_get_by_minor(iminor(inode));

	if (!buf)
		return -ENODEV;
	file->private_data = buf;
	return 0;
}

static int udmabuf_release_file(struct inode *inode, struct file *file)
{
	udmabuf_put(file->private_data);
	return 0;
}

static bool udmabuf_file_sync(const struct udmabuf *buf, const struct file *file)
{
	return (file->f_flags & O_SYNC) || (buf->sync_mode & UDMABUF_SYNC_ALWAYS);
}

/* The length of a transfer at *ppos, 0 at or past the end. */
static size_t udmabuf_rw_len(const struct udmabuf *buf, loff_t pos, size_t count)
{
	if (pos < 0 || (u64)pos >= buf->size)
		return 0;
	return min_t(u64, count, buf->size - pos);
}

static ssize_t udmabuf_read(struct file *file, char __user *ubuf, size_t count,
			    loff_t *ppos)
{
	struct udmabuf *buf = file->private_data;
	loff_t pos = *ppos;
	bool sync;
	size_t len;
	ssize_t ret;

	if (mutex_lock_interruptible(&buf->lock))
		return -ERESTARTSYS;
	if (buf->detached) {
		ret = -ENODEV;
		goto out_unlock;
	}
	len = udmabuf_rw_len(buf, pos, count);
	if (!len) {
		ret = 0;
		goto out_unlock;
	}
	sync = udmabuf_file_sync(buf, file);
	if (sync)
		udmabuf_sync_range(buf, false, pos, len, UDMEM_SYNC_FROM_DEVICE);
	if (copy_to_user(ubuf, buf->virt + pos, len)) {
		ret = -EFAULT;
	} else {
		*ppos = pos + len;
		ret = len;
	}
	if (sync)
		udmabuf_sync_range(buf, true, pos, len, UDMEM_SYNC_FROM_DEVICE);
out_unlock:
	mutex_unlock(&buf->lock);
	return ret;
}

static ssize_t udmabuf_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct udmabuf *buf = file->private_data;
	loff_t pos = *ppos;
	bool sync;
	size_t len;
	ssize_t ret;

	if (!count)
		return 0;
	if (mutex_lock_interruptible(&buf->lock))
		return -ERESTARTSYS;
	if (buf->detached) {
		ret = -ENODEV;
		goto out_unlock;
	}
	len = udmabuf_rw_len(buf, pos, count);
	if (!len) {
		/* Nothing fits: a full device, not a silent 0. */
		ret = -ENOSPC;
		goto out_unlock;
	}
	sync = udmabuf_file_sync(buf, file);
	if (sync)
		udmabuf_sync_range(buf, false, pos, len, UDMEM_SYNC_TO_DEVICE);
	if (copy_from_user(buf->virt + pos, ubuf, len)) {
		ret = -EFAULT;
	} else {
		*ppos = pos + len;
		ret = len;
	}
	if (sync)
		udmabuf_sync_range(buf, true, pos, len, UDMEM_SYNC_TO_DEVICE);
out_unlock:
	mutex_unlock(&buf->lock);
	return ret;
}

static loff_t udmabuf_llseek(struct file *file, loff_t offset, int whence)
{
	struct udmabuf *buf = file->private_data;
	loff_t base, pos;

	switch (whence) {
	case SEEK_SET:
		base = 0;
		break;
	case SEEK_CUR:
		base = file->f_pos;
		break;
	case SEEK_END:
		base = buf->size;
		break;
	default:
		return -EINVAL;
	}
	if (check_add_overflow(base, offset, &pos) || pos < 0 || (u64)pos > buf->size)
		return -EINVAL;
	file->f_pos = pos;
	return pos;
}

static int udmabuf_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct udmabuf *buf = file->private_data;
	int ret;

	mutex_lock(&buf->lock);
	ret = buf->detached ? -ENODEV :
	      udmabuf_mmap_range(&buf->view, vma, file->f_flags & O_SYNC);
	mutex_unlock(&buf->lock);
	return ret;
}

const struct file_operations udmabuf_fops = {
	.owner = THIS_MODULE,
	.open = udmabuf_open,
	.release = udmabuf_release_file,
	.read = udmabuf_read,
	.write = udmabuf_write,
	.llseek = udmabuf_llseek,
	.mmap = udmabuf_mmap,
	.unlocked_ioctl = udmabuf_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};
