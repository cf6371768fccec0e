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
#include <linux/stddef.h>
#include <linux/sysfs.h>

#include "common/udmem_parse.h"
#include "udmabuf.h"

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

/* Show a u64 field of the buffer, decimal or 0x-hex. */
static ssize_t udmabuf_field_show(struct device *dev, char *page, size_t off, bool hex)
{
	struct udmabuf *buf = dev_get_drvdata(dev);
	u64 val;

	if (mutex_lock_interruptible(&buf->lock))
		return -ERESTARTSYS;
	val = *(u64 *)((char *)buf + off);
	mutex_unlock(&buf->lock);
	return hex ? sysfs_emit(page, "0x%llx\n", val) : sysfs_emit(page, "%llu\n", val);
}

/* Store 0..@max into a u64 field of the buffer. */
static ssize_t udmabuf_field_store(struct device *dev, const char *page, size_t count,
				   size_t off, u64 max)
{
	struct udmabuf *buf = dev_get_drvdata(dev);
	u64 val;
	int ret;

	ret = udmem_parse_u64(page, max, &val);
	if (ret)
		return ret;
	if (mutex_lock_interruptible(&buf->lock))
		return -ERESTARTSYS;
	*(u64 *)((char *)buf + off) = val;
	mutex_unlock(&buf->lock);
	return count;
}

static ssize_t sync_mode_show(struct device *dev, struct device_attribute *attr, char *page)
{
	return udmabuf_field_show(dev, page, offsetof(struct udmabuf, sync_mode), false);
}

static ssize_t sync_mode_store(struct device *dev, struct device_attribute *attr,
			       const char *page, size_t count)
{
	return udmabuf_field_store(dev, page, count, offsetof(struct udmabuf, sync_mode),
				   UDMABUF_SYNC_MODE_MAX);
}
static DEVICE_ATTR_RW(sync_mode);

static ssize_t sync_offset_show(struct device *dev, struct device_attribute *attr, char *page)
{
	return udmabuf_field_show(dev, page, offsetof(struct udmabuf, sync_offset), true);
}

static ssize_t sync_offset_store(struct device *dev, struct device_attribute *attr,
				 const char *page, size_t count)
{
	return udmabuf_field_store(dev, page, count, offsetof(struct udmabuf, sync_offset),
				   U64_MAX);
}
static DEVICE_ATTR_RW(sync_offset);

static ssize_t sync_size_show(struct device *dev, struct device_attribute *attr, char *page)
{
	return udmabuf_field_show(dev, page, offsetof(struct udmabuf, sync_size), false);
}

static ssize_t sync_size_store(struct device *dev, struct device_attribute *attr,
			       const char *page, size_t count)
{
	return udmabuf_field_store(dev, page, count, offsetof(struct udmabuf, sync_size),
				   U64_MAX);
}
static DEVICE_ATTR_RW(sync_size);

static ssize_t sync_direction_show(struct device *dev, struct device_attribute *attr, char *page)
{
	return udmabuf_field_show(dev, page, offsetof(struct udmabuf, sync_direction), false);
}

static ssize_t sync_direction_store(struct device *dev, struct device_attribute *attr,
				    const char *page, size_t count)
{
	return udmabuf_field_store(dev, page, count, offsetof(struct udmabuf, sync_direction),
				   UDMEM_SYNC_FROM_DEVICE);
}
static DEVICE_ATTR_RW(sync_direction);

static ssize_t debug_vma_show(struct device *dev, struct device_attribute *attr, char *page)
{
	return udmabuf_field_show(dev, page, offsetof(struct udmabuf, debug_vma), false);
}

static ssize_t debug_vma_store(struct device *dev, struct device_attribute *attr,
			       const char *page, size_t count)
{
	return udmabuf_field_store(dev, page, count, offsetof(struct udmabuf, debug_vma),
				   3);
}
static DEVICE_ATTR_RW(debug_vma);

static ssize_t debug_export_show(struct device *dev, struct device_attribute *attr, char *page)
{
	return udmabuf_field_show(dev, page, offsetof(struct udmabuf, debug_export), false);
}

static ssize_t debug_export_store(struct device *dev, struct device_attribute *attr,
				  const char *page, size_t count)
{
	return udmabuf_field_store(dev, page, count, offsetof(struct udmabuf, debug_export),
				   1);
}
static DEVICE_ATTR_RW(debug_export);

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
