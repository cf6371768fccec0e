// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * memtype.c - the memory type of each u-dma-buf mapping, as the page
 * tables hold it (tests/kmod/udmem-memtype.ko reads them), against the
 * table of docs/memory-types.md:
 *
 *   user mapping          coherent device    non-coherent, mode on/auto/page   non-coherent, mode off
 *   cached (no O_SYNC)    cacheable          cacheable                          as the DMA API: Normal-NC
 *   O_SYNC, sync_mode 1   device (UC-)       device                             Normal-NC
 *   O_SYNC, sync_mode 2   write-combine      write-combine                      Normal-NC
 *   O_SYNC, sync_mode 3   write-combine      write-combine                      Normal-NC
 *   sync_mode 6 (always)  write-combine      write-combine                      Normal-NC
 *   kernel alias          cacheable          cacheable (dma_alloc_noncoherent)   Normal-NC
 *
 * on arm64, where write-combine is Normal-NC and device Device-nGnRnE.  On
 * x86, every user mapping of RAM is write-back whatever was asked: the
 * kernel keeps one memory type per page of RAM (PAT), DMA is coherent, and
 * the driver's page mode follows the same rule.  The suite makes the buffers
 * with the manager (memtype-<coh|nc>-<mode>); a platform device the
 * manager makes is non-coherent on arm64 unless "dma-coherent" is given,
 * and always coherent on x86.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../kmod/udmem-memtype.h"
#include "harness.h"
#include "ut.h"

#define MT_LEN	0x10000

static const char *const mt_names[] = {
	[UDMEM_MT_CACHEABLE] = "cacheable",
	[UDMEM_MT_WRITE_THROUGH] = "write-through",
	[UDMEM_MT_NORMAL_NC] = "normal-nc",
	[UDMEM_MT_WRITE_COMBINE] = "write-combine",
	[UDMEM_MT_DEVICE] = "device",
	[UDMEM_MT_OTHER] = "other",
};

static const char *mt_name(uint32_t t)
{
	return t < sizeof(mt_names) / sizeof(mt_names[0]) && mt_names[t] ? mt_names[t] : "?";
}

/* sync_mode's attribute in bits 1:0, on this architecture. */
static uint32_t mt_arch_type(int mode)
{
#if defined(__aarch64__)
	static const uint32_t t[4] = { UDMEM_MT_CACHEABLE, UDMEM_MT_DEVICE,
				       UDMEM_MT_NORMAL_NC, UDMEM_MT_NORMAL_NC };
#else
	/*
	 * x86 gives RAM the memory type of the kernel's mapping, write-back,
	 * whatever a mapping asks (PAT: reserve_pfn_range(), track_pfn_insert());
	 * the driver's page mode does the same (udmabuf_mmap_range()).
	 */
	static const uint32_t t[4] = { UDMEM_MT_CACHEABLE, UDMEM_MT_CACHEABLE,
				       UDMEM_MT_CACHEABLE, UDMEM_MT_CACHEABLE };
#endif
	return t[mode & 3];
}

FIXTURE(mt) {
	int qfd;
	int coherent;
	int quirk;	/* quirk_mmap_mode: 1 off, 2 on, 3 auto, 4 page */
};

FIXTURE_VARIANT(mt) {
	const char *name;
};

FIXTURE_VARIANT_ADD(mt, coh_on) { .name = "memtype-coh-on" };
FIXTURE_VARIANT_ADD(mt, coh_off) { .name = "memtype-coh-off" };
FIXTURE_VARIANT_ADD(mt, nc_on) { .name = "memtype-nc-on" };
FIXTURE_VARIANT_ADD(mt, nc_off) { .name = "memtype-nc-off" };
FIXTURE_VARIANT_ADD(mt, nc_auto) { .name = "memtype-nc-auto" };
FIXTURE_VARIANT_ADD(mt, nc_page) { .name = "memtype-nc-page" };

FIXTURE_SETUP(mt)
{
	struct udmem_memtype q = { 0 };
	uint64_t v;

	self->qfd = open("/dev/udmem-memtype", O_RDWR);
	ASSERT_GE(self->qfd, 0);
	if (!ut_sysfs_exists("u-dma-buf", variant->name))
		SKIP("no buffer %s (the suite makes it with the manager)", variant->name);
	ASSERT_EQ(ut_sysfs_u64("u-dma-buf", variant->name, "dma_coherent", 0, &v), 0);
	self->coherent = (int)v;
	ASSERT_EQ(ut_sysfs_u64("u-dma-buf", variant->name, "quirk_mmap_mode", 0, &v), 0);
	self->quirk = (int)v;
	/* An architecture the helper cannot read: one SKIP per test. */
	q.addr = 0;
	snprintf(q.name, sizeof(q.name), "%s", variant->name);
	if (ioctl(self->qfd, UDMEM_MEMTYPE_QUERY, &q) < 0 && errno == EOPNOTSUPP)
		SKIP("udmem-memtype reads arm64 and x86_64 page tables only");
}

FIXTURE_TEARDOWN(mt)
{
	ut_sysfs_write("u-dma-buf", variant->name, "sync_mode", "1");
	if (self->qfd >= 0)
		close(self->qfd);
}

/* What a user mapping of this buffer in this sync_mode should be. */
static uint32_t mt_expect_user(int coherent, int quirk, int osync, int mode)
{
	if (!coherent && quirk == 1)
		return UDMEM_MT_NORMAL_NC;	/* dma_mmap_coherent(): dma_pgprot() */
	return mt_arch_type(osync || (mode & 4) ? mode : 0);
}

/* Map the buffer (O_SYNC or not) with @mode in sync_mode, touch, read the type. */
static int mt_user_type(int qfd, const char *name, int osync, int mode,
			struct udmem_memtype *q)
{
	char path[96], m[4];
	volatile uint8_t *p;
	int fd, ret;

	snprintf(m, sizeof(m), "%d", mode);
	if (ut_sysfs_write("u-dma-buf", name, "sync_mode", m))
		return -1;
	snprintf(path, sizeof(path), "/dev/%s", name);
	fd = open(path, O_RDWR | (osync ? O_SYNC : 0));
	if (fd < 0)
		return -1;
	p = mmap(NULL, MT_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -1;
	p[MT_LEN / 2] = 0x5a;
	memset(q, 0, sizeof(*q));
	q->addr = (uintptr_t)(p + MT_LEN / 2);
	ret = ioctl(qfd, UDMEM_MEMTYPE_QUERY, q);
	if (ret)
		TH_LOG("query: %s", strerror(errno));
	munmap((void *)p, MT_LEN);
	return ret;
}

static void mt_check_user(FIXTURE_DATA(mt) *self, const char *name, int osync, int mode)
{
	struct udmem_memtype q;
	uint32_t want = mt_expect_user(self->coherent, self->quirk, osync, mode);

	ASSERT_EQ(mt_user_type(self->qfd, name, osync, mode, &q), 0);
	TH_LOG("%s coherent %d quirk %d %s sync_mode %d: %s (raw 0x%llx level %u), want %s",
	       name, self->coherent, self->quirk, osync ? "O_SYNC" : "cached", mode,
	       mt_name(q.type), (unsigned long long)q.raw, q.level, mt_name(want));
	EXPECT_EQ(q.type, want);
}

TEST_F(mt, kernel_alias)
{
	struct udmem_memtype q = { 0 };
	/* dma_alloc_noncoherent() where the user mappings are cached */
	uint32_t want = self->coherent || self->quirk != 1 ? UDMEM_MT_CACHEABLE :
			mt_arch_type(2);

	snprintf(q.name, sizeof(q.name), "%s", variant->name);
	ASSERT_EQ(ioctl(self->qfd, UDMEM_MEMTYPE_QUERY, &q), 0);
	TH_LOG("%s coherent %d: kernel alias 0x%llx %s (raw 0x%llx), want %s", variant->name,
	       self->coherent, (unsigned long long)q.kaddr, mt_name(q.type),
	       (unsigned long long)q.raw, mt_name(want));
	EXPECT_EQ(q.type, want);
}

#define MT_X86_RW	0x2ULL	/* _PAGE_RW */
#define MT_X86_DIRTY	0x40ULL	/* _PAGE_DIRTY */

/* Read at @p and give the x86 flags of its entry; -1 on failure. */
static int mt_read_flags(int qfd, volatile uint8_t *p, uint64_t *flags)
{
	struct udmem_memtype q = { 0 };

	(void)*p;
	q.addr = (uintptr_t)p;
	if (ioctl(qfd, UDMEM_MEMTYPE_QUERY, &q))
		return -1;
	*flags = q.raw;
	return 0;
}

/*
 * No entry the driver makes for a read-only mapping is Write=0,Dirty=1,
 * which x86 reads as shadow stack: neither at mmap() of a read-only
 * mapping nor at the fault after mprotect(PROT_READ) and MADV_DONTNEED
 * (refused for the pfn modes, which cannot be zapped so).
 */
TEST_F(mt, readonly_entries_not_dirty)
{
	char path[96];
	uint8_t *p;
	uint64_t f;
	int fd;

#if !defined(__x86_64__)
	SKIP("Write=0,Dirty=1 is x86's shadow-stack encoding");
#endif
	snprintf(path, sizeof(path), "/dev/%s", variant->name);
	fd = open(path, O_RDWR);
	ASSERT_GE(fd, 0);
	p = mmap(NULL, MT_LEN, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	ASSERT_EQ(mt_read_flags(self->qfd, p + MT_LEN / 2, &f), 0);
	TH_LOG("%s read-only mapping: flags 0x%llx", variant->name, (unsigned long long)f);
	EXPECT_NE(f & (MT_X86_RW | MT_X86_DIRTY), MT_X86_DIRTY);
	munmap(p, MT_LEN);

	p = mmap(NULL, MT_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	close(fd);
	memset(p, 0x6e, MT_LEN);
	ASSERT_EQ(mprotect(p, MT_LEN, PROT_READ), 0);
	if (madvise(p, MT_LEN, MADV_DONTNEED)) {
		/* A VM_PFNMAP mapping: nothing was zapped, nothing refaults. */
		EXPECT_EQ(errno, EINVAL);
		TH_LOG("%s: MADV_DONTNEED refused, no refault to look at", variant->name);
		munmap(p, MT_LEN);
		return;
	}
	ASSERT_EQ(mt_read_flags(self->qfd, p + MT_LEN / 2, &f), 0);
	TH_LOG("%s refault after mprotect(PROT_READ): flags 0x%llx", variant->name,
	       (unsigned long long)f);
	EXPECT_NE(f & (MT_X86_RW | MT_X86_DIRTY), MT_X86_DIRTY);
	EXPECT_EQ(p[MT_LEN / 2], 0x6e);
	munmap(p, MT_LEN);
}

TEST_F(mt, user_cached)
{
	mt_check_user(self, variant->name, 0, 1);
}

TEST_F(mt, user_osync_noncached)
{
	mt_check_user(self, variant->name, 1, 1);
}

TEST_F(mt, user_osync_writecombine)
{
	mt_check_user(self, variant->name, 1, 2);
}

TEST_F(mt, user_osync_dmacoherent)
{
	mt_check_user(self, variant->name, 1, 3);
}

TEST_F(mt, user_sync_always_writecombine)
{
	mt_check_user(self, variant->name, 0, 4 | 2);
}

/*
 * uiomem regions: the user mappings of docs/device-memory.md ("Cache
 * modes") and docs/memory-types.md ("In udmem bench").  A cached region
 * maps cacheable unless O_SYNC or sync-always ask for the sync_mode type;
 * an uncached region (cache-off) always takes the sync_mode type, and
 * sync_mode 0 there is uncached.  On arm64 the "dma-coherent" type is
 * Normal-NC (cache-arm64.c).  On x86 every mapping follows the kernel
 * alias (PAT): the only x86 region here is ivshmem's BAR, which the MTRRs
 * make uncached, so the write-back alias becomes UC- and so does every
 * mapping; an uncached region's alias is write-combine.  The regions are
 * the device tree's (tests/qemu/dt/20-uiomem.dtsi, a board's on-chip
 * window) and the suite's uiomem0 on ivshmem's BAR; a missing one is a SKIP.
 */
FIXTURE(mtio) {
	int qfd;
	int cached;
	char mode0[16];		/* sync_mode before the test, put back after */
};

FIXTURE_VARIANT(mtio) {
	const char *name;
};

FIXTURE_VARIANT_ADD(mtio, noncoherent) { .name = "uiomem-cache-noncoherent" };
FIXTURE_VARIANT_ADD(mtio, coherent) { .name = "uiomem-cache-coherent" };
FIXTURE_VARIANT_ADD(mtio, off) { .name = "uiomem-cache-off" };
FIXTURE_VARIANT_ADD(mtio, nomap) { .name = "uiomem-nomap" };
FIXTURE_VARIANT_ADD(mtio, ocm) { .name = "uiomem-ocm" };
FIXTURE_VARIANT_ADD(mtio, ivshmem) { .name = "uiomem0" };

FIXTURE_SETUP(mtio)
{
	struct udmem_memtype q = { 0 };
	int here = 0;
	uint64_t v;
	char *nl;

	self->mode0[0] = '\0';
	self->qfd = open("/dev/udmem-memtype", O_RDWR);
	ASSERT_GE(self->qfd, 0);
	if (!ut_sysfs_exists("uiomem", variant->name))
		SKIP("no region %s on this target", variant->name);
	ASSERT_EQ(ut_sysfs_u64("uiomem", variant->name, "cached", 0, &v), 0);
	self->cached = (int)v;
	ASSERT_EQ(ut_sysfs_read("uiomem", variant->name, "sync_mode", self->mode0,
				sizeof(self->mode0)), 0);
	nl = strchr(self->mode0, '\n');
	if (nl)
		*nl = '\0';
	/* An architecture the helper cannot read: one SKIP per test. */
	q.addr = (uintptr_t)&here;
	if (ioctl(self->qfd, UDMEM_MEMTYPE_QUERY, &q) < 0 && errno == EOPNOTSUPP)
		SKIP("udmem-memtype reads arm64 and x86_64 page tables only");
}

FIXTURE_TEARDOWN(mtio)
{
	if (self->mode0[0])
		ut_sysfs_write("uiomem", variant->name, "sync_mode", self->mode0);
	if (self->qfd >= 0)
		close(self->qfd);
}

/* What a user mapping of a region should be, from the drivers' documents. */
static uint32_t mtio_expect_user(int cached, int osync, int mode)
{
#if defined(__x86_64__)
	(void)osync;
	(void)mode;
	return cached ? UDMEM_MT_DEVICE : UDMEM_MT_WRITE_COMBINE;
#else
	/* sync_mode's types: 0 cached, 1 uncached, 2 wc, 3 dma-coherent */
	int type = osync || (mode & 4) || !cached ? mode & 3 : 0;

	if (!type && !cached)
		type = 1;
	return type ? mt_arch_type(type) : UDMEM_MT_CACHEABLE;
#endif
}

/* Map the region (O_SYNC or not) with @mode in sync_mode, touch, read the type. */
static void mtio_check_user(FIXTURE_DATA(mtio) *self, const char *name, int osync,
			    int mode)
{
	uint32_t want = mtio_expect_user(self->cached, osync, mode);
	struct udmem_memtype q = { 0 };
	char path[96], m[4];
	volatile uint32_t *p;
	int fd, ret;

	snprintf(m, sizeof(m), "%d", mode);
	ASSERT_EQ(ut_sysfs_write("uiomem", name, "sync_mode", m), 0);
	snprintf(path, sizeof(path), "/dev/%s", name);
	fd = open(path, O_RDWR | (osync ? O_SYNC : 0));
	ASSERT_GE(fd, 0);
	p = mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	ASSERT_NE(p, MAP_FAILED);
	/* One aligned word: legal on Device memory too; the region is scratch. */
	p[0] = p[0];
	q.addr = (uintptr_t)p;
	ret = ioctl(self->qfd, UDMEM_MEMTYPE_QUERY, &q);
	if (ret)
		TH_LOG("query: %s", strerror(errno));
	munmap((void *)p, getpagesize());
	ASSERT_EQ(ret, 0);
	TH_LOG("%s cached %d %s sync_mode %d: %s (raw 0x%llx level %u), want %s", name,
	       self->cached, osync ? "O_SYNC" : "plain", mode, mt_name(q.type),
	       (unsigned long long)q.raw, q.level, mt_name(want));
	EXPECT_EQ(q.type, want);
}

TEST_F(mtio, user_cached)
{
	mtio_check_user(self, variant->name, 0, 1);
}

TEST_F(mtio, user_osync_mode0)
{
	mtio_check_user(self, variant->name, 1, 0);
}

TEST_F(mtio, user_osync_noncached)
{
	mtio_check_user(self, variant->name, 1, 1);
}

TEST_F(mtio, user_osync_writecombine)
{
	mtio_check_user(self, variant->name, 1, 2);
}

TEST_F(mtio, user_osync_dmacoherent)
{
	mtio_check_user(self, variant->name, 1, 3);
}

TEST_F(mtio, user_sync_always_writecombine)
{
	mtio_check_user(self, variant->name, 0, 4 | 2);
}

TEST_HARNESS_MAIN
