// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * udmabuf-reliability: regression tests for the u-dma-buf defects of the
 * reliability review (issue 10).  Each test failed before its fix.
 *
 *  - mgr_line.*: the manager's per-file line state under four threads
 *    writing one byte at a time to one fd: every byte is either taken or
 *    refused with ENOSPC when the line is full, and no byte is lost;
 *  - sync_access.*: a sync that may invalidate the CPU cache (for the CPU
 *    bidirectional or from the device, for the device from the device)
 *    needs a file open for writing (EBADF otherwise); cleaning syncs do not;
 *    the same for DMA_BUF_IOCTL_SYNC on a read-only export and for a new
 *    sync_mode through SET_SYNC, and an O_SYNC read() of a read-only file
 *    does no sync (issue 31);
 *  - page_refault.*: a page-mode page zapped by MADV_DONTNEED and faulted
 *    back in is still a normal page (get_user_pages, O_DIRECT);
 *  - minors.*: automatic minors while another buffer is created and
 *    removed over and over (bind/unbind): never ENOSPC while minors are
 *    free, and reusing the name of a buffer being removed is clean;
 *  - rmem.*: a device-tree buffer with a memory-region, held by a mapping
 *    across unbind and bind, then released: the other buffer of the same
 *    device keeps its pool (suite.sh checks the kernel log and CmaFree);
 *  - dma_offset.*: a buffer on a bus with an offset dma-ranges, exported
 *    and mapped across an unbind: no sync through the torn-down map, and
 *    the memory is freed only with a driver bound (suite.sh checks the
 *    kernel log for each case); dma_offset_import_*: an import into such a
 *    buffer held across the unbind is unmapped while the DMA setup is there;
 *  - import_races_removal: IMPORT while the importing buffer is unbound and
 *    bound over and over: an import file or ENODEV, nothing else (issue 31).
 *
 * Environment (suite.sh): REL_SECONDS (stress time per test, default 10),
 * REL_RMEM_NODES (device-tree nodes for rmem, space separated; unset: skip).
 *
 * This file holds mgr_line, sync_access and page_refault;
 * udmabuf-reliability-devices.c the others, which run after them.
 */
#include "udmabuf-reliability.h"

int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY), ret;

	if (fd < 0)
		return -errno;
	ret = write(fd, s, strlen(s));
	ret = ret < 0 ? -errno : 0;
	close(fd);
	return ret;
}

int mgr_create(const char *name, unsigned long size, const char *opt)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "create %s %lu %s\n", name, size, opt);
	return write_str(MGR, cmd);
}

int mgr_delete(const char *name)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "delete %s\n", name);
	return write_str(MGR, cmd);
}

unsigned int seconds(void)
{
	return (unsigned int)strtoul(ut_env("REL_SECONDS", "10"), NULL, 10);
}

double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ------------------------------------------------------------ defect 3 */

struct line_stress {
	int fd;
	double until;
	atomic_ulong taken;	/* bytes the manager accepted */
	atomic_ulong refused;	/* ENOSPC: the line was full */
	atomic_ulong other;	/* any other result */
	int other_errno;
};

static void *line_writer(void *arg)
{
	struct line_stress *s = arg;
	unsigned long taken = 0, refused = 0, other = 0;

	while (now() < s->until) {
		int i;

		for (i = 0; i < 256; i++) {
			ssize_t n = write(s->fd, "x", 1);

			if (n == 1) {
				taken++;
			} else if (n < 0 && errno == ENOSPC) {
				refused++;
			} else {
				other++;
				s->other_errno = n < 0 ? errno : 0;
			}
		}
	}
	atomic_fetch_add(&s->taken, taken);
	atomic_fetch_add(&s->refused, refused);
	atomic_fetch_add(&s->other, other);
	return NULL;
}

/*
 * A full line is refused exactly when it holds LINE_MAX_LEN bytes, and the
 * refusal empties it; so after any interleaving, the bytes taken equal
 * LINE_MAX_LEN per refusal plus what the line holds now, which one thread
 * then measures by filling it.  A lost update of the line length, or a
 * length that ran past the limit, breaks the equation.
 */
TEST(mgr_line_four_threads_one_byte_writes)
{
	struct line_stress s = { 0 };
	pthread_t th[4];
	unsigned long held = 0, total;
	int i;

	s.fd = open(MGR, O_WRONLY);
	ASSERT_OK(s.fd);
	s.until = now() + seconds();
	for (i = 0; i < 4; i++)
		ASSERT_EQ(pthread_create(&th[i], NULL, line_writer, &s), 0);
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	EXPECT_EQ(atomic_load(&s.other), 0UL);
	if (atomic_load(&s.other))
		TH_LOG("unexpected result, errno %d", s.other_errno);
	/* What the line holds: LINE_MAX_LEN - (bytes it still takes). */
	for (i = 0; i <= 4 * LINE_MAX_LEN; i++) {
		if (write(s.fd, "x", 1) != 1)
			break;
		held++;
	}
	ASSERT_LE(held, (unsigned long)LINE_MAX_LEN);
	EXPECT_EQ(errno, ENOSPC);
	total = atomic_load(&s.taken);
	TH_LOG("%lu bytes taken, %lu refusals, line held %lu", total,
	       atomic_load(&s.refused), LINE_MAX_LEN - held);
	EXPECT_GT(atomic_load(&s.refused), 0UL);
	EXPECT_EQ(total, atomic_load(&s.refused) * LINE_MAX_LEN + (LINE_MAX_LEN - held));
	close(s.fd);
}

/* ------------------------------------------------------------ defect 8 */

#define SA_NAME	"udmem-rel-sync"

FIXTURE(sync_access) {
	int ro, rw;
};

FIXTURE_SETUP(sync_access)
{
	self->ro = self->rw = -1;
	ASSERT_OK(mgr_create(SA_NAME, 0x10000, ""));
	self->ro = open("/dev/" SA_NAME, O_RDONLY);
	ASSERT_OK(self->ro);
	self->rw = open("/dev/" SA_NAME, O_RDWR);
	ASSERT_OK(self->rw);
}

FIXTURE_TEARDOWN(sync_access)
{
	if (self->ro >= 0)
		close(self->ro);
	if (self->rw >= 0)
		close(self->rw);
	mgr_delete(SA_NAME);
}

/* A packed one-off command: offset 0, 4 KiB, direction dir. */
static uint64_t packed(unsigned int dir)
{
	return 0x1000 | (dir << 2) | 1;
}

static int sync_ioctl(int fd, bool for_device, uint64_t cmd)
{
	unsigned long req = for_device ? U_DMA_BUF_IOCTL_SET_SYNC_FOR_DEVICE :
				       U_DMA_BUF_IOCTL_SET_SYNC_FOR_CPU;

	return ioctl(fd, req, &cmd) ? -errno : 0;
}

static int set_direction(unsigned int dir)
{
	char v[8];

	snprintf(v, sizeof(v), "%u", dir);
	return ut_sysfs_write("u-dma-buf", SA_NAME, "sync_direction", v);
}

TEST_F(sync_access, invalidating_syncs_need_a_writable_fd)
{
	unsigned int dir;

	/* for the CPU: bidirectional (0) and from device (2) invalidate */
	for (dir = 0; dir <= 2; dir++) {
		int want = dir == 1 ? 0 : -EBADF;

		EXPECT_EQ(sync_ioctl(self->ro, false, packed(dir)), want);
		ASSERT_OK(set_direction(dir));
		EXPECT_EQ(sync_ioctl(self->ro, false, 1), want);
		EXPECT_EQ(sync_ioctl(self->rw, false, 1), 0);
		EXPECT_EQ(sync_ioctl(self->rw, false, packed(dir)), 0);
	}
	/* for the device: only from device (2) invalidates */
	for (dir = 0; dir <= 2; dir++) {
		int want = dir == 2 ? -EBADF : 0;

		EXPECT_EQ(sync_ioctl(self->ro, true, packed(dir)), want);
		EXPECT_EQ(sync_ioctl(self->rw, true, packed(dir)), 0);
	}
}

TEST_F(sync_access, set_sync_for_cpu_needs_a_writable_fd)
{
	struct u_dma_buf_ioctl_sync_args args;

	memset(&args, 0, sizeof(args));
	SET_U_DMA_BUF_IOCTL_FLAGS_SYNC_CMD(&args, U_DMA_BUF_IOCTL_FLAGS_SYNC_CMD_FOR_CPU);
	SET_U_DMA_BUF_IOCTL_FLAGS_SYNC_DIR(&args, 2);
	args.size = 0x1000;
	EXPECT_ERRNO(ioctl(self->ro, U_DMA_BUF_IOCTL_SET_SYNC, &args), EBADF);
	EXPECT_OK(ioctl(self->rw, U_DMA_BUF_IOCTL_SET_SYNC, &args));
	SET_U_DMA_BUF_IOCTL_FLAGS_SYNC_DIR(&args, 1);
	EXPECT_OK(ioctl(self->ro, U_DMA_BUF_IOCTL_SET_SYNC, &args));
	/* a refused sync leaves the owner as the last successful one set it */
	EXPECT_OK(sync_ioctl(self->rw, true, 1));
	SET_U_DMA_BUF_IOCTL_FLAGS_SYNC_DIR(&args, 0);
	EXPECT_ERRNO(ioctl(self->ro, U_DMA_BUF_IOCTL_SET_SYNC, &args), EBADF);
	EXPECT_EQ(ut_sysfs_get("u-dma-buf", SA_NAME, "sync_owner", 10), 1ULL);
}

/* A read-only export of the first page of the buffer open as @fd. */
static int export_ro(int fd)
{
	struct u_dma_buf_ioctl_export_args ea;

	memset(&ea, 0, sizeof(ea));
	ea.flags = O_RDONLY | O_CLOEXEC;
	ea.size = ut_page();
	ea.fd = -1;
	return ioctl(fd, U_DMA_BUF_IOCTL_EXPORT, &ea) ? -errno : (int)ea.fd;
}

static int dmabuf_sync(int dfd, uint64_t flags)
{
	struct dma_buf_sync s = { .flags = flags };

	return ioctl(dfd, DMA_BUF_IOCTL_SYNC, &s) ? -errno : 0;
}

/*
 * DMA_BUF_IOCTL_SYNC on a read-only export: START with READ syncs for the
 * CPU from the device (an invalidate), END with READ for the device from
 * the device (one too): EBADF, as on a read-only /dev file.  WRITE alone
 * (a clean) is no write to anybody's data.  A writable export does all.
 */
TEST_F(sync_access, read_only_export_refuses_invalidating_syncs)
{
	int dfd = export_ro(self->rw), wfd;
	struct u_dma_buf_ioctl_export_args ea;

	ASSERT_OK(dfd);
	EXPECT_EQ(dmabuf_sync(dfd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ), -EBADF);
	EXPECT_EQ(dmabuf_sync(dfd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW), -EBADF);
	EXPECT_EQ(dmabuf_sync(dfd, DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ), -EBADF);
	EXPECT_EQ(dmabuf_sync(dfd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE), 0);
	EXPECT_EQ(dmabuf_sync(dfd, DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE), 0);
	close(dfd);

	memset(&ea, 0, sizeof(ea));
	ea.flags = O_RDWR | O_CLOEXEC;
	ea.size = ut_page();
	ea.fd = -1;
	ASSERT_OK(ioctl(self->rw, U_DMA_BUF_IOCTL_EXPORT, &ea));
	wfd = ea.fd;
	EXPECT_EQ(dmabuf_sync(wfd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ), 0);
	EXPECT_EQ(dmabuf_sync(wfd, DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ), 0);
	close(wfd);
}

/*
 * A new sync_mode through SET_SYNC changes what every user's read(),
 * write() and mmap() do (mode 4 makes their reads invalidate): EBADF from
 * a read-only file, with nothing stored; the mode it has already is fine.
 */
TEST_F(sync_access, set_sync_mode_needs_a_writable_fd)
{
	struct u_dma_buf_ioctl_sync_args args;

	memset(&args, 0, sizeof(args));
	SET_U_DMA_BUF_IOCTL_FLAGS_SYNC_DIR(&args, U_DMA_BUF_SYNC_DIR_KEEP);
	SET_U_DMA_BUF_IOCTL_FLAGS_SYNC_MODE(&args, 5);
	args.size = 0x1000;
	EXPECT_ERRNO(ioctl(self->ro, U_DMA_BUF_IOCTL_SET_SYNC, &args), EBADF);
	EXPECT_EQ(ut_sysfs_get("u-dma-buf", SA_NAME, "sync_mode", 10), 1ULL);
	/* the mode it has (1, the default), and 0 (keep): no change */
	SET_U_DMA_BUF_IOCTL_FLAGS_SYNC_MODE(&args, 1);
	EXPECT_OK(ioctl(self->ro, U_DMA_BUF_IOCTL_SET_SYNC, &args));
	SET_U_DMA_BUF_IOCTL_FLAGS_SYNC_MODE(&args, 0);
	EXPECT_OK(ioctl(self->ro, U_DMA_BUF_IOCTL_SET_SYNC, &args));
	SET_U_DMA_BUF_IOCTL_FLAGS_SYNC_MODE(&args, 5);
	EXPECT_OK(ioctl(self->rw, U_DMA_BUF_IOCTL_SET_SYNC, &args));
	EXPECT_EQ(ut_sysfs_get("u-dma-buf", SA_NAME, "sync_mode", 10), 5ULL);
	SET_U_DMA_BUF_IOCTL_FLAGS_SYNC_MODE(&args, 1);
	EXPECT_ERRNO(ioctl(self->ro, U_DMA_BUF_IOCTL_SET_SYNC, &args), EBADF);
	EXPECT_EQ(ut_sysfs_get("u-dma-buf", SA_NAME, "sync_mode", 10), 5ULL);
}

/*
 * read() of an O_SYNC file hands the range to the CPU (an invalidate) and
 * back to the device: through a read-only file it reads the memory as
 * without O_SYNC and leaves the sync owner alone; through a writable one
 * the owner is the device after it, as in the original driver.
 */
TEST_F(sync_access, o_sync_read_only_read_does_not_sync)
{
	int ro = open("/dev/" SA_NAME, O_RDONLY | O_SYNC);
	int rw = open("/dev/" SA_NAME, O_RDWR | O_SYNC);
	char b[64];

	ASSERT_OK(ro);
	ASSERT_OK(rw);
	ASSERT_EQ(pwrite(self->rw, "udmem", 5, 0), 5);
	ASSERT_OK(sync_ioctl(self->rw, false, packed(1)));
	ASSERT_EQ(ut_sysfs_get("u-dma-buf", SA_NAME, "sync_owner", 10), 0ULL);
	ASSERT_EQ(pread(ro, b, sizeof(b), 0), (ssize_t)sizeof(b));
	EXPECT_EQ(memcmp(b, "udmem", 5), 0);
	EXPECT_EQ(ut_sysfs_get("u-dma-buf", SA_NAME, "sync_owner", 10), 0ULL);
	ASSERT_EQ(pread(rw, b, sizeof(b), 0), (ssize_t)sizeof(b));
	EXPECT_EQ(memcmp(b, "udmem", 5), 0);
	EXPECT_EQ(ut_sysfs_get("u-dma-buf", SA_NAME, "sync_owner", 10), 1ULL);
	close(ro);
	close(rw);
}

/* ------------------------------------------------------------ defect 7 */

#define PR_NAME	"udmem-rel-page"
#define PR_SIZE	0x10000

static int pfn_mapped(void *addr)
{
	char line[512];
	unsigned long start, end, a = (unsigned long)addr;
	int in = 0, found = -1;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2)
			in = a >= start && a < end;
		else if (in && !strncmp(line, "VmFlags:", 8))
			found = strstr(line, " pf") != NULL;
	}
	fclose(f);
	return found;
}

FIXTURE(page_refault) {
	int fd;
	char *p;
};

FIXTURE_SETUP(page_refault)
{
	long pg = ut_page();

	self->fd = -1;
	self->p = MAP_FAILED;
	ASSERT_OK(mgr_create(PR_NAME, PR_SIZE, "quirk-mmap-page"));
	self->fd = open("/dev/" PR_NAME, O_RDWR);
	ASSERT_OK(self->fd);
	self->p = mmap(NULL, PR_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0);
	ASSERT_TRUE(self->p != MAP_FAILED);
	if (pfn_mapped(self->p) == 1)
		SKIP("page mode fell back to a pfn mapping (see dmesg)");
	memset(self->p, 0x11, PR_SIZE);
	/* zap page 1 and fault it back in */
	ASSERT_OK(madvise(self->p + pg, pg, MADV_DONTNEED));
	ASSERT_EQ(self->p[pg], 0x11);
	self->p[pg] = 0x22;
}

FIXTURE_TEARDOWN(page_refault)
{
	if (self->p != MAP_FAILED)
		munmap(self->p, PR_SIZE);
	if (self->fd >= 0)
		close(self->fd);
	mgr_delete(PR_NAME);
}

/* process_vm_writev pins the "remote" pages with get_user_pages. */
TEST_F(page_refault, refaulted_page_is_gupable)
{
	long pg = ut_page();
	char src[64];
	struct iovec local = { src, sizeof(src) };
	struct iovec remote = { self->p + pg, sizeof(src) };

	memset(src, 0x33, sizeof(src));
	EXPECT_EQ(process_vm_writev(getpid(), &local, 1, &remote, 1, 0), (ssize_t)sizeof(src));
	EXPECT_EQ(self->p[pg], 0x33);
}

TEST_F(page_refault, refaulted_page_takes_odirect_read)
{
	long pg = ut_page();
	char ref[4096];
	int bfd = open("/dev/ram0", O_RDONLY | O_DIRECT), fd;

	if (bfd < 0)
		SKIP("no /dev/ram0 for O_DIRECT in this guest");
	ASSERT_LE((long)sizeof(ref), pg);
	EXPECT_EQ(pread(bfd, self->p + pg, sizeof(ref), 0), (ssize_t)sizeof(ref));
	close(bfd);
	fd = open("/dev/ram0", O_RDONLY);
	ASSERT_OK(fd);
	EXPECT_EQ(pread(fd, ref, sizeof(ref), 0), (ssize_t)sizeof(ref));
	close(fd);
	EXPECT_EQ(memcmp(self->p + pg, ref, sizeof(ref)), 0);
}

TEST_HARNESS_MAIN
