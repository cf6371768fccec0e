// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * syncchk: u-dma-buf's sync checker (docs/sync-checker.md).
 *
 * Each test makes its own 64 KiB buffer through u-dma-buf-mgr (mmap mode
 * on or page, sync-check=report or strict), runs a deliberately wrong or
 * a correct program against it, and judges it by what the checker must
 * leave: the SIGBUS and its si_addr (strict), the kernel message parsed
 * from the log and its offset (report), and the ownership_violations and
 * redundant_syncs counters.  The races check only that nothing breaks
 * (the guest's log scan catches KASAN, lockdep and warnings).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#include <linux/dma-buf.h>

#include "harness.h"
#include "udmabuf-test.h"
#include "sc-common.h"

#define SC_SIZE		0x10000u
#define SC_MGR		"/dev/u-dma-buf-mgr"

static int sc_mgr(const char *fmt, ...)
{
	char cmd[256];
	va_list ap;
	ssize_t n;
	int fd;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	fd = open(SC_MGR, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, cmd, strlen(cmd));
	n = n < 0 ? -errno : 0;
	close(fd);
	return n;
}

/* A sync command value: offset, size, direction packed (sysfs format). */
static uint64_t sc_packed(uint64_t off, uint64_t size, unsigned int dir)
{
	return off << 32 | (size & 0xFFFFFFF0u) | (uint64_t)dir << 2 | 1;
}

static void sc_sync(const char *name, int for_device, uint64_t off, uint64_t size,
		    unsigned int dir)
{
	ut_set(name, for_device ? "sync_for_device" : "sync_for_cpu",
	       sc_packed(off, size, dir));
}

FIXTURE(chk) {
	char name[64];
	int fd;
	uint8_t *map;
	int strict;
	int page;
};

FIXTURE_VARIANT(chk) {
	const char *mode;	/* sync-check= */
	const char *mmap_mode;	/* quirk-mmap-... */
};

FIXTURE_VARIANT_ADD(chk, report) { .mode = "report", .mmap_mode = "on" };
FIXTURE_VARIANT_ADD(chk, strict) { .mode = "strict", .mmap_mode = "on" };
FIXTURE_VARIANT_ADD(chk, page_strict) { .mode = "strict", .mmap_mode = "page" };

FIXTURE_SETUP(chk)
{
	char s[32];
	int err;

	snprintf(self->name, sizeof(self->name), "udmem-sc-%d", (int)getpid());
	ut_cleanup_buffer("udmem-sc-*");
	err = sc_mgr("create %s 0x%x quirk-mmap-%s sync-check=%s\n", self->name, SC_SIZE,
		     variant->mmap_mode, variant->mode);
	ASSERT_EQ(err, 0);
	ASSERT_EQ(ut_attr_read(self->name, "sync_check", s, sizeof(s)), 0);
	if (!strcmp(s, "off\n"))
		SKIP("the checker could not be switched on for mmap mode %s", variant->mmap_mode);
	s[strcspn(s, "\n")] = 0;
	ASSERT_EQ(strcmp(s, variant->mode), 0);
	self->strict = !strcmp(variant->mode, "strict");
	self->page = !strcmp(variant->mmap_mode, "page");
	self->fd = ut_open(self->name, O_RDWR);
	self->map = mmap(NULL, SC_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0);
	ASSERT_TRUE(self->map != MAP_FAILED);
	sc_catch_bus();
}

FIXTURE_TEARDOWN(chk)
{
	if (self->map && self->map != MAP_FAILED)
		munmap(self->map, SC_SIZE);
	if (self->fd > 0)
		close(self->fd);
	if (self->name[0])
		sc_mgr("delete %s\n", self->name);
}

/*
 * A wrong access at @off: strict takes SIGBUS at that address and counts
 * it; report goes on, counts it and names the offset in its message.
 */
static void sc_expect_caught(FIXTURE_DATA(chk) *self, size_t off, int write,
			     const char *what)
{
	uint64_t before = ut_get(self->name, "ownership_violations", 10);
	int bus = sc_touch(self->map + off, write);

	if (self->strict) {
		EXPECT_EQ(bus, 1);
		EXPECT_EQ((uintptr_t)sc_bus_addr, (uintptr_t)(self->map + off));
	} else {
		EXPECT_EQ(bus, 0);
		/* After a race the messages may be rate limited: the count says it. */
		if (what)
			EXPECT_EQ(sc_msg_offset(self->name, what), (long long)off);
	}
	EXPECT_EQ(ut_get(self->name, "ownership_violations", 10), before + 1);
}

/* Missing sync for the CPU: the device still owns what the CPU reads. */
TEST_F(chk, read_without_sync_for_cpu)
{
	memset(self->map, 1, SC_SIZE);
	sc_sync(self->name, 1, 0, SC_SIZE, 0);
	sc_expect_caught(self, 0x2000, 0, "CPU read");
}

/* A write after the sync to the device: data the device never sees. */
TEST_F(chk, write_after_sync_for_device)
{
	memset(self->map, 1, SC_SIZE);
	sc_sync(self->name, 1, 0, SC_SIZE, 1);
	/*
	 * The device reads it: the CPU may read too, and its pages come back
	 * write-protected (in page mode a read maps the page writable: the
	 * write is caught as the first touch only, docs/sync-checker.md).
	 */
	EXPECT_EQ(sc_touch(self->map + 0x3000 + (self->page ? 0x1000 : 0), 0), 0);
	EXPECT_EQ(ut_get(self->name, "ownership_violations", 10), 0);
	sc_expect_caught(self, 0x3000, 1, "CPU write");
}

/* The wrong range handed back: [0, 4K) of [0, 16K), then a touch at 8K. */
TEST_F(chk, wrong_range)
{
	sc_sync(self->name, 1, 0, 0x4000, 0);
	sc_sync(self->name, 0, 0, 0x1000, 0);
	EXPECT_EQ(sc_touch(self->map + 0x800, 0), 0);
	sc_expect_caught(self, 0x2000, 0, "CPU read");
	/* Past the range the device got: the CPU's. */
	EXPECT_EQ(sc_touch(self->map + 0x8000, 1), 0);
	EXPECT_EQ(ut_get(self->name, "ownership_violations", 10), 1);
}

/* The protocol done right, by sysfs and by ioctl: nothing to report. */
TEST_F(chk, correct_program_clean)
{
	struct ut_sync_args a;
	int i;

	for (i = 0; i < 8; i++) {
		memset(self->map, i, SC_SIZE);
		sc_sync(self->name, 1, 0, SC_SIZE, 0);
		sc_sync(self->name, 0, 0, SC_SIZE, 0);
		ASSERT_EQ(self->map[0x2000], i);
		memset(&a, 0, sizeof(a));
		a.flags = UT_SYNC_FLAGS(UT_SYNC_CMD_FOR_DEVICE, 0, 0);
		a.offset = 0x1000;
		a.size = 0x2000;
		ASSERT_EQ(ioctl(self->fd, UT_SET_SYNC, &a), 0);
		self->map[0x8000] = i;	/* outside the device's range */
		a.flags = UT_SYNC_FLAGS(UT_SYNC_CMD_FOR_CPU, 0, 0);
		ASSERT_EQ(ioctl(self->fd, UT_SET_SYNC, &a), 0);
		self->map[0x1000] = i;
	}
	EXPECT_EQ(ut_get(self->name, "ownership_violations", 10), 0);
	EXPECT_EQ(ut_get(self->name, "redundant_syncs", 10), 0);
}

/* A sync for the CPU with no sync for the device before it. */
TEST_F(chk, redundant_sync_for_cpu_counted)
{
	sc_sync(self->name, 0, 0, SC_SIZE, 0);
	sc_sync(self->name, 1, 0, 0x1000, 0);
	sc_sync(self->name, 0, 0, 0x1000, 0);
	EXPECT_EQ(ut_get(self->name, "redundant_syncs", 10), 1);
	EXPECT_EQ(ut_get(self->name, "ownership_violations", 10), 0);
	/* only 0 resets; anything else is refused and changes nothing */
	EXPECT_EQ(ut_attr_write(self->name, "redundant_syncs", "5"), -EINVAL);
	EXPECT_EQ(ut_attr_write(self->name, "ownership_violations", "x"), -EINVAL);
	EXPECT_EQ(ut_get(self->name, "redundant_syncs", 10), 1);
	ASSERT_EQ(ut_attr_write(self->name, "redundant_syncs", "0"), 0);
	EXPECT_EQ(ut_get(self->name, "redundant_syncs", 10), 0);
	EXPECT_EQ(ut_get(self->name, "ownership_violations", 10), 0);
}

/* read() and write() of what the device owns: EBUSY (strict) or counted. */
TEST_F(chk, read_write_of_device_owned)
{
	char b[16];
	ssize_t n;

	sc_sync(self->name, 1, 0x4000, 0x1000, 0);
	n = pread(self->fd, b, sizeof(b), 0x4008);
	if (self->strict) {
		EXPECT_EQ(n, -1);
		EXPECT_EQ(errno, EBUSY);
	} else {
		EXPECT_EQ(n, (ssize_t)sizeof(b));
		EXPECT_EQ(sc_msg_offset(self->name, "read()"), 0x4008);
	}
	EXPECT_EQ(ut_get(self->name, "ownership_violations", 10), 1);
	/* The CPU's pages on either side are fine. */
	EXPECT_EQ(pread(self->fd, b, sizeof(b), 0x3000), (ssize_t)sizeof(b));
	EXPECT_EQ(pwrite(self->fd, b, sizeof(b), 0x5000), (ssize_t)sizeof(b));
	n = pwrite(self->fd, b, sizeof(b), 0x4ff8);
	if (self->strict)
		EXPECT_EQ(n, -1);
	else
		EXPECT_EQ(n, (ssize_t)sizeof(b));
	EXPECT_EQ(ut_get(self->name, "ownership_violations", 10), 2);
}

/* An export's end_cpu_access gives it to the device; its mapping faults. */
TEST_F(chk, dmabuf_end_cpu_access_then_touch)
{
	struct ut_export_args e;
	struct dma_buf_sync s;
	uint8_t *m;

	memset(&e, 0, sizeof(e));
	e.flags = O_RDWR | O_CLOEXEC;
	e.offset = 0x4000;
	e.size = 0x4000;
	if (ioctl(self->fd, UT_EXPORT, &e))
		SKIP("no DMA-BUF export here: %s", strerror(errno));
	m = mmap(NULL, 0x4000, PROT_READ | PROT_WRITE, MAP_SHARED, e.fd, 0);
	ASSERT_TRUE(m != MAP_FAILED);
	s.flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW;
	ASSERT_EQ(ioctl(e.fd, DMA_BUF_IOCTL_SYNC, &s), 0);
	m[0x1000] = 1;
	s.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW;
	ASSERT_EQ(ioctl(e.fd, DMA_BUF_IOCTL_SYNC, &s), 0);
	/* Through the export's mapping and through /dev's: both are gone. */
	sc_expect_caught(self, 0x5000, 0, "CPU read");
	EXPECT_EQ(sc_touch(m + 0x2000, 0), self->strict);
	/* Its begin_cpu_access gives it back: no complaint. */
	s.flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW;
	ASSERT_EQ(ioctl(e.fd, DMA_BUF_IOCTL_SYNC, &s), 0);
	EXPECT_EQ(sc_touch(m + 0x3000, 1), 0);
	munmap(m, 0x4000);
	close(e.fd);
}

/* begin_cpu_access while a sync of /dev's gave the range to the device. */
TEST_F(chk, dmabuf_begin_cpu_access_while_device_owns)
{
	struct ut_export_args e;
	struct dma_buf_sync s;
	int ret;

	memset(&e, 0, sizeof(e));
	e.flags = O_RDWR | O_CLOEXEC;
	e.offset = 0;
	e.size = 0x4000;
	if (ioctl(self->fd, UT_EXPORT, &e))
		SKIP("no DMA-BUF export here: %s", strerror(errno));
	sc_sync(self->name, 1, 0x2000, 0x1000, 0);
	s.flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ;
	ret = ioctl(e.fd, DMA_BUF_IOCTL_SYNC, &s);
	if (self->strict) {
		EXPECT_EQ(ret, -1);
		EXPECT_EQ(errno, EBUSY);
	} else {
		EXPECT_EQ(ret, 0);
		EXPECT_EQ(sc_msg_offset(self->name, "begin_cpu_access"), 0x2000);
	}
	EXPECT_EQ(ut_get(self->name, "ownership_violations", 10), 1);
	close(e.fd);
}

/* Syncs from one thread while another touches: no crash, no hang. */
struct sc_race {
	FIXTURE_DATA(chk) *self;
	volatile int stop;
};

static void *sc_race_syncer(void *arg)
{
	struct sc_race *r = arg;
	int i;

	for (i = 0; i < 200 && !r->stop; i++) {
		sc_sync(r->self->name, 1, (i % 8) * 0x1000, 0x2000, i % 3);
		sc_sync(r->self->name, 0, (i % 8) * 0x1000, 0x2000, i % 3);
		ut_progress();
	}
	r->stop = 1;
	return NULL;
}

/* After a race: every page the CPU's again, and a wrong touch still caught. */
static void sc_still_checks(FIXTURE_DATA(chk) *self)
{
	sc_sync(self->name, 0, 0, SC_SIZE, 0);
	ASSERT_EQ(ut_attr_write(self->name, "ownership_violations", "0"), 0);
	EXPECT_EQ(sc_touch(self->map + 0x1000, 1), 0);
	sc_sync(self->name, 1, 0x7000, 0x1000, 0);
	sc_expect_caught(self, 0x7000, 0, NULL);
}

TEST_F(chk, race_sync_vs_touch)
{
	struct sc_race r = { .self = self };
	pthread_t t;
	unsigned int i = 0;

	if (self->strict)
		SKIP("touching during syncs takes SIGBUS in strict mode by design");
	ASSERT_EQ(pthread_create(&t, NULL, sc_race_syncer, &r), 0);
	while (!r.stop) {
		self->map[(i * 0x1000 + 64) % SC_SIZE] = (uint8_t)i;
		(void)self->map[(i * 0x1700) % SC_SIZE];
		i++;
	}
	pthread_join(t, NULL);
	TH_LOG("%llu violations during the race",
	       (unsigned long long)ut_get(self->name, "ownership_violations", 10));
	sc_still_checks(self);
}

/* munmap(), mmap() and close() while another thread syncs. */
static void *sc_race_mapper(void *arg)
{
	struct sc_race *r = arg;
	uint8_t *m;
	int fd;

	while (!r->stop) {
		fd = ut_open(r->self->name, O_RDWR);
		m = mmap(NULL, SC_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		close(fd);
		if (m == MAP_FAILED)
			continue;
		if (!r->self->strict)
			m[0xc000] = 1;	/* never the device's */
		munmap(m, SC_SIZE);
	}
	return NULL;
}

TEST_F(chk, race_unmap_close_during_sync)
{
	struct sc_race r = { .self = self };
	pthread_t t;

	ASSERT_EQ(pthread_create(&t, NULL, sc_race_mapper, &r), 0);
	sc_race_syncer(&r);
	pthread_join(t, NULL);
	EXPECT_EQ(ut_get(self->name, "ownership_violations", 10), 0);
	sc_still_checks(self);
}

/* A buffer with the checker on deleted while its pages are the device's. */
TEST_F(chk, delete_while_device_owns)
{
	sc_sync(self->name, 1, 0, SC_SIZE, 0);
	munmap(self->map, SC_SIZE);
	self->map = NULL;
	EXPECT_EQ(sc_mgr("delete %s\n", self->name), -EBUSY);
	close(self->fd);
	self->fd = -1;
	EXPECT_EQ(sc_mgr("delete %s\n", self->name), 0);
	self->name[0] = 0;
}

/* Off: no zapping, no faults after a sync, counters stay 0. */
TEST(off_never_zaps)
{
	char name[64];
	struct rusage r0, r1;
	uint64_t pte0;
	uint8_t *m;
	int fd, i;

	snprintf(name, sizeof(name), "udmem-sc-off-%d", (int)getpid());
	ut_cleanup_buffer("udmem-sc-*");
	ASSERT_EQ(sc_mgr("create %s 0x%x quirk-mmap-on sync-check=off\n", name, SC_SIZE), 0);
	fd = ut_open(name, O_RDWR);
	m = mmap(NULL, SC_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_TRUE(m != MAP_FAILED);
	memset(m, 1, SC_SIZE);
	sc_sync(name, 1, 0, SC_SIZE, 0);	/* warm up: stack, libc buffers */
	pte0 = ut_get(name, "mmap_pte_entries", 10);
	getrusage(RUSAGE_SELF, &r0);
	for (i = 0; i < 4; i++) {
		sc_sync(name, 1, 0, SC_SIZE, 0);
		memset(m, i, SC_SIZE);		/* wrong, and unchecked */
		sc_sync(name, 0, 0, 0x1000, 0);
	}
	getrusage(RUSAGE_SELF, &r1);
	EXPECT_EQ(r1.ru_minflt - r0.ru_minflt, 0);
	EXPECT_EQ(ut_get(name, "mmap_pte_entries", 10), pte0);
	EXPECT_EQ(ut_get(name, "ownership_violations", 10), 0);
	EXPECT_EQ(ut_get(name, "redundant_syncs", 10), 0);
	munmap(m, SC_SIZE);
	close(fd);
	EXPECT_EQ(sc_mgr("delete %s\n", name), 0);
}

/* Switched at run time through sysfs; a bad value is refused. */
TEST(sysfs_switch)
{
	char name[64], s[32];

	snprintf(name, sizeof(name), "udmem-sc-sw-%d", (int)getpid());
	ut_cleanup_buffer("udmem-sc-*");
	ASSERT_EQ(sc_mgr("create %s 0x%x quirk-mmap-on\n", name, SC_SIZE), 0);
	ASSERT_EQ(ut_attr_read(name, "sync_check", s, sizeof(s)), 0);
	EXPECT_EQ(strcmp(s, "off\n"), 0);
	EXPECT_EQ(ut_attr_write(name, "sync_check", "strict"), 0);
	ASSERT_EQ(ut_attr_read(name, "sync_check", s, sizeof(s)), 0);
	EXPECT_EQ(strcmp(s, "strict\n"), 0);
	EXPECT_EQ(ut_attr_write(name, "sync_check", "1"), 0);
	ASSERT_EQ(ut_attr_read(name, "sync_check", s, sizeof(s)), 0);
	EXPECT_EQ(strcmp(s, "report\n"), 0);
	EXPECT_EQ(ut_attr_write(name, "sync_check", "loud"), -EINVAL);
	EXPECT_EQ(ut_attr_write(name, "ownership_violations", "3"), -EINVAL);
	EXPECT_EQ(sc_mgr("create %s-x 0x%x sync-check=loud\n", name, SC_SIZE), -EINVAL);
	EXPECT_EQ(sc_mgr("delete %s\n", name), 0);
}

TEST_HARNESS_MAIN
