// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * udmabuf-chardev - /dev/<name>: read/write/llseek bounds, mmap bounds and
 * flags, and data written through each of mmap/write read back through
 * each of mmap/read, with and without O_SYNC.
 * Reference: u-dma-buf-interface.md section 5; bad inputs from
 * performance-and-reliability.md section 8.
 */
#define _FILE_OFFSET_BITS 64
#include <sys/uio.h>

#include "udmabuf-test.h"

/* Largest span the data tests cover (the whole buffer when it is smaller). */
#define UT_DATA_MAX	(8u << 20)

static size_t ut_data_len(void)
{
	uint64_t size = ut_size(ut_dev());

	return size < UT_DATA_MAX ? size : UT_DATA_MAX;
}

TEST(llseek_set_cur_end)
{
	uint64_t size = ut_size(ut_dev());
	int fd = ut_open(ut_dev(), O_RDWR);

	EXPECT_EQ(lseek(fd, 0, SEEK_END), size);
	EXPECT_EQ(lseek(fd, -1, SEEK_END), size - 1);
	EXPECT_EQ(lseek(fd, -(off_t)size, SEEK_END), 0);
	EXPECT_EQ(lseek(fd, size, SEEK_SET), size);
	EXPECT_EQ(lseek(fd, 1, SEEK_SET), 1);
	EXPECT_EQ(lseek(fd, 2, SEEK_CUR), 3);
	EXPECT_EQ(lseek(fd, -3, SEEK_CUR), 0);
	close(fd);
}

TEST(llseek_out_of_range_einval)
{
	uint64_t size = ut_size(ut_dev());
	int fd = ut_open(ut_dev(), O_RDWR);

	ASSERT_EQ(lseek(fd, 5, SEEK_SET), 5);
	EXPECT_ERRNO(lseek(fd, size + 1, SEEK_SET), EINVAL);
	EXPECT_ERRNO(lseek(fd, -1, SEEK_SET), EINVAL);
	EXPECT_ERRNO(lseek(fd, 1, SEEK_END), EINVAL);
	EXPECT_ERRNO(lseek(fd, -(off_t)size - 1, SEEK_END), EINVAL);
	EXPECT_ERRNO(lseek(fd, -6, SEEK_CUR), EINVAL);
	EXPECT_ERRNO(lseek(fd, INT64_MAX, SEEK_END), EINVAL);
	EXPECT_ERRNO(lseek(fd, INT64_MIN, SEEK_END), EINVAL);
	EXPECT_ERRNO(lseek(fd, INT64_MAX, SEEK_CUR), EINVAL);
	EXPECT_ERRNO(lseek(fd, 0, SEEK_DATA), EINVAL);
	EXPECT_ERRNO(lseek(fd, 0, SEEK_HOLE), EINVAL);
	EXPECT_ERRNO(lseek(fd, 0, 77), EINVAL);
	/* a refused seek leaves the position alone */
	EXPECT_EQ(lseek(fd, 0, SEEK_CUR), 5);
	close(fd);
}

TEST(read_at_and_after_eof_returns_0)
{
	uint64_t size = ut_size(ut_dev());
	char buf[64];
	int fd = ut_open(ut_dev(), O_RDWR);

	ASSERT_EQ(lseek(fd, size, SEEK_SET), size);
	EXPECT_EQ(read(fd, buf, sizeof(buf)), 0);
	EXPECT_EQ(pread(fd, buf, sizeof(buf), size), 0);
	EXPECT_EQ(pread(fd, buf, sizeof(buf), size + 4096), 0);
	/* pos + count overflows loff_t: the VFS refuses before the driver */
	EXPECT_ERRNO(pread(fd, buf, sizeof(buf), INT64_MAX), EINVAL);
	close(fd);
}

TEST(read_write_crossing_eof_short)
{
	uint64_t size = ut_size(ut_dev());
	char in[64], out[64];
	int fd = ut_open(ut_dev(), O_RDWR);

	ut_fill(in, sizeof(in), 0, 11);
	EXPECT_EQ(pwrite(fd, in, sizeof(in), size - 10), 10);
	memset(out, 0, sizeof(out));
	EXPECT_EQ(pread(fd, out, sizeof(out), size - 10), 10);
	EXPECT_EQ(memcmp(in, out, 10), 0);
	/* and through the file position */
	ASSERT_EQ(lseek(fd, size - 4, SEEK_SET), size - 4);
	EXPECT_EQ(read(fd, out, sizeof(out)), 4);
	EXPECT_EQ(lseek(fd, 0, SEEK_CUR), size);
	close(fd);
}

TEST(write_at_eof_enospc)
{
	uint64_t size = ut_size(ut_dev());
	char in[16] = "0123456789abcde";
	int fd = ut_open(ut_dev(), O_RDWR);

	/* the reference returned 0, which makes writers spin; ENOSPC is decided */
	ASSERT_EQ(lseek(fd, size, SEEK_SET), size);
	EXPECT_ERRNO(write(fd, in, sizeof(in)), ENOSPC);
	EXPECT_ERRNO(pwrite(fd, in, sizeof(in), size + 4096), ENOSPC);
	EXPECT_EQ(write(fd, in, 0), 0);
	EXPECT_EQ(lseek(fd, 0, SEEK_CUR), size);
	close(fd);
}

TEST(negative_offsets_einval)
{
	char buf[8];
	int fd = ut_open(ut_dev(), O_RDWR);

	EXPECT_ERRNO(pread(fd, buf, sizeof(buf), -1), EINVAL);
	EXPECT_ERRNO(pwrite(fd, buf, sizeof(buf), -4096), EINVAL);
	close(fd);
}

TEST(zero_length_read_write_return_0)
{
	char buf[8];
	int fd = ut_open(ut_dev(), O_RDWR);

	EXPECT_EQ(read(fd, buf, 0), 0);
	EXPECT_EQ(write(fd, buf, 0), 0);
	EXPECT_EQ(lseek(fd, 0, SEEK_CUR), 0);
	close(fd);
}

TEST(read_write_bad_pointer_efault)
{
	long pg = ut_page();
	int fd = ut_open(ut_dev(), O_RDWR);
	char *p = mmap(NULL, pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *volatile ut_low = (char *)16;

	ASSERT_TRUE(p != MAP_FAILED);
	EXPECT_ERRNO(pread(fd, p, 64, 0), EFAULT);
	EXPECT_ERRNO(pwrite(fd, p, 64, 0), EFAULT);
	EXPECT_ERRNO(pread(fd, ut_low, 64, 0), EFAULT);
	EXPECT_ERRNO(pwrite(fd, (void *)(uintptr_t)-4096, 64, 0), EFAULT);
	EXPECT_EQ(lseek(fd, 0, SEEK_CUR), 0);
	close(fd);
}

/* ---- data paths ---------------------------------------------------- */

enum ut_way { UT_MMAP, UT_FILE };

static void ut_sync_ioctl(int fd, unsigned long cmd)
{
	uint64_t one = 1;

	ut_reset_sync(ut_dev());
	ASSERT_OK(ioctl(fd, cmd, &one));
}

static void ut_put(enum ut_way way, int osync, size_t len, unsigned int seed)
{
	int fd = ut_open(ut_dev(), O_RDWR | (osync ? O_SYNC : 0));

	if (way == UT_MMAP) {
		void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

		ASSERT_TRUE(p != MAP_FAILED);
		ut_sync_ioctl(fd, UT_SET_SYNC_FOR_CPU);
		ut_fill(p, len, 0, seed);
		ut_sync_ioctl(fd, UT_SET_SYNC_FOR_DEVICE);
		ASSERT_OK(munmap(p, len));
	} else {
		char *b = malloc(len);

		ASSERT_TRUE(b != NULL);
		ut_fill(b, len, 0, seed);
		ASSERT_EQ(ut_pwrite_all(fd, b, len, 0), 0);
		free(b);
	}
	close(fd);
}

static void ut_get_and_check(enum ut_way way, int osync, size_t len, unsigned int seed)
{
	int fd = ut_open(ut_dev(), O_RDWR | (osync ? O_SYNC : 0));

	if (way == UT_MMAP) {
		void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

		ASSERT_TRUE(p != MAP_FAILED);
		ut_sync_ioctl(fd, UT_SET_SYNC_FOR_CPU);
		ASSERT_PATTERN(p, len, 0, seed);
		ASSERT_OK(munmap(p, len));
	} else {
		char *b = malloc(len);

		ASSERT_TRUE(b != NULL);
		ASSERT_EQ(ut_pread_all(fd, b, len, 0), 0);
		ASSERT_PATTERN(b, len, 0, seed);
		free(b);
	}
	close(fd);
}

static void ut_roundtrip(enum ut_way w, int wsync, enum ut_way r, int rsync, unsigned int seed)
{
	size_t len = ut_data_len();

	ut_put(w, wsync, len, seed);
	ut_get_and_check(r, rsync, len, seed);
}

#define UT_DATA_TEST(name, w, ws, r, rs, seed)				\
	TEST(name) { ut_roundtrip(w, ws, r, rs, seed); }

UT_DATA_TEST(data_mmap_to_mmap, UT_MMAP, 0, UT_MMAP, 0, 101)
UT_DATA_TEST(data_mmap_to_read, UT_MMAP, 0, UT_FILE, 0, 102)
UT_DATA_TEST(data_write_to_mmap, UT_FILE, 0, UT_MMAP, 0, 103)
UT_DATA_TEST(data_write_to_read, UT_FILE, 0, UT_FILE, 0, 104)
UT_DATA_TEST(data_osync_mmap_to_mmap, UT_MMAP, 1, UT_MMAP, 1, 105)
UT_DATA_TEST(data_osync_mmap_to_read, UT_MMAP, 1, UT_FILE, 1, 106)
UT_DATA_TEST(data_osync_write_to_mmap, UT_FILE, 1, UT_MMAP, 1, 107)
UT_DATA_TEST(data_osync_write_to_read, UT_FILE, 1, UT_FILE, 1, 108)
UT_DATA_TEST(data_osync_mmap_to_cached_mmap, UT_MMAP, 1, UT_MMAP, 0, 109)
UT_DATA_TEST(data_cached_mmap_to_osync_read, UT_MMAP, 0, UT_FILE, 1, 110)

TEST(data_every_sync_mode)
{
	uint64_t old = ut_get(ut_dev(), "sync_mode", 10);

	for (unsigned int m = 0; m <= 7; m++) {
		ut_set(ut_dev(), "sync_mode", m);
		ut_roundtrip(UT_MMAP, m & 1, UT_MMAP, !(m & 1), 200 + m);
		ut_roundtrip(UT_FILE, 1, UT_MMAP, 1, 210 + m);
		ut_roundtrip(UT_MMAP, 1, UT_FILE, 0, 220 + m);
	}
	ut_set(ut_dev(), "sync_mode", old);
}

TEST(data_persists_after_close)
{
	size_t len = ut_data_len();

	ut_put(UT_MMAP, 0, len, 301);
	/* nothing mapped or open in between */
	ut_get_and_check(UT_FILE, 0, len, 301);
	ut_get_and_check(UT_MMAP, 0, len, 301);
}

TEST(mmap_offset_maps_that_page)
{
	long pg = ut_page();
	uint64_t alloc = ut_alloc_size(ut_dev());
	size_t len = ut_data_len();
	int fd = ut_open(ut_dev(), O_RDWR);
	char *b = malloc(len);
	char *p;

	ASSERT_TRUE(alloc >= (uint64_t)2 * pg);
	ASSERT_TRUE(b != NULL);
	ut_fill(b, len, 0, 401);
	ASSERT_EQ(ut_pwrite_all(fd, b, len, 0), 0);
	p = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, pg);
	ASSERT_TRUE(p != MAP_FAILED);
	ASSERT_PATTERN(p, pg, pg, 401);
	/* a write through the offset mapping lands at that offset */
	ut_fill(p, 16, 0, 402);
	ASSERT_EQ(ut_pread_all(fd, b, 16, pg), 0);
	ASSERT_PATTERN(b, 16, 0, 402);
	/* the last page */
	ASSERT_OK(munmap(p, pg));
	p = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, alloc - pg);
	ASSERT_TRUE(p != MAP_FAILED);
	p[0] = 0x5a;
	ASSERT_OK(munmap(p, pg));
	free(b);
	close(fd);
}

TEST(mmap_whole_alloc_size_ok)
{
	uint64_t size = ut_size(ut_dev()), alloc = ut_alloc_size(ut_dev());
	int fd = ut_open(ut_dev(), O_RDWR);
	volatile char *p = mmap(NULL, alloc, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	ASSERT_TRUE(p != MAP_FAILED);
	/* the rounding tail of a size that is not page aligned is usable */
	p[0] = 3;
	p[size - 1] = 1;
	EXPECT_EQ(p[size - 1], 1);
	if (alloc > size) {
		p[alloc - 1] = 2;
		EXPECT_EQ(p[size - 1], 1);
		EXPECT_EQ(p[alloc - 1], 2);
	}
	EXPECT_EQ(p[0], 3);
	ASSERT_OK(munmap((void *)p, alloc));
	close(fd);
}

TEST(mmap_past_end_einval)
{
	long pg = ut_page();
	uint64_t alloc = ut_alloc_size(ut_dev());
	int fd = ut_open(ut_dev(), O_RDWR);

	EXPECT_ERRNO(mmap(NULL, alloc + pg, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED ? -1 : 0,
		     EINVAL);
	EXPECT_ERRNO(mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, alloc) == MAP_FAILED ? -1 : 0,
		     EINVAL);
	EXPECT_ERRNO(mmap(NULL, alloc, PROT_READ, MAP_SHARED, fd, pg) == MAP_FAILED ? -1 : 0,
		     EINVAL);
	/* a page offset near the top: pgoff + pages must not wrap */
	{
		off_t far = (off_t)(((uint64_t)1 << (sizeof(off_t) * 8 - 2)) / pg * pg);
		void *p = mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, far);
		int e = errno;

		UT_CHECK(p == MAP_FAILED && (e == EINVAL || e == EOVERFLOW), 0,
			    "mmap at offset 0x%llx: want EINVAL, got %s",
			    (unsigned long long)far, p == MAP_FAILED ? strerror(e) : "a mapping");
	}
	close(fd);
}

TEST(mmap_private_einval)
{
	long pg = ut_page();
	int fd = ut_open(ut_dev(), O_RDWR);

	EXPECT_ERRNO(mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0) == MAP_FAILED ?
		     -1 : 0, EINVAL);
	EXPECT_ERRNO(mmap(NULL, pg, PROT_READ, MAP_PRIVATE, fd, 0) == MAP_FAILED ? -1 : 0,
		     EINVAL);
	close(fd);
}

TEST(mmap_read_only_shared_on_read_only_fd_works)
{
	long pg = ut_page();
	int fd = ut_open(ut_dev(), O_RDONLY);
	char *p = mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, 0);
	char b[16];

	/* do_mmap() drops VM_SHARED for a file not open for writing */
	UT_CHECK(p != MAP_FAILED, 1, "read-only shared mmap of an O_RDONLY fd: %s",
		    strerror(errno));
	ASSERT_EQ(ut_pread_all(fd, b, sizeof(b), 0), 0);
	EXPECT_EQ(memcmp(p, b, sizeof(b)), 0);
	close(fd);
}

TEST(mmap_write_on_read_only_fd_eacces)
{
	long pg = ut_page();
	int fd = ut_open(ut_dev(), O_RDONLY);

	EXPECT_ERRNO(mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) == MAP_FAILED ?
		     -1 : 0, EACCES);
	close(fd);
}

static void ut_touch(void *arg)
{
	volatile char *p = arg;

	p[0] = p[1] + 1;
}

TEST(mremap_grow_refused_or_sigbus)
{
	long pg = ut_page();
	uint64_t alloc = ut_alloc_size(ut_dev());
	int fd = ut_open(ut_dev(), O_RDWR);
	char *p = mmap(NULL, alloc, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	char *q;

	ASSERT_TRUE(p != MAP_FAILED);
	q = mremap(p, alloc, alloc + 4 * pg, MREMAP_MAYMOVE);
	if (q == MAP_FAILED) {
		/* VM_DONTEXPAND: EFAULT from the mm core */
		EXPECT_TRUE(errno == EFAULT || errno == EINVAL);
	} else {
		int sig = ut_signal_of(ut_touch, q + alloc + pg);

		UT_CHECK(sig == SIGBUS, 0,
			    "touching a grown mapping past the buffer: want SIGBUS, got %d", sig);
	}
	close(fd);
}

TEST(fork_child_keeps_mapping)
{
	size_t len = ut_data_len();
	int fd = ut_open(ut_dev(), O_RDWR);
	int pfd[2], status;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	pid_t pid;
	char c;

	ASSERT_TRUE(p != MAP_FAILED);
	ut_fill(p, len, 0, 501);
	ASSERT_OK(pipe(pfd));
	pid = fork();
	if (pid == 0) {
		close(pfd[1]);
		/* wait until the parent has unmapped and closed */
		if (read(pfd[0], &c, 1) != 1)
			_exit(3);
		_exit(ut_check(p, len, 0, 501) < 0 ? 0 : 4);
	}
	ASSERT_GE(pid, 0);
	close(pfd[0]);
	ASSERT_OK(munmap(p, len));
	close(fd);
	ASSERT_EQ(write(pfd[1], "g", 1), 1);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	UT_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, 0,
		    "child reading the inherited mapping: status 0x%x", status);
}

static void ut_touch_page(void *arg)
{
	*(volatile char *)arg = 1;
}

TEST(partial_munmap_keeps_the_rest)
{
	long pg = ut_page();
	int fd = ut_open(ut_dev(), O_RDWR);
	char *p;

	ASSERT_GE(ut_alloc_size(ut_dev()), 3 * pg);
	p = mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	close(fd);
	ut_fill(p, 3 * pg, 0, 601);
	ASSERT_OK(munmap(p + pg, pg));
	ASSERT_PATTERN(p, pg, 0, 601);
	ASSERT_PATTERN(p + 2 * pg, pg, 2 * pg, 601);
	EXPECT_EQ(ut_signal_of(ut_touch_page, p + pg), SIGSEGV);
	ASSERT_OK(mprotect(p, pg, PROT_READ));
	EXPECT_EQ(ut_signal_of(ut_touch_page, p), SIGSEGV);
	ASSERT_OK(munmap(p, pg));
	ASSERT_OK(munmap(p + 2 * pg, pg));
}

TEST(two_opens_share_memory)
{
	long pg = ut_page();
	int a = ut_open(ut_dev(), O_RDWR), b = ut_open(ut_dev(), O_RDWR | O_SYNC);
	char *pa = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, a, 0);
	char *pb = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, b, 0);

	ASSERT_TRUE(pa != MAP_FAILED && pb != MAP_FAILED);
	ut_fill(pa, pg, 0, 701);
	ASSERT_PATTERN(pb, pg, 0, 701);
	ut_fill(pb, 64, 0, 702);
	ASSERT_PATTERN(pa, 64, 0, 702);
	close(a);
	close(b);
}

/* CmaTotal appears in /proc/meminfo only with CONFIG_CMA. */
static int ut_kernel_has_cma(void)
{
	char line[128];
	FILE *f = fopen("/proc/meminfo", "r");
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		found = !strncmp(line, "CmaTotal:", 9);
	fclose(f);
	return found;
}

/*
 * get_user_pages on a mapping: process_vm_readv pins the "remote" pages.
 * Page mode (quirk_mmap_mode 4) must allow it; other modes may refuse
 * with EFAULT but must not crash or return wrong data.
 */
TEST(gup_on_mapping_page_mode_works)
{
	long pg = ut_page();
	uint64_t mode = ut_get(ut_dev(), "quirk_mmap_mode", 10);
	int fd = ut_open(ut_dev(), O_RDWR);
	char *p = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	char *out = malloc(2 * pg);
	struct iovec local = { out, 2 * pg }, remote;
	ssize_t n;

	ASSERT_TRUE(p != MAP_FAILED && out);
	ut_fill(p, 2 * pg, 0, 801);
	remote.iov_base = p;
	remote.iov_len = 2 * pg;
	errno = 0;
	n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
	if (mode == 4 && n != 2 * pg && !ut_kernel_has_cma())
		SKIP("kernel without CONFIG_CMA: page mode falls back to a pfn mapping");
	if (mode == 4) {
		UT_CHECK(n == 2 * pg, 1, "page mode: process_vm_readv gave %zd (%s)", n,
			    strerror(errno));
	} else {
		UT_CHECK(n == 2 * pg || (n == -1 && errno == EFAULT), 1,
			    "mode %llu: process_vm_readv gave %zd (%s)",
			    (unsigned long long)mode, n, strerror(errno));
	}
	if (n == 2 * pg)
		ASSERT_PATTERN(out, 2 * pg, 0, 801);
	close(fd);
}

TEST_HARNESS_MAIN
