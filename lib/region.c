// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * region.c - udmem_region_*: uiomem device-memory regions (open, map, sync).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/uiomem.h>

#include "internal.h"

struct udmem_region {
	struct udmem_dev dev;
	uint64_t phys_addr;
	uint32_t map_type;		/* UIOMEM_MAP_* */
	uint32_t query_flags;		/* UIOMEM_QUERY_* */
};

static int udmem_region_query(const struct udmem_region *reg,
			      struct uiomem_query *q)
{
	memset(q, 0, sizeof(*q));
	return udmem_ioctl(reg->dev.fd, UIOMEM_IOCTL_QUERY, q);
}

UDMEM_API int udmem_region_open(const char *name, unsigned int flags,
				struct udmem_region **out)
{
	struct udmem_region *reg;
	struct uiomem_query q;
	int ret;

	if (!out)
		return -EINVAL;
	reg = calloc(1, sizeof(*reg));
	if (!reg)
		return -ENOMEM;
	ret = udmem_dev_open(&reg->dev, UDMEM_CLASS_REGION, name, flags);
	if (ret)
		goto err_free_reg;
	ret = udmem_region_query(reg, &q);
	if (ret)
		goto err_close_dev;
	reg->dev.size = q.size;
	reg->phys_addr = q.phys_addr;
	reg->map_type = q.map_type;
	reg->query_flags = q.flags;
	*out = reg;
	return 0;

err_close_dev:
	udmem_dev_close(&reg->dev);
err_free_reg:
	free(reg);
	return ret;
}

UDMEM_API void udmem_region_close(struct udmem_region *reg)
{
	if (!reg)
		return;
	udmem_dev_close(&reg->dev);
	free(reg);
}

UDMEM_API int udmem_region_list(char ***names)
{
	return udmem_class_list(UDMEM_CLASS_REGION, names);
}

UDMEM_API const char *udmem_region_name(const struct udmem_region *reg)
{
	return reg ? reg->dev.name : NULL;
}

UDMEM_API uint64_t udmem_region_size(const struct udmem_region *reg)
{
	return reg ? reg->dev.size : 0;
}

UDMEM_API uint64_t udmem_region_phys_addr(const struct udmem_region *reg)
{
	return reg ? reg->phys_addr : 0;
}

UDMEM_API uint64_t udmem_region_dma_addr(const struct udmem_region *reg)
{
	/* uiomem knows no bus translation: devices see the CPU address. */
	return reg ? reg->phys_addr : 0;
}

UDMEM_API int udmem_region_is_coherent(const struct udmem_region *reg)
{
	if (!reg)
		return -EINVAL;
	return reg->map_type != UIOMEM_MAP_CACHED;
}

UDMEM_API int udmem_region_fd(const struct udmem_region *reg)
{
	return reg ? reg->dev.fd : -EINVAL;
}

/*
 * The uiomem 1.1 ioctls where they say all we need: GET_SYNC for sync_mode,
 * GET_SYNC_OWNER for the owner.  The open needs UIOMEM_IOCTL_QUERY (our
 * extension) for the mapping type this file gets, which 1.1 does not
 * report, and syncs need UIOMEM_IOCTL_SYNC for a private 64-bit byte range
 * (docs/device-memory.md).
 */
UDMEM_API int udmem_region_sync_mode(struct udmem_region *reg)
{
	struct uiomem_ioctl_sync_args sa;
	int ret;

	if (!reg)
		return -EINVAL;
	memset(&sa, 0, sizeof(sa));
	ret = udmem_ioctl(reg->dev.fd, UIOMEM_IOCTL_GET_SYNC, &sa);
	return ret ? ret :
	       (int)UIOMEM_FLAGS_GET(sa.flags, UIOMEM_SYNC_ARGS_FLAGS_SYNC_MODE);
}

UDMEM_API int udmem_region_sync_owner(struct udmem_region *reg)
{
	uint32_t owner = 0;
	int ret;

	if (!reg)
		return -EINVAL;
	ret = udmem_ioctl(reg->dev.fd, UIOMEM_IOCTL_GET_SYNC_OWNER, &owner);
	return ret ? ret : (owner ? UDMEM_OWNER_DEVICE : UDMEM_OWNER_CPU);
}

UDMEM_API int udmem_region_map(struct udmem_region *reg, void **addr)
{
	return reg ? udmem_dev_map(&reg->dev, addr) : -EINVAL;
}

UDMEM_API int udmem_region_unmap(struct udmem_region *reg)
{
	return reg ? udmem_dev_unmap(&reg->dev) : -EINVAL;
}

UDMEM_API void *udmem_region_addr(struct udmem_region *reg)
{
	return reg ? udmem_dev_addr(&reg->dev) : NULL;
}

/* DMA-API direction -> DMA_BUF_IOCTL_SYNC-style access bits. */
static const uint32_t udmem_region_access[] = {
	[UDMEM_DIR_BIDIRECTIONAL] = UIOMEM_SYNC_RW,
	[UDMEM_DIR_TO_DEVICE] = UIOMEM_SYNC_WRITE,
	[UDMEM_DIR_FROM_DEVICE] = UIOMEM_SYNC_READ,
};

static int udmem_region_sync(struct udmem_region *reg, uint32_t when,
			     uint64_t offset, uint64_t size,
			     enum udmem_dir dir)
{
	struct uiomem_sync s;

	if (!reg || (unsigned int)dir > UDMEM_DIR_FROM_DEVICE ||
	    udmem_dev_range(&reg->dev, offset, &size))
		return -EINVAL;
	memset(&s, 0, sizeof(s));
	s.flags = when | udmem_region_access[dir];
	s.offset = offset;
	s.length = size;
	return udmem_ioctl(reg->dev.fd, UIOMEM_IOCTL_SYNC, &s);
}

UDMEM_API int udmem_region_sync_for_cpu(struct udmem_region *reg,
					uint64_t offset, uint64_t size,
					enum udmem_dir dir)
{
	return udmem_region_sync(reg, UIOMEM_SYNC_START, offset, size, dir);
}

UDMEM_API int udmem_region_sync_for_device(struct udmem_region *reg,
					   uint64_t offset, uint64_t size,
					   enum udmem_dir dir)
{
	return udmem_region_sync(reg, UIOMEM_SYNC_END, offset, size, dir);
}

UDMEM_API int udmem_region_export_dmabuf(struct udmem_region *reg, uint64_t offset,
					 uint64_t size, int fd_flags)
{
	struct uiomem_export e;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	int ret;

	if (!reg || fd_flags < 0)
		return -EINVAL;
	if (size == 0 && offset < reg->dev.size)
		size = (reg->dev.size - offset) & ~(page - 1);
	memset(&e, 0, sizeof(e));
	e.flags = (uint32_t)fd_flags;
	e.offset = offset;
	e.size = size;
	e.fd = -1;
	ret = udmem_ioctl(reg->dev.fd, UIOMEM_IOCTL_EXPORT, &e);
	if (ret)
		return ret;
	return e.fd < 0 ? -EIO : e.fd;
}
