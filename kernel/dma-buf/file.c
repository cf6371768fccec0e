// SPDX-License-Identifier: GPL-2.0
/*
 * u-dma-buf: file operations of /dev/<name>.
 *
 * read() and write() copy through the kernel mapping and are bounded by the
 * buffer size (a write that faults part way counts the bytes it wrote);
 * with O_SYNC or sync_mode bit 2 they hand the range to the CPU before the
 * copy and back to the device after it.  Through a cached kernel address
 * (alloc.c) they also keep the range coherent with memory without O_SYNC,
 * as the original driver's uncached copies were.
 */
#include <linux/dma-direction.h>
#include <linux/fs.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/uaccess.h>

#include "cache-flush.h"
#include "compat.h"
#include "udmabuf.h"

static int udmabuf_open(struct inode *inode, struct file *file)
{
	struct udmabuf *buf = udmabuf_get_by_minor(iminor(inode));

	int ret;

	if (!buf)
		return -ENODEV;
	/* The sync checker removes device-owned pages from its mappings. */
	ret = udmabuf_own_map_add(buf, file->f_mapping, 0, buf->alloc_size);
	if (ret) {
		udmabuf_put(buf);
		return ret;
	}
	file->private_data = buf;
	return 0;
}

static int udmabuf_release_file(struct inode *inode, struct file *file)
{
	struct udmabuf *buf = file->private_data;

	udmabuf_own_map_del(buf, file->f_mapping, 0);
	udmabuf_put(buf);
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

/* What read() and write() do around the copy. */
enum udmabuf_rw_sync {
	UDMABUF_RW_PLAIN,	/* nothing */
	UDMABUF_RW_OWNER,	/* O_SYNC: hand the range to the CPU and back */
	/*
	 * A cached kernel address: make the range coherent with memory
	 * around the copy and leave the sync owner alone.  Before a read,
	 * clean and invalidate in one pass (udmabuf_alias_flush()), so that
	 * dirty lines of a cached mapping are written rather than dropped;
	 * after a write, clean.
	 */
	UDMABUF_RW_ALIAS,
};

/*
 * Clean and invalidate a range of the cached kernel alias, each line in
 * one instruction: a line a cached user mapping dirties meanwhile is
 * written back, never dropped, as it would be between a clean pass and an
 * invalidate pass (cache-flush.h).  Where no such instruction is known, the
 * DMA API's two passes.  The caller holds buf->lock.
 */
static void udmabuf_alias_flush(struct udmabuf *buf, loff_t pos, size_t len)
{
	if (buf->no_cpu_sync)
		return;
	if (udmabuf_cache_flush(buf->virt + pos, len))
		return;
	udmabuf_sync_dma(buf, true, pos, len, DMA_BIDIRECTIONAL);
	udmabuf_sync_dma(buf, false, pos, len, DMA_BIDIRECTIONAL);
}

/*
 * Sync the range before a copy, under the lock.  The copy itself runs
 * without the lock: it may fault on a user page, and mmap() (which holds
 * mmap_lock) must never wait for a lock held across a fault.  The file's
 * reference keeps the memory.
 */
static ssize_t udmabuf_rw_begin(struct udmabuf *buf, struct file *file, loff_t pos,
				size_t count, u32 dir, enum udmabuf_rw_sync *sync)
{
	ssize_t len;

	if (mutex_lock_interruptible(&buf->lock))
		return -ERESTARTSYS;
	if (buf->detached) {
		len = -ENODEV;
	} else {
		len = udmabuf_rw_len(buf, pos, count);
		*sync = UDMABUF_RW_PLAIN;
		/*
		 * The O_SYNC read's sync for the CPU invalidates, which drops
		 * other writers' dirty lines: a write.  Through a file not open
		 * for writing the read gets memory's contents as without
		 * O_SYNC, and the sync owner stays.
		 */
		if (len && udmabuf_file_sync(buf, file) &&
		    (dir == UDMEM_SYNC_TO_DEVICE || (file->f_mode & FMODE_WRITE)))
			*sync = UDMABUF_RW_OWNER;
		else if (len && buf->cached_alias)
			*sync = UDMABUF_RW_ALIAS;
		/* The sync checker: may the CPU copy what the device owns? */
		if (unlikely(buf->sync_check) && len && *sync != UDMABUF_RW_OWNER) {
			int err = udmabuf_own_rw(buf, pos, len, dir == UDMEM_SYNC_TO_DEVICE);

			if (err) {
				len = err;
				*sync = UDMABUF_RW_PLAIN;
			}
		}
		if (*sync == UDMABUF_RW_OWNER)
			udmabuf_sync_range(buf, false, pos, len, dir, UDMABUF_VIA_RW);
		else if (*sync == UDMABUF_RW_ALIAS && dir == UDMEM_SYNC_FROM_DEVICE)
			udmabuf_alias_flush(buf, pos, len);
	}
	mutex_unlock(&buf->lock);
	return len;
}

static void udmabuf_rw_end(struct udmabuf *buf, enum udmabuf_rw_sync sync, loff_t pos,
			   size_t len, u32 dir)
{
	mutex_lock(&buf->lock);
	if (sync == UDMABUF_RW_OWNER)
		udmabuf_sync_range(buf, true, pos, len, dir, UDMABUF_VIA_RW);
	else if (sync == UDMABUF_RW_ALIAS && dir == UDMEM_SYNC_TO_DEVICE)
		udmabuf_sync_dma(buf, true, pos, len, DMA_TO_DEVICE);
	mutex_unlock(&buf->lock);
}

static ssize_t udmabuf_read(struct file *file, char __user *ubuf, size_t count,
			    loff_t *ppos)
{
	struct udmabuf *buf = file->private_data;
	enum udmabuf_rw_sync sync = UDMABUF_RW_PLAIN;
	loff_t pos = *ppos;
	ssize_t len;

	/* The memory stays while we copy (udmabuf_free_early()). */
	if (down_read_killable(&buf->mem_sem))
		return -EINTR;
	len = udmabuf_rw_begin(buf, file, pos, count, UDMEM_SYNC_FROM_DEVICE, &sync);
	if (len <= 0)
		goto out;
	if (copy_to_user(ubuf, buf->virt + pos, len))
		len = -EFAULT;
	else
		*ppos = pos + len;
	if (sync == UDMABUF_RW_OWNER)
		udmabuf_rw_end(buf, sync, pos, len < 0 ? 0 : len, UDMEM_SYNC_FROM_DEVICE);
out:
	up_read(&buf->mem_sem);
	return len;
}

static ssize_t udmabuf_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct udmabuf *buf = file->private_data;
	enum udmabuf_rw_sync sync = UDMABUF_RW_PLAIN;
	loff_t pos = *ppos;
	size_t left;
	ssize_t len;

	if (!count)
		return 0;
	/* The memory stays while we copy (udmabuf_free_early()). */
	if (down_read_killable(&buf->mem_sem))
		return -EINTR;
	len = udmabuf_rw_begin(buf, file, pos, count, UDMEM_SYNC_TO_DEVICE, &sync);
	if (!len)
		len = -ENOSPC;		/* nothing fits: a full device, not a silent 0 */
	if (len < 0)
		goto out;
	/*
	 * Not copy_from_user(): on a fault it zeroes the rest of the
	 * destination, bytes of the buffer this write never had.  The bytes
	 * before the fault are written and counted; none is EFAULT.
	 */
	left = access_ok(ubuf, len) ? __copy_from_user(buf->virt + pos, ubuf, len) : len;
	len -= left;
	if (sync != UDMABUF_RW_PLAIN)
		udmabuf_rw_end(buf, sync, pos, len, UDMEM_SYNC_TO_DEVICE);
	if (len)
		*ppos = pos + len;
	else
		len = -EFAULT;
out:
	up_read(&buf->mem_sem);
	return len;
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

	/*
	 * No buf->lock here: mmap_lock is held, and read/write fault under it.
	 * udmabuf_mmap_range() refuses a buffer whose memory went already.
	 */
	if (READ_ONCE(buf->detached))
		return -ENODEV;
	return udmabuf_mmap_range(&buf->view, vma, file->f_flags & O_SYNC);
}

const struct file_operations udmabuf_fops = {
	.owner = THIS_MODULE,
	.open = udmabuf_open,
	.release = udmabuf_release_file,
	.read = udmabuf_read,
	.write = udmabuf_write,
	.llseek = udmabuf_llseek,
	.mmap = udmabuf_mmap,
	.get_unmapped_area = UDMEM_GET_UNMAPPED_AREA(udmabuf_get_unmapped_area),
	.unlocked_ioctl = udmabuf_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};
