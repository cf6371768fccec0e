/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * internal.h - what libudmem's source files share; never installed.
 */
#ifndef UDMEM_INTERNAL_H
#define UDMEM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "udmem.h"

#define UDMEM_API __attribute__((visibility("default")))

#define UDMEM_NAME_MAX		64	/* with the NUL */

#define UDMEM_CLASS_BUFFER	"u-dma-buf"
#define UDMEM_CLASS_REGION	"uiomem"
#define UDMEM_MGR_PATH		"/dev/u-dma-buf-mgr"

int udmem_name_valid(const char *name);
int udmem_sysfs_read(const char *class, const char *name, const char *attr,
		     char *buf, size_t len);
int udmem_sysfs_read_u64(const char *class, const char *name,
			 const char *attr, uint64_t *val);
int udmem_sysfs_exists(const char *class, const char *name);
int udmem_dev_open(const char *class, const char *name, unsigned int flags);
int udmem_class_list(const char *class, char ***names);
int udmem_ioctl(int fd, unsigned long req, void *arg);

#endif /* UDMEM_INTERNAL_H */
