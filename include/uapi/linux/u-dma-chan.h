/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR MIT) */
/*
 * u-dma-chan.h - ioctls and completion records of /dev/<name> for
 * u-dma-chan, a kernel DMA engine channel driven from user space.
 *
 * A program opens the channel (one open file at a time: a second open fails
 * with EBUSY), submits batches of transfers between DMA-BUFs (u-dma-buf and
 * uiomem export theirs with U_DMA_BUF_IOCTL_EXPORT and UIOMEM_IOCTL_EXPORT)
 * and learns of their completion in three ways:
 *
 * - the sync_file fd SUBMIT returns (poll() it, or SYNC_IOC_FILE_INFO of
 *   <linux/sync_file.h> for the status);
 * - U_DMA_CHAN_IOCTL_WAIT with the batch's sequence number and a timeout;
 * - read() on the channel fd, which returns struct u_dma_chan_completion
 *   records in completion order; poll() reports EPOLLIN while there is one.
 *
 * Every structure uses fixed-width fields, naturally aligned, with explicit
 * padding, so 32-bit and 64-bit programs share one layout; reserved fields
 * and unknown flags must be zero (else EINVAL) so that they can be given a
 * meaning later.  Magic 'u', numbers 0xd0..0xdf: apart from u-dma-buf's
 * ('U' 1..10, 0x40..0x41) and uiomem's ('U' 1..9, 'u' 0xc0..0xc2).
 */
#ifndef _UAPI_LINUX_U_DMA_CHAN_H
#define _UAPI_LINUX_U_DMA_CHAN_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* The version U_DMA_CHAN_IOCTL_INFO reports in abi_version. */
#define U_DMA_CHAN_ABI_VERSION		1

/* Most transfers in one batch; more fail with E2BIG. */
#define U_DMA_CHAN_MAX_BATCH		256

/* struct u_dma_chan_xfer.op */
enum u_dma_chan_op {
	U_DMA_CHAN_OP_MEMCPY = 0,	/* src_fd + src_offset -> dst_fd + dst_offset */
	U_DMA_CHAN_OP_DEV_TO_MEM = 1,	/* the slave source -> dst_fd + dst_offset */
	U_DMA_CHAN_OP_MEM_TO_DEV = 2,	/* src_fd + src_offset -> the slave dest */
};

/* struct u_dma_chan_xfer.flags */
/* Repeat the slave transfer until stopped (TERMINATE or close), in periods. */
#define U_DMA_CHAN_XFER_CYCLIC		(1u << 0)
/*
 * Leave the CPU caches alone: no sync of the sources for the device before
 * the transfer, none of the destination for the CPU after it.  For callers
 * that do the syncs themselves, or buffers only devices touch.
 */
#define U_DMA_CHAN_XFER_NO_SYNC		(1u << 1)
#define U_DMA_CHAN_XFER_FLAGS		(U_DMA_CHAN_XFER_CYCLIC | \
					 U_DMA_CHAN_XFER_NO_SYNC)

/**
 * struct u_dma_chan_xfer - one transfer of a batch
 * @op: enum u_dma_chan_op
 * @flags: U_DMA_CHAN_XFER_*
 * @src_fd: a DMA-BUF to read (MEMCPY, MEM_TO_DEV); -1 for DEV_TO_MEM
 * @dst_fd: a DMA-BUF to write (MEMCPY, DEV_TO_MEM), opened for writing
 *	(else EACCES); -1 for MEM_TO_DEV
 * @src_offset: where the transfer starts in @src_fd (0 when unused)
 * @dst_offset: where the transfer starts in @dst_fd (0 when unused)
 * @length: bytes to move, > 0; the ranges must lie inside their DMA-BUFs,
 *	must not overlap when both name the same DMA-BUF, and must meet the
 *	channel's copy_align (offsets and length)
 * @period: U_DMA_CHAN_XFER_CYCLIC: the period in bytes, dividing @length;
 *	else zero
 * @reserved: must be zero
 */
struct u_dma_chan_xfer {
	__u32 op;
	__u32 flags;
	__s32 src_fd;
	__s32 dst_fd;
	__u64 src_offset;
	__u64 dst_offset;
	__u64 length;
	__u64 period;
	__u64 reserved[2];
};

/* struct u_dma_chan_submit.flags */
/* Return a sync_file fd (O_CLOEXEC) in fence_fd; without it fence_fd is -1. */
#define U_DMA_CHAN_SUBMIT_FENCE_FD	(1u << 0)
/* Queue no completion record for read() for this batch. */
#define U_DMA_CHAN_SUBMIT_NO_EVENT	(1u << 1)
/*
 * Return once the batch has completed, its status in @status: a submit and
 * a WAIT without a time limit in one call.  Not for cyclic transfers
 * (EINVAL).  A signal ends the wait with EINTR; the batch runs on and
 * @seq is set for WAIT.
 */
#define U_DMA_CHAN_SUBMIT_WAIT		(1u << 2)
#define U_DMA_CHAN_SUBMIT_FLAGS		(U_DMA_CHAN_SUBMIT_FENCE_FD | \
					 U_DMA_CHAN_SUBMIT_NO_EVENT | \
					 U_DMA_CHAN_SUBMIT_WAIT)

/**
 * struct u_dma_chan_submit - U_DMA_CHAN_IOCTL_SUBMIT
 * @xfers: user pointer to an array of @count struct u_dma_chan_xfer
 * @count: 1..U_DMA_CHAN_MAX_BATCH (0: EINVAL, more: E2BIG)
 * @flags: U_DMA_CHAN_SUBMIT_*
 * @fence_fd: out: the batch's sync_file, or -1
 * @status: must be zero; out, with U_DMA_CHAN_SUBMIT_WAIT: the batch's
 *	status as WAIT gives it (before 1.7 the field was reserved0)
 * @seq: out: the batch's sequence number on this open file, from 1 up
 * @reserved: must be zero
 *
 * The batch is checked whole before anything is issued: a bad transfer
 * fails the call and nothing moves.  The transfers run in order on the
 * channel; the batch completes when the last one does, with the first
 * error any of them met (the fence's error, the completion's status).
 * A cyclic transfer completes (with ECANCELED) only when stopped.
 */
struct u_dma_chan_submit {
	__u64 xfers;
	__u32 count;
	__u32 flags;
	__s32 fence_fd;
	__s32 status;
	__u64 seq;
	__u64 reserved[2];
};

/**
 * struct u_dma_chan_wait - U_DMA_CHAN_IOCTL_WAIT
 * @seq: the batch to wait for; 0 for the last one submitted
 * @timeout_ns: how long to wait: 0 only looks, < 0 waits without a limit
 * @status: out: 0 when the batch moved its data, else a negative errno
 *	(EIO: the engine failed it; ECANCELED: stopped by TERMINATE or close;
 *	ENODEV: the channel went away)
 * @reserved0: must be zero
 * @completed: out: how many batches of this file have completed
 * @reserved: must be zero
 *
 * The ioctl fails with ETIMEDOUT when the batch is still running at the
 * end of the timeout, EINTR when a signal came first, EINVAL for a
 * sequence number never given out, and ENOENT for a batch that completed
 * more than 4096 batches ago (its status is no longer kept).
 */
struct u_dma_chan_wait {
	__u64 seq;
	__s64 timeout_ns;
	__s32 status;
	__u32 reserved0;
	__u64 completed;
	__u64 reserved[2];
};

/**
 * struct u_dma_chan_slave_config - U_DMA_CHAN_IOCTL_SLAVE_CONFIG
 * @direction: U_DMA_CHAN_OP_DEV_TO_MEM or U_DMA_CHAN_OP_MEM_TO_DEV
 * @reserved0: must be zero
 * @dev_addr: the device side's bus address (a FIFO), as the engine sees it;
 *	0 for engines whose device side has no address (AXI DMA streams)
 * @addr_width: bytes per device access: 1, 2, 4, 8, 16, 32 or 64
 * @maxburst: accesses per burst, 0 for the engine's default
 * @reserved: must be zero
 *
 * Sets the slave configuration of one direction for the following slave
 * transfers of this open file (the device tree's, when the channel's node
 * has one, until then).
 */
struct u_dma_chan_slave_config {
	__u32 direction;
	__u32 reserved0;
	__u64 dev_addr;
	__u32 addr_width;
	__u32 maxburst;
	__u64 reserved[3];
};

/* struct u_dma_chan_info.caps */
#define U_DMA_CHAN_CAP_MEMCPY		(1ull << 0)
#define U_DMA_CHAN_CAP_DEV_TO_MEM	(1ull << 1)
#define U_DMA_CHAN_CAP_MEM_TO_DEV	(1ull << 2)
#define U_DMA_CHAN_CAP_CYCLIC		(1ull << 3)

/**
 * struct u_dma_chan_info - U_DMA_CHAN_IOCTL_INFO
 * @abi_version: U_DMA_CHAN_ABI_VERSION
 * @copy_align: memcpy offsets and length must be multiples of this (bytes)
 * @caps: U_DMA_CHAN_CAP_*
 * @max_segment: the longest transfer the channel's device takes (bytes)
 * @dma_mask: the channel's device's DMA mask
 * @max_batch: U_DMA_CHAN_MAX_BATCH
 * @reserved0: zero
 * @name: the device name (/dev/@name), NUL-terminated
 * @channel: the dmaengine channel ("dma0chan3"), NUL-terminated
 * @device: the engine's device ("fd500000.dma-controller"), NUL-terminated
 * @reserved: zero
 */
struct u_dma_chan_info {
	__u32 abi_version;
	__u32 copy_align;
	__u64 caps;
	__u64 max_segment;
	__u64 dma_mask;
	__u32 max_batch;
	__u32 reserved0;
	char name[64];
	char channel[32];
	char device[64];
	__u64 reserved[4];
};

/**
 * struct u_dma_chan_completion - one record read() returns
 * @seq: the batch's sequence number
 * @status: 0, or the batch's negative errno (as u_dma_chan_wait.status)
 * @reserved: zero
 *
 * read() takes whole records (a smaller buffer: EINVAL), blocks until there
 * is one unless the file is O_NONBLOCK (then EAGAIN).  Up to 4096 records
 * wait; past that the oldest are dropped.
 */
struct u_dma_chan_completion {
	__u64 seq;
	__s32 status;
	__u32 reserved;
};

#define U_DMA_CHAN_IOCTL_MAGIC		'u'
#define U_DMA_CHAN_IOCTL_INFO \
	_IOR(U_DMA_CHAN_IOCTL_MAGIC, 0xd0, struct u_dma_chan_info)
#define U_DMA_CHAN_IOCTL_SUBMIT \
	_IOWR(U_DMA_CHAN_IOCTL_MAGIC, 0xd1, struct u_dma_chan_submit)
#define U_DMA_CHAN_IOCTL_WAIT \
	_IOWR(U_DMA_CHAN_IOCTL_MAGIC, 0xd2, struct u_dma_chan_wait)
#define U_DMA_CHAN_IOCTL_SLAVE_CONFIG \
	_IOW(U_DMA_CHAN_IOCTL_MAGIC, 0xd3, struct u_dma_chan_slave_config)
/* Stop every transfer of this file: each running batch completes ECANCELED. */
#define U_DMA_CHAN_IOCTL_TERMINATE	_IO(U_DMA_CHAN_IOCTL_MAGIC, 0xd4)

#endif /* _UAPI_LINUX_U_DMA_CHAN_H */
