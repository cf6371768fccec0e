/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * udmabuf-test.h - helpers of the u-dma-buf test programs (the buffer under
 * test, its sysfs attributes and device node), on top of ut.h; the ABI as
 * the reference documents it is in udmabuf-abi.h.
 *
 * Programs find the buffer under test through the environment:
 *	UDMABUF_DEV	buffer name (default "udmabuf0")
 *	UDMABUF_MASK	expected DMA mask width, checked when set
 *	UDMABUF_PCI	name of a PCI device (e.g. 0000:00:03.0), for binds
 */
#ifndef UDMABUF_TEST_H
#define UDMABUF_TEST_H

#include <sys/ioctl.h>
#include <sys/mman.h>

#include "ut.h"
#include "udmabuf-abi.h"

#define UT_UDMABUF_CLASS	"u-dma-buf"

static inline const char *ut_dev(void)
{
	const char *s = getenv("UDMABUF_DEV");

	return s && *s ? s : "udmabuf0";
}

static inline void ut_path(char *buf, size_t len, const char *dev, const char *attr)
{
	if (attr)
		ut_sysfs_path(buf, len, UT_UDMABUF_CLASS, dev, attr);
	else
		snprintf(buf, len, "/dev/%s", dev);
}

/* A u-dma-buf attribute: read (newline kept), write, parse; 0 or -errno. */
static inline int ut_attr_read(const char *dev, const char *attr, char *buf, size_t len)
{
	return ut_sysfs_read(UT_UDMABUF_CLASS, dev, attr, buf, len);
}

static inline int ut_attr_write_n(const char *dev, const char *attr, const char *s, size_t len)
{
	return ut_sysfs_write_n(UT_UDMABUF_CLASS, dev, attr, s, len);
}

static inline int ut_attr_write(const char *dev, const char *attr, const char *s)
{
	return ut_sysfs_write(UT_UDMABUF_CLASS, dev, attr, s);
}

static inline int ut_attr_write_u64(const char *dev, const char *attr, uint64_t v)
{
	char s[32];

	snprintf(s, sizeof(s), "%llu\n", (unsigned long long)v);
	return ut_attr_write(dev, attr, s);
}

static inline int ut_attr_u64(const char *dev, const char *attr, int base, uint64_t *v)
{
	return ut_sysfs_u64(UT_UDMABUF_CLASS, dev, attr, base, v);
}

/* Assert-style accessors for tests: the attribute must exist and parse. */
static inline uint64_t ut_get(const char *dev, const char *attr, int base)
{
	return ut_sysfs_get(UT_UDMABUF_CLASS, dev, attr, base);
}

static inline void ut_set(const char *dev, const char *attr, uint64_t v)
{
	int err = ut_attr_write_u64(dev, attr, v);

	UT_CHECK(err == 0, 1, "writing %llu to %s/%s: %s", (unsigned long long)v,
		 dev, attr, strerror(-err));
}

static inline uint64_t ut_size(const char *dev)
{
	return ut_get(dev, "size", 10);
}

static inline uint64_t ut_alloc_size(const char *dev)
{
	uint64_t pg = ut_page();

	return (ut_size(dev) + pg - 1) / pg * pg;
}

static inline int ut_open(const char *dev, int flags)
{
	char path[256];
	int fd;

	ut_path(path, sizeof(path), dev, NULL);
	fd = open(path, flags);
	UT_CHECK(fd >= 0, 1, "open %s (flags 0x%x): %s", path, flags, strerror(errno));
	return fd;
}

/* Put the sync attributes back to a known state: whole buffer, bidirectional. */
static inline void ut_reset_sync(const char *dev)
{
	ut_set(dev, "sync_offset", 0);
	ut_set(dev, "sync_size", ut_size(dev));
	ut_set(dev, "sync_direction", 0);
}

#endif /* UDMABUF_TEST_H */
