// SPDX-License-Identifier: GPL-2.0
/*
 * probe.c - the platform driver: a region from a device-tree node (compatible
 * "ikwzm,uiomem") or a module-parameter device, its checks and sync-*
 * defaults, its minor number and name, and its /dev and sysfs nodes.
 */
#include <linux/acpi.h>
#include <linux/bitmap.h>
#include <linux/cdev.h>
#include <linux/idr.h>
#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/of.h>
#include <linux/of_address.h>
#include <linux/of_device.h>
#include <linux/of_reserved_mem.h>
#include <linux/platform_device.h>
#include <linux/property.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "common/udmem_own.h"
#include "uiomem.h"

#define UIOMEM_NAME_MAX		64

static DEFINE_IDA(uiomem_minor_ida);
/* Minors of module-parameter regions, held for them until they probe. */
static DECLARE_BITMAP(uiomem_static_reserved, UIOMEM_STATIC_DEVICES);

/**
 * uiomem_minor_reserve() - hold minor @n for module-parameter region @n
 * @n: 0..UIOMEM_STATIC_DEVICES - 1
 */
void uiomem_minor_reserve(int n)
{
	if (ida_alloc_range(&uiomem_minor_ida, n, n, GFP_KERNEL) == n)
		set_bit(n, uiomem_static_reserved);
}

bool uiomem_minor_reserved(int n)
{
	return test_bit(n, uiomem_static_reserved);
}

/* Give back a reservation its region did not take. */
void uiomem_minor_unreserve(int n)
{
	if (test_and_clear_bit(n, uiomem_static_reserved))
		ida_free(&uiomem_minor_ida, n);
}

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

/*
 * The region: "reg" (or the module parameters' range), else the
 * reserved-memory node of "memory-region" (its base and size, also for a
 * node the kernel placed itself: "size" without "reg"), else that node's
 * "reg".
 */
static int uiomem_get_resource(struct platform_device *pdev, struct resource *res)
{
	struct resource *r = platform_get_resource(pdev, IORESOURCE_MEM, 0);
	const struct uiomem_static_data *param = dev_get_platdata(&pdev->dev);
	struct reserved_mem *rmem;
	struct device_node *np;
	int ret = 0;

	if (r) {
		*res = *r;
		return 0;
	}
	/* Module parameters: the range is platform data (see main.c). */
	if (param) {
		*res = param->res;
		return 0;
	}
	np = of_parse_phandle(pdev->dev.of_node, "memory-region", 0);
	if (!np) {
		dev_err(&pdev->dev, "no \"reg\" and no \"memory-region\"\n");
		return -EINVAL;
	}
	rmem = of_reserved_mem_lookup(np);
	if (rmem && rmem->size) {
		memset(res, 0, sizeof(*res));
		res->start = rmem->base;
		res->end = rmem->base + rmem->size - 1;
		res->flags = IORESOURCE_MEM;
		res->name = rmem->name;
	} else {
		ret = of_address_to_resource(np, 0, res);
		if (ret)
			dev_err(&pdev->dev, "bad \"memory-region\" %pOF: %d\n", np, ret);
	}
	of_node_put(np);
	return ret;
}

/* @dev may be NULL (module parameters, before a device exists). */
int uiomem_check_resource(struct device *dev, const struct resource *res)
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

/* A property given as a u64 (two cells) or a u32: 0, or -errno if absent. */
static int uiomem_read_u64_or_u32(struct device *dev, const char *name, u64 *val)
{
	u32 v32;
	int ret;

	ret = device_property_read_u64(dev, name, val);
	if (!ret)
		return 0;
	ret = device_property_read_u32(dev, name, &v32);
	if (!ret)
		*val = v32;
	return ret;
}

/* Sync defaults from the device-tree properties sync-*. */
static int uiomem_read_sync_props(struct device *dev, struct uiomem *um)
{
	const char *str;
	int check = -1;
	u64 v64;
	u32 v;

	/* udmem addition: the sync checker, "off", "report" or "strict" */
	if (!device_property_read_string(dev, "sync-check", &str)) {
		check = udmem_check_parse(str);
		if (check < 0) {
			dev_err(dev, "invalid sync-check \"%s\"\n", str);
			return -EINVAL;
		}
	}
	uiomem_chk_init(um, check);

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
	if (!uiomem_read_u64_or_u32(dev, "sync-offset", &v64)) {
		if (v64 >= um->size) {
			dev_err(dev, "sync-offset %#llx is past the region\n", v64);
			return -EINVAL;
		}
		um->sync_offset = v64;
	}
	um->sync_size = um->size - um->sync_offset;
	if (!uiomem_read_u64_or_u32(dev, "sync-size", &v64)) {
		if (v64 > um->size - um->sync_offset) {
			dev_err(dev, "sync-offset + sync-size %#llx is past the region\n",
				v64);
			return -EINVAL;
		}
		um->sync_size = v64;
	}
	return 0;
}

/*
 * shareable, cached and coherent.  The cache mode comes from the first of
 * cache-off, cache-noncoherent, cache-coherent, then "option" (bit 1
 * cached, bit 2 coherent), then the default (cached, not coherent); an
 * uncached region is always coherent.  "shareable", else option bit 0.
 * Without cache maintenance on this CPU a region that would need it is
 * made uncached.
 */
static void uiomem_read_cache_props(struct device *dev, struct uiomem *um)
{
	const struct uiomem_static_data *param = dev_get_platdata(dev);
	u64 option = UIOMEM_OPTION_DEFAULT;
	bool has_option;

	if (param) {
		option = param->option;
		has_option = true;
	} else {
		has_option = !uiomem_read_u64_or_u32(dev, "option", &option);
	}
	um->shareable = device_property_read_bool(dev, "shareable") ||
			(has_option && (option & UIOMEM_OPTION_SHAREABLE));

	if (device_property_read_bool(dev, "cache-off")) {
		um->cached = false;
	} else if (device_property_read_bool(dev, "cache-noncoherent")) {
		um->cached = true;
		um->coherent = false;
	} else if (device_property_read_bool(dev, "cache-coherent")) {
		um->cached = true;
		um->coherent = true;
	} else {
		um->cached = option & UIOMEM_OPTION_CACHED;
		um->coherent = option & UIOMEM_OPTION_COHERENT;
	}
	if (!um->cached)
		um->coherent = true;
	if (!um->coherent && !uiomem_cache_line) {
		dev_warn(dev, "no cache maintenance on this CPU: region made uncached\n");
		um->cached = false;
		um->coherent = true;
	}
}

static bool uiomem_name_ok(const char *name)
{
	size_t len = strnlen(name, UIOMEM_NAME_MAX + 1);

	return len && len <= UIOMEM_NAME_MAX && !strchr(name, '/') &&
	       strcmp(name, ".") && strcmp(name, "..");
}

static void uiomem_dev_release(struct device *dev)
{
	struct uiomem *um = container_of(dev, struct uiomem, dev);

	iput(um->map_inode);
	uiomem_chk_free(um);
	kfree(um);
}

/* devm actions, undone in reverse order when the probe fails or at unbind. */
static void uiomem_put(void *data)
{
	struct uiomem *um = data;

	put_device(&um->dev);
}

static void uiomem_minor_put(void *data)
{
	struct uiomem *um = data;

	ida_free(&uiomem_minor_ida, MINOR(um->dev.devt));
}

static void uiomem_del(void *data)
{
	struct uiomem *um = data;

	struct address_space *mapping = NULL;

	cdev_device_del(&um->cdev, &um->dev);
	/* Files still open see ENODEV from now on, new mmap() calls too. */
	mutex_lock(&um->lock);
	um->dead = true;
	um->vaddr = NULL;
	if (um->map_inode)
		mapping = um->map_inode->i_mapping;
	mutex_unlock(&um->lock);
	/*
	 * Revoke the user mappings: the window may be handed to something
	 * else once it is released.  A later access faults, and the fault
	 * handler raises SIGBUS.
	 */
	if (mapping)
		unmap_mapping_range(mapping, 0, 0, 1);
}

/* The class device's name: device-name, else uiomem<minor>, else the parent's. */
static int uiomem_set_name(struct device *dev, struct uiomem *um, bool has_minor)
{
	const char *name;
	struct device *other;
	int ret;

	if (!device_property_read_string(dev, "device-name", &name))
		ret = dev_set_name(&um->dev, "%s", name);
	else if (has_minor)
		ret = dev_set_name(&um->dev, UIOMEM_DRIVER_NAME "%u", MINOR(um->dev.devt));
	else
		ret = dev_set_name(&um->dev, "%s", dev_name(dev));
	if (ret)
		return ret;
	if (!uiomem_name_ok(dev_name(&um->dev))) {
		dev_err(dev, "bad device-name \"%s\"\n", dev_name(&um->dev));
		return -EINVAL;
	}
	other = class_find_device_by_name(uiomem_class, dev_name(&um->dev));
	if (other) {
		put_device(other);
		dev_err(dev, "device name \"%s\" is already in use\n",
			dev_name(&um->dev));
		return -EEXIST;
	}
	return 0;
}

/*
 * Is @pdev one of uiomem's own devices: a firmware node that names uiomem
 * (device tree, or ACPI through PRP0001) or a device called "uiomem", as
 * the module parameters' are?  driver_override lets root bind any platform
 * device to any driver; bound to uiomem, another driver's device would have
 * its memory resource, whatever physical range that is, mapped into user
 * space, past lockdown, which refuses uiomem's own address parameters for
 * that reason (see main.c).
 */
static bool uiomem_own_device(struct platform_device *pdev)
{
	struct device_driver *drv = &uiomem_driver.driver;

	return of_driver_match_device(&pdev->dev, drv) ||
	       acpi_driver_match_device(&pdev->dev, drv) ||
	       !strcmp(pdev->name, UIOMEM_DRIVER_NAME);
}

static int uiomem_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	const struct uiomem_static_data *param = dev_get_platdata(dev);
	struct resource res;
	bool has_minor = false;
	struct uiomem *um;
	int minor = -1;
	u32 v;
	int ret;

	if (!uiomem_own_device(pdev)) {
		dev_err(dev, "refused: not a uiomem device (bound through driver_override?); uiomem maps only nodes compatible \"ikwzm,uiomem\" and its module-parameter regions\n");
		return -EPERM;
	}
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
	device_initialize(&um->dev);
	um->dev.class = uiomem_class;
	um->dev.parent = dev;
	um->dev.release = uiomem_dev_release;
	dev_set_drvdata(&um->dev, um);
	/* um belongs to um->dev (open files hold it): put, never kfree. */
	ret = devm_add_action_or_reset(dev, uiomem_put, um);
	if (ret)
		return ret;

	um->phys = res.start;
	um->size = resource_size(&res);
	uiomem_read_cache_props(dev, um);
	ret = uiomem_read_sync_props(dev, um);
	if (ret)
		return ret;

	if (param) {
		minor = param->minor;
		has_minor = true;
	} else if (!device_property_read_u32(dev, "minor-number", &v)) {
		if (v >= UIOMEM_MINORS) {
			dev_err(dev, "minor-number %u is not below %d\n", v, UIOMEM_MINORS);
			return -EINVAL;
		}
		minor = v;
		has_minor = true;
	}
	minor = uiomem_minor_get(pdev, minor);
	if (minor < 0)
		return minor;
	um->dev.devt = MKDEV(MAJOR(uiomem_devt), minor);
	ret = devm_add_action_or_reset(dev, uiomem_minor_put, um);
	if (ret)
		return ret;

	ret = uiomem_set_name(dev, um, has_minor);
	if (ret)
		return ret;

	/*
	 * NULL is a conflict, or no memory for the devres or the resource:
	 * the kernel does not say which.  A conflict is what users meet, so
	 * EBUSY; the message names both.
	 */
	if (!um->shareable &&
	    !devm_request_mem_region(dev, um->phys, um->size, dev_name(&um->dev))) {
		dev_err(dev, "region %pR overlaps a region already claimed (add \"shareable\" to share it), or memory ran out\n",
			&res);
		return -EBUSY;
	}
	/* The kernel alias must fit the virtual address space (32-bit LPAE). */
	if ((size_t)um->size != um->size) {
		dev_err(dev, "region %pR is larger than this kernel can map\n", &res);
		return -E2BIG;
	}
	/* An uncached region's user mappings are not cacheable: nor is this. */
	um->vaddr = devm_memremap(dev, um->phys, um->size,
				  um->cached ? MEMREMAP_WB : MEMREMAP_WC);
	if (IS_ERR(um->vaddr)) {
		dev_err(dev, "cannot map region %pR %s\n", &res,
			um->cached ? "write-back" : "write-combine");
		return PTR_ERR(um->vaddr);
	}

	/* The sync checker's table, before anyone can map the region. */
	if (um->sync_check) {
		v = um->sync_check;
		um->sync_check = UDMEM_CHECK_OFF;
		ret = uiomem_chk_set_mode(um, v);
		if (ret)
			return ret;
	}

	cdev_init(&um->cdev, &uiomem_fops);
	um->cdev.owner = THIS_MODULE;
	ret = cdev_device_add(&um->cdev, &um->dev);
	if (ret)
		return ret;
	ret = devm_add_action_or_reset(dev, uiomem_del, um);
	if (ret)
		return ret;

	if (uiomem_info_enable)
		dev_info(&um->dev, "%pR minor %d size %llu sync_mode %u cache line %u cached %d coherent %d shareable %d sync_operation %s\n",
			 &res, minor, um->size, um->sync_mode, uiomem_cache_line,
			 um->cached, um->coherent, um->shareable,
			 uiomem_sync_operation());
	return 0;
}

static const struct of_device_id uiomem_of_match[] = {
	{ .compatible = "ikwzm,uiomem" },
	{ }
};
MODULE_DEVICE_TABLE(of, uiomem_of_match);

struct platform_driver uiomem_driver = {
	.probe = uiomem_probe,
	.driver = {
		.name = UIOMEM_DRIVER_NAME,
		.of_match_table = uiomem_of_match,
	},
};

