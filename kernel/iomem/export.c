// SPDX-License-Identifier: GPL-2.0
/*
 * export.c - DMA-BUF export of a range of a region (UIOMEM_IOCTL_EXPORT).
 *
 * A region is device memory (block RAM, on-chip RAM, a BAR window): it has
 * no struct page, so nothing here hands out pages.  An importer's mapping is
 * a scatterlist whose entries carry DMA addresses only, each made by
 * dma_map_resource() for the importer's device (the bus address when the
 * device maps directly, an IOVA of its IOMMU domain otherwise), one entry
 * per GiB; sg_page() of every entry is NULL.  There is no vmap and no mmap:
 * importers that need pages, a kernel mapping or a user mapping of the
 * DMA-BUF get the dma-buf core's error (EINVAL) instead of a wrong answer.
 * begin/end_cpu_access maintain the CPU cache over the exported range, as
 * UIOMEM_IOCTL_SYNC does.
 *
 * Each export holds the region's device and the module.  Once the region
 * is removed, new mappings fail with ENODEV; mappings made before stay
 * until their importer unmaps them.
 */
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/fcntl.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/uiomem.h>

#include "compat.h"
#include "common/udmem_range.h"
#include "udmem_dma.h"
#include "uiomem.h"

#define UIOMEM_EXPORT_FD_FLAGS	(O_CLOEXEC | O_ACCMODE)
#define UIOMEM_SG_CHUNK		SZ_1G

/**
 * struct uiomem_dmabuf - one export
 * @um: the region (its device is held)
 * @base: offset of the range in the region
 * @len: length of the range
 * @writable: the DMA-BUF was exported for writing; a read-only one never
 *	invalidates (it could drop lines another writer dirtied): its CPU
 *	access brackets write back and invalidate instead
 */
struct uiomem_dmabuf {
	struct uiomem *um;
	u64 base;
	u64 len;
	bool writable;
};

/* Unmap the first @n entries of @sgt; they were mapped with dma_map_resource(). */
static void uiomem_export_unmap_n(struct device *dev, struct sg_table *sgt,
				  unsigned int n, enum dma_data_direction dir)
{
	struct scatterlist *sg;
	unsigned int i;

	for_each_sgtable_dma_sg(sgt, sg, i) {
		if (i >= n)
			break;
		dma_unmap_resource(dev, sg_dma_address(sg), sg_dma_len(sg), dir,
				   DMA_ATTR_SKIP_CPU_SYNC);
	}
}

static struct sg_table *uiomem_export_map(struct dma_buf_attachment *attach,
					  enum dma_data_direction dir)
{
	struct uiomem_dmabuf *exp = attach->dmabuf->priv;
	struct uiomem *um = exp->um;
	unsigned int nents = DIV_ROUND_UP_ULL(exp->len, UIOMEM_SG_CHUNK), i;
	struct scatterlist *sg;
	struct sg_table *sgt;
	phys_addr_t phys;
	u64 off = 0;
	bool dead;
	int ret;

	mutex_lock(&um->lock);
	dead = um->dead;
	mutex_unlock(&um->lock);
	if (dead)
		return ERR_PTR(-ENODEV);
	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	if (!sgt)
		return ERR_PTR(-ENOMEM);
	ret = sg_alloc_table(sgt, nents, GFP_KERNEL);
	if (ret)
		goto err_free_sgt;
	for_each_sgtable_sg(sgt, sg, i) {
		u32 len = min_t(u64, exp->len - off, UIOMEM_SG_CHUNK);
		dma_addr_t addr;

		phys = um->phys + exp->base + off;
		/* dma_map_resource() passes the physical address on as it is */
		if (!udmem_dma_reachable(attach->dev, phys, len, false))
			goto err_unreachable;
		/* Device memory: no CPU cache maintenance here (begin/end_cpu_access do it). */
		addr = dma_map_resource(attach->dev, phys, len, dir, DMA_ATTR_SKIP_CPU_SYNC);
		if (dma_mapping_error(attach->dev, addr))
			goto err_unreachable;
		/* No page: the entry is its DMA address and length only. */
		sg->length = len;
		sg_dma_address(sg) = addr;
		sg_dma_len(sg) = len;
		off += len;
	}
	return sgt;

err_unreachable:
	dev_dbg(&um->dev, "%pa: not mappable for %s\n", &phys, dev_name(attach->dev));
	uiomem_export_unmap_n(attach->dev, sgt, i, dir);
	ret = -EIO;
	sg_free_table(sgt);
err_free_sgt:
	kfree(sgt);
	return ERR_PTR(ret);
}

static void uiomem_export_unmap(struct dma_buf_attachment *attach,
				struct sg_table *sgt, enum dma_data_direction dir)
{
	uiomem_export_unmap_n(attach->dev, sgt, sgt->nents, dir);
	sg_free_table(sgt);
	kfree(sgt);
}

static void uiomem_export_release(struct dma_buf *dmabuf)
{
	struct uiomem_dmabuf *exp = dmabuf->priv;

	put_device(&exp->um->dev);
	kfree(exp);
}

static enum udmem_sync_dir uiomem_export_dir(enum dma_data_direction dir)
{
	switch (dir) {
	case DMA_TO_DEVICE:
		return UDMEM_SYNC_TO_DEVICE;
	case DMA_FROM_DEVICE:
		return UDMEM_SYNC_FROM_DEVICE;
	default:
		return UDMEM_SYNC_BIDIRECTIONAL;
	}
}

/* CPU access brackets over [base, base + len) of the export; -ENODEV after removal. */
static int uiomem_export_sync(struct uiomem_dmabuf *exp, u64 base, u64 len, bool for_device,
			      enum dma_data_direction dir)
{
	struct uiomem *um = exp->um;
	int ret;

	base += exp->base;
	mutex_lock(&um->lock);
	/* The sync checker: may the CPU take what a sync of the region's gave away? */
	if (unlikely(um->sync_check) && !for_device && !um->dead) {
		ret = uiomem_chk_begin_cpu(um, base, len);
		if (ret)
			goto out;
	}
	if (!exp->writable)
		ret = uiomem_sync_flush(um, base, len, for_device);
	else if (for_device)
		ret = uiomem_sync_for_device(um, base, len, uiomem_export_dir(dir));
	else
		ret = uiomem_sync_for_cpu(um, base, len, uiomem_export_dir(dir));
	if (!ret && unlikely(um->sync_check))
		uiomem_chk_sync(um, for_device, base, len, uiomem_export_dir(dir),
				for_device ? "dma-buf end_cpu_access" :
				"dma-buf begin_cpu_access", for_device);
out:
	mutex_unlock(&um->lock);
	return ret;
}

static int uiomem_export_begin_cpu(struct dma_buf *dmabuf, enum dma_data_direction dir)
{
	struct uiomem_dmabuf *exp = dmabuf->priv;

	return uiomem_export_sync(exp, 0, exp->len, false, dir);
}

static int uiomem_export_end_cpu(struct dma_buf *dmabuf, enum dma_data_direction dir)
{
	struct uiomem_dmabuf *exp = dmabuf->priv;

	return uiomem_export_sync(exp, 0, exp->len, true, dir);
}

static const struct dma_buf_ops uiomem_export_ops;

/* See udmem_dma.h: a range of the export, for u-dma-chan's transfers. */
int uiomem_export_sync_range(struct dma_buf *dmabuf, u64 offset, u64 len, bool for_device,
			     enum dma_data_direction dir)
{
	struct uiomem_dmabuf *exp;

	if (dmabuf->ops != &uiomem_export_ops)
		return -EOPNOTSUPP;
	exp = dmabuf->priv;
	if (!udmem_range_ok(offset, len, exp->len))
		return -EINVAL;
	if (!len)
		return 0;
	return uiomem_export_sync(exp, offset, len, for_device, dir);
}
EXPORT_SYMBOL_GPL(uiomem_export_sync_range);

static const struct dma_buf_ops uiomem_export_ops = {
	.map_dma_buf = uiomem_export_map,
	.unmap_dma_buf = uiomem_export_unmap,
	.release = uiomem_export_release,
	.begin_cpu_access = uiomem_export_begin_cpu,
	.end_cpu_access = uiomem_export_end_cpu,
};

/**
 * uiomem_export() - export a range of a region as a dma-buf
 * @um: the region
 * @file: the /dev file asking; a writable export needs a writable file
 * @args: in: flags, offset, size; out: fd
 *
 * Return: 0; -EINVAL for unknown flags, O_ACCMODE 3, non-zero reserved
 * fields or a range that is empty, not page-aligned or not in the region;
 * -EACCES for a writable export of a file not open for writing; -ENODEV
 * after removal; -EOPNOTSUPP when the region is RAM with struct pages on a
 * kernel whose dma_map_resource() refuses RAM (before 5.14: use u-dma-buf
 * for such memory); or the dma-buf core's error.
 */
int uiomem_export(struct uiomem *um, struct file *file, struct uiomem_export *args)
{
	DEFINE_DMA_BUF_EXPORT_INFO(info);
	struct uiomem_dmabuf *exp;
	struct dma_buf *dmabuf;
	int fd_flags, fd;

	if (args->flags & ~UIOMEM_EXPORT_FD_FLAGS || args->reserved[0] || args->reserved[1])
		return -EINVAL;
	if ((args->flags & O_ACCMODE) == O_ACCMODE)
		return -EINVAL;
	if ((args->flags & O_ACCMODE) != O_RDONLY && !(file->f_mode & FMODE_WRITE))
		return -EACCES;
	if (!args->size || !PAGE_ALIGNED(args->offset) || !PAGE_ALIGNED(args->size) ||
	    !udmem_range_ok(args->offset, args->size, um->size))
		return -EINVAL;
	if (UDMEM_MAP_RESOURCE_REFUSES_RAM && pfn_valid(PHYS_PFN(um->phys + args->offset)))
		return -EOPNOTSUPP;

	exp = kzalloc(sizeof(*exp), GFP_KERNEL);
	if (!exp)
		return -ENOMEM;
	mutex_lock(&um->lock);
	if (um->dead) {
		mutex_unlock(&um->lock);
		kfree(exp);
		return -ENODEV;
	}
	get_device(&um->dev);
	mutex_unlock(&um->lock);
	exp->um = um;
	exp->base = args->offset;
	exp->len = args->size;
	exp->writable = (args->flags & O_ACCMODE) != O_RDONLY;
	fd_flags = args->flags & UIOMEM_EXPORT_FD_FLAGS;

	info.exp_name = dev_name(&um->dev);
	info.owner = THIS_MODULE;
	info.ops = &uiomem_export_ops;
	info.size = args->size;
	info.flags = fd_flags;
	info.priv = exp;
	dmabuf = dma_buf_export(&info);
	if (IS_ERR(dmabuf)) {
		put_device(&um->dev);
		kfree(exp);
		return PTR_ERR(dmabuf);
	}
	fd = dma_buf_fd(dmabuf, fd_flags);
	if (fd < 0) {
		/* The release callback drops the device. */
		dma_buf_put(dmabuf);
		return fd;
	}
	args->fd = fd;
	return 0;
}

UDMEM_IMPORT_NS_DMA_BUF();
