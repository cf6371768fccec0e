/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/**
 * @file udmem.h
 * @brief libudmem: memory shared between user programs and hardware.
 *
 * Two kinds of objects:
 *  - a **buffer** (struct udmem_buffer) is a u-dma-buf device: DMA-able memory
 *    allocated by the kernel, found under /sys/class/u-dma-buf/NAME and /dev/NAME;
 *  - a **region** (struct udmem_region) is a uiomem device: a fixed window of
 *    physical memory outside the kernel (FPGA block RAM, a carve-out),
 *    found under /sys/class/uiomem/NAME and /dev/NAME.
 *
 * Conventions, the same for every function:
 *  - functions returning int return 0 (or a documented non-negative value) on
 *    success and a negative errno value on failure; errno is not used;
 *  - constructors take an out-parameter and set it only on success;
 *  - every _close() accepts NULL;
 *  - the library has no global state; a handle may be used from several
 *    threads at once (its map state is locked), different handles need no
 *    coordination;
 *  - the caller frees what it gets from a function whose name ends in _open
 *    or _list, with the matching _close or udmem_list_free().
 */
#ifndef UDMEM_H
#define UDMEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The library's version: the one place it is written.  lib/Makefile (the
 * shared object's name, libudmem.pc), the udmem tool and the Python package
 * take it from here.
 */
#define UDMEM_VERSION_MAJOR	1
#define UDMEM_VERSION_MINOR	7
#define UDMEM_VERSION_PATCH	0

/**
 * API version, (major << 16) | (minor << 8) | patch.  It grows whenever a
 * function is added; test it with `#if UDMEM_API_VERSION >= 0x010000`.
 * The minor version is the symbol node (libudmem.map) of the newest
 * function: 1.1 import, 1.2 region export, 1.3 udmem_buffer_create_on(),
 * 1.4 the DMA channels (udmem_dma_*), 1.5 the sync checker's SIGBUS
 * handler, 1.6 udmem_sync_check_watch().
 */
#define UDMEM_API_VERSION	((UDMEM_VERSION_MAJOR << 16) | \
				 (UDMEM_VERSION_MINOR << 8) | \
				 UDMEM_VERSION_PATCH)

/** Direction of a transfer, as the DMA API names it. */
enum udmem_dir {
	UDMEM_DIR_BIDIRECTIONAL = 0,	/**< both ways */
	UDMEM_DIR_TO_DEVICE = 1,	/**< the CPU wrote, the device reads */
	UDMEM_DIR_FROM_DEVICE = 2,	/**< the device wrote, the CPU reads */
};

/** How a buffer's mmap is built (u-dma-buf "quirk-mmap" modes). */
enum udmem_mmap_mode {
	UDMEM_MMAP_DEFAULT = 0,		/**< the driver's default */
	UDMEM_MMAP_OFF = 1,		/**< dma_mmap_coherent */
	/**
	 * The page frames, mapped whole by mmap() (no fault on first touch); on
	 * 6.12 and later the 2 MiB-aligned middle of a cached mapping is mapped
	 * by 2 MiB entries at its first touch instead, one fault per 2 MiB.
	 */
	UDMEM_MMAP_ON = 2,
	UDMEM_MMAP_AUTO = 3,		/**< ON unless the device is DMA-coherent */
	UDMEM_MMAP_PAGE = 4,		/**< struct pages (O_DIRECT works) */
};

/** Flags for udmem_buffer_open() and udmem_region_open(). */
enum udmem_open_flags {
	/** Open with O_SYNC: the mapping uses the device's sync_mode caching. */
	UDMEM_OPEN_SYNC = 1 << 0,
	/** Open read-only; mappings are then read-only too. */
	UDMEM_OPEN_RDONLY = 1 << 1,
};

/** Owner of a buffer after the last sync. */
enum udmem_owner {
	UDMEM_OWNER_CPU = 0,		/**< last sync was for the CPU */
	UDMEM_OWNER_DEVICE = 1,		/**< last sync was for the device */
};

struct udmem_buffer;
struct udmem_region;

/**
 * @brief The library's API version as a string, e.g. "1.0.0".
 * @return A static string; do not free it.
 */
const char *udmem_api_version(void);

/**
 * @brief Describe an error code returned by this library.
 * @param err A negative errno value as returned by the library (a positive
 *            errno is accepted too).
 * @return A static string; do not free it.  Never NULL.
 */
const char *udmem_strerror(int err);

/**
 * @brief Free a name list returned by udmem_buffer_list() or udmem_region_list().
 * @param names The list (NULL-terminated); NULL is allowed.
 */
void udmem_list_free(char **names);

/* ---- Buffers (u-dma-buf) --------------------------------------------- */

/**
 * @brief Open an existing buffer by its device name.
 * @param name  Device name, e.g. "udmabuf0" (not a path; 1..63 printable
 *              ASCII characters other than '/', ';' and space).
 * @param flags A mask of enum udmem_open_flags.
 * @param out   Receives the handle; the caller frees it with udmem_buffer_close().
 * @return 0; -EINVAL for a bad name or flags; -ENOENT if no such device
 *         exists; -ENODEV if /dev/NAME exists but is not a u-dma-buf buffer;
 *         other -errno from open() or the driver.
 */
int udmem_buffer_open(const char *name, unsigned int flags,
		      struct udmem_buffer **out);

/**
 * @brief Close a buffer handle, unmapping its mapping if any.
 * @param buf The handle, or NULL (nothing happens).  The buffer itself stays.
 */
void udmem_buffer_close(struct udmem_buffer *buf);

/**
 * @brief Create a buffer through /dev/u-dma-buf-mgr.
 * @param name          New device name: 1..63 printable ASCII characters
 *                      other than '/', ';' and space.
 * @param size          Size in bytes (> 0).
 * @param dma_mask_bits DMA mask width (12..64), or 0 for the driver's default.
 * @param mode          enum udmem_mmap_mode.
 * @return 0; -EINVAL for a bad argument; -EEXIST if the name is taken;
 *         -ENODEV if the manager module is not loaded; -E2BIG if the
 *         buffer made is not @p size bytes (it is deleted again); other
 *         -errno from the manager (e.g. -ENOMEM).  Free with
 *         udmem_buffer_delete().
 */
int udmem_buffer_create(const char *name, uint64_t size,
			unsigned int dma_mask_bits, enum udmem_mmap_mode mode);

/** Flags of udmem_buffer_create_on(): udmem additions to u-dma-buf. */
enum udmem_create_flags {
	/**
	 * Mark the buffer's new platform device DMA-coherent (manager keyword
	 * dma-coherent): only for hardware that snoops the CPU caches, and
	 * not with a @p device, whose coherency its bus decides.
	 */
	UDMEM_CREATE_DMA_COHERENT = 1u << 0,
	/**
	 * Do not zero the memory (manager keyword keep-contents): the buffer
	 * is the start of @p device's no-map device-tree memory-region and
	 * keeps what it holds, e.g. data a bootloader or an FPGA wrote.
	 */
	UDMEM_CREATE_KEEP_CONTENTS = 1u << 1,
	/**
	 * Switch the buffer's sync checker on in report mode (manager keyword
	 * sync-check=report): a CPU access to memory the device owns after a
	 * sync for the device is counted in the buffer's ownership_violations
	 * and logged by the kernel.  The sysfs attribute sync_check switches it
	 * later.  Drivers without the checker refuse it (-EINVAL).
	 */
	UDMEM_CREATE_SYNC_CHECK_REPORT = 1u << 2,
	/**
	 * The same in strict mode (sync-check=strict): such an access through
	 * a mapping gets SIGBUS, read() and write() fail with EBUSY.  Not
	 * with UDMEM_CREATE_SYNC_CHECK_REPORT.
	 */
	UDMEM_CREATE_SYNC_CHECK_STRICT = 1u << 3,
};

/**
 * @brief Create a buffer through /dev/u-dma-buf-mgr, with a parent device
 *        and the udmem additions.
 * @param name          As for udmem_buffer_create().
 * @param size          As for udmem_buffer_create().
 * @param dma_mask_bits As for udmem_buffer_create(); ignored by the driver
 *                      with a @p device (the device keeps its mask).
 * @param mode          As for udmem_buffer_create().
 * @param device        The device to allocate for, "[BUS/]NAME" (BUS:
 *                      platform, pci, amba, pci_express ...; platform if
 *                      left out), or NULL for a new platform device.
 * @param flags         A mask of enum udmem_create_flags.
 * @return As udmem_buffer_create(); -EINVAL also for unknown flags, a bad
 *         @p device string, a device the manager does not find,
 *         UDMEM_CREATE_DMA_COHERENT with a @p device, both sync-check
 *         flags, and
 *         UDMEM_CREATE_KEEP_CONTENTS without a device that has a no-map,
 *         non-reusable memory-region; -EBUSY when that region is taken
 *         (another buffer, uiomem, or the device's DMA pool); -EOPNOTSUPP
 *         for UDMEM_CREATE_DMA_COHERENT on ARM kernels before 5.19.
 *         Free with udmem_buffer_delete().
 * @since 1.3 (UDMEM_API_VERSION >= 0x010300).
 */
int udmem_buffer_create_on(const char *name, uint64_t size,
			   unsigned int dma_mask_bits, enum udmem_mmap_mode mode,
			   const char *device, unsigned int flags);

/**
 * @brief Delete a buffer made by the manager.
 * @param name Device name.
 * @return 0; -ENOENT if there is no such buffer or it was not made by the
 *         manager (module parameters, device tree); -ENODEV if the manager
 *         is not loaded; -EBUSY while the buffer is open, mapped or
 *         exported.
 */
int udmem_buffer_delete(const char *name);

/**
 * @brief List the names of all buffers.
 * @param names Receives a NULL-terminated, sorted array of names; the
 *              caller frees it with udmem_list_free().
 * @return The number of names (0 if the driver is not loaded), or -errno.
 */
int udmem_buffer_list(char ***names);

/**
 * @brief The buffer's device name.
 * @return A string owned by the handle, valid until udmem_buffer_close().
 */
const char *udmem_buffer_name(const struct udmem_buffer *buf);

/** @brief The buffer's size in bytes (0 for NULL). */
uint64_t udmem_buffer_size(const struct udmem_buffer *buf);

/**
 * @brief The physical address as the driver reports it (sysfs phys_addr).
 *
 * u-dma-buf reports the DMA handle there, so this equals
 * udmem_buffer_dma_addr() unless the driver says otherwise.
 * @return The address (0 for NULL).
 */
uint64_t udmem_buffer_phys_addr(const struct udmem_buffer *buf);

/** @brief The address to program into the DMA master (0 for NULL). */
uint64_t udmem_buffer_dma_addr(const struct udmem_buffer *buf);

/**
 * @brief Whether the device is DMA-coherent (syncs are then free).
 * @return 1, 0, or -EINVAL for NULL.
 */
int udmem_buffer_is_coherent(const struct udmem_buffer *buf);

/**
 * @brief The width of the device's DMA mask in bits.
 * @return 1..64, 0 if unknown, or -EINVAL for NULL.
 */
int udmem_buffer_dma_mask_bits(const struct udmem_buffer *buf);

/**
 * @brief The buffer's mmap mode (enum udmem_mmap_mode).
 * @return The mode, UDMEM_MMAP_DEFAULT if the driver does not say, or -EINVAL.
 */
int udmem_buffer_mmap_mode(const struct udmem_buffer *buf);

/**
 * @brief The buffer's current sync_mode (0..7, see the u-dma-buf documentation).
 * @return The mode or -errno.
 */
int udmem_buffer_sync_mode(struct udmem_buffer *buf);

/**
 * @brief Who owns the buffer after the last sync.
 * @return UDMEM_OWNER_CPU, UDMEM_OWNER_DEVICE or -errno.
 */
int udmem_buffer_sync_owner(struct udmem_buffer *buf);

/**
 * @brief Map the whole buffer into this process (shared, read-write unless
 *        opened with UDMEM_OPEN_RDONLY).
 *
 * A handle has at most one mapping: a second call returns the same address.
 * @param buf  The handle.
 * @param addr Receives the address; it belongs to the handle and is valid
 *             until udmem_buffer_unmap() or udmem_buffer_close().
 * @return 0 or -errno from mmap().
 */
int udmem_buffer_map(struct udmem_buffer *buf, void **addr);

/**
 * @brief Remove the handle's mapping.
 * @return 0, or -EINVAL if the buffer is not mapped.
 */
int udmem_buffer_unmap(struct udmem_buffer *buf);

/**
 * @brief The handle's mapping, or NULL when it is not mapped.
 */
void *udmem_buffer_addr(struct udmem_buffer *buf);

/**
 * @brief Hand a byte range back to the CPU after the device wrote it.
 *
 * One ioctl.  Invalidates the CPU caches over the range when the device is
 * not coherent.  The range is also stored as the device's sync range.
 * @param buf    The handle.
 * @param offset First byte.
 * @param size   Number of bytes; 0 means "to the end of the buffer".
 * @param dir    enum udmem_dir.
 * @return 0; -EINVAL if the range does not fit or dir is bad; -EBADF for
 *         a sync that may invalidate (UDMEM_DIR_BIDIRECTIONAL or
 *         UDMEM_DIR_FROM_DEVICE here, UDMEM_DIR_FROM_DEVICE for the device)
 *         on a handle opened with UDMEM_OPEN_RDONLY; -errno.
 */
int udmem_buffer_sync_for_cpu(struct udmem_buffer *buf, uint64_t offset,
			      uint64_t size, enum udmem_dir dir);

/**
 * @brief Hand a byte range to the device after the CPU wrote it.
 *
 * Same rules as udmem_buffer_sync_for_cpu(); writes the CPU caches back.
 */
int udmem_buffer_sync_for_device(struct udmem_buffer *buf, uint64_t offset,
				 uint64_t size, enum udmem_dir dir);

/**
 * @brief Export a page-aligned range of the buffer as a DMA-BUF.
 * @param buf      The handle.
 * @param offset   Page-aligned start.
 * @param size     Page-aligned length; 0 means "the whole buffer" (rounded
 *                 down to a page).
 * @param fd_flags O_RDWR/O_RDONLY/O_WRONLY, optionally | O_CLOEXEC | O_SYNC.
 * @param dma_addr If not NULL, receives the DMA address of the range.
 * @return The new DMA-BUF file descriptor (the caller closes it), or -errno
 *         (-EINVAL for a misaligned range or bad flags, -ENOTTY if the
 *         driver was built without export).
 */
int udmem_buffer_export_dmabuf(struct udmem_buffer *buf, uint64_t offset,
			       uint64_t size, int fd_flags, uint64_t *dma_addr);

/**
 * @brief Import a foreign DMA-BUF: attach it to the buffer's DMA device and
 *        map it, for its DMA address.
 * @param buf       The handle; its device is the one that will DMA.
 * @param dmabuf_fd A DMA-BUF (from V4L2, DRM, a DMA heap, an export...).
 * @param dir       enum udmem_dir of the DMA the device will do.
 * @param dma_addr  If not NULL, receives the DMA-BUF's DMA address for the
 *                  buffer's device (contiguous from there for *size bytes).
 * @param size      If not NULL, receives the DMA-BUF's size.
 * @return A new "import" descriptor that holds the attachment and the
 *         mapping until the caller closes it, or -errno: -EOPNOTSUPP if the
 *         DMA-BUF is not one DMA range for the device, -EINVAL for a bad
 *         dir or an fd that is not a DMA-BUF, -EBADF for a bad fd,
 *         -ENOTTY if the driver has no import.
 * @since 1.1, as udmem_import_sync_for_cpu() and udmem_import_sync_for_device().
 */
int udmem_buffer_import_dmabuf(struct udmem_buffer *buf, int dmabuf_fd,
			       enum udmem_dir dir, uint64_t *dma_addr,
			       uint64_t *size);

/**
 * @brief Begin CPU access to an imported DMA-BUF (the exporter's
 *        begin_cpu_access over the whole DMA-BUF).
 * @param import_fd From udmem_buffer_import_dmabuf().
 * @param dir       UDMEM_DIR_FROM_DEVICE: the CPU reads what the device
 *                  wrote; UDMEM_DIR_TO_DEVICE: the CPU writes; or both.
 * @return 0 or -errno (-EINVAL for a bad dir, -EBADF for a bad fd).
 */
int udmem_import_sync_for_cpu(int import_fd, enum udmem_dir dir);

/**
 * @brief End CPU access to an imported DMA-BUF (the exporter's
 *        end_cpu_access), before the device's DMA.
 * @return 0 or -errno, as udmem_import_sync_for_cpu().
 */
int udmem_import_sync_for_device(int import_fd, enum udmem_dir dir);

/**
 * @brief The file descriptor of /dev/NAME, owned by the handle.
 * @return The descriptor (do not close it), or -EINVAL for NULL.
 */
int udmem_buffer_fd(const struct udmem_buffer *buf);

/* ---- Regions (uiomem) ------------------------------------------------ */

/**
 * @brief Open an existing region by its device name.
 * @param name  Device name, e.g. "uiomem0".
 * @param flags A mask of enum udmem_open_flags.
 * @param out   Receives the handle; free it with udmem_region_close().
 * @return 0; -EINVAL for a bad name or flags; -ENOENT if no such device;
 *         -ENODEV if /dev/NAME exists but is not a uiomem region; -errno.
 */
int udmem_region_open(const char *name, unsigned int flags,
		      struct udmem_region **out);

/** @brief Close a region handle (NULL allowed), unmapping it if mapped. */
void udmem_region_close(struct udmem_region *reg);

/**
 * @brief List the names of all regions.
 * @param names Receives a NULL-terminated, sorted array; free it with
 *              udmem_list_free().
 * @return The number of names (0 if the driver is not loaded), or -errno.
 */
int udmem_region_list(char ***names);

/** @brief The region's device name, owned by the handle. */
const char *udmem_region_name(const struct udmem_region *reg);

/** @brief The region's size in bytes (0 for NULL). */
uint64_t udmem_region_size(const struct udmem_region *reg);

/** @brief The region's CPU physical address (0 for NULL). */
uint64_t udmem_region_phys_addr(const struct udmem_region *reg);

/**
 * @brief The region's address as a DMA master sees it.
 *
 * uiomem knows no bus translation (IOMMU, dma-ranges) for device memory,
 * so this is the CPU physical address.
 */
uint64_t udmem_region_dma_addr(const struct udmem_region *reg);

/**
 * @brief Whether accesses to the region need no cache maintenance.
 * @return 1, 0, or -EINVAL for NULL.
 */
int udmem_region_is_coherent(const struct udmem_region *reg);

/**
 * @brief The region's sync_mode (0..7), as in sysfs.
 * @return The mode or -errno.
 */
int udmem_region_sync_mode(struct udmem_region *reg);

/**
 * @brief Who owns the region after the last sync.
 * @return UDMEM_OWNER_CPU, UDMEM_OWNER_DEVICE or -errno.
 */
int udmem_region_sync_owner(struct udmem_region *reg);

/**
 * @brief Map the whole region (see udmem_buffer_map()).
 * @param addr Receives the address, owned by the handle.
 */
int udmem_region_map(struct udmem_region *reg, void **addr);

/** @brief Remove the handle's mapping; -EINVAL if not mapped. */
int udmem_region_unmap(struct udmem_region *reg);

/** @brief The handle's mapping, or NULL when not mapped. */
void *udmem_region_addr(struct udmem_region *reg);

/**
 * @brief Make a byte range written by a device visible to the CPU (one ioctl).
 * @param size 0 means "to the end of the region".
 * @return 0; -EINVAL for a bad range or direction; -EBADF when it may
 *         invalidate and the handle was opened with UDMEM_OPEN_RDONLY
 *         (see udmem_buffer_sync_for_cpu()); -errno.
 */
int udmem_region_sync_for_cpu(struct udmem_region *reg, uint64_t offset,
			      uint64_t size, enum udmem_dir dir);

/**
 * @brief Make a byte range written by the CPU visible to a device (one ioctl).
 * @param size 0 means "to the end of the region".
 * @return 0; -EINVAL for a bad range or direction; -errno.
 */
int udmem_region_sync_for_device(struct udmem_region *reg, uint64_t offset,
				 uint64_t size, enum udmem_dir dir);

/** @brief The file descriptor of /dev/NAME, owned by the handle. */
int udmem_region_fd(const struct udmem_region *reg);

/**
 * @brief Export a page-aligned range of the region as a DMA-BUF, for
 *        another driver's device to reach the device memory (peer to peer).
 *
 * Importers get DMA addresses only (no struct page), and the DMA-BUF has no
 * mmap and no vmap: map the region itself for CPU access.
 * @param reg      The handle.
 * @param offset   Page-aligned start.
 * @param size     Page-aligned length; 0 means "the whole region" (rounded
 *                 down to a page).
 * @param fd_flags O_RDWR/O_RDONLY/O_WRONLY, optionally | O_CLOEXEC.
 * @return The new DMA-BUF file descriptor (the caller closes it), or -errno
 *         (-EINVAL for a misaligned range or other flags, -EACCES for a
 *         writable export of a handle opened read-only, -ENOTTY from a
 *         driver without export).
 * @since 1.2.
 */
int udmem_region_export_dmabuf(struct udmem_region *reg, uint64_t offset,
			       uint64_t size, int fd_flags);

/* ---- DMA channels (u-dma-chan): copies and transfers on the kernel's DMA engines ---- */

/** A DMA channel handle: /dev/NAME of the u-dma-chan driver, open. */
struct udmem_dma;

/** What a transfer does (struct udmem_dma_xfer.op). */
enum udmem_dma_op {
	UDMEM_DMA_MEMCPY = 0,		/**< src_fd -> dst_fd */
	UDMEM_DMA_DEV_TO_MEM = 1,	/**< the slave device -> dst_fd */
	UDMEM_DMA_MEM_TO_DEV = 2,	/**< src_fd -> the slave device */
};

/** Flags of struct udmem_dma_xfer. */
enum udmem_dma_xfer_flags {
	/** Repeat the slave transfer in periods until udmem_dma_terminate(). */
	UDMEM_DMA_CYCLIC = 1u << 0,
	/** No cache sync: the caller syncs the buffers itself. */
	UDMEM_DMA_NO_SYNC = 1u << 1,
};

/** Flags of udmem_dma_submit(). */
enum udmem_dma_submit_flags {
	/** Return the batch's fence as a sync_file descriptor. */
	UDMEM_DMA_FENCE_FD = 1u << 0,
	/** Queue no completion record for udmem_dma_completions(). */
	UDMEM_DMA_NO_EVENT = 1u << 1,
	/**
	 * Return once the batch completed, with its status: a submit and a
	 * udmem_dma_wait() without a time limit in one system call (not for
	 * cyclic transfers).  A module older than the library refuses it
	 * with -EINVAL.  @since 1.7 (UDMEM_API_VERSION >= 0x010700).
	 */
	UDMEM_DMA_WAIT = 1u << 2,
};

/** Capability bits of struct udmem_dma_info.caps. */
enum udmem_dma_caps {
	UDMEM_DMA_CAP_MEMCPY = 1u << 0,
	UDMEM_DMA_CAP_DEV_TO_MEM = 1u << 1,
	UDMEM_DMA_CAP_MEM_TO_DEV = 1u << 2,
	UDMEM_DMA_CAP_CYCLIC = 1u << 3,
};

/**
 * One transfer.  Memory is named by a DMA-BUF file descriptor (from
 * udmem_buffer_export_dmabuf(), udmem_region_export_dmabuf(), or any
 * exporter) and an offset; a destination must be open for writing.
 */
struct udmem_dma_xfer {
	uint32_t op;		/**< enum udmem_dma_op */
	uint32_t flags;		/**< enum udmem_dma_xfer_flags */
	int src_fd;		/**< DMA-BUF read; -1 for UDMEM_DMA_DEV_TO_MEM */
	int dst_fd;		/**< DMA-BUF written; -1 for UDMEM_DMA_MEM_TO_DEV */
	uint64_t src_offset;	/**< start in src_fd */
	uint64_t dst_offset;	/**< start in dst_fd */
	uint64_t length;	/**< bytes, > 0 */
	uint64_t period;	/**< UDMEM_DMA_CYCLIC: period bytes, else 0 */
};

/** What udmem_dma_info() reports. */
struct udmem_dma_info {
	char name[64];		/**< the device name */
	char channel[32];	/**< the kernel's channel name, e.g. "dma0chan3" */
	char device[64];	/**< the DMA engine's device */
	uint64_t caps;		/**< enum udmem_dma_caps */
	uint64_t max_segment;	/**< longest piece the engine takes at once */
	uint64_t dma_mask;	/**< the engine's DMA mask */
	uint32_t copy_align;	/**< memcpy offsets and lengths: multiples of this */
	uint32_t max_batch;	/**< most transfers per udmem_dma_submit() */
};

/** A completed batch, as udmem_dma_completions() reports it. */
struct udmem_dma_completion {
	uint64_t seq;		/**< the sequence number udmem_dma_submit() gave */
	int status;		/**< 0, or the batch's negative errno */
};

/**
 * @brief Open a DMA channel by its device name.
 *
 * A channel has one open handle at a time.
 * @param name Device name, e.g. "dma-chan0".
 * @param out  Receives the handle; free it with udmem_dma_close().
 * @return 0; -EINVAL for a bad name; -ENOENT if there is no such channel;
 *         -EBUSY if another handle has it open; -EACCES.
 * @since 1.4.
 */
int udmem_dma_open(const char *name, struct udmem_dma **out);

/**
 * @brief Close a channel handle.  Transfers still running are stopped and
 *        their fences signalled with -ECANCELED.
 * @param dma The handle, or NULL.
 * @since 1.4.
 */
void udmem_dma_close(struct udmem_dma *dma);

/**
 * @brief The channel's file descriptor (owned by the handle): poll() it
 *        for completions.
 * @since 1.4.
 */
int udmem_dma_fd(const struct udmem_dma *dma);

/**
 * @brief Describe the channel.
 * @return 0; -ENODEV once the channel is gone.
 * @since 1.4.
 */
int udmem_dma_info(struct udmem_dma *dma, struct udmem_dma_info *info);

/**
 * @brief List the names of all channels.
 * @param names Receives a NULL-terminated, sorted array; free it with
 *              udmem_list_free().
 * @return The number of names (0 if the driver is not loaded), or -errno.
 * @since 1.4.
 */
int udmem_dma_list(char ***names);

/**
 * @brief Submit a batch of transfers, run in order, in one system call.
 *
 * The whole batch is checked before anything moves.  Unless a transfer has
 * UDMEM_DMA_NO_SYNC, its source is synced for the device first and its
 * destination for the CPU before the batch completes.
 * @param dma      The handle.
 * @param xfers    The transfers.
 * @param count    How many (1 .. info.max_batch).
 * @param flags    enum udmem_dma_submit_flags.
 * @param seq      Receives the batch's sequence number (may be NULL).
 * @param fence_fd With UDMEM_DMA_FENCE_FD: receives the sync_file
 *                 descriptor, which the caller closes (may be NULL otherwise).
 * @return 0; -EINVAL for a bad transfer (range outside its DMA-BUF,
 *         unaligned, overlapping in one DMA-BUF, zero length, bad flags),
 *         -EBADF for a descriptor that is not open, -EACCES for a
 *         destination not open for writing, -E2BIG for too many transfers,
 *         -EOPNOTSUPP for an operation the channel lacks, -ENODEV once the
 *         channel is gone.  With UDMEM_DMA_WAIT, once the call got the batch
 *         going, the batch's status (0, or as udmem_dma_wait() gives it), or
 *         -EINTR when a signal ended the wait (@p seq is set; the batch runs on).
 * @since 1.4.
 */
int udmem_dma_submit(struct udmem_dma *dma, const struct udmem_dma_xfer *xfers,
		     unsigned int count, unsigned int flags, uint64_t *seq, int *fence_fd);

/**
 * @brief Wait for a batch.
 * @param dma        The handle.
 * @param seq        Its sequence number; 0 for the last batch submitted.
 * @param timeout_ns 0 only looks; negative waits without a limit.
 * @param status     Receives 0 or the batch's negative errno (-EIO: the
 *                   engine failed; -ECANCELED: stopped; -ENODEV: the
 *                   channel went away).  May be NULL.
 * @return 0 once the batch completed; -ETIMEDOUT if it still runs;
 *         -EINVAL for a number never given out; -ENOENT for a batch too old
 *         for its status to be kept (4096 batches).
 * @since 1.4.
 */
int udmem_dma_wait(struct udmem_dma *dma, uint64_t seq, int64_t timeout_ns, int *status);

/**
 * @brief Copy with the engine and wait: udmem_dma_submit() of one memcpy,
 *        then udmem_dma_wait(); one system call when @p timeout_ns is
 *        negative (UDMEM_DMA_WAIT).
 * @return 0 once the data moved; the batch's negative errno; the errors of
 *         udmem_dma_submit() and udmem_dma_wait().
 * @since 1.4.
 */
int udmem_dma_copy(struct udmem_dma *dma, int dst_fd, uint64_t dst_offset,
		   int src_fd, uint64_t src_offset, uint64_t length, int64_t timeout_ns);

/**
 * @brief Fetch completion records, waiting up to @p timeout_ns for the first.
 * @param dma        The handle.
 * @param out        Receives up to @p max records, oldest first.
 * @param max        Room in @p out (> 0).
 * @param timeout_ns 0 only looks; negative waits without a limit.
 * @return The number of records (0 when none came in time), or -errno.
 * @since 1.4.
 */
int udmem_dma_completions(struct udmem_dma *dma, struct udmem_dma_completion *out,
			  unsigned int max, int64_t timeout_ns);

/**
 * @brief Set the slave configuration of one direction for the following
 *        slave transfers.
 * @param dma        The handle.
 * @param dir        UDMEM_DMA_DEV_TO_MEM or UDMEM_DMA_MEM_TO_DEV.
 * @param dev_addr   The device side's bus address (0 where it has none).
 * @param addr_width Bytes per device access (1, 2, 4 ... 64).
 * @param maxburst   Accesses per burst, 0 for the engine's default.
 * @return 0; -EINVAL for a bad argument.
 * @since 1.4.
 */
int udmem_dma_slave_config(struct udmem_dma *dma, enum udmem_dma_op dir,
			   uint64_t dev_addr, unsigned int addr_width, unsigned int maxburst);

/**
 * @brief Stop every transfer of the handle (cyclic ones included); each
 *        running batch completes with -ECANCELED.
 * @since 1.4.
 */
int udmem_dma_terminate(struct udmem_dma *dma);

/**
 * @brief Wait for a fence (a sync_file descriptor, e.g. from
 *        udmem_dma_submit()).
 * @param fence_fd   The descriptor (not closed).
 * @param timeout_ns 0 only looks; negative waits without a limit.
 * @return 0 once signalled without error; the fence's negative errno;
 *         -ETIMEDOUT if not signalled in time; -EINVAL for a descriptor that
 *         is not a sync_file.
 * @since 1.4.
 */
int udmem_dma_fence_wait(int fence_fd, int64_t timeout_ns);

/**
 * @brief Name the buffer and offset when the sync checker stops a CPU access.
 *
 * Installs a SIGBUS handler (sigaction, SA_SIGINFO) for the process.  When a
 * SIGBUS hits a mapping made by this library (udmem_buffer_map(),
 * udmem_region_map()), it writes one line to standard error,
 * @code
 * udmem: NAME offset 0x2010: CPU access to device-owned memory (sync checker)
 * @endcode
 * with the offset of the signal's si_addr (the byte touched), then hands
 * the signal on: to the SIGBUS handler that was installed before, or, if
 * there was none, to the default action, which ends the process with SIGBUS.
 * A SIGBUS outside the library's mappings is handed on without a line.
 * Calling it again does nothing.
 * @return 0 or -errno from sigaction().
 * @since 1.5 (UDMEM_API_VERSION >= 0x010500).
 */
int udmem_sync_check_handler_install(void);

/**
 * @brief Let the sync checker's SIGBUS handler name a mapping made elsewhere.
 *
 * Adds [@p addr, @p addr + @p len) to the table that the handler of
 * udmem_sync_check_handler_install() looks a fault address up in, under
 * @p name (cut to 63 characters): for a buffer mapped without this library,
 * by mmap() of /dev/NAME or by another language's runtime.  A SIGBUS at
 * @p addr + N then writes "udmem: NAME offset 0xN: ...".  An entry that
 * overlaps the new range is dropped first: it belonged to a mapping that is
 * gone.  The table holds 256 mappings, the library's own included.
 * Call udmem_sync_check_unwatch() before munmap().
 * @return 0; -EINVAL for a NULL @p name or @p addr, or @p len 0;
 *         -ENOSPC when the table is full.
 * @since 1.6 (UDMEM_API_VERSION >= 0x010600).
 */
int udmem_sync_check_watch(const char *name, const void *addr, size_t len);

/**
 * @brief Forget a mapping given to udmem_sync_check_watch().
 *
 * @p addr is the address the mapping was watched with.
 * @return 0; -ENOENT if no watched mapping starts at @p addr; -EINVAL for NULL.
 * @since 1.6 (UDMEM_API_VERSION >= 0x010600).
 */
int udmem_sync_check_unwatch(const void *addr);

#ifdef __cplusplus
}
#endif

#endif /* UDMEM_H */
