// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * udmabuf-dma-edu - a real DMA peer reads one u-dma-buf buffer and writes
 * another at the DMA addresses the driver reports, with the CPU/device
 * ownership rule: CPU writes, sync_for_device, DMA, sync_for_cpu, CPU reads.
 * The peer is QEMU's edu device driven by tests/kmod/udmem-edu-test.ko
 * ("copy <src> <dst> <len>" on /dev/udmem-edu-test).
 *
 *	UDMABUF_SRC, UDMABUF_DST	the two buffers (at least 64 KiB each)
 */
#define _FILE_OFFSET_BITS 64
#include "udmabuf-test.h"

#define UT_EDU	"/dev/udmem-edu-test"
#define UT_LEN	4096	/* two device-buffer loads (the peer moves 2 KiB a transfer) */

#define UT_SRC	ut_env("UDMABUF_SRC", "udmabuf0")
#define UT_DST	ut_env("UDMABUF_DST", "udmabuf1")

/* Ask the peer to copy; 0 or -errno. */
static int ut_edu_copy(uint64_t src, uint64_t dst, uint64_t len)
{
	char cmd[128];
	int fd = open(UT_EDU, O_WRONLY), n, err = 0;

	UT_CHECK(fd >= 0, 1, "open %s: %s (is udmem-edu-test loaded?)", UT_EDU,
		 strerror(errno));
	n = snprintf(cmd, sizeof(cmd), "copy 0x%llx 0x%llx %llu\n", (unsigned long long)src,
		     (unsigned long long)dst, (unsigned long long)len);
	if (write(fd, cmd, n) != n)
		err = -errno;
	close(fd);
	return err;
}

enum ut_sync_way { UT_SYSFS, UT_SYSFS_PACKED, UT_IOCTL };

/* Sync [off, off + len) of a buffer for the device or the CPU, in one of three ways. */
static void ut_sync(const char *dev, int fd, enum ut_sync_way way, int for_device,
		    uint64_t off, uint64_t len, unsigned int dir)
{
	const char *attr = for_device ? "sync_for_device" : "sync_for_cpu";
	char v[32];

	switch (way) {
	case UT_SYSFS:
		ut_set(dev, "sync_offset", off);
		ut_set(dev, "sync_size", len);
		ut_set(dev, "sync_direction", dir);
		ASSERT_EQ(ut_attr_write(dev, attr, "1"), 0);
		break;
	case UT_SYSFS_PACKED:
		snprintf(v, sizeof(v), "0x%08X%08X", (unsigned int)off,
			 (unsigned int)((len & 0xFFFFFFF0) | (dir << 2) | 1));
		ASSERT_EQ(ut_attr_write(dev, attr, v), 0);
		break;
	case UT_IOCTL: {
		struct ut_sync_args s = {
			.flags = UT_SYNC_FLAGS(for_device ? UT_SYNC_CMD_FOR_DEVICE :
					       UT_SYNC_CMD_FOR_CPU, dir, 0),
			.size = len,
			.offset = off,
		};

		ASSERT_OK(ioctl(fd, UT_SET_SYNC, &s));
		break;
	}
	}
	UT_CHECK(ut_get(dev, "sync_owner", 10) == (uint64_t)!!for_device, 1,
		 "%s: sync_owner after %s is not %d", dev, attr, !!for_device);
}

/*
 * Pattern into src[soff..] through mmap, zeros into all of dst, DMA
 * src[soff, +len) -> dst[doff, +len), then dst must hold the pattern
 * exactly there and zeros elsewhere, through mmap and through read().
 */
static void ut_dma_case(int osync, enum ut_sync_way way, uint64_t soff, uint64_t doff,
			unsigned int seed)
{
	const char *s = UT_SRC, *d = UT_DST;
	int flags = O_RDWR | (osync ? O_SYNC : 0);
	int sfd = ut_open(s, flags), dfd = ut_open(d, flags);
	uint64_t sphys = ut_get(s, "phys_addr", 16), dphys = ut_get(d, "phys_addr", 16);
	size_t map = 64 * 1024;
	uint8_t *sp, *dp, *b;
	long i;

	ASSERT_GE(ut_size(s), map);
	ASSERT_GE(ut_size(d), map);
	sp = mmap(NULL, map, PROT_READ | PROT_WRITE, MAP_SHARED, sfd, 0);
	dp = mmap(NULL, map, PROT_READ | PROT_WRITE, MAP_SHARED, dfd, 0);
	ASSERT_TRUE(sp != MAP_FAILED && dp != MAP_FAILED);

	/* CPU owns both: write them */
	ut_sync(s, sfd, way, 0, 0, map, 0);
	ut_sync(d, dfd, way, 0, 0, map, 0);
	ut_fill(sp, map, 0, seed);
	memset(dp, 0, map);
	/* hand them to the device */
	ut_sync(s, sfd, way, 1, soff, UT_LEN, 1);
	ut_sync(d, dfd, way, 1, 0, map, 0);

	ASSERT_EQ(ut_edu_copy(sphys + soff, dphys + doff, UT_LEN), 0);

	/* take dst back and read it, both ways */
	ut_sync(d, dfd, way, 0, 0, map, 2);
	ASSERT_PATTERN(dp + doff, UT_LEN, soff, seed);
	for (i = 0; i < (long)map; i++)
		if ((uint64_t)i < doff || (uint64_t)i >= doff + UT_LEN)
			UT_CHECK(dp[i] == 0, 1, "dst byte %ld outside the DMA range: 0x%02x", i,
				 dp[i]);
	b = malloc(map);
	ASSERT_TRUE(b != NULL);
	ASSERT_EQ(ut_pread_all(dfd, b, map, 0), 0);
	ASSERT_PATTERN(b + doff, UT_LEN, soff, seed);
	/* the source was not changed by the device */
	ASSERT_PATTERN(sp, map, 0, seed);
	free(b);
	munmap(sp, map);
	munmap(dp, map);
	close(sfd);
	close(dfd);
}

TEST(dma_cached_sysfs_sync)
{
	ut_dma_case(0, UT_SYSFS, 0, 0, 1);
}

TEST(dma_cached_packed_sysfs_sync_offsets)
{
	ut_dma_case(0, UT_SYSFS_PACKED, 4096, 3 * 4096, 2);
}

TEST(dma_cached_ioctl_sync)
{
	ut_dma_case(0, UT_IOCTL, 0, 4096, 3);
}

TEST(dma_osync_sysfs_sync)
{
	ut_dma_case(1, UT_SYSFS, 2 * 4096, 0, 4);
}

TEST(dma_osync_ioctl_sync_offsets)
{
	ut_dma_case(1, UT_IOCTL, 8 * 4096, 5 * 4096, 5);
}

TEST(dma_unaligned_range)
{
	ut_dma_case(0, UT_IOCTL, 100, 4096 + 36, 6);
}

/* write()/read() with O_SYNC do their own syncs around the copy. */
TEST(dma_write_then_read_osync)
{
	const char *s = UT_SRC, *d = UT_DST;
	int sfd = ut_open(s, O_RDWR | O_SYNC), dfd = ut_open(d, O_RDWR | O_SYNC);
	uint8_t in[UT_LEN], out[UT_LEN];

	ut_fill(in, sizeof(in), 0, 7);
	memset(out, 0, sizeof(out));
	ASSERT_EQ(ut_pwrite_all(sfd, in, sizeof(in), 0), 0);
	ASSERT_EQ(ut_pwrite_all(dfd, out, sizeof(out), 0), 0);
	ASSERT_EQ(ut_edu_copy(ut_get(s, "phys_addr", 16), ut_get(d, "phys_addr", 16), UT_LEN), 0);
	ASSERT_EQ(ut_pread_all(dfd, out, sizeof(out), 0), 0);
	ASSERT_PATTERN(out, sizeof(out), 0, 7);
	close(sfd);
	close(dfd);
}

/* The peer refuses what it cannot do, so a wrong address cannot pass unnoticed. */
TEST(edu_peer_rejects_bad_commands)
{
	static const char *const bad[] = {
		"copy 1 2\n", "copy 0x1000 0x2000 0\n", "move 0x1000 0x2000 16\n",
		"copy 0x100000000 0x2000 16\n", "copy 0x1000 0xfffffff0 32\n",
		"copy 0x1000 0x2000 16 17\n",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int fd = open(UT_EDU, O_WRONLY);
		ssize_t n;

		ASSERT_GE(fd, 0);
		errno = 0;
		n = write(fd, bad[i], strlen(bad[i]));
		UT_CHECK(n == -1 && errno == EINVAL, 0, "\"%.30s\": want EINVAL, got %zd (%s)",
			 bad[i], n, strerror(errno));
		close(fd);
	}
}

TEST_HARNESS_MAIN
