/* SPDX-License-Identifier: GPL-2.0 */
/*
 * udmem-api-test.h - the in-kernel API of the original u-dma-buf driver,
 * declared with its parameter types as its u-dma-buf-funcs.h has them
 * (facts from the interface description, written here), so that the test
 * module calls our driver the way a module built for the original does.
 */
#ifndef UDMEM_API_TEST_H
#define UDMEM_API_TEST_H

#include <linux/device.h>
#include <linux/types.h>

struct device *u_dma_buf_device_search(const char *name, int id);
struct device *u_dma_buf_device_create(const char *name, int id, size_t size,
				       u64 option, struct device *parent);
int u_dma_buf_device_remove(struct device *dev);
int u_dma_buf_device_getmap(struct device *dev, size_t *size, void **virt,
			    dma_addr_t *phys);
int u_dma_buf_device_sync(struct device *dev, int command, int direction,
			  u64 offset, ssize_t size);

#endif /* UDMEM_API_TEST_H */
