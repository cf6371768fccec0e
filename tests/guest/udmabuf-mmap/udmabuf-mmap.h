/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * udmabuf-mmap.h - what the source files of udmabuf-mmap share.
 */
#ifndef UDMABUF_MMAP_H
#define UDMABUF_MMAP_H

#include <fcntl.h>
#include <linux/io_uring.h>
#include <stdint.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>

#include "harness.h"

/* udmabuf-mmap.c */
const char *env_buf(const char *var);
uint64_t sysfs_u64(const char *name, const char *attr);
int open_buf(const char *name, int flags);

#endif /* UDMABUF_MMAP_H */
