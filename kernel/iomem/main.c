// SPDX-License-Identifier: GPL-2.0
/*
 * uiomem - user-space mappable device memory with CPU cache maintenance.
 *
 * Each region is a window of physical memory outside the kernel's RAM
 * (FPGA block RAM, on-chip RAM, a no-map carve-out, a PCI BAR) described by
 * a device-tree node (compatible "ikwzm,uiomem") or by the module
 * parameters uiomemN_addr/uiomemN_size.  It appears as /dev/<name> and
 * /sys/class/uiomem/<name>/ with the interface of the original uiomem
 * driver, plus the ioctls of <linux/uiomem.h>.
 */
#include <linux/bitmap.h>
#include <linux/cdev.h>
#include <linux/idr.h>
#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/kernel.h>
#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/of.h>
#include <linux/of_address.h>
#include <linux/overflow.h>
#include <linux/platform_device.h>
#include <linux/property.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "compat.h"
#include "uiomem_drv.h"

#define UIOMEM_STATIC_DEVICES	8
#define UIOMEM_NAME_MAX		64

static ulong uiomem_static_addr[UIOMEM_STATIC_DEVICES];
static ulong uiomem_static_size[UIOMEM_STATIC_DEVICES];

/* uiomemN_addr / uiomemN_size: region N, /dev/uiomemN with minor N. */
module_param_named(uiomem0_addr, uiomem_static_addr[0], ulong, 0444);
MODULE_PARM_DESC(uiomem0_addr, "uiomem0 physical start address");
module_param_named(uiomem0_size, uiomem_static_size[0], ulong, 0444);
MODULE_PARM_DESC(uiomem0_size, "uiomem0 size in bytes (0: none)");
module_param_named(uiomem1_addr, uiomem_static_addr[1], ulong, 0444);
MODULE_PARM_DESC(uiomem1_addr, "uiomem1 physical start address");
module_param_named(uiomem1_size, uiomem_static_size[1], ulong, 0444);
MODULE_PARM_DESC(uiomem1_size, "uiomem1 size in bytes (0: none)");
module_param_named(uiomem2_addr, uiomem_static_addr[2], ulong, 0444);
MODULE_PARM_DESC(uiomem2_addr, "uiomem2 physical start address");
module_param_named(uiomem2_size, uiomem_static_size[2], ulong, 0444);
MODULE_PARM_DESC(uiomem2_size, "uiomem2 size in bytes (0: none)");
module_param_named(uiomem3_addr, uiomem_static_addr[3], ulong, 0444);
MODULE_PARM_DESC(uiomem3_addr, "uiomem3 physical start address");
module_param_named(uiomem3_size, uiomem_static_size[3], ulong, 0444);
MODULE_PARM_DESC(uiomem3_size, "uiomem3 size in bytes (0: none)");
module_param_named(uiomem4_addr, uiomem_static_addr[4], ulong, 0444);
MODULE_PARM_DESC(uiomem4_addr, "uiomem4 physical start address");
module_param_named(uiomem4_size, uiomem_static_size[4], ulong, 0444);
MODULE_PARM_DESC(uiomem4_size, "uiomem4 size in bytes (0: none)");
module_param_named(uiomem5_addr, uiomem_static_addr[5], ulong, 0444);
MODULE_PARM_DESC(uiomem5_addr, "uiomem5 physical start address");
module_param_named(uiomem5_size, uiomem_static_size[5], ulong, 0444);
MODULE_PARM_DESC(uiomem5_size, "uiomem5 size in bytes (0: none)");
module_param_named(uiomem6_addr, uiomem_static_addr[6], ulong, 0444);
MODULE_PARM_DESC(uiomem6_addr, "uiomem6 physical start address");
module_param_named(uiomem6_size, uiomem_static_size[6], ulong, 0444);
MODULE_PARM_DESC(uiomem6_size, "uiomem6 size in bytes (0: none)");
module_param_named(uiomem7_addr, uiomem_static_addr[7], ulong, 0444);
MODULE_PARM_DESC(uiomem7_addr, "uiomem7 physical start address");
module_param_named(uiomem7_size, uiomem_static_size[7], ulong, 0444);
MODULE_PARM_DESC(uiomem7_size, "uiomem7 size in bytes (0: none)");

static int info_enable = 1;
module_param(info_enable, int, 0444);
MODULE_PARM_DESC(info_enable, "print each region when it is created (default 1)");

u32 uiomem_cache_line;

static struct class *uiomem_class;
static dev_t uiomem_devt;
static DEFINE_IDA(uiomem_minor_ida);
/* Minors of module-parameter regions, held for them until they probe. */
static DECLARE_BITMAP(uiomem_static_reserved, UIOMEM_STATIC_DEVICES);
static struct platform_device *uiomem_static_pdev[UIOMEM_STATIC_DEVICES];

/* Module-parameter regions are the platform devices "uiomem.<minor>". */
static bool uiomem_is_static(struct platform_device *pdev, int minor)
{
	return minor >= 0 && minor < UIOMEM_STATIC_DEVICES &&
	       !pdev->dev.of_node && pdev->id == minor &&
	       !strcmp(pdev->name, UIOMEM_DRIVER_NAME);
}

static int uiomem_minor_get(struct platform_device *pdev, int minor)
{
	int ret;

	if (minor < 0)
		return ida_alloc_max(&uiomem_minor_ida, UIOMEM_MINORS - 1, GFP_KERNEL);
	if (uiomem_is_static(pdev, minor) &&
	    test_and_clear_bit(minor, uiomem_static_reserved))
		return minor;
	ret = ida_alloc_range(&uiomem_minor_ida, minor, minor, GFP_KERNEL);
	if (ret == -ENOSPC) {
		dev_err(&pdev->dev, "minor number %d is already in use\n", minor);
		return -EBUSY;
	}
	return ret;
}

/* The region: "reg", else the reserved-memory node of "memory-region". */
static int uiomem_get_resource(struct platform_device *pdev, struct resource *res)
{
	struct resource *r = platform_get_resource(pdev, IORESOURCE_MEM, 0);
	struct device_node *np;
	int ret;

	if (r) {
		*res = *r;
		return 0;
	}
	np = of_parse_phandle(pdev->dev.of_node, "memory-region", 0);
	if (!np) {
		dev_err(&pdev->dev, "no \"reg\" and no \"memory-region\"\n");
		return -EINVAL;
	}
	ret = of_address_to_resource(np, 0, res);
	of_node_put(np);
	if (ret)
		dev_err(&pdev->dev, "bad \"memory-region\": %d\n", ret);
	return ret;
}

/* @dev may be NULL (module parameters, before a device exists). */
static int uiomem_check_resource(struct device *dev, const struct resource *res)
{
	const char *who = dev ? dev_name(dev) : UIOMEM_DRIVER_NAME;
	resource_size_t size = resource_size(res);

	if (res->end < res->start || !size) {
		pr_err("%s: empty region %pR\n", who, res);
		return -EINVAL;
	}
	if (!PAGE_ALIGNED(res->start) || !PAGE_ALIGNED(size)) {
		pr_err("%s: region %pR: start and size must be multiples of %lu\n",
		       who, res, PAGE_SIZE);
		return -EINVAL;
	}
	if (region_intersects(res->start, size, IORESOURCE_SYSTEM_RAM,
			      IORES_DESC_NONE) != REGION_DISJOINT) {
		pr_err("%s: region %pR is System RAM: uiomem maps only memory the kernel does not manage (a PCI BAR, on-chip RAM, a no-map reserved-memory region)\n",
		       who, res);
		return -EINVAL;
	}
	return 0;
}

/* Sync defaults from the device-tree properties sync-*. */
static int uiomem_read_sync_props(struct device *dev, struct uiomem *um)
{
	u32 v;

	um->sync_mode = 1;
	if (!device_property_read_u32(dev, "sync-mode", &v)) {
		if (v < 1 || v > UIOMEM_SYNC_MODE_MASK) {
			dev_err(dev, "sync-mode %u is not 1, 2 or 3\n", v);
			return -EINVAL;
		}
		um->sync_mode = v;
	}
	if (device_property_read_bool(dev, "sync-always"))
		um->sync_mode |= UIOMEM_SYNC_ALWAYS;
	if (!device_property_read_u32(dev, "sync-direction", &v)) {
		if (!udmem_sync_dir_valid(v)) {
			dev_err(dev, "sync-direction %u is not 0, 1 or 2\n", v);
			return -EINVAL;
		}
		um->sync_direction = v;
	}
	if (!device_property_read_u32(dev, "sync-offset", &v)) {
		if (v >= um->size) {
			dev_err(dev, "sync-offset %#x is past the region\n", v);
			return -EINVAL;
		}
		um->sync_offset = v;
	}
	um->sync_size = um->size - um->sync_offset;
	if (!device_property_read_u32(dev, "sync-size", &v)) {
		if (um->sync_offset + v > um->size) {
			dev_err(dev, "sync-offset + sync-size %#x is past the region\n", v);
			return -EINVAL;
		}
		um->sync_size = v;
	}
	return 0;
}

static bool uiomem_name_ok(const char *name)
{
	size_t len = strnlen(name, UIOMEM_NAME_MAX + 1);

	return len && len <= UIOMEM_NAME_MAX && !strchr(name, '/') &&
	       strcmp(name, ".") && strcmp(name, "..");
}

static void uiomem_dev_release(struct device *dev)
{
	kfree(container_of(dev, struct uiomem, dev));
}

static int uiomem_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	const char *name = NULL;
	struct resource res;
	struct device *other;
	bool has_minor = false;
	struct uiomem *um;
	int minor = -1;
	u32 v;
	int ret;

	ret = uiomem_get_resource(pdev, &res);
	if (ret)
		return ret;
	ret = uiomem_check_resource(dev, &res);
	if (ret)
		return ret;

	um = kzalloc(sizeof(*um), GFP_KERNEL);
	if (!um)
		return -ENOMEM;
	mutex_init(&um->lock);
	um->phys = res.start;
	um->size = resource_size(&res);
	um->shareable = device_property_read_bool(dev, "shareable");
	ret = uiomem_read_sync_props(dev, um);
	if (ret)
		goto err_free;

	if (!device_property_read_u32(dev, "minor-number", &v)) {
		if (v >= UIOMEM_MINORS) {
			dev_err(dev, "minor-number %u is not below %d\n", v, UIOMEM_MINORS);
			ret = -EINVAL;
			goto err_free;
		}
		minor = v;
		has_minor = true;
	}
	ret = uiomem_minor_get(pdev, minor);
	if (ret < 0)
		goto err_free;
	minor = ret;

	device_initialize(&um->dev);
	um->dev.class = uiomem_class;
	um->dev.parent = dev;
	um->dev.devt = MKDEV(MAJOR(uiomem_devt), minor);
	um->dev.release = uiomem_dev_release;
	dev_set_drvdata(&um->dev, um);
	/* From here on the structure belongs to um->dev: put, never kfree. */

	if (device_property_read_string(dev, "device-name", &name))
		name = NULL;
	if (name)
		ret = dev_set_name(&um->dev, "%s", name);
	else if (has_minor)
		ret = dev_set_name(&um->dev, UIOMEM_DRIVER_NAME "%d", minor);
	else
		ret = dev_set_name(&um->dev, "%s", dev_name(dev));
	if (ret)
		goto err_put;
	if (!uiomem_name_ok(dev_name(&um->dev))) {
		dev_err(dev, "bad device-name \"%s\"\n", dev_name(&um->dev));
		ret = -EINVAL;
		goto err_put;
	}
	other = class_find_device_by_name(uiomem_class, dev_name(&um->dev));
	if (other) {
		put_device(other);
		dev_err(dev, "device name \"%s\" is already in use\n",
			dev_name(&um->dev));
		ret = -EEXIST;
		goto err_put;
	}

	if (!um->shareable &&
	    !request_mem_region(um->phys, um->size, dev_name(&um->dev))) {
		dev_err(dev, "region %pR overlaps a region already claimed (add \"shareable\" to share it)\n",
			&res);
		ret = -EBUSY;
		goto err_put;
	}
	um->vaddr = memremap(um->phys, um->size, MEMREMAP_WB);
	if (!um->vaddr) {
		dev_err(dev, "cannot map region %pR write-back\n", &res);
		ret = -ENOMEM;
		goto err_release_region;
	}

	cdev_init(&um->cdev, &uiomem_fops);
	um->cdev.owner = THIS_MODULE;
	ret = cdev_device_add(&um->cdev, &um->dev);
	if (ret)
		goto err_unmap;

	platform_set_drvdata(pdev, um);
	if (info_enable)
		dev_info(&um->dev, "%pR minor %d size %zu sync_mode %u cache line %u\n",
			 &res, minor, um->size, um->sync_mode, uiomem_cache_line);
	return 0;

err_unmap:
	memunmap(um->vaddr);
err_release_region:
	if (!um->shareable)
		release_mem_region(um->phys, um->size);
err_put:
	ida_free(&uiomem_minor_ida, minor);
	put_device(&um->dev);
	return ret;
err_free:
	kfree(um);
	return ret;
}

static void uiomem_remove(struct platform_device *pdev)
{
	struct uiomem *um = platform_get_drvdata(pdev);

	cdev_device_del(&um->cdev, &um->dev);
	/* Files still open see ENODEV from now on. */
	mutex_lock(&um->lock);
	um->dead = true;
	memunmap(um->vaddr);
	um->vaddr = NULL;
	mutex_unlock(&um->lock);
	if (!um->shareable)
		release_mem_region(um->phys, um->size);
	ida_free(&uiomem_minor_ida, MINOR(um->dev.devt));
	put_device(&um->dev);
}

static const struct of_device_id uiomem_of_match[] = {
	{ .compatible = "ikwzm,uiomem" },
	{ }
};
MODULE_DEVICE_TABLE(of, uiomem_of_match);

static struct platform_driver uiomem_driver = {
	.probe = uiomem_probe,
	.UDMEM_PLATFORM_REMOVE = uiomem_remove,
	.driver = {
		.name = UIOMEM_DRIVER_NAME,
		.of_match_table = uiomem_of_match,
	},
};

static void uiomem_static_create(int n)
{
	phys_addr_t addr = uiomem_static_addr[n];
	size_t size = uiomem_static_size[n];
	struct property_entry props[] = {
		PROPERTY_ENTRY_U32("minor-number", n),
		{ }
	};
	struct platform_device_info info = {
		.name = UIOMEM_DRIVER_NAME,
		.id = n,
		.num_res = 1,
		.properties = props,
	};
	struct platform_device *pdev;
	struct resource res = { };
	phys_addr_t last;

	if (addr != uiomem_static_addr[n] ||
	    check_add_overflow(addr, (phys_addr_t)(size - 1), &last)) {
		pr_err("uiomem: uiomem%d_addr=%#lx uiomem%d_size=%#lx is outside the physical address space\n",
		       n, uiomem_static_addr[n], n, uiomem_static_size[n]);
		goto err_unreserve;
	}
	res.start = addr;
	res.end = last;
	res.flags = IORESOURCE_MEM;
	/* Before the platform core claims the range and fails less clearly. */
	if (uiomem_check_resource(NULL, &res))
		goto err_unreserve;
	info.res = &res;
	/* Probes right away; a probe error leaves the device unbound. */
	pdev = platform_device_register_full(&info);
	if (IS_ERR(pdev)) {
		pr_err("uiomem: cannot create uiomem%d: %ld\n", n, PTR_ERR(pdev));
		goto err_unreserve;
	}
	uiomem_static_pdev[n] = pdev;
	return;

err_unreserve:
	if (test_and_clear_bit(n, uiomem_static_reserved))
		ida_free(&uiomem_minor_ida, n);
}

static void uiomem_static_remove_all(void)
{
	int n;

	for (n = 0; n < UIOMEM_STATIC_DEVICES; n++) {
		if (uiomem_static_pdev[n])
			platform_device_unregister(uiomem_static_pdev[n]);
		uiomem_static_pdev[n] = NULL;
		if (test_and_clear_bit(n, uiomem_static_reserved))
			ida_free(&uiomem_minor_ida, n);
	}
}

static int __init uiomem_init(void)
{
	int ret, n;

	uiomem_cache_line = uiomem_cache_ops.probe();
	if (uiomem_cache_line)
		pr_info("uiomem: cache maintenance by %s, %u-byte lines\n",
			uiomem_cache_ops.name, uiomem_cache_line);
	else
		pr_info("uiomem: no cache maintenance (%s): mappings are uncached\n",
			uiomem_cache_ops.name);

	ret = alloc_chrdev_region(&uiomem_devt, 0, UIOMEM_MINORS, UIOMEM_DRIVER_NAME);
	if (ret)
		return ret;
	uiomem_class = udmem_class_create(UIOMEM_DRIVER_NAME);
	if (IS_ERR(uiomem_class)) {
		ret = PTR_ERR(uiomem_class);
		goto err_unregister_chrdev;
	}
	uiomem_class->dev_groups = uiomem_groups;

	for (n = 0; n < UIOMEM_STATIC_DEVICES; n++) {
		if (uiomem_static_size[n] &&
		    ida_alloc_range(&uiomem_minor_ida, n, n, GFP_KERNEL) == n)
			set_bit(n, uiomem_static_reserved);
	}

	ret = platform_driver_register(&uiomem_driver);
	if (ret)
		goto err_free_static;
	for (n = 0; n < UIOMEM_STATIC_DEVICES; n++) {
		if (test_bit(n, uiomem_static_reserved))
			uiomem_static_create(n);
	}
	return 0;

err_free_static:
	uiomem_static_remove_all();
	class_destroy(uiomem_class);
err_unregister_chrdev:
	unregister_chrdev_region(uiomem_devt, UIOMEM_MINORS);
	return ret;
}
module_init(uiomem_init);

static void __exit uiomem_exit(void)
{
	uiomem_static_remove_all();
	platform_driver_unregister(&uiomem_driver);
	ida_destroy(&uiomem_minor_ida);
	class_destroy(uiomem_class);
	unregister_chrdev_region(uiomem_devt, UIOMEM_MINORS);
}
module_exit(uiomem_exit);

MODULE_DESCRIPTION("uiomem: cached user-space mappings of device memory");
MODULE_AUTHOR("udmem project");
MODULE_LICENSE("Dual MIT/GPL");
MODULE_VERSION(UIOMEM_DRIVER_VERSION);
