/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * udmem-dmabuf-importer.h - the ioctls of tests/kmod/udmem-dmabuf-importer.ko,
 * shared by the module and the guest programs that drive it.
 */
#ifndef UDMEM_DMABUF_IMPORTER_H
#define UDMEM_DMABUF_IMPORTER_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define UDI_DEV_NAME_MAX	64

/**
 * struct udi_attach - attach a dma-buf to a device and map it (UDI_ATTACH)
 * @fd: the dma-buf
 * @dir: DMA direction of the mapping (enum dma_data_direction: 0 bidirectional,
 *	1 to the device, 2 from the device)
 * @dev: "pci/<name>" or "platform/<name>", the device the importer maps for,
 *	or "mask/<bits>": a device of the importer's own with a <bits>-bit DMA
 *	mask (12..64), made for this attachment
 * @size: out: the dma-buf's size
 * @dma_addr: out: DMA address of the first mapped entry
 * @dma_len: out: length of the first mapped entry
 * @dma_total: out: sum of the mapped entries' lengths
 * @nents: out: mapped (DMA) entries
 * @orig_nents: out: entries of the scatterlist the exporter gave
 * @coherent: out: 1 when the device is DMA-coherent
 * @reserved: zero
 */
struct udi_attach {
	__s32 fd;
	__u32 dir;
	char dev[UDI_DEV_NAME_MAX];
	__u64 size;
	__u64 dma_addr;
	__u64 dma_len;
	__u64 dma_total;
	__u32 nents;
	__u32 orig_nents;
	__u32 coherent;
	__u32 reserved;
};

/**
 * struct udi_access - CPU access through vmap, bracketed by
 * dma_buf_begin_cpu_access()/dma_buf_end_cpu_access() (UDI_READ, UDI_WRITE)
 * @offset: in the dma-buf
 * @len: bytes
 * @uptr: user buffer
 */
struct udi_access {
	__u64 offset;
	__u64 len;
	__u64 uptr;
};

/**
 * struct udi_cycle - map and unmap the attachment @count times (UDI_CYCLE)
 * @count: cycles, 1..1000
 * @nents: out: mapped (DMA) entries of the last cycle's mapping
 *
 * One cycle is what an importer does per block it hands to its device:
 * dma_buf_map_attachment() (the exporter maps and syncs for the device)
 * then dma_buf_unmap_attachment() (syncs for the CPU and unmaps), in the
 * direction of the attachment, beside the mapping UDI_ATTACH holds.
 */
struct udi_cycle {
	__u32 count;
	__u32 nents;
};

#define UDI_MAGIC	'I'
#define UDI_ATTACH	_IOWR(UDI_MAGIC, 1, struct udi_attach)
#define UDI_DETACH	_IO(UDI_MAGIC, 2)
#define UDI_READ	_IOW(UDI_MAGIC, 3, struct udi_access)
#define UDI_WRITE	_IOW(UDI_MAGIC, 4, struct udi_access)
#define UDI_CYCLE	_IOWR(UDI_MAGIC, 5, struct udi_cycle)

#endif /* UDMEM_DMABUF_IMPORTER_H */
