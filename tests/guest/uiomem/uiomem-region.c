// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * uiomem-region.c - the uiomem ABI on one region ($UIOMEM_DEV): query and
 * sync ioctls, sysfs formats, mmap, read/write/llseek and their errors.
 *
 * The first 64 KiB are the host peer's mailbox: tests that write data stay
 * above it.  $UIOMEM_EXPECT_LINE, when set, is the cache line size the query
 * must report.
 */
#include <pthread.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

#include "uiomem-test.h"

#define SCRATCH	0x10000

/* Hidden from the compiler, which would warn about a constant bad pointer. */
static void *volatile bad_pointer = (void *)16;

static int open_region(int flags, size_t *size)
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

TEST(mmap_private_is_einval)
{
	size_t size;
	int fd = open_region(O_RDWR, &size);

	EXPECT_TRUE(mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0) == MAP_FAILED);
	EXPECT_EQ(errno, EINVAL);
}

static void write_byte(void *arg)
{
	*(volatile uint8_t *)arg = 1;
}

TEST(mmap_shared_of_readonly_file_reads_and_refuses_writes)
{
	size_t size;
	int fd = open_region(O_RDONLY, &size);
	long pg = sysconf(_SC_PAGESIZE);
	volatile uint8_t *p;

	p = mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, SCRATCH);
	ASSERT_TRUE(p != MAP_FAILED);
	(void)p[0];
	EXPECT_EQ(ut_signal_of(write_byte, (void *)p), SIGSEGV);
	EXPECT_TRUE(mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, SCRATCH) == MAP_FAILED);
	EXPECT_EQ(errno, EACCES);
}

static long minor_faults(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

/* All pages are mapped, young and dirty at mmap(): touching them never faults. */
TEST(mmap_first_touch_takes_no_fault)
{
	size_t size;
	int fd = open_region(O_RDWR, &size);
	long pg = sysconf(_SC_PAGESIZE), before, reads, writes;
	volatile uint8_t *p;
	int i;

	p = mmap(NULL, 16 * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, SCRATCH);
	ASSERT_TRUE(p != MAP_FAILED);
	before = minor_faults();
	for (i = 0; i < 16; i++)
		(void)p[i * pg];
	reads = minor_faults() - before;
	before = minor_faults();
	for (i = 0; i < 16; i++)
		p[i * pg] = (uint8_t)i;
	writes = minor_faults() - before;
	EXPECT_EQ(reads, 0);
	EXPECT_EQ(writes, 0);
}

TEST(mmap_past_end_is_enxio)
{
	size_t size;
	int fd = open_region(O_RDWR, &size);
	long pg = sysconf(_SC_PAGESIZE);

	EXPECT_TRUE(mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, size) == MAP_FAILED);
	EXPECT_EQ(errno, ENXIO);
	EXPECT_TRUE(mmap(NULL, size + pg, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED);
	EXPECT_EQ(errno, ENXIO);
	EXPECT_TRUE(mmap(NULL, 2 * pg, PROT_READ, MAP_SHARED, fd, size - pg) == MAP_FAILED);
	EXPECT_EQ(errno, ENXIO);
	EXPECT_TRUE(mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, size - pg) != MAP_FAILED);
}

TEST(mremap_grow_fails)
{
	size_t size;
	int fd = open_region(O_RDWR, &size);
	long pg = sysconf(_SC_PAGESIZE);
	void *p = mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, 0);

	ASSERT_TRUE(p != MAP_FAILED);
	EXPECT_TRUE(mremap(p, pg, 2 * pg, 0) == MAP_FAILED);
	EXPECT_TRUE(mremap(p, pg, 2 * pg, MREMAP_MAYMOVE) == MAP_FAILED);
}

TEST(mmap_write_read_roundtrip)
{
	static uint8_t buf[4096];
	size_t size;
	int fd = open_region(O_RDWR, &size);
	uint8_t *p = mmap(NULL, 0x4000, PROT_READ | PROT_WRITE, MAP_SHARED, fd, SCRATCH);

	ASSERT_TRUE(p != MAP_FAILED);
	ut_peer_fill(p + 100, 9, 100, 3000);
	ASSERT_OK(ut_uiomem_sync(fd, UIOMEM_SYNC_END | UIOMEM_SYNC_WRITE, SCRATCH + 100, 3000));
	ASSERT_EQ(pread(fd, buf, 3000, SCRATCH + 100), 3000);
	EXPECT_EQ(ut_peer_diff(buf, 9, 100, 3000), -1);

	ut_peer_fill(buf, 10, 7, 4000);
	ASSERT_EQ(pwrite(fd, buf, 4000, SCRATCH + 0x2000 + 7), 4000);
	ASSERT_OK(ut_uiomem_sync(fd, UIOMEM_SYNC_START | UIOMEM_SYNC_READ, SCRATCH + 0x2000, 4100));
	EXPECT_EQ(ut_peer_diff(p + 0x2000 + 7, 10, 7, 4000), -1);
}

TEST(read_write_bounded_by_size)
{
	uint8_t buf[64];
	size_t size;
	int fd = open_region(O_RDWR, &size);

	EXPECT_EQ(pread(fd, buf, sizeof(buf), size), 0);
	EXPECT_EQ(pread(fd, buf, sizeof(buf), size - 10), 10);
	EXPECT_ERRNO(pwrite(fd, buf, sizeof(buf), size), ENOSPC);
	EXPECT_EQ(pwrite(fd, buf, sizeof(buf), size - 10), 10);
	EXPECT_EQ(pwrite(fd, buf, 0, size), 0);
	EXPECT_ERRNO(pread(fd, buf, sizeof(buf), -1), EINVAL);
}

TEST(read_write_bad_pointer_is_efault)
{
	size_t size;
	int fd = open_region(O_RDWR, &size);

	EXPECT_ERRNO(pread(fd, bad_pointer, 64, SCRATCH), EFAULT);
	EXPECT_ERRNO(pwrite(fd, bad_pointer, 64, SCRATCH), EFAULT);
}

TEST(llseek_bounded_by_size)
{
	size_t size;
	int fd = open_region(O_RDWR, &size);

	EXPECT_EQ(lseek(fd, 0, SEEK_END), (off_t)size);
	EXPECT_EQ(lseek(fd, -16, SEEK_END), (off_t)size - 16);
	EXPECT_EQ(lseek(fd, 8, SEEK_CUR), (off_t)size - 8);
	EXPECT_ERRNO(lseek(fd, 1, SEEK_END), EINVAL);
	EXPECT_ERRNO(lseek(fd, -1, SEEK_SET), EINVAL);
	EXPECT_EQ(lseek(fd, 4096, SEEK_SET), 4096);
}

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

/* One worker of the concurrency test: runs for two seconds, exits 0 if every call worked. */
static int hammer(int kind, size_t size)
{
	time_t end = time(NULL) + 2;
	uint8_t buf[512];
	int fd = ut_uiomem_open(O_RDWR), bad = 0;
	unsigned int n = 0;

	if (fd < 0)
		return 1;
	while (time(NULL) < end) {
		uint64_t off = SCRATCH + (n * 4099) % (size - SCRATCH - sizeof(buf));
		struct uiomem_query q;
		char cmd[40];
		void *p;

		n++;
		switch (kind) {
		case 0:
			bad += ut_uiomem_sync(fd, UIOMEM_SYNC_START | UIOMEM_SYNC_RW, off, 300) != 0;
			bad += ut_uiomem_sync(fd, UIOMEM_SYNC_END | UIOMEM_SYNC_RW, off + 1, 300) != 0;
			break;
		case 1:
			bad += pwrite(fd, buf, sizeof(buf), off) != sizeof(buf);
			bad += pread(fd, buf, sizeof(buf), off) != sizeof(buf);
			break;
		case 2:
			snprintf(cmd, sizeof(cmd), "0x%08X%08X", (unsigned int)off, 0x100 | 1);
			bad += ut_uiomem_attr_write("sync_for_device", cmd) != 0;
			bad += ut_uiomem_attr_write("sync_for_cpu", cmd) != 0;
			break;
		default:
			p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, SCRATCH);
			bad += p == MAP_FAILED;
			if (p != MAP_FAILED) {
				((volatile uint8_t *)p)[n % 8192] = (uint8_t)n;
				munmap(p, 8192);
			}
			bad += ut_uiomem_query(fd, &q) != 0;
			break;
		}
	}
	close(fd);
	return bad ? 1 : 0;
}

/* Syncs, reads, writes, sysfs commands, mmaps and queries at once. */
TEST(concurrent_calls_all_succeed)
{
	struct uiomem_query a, b;
	size_t size;
	int fd = open_region(O_RDWR, &size);
	pid_t pid[4];
	int i, status;

	ASSERT_OK(ut_uiomem_query(fd, &a));
	for (i = 0; i < 4; i++) {
		pid[i] = fork();
		ASSERT_GE(pid[i], 0);
		if (pid[i] == 0)
			_exit(hammer(i, size));
	}
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(waitpid(pid[i], &status, 0), pid[i]);
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	ASSERT_OK(ut_uiomem_query(fd, &b));
	EXPECT_GT(b.sync_calls, a.sync_calls);
}

static void read_byte(void *arg)
{
	(void)*(volatile uint8_t *)arg;
}

/* Write @val to /sys/bus/platform/drivers/uiomem/@file: 0 or -errno. */
static int driver_write(const char *file, const char *val)
{
	char path[128];
	int fd, err = 0;

	snprintf(path, sizeof(path), "/sys/bus/platform/drivers/uiomem/%s", file);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		err = -errno;
	close(fd);
	return err;
}

/*
 * Unbinding the region revokes its user mappings, also those whose file
 * was closed: the next access is SIGBUS, not a write to a window that may
 * have been handed to something else.  Run by suite.sh on the
 * module-parameter region only, $UIOMEM_PDEV (default uiomem.0), which it
 * rebinds.
 */
TEST(manual_unbind_revokes_mappings)
{
	const char *pdev = ut_env("UIOMEM_PDEV", "uiomem.0");
	long pg = sysconf(_SC_PAGESIZE);
	volatile uint8_t *p, *q;
	size_t size;
	int fd = open_region(O_RDWR, &size);

	p = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, SCRATCH);
	ASSERT_TRUE(p != MAP_FAILED);
	q = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, SCRATCH);
	ASSERT_TRUE(q != MAP_FAILED);
	close(fd);
	p[0] = 0x5a;
	EXPECT_EQ(q[0], 0x5a);
	ASSERT_OK(driver_write("unbind", pdev));
	EXPECT_EQ(ut_signal_of(read_byte, (void *)p), SIGBUS);
	EXPECT_EQ(ut_signal_of(write_byte, (void *)(p + pg)), SIGBUS);
	EXPECT_EQ(ut_signal_of(read_byte, (void *)q), SIGBUS);
	ASSERT_OK(driver_write("bind", pdev));
	/* The old mappings stay revoked; a new one works. */
	EXPECT_EQ(ut_signal_of(read_byte, (void *)q), SIGBUS);
	fd = open_region(O_RDWR, &size);
	p = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, SCRATCH);
	ASSERT_TRUE(p != MAP_FAILED);
	p[1] = 0xa5;
	EXPECT_EQ(p[1], 0xa5);
}

struct mmap_loop {
	int fd;
	volatile int stop;
	unsigned long maps;
	unsigned long failed;
};

/* mmap() takes mmap_lock, then the driver's lock. */
static void *mmap_loop(void *arg)
{
	struct mmap_loop *m = arg;

	while (!m->stop) {
		void *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, m->fd, SCRATCH);

		if (p == MAP_FAILED) {
			m->failed++;
			continue;
		}
		munmap(p, 8192);
		m->maps++;
	}
	return NULL;
}

/*
 * The reader's copy_to_user() faults on every page of a fresh anonymous
 * buffer and so takes mmap_lock, while the other thread holds mmap_lock in
 * mmap() of the region.  The buffer is new each time because kernels with
 * per-VMA locks (6.4+) still need mmap_lock for the first fault of an
 * anonymous mapping (it has no anon_vma yet).  Exit 0 if all calls worked.
 */
static int read_vs_mmap(int secs)
{
	const size_t len = 0x10000;
	struct mmap_loop m = { .fd = ut_uiomem_open(O_RDWR) };
	time_t end = time(NULL) + secs;
	unsigned long reads = 0, bad = 0;
	pthread_t t;

	if (m.fd < 0 || pthread_create(&t, NULL, mmap_loop, &m))
		return 2;
	while (time(NULL) < end) {
		void *buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (buf == MAP_FAILED)
			return 2;
		bad += pread(m.fd, buf, len, SCRATCH) != (ssize_t)len;
		munmap(buf, len);
		reads++;
	}
	m.stop = 1;
	pthread_join(t, NULL);
	printf("# %lu reads, %lu mmaps in %d s\n", reads, m.maps, secs);
	return bad || m.failed || !reads || !m.maps;
}

/*
 * read() into memory that faults while another thread of the process maps
 * the region: no lock order inversion between the driver and mmap_lock.
 * Runs $UIOMEM_DEADLOCK_SECONDS (default 10); a worker still running well
 * after that is deadlocked and is killed (the driver's lock waits are
 * interruptible, so that frees it).
 */
TEST(read_faulting_buffer_vs_mmap_no_deadlock)
{
	int secs = atoi(ut_env("UIOMEM_DEADLOCK_SECONDS", "10"));
	int status, waited;
	size_t size;
	pid_t pid;

	close(open_region(O_RDWR, &size));
	if (secs <= 0 || secs > UT_TIMEOUT / 2)
		secs = 10;
	fflush(stdout);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(read_vs_mmap(secs));
	for (waited = 0; waited < 4 * (secs + 10); waited++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
		usleep(250000);
	}
	if (waited == 4 * (secs + 10)) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		UT_CHECK(0, 1, "reader and mapper still running %d s after their %d s: deadlock",
			 secs + 10, secs);
	}
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST_HARNESS_MAIN
