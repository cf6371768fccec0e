// SPDX-License-Identifier: GPL-2.0
/*
 * sync.c - cache maintenance of a region's range for the CPU or the device.
 *
 * The cache is maintained through the region's write-back kernel alias;
 * the caches are physically tagged, so this also covers user mappings.
 * Coherent regions (cache-coherent, and all uncached ones) get no
 * maintenance, but a sync still checks its range and hands the region over
 * (sync_owner), as the original driver does.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/math64.h>

#include "common/udmem_range.h"
#include "uiomem.h"

enum uiomem_cache_op {
	UIOMEM_CACHE_NONE,
	UIOMEM_CACHE_CLEAN,
	UIOMEM_CACHE_INVAL,
	UIOMEM_CACHE_FLUSH,
};

static void uiomem_cache_maintain(struct uiomem *um, u64 offset, u64 size,
				  enum uiomem_cache_op op)
{
	u32 line = uiomem_cache_line;
	unsigned int barriers = 0;
	phys_addr_t start, end;

	atomic64_inc(&um->sync_calls);
	/* Coherent (and uncached) regions need no maintenance. */
	if (!size || !line || op == UIOMEM_CACHE_NONE || um->coherent)
		return;

	/* The range lies in the region, whose alias probe made sure fits a size_t. */
	start = um->phys + offset;
	end = start + size;
	if (op == UIOMEM_CACHE_CLEAN)
		barriers = uiomem_cache_ops.clean(um->vaddr + offset, start, size, line);
	else if (op == UIOMEM_CACHE_INVAL)
		barriers = uiomem_cache_ops.inval(um->vaddr + offset, start, size, line);
	else
		barriers = uiomem_cache_ops.flush(um->vaddr + offset, start, size, line);

	/* phys_addr_t is 64-bit on 32-bit LPAE: no plain 64-bit division there. */
	atomic64_add(div_u64(ALIGN(end, line) - ALIGN_DOWN(start, line), line),
		     &um->sync_lines);
	atomic64_add(barriers, &um->sync_barriers);
}

/**
 * uiomem_sync_for_cpu() - make the device's writes to a range visible
 * @um: the region, @um->lock held
 * @offset: start of the range in the region
 * @size: length of the range
 * @dir: UDMEM_SYNC_TO_DEVICE needs nothing; the others invalidate
 *
 * Return: 0, -EINVAL for a range outside the region, -ENODEV once removed.
 */
int uiomem_sync_for_cpu(struct uiomem *um, u64 offset, u64 size,
			enum udmem_sync_dir dir)
{
	if (um->dead)
		return -ENODEV;
	if (udmem_range_check(offset, size, um->size))
		return -EINVAL;
	uiomem_cache_maintain(um, offset, size, dir == UDMEM_SYNC_TO_DEVICE ?
			      UIOMEM_CACHE_NONE : UIOMEM_CACHE_INVAL);
	um->sync_owner = 0;
	return 0;
}

/**
 * uiomem_sync_for_device() - make the CPU's writes to a range visible
 * @um: the region, @um->lock held
 * @offset: start of the range in the region
 * @size: length of the range
 * @dir: UDMEM_SYNC_FROM_DEVICE invalidates; the others clean
 *
 * Return: 0, -EINVAL for a range outside the region, -ENODEV once removed.
 */
int uiomem_sync_for_device(struct uiomem *um, u64 offset, u64 size,
			   enum udmem_sync_dir dir)
{
	if (um->dead)
		return -ENODEV;
	if (udmem_range_check(offset, size, um->size))
		return -EINVAL;
	uiomem_cache_maintain(um, offset, size, dir == UDMEM_SYNC_FROM_DEVICE ?
			      UIOMEM_CACHE_INVAL : UIOMEM_CACHE_CLEAN);
	um->sync_owner = 1;
	return 0;
}

/**
 * uiomem_sync_flush() - write back and invalidate a range
 * @um: the region, @um->lock held
 * @offset: start of the range in the region
 * @size: length of the range
 * @owner: the new sync_owner: 0 (CPU) or 1 (device)
 *
 * What read() does before and after its copy: it makes the device's
 * writes visible like an invalidate, but never discards a line another
 * writer (a cached mapping) has dirtied; a reader needs no write access.
 *
 * Return: 0, -EINVAL for a range outside the region, -ENODEV once removed.
 */
int uiomem_sync_flush(struct uiomem *um, u64 offset, u64 size, u32 owner)
{
	if (um->dead)
		return -ENODEV;
	if (udmem_range_check(offset, size, um->size))
		return -EINVAL;
	uiomem_cache_maintain(um, offset, size, UIOMEM_CACHE_FLUSH);
	um->sync_owner = owner;
	return 0;
}

/**
 * uiomem_sync_command() - run a sync_for_cpu / sync_for_device value
 * @um: the region, @um->lock held
 * @value: 0 (nothing), 1 (the stored range) or a packed command
 * @for_device: which of the two attributes was written
 * @via: who asked, for the sync checker's messages
 *
 * A sync that ran moves the owners of its range (ownership.c).
 *
 * Return: 0 or a negative errno from the sync.
 */
int uiomem_sync_command(struct uiomem *um, u64 value, bool for_device,
			const char *via)
{
	struct udmem_sync_cmd cmd;
	int ret;

	udmem_sync_cmd_decode(value, &cmd);
	if (cmd.kind == UDMEM_SYNC_NONE)
		return 0;
	if (cmd.kind == UDMEM_SYNC_STORED) {
		cmd.offset = um->sync_offset;
		cmd.size = um->sync_size;
		cmd.dir = um->sync_direction;
	}
	if (for_device)
		ret = uiomem_sync_for_device(um, cmd.offset, cmd.size, cmd.dir);
	else
		ret = uiomem_sync_for_cpu(um, cmd.offset, cmd.size, cmd.dir);
	if (!ret && unlikely(um->sync_check))
		uiomem_chk_sync(um, for_device, cmd.offset, cmd.size, cmd.dir, via, false);
	return ret;
}

/* The direction a sync command would use; @um->lock held. */
static enum udmem_sync_dir uiomem_sync_command_dir(struct uiomem *um, u64 value)
{
	struct udmem_sync_cmd cmd;

	udmem_sync_cmd_decode(value, &cmd);
	return cmd.kind == UDMEM_SYNC_STORED ? um->sync_direction : cmd.dir;
}

/**
 * uiomem_sync_command_may_discard() - may a sync command discard dirty lines?
 * @um: the region, @um->lock held (the stored direction is read)
 * @value: the command, as for uiomem_sync_command()
 * @for_device: a sync for the device, else one for the CPU
 *
 * Return: true if the command invalidates (see udmem_sync_invalidates()).
 */
bool uiomem_sync_command_may_discard(struct uiomem *um, u64 value,
				     bool for_device)
{
	if (!value)
		return false;
	return udmem_sync_invalidates(for_device,
				      uiomem_sync_command_dir(um, value));
}

/**
 * uiomem_sync_store() - run a command written to sync_for_cpu/sync_for_device
 * @um: the region, @um->lock held
 * @value: the command, as for uiomem_sync_command()
 * @for_device: which of the two was written
 * @via: who asked, for the sync checker's messages
 *
 * The attribute reads back 0 after a sync and the rejected value after a
 * failed one.  The sysfs attributes and UIOMEM_IOCTL_SET_SYNC_FOR_CPU /
 * _DEVICE share this.
 *
 * Return: 0 or a negative errno from the sync.
 */
int uiomem_sync_store(struct uiomem *um, u64 value, bool for_device,
		      const char *via)
{
	int ret = uiomem_sync_command(um, value, for_device, via);

	if (for_device)
		um->sync_for_device = ret ? value : 0;
	else
		um->sync_for_cpu = ret ? value : 0;
	return ret;
}
