/* SPDX-License-Identifier: GPL-2.0 */
/*
 * u-dma-buf-funcs.h - the in-kernel API of u-dma-buf, used by u-dma-buf-mgr.
 *
 * Same names, meaning and parameter types as the original driver's
 * in-kernel functions, so that a module built against its header links
 * and works here, on 32-bit kernels too.
 */
#ifndef UDMEM_U_DMA_BUF_FUNCS_H
#define UDMEM_U_DMA_BUF_FUNCS_H

#include <linux/device.h>
#include <linux/types.h>

/* option bits of u_dma_buf_device_create() */
#define U_DMA_BUF_OPTION_DMA_MASK_SHIFT		0
#define U_DMA_BUF_OPTION_DMA_MASK_MASK		0xff
#define U_DMA_BUF_OPTION_DMA_COHERENT		BIT_ULL(9)	/* udmem addition */
#define U_DMA_BUF_OPTION_MMAP_MODE_SHIFT	10
#define U_DMA_BUF_OPTION_MMAP_MODE_MASK		0x7
#define U_DMA_BUF_OPTION_KEEP_CONTENTS		BIT_ULL(13)	/* udmem addition */
/* the sync checker: 0 the sync_check parameter, 1 off, 2 report, 3 strict */
#define U_DMA_BUF_OPTION_SYNC_CHECK_SHIFT	14		/* udmem addition */
#define U_DMA_BUF_OPTION_SYNC_CHECK_MASK	0x3

struct device *u_dma_buf_device_search(const char *name, int id);
struct device *u_dma_buf_device_create(const char *name, int id, size_t size,
				       u64 option, struct device *parent);
int u_dma_buf_device_remove(struct device *dev);
int u_dma_buf_device_getmap(struct device *dev, size_t *size, void **virt,
			    dma_addr_t *phys);
int u_dma_buf_device_sync(struct device *dev, int command, int direction,
			  u64 offset, ssize_t size);
const struct bus_type *u_dma_buf_find_available_bus_type(const char *name, int len);
extern const struct bus_type *u_dma_buf_available_bus_type_list[];

#endif /* UDMEM_U_DMA_BUF_FUNCS_H */
