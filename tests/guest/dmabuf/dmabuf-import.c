// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * dmabuf-import - U_DMA_BUF_IOCTL_IMPORT: a foreign dma-buf attached to a
 * buffer's device, its DMA address, the import file's lifetime and
 * IMPORT_SYNC, and the edu device writing into a vgem buffer at the address
 * the import reported.
 *
 * Environment: UDMABUF_DEV the buffer that imports (bound to the edu
 * device); UDMABUF_SRC a buffer to export from; DMABUF_DIRECT 1 when the
 * importing buffer's device maps without an IOMMU; DMABUF_VGEM vgem's
 * /dev/dri/cardN (empty: the vgem tests skip).
 *
 * UDMEM_TEST_COMPAT32: on arm64 also built as a 32-bit program.
 */
#define _FILE_OFFSET_BITS 64
#include <linux/dma-buf.h>
#include <linux/u-dma-buf-ioctl.h>
#include <sys/wait.h>

#include "dmabuf-util.h"

static const char *ut_src(void)
{
	return ut_env("UDMABUF_SRC", "udmabuf0");
}

static int ut_direct(void)
{
	return atoi(ut_env("DMABUF_DIRECT", "1"));
}

/* IMPORT of bfd into the buffer open as fd; the import fd or -errno. */
static int ut_import(int fd, int bfd, uint32_t flags, struct u_dma_buf_ioctl_import_args *out)
{
	struct u_dma_buf_ioctl_import_args a;

	memset(&a, 0, sizeof(a));
	a.fd = bfd;
	a.flags = flags;
	a.import_fd = -1;
	if (ioctl(fd, U_DMA_BUF_IOCTL_IMPORT, &a) < 0)
		return -errno;
	if (out)
		*out = a;
	return a.import_fd;
}

static int ut_import_sync(int ifd, uint64_t flags)
{
	struct u_dma_buf_ioctl_import_sync s = { .flags = flags };

	return ioctl(ifd, U_DMA_BUF_IOCTL_IMPORT_SYNC, &s) < 0 ? -errno : 0;
}

TEST(import_own_export_reports_its_address)
{
	long pg = ut_page();
	int fd = ut_open(ut_dev(), O_RDWR), bfd, ifd;
	struct u_dma_buf_ioctl_import_args a;
	uint64_t addr = 0;

	bfd = ut_export_dev(ut_src(), pg, 2 * pg, &addr);
	ASSERT_GE(bfd, 0);
	ifd = ut_import(fd, bfd, 0, &a);
	UT_CHECK(ifd >= 0, 1, "IMPORT: %s", strerror(-ifd));
	EXPECT_EQ(a.size, 2 * pg);
	EXPECT_TRUE(fcntl(ifd, F_GETFD) & FD_CLOEXEC);
	if (ut_direct())
		EXPECT_EQ(a.addr, addr);
	else
		UT_CHECK(a.addr != 0, 0, "no IOVA");
	ut_msg("# import of %s at 0x%llx (exporter's 0x%llx)", ut_src(),
	       (unsigned long long)a.addr, (unsigned long long)addr);
	EXPECT_ERRNO(ioctl(ifd, U_DMA_BUF_IOCTL_EXPORT, &a), ENOTTY);
	close(bfd);
	close(ifd);
	close(fd);
}

TEST(import_bad_arguments)
{
	int fd = ut_open(ut_dev(), O_RDWR), bfd, r;
	struct u_dma_buf_ioctl_import_args a;

	bfd = ut_export_dev(ut_src(), 0, ut_page(), NULL);
	ASSERT_GE(bfd, 0);
	EXPECT_EQ(ut_import(fd, bfd, 3, NULL), -EINVAL);
	EXPECT_EQ(ut_import(fd, bfd, 4, NULL), -EINVAL);
	EXPECT_EQ(ut_import(fd, bfd, 1u << 31, NULL), -EINVAL);
	EXPECT_EQ(ut_import(fd, fd, 0, NULL), -EINVAL);
	EXPECT_EQ(ut_import(fd, -1, 0, NULL), -EBADF);
	memset(&a, 0, sizeof(a));
	a.fd = bfd;
	a.reserved = 1;
	EXPECT_ERRNO(ioctl(fd, U_DMA_BUF_IOCTL_IMPORT, &a), EINVAL);
	/* every direction is accepted */
	for (uint32_t d = 0; d < 3; d++) {
		r = ut_import(fd, bfd, d, NULL);
		EXPECT_GE(r, 0);
		if (r >= 0)
			close(r);
	}
	close(bfd);
	close(fd);
}

TEST(import_sync_flags)
{
	int fd = ut_open(ut_dev(), O_RDWR), bfd, ifd;

	bfd = ut_export_dev(ut_src(), 0, ut_page(), NULL);
	ASSERT_GE(bfd, 0);
	ifd = ut_import(fd, bfd, 0, NULL);
	ASSERT_GE(ifd, 0);
	EXPECT_EQ(ut_import_sync(ifd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW), 0);
	EXPECT_EQ(ut_import_sync(ifd, DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW), 0);
	EXPECT_EQ(ut_import_sync(ifd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ), 0);
	EXPECT_EQ(ut_import_sync(ifd, DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE), 0);
	EXPECT_EQ(ut_import_sync(ifd, DMA_BUF_SYNC_START), -EINVAL);
	EXPECT_EQ(ut_import_sync(ifd, DMA_BUF_SYNC_RW | 0x10), -EINVAL);
	close(bfd);
	close(ifd);
	close(fd);
}

/* The import file holds the dma-buf after its fd is closed, until it is closed. */
TEST(import_file_holds_the_dma_buf)
{
	int fd = ut_open(ut_dev(), O_RDWR), bfd, ifd, n0;

	ut_set(ut_src(), "debug_export", 1);
	n0 = ut_released(ut_src());
	ASSERT_GE(n0, 0);
	bfd = ut_export_dev(ut_src(), 0, ut_page(), NULL);
	ASSERT_GE(bfd, 0);
	ifd = ut_import(fd, bfd, 0, NULL);
	ASSERT_GE(ifd, 0);
	close(bfd);
	EXPECT_EQ(ut_released(ut_src()), n0);
	EXPECT_EQ(ut_import_sync(ifd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW), 0);
	close(ifd);
	EXPECT_EQ(ut_released(ut_src()), n0 + 1);
	close(fd);
}

/*
 * edu writes into the vgem buffer at the imported address; the bytes read
 * through vgem's dma-buf mapping.  A buffer of several pages that is not
 * contiguous for a device without an IOMMU is refused with EOPNOTSUPP.
 */
static void ut_vgem_dma(uint32_t pages, unsigned int seed)
{
	long pg = ut_page();
	uint64_t len = (uint64_t)pages * pg, src;
	int fd = ut_open(ut_dev(), O_RDWR), dfd, bfd, ifd, r;
	struct u_dma_buf_ioctl_import_args a;
	char *b = malloc(len), *p;

	ASSERT_TRUE(b != NULL);
	ASSERT_GE(ut_size(ut_dev()), len);
	bfd = ut_vgem_dmabuf(pages, &dfd);
	ASSERT_GE(bfd, 0);
	ifd = ut_import(fd, bfd, 0, &a);
	if (ifd == -EOPNOTSUPP && ut_direct() && pages > 1) {
		ut_msg("# %u vgem pages are not contiguous: EOPNOTSUPP", pages);
		goto out;
	}
	UT_CHECK(ifd >= 0, 1, "IMPORT of a %u-page vgem buffer: %s", pages, strerror(-ifd));
	EXPECT_EQ(a.size, len);
	ut_fill(b, len, 0, seed);
	ASSERT_EQ(ut_pwrite_all(fd, b, len, 0), 0);
	src = ut_get(ut_dev(), "phys_addr", 16);
	ASSERT_EQ(ut_import_sync(ifd, DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW), 0);
	r = ut_edu_copy(src, a.addr, len);
	UT_CHECK(r == 0, 1, "edu copy 0x%llx -> 0x%llx: %s", (unsigned long long)src,
		 (unsigned long long)a.addr, strerror(-r));
	ASSERT_EQ(ut_import_sync(ifd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ), 0);
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, bfd, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	ASSERT_PATTERN(p, len, 0, seed);
	munmap(p, len);
	close(ifd);
out:
	close(bfd);
	close(dfd);
	close(fd);
	free(b);
}

TEST(vgem_page_imported_edu_writes_at_its_address)
{
	ut_vgem_dma(1, 1601);
}

TEST(vgem_pages_imported_contiguous_or_eopnotsupp)
{
	ut_vgem_dma(16, 1602);
}

/* "udmem import NAME --fd N -- CMD": the address printed and given to CMD */
TEST(cli_import_prints_and_passes_the_address)
{
	int fd = ut_open(ut_dev(), O_RDWR), bfd, ifd, pfd[2], st;
	struct u_dma_buf_ioctl_import_args a;
	char out[512], want[256], fdtext[16];
	unsigned long long addr = 0, size = 0;
	ssize_t n, got = 0;
	pid_t pid;

	if (access("/udmem/bin/udmem", X_OK))
		SKIP("no udmem tool in this guest");
	bfd = ut_export_dev(ut_src(), 0, 2 * ut_page(), NULL);
	ASSERT_GE(bfd, 0);
	ASSERT_OK(fcntl(bfd, F_SETFD, 0));	/* inherited by the tool */
	ifd = ut_import(fd, bfd, 0, &a);
	ASSERT_GE(ifd, 0);
	close(ifd);
	ASSERT_OK(pipe(pfd));
	snprintf(fdtext, sizeof(fdtext), "%d", bfd);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		dup2(pfd[1], 1);
		execl("/udmem/bin/udmem", "udmem", "import", ut_dev(), "--fd", fdtext, "--",
		      "sh", "-c", "echo env $UDMEM_IMPORT_ADDR $UDMEM_IMPORT_SIZE", (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	while ((n = read(pfd[0], out + got, sizeof(out) - 1 - got)) > 0)
		got += n;
	out[got] = '\0';
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	UT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, 0, "udmem import: status 0x%x: %s",
		 st, out);
	/* behind an IOMMU each import may get another IOVA */
	ASSERT_EQ(sscanf(out, "addr 0x%llx size %llu", &addr, &size), 2);
	if (ut_direct())
		EXPECT_EQ(addr, a.addr);
	EXPECT_EQ(size, a.size);
	snprintf(want, sizeof(want), "addr 0x%llx\nsize %llu\nenv 0x%llx %llu\n",
		 addr, size, addr, size);
	EXPECT_STREQ(out, want);
	close(pfd[0]);
	close(bfd);
	close(fd);
}

TEST_HARNESS_MAIN
