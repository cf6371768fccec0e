// SPDX-License-Identifier: GPL-2.0
/*
 * sysfs.c - /sys/class/uiomem/<name>/: the attributes and value formats of
 * the original uiomem driver.
 */
#include <linux/device.h>
#include <linux/limits.h>
#include <linux/sysfs.h>

#include "common/udmem_parse.h"
#include "uiomem_drv.h"

static ssize_t driver_version_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", UIOMEM_DRIVER_VERSION);
}
static DEVICE_ATTR_RO(driver_version);

static ssize_t size_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	struct uiomem *um = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%zu\n", um->size);
}
static DEVICE_ATTR_RO(size);

static ssize_t phys_addr_show(struct device *dev, struct device_attribute *attr,
			      char *buf)
{
	struct uiomem *um = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%pa\n", &um->phys);
}
static DEVICE_ATTR_RO(phys_addr);

enum uiomem_attr_field {
	UIOMEM_ATTR_SYNC_MODE,
	UIOMEM_ATTR_SYNC_OFFSET,
	UIOMEM_ATTR_SYNC_SIZE,
	UIOMEM_ATTR_SYNC_DIRECTION,
	UIOMEM_ATTR_SYNC_FOR_CPU,
	UIOMEM_ATTR_SYNC_FOR_DEVICE,
	UIOMEM_ATTR_SYNC_OWNER,
};

static ssize_t uiomem_attr_show(struct device *dev, char *buf,
				enum uiomem_attr_field field)
{
	struct uiomem *um = dev_get_drvdata(dev);
	u64 v;

	if (mutex_lock_interruptible(&um->lock))
		return -ERESTARTSYS;
	switch (field) {
	case UIOMEM_ATTR_SYNC_MODE:
		v = um->sync_mode;
		break;
	case UIOMEM_ATTR_SYNC_OFFSET:
		v = um->sync_offset;
		break;
	case UIOMEM_ATTR_SYNC_SIZE:
		v = um->sync_size;
		break;
	case UIOMEM_ATTR_SYNC_DIRECTION:
		v = um->sync_direction;
		break;
	case UIOMEM_ATTR_SYNC_FOR_CPU:
		v = um->sync_for_cpu;
		break;
	case UIOMEM_ATTR_SYNC_FOR_DEVICE:
		v = um->sync_for_device;
		break;
	default:
		v = um->sync_owner;
		break;
	}
	mutex_unlock(&um->lock);
	/* sync_offset is hexadecimal, as in the original driver. */
	if (field == UIOMEM_ATTR_SYNC_OFFSET)
		return sysfs_emit(buf, "0x%llx\n", v);
	return sysfs_emit(buf, "%llu\n", v);
}

static ssize_t uiomem_attr_store(struct device *dev, const char *buf,
				 size_t count, enum uiomem_attr_field field)
{
	static const u64 max[] = {
		[UIOMEM_ATTR_SYNC_MODE] = UIOMEM_SYNC_MODE_MAX,
		[UIOMEM_ATTR_SYNC_OFFSET] = U64_MAX,
		[UIOMEM_ATTR_SYNC_SIZE] = SIZE_MAX,
		[UIOMEM_ATTR_SYNC_DIRECTION] = UDMEM_SYNC_FROM_DEVICE,
		[UIOMEM_ATTR_SYNC_FOR_CPU] = U64_MAX,
		[UIOMEM_ATTR_SYNC_FOR_DEVICE] = U64_MAX,
		[UIOMEM_ATTR_SYNC_OWNER] = 0,
	};
	struct uiomem *um = dev_get_drvdata(dev);
	u64 v;
	int ret;

	ret = udmem_parse_u64(buf, max[field], &v);
	if (ret)
		return ret;
	if (mutex_lock_interruptible(&um->lock))
		return -ERESTARTSYS;
	switch (field) {
	case UIOMEM_ATTR_SYNC_MODE:
		um->sync_mode = v;
		break;
	case UIOMEM_ATTR_SYNC_OFFSET:
		um->sync_offset = v;
		break;
	case UIOMEM_ATTR_SYNC_SIZE:
		um->sync_size = v;
		break;
	case UIOMEM_ATTR_SYNC_DIRECTION:
		um->sync_direction = v;
		break;
	case UIOMEM_ATTR_SYNC_FOR_CPU:
		um->sync_for_cpu = v;
		ret = uiomem_sync_command(um, v, false);
		if (!ret)
			um->sync_for_cpu = 0;
		break;
	case UIOMEM_ATTR_SYNC_FOR_DEVICE:
		um->sync_for_device = v;
		ret = uiomem_sync_command(um, v, true);
		if (!ret)
			um->sync_for_device = 0;
		break;
	default:
		ret = -EACCES;
		break;
	}
	mutex_unlock(&um->lock);
	return ret ? ret : count;
}

#define UIOMEM_ATTR_RW(field, FIELD)					\
static ssize_t field##_show(struct device *dev,				\
			    struct device_attribute *attr, char *buf)	\
{									\
	return uiomem_attr_show(dev, buf, UIOMEM_ATTR_##FIELD);		\
}									\
static ssize_t field##_store(struct device *dev,			\
			     struct device_attribute *attr,		\
			     const char *buf, size_t count)		\
{									\
	return uiomem_attr_store(dev, buf, count, UIOMEM_ATTR_##FIELD);	\
}									\
static DEVICE_ATTR(field, 0664, field##_show, field##_store)

UIOMEM_ATTR_RW(sync_mode, SYNC_MODE);
UIOMEM_ATTR_RW(sync_offset, SYNC_OFFSET);
UIOMEM_ATTR_RW(sync_size, SYNC_SIZE);
UIOMEM_ATTR_RW(sync_direction, SYNC_DIRECTION);
UIOMEM_ATTR_RW(sync_for_cpu, SYNC_FOR_CPU);
UIOMEM_ATTR_RW(sync_for_device, SYNC_FOR_DEVICE);

static ssize_t sync_owner_show(struct device *dev, struct device_attribute *attr,
			       char *buf)
{
	return uiomem_attr_show(dev, buf, UIOMEM_ATTR_SYNC_OWNER);
}
static DEVICE_ATTR_RO(sync_owner);

static struct attribute *uiomem_attrs[] = {
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
	NULL,
};

static const struct attribute_group uiomem_group = {
	.attrs = uiomem_attrs,
};

const struct attribute_group *uiomem_groups[] = {
	&uiomem_group,
	NULL,
};
