// SPDX-License-Identifier: GPL-2.0
/*
 * u-dma-buf: the exported in-kernel API (used by u-dma-buf-mgr).
 *
 * u_dma_buf_device_search/create/remove/getmap/sync with the names and
 * meaning of the original driver's in-kernel functions, and the list of
 * platform devices they made, removed at module exit.  Every call that
 * uses a buffer holds a reference on it, so a concurrent removal (the
 * manager, a parent's unbind) cannot free it under the call.
 */
#include <linux/device.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "udmabuf.h"
#include "u-dma-buf-funcs.h"

/* Platform devices made by the manager or the API, until they are removed. */
struct udmabuf_managed_pdev {
	struct list_head node;
	struct platform_device *pdev;
};

static LIST_HEAD(udmabuf_managed_pdevs);

/*
 * The buffers the API sees, as the original driver's device list holds
 * them: made by a module parameter, the manager or the API, attached and
 * not being removed.  Device-tree buffers belong to their node.
 */
static bool udmabuf_api_visible(const struct udmabuf *buf)
{
	return (buf->origin == UDMABUF_ORIGIN_MANAGED || buf->origin == UDMABUF_ORIGIN_STATIC) &&
	       buf->sys_dev && !buf->claimed;
}

static struct udmabuf *udmabuf_find_dev_locked(struct device *dev)
{
	struct udmabuf *buf;

	if (!dev)
		return NULL;
	list_for_each_entry(buf, &udmabuf_list, node)
		if (udmabuf_api_visible(buf) &&
		    (buf->sys_dev == dev || (buf->pdev && &buf->pdev->dev == dev)))
			return buf;
	return NULL;
}

static struct device *udmabuf_api_dev(struct udmabuf *buf)
{
	return buf->pdev ? &buf->pdev->dev : buf->sys_dev;
}

/**
 * u_dma_buf_device_search() - find a buffer made by a module parameter,
 *	the manager or the API
 * @name: device name, or NULL for any
 * @id: minor number, or negative for any
 *
 * Return: the buffer's device (platform device or class device; the last
 * match), or ERR_PTR(-ENODEV).
 */
struct device *u_dma_buf_device_search(const char *name, int id)
{
	struct device *found = ERR_PTR(-ENODEV);
	struct udmabuf *buf;

	mutex_lock(&udmabuf_registry_lock);
	list_for_each_entry(buf, &udmabuf_list, node) {
		if (!udmabuf_api_visible(buf))
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
 * @size: size in bytes (4 GiB and more on 64-bit kernels)
 * @option: [7:0] DMA mask width (0: the dma_mask_bit parameter),
 *	[9] treat the new platform device as DMA-coherent (not with @parent),
 *	[12:10] mmap mode (0: the quirk_mmap_mode parameter),
 *	[13] keep the memory's contents (@parent's no-map memory-region),
 *	[15:14] the sync checker: 0 the sync_check parameter, 1 off, 2 report,
 *	3 strict
 * @parent: device to allocate for, or NULL for a new platform device
 *
 * Return: the buffer's device (see u_dma_buf_device_search()) or ERR_PTR.
 */
struct device *u_dma_buf_device_create(const char *name, int id, size_t size,
				       u64 option, struct device *parent)
{
	struct udmabuf_managed_pdev *entry;
	struct udmabuf_params p = {
		.name = name,
		.minor = id < 0 ? -1 : id,
		.size = size,
		.dma_mask_bits = option & 0xff,
		.quirk_mmap_mode = (option >> 10) & 7,
		.dma_coherent = option & U_DMA_BUF_OPTION_DMA_COHERENT,
		.keep_contents = option & U_DMA_BUF_OPTION_KEEP_CONTENTS,
		.sync_check = (option >> U_DMA_BUF_OPTION_SYNC_CHECK_SHIFT) &
			      U_DMA_BUF_OPTION_SYNC_CHECK_MASK,
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
	if (p.dma_coherent && parent)
		return ERR_PTR(-EINVAL);
	if (name) {
		mutex_lock(&udmabuf_registry_lock);
		buf = udmabuf_find_name_locked(name);
		mutex_unlock(&udmabuf_registry_lock);
		if (buf)
			return ERR_PTR(-EEXIST);
	}
	if (parent)
		return udmabuf_child_add(&p, parent, NULL);
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
 * u_dma_buf_device_remove() - remove a buffer made by a module parameter,
 *	the manager or the API
 * @dev: what u_dma_buf_device_create() or u_dma_buf_device_search() returned
 *
 * Return: 0, -EINVAL if @dev is not such a buffer (as the original driver),
 * -EBUSY while the buffer is open, mapped or exported.
 */
int u_dma_buf_device_remove(struct device *dev)
{
	struct udmabuf_managed_pdev *entry, *found = NULL;
	struct udmabuf *buf;

	mutex_lock(&udmabuf_registry_lock);
	buf = udmabuf_find_dev_locked(dev);
	if (!buf) {
		mutex_unlock(&udmabuf_registry_lock);
		return -EINVAL;
	}
	/* A platform-device buffer is the API's only if it registered the device. */
	if (buf->origin == UDMABUF_ORIGIN_MANAGED && buf->pdev) {
		list_for_each_entry(entry, &udmabuf_managed_pdevs, node) {
			if (entry->pdev == buf->pdev) {
				found = entry;
				break;
			}
		}
		if (!found) {
			mutex_unlock(&udmabuf_registry_lock);
			return -EINVAL;
		}
	}
	if (udmabuf_busy(buf)) {
		mutex_unlock(&udmabuf_registry_lock);
		return -EBUSY;
	}
	/* No open() can find it from here on, nor another remover. */
	udmabuf_hide_locked(buf);
	buf->claimed = true;
	if (found)
		list_del(&found->node);
	mutex_unlock(&udmabuf_registry_lock);

	if (!found && buf->origin == UDMABUF_ORIGIN_STATIC)
		return udmabuf_static_remove(buf);
	if (found) {
		platform_device_unregister(found->pdev);
		kfree(found);
	} else {
		udmabuf_child_remove(buf);
	}
	return 0;
}
EXPORT_SYMBOL(u_dma_buf_device_remove);

/*
 * The buffer of @dev, referenced: the reference keeps its memory and its
 * fields while the caller uses them, also across a concurrent removal.
 */
static struct udmabuf *udmabuf_api_get(struct device *dev)
{
	struct udmabuf *buf;

	mutex_lock(&udmabuf_registry_lock);
	buf = udmabuf_find_dev_locked(dev);
	if (buf)
		kref_get(&buf->ref);
	mutex_unlock(&udmabuf_registry_lock);
	return buf;
}

/**
 * u_dma_buf_device_getmap() - the memory of a buffer the API sees
 * @dev: what u_dma_buf_device_create() or u_dma_buf_device_search() returned
 * @size: out: size in bytes, or NULL
 * @virt: out: kernel address, or NULL
 * @phys: out: DMA address, or NULL
 *
 * Only the pointers given are filled, as by the original driver.
 *
 * Return: 0 or -EINVAL for an unknown @dev.  The memory is valid until
 * the buffer is removed.
 */
int u_dma_buf_device_getmap(struct device *dev, size_t *size, void **virt,
			    dma_addr_t *phys)
{
	struct udmabuf *buf = udmabuf_api_get(dev);

	if (!buf)
		return -EINVAL;
	if (size)
		*size = buf->size;
	if (virt)
		*virt = buf->virt;
	if (phys)
		*phys = buf->dma_addr;
	udmabuf_put(buf);
	return 0;
}
EXPORT_SYMBOL(u_dma_buf_device_getmap);

/**
 * u_dma_buf_device_sync() - cache maintenance on a buffer the API sees
 * @dev: what u_dma_buf_device_create() or u_dma_buf_device_search() returned
 * @command: 0 nothing, 1 for CPU, 2 for device
 * @direction: 0 bidirectional, 1 to device, 2 from device; else unchanged
 * @offset: start of the range (stored as sync_offset)
 * @size: length of the range (stored as sync_size if > 0)
 *
 * Return: 0, -EINVAL for an unknown @dev, a bad command or range, -ENODEV
 * once the buffer is being removed.
 */
int u_dma_buf_device_sync(struct device *dev, int command, int direction,
			  u64 offset, ssize_t size)
{
	struct udmabuf *buf;
	int ret;

	if (command < 0 || command > 2)
		return -EINVAL;
	buf = udmabuf_api_get(dev);
	if (!buf)
		return -EINVAL;
	mutex_lock(&buf->lock);
	if (direction >= 0 && direction <= 2)
		buf->sync_direction = direction;
	buf->sync_offset = offset;
	if (size > 0)
		buf->sync_size = size;
	mutex_unlock(&buf->lock);
	ret = command ? udmabuf_sync_cmd(buf, command == 2, 1, true, UDMABUF_VIA_API) : 0;
	udmabuf_put(buf);
	return ret;
}
EXPORT_SYMBOL(u_dma_buf_device_sync);

static struct udmabuf *udmabuf_first_managed_child(void)
{
	struct udmabuf *buf, *found = NULL;

	mutex_lock(&udmabuf_registry_lock);
	list_for_each_entry(buf, &udmabuf_list, node) {
		if (buf->origin == UDMABUF_ORIGIN_MANAGED && !buf->pdev && buf->sys_dev &&
		    !buf->claimed) {
			buf->claimed = true;
			found = buf;
			break;
		}
	}
	mutex_unlock(&udmabuf_registry_lock);
	return found;
}

/* At module exit: nothing holds a buffer now, module refs pin us while anything does. */
void udmabuf_api_remove_all(void)
{
	struct udmabuf_managed_pdev *entry, *tmp;
	struct udmabuf *buf;

	list_for_each_entry_safe(entry, tmp, &udmabuf_managed_pdevs, node) {
		list_del(&entry->node);
		platform_device_unregister(entry->pdev);
		kfree(entry);
	}
	/* Child buffers the manager or API users made. */
	while ((buf = udmabuf_first_managed_child()))
		udmabuf_remove(buf);
}
