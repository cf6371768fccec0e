/* SPDX-License-Identifier: GPL-2.0 */
/*
 * udmem_dma.h - DMA helpers both drivers' DMA-BUF exports share.
 */
#ifndef UDMEM_DMA_H
#define UDMEM_DMA_H

#include <linux/device.h>
#include <linux/dma-direct.h>
#include <linux/iommu.h>

/**
 * udmem_dma_reachable() - can an importer's device reach memory directly?
 * @dev: the importer's device
 * @addr: the memory's address as @dev's DMA would see it without an IOMMU
 *	(phys_to_dma() of RAM; the physical address of a resource, which
 *	dma_map_resource() passes on untranslated)
 * @size: bytes from @addr
 * @is_ram: @addr is RAM (struct pages), not a resource
 *
 * Behind a translating IOMMU any address can be mapped.  Without one, the
 * DMA API bounces RAM beyond the device's mask or bus limit through
 * swiotlb, where the importer's DMA would miss the shared memory, and
 * refuses a resource there with a kernel warning: exporters check first.
 *
 * Return: true if @dev can reach [@addr, @addr + @size).
 */
static inline bool udmem_dma_reachable(struct device *dev, dma_addr_t addr, size_t size,
				       bool is_ram)
{
	struct iommu_domain *dom = iommu_get_domain_for_dev(dev);

	if (!dev->dma_mask)
		return false;
	if (dom && dom->type != IOMMU_DOMAIN_IDENTITY)
		return true;
	return dma_capable(dev, addr, size, is_ram);
}

#endif /* UDMEM_DMA_H */
