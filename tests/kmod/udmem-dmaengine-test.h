/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The ioctl of tests/kmod/udmem-dmaengine-test.ko (/dev/udmem-dmaengine-test),
 * shared with the guest programs of tests/guest/board-dma.  Test-only.
 */
#ifndef UDMEM_DMAENGINE_TEST_H
#define UDMEM_DMAENGINE_TEST_H

#include <linux/ioctl.h>
#include <linux/types.h>

/**
 * struct udmem_dmaengine_copy - one memcpy by the DMA engine
 * @src: DMA address to read, as the engine's device sees it
 * @dst: DMA address to write
 * @len: bytes, 1 to 64 MiB
 * @flags: must be zero
 */
struct udmem_dmaengine_copy {
	__u64 src;
	__u64 dst;
	__u64 len;
	__u64 flags;
};

#define UDMEM_DMAENGINE_COPY	_IOW('d', 0xe0, struct udmem_dmaengine_copy)

#endif /* UDMEM_DMAENGINE_TEST_H */
