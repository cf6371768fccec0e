// SPDX-License-Identifier: GPL-2.0
/*
 * u-dma-buf: the buffer registry.
 *
 * The character device region and the class, the minor map, the names,
 * creating a buffer and publishing it, detaching and removing it, and the
 * reference count that decides when its memory goes back.
 */
#include <linux/cdev.h>
#include <linux/dma-map-ops.h>
#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/idr.h>
#include <linux/iommu.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "compat.h"
#include "udmabuf.h"

struct class *udmabuf_class;
static dev_t udmabuf_devt;
static struct cdev udmabuf_cdev;

/* udmabuf_registry_lock guards the minor map, the list and the reservations. */
DEFINE_MUTEX(udmabuf_registry_lock);
static DEFINE_IDR(udmabuf_minors);
LIST_HEAD(udmabuf_list);
static DECLARE_BITMAP(udmabuf_reserved_minors, UDMABUF_MINORS);

int udmabuf_dma_mask_bits(const struct udmabuf *buf)
{
	u64 mask;

	if (!buf->dma_dev->dma_mask)
		return 0;
	mask = *buf->dma_dev->dma_mask;
	return mask == U64_MAX ? 64 : fls64(mask + 1) - 1;
}

bool udmabuf_name_valid(const char *name)
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

struct udmabuf *udmabuf_find_name_locked(const char *name)
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
		/* A udmabufN= buffer's minor is its own, even against a DT node. */
		if (test_bit(want, udmabuf_reserved_minors) &&
		    buf->origin != UDMABUF_ORIGIN_STATIC)
			return -EBUSY;
		m = idr_alloc(&udmabuf_minors, buf, want, want + 1, GFP_KERNEL);
		return m == -ENOSPC ? -EBUSY : m;
	}
	/*
	 * A slot may be taken while idr_find() says NULL: a buffer being
	 * created or removed holds its minor with no pointer in it.  So try
	 * every free-looking minor and go on past the taken ones.
	 */
	for (m = 0; m < UDMABUF_MINORS; m++) {
		int ret;

		if (test_bit(m, udmabuf_reserved_minors))
			continue;
		ret = idr_alloc(&udmabuf_minors, buf, m, m + 1, GFP_KERNEL);
		if (ret != -ENOSPC)
			return ret;
	}
	return -ENOSPC;
}

/* The type of the IOMMU domain the device's DMA goes through, by name. */
static const char *udmabuf_iommu_domain_name(struct device *dev)
{
	struct iommu_domain *domain = iommu_get_domain_for_dev(dev);

	if (!domain)
		return "NONE";
	switch (domain->type) {
	case IOMMU_DOMAIN_BLOCKED:
		return "BLOCKED";
	case IOMMU_DOMAIN_IDENTITY:
		return "IDENTITY";
	case IOMMU_DOMAIN_UNMANAGED:
		return "UNMANAGED";
	default:
		/* DMA and DMA_FQ (lazy invalidation) both translate for the DMA API. */
		return domain->type & __IOMMU_DOMAIN_DMA_API ? "DMA" : "UNKNOWN";
	}
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
		dev_info(dev, "iommu domain   = %s\n", udmabuf_iommu_domain_name(buf->dma_dev));
		dev_info(dev, "mmap mode      = %d (%s)\n", buf->quirk_mmap_mode,
			 buf->pages ? "pages" : buf->pfn_ok ? "pfn, whole range at mmap" :
			 "dma_mmap_coherent");
		dev_info(dev, "cpu cache ops  = %s\n", buf->no_cpu_sync ? "none (no-map memory)" :
			 "dma sync");
	}
}

/*
 * The sync checker's mode asked for at creation, once the memory type is
 * known.  A buffer it cannot check is made all the same, unchecked.
 */
static void udmabuf_create_check(struct udmabuf *buf)
{
	u32 mode = buf->sync_check;
	int ret;

	if (!mode)
		return;
	buf->sync_check = UDMABUF_CHECK_OFF;
	ret = udmabuf_own_set_mode(buf, mode);
	if (ret)
		dev_warn(buf->dma_dev, "%s: sync check %s not possible: %d\n", buf->name,
			 udmabuf_check_name(mode), ret);
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
	    !udmem_sync_dir_valid(p->sync_direction) ||
	    p->sync_check > UDMABUF_CHECK_MAX + 1)
		return ERR_PTR(-EINVAL);

	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return ERR_PTR(-ENOMEM);
	kref_init(&buf->ref);
	mutex_init(&buf->lock);
	mutex_init(&buf->map_lock);
	init_rwsem(&buf->mem_sem);
	INIT_LIST_HEAD(&buf->node);
	INIT_LIST_HEAD(&buf->imports);
	INIT_LIST_HEAD(&buf->mmap_mms);
	buf->origin = p->origin;
	/*
	 * Known before the buffer is published: lookups tell a platform
	 * device's buffer (removed by its driver's remove) from a child.
	 */
	buf->pdev = p->pdev;
	buf->rmem = p->rmem;
	buf->keep_contents = p->keep_contents;
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
	udmabuf_own_init(buf, p->sync_check);

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

	udmabuf_memtype_decide(buf);
	ret = udmabuf_alloc(buf);
	if (ret)
		goto err_unlist;
	udmabuf_memtype_settle(buf);
	udmabuf_create_check(buf);

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
	udmabuf_own_free(buf);
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

	udmabuf_own_free(buf);
	udmabuf_free(buf);
	udmabuf_mmap_mms_free(buf);
	if (buf->rmem)
		udmabuf_rmem_put(buf->dma_dev);
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

/*
 * Unpublish: no new opens, no node, no sysfs.  The minor and the name stay
 * taken until device_unregister() has removed /dev/char/M:m and the class
 * directory, so that a buffer created meanwhile cannot collide with them;
 * a NULL sys_dev marks the buffer as being removed for the lookups.
 *
 * With @revoke (the parent's driver is going), a busy buffer's memory goes
 * back now, through the DMA setup that is still there, rather than with
 * its last user: the users' mappings are zapped (later faults get SIGBUS),
 * read() and write() fail with ENODEV, and its exports can no longer be
 * mapped, vmapped or synced.
 */
static void udmabuf_detach(struct udmabuf *buf, bool revoke)
{
	struct device *sys_dev;
	bool busy;

	mutex_lock(&udmabuf_registry_lock);
	sys_dev = buf->sys_dev;
	buf->sys_dev = NULL;
	if (sys_dev)
		idr_replace(&udmabuf_minors, NULL, buf->minor);
	mutex_unlock(&udmabuf_registry_lock);
	if (!sys_dev)
		return;

	mutex_lock(&buf->lock);
	buf->detached = true;
	busy = kref_read(&buf->ref) > 1;
	revoke = revoke && busy;
	/*
	 * Past this point the driver may be unbound from dma_dev, and the
	 * DMA core then forgets the device's DMA ops (IOMMU) and dma-ranges.
	 * Syncs, dma_mmap_coherent() and dma_get_sgtable() stop where they
	 * would depend on those, and memory that outlives the unbind is only
	 * given back where that loses nothing (see udmabuf_free()).
	 */
	buf->dma_gone = buf->mt.setup_bound || revoke;
	buf->keep_on_free = buf->mt.setup_bound && busy;
	mutex_unlock(&buf->lock);
	/* Imports map for dma_dev: undo that while its DMA setup is there. */
	udmabuf_import_unmap_all(buf);
	if (revoke) {
		udmabuf_mmap_revoke(buf);
		udmabuf_free_early(buf);
	}
	if (udmabuf_info_enable)
		dev_info(sys_dev, "removed.\n");
	device_unregister(sys_dev);

	mutex_lock(&udmabuf_registry_lock);
	idr_remove(&udmabuf_minors, buf->minor);
	list_del_init(&buf->node);
	mutex_unlock(&udmabuf_registry_lock);
}

/**
 * udmabuf_remove() - detach a buffer and drop its creator's reference
 * @buf: the buffer
 *
 * The memory stays until open files, mappings and exports are gone.
 */
void udmabuf_remove(struct udmabuf *buf)
{
	udmabuf_detach(buf, false);
	udmabuf_put(buf);
}

/**
 * udmabuf_remove_revoke() - remove a buffer whose parent's driver is going
 * @buf: the buffer
 *
 * As udmabuf_remove(), and the memory of a busy buffer is freed now, while
 * the parent's DMA setup is there: see udmabuf_detach().
 */
void udmabuf_remove_revoke(struct udmabuf *buf)
{
	udmabuf_detach(buf, true);
	udmabuf_put(buf);
}

/* A buffer is busy while anything but its creator holds it. */
bool udmabuf_busy(struct udmabuf *buf)
{
	return kref_read(&buf->ref) > 1;
}

/* Module-parameter buffers own their minors before any probe runs. */
void udmabuf_minor_reserve(int minor)
{
	set_bit(minor, udmabuf_reserved_minors);
}

/* No open() can find @buf from here on; the caller holds the registry lock. */
void udmabuf_hide_locked(struct udmabuf *buf)
{
	idr_replace(&udmabuf_minors, NULL, buf->minor);
}

static char *udmabuf_devnode(udmem_devnode_dev_t *dev, umode_t *mode)
{
	if (mode)
		*mode = 0600;
	return NULL;
}

int __init udmabuf_registry_init(void)
{
	int ret;

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
	return 0;

err_del_cdev:
	cdev_del(&udmabuf_cdev);
err_unregister_region:
	unregister_chrdev_region(udmabuf_devt, UDMABUF_MINORS);
	return ret;
}

void udmabuf_registry_exit(void)
{
	class_destroy(udmabuf_class);
	cdev_del(&udmabuf_cdev);
	unregister_chrdev_region(udmabuf_devt, UDMABUF_MINORS);
	idr_destroy(&udmabuf_minors);
}
