/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * udmabuf-reliability.h - what the source files of udmabuf-reliability share.
 */
#ifndef UDMABUF_RELIABILITY_H
#define UDMABUF_RELIABILITY_H

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <linux/dma-buf.h>
#include <linux/u-dma-buf-ioctl.h>

#include "harness.h"
#include "ut.h"

#define MGR		"/dev/u-dma-buf-mgr"
#define DRV		"/sys/bus/platform/drivers/u-dma-buf"
#define LINE_MAX_LEN	1023	/* the longest command the manager takes */

/* udmabuf-reliability.c */
int write_str(const char *path, const char *s);
int mgr_create(const char *name, unsigned long size, const char *opt);
int mgr_delete(const char *name);
unsigned int seconds(void);
double now(void);

#endif /* UDMABUF_RELIABILITY_H */
