// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libudmem-region.c - what only udmem_region_* has, against the real
 * uiomem driver: the facts of UIOMEM_IOCTL_QUERY, sync_mode and the owner
 * by the 1.1 ioctls, and one ioctl per sync.
 * What regions share with buffers is in libudmem-handle.c.
 */
#include <sys/ioctl.h>
#include <sys/mman.h>

#include <linux/uiomem.h>

#include "libudmem-test.h"

static struct udmem_region *ut_region_open(unsigned int flags)
{
	struct udmem_region *reg = NULL;

	ASSERT_EQ(udmem_region_open(ut_region(), flags, &reg), 0);
	ASSERT_TRUE(reg != NULL);
	return reg;
}

static struct uiomem_query ut_query(struct udmem_region *reg)
{
	struct uiomem_query q;

	memset(&q, 0, sizeof(q));
	ASSERT_EQ(ioctl(udmem_region_fd(reg), UIOMEM_IOCTL_QUERY, &q), 0);
	return q;
}

TEST(region_open_reports_query_facts)
{
	struct udmem_region *reg = ut_region_open(0);
	struct uiomem_query q = ut_query(reg);

	EXPECT_EQ(udmem_region_size(reg), q.size);
	EXPECT_EQ(udmem_region_phys_addr(reg), q.phys_addr);
	EXPECT_EQ(udmem_region_dma_addr(reg), udmem_region_phys_addr(reg));
	EXPECT_EQ(udmem_region_is_coherent(reg), q.map_type != UIOMEM_MAP_CACHED);
	udmem_region_close(reg);
}

TEST(region_sync_is_one_driver_call)
{
	struct udmem_region *reg = ut_region_open(0);
	struct uiomem_query before, after;

	before = ut_query(reg);
	ASSERT_EQ(udmem_region_sync_for_cpu(reg, 64, 256, UDMEM_DIR_FROM_DEVICE), 0);
	ASSERT_EQ(udmem_region_sync_for_device(reg, 64, 256, UDMEM_DIR_TO_DEVICE), 0);
	after = ut_query(reg);
	EXPECT_EQ(after.sync_calls - before.sync_calls, 2);
	/* Range-aware: at most the lines covering 256 bytes, twice. */
	if (before.cache_line_size)
		EXPECT_LE(after.sync_lines - before.sync_lines,
			  2 * (256 / before.cache_line_size + 2));
	udmem_region_close(reg);
}

/* sync_mode and the owner come from the 1.1 ioctls, and agree with sysfs. */
TEST(region_sync_mode_and_owner_match_the_1_1_ioctls)
{
	struct udmem_region *reg = ut_region_open(0);
	struct uiomem_ioctl_sync_args sa;
	__u32 owner = 7;

	memset(&sa, 0, sizeof(sa));
	ASSERT_EQ(ioctl(udmem_region_fd(reg), UIOMEM_IOCTL_GET_SYNC, &sa), 0);
	EXPECT_EQ(udmem_region_sync_mode(reg),
		  (int)UIOMEM_FLAGS_GET(sa.flags, UIOMEM_SYNC_ARGS_FLAGS_SYNC_MODE));
	EXPECT_EQ(udmem_region_sync_mode(reg),
		  (int)ut_sysfs_num(UT_REGION_CLASS, ut_region(), "sync_mode"));
	ASSERT_EQ(udmem_region_sync_for_device(reg, 0, 64, UDMEM_DIR_TO_DEVICE), 0);
	ASSERT_EQ(ioctl(udmem_region_fd(reg), UIOMEM_IOCTL_GET_SYNC_OWNER, &owner), 0);
	EXPECT_EQ(owner, 1);
	EXPECT_EQ(udmem_region_sync_owner(reg), UDMEM_OWNER_DEVICE);
	ASSERT_EQ(udmem_region_sync_for_cpu(reg, 0, 64, UDMEM_DIR_FROM_DEVICE), 0);
	EXPECT_EQ(udmem_region_sync_owner(reg), UDMEM_OWNER_CPU);
	EXPECT_EQ(ut_sysfs_num(UT_REGION_CLASS, ut_region(), "sync_owner"), 0);
	udmem_region_close(reg);
}

TEST_HARNESS_MAIN
