// SPDX-License-Identifier: GPL-2.0
/*
 * u-dma-buf: import of a foreign dma-buf (U_DMA_BUF_IOCTL_IMPORT).
 *
 * The dma-buf is attached to the buffer's DMA device and mapped; when the
 * mapping is one DMA range (one entry, or entries an IOMMU made adjacent)
 * its address and size go back to user space with a new "import" file that
 * holds the attachment, the mapping and a reference on the buffer until it
 * is closed.  IMPORT_SYNC on that file brackets CPU access with the
 * exporter's begin/end_cpu_access.
 *
 * The mapping is made for the buffer's DMA device, whose DMA setup (IOMMU
 * domain, dma-ranges) goes when its driver is unbound.  So the removal of
 * the buffer unmaps and detaches every import while that setup is still
 * there; the import file stays until it is closed, holding the dma-buf
 * only (IMPORT_SYNC still reaches the exporter).
 */
#include <linux/anon_inodes.h>
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/fcntl.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <uapi/linux/dma-buf.h>

#include "compat.h"
#include "udmabuf.h"

/**
 * struct udmabuf_import - one import file
 * @buf: the importing buffer (referenced)
 * @dmabuf: the dma-buf (referenced)
 * @attach: the attachment to buf->dma_dev; NULL once unmapped by a removal
 * @sgt: its mapping
 * @dir: the mapping's direction
 * @node: in buf->imports while mapped
 */
struct udmabuf_import {
	struct udmabuf *buf;
	struct dma_buf *dmabuf;
	struct dma_buf_attachment *attach;
	struct sg_table *sgt;
	enum dma_data_direction dir;
	struct list_head node;
};

/*
 * Serializes mapping an import, adding it to and taking it off its
 * buffer's list, and unmapping it.  Taken before the dma-buf's reservation
 * lock (the map and unmap calls take that), never inside it.
 */
static DEFINE_MUTEX(udmabuf_import_lock);

/* The mapping as one DMA range: its start, or -EOPNOTSUPP. */
static int udmabuf_import_range(struct sg_table *sgt, u64 size, dma_addr_t *addr)
{
	struct scatterlist *sg;
	dma_addr_t next = 0;
	u64 total = 0;
	unsigned int i;

	for_each_sgtable_dma_sg(sgt, sg, i) {
		if (i && sg_dma_address(sg) != next)
			return -EOPNOTSUPP;
		if (!i)
			*addr = sg_dma_address(sg);
		next = sg_dma_address(sg) + sg_dma_len(sg);
		total += sg_dma_len(sg);
	}
	return total >= size ? 0 : -EOPNOTSUPP;
}

/* Unmap and detach a mapped import, off its list.  Import lock held. */
static void udmabuf_import_unmap(struct udmabuf_import *imp)
{
	lockdep_assert_held(&udmabuf_import_lock);
	list_del_init(&imp->node);
	dma_buf_unmap_attachment_unlocked(imp->attach, imp->sgt, imp->dir);
	dma_buf_detach(imp->dmabuf, imp->attach);
	imp->sgt = NULL;
	imp->attach = NULL;
}

/**
 * udmabuf_import_unmap_all() - unmap a buffer's imports at its removal
 * @buf: the buffer, detached (no new import maps from now on)
 *
 * Called before the buffer's device loses its DMA setup.
 */
void udmabuf_import_unmap_all(struct udmabuf *buf)
{
	struct udmabuf_import *imp, *next;

	mutex_lock(&udmabuf_import_lock);
	list_for_each_entry_safe(imp, next, &buf->imports, node) {
		udmabuf_import_unmap(imp);
		if (buf->debug_export)
			dev_info(buf->dma_dev, "%s: import unmapped at removal\n", buf->name);
	}
	mutex_unlock(&udmabuf_import_lock);
}

static void udmabuf_import_free(struct udmabuf_import *imp)
{
	mutex_lock(&udmabuf_import_lock);
	if (imp->attach)
		udmabuf_import_unmap(imp);
	mutex_unlock(&udmabuf_import_lock);
	dma_buf_put(imp->dmabuf);
	udmabuf_put(imp->buf);
	kfree(imp);
}

static int udmabuf_import_release(struct inode *inode, struct file *file)
{
	udmabuf_import_free(file->private_data);
	return 0;
}

static long udmabuf_import_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct udmabuf_import *imp = file->private_data;
	struct u_dma_buf_ioctl_import_sync s;
	enum dma_data_direction dir;

	if (cmd != U_DMA_BUF_IOCTL_IMPORT_SYNC)
		return -ENOTTY;
	if (copy_from_user(&s, (void __user *)arg, sizeof(s)))
		return -EFAULT;
	if (s.flags & ~(u64)DMA_BUF_SYNC_VALID_FLAGS_MASK || !(s.flags & DMA_BUF_SYNC_RW))
		return -EINVAL;
	switch (s.flags & DMA_BUF_SYNC_RW) {
	case DMA_BUF_SYNC_READ:
		dir = DMA_FROM_DEVICE;
		break;
	case DMA_BUF_SYNC_WRITE:
		dir = DMA_TO_DEVICE;
		break;
	default:
		dir = DMA_BIDIRECTIONAL;
		break;
	}
	if (s.flags & DMA_BUF_SYNC_END)
		return dma_buf_end_cpu_access(imp->dmabuf, dir);
	return dma_buf_begin_cpu_access(imp->dmabuf, dir);
}

static const struct file_operations udmabuf_import_fops = {
	.owner = THIS_MODULE,
	.release = udmabuf_import_release,
	.unlocked_ioctl = udmabuf_import_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

/**
 * udmabuf_import() - attach and map a dma-buf for a buffer's device
 * @buf: the buffer whose DMA device maps the dma-buf
 * @args: in: fd, flags; out: size, addr, import_fd
 *
 * Return: 0; -EINVAL for bad flags, reserved bits or an fd that is not a
 * dma-buf, -EBADF for a bad fd, -EOPNOTSUPP when the dma-buf is not one
 * DMA range for the device, -ENODEV when the buffer is being removed or
 * the device's DMA setup is gone, or the exporter's error.
 */
int udmabuf_import(struct udmabuf *buf, struct u_dma_buf_ioctl_import_args *args)
{
	struct udmabuf_import *imp;
	dma_addr_t addr = 0;
	struct file *file;
	int ret, fd;

	if (args->flags & ~U_DMA_BUF_IMPORT_FLAGS_DIR_MASK ||
	    (args->flags & U_DMA_BUF_IMPORT_FLAGS_DIR_MASK) > DMA_FROM_DEVICE ||
	    args->reserved)
		return -EINVAL;
	if (READ_ONCE(buf->dma_gone))
		return -ENODEV;
	imp = kzalloc(sizeof(*imp), GFP_KERNEL);
	if (!imp)
		return -ENOMEM;
	INIT_LIST_HEAD(&imp->node);
	imp->dir = args->flags & U_DMA_BUF_IMPORT_FLAGS_DIR_MASK;
	imp->dmabuf = dma_buf_get(args->fd);
	if (IS_ERR(imp->dmabuf)) {
		ret = PTR_ERR(imp->dmabuf);
		goto err_free;
	}
	/*
	 * Under the import lock from the check on: a removal either sees
	 * this import on the list and unmaps it, or comes first and is seen.
	 */
	mutex_lock(&udmabuf_import_lock);
	if (READ_ONCE(buf->detached)) {
		ret = -ENODEV;
		goto err_unlock;
	}
	imp->attach = dma_buf_attach(imp->dmabuf, buf->dma_dev);
	if (IS_ERR(imp->attach)) {
		ret = PTR_ERR(imp->attach);
		goto err_unlock;
	}
	imp->sgt = dma_buf_map_attachment_unlocked(imp->attach, imp->dir);
	if (IS_ERR(imp->sgt)) {
		ret = PTR_ERR(imp->sgt);
		goto err_detach;
	}
	ret = udmabuf_import_range(imp->sgt, imp->dmabuf->size, &addr);
	if (ret)
		goto err_unmap;
	/* The file may be closed as soon as it is installed: results first. */
	args->size = imp->dmabuf->size;
	args->addr = addr;
	kref_get(&buf->ref);
	imp->buf = buf;
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		ret = fd;
		goto err_put_buf;
	}
	file = anon_inode_getfile("[u-dma-buf-import]", &udmabuf_import_fops, imp, O_RDWR);
	if (IS_ERR(file)) {
		ret = PTR_ERR(file);
		goto err_put_fd;
	}
	/*
	 * Published with the import lock held, while still mapped: a removal
	 * that comes later unmaps it through the list; one cannot slip in
	 * between the mapping and the return and leave user space an
	 * address nobody maps any more.
	 */
	list_add(&imp->node, &buf->imports);
	fd_install(fd, file);
	mutex_unlock(&udmabuf_import_lock);
	args->import_fd = fd;
	if (buf->debug_export)
		dev_info(buf->dma_dev, "%s: import of %llu bytes at %pad fd %d\n",
			 buf->name, args->size, &addr, fd);
	return 0;

err_put_fd:
	put_unused_fd(fd);
err_put_buf:
	imp->buf = NULL;
	udmabuf_put(buf);
err_unmap:
	dma_buf_unmap_attachment_unlocked(imp->attach, imp->sgt, imp->dir);
err_detach:
	dma_buf_detach(imp->dmabuf, imp->attach);
err_unlock:
	mutex_unlock(&udmabuf_import_lock);
	dma_buf_put(imp->dmabuf);
err_free:
	kfree(imp);
	return ret;
}
