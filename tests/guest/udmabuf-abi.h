/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * udmabuf-abi.h - the u-dma-buf user ABI as the reference documents it,
 * for the conformance programs and the tools that need no test harness.
 *
 * The values are written down from the u-dma-buf interface reference
 * (ioctl numbers, structure layouts, flag bit positions), not taken from
 * the driver's header: the suite checks the driver and its header against
 * the reference, so it must not share their definitions.
 */
#ifndef UDMABUF_ABI_H
#define UDMABUF_ABI_H

#include <stddef.h>
#include <stdint.h>

/* Reference structure layouts (u-dma-buf-interface.md section 7.1). */
struct ut_drv_info {
	uint64_t flags;
	char version[16];
};

struct ut_dev_info {
	uint64_t flags;
	uint64_t size;
	uint64_t addr;
};

struct ut_sync_args {
	uint64_t flags;
	uint64_t size;
	uint64_t offset;
};

struct ut_export_args {
	uint64_t flags;
	uint64_t size;
	uint64_t offset;
	uint64_t addr;
	int32_t fd;
	uint32_t tail_pad;
};

_Static_assert(sizeof(struct ut_drv_info) == 24, "drv_info is 24 bytes");
_Static_assert(sizeof(struct ut_dev_info) == 24, "dev_info is 24 bytes");
_Static_assert(sizeof(struct ut_sync_args) == 24, "sync_args is 24 bytes");
_Static_assert(sizeof(struct ut_export_args) == 40, "export_args is 40 bytes");

/* Reference ioctl numbers (section 7.2), as literal values. */
#define UT_GET_DRV_INFO		0x80185501u
#define UT_GET_SIZE		0x80085502u
#define UT_GET_DMA_ADDR		0x80085503u
#define UT_GET_SYNC_OWNER	0x80045504u
#define UT_SET_SYNC_FOR_CPU	0x40085505u
#define UT_SET_SYNC_FOR_DEVICE	0x40085506u
#define UT_GET_DEV_INFO		0x80185507u
#define UT_GET_SYNC		0x80185508u
#define UT_SET_SYNC		0x40185509u
#define UT_EXPORT		0xC028550Au

/* Flag fields: shift and width. */
#define UT_FIELD(v, shift, bits)	(((v) >> (shift)) & ((1ull << (bits)) - 1))
#define UT_DRV_IOCTL_VERSION(f)		UT_FIELD(f, 0, 8)
#define UT_DEV_DMA_MASK(f)		UT_FIELD(f, 0, 8)
#define UT_DEV_DMA_COHERENT(f)		UT_FIELD(f, 9, 1)
#define UT_DEV_MMAP_MODE(f)		UT_FIELD(f, 10, 3)
#define UT_SYNC_CMD(f)			UT_FIELD(f, 0, 2)
#define UT_SYNC_DIR(f)			UT_FIELD(f, 2, 2)
#define UT_SYNC_MODE(f)			UT_FIELD(f, 8, 8)
#define UT_SYNC_OWNER(f)		UT_FIELD(f, 16, 1)
#define UT_SYNC_FLAGS(cmd, dir, mode)	((uint64_t)(cmd) | (uint64_t)(dir) << 2 | \
					 (uint64_t)(mode) << 8)
#define UT_SYNC_CMD_FOR_CPU		1
#define UT_SYNC_CMD_FOR_DEVICE		3

/* The packed sync_for_* value: "0x%08X%08X" of offset and size|dir|1. */
static inline uint64_t ut_packed_sync(uint32_t offset, uint32_t size, unsigned int dir)
{
	return (uint64_t)offset << 32 | (size & 0xFFFFFFF0u) | (dir & 3) << 2 | 1;
}

#endif /* UDMABUF_ABI_H */
