// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * stress: a write() from a faulting user buffer, and fault injection.
 */
#include "stress.h"

/*
 * write() from a user buffer that faults: a NULL pointer, and 16 readable
 * bytes followed by an unmapped page.  The bytes of the object past what
 * the source could give must keep their content (copy_from_user() zero-fills
 * the part it could not copy, so a driver that copies straight into its
 * memory clears them); the 16 readable bytes may or may not be written, and
 * must be when the call reports them.
 */
static void faulting_write(int fd, size_t size)
{
	long pg = ut_page();
	uint8_t *ref = malloc(size), *got = malloc(size), *src;
	void *volatile null = NULL;
	size_t i, changed = 0, first = 0;
	ssize_t r;

	ASSERT_TRUE(ref && got && size >= 2 * (size_t)pg);
	ut_fill(ref, size, 0, 77);
	ASSERT_EQ(ut_pwrite_all(fd, ref, size, 0), 0);
	r = pwrite(fd, null, 64, 64);
	TH_LOG("pwrite(NULL, 64) at 64: %zd (%s)", r, r < 0 ? strerror(errno) : "bytes");
	EXPECT_TRUE(r == -1 && errno == EFAULT);
	src = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(src != MAP_FAILED);
	ASSERT_OK(munmap(src + pg, pg));
	memset(src + pg - 16, 0xee, 16);
	r = pwrite(fd, src + pg - 16, 256, pg);
	TH_LOG("pwrite of 256 bytes at %ld, the last 240 unmapped: %zd (%s)", pg, r,
	       r < 0 ? strerror(errno) : "bytes");
	EXPECT_TRUE(r == -1 ? errno == EFAULT : r >= 1 && r <= 16);
	munmap(src, pg);
	ASSERT_EQ(ut_pread_all(fd, got, size, 0), 0);
	for (i = 0; i < size; i++) {
		bool mine = i >= (size_t)pg && i < (size_t)pg + 16;

		if (got[i] == ref[i] || (mine && got[i] == 0xee))
			continue;
		if (!changed++)
			first = i;
	}
	for (i = 0; r > 0 && i < (size_t)r; i++)
		EXPECT_EQ(got[pg + i], 0xee);
	UT_CHECK(changed == 0, 0,
		 "faulting writes changed %zu bytes they did not write (first: byte %zu, "
		 "0x%02x became 0x%02x)", changed, first, ref[first], got[first]);
	free(ref);
	free(got);
}

void udmabuf_faulting_write_changes_no_other_byte(void)
{
	int mgr, fd;

	mgr = open(MGR, O_WRONLY);
	if (mgr < 0)
		SKIP("no %s (u-dma-buf-mgr not loaded)", MGR);
	ut_cleanup_buffer("stress-efault");
	ASSERT_EQ(mgr_cmd(mgr, "create stress-efault 16384\n"), 0);
	fd = open("/dev/stress-efault", O_RDWR);
	EXPECT_OK(fd);
	if (fd >= 0) {
		faulting_write(fd, 16384);
		close(fd);
	}
	EXPECT_EQ(mgr_cmd(mgr, "delete stress-efault\n"), 0);
	close(mgr);
}

void uiomem_faulting_write_changes_no_other_byte(void)
{
	uint64_t size = 0;
	char path[64];
	int fd;

	if (regions_init() < 1)
		SKIP("STRESS_UIOMEM names no region (no ivshmem BAR?)");
	ASSERT_EQ(ut_sysfs_u64(UIO_CLASS, g_regions[0], "size", 0, &size), 0);
	snprintf(path, sizeof(path), "/dev/%s", g_regions[0]);
	fd = open(path, O_RDWR);
	ASSERT_OK(fd);
	faulting_write(fd, size);
	close(fd);
}

#if defined(__x86_64__) || defined(__i386__)
#define IS_X86		1
#else
#define IS_X86		0
#endif

#define DEBUGFS		"/sys/kernel/debug"
#define FI_MAX_NTH	400

static const char *fi_step = "setup";	/* the operation under test, for a stall report */

static int fi_write(const char *attr, const char *what, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), DEBUGFS "/%s/%s", attr, what);
	return write_str(path, val);
}

/*
 * Arm both fault attributes for this thread only: the task filter on,
 * probability 0 (no random faults anywhere), and fail-nth for the thread.
 */
static int fi_setup(void)
{
	static const char *const attrs[] = { "failslab", "fail_page_alloc" };
	int i, err = 0;

	for (i = 0; i < 2; i++) {
		err |= fi_write(attrs[i], "task-filter", "Y");
		err |= fi_write(attrs[i], "probability", "0");
		err |= fi_write(attrs[i], "verbose", "0");
		err |= fi_write(attrs[i], "ignore-gfp-wait", "N");
	}
	err |= fi_write("fail_page_alloc", "ignore-gfp-highmem", "N");
	err |= fi_write("fail_page_alloc", "min-order", "0");
	err |= write_str("/proc/thread-self/make-it-fail", "1");
	return err;
}

static void fi_arm(unsigned int nth)
{
	char v[16];

	UT_PROGRESS("fault_injection: %s, fail-nth %u", fi_step, nth);
	snprintf(v, sizeof(v), "%u", nth);
	write_str("/proc/thread-self/fail-nth", v);
}

/* Disarm; true when the armed fault was not reached (the operation is done). */
static bool fi_disarm(void)
{
	char v[16] = "0";

	read_str("/proc/thread-self/fail-nth", v, sizeof(v));
	write_str("/proc/thread-self/fail-nth", "0");
	return atoi(v) > 0;
}

struct fi_stats {
	unsigned long runs, failed;
	double t0;
};

/* Start the runs of one operation. */
static void fi_begin(struct fi_stats *s, const char *step)
{
	memset(s, 0, sizeof(*s));
	s->t0 = now();
	fi_step = step;
}

static void fi_report(struct th *t, const char *op, struct fi_stats *s, bool complete)
{
	TH_LOG("%s: %lu runs, %lu failed by an injected fault, %.1f s%s", op, s->runs,
	       s->failed, now() - s->t0,
	       complete ? "" : " (stopped before the operation ran fault-free)");
	if (!complete) {
		call(t, "%s under fail-nth", op);
		bad(t, "still failing at fail-nth %d", FI_MAX_NTH);
	}
}

/* Manager create under a fault: a documented errno and nothing left behind. */
static void fi_create(struct th *t, int mgr)
{
	struct fi_stats s;
	bool done = false;
	unsigned int n;
	int err;

	fi_begin(&s, "manager create");
	for (n = 1; n <= FI_MAX_NTH && !done; n++) {
		fi_arm(n);
		err = mgr_cmd(mgr, "create stress-fi 65536\n");
		done = fi_disarm();
		s.runs++;
		call(t, "manager create with fail-nth %u", n);
		if (err) {
			s.failed++;
			allow(t, err, B(EINVAL) | B(EEXIST) | B(ENOMEM) | B(ENOSPC));
			if (ut_sysfs_exists(UDB_CLASS, "stress-fi") ||
			    access("/dev/stress-fi", F_OK) == 0)
				bad(t, "failed create left stress-fi behind");
			err = mgr_cmd(mgr, "create stress-fi 65536\n");
			call(t, "manager create after a failed one (fail-nth %u)", n);
			expect(t, err, 0);
		}
		call(t, "manager delete after create with fail-nth %u", n);
		expect(t, mgr_cmd(mgr, "delete stress-fi\n"), 0);
	}
	fi_report(t, "manager create", &s, done);
}

/* Bind (probe) under a fault. */
static void fi_probe(struct th *t, int mgr)
{
	struct fi_stats s;
	char pdev[64];
	bool done = false;
	unsigned int n;
	int err;

	fi_begin(&s, "probe (bind)");
	call(t, "create stress-fi-probe");
	if (expect(t, mgr_cmd(mgr, "create stress-fi-probe 65536\n"), 0))
		return;
	if (pdev_of(UDB_CLASS, "stress-fi-probe", pdev, sizeof(pdev)))
		return;
	ut_cleanup_bind(UDB_DRV, pdev);
	for (n = 1; n <= FI_MAX_NTH && !done; n++) {
		call(t, "unbind %s", pdev);
		if (expect(t, write_str(UDB_DRV "/unbind", pdev), 0))
			break;
		fi_arm(n);
		err = write_str(UDB_DRV "/bind", pdev);
		done = fi_disarm();
		s.runs++;
		call(t, "bind %s with fail-nth %u", pdev, n);
		if (err) {
			s.failed++;
			allow(t, err, B(ENOMEM) | B(ENODEV) | B(EINVAL) | B(ENOSPC));
			if (ut_sysfs_exists(UDB_CLASS, "stress-fi-probe"))
				bad(t, "a failed probe left the class device");
			call(t, "bind %s after a failed probe (fail-nth %u)", pdev, n);
			expect(t, write_str(UDB_DRV "/bind", pdev), 0);
		}
	}
	fi_report(t, "probe (bind)", &s, done);
	call(t, "delete stress-fi-probe");
	expect(t, mgr_cmd(mgr, "delete stress-fi-probe\n"), 0);
}

/*
 * x86 and Debian's 6.1 kernel: when remap_pfn_range() cannot allocate the
 * page table of a mapping's first page, remap_pfn_range_notrack() zaps the
 * range, unmap_single_vma() calls untrack_pfn(vma, 0, 0) while VM_PAT is
 * still set, and get_pat_info() finds nothing mapped at vm_start: a
 * WARN_ON_ONCE (arch/x86/mm/pat/memtype.c), after which remap_pfn_range()'s
 * own untrack_pfn() frees the reservation right and mmap() fails with
 * ENOMEM as it should.  The warning is the kernel's, and it would fail
 * the kernel-log check; so there the pfn-mode mappings go where the page
 * tables already exist: over touched anonymous pages, with a touched
 * neighbour page that keeps the page table when they are replaced.  Every
 * other allocation of mmap() is still failed in turn.  NULL: map anywhere.
 */
#define FI_RESERVE	(4UL << 20)
#define FI_PMD		(2UL << 20)

static uint8_t *fi_tables_at(const char *opt, size_t len, void **resv)
{
	long pg = ut_page();
	uint8_t *base;

	*resv = MAP_FAILED;
	if (!(IS_X86 && !strcmp(opt, "")))
		return NULL;
	*resv = mmap(NULL, FI_RESERVE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		     -1, 0);
	if (*resv == MAP_FAILED)
		return NULL;
	base = (uint8_t *)(((uintptr_t)*resv + FI_PMD - 1) & ~(FI_PMD - 1));
	if (mmap(base + len, pg, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
		return NULL;
	base[len] = 1;
	return base;
}

/* Anonymous, touched pages at [base, base + len) again. */
static void fi_tables_refill(uint8_t *base, size_t len)
{
	if (mmap(base, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		 -1, 0) != MAP_FAILED)
		memset(base, 0, len);
}

/* Open, export and mmap of a buffer under a fault. */
static void fi_file_ops(struct th *t, int mgr, const char *opt)
{
	struct fi_stats so, se, sm;
	void *resv = MAP_FAILED;
	uint8_t *at;
	char cmd[96];
	bool done;
	unsigned int n;
	int fd, err;

	snprintf(cmd, sizeof(cmd), "create stress-fi-ops 65536 %s\n", opt);
	call(t, "%.*s", (int)strlen(cmd) - 1, cmd);
	if (expect(t, mgr_cmd(mgr, cmd), 0))
		return;
	fi_begin(&so, "open");
	for (n = 1, done = false; n <= FI_MAX_NTH && !done; n++) {
		fi_arm(n);
		fd = open("/dev/stress-fi-ops", O_RDWR);
		err = fd < 0 ? errno : 0;
		done = fi_disarm();
		so.runs++;
		call(t, "open with fail-nth %u", n);
		if (err) {
			so.failed++;
			allow(t, err, B(ENOMEM) | B(ENFILE));
		} else {
			close(fd);
		}
	}
	fi_report(t, "open", &so, done);
	fd = open("/dev/stress-fi-ops", O_RDWR);
	call(t, "open stress-fi-ops");
	if (expect(t, fd < 0 ? errno : 0, 0))
		goto out;
	fi_begin(&se, "export");
	for (n = 1, done = false; n <= FI_MAX_NTH && !done; n++) {
		struct u_dma_buf_ioctl_export_args ea = { .flags = O_RDWR | O_CLOEXEC,
							  .size = 65536 };

		fi_arm(n);
		err = ioctl(fd, U_DMA_BUF_IOCTL_EXPORT, &ea) ? errno : 0;
		done = fi_disarm();
		se.runs++;
		call(t, "EXPORT with fail-nth %u", n);
		if (err) {
			se.failed++;
			allow(t, err, B(ENOMEM) | B(EMFILE) | B(ENFILE));
		} else {
			close(ea.fd);
		}
	}
	fi_report(t, "export", &se, done);
	at = fi_tables_at(opt, 65536, &resv);
	fi_begin(&sm, "mmap");
	for (n = 1, done = false; n <= FI_MAX_NTH && !done; n++) {
		uint8_t *p;

		if (at)
			fi_tables_refill(at, 65536);
		fi_arm(n);
		p = mmap(at, 65536, PROT_READ | PROT_WRITE, MAP_SHARED | (at ? MAP_FIXED : 0),
			 fd, 0);
		err = p == MAP_FAILED ? errno : 0;
		done = fi_disarm();
		sm.runs++;
		call(t, "mmap%s with fail-nth %u", at ? " over existing page tables" : "", n);
		if (err) {
			sm.failed++;
			allow(t, err, B(ENOMEM) | B(EAGAIN));
		} else {
			p[0] = (uint8_t)n;
			p[65535] = (uint8_t)n;
			if (!at)
				munmap(p, 65536);
		}
	}
	fi_report(t, at ? "mmap over existing page tables" : "mmap", &sm, done);
	if (resv != MAP_FAILED)
		munmap(resv, FI_RESERVE);
	close(fd);
out:
	call(t, "delete stress-fi-ops");
	expect(t, mgr_cmd(mgr, "delete stress-fi-ops\n"), 0);
}

/* uiomem bind (probe) under a fault. */
static void fi_uiomem_probe(struct th *t, const char *name)
{
	struct fi_stats s;
	char pdev[64];
	bool done = false;
	unsigned int n;
	int err;

	fi_begin(&s, "uiomem probe (bind)");
	if (pdev_of(UIO_CLASS, name, pdev, sizeof(pdev)))
		return;
	ut_cleanup_bind(UIO_DRV, pdev);
	for (n = 1; n <= FI_MAX_NTH && !done; n++) {
		call(t, "unbind %s", pdev);
		if (expect(t, write_str(UIO_DRV "/unbind", pdev), 0))
			break;
		fi_arm(n);
		err = write_str(UIO_DRV "/bind", pdev);
		done = fi_disarm();
		s.runs++;
		call(t, "bind %s with fail-nth %u", pdev, n);
		if (err) {
			s.failed++;
			/*
			 * ENXIO: devm_memremap() gives it for every memremap()
			 * failure, and ioremap's own allocations (memtype entry,
			 * vmap area, page tables) fail that way; the probe logs
			 * "cannot map region" (seen on x86_64-debug, fail-nth
			 * 39, 41, 46, 47).  EBUSY: the region claim's NULL.
			 */
			allow(t, err, B(ENOMEM) | B(ENODEV) | B(EINVAL) | B(EBUSY) | B(ENXIO));
			call(t, "bind %s after a failed probe (fail-nth %u)", pdev, n);
			expect(t, write_str(UIO_DRV "/bind", pdev), 0);
		}
	}
	fi_report(t, "uiomem probe (bind)", &s, done);
}

void fault_injection(void)
{
	struct th t;
	struct stat st;
	int mgr;

	seed_init("fault_injection");
	if (stat(DEBUGFS "/failslab", &st))
		mount("debugfs", DEBUGFS, "debugfs", 0, NULL);
	if (stat(DEBUGFS "/failslab", &st) || stat(DEBUGFS "/fail_page_alloc", &st) ||
	    access("/proc/thread-self/fail-nth", W_OK))
		SKIP("no " DEBUGFS "/failslab, fail_page_alloc or fail-nth: this kernel has "
		     "CONFIG_FAULT_INJECTION (FAILSLAB, FAIL_PAGE_ALLOC, "
		     "FAULT_INJECTION_DEBUG_FS) off");
	memset(&t, 0, sizeof(t));
	th_seed(&t, 0, 3);
	ASSERT_EQ(fi_setup(), 0);
	mgr = open(MGR, O_WRONLY);
	if (mgr < 0)
		SKIP("no %s (u-dma-buf-mgr not loaded)", MGR);
	fi_create(&t, mgr);
	fi_probe(&t, mgr);
	fi_file_ops(&t, mgr, "");
	fi_file_ops(&t, mgr, "quirk-mmap-page");
	if (regions_init() >= 1)
		fi_uiomem_probe(&t, g_regions[g_nregions - 1]);
	write_str("/proc/thread-self/make-it-fail", "0");
	close(mgr);
	verdict("fault_injection");
}
