// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * udmabuf-mmap-pmd.c - udmabuf-mmap's tests of 2 MiB (PMD) entries: a cached
 * pfn-mode mapping whose addresses agree with the memory modulo 2 MiB maps
 * its aligned middle with PMDs and its edges with PTEs; a mapping that
 * cannot (misplaced, uncached) gets PTEs only; the data is the same through
 * the mapping, read()/write() and a forked child either way.
 *
 * The evidence is the driver's counters (mmap_pmd_entries, mmap_pte_entries)
 * and, independent of them, what the kernel reports: the minor faults (a
 * PMD entry takes one fault per 2 MiB, PTEs put in at mmap time none) and
 * the page-table memory of the process (VmPTE: 4 KiB of PTE table per
 * 2 MiB mapped with PTEs, none for a PMD entry).
 */
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "udmabuf-mmap.h"
#include "ut.h"

#define PMD_BYTES	(2UL << 20)
#define PG		4096UL
/* Faults besides the mapping's own: the test's stack and libc. */
#define FAULT_SLACK	4
/* Page tables besides PTE tables: a PMD and a PUD table, in KiB. */
#define PT_SLACK_KB	8

/* The entries one mapping should get. */
struct pmd_expect {
	unsigned long pmd;
	unsigned long pte;
};

/* PMDs for every 2 MiB-aligned physical block inside [phys, phys + len). */
static struct pmd_expect pmd_expect(uint64_t phys, uint64_t len)
{
	uint64_t first = (phys + PMD_BYTES - 1) & ~(uint64_t)(PMD_BYTES - 1);
	uint64_t last = (phys + len) & ~(uint64_t)(PMD_BYTES - 1);
	struct pmd_expect e;

	e.pmd = last > first ? (last - first) / PMD_BYTES : 0;
	e.pte = len / PG - e.pmd * (PMD_BYTES / PG);
	return e;
}

static long minflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

/* The process's page-table memory in KiB (VmPTE of /proc/self/status). */
static long vm_pte_kb(void)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPTE: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

static int attr_exists(const char *name, const char *attr)
{
	char path[256];

	snprintf(path, sizeof(path), "/sys/class/u-dma-buf/%s/%s", name, attr);
	return access(path, R_OK) == 0;
}

static long pmd_count(const char *name)
{
	return attr_exists(name, "mmap_pmd_entries") ? (long)sysfs_u64(name, "mmap_pmd_entries") : 0;
}

/*
 * Skip unless the driver maps PMDs here.  The attribute exists where the
 * kernel has special PMD entries (6.12 on arm64 and x86_64); missing there
 * is a failure, not a skip.
 */
static void need_pmd(const char *name)
{
	char thp[128] = "";
	struct utsname u;
	int major = 0, minor = 0;
	int fd;

	uname(&u);
	sscanf(u.release, "%d.%d", &major, &minor);
	if (!attr_exists(name, "mmap_pmd_entries")) {
		ASSERT_FALSE((!strcmp(u.machine, "aarch64") || !strcmp(u.machine, "x86_64")) &&
			     (major > 6 || (major == 6 && minor >= 12)));
		SKIP("no mmap_pmd_entries: kernel %s on %s has no special PMD entries (6.12+)",
		     u.release, u.machine);
	}
	fd = open("/sys/kernel/mm/transparent_hugepage/enabled", O_RDONLY);
	if (fd < 0)
		SKIP("no /sys/kernel/mm/transparent_hugepage: THP is off in this kernel");
	if (read(fd, thp, sizeof(thp) - 1) < 0)
		thp[0] = 0;
	close(fd);
	if (strstr(thp, "[never]"))
		SKIP("transparent_hugepage/enabled is never: the kernel makes no PMD faults");
}

/* What one mapping did: entries counted by the driver, faults to touch it. */
struct pmd_seen {
	long pmd, pte, faults;
	long pt_kb;	/* page tables the mapping added */
};

/*
 * Map len bytes at buffer offset off (at @at with MAP_FIXED, else where the
 * driver likes), write the pattern of @seed through every page, check it
 * back through pread(), then pwrite() seed + 1 and check that through the
 * mapping and in a forked child.
 */
static struct pmd_seen map_and_touch(const char *name, int oflags, uint64_t off,
				     uint64_t len, void *at, unsigned int seed)
{
	int fd = open_buf(name, O_RDWR | oflags);
	long pmd0 = pmd_count(name), pte0 = sysfs_u64(name, "mmap_pte_entries"), f0;
	long pt0 = vm_pte_kb();
	struct pmd_seen s;
	uint8_t *map, *copy;
	pid_t pid;
	int st;

	map = mmap(at, len, PROT_READ | PROT_WRITE, MAP_SHARED | (at ? MAP_FIXED : 0), fd,
		   off);
	ASSERT_TRUE(map != MAP_FAILED);
	f0 = minflt();
	ut_fill(map, len, off, seed);
	s.faults = minflt() - f0;
	s.pt_kb = vm_pte_kb() - pt0;
	ASSERT_TRUE(pt0 >= 0);
	s.pmd = pmd_count(name) - pmd0;
	s.pte = (long)sysfs_u64(name, "mmap_pte_entries") - pte0;
	TH_LOG("%s off %#llx len %#llx at %p: pmd %ld pte %ld faults %ld page tables %ld KiB",
	       name, (unsigned long long)off, (unsigned long long)len, (void *)map, s.pmd,
	       s.pte, s.faults, s.pt_kb);
	copy = malloc(len);
	ASSERT_TRUE(copy != NULL);
	ASSERT_EQ(ut_pread_all(fd, copy, len, off), 0);
	ASSERT_PATTERN(copy, len, off, seed);
	ut_fill(copy, len, off, seed + 1);
	ASSERT_EQ(ut_pwrite_all(fd, copy, len, off), 0);
	ASSERT_PATTERN(map, len, off, seed + 1);
	pid = fork();
	ASSERT_OK(pid);
	if (!pid)
		_exit(ut_check(map, len, off, seed + 1) < 0 ? 0 : 1);
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	free(copy);
	munmap(map, len);
	close(fd);
	return s;
}

/*
 * A buffer from $var that maps through the driver's pfn path (mode on, or
 * auto on a non-coherent device) and holds at least one 2 MiB-aligned
 * physical block, or a skip.
 */
static const char *pmd_buffer(const char *var, uint64_t *phys, uint64_t *size)
{
	const char *name = env_buf(var);
	uint64_t mode = sysfs_u64(name, "quirk_mmap_mode");
	uint64_t coherent = sysfs_u64(name, "dma_coherent");

	if (mode != 2 && !(mode == 3 && !coherent))
		SKIP("%s maps through dma_mmap_coherent() or page mode (quirk_mmap_mode %llu, dma_coherent %llu)",
		     name, (unsigned long long)mode, (unsigned long long)coherent);
	*phys = sysfs_u64(name, "phys_addr");
	*size = sysfs_u64(name, "size") & ~(PG - 1);
	if (!pmd_expect(*phys, *size).pmd)
		SKIP("%s at %#llx (%#llx bytes) holds no 2 MiB-aligned block", name,
		     (unsigned long long)*phys, (unsigned long long)*size);
	return name;
}

static void check_pmd_mapping(const char *var, uint64_t off)
{
	uint64_t phys, size;
	const char *name = pmd_buffer(var, &phys, &size);
	struct pmd_expect e;
	struct pmd_seen s;

	need_pmd(name);
	e = pmd_expect(phys + off, size - off);
	if (!e.pmd)
		SKIP("no 2 MiB-aligned block past offset %#llx", (unsigned long long)off);
	s = map_and_touch(name, 0, off, size - off, NULL, 17);
	EXPECT_EQ(s.pmd, e.pmd);
	EXPECT_EQ(s.pte, e.pte);
	/* one fault per PMD; the edges were mapped at mmap time */
	EXPECT_GE(s.faults, (long)e.pmd);
	EXPECT_LE(s.faults, (long)e.pmd + FAULT_SLACK);
	/* PTE tables for the two edges at most, none for the middle */
	EXPECT_LE(s.pt_kb, 2 * 4 + PT_SLACK_KB);
}

/*
 * A mapping of len bytes made of PTEs has a PTE table per 2 MiB: 4 KiB on
 * 64-bit kernels, 2 KiB of VmPTE on 32-bit ARM (512 four-byte entries).
 */
static void expect_pte_tables(const struct pmd_seen *s, uint64_t len)
{
	long table_kb = sizeof(void *) == 4 ? 2 : 4;

	EXPECT_GE(s->pt_kb, (long)(len / PMD_BYTES) * table_kb);
}

/* The 2 MiB-aligned reserved-memory pool of the device tree (udmabuf-ddr-c0). */
TEST(pmd_dt_pool_buffer_maps_2mib_entries)
{
	check_pmd_mapping("UDMABUF_MMAP_DT", 0);
}

/* udmabuf0 (CMA) where it is in a pfn mode, else a 4 MiB mode-on buffer. */
TEST(pmd_pfn_mode_buffer_maps_2mib_entries)
{
	check_pmd_mapping("UDMABUF_MMAP_PMD", 0);
}

/* From page 1 on: the address still agrees with the memory, PTEs at the edges. */
TEST(pmd_offset_mapping_maps_2mib_entries)
{
	check_pmd_mapping("UDMABUF_MMAP_PMD", PG);
}

/*
 * MAP_FIXED one page off the memory's 2 MiB phase: no PMD can fit, every
 * page is a PTE put in at mmap time, no fault.  Runs on every kernel.
 */
TEST(pmd_misplaced_mapping_falls_back_to_ptes)
{
	uint64_t phys, size;
	const char *name = pmd_buffer("UDMABUF_MMAP_PMD", &phys, &size);
	uint8_t *area, *at;
	struct pmd_seen s;

	area = mmap(NULL, size + 2 * PMD_BYTES, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(area != MAP_FAILED);
	at = (uint8_t *)(((uintptr_t)area + PMD_BYTES - 1) & ~(uintptr_t)(PMD_BYTES - 1));
	at += (phys + PG) & (PMD_BYTES - 1);
	s = map_and_touch(name, 0, 0, size, at, 29);
	EXPECT_EQ(s.pmd, 0);
	EXPECT_EQ(s.pte, (long)(size / PG));
	EXPECT_LE(s.faults, FAULT_SLACK);
	expect_pte_tables(&s, size);
	munmap(area, size + 2 * PMD_BYTES);
}

/* An uncached (O_SYNC) mapping stays one remap of PTEs. */
TEST(pmd_osync_mapping_stays_ptes)
{
	uint64_t phys, size;
	const char *name = pmd_buffer("UDMABUF_MMAP_PMD", &phys, &size);
	struct pmd_seen s;

	if (!(sysfs_u64(name, "sync_mode") & 3))
		SKIP("sync_mode of %s maps O_SYNC cached", name);
	s = map_and_touch(name, O_SYNC, 0, size, NULL, 41);
	EXPECT_EQ(s.pmd, 0);
	EXPECT_EQ(s.pte, (long)(size / PG));
	EXPECT_LE(s.faults, FAULT_SLACK);
	expect_pte_tables(&s, size);
}

/*
 * THP disabled for the process (prctl): no PMD fault reaches the driver,
 * which maps each 2 MiB block of the middle with PTEs on its first fault.
 */
TEST(pmd_thp_disabled_process_maps_ptes_per_block)
{
	uint64_t phys, size;
	const char *name = pmd_buffer("UDMABUF_MMAP_PMD", &phys, &size);
	struct pmd_expect e = pmd_expect(phys, size);
	struct pmd_seen s;

	need_pmd(name);
	ASSERT_OK(prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0));
	s = map_and_touch(name, 0, 0, size, NULL, 53);
	EXPECT_EQ(s.pmd, 0);
	EXPECT_EQ(s.pte, (long)(size / PG));
	EXPECT_GE(s.faults, (long)e.pmd);
	EXPECT_LE(s.faults, (long)e.pmd + FAULT_SLACK);
	expect_pte_tables(&s, size);
}

/*
 * A PMD-mapped mapping cut by mprotect() inside a 2 MiB block, and its
 * first 2 MiB moved by mremap() one page off the memory's phase: the
 * kernel splits those entries, the driver maps them again with PTEs, and
 * every byte is still the buffer's (the suite's kernel-log-clean checks
 * that no warning came with it).
 */
TEST(pmd_split_and_moved_mapping_keeps_data)
{
	uint64_t phys, size;
	const char *name = pmd_buffer("UDMABUF_MMAP_PMD", &phys, &size);
	int fd = open_buf(name, O_RDWR);
	uint8_t *map, *area, *to, *moved;
	long pmd0;

	need_pmd(name);
	ASSERT_TRUE(size >= 2 * PMD_BYTES);
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_TRUE(map != MAP_FAILED);
	pmd0 = pmd_count(name);
	ut_fill(map, size, 0, 61);
	EXPECT_GT(pmd_count(name) - pmd0, 0);
	/* a read-only page inside the block at 2 MiB splits it */
	ASSERT_OK(mprotect(map + PMD_BYTES + PG, PG, PROT_READ));
	ASSERT_PATTERN(map, size, 0, 61);
	ASSERT_OK(mprotect(map + PMD_BYTES + PG, PG, PROT_READ | PROT_WRITE));
	/* the first 2 MiB to an address one page off the phase */
	area = mmap(NULL, 3 * PMD_BYTES, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(area != MAP_FAILED);
	to = (uint8_t *)(((uintptr_t)area + PMD_BYTES - 1) & ~(uintptr_t)(PMD_BYTES - 1)) + PG;
	moved = mremap(map, PMD_BYTES, PMD_BYTES, MREMAP_MAYMOVE | MREMAP_FIXED, to);
	ASSERT_TRUE(moved == to);
	ASSERT_PATTERN(moved, PMD_BYTES, 0, 61);
	ut_fill(moved, PMD_BYTES, 0, 62);
	ASSERT_PATTERN(map + PMD_BYTES, size - PMD_BYTES, PMD_BYTES, 61);
	munmap(moved, PMD_BYTES);
	munmap(map + PMD_BYTES, size - PMD_BYTES);
	munmap(area, 3 * PMD_BYTES);
	{
		uint8_t *copy = malloc(PMD_BYTES);

		ASSERT_TRUE(copy != NULL);
		ASSERT_EQ(ut_pread_all(fd, copy, PMD_BYTES, 0), 0);
		ASSERT_PATTERN(copy, PMD_BYTES, 0, 62);
		free(copy);
	}
	close(fd);
}
