// SPDX-License-Identifier: GPL-2.0
/*
 * sysfs.c - /sys/class/uiomem/<name>/: the attributes and value formats of
 * the original uiomem driver (1.1: the ten of 1.0 plus cached, coherent,
 * shareable, sync_operation and ioctl_version).
 *
 * Each attribute has its own show/store.  Stores take a number in base 0
 * (decimal, 0x hex, 0 octal) parsed as the field's own type; a value out of
 * the field's range is EINVAL, one that does not fit the type ERANGE.
 */
#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/sysfs.h>
#include <linux/uiomem.h>

#include "common/udmem_own.h"
#include "uiomem.h"

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

	return sysfs_emit(buf, "%llu\n", um->size);
}
static DEVICE_ATTR_RO(size);

static ssize_t phys_addr_show(struct device *dev, struct device_attribute *attr,
			      char *buf)
{
	struct uiomem *um = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%pa\n", &um->phys);
}
static DEVICE_ATTR_RO(phys_addr);

/* Fixed at probe: no lock needed. */
static ssize_t cached_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	struct uiomem *um = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%d\n", um->cached);
}
static DEVICE_ATTR_RO(cached);

static ssize_t coherent_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	struct uiomem *um = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%d\n", um->coherent);
}
static DEVICE_ATTR_RO(coherent);

static ssize_t shareable_show(struct device *dev, struct device_attribute *attr,
			      char *buf)
{
	struct uiomem *um = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%d\n", um->shareable);
}
static DEVICE_ATTR_RO(shareable);

static ssize_t sync_operation_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", uiomem_sync_operation());
}
static DEVICE_ATTR_RO(sync_operation);

static ssize_t ioctl_version_show(struct device *dev,
				  struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", UIOMEM_IOCTL_VERSION);
}
static DEVICE_ATTR_RO(ioctl_version);

/* The writable attributes are 0664 in the original driver (ABI). */
#define UIOMEM_ATTR_RW_0664(name) \
	DEVICE_ATTR(name, 0664, name##_show, name##_store)

/*
 * Every show and store holds @um->lock, as in the original driver.  These
 * generate them for the field sync_<suffix> of struct uiomem, of type @type.
 */
#define UIOMEM_SYNC_ATTR_SHOW(suffix, type, fmt)			\
static ssize_t sync_##suffix##_show(struct device *dev,			\
				    struct device_attribute *attr,	\
				    char *buf)				\
{									\
	struct uiomem *um = dev_get_drvdata(dev);			\
	type v;								\
									\
	if (mutex_lock_interruptible(&um->lock))			\
		return -ERESTARTSYS;					\
	v = um->sync_##suffix;						\
	mutex_unlock(&um->lock);					\
	return sysfs_emit(buf, fmt "\n", v);				\
}

/*
 * @parse is the kstrto*() of @type.  A malformed number and one above @max
 * are EINVAL, as documented; so is one past a 32-bit field (kstrtou32()'s
 * ERANGE).  A number past 64 bits keeps kstrtou64()'s ERANGE.
 */
#define UIOMEM_SYNC_ATTR_STORE(suffix, type, parse, max)		\
static ssize_t sync_##suffix##_store(struct device *dev,		\
				     struct device_attribute *attr,	\
				     const char *buf, size_t count)	\
{									\
	struct uiomem *um = dev_get_drvdata(dev);			\
	type v;								\
	int ret;							\
									\
	ret = parse(buf, 0, &v);					\
	if (ret == -ERANGE && sizeof(v) < sizeof(u64))			\
		ret = -EINVAL;						\
	if (ret)							\
		return ret;						\
	if (v > (max))							\
		return -EINVAL;						\
	if (mutex_lock_interruptible(&um->lock))			\
		return -ERESTARTSYS;					\
	um->sync_##suffix = v;						\
	mutex_unlock(&um->lock);					\
	return count;							\
}

UIOMEM_SYNC_ATTR_SHOW(mode, u32, "%u")
UIOMEM_SYNC_ATTR_STORE(mode, u32, kstrtou32, UIOMEM_SYNC_MODE_MAX)
static UIOMEM_ATTR_RW_0664(sync_mode);

/* Checked against the region only when a sync uses it, as upstream does. */
UIOMEM_SYNC_ATTR_SHOW(offset, u64, "0x%llx")
UIOMEM_SYNC_ATTR_STORE(offset, u64, kstrtou64, U64_MAX)
static UIOMEM_ATTR_RW_0664(sync_offset);

/* The original driver keeps the size in a size_t: SIZE_MAX is the limit. */
UIOMEM_SYNC_ATTR_SHOW(size, u64, "%llu")
UIOMEM_SYNC_ATTR_STORE(size, u64, kstrtou64, SIZE_MAX)
static UIOMEM_ATTR_RW_0664(sync_size);

UIOMEM_SYNC_ATTR_SHOW(direction, enum udmem_sync_dir, "%u")
UIOMEM_SYNC_ATTR_STORE(direction, u32, kstrtou32, UDMEM_SYNC_FROM_DEVICE)
static UIOMEM_ATTR_RW_0664(sync_direction);

UIOMEM_SYNC_ATTR_SHOW(owner, u32, "%u")
static DEVICE_ATTR_RO(sync_owner);

/*
 * sync_for_cpu and sync_for_device run the command at once; they read back
 * 0 after a sync and the rejected value after a failed one.
 */
static int uiomem_sync_attr_store(struct uiomem *um, const char *buf,
				  bool for_device)
{
	u64 v;
	int ret;

	ret = kstrtou64(buf, 0, &v);
	if (ret)
		return ret;
	if (mutex_lock_interruptible(&um->lock))
		return -ERESTARTSYS;
	ret = uiomem_sync_store(um, v, for_device, "sysfs");
	mutex_unlock(&um->lock);
	return ret;
}

UIOMEM_SYNC_ATTR_SHOW(for_cpu, u64, "%llu")
static ssize_t sync_for_cpu_store(struct device *dev,
				  struct device_attribute *attr,
				  const char *buf, size_t count)
{
	int ret = uiomem_sync_attr_store(dev_get_drvdata(dev), buf, false);

	return ret ? ret : count;
}
static UIOMEM_ATTR_RW_0664(sync_for_cpu);

UIOMEM_SYNC_ATTR_SHOW(for_device, u64, "%llu")
static ssize_t sync_for_device_store(struct device *dev,
				     struct device_attribute *attr,
				     const char *buf, size_t count)
{
	int ret = uiomem_sync_attr_store(dev_get_drvdata(dev), buf, true);

	return ret ? ret : count;
}
static UIOMEM_ATTR_RW_0664(sync_for_device);

/* udmem additions: the sync checker (ownership.c). */
static ssize_t sync_check_show(struct device *dev, struct device_attribute *attr,
			       char *buf)
{
	struct uiomem *um = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%s\n", udmem_check_name(READ_ONCE(um->sync_check)));
}

static ssize_t sync_check_store(struct device *dev, struct device_attribute *attr,
				const char *buf, size_t count)
{
	int mode = udmem_check_parse(buf);
	int ret;

	if (mode < 0)
		return mode;
	ret = uiomem_chk_set_mode(dev_get_drvdata(dev), mode);
	return ret ? ret : count;
}
static UIOMEM_ATTR_RW_0664(sync_check);

/* The checker's counters: writing 0 resets one. */
static ssize_t uiomem_counter_show(atomic_long_t *counter, char *buf)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(counter));
}

static ssize_t uiomem_counter_store(atomic_long_t *counter, const char *buf,
				    size_t count)
{
	u64 v;
	int ret;

	ret = kstrtou64(buf, 0, &v);
	if (ret)
		return ret;
	if (v)
		return -EINVAL;
	atomic_long_set(counter, 0);
	return count;
}

static ssize_t ownership_violations_show(struct device *dev,
					 struct device_attribute *attr, char *buf)
{
	struct uiomem *um = dev_get_drvdata(dev);

	return uiomem_counter_show(&um->own_violations, buf);
}

static ssize_t ownership_violations_store(struct device *dev,
					  struct device_attribute *attr,
					  const char *buf, size_t count)
{
	struct uiomem *um = dev_get_drvdata(dev);

	return uiomem_counter_store(&um->own_violations, buf, count);
}
static UIOMEM_ATTR_RW_0664(ownership_violations);

static ssize_t redundant_syncs_show(struct device *dev,
				    struct device_attribute *attr, char *buf)
{
	struct uiomem *um = dev_get_drvdata(dev);

	return uiomem_counter_show(&um->own_redundant, buf);
}

static ssize_t redundant_syncs_store(struct device *dev,
				     struct device_attribute *attr,
				     const char *buf, size_t count)
{
	struct uiomem *um = dev_get_drvdata(dev);

	return uiomem_counter_store(&um->own_redundant, buf, count);
}
static UIOMEM_ATTR_RW_0664(redundant_syncs);

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
	&dev_attr_cached.attr,
	&dev_attr_coherent.attr,
	&dev_attr_shareable.attr,
	&dev_attr_sync_operation.attr,
	&dev_attr_ioctl_version.attr,
	&dev_attr_sync_check.attr,
	&dev_attr_ownership_violations.attr,
	&dev_attr_redundant_syncs.attr,
	NULL,
};
ATTRIBUTE_GROUPS(uiomem);

/* The class's device attributes; main.c creates the class. */
const struct attribute_group **const uiomem_class_groups = uiomem_groups;
