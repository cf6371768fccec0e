// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * uiomem-region-mmap.c - uiomem-region's tests of mmap, read(), write() and llseek().
 */
#include "uiomem-region.h"

TEST(mmap_private_is_einval)
{
	size_t size;
	int fd = open_region(O_RDWR, &size);

	EXPECT_TRUE(mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0) == MAP_FAILED);
	EXPECT_EQ(errno, EINVAL);
}

void write_byte(void *arg)
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

/*
 * The first touch maps the whole 2 MiB block around it, young and dirty
 * (writable mappings): reading 16 pages takes one fault, two if they
 * straddle a 2 MiB boundary, and writing them afterwards none.
 */
TEST(mmap_first_touch_faults_once_per_2mib)
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
	printf("# 16 pages: %ld faults reading, %ld writing\n", reads, writes);
	EXPECT_GE(reads, 1);
	EXPECT_LE(reads, 2);
	EXPECT_EQ(writes, 0);
}

/* Reading all of a region costs about one fault per 2 MiB. */
TEST(mmap_whole_region_faults_per_2mib)
{
	size_t size, off;
	int fd = open_region(O_RDONLY, &size);
	long pg = sysconf(_SC_PAGESIZE), before, faults, most;
	volatile uint8_t *p;

	p = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	before = minor_faults();
	for (off = 0; off < size; off += pg)
		(void)p[off];
	faults = minor_faults() - before;
	most = (long)(size >> 21) + 2;
	printf("# %zu pages: %ld faults (at most %ld)\n", size / pg, faults, most);
	EXPECT_GE(faults, 1);
	EXPECT_LE(faults, most);
	/* Nothing faults twice. */
	before = minor_faults();
	for (off = 0; off < size; off += pg)
		(void)p[off];
	EXPECT_EQ(minor_faults() - before, 0);
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
