// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * udmabuf-reliability-devices.c - the tests of udmabuf-reliability on the
 * device side: minors under bind/unbind churn, a memory-region released
 * after a rebind (rmem), a bus with a dma-ranges offset (dma_offset), and
 * IMPORT racing a removal (import_races_removal).
 */
#include "udmabuf-reliability.h"

/* ------------------------------------------------------- defects 6, 9 */

#define MN_BIG		"udmem-rel-big"
#define MN_SMALL	"udmem-rel-small"

/* The platform device under /sys/class/u-dma-buf/<name>, or -1. */
static int pdev_of(const char *name, char *out, size_t len)
{
	char path[256], link[256];
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/class/u-dma-buf/%s/device", name);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return -1;
	link[n] = 0;
	snprintf(out, len, "%s", strrchr(link, '/') ? strrchr(link, '/') + 1 : link);
	return 0;
}

/* Unbind and bind pdev until the deadline; exit status: 0, or 1 on ENOSPC. */
static void bind_loop(const char *pdev, double until)
{
	int enospc = 0;

	while (now() < until) {
		write_str(DRV "/unbind", pdev);
		if (write_str(DRV "/bind", pdev) == -ENOSPC)
			enospc++;
	}
	write_str(DRV "/bind", pdev);	/* leave it bound when it can be */
	_exit(enospc ? 1 : 0);
}

FIXTURE(minors) {
	char pdev[256];
};

FIXTURE_SETUP(minors)
{
	/* a manager-made buffer is a platform device with automatic minor */
	ASSERT_OK(mgr_create(MN_BIG, 0x400000, ""));
	ASSERT_OK(pdev_of(MN_BIG, self->pdev, sizeof(self->pdev)));
}

FIXTURE_TEARDOWN(minors)
{
	mgr_delete(MN_SMALL);
	mgr_delete(MN_BIG);
}

static void minors_stress(struct ut_self_minors *self, const char *name, bool same)
{
	double until = now() + seconds();
	unsigned long ok = 0, eexist = 0, enospc = 0, other = 0;
	int status, ret;
	pid_t pid;

	pid = fork();
	ASSERT_OK(pid);
	if (pid == 0)
		bind_loop(self->pdev, until);
	while (now() < until) {
		ret = mgr_create(name, 0x1000, "");
		if (!ret) {
			ok++;
			ret = mgr_delete(name);
			/* the bound device may hold the name again: ENOENT is fine */
			if (ret && ret != -ENOENT && ret != -EBUSY)
				other++;
		} else if (ret == -EEXIST && same) {
			eexist++;
		} else if (ret == -ENOSPC) {
			enospc++;
		} else {
			other++;
			TH_LOG("create %s: %s", name, strerror(-ret));
		}
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	TH_LOG("%lu created, %lu EEXIST, %lu ENOSPC, %lu other", ok, eexist, enospc, other);
	EXPECT_EQ(enospc, 0UL);
	EXPECT_EQ(other, 0UL);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	EXPECT_GT(ok, 0UL);
}

TEST_F(minors, automatic_minor_never_enospc_while_free)
{
	minors_stress(self, MN_SMALL, false);
}

/* suite.sh checks the log for "duplicate filename" after this one. */
TEST_F(minors, reusing_a_name_being_removed_is_clean)
{
	minors_stress(self, MN_BIG, true);
}

/* ------------------------------------------------------------ defect 1 */

/* The platform device made from device-tree node node, or -1. */
static int pdev_of_node(const char *node, char *out, size_t len)
{
	char path[512], link[256];
	struct dirent *d;
	DIR *dir = opendir("/sys/bus/platform/devices");
	int ret = -1;

	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		ssize_t n;
		char *b;

		snprintf(path, sizeof(path), "/sys/bus/platform/devices/%s/of_node", d->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n < 0)
			continue;
		link[n] = 0;
		b = strrchr(link, '/');
		if (!strcmp(b ? b + 1 : link, node)) {
			snprintf(out, len, "%s", d->d_name);
			ret = 0;
			break;
		}
	}
	closedir(dir);
	return ret;
}

static char *map_node(const char *node, size_t size)
{
	char path[128];
	char *p;
	int fd;

	snprintf(path, sizeof(path), "/dev/%s", node);
	fd = open(path, O_RDWR);
	if (fd < 0)
		return MAP_FAILED;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	return p;
}

/* Write a pattern through write() and read it back through a mapping. */
static void round_trip(const char *node, size_t size, unsigned int seed)
{
	char path[128], *buf = malloc(size), *p;
	int fd;

	ASSERT_TRUE(buf != NULL);
	snprintf(path, sizeof(path), "/dev/%s", node);
	fd = open(path, O_RDWR);
	ASSERT_OK(fd);
	ut_fill(buf, size, 0, seed);
	EXPECT_EQ(ut_pwrite_all(fd, buf, size, 0), 0L);
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	ASSERT_PATTERN(p, size, 0, seed);
	munmap(p, size);
	close(fd);
	free(buf);
}

/*
 * For each node: hold a mapping, unbind, bind (a second buffer of the same
 * device), release the first, unbind, bind, round trip.  Before the fix
 * the release of the first buffer dropped the device's pool, and freeing
 * the second one then went to the page allocator: "Bad page state".
 */
TEST(rmem_release_keeps_the_other_buffers_pool)
{
	char nodes[256], *node, *save = NULL, pdev[256];
	const char *env = getenv("REL_RMEM_NODES");
	int n = 0;

	if (!env || !*env)
		SKIP("no device-tree nodes with a memory-region here (REL_RMEM_NODES)");
	snprintf(nodes, sizeof(nodes), "%s", env);
	for (node = strtok_r(nodes, " ", &save); node; node = strtok_r(NULL, " ", &save)) {
		size_t size = 0x10000;
		char *held;

		TH_LOG("node %s", node);
		ASSERT_OK(pdev_of_node(node, pdev, sizeof(pdev)));
		held = map_node(node, size);
		ASSERT_TRUE(held != MAP_FAILED);
		ut_fill(held, size, 0, 1);
		ASSERT_OK(write_str(DRV "/unbind", pdev));
		ASSERT_OK(write_str(DRV "/bind", pdev));
		round_trip(node, size, 2);
		ASSERT_PATTERN(held, size, 0, 1);	/* the old memory is intact */
		munmap(held, size);			/* frees the first buffer */
		ASSERT_OK(write_str(DRV "/unbind", pdev));	/* frees the second */
		ASSERT_OK(write_str(DRV "/bind", pdev));
		round_trip(node, size, 3);
		n++;
	}
	EXPECT_GT(n, 0);
}

/* ------------------------------------------------------------ defect 2 */

#define DO_NODE	"udmabuf-dt-offset"
#define DO_SIZE	0x10000

FIXTURE(dma_offset) {
	char pdev[256];
	int dfd;
	uint32_t *p;
};

/* A dma-buf of the whole buffer, mapped, holding a pattern. */
FIXTURE_SETUP(dma_offset)
{
	struct u_dma_buf_ioctl_export_args args;
	uint64_t dma = 0;
	int fd;

	self->dfd = -1;
	self->p = MAP_FAILED;
	self->pdev[0] = '\0';
	if (pdev_of_node(DO_NODE, self->pdev, sizeof(self->pdev)))
		SKIP("no " DO_NODE " node (tests/qemu/dt/15-u-dma-buf-dma-offset.dtsi)");
	ASSERT_OK(ut_sysfs_u64("u-dma-buf", DO_NODE, "phys_addr", 0, &dma));
	/* The offset is in effect: DMA addresses start at 0, below all RAM. */
	ASSERT_LT(dma, 0x40000000ULL);
	fd = open("/dev/" DO_NODE, O_RDWR);
	ASSERT_OK(fd);
	memset(&args, 0, sizeof(args));
	args.flags = O_RDWR | O_CLOEXEC;
	args.size = DO_SIZE;
	EXPECT_OK(ioctl(fd, U_DMA_BUF_IOCTL_EXPORT, &args));
	close(fd);
	self->dfd = args.fd;
	ASSERT_OK(self->dfd);
	self->p = mmap(NULL, DO_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, self->dfd, 0);
	ASSERT_TRUE(self->p != MAP_FAILED);
	ut_fill(self->p, DO_SIZE, 0, 7);
	ASSERT_OK(write_str(DRV "/unbind", self->pdev));
}

FIXTURE_TEARDOWN(dma_offset)
{
	if (self->p != MAP_FAILED)
		munmap(self->p, DO_SIZE);
	if (self->dfd >= 0)
		close(self->dfd);
	if (self->pdev[0])
		write_str(DRV "/bind", self->pdev);
}

static int dmabuf_sync(int dfd, uint64_t flags)
{
	struct dma_buf_sync sync = { flags };

	return ioctl(dfd, DMA_BUF_IOCTL_SYNC, &sync) ? -errno : 0;
}

/*
 * The unbind freed the device's dma-ranges map: a sync through it would
 * reach the wrong physical address (before the fix: a fault, or silent
 * cache maintenance on somebody else's memory).  The mapping keeps the
 * data; with the driver bound again the memory goes back at the close.
 */
TEST_F(dma_offset, sync_after_unbind_refused_then_freed_after_rebind)
{
	EXPECT_EQ(dmabuf_sync(self->dfd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW), -ENODEV);
	EXPECT_EQ(dmabuf_sync(self->dfd, DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW), -ENODEV);
	ASSERT_PATTERN(self->p, DO_SIZE, 0, 7);
	ASSERT_OK(write_str(DRV "/bind", self->pdev));
	munmap(self->p, DO_SIZE);
	self->p = MAP_FAILED;
	close(self->dfd);	/* the last user: freed through the DMA API again */
	self->dfd = -1;
}

/* Released while no driver is bound: kept (and logged), never misfreed. */
TEST_F(dma_offset, release_while_unbound_keeps_memory)
{
	munmap(self->p, DO_SIZE);
	self->p = MAP_FAILED;
	close(self->dfd);
	self->dfd = -1;
}

/*
 * An import maps another dma-buf for the buffer's device.  Closed after an
 * unbind, it used to be unmapped then, through the device's torn-down
 * dma-ranges: the exporter's cache maintenance for the CPU went to
 * phys_to_virt() of the untranslated DMA address (on hardware a kernel
 * paging fault or the wrong lines invalidated; QEMU's TCG makes cache
 * maintenance a no-op, so nothing shows here).  The removal now unmaps it
 * while the setup is there and logs it with debug_export, which suite.sh
 * requires; the import file stays usable until closed.
 */
#define REL_IMPORT_SKIPPED	"/tmp/rel-import-skipped"

/* The start of the first System RAM range of /proc/iomem (0 if none). */
static uint64_t ram_base(void)
{
	FILE *f = fopen("/proc/iomem", "r");
	unsigned long long start = 0, end;
	char line[256];

	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "System RAM") && sscanf(line, "%llx-%llx", &start, &end) == 2)
			break;
	if (f)
		fclose(f);
	return start;
}

TEST(dma_offset_import_unmapped_at_unbind)
{
	struct u_dma_buf_ioctl_export_args ea;
	struct u_dma_buf_ioctl_import_args ia;
	struct u_dma_buf_ioctl_import_sync is;
	uint64_t src_phys = 0;
	char pdev[256];
	int src, dst;

	if (pdev_of_node(DO_NODE, pdev, sizeof(pdev)))
		SKIP("no " DO_NODE " node (tests/qemu/dt/15-u-dma-buf-dma-offset.dtsi)");
	ASSERT_OK(mgr_create("rel-import-src", DO_SIZE, ""));
	/*
	 * The bus's dma-ranges window is the first GiB of RAM; a source
	 * beyond it cannot be mapped for the device (dma-direct warns, with
	 * no swiotlb to bounce through).  The debug guests have 2 GiB.
	 */
	ASSERT_OK(ut_sysfs_u64("u-dma-buf", "rel-import-src", "phys_addr", 0, &src_phys));
	if (src_phys + DO_SIZE > ram_base() + 0x40000000ULL) {
		mgr_delete("rel-import-src");
		close(open(REL_IMPORT_SKIPPED, O_CREAT | O_WRONLY, 0644));	/* for suite.sh */
		SKIP("the source buffer (%#llx) is outside the bus's dma-ranges window",
		     (unsigned long long)src_phys);
	}
	src = open("/dev/rel-import-src", O_RDWR);
	ASSERT_OK(src);
	memset(&ea, 0, sizeof(ea));
	ea.flags = O_RDWR | O_CLOEXEC;
	ea.size = DO_SIZE;
	ASSERT_OK(ioctl(src, U_DMA_BUF_IOCTL_EXPORT, &ea));
	close(src);
	/* the driver then logs the unmap at removal (suite.sh looks for it) */
	ASSERT_OK(write_str("/sys/class/u-dma-buf/" DO_NODE "/debug_export", "1"));
	dst = open("/dev/" DO_NODE, O_RDWR);
	ASSERT_OK(dst);
	memset(&ia, 0, sizeof(ia));
	ia.fd = ea.fd;
	ia.flags = 0;	/* bidirectional: the unmap invalidates for the CPU */
	ASSERT_OK(ioctl(dst, U_DMA_BUF_IOCTL_IMPORT, &ia));
	close(dst);
	TH_LOG("imported %llu bytes at DMA address %#llx", (unsigned long long)ia.size,
	       (unsigned long long)ia.addr);
	EXPECT_LT(ia.addr, 0x40000000ULL);	/* through the offset */
	ASSERT_OK(write_str(DRV "/unbind", pdev));
	/* The exporter is still there: CPU access brackets still work. */
	memset(&is, 0, sizeof(is));
	is.flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW;
	EXPECT_OK(ioctl(ia.import_fd, U_DMA_BUF_IOCTL_IMPORT_SYNC, &is));
	is.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW;
	EXPECT_OK(ioctl(ia.import_fd, U_DMA_BUF_IOCTL_IMPORT_SYNC, &is));
	close(ia.import_fd);	/* before the fix: unmapped here */
	close(ea.fd);
	EXPECT_OK(write_str(DRV "/bind", pdev));
	EXPECT_OK(mgr_delete("rel-import-src"));
}

/*
 * IMPORT racing the removal of the importing buffer (issue 31): the import's
 * file is published under the import lock while the import is mapped, so
 * each IMPORT gives ENODEV (the removal came first) or an import file (the
 * removal then unmaps it, as any it meets), never another error or a kernel
 * report.  A child unbinds and binds the buffer's platform device meanwhile.
 */
#define IR_SRC	"udmem-rel-ir-src"
#define IR_DST	"udmem-rel-ir-dst"

TEST(import_races_removal)
{
	struct u_dma_buf_ioctl_export_args ea;
	struct u_dma_buf_ioctl_import_args ia;
	unsigned int ok = 0, gone = 0, other = 0, last = 0;
	int src, dst, status = 0;
	char pdev[64];
	pid_t pid;

	ASSERT_OK(mgr_create(IR_SRC, 0x10000, ""));
	ASSERT_OK(mgr_create(IR_DST, 0x10000, ""));
	ASSERT_OK(pdev_of(IR_DST, pdev, sizeof(pdev)));
	src = open("/dev/" IR_SRC, O_RDWR);
	ASSERT_OK(src);
	memset(&ea, 0, sizeof(ea));
	ea.flags = O_RDWR | O_CLOEXEC;
	ea.size = 0x10000;
	ASSERT_OK(ioctl(src, U_DMA_BUF_IOCTL_EXPORT, &ea));
	close(src);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid)
		bind_loop(pdev, now() + seconds());
	while (waitpid(pid, &status, WNOHANG) == 0) {
		dst = open("/dev/" IR_DST, O_RDWR);
		if (dst < 0)
			continue;	/* between an unbind and its bind */
		memset(&ia, 0, sizeof(ia));
		ia.fd = ea.fd;
		if (!ioctl(dst, U_DMA_BUF_IOCTL_IMPORT, &ia)) {
			ok++;
			close(ia.import_fd);
		} else if (errno == ENODEV) {
			gone++;
		} else {
			other++;
			last = errno;
		}
		close(dst);
	}
	TH_LOG("imports: %u made, %u ENODEV, %u other (last errno %u)", ok, gone, other, last);
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(other, 0U);
	EXPECT_GT(ok, 0U);
	close(ea.fd);
	write_str(DRV "/bind", pdev);
	EXPECT_OK(mgr_delete(IR_DST));
	EXPECT_OK(mgr_delete(IR_SRC));
}

/*
 * A buffer bound to a PCI device (suite.sh makes it, REL_REVOKE_BUF, on the
 * device REL_REVOKE_BDF, and names the driver's unbind file REL_REVOKE_DRV),
 * open, mapped and exported across the driver's unbind: its memory goes
 * back at the unbind, through the device's DMA setup (before: with its last
 * user, after the setup was gone, which the DMA API debugger reports).
 * Nothing of the user's reaches it afterwards: the old mappings fault with
 * SIGBUS; read(), write(), mmap() and the export's mmap() and sync fail
 * with ENODEV.  Meanwhile a child copies with read() and write(), one
 * touches the mapping and one maps the buffer again and again: each copy
 * is whole or ENODEV, each mmap() works or is ENODEV, each touch reads the
 * data or gets SIGBUS, and once the unbind is over, the next one fails.
 */
static sigjmp_buf rv_jmp;

static void rv_sigbus(int sig)
{
	(void)sig;
	siglongjmp(rv_jmp, 1);
}

/* The byte at p, or -1 if reading it raises SIGBUS. */
static int rv_read(volatile const unsigned char *p)
{
	struct sigaction sa = { .sa_handler = rv_sigbus }, old;
	volatile int v = -1;

	sigaction(SIGBUS, &sa, &old);
	if (!sigsetjmp(rv_jmp, 1))
		v = *p;
	sigaction(SIGBUS, &old, NULL);
	return v;
}

/* Has the parent closed its end of the pipe (the unbind is over)? */
static bool rv_over(int rfd)
{
	struct pollfd pfd = { .fd = rfd, .events = POLLIN };

	return poll(&pfd, 1, 0) == 1;
}

/*
 * Copy the last 16 KiB onto itself with read() and write() until ENODEV:
 * exit 0 then, 1 on a short copy or another error, 2 on a copy that
 * started after the unbind and worked.
 */
static void rv_copy_loop(int fd, size_t size, int rfd)
{
	static char b[0x4000];
	off_t off = size - sizeof(b);

	for (;;) {
		bool over = rv_over(rfd);
		ssize_t r = pread(fd, b, sizeof(b), off);
		ssize_t w = r < 0 ? r : pwrite(fd, b, sizeof(b), off);

		if (r < 0 || w < 0)
			_exit(errno == ENODEV ? 0 : 1);
		if (r != (ssize_t)sizeof(b) || w != (ssize_t)sizeof(b))
			_exit(1);
		if (over)
			_exit(2);
	}
}

/*
 * Read every page of the mapping until SIGBUS: exit 0 then, 1 if a page
 * read other data than ref, 2 if a whole pass that started after the unbind read.
 */
static void rv_touch_loop(const unsigned char *p, const unsigned char *ref, size_t size,
			  int rfd)
{
	long pg = ut_page();
	size_t off;

	for (;;) {
		bool over = rv_over(rfd);

		for (off = 0; off < size; off += pg) {
			int v = rv_read(p + off);

			if (v < 0)
				_exit(0);
			if (v != ref[off])
				_exit(1);
		}
		if (over)
			_exit(2);
	}
}

/*
 * Map the buffer anew, read each page of the new mapping, unmap, until
 * mmap() fails with ENODEV or a read gets SIGBUS (a mapping made while the
 * unbind ran): exit 0 then, 1 on other data or another error, 2 if a
 * mapping made after the unbind read.
 */
static void rv_map_loop(int fd, const unsigned char *ref, size_t size, int rfd)
{
	long pg = ut_page();
	size_t off;

	for (;;) {
		bool over = rv_over(rfd);
		unsigned char *m = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);

		if (m == MAP_FAILED)
			_exit(errno == ENODEV ? 0 : 1);
		for (off = 0; off < size; off += pg) {
			int v = rv_read(m + off);

			if (v < 0)
				_exit(0);
			if (v != ref[off])
				_exit(1);
		}
		munmap(m, size);
		if (over)
			_exit(2);
	}
}

/*
 * Has the VMA that starts at p the flag fl among its VmFlags in
 * /proc/self/smaps?  1 or 0; -1 when no VMA starts there.
 */
static int rv_vma_flag(const void *p, const char *fl)
{
	unsigned long start, end;
	bool here = false;
	char line[512], *t, *save;
	int ret = -1;
	FILE *f;

	f = fopen("/proc/self/smaps", "r");
	if (!f)
		return -1;
	while (ret < 0 && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2) {
			here = start == (unsigned long)p;
			continue;
		}
		if (!here || strncmp(line, "VmFlags:", 8))
			continue;
		ret = 0;
		for (t = strtok_r(line + 8, " \n", &save); t; t = strtok_r(NULL, " \n", &save))
			if (!strcmp(t, fl))
				ret = 1;
	}
	fclose(f);
	return ret;
}

/* Fork a child that makes call; only the parent keeps the pipe's write end. */
#define RV_CHILD(pid, go, call) do {					\
		(pid) = fork();						\
		ASSERT_GE((pid), 0);					\
		if (!(pid)) {						\
			close((go)[1]);					\
			call;						\
		}							\
	} while (0)

TEST(pci_unbind_revokes_memory)
{
	const char *name = getenv("REL_REVOKE_BUF");
	const char *drv = getenv("REL_REVOKE_DRV");
	const char *bdf = getenv("REL_REVOKE_BDF");
	struct u_dma_buf_ioctl_export_args args;
	int fd, dfd, go[2], st_copy = -1, st_touch = -1, st_map = -1;
	unsigned char *p, *q, *ref;
	pid_t copier, toucher, mapper;
	uint64_t size = 0;
	char path[256], b[16];

	if (!name || !drv || !bdf)
		SKIP("suite.sh sets REL_REVOKE_BUF, REL_REVOKE_DRV and REL_REVOKE_BDF");
	ASSERT_OK(ut_sysfs_u64("u-dma-buf", name, "size", 0, &size));
	snprintf(path, sizeof(path), "/dev/%s", name);
	fd = open(path, O_RDWR);
	ASSERT_OK(fd);
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	ut_fill(p, size, 0, 13);
	memset(&args, 0, sizeof(args));
	args.flags = O_RDWR | O_CLOEXEC;
	args.size = size;
	ASSERT_OK(ioctl(fd, U_DMA_BUF_IOCTL_EXPORT, &args));
	dfd = args.fd;
	q = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, dfd, 0);
	ASSERT_TRUE(q != MAP_FAILED);
	ASSERT_PATTERN(q, size, 0, 13);
#if defined(__x86_64__)
	/*
	 * x86's VM_PAT ("ar"): each unmap of such a VMA looks up its first
	 * entry, which the revocation takes away, and warns when it is gone.
	 * The driver's mappings of RAM go without it.
	 */
	EXPECT_EQ(rv_vma_flag(p, "ar"), 0);
	EXPECT_EQ(rv_vma_flag(q, "ar"), 0);
#endif
	ref = malloc(size);
	ASSERT_TRUE(ref != NULL);
	memcpy(ref, p, size);
	ASSERT_OK(pipe(go));
	RV_CHILD(copier, go, rv_copy_loop(fd, size, go[0]));
	RV_CHILD(toucher, go, rv_touch_loop(p, ref, size, go[0]));
	RV_CHILD(mapper, go, rv_map_loop(fd, ref, size, go[0]));

	ASSERT_OK(write_str(drv, bdf));
	close(go[1]);

	EXPECT_EQ(rv_read(p), -1);
	EXPECT_EQ(rv_read(p + size - 1), -1);
	EXPECT_EQ(rv_read(q), -1);
	EXPECT_ERRNO(pread(fd, b, sizeof(b), 0), ENODEV);
	EXPECT_ERRNO(pwrite(fd, b, sizeof(b), 0), ENODEV);
	errno = 0;
	EXPECT_TRUE(mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED);
	EXPECT_EQ(errno, ENODEV);
	errno = 0;
	EXPECT_TRUE(mmap(NULL, size, PROT_READ, MAP_SHARED, dfd, 0) == MAP_FAILED);
	EXPECT_EQ(errno, ENODEV);
	EXPECT_EQ(dmabuf_sync(dfd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW), -ENODEV);

	EXPECT_EQ(waitpid(copier, &st_copy, 0), copier);
	EXPECT_EQ(waitpid(toucher, &st_touch, 0), toucher);
	EXPECT_EQ(waitpid(mapper, &st_map, 0), mapper);
	TH_LOG("status: copier %#x, toucher %#x, mapper %#x", st_copy, st_touch, st_map);
	EXPECT_TRUE(WIFEXITED(st_copy) && WEXITSTATUS(st_copy) == 0);
	EXPECT_TRUE(WIFEXITED(st_touch) && WEXITSTATUS(st_touch) == 0);
	EXPECT_TRUE(WIFEXITED(st_map) && WEXITSTATUS(st_map) == 0);
	close(go[0]);
	free(ref);
	munmap(q, size);
	munmap(p, size);
	close(dfd);
	close(fd);
}
