// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libudmem: import of a foreign DMA-BUF into a u-dma-buf buffer's device
 * (U_DMA_BUF_IOCTL_IMPORT), and CPU access brackets on the import.
 */
#include <errno.h>
#include <string.h>
#include <linux/dma-buf.h>
#include <linux/u-dma-buf-ioctl.h>
#include "internal.h"

UDMEM_API int udmem_buffer_import_dmabuf(struct udmem_buffer *buf, int dmabuf_fd,
					 enum udmem_dir dir, uint64_t *dma_addr,
					 uint64_t *size)
{
	struct u_dma_buf_ioctl_import_args args;
	int fd = udmem_buffer_fd(buf), ret;

	if (fd < 0 || dmabuf_fd < 0 || (unsigned int)dir > UDMEM_DIR_FROM_DEVICE)
		return -EINVAL;
	memset(&args, 0, sizeof(args));
	args.fd = dmabuf_fd;
	args.flags = dir;
	args.import_fd = -1;
	ret = udmem_ioctl(fd, U_DMA_BUF_IOCTL_IMPORT, &args);
	if (ret)
		return ret;
	if (args.import_fd < 0)
		return -EIO;
	if (dma_addr)
		*dma_addr = args.addr;
	if (size)
		*size = args.size;
	return args.import_fd;
}

static int udmem_import_sync(int import_fd, __u64 when, enum udmem_dir dir)
{
	struct u_dma_buf_ioctl_import_sync s;

	if (import_fd < 0)
		return -EBADF;
	switch (dir) {
	case UDMEM_DIR_BIDIRECTIONAL:
		s.flags = when | DMA_BUF_SYNC_RW;
		break;
	case UDMEM_DIR_TO_DEVICE:
		s.flags = when | DMA_BUF_SYNC_WRITE;
		break;
	case UDMEM_DIR_FROM_DEVICE:
		s.flags = when | DMA_BUF_SYNC_READ;
		break;
	default:
		return -EINVAL;
	}
	return udmem_ioctl(import_fd, U_DMA_BUF_IOCTL_IMPORT_SYNC, &s);
}

UDMEM_API int udmem_import_sync_for_cpu(int import_fd, enum udmem_dir dir)
{
	return udmem_import_sync(import_fd, DMA_BUF_SYNC_START, dir);
}

UDMEM_API int udmem_import_sync_for_device(int import_fd, enum udmem_dir dir)
{
	return udmem_import_sync(import_fd, DMA_BUF_SYNC_END, dir);
}
