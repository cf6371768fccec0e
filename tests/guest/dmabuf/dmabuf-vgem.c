// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * dmabuf-vgem - u-dma-buf's exports imported by a DRM driver, vgem
 * (DRM_IOCTL_PRIME_FD_TO_HANDLE): the import maps the export for vgem's
 * device, the handle exports back the same dma-buf with the same bytes,
 * and every close order (importer first, exporter first, the DRM file) releases the export exactly once (debug_export's
 * "export released" log line); the manager refuses to delete a buffer
 * while vgem holds its export.
 *
 * Environment: UDMABUF_DEV a buffer; DMABUF_VGEM vgem's /dev/dri/cardN;
 * DMABUF_MGR 1 when /dev/u-dma-buf-mgr is there (for the delete test).
 */
#define _FILE_OFFSET_BITS 64
#include <linux/dma-buf.h>
#include <sys/stat.h>

#include "dmabuf-util.h"

static void ut_debug_export(const char *dev)
{
	ut_set(dev, "debug_export", 1);
}

TEST(vgem_import_maps_and_exports_back_same_bytes)
{
	long pg = ut_page();
	uint64_t len = 4 * pg;
	int dfd = ut_vgem_open(), fd = ut_open(ut_dev(), O_RDWR), bfd, rfd;
	uint32_t h = 0, h2 = 0;
	struct stat s1, s2;
	char *b = malloc(len), *p;

	ASSERT_TRUE(b != NULL);
	ut_fill(b, len, 0, 1501);
	ASSERT_EQ(ut_pwrite_all(fd, b, len, pg), 0);
	bfd = ut_export_dev(ut_dev(), pg, len, NULL);
	ASSERT_GE(bfd, 0);
	ASSERT_EQ(ut_prime_import(dfd, bfd, &h), 0);
	/* a second import of the same dma-buf is the same object */
	ASSERT_EQ(ut_prime_import(dfd, bfd, &h2), 0);
	EXPECT_EQ(h2, h);
	rfd = ut_prime_fd(dfd, h);
	ASSERT_GE(rfd, 0);
	ASSERT_OK(fstat(bfd, &s1));
	ASSERT_OK(fstat(rfd, &s2));
	EXPECT_EQ(s1.st_ino, s2.st_ino);
	EXPECT_EQ(lseek(rfd, 0, SEEK_END), len);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, rfd, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	ASSERT_OK(ioctl(rfd, DMA_BUF_IOCTL_SYNC,
			&(struct dma_buf_sync){ DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW }));
	ASSERT_PATTERN(p, len, 0, 1501);
	ut_fill(p, len, 0, 1502);
	ASSERT_OK(ioctl(rfd, DMA_BUF_IOCTL_SYNC,
			&(struct dma_buf_sync){ DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW }));
	ASSERT_EQ(ut_pread_all(fd, b, len, pg), 0);
	ASSERT_PATTERN(b, len, 0, 1502);
	munmap(p, len);
	EXPECT_EQ(ut_gem_close(dfd, h), 0);
	close(rfd);
	close(bfd);
	close(fd);
	close(dfd);
	free(b);
}

/* close the GEM handle (the importer) first, then the dma-buf */
TEST(vgem_close_importer_first_releases_once)
{
	int dfd = ut_vgem_open(), bfd, n0;
	uint32_t h = 0;

	ut_debug_export(ut_dev());
	n0 = ut_released(ut_dev());
	ASSERT_GE(n0, 0);
	bfd = ut_export_dev(ut_dev(), 0, ut_page(), NULL);
	ASSERT_GE(bfd, 0);
	ASSERT_EQ(ut_prime_import(dfd, bfd, &h), 0);
	ASSERT_EQ(ut_gem_close(dfd, h), 0);
	EXPECT_EQ(ut_released(ut_dev()), n0);
	close(bfd);
	EXPECT_EQ(ut_released(ut_dev()), n0 + 1);
	close(dfd);
}

/* close the dma-buf first: vgem keeps it until the handle goes */
TEST(vgem_close_exporter_first_releases_once)
{
	int dfd = ut_vgem_open(), bfd, n0;
	uint32_t h = 0;

	ut_debug_export(ut_dev());
	n0 = ut_released(ut_dev());
	ASSERT_GE(n0, 0);
	bfd = ut_export_dev(ut_dev(), 0, ut_page(), NULL);
	ASSERT_GE(bfd, 0);
	ASSERT_EQ(ut_prime_import(dfd, bfd, &h), 0);
	close(bfd);
	EXPECT_EQ(ut_released(ut_dev()), n0);
	ASSERT_EQ(ut_gem_close(dfd, h), 0);
	EXPECT_EQ(ut_released(ut_dev()), n0 + 1);
	close(dfd);
}

/* closing the DRM file drops its handles */
TEST(vgem_close_drm_file_releases_once)
{
	int dfd = ut_vgem_open(), bfd, n0;
	uint32_t h = 0;

	ut_debug_export(ut_dev());
	n0 = ut_released(ut_dev());
	ASSERT_GE(n0, 0);
	bfd = ut_export_dev(ut_dev(), 0, ut_page(), NULL);
	ASSERT_GE(bfd, 0);
	ASSERT_EQ(ut_prime_import(dfd, bfd, &h), 0);
	close(bfd);
	close(dfd);
	EXPECT_EQ(ut_released(ut_dev()), n0 + 1);
}

static int ut_mgr(const char *cmd)
{
	int fd = open("/dev/u-dma-buf-mgr", O_WRONLY), r = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, cmd, strlen(cmd)) < 0)
		r = -errno;
	close(fd);
	return r;
}

/*
 * Deleting the buffer while vgem holds its export is refused (EBUSY: the
 * manager deletes no exported buffer); the bytes stay reachable through
 * vgem, and once vgem lets go the export is released and the delete works.
 */
TEST(vgem_buffer_delete_refused_while_imported)
{
	const char *name = "dmabuf-vgem-del";
	long pg = ut_page();
	int dfd = ut_vgem_open(), fd, bfd, rfd, n0;
	char cmd[64], b[64], *p;
	uint32_t h = 0;

	if (strcmp(ut_env("DMABUF_MGR", "0"), "1"))
		SKIP("no /dev/u-dma-buf-mgr");
	snprintf(cmd, sizeof(cmd), "create %s 0x%lx\n", name, 2 * pg);
	ASSERT_EQ(ut_mgr(cmd), 0);
	ut_debug_export(name);
	n0 = ut_released(name);
	fd = ut_open(name, O_RDWR);
	ut_fill(b, sizeof(b), 0, 1503);
	ASSERT_EQ(ut_pwrite_all(fd, b, sizeof(b), 0), 0);
	close(fd);
	bfd = ut_export_dev(name, 0, 2 * pg, NULL);
	ASSERT_GE(bfd, 0);
	ASSERT_EQ(ut_prime_import(dfd, bfd, &h), 0);
	close(bfd);
	snprintf(cmd, sizeof(cmd), "delete %s\n", name);
	EXPECT_EQ(ut_mgr(cmd), -EBUSY);
	EXPECT_TRUE(ut_sysfs_exists(UT_UDMABUF_CLASS, name));
	EXPECT_EQ(ut_released(name), n0);
	rfd = ut_prime_fd(dfd, h);
	ASSERT_GE(rfd, 0);
	p = mmap(NULL, pg, PROT_READ, MAP_SHARED, rfd, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	ASSERT_PATTERN(p, 64, 0, 1503);
	munmap(p, pg);
	close(rfd);
	ASSERT_EQ(ut_gem_close(dfd, h), 0);
	EXPECT_EQ(ut_released(name), n0 + 1);
	EXPECT_EQ(ut_mgr(cmd), 0);
	EXPECT_FALSE(ut_sysfs_exists(UT_UDMABUF_CLASS, name));
	close(dfd);
}

TEST_HARNESS_MAIN
