// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libudmem-buffer.c - udmem_buffer_* against the real u-dma-buf driver:
 * open/close, facts, map, sync, export, create/delete, list, NULL handles.
 */
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include <linux/u-dma-buf-ioctl.h>

#include "libudmem-test.h"

#define LT_MGR_NAME	"libudmem-t0"

static struct udmem_buffer *lt_open(unsigned int flags)
{
	struct udmem_buffer *buf = NULL;

	ASSERT_EQ(udmem_buffer_open(lt_buffer(), flags, &buf), 0);
	ASSERT_TRUE(buf != NULL);
	return buf;
}

static int lt_have_mgr(void)
{
	return access("/dev/u-dma-buf-mgr", W_OK) == 0;
}

TEST(buffer_open_null_out_einval)
{
	EXPECT_EQ(udmem_buffer_open(lt_buffer(), 0, NULL), -EINVAL);
}

TEST(buffer_open_bad_name_einval)
{
	static const char *const bad[] = {
		"", ".", "..", "../udmabuf0", "a/b", "x;delete y", "a b",
		"0123456789012345678901234567890123456789012345678901234567890123",
	};
	struct udmem_buffer *buf = (struct udmem_buffer *)0x1;
	size_t i;

	EXPECT_EQ(udmem_buffer_open(NULL, 0, &buf), -EINVAL);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_EQ(udmem_buffer_open(bad[i], 0, &buf), -EINVAL);
	EXPECT_TRUE(buf == (struct udmem_buffer *)0x1);
}

TEST(buffer_open_bad_flags_einval)
{
	struct udmem_buffer *buf = NULL;

	EXPECT_EQ(udmem_buffer_open(lt_buffer(), 0x100, &buf), -EINVAL);
	EXPECT_TRUE(buf == NULL);
}

TEST(buffer_open_missing_name_enoent)
{
	struct udmem_buffer *buf = NULL;

	EXPECT_EQ(udmem_buffer_open("udmem-no-such-buffer", 0, &buf), -ENOENT);
	EXPECT_TRUE(buf == NULL);
}

TEST(buffer_open_device_tree_style_name_accepted)
{
	struct udmem_buffer *buf = NULL;

	/* ':' and '@' appear in names derived from device-tree nodes. */
	EXPECT_EQ(udmem_buffer_open("amba:udmabuf@0x00", 0, &buf), -ENOENT);
	EXPECT_EQ(udmem_buffer_delete("amba:udmabuf@0x00"), -ENOENT);
}

TEST(buffer_open_name_of_other_driver_enodev)
{
	struct udmem_buffer *buf = NULL;

	/* /dev/null exists but is not a u-dma-buf device. */
	EXPECT_EQ(udmem_buffer_open("null", 0, &buf), -ENODEV);
	EXPECT_TRUE(buf == NULL);
}

TEST(buffer_open_region_name_as_buffer_enodev)
{
	const char *name = lt_env("UDMEM_TEST_REGION", "uiomem0");
	struct udmem_buffer *buf = NULL;

	if (!lt_exists("uiomem", name))
		SKIP("no uiomem region %s", name);
	EXPECT_EQ(udmem_buffer_open(name, 0, &buf), -ENODEV);
}

TEST(buffer_open_reports_sysfs_facts)
{
	struct udmem_buffer *buf = lt_open(0);
	const char *name = lt_buffer();
	__u64 dma = 0;

	EXPECT_STREQ(udmem_buffer_name(buf), name);
	EXPECT_EQ(udmem_buffer_size(buf), lt_sysfs("u-dma-buf", name, "size"));
	EXPECT_EQ(udmem_buffer_phys_addr(buf),
		  lt_sysfs_u("u-dma-buf", name, "phys_addr"));
	ASSERT_EQ(ioctl(udmem_buffer_fd(buf), U_DMA_BUF_IOCTL_GET_DMA_ADDR, &dma), 0);
	EXPECT_EQ(udmem_buffer_dma_addr(buf), dma);
	if (lt_sysfs("u-dma-buf", name, "dma_coherent") >= 0)
		EXPECT_EQ(udmem_buffer_is_coherent(buf),
			  lt_sysfs("u-dma-buf", name, "dma_coherent"));
	if (lt_sysfs("u-dma-buf", name, "quirk_mmap_mode") >= 0)
		EXPECT_EQ(udmem_buffer_mmap_mode(buf),
			  lt_sysfs("u-dma-buf", name, "quirk_mmap_mode"));
	EXPECT_GE(udmem_buffer_dma_mask_bits(buf), 12);
	EXPECT_LE(udmem_buffer_dma_mask_bits(buf), 64);
	EXPECT_EQ(udmem_buffer_sync_mode(buf),
		  lt_sysfs("u-dma-buf", name, "sync_mode"));
	EXPECT_GE(udmem_buffer_fd(buf), 0);
	udmem_buffer_close(buf);
}

TEST(buffer_null_handle_is_safe)
{
	void *addr = NULL;

	udmem_buffer_close(NULL);
	EXPECT_TRUE(udmem_buffer_name(NULL) == NULL);
	EXPECT_EQ(udmem_buffer_size(NULL), 0);
	EXPECT_EQ(udmem_buffer_phys_addr(NULL), 0);
	EXPECT_EQ(udmem_buffer_dma_addr(NULL), 0);
	EXPECT_EQ(udmem_buffer_is_coherent(NULL), -EINVAL);
	EXPECT_EQ(udmem_buffer_dma_mask_bits(NULL), -EINVAL);
	EXPECT_EQ(udmem_buffer_mmap_mode(NULL), -EINVAL);
	EXPECT_EQ(udmem_buffer_sync_mode(NULL), -EINVAL);
	EXPECT_EQ(udmem_buffer_sync_owner(NULL), -EINVAL);
	EXPECT_EQ(udmem_buffer_fd(NULL), -EINVAL);
	EXPECT_EQ(udmem_buffer_map(NULL, &addr), -EINVAL);
	EXPECT_EQ(udmem_buffer_unmap(NULL), -EINVAL);
	EXPECT_TRUE(udmem_buffer_addr(NULL) == NULL);
	EXPECT_EQ(udmem_buffer_sync_for_cpu(NULL, 0, 0, UDMEM_DIR_BIDIRECTIONAL), -EINVAL);
	EXPECT_EQ(udmem_buffer_sync_for_device(NULL, 0, 0, UDMEM_DIR_BIDIRECTIONAL), -EINVAL);
	EXPECT_EQ(udmem_buffer_export_dmabuf(NULL, 0, 0, O_RDWR, NULL), -EINVAL);
}

TEST(buffer_map_pattern_reaches_the_device_file)
{
	struct udmem_buffer *buf = lt_open(0);
	size_t size = udmem_buffer_size(buf);
	uint8_t *p, *back;
	void *addr = NULL;

	ASSERT_EQ(udmem_buffer_map(buf, &addr), 0);
	ASSERT_TRUE(addr != NULL);
	EXPECT_TRUE(udmem_buffer_addr(buf) == addr);
	p = addr;
	lt_fill(p, size, 7);
	ASSERT_EQ(udmem_buffer_sync_for_device(buf, 0, 0, UDMEM_DIR_TO_DEVICE), 0);
	/* read() goes through the driver's kernel mapping, not ours. */
	back = malloc(size);
	ASSERT_TRUE(back != NULL);
	ASSERT_EQ(pread(udmem_buffer_fd(buf), back, size, 0), (ssize_t)size);
	EXPECT_EQ(lt_check(back, size, 7), -1);
	/* And the other way: the file writes, the mapping reads after a sync. */
	lt_fill(back, size, 99);
	ASSERT_EQ(pwrite(udmem_buffer_fd(buf), back, size, 0), (ssize_t)size);
	ASSERT_EQ(udmem_buffer_sync_for_cpu(buf, 0, 0, UDMEM_DIR_FROM_DEVICE), 0);
	EXPECT_EQ(lt_check(p, size, 99), -1);
	free(back);
	udmem_buffer_close(buf);
}

TEST(buffer_open_sync_mapping_round_trips)
{
	struct udmem_buffer *buf = lt_open(UDMEM_OPEN_SYNC);
	uint8_t back[4096];
	void *addr = NULL;

	/* O_SYNC: the mapping follows sync_mode (uncached by default). */
	ASSERT_EQ(udmem_buffer_map(buf, &addr), 0);
	lt_fill(addr, sizeof(back), 21);
	ASSERT_EQ(pread(udmem_buffer_fd(buf), back, sizeof(back), 0), (ssize_t)sizeof(back));
	EXPECT_EQ(lt_check(back, sizeof(back), 21), -1);
	udmem_buffer_close(buf);
}

TEST(buffer_map_twice_returns_same_address)
{
	struct udmem_buffer *buf = lt_open(0);
	void *a = NULL, *b = NULL;

	ASSERT_EQ(udmem_buffer_map(buf, &a), 0);
	ASSERT_EQ(udmem_buffer_map(buf, &b), 0);
	EXPECT_TRUE(a == b);
	EXPECT_EQ(udmem_buffer_map(buf, NULL), -EINVAL);
	EXPECT_EQ(udmem_buffer_unmap(buf), 0);
	EXPECT_TRUE(udmem_buffer_addr(buf) == NULL);
	EXPECT_EQ(udmem_buffer_unmap(buf), -EINVAL);
	udmem_buffer_close(buf);
}

static void lt_write_byte(void *addr)
{
	*(volatile uint8_t *)addr = 1;
}

TEST(buffer_map_readonly_handle_write_faults)
{
	struct udmem_buffer *buf = lt_open(UDMEM_OPEN_RDONLY);
	void *addr = NULL;

	ASSERT_EQ(udmem_buffer_map(buf, &addr), 0);
	EXPECT_EQ(ut_signal_of(lt_write_byte, addr), SIGSEGV);
	udmem_buffer_close(buf);
}

static void *lt_map_thread(void *arg)
{
	void *addr = NULL;

	if (udmem_buffer_map(arg, &addr))
		return NULL;
	return addr;
}

TEST(buffer_map_from_threads_maps_once)
{
	struct udmem_buffer *buf = lt_open(0);
	pthread_t t[4];
	void *got[4];
	int i;

	for (i = 0; i < 4; i++)
		ASSERT_EQ(pthread_create(&t[i], NULL, lt_map_thread, buf), 0);
	for (i = 0; i < 4; i++)
		ASSERT_EQ(pthread_join(t[i], &got[i]), 0);
	for (i = 0; i < 4; i++) {
		EXPECT_TRUE(got[i] != NULL);
		EXPECT_TRUE(got[i] == got[0]);
	}
	udmem_buffer_close(buf);
}

TEST(buffer_sync_range_is_one_set_sync)
{
	struct udmem_buffer *buf = lt_open(0);
	const char *name = lt_buffer();

	ASSERT_EQ(udmem_buffer_sync_for_cpu(buf, 4096, 8192, UDMEM_DIR_FROM_DEVICE), 0);
	/* SET_SYNC stores the range it ran on: sysfs shows it. */
	EXPECT_EQ(lt_sysfs("u-dma-buf", name, "sync_offset"), 4096);
	EXPECT_EQ(lt_sysfs("u-dma-buf", name, "sync_size"), 8192);
	EXPECT_EQ(lt_sysfs("u-dma-buf", name, "sync_direction"), 2);
	EXPECT_EQ(lt_sysfs("u-dma-buf", name, "sync_owner"), 0);
	EXPECT_EQ(udmem_buffer_sync_owner(buf), UDMEM_OWNER_CPU);

	ASSERT_EQ(udmem_buffer_sync_for_device(buf, 64, 128, UDMEM_DIR_TO_DEVICE), 0);
	EXPECT_EQ(lt_sysfs("u-dma-buf", name, "sync_offset"), 64);
	EXPECT_EQ(lt_sysfs("u-dma-buf", name, "sync_size"), 128);
	EXPECT_EQ(lt_sysfs("u-dma-buf", name, "sync_direction"), 1);
	EXPECT_EQ(lt_sysfs("u-dma-buf", name, "sync_owner"), 1);
	EXPECT_EQ(udmem_buffer_sync_owner(buf), UDMEM_OWNER_DEVICE);
	udmem_buffer_close(buf);
}

TEST(buffer_sync_size_zero_runs_to_the_end)
{
	struct udmem_buffer *buf = lt_open(0);
	const char *name = lt_buffer();

	ASSERT_EQ(udmem_buffer_sync_for_cpu(buf, 4096, 0, UDMEM_DIR_BIDIRECTIONAL), 0);
	EXPECT_EQ(lt_sysfs("u-dma-buf", name, "sync_offset"), 4096);
	EXPECT_EQ(lt_sysfs("u-dma-buf", name, "sync_size"),
		  (long long)udmem_buffer_size(buf) - 4096);
	EXPECT_EQ(lt_sysfs("u-dma-buf", name, "sync_direction"), 0);
	udmem_buffer_close(buf);
}

TEST(buffer_sync_outside_buffer_einval)
{
	struct udmem_buffer *buf = lt_open(0);
	uint64_t size = udmem_buffer_size(buf);

	EXPECT_EQ(udmem_buffer_sync_for_cpu(buf, size, 0, UDMEM_DIR_BIDIRECTIONAL), -EINVAL);
	EXPECT_EQ(udmem_buffer_sync_for_cpu(buf, 0, size + 1, UDMEM_DIR_BIDIRECTIONAL), -EINVAL);
	EXPECT_EQ(udmem_buffer_sync_for_device(buf, size - 16, 32, UDMEM_DIR_BIDIRECTIONAL), -EINVAL);
	EXPECT_EQ(udmem_buffer_sync_for_device(buf, UINT64_MAX, 2, UDMEM_DIR_BIDIRECTIONAL), -EINVAL);
	EXPECT_EQ(udmem_buffer_sync_for_device(buf, 16, UINT64_MAX, UDMEM_DIR_BIDIRECTIONAL), -EINVAL);
	EXPECT_EQ(udmem_buffer_sync_for_cpu(buf, 0, 16, (enum udmem_dir)3), -EINVAL);
	udmem_buffer_close(buf);
}

TEST(buffer_export_dmabuf_maps_same_memory)
{
	struct udmem_buffer *buf = lt_open(0);
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
	lt_fill(mine, size, 3);
	EXPECT_EQ(lt_check(theirs, size, 3), -1);
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
	struct udmem_buffer *buf = lt_open(0);
	int fd;

	fd = udmem_buffer_export_dmabuf(buf, 1, 4096, O_RDWR, NULL);
	if (fd == -ENOTTY)
		SKIP("the driver has no DMA-BUF export");
	EXPECT_EQ(fd, -EINVAL);
	EXPECT_EQ(udmem_buffer_export_dmabuf(buf, 0, 100, O_RDWR, NULL), -EINVAL);
	EXPECT_EQ(udmem_buffer_export_dmabuf(buf, 0, 4096, -1, NULL), -EINVAL);
	udmem_buffer_close(buf);
}

TEST(buffer_list_has_the_buffer_sorted)
{
	const char *name = lt_buffer();
	char **names = NULL;
	int n, i, found = 0;

	n = udmem_buffer_list(&names);
	ASSERT_GE(n, 1);
	ASSERT_TRUE(names != NULL);
	EXPECT_TRUE(names[n] == NULL);
	for (i = 0; i < n; i++) {
		if (!strcmp(names[i], name))
			found = 1;
		if (i)
			EXPECT_LT(strcmp(names[i - 1], names[i]), 0);
	}
	EXPECT_TRUE(found);
	udmem_list_free(names);
	udmem_list_free(NULL);
	EXPECT_EQ(udmem_buffer_list(NULL), -EINVAL);
}

TEST(buffer_create_map_delete_round_trip)
{
	struct udmem_buffer *buf = NULL;
	char **names = NULL;
	void *addr = NULL;
	int i, n, found = 0;

	if (!lt_have_mgr())
		SKIP("u-dma-buf-mgr is not loaded");
	ASSERT_EQ(udmem_buffer_create(LT_MGR_NAME, 65536, 32, UDMEM_MMAP_DEFAULT), 0);
	n = udmem_buffer_list(&names);
	for (i = 0; i < n; i++)
		found |= !strcmp(names[i], LT_MGR_NAME);
	udmem_list_free(names);
	EXPECT_TRUE(found);
	ASSERT_EQ(udmem_buffer_open(LT_MGR_NAME, 0, &buf), 0);
	EXPECT_EQ(udmem_buffer_size(buf), 65536);
	EXPECT_EQ(udmem_buffer_dma_mask_bits(buf), 32);
	ASSERT_EQ(udmem_buffer_map(buf, &addr), 0);
	lt_fill(addr, 65536, 5);
	EXPECT_EQ(lt_check(addr, 65536, 5), -1);
	udmem_buffer_close(buf);
	EXPECT_EQ(udmem_buffer_delete(LT_MGR_NAME), 0);
	EXPECT_FALSE(lt_exists("u-dma-buf", LT_MGR_NAME));
	EXPECT_EQ(udmem_buffer_open(LT_MGR_NAME, 0, &buf), -ENOENT);
}

TEST(buffer_create_with_mmap_mode_sets_it)
{
	struct udmem_buffer *buf = NULL;

	if (!lt_have_mgr())
		SKIP("u-dma-buf-mgr is not loaded");
	ASSERT_EQ(udmem_buffer_create(LT_MGR_NAME, 8192, 0, UDMEM_MMAP_OFF), 0);
	ASSERT_EQ(udmem_buffer_open(LT_MGR_NAME, 0, &buf), 0);
	EXPECT_EQ(udmem_buffer_mmap_mode(buf), UDMEM_MMAP_OFF);
	udmem_buffer_close(buf);
	EXPECT_EQ(udmem_buffer_delete(LT_MGR_NAME), 0);
}

TEST(buffer_create_existing_name_eexist)
{
	if (!lt_have_mgr())
		SKIP("u-dma-buf-mgr is not loaded");
	EXPECT_EQ(udmem_buffer_create(lt_buffer(), 4096, 0, UDMEM_MMAP_DEFAULT), -EEXIST);
}

TEST(buffer_create_bad_arguments_einval)
{
	EXPECT_EQ(udmem_buffer_create(NULL, 4096, 0, UDMEM_MMAP_DEFAULT), -EINVAL);
	EXPECT_EQ(udmem_buffer_create("x;delete udmabuf0", 4096, 0, UDMEM_MMAP_DEFAULT), -EINVAL);
	EXPECT_EQ(udmem_buffer_create(LT_MGR_NAME, 0, 0, UDMEM_MMAP_DEFAULT), -EINVAL);
	EXPECT_EQ(udmem_buffer_create(LT_MGR_NAME, 4096, 11, UDMEM_MMAP_DEFAULT), -EINVAL);
	EXPECT_EQ(udmem_buffer_create(LT_MGR_NAME, 4096, 65, UDMEM_MMAP_DEFAULT), -EINVAL);
	EXPECT_EQ(udmem_buffer_create(LT_MGR_NAME, 4096, 0, (enum udmem_mmap_mode)5), -EINVAL);
	EXPECT_FALSE(lt_exists("u-dma-buf", LT_MGR_NAME));
}

TEST(buffer_delete_missing_enoent)
{
	EXPECT_EQ(udmem_buffer_delete("udmem-no-such-buffer"), -ENOENT);
	EXPECT_EQ(udmem_buffer_delete("../udmabuf0"), -EINVAL);
	EXPECT_EQ(udmem_buffer_delete(NULL), -EINVAL);
}

TEST_HARNESS_MAIN
