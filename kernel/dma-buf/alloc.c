// SPDX-License-Identifier: GPL-2.0
/*
 * u-dma-buf: buffer memory and cache maintenance.
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
#include "udmem_range.h"

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

/**
 * udmabuf_sync_dma() - cache maintenance on a range, nothing else
 * @buf: the buffer
 * @for_device: true: sync for device, false: sync for CPU
 * @offset: start of the range
 * @size: length of the range; 0 does nothing
 * @dir: DMA API direction
 *
 * Return: 0, or -EINVAL if the range is not inside the buffer.
 */
int udmabuf_sync_dma(struct udmabuf *buf, bool for_device, u64 offset, u64 size,
		     enum dma_data_direction dir)
{
	if (!udmem_range_ok(offset, size, buf->size))
		return -EINVAL;
	if (!size || buf->no_cpu_sync)
		return 0;
	if (for_device)
		dma_sync_single_for_device(buf->dma_dev, buf->dma_addr + offset, size, dir);
	else
		dma_sync_single_for_cpu(buf->dma_dev, buf->dma_addr + offset, size, dir);
	return 0;
}

/**
 * udmabuf_sync_range() - hand a range to the device or back to the CPU
 * @buf: the buffer; the caller holds buf->lock
 * @for_device: true: sync for device, false: sync for CPU
 * @offset: start of the range
 * @size: length of the range; 0 syncs nothing but still sets the owner
 * @dir: 0 bidirectional, 1 to device, 2 from device
 *
 * Return: 0, or -EINVAL if the range is not inside the buffer.
 */
int udmabuf_sync_range(struct udmabuf *buf, bool for_device, u64 offset,
		       u64 size, u32 dir)
{
	int ret;

	if (!udmem_sync_dir_valid(dir))
		return -EINVAL;
	ret = udmabuf_sync_dma(buf, for_device, offset, size, udmem_sync_dma_dir(dir));
	if (!ret)
		buf->sync_owner = for_device;
	return ret;
}

/**
 * udmabuf_sync_cmd() - run a sync_for_cpu / sync_for_device command value
 * @buf: the buffer
 * @for_device: which of the two
 * @value: 0, 1 (stored parameters) or a packed command
 *
 * The value stays readable in the attribute when the command fails and
 * reads 0 after it succeeded.
 *
 * Return: 0, -EINVAL for a range outside the buffer, -ENODEV if removed.
 */
int udmabuf_sync_cmd(struct udmabuf *buf, bool for_device, u64 value)
{
	struct udmem_sync_cmd cmd;
	u64 *slot = for_device ? &buf->sync_for_device : &buf->sync_for_cpu;
	int ret = 0;

	udmem_sync_cmd_decode(value, &cmd);
	mutex_lock(&buf->lock);
	if (buf->detached) {
		ret = -ENODEV;
		goto out_unlock;
	}
	*slot = value;
	switch (cmd.kind) {
	case UDMEM_SYNC_NONE:
		break;
	case UDMEM_SYNC_STORED:
		ret = udmabuf_sync_range(buf, for_device, buf->sync_offset,
					 buf->sync_size, buf->sync_direction);
		break;
	case UDMEM_SYNC_PACKED:
		ret = udmabuf_sync_range(buf, for_device, cmd.offset, cmd.size, cmd.dir);
		break;
	}
	if (!ret)
		*slot = 0;
out_unlock:
	mutex_unlock(&buf->lock);
	return ret;
}
