// SPDX-License-Identifier: GPL-2.0
/*
 * u-dma-buf: the memory type of a buffer.
 *
 * Whether the buffer's device snoops the CPU caches, whether user space
 * maps the memory through our own remap (the "quirk" mmap modes) or
 * dma_mmap_coherent(), whether the memory gets a cached kernel alias, and
 * whether the device's DMA setup survives an unbind of its driver.
 */
#include <linux/dma-map-ops.h>
#include <linux/dma-mapping.h>

#include "udmabuf.h"

bool udmabuf_dma_coherent(const struct udmabuf *buf)
{
	return dev_is_dma_coherent(buf->dma_dev);
}

/* Does this buffer map through our own remap (the "quirk" modes)? */
bool udmabuf_mmap_quirk(const struct udmabuf *buf)
{
	switch (buf->quirk_mmap_mode) {
	case U_DMA_BUF_MMAP_MODE_OFF:
		return false;
	case U_DMA_BUF_MMAP_MODE_AUTO:
		return !udmabuf_dma_coherent(buf);
	default:
		return true;
	}
}

/**
 * udmabuf_dma_direct_plain() - can @dev's memory go back after an unbind?
 * @dev: a DMA device whose driver is still bound
 *
 * Unbinding a driver drops the device's DMA ops (an IOMMU's, or arm's own)
 * and frees its dma-ranges map.  Memory allocated with them cannot be
 * freed correctly without them; a per-device pool and plain dma-direct
 * without an address offset need neither.
 *
 * Return: true if dma_free_coherent() after an unbind frees what was
 * allocated.
 */
bool udmabuf_dma_direct_plain(struct device *dev)
{
	if (udmabuf_dev_has_pool(dev))
		return true;
	return !get_dma_ops(dev) && !dev->dma_range_map;
}

/*
 * A cached kernel address for a non-coherent buffer whose user mappings
 * are cached.  Not in mode off: dma_mmap_coherent() would map it uncached
 * beside it.  Not from a device's pool, which only the coherent allocator
 * takes from.
 */
bool udmabuf_want_cached_alias(const struct udmabuf *buf)
{
	return !udmabuf_dma_coherent(buf) && udmabuf_mmap_quirk(buf) &&
	       !udmabuf_dev_has_pool(buf->dma_dev);
}
