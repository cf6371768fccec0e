/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uiomem.h - what the parts of uiomem.ko share.
 */
#ifndef UIOMEM_H
#define UIOMEM_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/ioport.h>
#include <linux/mm_types.h>
#include <linux/mutex.h>
#include <linux/platform_device.h>
#include <linux/ratelimit.h>
#include <linux/types.h>

#include "common/udmem_sync.h"

#define UIOMEM_DRIVER_NAME	"uiomem"
#define UIOMEM_DRIVER_VERSION	"1.1.0"
#define UIOMEM_MINORS		256
/* Module-parameter regions uiomem0..7. */
#define UIOMEM_STATIC_DEVICES	8

/* sync_mode: the low two bits pick the O_SYNC protection, bit 2 forces it. */
#define UIOMEM_SYNC_MODE_MASK	3U
#define UIOMEM_SYNC_ALWAYS	4U
#define UIOMEM_SYNC_MODE_MAX	7U

/* uiomemN_option and the device property "option" (64-bit). */
#define UIOMEM_OPTION_SHAREABLE	BIT_ULL(0)
#define UIOMEM_OPTION_CACHED	BIT_ULL(1)
#define UIOMEM_OPTION_COHERENT	BIT_ULL(2)
/* The default: not shareable, cached, not coherent (needs cache syncs). */
#define UIOMEM_OPTION_DEFAULT	UIOMEM_OPTION_CACHED

/**
 * struct uiomem_cache_ops - the CPU's cache maintenance, one per architecture
 * @name: what the maintenance uses, for the load message
 * @sync_operation: the name sysfs sync_operation and UIOMEM_IOCTL_GET_DRV_INFO
 *	report when @probe finds maintenance (at most 15 characters); "NONE"
 *	(and an empty ioctl string) is reported instead when it finds none
 * @probe: return the maintenance granule in bytes (a power of two), or 0
 *	when the CPU has no usable maintenance for this memory
 * @clean: write dirty lines of the range back to memory; the range is
 *	given as the kernel alias @vaddr and its physical address @paddr
 * @inval: discard the lines of the range so later reads come from memory;
 *	partial lines at either end are cleaned first
 * @flush: write dirty lines of the range back, then discard them (clean
 *	and invalidate): later reads come from memory and no CPU write is lost
 * @dmacoherent: the page protection of sync_mode 3 ("dma-coherent")
 * @single_memtype: every mapping of a page must have the same memory type
 *	(x86 PAT), so user mappings follow the kernel's write-back alias
 *
 * @clean, @inval and @flush return the number of barrier instructions they
 * issued; they issue exactly one maintenance instruction per line touched.
 */
struct uiomem_cache_ops {
	const char *name;
	const char *sync_operation;
	u32 (*probe)(void);
	unsigned int (*clean)(void *vaddr, phys_addr_t paddr, size_t size, u32 line);
	unsigned int (*inval)(void *vaddr, phys_addr_t paddr, size_t size, u32 line);
	unsigned int (*flush)(void *vaddr, phys_addr_t paddr, size_t size, u32 line);
	pgprot_t (*dmacoherent)(pgprot_t prot);
	bool single_memtype;
};

/* Defined by the cache-<arch>.c file that Kbuild picked. */
extern const struct uiomem_cache_ops uiomem_cache_ops;
/* The granule uiomem_cache_ops.probe() reported at load; 0: no maintenance. */
extern u32 uiomem_cache_line;

/* What sysfs sync_operation shows: the backend's name, "NONE" without one. */
static inline const char *uiomem_sync_operation(void)
{
	return uiomem_cache_line ? uiomem_cache_ops.sync_operation : "NONE";
}

struct udmem_own;

/**
 * struct uiomem - one device-memory region and its /dev node
 * @dev: the class device /sys/class/uiomem/<name>; owns this structure
 * @cdev: the character device, a child of @dev
 * @lock: serialises syncs, reads, writes, mmap and the sync_* state
 * @dead: the region was removed; open files get ENODEV
 * @map_inode: the inode whose address space every open file of the region
 *	uses (the first one opened, held): it lists all user mappings, so
 *	that removal can revoke them
 * @phys: CPU physical address of the region
 * @size: size of the region in bytes (a multiple of PAGE_SIZE); a u64, as
 *	a physical range is: on 32-bit kernels with 64-bit physical addresses
 *	(ARM LPAE) a size_t would truncate a range of 4 GiB or more
 * @vaddr: kernel alias from memremap(), write-back if @cached, else
 *	write-combine; used for read(), write() and cache maintenance
 * @shareable: the region may overlap other regions (no request_mem_region)
 * @cached: user mappings without O_SYNC or sync-always are cacheable
 * @coherent: the CPU caches need no maintenance for this region (set
 *	whenever !@cached): syncs only change @sync_owner
 * @sync_mode: 0..7, see UIOMEM_SYNC_*
 * @sync_offset: stored range for sync value 1
 * @sync_size: stored range for sync value 1
 * @sync_direction: stored direction for sync value 1 (enum udmem_sync_dir)
 * @sync_owner: 0 after a sync for the CPU, 1 after one for the device
 * @sync_for_cpu: last value written to sync_for_cpu (0 once done)
 * @sync_for_device: last value written to sync_for_device (0 once done)
 * @sync_calls: syncs done (statistics for the query ioctl)
 * @sync_lines: cache maintenance instructions issued
 * @sync_barriers: barrier instructions issued
 * @sync_check: the sync checker's mode, UDMEM_CHECK_* (ownership.c);
 *	READ_ONCE() outside @lock
 * @own: page owners, from the first switch on of the checker
 * @own_violations: CPU accesses the checker caught (ownership_violations)
 * @own_redundant: syncs for the CPU of CPU-owned pages (redundant_syncs)
 * @own_rs: limits the checker's messages
 */
struct uiomem {
	struct device dev;
	struct cdev cdev;
	struct mutex lock;	/* the fields below @lock in this list */
	bool dead;
	struct inode *map_inode;
	phys_addr_t phys;
	u64 size;
	void *vaddr;
	bool shareable;
	bool cached;
	bool coherent;
	u32 sync_mode;
	u64 sync_offset;
	u64 sync_size;
	enum udmem_sync_dir sync_direction;
	u32 sync_owner;
	u64 sync_for_cpu;
	u64 sync_for_device;
	atomic64_t sync_calls;
	atomic64_t sync_lines;
	atomic64_t sync_barriers;
	u32 sync_check;
	struct udmem_own *own;
	atomic_long_t own_violations;
	atomic_long_t own_redundant;
	struct ratelimit_state own_rs;
};

/* main.c */
extern struct class *uiomem_class;
extern dev_t uiomem_devt;
extern int uiomem_info_enable;

/* probe.c */
extern struct platform_driver uiomem_driver;
/**
 * struct uiomem_static_data - platform data of a module-parameter region
 * @res: its range (not a platform resource, see main.c)
 * @minor: uiomemN's N
 * @option: uiomemN_option
 *
 * Platform data, not device properties: properties make a software node,
 * and 6.1's software_node_notify() takes no reference on it when it
 * cannot make the node's sysfs links while software_node_notify_remove()
 * drops one anyway, a use after free at removal (failnth's failload).
 */
struct uiomem_static_data {
	struct resource res;
	u32 minor;
	u64 option;
};

int uiomem_check_resource(struct device *dev, const struct resource *res);
void uiomem_minor_reserve(int n);
bool uiomem_minor_reserved(int n);
void uiomem_minor_unreserve(int n);

/* sync.c: @um->lock held. */
int uiomem_sync_for_cpu(struct uiomem *um, u64 offset, u64 size,
			enum udmem_sync_dir dir);
int uiomem_sync_for_device(struct uiomem *um, u64 offset, u64 size,
			   enum udmem_sync_dir dir);
int uiomem_sync_flush(struct uiomem *um, u64 offset, u64 size, u32 owner);
int uiomem_sync_command(struct uiomem *um, u64 value, bool for_device,
			const char *via);
int uiomem_sync_store(struct uiomem *um, u64 value, bool for_device,
		      const char *via);
bool uiomem_sync_command_may_discard(struct uiomem *um, u64 value,
				     bool for_device);

/* ownership.c: the sync checker (docs/sync-checker.md) */
extern int uiomem_default_sync_check;
void uiomem_chk_init(struct uiomem *um, int mode);
void uiomem_chk_free(struct uiomem *um);
int uiomem_chk_set_mode(struct uiomem *um, u32 mode);
void uiomem_chk_sync(struct uiomem *um, bool for_device, u64 offset, u64 size,
		     enum udmem_sync_dir dir, const char *via, bool by_export);
int uiomem_chk_rw(struct uiomem *um, u64 offset, u64 len, bool write);
int uiomem_chk_begin_cpu(struct uiomem *um, u64 offset, u64 len);
vm_fault_t uiomem_chk_fault(struct uiomem *um, u64 offset, unsigned long addr,
			    bool write, bool *wrprotect);
vm_fault_t uiomem_chk_mkwrite(struct uiomem *um, u64 offset, unsigned long addr);

/* mmap.c */
u32 uiomem_map_type(const struct uiomem *um, bool o_sync);
int uiomem_mmap(struct file *file, struct vm_area_struct *vma);

/* ioctl.c */
long uiomem_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

struct uiomem_export;
#if IS_ENABLED(CONFIG_DMA_SHARED_BUFFER)
/* export.c */
int uiomem_export(struct uiomem *um, struct file *file, struct uiomem_export *args);
#else
/* A kernel without DMA-BUF (Debian's 5.10 cloud flavour): no export. */
static inline int uiomem_export(struct uiomem *um, struct file *file,
				struct uiomem_export *args)
{
	return -EOPNOTSUPP;
}
#endif

/* file.c */
extern const struct file_operations uiomem_fops;

/* sysfs.c */
extern const struct attribute_group **const uiomem_class_groups;

#endif /* UIOMEM_H */
