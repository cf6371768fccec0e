/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * libudmem-test.h - helpers of the libudmem guest tests, on top of ut.h.
 *
 * The suite names its devices in the environment: UDMEM_TEST_BUFFER (a
 * u-dma-buf buffer made by module parameter, default udmabuf0) and
 * UDMEM_TEST_REGION (a uiomem region, default uiomem0).
 */
#ifndef LIBUDMEM_TEST_H
#define LIBUDMEM_TEST_H

#include "ut.h"
#include "udmem.h"

#define UT_BUFFER_CLASS	"u-dma-buf"
#define UT_REGION_CLASS	"uiomem"

static inline const char *ut_buffer_env(void)
{
	return ut_env("UDMEM_TEST_BUFFER", "udmabuf0");
}

static inline const char *ut_region_env(void)
{
	return ut_env("UDMEM_TEST_REGION", "uiomem0");
}

/* The test buffer's name, or SKIP when it does not exist. */
static inline const char *ut_buffer(void)
{
	const char *name = ut_buffer_env();

	if (!ut_sysfs_exists(UT_BUFFER_CLASS, name))
		SKIP("no u-dma-buf buffer %s (module not loaded?)", name);
	return name;
}

static inline const char *ut_region(void)
{
	const char *name = ut_region_env();

	if (!ut_sysfs_exists(UT_REGION_CLASS, name))
		SKIP("no uiomem region %s (module not loaded?)", name);
	return name;
}

/* An attribute as a number (any base), or -1 when it is missing. */
static inline long long ut_sysfs_num(const char *class, const char *name,
				     const char *attr)
{
	uint64_t v;

	return ut_sysfs_u64(class, name, attr, 0, &v) ? -1 : (long long)v;
}

static inline int ut_have_mgr(void)
{
	return access("/dev/u-dma-buf-mgr", W_OK) == 0;
}

static inline void ut_write_byte(void *addr)
{
	*(volatile uint8_t *)addr = 1;
}

#endif /* LIBUDMEM_TEST_H */
