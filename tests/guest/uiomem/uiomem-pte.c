// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * uiomem-pte.c - the page-table entries the fault handler makes on the
 * region $UIOMEM_DEV, read by tests/kmod/udmem-memtype.ko (x86: its raw
 * field is the entry's flags).
 *
 * An entry of a read-only mapping must not be Dirty: on x86, Write=0 with
 * Dirty=1 is what a shadow-stack entry looks like, and the kernel warns
 * when it zaps one outside a shadow stack.  A protection with the Dirty bit
 * in vm_page_prot keeps it through mprotect(PROT_READ), so every entry made
 * afterwards would be one.  Entries of a writable mapping are made Dirty
 * (and Accessed) at once, so that the first write takes no fault.
 */
#include "../../kmod/udmem-memtype.h"
#include "uiomem-test.h"

/* x86 page-table entry flags */
#define X86_PTE_RW	(1ULL << 1)
#define X86_PTE_ACCESSED (1ULL << 5)
#define X86_PTE_DIRTY	(1ULL << 6)

/* The entry flags of @addr; a SKIP where they cannot be read. */
static unsigned long long pte_flags(const volatile void *addr)
{
	struct udmem_memtype q = { .addr = (uintptr_t)addr };
	int fd;

#if !defined(__x86_64__)
	SKIP("udmem-memtype gives x86 entry flags only");
#endif
	fd = open("/dev/udmem-memtype", O_RDWR);
	if (fd < 0)
		SKIP("/dev/udmem-memtype: %s (udmem-memtype.ko not loaded)", strerror(errno));
	if (ioctl(fd, UDMEM_MEMTYPE_QUERY, &q) < 0) {
		close(fd);
		UT_CHECK(0, 1, "query of %p: %s", (void *)addr, strerror(errno));
	}
	close(fd);
	return q.raw;
}

static volatile uint8_t *map_region(int prot, int *fdp)
{
	long pg = sysconf(_SC_PAGESIZE);
	volatile uint8_t *p;
	int fd = ut_uiomem_open(O_RDWR);

	if (fd < 0)
		SKIP("/dev/%s: %s", ut_uiomem_name(), strerror(errno));
	p = mmap(NULL, 4 * pg, prot, MAP_SHARED, fd, 0x10000);
	ASSERT_TRUE(p != MAP_FAILED);
	*fdp = fd;
	return p;
}

/* mprotect(PROT_READ) before the first touch: the fault's entry is clean. */
TEST(readonly_after_mprotect_fault_entry_not_dirty)
{
	long pg = sysconf(_SC_PAGESIZE);
	unsigned long long f;
	volatile uint8_t *p;
	int fd;

	p = map_region(PROT_READ | PROT_WRITE, &fd);
	ASSERT_OK(mprotect((void *)p, 4 * pg, PROT_READ));
	(void)p[pg];
	f = pte_flags(p + pg);
	printf("# entry flags 0x%llx\n", f);
	EXPECT_EQ(f & X86_PTE_RW, 0);
	EXPECT_EQ(f & X86_PTE_DIRTY, 0);
}

/* A read-only mapping's entries are never Dirty. */
TEST(readonly_mapping_fault_entry_not_dirty)
{
	unsigned long long f;
	volatile uint8_t *p;
	int fd;

	p = map_region(PROT_READ, &fd);
	(void)p[0];
	f = pte_flags(p);
	printf("# entry flags 0x%llx\n", f);
	EXPECT_EQ(f & X86_PTE_RW, 0);
	EXPECT_EQ(f & X86_PTE_DIRTY, 0);
}

/* A writable mapping's entry is writable, Accessed and Dirty after a read. */
TEST(writable_mapping_fault_entry_young_and_dirty)
{
	unsigned long long f;
	volatile uint8_t *p;
	int fd;

	p = map_region(PROT_READ | PROT_WRITE, &fd);
	(void)p[0];
	f = pte_flags(p);
	printf("# entry flags 0x%llx\n", f);
	EXPECT_EQ(f & X86_PTE_RW, X86_PTE_RW);
	EXPECT_EQ(f & X86_PTE_ACCESSED, X86_PTE_ACCESSED);
	EXPECT_EQ(f & X86_PTE_DIRTY, X86_PTE_DIRTY);
	/* Write access back and forth keeps working. */
	ASSERT_OK(mprotect((void *)p, 4096, PROT_READ));
	ASSERT_OK(mprotect((void *)p, 4096, PROT_READ | PROT_WRITE));
	p[1] = 0x77;
	EXPECT_EQ(p[1], 0x77);
}

/*
 * After clear_refs "4" (soft-dirty tracking) the kernel keeps a writable
 * mapping's protection read-only to see the first write: an entry made then
 * is read-only, so it must not be Dirty either; the write still works.
 */
TEST(softdirty_writeprotected_fault_entry_not_dirty)
{
	unsigned long long f;
	volatile uint8_t *p;
	int fd, cr;

	p = map_region(PROT_READ | PROT_WRITE, &fd);
	cr = open("/proc/self/clear_refs", O_WRONLY);
	if (cr < 0 || write(cr, "4", 1) != 1)
		SKIP("/proc/self/clear_refs: %s", strerror(errno));
	close(cr);
	(void)p[0];
	f = pte_flags(p);
	printf("# entry flags 0x%llx\n", f);
	if (f & X86_PTE_RW)
		printf("# the entry is writable: no soft-dirty write protection here\n");
	else
		EXPECT_EQ(f & X86_PTE_DIRTY, 0);
	p[1] = 0x5a;
	EXPECT_EQ(p[1], 0x5a);
	f = pte_flags(p);
	EXPECT_EQ(f & (X86_PTE_RW | X86_PTE_DIRTY), X86_PTE_RW | X86_PTE_DIRTY);
}

TEST_HARNESS_MAIN
