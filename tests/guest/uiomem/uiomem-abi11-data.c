// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * uiomem-abi11-data.c - uiomem-abi11's checks of mmap, read() and lseek() bounds, of
 * the data paths with syncs, and of the cache backend the region reports.
 */
#include "uiomem-abi11.h"

TEST(c13_mmap_bounds)
{
	long page = ut_page();
	uint64_t size;
	int fd = open_region(O_RDWR, &size);
	void *p;

	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	munmap(p, size);
	EXPECT_TRUE(mmap(NULL, size + page, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED);
	EXPECT_EQ(errno, ENXIO);
	EXPECT_TRUE(mmap(NULL, page, PROT_READ, MAP_SHARED, fd, size) == MAP_FAILED);
	EXPECT_EQ(errno, ENXIO);
	p = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, size - page);
	EXPECT_TRUE(p != MAP_FAILED);
	if (p != MAP_FAILED)
		munmap(p, page);
}

TEST(c14_read_and_lseek_bounds)
{
	uint64_t size, n = 1 << 20;
	int fd = open_region(O_RDWR, &size);
	char c;
	void *buf;

	EXPECT_EQ(pread(fd, &c, 1, size), 0);
	EXPECT_EQ(lseek(fd, size, SEEK_SET), (off_t)size);
	EXPECT_EQ(read(fd, &c, 1), 0);
	if (size < n)
		n = size;
	buf = malloc(n);
	ASSERT_TRUE(buf != NULL);
	/* The whole window, or its last MiB for big ones. */
	EXPECT_EQ(pread(fd, buf, n, size - n), (ssize_t)n);
	if (n == size)
		EXPECT_EQ(pread(fd, buf, size + 4096, 0), (ssize_t)size);
	free(buf);
	EXPECT_ERRNO(lseek(fd, size + 1, SEEK_SET), EINVAL);
	EXPECT_EQ(lseek(fd, 0, SEEK_END), (off_t)size);
	EXPECT_ERRNO(lseek(fd, -1, SEEK_SET), EINVAL);
}

/* 32-bit words only: uncached mappings on ARM are Device memory. */
static void fill_words(volatile uint32_t *p, size_t words, uint32_t seed)
{
	size_t i;

	for (i = 0; i < words; i++)
		p[i] = seed * 2654435761U + (uint32_t)i;
}

static long diff_words(const volatile uint32_t *p, size_t words, uint32_t seed)
{
	size_t i;

	for (i = 0; i < words; i++)
		if (p[i] != seed * 2654435761U + (uint32_t)i)
			return (long)i;
	return -1;
}

TEST(c15_data_paths_with_syncs)
{
	const size_t len = 4096, words = len / 4;
	uint32_t buf[1024];
	uint64_t size, off, v;
	volatile uint32_t *m, *ms;
	int fd = open_region(O_RDWR, &size);
	int fds = open_region(O_RDWR | O_SYNC, &size);
	int fd2 = open_region(O_RDWR, &size);

	off = scratch(size);
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);
	ms = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fds, off);
	ASSERT_TRUE(m != MAP_FAILED && ms != MAP_FAILED);

	/* write() -> sync for CPU -> cached mapping */
	fill_words(buf, words, 1);
	ASSERT_EQ(pwrite(fd, buf, len, off), (ssize_t)len);
	v = packed(off, len, 2);
	ASSERT_OK(ioctl(fd, UIOMEM_IOCTL_SET_SYNC_FOR_CPU, &v));
	EXPECT_EQ(diff_words(m, words, 1), -1);
	/* write() -> O_SYNC mapping, no sync */
	fill_words(buf, words, 2);
	ASSERT_EQ(pwrite(fd, buf, len, off), (ssize_t)len);
	EXPECT_EQ(diff_words(ms, words, 2), -1);
	/* cached mapping -> sync for device -> read() on another file */
	fill_words(m, words, 3);
	v = packed(off, len, 1);
	ASSERT_OK(ioctl(fd, UIOMEM_IOCTL_SET_SYNC_FOR_DEVICE, &v));
	memset(buf, 0, sizeof(buf));
	ASSERT_EQ(pread(fd2, buf, len, off), (ssize_t)len);
	EXPECT_EQ(diff_words(buf, words, 3), -1);
	munmap((void *)m, len);
	munmap((void *)ms, len);
}

TEST(c16_uncached_region_maps_uncached)
{
	struct uiomem_query q;
	uint64_t size;
	int fd = open_region(O_RDWR, &size);

	ASSERT_OK(ut_uiomem_query(fd, &q));
	if (ut_uiomem_attr_u64("cached") != 0)
		SKIP("%s is cached (coherent %llu)", ut_uiomem_name(),
		     ut_uiomem_attr_u64("coherent"));
	EXPECT_EQ(ut_uiomem_attr_u64("coherent"), 1);
	EXPECT_NE(q.map_type, UIOMEM_MAP_CACHED);
	EXPECT_EQ(q.flags & UIOMEM_QUERY_O_SYNC, 0);
}

/* Maintenance happens only for cached, non-coherent regions; owner flips always. */
TEST(coherent_region_sync_only_flips_owner)
{
	struct uiomem_query a, b;
	uint64_t size, v;
	int fd = open_region(O_RDWR, &size);
	int coherent = (int)ut_uiomem_attr_u64("coherent");

	ASSERT_OK(ut_uiomem_query(fd, &a));
	v = packed(0, 4096, 0);
	ASSERT_OK(ioctl(fd, UIOMEM_IOCTL_SET_SYNC_FOR_DEVICE, &v));
	EXPECT_EQ(owner_ioctl(fd), 1);
	ASSERT_OK(ut_uiomem_query(fd, &b));
	EXPECT_EQ(b.sync_calls - a.sync_calls, 1);
	if (coherent || !a.cache_line_size)
		EXPECT_EQ(b.sync_lines - a.sync_lines, 0);
	else
		EXPECT_EQ(b.sync_lines - a.sync_lines, 4096 / a.cache_line_size);
	ASSERT_OK(ioctl(fd, UIOMEM_IOCTL_SET_SYNC_FOR_CPU, &v));
	EXPECT_EQ(owner_ioctl(fd), 0);
	printf("# coherent %d: 4 KiB clean = %llu lines\n", coherent,
	       (unsigned long long)(b.sync_lines - a.sync_lines));
}

static const char *expected_sync_operation(void)
{
	const char *arch = ut_env("UDMEM_ARCH", "");

	if (!strcmp(arch, "arm64"))
		return "ARM64 Native";
	if (!strcmp(arch, "armhf"))
		return "ARMV7 Native";
	if (!strcmp(arch, "x86_64"))
		return "X86 CLFLUSH";
	return NULL;
}

TEST(sync_operation_names_the_backend)
{
	struct uiomem_ioctl_drv_info info;
	const char *want = expected_sync_operation();
	char buf[64];
	uint64_t size;
	int fd = open_region(O_RDONLY, &size);

	ASSERT_OK(ut_uiomem_attr_read("sync_operation", buf, sizeof(buf)));
	ASSERT_OK(ioctl(fd, UIOMEM_IOCTL_GET_DRV_INFO, &info));
	if (strcmp(buf, "NONE"))
		EXPECT_STREQ(info.sync_operation, buf);
	if (want)
		EXPECT_STREQ(buf, want);
}

TEST(c17_no_backend_reports_none_and_uncached)
{
	struct uiomem_ioctl_drv_info info;
	char buf[64];
	uint64_t size;
	int fd = open_region(O_RDONLY, &size);

	ASSERT_OK(ut_uiomem_attr_read("sync_operation", buf, sizeof(buf)));
	if (strcmp(buf, "NONE"))
		SKIP("this CPU has cache maintenance (%s)", buf);
	ASSERT_OK(ioctl(fd, UIOMEM_IOCTL_GET_DRV_INFO, &info));
	EXPECT_STREQ(info.sync_operation, "");
	/* A region that would need maintenance was made uncached and coherent. */
	EXPECT_EQ(ut_uiomem_attr_u64("coherent"), 1);
}

TEST(new_attributes_are_read_only)
{
	static const char *const ro[] = {
		"cached", "coherent", "shareable", "sync_operation", "ioctl_version",
	};
	char path[256];
	struct stat st;
	size_t i;

	for (i = 0; i < sizeof(ro) / sizeof(ro[0]); i++) {
		ut_sysfs_path(path, sizeof(path), "uiomem", ut_uiomem_name(), ro[i]);
		ASSERT_OK(stat(path, &st));
		EXPECT_EQ(st.st_mode & 0777, 0444);
		EXPECT_TRUE(ut_uiomem_attr_write(ro[i], "1") != 0);
	}
	EXPECT_LE(ut_uiomem_attr_u64("cached"), 1);
	EXPECT_LE(ut_uiomem_attr_u64("coherent"), 1);
	EXPECT_LE(ut_uiomem_attr_u64("shareable"), 1);
	if (!ut_uiomem_attr_u64("cached"))
		EXPECT_EQ(ut_uiomem_attr_u64("coherent"), 1);
}
