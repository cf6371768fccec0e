/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - the one place where udmem's modules test LINUX_VERSION_CODE.
 *
 * Each block names the kernel that changed the API and gives the newer
 * spelling to the older kernels, so the drivers use one spelling only.
 */
#ifndef UDMEM_COMPAT_H
#define UDMEM_COMPAT_H

#include <linux/device.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/version.h>

/* True when building for a kernel older than a.b.c. */
#define UDMEM_KERNEL_BEFORE(a, b, c)	(KERNEL_VERSION(a, b, c) > LINUX_VERSION_CODE)

/*
 * 6.2: dma_buf_vmap() needs the dma_resv lock held; dma_buf_vmap_unlocked()
 * takes it.  Before, dma_buf_vmap() locked by itself.
 */
#if UDMEM_KERNEL_BEFORE(5, 11, 0)
/* 5.10: dma_buf_vmap() returns the address (see struct iosys_map below). */
#define dma_buf_vmap_unlocked(dmabuf, map)	udmem_dma_buf_vmap_addr(dmabuf, map)
#define dma_buf_vunmap_unlocked(dmabuf, map)	dma_buf_vunmap(dmabuf, (map)->vaddr)
#elif UDMEM_KERNEL_BEFORE(6, 2, 0)
#define dma_buf_vmap_unlocked(dmabuf, map)	dma_buf_vmap(dmabuf, map)
#define dma_buf_vunmap_unlocked(dmabuf, map)	dma_buf_vunmap(dmabuf, map)
#endif

/*
 * The _unlocked attachment mapping came with the same change; Debian's 6.1
 * (6.1.192) has it too.  Before, a static importer called
 * dma_buf_map_attachment() with no lock held.
 */
#if UDMEM_KERNEL_BEFORE(6, 1, 0)
#define dma_buf_map_attachment_unlocked(attach, dir)	dma_buf_map_attachment(attach, dir)
#define dma_buf_unmap_attachment_unlocked(attach, sgt, dir) \
	dma_buf_unmap_attachment(attach, sgt, dir)
#endif

/*
 * 6.10: struct dma_vec and dma_device.device_prep_peripheral_dma_vec, with
 * which IIO's DMABUF interface prepares its transfers (tests/kmod's edu
 * provider offers it).  Before, there is no such callback: the setter does
 * nothing and preparing returns NULL.
 */
#define UDMEM_HAVE_DMA_VEC	(!UDMEM_KERNEL_BEFORE(6, 10, 0))
#if UDMEM_KERNEL_BEFORE(6, 10, 0)
struct dma_vec {
	dma_addr_t addr;
	size_t len;
};

#define UDMEM_SET_PREP_DMA_VEC(dd, fn)	((void)(dd), (void)(fn))
#define dmaengine_prep_peripheral_dma_vec(chan, vecs, nents, dir, flags) \
	((void)(chan), (void)(vecs), (struct dma_async_tx_descriptor *)NULL)
#else
#define UDMEM_SET_PREP_DMA_VEC(dd, fn)	((dd)->device_prep_peripheral_dma_vec = (fn))
#endif

/*
 * 5.14: dma_map_resource() stopped refusing (with a warning) a physical
 * address that has a struct page; Debian's 5.10 may or may not carry the
 * change, so 5.10 is taken to refuse.
 */
#define UDMEM_MAP_RESOURCE_REFUSES_RAM	UDMEM_KERNEL_BEFORE(5, 14, 0)

/*
 * 6.12: the DMA API calls iommu-dma directly for a device behind an IOMMU
 * domain that translates for it (dev->dma_iommu, use_dma_iommu()), and
 * get_dma_ops() is NULL there.  Before, iommu-dma was the device's
 * dma_map_ops, which get_dma_ops() returns.
 */
#if UDMEM_KERNEL_BEFORE(6, 12, 0)
static inline bool udmem_use_dma_iommu(struct device *dev)
{
	return false;
}
#else
/* <linux/iommu-dma.h> uses struct scatterlist without declaring it. */
#include <linux/scatterlist.h>
#include <linux/iommu-dma.h>
#define udmem_use_dma_iommu(dev)	use_dma_iommu(dev)
#endif

/* 6.3: vm_flags became read-only behind vm_flags_set()/vm_flags_clear(). */
#if UDMEM_KERNEL_BEFORE(6, 3, 0)
static inline void udmem_vm_flags_set(struct vm_area_struct *vma, unsigned long flags)
{
	vma->vm_flags |= flags;
}

static inline void udmem_vm_flags_clear(struct vm_area_struct *vma, unsigned long flags)
{
	vma->vm_flags &= ~flags;
}
#else
#define udmem_vm_flags_set(vma, flags)		vm_flags_set(vma, flags)
#define udmem_vm_flags_clear(vma, flags)	vm_flags_clear(vma, flags)
#endif

/*
 * x86: VM_PAT marks a VMA that one remap_pfn_range() mapped whole, whose
 * unmap drops a memory type reservation found through its first entry.
 * Kernels that keep the reservation with the VMA instead (7.x) have no
 * such flag, nor have the other architectures: 0 there.
 */
#ifdef VM_PAT
#define UDMEM_VM_PAT	VM_PAT
#else
#define UDMEM_VM_PAT	0UL
#endif

/* 6.2: class devnode() callbacks take a const device. */
#if UDMEM_KERNEL_BEFORE(6, 2, 0)
#define udmem_devnode_dev_t	struct device
#else
#define udmem_devnode_dev_t	const struct device
#endif

/* 6.4: class_create() lost its owner argument. */
#if UDMEM_KERNEL_BEFORE(6, 4, 0)
#define udmem_class_create(name)	class_create(THIS_MODULE, name)
#else
#define udmem_class_create(name)	class_create(name)
#endif

/*
 * 6.11: platform_driver.remove returns void (6.1 has remove_new for that).
 * 5.10 has only the int-returning remove: after the void remove function
 * fn, UDMEM_DEFINE_PLATFORM_REMOVE(fn) defines an int one that calls it,
 * and UDMEM_PLATFORM_REMOVE_FN(fn) names the one the kernel takes.
 */
#if UDMEM_KERNEL_BEFORE(6, 1, 0)
#define UDMEM_PLATFORM_REMOVE	remove
#define UDMEM_PLATFORM_REMOVE_FN(fn)	fn##_int
#define UDMEM_DEFINE_PLATFORM_REMOVE(fn)				\
	static int fn##_int(struct platform_device *pdev)		\
	{								\
		fn(pdev);						\
		return 0;						\
	}								\
	static int fn##_int(struct platform_device *pdev)
#else
#if UDMEM_KERNEL_BEFORE(6, 11, 0)
#define UDMEM_PLATFORM_REMOVE	remove_new
#else
#define UDMEM_PLATFORM_REMOVE	remove
#endif
#define UDMEM_PLATFORM_REMOVE_FN(fn)	fn
#define UDMEM_DEFINE_PLATFORM_REMOVE(fn)	static void fn(struct platform_device *pdev)
#endif

/* 6.13: MODULE_IMPORT_NS() takes a string. */
#if UDMEM_KERNEL_BEFORE(6, 13, 0)
#define UDMEM_IMPORT_NS_DMA_BUF()	MODULE_IMPORT_NS(DMA_BUF)
#else
#define UDMEM_IMPORT_NS_DMA_BUF()	MODULE_IMPORT_NS("DMA_BUF")
#endif

/*
 * dma_buf_ops.vmap: 5.18 fills a struct iosys_map, 5.11-5.17 the same
 * struct under the name dma_buf_map, 5.10 returns the address.  The driver
 * writes the iosys_map form; after it, UDMEM_DEFINE_DMA_BUF_VMAP(fn) defines
 * the 5.10 form and UDMEM_DMA_BUF_VMAP_FN(fn) names the one
 * the kernel takes.
 */
#if UDMEM_KERNEL_BEFORE(5, 11, 0)
#include <linux/dma-buf.h>

struct iosys_map {
	void *vaddr;
	bool is_iomem;
};

static inline void iosys_map_set_vaddr(struct iosys_map *map, void *vaddr)
{
	map->vaddr = vaddr;
	map->is_iomem = false;
}

/* An importer's vmap in the newer form. */
static inline int udmem_dma_buf_vmap_addr(struct dma_buf *dmabuf, struct iosys_map *map)
{
	iosys_map_set_vaddr(map, dma_buf_vmap(dmabuf));
	return map->vaddr ? 0 : -ENOMEM;
}

#define UDMEM_DMA_BUF_VMAP_FN(fn)	fn##_addr
#define UDMEM_DEFINE_DMA_BUF_VMAP(fn)					\
	static void *fn##_addr(struct dma_buf *dmabuf)			\
	{								\
		struct iosys_map map = { };				\
									\
		return fn(dmabuf, &map) ? NULL : map.vaddr;		\
	}								\
	static void *fn##_addr(struct dma_buf *dmabuf)
#else
#if UDMEM_KERNEL_BEFORE(5, 18, 0)
#include <linux/dma-buf-map.h>
#define iosys_map			dma_buf_map
#define iosys_map_set_vaddr		dma_buf_map_set_vaddr
#else
#include <linux/iosys-map.h>
#endif
#define UDMEM_DMA_BUF_VMAP_FN(fn)	fn
#define UDMEM_DEFINE_DMA_BUF_VMAP(fn)					\
	static int fn(struct dma_buf *dmabuf, struct iosys_map *map)
#endif

/*
 * bus_find_device() took a non-const bus_type before the driver core was
 * constified; it never writes through it, so one helper serves both.
 */
static inline struct device *udmem_bus_find_device_by_name(const struct bus_type *bus,
							   const char *name)
{
	return bus_find_device_by_name((void *)bus, NULL, name);
}

/* Likewise for the bus notifier calls (const since 6.3). */
static inline int udmem_bus_register_notifier(const struct bus_type *bus,
					      struct notifier_block *nb)
{
	return bus_register_notifier((void *)bus, nb);
}

static inline int udmem_bus_unregister_notifier(const struct bus_type *bus,
						struct notifier_block *nb)
{
	return bus_unregister_notifier((void *)bus, nb);
}

/*
 * 7.x: struct device's dma_coherent bit became DEV_FLAG_DMA_COHERENT in
 * dev->flags, set by dev_set_dma_coherent().  sid's 7.2 has the accessor and
 * 6.12 the field; 7.0 as the boundary is not checked against 7.0 or 7.1.
 */
#if UDMEM_KERNEL_BEFORE(7, 0, 0)
#define udmem_dev_mark_dma_coherent(dev)	((dev)->dma_coherent = true)
#else
#define udmem_dev_mark_dma_coherent(dev)	dev_set_dma_coherent(dev)
#endif

/*
 * Mark a device that has no firmware DMA description (a module-parameter
 * or manager platform device) DMA-coherent, as a `dma-coherent` DT
 * property would.  dma-direct reads dev->dma_coherent at every call, so
 * setting it before the first allocation is enough.  ARM before 5.19
 * picked its DMA operations by coherency when the device was set up, and
 * the flag alone would not change them.
 */
static inline int udmem_dev_set_dma_coherent(struct device *dev)
{
#if defined(CONFIG_ARM) && UDMEM_KERNEL_BEFORE(5, 19, 0)
	return -EOPNOTSUPP;
#elif defined(CONFIG_ARCH_HAS_SYNC_DMA_FOR_DEVICE) || \
	defined(CONFIG_ARCH_HAS_SYNC_DMA_FOR_CPU) || \
	defined(CONFIG_ARCH_HAS_SYNC_DMA_FOR_CPU_ALL)
	udmem_dev_mark_dma_coherent(dev);
	return 0;
#else
	return 0;	/* every device is DMA-coherent on this architecture */
#endif
}

/*
 * 6.18: nth_page() is gone; a scatterlist entry's pages are now always
 * contiguous in the memory map, so plain pointer steps reach them.  It was
 * a macro while it existed, which is what this tests.
 */
#ifdef nth_page
#define udmem_nth_page(page, n)		nth_page(page, n)
#else
#define udmem_nth_page(page, n)		((page) + (n))
#endif

/*
 * 2 MiB user mappings of page frames.  6.12 gave PMD entries a "special"
 * bit (ARCH_SUPPORTS_PMD_PFNMAP, with THP), so that GUP-fast and the rmap
 * leave a PMD of a VM_PFNMAP mapping alone as they leave its special PTEs;
 * before, such an entry had no such bit and looked like a THP to GUP-fast.
 * So older kernels (and architectures without it) get PTEs only: there
 * UDMEM_HUGE_FAULT() and UDMEM_GET_UNMAPPED_AREA() give NULL.  ->huge_fault
 * takes the entry's order since 6.6, which is older than 6.12.
 * vmf_insert_pfn_pmd() took a pfn_t until pfn_t went away (6.17), a plain
 * pfn after; built against 6.12 and sid's 7.2 only, so the 6.17 boundary is
 * not checked against the kernels in between.
 */
#if IS_ENABLED(CONFIG_TRANSPARENT_HUGEPAGE) && IS_ENABLED(CONFIG_ARCH_SUPPORTS_PMD_PFNMAP)
#define UDMEM_PMD_PFNMAP		1
#define UDMEM_HUGE_FAULT(fn)		(fn)
#define UDMEM_GET_UNMAPPED_AREA(fn)	(fn)
#define udmem_thp_get_unmapped_area(file, addr, len, pgoff, flags) \
	thp_get_unmapped_area(file, addr, len, pgoff, flags)
#if UDMEM_KERNEL_BEFORE(6, 17, 0)
#include <linux/pfn_t.h>
#define udmem_vmf_insert_pfn_pmd(vmf, pfn, write) \
	vmf_insert_pfn_pmd(vmf, __pfn_to_pfn_t(pfn, 0), write)
#else
#define udmem_vmf_insert_pfn_pmd(vmf, pfn, write)	vmf_insert_pfn_pmd(vmf, pfn, write)
#endif
#else
#define UDMEM_PMD_PFNMAP		0
#define UDMEM_HUGE_FAULT(fn)		NULL
#define UDMEM_GET_UNMAPPED_AREA(fn)	NULL
static inline vm_fault_t udmem_vmf_insert_pfn_pmd(struct vm_fault *vmf, unsigned long pfn,
						  bool write)
{
	return VM_FAULT_FALLBACK;
}

/* Never called: there is no get_unmapped_area to call it. */
static inline unsigned long udmem_thp_get_unmapped_area(struct file *file, unsigned long addr,
							unsigned long len, unsigned long pgoff,
							unsigned long flags)
{
	return -ENOMEM;
}
#endif

/*
 * 5.19: a dma_resv holds fences by usage (dma_resv_add_fence()); before, one
 * exclusive (write) fence and shared (read) ones.  The caller holds the lock.
 */
#if UDMEM_KERNEL_BEFORE(5, 19, 0)
#include <linux/dma-resv.h>
static inline int udmem_dma_resv_add_fence(struct dma_resv *resv, struct dma_fence *fence,
					   bool write)
{
	int ret;

	if (write) {
		dma_resv_add_excl_fence(resv, fence);
		return 0;
	}
	ret = dma_resv_reserve_shared(resv, 1);
	if (!ret)
		dma_resv_add_shared_fence(resv, fence);
	return ret;
}
#else
#include <linux/dma-resv.h>
static inline int udmem_dma_resv_add_fence(struct dma_resv *resv, struct dma_fence *fence,
					   bool write)
{
	int ret = dma_resv_reserve_fences(resv, 1);

	if (!ret)
		dma_resv_add_fence(resv, fence, write ? DMA_RESV_USAGE_WRITE : DMA_RESV_USAGE_READ);
	return ret;
}
#endif

#endif /* UDMEM_COMPAT_H */
