// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * device.c - what buffers and regions do alike: open /dev/NAME after
 * checking it against sysfs, issue ioctls, keep one mapping per handle,
 * check sync ranges.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "internal.h"

/*
 * Open /dev/NAME, make sure it is the device that /sys/class/CLASS/NAME
 * describes (so that a name belonging to another driver is refused), and
 * fill @dev; its size is the caller's to set.
 */
int udmem_dev_open(struct udmem_dev *dev, const char *class, const char *name,
		   unsigned int flags)
{
	unsigned int maj, min;
	char path[128], text[32];
	struct stat st;
	int fd, oflags, ret;

	if (!udmem_name_valid(name) ||
	    (flags & ~(unsigned int)(UDMEM_OPEN_SYNC | UDMEM_OPEN_RDONLY)))
		return -EINVAL;
	snprintf(path, sizeof(path), "/dev/%s", name);
	if (!udmem_sysfs_exists(class, name))
		return stat(path, &st) == 0 ? -ENODEV : -ENOENT;
	ret = udmem_sysfs_read(class, name, "dev", text, sizeof(text));
	if (ret)
		return ret;
	if (sscanf(text, "%u:%u", &maj, &min) != 2)
		return -EIO;

	oflags = O_CLOEXEC;
	oflags |= (flags & UDMEM_OPEN_RDONLY) ? O_RDONLY : O_RDWR;
	if (flags & UDMEM_OPEN_SYNC)
		oflags |= O_SYNC;
	fd = open(path, oflags);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		goto err_close;
	}
	if (!S_ISCHR(st.st_mode) || st.st_rdev != makedev(maj, min)) {
		ret = -ENODEV;
		goto err_close;
	}
	ret = -pthread_mutex_init(&dev->lock, NULL);
	if (ret)
		goto err_close;
	dev->fd = fd;
	dev->flags = flags;
	snprintf(dev->name, sizeof(dev->name), "%s", name);
	dev->size = 0;
	dev->map = NULL;
	return 0;

err_close:
	close(fd);
	return ret;
}

void udmem_dev_close(struct udmem_dev *dev)
{
	if (dev->map) {
		udmem_maps_del(dev->map);
		munmap(dev->map, dev->size);
	}
	close(dev->fd);
	pthread_mutex_destroy(&dev->lock);
}

/* Map the whole device once; later calls return the same address. */
int udmem_dev_map(struct udmem_dev *dev, void **addr)
{
	int prot = PROT_READ, ret = 0;
	void *p;

	if (!addr)
		return -EINVAL;
	if (dev->size == 0 || dev->size > SIZE_MAX)
		return -EOVERFLOW;
	if (!(dev->flags & UDMEM_OPEN_RDONLY))
		prot |= PROT_WRITE;
	pthread_mutex_lock(&dev->lock);
	if (!dev->map) {
		p = mmap(NULL, dev->size, prot, MAP_SHARED, dev->fd, 0);
		if (p == MAP_FAILED)
			ret = -errno;
		else
			dev->map = p;
		if (!ret)
			udmem_maps_add(p, dev->size, dev->name);
	}
	if (!ret)
		*addr = dev->map;
	pthread_mutex_unlock(&dev->lock);
	return ret;
}

int udmem_dev_unmap(struct udmem_dev *dev)
{
	int ret = 0;

	pthread_mutex_lock(&dev->lock);
	if (!dev->map) {
		ret = -EINVAL;
	} else {
		udmem_maps_del(dev->map);
		if (munmap(dev->map, dev->size) < 0) {
			ret = -errno;
			udmem_maps_add(dev->map, dev->size, dev->name);
		} else {
			dev->map = NULL;
		}
	}
	pthread_mutex_unlock(&dev->lock);
	return ret;
}

void *udmem_dev_addr(struct udmem_dev *dev)
{
	void *p;

	pthread_mutex_lock(&dev->lock);
	p = dev->map;
	pthread_mutex_unlock(&dev->lock);
	return p;
}

/*
 * Check a sync range; a @size of 0 becomes "to the end of the device".
 * Return: 0 or -EINVAL when the range does not fit.
 */
int udmem_dev_range(const struct udmem_dev *dev, uint64_t offset,
		    uint64_t *size)
{
	if (offset >= dev->size)
		return -EINVAL;
	if (*size == 0)
		*size = dev->size - offset;
	return *size > dev->size - offset ? -EINVAL : 0;
}

int udmem_ioctl(int fd, unsigned long req, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, req, arg);
	} while (ret < 0 && errno == EINTR);
	return ret < 0 ? -errno : ret;
}
