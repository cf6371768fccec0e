// SPDX-License-Identifier: GPL-2.0
/*
 * u-dma-buf: the attributes of /sys/class/u-dma-buf/<name>/
 * (documented in docs/ABI/sysfs-class-u-dma-buf).
 *
 * Stores take base-0 numbers (decimal, 0x hex, 0 octal) with one optional
 * trailing newline; a value out of range is -EINVAL and leaves the
 * attribute unchanged.
 */
#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/sysfs.h>

#include "udmabuf.h"
#include "udmem_parse.h"

static ssize_t driver_version_show(struct device *dev, struct device_attribute *attr,
				   char *page)
{
	return sysfs_emit(page, "%s\n", UDMABUF_DRIVER_VERSION);
}
static DEVICE_ATTR_RO(driver_version);

static ssize_t size_show(struct device *dev, struct device_attribute *attr, char *page)
{
	struct udmabuf *buf = dev_get_drvdata(dev);

	return sysfs_emit(page, "%llu\n", buf->size);
}
static DEVICE_ATTR_RO(size);

static ssize_t phys_addr_show(struct device *dev, struct device_attribute *attr, char *page)
{
	struct udmabuf *buf = dev_get_drvdata(dev);

	return sysfs_emit(page, "%pad\n", &buf->dma_addr);
}
static DEVICE_ATTR_RO(phys_addr);

/* A u64 attribute: show in @fmt, store 0..@max. */
#define UDMABUF_ATTR_U64(name, fmt, max)					\
static ssize_t name##_show(struct device *dev, struct device_attribute *attr,	\
			   char *page)						\
{										\
	struct udmabuf *buf = dev_get_drvdata(dev);				\
	u64 val;								\
										\
	if (mutex_lock_interruptible(&buf->lock))				\
		return -ERESTARTSYS;						\
	val = buf->name;							\
	mutex_unlock(&buf->lock);						\
	return sysfs_emit(page, fmt "\n", val);					\
}										\
static ssize_t name##_store(struct device *dev, struct device_attribute *attr,	\
			    const char *page, size_t count)			\
{										\
	struct udmabuf *buf = dev_get_drvdata(dev);				\
	u64 val;								\
	int ret;								\
										\
	ret = udmem_parse_u64(page, (max), &val);				\
	if (ret)								\
		return ret;							\
	if (mutex_lock_interruptible(&buf->lock))				\
		return -ERESTARTSYS;						\
	buf->name = val;							\
	mutex_unlock(&buf->lock);						\
	return count;								\
}										\
static DEVICE_ATTR_RW(name)

UDMABUF_ATTR_U64(sync_mode, "%llu", UDMABUF_SYNC_MODE_MAX);
UDMABUF_ATTR_U64(sync_offset, "0x%llx", U64_MAX);
UDMABUF_ATTR_U64(sync_size, "%llu", U64_MAX);
UDMABUF_ATTR_U64(sync_direction, "%llu", UDMEM_SYNC_FROM_DEVICE);
UDMABUF_ATTR_U64(debug_vma, "%llu", 3);
UDMABUF_ATTR_U64(debug_export, "%llu", 1);

static ssize_t sync_owner_show(struct device *dev, struct device_attribute *attr, char *page)
{
	struct udmabuf *buf = dev_get_drvdata(dev);

	return sysfs_emit(page, "%u\n", READ_ONCE(buf->sync_owner));
}
static DEVICE_ATTR_RO(sync_owner);

static ssize_t udmabuf_sync_show(struct device *dev, char *page, bool for_device)
{
	struct udmabuf *buf = dev_get_drvdata(dev);
	u64 val;

	if (mutex_lock_interruptible(&buf->lock))
		return -ERESTARTSYS;
	val = for_device ? buf->sync_for_device : buf->sync_for_cpu;
	mutex_unlock(&buf->lock);
	return sysfs_emit(page, "%llu\n", val);
}

static ssize_t udmabuf_sync_store(struct device *dev, const char *page, size_t count,
				  bool for_device)
{
	struct udmabuf *buf = dev_get_drvdata(dev);
	u64 val;
	int ret;

	ret = udmem_parse_u64(page, U64_MAX, &val);
	if (ret)
		return ret;
	ret = udmabuf_sync_cmd(buf, for_device, val);
	return ret ? ret : count;
}

static ssize_t sync_for_cpu_show(struct device *dev, struct device_attribute *attr,
				 char *page)
{
	return udmabuf_sync_show(dev, page, false);
}

static ssize_t sync_for_cpu_store(struct device *dev, struct device_attribute *attr,
				  const char *page, size_t count)
{
	return udmabuf_sync_store(dev, page, count, false);
}
static DEVICE_ATTR_RW(sync_for_cpu);

static ssize_t sync_for_device_show(struct device *dev, struct device_attribute *attr,
				    char *page)
{
	return udmabuf_sync_show(dev, page, true);
}

static ssize_t sync_for_device_store(struct device *dev, struct device_attribute *attr,
				     const char *page, size_t count)
{
	return udmabuf_sync_store(dev, page, count, true);
}
static DEVICE_ATTR_RW(sync_for_device);

static ssize_t quirk_mmap_mode_show(struct device *dev, struct device_attribute *attr,
				    char *page)
{
	struct udmabuf *buf = dev_get_drvdata(dev);

	return sysfs_emit(page, "%d\n", buf->quirk_mmap_mode);
}
static DEVICE_ATTR_RO(quirk_mmap_mode);

static ssize_t dma_coherent_show(struct device *dev, struct device_attribute *attr,
				 char *page)
{
	struct udmabuf *buf = dev_get_drvdata(dev);

	return sysfs_emit(page, "%d\n", udmabuf_dma_coherent(buf));
}
static DEVICE_ATTR_RO(dma_coherent);

static ssize_t ioctl_version_show(struct device *dev, struct device_attribute *attr,
				  char *page)
{
	return sysfs_emit(page, "%d\n", U_DMA_BUF_IOCTL_VERSION);
}
static DEVICE_ATTR_RO(ioctl_version);

static struct attribute *udmabuf_attrs[] = {
	&dev_attr_driver_version.attr,
	&dev_attr_size.attr,
	&dev_attr_phys_addr.attr,
	&dev_attr_sync_mode.attr,
	&dev_attr_sync_offset.attr,
	&dev_attr_sync_size.attr,
	&dev_attr_sync_direction.attr,
	&dev_attr_sync_owner.attr,
	&dev_attr_sync_for_cpu.attr,
	&dev_attr_sync_for_device.attr,
	&dev_attr_quirk_mmap_mode.attr,
	&dev_attr_dma_coherent.attr,
	&dev_attr_debug_vma.attr,
	&dev_attr_debug_export.attr,
	&dev_attr_ioctl_version.attr,
	NULL
};

static const struct attribute_group udmabuf_group = {
	.attrs = udmabuf_attrs,
};

const struct attribute_group *udmabuf_groups[] = {
	&udmabuf_group,
	NULL
};
