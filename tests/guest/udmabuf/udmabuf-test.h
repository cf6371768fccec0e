/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * udmabuf-test.h - helpers shared by the u-dma-buf conformance programs
 * (sysfs access, opening the buffer under test, data checks); the ABI
 * itself is in udmabuf-abi.h.
 *
 * Programs find the buffer under test through the environment:
 *	UDMABUF_DEV	buffer name (default "udmabuf0")
 *	UDMABUF_MASK	expected DMA mask width, checked when set
 *	UDMABUF_PCI	name of a PCI device (e.g. 0000:00:03.0), for binds
 */
#ifndef UDMABUF_TEST_H
#define UDMABUF_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "udmabuf-abi.h"

static inline const char *ut_dev(void)
{
	const char *s = getenv("UDMABUF_DEV");

	return s && *s ? s : "udmabuf0";
}

static inline long ut_page(void)
{
	return sysconf(_SC_PAGESIZE);
}

static inline void ut_path(char *buf, size_t len, const char *dev, const char *attr)
{
	if (attr)
		snprintf(buf, len, "/sys/class/u-dma-buf/%s/%s", dev, attr);
	else
		snprintf(buf, len, "/dev/%s", dev);
}

/* Read a sysfs attribute into buf (NUL-terminated, newline kept); -errno on failure. */
static inline int ut_attr_read(const char *dev, const char *attr, char *buf, size_t len)
{
	char path[256];
	ssize_t n;
	int fd;

	ut_path(path, sizeof(path), dev, attr);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	buf[n] = '\0';
	close(fd);
	return 0;
}

/* Write exactly len bytes of s to a sysfs attribute in one write(); 0 or -errno. */
static inline int ut_attr_write_n(const char *dev, const char *attr, const char *s, size_t len)
{
	char path[256];
	ssize_t n;
	int fd, err = 0;

	ut_path(path, sizeof(path), dev, attr);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, s, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	close(fd);
	return err;
}

static inline int ut_attr_write(const char *dev, const char *attr, const char *s)
{
	return ut_attr_write_n(dev, attr, s, strlen(s));
}

static inline int ut_attr_write_u64(const char *dev, const char *attr, uint64_t v)
{
	char s[32];

	snprintf(s, sizeof(s), "%llu\n", (unsigned long long)v);
	return ut_attr_write(dev, attr, s);
}

/* Parse an attribute as an unsigned number in the given base (0 = auto). */
static inline int ut_attr_u64(const char *dev, const char *attr, int base, uint64_t *v)
{
	char buf[128], *end;
	int err = ut_attr_read(dev, attr, buf, sizeof(buf));

	if (err)
		return err;
	errno = 0;
	*v = strtoull(buf, &end, base);
	if (errno || end == buf || (*end != '\n' && *end != '\0'))
		return -EINVAL;
	return 0;
}

/* Assert-style accessors for tests: the attribute must exist and parse. */
static inline uint64_t ut_get(const char *dev, const char *attr, int base)
{
	uint64_t v = 0;
	int err = ut_attr_u64(dev, attr, base, &v);

	UT_CHECK(err == 0, 1, "reading %s/%s: %s", dev, attr, strerror(-err));
	return v;
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

#define ASSERT_PATTERN(p, len, pos, seed) do {				\
		long __i = ut_check((p), (len), (pos), (seed));		\
		UT_CHECK(__i < 0, 1, "data mismatch at byte %ld of %zu " \
			    "(pattern seed %u): want 0x%02x, got 0x%02x", \
			    __i, (size_t)(len), (unsigned int)(seed),	\
			    __i < 0 ? 0 : ut_pattern_byte((pos) + __i, (seed)), \
			    __i < 0 ? 0 : ((const uint8_t *)(p))[__i]);	\
	} while (0)

/* Copy exactly len bytes at pos with pread/pwrite; returns 0 or the failing result. */
static inline long ut_pread_all(int fd, void *buf, size_t len, off_t pos)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, pos + done);

		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += n;
	}
	return 0;
}

static inline long ut_pwrite_all(int fd, const void *buf, size_t len, off_t pos)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pwrite(fd, (const char *)buf + done, len - done, pos + done);

		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += n;
	}
	return 0;
}

#endif /* UDMABUF_TEST_H */
