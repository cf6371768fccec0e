// SPDX-License-Identifier: GPL-2.0
/*
 * u-dma-buf: buffer memory.
 *
 * The memory comes from dma_alloc_coherent() on the buffer's DMA device, so
 * the DMA core picks the device's CMA area, its reserved pool, the default
 * CMA area or the page allocator.  Besides the kernel address and the DMA
 * address, we note how user space can map it: as one run of page frames
 * (whole-range remap at mmap time), as struct pages (page mode, for
 * get_user_pages; CMA or page-allocator memory), or only through
 * dma_mmap_coherent().
 */
#include <linux/dma-mapping.h>
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
 * would otherwise reach freed memory.  Then the memory is kept (leaked)
 * rather than freed.  Without pins, our own counts are taken back.
 */
static bool udmabuf_release_pages(struct udmabuf *buf)
{
	unsigned long i, n = buf->alloc_size >> PAGE_SHIFT;

	for (i = 0; i < n; i++) {
		if (page_count(buf->pages[i]) != 1) {
			dev_err(buf->dma_dev,
				"%s: page %lu is still in use (count %d); keeping %zu bytes instead of freeing them\n",
				buf->name, i, page_count(buf->pages[i]), buf->alloc_size);
			return false;
		}
	}
	if (buf->own_refs)
		for (i = 1; i < n; i++)
			set_page_count(buf->pages[i], 0);
	return true;
}

int udmabuf_alloc(struct udmabuf *buf)
{
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
	if (buf->quirk_mmap_mode == U_DMA_BUF_MMAP_MODE_PAGE)
		udmabuf_make_pages(buf);
	return 0;
}

void udmabuf_free(struct udmabuf *buf)
{
	bool free_mem = true;

	if (buf->pages)
		free_mem = udmabuf_release_pages(buf);
	kvfree(buf->pages);
	buf->pages = NULL;
	if (buf->virt && free_mem)
		dma_free_coherent(buf->dma_dev, buf->alloc_size, buf->virt, buf->dma_addr);
	buf->virt = NULL;
}
