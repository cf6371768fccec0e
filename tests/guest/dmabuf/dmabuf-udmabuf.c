// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * dmabuf-udmabuf - a u-dma-buf export and a mainline udmabuf (memfd pages,
 * /dev/udmabuf) of the same size, side by side through the test importer:
 * the scatterlist entries each gives (one for ours, up to one per page for
 * the memfd's) and the time of a DMA_BUF_IOCTL_SYNC start/end pair on each.
 * The numbers go to the log; the test checks the entry counts and that
 * both DMA-BUFs carry the bytes written into them.
 *
 * Environment: UDMABUF_DEV a buffer of at least UT_PAGES pages;
 * DMABUF_ATTACH the device the importer maps for ("pci/<name>").
 */
#define _FILE_OFFSET_BITS 64
#include <linux/dma-buf.h>
#include <sys/mman.h>
#include <time.h>

#include "dmabuf-util.h"
#include "../../kmod/udmem-dmabuf-importer.h"

#define UDI_NODE	"/dev/udmem-dmabuf-importer"
#define UT_PAGES	16
#define UT_SYNCS	200

/* <linux/udmabuf.h>, which not every tool chain ships */
struct ut_udmabuf_create {
	__u32 memfd;
	__u32 flags;
	__u64 offset;
	__u64 size;
};

#define UT_UDMABUF_FLAGS_CLOEXEC	0x01
#define UT_UDMABUF_CREATE		_IOW('u', 0x42, struct ut_udmabuf_create)

/* A mainline udmabuf over a sealed memfd of len bytes; the memfd in *mfd. */
static int ut_mainline(uint64_t len, int *mfd)
{
	struct ut_udmabuf_create c = { .flags = UT_UDMABUF_FLAGS_CLOEXEC, .size = len };
	int dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC), fd;

	if (dev < 0)
		SKIP("no /dev/udmabuf (mainline udmabuf) in this kernel: %s", strerror(errno));
	*mfd = memfd_create("udmem-test", MFD_ALLOW_SEALING | MFD_CLOEXEC);
	ASSERT_GE(*mfd, 0);
	ASSERT_OK(ftruncate(*mfd, len));
	ASSERT_OK(fcntl(*mfd, F_ADD_SEALS, F_SEAL_SHRINK));
	c.memfd = *mfd;
	fd = ioctl(dev, UT_UDMABUF_CREATE, &c);
	UT_CHECK(fd >= 0, 1, "UDMABUF_CREATE: %s", strerror(errno));
	close(dev);
	return fd;
}

/* Attach bfd for DMABUF_ATTACH through the importer; the mapping in *a. */
static void ut_attach(int ifd, int bfd, struct udi_attach *a)
{
	int r;

	memset(a, 0, sizeof(*a));
	a->fd = bfd;
	snprintf(a->dev, sizeof(a->dev), "%s", ut_env("DMABUF_ATTACH", ""));
	r = ioctl(ifd, UDI_ATTACH, a) < 0 ? -errno : 0;
	UT_CHECK(r == 0, 1, "UDI_ATTACH %s: %s", a->dev, strerror(-r));
}

/* Nanoseconds per DMA_BUF_IOCTL_SYNC start/end pair over the whole DMA-BUF. */
static long long ut_sync_ns(int bfd)
{
	struct dma_buf_sync s;
	struct timespec t0, t1;
	int i;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < UT_SYNCS; i++) {
		s.flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW;
		ASSERT_OK(ioctl(bfd, DMA_BUF_IOCTL_SYNC, &s));
		s.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW;
		ASSERT_OK(ioctl(bfd, DMA_BUF_IOCTL_SYNC, &s));
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return ((t1.tv_sec - t0.tv_sec) * 1000000000LL + t1.tv_nsec - t0.tv_nsec) / UT_SYNCS;
}

TEST(export_and_mainline_udmabuf_side_by_side)
{
	long pg = ut_page();
	uint64_t len = UT_PAGES * pg;
	int ifd1, ifd2, ofd, mfd, ufd, fd = ut_open(ut_dev(), O_RDWR);
	struct udi_attach ours, theirs;
	long long ours_ns, theirs_ns;
	char *b = malloc(len), *p;

	ASSERT_TRUE(b != NULL);
	ASSERT_GE(ut_size(ut_dev()), len);
	ufd = ut_mainline(len, &mfd);
	ofd = ut_export_fd(fd, 0, len, NULL);
	ASSERT_GE(ofd, 0);
	ifd1 = open(UDI_NODE, O_RDWR | O_CLOEXEC);
	ifd2 = open(UDI_NODE, O_RDWR | O_CLOEXEC);
	UT_CHECK(ifd1 >= 0 && ifd2 >= 0, 1, "open %s: %s", UDI_NODE, strerror(errno));
	ut_attach(ifd1, ofd, &ours);
	ut_attach(ifd2, ufd, &theirs);
	EXPECT_EQ(ours.size, len);
	EXPECT_EQ(theirs.size, len);
	EXPECT_EQ(ours.orig_nents, 1);
	EXPECT_GE(theirs.orig_nents, 1);
	EXPECT_LE(theirs.orig_nents, UT_PAGES);
	EXPECT_EQ(ours.dma_total, len);
	EXPECT_EQ(theirs.dma_total, len);
	ours_ns = ut_sync_ns(ofd);
	theirs_ns = ut_sync_ns(ufd);
	ut_msg("# %u pages for %s: u-dma-buf export %u entry (%u mapped), %lld ns a sync pair; "
	       "mainline udmabuf %u entries (%u mapped), %lld ns a sync pair", UT_PAGES,
	       ours.dev, ours.orig_nents, ours.nents, ours_ns, theirs.orig_nents, theirs.nents,
	       theirs_ns);

	/* the bytes: written through each owner, read through each DMA-BUF */
	ut_fill(b, len, 0, 1901);
	ASSERT_EQ(ut_pwrite_all(fd, b, len, 0), 0);
	ut_fill(b, len, 0, 1902);
	ASSERT_EQ(ut_pwrite_all(mfd, b, len, 0), 0);
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, ofd, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	ASSERT_PATTERN(p, len, 0, 1901);
	munmap(p, len);
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, ufd, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	ASSERT_PATTERN(p, len, 0, 1902);
	munmap(p, len);
	close(ifd1);
	close(ifd2);
	close(ofd);
	close(ufd);
	close(mfd);
	close(fd);
	free(b);
}

TEST_HARNESS_MAIN
