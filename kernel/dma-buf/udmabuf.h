/* SPDX-License-Identifier: GPL-2.0 */
/*
 * udmabuf.h - internals of the u-dma-buf driver, shared by its files.
 *
 * One struct udmabuf is one buffer.  It is reference counted: the creator
 * (probe, module parameter, manager) holds one reference until it removes
 * the buffer, every open file and every exported dma-buf holds one more,
 * and mappings hold their file.  Removing a buffer detaches it at once
 * (no /dev node, no sysfs, no new opens) and the memory is freed with the
 * last reference, so nothing a user still holds points to freed memory.
 * Except when the parent's driver of a bound buffer goes: the memory is
 * freed then, through the parent's DMA setup, after everything a user holds
 * is cut off from it (see udmabuf_detach()).
 */
#ifndef UDMEM_UDMABUF_H
#define UDMEM_UDMABUF_H

#include <linux/atomic.h>
#include <linux/device.h>
#include <linux/dma-direction.h>
#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mm_types.h>
#include <linux/mutex.h>
#include <linux/platform_device.h>
#include <linux/ratelimit.h>
#include <linux/rwsem.h>
#include <linux/types.h>

#include <linux/u-dma-buf-ioctl.h>
#include "common/udmem_sync.h"

#define UDMABUF_DRIVER_NAME	"u-dma-buf"
#define UDMABUF_DRIVER_VERSION	"1.0.0"
#define UDMABUF_MINORS		256
#define UDMABUF_NAME_MAX	64

/* sync_mode bits */
#define UDMABUF_SYNC_MODE_MASK		3
#define UDMABUF_SYNC_NONE		0
#define UDMABUF_SYNC_NONCACHED		1
#define UDMABUF_SYNC_WRITECOMBINE	2
#define UDMABUF_SYNC_DMACOHERENT	3
#define UDMABUF_SYNC_ALWAYS		4
#define UDMABUF_SYNC_MODE_MAX		7

/* How a buffer is created, for what the manager may delete. */
enum udmabuf_origin {
	UDMABUF_ORIGIN_DT,		/* device tree node */
	UDMABUF_ORIGIN_STATIC,		/* udmabufN= module parameter */
	UDMABUF_ORIGIN_MANAGED,		/* u-dma-buf-mgr or in-kernel API */
};

/* What a creator asks for; zero fields mean "default". */
struct udmabuf_params {
	const char *name;		/* NULL: derived from the minor */
	int minor;			/* -1: lowest free */
	u64 size;
	int quirk_mmap_mode;		/* 0: the module parameter */
	u32 sync_mode;			/* 0: 1 (noncached with O_SYNC) */
	bool sync_mode_set;
	u64 sync_offset;
	u64 sync_size;			/* 0: the whole buffer */
	u32 sync_direction;
	int dma_mask_bits;		/* 0: keep the device's mask */
	bool dma_coherent;		/* mark a new platform device coherent */
	bool keep_contents;		/* no zeroing: see udmabuf_alloc_kept() */
	u32 sync_check;			/* 0: the sync_check parameter, else mode + 1 */
	enum udmabuf_origin origin;
	struct platform_device *pdev;	/* the probing platform device, if any */
	bool rmem;			/* a user of the device's memory-region */
};

/* A mappable range of a buffer: all of it, or an exported part. */
struct udmabuf_view {
	struct udmabuf *buf;
	u64 base;			/* page aligned */
	u64 len;			/* page aligned */
};

/* How user space maps a buffer's memory. */
enum udmabuf_map {
	UDMABUF_MAP_DMA,		/* dma_mmap_coherent() */
	UDMABUF_MAP_PFN,		/* our remap of one run of page frames */
	UDMABUF_MAP_PAGES,		/* page mode: its struct pages inserted */
};

/*
 * A buffer's memory type, decided once by memtype.c: the fields up to
 * setup_bound before the memory is allocated, map once it is.  The
 * other files only read it.
 */
struct udmabuf_memtype {
	bool coherent;			/* the DMA device snoops the CPU caches */
	bool quirk;			/* user mappings through our own remap */
	bool want_alias;		/* allocate with a cached kernel alias */
	bool want_pages;		/* page mode: give the pages their counts */
	bool setup_bound;		/* the DMA setup goes with the driver */
	enum udmabuf_map map;
};

/* The sync checker's modes (ownership.c, docs/sync-checker.md). */
enum udmabuf_check {
	UDMABUF_CHECK_OFF,
	UDMABUF_CHECK_REPORT,		/* a kernel message, then the access goes on */
	UDMABUF_CHECK_STRICT,		/* SIGBUS, or read()/write() fail with EBUSY */
	UDMABUF_CHECK_MAX = UDMABUF_CHECK_STRICT,
};

/* Who asked for a sync, for the checker's messages. */
enum udmabuf_via {
	UDMABUF_VIA_SYSFS,
	UDMABUF_VIA_IOCTL,
	UDMABUF_VIA_API,		/* the in-kernel API */
	UDMABUF_VIA_RW,			/* read()/write() with O_SYNC */
	UDMABUF_VIA_DMABUF,		/* an export's CPU access brackets */
};

struct udmem_own;

struct udmabuf {
	struct kref ref;
	struct mutex lock;		/* sync state and the flags below */
	struct list_head node;		/* in the driver's buffer list */
	struct list_head imports;	/* mapped imports (import.c's lock) */

	char name[UDMABUF_NAME_MAX];
	int minor;
	enum udmabuf_origin origin;
	struct device *sys_dev;		/* class device; NULL once detached */
	struct device *dma_dev;		/* referenced until the memory is freed */
	struct platform_device *pdev;	/* the platform device we made, if any */
	bool rmem;			/* a user of dma_dev's memory-region */
	bool claimed;			/* its removal is under way (registry lock) */
	bool detached;

	u64 size;			/* as requested */
	size_t alloc_size;		/* rounded up to pages */
	void *virt;
	dma_addr_t dma_addr;
	unsigned long pfn;		/* first pfn when pfn_ok */
	bool pfn_ok;			/* memory is one run of pfns from pfn */
	bool no_cpu_sync;		/* outside the linear map: no cache ops */
	bool cached_alias;		/* from dma_alloc_noncoherent(): see alloc.c */
	struct page **pages;		/* page mode: one per page */
	bool own_refs;			/* we gave pages[1..] their counts */
	bool dma_gone;			/* detached; DMA API calls inexact */
	bool keep_on_free;		/* used across an unbind: see alloc.c */
	bool keep_contents;		/* asked not to zero the memory */
	bool kept;			/* memory is a claimed no-map region */

	/*
	 * Taking the memory away from a busy buffer at its parent's unbind
	 * (mmap.c, alloc.c).  map_lock guards the fields below it and is
	 * held by mmap() and the faults while they map the memory; mem_sem
	 * is held for reading by read() and write() while they copy.
	 */
	struct mutex map_lock;
	struct rw_semaphore mem_sem;
	bool revoked;			/* no mapping, copy or export of the memory */
	struct list_head mmap_mms;	/* address spaces mmap() may be linking */
	unsigned int export_maps;	/* importers' mapped attachments */
	bool vmapped;			/* an export was vmapped (never undone here) */
	struct udmabuf_memtype mt;	/* see memtype.c */
	struct udmabuf_view view;	/* the whole buffer, for /dev mmap */

	int quirk_mmap_mode;
	u32 sync_mode;			/* UDMABUF_SYNC_* */
	u64 sync_offset;
	u64 sync_size;
	u32 sync_direction;		/* 0 bidirectional, 1 to, 2 from device */
	u32 sync_owner;			/* 0 CPU, 1 device */
	u64 sync_for_cpu;		/* last command value written */
	u64 sync_for_device;
	unsigned int exports;		/* live dma-buf exports */
	u32 debug_vma;			/* bit 0 mmap/open/close, bit 1 faults */
	atomic_long_t map_pmd;		/* PMD entries put in user mappings */
	atomic_long_t map_pte;		/* PTE entries put in user mappings */
	u32 debug_export;		/* 1: log exports */

	/* the sync checker (ownership.c); the fields under buf->lock */
	u32 sync_check;			/* UDMABUF_CHECK_*; READ_ONCE() outside the lock */
	struct udmem_own *own;		/* page owners, from the first switch on */
	struct list_head own_maps;	/* address spaces of the user mappings */
	atomic_long_t own_violations;
	atomic_long_t own_redundant;	/* syncs for the CPU of CPU-owned memory */
	struct ratelimit_state own_rs;
};

/* Memory from a per-device pool (a no-map reserved-memory region). */
static inline bool udmabuf_dev_has_pool(const struct device *dev)
{
#ifdef CONFIG_DMA_DECLARE_COHERENT
	return dev->dma_mem;
#else
	return false;
#endif
}

#define UDMABUF_STATIC_MAX	8

/* main.c: module parameters */
extern u64 udmabuf_static_size[UDMABUF_STATIC_MAX];
extern char *udmabuf_static_bind[UDMABUF_STATIC_MAX];
extern bool udmabuf_static_dma_coherent[UDMABUF_STATIC_MAX];
extern bool udmabuf_static_keep_contents[UDMABUF_STATIC_MAX];
extern char *udmabuf_bind;
extern int udmabuf_info_enable;
extern int udmabuf_default_quirk_mmap_mode;
extern int udmabuf_dma_mask_bit;

/* registry.c */
extern struct mutex udmabuf_registry_lock;	/* the list, minors, API lists */
extern struct list_head udmabuf_list;		/* every attached buffer */
extern struct class *udmabuf_class;
int udmabuf_registry_init(void);
void udmabuf_registry_exit(void);
struct udmabuf *udmabuf_create(const struct udmabuf_params *p,
			       struct device *dma_dev, struct device *parent);
void udmabuf_remove(struct udmabuf *buf);
void udmabuf_remove_revoke(struct udmabuf *buf);
struct udmabuf *udmabuf_get_by_minor(unsigned int minor);
void udmabuf_put(struct udmabuf *buf);
bool udmabuf_busy(struct udmabuf *buf);
bool udmabuf_name_valid(const char *name);
struct udmabuf *udmabuf_find_name_locked(const char *name);
void udmabuf_minor_reserve(int minor);
void udmabuf_hide_locked(struct udmabuf *buf);
int udmabuf_dma_mask_bits(const struct udmabuf *buf);

/* of.c */
/* Platform data of the devices made for module parameters and the manager. */
struct udmabuf_pdata {
	struct udmabuf_params params;
	char name[UDMABUF_NAME_MAX];
	int probe_err;		/* written by the probe for the creator */
};

extern struct platform_driver udmabuf_platform_driver;
int udmabuf_set_dma_mask(struct device *dev, int bits);
void udmabuf_rmem_put(struct device *dev);

/* bind.c */
void udmabuf_bus_types_init(void);
struct platform_device *udmabuf_pdev_create(const struct udmabuf_params *p, int id);
int udmabuf_static_create(int i);
void udmabuf_static_remove_all(void);
int udmabuf_parent_watch_init(void);
void udmabuf_parent_watch_exit(void);

/* pcie.c: the port-service bus, or NULL (also without CONFIG_PCIEPORTBUS) */
#if IS_ENABLED(CONFIG_PCIEPORTBUS)
const struct bus_type *udmabuf_pcie_port_bus(void);
#else
static inline const struct bus_type *udmabuf_pcie_port_bus(void)
{
	return NULL;
}
#endif

/* api.c */
void udmabuf_api_remove_all(void);

/* sysfs.c */
extern const struct attribute_group *udmabuf_groups[];

/* memtype.c */
void udmabuf_memtype_decide(struct udmabuf *buf);
void udmabuf_memtype_settle(struct udmabuf *buf);
bool udmabuf_dma_coherent(const struct udmabuf *buf);

/* alloc.c */
int udmabuf_alloc(struct udmabuf *buf);
void udmabuf_free(struct udmabuf *buf);
void udmabuf_free_early(struct udmabuf *buf);

/* sync.c */
int udmabuf_sync_dma(struct udmabuf *buf, bool for_device, u64 offset, u64 size,
		     enum dma_data_direction dir);
int udmabuf_sync_range(struct udmabuf *buf, bool for_device, u64 offset,
		       u64 size, u32 dir, enum udmabuf_via via);
int udmabuf_sync_cmd(struct udmabuf *buf, bool for_device, u64 value, bool writable,
		     enum udmabuf_via via);

/* file.c */
extern const struct file_operations udmabuf_fops;

/* ownership.c: the sync checker */
extern int udmabuf_default_sync_check;
int udmabuf_check_parse(const char *s);
const char *udmabuf_check_name(u32 mode);
void udmabuf_own_init(struct udmabuf *buf, u32 param);
void udmabuf_own_free(struct udmabuf *buf);
int udmabuf_own_set_mode(struct udmabuf *buf, u32 mode);
int udmabuf_own_map_add(struct udmabuf *buf, struct address_space *mapping, u64 base,
			u64 len);
void udmabuf_own_map_del(struct udmabuf *buf, struct address_space *mapping, u64 base);
void udmabuf_own_zap_all(struct udmabuf *buf);
void udmabuf_own_sync(struct udmabuf *buf, bool for_device, u64 offset, u64 size,
		      u32 dir, enum udmabuf_via via);
int udmabuf_own_rw(struct udmabuf *buf, u64 offset, u64 len, bool write);
int udmabuf_own_begin_cpu(struct udmabuf *buf, u64 offset, u64 len);
vm_fault_t udmabuf_own_fault(struct udmabuf *buf, u64 offset, unsigned long addr,
			     bool write, bool *wrprotect);
vm_fault_t udmabuf_own_mkwrite(struct udmabuf *buf, u64 offset, unsigned long addr);

/* mmap.c */
int udmabuf_mmap_range(struct udmabuf_view *view, struct vm_area_struct *vma,
		       bool force_sync);
void udmabuf_mmap_revoke(struct udmabuf *buf);
void udmabuf_mmap_mms_free(struct udmabuf *buf);
unsigned long udmabuf_get_unmapped_area(struct file *file, unsigned long addr,
					unsigned long len, unsigned long pgoff,
					unsigned long flags);

/* ioctl.c */
long udmabuf_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

#if IS_ENABLED(CONFIG_DMA_SHARED_BUFFER)
/* export.c */
int udmabuf_export(struct udmabuf *buf, struct file *file,
		   struct u_dma_buf_ioctl_export_args *args);

/* import.c */
int udmabuf_import(struct udmabuf *buf, struct u_dma_buf_ioctl_import_args *args);
void udmabuf_import_unmap_all(struct udmabuf *buf);
#else
/*
 * A kernel built without DMA-BUF (Debian's 5.10 cloud flavour): the buffers
 * work, and the export and import ioctls say the kernel cannot do them.
 */
static inline int udmabuf_export(struct udmabuf *buf, struct file *file,
				 struct u_dma_buf_ioctl_export_args *args)
{
	return -EOPNOTSUPP;
}

static inline int udmabuf_import(struct udmabuf *buf,
				 struct u_dma_buf_ioctl_import_args *args)
{
	return -EOPNOTSUPP;
}

static inline void udmabuf_import_unmap_all(struct udmabuf *buf)
{
}
#endif

/* bind.c: buffers bound to a parent, for the in-kernel API */
struct device *udmabuf_child_add(const struct udmabuf_params *p,
				 struct device *parent, struct udmabuf **slot);
int udmabuf_static_remove(struct udmabuf *buf);
void udmabuf_child_remove(struct udmabuf *buf);

#endif /* UDMEM_UDMABUF_H */
