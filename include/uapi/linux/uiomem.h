/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR MIT) */
/*
 * uiomem.h - ioctls of /dev/<name> for uiomem device-memory regions.
 *
 * Two sets of ioctls:
 *
 * - 'U' 1..9: the user ABI of the original uiomem driver 1.1 (ioctl
 *   version 1), with its numbers and layouts, so that programs written for
 *   it work unchanged.  Their flags words are built and taken apart with
 *   the UIOMEM_*_FLAGS_* helpers below.
 * - 'u' 0xc0..0xc2: this driver's extensions, a query of what the 1.1
 *   ioctls do not report (the cache granule, the effective mapping type,
 *   counters), a sync with a 64-bit range that touches no shared state,
 *   and a DMA-BUF export of a range of the region.
 *   Their reserved fields and unknown flags must be zero, else the ioctl
 *   fails with EINVAL, so that they can be given a meaning later.
 *
 * Every structure uses fixed-width fields with explicit padding, so 32-bit
 * and 64-bit callers share one layout.
 */
#ifndef _UAPI_LINUX_UIOMEM_H
#define _UAPI_LINUX_UIOMEM_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* ---- The uiomem 1.1 ioctls, magic 'U' ---- */

/* The ioctl version GET_DRV_INFO reports (flags bits 0..7). */
#define UIOMEM_IOCTL_VERSION		1

/**
 * struct uiomem_ioctl_drv_info - UIOMEM_IOCTL_GET_DRV_INFO
 * @flags: bits 0..7: UIOMEM_IOCTL_VERSION; the others are zero
 * @version: the driver version (as sysfs driver_version), NUL-padded
 * @sync_operation: how the driver maintains the CPU cache (as sysfs
 *	sync_operation), NUL-padded; empty when it cannot ("NONE" in sysfs)
 */
struct uiomem_ioctl_drv_info {
	__u64 flags;
	char version[16];
	char sync_operation[16];
};

#define UIOMEM_DRV_INFO_FLAGS_IOCTL_VERSION_SHIFT	0
#define UIOMEM_DRV_INFO_FLAGS_IOCTL_VERSION_MASK	0xffULL

/**
 * struct uiomem_ioctl_dev_info - UIOMEM_IOCTL_GET_DEV_INFO
 * @flags: UIOMEM_DEV_INFO_FLAGS_SHAREABLE, _CACHED and _COHERENT bits (as
 *	the sysfs attributes shareable, cached and coherent)
 * @size: region size in bytes
 * @addr: CPU physical address of the region
 */
struct uiomem_ioctl_dev_info {
	__u64 flags;
	__u64 size;
	__u64 addr;
};

#define UIOMEM_DEV_INFO_FLAGS_SHAREABLE_SHIFT	0
#define UIOMEM_DEV_INFO_FLAGS_SHAREABLE_MASK	1ULL
#define UIOMEM_DEV_INFO_FLAGS_CACHED_SHIFT	1
#define UIOMEM_DEV_INFO_FLAGS_CACHED_MASK	1ULL
#define UIOMEM_DEV_INFO_FLAGS_COHERENT_SHIFT	2
#define UIOMEM_DEV_INFO_FLAGS_COHERENT_MASK	1ULL

/**
 * struct uiomem_ioctl_sync_args - UIOMEM_IOCTL_GET_SYNC / UIOMEM_IOCTL_SET_SYNC
 * @flags: SYNC_CMD (bits 0..1: 1 sync for the CPU, 3 sync for the device,
 *	0 or 2 no sync), SYNC_DIR (bits 2..3: 0 bidirectional, 1 to the device,
 *	2 from the device; 3 keeps the stored one on SET), SYNC_MODE (bits
 *	8..15: sync_mode; 0 keeps the stored one on SET), SYNC_OWNER (bit 16:
 *	0 CPU, 1 device; reported by GET, ignored by SET)
 * @size: sync_size (SET: 0 keeps the stored one)
 * @offset: sync_offset (SET: always stored)
 */
struct uiomem_ioctl_sync_args {
	__u64 flags;
	__u64 size;
	__u64 offset;
};

#define UIOMEM_SYNC_ARGS_FLAGS_SYNC_CMD_SHIFT	0
#define UIOMEM_SYNC_ARGS_FLAGS_SYNC_CMD_MASK	3ULL
#define UIOMEM_SYNC_ARGS_FLAGS_SYNC_DIR_SHIFT	2
#define UIOMEM_SYNC_ARGS_FLAGS_SYNC_DIR_MASK	3ULL
#define UIOMEM_SYNC_ARGS_FLAGS_SYNC_MODE_SHIFT	8
#define UIOMEM_SYNC_ARGS_FLAGS_SYNC_MODE_MASK	0xffULL
#define UIOMEM_SYNC_ARGS_FLAGS_SYNC_OWNER_SHIFT	16
#define UIOMEM_SYNC_ARGS_FLAGS_SYNC_OWNER_MASK	1ULL

/* SYNC_CMD values */
#define UIOMEM_SYNC_CMD_NONE		0
#define UIOMEM_SYNC_CMD_FOR_CPU		1
#define UIOMEM_SYNC_CMD_FOR_DEVICE	3

/*
 * UIOMEM_FLAGS_GET(flags, UIOMEM_SYNC_ARGS_FLAGS_SYNC_DIR) gives the field;
 * UIOMEM_FLAGS_SET(flags, UIOMEM_SYNC_ARGS_FLAGS_SYNC_DIR, 1) gives @flags
 * with the field replaced.
 */
#define UIOMEM_FLAGS_GET(flags, field) \
	(((__u64)(flags) >> field##_SHIFT) & field##_MASK)
#define UIOMEM_FLAGS_SET(flags, field, value) \
	(((__u64)(flags) & ~(field##_MASK << field##_SHIFT)) | \
	 (((__u64)(value) & field##_MASK) << field##_SHIFT))

#define UIOMEM_IOCTL_MAGIC		'U'
#define UIOMEM_IOCTL_GET_DRV_INFO	_IOR(UIOMEM_IOCTL_MAGIC, 1, struct uiomem_ioctl_drv_info)
#define UIOMEM_IOCTL_GET_SIZE		_IOR(UIOMEM_IOCTL_MAGIC, 2, __u64)
#define UIOMEM_IOCTL_GET_PHYS_ADDR	_IOR(UIOMEM_IOCTL_MAGIC, 3, __u64)
#define UIOMEM_IOCTL_GET_SYNC_OWNER	_IOR(UIOMEM_IOCTL_MAGIC, 4, __u32)
/* The argument is a packed sync command, as written to sysfs sync_for_*. */
#define UIOMEM_IOCTL_SET_SYNC_FOR_CPU	_IOW(UIOMEM_IOCTL_MAGIC, 5, __u64)
#define UIOMEM_IOCTL_SET_SYNC_FOR_DEVICE _IOW(UIOMEM_IOCTL_MAGIC, 6, __u64)
#define UIOMEM_IOCTL_GET_DEV_INFO	_IOR(UIOMEM_IOCTL_MAGIC, 7, struct uiomem_ioctl_dev_info)
#define UIOMEM_IOCTL_GET_SYNC		_IOR(UIOMEM_IOCTL_MAGIC, 8, struct uiomem_ioctl_sync_args)
#define UIOMEM_IOCTL_SET_SYNC		_IOW(UIOMEM_IOCTL_MAGIC, 9, struct uiomem_ioctl_sync_args)

/* ---- This driver's extensions, magic 'u' ---- */

/* Raised when a structure or a command is added; reported by the query. */
#define UIOMEM_ABI_VERSION		2

/* How mmap() of this file maps the region (uiomem_query.map_type). */
#define UIOMEM_MAP_CACHED		0	/* write-back cacheable */
#define UIOMEM_MAP_UNCACHED		1	/* pgprot_noncached() */
#define UIOMEM_MAP_WRITECOMBINE		2	/* pgprot_writecombine() */
#define UIOMEM_MAP_DMACOHERENT		3	/* pgprot_dmacoherent() on ARM, else WC */

/* uiomem_query.flags */
#define UIOMEM_QUERY_SHAREABLE		(1U << 0) /* region may overlap others */
#define UIOMEM_QUERY_SYNC_ALWAYS	(1U << 1) /* sync_mode bit 2 is set */
#define UIOMEM_QUERY_O_SYNC		(1U << 2) /* this file was opened O_SYNC */
/* The CPU has no usable cache maintenance: mappings are never cached. */
#define UIOMEM_QUERY_NO_CACHE_OPS	(1U << 3)

/**
 * struct uiomem_query - what a region is and how this file maps it
 * @size: region size in bytes
 * @phys_addr: CPU physical address of the region
 * @cache_line_size: granule of the CPU's cache maintenance in bytes (the
 *	smallest D-cache line, the Zicbom block size, the CLFLUSH size); 0
 *	when the CPU offers none (UIOMEM_QUERY_NO_CACHE_OPS)
 * @map_type: UIOMEM_MAP_* that mmap() on this file gives now
 * @sync_mode: the sync_mode attribute (0..7)
 * @flags: UIOMEM_QUERY_*
 * @abi_version: UIOMEM_ABI_VERSION of the driver
 * @sync_calls: syncs done on this region since it was created
 * @sync_lines: cache lines (blocks) maintained by those syncs, one
 *	instruction each
 * @sync_barriers: barrier instructions issued by those syncs
 * @reserved: zero
 *
 * The three counters cover every sync: ioctl, sysfs, read() and write().
 * Read them before and after an operation for its cost.
 */
struct uiomem_query {
	__u64 size;
	__u64 phys_addr;
	__u32 cache_line_size;
	__u32 map_type;
	__u32 sync_mode;
	__u32 flags;
	__u32 abi_version;
	__u32 __pad;
	__u64 sync_calls;
	__u64 sync_lines;
	__u64 sync_barriers;
	__u64 reserved[4];
};

/* uiomem_sync.flags, as in DMA_BUF_IOCTL_SYNC (<linux/dma-buf.h>) */
#define UIOMEM_SYNC_READ		(1U << 0) /* the CPU reads: device wrote */
#define UIOMEM_SYNC_WRITE		(1U << 1) /* the CPU writes: device reads */
#define UIOMEM_SYNC_RW			(UIOMEM_SYNC_READ | UIOMEM_SYNC_WRITE)
#define UIOMEM_SYNC_START		(0U << 2) /* CPU access begins (for cpu) */
#define UIOMEM_SYNC_END			(1U << 2) /* CPU access ends (for device) */
#define UIOMEM_SYNC_VALID_FLAGS		(UIOMEM_SYNC_RW | UIOMEM_SYNC_END)

/**
 * struct uiomem_sync - cache maintenance of part of the region
 * @flags: UIOMEM_SYNC_START or UIOMEM_SYNC_END, ORed with READ, WRITE or RW
 *	(at least one of them)
 * @__pad: zero
 * @offset: first byte, from the start of the region
 * @length: number of bytes; 0 syncs nothing (but the range is checked)
 * @reserved: zero
 *
 * START|READ and START|RW invalidate the range (sync_for_cpu, direction
 * from device or bidirectional); START|WRITE does nothing to the cache.
 * END|WRITE and END|RW clean the range (sync_for_device); END|READ
 * invalidates it.  Partial cache lines at either end of an invalidated
 * range are cleaned first, so bytes next to the range are never lost.
 * Errors: EINVAL for unknown flags, nonzero reserved fields or a range
 * that does not fit in the region (offset + length wrapping included);
 * EBADF for an invalidating sync (START|READ, START|RW, END|READ) on a
 * file not open for writing: it could drop lines another writer dirtied.
 */
struct uiomem_sync {
	__u32 flags;
	__u32 __pad;
	__u64 offset;
	__u64 length;
	__u64 reserved[2];
};

/**
 * struct uiomem_export - UIOMEM_IOCTL_EXPORT: a range of the region as a DMA-BUF
 * @flags: the new descriptor's O_CLOEXEC and access mode (O_RDONLY, O_WRONLY
 *	or O_RDWR); no other bit
 * @fd: out: the DMA-BUF
 * @offset: first byte, from the start of the region; page-aligned
 * @size: number of bytes; page-aligned, not zero
 * @reserved: zero
 *
 * An importer maps the DMA-BUF for its device with dma_map_resource(): its
 * scatterlist has DMA addresses only (no struct page), one entry per GiB.
 * The DMA-BUF has no vmap and no mmap.  DMA_BUF_IOCTL_SYNC on it maintains
 * the CPU cache over the range, as UIOMEM_IOCTL_SYNC does (a read-only
 * export writes back and invalidates, never only invalidates).
 * Errors: EINVAL for unknown flags, access mode 3, nonzero reserved fields,
 * or a range that is empty, not page-aligned or not in the region; EACCES
 * for a writable export of a file not open for writing; ENODEV once the
 * region is removed; EOPNOTSUPP for RAM with struct pages on a kernel
 * before 5.14 (its dma_map_resource() refuses RAM).
 */
struct uiomem_export {
	__u32 flags;
	__s32 fd;
	__u64 offset;
	__u64 size;
	__u64 reserved[2];
};

#define UIOMEM_IOC_MAGIC		'u'
#define UIOMEM_IOCTL_QUERY		_IOR(UIOMEM_IOC_MAGIC, 0xc0, struct uiomem_query)
#define UIOMEM_IOCTL_SYNC		_IOW(UIOMEM_IOC_MAGIC, 0xc1, struct uiomem_sync)
#define UIOMEM_IOCTL_EXPORT		_IOWR(UIOMEM_IOC_MAGIC, 0xc2, struct uiomem_export)

#endif /* _UAPI_LINUX_UIOMEM_H */
