// SPDX-License-Identifier: GPL-2.0
/*
 * ioctl.c - UIOMEM_IOCTL_QUERY and UIOMEM_IOCTL_SYNC (<linux/uiomem.h>).
 */
#include <linux/fs.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/uiomem.h>

#include "uiomem.h"

static int uiomem_ioctl_query(struct uiomem *um, struct file *file,
			      void __user *arg)
{
	struct uiomem_query q;
	bool o_sync = file->f_flags & O_SYNC;

	memset(&q, 0, sizeof(q));
	if (mutex_lock_interruptible(&um->lock))
		return -ERESTARTSYS;
	if (um->dead) {
		mutex_unlock(&um->lock);
		return -ENODEV;
	}
	q.size = um->size;
	q.phys_addr = um->phys;
	q.cache_line_size = uiomem_cache_line;
	q.map_type = uiomem_map_type(um, o_sync);
	q.sync_mode = um->sync_mode;
	q.abi_version = UIOMEM_ABI_VERSION;
	if (um->shareable)
		q.flags |= UIOMEM_QUERY_SHAREABLE;
	if (um->sync_mode & UIOMEM_SYNC_ALWAYS)
		q.flags |= UIOMEM_QUERY_SYNC_ALWAYS;
	if (o_sync)
		q.flags |= UIOMEM_QUERY_O_SYNC;
	if (!uiomem_cache_line)
		q.flags |= UIOMEM_QUERY_NO_CACHE_OPS;
	q.sync_calls = atomic64_read(&um->sync_calls);
	q.sync_lines = atomic64_read(&um->sync_lines);
	q.sync_barriers = atomic64_read(&um->sync_barriers);
	mutex_unlock(&um->lock);

	return copy_to_user(arg, &q, sizeof(q)) ? -EFAULT : 0;
}

static int uiomem_ioctl_sync(struct uiomem *um, struct file *file,
			     void __user *arg)
{
	struct uiomem_sync s;
	enum udmem_sync_dir dir;
	bool for_device;
	int ret;

	if (copy_from_user(&s, arg, sizeof(s)))
		return -EFAULT;
	if (s.flags & ~UIOMEM_SYNC_VALID_FLAGS || !(s.flags & UIOMEM_SYNC_RW))
		return -EINVAL;
	if (s.__pad || s.reserved[0] || s.reserved[1])
		return -EINVAL;

	switch (s.flags & UIOMEM_SYNC_RW) {
	case UIOMEM_SYNC_READ:
		dir = UDMEM_SYNC_FROM_DEVICE;
		break;
	case UIOMEM_SYNC_WRITE:
		dir = UDMEM_SYNC_TO_DEVICE;
		break;
	default:
		dir = UDMEM_SYNC_BIDIRECTIONAL;
		break;
	}

	for_device = s.flags & UIOMEM_SYNC_END;
	/* Discarding lines loses other writers' data: it takes a writer. */
	if (uiomem_sync_may_discard(for_device, dir) && !(file->f_mode & FMODE_WRITE))
		return -EBADF;

	if (mutex_lock_interruptible(&um->lock))
		return -ERESTARTSYS;
	if (for_device)
		ret = uiomem_sync_for_device(um, s.offset, s.length, dir);
	else
		ret = uiomem_sync_for_cpu(um, s.offset, s.length, dir);
	mutex_unlock(&um->lock);
	return ret;
}

long uiomem_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct uiomem *um = file->private_data;

	switch (cmd) {
	case UIOMEM_IOCTL_QUERY:
		return uiomem_ioctl_query(um, file, (void __user *)arg);
	case UIOMEM_IOCTL_SYNC:
		return uiomem_ioctl_sync(um, file, (void __user *)arg);
	default:
		return -ENOTTY;
	}
}
