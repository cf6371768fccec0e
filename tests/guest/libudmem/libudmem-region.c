// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libudmem-region.c - udmem_region_* against the real uiomem driver:
 * open/close, facts, map, sync (one ioctl each), list, NULL handles.
 */
#include <sys/ioctl.h>
#include <sys/mman.h>

#include <linux/uiomem.h>

#include "libudmem-test.h"

static struct udmem_region *lt_open(unsigned int flags)
{
	struct udmem_region *reg = NULL;

	ASSERT_EQ(udmem_region_open(lt_region(), flags, &reg), 0);
	ASSERT_TRUE(reg != NULL);
	return reg;
}

static struct uiomem_query lt_query(struct udmem_region *reg)
{
	struct uiomem_query q;

	memset(&q, 0, sizeof(q));
	ASSERT_EQ(ioctl(udmem_region_fd(reg), UIOMEM_IOCTL_QUERY, &q), 0);
	return q;
}

TEST(region_open_null_out_einval)
{
	EXPECT_EQ(udmem_region_open(lt_region(), 0, NULL), -EINVAL);
	EXPECT_EQ(udmem_region_open(NULL, 0, NULL), -EINVAL);
}

TEST(region_open_bad_name_einval)
{
	struct udmem_region *reg = NULL;

	EXPECT_EQ(udmem_region_open("", 0, &reg), -EINVAL);
	EXPECT_EQ(udmem_region_open("../uiomem0", 0, &reg), -EINVAL);
	EXPECT_EQ(udmem_region_open(NULL, 0, &reg), -EINVAL);
	EXPECT_EQ(udmem_region_open(lt_region(), 0x80, &reg), -EINVAL);
	EXPECT_TRUE(reg == NULL);
}

TEST(region_open_missing_name_enoent)
{
	struct udmem_region *reg = NULL;

	EXPECT_EQ(udmem_region_open("udmem-no-such-region", 0, &reg), -ENOENT);
}

TEST(region_open_name_of_other_driver_enodev)
{
	struct udmem_region *reg = NULL;

	EXPECT_EQ(udmem_region_open("zero", 0, &reg), -ENODEV);
}

TEST(region_open_buffer_name_as_region_enodev)
{
	const char *name = lt_env("UDMEM_TEST_BUFFER", "udmabuf0");
	struct udmem_region *reg = NULL;

	if (!lt_exists("u-dma-buf", name))
		SKIP("no u-dma-buf buffer %s", name);
	EXPECT_EQ(udmem_region_open(name, 0, &reg), -ENODEV);
}

TEST(region_open_reports_sysfs_facts)
{
	struct udmem_region *reg = lt_open(0);
	const char *name = lt_region();
	struct uiomem_query q = lt_query(reg);

	EXPECT_STREQ(udmem_region_name(reg), name);
	EXPECT_EQ(udmem_region_size(reg), lt_sysfs("uiomem", name, "size"));
	EXPECT_EQ(udmem_region_phys_addr(reg), lt_sysfs_u("uiomem", name, "phys_addr"));
	EXPECT_EQ(udmem_region_dma_addr(reg), udmem_region_phys_addr(reg));
	EXPECT_EQ(udmem_region_is_coherent(reg), q.map_type != UIOMEM_MAP_CACHED);
	EXPECT_EQ(udmem_region_sync_mode(reg), lt_sysfs("uiomem", name, "sync_mode"));
	EXPECT_EQ(udmem_region_sync_owner(reg), lt_sysfs("uiomem", name, "sync_owner"));
	udmem_region_close(reg);
}

TEST(region_null_handle_is_safe)
{
	void *addr = NULL;

	udmem_region_close(NULL);
	EXPECT_TRUE(udmem_region_name(NULL) == NULL);
	EXPECT_EQ(udmem_region_size(NULL), 0);
	EXPECT_EQ(udmem_region_phys_addr(NULL), 0);
	EXPECT_EQ(udmem_region_dma_addr(NULL), 0);
	EXPECT_EQ(udmem_region_is_coherent(NULL), -EINVAL);
	EXPECT_EQ(udmem_region_sync_mode(NULL), -EINVAL);
	EXPECT_EQ(udmem_region_sync_owner(NULL), -EINVAL);
	EXPECT_EQ(udmem_region_fd(NULL), -EINVAL);
	EXPECT_EQ(udmem_region_map(NULL, &addr), -EINVAL);
	EXPECT_EQ(udmem_region_unmap(NULL), -EINVAL);
	EXPECT_TRUE(udmem_region_addr(NULL) == NULL);
	EXPECT_EQ(udmem_region_sync_for_cpu(NULL, 0, 0, UDMEM_DIR_BIDIRECTIONAL), -EINVAL);
	EXPECT_EQ(udmem_region_sync_for_device(NULL, 0, 0, UDMEM_DIR_BIDIRECTIONAL), -EINVAL);
}

TEST(region_map_pattern_reaches_the_device_file)
{
	struct udmem_region *reg = lt_open(0);
	size_t size = udmem_region_size(reg);
	uint8_t *back;
	void *addr = NULL;

	ASSERT_EQ(udmem_region_map(reg, &addr), 0);
	EXPECT_TRUE(udmem_region_addr(reg) == addr);
	lt_fill(addr, size, 11);
	ASSERT_EQ(udmem_region_sync_for_device(reg, 0, 0, UDMEM_DIR_TO_DEVICE), 0);
	back = malloc(size);
	ASSERT_TRUE(back != NULL);
	ASSERT_EQ(pread(udmem_region_fd(reg), back, size, 0), (ssize_t)size);
	EXPECT_EQ(lt_check(back, size, 11), -1);
	lt_fill(back, size, 12);
	ASSERT_EQ(pwrite(udmem_region_fd(reg), back, size, 0), (ssize_t)size);
	ASSERT_EQ(udmem_region_sync_for_cpu(reg, 0, 0, UDMEM_DIR_FROM_DEVICE), 0);
	EXPECT_EQ(lt_check(addr, size, 12), -1);
	free(back);
	udmem_region_close(reg);
}

TEST(region_map_twice_returns_same_address)
{
	struct udmem_region *reg = lt_open(0);
	void *a = NULL, *b = NULL;

	ASSERT_EQ(udmem_region_map(reg, &a), 0);
	ASSERT_EQ(udmem_region_map(reg, &b), 0);
	EXPECT_TRUE(a == b);
	EXPECT_EQ(udmem_region_unmap(reg), 0);
	EXPECT_EQ(udmem_region_unmap(reg), -EINVAL);
	EXPECT_TRUE(udmem_region_addr(reg) == NULL);
	udmem_region_close(reg);
}

static void lt_write_byte(void *addr)
{
	*(volatile uint8_t *)addr = 1;
}

TEST(region_map_readonly_handle_write_faults)
{
	struct udmem_region *reg = lt_open(UDMEM_OPEN_RDONLY);
	void *addr = NULL;

	ASSERT_EQ(udmem_region_map(reg, &addr), 0);
	EXPECT_EQ(ut_signal_of(lt_write_byte, addr), SIGSEGV);
	udmem_region_close(reg);
}

TEST(region_sync_is_one_driver_call)
{
	struct udmem_region *reg = lt_open(0);
	struct uiomem_query before, after;

	before = lt_query(reg);
	ASSERT_EQ(udmem_region_sync_for_cpu(reg, 64, 256, UDMEM_DIR_FROM_DEVICE), 0);
	ASSERT_EQ(udmem_region_sync_for_device(reg, 64, 256, UDMEM_DIR_TO_DEVICE), 0);
	after = lt_query(reg);
	EXPECT_EQ(after.sync_calls - before.sync_calls, 2);
	/* Range-aware: at most the lines covering 256 bytes, twice. */
	if (before.cache_line_size)
		EXPECT_LE(after.sync_lines - before.sync_lines,
			  2 * (256 / before.cache_line_size + 2));
	udmem_region_close(reg);
}

TEST(region_sync_outside_region_einval)
{
	struct udmem_region *reg = lt_open(0);
	uint64_t size = udmem_region_size(reg);

	EXPECT_EQ(udmem_region_sync_for_cpu(reg, size, 0, UDMEM_DIR_BIDIRECTIONAL), -EINVAL);
	EXPECT_EQ(udmem_region_sync_for_cpu(reg, 0, size + 1, UDMEM_DIR_BIDIRECTIONAL), -EINVAL);
	EXPECT_EQ(udmem_region_sync_for_device(reg, 8, UINT64_MAX, UDMEM_DIR_BIDIRECTIONAL), -EINVAL);
	EXPECT_EQ(udmem_region_sync_for_device(reg, 0, 8, (enum udmem_dir)7), -EINVAL);
	udmem_region_close(reg);
}

TEST(region_list_has_the_region)
{
	const char *name = lt_region();
	char **names = NULL;
	int n, i, found = 0;

	n = udmem_region_list(&names);
	ASSERT_GE(n, 1);
	EXPECT_TRUE(names[n] == NULL);
	for (i = 0; i < n; i++)
		found |= !strcmp(names[i], name);
	EXPECT_TRUE(found);
	udmem_list_free(names);
}

TEST_HARNESS_MAIN
