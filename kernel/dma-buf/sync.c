// SPDX-License-Identifier: GPL-2.0
/*
 * u-dma-buf: range syncs.
 *
 * Cache maintenance on a range of a buffer through the DMA API, the sync
 * owner it leaves, and the sync_for_cpu / sync_for_device command values
 * that sysfs, the ioctls and the in-kernel API pass.
 */
#include <linux/dma-mapping.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>

#include "common/udmem_range.h"
#include "udmabuf.h"

/**
 * udmabuf_sync_dma() - cache maintenance on a range, nothing else
 * @buf: the buffer
 * @for_device: true: sync for device, false: sync for CPU
 * @offset: start of the range
 * @size: length of the range; 0 does nothing
 * @dir: DMA API direction
 *
 * The caller holds buf->lock.
 *
 * Return: 0, -EINVAL if the range is not inside the buffer, -ENODEV once
 * the buffer is removed and its device's DMA setup may be gone.
 */
int udmabuf_sync_dma(struct udmabuf *buf, bool for_device, u64 offset, u64 size,
		     enum dma_data_direction dir)
{
	lockdep_assert_held(&buf->lock);
	if (!udmem_range_ok(offset, size, buf->size))
		return -EINVAL;
	/* The device's DMA setup may be gone with its driver. */
	if (buf->dma_gone)
		return -ENODEV;
	if (!size || buf->no_cpu_sync)
		return 0;
	if (for_device)
		dma_sync_single_for_device(buf->dma_dev, buf->dma_addr + offset, size, dir);
	else
		dma_sync_single_for_cpu(buf->dma_dev, buf->dma_addr + offset, size, dir);
	return 0;
}

/**
 * udmabuf_sync_range() - hand a range to the device or back to the CPU
 * @buf: the buffer; the caller holds buf->lock
 * @for_device: true: sync for device, false: sync for CPU
 * @offset: start of the range
 * @size: length of the range; 0 syncs nothing but still sets the owner
 * @dir: 0 bidirectional, 1 to device, 2 from device
 * @via: who asks, for the sync checker
 *
 * Return: 0, or -EINVAL if the range is not inside the buffer.
 */
int udmabuf_sync_range(struct udmabuf *buf, bool for_device, u64 offset,
		       u64 size, u32 dir, enum udmabuf_via via)
{
	int ret;

	if (!udmem_sync_dir_valid(dir))
		return -EINVAL;
	ret = udmabuf_sync_dma(buf, for_device, offset, size, udmem_sync_dma_dir(dir));
	if (ret)
		return ret;
	buf->sync_owner = for_device;
	/*
	 * The sync checker follows the user's syncs; the brackets of an
	 * O_SYNC read() or write() leave its owners as they were.
	 */
	if (unlikely(buf->sync_check) && via != UDMABUF_VIA_RW)
		udmabuf_own_sync(buf, for_device, offset, size, dir, via);
	return 0;
}

/**
 * udmabuf_sync_cmd() - run a sync_for_cpu / sync_for_device command value
 * @buf: the buffer
 * @for_device: which of the two
 * @value: 0, 1 (stored parameters) or a packed command
 * @writable: the caller may write the buffer; else a sync that may
 *	invalidate (udmem_sync_invalidates()) is refused
 * @via: who asks, for the sync checker
 *
 * The value stays readable in the attribute when the command fails and
 * reads 0 after it succeeded.
 *
 * Return: 0, -EINVAL for a range outside the buffer, -EBADF for an
 * invalidating sync without write access, -ENODEV if removed.
 */
int udmabuf_sync_cmd(struct udmabuf *buf, bool for_device, u64 value, bool writable,
		     enum udmabuf_via via)
{
	struct udmem_sync_cmd cmd;
	u64 *slot = for_device ? &buf->sync_for_device : &buf->sync_for_cpu;
	u32 dir;
	int ret = 0;

	udmem_sync_cmd_decode(value, &cmd);
	mutex_lock(&buf->lock);
	if (buf->detached) {
		ret = -ENODEV;
		goto out_unlock;
	}
	dir = cmd.kind == UDMEM_SYNC_PACKED ? cmd.dir : buf->sync_direction;
	if (cmd.kind != UDMEM_SYNC_NONE && !writable &&
	    udmem_sync_invalidates(for_device, dir)) {
		ret = -EBADF;
		goto out_unlock;
	}
	*slot = value;
	switch (cmd.kind) {
	case UDMEM_SYNC_NONE:
		break;
	case UDMEM_SYNC_STORED:
		ret = udmabuf_sync_range(buf, for_device, buf->sync_offset,
					 buf->sync_size, buf->sync_direction, via);
		break;
	case UDMEM_SYNC_PACKED:
		ret = udmabuf_sync_range(buf, for_device, cmd.offset, cmd.size, cmd.dir,
					 via);
		break;
	}
	if (!ret)
		*slot = 0;
out_unlock:
	mutex_unlock(&buf->lock);
	return ret;
}
