// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * udmabuf-lifetime: a buffer that is open, mapped or exported is never
 * freed under its user.
 *
 *  - u-dma-buf-mgr "delete" refuses with EBUSY while the buffer is open,
 *    mapped (even with the file closed) or exported;
 *  - every open file, mapping and export pins the module (refcnt);
 *  - platform unbind cannot refuse: the node and sysfs go at once, existing
 *    mappings and exports keep working on the old memory, and the open file
 *    gets ENODEV for read/write/ioctl/mmap; the memory is freed with the
 *    last user.
 *
 * suite.sh loads u-dma-buf with udmabuf3=1 MiB (platform device
 * u-dma-buf.3) and u-dma-buf-mgr.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <linux/dma-buf.h>
#include <linux/u-dma-buf-ioctl.h>

#include "harness.h"

#define UNBIND	"/sys/bus/platform/drivers/u-dma-buf/unbind"
#define BIND	"/sys/bus/platform/drivers/u-dma-buf/bind"
#define PDEV	"u-dma-buf.3"
#define DEVNODE	"/dev/udmabuf3"
#define SZ	0x10000

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY), ret;

	if (fd < 0)
		return -errno;
	ret = write(fd, s, strlen(s));
	ret = ret < 0 ? -errno : 0;
	close(fd);
	return ret;
}

static int mgr(const char *cmd)
{
	return write_str("/dev/u-dma-buf-mgr", cmd);
}

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

static long module_refcnt(void)
{
	char line[32] = "";
	FILE *f = fopen("/sys/module/u_dma_buf/refcnt", "r");

	if (!f)
		return -1;
	if (!fgets(line, sizeof(line), f))
		line[0] = 0;
	fclose(f);
	return strtol(line, NULL, 10);
}

static int export_range(int fd, uint64_t off, uint64_t size, int flags)
{
	struct u_dma_buf_ioctl_export_args args;

	memset(&args, 0, sizeof(args));
	SET_U_DMA_BUF_IOCTL_FLAGS_EXPORT_FD_FLAGS(&args, flags);
	args.offset = off;
	args.size = size;
	if (ioctl(fd, U_DMA_BUF_IOCTL_EXPORT, &args))
		return -errno;
	return args.fd;
}

/*
 * A manager-made buffer held by each kind of user: "delete" is refused
 * with EBUSY while the hold lasts and works once it is dropped.
 */
enum holder { HOLD_FILE, HOLD_MAPPING, HOLD_EXPORT, HOLD_EXPORT_MAPPING };

FIXTURE(mgr_buffer) {
	int fd;
};

FIXTURE_VARIANT(mgr_buffer) {
	enum holder holder;
};

FIXTURE_VARIANT_ADD(mgr_buffer, open_file) { .holder = HOLD_FILE };
FIXTURE_VARIANT_ADD(mgr_buffer, mapping) { .holder = HOLD_MAPPING };
FIXTURE_VARIANT_ADD(mgr_buffer, export) { .holder = HOLD_EXPORT };
FIXTURE_VARIANT_ADD(mgr_buffer, export_mapping) { .holder = HOLD_EXPORT_MAPPING };

#define MGR_NODE	"/dev/udmem-lt"

FIXTURE_SETUP(mgr_buffer)
{
	ASSERT_OK(mgr("create udmem-lt 0x10000\n"));
	self->fd = open(MGR_NODE, O_RDWR);
	ASSERT_OK(self->fd);
}

FIXTURE_TEARDOWN(mgr_buffer)
{
	if (self->fd >= 0)
		close(self->fd);
	mgr("delete udmem-lt\n");	/* ENOENT once the test deleted it */
}

TEST_F(mgr_buffer, delete_while_held_ebusy)
{
	bool export = variant->holder == HOLD_EXPORT ||
		      variant->holder == HOLD_EXPORT_MAPPING;
	bool mapping = variant->holder == HOLD_MAPPING ||
		       variant->holder == HOLD_EXPORT_MAPPING;
	uint32_t *p = NULL;
	int dfd = -1;

	if (export) {
		dfd = export_range(self->fd, 0, SZ, O_RDWR | O_CLOEXEC);
		ASSERT_OK(dfd);
	}
	if (mapping) {
		p = mmap(NULL, SZ, PROT_READ | PROT_WRITE, MAP_SHARED,
			 export ? dfd : self->fd, 0);
		ASSERT_TRUE(p != MAP_FAILED);
	}
	/* Keep only the hold under test: the file, else the export, else the mapping. */
	if (variant->holder != HOLD_FILE) {
		close(self->fd);
		self->fd = -1;
	}
	if (mapping && dfd >= 0) {
		close(dfd);	/* the mapping holds the dma-buf, which holds the buffer */
		dfd = -1;
	}
	EXPECT_ERRNO(mgr("delete udmem-lt\n"), EBUSY);
	EXPECT_TRUE(exists(MGR_NODE));
	if (p) {
		p[100] = 0x600DF00D;
		EXPECT_EQ(p[100], 0x600DF00D);
		munmap(p, SZ);
	}
	if (dfd >= 0)
		close(dfd);
	if (self->fd >= 0) {
		close(self->fd);
		self->fd = -1;
	}
	EXPECT_OK(mgr("delete udmem-lt\n"));
	EXPECT_FALSE(exists(MGR_NODE));
}

TEST(mgr_delete_unknown_and_twice_enoent)
{
	ASSERT_OK(mgr("create udmem-lt-twice 0x1000\n"));
	EXPECT_OK(mgr("delete udmem-lt-twice\n"));
	EXPECT_ERRNO(mgr("delete udmem-lt-twice\n"), ENOENT);
	EXPECT_ERRNO(mgr("delete udmem-lt-never-made\n"), ENOENT);
}

TEST(module_pinned_by_open_mapping_export)
{
	long base = module_refcnt(), with_file, with_export;
	uint8_t *p;
	int fd, dfd;

	ASSERT_GE(base, 0);
	fd = open(DEVNODE, O_RDWR);
	ASSERT_OK(fd);
	with_file = module_refcnt();
	EXPECT_GT(with_file, base);
	p = mmap(NULL, SZ, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	dfd = export_range(fd, 0, SZ, O_RDONLY);
	ASSERT_OK(dfd);
	with_export = module_refcnt();
	EXPECT_GT(with_export, with_file);
	close(fd);
	/* The mapping keeps the file open. */
	EXPECT_EQ(module_refcnt(), with_export);
	munmap(p, SZ);
	/* The dma-buf keeps its own reference. */
	EXPECT_EQ(module_refcnt(), base + (with_export - with_file));
	close(dfd);
	EXPECT_EQ(module_refcnt(), base);
}

/*
 * The platform buffer u-dma-buf.3 (udmabuf3), unbound by the tests; the
 * teardown binds it again, also when a test stopped half-way.
 */
FIXTURE(platform_buffer) {
	int unused;
};

FIXTURE_SETUP(platform_buffer)
{
	if (!exists(DEVNODE))
		write_str(BIND, PDEV);
	ASSERT_TRUE(exists(DEVNODE));
}

FIXTURE_TEARDOWN(platform_buffer)
{
	if (!exists(DEVNODE))
		write_str(BIND, PDEV);
}

TEST_F(platform_buffer, unbind_while_mapped_keeps_mapping)
{
	uint32_t *p, val;
	int fd, i, bad = 0;

	fd = open(DEVNODE, O_RDWR);
	ASSERT_OK(fd);
	p = mmap(NULL, SZ, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	for (i = 0; i < SZ / 4; i++)
		p[i] = 0xA5000000u + i;
	ASSERT_OK(write_str(UNBIND, PDEV));
	EXPECT_FALSE(exists(DEVNODE));
	EXPECT_FALSE(exists("/sys/class/u-dma-buf/udmabuf3"));
	/* The mapping still works on the old memory. */
	for (i = 0; i < SZ / 4; i++)
		bad += p[i] != 0xA5000000u + i;
	EXPECT_EQ(bad, 0);
	p[1] = 0x12345678;
	EXPECT_EQ(p[1], 0x12345678);
	/* The detached file refuses new work. */
	EXPECT_ERRNO(pread(fd, &val, 4, 0), ENODEV);
	EXPECT_ERRNO(pwrite(fd, &val, 4, 0), ENODEV);
	EXPECT_ERRNO(ioctl(fd, U_DMA_BUF_IOCTL_GET_SIZE, &val), ENODEV);
	EXPECT_TRUE(mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED);
	munmap(p, SZ);
	close(fd);
	ASSERT_OK(write_str(BIND, PDEV));
	EXPECT_TRUE(exists(DEVNODE));
	/* A new buffer: zeroed memory, not the old contents. */
	fd = open(DEVNODE, O_RDONLY);
	ASSERT_OK(fd);
	EXPECT_EQ(pread(fd, &val, 4, 4), 4);
	EXPECT_EQ(val, 0);
	close(fd);
}

/*
 * A dma-buf sync after the unbind: done where the device's DMA setup is
 * plain dma-direct (it does not change with the driver), else ENODEV,
 * never a sync through a torn-down setup.  Of our guests only 32-bit arm
 * before 6.5 has DMA ops of its own (arm_dma_ops) on the platform device.
 */
static int sync_after_unbind(int dfd, struct dma_buf_sync *sync)
{
	int ret = ioctl(dfd, DMA_BUF_IOCTL_SYNC, sync) ? -errno : 0;

#ifdef __arm__
	if (ret == -ENODEV)
		return 0;
#endif
	return ret;
}

TEST_F(platform_buffer, unbind_while_exported_keeps_dmabuf)
{
	struct dma_buf_sync sync = { DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW };
	uint32_t *p;
	int fd, dfd;

	fd = open(DEVNODE, O_RDWR);
	ASSERT_OK(fd);
	dfd = export_range(fd, 4096, 8192, O_RDWR);
	ASSERT_OK(dfd);
	close(fd);
	ASSERT_OK(write_str(UNBIND, PDEV));
	EXPECT_FALSE(exists(DEVNODE));
	p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, dfd, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	EXPECT_EQ(sync_after_unbind(dfd, &sync), 0);
	p[0] = 0xFEEDBEEF;
	EXPECT_EQ(p[0], 0xFEEDBEEF);
	sync.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW;
	EXPECT_EQ(sync_after_unbind(dfd, &sync), 0);
	munmap(p, 8192);
	close(dfd);
	EXPECT_OK(write_str(BIND, PDEV));
	EXPECT_TRUE(exists(DEVNODE));
}

TEST_F(platform_buffer, unbind_with_sysfs_attr_open_enodev_or_eof)
{
	char line[64];
	int afd;
	ssize_t n;

	afd = open("/sys/class/u-dma-buf/udmabuf3/size", O_RDONLY);
	ASSERT_OK(afd);
	ASSERT_OK(write_str(UNBIND, PDEV));
	n = pread(afd, line, sizeof(line), 0);
	EXPECT_TRUE(n <= 0);
	close(afd);
	EXPECT_OK(write_str(BIND, PDEV));
}

TEST_F(platform_buffer, unbind_bind_cycles_no_leak)
{
	int i;

	for (i = 0; i < 20; i++) {
		ASSERT_OK(write_str(UNBIND, PDEV));
		ASSERT_OK(write_str(BIND, PDEV));
	}
	EXPECT_TRUE(exists(DEVNODE));
}

TEST_HARNESS_MAIN
