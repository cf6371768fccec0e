// SPDX-License-Identifier: GPL-2.0
/*
 * u-dma-buf: contiguous DMA buffers shared with user space.
 *
 * main.c: module parameters, the buffer registry (minors, names, class
 * devices), buffer creation and removal, the platform driver (device tree,
 * module parameters, manager) and the in-kernel API.
 */
#include <linux/amba/bus.h>
#include <linux/cdev.h>
#include <linux/dma-map-ops.h>
#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/idr.h>
#include <linux/kernel.h>
#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/of_reserved_mem.h>
#include <linux/pci.h>
#include <linux/platform_device.h>
#include <linux/property.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "compat.h"
#include "udmabuf.h"
#include "u-dma-buf-funcs.h"

#define UDMABUF_STATIC_MAX	8

static u64 udmabuf_static_size[UDMABUF_STATIC_MAX];
static char *udmabuf_static_bind[UDMABUF_STATIC_MAX];
static char *udmabuf_bind;

module_param_named(udmabuf0, udmabuf_static_size[0], ullong, 0444);
module_param_named(udmabuf1, udmabuf_static_size[1], ullong, 0444);
module_param_named(udmabuf2, udmabuf_static_size[2], ullong, 0444);
module_param_named(udmabuf3, udmabuf_static_size[3], ullong, 0444);
module_param_named(udmabuf4, udmabuf_static_size[4], ullong, 0444);
module_param_named(udmabuf5, udmabuf_static_size[5], ullong, 0444);
module_param_named(udmabuf6, udmabuf_static_size[6], ullong, 0444);
module_param_named(udmabuf7, udmabuf_static_size[7], ullong, 0444);
MODULE_PARM_DESC(udmabuf0, "size in bytes of buffer udmabuf0 (likewise udmabuf1..7)");
module_param_named(udmabuf0_bind, udmabuf_static_bind[0], charp, 0444);
module_param_named(udmabuf1_bind, udmabuf_static_bind[1], charp, 0444);
module_param_named(udmabuf2_bind, udmabuf_static_bind[2], charp, 0444);
module_param_named(udmabuf3_bind, udmabuf_static_bind[3], charp, 0444);
module_param_named(udmabuf4_bind, udmabuf_static_bind[4], charp, 0444);
module_param_named(udmabuf5_bind, udmabuf_static_bind[5], charp, 0444);
module_param_named(udmabuf6_bind, udmabuf_static_bind[6], charp, 0444);
module_param_named(udmabuf7_bind, udmabuf_static_bind[7], charp, 0444);
MODULE_PARM_DESC(udmabuf0_bind, "parent device of udmabuf0: [pci/]<device> (likewise 1..7)");
module_param_named(bind, udmabuf_bind, charp, 0444);
MODULE_PARM_DESC(bind, "parent device of every udmabufN without its own _bind");

int udmabuf_info_enable = 1;
module_param_named(info_enable, udmabuf_info_enable, int, 0444);
MODULE_PARM_DESC(info_enable, "log: bit 0 buffers, bit 1 DMA details, bit 2 build configuration");

int udmabuf_dma_mask_bit = 32;
module_param_named(dma_mask_bit, udmabuf_dma_mask_bit, int, 0444);
MODULE_PARM_DESC(dma_mask_bit, "DMA mask width for devices without one (12..64)");

int udmabuf_default_quirk_mmap_mode = IS_ENABLED(CONFIG_ARM) || IS_ENABLED(CONFIG_ARM64) ?
				      U_DMA_BUF_MMAP_MODE_ON : U_DMA_BUF_MMAP_MODE_AUTO;
module_param_named(quirk_mmap_mode, udmabuf_default_quirk_mmap_mode, int, 0444);
MODULE_PARM_DESC(quirk_mmap_mode, "default mmap mode: 1 off, 2 on, 3 auto, 4 page");

struct class *udmabuf_class;
static dev_t udmabuf_devt;
static struct cdev udmabuf_cdev;

/* udmabuf_registry_lock guards the minor map, the list and the reservations. */
static DEFINE_MUTEX(udmabuf_registry_lock);
static DEFINE_IDR(udmabuf_minors);
static LIST_HEAD(udmabuf_list);
static DECLARE_BITMAP(udmabuf_reserved_minors, UDMABUF_MINORS);
static struct platform_device *udmabuf_static_pdev[UDMABUF_STATIC_MAX];

/* Platform devices made by the manager or the API, until they are removed. */
struct udmabuf_managed_pdev {
	struct list_head node;
	struct platform_device *pdev;
};

static LIST_HEAD(udmabuf_managed_pdevs);
static struct udmabuf *udmabuf_static_child[UDMABUF_STATIC_MAX];

bool udmabuf_dma_coherent(const struct udmabuf *buf)
{
	return dev_is_dma_coherent(buf->dma_dev);
}

int udmabuf_dma_mask_bits(const struct udmabuf *buf)
{
	u64 mask;

	if (!buf->dma_dev->dma_mask)
		return 0;
	mask = *buf->dma_dev->dma_mask;
	return mask == U64_MAX ? 64 : fls64(mask + 1) - 1;
}

static bool udmabuf_name_valid(const char *name)
{
	const char *c;

	if (!*name || strlen(name) >= UDMABUF_NAME_MAX ||
	    !strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (c = name; *c; c++)
		if (*c == '/' || *c <= ' ' || *c > '~')
			return false;
	return true;
}

static struct udmabuf *udmabuf_find_name_locked(const char *name)
{
	struct udmabuf *buf;

	list_for_each_entry(buf, &udmabuf_list, node)
		if (!strcmp(buf->name, name))
			return buf;
	return NULL;
}

/* Take a minor for @buf: @want, or the lowest one neither used nor reserved. */
static int udmabuf_minor_alloc_locked(struct udmabuf *buf, int want)
{
	int m;

	if (want >= 0) {
		if (want >= UDMABUF_MINORS)
			return -EINVAL;
		m = idr_alloc(&udmabuf_minors, buf, want, want + 1, GFP_KERNEL);
		return m == -ENOSPC ? -EBUSY : m;
	}
	for (m = 0; m < UDMABUF_MINORS; m++) {
		if (test_bit(m, udmabuf_reserved_minors) || idr_find(&udmabuf_minors, m))
			continue;
		return idr_alloc(&udmabuf_minors, buf, m, m + 1, GFP_KERNEL);
	}
	return -ENOSPC;
}

static void udmabuf_info(struct udmabuf *buf)
{
	struct device *dev = buf->sys_dev;

	if (!udmabuf_info_enable)
		return;
	dev_info(dev, "driver version = %s\n", UDMABUF_DRIVER_VERSION);
	dev_info(dev, "major number   = %d\n", MAJOR(udmabuf_devt));
	dev_info(dev, "minor number   = %d\n", buf->minor);
	dev_info(dev, "phys address   = %pad\n", &buf->dma_addr);
	dev_info(dev, "buffer size    = %zu\n", buf->alloc_size);
	if (udmabuf_info_enable & 2) {
		dev_info(dev, "dma device     = %s\n", dev_name(buf->dma_dev));
		dev_info(dev, "dma bus        = %s\n",
			 buf->dma_dev->bus ? buf->dma_dev->bus->name : "");
		dev_info(dev, "dma coherent   = %d\n", udmabuf_dma_coherent(buf));
		dev_info(dev, "dma mask       = 0x%016llx\n",
			 buf->dma_dev->dma_mask ? *buf->dma_dev->dma_mask : 0ULL);
		dev_info(dev, "mmap mode      = %d (%s)\n", buf->quirk_mmap_mode,
			 buf->pages ? "pages" : buf->pfn_ok ? "pfn, whole range at mmap" :
			 "dma_mmap_coherent");
		dev_info(dev, "cpu cache ops  = %s\n", buf->no_cpu_sync ? "none (no-map memory)" :
			 "dma sync");
	}
}

/**
 * udmabuf_create() - allocate a buffer and publish it
 * @p: what to create
 * @dma_dev: the device doing DMA (platform device or bound parent)
 * @parent: parent of the class device
 *
 * Return: the buffer, holding its creator's reference, or an ERR_PTR.
 */
struct udmabuf *udmabuf_create(const struct udmabuf_params *p,
			       struct device *dma_dev, struct device *parent)
{
	struct udmabuf *buf;
	struct device *sys_dev;
	int ret;

	if (!p->size)
		return ERR_PTR(-EINVAL);
	if (p->size > (u64)SIZE_MAX - PAGE_SIZE + 1)
		return ERR_PTR(-E2BIG);
	if (p->sync_mode > UDMABUF_SYNC_MODE_MAX ||
	    !udmem_sync_dir_valid(p->sync_direction))
		return ERR_PTR(-EINVAL);

	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return ERR_PTR(-ENOMEM);
	kref_init(&buf->ref);
	mutex_init(&buf->lock);
	INIT_LIST_HEAD(&buf->node);
	buf->origin = p->origin;
	buf->size = p->size;
	buf->alloc_size = PAGE_ALIGN((size_t)p->size);
	buf->quirk_mmap_mode = p->quirk_mmap_mode ? p->quirk_mmap_mode :
			       udmabuf_default_quirk_mmap_mode;
	buf->sync_mode = p->sync_mode_set ? p->sync_mode : UDMABUF_SYNC_NONCACHED;
	buf->sync_offset = p->sync_offset;
	buf->sync_size = p->sync_size ? p->sync_size : p->size;
	buf->sync_direction = p->sync_direction;
	buf->dma_dev = get_device(dma_dev);
	buf->view.buf = buf;
	buf->view.len = buf->alloc_size;

	mutex_lock(&udmabuf_registry_lock);
	ret = udmabuf_minor_alloc_locked(buf, p->minor);
	if (ret < 0)
		goto err_unlock;
	buf->minor = ret;
	if (p->name)
		strscpy(buf->name, p->name, sizeof(buf->name));
	else
		snprintf(buf->name, sizeof(buf->name), "udmabuf%d", buf->minor);
	ret = -EINVAL;
	if (!udmabuf_name_valid(buf->name) || (p->name && strlen(p->name) >= UDMABUF_NAME_MAX))
		goto err_free_minor;
	ret = -EEXIST;
	if (udmabuf_find_name_locked(buf->name))
		goto err_free_minor;
	/* Not findable by open() until the class device exists. */
	idr_replace(&udmabuf_minors, NULL, buf->minor);
	list_add_tail(&buf->node, &udmabuf_list);
	mutex_unlock(&udmabuf_registry_lock);

	ret = udmabuf_alloc(buf);
	if (ret)
		goto err_unlist;

	sys_dev = device_create_with_groups(udmabuf_class, parent,
					    MKDEV(MAJOR(udmabuf_devt), buf->minor),
					    buf, udmabuf_groups, "%s", buf->name);
	if (IS_ERR(sys_dev)) {
		ret = PTR_ERR(sys_dev);
		goto err_free_mem;
	}
	mutex_lock(&udmabuf_registry_lock);
	buf->sys_dev = sys_dev;
	idr_replace(&udmabuf_minors, buf, buf->minor);
	mutex_unlock(&udmabuf_registry_lock);
	udmabuf_info(buf);
	return buf;

err_free_mem:
	udmabuf_free(buf);
err_unlist:
	mutex_lock(&udmabuf_registry_lock);
	list_del(&buf->node);
err_free_minor:
	idr_remove(&udmabuf_minors, buf->minor);
err_unlock:
	mutex_unlock(&udmabuf_registry_lock);
	put_device(buf->dma_dev);
	kfree(buf);
	return ERR_PTR(ret);
}

static void udmabuf_release(struct kref *ref)
{
	struct udmabuf *buf = container_of(ref, struct udmabuf, ref);

	udmabuf_free(buf);
	if (buf->rmem)
		of_reserved_mem_device_release(buf->dma_dev);
	put_device(buf->dma_dev);
	kfree(buf);
}

void udmabuf_put(struct udmabuf *buf)
{
	kref_put(&buf->ref, udmabuf_release);
}

/* A referenced, attached buffer by minor, for open(); NULL if none. */
struct udmabuf *udmabuf_get_by_minor(unsigned int minor)
{
	struct udmabuf *buf;

	mutex_lock(&udmabuf_registry_lock);
	buf = idr_find(&udmabuf_minors, minor);
	if (buf)
		kref_get(&buf->ref);
	mutex_unlock(&udmabuf_registry_lock);
	return buf;
}

/* Unpublish: no new opens, no node, no sysfs.  Caller's reference is dropped. */
static void udmabuf_detach(struct udmabuf *buf)
{
	struct device *sys_dev;

	mutex_lock(&udmabuf_registry_lock);
	sys_dev = buf->sys_dev;
	buf->sys_dev = NULL;
	if (sys_dev)
		idr_remove(&udmabuf_minors, buf->minor);
	list_del_init(&buf->node);
	mutex_unlock(&udmabuf_registry_lock);

	mutex_lock(&buf->lock);
	buf->detached = true;
	mutex_unlock(&buf->lock);
	if (sys_dev) {
		if (udmabuf_info_enable)
			dev_info(sys_dev, "removed.\n");
		device_unregister(sys_dev);
	}
}

/**
 * udmabuf_remove() - detach a buffer and drop its creator's reference
 * @buf: the buffer
 *
 * The memory stays until open files, mappings and exports are gone.
 */
void udmabuf_remove(struct udmabuf *buf)
{
	udmabuf_detach(buf);
	udmabuf_put(buf);
}

/* A buffer is busy while anything but its creator holds it. */
static bool udmabuf_busy(struct udmabuf *buf)
{
	return kref_read(&buf->ref) > 1;
}

/* ---- the platform driver ---- */

/* Platform data of the devices made for module parameters and the manager. */
struct udmabuf_pdata {
	struct udmabuf_params params;
	char name[UDMABUF_NAME_MAX];
	int probe_err;		/* written by the probe for the creator */
};

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
	u32 v;
	u64 v64, end;

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

static int udmabuf_set_dma_mask(struct device *dev, int bits)
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

	if (device_property_present(dev, "memory-region")) {
		ret = of_reserved_mem_device_init(dev);
		if (ret) {
			dev_err(dev, "of_reserved_mem_device_init failed: %d\n", ret);
			return ret;
		}
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

	buf = udmabuf_create(&p, dev, dev);
	if (IS_ERR(buf)) {
		ret = PTR_ERR(buf);
		dev_err(dev, "cannot create buffer: %d\n", ret);
		goto err_release_rmem;
	}
	buf->pdev = pdev;
	buf->rmem = rmem;
	platform_set_drvdata(pdev, buf);
	if (pdata)
		pdata->probe_err = 0;
	if (udmabuf_info_enable)
		dev_info(dev, "driver installed.\n");
	return 0;

err_release_rmem:
	if (rmem)
		of_reserved_mem_device_release(dev);
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

static const struct of_device_id udmabuf_of_match[] = {
	{ .compatible = "ikwzm,u-dma-buf" },
	{ }
};
MODULE_DEVICE_TABLE(of, udmabuf_of_match);

static struct platform_driver udmabuf_platform_driver = {
	.probe = udmabuf_platform_probe,
	.UDMEM_PLATFORM_REMOVE = udmabuf_platform_remove,
	.driver = {
		.name = UDMABUF_DRIVER_NAME,
		.of_match_table = udmabuf_of_match,
	},
};

/* ---- buffers made by module parameters, the manager and the API ---- */

/*
 * The buses a parent device may be named on as "<bus>/<device>" (the
 * platform bus needs no prefix), NULL-terminated, as the original driver
 * exports them.  Filled at load time with the buses this kernel has.
 */
const struct bus_type *u_dma_buf_available_bus_type_list[4];
EXPORT_SYMBOL(u_dma_buf_available_bus_type_list);

const struct bus_type *u_dma_buf_find_available_bus_type(const char *name, int len)
{
	int i;

	for (i = 0; u_dma_buf_available_bus_type_list[i]; i++) {
		const struct bus_type *bus = u_dma_buf_available_bus_type_list[i];

		if (len >= 0 && strlen(bus->name) == len && !strncmp(bus->name, name, len))
			return bus;
	}
	return NULL;
}
EXPORT_SYMBOL(u_dma_buf_find_available_bus_type);

#ifdef CONFIG_PCIEPORTBUS
/*
 * The PCI Express port services ("0000:00:01.0:pcie002" and so on) sit on
 * the "pci_express" bus, whose bus_type is not exported since 6.6.  Every
 * service device is a child of its port's pci_dev, so take the bus from
 * the first child found there.
 */
static int udmabuf_pcie_child(struct device *dev, void *data)
{
	const struct bus_type **found = data;

	if (dev->bus && !strcmp(dev->bus->name, "pci_express")) {
		*found = dev->bus;
		return 1;
	}
	return 0;
}

static int udmabuf_pcie_port(struct device *dev, void *data)
{
	return device_for_each_child(dev, data, udmabuf_pcie_child);
}

static const struct bus_type *udmabuf_pcie_port_bus(void)
{
	const struct bus_type *found = NULL;

	bus_for_each_dev(&pci_bus_type, NULL, &found, udmabuf_pcie_port);
	return found;
}
#else
static const struct bus_type *udmabuf_pcie_port_bus(void)
{
	return NULL;
}
#endif

static void __init udmabuf_bus_types_init(void)
{
	const struct bus_type *pcie;
	int n = 0;

	if (IS_ENABLED(CONFIG_ARM_AMBA))
		u_dma_buf_available_bus_type_list[n++] = &amba_bustype;
	if (IS_ENABLED(CONFIG_PCI))
		u_dma_buf_available_bus_type_list[n++] = &pci_bus_type;
	pcie = udmabuf_pcie_port_bus();
	if (pcie)
		u_dma_buf_available_bus_type_list[n++] = pcie;
}

static struct device *udmabuf_find_bind(const char *spec)
{
	const char *slash = strchr(spec, '/');
	const struct bus_type *bus;

	if (!slash)
		return bus_find_device_by_name(&platform_bus_type, NULL, spec);
	bus = u_dma_buf_find_available_bus_type(spec, slash - spec);
	return bus ? udmem_bus_find_device_by_name(bus, slash + 1) : NULL;
}

/* A platform device u-dma-buf.<id> whose probe creates the buffer. */
static struct platform_device *udmabuf_pdev_create(const struct udmabuf_params *p, int id)
{
	struct udmabuf_pdata pdata = { .params = *p };
	struct platform_device_info info = {
		.name = UDMABUF_DRIVER_NAME,
		.id = id,
		.data = &pdata,
		.size_data = sizeof(pdata),
		.dma_mask = DMA_BIT_MASK(32),
	};
	struct platform_device *pdev;

	if (p->name)
		strscpy(pdata.name, p->name, sizeof(pdata.name));
	pdata.params.name = NULL;
	pdev = platform_device_register_full(&info);
	if (IS_ERR(pdev))
		return pdev;
	if (!platform_get_drvdata(pdev)) {
		const struct udmabuf_pdata *done = dev_get_platdata(&pdev->dev);
		int err = done && done->probe_err ? done->probe_err : -ENODEV;

		platform_device_unregister(pdev);
		return ERR_PTR(err);
	}
	return pdev;
}

static struct udmabuf *udmabuf_child_create(const struct udmabuf_params *p,
					    struct device *parent)
{
	if (!parent->dma_mask)
		parent->dma_mask = &parent->coherent_dma_mask;
	if (!*parent->dma_mask && udmabuf_set_dma_mask(parent, udmabuf_dma_mask_bit))
		return ERR_PTR(-EIO);
	return udmabuf_create(p, parent, parent);
}

static int __init udmabuf_static_create(int i)
{
	const char *spec = udmabuf_static_bind[i] && *udmabuf_static_bind[i] ?
			   udmabuf_static_bind[i] : udmabuf_bind;
	struct udmabuf_params p = {
		.minor = i,
		.size = udmabuf_static_size[i],
		.origin = UDMABUF_ORIGIN_STATIC,
	};
	struct platform_device *pdev;
	struct udmabuf *buf;
	struct device *parent;

	if (spec && *spec) {
		parent = udmabuf_find_bind(spec);
		if (!parent) {
			pr_err(UDMABUF_DRIVER_NAME ": bind device \"%s\" not found\n", spec);
			return -EINVAL;
		}
		buf = udmabuf_child_create(&p, parent);
		put_device(parent);
		if (IS_ERR(buf))
			return PTR_ERR(buf);
		udmabuf_static_child[i] = buf;
		return 0;
	}
	pdev = udmabuf_pdev_create(&p, i);
	if (IS_ERR(pdev))
		return PTR_ERR(pdev);
	udmabuf_static_pdev[i] = pdev;
	return 0;
}

static void udmabuf_static_remove_all(void)
{
	int i;

	for (i = 0; i < UDMABUF_STATIC_MAX; i++) {
		if (udmabuf_static_pdev[i])
			platform_device_unregister(udmabuf_static_pdev[i]);
		if (udmabuf_static_child[i])
			udmabuf_remove(udmabuf_static_child[i]);
		udmabuf_static_pdev[i] = NULL;
		udmabuf_static_child[i] = NULL;
	}
}

/* ---- in-kernel API (used by u-dma-buf-mgr) ---- */

static struct udmabuf *udmabuf_find_dev_locked(struct device *dev)
{
	struct udmabuf *buf;

	list_for_each_entry(buf, &udmabuf_list, node)
		if (buf->origin == UDMABUF_ORIGIN_MANAGED &&
		    (buf->sys_dev == dev || (buf->pdev && &buf->pdev->dev == dev)))
			return buf;
	return NULL;
}

static struct device *udmabuf_api_dev(struct udmabuf *buf)
{
	return buf->pdev ? &buf->pdev->dev : buf->sys_dev;
}

/**
 * u_dma_buf_device_search() - find a buffer made by the manager or the API
 * @name: device name, or NULL for any
 * @id: minor number, or negative for any
 *
 * Return: the buffer's device (platform device or class device), or
 * ERR_PTR(-ENODEV).
 */
struct device *u_dma_buf_device_search(const char *name, int id)
{
	struct device *found = ERR_PTR(-ENODEV);
	struct udmabuf *buf;

	mutex_lock(&udmabuf_registry_lock);
	list_for_each_entry(buf, &udmabuf_list, node) {
		if (buf->origin != UDMABUF_ORIGIN_MANAGED || !buf->sys_dev)
			continue;
		if ((!name || !strcmp(name, buf->name)) && (id < 0 || id == buf->minor))
			found = udmabuf_api_dev(buf);
	}
	mutex_unlock(&udmabuf_registry_lock);
	return found;
}
EXPORT_SYMBOL(u_dma_buf_device_search);

/**
 * u_dma_buf_device_create() - create a buffer
 * @name: device name, or NULL for "udmabuf<minor>"
 * @id: minor number, or negative for the lowest free one
 * @size: size in bytes (any size, including 4 GiB and more)
 * @option: [7:0] DMA mask width (0: the dma_mask_bit parameter),
 *	[12:10] mmap mode (0: the quirk_mmap_mode parameter)
 * @parent: device to allocate for, or NULL for a new platform device
 *
 * Return: the buffer's device (see u_dma_buf_device_search()) or ERR_PTR.
 */
struct device *u_dma_buf_device_create(const char *name, int id, u64 size,
				       u64 option, struct device *parent)
{
	struct udmabuf_managed_pdev *entry;
	struct udmabuf_params p = {
		.name = name,
		.minor = id < 0 ? -1 : id,
		.size = size,
		.dma_mask_bits = option & 0xff,
		.quirk_mmap_mode = (option >> 10) & 7,
		.origin = UDMABUF_ORIGIN_MANAGED,
	};
	struct platform_device *pdev;
	struct udmabuf *buf;

	if (!size || (name && !udmabuf_name_valid(name)))
		return ERR_PTR(-EINVAL);
	if (p.dma_mask_bits && (p.dma_mask_bits < 12 || p.dma_mask_bits > 64))
		return ERR_PTR(-EINVAL);
	if (p.quirk_mmap_mode > U_DMA_BUF_MMAP_MODE_PAGE)
		return ERR_PTR(-EINVAL);
	if (name) {
		mutex_lock(&udmabuf_registry_lock);
		buf = udmabuf_find_name_locked(name);
		mutex_unlock(&udmabuf_registry_lock);
		if (buf)
			return ERR_PTR(-EEXIST);
	}
	if (parent) {
		buf = udmabuf_child_create(&p, parent);
		return IS_ERR(buf) ? ERR_CAST(buf) : buf->sys_dev;
	}
	entry = kzalloc(sizeof(*entry), GFP_KERNEL);
	if (!entry)
		return ERR_PTR(-ENOMEM);
	pdev = udmabuf_pdev_create(&p, PLATFORM_DEVID_AUTO);
	if (IS_ERR(pdev)) {
		kfree(entry);
		return ERR_CAST(pdev);
	}
	entry->pdev = pdev;
	mutex_lock(&udmabuf_registry_lock);
	list_add_tail(&entry->node, &udmabuf_managed_pdevs);
	mutex_unlock(&udmabuf_registry_lock);
	return &pdev->dev;
}
EXPORT_SYMBOL(u_dma_buf_device_create);

/**
 * u_dma_buf_device_remove() - remove a buffer made by the manager or the API
 * @dev: what u_dma_buf_device_create() returned
 *
 * Return: 0, -ENOENT if @dev is not such a buffer, -EBUSY while the buffer
 * is open, mapped or exported.
 */
int u_dma_buf_device_remove(struct device *dev)
{
	struct udmabuf_managed_pdev *entry, *found = NULL;
	struct udmabuf *buf;

	mutex_lock(&udmabuf_registry_lock);
	buf = udmabuf_find_dev_locked(dev);
	if (!buf || !buf->sys_dev) {
		mutex_unlock(&udmabuf_registry_lock);
		return -ENOENT;
	}
	if (udmabuf_busy(buf)) {
		mutex_unlock(&udmabuf_registry_lock);
		return -EBUSY;
	}
	/* No open() can find it from here on. */
	idr_replace(&udmabuf_minors, NULL, buf->minor);
	buf->origin = UDMABUF_ORIGIN_STATIC;
	list_for_each_entry(entry, &udmabuf_managed_pdevs, node) {
		if (buf->pdev && entry->pdev == buf->pdev) {
			list_del(&entry->node);
			found = entry;
			break;
		}
	}
	mutex_unlock(&udmabuf_registry_lock);

	if (found) {
		platform_device_unregister(found->pdev);
		kfree(found);
	} else {
		udmabuf_remove(buf);
	}
	return 0;
}
EXPORT_SYMBOL(u_dma_buf_device_remove);

static struct udmabuf *udmabuf_from_api_dev(struct device *dev)
{
	struct udmabuf *buf;

	mutex_lock(&udmabuf_registry_lock);
	buf = udmabuf_find_dev_locked(dev);
	mutex_unlock(&udmabuf_registry_lock);
	return buf;
}

/**
 * u_dma_buf_device_getmap() - the memory of a buffer made by the API
 * @dev: what u_dma_buf_device_create() returned
 * @size: out: size in bytes
 * @virt: out: kernel address
 * @phys: out: DMA address
 *
 * Return: 0 or -ENODEV.  Valid until u_dma_buf_device_remove().
 */
int u_dma_buf_device_getmap(struct device *dev, size_t *size, void **virt,
			    dma_addr_t *phys)
{
	struct udmabuf *buf = udmabuf_from_api_dev(dev);

	if (!buf)
		return -ENODEV;
	*size = buf->size;
	*virt = buf->virt;
	*phys = buf->dma_addr;
	return 0;
}
EXPORT_SYMBOL(u_dma_buf_device_getmap);

/**
 * u_dma_buf_device_sync() - cache maintenance on a buffer made by the API
 * @dev: what u_dma_buf_device_create() returned
 * @command: 0 nothing, 1 for CPU, 2 for device
 * @direction: 0 bidirectional, 1 to device, 2 from device; else unchanged
 * @offset: start of the range (stored as sync_offset)
 * @size: length of the range (stored as sync_size if > 0)
 *
 * Return: 0, -ENODEV, or -EINVAL for a bad command or range.
 */
int u_dma_buf_device_sync(struct device *dev, int command, int direction,
			  u64 offset, ssize_t size)
{
	struct udmabuf *buf = udmabuf_from_api_dev(dev);
	int ret;

	if (!buf)
		return -ENODEV;
	if (command < 0 || command > 2)
		return -EINVAL;
	mutex_lock(&buf->lock);
	if (direction >= 0 && direction <= 2)
		buf->sync_direction = direction;
	buf->sync_offset = offset;
	if (size > 0)
		buf->sync_size = size;
	mutex_unlock(&buf->lock);
	if (!command)
		return 0;
	ret = udmabuf_sync_cmd(buf, command == 2, 1);
	return ret;
}
EXPORT_SYMBOL(u_dma_buf_device_sync);

/* ---- module init and exit ---- */

static char *udmabuf_devnode(udmem_devnode_dev_t *dev, umode_t *mode)
{
	if (mode)
		*mode = 0600;
	return NULL;
}

static int __init udmabuf_module_init(void)
{
	int ret, i;

	udmabuf_bus_types_init();

	ret = alloc_chrdev_region(&udmabuf_devt, 0, UDMABUF_MINORS, UDMABUF_DRIVER_NAME);
	if (ret)
		return ret;
	cdev_init(&udmabuf_cdev, &udmabuf_fops);
	udmabuf_cdev.owner = THIS_MODULE;
	ret = cdev_add(&udmabuf_cdev, udmabuf_devt, UDMABUF_MINORS);
	if (ret)
		goto err_unregister_region;
	udmabuf_class = udmem_class_create(UDMABUF_DRIVER_NAME);
	if (IS_ERR(udmabuf_class)) {
		ret = PTR_ERR(udmabuf_class);
		goto err_del_cdev;
	}
	udmabuf_class->devnode = udmabuf_devnode;

	/* Module-parameter buffers own their minors before any probe runs. */
	for (i = 0; i < UDMABUF_STATIC_MAX; i++)
		if (udmabuf_static_size[i])
			set_bit(i, udmabuf_reserved_minors);

	ret = platform_driver_register(&udmabuf_platform_driver);
	if (ret)
		goto err_destroy_class;
	for (i = 0; i < UDMABUF_STATIC_MAX; i++) {
		if (!udmabuf_static_size[i])
			continue;
		ret = udmabuf_static_create(i);
		if (ret == -EINVAL)
			goto err_remove_static;
		if (ret)
			pr_err(UDMABUF_DRIVER_NAME ": udmabuf%d: cannot create: %d\n", i, ret);
	}
	if (udmabuf_info_enable & 4)
		pr_info(UDMABUF_DRIVER_NAME ": config: version %s, quirk_mmap_mode=%d, dma_mask_bit=%d, export=%d\n",
			UDMABUF_DRIVER_VERSION, udmabuf_default_quirk_mmap_mode,
			udmabuf_dma_mask_bit, IS_ENABLED(CONFIG_DMA_SHARED_BUFFER));
	return 0;

err_remove_static:
	udmabuf_static_remove_all();
	platform_driver_unregister(&udmabuf_platform_driver);
err_destroy_class:
	class_destroy(udmabuf_class);
err_del_cdev:
	cdev_del(&udmabuf_cdev);
err_unregister_region:
	unregister_chrdev_region(udmabuf_devt, UDMABUF_MINORS);
	return ret;
}

static struct udmabuf *udmabuf_first_managed_child(void)
{
	struct udmabuf *buf, *found = NULL;

	mutex_lock(&udmabuf_registry_lock);
	list_for_each_entry(buf, &udmabuf_list, node) {
		if (buf->origin == UDMABUF_ORIGIN_MANAGED && !buf->pdev) {
			found = buf;
			break;
		}
	}
	mutex_unlock(&udmabuf_registry_lock);
	return found;
}

static void __exit udmabuf_module_exit(void)
{
	struct udmabuf_managed_pdev *entry, *tmp;
	struct udmabuf *buf;

	udmabuf_static_remove_all();
	/* Nothing holds a buffer now: module refs pin us while anything does. */
	list_for_each_entry_safe(entry, tmp, &udmabuf_managed_pdevs, node) {
		list_del(&entry->node);
		platform_device_unregister(entry->pdev);
		kfree(entry);
	}
	/* Child buffers the manager or API users made. */
	while ((buf = udmabuf_first_managed_child()))
		udmabuf_remove(buf);
	/* The device-tree buffers go with the driver. */
	platform_driver_unregister(&udmabuf_platform_driver);
	class_destroy(udmabuf_class);
	cdev_del(&udmabuf_cdev);
	unregister_chrdev_region(udmabuf_devt, UDMABUF_MINORS);
	idr_destroy(&udmabuf_minors);
}

module_init(udmabuf_module_init);
module_exit(udmabuf_module_exit);

MODULE_DESCRIPTION("u-dma-buf: contiguous DMA buffers shared with user space");
MODULE_AUTHOR("udmem project");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_VERSION(UDMABUF_DRIVER_VERSION);
