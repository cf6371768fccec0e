// SPDX-License-Identifier: GPL-2.0
/*
 * u-dma-buf: the ioctls of /dev/<name> (u-dma-buf ioctl version 2).
 */
#include <linux/build_bug.h>
#include <linux/fs.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "udmabuf.h"

/* The reference layouts and numbers, frozen. */
static_assert(sizeof(struct u_dma_buf_ioctl_drv_info) == 24);
static_assert(sizeof(struct u_dma_buf_ioctl_dev_info) == 24);
static_assert(sizeof(struct u_dma_buf_ioctl_sync_args) == 24);
static_assert(sizeof(struct u_dma_buf_ioctl_export_args) == 40);
static_assert(offsetof(struct u_dma_buf_ioctl_export_args, fd) == 32);
static_assert(U_DMA_BUF_IOCTL_GET_DRV_INFO == 0x80185501);
static_assert(U_DMA_BUF_IOCTL_GET_SIZE == 0x80085502);
static_assert(U_DMA_BUF_IOCTL_GET_DMA_ADDR == 0x80085503);
static_assert(U_DMA_BUF_IOCTL_GET_SYNC_OWNER == 0x80045504);
static_assert(U_DMA_BUF_IOCTL_SET_SYNC_FOR_CPU == 0x40085505);
static_assert(U_DMA_BUF_IOCTL_SET_SYNC_FOR_DEVICE == 0x40085506);
static_assert(U_DMA_BUF_IOCTL_GET_DEV_INFO == 0x80185507);
static_assert(U_DMA_BUF_IOCTL_GET_SYNC == 0x80185508);
static_assert(U_DMA_BUF_IOCTL_SET_SYNC == 0x40185509);
static_assert(U_DMA_BUF_IOCTL_EXPORT == 0xC028550A);
/* udmem's own */
static_assert(sizeof(struct u_dma_buf_ioctl_import_args) == 32);
static_assert(U_DMA_BUF_IOCTL_IMPORT == 0xC0205540);

static long udmabuf_ioctl_drv_info(void __user *arg)
{
	struct u_dma_buf_ioctl_drv_info info;

	memset(&info, 0, sizeof(info));
	SET_U_DMA_BUF_IOCTL_FLAGS_IOCTL_VERSION(&info, U_DMA_BUF_IOCTL_VERSION);
	SET_U_DMA_BUF_IOCTL_FLAGS_IN_KERNEL_FUNCTIONS(&info, 1);
	SET_U_DMA_BUF_IOCTL_FLAGS_USE_OF_DMA_CONFIG(&info, IS_ENABLED(CONFIG_OF));
	SET_U_DMA_BUF_IOCTL_FLAGS_USE_OF_RESERVED_MEM(&info, IS_ENABLED(CONFIG_OF_RESERVED_MEM));
	SET_U_DMA_BUF_IOCTL_FLAGS_USE_QUIRK_MMAP(&info, 1);
	SET_U_DMA_BUF_IOCTL_FLAGS_USE_QUIRK_MMAP_PAGE(&info, 1);
	strscpy(info.version, UDMABUF_DRIVER_VERSION, sizeof(info.version));
	return copy_to_user(arg, &info, sizeof(info)) ? -EFAULT : 0;
}

static long udmabuf_ioctl_dev_info(struct udmabuf *buf, void __user *arg)
{
	struct u_dma_buf_ioctl_dev_info info;

	memset(&info, 0, sizeof(info));
	SET_U_DMA_BUF_IOCTL_FLAGS_DMA_MASK(&info, udmabuf_dma_mask_bits(buf));
	SET_U_DMA_BUF_IOCTL_FLAGS_DMA_COHERENT(&info, udmabuf_dma_coherent(buf));
	SET_U_DMA_BUF_IOCTL_FLAGS_MMAP_MODE(&info, buf->quirk_mmap_mode);
	info.size = buf->size;
	info.addr = buf->dma_addr;
	return copy_to_user(arg, &info, sizeof(info)) ? -EFAULT : 0;
}

static long udmabuf_ioctl_get_sync(struct udmabuf *buf, void __user *arg)
{
	struct u_dma_buf_ioctl_sync_args args;

	memset(&args, 0, sizeof(args));
	mutex_lock(&buf->lock);
	SET_U_DMA_BUF_IOCTL_FLAGS_SYNC_DIR(&args, buf->sync_direction);
	SET_U_DMA_BUF_IOCTL_FLAGS_SYNC_MODE(&args, buf->sync_mode);
	SET_U_DMA_BUF_IOCTL_FLAGS_SYNC_OWNER(&args, buf->sync_owner);
	args.size = buf->sync_size;
	args.offset = buf->sync_offset;
	mutex_unlock(&buf->lock);
	return copy_to_user(arg, &args, sizeof(args)) ? -EFAULT : 0;
}

/*
 * SET_SYNC: direction 3 and mode 0 keep the stored values, size 0 keeps
 * the stored size, the offset is always stored; then command 1 syncs for
 * the CPU and 3 for the device over the stored range.  Unlike the
 * reference, a mode above 7 is -EINVAL, and a command that may invalidate
 * (udmem_sync_invalidates()) or a new sync mode from a file not open for
 * writing is -EBADF with nothing stored.
 */
static long udmabuf_ioctl_set_sync(struct udmabuf *buf, void __user *arg, bool writable)
{
	struct u_dma_buf_ioctl_sync_args args;
	int dir, mode, cmd;

	if (copy_from_user(&args, arg, sizeof(args)))
		return -EFAULT;
	dir = GET_U_DMA_BUF_IOCTL_FLAGS_SYNC_DIR(&args);
	mode = GET_U_DMA_BUF_IOCTL_FLAGS_SYNC_MODE(&args);
	cmd = GET_U_DMA_BUF_IOCTL_FLAGS_SYNC_CMD(&args);
	if (mode > UDMABUF_SYNC_MODE_MAX)
		return -EINVAL;
	mutex_lock(&buf->lock);
	/*
	 * Refused before anything is stored: a refusal changes nothing.  A
	 * new sync_mode changes what every user's read(), write() and mmap()
	 * do (bit 2 makes their reads invalidate): a write, too.
	 */
	if (!writable && mode && mode != buf->sync_mode) {
		mutex_unlock(&buf->lock);
		return -EBADF;
	}
	if ((cmd == U_DMA_BUF_IOCTL_FLAGS_SYNC_CMD_FOR_CPU ||
	     cmd == U_DMA_BUF_IOCTL_FLAGS_SYNC_CMD_FOR_DEVICE) && !writable &&
	    udmem_sync_invalidates(cmd == U_DMA_BUF_IOCTL_FLAGS_SYNC_CMD_FOR_DEVICE,
				   dir == U_DMA_BUF_SYNC_DIR_KEEP ? buf->sync_direction : dir)) {
		mutex_unlock(&buf->lock);
		return -EBADF;
	}
	if (dir != U_DMA_BUF_SYNC_DIR_KEEP)
		buf->sync_direction = dir;
	if (mode)
		buf->sync_mode = mode;
	buf->sync_offset = args.offset;
	if (args.size)
		buf->sync_size = args.size;
	mutex_unlock(&buf->lock);

	switch (cmd) {
	case U_DMA_BUF_IOCTL_FLAGS_SYNC_CMD_FOR_CPU:
		return udmabuf_sync_cmd(buf, false, 1, writable, UDMABUF_VIA_IOCTL);
	case U_DMA_BUF_IOCTL_FLAGS_SYNC_CMD_FOR_DEVICE:
		return udmabuf_sync_cmd(buf, true, 1, writable, UDMABUF_VIA_IOCTL);
	default:
		return 0;
	}
}

static long udmabuf_ioctl_export(struct udmabuf *buf, struct file *file,
				 void __user *arg)
{
	struct u_dma_buf_ioctl_export_args args;
	long ret;

	if (copy_from_user(&args, arg, sizeof(args)))
		return -EFAULT;
	ret = udmabuf_export(buf, file, &args);
	if (ret)
		return ret;
	if (copy_to_user(arg, &args, sizeof(args)))
		return -EFAULT;
	return 0;
}

static long udmabuf_ioctl_import(struct udmabuf *buf, void __user *arg)
{
	struct u_dma_buf_ioctl_import_args args;
	long ret;

	if (copy_from_user(&args, arg, sizeof(args)))
		return -EFAULT;
	ret = udmabuf_import(buf, &args);
	if (ret)
		return ret;
	/* On a fault the import file stays open, as EXPORT's dma-buf does. */
	if (copy_to_user(arg, &args, sizeof(args)))
		return -EFAULT;
	return 0;
}

long udmabuf_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct udmabuf *buf = file->private_data;
	void __user *uarg = (void __user *)arg;
	bool writable = file->f_mode & FMODE_WRITE;
	u64 val;

	if (READ_ONCE(buf->detached))
		return -ENODEV;
	switch (cmd) {
	case U_DMA_BUF_IOCTL_GET_DRV_INFO:
		return udmabuf_ioctl_drv_info(uarg);
	case U_DMA_BUF_IOCTL_GET_SIZE:
		return put_user(buf->size, (u64 __user *)uarg);
	case U_DMA_BUF_IOCTL_GET_DMA_ADDR:
		val = buf->dma_addr;
		return put_user(val, (u64 __user *)uarg);
	case U_DMA_BUF_IOCTL_GET_SYNC_OWNER:
		return put_user((u32)READ_ONCE(buf->sync_owner), (u32 __user *)uarg);
	case U_DMA_BUF_IOCTL_SET_SYNC_FOR_CPU:
	case U_DMA_BUF_IOCTL_SET_SYNC_FOR_DEVICE:
		if (get_user(val, (u64 __user *)uarg))
			return -EFAULT;
		return udmabuf_sync_cmd(buf, cmd == U_DMA_BUF_IOCTL_SET_SYNC_FOR_DEVICE, val,
					writable, UDMABUF_VIA_IOCTL);
	case U_DMA_BUF_IOCTL_GET_DEV_INFO:
		return udmabuf_ioctl_dev_info(buf, uarg);
	case U_DMA_BUF_IOCTL_GET_SYNC:
		return udmabuf_ioctl_get_sync(buf, uarg);
	case U_DMA_BUF_IOCTL_SET_SYNC:
		return udmabuf_ioctl_set_sync(buf, uarg, writable);
	case U_DMA_BUF_IOCTL_EXPORT:
		return udmabuf_ioctl_export(buf, file, uarg);
	case U_DMA_BUF_IOCTL_IMPORT:
		return udmabuf_ioctl_import(buf, uarg);
	default:
		return -ENOTTY;
	}
}
