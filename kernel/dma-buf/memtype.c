// SPDX-License-Identifier: GPL-2.0
/*
 * u-dma-buf: the memory type of a buffer, decided once.
 *
 * Whether the buffer's device snoops the CPU caches, whether user space
 * maps the memory through our own remap (the "quirk" mmap modes) or
 * dma_mmap_coherent(), whether the memory gets a cached kernel alias and
 * struct pages for page mode, and whether the device's DMA setup goes
 * away with its driver.  udmabuf_create() asks here once before it
 * allocates the memory (udmabuf_memtype_decide()) and once after
 * (udmabuf_memtype_settle()); alloc.c, mmap.c and registry.c read
 * buf->mt and ask nothing of each other.
 */
#include <linux/dma-map-ops.h>
#include <linux/dma-mapping.h>

#include "compat.h"
#include "udmabuf.h"

/*
 * Does @dev's DMA setup go with its driver or the device?  Unbinding a
 * driver drops the device's DMA ops (an IOMMU's, or arm's own) and frees
 * its dma-ranges map; removing the device takes it out of its IOMMU
 * domain.  Memory allocated through them cannot be freed correctly
 * without them; a per-device pool and plain dma-direct without an address
 * offset need neither.  Since 6.12 a device that uses iommu-dma has no DMA
 * ops: the DMA core tells it by dev->dma_iommu, and so do we.
 */
static bool udmabuf_dma_setup_bound(struct device *dev)
{
	if (udmabuf_dev_has_pool(dev))
		return false;
	return get_dma_ops(dev) || udmem_use_dma_iommu(dev) || dev->dma_range_map;
}

/**
 * udmabuf_memtype_decide() - decide a buffer's memory type
 * @buf: a buffer with its DMA device, mmap mode and options, not yet
 *	 allocated
 *
 * User space maps through our own remap in mmap modes on and page, and in
 * mode auto on a non-coherent device; elsewhere dma_mmap_coherent() maps
 * it.  A non-coherent buffer mapped through our remap (cached) gets a
 * cached kernel address too: not in mode off, where dma_mmap_coherent()
 * would map it uncached beside it, and not from a device's pool, which
 * only the coherent allocator takes from.
 */
void udmabuf_memtype_decide(struct udmabuf *buf)
{
	struct udmabuf_memtype *mt = &buf->mt;
	struct device *dev = buf->dma_dev;
	bool pool = udmabuf_dev_has_pool(dev);

	mt->coherent = dev_is_dma_coherent(dev);
	switch (buf->quirk_mmap_mode) {
	case U_DMA_BUF_MMAP_MODE_OFF:
		mt->quirk = false;
		break;
	case U_DMA_BUF_MMAP_MODE_AUTO:
		mt->quirk = !mt->coherent;
		break;
	default:
		mt->quirk = true;
		break;
	}
	mt->want_alias = !mt->coherent && mt->quirk && !pool;
	mt->want_pages = buf->quirk_mmap_mode == U_DMA_BUF_MMAP_MODE_PAGE;
	mt->setup_bound = udmabuf_dma_setup_bound(dev);
	mt->map = UDMABUF_MAP_DMA;
}

/**
 * udmabuf_memtype_settle() - how user space maps the allocated memory
 * @buf: a buffer that udmabuf_alloc() has given its memory
 *
 * Our remap needs one run of page frames; page mode needs their struct
 * pages too, and falls back to the page frames without them.
 */
void udmabuf_memtype_settle(struct udmabuf *buf)
{
	struct udmabuf_memtype *mt = &buf->mt;

	if (!mt->quirk || !buf->pfn_ok)
		mt->map = UDMABUF_MAP_DMA;
	else if (buf->pages)
		mt->map = UDMABUF_MAP_PAGES;
	else
		mt->map = UDMABUF_MAP_PFN;
}

bool udmabuf_dma_coherent(const struct udmabuf *buf)
{
	return buf->mt.coherent;
}
