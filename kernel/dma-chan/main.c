// SPDX-License-Identifier: GPL-2.0
/*
 * u-dma-chan: kernel DMA engine channels for user space.
 *
 * The class, the character device region, the channel registry (names and
 * minors), creating and removing a channel, and the module's init and exit.
 * Channels come from the device tree (of.c), the memcpy= parameter and
 * /dev/u-dma-chan-mgr (mgr.c).
 */
#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/dmaengine.h>
#include <linux/err.h>
#include <linux/idr.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "compat.h"
#include "udmachan.h"

struct class *udc_class;
struct workqueue_struct *udc_wq;
static dev_t udc_devt;
static struct cdev udc_cdev;

/* udc_registry_lock guards the minor map and the names. */
static DEFINE_MUTEX(udc_registry_lock);
static DEFINE_IDR(udc_minors);

static bool udc_name_valid(const char *name)
{
	const char *c;

	if (!*name || strlen(name) >= UDC_NAME_MAX ||
	    !strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (c = name; *c; c++)
		if (*c == '/' || *c <= ' ' || *c > '~')
			return false;
	return true;
}

static int udc_name_taken_fn(int id, void *p, void *data)
{
	struct udc_chan *uc = p;

	return !strcmp(uc->name, data);
}

/*
 * Engine drivers that need u-dma-chan to work around them, by the name of
 * the driver of the channel's DMA device.
 */
static const struct {
	const char *driver;
	unsigned int quirks;
} udc_quirk_table[] = {
	/*
	 * PL330 (6.1): a descriptor taken from the pool gets its callback
	 * cleared but keeps the callback_result of its last user (which
	 * wins over callback), and only callback is copied to the other
	 * descriptors of a cyclic chain.  The driver passes no result
	 * anyway: a transfer it aborted on a fault completes as done.
	 */
	{ "dma-pl330", UDC_QUIRK_PLAIN_CALLBACK },
	/*
	 * sf-pdma: issue_pending is dropped while a descriptor runs, and
	 * terminate_all frees the running descriptor (still on the issued
	 * list, so freed twice) and clears the pointer that a completion
	 * tasklet already scheduled then dereferences.
	 */
	{ "sf-pdma", UDC_QUIRK_REISSUE | UDC_QUIRK_IDLE_TERMINATE | UDC_QUIRK_LONG_MEMCPY },
	/*
	 * ZynqMP ZDMA: prep_memcpy chains descriptors of at most 1 GiB
	 * itself; PDMA (above) has a 64-bit byte count.  Split at the
	 * device's 64 KiB max_segment, a 1 MiB copy took 16 of ZDMA's 32
	 * descriptors, and a batch of four waited for free ones.
	 */
	{ "xilinx-zynqmp-dma", UDC_QUIRK_LONG_MEMCPY },
};

static unsigned int udc_chan_quirks(struct dma_chan *chan)
{
	const char *drv = dev_driver_string(chan->device->dev);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(udc_quirk_table); i++)
		if (!strcmp(drv, udc_quirk_table[i].driver))
			return udc_quirk_table[i].quirks;
	return 0;
}

static void udc_chan_release(struct device *dev)
{
	kfree(container_of(dev, struct udc_chan, dev));
}

/**
 * udc_chan_create() - publish @chan as /dev/@name
 * @name: the device name
 * @chan: the channel; the new device owns it (released at removal),
 *	and on failure it is released here
 * @from_mgr: made by the manager or memcpy= (which remove it by name)
 * @slave: the slave configuration of each direction (DEV_TO_MEM, then
 *	MEM_TO_DEV) an open file starts with, or NULL for the engine's defaults
 *
 * Return: the channel, or ERR_PTR(-EINVAL) for a bad name, -EEXIST for a
 * name taken, -ENOSPC when every minor is taken, -ENOMEM.
 */
struct udc_chan *udc_chan_create(const char *name, struct dma_chan *chan,
				 bool from_mgr, const struct dma_slave_config *slave)
{
	struct udc_chan *uc;
	int ret;

	if (!udc_name_valid(name)) {
		ret = -EINVAL;
		goto err_release_chan;
	}
	uc = kzalloc(sizeof(*uc), GFP_KERNEL);
	if (!uc) {
		ret = -ENOMEM;
		goto err_release_chan;
	}
	strscpy(uc->name, name, sizeof(uc->name));
	uc->chan = chan;
	uc->from_mgr = from_mgr;
	uc->quirks = udc_chan_quirks(chan);
	if (slave)
		memcpy(uc->slave, slave, sizeof(uc->slave));
	uc->slave[0].direction = DMA_DEV_TO_MEM;
	uc->slave[1].direction = DMA_MEM_TO_DEV;
	mutex_init(&uc->lock);
	INIT_LIST_HEAD(&uc->node);
	device_initialize(&uc->dev);
	uc->dev.class = udc_class;
	/*
	 * No parent, also for a device-tree node's channel: the driver core
	 * would link the parent as "device", the name of our attribute that
	 * names the DMA engine.
	 */
	uc->dev.groups = udc_groups;
	uc->dev.release = udc_chan_release;
	dev_set_drvdata(&uc->dev, uc);
	ret = dev_set_name(&uc->dev, "%s", name);
	if (ret)
		goto err_put_dev;

	mutex_lock(&udc_registry_lock);
	if (idr_for_each(&udc_minors, udc_name_taken_fn, (void *)name)) {
		ret = -EEXIST;
		goto err_unlock;
	}
	ret = idr_alloc(&udc_minors, uc, 0, UDC_MINORS, GFP_KERNEL);
	if (ret < 0)
		goto err_unlock;
	uc->minor = ret;
	uc->dev.devt = MKDEV(MAJOR(udc_devt), uc->minor);
	ret = device_add(&uc->dev);
	if (ret)
		goto err_remove_minor;
	mutex_unlock(&udc_registry_lock);
	dev_info(&uc->dev, "channel %s of %s\n", dma_chan_name(chan),
		 dev_name(chan->device->dev));
	if (uc->quirks & UDC_QUIRK_PLAIN_CALLBACK)
		dev_info(&uc->dev, "%s: completions through callback, not callback_result\n",
			 dev_driver_string(chan->device->dev));
	if (uc->quirks & UDC_QUIRK_REISSUE)
		dev_info(&uc->dev, "%s: issue pending again at each completion\n",
			 dev_driver_string(chan->device->dev));
	if (uc->quirks & UDC_QUIRK_IDLE_TERMINATE)
		dev_info(&uc->dev, "%s: a terminate lets submitted transfers finish first\n",
			 dev_driver_string(chan->device->dev));
	if (uc->quirks & UDC_QUIRK_LONG_MEMCPY)
		dev_info(&uc->dev, "%s: a copy over contiguous memory is one descriptor\n",
			 dev_driver_string(chan->device->dev));
	return uc;

err_remove_minor:
	idr_remove(&udc_minors, uc->minor);
err_unlock:
	mutex_unlock(&udc_registry_lock);
err_put_dev:
	put_device(&uc->dev);
err_release_chan:
	dma_release_channel(chan);
	return ERR_PTR(ret);
}

/**
 * udc_chan_remove() - unpublish a channel and give its DMA channel back
 * @uc: the channel
 *
 * An open file's transfers are stopped and complete with ENODEV; the file
 * stays open, its calls fail with ENODEV, and its records stay readable.
 */
void udc_chan_remove(struct udc_chan *uc)
{
	struct dma_chan *chan;

	mutex_lock(&udc_registry_lock);
	idr_remove(&udc_minors, uc->minor);
	mutex_unlock(&udc_registry_lock);
	device_del(&uc->dev);

	mutex_lock(&uc->lock);
	if (uc->owner) {
		udc_drain(uc->owner, -ENODEV);
		udc_drop_maps(uc->owner);
	}
	chan = uc->chan;
	WRITE_ONCE(uc->chan, NULL);
	/* poll() of the open file reports the hang-up */
	if (uc->owner)
		wake_up_all(&uc->owner->wait);
	mutex_unlock(&uc->lock);
	dma_release_channel(chan);
	put_device(&uc->dev);
}

/* The channel of @minor with a reference, or NULL. */
struct udc_chan *udc_chan_get_minor(int minor)
{
	struct udc_chan *uc;

	mutex_lock(&udc_registry_lock);
	uc = idr_find(&udc_minors, minor);
	if (uc)
		get_device(&uc->dev);
	mutex_unlock(&udc_registry_lock);
	return uc;
}

void udc_chan_put(struct udc_chan *uc)
{
	put_device(&uc->dev);
}

/*
 * Take the first channel @match accepts out of the others' reach (a second
 * delete no longer finds it), or NULL.
 */
static struct udc_chan *udc_claim(bool (*match)(struct udc_chan *uc, const void *data),
				  const void *data)
{
	struct udc_chan *uc;
	int id;

	mutex_lock(&udc_registry_lock);
	idr_for_each_entry(&udc_minors, uc, id) {
		if (!uc->removing && match(uc, data)) {
			uc->removing = true;
			break;
		}
	}
	mutex_unlock(&udc_registry_lock);
	return uc;
}

static bool udc_match_name(struct udc_chan *uc, const void *data)
{
	return uc->from_mgr && !strcmp(uc->name, data);
}

static bool udc_match_mgr(struct udc_chan *uc, const void *data)
{
	return uc->from_mgr;
}

/**
 * udc_chan_remove_named() - remove a channel the manager or memcpy= made
 * @name: its name
 *
 * Return: 0, or -ENOENT if there is no such channel.
 */
int udc_chan_remove_named(const char *name)
{
	struct udc_chan *uc = udc_claim(udc_match_name, name);

	if (!uc)
		return -ENOENT;
	udc_chan_remove(uc);
	return 0;
}

/* Remove every channel the manager or memcpy= made. */
void udc_chan_remove_mgr(void)
{
	struct udc_chan *uc;

	while ((uc = udc_claim(udc_match_mgr, NULL)))
		udc_chan_remove(uc);
}

static char *udc_devnode(udmem_devnode_dev_t *dev, umode_t *mode)
{
	if (mode)
		*mode = 0600;
	return NULL;
}

static int __init udc_init(void)
{
	int ret;

	udc_wq = alloc_ordered_workqueue(UDC_DRIVER_NAME, 0);
	if (!udc_wq)
		return -ENOMEM;
	ret = alloc_chrdev_region(&udc_devt, 0, UDC_MINORS, UDC_DRIVER_NAME);
	if (ret)
		goto err_destroy_wq;
	cdev_init(&udc_cdev, &udc_fops);
	udc_cdev.owner = THIS_MODULE;
	ret = cdev_add(&udc_cdev, udc_devt, UDC_MINORS);
	if (ret)
		goto err_unregister_region;
	udc_class = udmem_class_create(UDC_DRIVER_NAME);
	if (IS_ERR(udc_class)) {
		ret = PTR_ERR(udc_class);
		goto err_del_cdev;
	}
	udc_class->devnode = udc_devnode;
	ret = udc_mgr_register();
	if (ret)
		goto err_destroy_class;
	ret = udc_of_register();
	if (ret)
		goto err_unregister_mgr;
	return 0;

err_unregister_mgr:
	udc_mgr_unregister();
	udc_chan_remove_mgr();
err_destroy_class:
	class_destroy(udc_class);
err_del_cdev:
	cdev_del(&udc_cdev);
err_unregister_region:
	unregister_chrdev_region(udc_devt, UDC_MINORS);
err_destroy_wq:
	destroy_workqueue(udc_wq);
	return ret;
}

static void __exit udc_exit(void)
{
	udc_of_unregister();
	udc_mgr_unregister();
	udc_chan_remove_mgr();
	class_destroy(udc_class);
	cdev_del(&udc_cdev);
	unregister_chrdev_region(udc_devt, UDC_MINORS);
	destroy_workqueue(udc_wq);
	idr_destroy(&udc_minors);
}

module_init(udc_init);
module_exit(udc_exit);

MODULE_DESCRIPTION("u-dma-chan: kernel DMA engine channels for user space");
MODULE_AUTHOR("udmem developers");
MODULE_LICENSE("GPL");
UDMEM_IMPORT_NS_DMA_BUF();
