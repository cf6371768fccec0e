// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * buffer.c - udmem_buffer_*: u-dma-buf buffers (open, create/delete through
 * the manager, map, sync, DMA-BUF export).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/u-dma-buf-ioctl.h>

#include "internal.h"

struct udmem_buffer {
	struct udmem_dev dev;
	uint64_t phys_addr;
	uint64_t dma_addr;
	int coherent;
	int dma_mask_bits;
	int mmap_mode;
};

static const char *const udmem_mmap_mode_words[] = {
	[UDMEM_MMAP_OFF] = "quirk-mmap-off",
	[UDMEM_MMAP_ON] = "quirk-mmap-on",
	[UDMEM_MMAP_AUTO] = "quirk-mmap-auto",
	[UDMEM_MMAP_PAGE] = "quirk-mmap-page",
};

static int udmem_buffer_read_info(struct udmem_buffer *buf)
{
	struct u_dma_buf_ioctl_dev_info info;
	uint64_t val;
	int ret;

	memset(&info, 0, sizeof(info));
	ret = udmem_ioctl(buf->dev.fd, U_DMA_BUF_IOCTL_GET_DEV_INFO, &info);
	if (ret == 0) {
		buf->dev.size = info.size;
		buf->dma_addr = info.addr;
		buf->coherent = GET_U_DMA_BUF_IOCTL_FLAGS_DMA_COHERENT(&info);
		buf->dma_mask_bits = GET_U_DMA_BUF_IOCTL_FLAGS_DMA_MASK(&info);
		buf->mmap_mode = GET_U_DMA_BUF_IOCTL_FLAGS_MMAP_MODE(&info);
	} else if (ret == -ENOTTY) {
		/* A driver built without ioctls: sysfs has the same facts. */
		ret = udmem_sysfs_read_u64(UDMEM_CLASS_BUFFER, buf->dev.name,
					   "size", &buf->dev.size);
		if (ret)
			return ret;
		ret = udmem_sysfs_read_u64(UDMEM_CLASS_BUFFER, buf->dev.name,
					   "phys_addr", &buf->dma_addr);
		if (ret)
			return ret;
		if (!udmem_sysfs_read_u64(UDMEM_CLASS_BUFFER, buf->dev.name,
					  "dma_coherent", &val))
			buf->coherent = val != 0;
		if (!udmem_sysfs_read_u64(UDMEM_CLASS_BUFFER, buf->dev.name,
					  "quirk_mmap_mode", &val))
			buf->mmap_mode = (int)val;
	} else {
		return ret;
	}
	if (udmem_sysfs_read_u64(UDMEM_CLASS_BUFFER, buf->dev.name, "phys_addr",
				 &buf->phys_addr))
		buf->phys_addr = buf->dma_addr;
	return 0;
}

UDMEM_API int udmem_buffer_open(const char *name, unsigned int flags,
				struct udmem_buffer **out)
{
	struct udmem_buffer *buf;
	int ret;

	if (!out)
		return -EINVAL;
	buf = calloc(1, sizeof(*buf));
	if (!buf)
		return -ENOMEM;
	ret = udmem_dev_open(&buf->dev, UDMEM_CLASS_BUFFER, name, flags);
	if (ret)
		goto err_free_buf;
	ret = udmem_buffer_read_info(buf);
	if (ret)
		goto err_close_dev;
	*out = buf;
	return 0;

err_close_dev:
	udmem_dev_close(&buf->dev);
err_free_buf:
	free(buf);
	return ret;
}

UDMEM_API void udmem_buffer_close(struct udmem_buffer *buf)
{
	if (!buf)
		return;
	udmem_dev_close(&buf->dev);
	free(buf);
}

static int udmem_mgr_command(const char *cmd)
{
	size_t len = strlen(cmd);
	ssize_t n;
	int fd, ret = 0;

	fd = open(UDMEM_MGR_PATH, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ENODEV : -errno;
	do {
		n = write(fd, cmd, len);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != len)
		ret = -EIO;
	close(fd);
	return ret;
}

/* "[BUS/]NAME": one manager token each, without separators. */
static int udmem_device_spec_valid(const char *spec)
{
	size_t n = spec ? strlen(spec) : 0;
	const char *slash;

	if (!n || n > 127 || strpbrk(spec, " \t\n;="))
		return 0;
	slash = strchr(spec, '/');
	return !slash || (slash != spec && slash[1] && !strchr(slash + 1, '/'));
}

UDMEM_API int udmem_buffer_create_on(const char *name, uint64_t size,
				     unsigned int dma_mask_bits,
				     enum udmem_mmap_mode mode,
				     const char *device, unsigned int flags)
{
	const char *slash;
	char cmd[320];
	uint64_t got;
	int len, ret;

	if (!udmem_name_valid(name) || size == 0 ||
	    (dma_mask_bits && (dma_mask_bits < 12 || dma_mask_bits > 64)) ||
	    (unsigned int)mode > UDMEM_MMAP_PAGE ||
	    (flags & ~(unsigned int)(UDMEM_CREATE_DMA_COHERENT |
				     UDMEM_CREATE_KEEP_CONTENTS |
				     UDMEM_CREATE_SYNC_CHECK_REPORT |
				     UDMEM_CREATE_SYNC_CHECK_STRICT)) ||
	    ((flags & UDMEM_CREATE_SYNC_CHECK_REPORT) &&
	     (flags & UDMEM_CREATE_SYNC_CHECK_STRICT)) ||
	    (device && !udmem_device_spec_valid(device)))
		return -EINVAL;
	if (udmem_sysfs_exists(UDMEM_CLASS_BUFFER, name))
		return -EEXIST;
	len = snprintf(cmd, sizeof(cmd), "create %s %llu", name,
		       (unsigned long long)size);
	if (dma_mask_bits)
		len += snprintf(cmd + len, sizeof(cmd) - len, " dma-mask=%u",
				dma_mask_bits);
	if (mode != UDMEM_MMAP_DEFAULT)
		len += snprintf(cmd + len, sizeof(cmd) - len, " %s",
				udmem_mmap_mode_words[mode]);
	if (device) {
		slash = strchr(device, '/');
		if (slash)
			len += snprintf(cmd + len, sizeof(cmd) - len,
					" bus=%.*s device=%s",
					(int)(slash - device), device, slash + 1);
		else
			len += snprintf(cmd + len, sizeof(cmd) - len,
					" device=%s", device);
	}
	if (flags & UDMEM_CREATE_DMA_COHERENT)
		len += snprintf(cmd + len, sizeof(cmd) - len, " dma-coherent");
	if (flags & UDMEM_CREATE_KEEP_CONTENTS)
		len += snprintf(cmd + len, sizeof(cmd) - len, " keep-contents");
	if (flags & UDMEM_CREATE_SYNC_CHECK_REPORT)
		len += snprintf(cmd + len, sizeof(cmd) - len, " sync-check=report");
	if (flags & UDMEM_CREATE_SYNC_CHECK_STRICT)
		len += snprintf(cmd + len, sizeof(cmd) - len, " sync-check=strict");
	snprintf(cmd + len, sizeof(cmd) - len, "\n");
	ret = udmem_mgr_command(cmd);
	if (ret)
		return ret;
	/* A manager that truncates sizes must not hand out a short buffer. */
	if (!udmem_sysfs_read_u64(UDMEM_CLASS_BUFFER, name, "size", &got) &&
	    got != size) {
		udmem_buffer_delete(name);
		return -E2BIG;
	}
	return 0;
}

UDMEM_API int udmem_buffer_create(const char *name, uint64_t size,
				  unsigned int dma_mask_bits,
				  enum udmem_mmap_mode mode)
{
	return udmem_buffer_create_on(name, size, dma_mask_bits, mode, NULL, 0);
}

UDMEM_API int udmem_buffer_delete(const char *name)
{
	char cmd[96];

	if (!udmem_name_valid(name))
		return -EINVAL;
	if (!udmem_sysfs_exists(UDMEM_CLASS_BUFFER, name))
		return -ENOENT;
	snprintf(cmd, sizeof(cmd), "delete %s\n", name);
	return udmem_mgr_command(cmd);
}

UDMEM_API int udmem_buffer_list(char ***names)
{
	return udmem_class_list(UDMEM_CLASS_BUFFER, names);
}

UDMEM_API const char *udmem_buffer_name(const struct udmem_buffer *buf)
{
	return buf ? buf->dev.name : NULL;
}

UDMEM_API uint64_t udmem_buffer_size(const struct udmem_buffer *buf)
{
	return buf ? buf->dev.size : 0;
}

UDMEM_API uint64_t udmem_buffer_phys_addr(const struct udmem_buffer *buf)
{
	return buf ? buf->phys_addr : 0;
}

UDMEM_API uint64_t udmem_buffer_dma_addr(const struct udmem_buffer *buf)
{
	return buf ? buf->dma_addr : 0;
}

UDMEM_API int udmem_buffer_is_coherent(const struct udmem_buffer *buf)
{
	return buf ? buf->coherent : -EINVAL;
}

UDMEM_API int udmem_buffer_dma_mask_bits(const struct udmem_buffer *buf)
{
	return buf ? buf->dma_mask_bits : -EINVAL;
}

UDMEM_API int udmem_buffer_mmap_mode(const struct udmem_buffer *buf)
{
	return buf ? buf->mmap_mode : -EINVAL;
}

UDMEM_API int udmem_buffer_fd(const struct udmem_buffer *buf)
{
	return buf ? buf->dev.fd : -EINVAL;
}

UDMEM_API int udmem_buffer_sync_mode(struct udmem_buffer *buf)
{
	struct u_dma_buf_ioctl_sync_args args;
	int ret;

	if (!buf)
		return -EINVAL;
	memset(&args, 0, sizeof(args));
	ret = udmem_ioctl(buf->dev.fd, U_DMA_BUF_IOCTL_GET_SYNC, &args);
	return ret ? ret : GET_U_DMA_BUF_IOCTL_FLAGS_SYNC_MODE(&args);
}

UDMEM_API int udmem_buffer_sync_owner(struct udmem_buffer *buf)
{
	__u32 owner = 0;
	int ret;

	if (!buf)
		return -EINVAL;
	ret = udmem_ioctl(buf->dev.fd, U_DMA_BUF_IOCTL_GET_SYNC_OWNER, &owner);
	return ret ? ret : (owner ? UDMEM_OWNER_DEVICE : UDMEM_OWNER_CPU);
}

UDMEM_API int udmem_buffer_map(struct udmem_buffer *buf, void **addr)
{
	return buf ? udmem_dev_map(&buf->dev, addr) : -EINVAL;
}

UDMEM_API int udmem_buffer_unmap(struct udmem_buffer *buf)
{
	return buf ? udmem_dev_unmap(&buf->dev) : -EINVAL;
}

UDMEM_API void *udmem_buffer_addr(struct udmem_buffer *buf)
{
	return buf ? udmem_dev_addr(&buf->dev) : NULL;
}

static int udmem_buffer_sync(struct udmem_buffer *buf, int cmd,
			     uint64_t offset, uint64_t size,
			     enum udmem_dir dir)
{
	struct u_dma_buf_ioctl_sync_args args;

	if (!buf || (unsigned int)dir > UDMEM_DIR_FROM_DEVICE ||
	    udmem_dev_range(&buf->dev, offset, &size))
		return -EINVAL;
	memset(&args, 0, sizeof(args));
	SET_U_DMA_BUF_IOCTL_FLAGS_SYNC_CMD(&args, cmd);
	SET_U_DMA_BUF_IOCTL_FLAGS_SYNC_DIR(&args, dir);
	args.offset = offset;
	args.size = size;
	return udmem_ioctl(buf->dev.fd, U_DMA_BUF_IOCTL_SET_SYNC, &args);
}

UDMEM_API int udmem_buffer_sync_for_cpu(struct udmem_buffer *buf,
					uint64_t offset, uint64_t size,
					enum udmem_dir dir)
{
	return udmem_buffer_sync(buf, U_DMA_BUF_IOCTL_FLAGS_SYNC_CMD_FOR_CPU,
				 offset, size, dir);
}

UDMEM_API int udmem_buffer_sync_for_device(struct udmem_buffer *buf,
					   uint64_t offset, uint64_t size,
					   enum udmem_dir dir)
{
	return udmem_buffer_sync(buf, U_DMA_BUF_IOCTL_FLAGS_SYNC_CMD_FOR_DEVICE,
				 offset, size, dir);
}

UDMEM_API int udmem_buffer_export_dmabuf(struct udmem_buffer *buf,
					 uint64_t offset, uint64_t size,
					 int fd_flags, uint64_t *dma_addr)
{
	struct u_dma_buf_ioctl_export_args args;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	int ret;

	if (!buf || fd_flags < 0)
		return -EINVAL;
	if (size == 0 && offset < buf->dev.size)
		size = (buf->dev.size - offset) & ~(page - 1);
	memset(&args, 0, sizeof(args));
	SET_U_DMA_BUF_IOCTL_FLAGS_EXPORT_FD_FLAGS(&args, fd_flags);
	args.offset = offset;
	args.size = size;
	args.fd = -1;
	ret = udmem_ioctl(buf->dev.fd, U_DMA_BUF_IOCTL_EXPORT, &args);
	if (ret)
		return ret;
	if (args.fd < 0)
		return -EIO;
	if (dma_addr)
		*dma_addr = args.addr;
	return args.fd;
}
