// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * udmabuf-keep - keep-contents, a udmem addition (u-dma-buf issue #55): a
 * buffer that is its device's no-map memory-region and starts with what the
 * memory held, through the manager keyword and the device-tree property;
 * and, to show the difference, a pool buffer that is zeroed when it is made
 * again at the same address.  The refusals run everywhere; the rest needs
 * the nodes of tests/qemu/dt/10-u-dma-buf.dtsi, which dt.sh names in:
 *   UDMABUF_KEEP_PARENT, UDMABUF_KEEP_PARENT_BASE  a driverless device and
 *                                                  its carve-out's address
 *   UDMABUF_KEEP_PDEV, UDMABUF_KEEP_BASE           udmabuf-dt-keep's device
 *   UDMABUF_POOL_PDEV                              udmabuf-dt-nomap's device
 */
#define _FILE_OFFSET_BITS 64
#include <stdarg.h>
#include <sys/mman.h>

#include "udmabuf-test.h"

#define UT_MGR		"/dev/u-dma-buf-mgr"
#define UT_DRV		"/sys/bus/platform/drivers/u-dma-buf"
#define UT_KEEP_SIZE	0x10000

/* One manager command on a fresh open: 0 or -errno. */
static int ut_mgr(const char *fmt, ...)
{
	char cmd[256];
	va_list ap;
	ssize_t n;
	int fd, err = 0;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	fd = open(UT_MGR, O_WRONLY);
	UT_CHECK(fd >= 0, 1, "open %s: %s", UT_MGR, strerror(errno));
	n = write(fd, cmd, strlen(cmd));
	if (n < 0)
		err = -errno;
	close(fd);
	return err;
}

static int ut_exists(const char *name)
{
	return ut_sysfs_exists(UT_UDMABUF_CLASS, name);
}

static void ut_drop(const char *name)
{
	if (ut_exists(name))
		ut_mgr("delete %s\n", name);
}

/* The variable, or SKIP: the test needs a device-tree node. */
static const char *ut_need(const char *var)
{
	const char *s = getenv(var);

	if (!s || !*s)
		SKIP("%s is not set: no device tree with the keep-contents nodes", var);
	return s;
}

static void ut_write_pattern(const char *dev, unsigned int seed)
{
	char *b = malloc(UT_KEEP_SIZE);
	int fd = ut_open(dev, O_RDWR);

	ASSERT_TRUE(b);
	ut_fill(b, UT_KEEP_SIZE, 0, seed);
	ASSERT_EQ(ut_pwrite_all(fd, b, UT_KEEP_SIZE, 0), 0);
	close(fd);
	free(b);
}

/* Through a mapping: the pattern (seed > 0) or zeros (seed 0). */
static void ut_expect_contents(const char *dev, unsigned int seed)
{
	int fd = ut_open(dev, O_RDWR);
	uint8_t *p;
	size_t i;

	p = mmap(NULL, UT_KEEP_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	if (seed) {
		ASSERT_PATTERN(p, UT_KEEP_SIZE, 0, seed);
	} else {
		for (i = 0; i < UT_KEEP_SIZE && !p[i]; i++)
			;
		UT_CHECK(i == UT_KEEP_SIZE, 0, "byte %zu is 0x%02x, want every byte zero",
			 i, i < UT_KEEP_SIZE ? p[i] : 0);
	}
	munmap(p, UT_KEEP_SIZE);
	close(fd);
}

/* Write s to the file at path in one write(); 0 or -errno. */
static int ut_write_path(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		err = -errno;
	close(fd);
	return err;
}

/* Unbind and bind the platform device: the buffer is made again. */
static void ut_rebind(const char *pdev)
{
	ASSERT_EQ(ut_write_path(UT_DRV "/unbind", pdev), 0);
	ASSERT_EQ(ut_write_path(UT_DRV "/bind", pdev), 0);
}

static unsigned int ut_seed(void)
{
	return (unsigned int)getpid() | 1;
}

/* Every way to ask without a no-map memory-region is refused, leaving nothing. */
TEST(mgr_keep_contents_without_region_einval)
{
	ut_drop("ut-k0");
	EXPECT_EQ(ut_mgr("create ut-k0 0x10000 keep-contents\n"), -EINVAL);
	EXPECT_FALSE(ut_exists("ut-k0"));
}

TEST(mgr_keep_contents_keyword_is_exact)
{
	ut_drop("ut-k0");
	EXPECT_EQ(ut_mgr("create ut-k0 0x10000 keep-contentsX\n"), -EINVAL);
	EXPECT_EQ(ut_mgr("create ut-k0 0x10000 keep\n"), -EINVAL);
	EXPECT_FALSE(ut_exists("ut-k0"));
}

/* Contents written before a delete are there after the next create. */
TEST(mgr_keep_contents_survives_delete_create)
{
	const char *parent = ut_need("UDMABUF_KEEP_PARENT");
	uint64_t base = strtoull(ut_need("UDMABUF_KEEP_PARENT_BASE"), NULL, 0);
	unsigned int seed = ut_seed();

	ut_drop("ut-k1");
	ASSERT_EQ(ut_mgr("create ut-k1 0x10000 device=%s keep-contents\n", parent), 0);
	EXPECT_EQ(ut_get("ut-k1", "phys_addr", 16), base);
	ut_write_pattern("ut-k1", seed);
	ASSERT_EQ(ut_mgr("delete ut-k1\n"), 0);
	ASSERT_EQ(ut_mgr("create ut-k1 0x10000 device=%s keep-contents\n", parent), 0);
	EXPECT_EQ(ut_get("ut-k1", "phys_addr", 16), base);
	ut_expect_contents("ut-k1", seed);
	ASSERT_EQ(ut_mgr("delete ut-k1\n"), 0);
}

/* The region is one buffer's at a time; a region too small is refused. */
TEST(mgr_keep_contents_region_claimed_ebusy)
{
	const char *parent = ut_need("UDMABUF_KEEP_PARENT");

	ut_drop("ut-k1");
	ut_drop("ut-k2");
	ASSERT_EQ(ut_mgr("create ut-k1 0x10000 device=%s keep-contents\n", parent), 0);
	EXPECT_EQ(ut_mgr("create ut-k2 0x10000 device=%s keep-contents\n", parent), -EBUSY);
	EXPECT_FALSE(ut_exists("ut-k2"));
	ASSERT_EQ(ut_mgr("delete ut-k1\n"), 0);
	/* the carve-out is 1 MiB */
	EXPECT_EQ(ut_mgr("create ut-k2 0x200000 device=%s keep-contents\n", parent), -ENOMEM);
	EXPECT_FALSE(ut_exists("ut-k2"));
}

/* The device-tree property: contents survive unbind and bind. */
TEST(dt_keep_contents_survives_rebind)
{
	const char *pdev = ut_need("UDMABUF_KEEP_PDEV");
	uint64_t base = strtoull(ut_need("UDMABUF_KEEP_BASE"), NULL, 0);
	unsigned int seed = ut_seed();

	EXPECT_EQ(ut_get("udmabuf-dt-keep", "phys_addr", 16), base);
	ut_write_pattern("udmabuf-dt-keep", seed);
	ut_rebind(pdev);
	EXPECT_EQ(ut_get("udmabuf-dt-keep", "phys_addr", 16), base);
	ut_expect_contents("udmabuf-dt-keep", seed);
}

/*
 * Without keep-contents: a pool buffer made again at the same address is
 * zeroed (by the DMA API), so the test above can fail.
 */
TEST(dt_pool_without_keep_contents_zeroed_on_rebind)
{
	const char *pdev = ut_need("UDMABUF_POOL_PDEV");
	uint64_t before, after;

	before = ut_get("udmabuf-dt-nomap", "phys_addr", 16);
	ut_write_pattern("udmabuf-dt-nomap", ut_seed());
	ut_rebind(pdev);
	after = ut_get("udmabuf-dt-nomap", "phys_addr", 16);
	ASSERT_EQ(after, before);
	ut_expect_contents("udmabuf-dt-nomap", 0);
}

TEST_HARNESS_MAIN
