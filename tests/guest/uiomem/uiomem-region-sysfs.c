// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * uiomem-region-sysfs.c - uiomem-region's tests of the sysfs attributes, and of the
 * O_SYNC mappings of each sync_mode.
 */
#include "uiomem-region.h"

TEST(sysfs_read_formats)
{
	char v[64], want[64];
	struct uiomem_query q;
	size_t size;
	int fd = open_region(O_RDWR, &size);

	ASSERT_OK(ut_uiomem_query(fd, &q));
	ASSERT_OK(ut_uiomem_attr_read("driver_version", v, sizeof(v)));
	EXPECT_TRUE(strlen(v) > 0 && strchr(v, '.'));
	ASSERT_OK(ut_uiomem_attr_read("size", v, sizeof(v)));
	snprintf(want, sizeof(want), "%zu", size);
	EXPECT_STREQ(v, want);
	ASSERT_OK(ut_uiomem_attr_read("phys_addr", v, sizeof(v)));
	snprintf(want, sizeof(want), "0x%0*llx", (int)(2 * sizeof(long)),
		 (unsigned long long)q.phys_addr);
	EXPECT_STREQ(v, want);
	ASSERT_OK(ut_uiomem_attr_write("sync_offset", "4096"));
	ASSERT_OK(ut_uiomem_attr_read("sync_offset", v, sizeof(v)));
	EXPECT_STREQ(v, "0x1000");
	ASSERT_OK(ut_uiomem_attr_write("sync_offset", "0"));
	ASSERT_OK(ut_uiomem_attr_write("sync_size", "0x2000"));
	ASSERT_OK(ut_uiomem_attr_read("sync_size", v, sizeof(v)));
	EXPECT_STREQ(v, "8192");
	ASSERT_OK(ut_uiomem_attr_read("sync_for_cpu", v, sizeof(v)));
	EXPECT_STREQ(v, "0");
	ASSERT_OK(ut_uiomem_attr_write("sync_direction", "2"));
	ASSERT_OK(ut_uiomem_attr_read("sync_direction", v, sizeof(v)));
	EXPECT_STREQ(v, "2");
	ASSERT_OK(ut_uiomem_attr_write("sync_direction", "0"));
}

TEST(sysfs_rejects_bad_values)
{
	size_t size;
	int fd = open_region(O_RDWR, &size);
	unsigned long long mode = ut_uiomem_attr_u64("sync_mode");

	close(fd);
	EXPECT_EQ(ut_uiomem_attr_write("sync_mode", "8"), -EINVAL);
	EXPECT_EQ(ut_uiomem_attr_write("sync_mode", "-1"), -EINVAL);
	EXPECT_EQ(ut_uiomem_attr_write("sync_mode", "1 2"), -EINVAL);
	EXPECT_EQ(ut_uiomem_attr_write("sync_mode", "abc"), -EINVAL);
	EXPECT_EQ(ut_uiomem_attr_write("sync_direction", "3"), -EINVAL);
	EXPECT_EQ(ut_uiomem_attr_write("sync_offset", "0x"), -EINVAL);
	EXPECT_EQ(ut_uiomem_attr_write("sync_offset", "0x1g"), -EINVAL);
	EXPECT_EQ(ut_uiomem_attr_write("sync_offset", "18446744073709551616"), -ERANGE);
	EXPECT_EQ(ut_uiomem_attr_write("size", "4096"), -EACCES);
	EXPECT_EQ(ut_uiomem_attr_write("sync_owner", "1"), -EACCES);
	EXPECT_EQ(ut_uiomem_attr_u64("sync_mode"), mode);
}

TEST(sysfs_sync_commands)
{
	char cmd[64];
	size_t size;
	int fd = open_region(O_RDWR, &size);
	struct uiomem_query a, b;

	ASSERT_OK(ut_uiomem_query(fd, &a));
	ASSERT_OK(ut_uiomem_attr_write("sync_offset", "0x10000"));
	ASSERT_OK(ut_uiomem_attr_write("sync_size", "4096"));
	ASSERT_OK(ut_uiomem_attr_write("sync_direction", "0"));
	ASSERT_OK(ut_uiomem_attr_write("sync_for_device", "1"));
	EXPECT_EQ(ut_uiomem_attr_u64("sync_owner"), 1);
	EXPECT_EQ(ut_uiomem_attr_u64("sync_for_device"), 0);
	ASSERT_OK(ut_uiomem_attr_write("sync_for_cpu", "1"));
	EXPECT_EQ(ut_uiomem_attr_u64("sync_owner"), 0);
	ASSERT_OK(ut_uiomem_query(fd, &b));
	EXPECT_EQ(b.sync_calls - a.sync_calls, 2);
	if (a.cache_line_size)
		EXPECT_EQ(b.sync_lines - a.sync_lines, 2 * 4096 / a.cache_line_size);

	/* Packed: offset 0x20000, size 0x100, from device; stored values stay. */
	snprintf(cmd, sizeof(cmd), "0x%08X%08X", 0x20000, 0x100 | (2 << 2) | 1);
	ASSERT_OK(ut_uiomem_attr_write("sync_for_device", cmd));
	EXPECT_EQ(ut_uiomem_attr_u64("sync_offset"), 0x10000);
	EXPECT_EQ(ut_uiomem_attr_u64("sync_size"), 4096);
	EXPECT_EQ(ut_uiomem_attr_u64("sync_owner"), 1);
	/* Packed, past the end: refused, nothing synced. */
	snprintf(cmd, sizeof(cmd), "0x%08X%08X", (unsigned int)size, 0x100 | 1);
	EXPECT_EQ(ut_uiomem_attr_write("sync_for_cpu", cmd), -EINVAL);
	EXPECT_EQ(ut_uiomem_attr_u64("sync_owner"), 1);
	/* Stored range past the end. */
	ASSERT_OK(ut_uiomem_attr_write("sync_offset", "0xffffffffffffff00"));
	ASSERT_OK(ut_uiomem_attr_write("sync_size", "0x200"));
	EXPECT_EQ(ut_uiomem_attr_write("sync_for_cpu", "1"), -EINVAL);
	ASSERT_OK(ut_uiomem_attr_write("sync_offset", "0"));
	snprintf(cmd, sizeof(cmd), "%zu", size);
	ASSERT_OK(ut_uiomem_attr_write("sync_size", cmd));
	EXPECT_OK(ut_uiomem_attr_write("sync_for_cpu", "0"));
	EXPECT_OK(ut_uiomem_attr_write("sync_for_cpu", "1"));
	EXPECT_EQ(ut_uiomem_attr_u64("sync_owner"), 0);
}

TEST(osync_mappings_read_and_write)
{
	unsigned int mode;
	size_t size;

	close(open_region(O_RDWR, &size));
	for (mode = 1; mode <= 3; mode++) {
		char v[4];
		int fd;
		volatile uint64_t *w;

		snprintf(v, sizeof(v), "%u", mode);
		ASSERT_OK(ut_uiomem_attr_write("sync_mode", v));
		fd = open_region(O_RDWR | O_SYNC, &size);
		w = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, SCRATCH);
		ASSERT_TRUE(w != MAP_FAILED);
		w[0] = 0x0123456789abcdefULL + mode;
		EXPECT_EQ(w[0], 0x0123456789abcdefULL + mode);
		munmap((void *)w, 4096);
		close(fd);
	}
	ASSERT_OK(ut_uiomem_attr_write("sync_mode", "1"));
}
