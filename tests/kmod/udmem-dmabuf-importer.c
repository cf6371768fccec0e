// SPDX-License-Identifier: GPL-2.0
/*
 * udmem-dmabuf-importer - a DMA-BUF importer for the udmem tests.
 *
 * Each open file of /dev/udmem-dmabuf-importer holds at most one attachment:
 * UDI_ATTACH attaches a dma-buf to a chosen device (a PCI or platform device
 * by name), maps it and reports the mapped scatterlist (entries, the first
 * DMA address); the mapping stays until UDI_DETACH or close, so a DMA peer
 * can use the address meanwhile.  UDI_READ and UDI_WRITE copy a range through
 * the dma-buf's vmap between begin_cpu_access() and end_cpu_access().  The
 * device "mask/<bits>" is one of the importer's own, made for the attachment:
 * a device that can address only <bits> bits.  The ioctls are in
 * udmem-dmabuf-importer.h.  UDI_CYCLE maps and unmaps the attachment again,
 * as an importer does per block, for `udmem bench` to count and time.
 * Test-only: never installed.
 */
#include <linux/dma-buf.h>
#include <linux/dma-direction.h>
#include <linux/dma-map-ops.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/pci.h>
#include <linux/platform_device.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "compat.h"
#include "udmem-dmabuf-importer.h"

struct udi_file {
	struct mutex lock;		/* the attachment below */
	struct device *dev;		/* referenced while attached */
	struct platform_device *mask_pdev;	/* dev, when "mask/<bits>" */
	struct dma_buf *dmabuf;
	struct dma_buf_attachment *attach;
	struct sg_table *sgt;
	enum dma_data_direction dir;
};

/*
 * An unbound platform device of our own whose DMA mask is @bits wide: an
 * importer that cannot reach memory above it.  The mask is set as is, not
 * with dma_set_mask(), which refuses masks below the lowest zone, so that
 * every guest has memory beyond it.
 */
static struct device *udi_mask_device(struct udi_file *f, const char *bits)
{
	struct platform_device *pdev;
	unsigned int n;

	if (kstrtouint(bits, 10, &n) || n < 12 || n > 64)
		return NULL;
	pdev = platform_device_register_simple("udmem-importer-mask", PLATFORM_DEVID_AUTO,
					       NULL, 0);
	if (IS_ERR(pdev))
		return NULL;
	pdev->dev.coherent_dma_mask = DMA_BIT_MASK(n);
	if (!pdev->dev.dma_mask)
		pdev->dev.dma_mask = &pdev->dev.coherent_dma_mask;
	*pdev->dev.dma_mask = DMA_BIT_MASK(n);
	f->mask_pdev = pdev;
	return get_device(&pdev->dev);
}

static struct device *udi_find_device(struct udi_file *f, const char *spec)
{
	if (!strncmp(spec, "mask/", 5))
		return udi_mask_device(f, spec + 5);
	if (!strncmp(spec, "pci/", 4))
		return udmem_bus_find_device_by_name(&pci_bus_type, spec + 4);
	if (!strncmp(spec, "platform/", 9))
		return udmem_bus_find_device_by_name(&platform_bus_type, spec + 9);
	return NULL;
}

static void udi_put_device(struct udi_file *f)
{
	put_device(f->dev);
	if (f->mask_pdev)
		platform_device_unregister(f->mask_pdev);
	f->mask_pdev = NULL;
}

static void udi_detach(struct udi_file *f)
{
	if (!f->dmabuf)
		return;
	dma_buf_unmap_attachment_unlocked(f->attach, f->sgt, f->dir);
	dma_buf_detach(f->dmabuf, f->attach);
	dma_buf_put(f->dmabuf);
	udi_put_device(f);
	f->dmabuf = NULL;
	f->attach = NULL;
	f->sgt = NULL;
	f->dev = NULL;
}

static int udi_attach(struct udi_file *f, struct udi_attach *a)
{
	struct scatterlist *sg;
	unsigned int i;
	int ret;

	if (f->dmabuf)
		return -EBUSY;
	if (a->reserved || a->dir > DMA_FROM_DEVICE)
		return -EINVAL;
	a->dev[sizeof(a->dev) - 1] = '\0';
	f->dev = udi_find_device(f, a->dev);
	if (!f->dev)
		return -ENODEV;
	f->dmabuf = dma_buf_get(a->fd);
	if (IS_ERR(f->dmabuf)) {
		ret = PTR_ERR(f->dmabuf);
		goto err_put_dev;
	}
	f->attach = dma_buf_attach(f->dmabuf, f->dev);
	if (IS_ERR(f->attach)) {
		ret = PTR_ERR(f->attach);
		goto err_put_buf;
	}
	f->dir = a->dir;
	f->sgt = dma_buf_map_attachment_unlocked(f->attach, f->dir);
	if (IS_ERR(f->sgt)) {
		ret = PTR_ERR(f->sgt);
		goto err_detach;
	}
	a->size = f->dmabuf->size;
	a->nents = f->sgt->nents;
	a->orig_nents = f->sgt->orig_nents;
	a->coherent = dev_is_dma_coherent(f->dev);
	a->dma_addr = sg_dma_address(f->sgt->sgl);
	a->dma_len = sg_dma_len(f->sgt->sgl);
	a->dma_total = 0;
	for_each_sgtable_dma_sg(f->sgt, sg, i)
		a->dma_total += sg_dma_len(sg);
	return 0;

err_detach:
	dma_buf_detach(f->dmabuf, f->attach);
err_put_buf:
	dma_buf_put(f->dmabuf);
err_put_dev:
	udi_put_device(f);
	f->dmabuf = NULL;
	f->attach = NULL;
	f->sgt = NULL;
	f->dev = NULL;
	return ret;
}

static int udi_access(struct udi_file *f, struct udi_access *a, bool write)
{
	enum dma_data_direction dir = write ? DMA_TO_DEVICE : DMA_FROM_DEVICE;
	void __user *uptr = u64_to_user_ptr(a->uptr);
	struct iosys_map map;
	u64 end;
	int ret;

	if (!f->dmabuf)
		return -ENXIO;
	if (check_add_overflow(a->offset, a->len, &end) || end > f->dmabuf->size)
		return -EINVAL;
	ret = dma_buf_begin_cpu_access(f->dmabuf, dir);
	if (ret)
		return ret;
	ret = dma_buf_vmap_unlocked(f->dmabuf, &map);
	if (ret)
		goto out_end;
	if (map.is_iomem) {
		ret = -EOPNOTSUPP;
	} else if (write) {
		if (copy_from_user(map.vaddr + a->offset, uptr, a->len))
			ret = -EFAULT;
	} else {
		if (copy_to_user(uptr, map.vaddr + a->offset, a->len))
			ret = -EFAULT;
	}
	dma_buf_vunmap_unlocked(f->dmabuf, &map);
out_end:
	dma_buf_end_cpu_access(f->dmabuf, dir);
	return ret;
}

#define UDI_CYCLE_MAX	1000

/* Map and unmap the attachment c->count times, beside the held mapping. */
static int udi_cycle(struct udi_file *f, struct udi_cycle *c)
{
	struct sg_table *sgt;
	u32 i;

	if (!f->dmabuf)
		return -ENXIO;
	if (!c->count || c->count > UDI_CYCLE_MAX)
		return -EINVAL;
	for (i = 0; i < c->count; i++) {
		sgt = dma_buf_map_attachment_unlocked(f->attach, f->dir);
		if (IS_ERR(sgt))
			return PTR_ERR(sgt);
		c->nents = sgt->nents;
		dma_buf_unmap_attachment_unlocked(f->attach, sgt, f->dir);
		cond_resched();
	}
	return 0;
}

static long udi_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct udi_file *f = file->private_data;
	void __user *uarg = (void __user *)arg;
	struct udi_attach at;
	struct udi_access ac;
	struct udi_cycle cy;
	long ret;

	switch (cmd) {
	case UDI_ATTACH:
		if (copy_from_user(&at, uarg, sizeof(at)))
			return -EFAULT;
		mutex_lock(&f->lock);
		ret = udi_attach(f, &at);
		mutex_unlock(&f->lock);
		if (!ret && copy_to_user(uarg, &at, sizeof(at)))
			ret = -EFAULT;
		return ret;
	case UDI_DETACH:
		mutex_lock(&f->lock);
		ret = f->dmabuf ? 0 : -ENXIO;
		udi_detach(f);
		mutex_unlock(&f->lock);
		return ret;
	case UDI_READ:
	case UDI_WRITE:
		if (copy_from_user(&ac, uarg, sizeof(ac)))
			return -EFAULT;
		mutex_lock(&f->lock);
		ret = udi_access(f, &ac, cmd == UDI_WRITE);
		mutex_unlock(&f->lock);
		return ret;
	case UDI_CYCLE:
		if (copy_from_user(&cy, uarg, sizeof(cy)))
			return -EFAULT;
		mutex_lock(&f->lock);
		ret = udi_cycle(f, &cy);
		mutex_unlock(&f->lock);
		if (!ret && copy_to_user(uarg, &cy, sizeof(cy)))
			ret = -EFAULT;
		return ret;
	default:
		return -ENOTTY;
	}
}

static int udi_open(struct inode *inode, struct file *file)
{
	struct udi_file *f = kzalloc(sizeof(*f), GFP_KERNEL);

	if (!f)
		return -ENOMEM;
	mutex_init(&f->lock);
	file->private_data = f;
	return 0;
}

static int udi_release(struct inode *inode, struct file *file)
{
	struct udi_file *f = file->private_data;

	udi_detach(f);
	mutex_destroy(&f->lock);
	kfree(f);
	return 0;
}

static const struct file_operations udi_fops = {
	.owner = THIS_MODULE,
	.open = udi_open,
	.release = udi_release,
	.unlocked_ioctl = udi_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice udi_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "udmem-dmabuf-importer",
	.fops = &udi_fops,
};
module_misc_device(udi_misc);

MODULE_DESCRIPTION("udmem test: a DMA-BUF importer driven from user space");
MODULE_LICENSE("GPL");
UDMEM_IMPORT_NS_DMA_BUF();
