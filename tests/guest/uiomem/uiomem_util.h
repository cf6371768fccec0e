/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * uiomem_util.h - helpers shared by the uiomem guest test programs.
 *
 * The region under test is $UIOMEM_DEV (default "uiomem0"): /dev/<name> and
 * /sys/class/uiomem/<name>/.
 */
#ifndef UIOMEM_UTIL_H
#define UIOMEM_UTIL_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/uiomem.h>

/* The peer's pattern: byte at offset o is block[o % 4093]. */
#define PATTERN_PERIOD	4093

static inline uint8_t pattern_byte(uint32_t seed, uint64_t off)
{
	uint64_t k = off % PATTERN_PERIOD;

	return (uint8_t)(7 * k + 13 * seed + (k >> 4));
}

static inline void pattern_fill(uint8_t *p, uint32_t seed, uint64_t off, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = pattern_byte(seed, off + i);
}

/* Offset of the first byte that differs from the pattern, or -1. */
static inline long pattern_diff(const volatile uint8_t *p, uint32_t seed,
				uint64_t off, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != pattern_byte(seed, off + i))
			return (long)i;
	return -1;
}

static inline const char *um_name(void)
{
	const char *n = getenv("UIOMEM_DEV");

	return n && *n ? n : "uiomem0";
}

static inline int um_open(int flags)
{
	char path[128];

	snprintf(path, sizeof(path), "/dev/%s", um_name());
	return open(path, flags);
}

/* Read /sys/class/uiomem/<name>/<attr> into buf without the newline. */
static inline int um_attr_read(const char *attr, char *buf, size_t len)
{
	char path[192];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/sys/class/uiomem/%s/%s", um_name(), attr);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static inline unsigned long long um_attr_u64(const char *attr)
{
	char buf[64];

	if (um_attr_read(attr, buf, sizeof(buf)))
		return ~0ULL;
	return strtoull(buf, NULL, 0);
}

/* Write a string to an attribute: 0 or -errno. */
static inline int um_attr_write(const char *attr, const char *val)
{
	char path[192];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/sys/class/uiomem/%s/%s", um_name(), attr);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	if (n < 0)
		n = -errno;
	close(fd);
	return n < 0 ? (int)n : 0;
}

static inline int um_sync(int fd, uint32_t flags, uint64_t off, uint64_t len)
{
	struct uiomem_sync s;

	memset(&s, 0, sizeof(s));
	s.flags = flags;
	s.offset = off;
	s.length = len;
	return ioctl(fd, UIOMEM_IOCTL_SYNC, &s);
}

static inline int um_query(int fd, struct uiomem_query *q)
{
	memset(q, 0xa5, sizeof(*q));
	return ioctl(fd, UIOMEM_IOCTL_QUERY, q);
}

#endif /* UIOMEM_UTIL_H */
