/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * udmem_sync.h - the sync command value shared by u-dma-buf and uiomem.
 *
 * The value written to the sync_for_cpu / sync_for_device attributes (and
 * passed to the SET_SYNC_FOR_* ioctls) is one of:
 *   0          nothing to do;
 *   1          sync with the stored sync_offset, sync_size, sync_direction;
 *   otherwise  a packed one-off command ("0x%08X%08X"): offset in [63:32],
 *              size in [31:4] (size & 0xFFFFFFF0), direction in [3:2]
 *              (1 to device, 2 from device, 0 or 3 bidirectional); bit 0
 *              is documented as the trigger but any nonzero value runs.
 * The packed form does not change the stored parameters.
 */
#ifndef UDMEM_COMMON_SYNC_H
#define UDMEM_COMMON_SYNC_H

#include "udmem_types.h"

/* Directions as the sync_direction attribute numbers them. */
enum udmem_sync_dir {
	UDMEM_SYNC_BIDIRECTIONAL = 0,
	UDMEM_SYNC_TO_DEVICE = 1,
	UDMEM_SYNC_FROM_DEVICE = 2,
};

enum udmem_sync_kind {
	UDMEM_SYNC_NONE,	/* value 0 */
	UDMEM_SYNC_STORED,	/* value 1: use the stored parameters */
	UDMEM_SYNC_PACKED,	/* offset, size, dir decoded from the value */
};

struct udmem_sync_cmd {
	enum udmem_sync_kind kind;
	u64 offset;
	u64 size;
	enum udmem_sync_dir dir;
};

/**
 * udmem_sync_cmd_decode() - decode a sync command value
 * @value: the value written by user space
 * @cmd: the decoded command; offset, size and dir are set only for
 *	UDMEM_SYNC_PACKED
 */
static inline void udmem_sync_cmd_decode(u64 value, struct udmem_sync_cmd *cmd)
{
	u32 dir = (u32)(value >> 2) & 3;

	cmd->offset = 0;
	cmd->size = 0;
	cmd->dir = UDMEM_SYNC_BIDIRECTIONAL;
	if (value == 0) {
		cmd->kind = UDMEM_SYNC_NONE;
	} else if ((value & ~(u64)1) == 0) {
		cmd->kind = UDMEM_SYNC_STORED;
	} else {
		cmd->kind = UDMEM_SYNC_PACKED;
		cmd->offset = value >> 32;
		cmd->size = value & 0xFFFFFFF0ull;
		cmd->dir = dir == 3 ? UDMEM_SYNC_BIDIRECTIONAL : (enum udmem_sync_dir)dir;
	}
}

/**
 * udmem_sync_cmd_encode() - the packed value for a one-off sync command
 * @offset: start of the range (bits above 31 are dropped)
 * @size: length of the range (rounded down to 16; bits above 31 dropped)
 * @dir: direction, 0..2
 *
 * Return: the value to write; it decodes as UDMEM_SYNC_PACKED unless both
 * @offset and @size are 0 and @dir is 0, which is the stored-parameter
 * command 1.
 */
static inline u64 udmem_sync_cmd_encode(u64 offset, u64 size, enum udmem_sync_dir dir)
{
	return ((offset & 0xFFFFFFFFull) << 32) | (size & 0xFFFFFFF0ull) |
	       (((u64)dir & 3) << 2) | 1;
}

/**
 * udmem_sync_dir_valid() - is @dir a valid sync_direction value (0..2)?
 * @dir: the value to check
 */
static inline bool udmem_sync_dir_valid(u64 dir)
{
	return dir <= UDMEM_SYNC_FROM_DEVICE;
}

/**
 * udmem_sync_invalidates() - may a sync drop cache lines the CPU dirtied?
 * @for_device: a sync for the device, else one for the CPU
 * @dir: its direction, 0..2
 *
 * For the CPU every direction but UDMEM_SYNC_TO_DEVICE invalidates; for
 * the device only UDMEM_SYNC_FROM_DEVICE does (arm64, arm and riscv
 * invalidate there rather than clean).  Dirty lines of another writer, through
 * any mapping, are lost with them, so such a sync counts as a write.
 *
 * Return: true if the sync invalidates.
 */
static inline bool udmem_sync_invalidates(bool for_device, u64 dir)
{
	if (for_device)
		return dir == UDMEM_SYNC_FROM_DEVICE;
	return dir != UDMEM_SYNC_TO_DEVICE;
}

#ifdef __KERNEL__
#include <linux/dma-direction.h>

/* The DMA API direction for a sync_direction value (0..2). */
static inline enum dma_data_direction udmem_sync_dma_dir(enum udmem_sync_dir dir)
{
	switch (dir) {
	case UDMEM_SYNC_TO_DEVICE:
		return DMA_TO_DEVICE;
	case UDMEM_SYNC_FROM_DEVICE:
		return DMA_FROM_DEVICE;
	default:
		return DMA_BIDIRECTIONAL;
	}
}
#endif

#endif /* UDMEM_COMMON_SYNC_H */
