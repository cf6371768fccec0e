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

/* udmem_dmaengine_xfer.kind */
#define UDMEM_DMAENGINE_DEV_TO_MEM	1	/* the slave channel, into memory */
#define UDMEM_DMAENGINE_MEM_TO_DEV	2	/* the slave channel, out of memory */
#define UDMEM_DMAENGINE_MEMCPY		3	/* the memcpy channel */
/* udmem_dmaengine_xfer.flags */
#define UDMEM_DMAENGINE_CYCLIC		0x1	/* slave: cyclic, one period a seg */
#define UDMEM_DMAENGINE_TERMINATE	0x2	/* terminate once it made progress */

/**
 * struct udmem_dmaengine_xfer - a slave transfer, or a transfer cut short
 * @addr: DMA address of the memory side (memcpy: the destination), as the
 *	channel's device sees it
 * @src: memcpy: DMA address of the source; else 0
 * @len: bytes, 1 to 64 MiB
 * @seg: slave_sg: bytes of each scatter-gather entry (0: one entry);
 *	cyclic: bytes of a period
 * @stride: slave_sg: distance from one entry to the next (0: @seg, no gaps)
 * @kind: UDMEM_DMAENGINE_DEV_TO_MEM, _MEM_TO_DEV or _MEMCPY
 * @flags: UDMEM_DMAENGINE_CYCLIC, UDMEM_DMAENGINE_TERMINATE
 * @periods: cyclic: the period callbacks to wait for before terminating
 * @callbacks: out: the callbacks that came (those of a cyclic transfer
 *	until it was terminated)
 * @result: out: the first dmaengine_tx_result that was not NOERROR, else 0
 * @reserved: must be zero
 * @residue: out: the residue the channel reported just before terminating
 *	(cyclic, TERMINATE); else 0
 *
 * Returns 0 when the transfer completed (cyclic: when @periods callbacks
 * came; TERMINATE: when it was terminated after making progress),
 * -EINVAL when the channel refused it, -ECANCELED when it was aborted
 * (the channel's device went away), -EIO on another error result,
 * -ETIMEDOUT when 10 s pass without a callback (or, for TERMINATE,
 * without progress), -ENODEV with no channel.
 */
struct udmem_dmaengine_xfer {
	__u64 addr;
	__u64 src;
	__u64 len;
	__u32 seg;
	__u32 stride;
	__u32 kind;
	__u32 flags;
	__u32 periods;
	__u32 callbacks;
	__u32 result;
	__u32 reserved;
	__u64 residue;
};

#define UDMEM_DMAENGINE_XFER	_IOWR('d', 0xe1, struct udmem_dmaengine_xfer)

#endif /* UDMEM_DMAENGINE_TEST_H */
