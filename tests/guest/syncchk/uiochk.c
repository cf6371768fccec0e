// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * uiochk: uiomem's sync checker (docs/sync-checker.md) on the region
 * $UIOMEM_DEV (suite.sh makes it over 64 KiB of the ivshmem BAR).
 *
 * Each test switches the region's checker off and on again (every page the
 * CPU's), zeroes its counters, maps the whole region, runs a deliberately
 * wrong or a correct program and judges it by what the checker must leave:
 * the SIGBUS and its si_addr or EBUSY (strict), the kernel message and its
 * offset (report), and the ownership_violations and redundant_syncs
 * counters.  Switching the checker on starts its messages' rate limit anew,
 * so each test has ten to spend.  The "off" variant runs the wrong programs with the checker off:
 * nothing may be caught.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/dma-buf.h>
#include <linux/uiomem.h>

#include "harness.h"
#include "sc-common.h"

#define UC_PAGE		0x1000u

static const char *uc_dev(void)
{
	const char *d = getenv("UIOMEM_DEV");

	return d && *d ? d : "uiomem0";
}

static int uc_attr_write(const char *attr, const char *val)
{
	char path[256];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "/sys/class/uiomem/%s/%s", uc_dev(), attr);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static int uc_attr_read(const char *attr, char *buf, size_t len)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/sys/class/uiomem/%s/%s", uc_dev(), attr);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	return 0;
}

static long long uc_get(const char *attr)
{
	char s[64];

	return uc_attr_read(attr, s, sizeof(s)) ? -1 : strtoll(s, NULL, 0);
}

/* A packed sync_for_cpu / sync_for_device command. */
static int uc_sync(int for_device, uint64_t off, uint64_t size, unsigned int dir)
{
	char s[32];

	snprintf(s, sizeof(s), "0x%llx", (unsigned long long)
		 (off << 32 | (size & 0xFFFFFFF0u) | (uint64_t)dir << 2 | 1));
	return uc_attr_write(for_device ? "sync_for_device" : "sync_for_cpu", s);
}

FIXTURE(uc) {
	int fd;
	size_t size;
	uint8_t *map;
	int strict;
	int off;
};

FIXTURE_VARIANT(uc) {
	const char *mode;
};

FIXTURE_VARIANT_ADD(uc, report) { .mode = "report" };
FIXTURE_VARIANT_ADD(uc, strict) { .mode = "strict" };
FIXTURE_VARIANT_ADD(uc, off) { .mode = "off" };

FIXTURE_SETUP(uc)
{
	char s[32];

	self->map = MAP_FAILED;
	self->fd = -1;
	if (uc_attr_read("sync_check", s, sizeof(s)))
		SKIP("no %s with a sync_check attribute", uc_dev());
	ASSERT_EQ(uc_attr_write("sync_check", "off"), 0);
	ASSERT_EQ(uc_attr_write("sync_check", variant->mode), 0);
	ASSERT_EQ(uc_attr_read("sync_check", s, sizeof(s)), 0);
	s[strcspn(s, "\n")] = 0;
	ASSERT_EQ(strcmp(s, variant->mode), 0);
	ASSERT_EQ(uc_attr_write("ownership_violations", "0"), 0);
	ASSERT_EQ(uc_attr_write("redundant_syncs", "0"), 0);
	self->strict = !strcmp(variant->mode, "strict");
	self->off = !strcmp(variant->mode, "off");
	self->size = uc_get("size");
	ASSERT_GE(self->size, 0x10000);
	self->size = 0x10000;
	snprintf(s, sizeof(s), "/dev/%s", uc_dev());
	self->fd = open(s, O_RDWR);
	ASSERT_GE(self->fd, 0);
	self->map = mmap(NULL, self->size, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0);
	ASSERT_TRUE(self->map != MAP_FAILED);
	sc_catch_bus();
}

FIXTURE_TEARDOWN(uc)
{
	if (self->map != MAP_FAILED)
		munmap(self->map, self->size);
	if (self->fd >= 0)
		close(self->fd);
	uc_attr_write("sync_check", "off");
}

/*
 * A wrong access through the mapping at @off: strict takes SIGBUS at that
 * address, report goes on and names the offset; both count it.  Off: the
 * access goes on and nothing counts.
 */
static void uc_expect_caught(FIXTURE_DATA(uc) *self, size_t off, int write,
			     const char *what)
{
	long long before = uc_get("ownership_violations");
	int bus = sc_touch(self->map + off, write);

	if (self->off) {
		EXPECT_EQ(bus, 0);
		EXPECT_EQ(uc_get("ownership_violations"), before);
		return;
	}
	if (self->strict) {
		EXPECT_EQ(bus, 1);
		EXPECT_EQ((uintptr_t)sc_bus_addr, (uintptr_t)(self->map + off));
	} else {
		EXPECT_EQ(bus, 0);
		/* the message names the page's offset and the exact address */
		EXPECT_EQ(sc_msg_offset(uc_dev(), what), (long long)(off & ~(UC_PAGE - 1)));
	}
	EXPECT_EQ(uc_get("ownership_violations"), before + 1);
}

/* An access the checker must let through, whatever the mode. */
static void uc_expect_clean(FIXTURE_DATA(uc) *self, size_t off, int write)
{
	long long before = uc_get("ownership_violations");

	EXPECT_EQ(sc_touch(self->map + off, write), 0);
	EXPECT_EQ(uc_get("ownership_violations"), before);
}

/* Missing sync for the CPU: the device still owns what the CPU reads. */
TEST_F(uc, read_without_sync_for_cpu)
{
	memset(self->map, 1, self->size);
	ASSERT_EQ(uc_sync(1, 0, self->size, 0), 0);
	uc_expect_caught(self, 0x2000, 0, "CPU read");
	/* The rest of the range stays the device's. */
	uc_expect_caught(self, 0x7000, 1, "CPU write");
}

/* A write after the sync to the device: data the device never sees. */
TEST_F(uc, write_after_sync_to_device)
{
	memset(self->map, 1, self->size);
	ASSERT_EQ(uc_sync(1, 0, self->size, 1), 0);
	/* The device reads it: the CPU may read too, write-protected. */
	uc_expect_clean(self, 0x3000, 0);
	uc_expect_caught(self, 0x3000, 1, "CPU write");
}

/* The CPU takes back the wrong range: the page it uses stays the device's. */
TEST_F(uc, wrong_range)
{
	ASSERT_EQ(uc_sync(1, 0x4000, UC_PAGE, 0), 0);
	ASSERT_EQ(uc_sync(0, 0x5000, UC_PAGE, 0), 0);
	/* a sync for the CPU of what the CPU owns: counted, no error */
	EXPECT_EQ(uc_get("redundant_syncs"), self->off ? 0 : 1);
	uc_expect_clean(self, 0x5000, 1);
	uc_expect_caught(self, 0x4000 + 0x10, 1, "CPU write");
}

/* The UIOMEM_IOCTL_SYNC brackets mark the owners as sysfs does. */
TEST_F(uc, ioctl_sync_end)
{
	struct uiomem_sync s = { .flags = UIOMEM_SYNC_END | UIOMEM_SYNC_RW,
				 .offset = 0x8000, .length = 0x2000 };

	ASSERT_EQ(ioctl(self->fd, UIOMEM_IOCTL_SYNC, &s), 0);
	uc_expect_clean(self, 0x7000, 1);
	uc_expect_caught(self, 0x9000, 0, "CPU read");
	s.flags = UIOMEM_SYNC_START | UIOMEM_SYNC_RW;
	ASSERT_EQ(ioctl(self->fd, UIOMEM_IOCTL_SYNC, &s), 0);
	uc_expect_clean(self, 0x8000, 1);
	EXPECT_EQ(uc_get("redundant_syncs"), 0);
}

/* read() and write() of a range the device owns. */
TEST_F(uc, read_write_of_owned_range)
{
	long long before = uc_get("ownership_violations");
	uint8_t buf[UC_PAGE];
	ssize_t n;

	ASSERT_EQ(uc_sync(1, 0x6000, UC_PAGE, 0), 0);
	/* the copy starts before the owned page: caught at the page */
	n = pread(self->fd, buf, sizeof(buf), 0x5800);
	if (self->strict) {
		EXPECT_EQ(n, -1);
		EXPECT_EQ(errno, EBUSY);
	} else {
		EXPECT_EQ(n, (ssize_t)sizeof(buf));
	}
	if (!self->off && !self->strict)
		EXPECT_EQ(sc_msg_offset(uc_dev(), "read()"), 0x6000);
	n = pwrite(self->fd, buf, sizeof(buf), 0x6000);
	if (self->strict) {
		EXPECT_EQ(n, -1);
		EXPECT_EQ(errno, EBUSY);
	} else {
		EXPECT_EQ(n, (ssize_t)sizeof(buf));
	}
	if (!self->off && !self->strict)
		EXPECT_EQ(sc_msg_offset(uc_dev(), "write()"), 0x6000);
	EXPECT_EQ(uc_get("ownership_violations"), before + (self->off ? 0 : 2));
	/* next to it: clean */
	EXPECT_EQ(pread(self->fd, buf, sizeof(buf), 0x5000), (ssize_t)sizeof(buf));
	EXPECT_EQ(pwrite(self->fd, buf, sizeof(buf), 0x7000), (ssize_t)sizeof(buf));
	EXPECT_EQ(uc_get("ownership_violations"), before + (self->off ? 0 : 2));
}

/* write() is refused after a sync to the device too; read() is not. */
TEST_F(uc, write_of_range_the_device_reads)
{
	long long before = uc_get("ownership_violations");
	uint8_t buf[64];

	ASSERT_EQ(uc_sync(1, 0xa000, UC_PAGE, 1), 0);
	EXPECT_EQ(pread(self->fd, buf, sizeof(buf), 0xa000), (ssize_t)sizeof(buf));
	EXPECT_EQ(uc_get("ownership_violations"), before);
	EXPECT_EQ(pwrite(self->fd, buf, sizeof(buf), 0xa040),
		  self->strict ? -1 : (ssize_t)sizeof(buf));
	EXPECT_EQ(uc_get("ownership_violations"), before + (self->off ? 0 : 1));
}

/* An export's begin_cpu_access over a range a sync of the region gave away. */
TEST_F(uc, export_begin_cpu_over_owned_range)
{
	struct uiomem_export e = { .flags = O_RDWR | O_CLOEXEC, .offset = 0xc000,
				   .size = 0x2000 };
	struct dma_buf_sync ds = { .flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW };
	long long before = uc_get("ownership_violations");
	int ret;

	if (ioctl(self->fd, UIOMEM_IOCTL_EXPORT, &e)) {
		if (errno == EOPNOTSUPP || errno == ENOTTY)
			SKIP("no DMA-BUF export here (%s)", strerror(errno));
		ASSERT_EQ(errno, 0);
	}
	/* the export's own brackets hand over and back: clean */
	ds.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW;
	EXPECT_EQ(ioctl(e.fd, DMA_BUF_IOCTL_SYNC, &ds), 0);
	ds.flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW;
	EXPECT_EQ(ioctl(e.fd, DMA_BUF_IOCTL_SYNC, &ds), 0);
	EXPECT_EQ(uc_get("ownership_violations"), before);
	/* sysfs gives 0xd000 to the device: the export may not take it */
	ASSERT_EQ(uc_sync(1, 0xd000, UC_PAGE, 0), 0);
	ret = ioctl(e.fd, DMA_BUF_IOCTL_SYNC, &ds);
	if (self->strict) {
		EXPECT_EQ(ret, -1);
		EXPECT_EQ(errno, EBUSY);
	} else {
		EXPECT_EQ(ret, 0);
	}
	if (!self->off && !self->strict)
		EXPECT_EQ(sc_msg_offset(uc_dev(), "dma-buf begin_cpu_access"), 0xd000);
	EXPECT_EQ(uc_get("ownership_violations"), before + (self->off ? 0 : 1));
	close(e.fd);
}

/* A correct program: nothing caught, nothing redundant. */
TEST_F(uc, correct_program_runs_clean)
{
	uint8_t buf[256];
	int i;

	for (i = 0; i < 3; i++) {
		memset(self->map, i, self->size);
		ASSERT_EQ(uc_sync(1, 0, self->size, 0), 0);
		/* the device works here */
		ASSERT_EQ(uc_sync(0, 0, self->size, 0), 0);
		EXPECT_EQ(self->map[0x1234], i);
		EXPECT_EQ(pread(self->fd, buf, sizeof(buf), 0x4000), (ssize_t)sizeof(buf));
		EXPECT_EQ(buf[0], i);
		EXPECT_EQ(pwrite(self->fd, buf, sizeof(buf), 0x4100), (ssize_t)sizeof(buf));
		ASSERT_EQ(uc_sync(1, 0, self->size, 1), 0);
		EXPECT_EQ(self->map[0x8000], i);
		ASSERT_EQ(uc_sync(0, 0, self->size, 1), 0);
	}
	EXPECT_EQ(uc_get("ownership_violations"), 0);
	EXPECT_EQ(uc_get("redundant_syncs"), 0);
}

/* A sync for the CPU without one for the device before it: counted, no error. */
TEST_F(uc, redundant_sync_for_cpu)
{
	ASSERT_EQ(uc_sync(0, 0, UC_PAGE, 0), 0);
	ASSERT_EQ(uc_sync(0, 0x3000, 0x100, 2), 0);
	EXPECT_EQ(uc_get("redundant_syncs"), self->off ? 0 : 2);
	EXPECT_EQ(uc_get("ownership_violations"), 0);
	ASSERT_EQ(uc_attr_write("redundant_syncs", "0"), 0);
	EXPECT_EQ(uc_get("redundant_syncs"), 0);
	EXPECT_EQ(uc_attr_write("redundant_syncs", "3"), -EINVAL);
}

TEST(uc_bad_mode_refused)
{
	char s[32];

	if (uc_attr_read("sync_check", s, sizeof(s)))
		SKIP("no %s with a sync_check attribute", uc_dev());
	EXPECT_EQ(uc_attr_write("sync_check", "loud"), -EINVAL);
	EXPECT_EQ(uc_attr_write("sync_check", "3"), -EINVAL);
	EXPECT_EQ(uc_attr_write("sync_check", "2"), 0);
	ASSERT_EQ(uc_attr_read("sync_check", s, sizeof(s)), 0);
	EXPECT_EQ(strcmp(s, "strict\n"), 0);
	EXPECT_EQ(uc_attr_write("sync_check", "off"), 0);
}

TEST_HARNESS_MAIN
