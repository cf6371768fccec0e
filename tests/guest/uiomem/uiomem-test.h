/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * uiomem-test.h - helpers of the uiomem test programs, on top of ut.h, and
 * the host peer's data pattern (tests/qemu/peers/ivshmem-peer.py has the
 * same formula).
 *
 * The region under test is $UIOMEM_DEV (default "uiomem0"): /dev/<name> and
 * /sys/class/uiomem/<name>/.
 */
#ifndef UIOMEM_TEST_H
#define UIOMEM_TEST_H

#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/uiomem.h>

#include "ut.h"

/* The peer's pattern: byte at offset o is block[o % 4093]. */
#define UT_PEER_PERIOD	4093

static inline uint8_t ut_peer_byte(uint32_t seed, uint64_t off)
{
	uint64_t k = off % UT_PEER_PERIOD;

	return (uint8_t)(7 * k + 13 * seed + (k >> 4));
}

static inline void ut_peer_fill(uint8_t *p, uint32_t seed, uint64_t off, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = ut_peer_byte(seed, off + i);
}

/* Offset of the first byte that differs from the pattern, or -1. */
static inline long ut_peer_diff(const volatile uint8_t *p, uint32_t seed,
				uint64_t off, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != ut_peer_byte(seed, off + i))
			return (long)i;
	return -1;
}

static inline const char *ut_uiomem_name(void)
{
	return ut_env("UIOMEM_DEV", "uiomem0");
}

static inline int ut_uiomem_open(int flags)
{
	char path[128];

	snprintf(path, sizeof(path), "/dev/%s", ut_uiomem_name());
	return open(path, flags);
}

/* Read /sys/class/uiomem/<name>/<attr> into buf without the newline; 0 or -errno. */
static inline int ut_uiomem_attr_read(const char *attr, char *buf, size_t len)
{
	int err = ut_sysfs_read("uiomem", ut_uiomem_name(), attr, buf, len);

	if (!err)
		buf[strcspn(buf, "\n")] = '\0';
	return err;
}

/* The attribute as a number (any base), ~0 when it cannot be read. */
static inline unsigned long long ut_uiomem_attr_u64(const char *attr)
{
	char buf[64];

	if (ut_uiomem_attr_read(attr, buf, sizeof(buf)))
		return ~0ULL;
	return strtoull(buf, NULL, 0);
}

/* Write a string to an attribute: 0 or -errno. */
static inline int ut_uiomem_attr_write(const char *attr, const char *val)
{
	return ut_sysfs_write("uiomem", ut_uiomem_name(), attr, val);
}

static inline int ut_uiomem_sync(int fd, uint32_t flags, uint64_t off, uint64_t len)
{
	struct uiomem_sync s;

	memset(&s, 0, sizeof(s));
	s.flags = flags;
	s.offset = off;
	s.length = len;
	return ioctl(fd, UIOMEM_IOCTL_SYNC, &s);
}

static inline int ut_uiomem_query(int fd, struct uiomem_query *q)
{
	memset(q, 0xa5, sizeof(*q));
	return ioctl(fd, UIOMEM_IOCTL_QUERY, q);
}

#endif /* UIOMEM_TEST_H */
