/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * ut.h - helpers every guest test program may use: the environment, sysfs
 * attributes of a class device (/sys/class/<class>/<name>/<attr>), whole
 * pread/pwrite, and a data pattern that differs for every seed and
 * position.  Suite headers (udmabuf-test.h, libudmem-test.h,
 * uiomem-test.h) build on it; all helpers are prefixed ut_.
 */
#ifndef UT_H
#define UT_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

/* $var, or dflt when it is unset or empty. */
static inline const char *ut_env(const char *var, const char *dflt)
{
	const char *v = getenv(var);

	return v && *v ? v : dflt;
}

static inline long ut_page(void)
{
	return sysconf(_SC_PAGESIZE);
}

static inline void ut_sysfs_path(char *buf, size_t len, const char *class,
				 const char *name, const char *attr)
{
	snprintf(buf, len, "/sys/class/%s/%s%s%s", class, name, attr ? "/" : "",
		 attr ? attr : "");
}

/* Does /sys/class/<class>/<name> exist? */
static inline int ut_sysfs_exists(const char *class, const char *name)
{
	char path[256];
	struct stat st;

	ut_sysfs_path(path, sizeof(path), class, name, NULL);
	return stat(path, &st) == 0;
}

/* Read an attribute into buf (NUL-terminated, newline kept); 0 or -errno. */
static inline int ut_sysfs_read(const char *class, const char *name, const char *attr,
				char *buf, size_t len)
{
	char path[256];
	ssize_t n;
	int fd;

	ut_sysfs_path(path, sizeof(path), class, name, attr);
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

/* Write exactly len bytes of s to an attribute in one write(); 0 or -errno. */
static inline int ut_sysfs_write_n(const char *class, const char *name, const char *attr,
				   const char *s, size_t len)
{
	char path[256];
	ssize_t n;
	int fd, err = 0;

	ut_sysfs_path(path, sizeof(path), class, name, attr);
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

static inline int ut_sysfs_write(const char *class, const char *name, const char *attr,
				 const char *s)
{
	return ut_sysfs_write_n(class, name, attr, s, strlen(s));
}

/* Parse an attribute as one unsigned number in base (0: by prefix); 0 or -errno. */
static inline int ut_sysfs_u64(const char *class, const char *name, const char *attr,
			       int base, uint64_t *v)
{
	char buf[128], *end;
	int err = ut_sysfs_read(class, name, attr, buf, sizeof(buf));

	if (err)
		return err;
	errno = 0;
	*v = strtoull(buf, &end, base);
	if (errno || end == buf || (*end != '\n' && *end != '\0'))
		return -EINVAL;
	return 0;
}

/* The attribute as a number; the test fails when it is missing or does not parse. */
static inline uint64_t ut_sysfs_get(const char *class, const char *name, const char *attr,
				    int base)
{
	uint64_t v = 0;
	int err = ut_sysfs_u64(class, name, attr, base, &v);

	UT_CHECK(err == 0, 1, "reading %s/%s/%s: %s", class, name, attr, strerror(-err));
	return v;
}

/* Copy exactly len bytes at pos with pread/pwrite; 0 or -errno (-EIO when short). */
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

/*
 * A position-dependent pattern, different for every seed: byte pos folds
 * (pos + 1) * UT_PAT_STEP ^ seed * UT_PAT_SEED.  ut_fill() and ut_check()
 * step the product by UT_PAT_STEP from byte to byte instead of multiplying
 * (the same bytes): under emulation the multiply made most of the time of
 * the tests that fill and check tens of MiB.
 */
#define UT_PAT_STEP 0x9E3779B97F4A7C15ull
#define UT_PAT_SEED 0xBF58476D1CE4E5B9ull

static inline uint8_t ut_pattern_fold(uint64_t x)
{
	return (uint8_t)(x >> 56 ^ x >> 13);
}

static inline uint8_t ut_pattern_byte(uint64_t pos, unsigned int seed)
{
	return ut_pattern_fold((pos + 1) * UT_PAT_STEP ^ (uint64_t)seed * UT_PAT_SEED);
}

/* Fill len bytes that sit at position pos of the pattern. */
static inline void ut_fill(void *p, size_t len, uint64_t pos, unsigned int seed)
{
	uint64_t m = (pos + 1) * UT_PAT_STEP, s = (uint64_t)seed * UT_PAT_SEED;
	uint8_t *b = p;
	size_t i;

	for (i = 0; i < len; i++, m += UT_PAT_STEP)
		b[i] = ut_pattern_fold(m ^ s);
}

/* Index of the first byte that differs from the pattern, or -1. */
static inline long ut_check(const void *p, size_t len, uint64_t pos, unsigned int seed)
{
	uint64_t m = (pos + 1) * UT_PAT_STEP, s = (uint64_t)seed * UT_PAT_SEED;
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < len; i++, m += UT_PAT_STEP)
		if (b[i] != ut_pattern_fold(m ^ s))
			return (long)i;
	return -1;
}

/* The len bytes at p hold the pattern from position pos, else the test ends. */
#define ASSERT_PATTERN(p, len, pos, seed) do {				\
		long __i = ut_check((p), (len), (pos), (seed));		\
		UT_CHECK(__i < 0, 1, "data mismatch at byte %ld of %zu " \
			 "(pattern seed %u): want 0x%02x, got 0x%02x",	\
			 __i, (size_t)(len), (unsigned int)(seed),	\
			 __i < 0 ? 0 : ut_pattern_byte((pos) + __i, (seed)), \
			 __i < 0 ? 0 : ((const uint8_t *)(p))[__i]);	\
	} while (0)

#endif /* UT_H */
