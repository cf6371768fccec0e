// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libudmem-buffer.c - what only udmem_buffer_* has, against the real
 * u-dma-buf driver: DMA facts, O_SYNC mappings, the sync range the driver
 * stores, export, create/delete through the manager.  What buffers share
 * with regions is in libudmem-handle.c.
 */
#include <sys/ioctl.h>
#include <sys/mman.h>

#include <linux/u-dma-buf-ioctl.h>

#include "libudmem-test.h"

#define UT_MGR_NAME	"libudmem-t0"

static struct udmem_buffer *ut_buffer_open(unsigned int flags)
{
	struct udmem_buffer *buf = NULL;

	ASSERT_EQ(udmem_buffer_open(ut_buffer(), flags, &buf), 0);
	ASSERT_TRUE(buf != NULL);
	return buf;
}

TEST(buffer_open_device_tree_style_name_accepted)
{
	struct udmem_buffer *buf = NULL;

	/* ':' and '@' appear in names derived from device-tree nodes. */
	EXPECT_EQ(udmem_buffer_open("amba:udmabuf@0x00", 0, &buf), -ENOENT);
	EXPECT_EQ(udmem_buffer_delete("amba:udmabuf@0x00"), -ENOENT);
}

TEST(buffer_open_reports_dma_facts)
{
	struct udmem_buffer *buf = ut_buffer_open(0);
	const char *name = ut_buffer();
	__u64 dma = 0;

	ASSERT_EQ(ioctl(udmem_buffer_fd(buf), U_DMA_BUF_IOCTL_GET_DMA_ADDR, &dma), 0);
	EXPECT_EQ(udmem_buffer_dma_addr(buf), dma);
	if (ut_sysfs_num(UT_BUFFER_CLASS, name, "dma_coherent") >= 0)
		EXPECT_EQ(udmem_buffer_is_coherent(buf),
			  ut_sysfs_num(UT_BUFFER_CLASS, name, "dma_coherent"));
	if (ut_sysfs_num(UT_BUFFER_CLASS, name, "quirk_mmap_mode") >= 0)
		EXPECT_EQ(udmem_buffer_mmap_mode(buf),
			  ut_sysfs_num(UT_BUFFER_CLASS, name, "quirk_mmap_mode"));
	EXPECT_GE(udmem_buffer_dma_mask_bits(buf), 12);
	EXPECT_LE(udmem_buffer_dma_mask_bits(buf), 64);
	udmem_buffer_close(buf);
}

TEST(buffer_null_handle_is_safe)
{
	/* The functions regions lack; the shared ones are in libudmem-handle.c. */
	EXPECT_EQ(udmem_buffer_dma_mask_bits(NULL), -EINVAL);
	EXPECT_EQ(udmem_buffer_mmap_mode(NULL), -EINVAL);
	EXPECT_EQ(udmem_buffer_export_dmabuf(NULL, 0, 0, O_RDWR, NULL), -EINVAL);
}

TEST(buffer_open_sync_mapping_round_trips)
{
	struct udmem_buffer *buf = ut_buffer_open(UDMEM_OPEN_SYNC);
	uint8_t back[4096];
	void *addr = NULL;

	/* O_SYNC: the mapping follows sync_mode (uncached by default). */
	ASSERT_EQ(udmem_buffer_map(buf, &addr), 0);
	ut_fill(addr, sizeof(back), 0, 21);
	ASSERT_EQ(pread(udmem_buffer_fd(buf), back, sizeof(back), 0), (ssize_t)sizeof(back));
	EXPECT_EQ(ut_check(back, sizeof(back), 0, 21), -1);
	udmem_buffer_close(buf);
}

TEST(buffer_sync_range_is_one_set_sync)
{
	struct udmem_buffer *buf = ut_buffer_open(0);
	const char *name = ut_buffer();

	ASSERT_EQ(udmem_buffer_sync_for_cpu(buf, 4096, 8192, UDMEM_DIR_FROM_DEVICE), 0);
	/* SET_SYNC stores the range it ran on: sysfs shows it. */
	EXPECT_EQ(ut_sysfs_num(UT_BUFFER_CLASS, name, "sync_offset"), 4096);
	EXPECT_EQ(ut_sysfs_num(UT_BUFFER_CLASS, name, "sync_size"), 8192);
	EXPECT_EQ(ut_sysfs_num(UT_BUFFER_CLASS, name, "sync_direction"), 2);
	EXPECT_EQ(ut_sysfs_num(UT_BUFFER_CLASS, name, "sync_owner"), 0);
	EXPECT_EQ(udmem_buffer_sync_owner(buf), UDMEM_OWNER_CPU);

	ASSERT_EQ(udmem_buffer_sync_for_device(buf, 64, 128, UDMEM_DIR_TO_DEVICE), 0);
	EXPECT_EQ(ut_sysfs_num(UT_BUFFER_CLASS, name, "sync_offset"), 64);
	EXPECT_EQ(ut_sysfs_num(UT_BUFFER_CLASS, name, "sync_size"), 128);
	EXPECT_EQ(ut_sysfs_num(UT_BUFFER_CLASS, name, "sync_direction"), 1);
	EXPECT_EQ(ut_sysfs_num(UT_BUFFER_CLASS, name, "sync_owner"), 1);
	EXPECT_EQ(udmem_buffer_sync_owner(buf), UDMEM_OWNER_DEVICE);
	udmem_buffer_close(buf);
}

TEST(buffer_sync_size_zero_runs_to_the_end)
{
	struct udmem_buffer *buf = ut_buffer_open(0);
	const char *name = ut_buffer();

	ASSERT_EQ(udmem_buffer_sync_for_cpu(buf, 4096, 0, UDMEM_DIR_BIDIRECTIONAL), 0);
	EXPECT_EQ(ut_sysfs_num(UT_BUFFER_CLASS, name, "sync_offset"), 4096);
	EXPECT_EQ(ut_sysfs_num(UT_BUFFER_CLASS, name, "sync_size"),
		  (long long)udmem_buffer_size(buf) - 4096);
	EXPECT_EQ(ut_sysfs_num(UT_BUFFER_CLASS, name, "sync_direction"), 0);
	udmem_buffer_close(buf);
}

TEST(buffer_export_dmabuf_maps_same_memory)
{
	struct udmem_buffer *buf = ut_buffer_open(0);
	uint64_t size = udmem_buffer_size(buf) & ~4095ULL, dma = 0;
	uint8_t *mine, *theirs;
	void *addr = NULL;
	int fd;

	fd = udmem_buffer_export_dmabuf(buf, 0, 0, O_RDWR | O_CLOEXEC, &dma);
	if (fd == -ENOTTY || fd == -EOPNOTSUPP)
		SKIP("the driver has no DMA-BUF export (%d)", fd);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(dma, udmem_buffer_dma_addr(buf));
	EXPECT_EQ(lseek(fd, 0, SEEK_END), (off_t)size);
	ASSERT_EQ(udmem_buffer_map(buf, &addr), 0);
	mine = addr;
	theirs = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_TRUE(theirs != MAP_FAILED);
	ut_fill(mine, size, 0, 3);
	EXPECT_EQ(ut_check(theirs, size, 0, 3), -1);
	munmap(theirs, size);
	close(fd);

	fd = udmem_buffer_export_dmabuf(buf, 4096, 4096, O_RDONLY, &dma);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(dma, udmem_buffer_dma_addr(buf) + 4096);
	close(fd);
	udmem_buffer_close(buf);
}

TEST(buffer_export_misaligned_einval)
{
	struct udmem_buffer *buf = ut_buffer_open(0);
	int fd;

	fd = udmem_buffer_export_dmabuf(buf, 1, 4096, O_RDWR, NULL);
	if (fd == -ENOTTY)
		SKIP("the driver has no DMA-BUF export");
	EXPECT_EQ(fd, -EINVAL);
	EXPECT_EQ(udmem_buffer_export_dmabuf(buf, 0, 100, O_RDWR, NULL), -EINVAL);
	EXPECT_EQ(udmem_buffer_export_dmabuf(buf, 0, 4096, -1, NULL), -EINVAL);
	udmem_buffer_close(buf);
}

TEST(buffer_create_map_delete_round_trip)
{
	struct udmem_buffer *buf = NULL;
	char **names = NULL;
	void *addr = NULL;
	int i, n, found = 0;

	if (!ut_have_mgr())
		SKIP("u-dma-buf-mgr is not loaded");
	ASSERT_EQ(udmem_buffer_create(UT_MGR_NAME, 65536, 32, UDMEM_MMAP_DEFAULT), 0);
	n = udmem_buffer_list(&names);
	for (i = 0; i < n; i++)
		found |= !strcmp(names[i], UT_MGR_NAME);
	udmem_list_free(names);
	EXPECT_TRUE(found);
	ASSERT_EQ(udmem_buffer_open(UT_MGR_NAME, 0, &buf), 0);
	EXPECT_EQ(udmem_buffer_size(buf), 65536);
	EXPECT_EQ(udmem_buffer_dma_mask_bits(buf), 32);
	ASSERT_EQ(udmem_buffer_map(buf, &addr), 0);
	ut_fill(addr, 65536, 0, 5);
	EXPECT_EQ(ut_check(addr, 65536, 0, 5), -1);
	udmem_buffer_close(buf);
	EXPECT_EQ(udmem_buffer_delete(UT_MGR_NAME), 0);
	EXPECT_FALSE(ut_sysfs_exists(UT_BUFFER_CLASS, UT_MGR_NAME));
	EXPECT_EQ(udmem_buffer_open(UT_MGR_NAME, 0, &buf), -ENOENT);
}

TEST(buffer_create_with_mmap_mode_sets_it)
{
	struct udmem_buffer *buf = NULL;

	if (!ut_have_mgr())
		SKIP("u-dma-buf-mgr is not loaded");
	ASSERT_EQ(udmem_buffer_create(UT_MGR_NAME, 8192, 0, UDMEM_MMAP_OFF), 0);
	ASSERT_EQ(udmem_buffer_open(UT_MGR_NAME, 0, &buf), 0);
	EXPECT_EQ(udmem_buffer_mmap_mode(buf), UDMEM_MMAP_OFF);
	udmem_buffer_close(buf);
	EXPECT_EQ(udmem_buffer_delete(UT_MGR_NAME), 0);
}

TEST(buffer_create_existing_name_eexist)
{
	if (!ut_have_mgr())
		SKIP("u-dma-buf-mgr is not loaded");
	EXPECT_EQ(udmem_buffer_create(ut_buffer(), 4096, 0, UDMEM_MMAP_DEFAULT), -EEXIST);
}

TEST(buffer_create_bad_arguments_einval)
{
	EXPECT_EQ(udmem_buffer_create(NULL, 4096, 0, UDMEM_MMAP_DEFAULT), -EINVAL);
	EXPECT_EQ(udmem_buffer_create("x;delete udmabuf0", 4096, 0, UDMEM_MMAP_DEFAULT), -EINVAL);
	EXPECT_EQ(udmem_buffer_create(UT_MGR_NAME, 0, 0, UDMEM_MMAP_DEFAULT), -EINVAL);
	EXPECT_EQ(udmem_buffer_create(UT_MGR_NAME, 4096, 11, UDMEM_MMAP_DEFAULT), -EINVAL);
	EXPECT_EQ(udmem_buffer_create(UT_MGR_NAME, 4096, 65, UDMEM_MMAP_DEFAULT), -EINVAL);
	EXPECT_EQ(udmem_buffer_create(UT_MGR_NAME, 4096, 0, (enum udmem_mmap_mode)5), -EINVAL);
	EXPECT_FALSE(ut_sysfs_exists(UT_BUFFER_CLASS, UT_MGR_NAME));
}

TEST(buffer_delete_missing_enoent)
{
	EXPECT_EQ(udmem_buffer_delete("udmem-no-such-buffer"), -ENOENT);
	EXPECT_EQ(udmem_buffer_delete("../udmabuf0"), -EINVAL);
	EXPECT_EQ(udmem_buffer_delete(NULL), -EINVAL);
}

TEST_HARNESS_MAIN
