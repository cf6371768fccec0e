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
 *    kernel log for each case).
 *
 * Environment (suite.sh): REL_SECONDS (stress time per test, default 10),
 * REL_RMEM_NODES (device-tree nodes for rmem, space separated; unset: skip).
 */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <linux/dma-buf.h>
#include <linux/u-dma-buf-ioctl.h>

#include "harness.h"
#include "ut.h"

#define MGR		"/dev/u-dma-buf-mgr"
#define DRV		"/sys/bus/platform/drivers/u-dma-buf"
#define LINE_MAX_LEN	1023	/* the longest command the manager takes */

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY), ret;

	if (fd < 0)
		return -errno;
	ret = write(fd, s, strlen(s));
	ret = ret < 0 ? -errno : 0;
	close(fd);
	return ret;
}

static int mgr_create(const char *name, unsigned long size, const char *opt)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "create %s %lu %s\n", name, size, opt);
	return write_str(MGR, cmd);
}

static int mgr_delete(const char *name)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "delete %s\n", name);
	return write_str(MGR, cmd);
}

static unsigned int seconds(void)
{
	return (unsigned int)strtoul(ut_env("REL_SECONDS", "10"), NULL, 10);
}

static double now(void)
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

TEST_HARNESS_MAIN
