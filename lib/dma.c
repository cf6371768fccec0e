// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libudmem: DMA channels of the u-dma-chan driver (<linux/u-dma-chan.h>):
 * open, describe, submit batches, wait for them, read their completions.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/sync_file.h>
#include <linux/u-dma-chan.h>
#include "internal.h"

#define UDMEM_CLASS_DMA		"u-dma-chan"

struct udmem_dma {
	int fd;
};

UDMEM_API int udmem_dma_open(const char *name, struct udmem_dma **out)
{
	struct udmem_dma *dma;
	char path[UDMEM_NAME_MAX + 8];
	int fd;

	if (!out || !udmem_name_valid(name))
		return -EINVAL;
	if (!udmem_sysfs_exists(UDMEM_CLASS_DMA, name))
		return -ENOENT;
	snprintf(path, sizeof(path), "/dev/%s", name);
	fd = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	dma = calloc(1, sizeof(*dma));
	if (!dma) {
		close(fd);
		return -ENOMEM;
	}
	dma->fd = fd;
	*out = dma;
	return 0;
}

UDMEM_API void udmem_dma_close(struct udmem_dma *dma)
{
	if (!dma)
		return;
	close(dma->fd);
	free(dma);
}

UDMEM_API int udmem_dma_fd(const struct udmem_dma *dma)
{
	return dma ? dma->fd : -EINVAL;
}

UDMEM_API int udmem_dma_list(char ***names)
{
	return udmem_class_list(UDMEM_CLASS_DMA, names);
}

UDMEM_API int udmem_dma_info(struct udmem_dma *dma, struct udmem_dma_info *info)
{
	struct u_dma_chan_info k;
	int ret;

	if (!dma || !info)
		return -EINVAL;
	memset(&k, 0, sizeof(k));
	ret = udmem_ioctl(dma->fd, U_DMA_CHAN_IOCTL_INFO, &k);
	if (ret)
		return ret;
	memset(info, 0, sizeof(*info));
	snprintf(info->name, sizeof(info->name), "%.*s", (int)sizeof(k.name), k.name);
	snprintf(info->channel, sizeof(info->channel), "%.*s", (int)sizeof(k.channel),
		 k.channel);
	snprintf(info->device, sizeof(info->device), "%.*s", (int)sizeof(k.device), k.device);
	info->caps = k.caps;
	info->max_segment = k.max_segment;
	info->dma_mask = k.dma_mask;
	info->copy_align = k.copy_align;
	info->max_batch = k.max_batch;
	return 0;
}

UDMEM_API int udmem_dma_submit(struct udmem_dma *dma, const struct udmem_dma_xfer *xfers,
			       unsigned int count, unsigned int flags, uint64_t *seq,
			       int *fence_fd)
{
	struct u_dma_chan_xfer *k;
	struct u_dma_chan_submit sub;
	unsigned int i;
	int ret;

	if (!dma || !xfers || !count)
		return -EINVAL;
	if (count > U_DMA_CHAN_MAX_BATCH)
		return -E2BIG;
	if ((flags & UDMEM_DMA_FENCE_FD) && !fence_fd)
		return -EINVAL;
	k = calloc(count, sizeof(*k));
	if (!k)
		return -ENOMEM;
	for (i = 0; i < count; i++) {
		k[i].op = xfers[i].op;
		k[i].flags = xfers[i].flags;
		k[i].src_fd = xfers[i].src_fd;
		k[i].dst_fd = xfers[i].dst_fd;
		k[i].src_offset = xfers[i].src_offset;
		k[i].dst_offset = xfers[i].dst_offset;
		k[i].length = xfers[i].length;
		k[i].period = xfers[i].period;
	}
	memset(&sub, 0, sizeof(sub));
	sub.xfers = (uintptr_t)k;
	sub.count = count;
	sub.flags = flags;
	ret = udmem_ioctl(dma->fd, U_DMA_CHAN_IOCTL_SUBMIT, &sub);
	free(k);
	/* an interrupted UDMEM_DMA_WAIT: the batch was submitted */
	if (ret && !(ret == -EINTR && sub.seq))
		return ret;
	if (seq)
		*seq = sub.seq;
	if (flags & UDMEM_DMA_FENCE_FD)
		*fence_fd = sub.fence_fd;
	if (ret)
		return ret;
	return flags & UDMEM_DMA_WAIT ? sub.status : 0;
}

UDMEM_API int udmem_dma_wait(struct udmem_dma *dma, uint64_t seq, int64_t timeout_ns,
			     int *status)
{
	struct u_dma_chan_wait w;
	int ret;

	if (!dma)
		return -EINVAL;
	memset(&w, 0, sizeof(w));
	w.seq = seq;
	w.timeout_ns = timeout_ns;
	ret = udmem_ioctl(dma->fd, U_DMA_CHAN_IOCTL_WAIT, &w);
	if (ret)
		return ret;
	if (status)
		*status = w.status;
	return 0;
}

UDMEM_API int udmem_dma_copy(struct udmem_dma *dma, int dst_fd, uint64_t dst_offset,
			     int src_fd, uint64_t src_offset, uint64_t length,
			     int64_t timeout_ns)
{
	struct udmem_dma_xfer x = {
		.op = UDMEM_DMA_MEMCPY,
		.src_fd = src_fd,
		.dst_fd = dst_fd,
		.src_offset = src_offset,
		.dst_offset = dst_offset,
		.length = length,
	};
	uint64_t seq = 0;
	int ret, status;

	if (timeout_ns < 0) {
		ret = udmem_dma_submit(dma, &x, 1, UDMEM_DMA_NO_EVENT | UDMEM_DMA_WAIT, &seq, NULL);
		/* a module before 1.7 refuses the flag: wait apart (a bad copy fails again) */
		if (ret != -EINVAL)
			return ret;
	}
	ret = udmem_dma_submit(dma, &x, 1, UDMEM_DMA_NO_EVENT, &seq, NULL);
	if (ret)
		return ret;
	ret = udmem_dma_wait(dma, seq, timeout_ns, &status);
	return ret ? ret : status;
}

/* poll() @fd for @events up to @timeout_ns: 1 ready, 0 not in time, -errno. */
static int udmem_poll_ns(int fd, short events, int64_t timeout_ns)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	struct timespec ts, *tsp = NULL;
	int ret;

	if (timeout_ns >= 0) {
		ts.tv_sec = timeout_ns / 1000000000;
		ts.tv_nsec = timeout_ns % 1000000000;
		tsp = &ts;
	}
	do {
		ret = ppoll(&pfd, 1, tsp, NULL);
	} while (ret < 0 && errno == EINTR);
	if (ret < 0)
		return -errno;
	if (ret && (pfd.revents & POLLNVAL))
		return -EBADF;
	return ret > 0;
}

UDMEM_API int udmem_dma_completions(struct udmem_dma *dma, struct udmem_dma_completion *out,
				    unsigned int max, int64_t timeout_ns)
{
	struct u_dma_chan_completion rec[16];
	unsigned int want, i;
	ssize_t n;
	int ret;

	if (!dma || !out || !max)
		return -EINVAL;
	ret = udmem_poll_ns(dma->fd, POLLIN, timeout_ns);
	if (ret <= 0)
		return ret;
	want = max < 16 ? max : 16;
	n = read(dma->fd, rec, want * sizeof(rec[0]));
	if (n < 0)
		return errno == EAGAIN ? 0 : -errno;
	for (i = 0; i < n / sizeof(rec[0]); i++) {
		out[i].seq = rec[i].seq;
		out[i].status = rec[i].status;
	}
	return (int)i;
}

UDMEM_API int udmem_dma_slave_config(struct udmem_dma *dma, enum udmem_dma_op dir,
				     uint64_t dev_addr, unsigned int addr_width,
				     unsigned int maxburst)
{
	struct u_dma_chan_slave_config c;

	if (!dma)
		return -EINVAL;
	memset(&c, 0, sizeof(c));
	c.direction = dir;
	c.dev_addr = dev_addr;
	c.addr_width = addr_width;
	c.maxburst = maxburst;
	return udmem_ioctl(dma->fd, U_DMA_CHAN_IOCTL_SLAVE_CONFIG, &c);
}

UDMEM_API int udmem_dma_terminate(struct udmem_dma *dma)
{
	if (!dma)
		return -EINVAL;
	return udmem_ioctl(dma->fd, U_DMA_CHAN_IOCTL_TERMINATE, NULL);
}

UDMEM_API int udmem_dma_fence_wait(int fence_fd, int64_t timeout_ns)
{
	struct sync_file_info info;
	int ret;

	memset(&info, 0, sizeof(info));
	ret = udmem_ioctl(fence_fd, SYNC_IOC_FILE_INFO, &info);
	if (ret)
		return ret == -ENOTTY ? -EINVAL : ret;
	ret = udmem_poll_ns(fence_fd, POLLIN, timeout_ns);
	if (ret < 0)
		return ret;
	if (!ret)
		return -ETIMEDOUT;
	memset(&info, 0, sizeof(info));
	ret = udmem_ioctl(fence_fd, SYNC_IOC_FILE_INFO, &info);
	if (ret)
		return ret;
	return info.status < 0 ? info.status : 0;
}
