// SPDX-License-Identifier: GPL-2.0
/*
 * u-dma-buf: DMA-BUF export of a page-aligned range (U_DMA_BUF_IOCTL_EXPORT).
 *
 * Each export holds a reference on the buffer, so the memory outlives the
 * buffer's removal until the last dma-buf user is gone.  Importers get the
 * range as one scatterlist entry per 1 GiB, or per the largest segment
 * their device takes (dma_get_max_seg_size()), CPU access brackets sync just
 * the exported range, and mmap follows the /dev/<name> rules, with O_SYNC
 * given at export time standing in for the file's O_SYNC.
 */
#include <linux/dma-buf.h>
#include <linux/dma-direct.h>
#include <linux/dma-mapping.h>
#include <linux/fcntl.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "compat.h"
#include "common/udmem_range.h"
#include "udmabuf.h"
#include "udmem_dma.h"

#define UDMABUF_EXPORT_FD_FLAGS	(O_CLOEXEC | O_SYNC | O_ACCMODE)
#define UDMABUF_SG_CHUNK	SZ_1G

struct udmabuf_export {
	struct udmabuf_view view;
	struct address_space *mapping;	/* the dma-buf file's, for the sync checker */
	bool force_sync;
	bool writable;		/* exported for writing (not O_RDONLY) */
};

/*
 * An importer's mapping is made with DMA_ATTR_SKIP_CPU_SYNC and synced
 * apart (udmabuf_export_map/unmap), as DRM's exporters of coherent memory
 * do.  The memory is the buffer's own coherent allocation, which the DMA
 * API debugger tracks as a live mapping: a second, streaming mapping of
 * its cache lines for a device that may write is "overlapping mappings
 * aren't supported" unless the mapping says it syncs by itself.  The
 * cache maintenance is the same: for the device after mapping, for the
 * CPU before unmapping; none for memory outside the linear map.
 */
static void udmabuf_export_sync_sgt(struct udmabuf *buf, struct device *dev,
				    struct sg_table *sgt, enum dma_data_direction dir,
				    bool for_device)
{
	if (buf->no_cpu_sync)
		return;
	if (for_device)
		dma_sync_sgtable_for_device(dev, sgt, dir);
	else
		dma_sync_sgtable_for_cpu(dev, sgt, dir);
}

/*
 * The pages of [base, base + len) of the whole buffer's table, in entries
 * of at most seg bytes: the DMA API describes an allocation from its start
 * only (an IOMMU allocation finds its page array by the start address,
 * whatever address it is given).
 */
static int udmabuf_export_sub_sgt(struct sg_table *whole, u64 base, u64 len,
				  unsigned int seg, struct sg_table *sgt)
{
	struct scatterlist *sg, *out;
	u64 pos = 0, end = base + len;
	unsigned int i, nents = 0;
	int ret;

	for_each_sgtable_sg(whole, sg, i) {
		u64 from = max(pos, base), to = min(pos + sg->length, end);

		if (from < to)
			nents += DIV_ROUND_UP_ULL(to - from, seg);
		pos += sg->length;
	}
	if (pos < end || !nents)
		return -EINVAL;
	ret = sg_alloc_table(sgt, nents, GFP_KERNEL);
	if (ret)
		return ret;
	out = sgt->sgl;
	pos = 0;
	for_each_sgtable_sg(whole, sg, i) {
		u64 from = max(pos, base), to = min(pos + sg->length, end);

		while (from < to) {
			u64 skip = from - pos + sg->offset;
			unsigned int n = min_t(u64, to - from, seg);

			sg_set_page(out, udmem_nth_page(sg_page(sg), skip >> PAGE_SHIFT), n,
				    offset_in_page(skip));
			out = sg_next(out);
			from += n;
		}
		pos += sg->length;
	}
	return 0;
}

/* Memory that is not one run of pfns: the DMA API's pages for it. */
static int udmabuf_export_fill_sgt_dma(struct udmabuf_export *exp, unsigned int seg,
				       struct sg_table *sgt)
{
	struct udmabuf *buf = exp->view.buf;
	struct sg_table whole;
	int ret;

	/* The exporter's DMA setup may be gone with its driver. */
	if (READ_ONCE(buf->dma_gone))
		return -ENODEV;
	ret = dma_get_sgtable(buf->dma_dev, &whole, buf->virt, buf->dma_addr,
			      buf->alloc_size);
	if (ret)
		return ret;
	ret = udmabuf_export_sub_sgt(&whole, exp->view.base, exp->view.len, seg, sgt);
	sg_free_table(&whole);
	return ret;
}

/* The table of the range, in entries of at most seg bytes (page multiple). */
static int udmabuf_export_fill_sgt(struct udmabuf_export *exp, unsigned int seg,
				   struct sg_table *sgt)
{
	struct udmabuf *buf = exp->view.buf;
	unsigned long pfn = buf->pfn + (exp->view.base >> PAGE_SHIFT);
	u64 left = exp->view.len;
	struct scatterlist *sg;
	unsigned int nents;
	int ret;

	if (!buf->pfn_ok || !pfn_valid(pfn))
		return udmabuf_export_fill_sgt_dma(exp, seg, sgt);
	nents = DIV_ROUND_UP_ULL(left, seg);
	ret = sg_alloc_table(sgt, nents, GFP_KERNEL);
	if (ret)
		return ret;
	for (sg = sgt->sgl; sg; sg = sg_next(sg)) {
		unsigned int len = min_t(u64, left, seg);

		sg_set_page(sg, pfn_to_page(pfn), len, 0);
		pfn += len >> PAGE_SHIFT;
		left -= len;
	}
	return 0;
}

/*
 * An importer on the buffer's own device: the allocation is already mapped
 * for it, one DMA range from buf->dma_addr.  Give each entry its part of
 * that range instead of mapping the memory a second time for the same
 * device, which the DMA API debugger cannot tell from the allocation (a
 * sync of the range then finds two candidates, and reports memory "it
 * has not allocated").  The cache maintenance is the buffer's own sync.
 */
static bool udmabuf_export_own_dev(struct udmabuf *buf, struct device *dev)
{
	return dev == buf->dma_dev;
}

static void udmabuf_export_own_sync(struct udmabuf_export *exp, enum dma_data_direction dir,
				    bool for_device)
{
	struct udmabuf *buf = exp->view.buf;
	dma_addr_t addr = buf->dma_addr + exp->view.base;

	if (buf->no_cpu_sync || READ_ONCE(buf->dma_gone))
		return;
	if (for_device)
		dma_sync_single_for_device(buf->dma_dev, addr, exp->view.len, dir);
	else
		dma_sync_single_for_cpu(buf->dma_dev, addr, exp->view.len, dir);
}

/*
 * The range is one DMA range for the buffer's own device, also where its
 * pages are not contiguous (behind an IOMMU): give it as one segment, as
 * mapping it through the IOMMU would have merged it, or as one segment per
 * entry where it is too long for one.
 */
static void udmabuf_export_own_map(struct udmabuf_export *exp, struct sg_table *sgt)
{
	dma_addr_t addr = exp->view.buf->dma_addr + exp->view.base;
	bool one = exp->view.len <= UINT_MAX;
	struct scatterlist *sg;
	unsigned int i;

	for_each_sgtable_sg(sgt, sg, i) {
		sg_dma_address(sg) = one && i ? 0 : addr;
		sg_dma_len(sg) = one ? (i ? 0 : exp->view.len) : sg->length;
		addr += sg->length;
	}
	sgt->nents = one ? 1 : sgt->orig_nents;
}

/*
 * Can @dev reach every page of @sgt where it lies, without a bounce buffer
 * (udmem_dma_reachable())?  A DMA-BUF is shared memory: an importer that
 * would get a bounce slot instead is refused.
 */
static bool udmabuf_export_reachable(struct device *dev, struct sg_table *sgt)
{
	struct scatterlist *sg;
	unsigned int i;

	for_each_sgtable_sg(sgt, sg, i)
		if (!udmem_dma_reachable(dev, phys_to_dma(dev, sg_phys(sg)), sg->length, true))
			return false;
	return true;
}

/*
 * Count an importer's mapping, which the memory must outlive
 * (udmabuf_free_early()); none once the memory went at the unbind.
 */
static int udmabuf_export_map_get(struct udmabuf *buf)
{
	int ret = 0;

	mutex_lock(&buf->map_lock);
	if (buf->revoked)
		ret = -ENODEV;
	else
		buf->export_maps++;
	mutex_unlock(&buf->map_lock);
	return ret;
}

static void udmabuf_export_map_put(struct udmabuf *buf)
{
	mutex_lock(&buf->map_lock);
	buf->export_maps--;
	mutex_unlock(&buf->map_lock);
}

static struct sg_table *udmabuf_export_map(struct dma_buf_attachment *attach,
					   enum dma_data_direction dir)
{
	struct udmabuf_export *exp = attach->dmabuf->priv;
	bool own = udmabuf_export_own_dev(exp->view.buf, attach->dev);
	unsigned int seg = UDMABUF_SG_CHUNK;
	struct sg_table *sgt;
	int ret;

	/* A device may not write through a read-only export (as mmap may not). */
	if (!exp->writable && dir == DMA_FROM_DEVICE)
		return ERR_PTR(-EACCES);

	/*
	 * Another device's mapping: entries no longer than a segment it
	 * takes, as it declares (64 KiB unless its driver says otherwise;
	 * vivid's frames are longer, and the DMA API debugger reports the
	 * mapping of such an entry).  The own device gets its range as one
	 * (udmabuf_export_own_map).
	 */
	if (!own) {
		seg = min_t(unsigned int, seg, dma_get_max_seg_size(attach->dev));
		seg = max_t(unsigned int, PAGE_SIZE, seg & PAGE_MASK);
	}
	ret = udmabuf_export_map_get(exp->view.buf);
	if (ret)
		return ERR_PTR(ret);
	ret = -ENOMEM;
	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	if (!sgt)
		goto err_put;
	ret = udmabuf_export_fill_sgt(exp, seg, sgt);
	if (ret)
		goto err_free_sgt;
	if (own) {
		udmabuf_export_own_map(exp, sgt);
		udmabuf_export_own_sync(exp, dir, true);
		return sgt;
	}
	if (!udmabuf_export_reachable(attach->dev, sgt)) {
		dev_dbg(exp->view.buf->dma_dev, "export not reachable by %s without bouncing\n",
			dev_name(attach->dev));
		ret = -EIO;
		goto err_free_table;
	}
	ret = dma_map_sgtable(attach->dev, sgt, dir, DMA_ATTR_SKIP_CPU_SYNC);
	if (ret)
		goto err_free_table;
	udmabuf_export_sync_sgt(exp->view.buf, attach->dev, sgt, dir, true);
	return sgt;

err_free_table:
	sg_free_table(sgt);
err_free_sgt:
	kfree(sgt);
err_put:
	udmabuf_export_map_put(exp->view.buf);
	return ERR_PTR(ret);
}

static void udmabuf_export_unmap(struct dma_buf_attachment *attach,
				 struct sg_table *sgt, enum dma_data_direction dir)
{
	struct udmabuf_export *exp = attach->dmabuf->priv;

	if (udmabuf_export_own_dev(exp->view.buf, attach->dev)) {
		udmabuf_export_own_sync(exp, dir, false);
	} else {
		udmabuf_export_sync_sgt(exp->view.buf, attach->dev, sgt, dir, false);
		dma_unmap_sgtable(attach->dev, sgt, dir, DMA_ATTR_SKIP_CPU_SYNC);
	}
	sg_free_table(sgt);
	kfree(sgt);
	udmabuf_export_map_put(exp->view.buf);
}

static void udmabuf_export_release(struct dma_buf *dmabuf)
{
	struct udmabuf_export *exp = dmabuf->priv;
	struct udmabuf *buf = exp->view.buf;

	if (exp->mapping)
		udmabuf_own_map_del(buf, exp->mapping, exp->view.base);
	mutex_lock(&buf->lock);
	buf->exports--;
	if (buf->debug_export)
		dev_info(buf->dma_dev, "%s: export released\n", buf->name);
	mutex_unlock(&buf->lock);
	kfree(exp);
	udmabuf_put(buf);
}

/*
 * CPU access brackets of [base, base + len) of the export; -ENODEV once
 * the device's DMA setup may be gone, -EBADF for an invalidating one on a
 * read-only export.
 */
static int udmabuf_export_sync(struct udmabuf_export *exp, u64 base, u64 len,
			       bool for_device, enum dma_data_direction dir)
{
	struct udmabuf *buf = exp->view.buf;
	int ret;

	/*
	 * An invalidate drops the dirty lines of every writer of the memory:
	 * a write, refused through a read-only export as through a read-only
	 * /dev file.  dma_data_direction and sync_direction share 0..2.
	 */
	if (!exp->writable && udmem_sync_invalidates(for_device, dir))
		return -EBADF;
	base += exp->view.base;
	mutex_lock(&buf->lock);
	/* The sync checker: not while a sync of the buffer's own gave it away. */
	if (unlikely(buf->sync_check) && !for_device)
		ret = udmabuf_own_begin_cpu(buf, base, len);
	else
		ret = 0;
	if (!ret)
		ret = udmabuf_sync_dma(buf, for_device, base, len, dir);
	if (!ret && unlikely(buf->sync_check))
		udmabuf_own_sync(buf, for_device, base, len, dir, UDMABUF_VIA_DMABUF);
	mutex_unlock(&buf->lock);
	return ret;
}

static const struct dma_buf_ops udmabuf_export_ops;

/* See udmem_dma.h: a range of the export, for u-dma-chan's transfers. */
int udmabuf_export_sync_range(struct dma_buf *dmabuf, u64 offset, u64 len,
			      bool for_device, enum dma_data_direction dir)
{
	struct udmabuf_export *exp;

	if (dmabuf->ops != &udmabuf_export_ops)
		return -EOPNOTSUPP;
	exp = dmabuf->priv;
	if (!udmem_range_ok(offset, len, exp->view.len))
		return -EINVAL;
	if (!len)
		return 0;
	return udmabuf_export_sync(exp, offset, len, for_device, dir);
}
EXPORT_SYMBOL_GPL(udmabuf_export_sync_range);

static int udmabuf_export_begin_cpu(struct dma_buf *dmabuf, enum dma_data_direction dir)
{
	struct udmabuf_export *exp = dmabuf->priv;

	return udmabuf_export_sync(exp, 0, exp->view.len, false, dir);
}

static int udmabuf_export_end_cpu(struct dma_buf *dmabuf, enum dma_data_direction dir)
{
	struct udmabuf_export *exp = dmabuf->priv;

	return udmabuf_export_sync(exp, 0, exp->view.len, true, dir);
}

static int udmabuf_export_mmap(struct dma_buf *dmabuf, struct vm_area_struct *vma)
{
	struct udmabuf_export *exp = dmabuf->priv;

	return udmabuf_mmap_range(&exp->view, vma, exp->force_sync);
}

/*
 * A vmap is not counted back (no vunmap callback here): once vmapped, the
 * memory is kept past its parent's unbind, as before (udmabuf_free_early()).
 */
static int udmabuf_export_vmap(struct dma_buf *dmabuf, struct iosys_map *map)
{
	struct udmabuf_export *exp = dmabuf->priv;
	struct udmabuf *buf = exp->view.buf;
	int ret = 0;

	mutex_lock(&buf->map_lock);
	if (buf->revoked) {
		ret = -ENODEV;
	} else {
		buf->vmapped = true;
		iosys_map_set_vaddr(map, buf->virt + exp->view.base);
	}
	mutex_unlock(&buf->map_lock);
	return ret;
}

UDMEM_DEFINE_DMA_BUF_VMAP(udmabuf_export_vmap);

static const struct dma_buf_ops udmabuf_export_ops = {
	.map_dma_buf = udmabuf_export_map,
	.unmap_dma_buf = udmabuf_export_unmap,
	.release = udmabuf_export_release,
	.begin_cpu_access = udmabuf_export_begin_cpu,
	.end_cpu_access = udmabuf_export_end_cpu,
	.mmap = udmabuf_export_mmap,
	.vmap = UDMEM_DMA_BUF_VMAP_FN(udmabuf_export_vmap),
};

/**
 * udmabuf_export() - export a range of a buffer as a dma-buf
 * @buf: the buffer
 * @file: the /dev file asking; a writable export needs a writable file
 * @args: in: flags, offset, size; out: fd, addr
 *
 * Return: 0, -EINVAL for bad flags or range, -EACCES for a writable export
 * of a read-only file, or the dma-buf core's error.
 */
int udmabuf_export(struct udmabuf *buf, struct file *file,
		   struct u_dma_buf_ioctl_export_args *args)
{
	DEFINE_DMA_BUF_EXPORT_INFO(info);
	struct udmabuf_export *exp;
	struct dma_buf *dmabuf;
	u64 flags = args->flags;
	int fd_flags, fd;

	if (flags & ~(u64)UDMABUF_EXPORT_FD_FLAGS)
		return -EINVAL;
	if ((flags & O_ACCMODE) == O_ACCMODE)
		return -EINVAL;
	if ((flags & O_ACCMODE) != O_RDONLY && !(file->f_mode & FMODE_WRITE))
		return -EACCES;
	if (!args->size || !PAGE_ALIGNED(args->offset) || !PAGE_ALIGNED(args->size) ||
	    !udmem_range_ok(args->offset, args->size, buf->size))
		return -EINVAL;

	exp = kzalloc(sizeof(*exp), GFP_KERNEL);
	if (!exp)
		return -ENOMEM;
	exp->view.buf = buf;
	exp->view.base = args->offset;
	exp->view.len = args->size;
	exp->force_sync = flags & O_SYNC;
	exp->writable = (flags & O_ACCMODE) != O_RDONLY;
	fd_flags = flags & (O_CLOEXEC | O_ACCMODE);

	info.exp_name = buf->name;
	info.owner = THIS_MODULE;
	info.ops = &udmabuf_export_ops;
	info.size = args->size;
	info.flags = fd_flags;
	info.priv = exp;

	kref_get(&buf->ref);
	dmabuf = dma_buf_export(&info);
	if (IS_ERR(dmabuf)) {
		kfree(exp);
		udmabuf_put(buf);
		return PTR_ERR(dmabuf);
	}
	mutex_lock(&buf->lock);
	buf->exports++;
	mutex_unlock(&buf->lock);
	/* The sync checker removes device-owned pages from its mappings too. */
	fd = udmabuf_own_map_add(buf, dmabuf->file->f_mapping, exp->view.base,
				 exp->view.len);
	if (fd) {
		dma_buf_put(dmabuf);
		return fd;
	}
	exp->mapping = dmabuf->file->f_mapping;

	fd = dma_buf_fd(dmabuf, fd_flags);
	if (fd < 0) {
		/* The release callback drops the export and the reference. */
		dma_buf_put(dmabuf);
		return fd;
	}
	args->fd = fd;
	args->addr = buf->dma_addr + args->offset;
	if (buf->debug_export)
		dev_info(buf->dma_dev, "%s: export offset %llu size %llu fd %d\n",
			 buf->name, args->offset, args->size, fd);
	return 0;
}

UDMEM_IMPORT_NS_DMA_BUF();
