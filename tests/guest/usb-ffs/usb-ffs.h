/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * usb-ffs.h - what the usb-ffs programs share: a FunctionFS gadget with one
 * bulk IN endpoint, bound to dummy_hcd's UDC, and its host side in the same
 * guest through usbfs.
 *
 * Environment (suite.sh sets it):
 *   FFS_DIR     the functionfs mount (ep0, ep1)
 *   FFS_GADGET  the gadget's configfs folder (its UDC attribute binds it)
 *   FFS_UDC     the UDC to bind to (dummy_udc.0)
 *   FFS_VID, FFS_PID  the gadget's idVendor, idProduct (as configfs has them)
 *   UDMABUF_DEV the u-dma-buf buffer whose exports the DMABUF tests attach
 *   FFS_HOST    usbfs (dummy_hcd's root hub) or tudc: tests/kmod/udmem-test-udc.ko,
 *               a UDC with scatter-gather whose char device reads the IN endpoint
 */
#ifndef USB_FFS_H
#define USB_FFS_H

#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <linux/types.h>
#include <linux/dma-buf.h>
#include <linux/usb/ch9.h>
#include <linux/usb/functionfs.h>
#include <linux/usbdevice_fs.h>

#include <udmem.h>

#include "ut.h"

/* FunctionFS DMABUF (Linux 6.9); the build host's headers may be older. */
#ifndef FUNCTIONFS_DMABUF_ATTACH
struct usb_ffs_dmabuf_transfer_req {
	int fd;
	__u32 flags;
	__u64 length;
} __attribute__((packed));
#define FUNCTIONFS_DMABUF_ATTACH	_IOW('g', 131, int)
#define FUNCTIONFS_DMABUF_DETACH	_IOW('g', 132, int)
#define FUNCTIONFS_DMABUF_TRANSFER	_IOW('g', 133, struct usb_ffs_dmabuf_transfer_req)
#endif

#define FFS_MIB		(1024 * 1024)
#define FFS_CHUNK	(64 * 1024)	/* one write() of the write path */
#define FFS_HOST_MS	60000		/* a host bulk read that sees no data fails */

/* The gadget and its host side, open for one test. */
struct ffs_gadget {
	int ep0;		/* FunctionFS ep0: descriptors, strings, events */
	int ep1;		/* FunctionFS ep1: the bulk IN endpoint */
	int usb;		/* usbfs: /dev/bus/usb/BBB/DDD, interface 0 claimed;
				 * or /dev/udmem-test-udc (FFS_HOST=tudc) */
	int tudc;		/* the host is udmem-test-udc's char device */
	unsigned int host_ep;	/* the IN endpoint's address as the host sees it */
	char host_dev[64];	/* /dev/bus/usb/BBB/DDD */
	int bound;
};

/* Byte i of pattern seed. */
static inline uint8_t ffs_pattern(uint32_t seed, size_t i)
{
	uint32_t x = (uint32_t)i * 2654435761u + seed * 40503u + (uint32_t)(i >> 12);

	return (uint8_t)(x ^ (x >> 13) ^ (x >> 24));
}

static inline void ffs_fill(uint8_t *p, size_t len, uint32_t seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = ffs_pattern(seed, i);
}

/* Index of the first byte of p that is not pattern seed, or len. */
static inline size_t ffs_mismatch(const uint8_t *p, size_t len, uint32_t seed)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != ffs_pattern(seed, i))
			return i;
	return len;
}

void ffs_gadget_open(struct ffs_gadget *g);
void ffs_gadget_close(struct ffs_gadget *g);
int ffs_unbind(struct ffs_gadget *g);
ssize_t ffs_host_read(struct ffs_gadget *g, uint8_t *buf, size_t len, unsigned int ms);
pid_t ffs_writer(int ep, size_t len, uint32_t seed);
int ffs_writer_wait(pid_t pid);

#endif /* USB_FFS_H */
