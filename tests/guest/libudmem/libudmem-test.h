/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * libudmem-test.h - helpers the libudmem guest tests share.
 *
 * The suite names its devices in the environment: UDMEM_TEST_BUFFER (a
 * u-dma-buf buffer made by module parameter, default udmabuf0) and
 * UDMEM_TEST_REGION (a uiomem region, default uiomem0).
 */
#ifndef LIBUDMEM_TEST_H
#define LIBUDMEM_TEST_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "udmem.h"

static inline const char *lt_env(const char *var, const char *dflt)
{
	const char *v = getenv(var);

	return v && *v ? v : dflt;
}

static inline int lt_exists(const char *class, const char *name)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/class/%s/%s", class, name);
	return stat(path, &st) == 0;
}

/* The test buffer's name, or SKIP when it does not exist. */
static inline const char *lt_buffer(void)
{
	const char *name = lt_env("UDMEM_TEST_BUFFER", "udmabuf0");

	if (!lt_exists("u-dma-buf", name))
		SKIP("no u-dma-buf buffer %s (module not loaded?)", name);
	return name;
}

static inline const char *lt_region(void)
{
	const char *name = lt_env("UDMEM_TEST_REGION", "uiomem0");

	if (!lt_exists("uiomem", name))
		SKIP("no uiomem region %s (module not loaded?)", name);
	return name;
}

/* Read /sys/class/CLASS/NAME/ATTR as a number (any base); -1 on error. */
static inline long long lt_sysfs(const char *class, const char *name,
				 const char *attr)
{
	char path[256], text[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/%s/%s/%s", class, name, attr);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(text, sizeof(text), f))
		text[0] = '\0';
	fclose(f);
	return text[0] ? strtoll(text, NULL, 0) : -1;
}

/* An unsigned variant for addresses. */
static inline unsigned long long lt_sysfs_u(const char *class, const char *name,
					    const char *attr)
{
	char path[256], text[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/%s/%s/%s", class, name, attr);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(text, sizeof(text), f))
		text[0] = '\0';
	fclose(f);
	return strtoull(text, NULL, 0);
}

/* Fill with a pattern that depends on the seed and the byte's offset. */
static inline void lt_fill(uint8_t *p, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)((i * 31 + seed) ^ (i >> 8));
}

/* Offset of the first byte that differs from the pattern, or -1. */
static inline long lt_check(const uint8_t *p, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != (uint8_t)((i * 31 + seed) ^ (i >> 8)))
			return (long)i;
	return -1;
}

#endif /* LIBUDMEM_TEST_H */
