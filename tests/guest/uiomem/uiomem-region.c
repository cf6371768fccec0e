// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * uiomem-region.c - the uiomem ABI on one region ($UIOMEM_DEV): query and
 * sync ioctls, sysfs formats, mmap, read/write/llseek and their errors.
 *
 * The first 64 KiB are the host peer's mailbox: tests that write data stay
 * above it.  $UIOMEM_EXPECT_LINE, when set, is the cache line size the query
 * must report.
 *
 * This file holds the query and sync tests; uiomem-region-mmap.c,
 * uiomem-region-sysfs.c and uiomem-region-threads.c the others, in that
 * order.
 */
#include "uiomem-region.h"

/* Hidden from the compiler, which would warn about a constant bad pointer. */
void *volatile bad_pointer = (void *)16;

/* Open the region under test (a SKIP when there is none); its size in *@size. */
int open_region(int flags, size_t *size)
{
	int fd = ut_uiomem_open(flags);

	if (fd < 0)
		SKIP("/dev/%s: %s", ut_uiomem_name(), strerror(errno));
	*size = ut_uiomem_attr_u64("size");
	return fd;
}

static int expect_map_type(int o_sync, unsigned int mode)
{
	struct uiomem_query q;
	char v[8];
	size_t size;
	int fd, type;

	snprintf(v, sizeof(v), "%u", mode);
	ASSERT_OK(ut_uiomem_attr_write("sync_mode", v));
	fd = open_region(O_RDWR | (o_sync ? O_SYNC : 0), &size);
	ASSERT_OK(ut_uiomem_query(fd, &q));
	type = q.map_type;
	EXPECT_EQ(q.sync_mode, mode);
	EXPECT_EQ(!!(q.flags & UIOMEM_QUERY_O_SYNC), !!o_sync);
	EXPECT_EQ(!!(q.flags & UIOMEM_QUERY_SYNC_ALWAYS), !!(mode & 4));
	close(fd);
	return type;
}

/* What the driver must report for a mode, from the query's cache facts. */
static int want_map_type(int o_sync, unsigned int mode, const struct uiomem_query *q)
{
	const char *arch = getenv("UDMEM_ARCH");
	int cached = ut_uiomem_attr_u64("cached") == 1;
	int type = (o_sync || (mode & 4) || !cached) ? (int)(mode & 3) : UIOMEM_MAP_CACHED;

	/* No cache maintenance makes a region uncached at probe. */
	if (!q->cache_line_size)
		EXPECT_FALSE(cached && !ut_uiomem_attr_u64("coherent"));

	/* PAT: follows the kernel alias, WB for cached regions, else WC. */
	if (arch && !strcmp(arch, "x86_64"))
		return cached ? UIOMEM_MAP_CACHED : UIOMEM_MAP_WRITECOMBINE;
	/* An uncached region (cache-off, or no cache maintenance) never maps cached. */
	if (type == UIOMEM_MAP_CACHED && !cached)
		return UIOMEM_MAP_UNCACHED;
	return type;
}

TEST(query_matches_sysfs)
{
	struct uiomem_query q;
	const char *line = getenv("UIOMEM_EXPECT_LINE");
	size_t size;
	int fd = open_region(O_RDWR, &size);

	ASSERT_OK(ut_uiomem_query(fd, &q));
	EXPECT_EQ(q.size, size);
	EXPECT_EQ(q.phys_addr, ut_uiomem_attr_u64("phys_addr"));
	EXPECT_EQ(q.abi_version, UIOMEM_ABI_VERSION);
	EXPECT_EQ(q.__pad, 0);
	EXPECT_EQ(q.reserved[0] | q.reserved[1] | q.reserved[2] | q.reserved[3], 0);
	EXPECT_EQ(q.sync_mode, ut_uiomem_attr_u64("sync_mode"));
	EXPECT_EQ(q.cache_line_size & (q.cache_line_size - 1), 0);
	EXPECT_EQ(!q.cache_line_size, !!(q.flags & UIOMEM_QUERY_NO_CACHE_OPS));
	if (line && *line)
		EXPECT_EQ(q.cache_line_size, strtoul(line, NULL, 0));
	printf("# %s: size %llu phys 0x%llx line %u map_type %u flags 0x%x\n",
	       ut_uiomem_name(), (unsigned long long)q.size,
	       (unsigned long long)q.phys_addr, q.cache_line_size, q.map_type, q.flags);
}

TEST(query_map_type_per_sync_mode)
{
	struct uiomem_query q;
	unsigned int mode;
	size_t size;
	int fd = open_region(O_RDWR, &size);

	ASSERT_OK(ut_uiomem_query(fd, &q));
	close(fd);
	for (mode = 0; mode <= 7; mode++) {
		EXPECT_EQ(expect_map_type(0, mode), want_map_type(0, mode, &q));
		EXPECT_EQ(expect_map_type(1, mode), want_map_type(1, mode, &q));
	}
	ASSERT_OK(ut_uiomem_attr_write("sync_mode", "1"));
}

TEST(ioctl_unknown_is_enotty)
{
	size_t size;
	int fd = open_region(O_RDWR, &size);

	EXPECT_ERRNO(ioctl(fd, _IOR('u', 0xcf, struct uiomem_query), NULL), ENOTTY);
	EXPECT_ERRNO(ioctl(fd, _IOW('u', 0xc1, uint64_t), NULL), ENOTTY);
	EXPECT_ERRNO(ioctl(fd, 0, NULL), ENOTTY);
}

TEST(ioctl_bad_pointer_is_efault)
{
	size_t size;
	int fd = open_region(O_RDWR, &size);

	EXPECT_ERRNO(ioctl(fd, UIOMEM_IOCTL_QUERY, NULL), EFAULT);
	EXPECT_ERRNO(ioctl(fd, UIOMEM_IOCTL_SYNC, NULL), EFAULT);
	EXPECT_ERRNO(ioctl(fd, UIOMEM_IOCTL_SYNC, bad_pointer), EFAULT);
}

TEST(sync_bad_flags_and_reserved_einval)
{
	struct uiomem_sync s;
	size_t size;
	int fd = open_region(O_RDWR, &size);

	EXPECT_ERRNO(ut_uiomem_sync(fd, UIOMEM_SYNC_START, 0, 64), EINVAL);
	EXPECT_ERRNO(ut_uiomem_sync(fd, UIOMEM_SYNC_END, 0, 64), EINVAL);
	EXPECT_ERRNO(ut_uiomem_sync(fd, UIOMEM_SYNC_RW | (1U << 3), 0, 64), EINVAL);
	EXPECT_ERRNO(ut_uiomem_sync(fd, UIOMEM_SYNC_RW | (1U << 31), 0, 64), EINVAL);
	memset(&s, 0, sizeof(s));
	s.flags = UIOMEM_SYNC_RW;
	s.length = 64;
	s.__pad = 1;
	EXPECT_ERRNO(ioctl(fd, UIOMEM_IOCTL_SYNC, &s), EINVAL);
	s.__pad = 0;
	s.reserved[1] = 1;
	EXPECT_ERRNO(ioctl(fd, UIOMEM_IOCTL_SYNC, &s), EINVAL);
	s.reserved[1] = 0;
	EXPECT_OK(ioctl(fd, UIOMEM_IOCTL_SYNC, &s));
}

TEST(sync_range_checks)
{
	size_t size;
	int fd = open_region(O_RDWR, &size);
	uint32_t f = UIOMEM_SYNC_START | UIOMEM_SYNC_RW;

	EXPECT_OK(ut_uiomem_sync(fd, f, 0, size));
	EXPECT_OK(ut_uiomem_sync(fd, f, size - 1, 1));
	EXPECT_OK(ut_uiomem_sync(fd, f, size, 0));
	EXPECT_ERRNO(ut_uiomem_sync(fd, f, size, 1), EINVAL);
	EXPECT_ERRNO(ut_uiomem_sync(fd, f, size + 1, 0), EINVAL);
	EXPECT_ERRNO(ut_uiomem_sync(fd, f, 0, size + 1), EINVAL);
	EXPECT_ERRNO(ut_uiomem_sync(fd, f, UINT64_MAX, 2), EINVAL);
	EXPECT_ERRNO(ut_uiomem_sync(fd, f, 64, UINT64_MAX - 32), EINVAL);
	EXPECT_ERRNO(ut_uiomem_sync(fd, UIOMEM_SYNC_END | UIOMEM_SYNC_WRITE, UINT64_MAX - 4095, 8192), EINVAL);
}

/* Counters: one instruction per line touched, no maintenance for START|WRITE. */
TEST(sync_counts_lines_and_barriers)
{
	struct uiomem_query a, b;
	size_t size;
	int fd = open_region(O_RDWR, &size);
	uint64_t line, off = SCRATCH + 1, len = 130, want;

	ASSERT_OK(ut_uiomem_query(fd, &a));
	line = a.cache_line_size;
	if (!line)
		SKIP("no cache maintenance on this CPU (map_type %u)", a.map_type);
	want = ((off + len + line - 1) / line) - off / line;

	ASSERT_OK(ut_uiomem_sync(fd, UIOMEM_SYNC_START | UIOMEM_SYNC_READ, off, len));
	ASSERT_OK(ut_uiomem_query(fd, &b));
	EXPECT_EQ(b.sync_calls - a.sync_calls, 1);
	EXPECT_EQ(b.sync_lines - a.sync_lines, want);
	EXPECT_GE(b.sync_barriers - a.sync_barriers, 1);
	EXPECT_LE(b.sync_barriers - a.sync_barriers, 2);

	ASSERT_OK(ut_uiomem_sync(fd, UIOMEM_SYNC_START | UIOMEM_SYNC_WRITE, off, len));
	ASSERT_OK(ut_uiomem_query(fd, &a));
	EXPECT_EQ(a.sync_calls - b.sync_calls, 1);
	EXPECT_EQ(a.sync_lines - b.sync_lines, 0);

	ASSERT_OK(ut_uiomem_sync(fd, UIOMEM_SYNC_END | UIOMEM_SYNC_WRITE, SCRATCH, 4096));
	ASSERT_OK(ut_uiomem_query(fd, &b));
	EXPECT_EQ(b.sync_lines - a.sync_lines, 4096 / line);
	printf("# line %llu: 130 B unaligned invalidate = %llu lines; 4 KiB clean = %llu lines + %llu barriers\n",
	       (unsigned long long)line, (unsigned long long)want,
	       (unsigned long long)(b.sync_lines - a.sync_lines),
	       (unsigned long long)(b.sync_barriers - a.sync_barriers));

	ASSERT_OK(ut_uiomem_sync(fd, UIOMEM_SYNC_END | UIOMEM_SYNC_READ, SCRATCH, 0));
	ASSERT_OK(ut_uiomem_query(fd, &a));
	EXPECT_EQ(a.sync_lines - b.sync_lines, 0);
	EXPECT_EQ(a.sync_barriers - b.sync_barriers, 0);
}

/*
 * Syncs that invalidate discard lines other writers dirtied: they need a
 * file open for writing (EBADF otherwise); cleans and no-ops do not.
 */
static void check_sync_permissions(int fd, int writable)
{
	static const struct {
		uint32_t flags;
		int discards;
	} syncs[] = {
		{ UIOMEM_SYNC_START | UIOMEM_SYNC_READ, 1 },
		{ UIOMEM_SYNC_START | UIOMEM_SYNC_RW, 1 },
		{ UIOMEM_SYNC_START | UIOMEM_SYNC_WRITE, 0 },
		{ UIOMEM_SYNC_END | UIOMEM_SYNC_READ, 1 },
		{ UIOMEM_SYNC_END | UIOMEM_SYNC_RW, 0 },
		{ UIOMEM_SYNC_END | UIOMEM_SYNC_WRITE, 0 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(syncs) / sizeof(syncs[0]); i++) {
		errno = 0;
		if (syncs[i].discards && !writable)
			UT_CHECK(ut_uiomem_sync(fd, syncs[i].flags, SCRATCH, 4096) == -1 &&
				 errno == EBADF, 0, "sync flags 0x%x on O_RDONLY: errno %d, want EBADF",
				 syncs[i].flags, errno);
		else
			UT_CHECK(ut_uiomem_sync(fd, syncs[i].flags, SCRATCH, 4096) == 0, 0,
				 "sync flags 0x%x (writable %d) failed: %s", syncs[i].flags,
				 writable, strerror(errno));
	}
}

TEST(sync_invalidate_on_readonly_file_is_ebadf)
{
	struct uiomem_query q;
	uint8_t buf[64];
	size_t size;
	int fd = open_region(O_RDONLY, &size);

	check_sync_permissions(fd, 0);
	/* Bad flags still win, and the read-only file still reads and queries. */
	EXPECT_ERRNO(ut_uiomem_sync(fd, UIOMEM_SYNC_START, SCRATCH, 64), EINVAL);
	EXPECT_EQ(pread(fd, buf, sizeof(buf), SCRATCH), (ssize_t)sizeof(buf));
	EXPECT_OK(ut_uiomem_query(fd, &q));
}

TEST(sync_invalidate_on_writable_file_works)
{
	size_t size;
	int fd = open_region(O_RDWR, &size);

	check_sync_permissions(fd, 1);
	close(fd);
	fd = open_region(O_WRONLY, &size);
	check_sync_permissions(fd, 1);
}

/* Bytes next to an invalidated range, in its edge lines, keep CPU writes. */
TEST(sync_invalidate_keeps_neighbours_in_edge_lines)
{
	size_t size;
	int fd = open_region(O_RDWR, &size);
	volatile uint8_t *p;
	int i;

	p = mmap(NULL, 0x2000, PROT_READ | PROT_WRITE, MAP_SHARED, fd, SCRATCH);
	ASSERT_TRUE(p != MAP_FAILED);
	for (i = 0; i < 0x200; i++)
		p[i] = 0x11;
	ASSERT_OK(ut_uiomem_sync(fd, UIOMEM_SYNC_END | UIOMEM_SYNC_WRITE, SCRATCH, 0x200));
	/* Dirty the neighbours, then invalidate the range between them. */
	p[0x20] = 0x22;
	p[0x13f] = 0x33;
	ASSERT_OK(ut_uiomem_sync(fd, UIOMEM_SYNC_START | UIOMEM_SYNC_READ, SCRATCH + 0x21, 0x11e));
	EXPECT_EQ(p[0x20], 0x22);
	EXPECT_EQ(p[0x13f], 0x33);
	EXPECT_EQ(p[0x21], 0x11);
}

TEST_HARNESS_MAIN
