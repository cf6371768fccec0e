// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * board-dma - the SoC's own DMA engine (tests/kmod/udmem-dmaengine-test.ko,
 * /dev/udmem-dmaengine-test) copies between u-dma-buf buffers, and between
 * a buffer and a uiomem window on on-chip memory, at the DMA addresses the
 * drivers report, with the CPU/device ownership rule around each copy.
 *
 *	BOARD_SRC, BOARD_DST	two buffers (at least 64 KiB each): the
 *				buffer tests copy SRC -> DST
 *	BOARD_REGION		a uiomem region (at least 64 KiB): the region
 *				tests copy DST -> REGION and REGION -> DST;
 *				without it they SKIP
 */
#define _FILE_OFFSET_BITS 64
#include "udmabuf-test.h"
#include "uiomem/uiomem-test.h"
#include "../kmod/udmem-dmaengine-test.h"

#define BD_DEV	"/dev/udmem-dmaengine-test"
#define BD_MAP	(64 * 1024)
#define BD_LEN	(16 * 1024)

#define BD_SRC	ut_env("BOARD_SRC", "udmabuf0")
#define BD_DST	ut_env("BOARD_DST", "udmabuf1")

/* The engine copies len bytes from DMA address src to dst: 0 or -errno. */
static int bd_copy(uint64_t src, uint64_t dst, uint64_t len, uint64_t flags)
{
	struct udmem_dmaengine_copy c = { .src = src, .dst = dst, .len = len, .flags = flags };
	int fd = open(BD_DEV, O_RDWR), err = 0;

	UT_CHECK(fd >= 0, 1, "open %s: %s (is udmem-dmaengine-test loaded?)", BD_DEV,
		 strerror(errno));
	if (ioctl(fd, UDMEM_DMAENGINE_COPY, &c))
		err = -errno;
	close(fd);
	return err;
}

enum bd_sync_way { BD_SYSFS, BD_IOCTL };

/* u-dma-buf: sync [off, off + len) for the device or the CPU. */
static void bd_sync(const char *dev, int fd, enum bd_sync_way way, int for_device,
		    uint64_t off, uint64_t len, unsigned int dir)
{
	if (way == BD_SYSFS) {
		ut_set(dev, "sync_offset", off);
		ut_set(dev, "sync_size", len);
		ut_set(dev, "sync_direction", dir);
		ASSERT_EQ(ut_attr_write(dev, for_device ? "sync_for_device" : "sync_for_cpu",
					"1"), 0);
	} else {
		struct ut_sync_args s = {
			.flags = UT_SYNC_FLAGS(for_device ? UT_SYNC_CMD_FOR_DEVICE :
					       UT_SYNC_CMD_FOR_CPU, dir, 0),
			.size = len,
			.offset = off,
		};

		ASSERT_OK(ioctl(fd, UT_SET_SYNC, &s));
	}
	UT_CHECK(ut_get(dev, "sync_owner", 10) == (uint64_t)!!for_device, 1,
		 "%s: sync_owner is not %d after the sync", dev, !!for_device);
}

/*
 * A pattern into src[soff..] through mmap, zeros into dst, the engine copies
 * src[soff, +BD_LEN) to dst[doff, ..): dst holds the pattern exactly there
 * and zeros elsewhere, through mmap and read().
 */
static void bd_buffers(int osync, enum bd_sync_way way, uint64_t soff, uint64_t doff,
		       unsigned int seed)
{
	const char *s = BD_SRC, *d = BD_DST;
	int flags = O_RDWR | (osync ? O_SYNC : 0);
	int sfd = ut_open(s, flags), dfd = ut_open(d, flags);
	uint64_t sdma = ut_get(s, "phys_addr", 16), ddma = ut_get(d, "phys_addr", 16);
	uint8_t *sp, *dp, *b;
	long i;

	ASSERT_GE(ut_size(s), BD_MAP);
	ASSERT_GE(ut_size(d), BD_MAP);
	sp = mmap(NULL, BD_MAP, PROT_READ | PROT_WRITE, MAP_SHARED, sfd, 0);
	dp = mmap(NULL, BD_MAP, PROT_READ | PROT_WRITE, MAP_SHARED, dfd, 0);
	ASSERT_TRUE(sp != MAP_FAILED && dp != MAP_FAILED);
	bd_sync(s, sfd, way, 0, 0, BD_MAP, 0);
	bd_sync(d, dfd, way, 0, 0, BD_MAP, 0);
	ut_fill(sp, BD_MAP, 0, seed);
	memset(dp, 0, BD_MAP);
	bd_sync(s, sfd, way, 1, soff, BD_LEN, 1);
	bd_sync(d, dfd, way, 1, 0, BD_MAP, 0);

	ASSERT_EQ(bd_copy(sdma + soff, ddma + doff, BD_LEN, 0), 0);

	bd_sync(d, dfd, way, 0, 0, BD_MAP, 2);
	ASSERT_PATTERN(dp + doff, BD_LEN, soff, seed);
	for (i = 0; i < BD_MAP; i++)
		if ((uint64_t)i < doff || (uint64_t)i >= doff + BD_LEN)
			UT_CHECK(dp[i] == 0, 1, "dst byte %ld outside the copy: 0x%02x", i, dp[i]);
	b = malloc(BD_MAP);
	ASSERT_TRUE(b != NULL);
	ASSERT_EQ(ut_pread_all(dfd, b, BD_MAP, 0), 0);
	ASSERT_PATTERN(b + doff, BD_LEN, soff, seed);
	ASSERT_PATTERN(sp, BD_MAP, 0, seed);
	free(b);
	munmap(sp, BD_MAP);
	munmap(dp, BD_MAP);
	close(sfd);
	close(dfd);
}

TEST(buffers_cached_sysfs_sync)
{
	bd_buffers(0, BD_SYSFS, 0, 0, 1);
}

TEST(buffers_cached_ioctl_sync_offsets)
{
	bd_buffers(0, BD_IOCTL, 4096, 3 * 4096, 2);
}

TEST(buffers_osync_sysfs_sync)
{
	bd_buffers(1, BD_SYSFS, 2 * 4096, 4096, 3);
}

TEST(buffers_osync_ioctl_sync)
{
	bd_buffers(1, BD_IOCTL, 0, 8 * 4096, 4);
}

/*
 * Copies at offsets that are not page or cache-line aligned (multiples of 4:
 * ZDMA and PL330 copy bytes, the PDMA's copy_align asks for 4).
 */
TEST(buffers_unaligned_range)
{
	bd_buffers(0, BD_IOCTL, 100, 4096 + 36, 5);
}

/*
 * On-chip memory through uiomem, seed 001's pattern: the CPU writes the
 * window through a cached mapping and cleans the range (sync for device),
 * the engine copies it out; the engine writes in, the CPU invalidates the
 * range (sync for CPU) and reads it.  way: uiomem's ioctl or sysfs.
 */
static const char *bd_region(void)
{
	const char *r = getenv("BOARD_REGION");

	if (!r || !*r)
		SKIP("BOARD_REGION is not set: this board has no on-chip memory window");
	setenv("UIOMEM_DEV", r, 1);
	return r;
}

static void bd_region_sync(int fd, enum bd_sync_way way, int for_device, uint64_t off,
			   uint64_t len)
{
	char v[64];

	if (way == BD_IOCTL) {
		ASSERT_OK(ut_uiomem_sync(fd, for_device ? UIOMEM_SYNC_END | UIOMEM_SYNC_WRITE :
					 UIOMEM_SYNC_START | UIOMEM_SYNC_READ, off, len));
		return;
	}
	snprintf(v, sizeof(v), "%llu", (unsigned long long)off);
	ASSERT_EQ(ut_uiomem_attr_write("sync_offset", v), 0);
	snprintf(v, sizeof(v), "%llu", (unsigned long long)len);
	ASSERT_EQ(ut_uiomem_attr_write("sync_size", v), 0);
	ASSERT_EQ(ut_uiomem_attr_write("sync_direction", for_device ? "1" : "2"), 0);
	ASSERT_EQ(ut_uiomem_attr_write(for_device ? "sync_for_device" : "sync_for_cpu", "1"),
		  0);
}

static void bd_region_case(int out, enum bd_sync_way way, uint64_t roff, unsigned int seed)
{
	const char *d = BD_DST;
	int rfd, dfd;
	uint64_t rdma, ddma;
	uint8_t *rp, *dp;

	bd_region();
	rfd = ut_uiomem_open(O_RDWR);
	ASSERT_GE(rfd, 0);
	dfd = ut_open(d, O_RDWR);
	rdma = ut_uiomem_attr_u64("phys_addr");
	ddma = ut_get(d, "phys_addr", 16);
	ASSERT_GE(ut_uiomem_attr_u64("size"), BD_MAP);
	EXPECT_EQ(ut_uiomem_attr_u64("cached"), 1ULL);
	rp = mmap(NULL, BD_MAP, PROT_READ | PROT_WRITE, MAP_SHARED, rfd, 0);
	dp = mmap(NULL, BD_MAP, PROT_READ | PROT_WRITE, MAP_SHARED, dfd, 0);
	ASSERT_TRUE(rp != MAP_FAILED && dp != MAP_FAILED);
	bd_sync(d, dfd, BD_IOCTL, 0, 0, BD_MAP, 0);
	if (out) {
		/* CPU -> OCM (cached), clean, engine OCM -> buffer */
		bd_region_sync(rfd, BD_IOCTL, 0, 0, BD_MAP);
		ut_fill(rp, BD_MAP, 0, seed);
		memset(dp, 0, BD_MAP);
		bd_region_sync(rfd, way, 1, roff, BD_LEN);
		bd_sync(d, dfd, BD_IOCTL, 1, 0, BD_MAP, 0);
		ASSERT_EQ(bd_copy(rdma + roff, ddma, BD_LEN, 0), 0);
		bd_sync(d, dfd, BD_IOCTL, 0, 0, BD_MAP, 2);
		ASSERT_PATTERN(dp, BD_LEN, roff, seed);
	} else {
		/* CPU -> buffer, engine buffer -> OCM, invalidate, CPU reads OCM */
		bd_region_sync(rfd, BD_IOCTL, 0, 0, BD_MAP);
		memset(rp, 0, BD_MAP);
		bd_region_sync(rfd, BD_IOCTL, 1, 0, BD_MAP);
		ut_fill(dp, BD_MAP, 0, seed);
		bd_sync(d, dfd, BD_IOCTL, 1, 0, BD_MAP, 1);
		ASSERT_EQ(bd_copy(ddma, rdma + roff, BD_LEN, 0), 0);
		bd_region_sync(rfd, way, 0, 0, BD_MAP);
		ASSERT_PATTERN(rp + roff, BD_LEN, 0, seed);
		for (long i = 0; i < BD_MAP; i++)
			if ((uint64_t)i < roff || (uint64_t)i >= roff + BD_LEN)
				UT_CHECK(rp[i] == 0, 1, "OCM byte %ld outside the copy: 0x%02x",
					 i, rp[i]);
	}
	munmap(rp, BD_MAP);
	munmap(dp, BD_MAP);
	close(rfd);
	close(dfd);
}

TEST(region_out_ioctl_sync)
{
	bd_region_case(1, BD_IOCTL, 0, 11);
}

TEST(region_out_sysfs_sync)
{
	bd_region_case(1, BD_SYSFS, 8 * 4096, 12);
}

TEST(region_in_ioctl_sync)
{
	bd_region_case(0, BD_IOCTL, 4096, 13);
}

TEST(region_in_sysfs_sync)
{
	bd_region_case(0, BD_SYSFS, 0, 14);
}

/* The peer refuses what it must not do, before the engine sees it. */
TEST(peer_rejects_bad_copies)
{
	uint64_t d = ut_get(BD_DST, "phys_addr", 16);

	EXPECT_EQ(bd_copy(d, d + 4096, 0, 0), -EINVAL);
	EXPECT_EQ(bd_copy(d, d + 4096, 16, 1), -EINVAL);
	EXPECT_EQ(bd_copy(~0ULL - 8, d, 16, 0), -EINVAL);
	EXPECT_EQ(bd_copy(d, ~0ULL - 8, 16, 0), -EINVAL);
	EXPECT_EQ(bd_copy(d, d + 4096, (64 << 20) + 1ULL, 0), -EINVAL);
}

/* The width of the engine's DMA mask, the third word the peer reads back. */
static unsigned int bd_mask_bits(void)
{
	char info[128], chan[64], dev[64];
	unsigned int bits = 0;
	int fd = open(BD_DEV, O_RDONLY);
	ssize_t n;

	UT_CHECK(fd >= 0, 1, "open %s: %s", BD_DEV, strerror(errno));
	n = read(fd, info, sizeof(info) - 1);
	close(fd);
	UT_CHECK(n > 0, 1, "read %s: %s", BD_DEV, n < 0 ? strerror(errno) : "empty");
	info[n] = '\0';
	UT_CHECK(sscanf(info, "%63s %63s %u", chan, dev, &bits) == 3 && bits && bits <= 64, 1,
		 "%s reads \"%s\": no mask width", BD_DEV, info);
	return bits;
}

/* Nor does it give the engine an address its DMA mask does not cover. */
TEST(peer_rejects_beyond_dma_mask)
{
	uint64_t d = ut_get(BD_DST, "phys_addr", 16);
	unsigned int bits = bd_mask_bits();

	if (bits == 64)
		SKIP("the engine's DMA mask is 64 bits: no address lies beyond it");
	EXPECT_EQ(bd_copy(1ULL << bits, d, 16, 0), -EINVAL);
	EXPECT_EQ(bd_copy(d, 1ULL << bits, 16, 0), -EINVAL);
	/* a range that starts inside the mask and ends past it */
	EXPECT_EQ(bd_copy((1ULL << bits) - 8, d, 16, 0), -EINVAL);
}

TEST_HARNESS_MAIN
