/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * u-dma-buf-ioctl.h - the ioctl interface of /dev/<u-dma-buf name>.
 *
 * This is the u-dma-buf user ABI (ioctl version 2): the structure layouts,
 * the ioctl numbers and the flag fields are those of the original driver,
 * so that programs written for it build and run unchanged.  The layouts
 * are frozen; anything new lives in <linux/udmem.h> with new numbers.
 *
 * Usable from user space with or without <stdint.h>: the header needs only
 * <linux/types.h> and <linux/ioctl.h>.
 */
#ifndef _UAPI_LINUX_U_DMA_BUF_IOCTL_H
#define _UAPI_LINUX_U_DMA_BUF_IOCTL_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define U_DMA_BUF_IOCTL_VERSION	2

/**
 * struct u_dma_buf_ioctl_drv_info - driver information (GET_DRV_INFO)
 * @flags: IOCTL_VERSION [7:0], IN_KERNEL_FUNCTIONS [8],
 *	USE_OF_DMA_CONFIG [12], USE_OF_RESERVED_MEM [13],
 *	USE_QUIRK_MMAP [16], USE_QUIRK_MMAP_PAGE [17]
 * @version: driver version, "N.N.N", NUL-terminated
 */
struct u_dma_buf_ioctl_drv_info {
	__u64 flags;
	char version[16];
};

/**
 * struct u_dma_buf_ioctl_dev_info - buffer information (GET_DEV_INFO)
 * @flags: DMA_MASK [7:0] (mask width in bits), DMA_COHERENT [9],
 *	MMAP_MODE [12:10] (the configured quirk_mmap_mode)
 * @size: buffer size in bytes, as requested
 * @addr: DMA address of the buffer, as the DMA master sees it
 */
struct u_dma_buf_ioctl_dev_info {
	__u64 flags;
	__u64 size;
	__u64 addr;
};

/**
 * struct u_dma_buf_ioctl_sync_args - sync parameters (GET_SYNC, SET_SYNC)
 * @flags: SYNC_CMD [1:0], SYNC_DIR [3:2], SYNC_MODE [15:8], SYNC_OWNER [16]
 * @size: sync_size (SET_SYNC: 0 keeps the stored value)
 * @offset: sync_offset (SET_SYNC: always stored)
 */
struct u_dma_buf_ioctl_sync_args {
	__u64 flags;
	__u64 size;
	__u64 offset;
};

/**
 * struct u_dma_buf_ioctl_export_args - DMA-BUF export (EXPORT)
 * @flags: EXPORT_FD_FLAGS [31:0]: O_CLOEXEC, O_SYNC and the access mode
 * @size: length of the exported range, a multiple of the page size
 * @offset: start of the exported range, a multiple of the page size
 * @addr: out: DMA address of the start of the range
 * @fd: out: the new dma-buf file descriptor
 * @reserved: tail padding of the original layout; ignored
 */
struct u_dma_buf_ioctl_export_args {
	__u64 flags;
	__u64 size;
	__u64 offset;
	__u64 addr;
	__s32 fd;
	__u32 reserved;
};

/*
 * Flag fields.  For a field NAME of bits lo..hi in a structure's flags:
 *   U_DMA_BUF_IOCTL_FLAGS_NAME_SHIFT   lo
 *   U_DMA_BUF_IOCTL_FLAGS_NAME_MASK    the field's width as a mask, unshifted
 *   SET_U_DMA_BUF_IOCTL_FLAGS_NAME(p, value), GET_U_DMA_BUF_IOCTL_FLAGS_NAME(p)
 * where p points to the structure.
 */
#define U_DMA_BUF_IOCTL_FLAGS_IOCTL_VERSION_SHIFT	0
#define U_DMA_BUF_IOCTL_FLAGS_IOCTL_VERSION_MASK	((__u64)0xff)
#define U_DMA_BUF_IOCTL_FLAGS_IN_KERNEL_FUNCTIONS_SHIFT	8
#define U_DMA_BUF_IOCTL_FLAGS_IN_KERNEL_FUNCTIONS_MASK	((__u64)0x1)
#define U_DMA_BUF_IOCTL_FLAGS_USE_OF_DMA_CONFIG_SHIFT	12
#define U_DMA_BUF_IOCTL_FLAGS_USE_OF_DMA_CONFIG_MASK	((__u64)0x1)
#define U_DMA_BUF_IOCTL_FLAGS_USE_OF_RESERVED_MEM_SHIFT	13
#define U_DMA_BUF_IOCTL_FLAGS_USE_OF_RESERVED_MEM_MASK	((__u64)0x1)
#define U_DMA_BUF_IOCTL_FLAGS_USE_QUIRK_MMAP_SHIFT	16
#define U_DMA_BUF_IOCTL_FLAGS_USE_QUIRK_MMAP_MASK	((__u64)0x1)
#define U_DMA_BUF_IOCTL_FLAGS_USE_QUIRK_MMAP_PAGE_SHIFT	17
#define U_DMA_BUF_IOCTL_FLAGS_USE_QUIRK_MMAP_PAGE_MASK	((__u64)0x1)
#define U_DMA_BUF_IOCTL_FLAGS_DMA_MASK_SHIFT	0
#define U_DMA_BUF_IOCTL_FLAGS_DMA_MASK_MASK	((__u64)0xff)
#define U_DMA_BUF_IOCTL_FLAGS_DMA_COHERENT_SHIFT	9
#define U_DMA_BUF_IOCTL_FLAGS_DMA_COHERENT_MASK	((__u64)0x1)
#define U_DMA_BUF_IOCTL_FLAGS_MMAP_MODE_SHIFT	10
#define U_DMA_BUF_IOCTL_FLAGS_MMAP_MODE_MASK	((__u64)0x7)
#define U_DMA_BUF_IOCTL_FLAGS_SYNC_CMD_SHIFT	0
#define U_DMA_BUF_IOCTL_FLAGS_SYNC_CMD_MASK	((__u64)0x3)
#define U_DMA_BUF_IOCTL_FLAGS_SYNC_DIR_SHIFT	2
#define U_DMA_BUF_IOCTL_FLAGS_SYNC_DIR_MASK	((__u64)0x3)
#define U_DMA_BUF_IOCTL_FLAGS_SYNC_MODE_SHIFT	8
#define U_DMA_BUF_IOCTL_FLAGS_SYNC_MODE_MASK	((__u64)0xff)
#define U_DMA_BUF_IOCTL_FLAGS_SYNC_OWNER_SHIFT	16
#define U_DMA_BUF_IOCTL_FLAGS_SYNC_OWNER_MASK	((__u64)0x1)
#define U_DMA_BUF_IOCTL_FLAGS_EXPORT_FD_FLAGS_SHIFT	0
#define U_DMA_BUF_IOCTL_FLAGS_EXPORT_FD_FLAGS_MASK	((__u64)0xffffffff)

#define U_DMA_BUF_IOCTL_DEFINE_FLAGS(name, tag)				\
static inline void SET_U_DMA_BUF_IOCTL_FLAGS_##name(struct u_dma_buf_ioctl_##tag *p, \
						     int value)	\
{									\
	const __u64 mask = U_DMA_BUF_IOCTL_FLAGS_##name##_MASK;		\
	const int shift = U_DMA_BUF_IOCTL_FLAGS_##name##_SHIFT;		\
									\
	p->flags = (p->flags & ~(mask << shift)) |			\
		   (((__u64)(unsigned int)value & mask) << shift);	\
}									\
static inline int \
GET_U_DMA_BUF_IOCTL_FLAGS_##name(const struct u_dma_buf_ioctl_##tag *p)	\
{									\
	return (int)((p->flags >> U_DMA_BUF_IOCTL_FLAGS_##name##_SHIFT) & \
		     U_DMA_BUF_IOCTL_FLAGS_##name##_MASK);		\
}

U_DMA_BUF_IOCTL_DEFINE_FLAGS(IOCTL_VERSION, drv_info)
U_DMA_BUF_IOCTL_DEFINE_FLAGS(IN_KERNEL_FUNCTIONS, drv_info)
U_DMA_BUF_IOCTL_DEFINE_FLAGS(USE_OF_DMA_CONFIG, drv_info)
U_DMA_BUF_IOCTL_DEFINE_FLAGS(USE_OF_RESERVED_MEM, drv_info)
U_DMA_BUF_IOCTL_DEFINE_FLAGS(USE_QUIRK_MMAP, drv_info)
U_DMA_BUF_IOCTL_DEFINE_FLAGS(USE_QUIRK_MMAP_PAGE, drv_info)

U_DMA_BUF_IOCTL_DEFINE_FLAGS(DMA_MASK, dev_info)
U_DMA_BUF_IOCTL_DEFINE_FLAGS(DMA_COHERENT, dev_info)
U_DMA_BUF_IOCTL_DEFINE_FLAGS(MMAP_MODE, dev_info)

U_DMA_BUF_IOCTL_DEFINE_FLAGS(SYNC_CMD, sync_args)
U_DMA_BUF_IOCTL_DEFINE_FLAGS(SYNC_DIR, sync_args)
U_DMA_BUF_IOCTL_DEFINE_FLAGS(SYNC_MODE, sync_args)
U_DMA_BUF_IOCTL_DEFINE_FLAGS(SYNC_OWNER, sync_args)

U_DMA_BUF_IOCTL_DEFINE_FLAGS(EXPORT_FD_FLAGS, export_args)

/* SYNC_CMD values of SET_SYNC. */
enum {
	U_DMA_BUF_IOCTL_FLAGS_SYNC_CMD_FOR_CPU = 1,
	U_DMA_BUF_IOCTL_FLAGS_SYNC_CMD_FOR_DEVICE = 3,
};

/* SYNC_DIR values (and the sync_direction attribute). */
enum {
	U_DMA_BUF_SYNC_DIR_BIDIRECTIONAL = 0,
	U_DMA_BUF_SYNC_DIR_TO_DEVICE = 1,
	U_DMA_BUF_SYNC_DIR_FROM_DEVICE = 2,
	U_DMA_BUF_SYNC_DIR_KEEP = 3,		/* SET_SYNC: leave unchanged */
};

/* MMAP_MODE values (and the quirk_mmap_mode attribute and parameter). */
enum {
	U_DMA_BUF_MMAP_MODE_OFF = 1,		/* dma_mmap_coherent semantics */
	U_DMA_BUF_MMAP_MODE_ON = 2,		/* cached unless O_SYNC/sync_mode */
	U_DMA_BUF_MMAP_MODE_AUTO = 3,		/* off if coherent, else on */
	U_DMA_BUF_MMAP_MODE_PAGE = 4,		/* as on, backed by struct pages */
};

/*
 * The packed value written to sync_for_cpu / sync_for_device (sysfs) or
 * passed to SET_SYNC_FOR_CPU / SET_SYNC_FOR_DEVICE: offset in [63:32],
 * size in [31:4] (a multiple of 16), direction in [3:2], bit 0 set.
 * The value 1 means "use the stored sync_offset, sync_size and
 * sync_direction" instead.
 */
static inline __u64 u_dma_buf_sync_pack(__u32 offset, __u32 size, unsigned int dir)
{
	return ((__u64)offset << 32) | (size & 0xFFFFFFF0u) | ((dir & 3u) << 2) | 1u;
}

#define U_DMA_BUF_IOCTL_MAGIC	'U'

#define U_DMA_BUF_IOCTL_GET_DRV_INFO \
	_IOR(U_DMA_BUF_IOCTL_MAGIC, 1, struct u_dma_buf_ioctl_drv_info)
#define U_DMA_BUF_IOCTL_GET_SIZE \
	_IOR(U_DMA_BUF_IOCTL_MAGIC, 2, __u64)
#define U_DMA_BUF_IOCTL_GET_DMA_ADDR \
	_IOR(U_DMA_BUF_IOCTL_MAGIC, 3, __u64)
#define U_DMA_BUF_IOCTL_GET_SYNC_OWNER \
	_IOR(U_DMA_BUF_IOCTL_MAGIC, 4, __u32)
#define U_DMA_BUF_IOCTL_SET_SYNC_FOR_CPU \
	_IOW(U_DMA_BUF_IOCTL_MAGIC, 5, __u64)
#define U_DMA_BUF_IOCTL_SET_SYNC_FOR_DEVICE \
	_IOW(U_DMA_BUF_IOCTL_MAGIC, 6, __u64)
#define U_DMA_BUF_IOCTL_GET_DEV_INFO \
	_IOR(U_DMA_BUF_IOCTL_MAGIC, 7, struct u_dma_buf_ioctl_dev_info)
#define U_DMA_BUF_IOCTL_GET_SYNC \
	_IOR(U_DMA_BUF_IOCTL_MAGIC, 8, struct u_dma_buf_ioctl_sync_args)
#define U_DMA_BUF_IOCTL_SET_SYNC \
	_IOW(U_DMA_BUF_IOCTL_MAGIC, 9, struct u_dma_buf_ioctl_sync_args)
#define U_DMA_BUF_IOCTL_EXPORT \
	_IOWR(U_DMA_BUF_IOCTL_MAGIC, 10, struct u_dma_buf_ioctl_export_args)

/*
 * udmem additions, not in the reference: numbers from 0x40 up, far from the
 * reference's 1..10.
 */

/**
 * struct u_dma_buf_ioctl_import_args - import a foreign dma-buf (IMPORT)
 * @fd: the dma-buf to import
 * @flags: [1:0] the DMA direction of the mapping (U_DMA_BUF_SYNC_DIR_*
 *	0..2); the other bits must be zero
 * @size: out: the dma-buf's size
 * @addr: out: its DMA address for this buffer's device; the dma-buf is
 *	contiguous there from @addr to @addr + @size
 * @import_fd: out: a new file (O_CLOEXEC) that holds the attachment and
 *	mapping until it is closed or the buffer is removed (unbound, deleted:
 *	the mapping is for its device); IMPORT_SYNC works on it until closed
 * @reserved: must be zero
 *
 * The dma-buf is attached to the buffer's DMA device and mapped.  A dma-buf
 * that is not contiguous for that device (more than one DMA range) is
 * refused with EOPNOTSUPP.
 */
struct u_dma_buf_ioctl_import_args {
	__s32 fd;
	__u32 flags;
	__u64 size;
	__u64 addr;
	__s32 import_fd;
	__u32 reserved;
};

#define U_DMA_BUF_IMPORT_FLAGS_DIR_MASK	0x3u

/**
 * struct u_dma_buf_ioctl_import_sync - CPU access to an imported dma-buf
 * @flags: DMA_BUF_SYNC_START or DMA_BUF_SYNC_END with DMA_BUF_SYNC_READ
 *	and/or DMA_BUF_SYNC_WRITE, as for DMA_BUF_IOCTL_SYNC
 *
 * Given to IMPORT_SYNC on the import file: START calls the exporter's
 * begin_cpu_access, END its end_cpu_access, over the whole dma-buf.
 */
struct u_dma_buf_ioctl_import_sync {
	__u64 flags;
};

#define U_DMA_BUF_IOCTL_IMPORT \
	_IOWR(U_DMA_BUF_IOCTL_MAGIC, 0x40, struct u_dma_buf_ioctl_import_args)
#define U_DMA_BUF_IOCTL_IMPORT_SYNC \
	_IOW(U_DMA_BUF_IOCTL_MAGIC, 0x41, struct u_dma_buf_ioctl_import_sync)

#endif /* _UAPI_LINUX_U_DMA_BUF_IOCTL_H */
