/* SPDX-License-Identifier: GPL-2.0 */
/*
 * udmem_dma.h - DMA helpers both drivers' DMA-BUF exports share.
 */
#ifndef UDMEM_DMA_H
#define UDMEM_DMA_H

#include <linux/device.h>
#include <linux/dma-buf.h>
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

/*
 * Range syncs of our own DMA-BUF exports, for u-dma-chan.
 *
 * dma_buf_begin_cpu_access() and dma_buf_end_cpu_access() cover a whole
 * DMA-BUF: a transfer of 64 KiB in a 16 MiB export would clean or
 * invalidate 16 MiB.  u-dma-buf and uiomem each export a function that
 * brackets [@offset, @offset + @len) of the export only, by the buffer's
 * own coherency and with the sync checker's ownership rules, as their
 * begin/end_cpu_access do for the whole range.  u-dma-chan takes them with
 * symbol_get(), so neither module needs the other loaded.
 *
 * @dmabuf: a DMA-BUF; one the function's module did not export is refused
 * @offset, @len: the range, in bytes from the start of the export; a
 *	@len of 0 syncs nothing and only asks whether @dmabuf is the
 *	module's export
 * @for_device: true for end_cpu_access (to the device), false for
 *	begin_cpu_access (back to the CPU)
 * @dir: the direction, as for dma_buf_begin/end_cpu_access()
 *
 * Return: 0; -EOPNOTSUPP if @dmabuf is not the module's export; -EINVAL
 * for a range past the export; otherwise the error the whole-range
 * bracket would give (-EBADF, -EBUSY, -ENODEV).
 */
typedef int udmem_export_sync_range_t(struct dma_buf *dmabuf, u64 offset, u64 len,
				      bool for_device, enum dma_data_direction dir);

udmem_export_sync_range_t udmabuf_export_sync_range;
udmem_export_sync_range_t uiomem_export_sync_range;

#endif /* UDMEM_DMA_H */
