// SPDX-License-Identifier: GPL-2.0
/*
 * u-dma-chan: the attributes of /sys/class/u-dma-chan/<name>/, one value
 * each.  Those of the DMA channel read "" once the channel is removed.
 */
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/dmaengine.h>
#include <linux/sysfs.h>

#include "udmachan.h"

static struct udc_chan *udc_of(struct device *dev)
{
	return dev_get_drvdata(dev);
}

/* Print what @fn makes of the channel, under its lock; "" once removed. */
static ssize_t udc_chan_show(struct device *dev, char *buf,
			     ssize_t (*fn)(struct dma_chan *chan, char *buf))
{
	struct udc_chan *uc = udc_of(dev);
	ssize_t ret;

	mutex_lock(&uc->lock);
	ret = uc->chan ? fn(uc->chan, buf) : sysfs_emit(buf, "\n");
	mutex_unlock(&uc->lock);
	return ret;
}

static ssize_t udc_channel_fn(struct dma_chan *chan, char *buf)
{
	return sysfs_emit(buf, "%s\n", dma_chan_name(chan));
}

static ssize_t udc_device_fn(struct dma_chan *chan, char *buf)
{
	return sysfs_emit(buf, "%s\n", dev_name(chan->device->dev));
}

static ssize_t udc_dma_mask_fn(struct dma_chan *chan, char *buf)
{
	return sysfs_emit(buf, "0x%llx\n", dma_get_mask(chan->device->dev));
}

static ssize_t udc_copy_align_fn(struct dma_chan *chan, char *buf)
{
	return sysfs_emit(buf, "%u\n", 1u << chan->device->copy_align);
}

static ssize_t udc_max_segment_fn(struct dma_chan *chan, char *buf)
{
	return sysfs_emit(buf, "%u\n", dma_get_max_seg_size(chan->device->dev));
}

static ssize_t udc_caps_fn(struct dma_chan *chan, char *buf)
{
	u64 caps = udc_chan_caps(chan);

	return sysfs_emit(buf, "%s%s%s%s\n",
			  caps & U_DMA_CHAN_CAP_MEMCPY ? "memcpy " : "",
			  caps & U_DMA_CHAN_CAP_DEV_TO_MEM ? "dev_to_mem " : "",
			  caps & U_DMA_CHAN_CAP_MEM_TO_DEV ? "mem_to_dev " : "",
			  caps & U_DMA_CHAN_CAP_CYCLIC ? "cyclic " : "");
}

#define UDC_CHAN_ATTR(name)						\
static ssize_t name##_show(struct device *dev, struct device_attribute *attr, \
			   char *buf)						\
{									\
	return udc_chan_show(dev, buf, udc_##name##_fn);		\
}									\
static DEVICE_ATTR_RO(name)

UDC_CHAN_ATTR(channel);
UDC_CHAN_ATTR(device);
UDC_CHAN_ATTR(dma_mask);
UDC_CHAN_ATTR(copy_align);
UDC_CHAN_ATTR(max_segment);
UDC_CHAN_ATTR(caps);

static ssize_t in_flight_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&udc_of(dev)->in_flight));
}
static DEVICE_ATTR_RO(in_flight);

static ssize_t submitted_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lld\n", (long long)atomic64_read(&udc_of(dev)->submitted));
}
static DEVICE_ATTR_RO(submitted);

static ssize_t completed_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lld\n", (long long)atomic64_read(&udc_of(dev)->completed));
}
static DEVICE_ATTR_RO(completed);

static ssize_t failed_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lld\n", (long long)atomic64_read(&udc_of(dev)->failed));
}
static DEVICE_ATTR_RO(failed);

static ssize_t busy_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct udc_chan *uc = udc_of(dev);
	bool busy;

	mutex_lock(&uc->lock);
	busy = uc->owner;
	mutex_unlock(&uc->lock);
	return sysfs_emit(buf, "%d\n", busy);
}
static DEVICE_ATTR_RO(busy);

enum udc_slave_field { UDC_SLAVE_ADDR, UDC_SLAVE_WIDTH, UDC_SLAVE_MAXBURST };

/*
 * The slave configuration an open file starts with (the device tree's):
 * dev_to_mem_{addr,width,maxburst} and mem_to_dev_*; width 0 is the
 * engine's defaults.  Set at creation, never changed.
 */
static ssize_t udc_slave_show(struct device *dev, char *buf, unsigned int i,
			      enum udc_slave_field what)
{
	const struct dma_slave_config *s = &udc_of(dev)->slave[i];

	switch (what) {
	case UDC_SLAVE_ADDR:
		return sysfs_emit(buf, "0x%llx\n",
				  (unsigned long long)(i ? s->dst_addr : s->src_addr));
	case UDC_SLAVE_WIDTH:
		return sysfs_emit(buf, "%u\n", s->src_addr_width);
	default:
		return sysfs_emit(buf, "%u\n", s->src_maxburst);
	}
}

#define UDC_SLAVE_ATTR(name, i, what)					\
static ssize_t name##_show(struct device *dev, struct device_attribute *attr, \
			   char *buf)					\
{									\
	return udc_slave_show(dev, buf, i, what);			\
}									\
static DEVICE_ATTR_RO(name)

UDC_SLAVE_ATTR(dev_to_mem_addr, 0, UDC_SLAVE_ADDR);
UDC_SLAVE_ATTR(dev_to_mem_width, 0, UDC_SLAVE_WIDTH);
UDC_SLAVE_ATTR(dev_to_mem_maxburst, 0, UDC_SLAVE_MAXBURST);
UDC_SLAVE_ATTR(mem_to_dev_addr, 1, UDC_SLAVE_ADDR);
UDC_SLAVE_ATTR(mem_to_dev_width, 1, UDC_SLAVE_WIDTH);
UDC_SLAVE_ATTR(mem_to_dev_maxburst, 1, UDC_SLAVE_MAXBURST);

static struct attribute *udc_attrs[] = {
	&dev_attr_channel.attr,
	&dev_attr_device.attr,
	&dev_attr_dma_mask.attr,
	&dev_attr_copy_align.attr,
	&dev_attr_max_segment.attr,
	&dev_attr_caps.attr,
	&dev_attr_in_flight.attr,
	&dev_attr_submitted.attr,
	&dev_attr_completed.attr,
	&dev_attr_failed.attr,
	&dev_attr_busy.attr,
	&dev_attr_dev_to_mem_addr.attr,
	&dev_attr_dev_to_mem_width.attr,
	&dev_attr_dev_to_mem_maxburst.attr,
	&dev_attr_mem_to_dev_addr.attr,
	&dev_attr_mem_to_dev_width.attr,
	&dev_attr_mem_to_dev_maxburst.attr,
	NULL,
};

static const struct attribute_group udc_group = {
	.attrs = udc_attrs,
};

const struct attribute_group *udc_groups[] = {
	&udc_group,
	NULL,
};
