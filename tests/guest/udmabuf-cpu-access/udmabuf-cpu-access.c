// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * udmabuf-cpu-access - the CPU's two ways into a u-dma-buf buffer, mmap()
 * and read()/write() on /dev/<name>, each either through an O_SYNC file
 * (the driver's uncached access, no cache maintenance) or through a cached
 * file with the sysfs sync protocol around the access (sync_offset,
 * sync_size and sync_direction set, then sync_for_cpu before and
 * sync_for_device after).  Every variant writes the whole buffer one way
 * and reads it back another; the data must come back unchanged.
 *
 * Each access is timed, sync included, and printed as a diagnostic line
 * (make demo collects them):
 *
 *	# cpu-access <name> <mmap|file> <write|read> sync=<0|1> <bytes> bytes <s> s <MB/s> MB/s
 *
 * sync=1 is the O_SYNC file, sync=0 the cached one.  The buffer under test
 * is $UDMABUF_DEV.
 */
#include <sys/time.h>

#include "udmabuf-test.h"

enum way { WAY_MMAP, WAY_FILE };

static const char *const way_name[] = { "mmap", "file" };

FIXTURE(access) {
	const char *dev;
	size_t size;
	uint8_t *src, *dst;
};

FIXTURE_VARIANT(access) {
	enum way write_way, read_way;
	int write_sync, read_sync;	/* 1: O_SYNC file, 0: cached + sync protocol */
	unsigned int seed;
};

/* The eight (write, read) pairs: every way once against a cached read and write. */
FIXTURE_VARIANT_ADD(access, mmap_osync_to_mmap_osync) {
	.write_way = WAY_MMAP, .write_sync = 1, .read_way = WAY_MMAP, .read_sync = 1, .seed = 1,
};
FIXTURE_VARIANT_ADD(access, mmap_cached_to_mmap_osync) {
	.write_way = WAY_MMAP, .write_sync = 0, .read_way = WAY_MMAP, .read_sync = 1, .seed = 2,
};
FIXTURE_VARIANT_ADD(access, mmap_osync_to_mmap_cached) {
	.write_way = WAY_MMAP, .write_sync = 1, .read_way = WAY_MMAP, .read_sync = 0, .seed = 3,
};
FIXTURE_VARIANT_ADD(access, mmap_cached_to_mmap_cached) {
	.write_way = WAY_MMAP, .write_sync = 0, .read_way = WAY_MMAP, .read_sync = 0, .seed = 4,
};
FIXTURE_VARIANT_ADD(access, file_osync_to_mmap_cached) {
	.write_way = WAY_FILE, .write_sync = 1, .read_way = WAY_MMAP, .read_sync = 0, .seed = 5,
};
FIXTURE_VARIANT_ADD(access, file_cached_to_mmap_cached) {
	.write_way = WAY_FILE, .write_sync = 0, .read_way = WAY_MMAP, .read_sync = 0, .seed = 6,
};
FIXTURE_VARIANT_ADD(access, mmap_cached_to_file_osync) {
	.write_way = WAY_MMAP, .write_sync = 0, .read_way = WAY_FILE, .read_sync = 1, .seed = 7,
};
FIXTURE_VARIANT_ADD(access, mmap_cached_to_file_cached) {
	.write_way = WAY_MMAP, .write_sync = 0, .read_way = WAY_FILE, .read_sync = 0, .seed = 8,
};

FIXTURE_SETUP(access)
{
	char path[128];

	self->dev = ut_dev();
	ut_path(path, sizeof(path), self->dev, NULL);
	if (access(path, F_OK))
		SKIP("no buffer %s", path);
	self->size = ut_size(self->dev);
	ASSERT_GT(self->size, 0);
	self->src = malloc(self->size);
	self->dst = malloc(self->size);
	ASSERT_TRUE(self->src && self->dst);
}

FIXTURE_TEARDOWN(access)
{
	free(self->src);
	free(self->dst);
}

static double ut_now(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return tv.tv_sec + tv.tv_usec / 1e6;
}

/* u-dma-buf's sync_direction: 1 to the device (a write), 2 from it (a read). */
static void ut_sync_area(const char *dev, size_t size, int to_device)
{
	ut_set(dev, "sync_offset", 0);
	ut_set(dev, "sync_size", size);
	ut_set(dev, "sync_direction", to_device ? 1 : 2);
}

static void ut_sync_cmd(const char *dev, const char *attr)
{
	int err = ut_attr_write(dev, attr, "1");

	UT_CHECK(err == 0, 1, "writing 1 to %s/%s: %s", dev, attr, strerror(-err));
}

/*
 * Copy between buf and the whole buffer one way; the time includes the
 * open, the sync protocol and the unmap or close.
 */
static double ut_copy(const char *dev, enum way way, int osync, int to_device,
		      uint8_t *buf, size_t size)
{
	double t0;
	long err;
	void *p;
	int fd;

	if (!osync)
		ut_sync_area(dev, size, to_device);
	t0 = ut_now();
	fd = ut_open(dev, O_RDWR | (osync ? O_SYNC : 0));
	if (!osync)
		ut_sync_cmd(dev, "sync_for_cpu");
	if (way == WAY_MMAP) {
		p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		UT_CHECK(p != MAP_FAILED, 1, "mmap %s: %s", dev, strerror(errno));
		if (to_device)
			memcpy(p, buf, size);
		else
			memcpy(buf, p, size);
		munmap(p, size);
	} else {
		err = to_device ? ut_pwrite_all(fd, buf, size, 0) :
				  ut_pread_all(fd, buf, size, 0);
		UT_CHECK(err == 0, 1, "%s %s: %s", to_device ? "write" : "read", dev,
			 strerror(-err));
	}
	if (!osync)
		ut_sync_cmd(dev, "sync_for_device");
	close(fd);
	return ut_now() - t0;
}

static void ut_report(const char *dev, enum way way, const char *what, int osync,
		      size_t size, double sec)
{
	TH_LOG("cpu-access %s %s %s sync=%d %zu bytes %.6f s %.1f MB/s", dev,
	       way_name[way], what, osync, size, sec, sec > 0 ? size / sec / 1e6 : 0.0);
}

TEST_F(access, write_then_read_back_equal)
{
	/* A seed of this run, so that a write that does nothing cannot pass. */
	unsigned int seed = variant->seed * 0x10001u ^ (unsigned int)getpid();
	double sec;

	ut_fill(self->src, self->size, 0, seed);
	memset(self->dst, 0, self->size);
	sec = ut_copy(self->dev, variant->write_way, variant->write_sync, 1,
		      self->src, self->size);
	ut_report(self->dev, variant->write_way, "write", variant->write_sync,
		  self->size, sec);
	sec = ut_copy(self->dev, variant->read_way, variant->read_sync, 0,
		      self->dst, self->size);
	ut_report(self->dev, variant->read_way, "read", variant->read_sync,
		  self->size, sec);
	/* src holds the pattern: equal bytes are the pattern (32 MiB, fast). */
	if (memcmp(self->dst, self->src, self->size))
		ASSERT_PATTERN(self->dst, self->size, 0, seed);
}

TEST(size_and_phys_addr_match_ioctls)
{
	uint64_t size = 0, sysfs_size = ut_size(ut_dev());
	struct ut_dev_info info;
	int fd = ut_open(ut_dev(), O_RDONLY);

	ASSERT_OK(ioctl(fd, UT_GET_SIZE, &size));
	EXPECT_EQ(size, sysfs_size);
	memset(&info, 0, sizeof(info));
	ASSERT_OK(ioctl(fd, UT_GET_DEV_INFO, &info));
	EXPECT_EQ(info.size, sysfs_size);
	EXPECT_EQ(info.addr, ut_get(ut_dev(), "phys_addr", 16));
	close(fd);
}

TEST_HARNESS_MAIN
