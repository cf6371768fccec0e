// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * dmabuf-uiomem - UIOMEM_IOCTL_EXPORT: a range of a uiomem region (device
 * memory, here the ivshmem BAR) as a DMA-BUF.  The test importer maps it
 * for the edu device with dma_map_resource(): one entry, the region's
 * address when the device maps directly, and the edu device copies from
 * and to the device memory at that address (peer to peer); there is no
 * vmap and no mmap (EINVAL); DMA_BUF_IOCTL_SYNC works; vgem imports it and
 * exports it back; bad arguments get their errno; the module stays while
 * an export is open.
 *
 * Environment: UIOMEM_DEV the region (its first 64 KiB are the host peer's
 * mailbox: the tests stay above it); DMABUF_ATTACH the edu device
 * ("pci/<name>"); DMABUF_DIRECT 1 when it maps without an IOMMU;
 * UDMABUF_DEV a u-dma-buf buffer bound to the edu device, the other end of
 * the copies; DMABUF_VGEM vgem's /dev/dri/cardN (empty: that test skips).
 */
#define _FILE_OFFSET_BITS 64
#include <linux/dma-buf.h>
#include <linux/uiomem.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <udmem.h>

#include "dmabuf-util.h"
#include "../../kmod/udmem-dmabuf-importer.h"

#define UDI_NODE	"/dev/udmem-dmabuf-importer"
#define UT_BASE		0x10000		/* above the host peer's mailbox */

static const char *ut_region(void)
{
	return ut_env("UIOMEM_DEV", "uiomem0");
}

static int ut_region_open(int flags)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "/dev/%s", ut_region());
	fd = open(path, flags | O_CLOEXEC);
	if (fd < 0)
		SKIP("%s: %s", path, strerror(errno));
	return fd;
}

static uint64_t ut_region_u64(const char *attr)
{
	return ut_sysfs_get("uiomem", ut_region(), attr, 0);
}

/* UIOMEM_IOCTL_EXPORT; the DMA-BUF fd or -errno. */
static int ut_uexport(int fd, uint32_t flags, uint64_t offset, uint64_t size)
{
	struct uiomem_export e;

	memset(&e, 0, sizeof(e));
	e.flags = flags;
	e.offset = offset;
	e.size = size;
	e.fd = -1;
	return ioctl(fd, UIOMEM_IOCTL_EXPORT, &e) < 0 ? -errno : e.fd;
}

static int udi_attach(int ifd, int bfd, struct udi_attach *a)
{
	memset(a, 0, sizeof(*a));
	a->fd = bfd;
	snprintf(a->dev, sizeof(a->dev), "%s", ut_env("DMABUF_ATTACH", ""));
	return ioctl(ifd, UDI_ATTACH, a) < 0 ? -errno : 0;
}

static int udi_open(void)
{
	int fd = open(UDI_NODE, O_RDWR | O_CLOEXEC);

	UT_CHECK(fd >= 0, 1, "open %s: %s", UDI_NODE, strerror(errno));
	return fd;
}

TEST(export_bad_arguments)
{
	int fd = ut_region_open(O_RDWR), rfd = ut_region_open(O_RDONLY), bfd;
	uint64_t size = ut_region_u64("size");
	long pg = ut_page();
	struct uiomem_export e;

	ASSERT_GE(size, UT_BASE + 2 * pg);
	EXPECT_EQ(ut_uexport(fd, O_RDWR | O_SYNC, UT_BASE, pg), -EINVAL);
	EXPECT_EQ(ut_uexport(fd, O_ACCMODE, UT_BASE, pg), -EINVAL);
	EXPECT_EQ(ut_uexport(fd, O_RDWR, UT_BASE + 1, pg), -EINVAL);
	EXPECT_EQ(ut_uexport(fd, O_RDWR, UT_BASE, pg + 1), -EINVAL);
	EXPECT_EQ(ut_uexport(fd, O_RDWR, UT_BASE, 0), -EINVAL);
	EXPECT_EQ(ut_uexport(fd, O_RDWR, size - pg, 2 * pg), -EINVAL);
	EXPECT_EQ(ut_uexport(fd, O_RDWR, size, pg), -EINVAL);
	EXPECT_EQ(ut_uexport(fd, O_RDWR, pg, UINT64_MAX - pg + 1), -EINVAL);
	memset(&e, 0, sizeof(e));
	e.flags = O_RDWR;
	e.offset = UT_BASE;
	e.size = pg;
	e.reserved[1] = 1;
	EXPECT_ERRNO(ioctl(fd, UIOMEM_IOCTL_EXPORT, &e), EINVAL);
	/* writable exports need a writable file; read-only ones do not */
	EXPECT_EQ(ut_uexport(rfd, O_RDWR, UT_BASE, pg), -EACCES);
	EXPECT_EQ(ut_uexport(rfd, O_WRONLY, UT_BASE, pg), -EACCES);
	bfd = ut_uexport(rfd, O_RDONLY | O_CLOEXEC, UT_BASE, pg);
	ASSERT_GE(bfd, 0);
	EXPECT_TRUE(fcntl(bfd, F_GETFD) & FD_CLOEXEC);
	EXPECT_EQ(fcntl(bfd, F_GETFL) & O_ACCMODE, O_RDONLY);
	EXPECT_EQ(lseek(bfd, 0, SEEK_END), pg);
	close(bfd);
	bfd = ut_uexport(fd, O_RDWR, UT_BASE, 2 * pg);
	ASSERT_GE(bfd, 0);
	EXPECT_FALSE(fcntl(bfd, F_GETFD) & FD_CLOEXEC);
	EXPECT_EQ(lseek(bfd, 0, SEEK_END), 2 * pg);
	close(bfd);
	close(rfd);
	close(fd);
}

/* No struct page: no mmap of the DMA-BUF, no vmap for an importer. */
TEST(export_has_no_mmap_and_no_vmap_but_syncs)
{
	int fd = ut_region_open(O_RDWR), ifd = udi_open(), bfd, r;
	struct udi_access ac;
	struct udi_attach a;
	long pg = ut_page();
	char b[16];
	void *p;

	bfd = ut_uexport(fd, O_RDWR | O_CLOEXEC, UT_BASE, pg);
	ASSERT_GE(bfd, 0);
	p = mmap(NULL, pg, PROT_READ, MAP_SHARED, bfd, 0);
	EXPECT_TRUE(p == MAP_FAILED && errno == EINVAL);
	if (p != MAP_FAILED)
		munmap(p, pg);
	EXPECT_OK(ioctl(bfd, DMA_BUF_IOCTL_SYNC,
			&(struct dma_buf_sync){ DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW }));
	EXPECT_OK(ioctl(bfd, DMA_BUF_IOCTL_SYNC,
			&(struct dma_buf_sync){ DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW }));
	r = udi_attach(ifd, bfd, &a);
	UT_CHECK(r == 0 || r == -EIO, 1, "UDI_ATTACH: %s", strerror(-r));
	if (r == 0) {
		memset(&ac, 0, sizeof(ac));
		ac.len = sizeof(b);
		ac.uptr = (uintptr_t)b;
		/* 5.10's dma_buf_vmap() says only NULL: the importer makes it ENOMEM */
		EXPECT_EQ(ioctl(ifd, UDI_READ, &ac), -1);
		UT_CHECK(errno == EINVAL || errno == ENOMEM, 0, "vmap: %s", strerror(errno));
	}
	close(bfd);
	close(ifd);
	close(fd);
}

/*
 * The importer's mapping for the edu device: one entry of the whole range;
 * with direct mapping its address is the region's, else an IOVA.  Then the
 * edu device reads the device memory at that address into a buffer and
 * writes a buffer's bytes back to it.
 */
TEST(edu_copies_from_and_to_device_memory_at_importer_address)
{
	int fd = ut_region_open(O_RDWR), ifd = udi_open(), bfd, dfd, r;
	uint64_t phys = ut_region_u64("phys_addr"), len = 2 * ut_page(), daddr;
	struct udi_attach a;
	char *b = malloc(len);

	ASSERT_TRUE(b != NULL);
	ASSERT_GE(ut_region_u64("size"), UT_BASE + 2 * len);
	bfd = ut_uexport(fd, O_RDWR | O_CLOEXEC, UT_BASE, 2 * len);
	ASSERT_GE(bfd, 0);
	r = udi_attach(ifd, bfd, &a);
	if (r == -EIO && atoi(ut_env("DMABUF_DIRECT", "1")) &&
	    phys + UT_BASE + 2 * len > (1ull << 32))
		SKIP("the region at 0x%llx is beyond the edu device's 32-bit DMA mask: "
		     "mapping refused with EIO", (unsigned long long)phys);
	UT_CHECK(r == 0, 1, "UDI_ATTACH %s: %s", a.dev, strerror(-r));
	EXPECT_EQ(a.size, 2 * len);
	EXPECT_EQ(a.orig_nents, 1);
	EXPECT_EQ(a.nents, 1);
	EXPECT_EQ(a.dma_len, 2 * len);
	EXPECT_EQ(a.dma_total, 2 * len);
	if (atoi(ut_env("DMABUF_DIRECT", "1")))
		EXPECT_EQ(a.dma_addr, phys + UT_BASE);
	else
		UT_CHECK(a.dma_addr != 0, 0, "no IOVA");
	ut_msg("# %s+0x%x for %s: dma 0x%llx (region at 0x%llx)", ut_region(), UT_BASE,
	       a.dev, (unsigned long long)a.dma_addr, (unsigned long long)phys);

	/* device memory -> buffer: the first half of the export */
	ut_fill(b, len, 0, 1801);
	ASSERT_EQ(ut_pwrite_all(fd, b, len, UT_BASE), 0);
	ASSERT_OK(ioctl(bfd, DMA_BUF_IOCTL_SYNC,
			&(struct dma_buf_sync){ DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE }));
	dfd = ut_open(ut_dev(), O_RDWR);
	memset(b, 0, len);
	ASSERT_EQ(ut_pwrite_all(dfd, b, len, 0), 0);
	daddr = ut_get(ut_dev(), "phys_addr", 16);
	r = ut_edu_copy(a.dma_addr, daddr, len);
	UT_CHECK(r == 0, 1, "edu copy 0x%llx -> 0x%llx: %s", (unsigned long long)a.dma_addr,
		 (unsigned long long)daddr, strerror(-r));
	ASSERT_EQ(ut_pread_all(dfd, b, len, 0), 0);
	ASSERT_PATTERN(b, len, 0, 1801);

	/* buffer -> device memory: the second half */
	ut_fill(b, len, 0, 1802);
	ASSERT_EQ(ut_pwrite_all(dfd, b, len, 0), 0);
	r = ut_edu_copy(daddr, a.dma_addr + len, len);
	UT_CHECK(r == 0, 1, "edu copy -> 0x%llx: %s", (unsigned long long)a.dma_addr + len,
		 strerror(-r));
	ASSERT_OK(ioctl(bfd, DMA_BUF_IOCTL_SYNC,
			&(struct dma_buf_sync){ DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ }));
	memset(b, 0, len);
	ASSERT_EQ(ut_pread_all(fd, b, len, UT_BASE + len), 0);
	ASSERT_PATTERN(b, len, 0, 1802);
	EXPECT_OK(ioctl(ifd, UDI_DETACH));
	free(b);
	close(bfd);
	close(dfd);
	close(ifd);
	close(fd);
}

/* vgem maps the export for its device and exports the same DMA-BUF back. */
TEST(vgem_imports_the_export_and_exports_it_back)
{
	int dfd = ut_vgem_open(), fd = ut_region_open(O_RDWR), bfd, rfd, r;
	struct stat s1, s2;
	uint32_t h = 0;

	bfd = ut_uexport(fd, O_RDWR | O_CLOEXEC, UT_BASE, ut_page());
	ASSERT_GE(bfd, 0);
	r = ut_prime_import(dfd, bfd, &h);
	UT_CHECK(r == 0, 1, "PRIME_FD_TO_HANDLE: %s", strerror(-r));
	rfd = ut_prime_fd(dfd, h);
	ASSERT_GE(rfd, 0);
	ASSERT_OK(fstat(bfd, &s1));
	ASSERT_OK(fstat(rfd, &s2));
	EXPECT_EQ(s1.st_ino, s2.st_ino);
	close(rfd);
	/* the exporter's fd first: vgem holds the DMA-BUF until the handle goes */
	close(bfd);
	EXPECT_EQ(ut_gem_close(dfd, h), 0);
	close(dfd);
	close(fd);
}

/* An open export holds the module: rmmod fails until it is closed. */
TEST(export_holds_the_module)
{
	int fd = ut_region_open(O_RDWR), bfd, st;
	pid_t pid;

	bfd = ut_uexport(fd, O_RDONLY | O_CLOEXEC, UT_BASE, ut_page());
	ASSERT_GE(bfd, 0);
	close(fd);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		execlp("rmmod", "rmmod", "uiomem", (char *)NULL);
		_exit(127);
	}
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	UT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) != 0 && WEXITSTATUS(st) != 127, 0,
		 "rmmod uiomem with an export open: status 0x%x", st);
	EXPECT_TRUE(ut_sysfs_exists("uiomem", ut_region()));
	close(bfd);
}

/* libudmem's udmem_region_export_dmabuf(): size 0 is the rest of the region. */
TEST(libudmem_region_export)
{
	struct udmem_region *reg;
	long pg = ut_page();
	uint64_t size;
	int r, bfd;

	r = udmem_region_open(ut_region(), 0, &reg);
	if (r == -ENOENT)
		SKIP("no region %s", ut_region());
	ASSERT_EQ(r, 0);
	size = udmem_region_size(reg);
	bfd = udmem_region_export_dmabuf(reg, UT_BASE, 0, O_RDWR | O_CLOEXEC);
	ASSERT_GE(bfd, 0);
	EXPECT_EQ(lseek(bfd, 0, SEEK_END), (size - UT_BASE) / pg * pg);
	close(bfd);
	EXPECT_EQ(udmem_region_export_dmabuf(reg, UT_BASE + 1, pg, O_RDWR), -EINVAL);
	EXPECT_EQ(udmem_region_export_dmabuf(reg, UT_BASE, pg, O_RDWR | O_SYNC), -EINVAL);
	EXPECT_EQ(udmem_region_export_dmabuf(reg, UT_BASE, pg, -1), -EINVAL);
	udmem_region_close(reg);
}

TEST_HARNESS_MAIN
