/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * internal.h - what libudmem's source files share; never installed.
 */
#ifndef UDMEM_INTERNAL_H
#define UDMEM_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "udmem.h"

#define UDMEM_API __attribute__((visibility("default")))

#define UDMEM_NAME_MAX		64	/* with the NUL */

#define UDMEM_CLASS_BUFFER	"u-dma-buf"
#define UDMEM_CLASS_REGION	"uiomem"
#define UDMEM_MGR_PATH		"/dev/u-dma-buf-mgr"

/* What a buffer and a region handle share: the open device and its mapping. */
struct udmem_dev {
	int fd;
	unsigned int flags;		/* enum udmem_open_flags */
	char name[UDMEM_NAME_MAX];
	uint64_t size;			/* set by the caller after the open */
	pthread_mutex_t lock;		/* protects map */
	void *map;
};

/* sysfs.c: names, attributes and class listings */
int udmem_name_valid(const char *name);
int udmem_sysfs_read(const char *class, const char *name, const char *attr,
		     char *buf, size_t len);
int udmem_sysfs_read_u64(const char *class, const char *name,
			 const char *attr, uint64_t *val);
int udmem_sysfs_exists(const char *class, const char *name);
int udmem_class_list(const char *class, char ***names);

/* device.c: the device node, its ioctls and its one mapping */
int udmem_dev_open(struct udmem_dev *dev, const char *class, const char *name,
		   unsigned int flags);
void udmem_dev_close(struct udmem_dev *dev);
int udmem_dev_map(struct udmem_dev *dev, void **addr);
int udmem_dev_unmap(struct udmem_dev *dev);

/* syncchk.c: the mappings a SIGBUS handler can name */
void udmem_maps_add(const void *addr, uint64_t len, const char *name);
void udmem_maps_del(const void *addr);
void *udmem_dev_addr(struct udmem_dev *dev);
int udmem_dev_range(const struct udmem_dev *dev, uint64_t offset,
		    uint64_t *size);
int udmem_ioctl(int fd, unsigned long req, void *arg);

#endif /* UDMEM_INTERNAL_H */
