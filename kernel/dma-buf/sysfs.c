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
#include <linux/kstrtox.h>
#include <linux/mutex.h>
#include <linux/sysfs.h>

#include "compat.h"
#include "udmabuf.h"

/*
 * DEVICE_ATTR_RW() with the original driver's 0664: udev rules that hand a
 * buffer to a group rely on the group's write access.
 */
#define UDMABUF_ATTR_RW_GROUP(_name)					\
	struct device_attribute dev_attr_##_name =			\
		__ATTR(_name, 0664, _name##_show, _name##_store)

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

/*
 * Store 0..@max into a u32 field under buf->lock.  A number too large for
 * a u32 is above @max as well: -EINVAL like any other value above @max.
 */
static ssize_t udmabuf_store_u32(struct udmabuf *buf, u32 *field, u32 max,
				 const char *page, size_t count)
{
	u32 val;
	int ret;

	ret = kstrtou32(page, 0, &val);
	if (ret == -ERANGE || (!ret && val > max))
		ret = -EINVAL;
	if (ret)
		return ret;
	mutex_lock(&buf->lock);
	*field = val;
	mutex_unlock(&buf->lock);
	return count;
}

/* Store any u64 into a u64 field under buf->lock (-ERANGE past 64 bits). */
static ssize_t udmabuf_store_u64(struct udmabuf *buf, u64 *field, const char *page,
				 size_t count)
{
	u64 val;
	int ret;

	ret = kstrtou64(page, 0, &val);
	if (ret)
		return ret;
	mutex_lock(&buf->lock);
	*field = val;
	mutex_unlock(&buf->lock);
	return count;
}

/* A field's value, read under buf->lock (a u64 is two loads on 32-bit). */
static u32 udmabuf_load_u32(struct udmabuf *buf, const u32 *field)
{
	u32 val;

	mutex_lock(&buf->lock);
	val = *field;
	mutex_unlock(&buf->lock);
	return val;
}

static u64 udmabuf_load_u64(struct udmabuf *buf, const u64 *field)
{
	u64 val;

	mutex_lock(&buf->lock);
	val = *field;
	mutex_unlock(&buf->lock);
	return val;
}

static ssize_t sync_mode_show(struct device *dev, struct device_attribute *attr, char *page)
{
	struct udmabuf *buf = dev_get_drvdata(dev);

	return sysfs_emit(page, "%u\n", udmabuf_load_u32(buf, &buf->sync_mode));
}

static ssize_t sync_mode_store(struct device *dev, struct device_attribute *attr,
			       const char *page, size_t count)
{
	struct udmabuf *buf = dev_get_drvdata(dev);

	return udmabuf_store_u32(buf, &buf->sync_mode, UDMABUF_SYNC_MODE_MAX, page, count);
}
static UDMABUF_ATTR_RW_GROUP(sync_mode);

static ssize_t sync_offset_show(struct device *dev, struct device_attribute *attr, char *page)
{
	struct udmabuf *buf = dev_get_drvdata(dev);

	return sysfs_emit(page, "0x%llx\n", udmabuf_load_u64(buf, &buf->sync_offset));
}

static ssize_t sync_offset_store(struct device *dev, struct device_attribute *attr,
				 const char *page, size_t count)
{
	struct udmabuf *buf = dev_get_drvdata(dev);

	return udmabuf_store_u64(buf, &buf->sync_offset, page, count);
}
static UDMABUF_ATTR_RW_GROUP(sync_offset);

static ssize_t sync_size_show(struct device *dev, struct device_attribute *attr, char *page)
{
	struct udmabuf *buf = dev_get_drvdata(dev);

	return sysfs_emit(page, "%llu\n", udmabuf_load_u64(buf, &buf->sync_size));
}

static ssize_t sync_size_store(struct device *dev, struct device_attribute *attr,
			       const char *page, size_t count)
{
	struct udmabuf *buf = dev_get_drvdata(dev);

	return udmabuf_store_u64(buf, &buf->sync_size, page, count);
}
static UDMABUF_ATTR_RW_GROUP(sync_size);

static ssize_t sync_direction_show(struct device *dev, struct device_attribute *attr, char *page)
{
	struct udmabuf *buf = dev_get_drvdata(dev);

	return sysfs_emit(page, "%u\n", udmabuf_load_u32(buf, &buf->sync_direction));
}

static ssize_t sync_direction_store(struct device *dev, struct device_attribute *attr,
				    const char *page, size_t count)
{
	struct udmabuf *buf = dev_get_drvdata(dev);

	return udmabuf_store_u32(buf, &buf->sync_direction, UDMEM_SYNC_FROM_DEVICE, page, count);
}
static UDMABUF_ATTR_RW_GROUP(sync_direction);

/*
 * debug_vma and debug_export are attributes of the reference driver's
 * sysfs ABI (docs/ABI/sysfs-class-u-dma-buf), so they stay in sysfs rather
 * than moving to debugfs.
 */
static ssize_t debug_vma_show(struct device *dev, struct device_attribute *attr, char *page)
{
	struct udmabuf *buf = dev_get_drvdata(dev);

	return sysfs_emit(page, "%u\n", udmabuf_load_u32(buf, &buf->debug_vma));
}

static ssize_t debug_vma_store(struct device *dev, struct device_attribute *attr,
			       const char *page, size_t count)
{
	struct udmabuf *buf = dev_get_drvdata(dev);

	return udmabuf_store_u32(buf, &buf->debug_vma, 3, page, count);
}
static UDMABUF_ATTR_RW_GROUP(debug_vma);

static ssize_t debug_export_show(struct device *dev, struct device_attribute *attr, char *page)
{
	struct udmabuf *buf = dev_get_drvdata(dev);

	return sysfs_emit(page, "%u\n", udmabuf_load_u32(buf, &buf->debug_export));
}

static ssize_t debug_export_store(struct device *dev, struct device_attribute *attr,
				  const char *page, size_t count)
{
	struct udmabuf *buf = dev_get_drvdata(dev);

	return udmabuf_store_u32(buf, &buf->debug_export, 1, page, count);
}
static UDMABUF_ATTR_RW_GROUP(debug_export);

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

	ret = kstrtou64(page, 0, &val);
	if (ret)
		return ret;
	ret = udmabuf_sync_cmd(buf, for_device, val, true, UDMABUF_VIA_SYSFS);
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
static UDMABUF_ATTR_RW_GROUP(sync_for_cpu);

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
static UDMABUF_ATTR_RW_GROUP(sync_for_device);

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

/* The entries mmap() and faults installed in user mappings, PMD and PTE. */
static ssize_t mmap_pmd_entries_show(struct device *dev, struct device_attribute *attr,
				     char *page)
{
	struct udmabuf *buf = dev_get_drvdata(dev);

	return sysfs_emit(page, "%ld\n", atomic_long_read(&buf->map_pmd));
}
static DEVICE_ATTR_RO(mmap_pmd_entries);

static ssize_t mmap_pte_entries_show(struct device *dev, struct device_attribute *attr,
				     char *page)
{
	struct udmabuf *buf = dev_get_drvdata(dev);

	return sysfs_emit(page, "%ld\n", atomic_long_read(&buf->map_pte));
}
static DEVICE_ATTR_RO(mmap_pte_entries);

/* The sync checker (ownership.c): off, report or strict. */
static ssize_t sync_check_show(struct device *dev, struct device_attribute *attr, char *page)
{
	struct udmabuf *buf = dev_get_drvdata(dev);

	return sysfs_emit(page, "%s\n", udmabuf_check_name(READ_ONCE(buf->sync_check)));
}

static ssize_t sync_check_store(struct device *dev, struct device_attribute *attr,
				const char *page, size_t count)
{
	struct udmabuf *buf = dev_get_drvdata(dev);
	int mode = udmabuf_check_parse(page);
	int ret;

	if (mode < 0)
		return mode;
	ret = udmabuf_own_set_mode(buf, mode);
	return ret ? ret : count;
}
static UDMABUF_ATTR_RW_GROUP(sync_check);

/* A counter of the checker's: the attribute and where in the buffer it is. */
struct udmabuf_counter_attr {
	struct device_attribute attr;
	size_t offset;
};

static atomic_long_t *udmabuf_counter(struct device *dev, struct device_attribute *attr)
{
	struct udmabuf_counter_attr *ca = container_of(attr, struct udmabuf_counter_attr, attr);

	return (atomic_long_t *)((char *)dev_get_drvdata(dev) + ca->offset);
}

static ssize_t udmabuf_counter_show(struct device *dev, struct device_attribute *attr,
				    char *page)
{
	return sysfs_emit(page, "%ld\n", atomic_long_read(udmabuf_counter(dev, attr)));
}

/* Writing 0 resets it. */
static ssize_t udmabuf_counter_store(struct device *dev, struct device_attribute *attr,
				     const char *page, size_t count)
{
	u64 val;
	int ret;

	ret = kstrtou64(page, 0, &val);
	if (ret)
		return ret;
	if (val)
		return -EINVAL;
	atomic_long_set(udmabuf_counter(dev, attr), 0);
	return count;
}

#define UDMABUF_COUNTER_ATTR(_name, _field)					\
	struct udmabuf_counter_attr dev_attr_##_name = {			\
		.attr = __ATTR(_name, 0664, udmabuf_counter_show,		\
			       udmabuf_counter_store),				\
		.offset = offsetof(struct udmabuf, _field),			\
	}

static UDMABUF_COUNTER_ATTR(ownership_violations, own_violations);
static UDMABUF_COUNTER_ATTR(redundant_syncs, own_redundant);

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
	&dev_attr_mmap_pmd_entries.attr,
	&dev_attr_mmap_pte_entries.attr,
	&dev_attr_sync_check.attr,
	&dev_attr_ownership_violations.attr.attr,
	&dev_attr_redundant_syncs.attr.attr,
	NULL
};

/* mmap_pmd_entries exists where the kernel lets us map 2 MiB (compat.h). */
static umode_t udmabuf_attr_visible(struct kobject *kobj, struct attribute *attr, int n)
{
	if (attr == &dev_attr_mmap_pmd_entries.attr && !UDMEM_PMD_PFNMAP)
		return 0;
	return attr->mode;
}

static const struct attribute_group udmabuf_group = {
	.attrs = udmabuf_attrs,
	.is_visible = udmabuf_attr_visible,
};

const struct attribute_group *udmabuf_groups[] = {
	&udmabuf_group,
	NULL
};
