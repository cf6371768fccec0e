// SPDX-License-Identifier: GPL-2.0
/*
 * u-dma-buf: where buffers are bound, and the module-parameter buffers.
 *
 * The buses a parent device may be named on ("<bus>/<device>"), the lookup
 * of a bind= name, the two ways of making a buffer for a creator (a
 * platform device u-dma-buf.<id> whose probe creates it, or a child of an
 * existing device), and the udmabufN= buffers made at load time.
 */
#include <linux/amba/bus.h>
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/pci.h>
#include <linux/platform_device.h>
#include <linux/string.h>

#include "compat.h"
#include "udmabuf.h"
#include "u-dma-buf-funcs.h"

static struct platform_device *udmabuf_static_pdev[UDMABUF_STATIC_MAX];
static struct udmabuf *udmabuf_static_child[UDMABUF_STATIC_MAX];

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

void __init udmabuf_bus_types_init(void)
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
struct platform_device *udmabuf_pdev_create(const struct udmabuf_params *p, int id)
{
	/*
	 * The probe sets probe_err; if the driver core fails before calling
	 * it (it allocates on the way: sysfs links, devres), the probe never
	 * ran, and only memory can be short there.
	 */
	struct udmabuf_pdata pdata = { .params = *p, .probe_err = -ENOMEM };
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
		int err = done ? done->probe_err : -ENODEV;

		/*
		 * 0: it probed, then was unbound (through sysfs) before we
		 * looked; -EPROBE_DEFER: and a bind through sysfs is probing it
		 * again.  Either way it is not ours to report as created.
		 */
		if (!err || err == -EPROBE_DEFER)
			err = -ENODEV;

		platform_device_unregister(pdev);
		return ERR_PTR(err);
	}
	return pdev;
}

/*
 * Serializes making a buffer bound to a parent, and what its creator reads
 * of it, with the removals that look for such buffers: the parent's unbind
 * or deletion, and u_dma_buf_device_remove().  Taken inside a device lock
 * (the bus notifier runs under the parent's), never around one.
 */
static DEFINE_MUTEX(udmabuf_child_lock);

/**
 * udmabuf_child_add() - make a buffer bound to an existing device
 * @p: what to create
 * @parent: the device doing DMA, the parent of the class device
 * @slot: if not NULL, where to store the buffer (a udmabufN= slot), set
 *	before any removal can see the buffer
 *
 * Return: the buffer's class device, or an ERR_PTR.  The device is valid
 * until the buffer is removed: by u_dma_buf_device_remove(), or when the
 * parent's driver is unbound or the parent goes.
 */
struct device *udmabuf_child_add(const struct udmabuf_params *p,
				 struct device *parent, struct udmabuf **slot)
{
	struct device *dev;
	struct udmabuf *buf;

	if (!parent->dma_mask)
		parent->dma_mask = &parent->coherent_dma_mask;
	if (!*parent->dma_mask && udmabuf_set_dma_mask(parent, udmabuf_dma_mask_bit))
		return ERR_PTR(-EIO);
	mutex_lock(&udmabuf_child_lock);
	buf = udmabuf_create(p, parent, parent);
	if (IS_ERR(buf)) {
		dev = ERR_CAST(buf);
	} else {
		dev = buf->sys_dev;
		if (slot)
			*slot = buf;
	}
	mutex_unlock(&udmabuf_child_lock);
	return dev;
}

int __init udmabuf_static_create(int i)
{
	const char *spec = udmabuf_static_bind[i] && *udmabuf_static_bind[i] ?
			   udmabuf_static_bind[i] : udmabuf_bind;
	struct udmabuf_params p = {
		.minor = i,
		.size = udmabuf_static_size[i],
		.origin = UDMABUF_ORIGIN_STATIC,
		.dma_coherent = udmabuf_static_dma_coherent[i],
		.keep_contents = udmabuf_static_keep_contents[i],
	};
	struct platform_device *pdev;
	struct device *parent, *dev;

	if (spec && *spec) {
		/* A bound parent's coherency is its bus's business. */
		if (p.dma_coherent) {
			pr_err(UDMABUF_DRIVER_NAME ": udmabuf%d: dma_coherent needs its own device, not bind\n",
			       i);
			return -EINVAL;
		}
		parent = udmabuf_find_bind(spec);
		if (!parent) {
			pr_err(UDMABUF_DRIVER_NAME ": bind device \"%s\" not found\n", spec);
			return -EINVAL;
		}
		dev = udmabuf_child_add(&p, parent, &udmabuf_static_child[i]);
		put_device(parent);
		return PTR_ERR_OR_ZERO(dev);
	}
	pdev = udmabuf_pdev_create(&p, i);
	if (IS_ERR(pdev))
		return PTR_ERR(pdev);
	udmabuf_static_pdev[i] = pdev;
	return 0;
}

void udmabuf_static_remove_all(void)
{
	struct udmabuf *child;
	int i;

	for (i = 0; i < UDMABUF_STATIC_MAX; i++) {
		if (udmabuf_static_pdev[i])
			platform_device_unregister(udmabuf_static_pdev[i]);
		udmabuf_static_pdev[i] = NULL;
		/* The parent may have gone first and taken the buffer with it. */
		mutex_lock(&udmabuf_registry_lock);
		child = udmabuf_static_child[i];
		udmabuf_static_child[i] = NULL;
		if (child)
			child->claimed = true;
		mutex_unlock(&udmabuf_registry_lock);
		if (child)
			udmabuf_remove(child);
	}
}

/*
 * A buffer bound to @dev that nobody else is removing, claimed for removal
 * with its creator's reference; NULL when none is left.
 */
static struct udmabuf *udmabuf_claim_child_of(struct device *dev)
{
	struct udmabuf *buf, *found = NULL;
	int i;

	mutex_lock(&udmabuf_registry_lock);
	list_for_each_entry(buf, &udmabuf_list, node) {
		if (buf->dma_dev == dev && !buf->pdev && buf->sys_dev && !buf->claimed) {
			buf->claimed = true;
			found = buf;
			break;
		}
	}
	for (i = 0; found && i < UDMABUF_STATIC_MAX; i++)
		if (udmabuf_static_child[i] == found)
			udmabuf_static_child[i] = NULL;
	mutex_unlock(&udmabuf_registry_lock);
	return found;
}

/*
 * A parent whose driver is unbound, or that goes away (PCI hot-remove or
 * sysfs remove, an overlay, a platform device unregistered), takes its
 * buffers with it: its DMA setup (IOMMU domain, dma-ranges) is undone
 * right after its driver's remove, and their class devices are its
 * children in sysfs.  BUS_NOTIFY_UNBIND_DRIVER comes before the driver's
 * remove, while that setup is still there, so the buffers are detached
 * and imports unmapped through it; BUS_NOTIFY_DEL_DEVICE catches the
 * buffers of a parent that had no driver.  A busy one's memory is freed
 * through that setup too, after its users' mappings are zapped; the users
 * keep their files, which fail with ENODEV (see udmabuf_detach()).
 */
static int udmabuf_parent_notify(struct notifier_block *nb, unsigned long action,
				 void *data)
{
	struct device *dev = data;
	struct udmabuf *buf;
	int n = 0;

	if (action != BUS_NOTIFY_DEL_DEVICE && action != BUS_NOTIFY_UNBIND_DRIVER)
		return NOTIFY_DONE;
	mutex_lock(&udmabuf_child_lock);
	while ((buf = udmabuf_claim_child_of(dev))) {
		dev_info(dev, "removing buffer %s with its parent's %s\n", buf->name,
			 action == BUS_NOTIFY_DEL_DEVICE ? "removal" : "driver");
		udmabuf_remove_revoke(buf);
		n++;
	}
	mutex_unlock(&udmabuf_child_lock);
	return n ? NOTIFY_OK : NOTIFY_DONE;
}

/**
 * udmabuf_child_remove() - remove a bound buffer the in-kernel API claimed
 * @buf: the buffer, claimed by the caller under the registry lock
 *
 * A buffer is findable by name as soon as udmabuf_create() publishes it;
 * the child lock makes its removal wait until its creator has read it.
 */
void udmabuf_child_remove(struct udmabuf *buf)
{
	mutex_lock(&udmabuf_child_lock);
	udmabuf_remove(buf);
	mutex_unlock(&udmabuf_child_lock);
}

/**
 * udmabuf_static_remove() - remove a udmabufN= buffer for the in-kernel API
 * @buf: the buffer, claimed by the caller under the registry lock
 *
 * Return: 0, or -EINVAL if @buf is no (longer a) module-parameter buffer.
 */
int udmabuf_static_remove(struct udmabuf *buf)
{
	struct platform_device *pdev = NULL;
	bool child = false;
	int i;

	mutex_lock(&udmabuf_child_lock);
	mutex_lock(&udmabuf_registry_lock);
	for (i = 0; i < UDMABUF_STATIC_MAX; i++) {
		if (udmabuf_static_child[i] == buf) {
			udmabuf_static_child[i] = NULL;
			child = true;
			break;
		}
		if (buf->pdev && udmabuf_static_pdev[i] == buf->pdev) {
			pdev = udmabuf_static_pdev[i];
			udmabuf_static_pdev[i] = NULL;
			break;
		}
	}
	mutex_unlock(&udmabuf_registry_lock);
	if (child)
		udmabuf_remove(buf);
	mutex_unlock(&udmabuf_child_lock);
	if (pdev)
		platform_device_unregister(pdev);
	return child || pdev ? 0 : -EINVAL;
}

static struct notifier_block udmabuf_parent_nb[ARRAY_SIZE(u_dma_buf_available_bus_type_list) + 1];

/* Watch every bus a parent can be on (the list, and the platform bus). */
int __init udmabuf_parent_watch_init(void)
{
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(udmabuf_parent_nb); i++) {
		const struct bus_type *bus = i ? u_dma_buf_available_bus_type_list[i - 1] :
					     &platform_bus_type;

		if (!bus)
			break;
		udmabuf_parent_nb[i].notifier_call = udmabuf_parent_notify;
		ret = udmem_bus_register_notifier(bus, &udmabuf_parent_nb[i]);
		if (ret) {
			udmabuf_parent_nb[i].notifier_call = NULL;
			udmabuf_parent_watch_exit();
			return ret;
		}
	}
	return 0;
}

void udmabuf_parent_watch_exit(void)
{
	int i;

	for (i = ARRAY_SIZE(udmabuf_parent_nb) - 1; i >= 0; i--) {
		const struct bus_type *bus = i ? u_dma_buf_available_bus_type_list[i - 1] :
					     &platform_bus_type;

		if (!udmabuf_parent_nb[i].notifier_call)
			continue;
		udmem_bus_unregister_notifier(bus, &udmabuf_parent_nb[i]);
		udmabuf_parent_nb[i].notifier_call = NULL;
	}
}
