// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * udmabuf-export - U_DMA_BUF_IOCTL_EXPORT: argument checks, fd flags, the
 * dma-buf's size and name, mmap of the dma-buf (also O_SYNC and read-only
 * exports) and DMA_BUF_IOCTL_SYNC.
 * Reference: u-dma-buf-interface.md section 7.3.
 *
 * UDMEM_TEST_COMPAT32: on arm64 the harness also builds this program for
 * AArch32 (<name>-compat32), which checks the driver's compat_ioctl.
 */
#define _FILE_OFFSET_BITS 64
#include <linux/dma-buf.h>
#include <sys/resource.h>

#include "udmabuf-test.h"

static uint64_t ut_export_size(void)
{
	long pg = ut_page();

	return ut_size(ut_dev()) / pg * pg;
}

/* EXPORT; returns the fd or -errno, and the filled arguments. */
static int ut_export(int fd, uint64_t offset, uint64_t size, uint64_t flags,
		     struct ut_export_args *out)
{
	struct ut_export_args a;

	memset(&a, 0, sizeof(a));
	a.flags = flags;
	a.offset = offset;
	a.size = size;
	a.fd = -1;
	if (ioctl(fd, UT_EXPORT, &a) < 0)
		return -errno;
	if (out)
		*out = a;
	return a.fd;
}

/* Parse "key:\tvalue" from /proc/self/fdinfo/<fd>. */
static int ut_fdinfo(int fd, const char *key, char *val, size_t len)
{
	char path[64], line[256];
	size_t klen = strlen(key);
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, klen) && line[klen] == ':') {
			char *v = line + klen + 1;

			v += strspn(v, " \t");
			v[strcspn(v, "\n")] = '\0';
			snprintf(val, len, "%s", v);
			fclose(f);
			return 0;
		}
	}
	fclose(f);
	return -ENOENT;
}

TEST(export_whole_buffer)
{
	uint64_t size = ut_export_size(), phys = ut_get(ut_dev(), "phys_addr", 16);
	struct ut_export_args a;
	char val[128];
	int fd = ut_open(ut_dev(), O_RDWR);
	int bfd = ut_export(fd, 0, size, O_RDWR | O_CLOEXEC, &a);
	char *p, *b;

	ASSERT_GE(bfd, 0);
	EXPECT_EQ(a.addr, phys);
	EXPECT_EQ(a.size, size);
	EXPECT_EQ(a.offset, 0);
	EXPECT_TRUE(fcntl(bfd, F_GETFD) & FD_CLOEXEC);
	EXPECT_EQ(lseek(bfd, 0, SEEK_END), size);
	if (ut_fdinfo(bfd, "exp_name", val, sizeof(val)) == 0)
		EXPECT_STREQ(val, ut_dev());
	if (ut_fdinfo(bfd, "size", val, sizeof(val)) == 0)
		EXPECT_EQ(strtoull(val, NULL, 10), size);
	/* /dev write -> dma-buf mmap, dma-buf mmap -> /dev read */
	b = malloc(size);
	ASSERT_TRUE(b != NULL);
	ut_fill(b, size, 0, 901);
	ASSERT_EQ(ut_pwrite_all(fd, b, size, 0), 0);
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, bfd, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	ASSERT_OK(ioctl(bfd, DMA_BUF_IOCTL_SYNC,
			&(struct dma_buf_sync){ DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW }));
	ASSERT_PATTERN(p, size, 0, 901);
	ut_fill(p, size, 0, 902);
	ASSERT_OK(ioctl(bfd, DMA_BUF_IOCTL_SYNC,
			&(struct dma_buf_sync){ DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW }));
	ASSERT_EQ(ut_pread_all(fd, b, size, 0), 0);
	ASSERT_PATTERN(b, size, 0, 902);
	ASSERT_OK(munmap(p, size));
	free(b);
	close(bfd);
	close(fd);
}

TEST(export_sub_range)
{
	long pg = ut_page();
	uint64_t phys = ut_get(ut_dev(), "phys_addr", 16);
	struct ut_export_args a;
	int fd = ut_open(ut_dev(), O_RDWR);
	char *b = malloc(4 * pg), *p;
	int bfd;

	ASSERT_GE(ut_export_size(), 4 * pg);
	ASSERT_TRUE(b != NULL);
	ut_fill(b, 4 * pg, 0, 911);
	ASSERT_EQ(ut_pwrite_all(fd, b, 4 * pg, 0), 0);
	bfd = ut_export(fd, pg, 2 * pg, O_RDWR, &a);
	ASSERT_GE(bfd, 0);
	EXPECT_EQ(a.addr, phys + pg);
	EXPECT_FALSE(fcntl(bfd, F_GETFD) & FD_CLOEXEC);
	EXPECT_EQ(lseek(bfd, 0, SEEK_END), 2 * pg);
	p = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_SHARED, bfd, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	ASSERT_PATTERN(p, 2 * pg, pg, 911);
	ASSERT_OK(munmap(p, 2 * pg));
	/* an offset inside the dma-buf */
	p = mmap(NULL, pg, PROT_READ, MAP_SHARED, bfd, pg);
	ASSERT_TRUE(p != MAP_FAILED);
	ASSERT_PATTERN(p, pg, 2 * pg, 911);
	ASSERT_OK(munmap(p, pg));
	/* past the exported range */
	EXPECT_ERRNO(mmap(NULL, 3 * pg, PROT_READ, MAP_SHARED, bfd, 0) == MAP_FAILED ? -1 : 0,
		     EINVAL);
	EXPECT_ERRNO(mmap(NULL, pg, PROT_READ, MAP_SHARED, bfd, 2 * pg) == MAP_FAILED ? -1 : 0,
		     EINVAL);
	free(b);
	close(bfd);
	close(fd);
}

TEST(export_osync_maps_and_reads_back)
{
	long pg = ut_page();
	int fd = ut_open(ut_dev(), O_RDWR);
	int bfd = ut_export(fd, 0, pg, O_RDWR | O_SYNC, NULL);
	char *p, b[64];

	ASSERT_GE(bfd, 0);
	p = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, bfd, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	ut_fill(p, 64, 0, 921);
	ASSERT_EQ(ut_pread_all(fd, b, 64, 0), 0);
	ASSERT_PATTERN(b, 64, 0, 921);
	close(bfd);
	close(fd);
}

TEST(export_read_only_refuses_writable_mmap)
{
	long pg = ut_page();
	int fd = ut_open(ut_dev(), O_RDWR);
	int bfd = ut_export(fd, 0, pg, O_RDONLY, NULL);

	ASSERT_GE(bfd, 0);
	EXPECT_ERRNO(mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, bfd, 0) == MAP_FAILED ?
		     -1 : 0, EACCES);
	close(bfd);
	close(fd);
}

TEST(export_read_only_maps_read_only)
{
	long pg = ut_page();
	int fd = ut_open(ut_dev(), O_RDWR);
	int bfd = ut_export(fd, 0, pg, O_RDONLY, NULL);
	void *p;

	ASSERT_GE(bfd, 0);
	p = mmap(NULL, pg, PROT_READ, MAP_SHARED, bfd, 0);
	UT_CHECK(p != MAP_FAILED, 1, "read-only mmap of a read-only export: %s",
		    strerror(errno));
	close(bfd);
	close(fd);
}

TEST(export_writable_from_read_only_fd_eacces)
{
	long pg = ut_page();
	int fd = ut_open(ut_dev(), O_RDONLY);
	int r = ut_export(fd, 0, pg, O_RDWR, NULL);

	UT_CHECK(r == -EACCES, 0, "O_RDWR export of an O_RDONLY fd: want EACCES, got %d", r);
	if (r >= 0)
		close(r);
	r = ut_export(fd, 0, pg, O_RDONLY, NULL);
	EXPECT_GE(r, 0);
	if (r >= 0)
		close(r);
	close(fd);
}

TEST(export_map_private_einval)
{
	long pg = ut_page();
	int fd = ut_open(ut_dev(), O_RDWR);
	int bfd = ut_export(fd, 0, pg, O_RDWR, NULL);

	ASSERT_GE(bfd, 0);
	EXPECT_ERRNO(mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE, bfd, 0) == MAP_FAILED ?
		     -1 : 0, EINVAL);
	close(bfd);
	close(fd);
}

#define EXPECT_EXPORT_EINVAL(fd, off, len, flags) do {			\
		int __r = ut_export(fd, off, len, flags, NULL);		\
		UT_CHECK(__r == -EINVAL, 0,				\
			    "EXPORT offset 0x%llx size 0x%llx flags 0x%llx: " \
			    "want EINVAL, got %d", (unsigned long long)(off), \
			    (unsigned long long)(len),			\
			    (unsigned long long)(flags), __r);		\
		if (__r >= 0)						\
			close(__r);					\
	} while (0)

TEST(export_bad_range_einval)
{
	long pg = ut_page();
	uint64_t size = ut_size(ut_dev()), esize = ut_export_size();
	int fd = ut_open(ut_dev(), O_RDWR);

	EXPECT_EXPORT_EINVAL(fd, 1, pg, O_RDWR);
	EXPECT_EXPORT_EINVAL(fd, 0, pg + 1, O_RDWR);
	EXPECT_EXPORT_EINVAL(fd, 0, 0, O_RDWR);
	EXPECT_EXPORT_EINVAL(fd, 0, esize + pg, O_RDWR);
	EXPECT_EXPORT_EINVAL(fd, pg, esize, O_RDWR);
	EXPECT_EXPORT_EINVAL(fd, esize, pg, O_RDWR);
	EXPECT_EXPORT_EINVAL(fd, UINT64_MAX / pg * pg, 2 * pg, O_RDWR);
	EXPECT_EXPORT_EINVAL(fd, pg, UINT64_MAX / pg * pg, O_RDWR);
	/* a trailing partial page cannot be exported */
	if (size % pg)
		EXPECT_EXPORT_EINVAL(fd, 0, esize + pg, O_RDWR);
	close(fd);
}

TEST(export_bad_flags_einval)
{
	long pg = ut_page();
	int fd = ut_open(ut_dev(), O_RDWR);

	EXPECT_EXPORT_EINVAL(fd, 0, pg, O_RDWR | O_APPEND);
	EXPECT_EXPORT_EINVAL(fd, 0, pg, O_RDWR | O_NONBLOCK);
	EXPECT_EXPORT_EINVAL(fd, 0, pg, O_RDWR | O_TRUNC);
	EXPECT_EXPORT_EINVAL(fd, 0, pg, O_RDWR | 0x80000000u);
	EXPECT_EXPORT_EINVAL(fd, 0, pg, O_RDWR | (1ull << 32));
	EXPECT_EXPORT_EINVAL(fd, 0, pg, O_ACCMODE);
	close(fd);
}

TEST(export_output_fields_only)
{
	long pg = ut_page();
	struct ut_export_args a;
	int fd = ut_open(ut_dev(), O_RDWR);
	int bfd = ut_export(fd, 0, pg, O_RDWR, &a);

	ASSERT_GE(bfd, 0);
	EXPECT_EQ(a.flags, O_RDWR);
	EXPECT_EQ(a.size, pg);
	EXPECT_EQ(a.offset, 0);
	EXPECT_EQ(a.fd, bfd);
	close(bfd);
	close(fd);
}

TEST(dma_buf_sync_directions)
{
	static const uint64_t ok[] = {
		DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ, DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ,
		DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE, DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE,
		DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW, DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW,
	};
	long pg = ut_page();
	int fd = ut_open(ut_dev(), O_RDWR);
	int bfd = ut_export(fd, 0, 2 * pg, O_RDWR, NULL);
	struct dma_buf_sync s;

	ASSERT_GE(bfd, 0);
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		s.flags = ok[i];
		EXPECT_OK(ioctl(bfd, DMA_BUF_IOCTL_SYNC, &s));
	}
	s.flags = 0x10;
	EXPECT_ERRNO(ioctl(bfd, DMA_BUF_IOCTL_SYNC, &s), EINVAL);
	s.flags = DMA_BUF_SYNC_START;
	EXPECT_ERRNO(ioctl(bfd, DMA_BUF_IOCTL_SYNC, &s), EINVAL);
	close(bfd);
	close(fd);
}

TEST(export_outlives_device_fd)
{
	long pg = ut_page();
	int fd = ut_open(ut_dev(), O_RDWR);
	int bfd = ut_export(fd, 0, pg, O_RDWR, NULL);
	char *p, b[64];

	ASSERT_GE(bfd, 0);
	close(fd);
	p = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, bfd, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	close(bfd);
	ut_fill(p, 64, 0, 931);
	fd = ut_open(ut_dev(), O_RDONLY);
	ASSERT_EQ(ut_pread_all(fd, b, 64, 0), 0);
	ASSERT_PATTERN(b, 64, 0, 931);
	close(fd);
	ASSERT_OK(munmap(p, pg));
}

TEST(export_with_no_free_fd_emfile)
{
	long pg = ut_page();
	int fd = ut_open(ut_dev(), O_RDWR);
	struct rlimit rl;
	int i, r, bfd;

	ASSERT_OK(getrlimit(RLIMIT_NOFILE, &rl));
	/* no descriptor above fd is free */
	ASSERT_OK(setrlimit(RLIMIT_NOFILE, &(struct rlimit){ fd + 1, rl.rlim_max }));
	for (i = 0; i < 64; i++) {
		r = ut_export(fd, 0, pg, O_RDWR, NULL);
		UT_CHECK(r == -EMFILE, 1, "EXPORT with no free fd: want EMFILE, got %d", r);
	}
	ASSERT_OK(setrlimit(RLIMIT_NOFILE, &rl));
	bfd = ut_export(fd, 0, pg, O_RDWR, NULL);
	ASSERT_GE(bfd, 0);
	close(bfd);
	close(fd);
}

TEST_HARNESS_MAIN
