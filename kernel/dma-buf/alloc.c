// SPDX-License-Identifier: GPL-2.0
/*
 * u-dma-buf: buffer memory.
 *
 * The memory comes from the DMA API on the buffer's DMA device, so the DMA
 * core picks the device's CMA area, its reserved pool, the default CMA
 * area or the page allocator.  Where user space maps a non-coherent buffer
 * cached (mmap modes on, auto and page), dma_alloc_noncoherent() gives it
 * a cached kernel address too: one memory type for the memory, and the
 * syncs are the DMA API's contract for such memory.  Elsewhere (coherent
 * devices, mode off, reserved pools, DMA ops without it) the memory comes
 * from dma_alloc_coherent(), as in the original driver.
 *
 * Besides the kernel address and the DMA address, we note how user space
 * can map it: as one run of page frames (whole-range remap at mmap time),
 * as struct pages (page mode, for get_user_pages; CMA or page-allocator
 * memory), or only through dma_mmap_coherent().
 *
 * A buffer asked to keep its memory's contents does not come from the DMA
 * API at all: see udmabuf_alloc_kept().
 */
#include <linux/dma-map-ops.h>
#include <linux/dma-mapping.h>
#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/iommu.h>
#include <linux/of.h>
#include <linux/of_reserved_mem.h>
#include <linux/delay.h>
#include <linux/page_ref.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "udmabuf.h"

/* Find the first page frame and check that the frames are consecutive. */
static void udmabuf_find_pfn(struct udmabuf *buf)
{
	unsigned long i, n = buf->alloc_size >> PAGE_SHIFT;
	unsigned long pfn;

	if (virt_addr_valid(buf->virt)) {
		/* The linear map is contiguous. */
		pfn = PHYS_PFN(virt_to_phys(buf->virt));
	} else if (is_vmalloc_addr(buf->virt)) {
		/* A remap of the pages (non-coherent devices). */
		pfn = vmalloc_to_pfn(buf->virt);
		for (i = 1; i < n; i++)
			if (vmalloc_to_pfn(buf->virt + i * PAGE_SIZE) != pfn + i)
				return;
	} else {
		return;
	}
	buf->pfn = pfn;
	buf->pfn_ok = true;
}

/*
 * Page mode needs a reference count on every page, so that the pages can
 * be inserted into user mappings and pinned by get_user_pages().  CMA
 * gives one to each page.  A block from the page allocator (no CMA) has a
 * count on its first page only: we give each other page a count of one
 * for as long as the buffer lives (own_refs), as split_page() would, and
 * take them back in udmabuf_free().
 */
static void udmabuf_make_pages(struct udmabuf *buf)
{
	unsigned long i, n = buf->alloc_size >> PAGE_SHIFT;
	unsigned long counted = 0;
	struct page **pages;

	if (!buf->pfn_ok)
		return;
	for (i = 0; i < n; i++) {
		if (!pfn_valid(buf->pfn + i))
			goto fallback;
		if (page_count(pfn_to_page(buf->pfn + i)))
			counted++;
	}
	/* every page counted (CMA), or only the block's first one */
	if (counted != n && (counted != 1 || !page_count(pfn_to_page(buf->pfn))))
		goto fallback;
	pages = kvmalloc_array(n, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return;
	for (i = 0; i < n; i++)
		pages[i] = pfn_to_page(buf->pfn + i);
	if (counted != n) {
		for (i = 1; i < n; i++)
			set_page_count(pages[i], 1);
		buf->own_refs = true;
	}
	buf->pages = pages;
	return;

fallback:
	dev_warn(buf->dma_dev,
		 "%s: memory has no usable page structures; page mode falls back to pfn mapping\n",
		 buf->name);
}

/*
 * Nothing may hold a page-mode page when the memory goes back: a pin
 * taken by O_DIRECT or io_uring that outlived every mapping and file
 * would otherwise reach freed memory.  Each count is frozen from 1 to 0,
 * which fails while anything else holds the page and keeps anybody from
 * taking it meanwhile (they use get_page_unless_zero()).  On failure the
 * memory is kept (leaked) rather than freed, and said so if @report.  The
 * allocator gets its own counts back; the ones we gave stay at zero.
 */
static bool udmabuf_release_pages(struct udmabuf *buf, bool report)
{
	unsigned long i, n = buf->alloc_size >> PAGE_SHIFT;

	for (i = 0; i < n; i++)
		if (!page_ref_freeze(buf->pages[i], 1))
			break;
	if (i < n) {
		if (report)
			dev_err(buf->dma_dev,
				"%s: page %lu is still in use (count %d); keeping %zu bytes instead of freeing them\n",
				buf->name, i, page_count(buf->pages[i]), buf->alloc_size);
		while (i--)
			page_ref_unfreeze(buf->pages[i], 1);
		return false;
	}
	for (i = 0; i < n; i++)
		if (!i || !buf->own_refs)
			page_ref_unfreeze(buf->pages[i], 1);
	return true;
}

static void *udmabuf_alloc_cached(struct udmabuf *buf)
{
	void *virt;

	virt = dma_alloc_noncoherent(buf->dma_dev, buf->alloc_size, &buf->dma_addr,
				     DMA_BIDIRECTIONAL, GFP_KERNEL | __GFP_NOWARN);
	if (!virt)
		return NULL;
	/*
	 * Linux 6.1's dma_alloc_pages() enters the allocation in the DMA API
	 * debugger as a streaming mapping (debug_dma_map_page()), whose
	 * address must be checked before it is unmapped: the free reports
	 * "failed to check map error" otherwise.  Check it.
	 */
	if (dma_mapping_error(buf->dma_dev, buf->dma_addr)) {
		dma_free_noncoherent(buf->dma_dev, buf->alloc_size, virt, buf->dma_addr,
				     DMA_BIDIRECTIONAL);
		return NULL;
	}
	/*
	 * The allocator zeroed it through the cache: write the zeros back
	 * before the device or an uncached mapping reads the memory.
	 */
	dma_sync_single_for_device(buf->dma_dev, buf->dma_addr, buf->alloc_size,
				   DMA_BIDIRECTIONAL);
	buf->cached_alias = true;
	return virt;
}

static void udmabuf_dma_free(struct udmabuf *buf)
{
	if (buf->cached_alias)
		dma_free_noncoherent(buf->dma_dev, buf->alloc_size, buf->virt, buf->dma_addr,
				     DMA_BIDIRECTIONAL);
	else
		dma_free_coherent(buf->dma_dev, buf->alloc_size, buf->virt, buf->dma_addr);
}

/*
 * keep-contents (u-dma-buf issue #55): the buffer starts with what its
 * memory held, e.g. data a bootloader, another processor or an FPGA wrote
 * there before Linux, or before the buffer was last removed.  Every DMA API
 * allocator zeroes what it hands out (dma-direct on every kernel we
 * support, the per-device pool of a no-map memory-region, CMA through
 * dma-direct), so this memory is not allocated: it is the start of the
 * device's own no-map memory-region, claimed with request_mem_region()
 * (EBUSY while anybody else, uiomem included, holds it) and mapped
 * write-combined, as the kernel's pool of such a region is.  The DMA
 * address is the physical address, as that pool gives it.  User mappings
 * go through dma_mmap_coherent(), which takes the page frames from the DMA
 * address.
 *
 * Refused: a device without such a region (EINVAL), a region the device
 * already uses as its DMA pool (EBUSY: the pool would hand the same memory
 * out again, zeroed), a reusable (CMA) region, whose pages the kernel lends
 * out, or one without no-map, which the kernel owns (EINVAL), a device
 * whose DMA addresses are translated (dma-ranges, IOMMU: EINVAL), and a
 * buffer larger than the region (ENOMEM).
 */
static int udmabuf_alloc_kept(struct udmabuf *buf)
{
	struct device *dev = buf->dma_dev;
	struct reserved_mem *rmem = NULL;
	struct device_node *np = NULL;
	bool usable = false;

	if (udmabuf_dev_has_pool(dev)) {
		dev_err(dev, "%s: keep-contents: the memory-region is in use as the device's DMA pool, which zeroes what it hands out\n",
			buf->name);
		return -EBUSY;
	}
	if (dev->of_node)
		np = of_parse_phandle(dev->of_node, "memory-region", 0);
	if (np) {
		rmem = of_reserved_mem_lookup(np);
		usable = of_property_read_bool(np, "no-map") &&
			 !of_property_read_bool(np, "reusable");
		of_node_put(np);
	}
	if (!rmem || !usable) {
		dev_err(dev, "%s: keep-contents needs a memory-region that is no-map and not reusable\n",
			buf->name);
		return -EINVAL;
	}
	if (dev->dma_range_map || device_iommu_mapped(dev)) {
		dev_err(dev, "%s: keep-contents needs DMA addresses equal to physical ones (no dma-ranges offset, no IOMMU)\n",
			buf->name);
		return -EINVAL;
	}
	if (buf->alloc_size > rmem->size) {
		dev_err(dev, "%s: keep-contents: %zu bytes do not fit the %llu-byte memory-region\n",
			buf->name, buf->alloc_size, (unsigned long long)rmem->size);
		return -ENOMEM;
	}
	if (!request_mem_region(rmem->base, buf->alloc_size, buf->name)) {
		dev_err(dev, "%s: keep-contents: %pa is already claimed\n", buf->name, &rmem->base);
		return -EBUSY;
	}
	buf->virt = memremap(rmem->base, buf->alloc_size, MEMREMAP_WC);
	if (!buf->virt) {
		release_mem_region(rmem->base, buf->alloc_size);
		return -ENOMEM;
	}
	buf->dma_addr = rmem->base;
	/* Outside the linear map: no CPU cache operations (see sync.c). */
	buf->no_cpu_sync = true;
	buf->kept = true;
	return 0;
}

int udmabuf_alloc(struct udmabuf *buf)
{
	buf->virt = NULL;
	buf->cached_alias = false;
	if (buf->keep_contents)
		return udmabuf_alloc_kept(buf);
	if (buf->mt.want_alias)
		buf->virt = udmabuf_alloc_cached(buf);
	if (!buf->virt)
		buf->virt = dma_alloc_coherent(buf->dma_dev, buf->alloc_size, &buf->dma_addr,
					       GFP_KERNEL | __GFP_NOWARN);
	if (!buf->virt)
		return -ENOMEM;
	if (udmabuf_dev_has_pool(buf->dma_dev)) {
		/*
		 * A no-map pool: not in the linear map, so the CPU cache
		 * operations of the DMA API would fault on it.  Its kernel
		 * mapping is uncached and user mappings go through
		 * dma_mmap_coherent(), which never maps it cached.
		 */
		buf->no_cpu_sync = true;
		return 0;
	}
	udmabuf_find_pfn(buf);
	if (buf->mt.want_pages)
		udmabuf_make_pages(buf);
	return 0;
}

/* How many times udmabuf_free_early() waits 20 ms for a page's count. */
#define UDMABUF_RELEASE_TRIES	50

/**
 * udmabuf_free_early() - free a busy buffer's memory at its parent's unbind
 * @buf: a detached buffer, taken out of its users' mappings
 *	 (udmabuf_mmap_revoke())
 *
 * Memory from the DMA API goes back through the device's DMA setup, which
 * the unbind undoes, and the DMA API debugger reports what a driver leaves
 * allocated there: so it goes back now, not with the buffer's last user.
 * read() and write() copies under way are waited for; no new one starts
 * (the buffer is detached).  Memory a kernel user may still reach is kept
 * as before (see udmabuf_free()): a mapped attachment of an export, an
 * export that was vmapped, a page that is pinned.
 */
void udmabuf_free_early(struct udmabuf *buf)
{
	unsigned int tries;
	bool reached;

	down_write(&buf->mem_sem);
	mutex_lock(&buf->map_lock);
	reached = buf->export_maps || buf->vmapped;
	mutex_unlock(&buf->map_lock);
	if (!buf->virt)
		goto out;
	if (reached) {
		dev_warn(buf->dma_dev, "%s: an importer maps or vmapped an export; memory kept past the unbind\n",
			 buf->name);
		goto out;
	}
	/*
	 * A munmap() or an exit that cleared its entries before the zap holds
	 * their pages until its TLB flush: give such counts a moment to go.
	 */
	for (tries = 0; buf->pages && !udmabuf_release_pages(buf, false); tries++) {
		if (tries == UDMABUF_RELEASE_TRIES) {
			if (!udmabuf_release_pages(buf, true))
				goto out;
			break;
		}
		msleep(20);
	}
	if (buf->pages) {
		kvfree(buf->pages);
		buf->pages = NULL;
	}
	if (buf->kept) {
		memunmap(buf->virt);
		release_mem_region(buf->dma_addr, buf->alloc_size);
	} else {
		udmabuf_dma_free(buf);
	}
	buf->virt = NULL;
	buf->pfn_ok = false;
	buf->keep_on_free = false;
	dev_info(buf->dma_dev, "%s: in use, freed at the unbind: its mappings get SIGBUS, its files ENODEV\n",
		 buf->name);
out:
	up_write(&buf->mem_sem);
}

void udmabuf_free(struct udmabuf *buf)
{
	struct device *dev = buf->dma_dev;
	bool free_mem = true;

	if (buf->pages)
		free_mem = udmabuf_release_pages(buf, true);
	kvfree(buf->pages);
	buf->pages = NULL;
	if (!buf->virt || !free_mem)
		goto out;
	if (buf->kept) {
		/* Nothing of the DMA API's: unmap and let the region go. */
		memunmap(buf->virt);
		release_mem_region(buf->dma_addr, buf->alloc_size);
		goto out;
	}
	if (!buf->keep_on_free) {
		udmabuf_dma_free(buf);
		goto out;
	}
	/*
	 * In use across an unbind that took the device's DMA setup: free it
	 * only if a driver is bound again (the bus configured the device the
	 * same way again), and keep it bound while we do.
	 */
	if (device_trylock(dev)) {
		if (dev->driver) {
			udmabuf_dma_free(buf);
			buf->virt = NULL;
		}
		device_unlock(dev);
	}
	if (buf->virt)
		dev_warn(dev, "%s: keeping %zu bytes that outlived the unbind: no DMA setup to free them with\n",
			 buf->name, buf->alloc_size);
out:
	buf->virt = NULL;
}
