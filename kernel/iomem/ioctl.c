// SPDX-License-Identifier: GPL-2.0
/*
 * ioctl.c - the ioctls of <linux/uiomem.h>: the original driver's 'U' 1..9
 * (ioctl version 1) and our 'u' 0xc0..0xc2 extensions, QUERY, SYNC and
 * EXPORT (export.c).
 *
 * Every structure is made of fixed-width fields without pointers or longs,
 * so compat_ptr_ioctl serves 32-bit programs on 64-bit kernels unchanged.
 */
#include <linux/build_bug.h>
#include <linux/fs.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/uiomem.h>

#include "uiomem.h"

/* The 1.1 ABI is frozen: its numbers and layouts must never move. */
static_assert(sizeof(struct uiomem_ioctl_drv_info) == 40);
static_assert(sizeof(struct uiomem_ioctl_dev_info) == 24);
static_assert(sizeof(struct uiomem_ioctl_sync_args) == 24);
static_assert(offsetof(struct uiomem_ioctl_drv_info, sync_operation) == 24);
static_assert(offsetof(struct uiomem_ioctl_dev_info, addr) == 16);
static_assert(offsetof(struct uiomem_ioctl_sync_args, offset) == 16);
static_assert(UIOMEM_IOCTL_GET_DRV_INFO == 0x80285501);
static_assert(UIOMEM_IOCTL_GET_SIZE == 0x80085502);
static_assert(UIOMEM_IOCTL_GET_PHYS_ADDR == 0x80085503);
static_assert(UIOMEM_IOCTL_GET_SYNC_OWNER == 0x80045504);
static_assert(UIOMEM_IOCTL_SET_SYNC_FOR_CPU == 0x40085505);
static_assert(UIOMEM_IOCTL_SET_SYNC_FOR_DEVICE == 0x40085506);
static_assert(UIOMEM_IOCTL_GET_DEV_INFO == 0x80185507);
static_assert(UIOMEM_IOCTL_GET_SYNC == 0x80185508);
static_assert(UIOMEM_IOCTL_SET_SYNC == 0x40185509);
/* Ours: no pointer and no long, so one layout for 32- and 64-bit callers. */
static_assert(sizeof(struct uiomem_query) == 96);
static_assert(sizeof(struct uiomem_sync) == 40);
static_assert(sizeof(struct uiomem_export) == 40);
static_assert(UIOMEM_IOCTL_EXPORT == 0xc02875c2);

static int uiomem_ioctl_get_drv_info(void __user *arg)
{
	struct uiomem_ioctl_drv_info info;

	static_assert(sizeof(UIOMEM_DRIVER_VERSION) <= sizeof(info.version));
	memset(&info, 0, sizeof(info));
	info.flags = UIOMEM_FLAGS_SET(0, UIOMEM_DRV_INFO_FLAGS_IOCTL_VERSION,
				      UIOMEM_IOCTL_VERSION);
	strscpy(info.version, UIOMEM_DRIVER_VERSION, sizeof(info.version));
	/* Without cache maintenance the string stays empty (sysfs: NONE). */
	if (uiomem_cache_line)
		strscpy(info.sync_operation, uiomem_cache_ops.sync_operation,
			sizeof(info.sync_operation));
	return copy_to_user(arg, &info, sizeof(info)) ? -EFAULT : 0;
}

static int uiomem_ioctl_get_dev_info(struct uiomem *um, void __user *arg)
{
	struct uiomem_ioctl_dev_info info;

	memset(&info, 0, sizeof(info));
	/* All fixed at probe. */
	info.flags = UIOMEM_FLAGS_SET(info.flags, UIOMEM_DEV_INFO_FLAGS_SHAREABLE,
				      um->shareable);
	info.flags = UIOMEM_FLAGS_SET(info.flags, UIOMEM_DEV_INFO_FLAGS_CACHED,
				      um->cached);
	info.flags = UIOMEM_FLAGS_SET(info.flags, UIOMEM_DEV_INFO_FLAGS_COHERENT,
				      um->coherent);
	info.size = um->size;
	info.addr = um->phys;
	return copy_to_user(arg, &info, sizeof(info)) ? -EFAULT : 0;
}

static int uiomem_ioctl_get_sync(struct uiomem *um, void __user *arg)
{
	struct uiomem_ioctl_sync_args sa;

	memset(&sa, 0, sizeof(sa));
	if (mutex_lock_interruptible(&um->lock))
		return -ERESTARTSYS;
	sa.flags = UIOMEM_FLAGS_SET(sa.flags, UIOMEM_SYNC_ARGS_FLAGS_SYNC_DIR,
				    um->sync_direction);
	sa.flags = UIOMEM_FLAGS_SET(sa.flags, UIOMEM_SYNC_ARGS_FLAGS_SYNC_MODE,
				    um->sync_mode);
	sa.flags = UIOMEM_FLAGS_SET(sa.flags, UIOMEM_SYNC_ARGS_FLAGS_SYNC_OWNER,
				    um->sync_owner);
	sa.size = um->sync_size;
	sa.offset = um->sync_offset;
	mutex_unlock(&um->lock);
	return copy_to_user(arg, &sa, sizeof(sa)) ? -EFAULT : 0;
}

/*
 * SET_SYNC: store the direction (if 0..2), the mode (if not 0), the offset
 * (always) and the size (if not 0), then with SYNC_CMD 1 or 3 sync the
 * stored range.  A failed sync leaves the new values stored, as writing
 * the attributes one by one would.  Unlike the original driver, a mode
 * above 7 is EINVAL (sysfs sync_mode refuses it too), and an invalidating
 * sync on a file not open for writing is EBADF; both change nothing.
 */
static int uiomem_ioctl_set_sync(struct uiomem *um, struct file *file,
				 void __user *arg)
{
	struct uiomem_ioctl_sync_args sa;
	enum udmem_sync_dir dir;
	u64 cmd, mode;
	bool for_device;
	int ret = 0;

	if (copy_from_user(&sa, arg, sizeof(sa)))
		return -EFAULT;
	cmd = UIOMEM_FLAGS_GET(sa.flags, UIOMEM_SYNC_ARGS_FLAGS_SYNC_CMD);
	mode = UIOMEM_FLAGS_GET(sa.flags, UIOMEM_SYNC_ARGS_FLAGS_SYNC_MODE);
	if (mode > UIOMEM_SYNC_MODE_MAX)
		return -EINVAL;
	for_device = cmd == UIOMEM_SYNC_CMD_FOR_DEVICE;

	if (mutex_lock_interruptible(&um->lock))
		return -ERESTARTSYS;
	dir = UIOMEM_FLAGS_GET(sa.flags, UIOMEM_SYNC_ARGS_FLAGS_SYNC_DIR);
	if (!udmem_sync_dir_valid(dir))
		dir = um->sync_direction;
	if ((cmd & 1) && udmem_sync_invalidates(for_device, dir) &&
	    !(file->f_mode & FMODE_WRITE)) {
		ret = -EBADF;
		goto out_unlock;
	}
	um->sync_direction = dir;
	if (mode)
		um->sync_mode = mode;
	um->sync_offset = sa.offset;
	if (sa.size)
		um->sync_size = sa.size;
	if (cmd & 1)
		ret = uiomem_sync_command(um, 1, for_device, "ioctl");
out_unlock:
	mutex_unlock(&um->lock);
	return ret;
}

/* SET_SYNC_FOR_CPU / _DEVICE: a packed command, as sysfs sync_for_*. */
static int uiomem_ioctl_sync_for(struct uiomem *um, struct file *file,
				 void __user *arg, bool for_device)
{
	u64 value;
	int ret;

	if (copy_from_user(&value, arg, sizeof(value)))
		return -EFAULT;
	if (mutex_lock_interruptible(&um->lock))
		return -ERESTARTSYS;
	if (uiomem_sync_command_may_discard(um, value, for_device) &&
	    !(file->f_mode & FMODE_WRITE))
		ret = -EBADF;
	else
		ret = uiomem_sync_store(um, value, for_device, "ioctl");
	mutex_unlock(&um->lock);
	return ret;
}

static int uiomem_ioctl_get_sync_owner(struct uiomem *um, void __user *arg)
{
	u32 owner;

	if (mutex_lock_interruptible(&um->lock))
		return -ERESTARTSYS;
	owner = um->sync_owner;
	mutex_unlock(&um->lock);
	return put_user(owner, (u32 __user *)arg);
}

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
	if (udmem_sync_invalidates(for_device, dir) && !(file->f_mode & FMODE_WRITE))
		return -EBADF;

	if (mutex_lock_interruptible(&um->lock))
		return -ERESTARTSYS;
	if (for_device)
		ret = uiomem_sync_for_device(um, s.offset, s.length, dir);
	else
		ret = uiomem_sync_for_cpu(um, s.offset, s.length, dir);
	if (!ret && unlikely(um->sync_check))
		uiomem_chk_sync(um, for_device, s.offset, s.length, dir, "ioctl", false);
	mutex_unlock(&um->lock);
	return ret;
}

static int uiomem_ioctl_export(struct uiomem *um, struct file *file, void __user *arg)
{
	struct uiomem_export e;
	int ret;

	if (copy_from_user(&e, arg, sizeof(e)))
		return -EFAULT;
	ret = uiomem_export(um, file, &e);
	if (ret)
		return ret;
	/* The descriptor is installed: the caller owns it even if this fails. */
	return copy_to_user(arg, &e, sizeof(e)) ? -EFAULT : 0;
}

long uiomem_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct uiomem *um = file->private_data;
	void __user *p = (void __user *)arg;
	u64 v;

	switch (cmd) {
	case UIOMEM_IOCTL_GET_DRV_INFO:
		return uiomem_ioctl_get_drv_info(p);
	case UIOMEM_IOCTL_GET_SIZE:
		v = um->size;
		return copy_to_user(p, &v, sizeof(v)) ? -EFAULT : 0;
	case UIOMEM_IOCTL_GET_PHYS_ADDR:
		v = um->phys;
		return copy_to_user(p, &v, sizeof(v)) ? -EFAULT : 0;
	case UIOMEM_IOCTL_GET_SYNC_OWNER:
		return uiomem_ioctl_get_sync_owner(um, p);
	case UIOMEM_IOCTL_SET_SYNC_FOR_CPU:
		return uiomem_ioctl_sync_for(um, file, p, false);
	case UIOMEM_IOCTL_SET_SYNC_FOR_DEVICE:
		return uiomem_ioctl_sync_for(um, file, p, true);
	case UIOMEM_IOCTL_GET_DEV_INFO:
		return uiomem_ioctl_get_dev_info(um, p);
	case UIOMEM_IOCTL_GET_SYNC:
		return uiomem_ioctl_get_sync(um, p);
	case UIOMEM_IOCTL_SET_SYNC:
		return uiomem_ioctl_set_sync(um, file, p);
	case UIOMEM_IOCTL_QUERY:
		return uiomem_ioctl_query(um, file, (void __user *)arg);
	case UIOMEM_IOCTL_SYNC:
		return uiomem_ioctl_sync(um, file, (void __user *)arg);
	case UIOMEM_IOCTL_EXPORT:
		return uiomem_ioctl_export(um, file, p);
	default:
		return -ENOTTY;
	}
}
