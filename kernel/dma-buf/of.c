// SPDX-License-Identifier: GPL-2.0
/*
 * u-dma-buf: the platform driver.
 *
 * Device-tree (or software node) properties of a buffer, the DMA mask,
 * reserved memory, and the probe and remove of "ikwzm,u-dma-buf" nodes
 * and of the platform devices that module parameters and the manager make.
 */
#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/of_reserved_mem.h>
#include <linux/overflow.h>
#include <linux/platform_device.h>
#include <linux/property.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "compat.h"
#include "udmabuf.h"

static int udmabuf_read_u64_prop(struct device *dev, const char *prop, u64 *val)
{
	u32 v32;

	if (!device_property_read_u64(dev, prop, val))
		return 0;
	if (device_property_read_u32(dev, prop, &v32))
		return -ENOENT;
	*val = v32;
	return 0;
}

/* Read the device-tree (or software node) properties of a buffer. */
static int udmabuf_parse_properties(struct device *dev, struct udmabuf_params *p,
				    const char **name)
{
	const char *str;
	u32 v;
	u64 v64, end;
	int ret;

	memset(p, 0, sizeof(*p));
	p->minor = -1;
	p->origin = UDMABUF_ORIGIN_DT;
	if (udmabuf_read_u64_prop(dev, "size", &p->size) || !p->size) {
		dev_err(dev, "missing or zero size property\n");
		return -ENODEV;
	}
	if (!device_property_read_u32(dev, "minor-number", &v)) {
		if (v >= UDMABUF_MINORS) {
			dev_err(dev, "invalid minor-number %u\n", v);
			return -EINVAL;
		}
		p->minor = v;
	}
	*name = NULL;
	if (device_property_read_string(dev, "device-name", name))
		*name = NULL;
	if (!device_property_read_u32(dev, "sync-mode", &v)) {
		if (v < 1 || v > 3) {
			dev_err(dev, "invalid sync-mode %u\n", v);
			return -EINVAL;
		}
		p->sync_mode = v;
		p->sync_mode_set = true;
	}
	if (device_property_read_bool(dev, "sync-always")) {
		if (!p->sync_mode_set)
			p->sync_mode = UDMABUF_SYNC_NONCACHED;
		p->sync_mode |= UDMABUF_SYNC_ALWAYS;
		p->sync_mode_set = true;
	}
	if (!device_property_read_u32(dev, "sync-direction", &v)) {
		if (!udmem_sync_dir_valid(v)) {
			dev_err(dev, "invalid sync-direction %u\n", v);
			return -EINVAL;
		}
		p->sync_direction = v;
	}
	if (!udmabuf_read_u64_prop(dev, "sync-offset", &v64)) {
		if (v64 >= p->size) {
			dev_err(dev, "invalid sync-offset %llu\n", v64);
			return -EINVAL;
		}
		p->sync_offset = v64;
	}
	p->sync_size = p->size - p->sync_offset;
	if (!udmabuf_read_u64_prop(dev, "sync-size", &v64)) {
		if (check_add_overflow(p->sync_offset, v64, &end) || end > p->size) {
			dev_err(dev, "invalid sync-size %llu\n", v64);
			return -EINVAL;
		}
		p->sync_size = v64;
	}
	if (!device_property_read_u32(dev, "dma-mask", &v)) {
		if (v < 12 || v > 64) {
			dev_err(dev, "invalid dma-mask %u\n", v);
			return -EINVAL;
		}
		p->dma_mask_bits = v;
	}
	/*
	 * "option" is the reference driver's internal property (its API and
	 * manager pass it in a software node; it is read from DT too): bits
	 * [12:10] are a quirk mode.  Then the booleans; the last one present
	 * in this order wins.
	 */
	if (!udmabuf_read_u64_prop(dev, "option", &v64)) {
		v = (v64 >> 10) & 7;
		if (v > U_DMA_BUF_MMAP_MODE_PAGE) {
			dev_err(dev, "invalid option %#llx (mmap mode %u)\n", v64, v);
			return -EINVAL;
		}
		if (v)
			p->quirk_mmap_mode = v;
	}
	/* udmem addition: the buffer keeps its memory-region's contents */
	p->keep_contents = device_property_read_bool(dev, "keep-contents");
	/* udmem addition: the sync checker, "off", "report" or "strict" */
	if (!device_property_read_string(dev, "sync-check", &str)) {
		ret = udmabuf_check_parse(str);
		if (ret < 0) {
			dev_err(dev, "invalid sync-check \"%s\"\n", str);
			return -EINVAL;
		}
		p->sync_check = ret + 1;
	}
	if (device_property_read_bool(dev, "quirk-mmap-on"))
		p->quirk_mmap_mode = U_DMA_BUF_MMAP_MODE_ON;
	if (device_property_read_bool(dev, "quirk-mmap-off"))
		p->quirk_mmap_mode = U_DMA_BUF_MMAP_MODE_OFF;
	if (device_property_read_bool(dev, "quirk-mmap-auto"))
		p->quirk_mmap_mode = U_DMA_BUF_MMAP_MODE_AUTO;
	if (device_property_read_bool(dev, "quirk-mmap-page"))
		p->quirk_mmap_mode = U_DMA_BUF_MMAP_MODE_PAGE;
	return 0;
}

/*
 * of_reserved_mem_device_release() drops every reserved-memory assignment
 * of a device, and a buffer can outlive the probe that made it (a mapping
 * holds it across unbind, and a new bind makes another buffer for the same
 * device).  So the assignment is counted per device: the first buffer of a
 * device makes it, the last one to be freed releases it.
 */
struct udmabuf_rmem {
	struct list_head node;
	struct device *dev;		/* referenced by each user's buffer */
	unsigned int users;
};

static LIST_HEAD(udmabuf_rmem_list);
static DEFINE_MUTEX(udmabuf_rmem_lock);

static struct udmabuf_rmem *udmabuf_rmem_find_locked(struct device *dev)
{
	struct udmabuf_rmem *r;

	list_for_each_entry(r, &udmabuf_rmem_list, node)
		if (r->dev == dev)
			return r;
	return NULL;
}

/* Assign @dev's memory-region to it, or count one more user of it. */
static int udmabuf_rmem_get(struct device *dev)
{
	struct udmabuf_rmem *r;
	int ret = 0;

	mutex_lock(&udmabuf_rmem_lock);
	r = udmabuf_rmem_find_locked(dev);
	if (r) {
		r->users++;
		goto out_unlock;
	}
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r) {
		ret = -ENOMEM;
		goto out_unlock;
	}
	ret = of_reserved_mem_device_init(dev);
	if (ret) {
		dev_err(dev, "of_reserved_mem_device_init failed: %d\n", ret);
		kfree(r);
		goto out_unlock;
	}
	r->dev = dev;
	r->users = 1;
	list_add(&r->node, &udmabuf_rmem_list);
out_unlock:
	mutex_unlock(&udmabuf_rmem_lock);
	return ret;
}

/* Drop a user of @dev's memory-region; the last one releases it. */
void udmabuf_rmem_put(struct device *dev)
{
	struct udmabuf_rmem *r;

	mutex_lock(&udmabuf_rmem_lock);
	r = udmabuf_rmem_find_locked(dev);
	if (!WARN_ON(!r) && !--r->users) {
		of_reserved_mem_device_release(dev);
		list_del(&r->node);
		kfree(r);
	}
	mutex_unlock(&udmabuf_rmem_lock);
}

int udmabuf_set_dma_mask(struct device *dev, int bits)
{
	int ret;

	if (!dev->dma_mask)
		dev->dma_mask = &dev->coherent_dma_mask;
	ret = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(bits));
	if (ret)
		dev_err(dev, "cannot set a %d-bit DMA mask: %d\n", bits, ret);
	return ret;
}

static int udmabuf_platform_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	struct udmabuf_pdata *pdata = dev_get_platdata(dev);
	struct udmabuf_params p;
	const char *name = NULL;
	struct udmabuf *buf;
	bool rmem = false;
	int ret;

	if (pdata) {
		pdata->probe_err = -EPROBE_DEFER;
		p = pdata->params;
		p.name = pdata->name[0] ? pdata->name : NULL;
		if (!p.dma_mask_bits)
			p.dma_mask_bits = udmabuf_dma_mask_bit;
	} else {
		ret = udmabuf_parse_properties(dev, &p, &name);
		if (ret)
			return ret;
		if (name)
			p.name = name;
		else if (p.minor < 0)
			p.name = dev_name(dev);
	}

	/* A kept buffer takes the region itself, never through a pool. */
	if (!p.keep_contents && device_property_present(dev, "memory-region")) {
		ret = udmabuf_rmem_get(dev);
		if (ret)
			return ret;
		rmem = true;
	}
	if (p.dma_mask_bits) {
		if (p.dma_mask_bits < 12 || p.dma_mask_bits > 64) {
			ret = -EINVAL;
			goto err_release_rmem;
		}
		ret = udmabuf_set_dma_mask(dev, p.dma_mask_bits);
		if (ret)
			goto err_release_rmem;
	}

	if (p.dma_coherent) {
		ret = udmem_dev_set_dma_coherent(dev);
		if (ret) {
			dev_err(dev, "cannot mark the device DMA-coherent on this kernel: %d\n",
				ret);
			goto err_release_rmem;
		}
	}

	p.pdev = pdev;
	p.rmem = rmem;
	buf = udmabuf_create(&p, dev, dev);
	if (IS_ERR(buf)) {
		ret = PTR_ERR(buf);
		dev_err(dev, "cannot create buffer: %d\n", ret);
		goto err_release_rmem;
	}
	platform_set_drvdata(pdev, buf);
	if (pdata)
		pdata->probe_err = 0;
	if (udmabuf_info_enable)
		dev_info(dev, "driver installed.\n");
	return 0;

err_release_rmem:
	if (rmem)
		udmabuf_rmem_put(dev);
	if (pdata)
		pdata->probe_err = ret;
	return ret;
}

static void udmabuf_platform_remove(struct platform_device *pdev)
{
	struct udmabuf *buf = platform_get_drvdata(pdev);

	platform_set_drvdata(pdev, NULL);
	if (buf)
		udmabuf_remove(buf);
}

UDMEM_DEFINE_PLATFORM_REMOVE(udmabuf_platform_remove);

static const struct of_device_id udmabuf_of_match[] = {
	{ .compatible = "ikwzm,u-dma-buf" },
	{ }
};
MODULE_DEVICE_TABLE(of, udmabuf_of_match);

struct platform_driver udmabuf_platform_driver = {
	.probe = udmabuf_platform_probe,
	.UDMEM_PLATFORM_REMOVE = UDMEM_PLATFORM_REMOVE_FN(udmabuf_platform_remove),
	.driver = {
		.name = UDMABUF_DRIVER_NAME,
		.of_match_table = udmabuf_of_match,
	},
};
