// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * udmabuf-mmap: how u-dma-buf maps buffers.
 *
 * The buffers come from suite.sh, named by environment variables:
 *   UDMABUF_MMAP_BIG   a 32 MiB buffer (4 MiB where there is no CMA)
 *   UDMABUF_MMAP_ON, _OFF, _AUTO, _PAGE   1 MiB buffers in each mmap mode
 * Fault counts are printed as "# faults=N" TAP diagnostics.
 */
#include <fcntl.h>
#include <linux/io_uring.h>
#include <stdint.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>

#include "harness.h"

#define FAULT_GOAL	16

static const char *env_buf(const char *var)
{
	const char *name = getenv(var);

	if (!name || !*name)
		SKIP("%s not set: suite.sh could not create that buffer", var);
	return name;
}

static uint64_t sysfs_u64(const char *name, const char *attr)
{
	char path[256], line[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/u-dma-buf/%s/%s", name, attr);
	f = fopen(path, "r");
	ASSERT_TRUE(f != NULL);
	ASSERT_TRUE(fgets(line, sizeof(line), f) != NULL);
	fclose(f);
	return strtoull(line, NULL, 0);
}

static int open_buf(const char *name, int flags)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "/dev/%s", name);
	fd = open(path, flags);
	ASSERT_OK(fd);
	return fd;
}

static long minflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

/* Touch every page of a fresh mapping once; return the faults it took. */
static long faults_to_touch(const char *name, int oflags, size_t *sizep)
{
	size_t size = sysfs_u64(name, "size"), i;
	volatile uint8_t *p;
	long before, after;
	int fd = open_buf(name, O_RDWR | oflags);

	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	before = minflt();
	for (i = 0; i < size; i += 4096)
		p[i] = (uint8_t)i;
	after = minflt();
	munmap((void *)p, size);
	close(fd);
	*sizep = size;
	return after - before;
}

static void check_faults(const char *var, int oflags)
{
	const char *name = env_buf(var);
	size_t size;
	long faults = faults_to_touch(name, oflags, &size);

	printf("# faults=%ld buffer=%s size=%zu pages=%zu%s\n", faults, name, size,
	       size / 4096, oflags & O_SYNC ? " O_SYNC" : "");
	fflush(stdout);
	EXPECT_LE(faults, FAULT_GOAL);
}

TEST(faults_touch_big_le_16)
{
	check_faults("UDMABUF_MMAP_BIG", 0);
}

TEST(faults_touch_big_osync_le_16)
{
	check_faults("UDMABUF_MMAP_BIG", O_SYNC);
}

TEST(faults_touch_mode_on_le_16)
{
	check_faults("UDMABUF_MMAP_ON", 0);
}

TEST(faults_touch_mode_off_le_16)
{
	check_faults("UDMABUF_MMAP_OFF", 0);
}

TEST(faults_touch_mode_auto_le_16)
{
	check_faults("UDMABUF_MMAP_AUTO", 0);
}

TEST(faults_touch_mode_page_le_16)
{
	check_faults("UDMABUF_MMAP_PAGE", 0);
}

/* Data written through each of mmap/write reads back through each of mmap/read. */
static void check_roundtrip(const char *var, int oflags)
{
	const char *name = env_buf(var);
	size_t size = sysfs_u64(name, "size"), i;
	int fd = open_buf(name, O_RDWR | oflags);
	uint8_t *p, *tmp = malloc(size);
	int bad = 0;

	ASSERT_TRUE(tmp != NULL);
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	for (i = 0; i < size; i++)
		p[i] = (uint8_t)(i * 7 + 1);
	ASSERT_EQ(pread(fd, tmp, size, 0), (ssize_t)size);
	for (i = 0; i < size; i++)
		bad += tmp[i] != (uint8_t)(i * 7 + 1);
	EXPECT_EQ(bad, 0);
	for (i = 0; i < size; i++)
		tmp[i] = (uint8_t)(i * 13 + 5);
	ASSERT_EQ(pwrite(fd, tmp, size, 0), (ssize_t)size);
	bad = 0;
	for (i = 0; i < size; i++)
		bad += p[i] != (uint8_t)(i * 13 + 5);
	EXPECT_EQ(bad, 0);
	munmap(p, size);
	close(fd);
	free(tmp);
}

TEST(roundtrip_mode_on)
{
	check_roundtrip("UDMABUF_MMAP_ON", 0);
}

TEST(roundtrip_mode_on_osync)
{
	check_roundtrip("UDMABUF_MMAP_ON", O_SYNC);
}

TEST(roundtrip_mode_off)
{
	check_roundtrip("UDMABUF_MMAP_OFF", 0);
}

TEST(roundtrip_mode_auto)
{
	check_roundtrip("UDMABUF_MMAP_AUTO", 0);
}

TEST(roundtrip_mode_page)
{
	check_roundtrip("UDMABUF_MMAP_PAGE", 0);
}

TEST(roundtrip_mode_page_osync)
{
	check_roundtrip("UDMABUF_MMAP_PAGE", O_SYNC);
}

TEST(mmap_private_einval)
{
	const char *name = env_buf("UDMABUF_MMAP_ON");
	int fd = open_buf(name, O_RDWR);
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);

	EXPECT_TRUE(p == MAP_FAILED);
	EXPECT_EQ(errno, EINVAL);
	close(fd);
}

TEST(mmap_past_end_einval)
{
	const char *name = env_buf("UDMABUF_MMAP_ON");
	size_t size = sysfs_u64(name, "size");
	int fd = open_buf(name, O_RDWR);
	void *p;

	p = mmap(NULL, size + 4096, PROT_READ, MAP_SHARED, fd, 0);
	EXPECT_TRUE(p == MAP_FAILED);
	EXPECT_EQ(errno, EINVAL);
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, size);
	EXPECT_TRUE(p == MAP_FAILED);
	p = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, size - 4096);
	EXPECT_TRUE(p == MAP_FAILED);
	close(fd);
}

TEST(mmap_offset_maps_that_page)
{
	const char *name = env_buf("UDMABUF_MMAP_ON");
	int fd = open_buf(name, O_RDWR);
	char msg[] = "page-three", *p;

	ASSERT_EQ(pwrite(fd, msg, sizeof(msg), 3 * 4096), (ssize_t)sizeof(msg));
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 3 * 4096);
	ASSERT_TRUE(p != MAP_FAILED);
	EXPECT_EQ(memcmp(p, msg, sizeof(msg)), 0);
	munmap(p, 4096);
	close(fd);
}

TEST(mremap_grow_refused)
{
	const char *name = env_buf("UDMABUF_MMAP_ON");
	int fd = open_buf(name, O_RDWR);
	void *p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0), *q;

	ASSERT_TRUE(p != MAP_FAILED);
	q = mremap(p, 4096, 8192, MREMAP_MAYMOVE);
	EXPECT_TRUE(q == MAP_FAILED);
	munmap(q == MAP_FAILED ? p : q, q == MAP_FAILED ? 4096 : 8192);
	close(fd);
}

TEST(fork_child_sees_mapping)
{
	const char *name = env_buf("UDMABUF_MMAP_ON");
	int fd = open_buf(name, O_RDWR), status;
	volatile uint32_t *p;
	pid_t pid;

	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	close(fd);
	p[0] = 0;
	pid = fork();
	if (pid == 0) {
		p[0] = 0xC0FFEE;
		_exit(0);
	}
	ASSERT_OK(waitpid(pid, &status, 0));
	EXPECT_EQ(p[0], 0xC0FFEE);
	munmap((void *)p, 4096);
}

/* Does /proc/self/smaps show VmFlags @flag for the mapping at @addr? */
static int vma_has_flag(void *addr, const char *flag)
{
	char line[512], want[32];
	unsigned long start, end, a = (unsigned long)addr;
	int in = 0, found = -1;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return -1;
	snprintf(want, sizeof(want), " %s", flag);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2)
			in = a >= start && a < end;
		else if (in && !strncmp(line, "VmFlags:", 8))
			found = strstr(line, want) != NULL;
	}
	fclose(f);
	return found;
}

/*
 * Page mode: the mapping is made of normal pages, so get_user_pages works
 * on it.  process_vm_readv/writev pin the "remote" pages with GUP; our own
 * pid is a fine remote.
 */
TEST(page_mode_gup_process_vm)
{
	const char *name = env_buf("UDMABUF_MMAP_PAGE");
	int fd = open_buf(name, O_RDWR);
	char src[64] = "written-by-process_vm_writev", dst[64] = "";
	struct iovec local, remote;
	char *p;

	p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	if (vma_has_flag(p, "pf") == 1)
		SKIP("page mode fell back to a pfn mapping (see dmesg)");
	EXPECT_EQ(vma_has_flag(p, "mm"), 1);
	local.iov_base = src;
	local.iov_len = sizeof(src);
	remote.iov_base = p + 4096 + 100;
	remote.iov_len = sizeof(src);
	EXPECT_EQ(process_vm_writev(getpid(), &local, 1, &remote, 1, 0), (ssize_t)sizeof(src));
	EXPECT_STREQ(p + 4096 + 100, src);
	local.iov_base = dst;
	EXPECT_EQ(process_vm_readv(getpid(), &local, 1, &remote, 1, 0), (ssize_t)sizeof(dst));
	EXPECT_STREQ(dst, src);
	munmap(p, 8192);
	close(fd);
}

/* The pfn modes are not GUP-able: that is what page mode is for. */
TEST(pfn_mode_gup_efault)
{
	const char *name = env_buf("UDMABUF_MMAP_ON");
	int fd = open_buf(name, O_RDWR);
	char dst[64];
	struct iovec local = { dst, sizeof(dst) }, remote;
	char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	ASSERT_TRUE(p != MAP_FAILED);
	EXPECT_EQ(vma_has_flag(p, "pf"), 1);
	remote.iov_base = p;
	remote.iov_len = sizeof(dst);
	EXPECT_ERRNO(process_vm_readv(getpid(), &local, 1, &remote, 1, 0), EFAULT);
	munmap(p, 4096);
	close(fd);
}

/* A block device for O_DIRECT (brd's /dev/ram0 when suite.sh could load it). */
static int open_odirect_dev(const char **which)
{
	static const char *const devs[] = { "/dev/ram0", "/dev/vda", "/dev/sda", "/dev/nvme0n1" };
	unsigned int i;
	int fd;

	for (i = 0; i < sizeof(devs) / sizeof(devs[0]); i++) {
		fd = open(devs[i], O_RDONLY | O_DIRECT);
		if (fd >= 0) {
			*which = devs[i];
			return fd;
		}
	}
	return -1;
}

/* The first 4 KiB of a block device, read back without O_DIRECT, equal p's. */
static void expect_device_data(const char *dev, const char *p)
{
	char ref[4096];
	int fd = open(dev, O_RDONLY);

	ASSERT_OK(fd);
	EXPECT_EQ(pread(fd, ref, sizeof(ref), 0), (ssize_t)sizeof(ref));
	EXPECT_EQ(memcmp(p, ref, sizeof(ref)), 0);
	close(fd);
}

/* A page-mode mapping of 8 KiB filled with fill, or a skip. */
static char *map_page_mode(int fd, int bfd, int fill)
{
	char *p;

	if (bfd < 0) {
		close(fd);
		SKIP("no block device for O_DIRECT in this guest (process_vm test covers GUP)");
	}
	p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	if (vma_has_flag(p, "pf") == 1)
		SKIP("page mode fell back to a pfn mapping (see dmesg)");
	memset(p, fill, 8192);
	return p;
}

/* O_DIRECT read from a block device into a page-mode mapping. */
TEST(page_mode_odirect_read)
{
	const char *name = env_buf("UDMABUF_MMAP_PAGE");
	const char *which = NULL;
	int fd = open_buf(name, O_RDWR | O_SYNC), bfd = open_odirect_dev(&which);
	char *p = map_page_mode(fd, bfd, 0x5a);

	EXPECT_EQ(pread(bfd, p, 4096, 0), 4096);
	close(bfd);
	expect_device_data(which, p);
	munmap(p, 8192);
	close(fd);
}

/*
 * One IORING_OP_READ through a raw io_uring (no liburing in the guest):
 * with O_DIRECT the kernel pins the destination pages itself, from its
 * own worker context, which a pfn mapping cannot satisfy.
 */
static int uring_read(int fd, void *dst, unsigned int len, int *res)
{
	struct io_uring_params par;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	unsigned int *sq_tail, *sq_array, *cq_head, *cq_tail;
	size_t sq_len, cq_len, sqe_len;
	uint8_t *sq, *cq;
	int ring, ret = -1;

	memset(&par, 0, sizeof(par));
	ring = syscall(__NR_io_uring_setup, 4, &par);
	if (ring < 0)
		return -1;
	sq_len = par.sq_off.array + par.sq_entries * sizeof(unsigned int);
	cq_len = par.cq_off.cqes + par.cq_entries * sizeof(struct io_uring_cqe);
	sqe_len = par.sq_entries * sizeof(struct io_uring_sqe);
	sq = mmap(NULL, sq_len, PROT_READ | PROT_WRITE, MAP_SHARED, ring, IORING_OFF_SQ_RING);
	cq = mmap(NULL, cq_len, PROT_READ | PROT_WRITE, MAP_SHARED, ring, IORING_OFF_CQ_RING);
	sqe = mmap(NULL, sqe_len, PROT_READ | PROT_WRITE, MAP_SHARED, ring, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || sqe == MAP_FAILED)
		goto out;
	sq_tail = (unsigned int *)(sq + par.sq_off.tail);
	sq_array = (unsigned int *)(sq + par.sq_off.array);
	cq_head = (unsigned int *)(cq + par.cq_off.head);
	cq_tail = (unsigned int *)(cq + par.cq_off.tail);

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_READ;
	sqe->fd = fd;
	sqe->addr = (uintptr_t)dst;
	sqe->len = len;
	sqe->off = 0;
	sqe->user_data = 0x5eed;
	sq_array[*sq_tail & *(unsigned int *)(sq + par.sq_off.ring_mask)] = 0;
	__atomic_store_n(sq_tail, *sq_tail + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0)
		goto out;
	if (__atomic_load_n(cq_tail, __ATOMIC_ACQUIRE) == *cq_head)
		goto out;
	cqe = (struct io_uring_cqe *)(cq + par.cq_off.cqes) +
	      (*cq_head & *(unsigned int *)(cq + par.cq_off.ring_mask));
	if (cqe->user_data != 0x5eed)
		goto out;
	*res = cqe->res;
	__atomic_store_n(cq_head, *cq_head + 1, __ATOMIC_RELEASE);
	ret = 0;
out:
	if (sq != MAP_FAILED)
		munmap(sq, sq_len);
	if (cq != MAP_FAILED)
		munmap(cq, cq_len);
	if (sqe != MAP_FAILED)
		munmap(sqe, sqe_len);
	close(ring);
	return ret;
}

/* io_uring O_DIRECT read from a block device into a page-mode mapping. */
TEST(page_mode_io_uring_odirect_read)
{
	const char *name = env_buf("UDMABUF_MMAP_PAGE");
	const char *which = NULL;
	int fd = open_buf(name, O_RDWR), bfd = open_odirect_dev(&which), res = 0;
	char *p = map_page_mode(fd, bfd, 0xa5);

	/* the second page, so that the pin is not of the block's first page */
	if (uring_read(bfd, p + 4096, 4096, &res) && errno == ENOSYS)
		SKIP("this kernel has no io_uring");
	EXPECT_EQ(res, 4096);
	close(bfd);
	expect_device_data(which, p + 4096);
	EXPECT_EQ((unsigned char)p[0], 0xa5);
	munmap(p, 8192);
	close(fd);
}

/* Does the kernel log hold this text? */
static int log_has(const char *text)
{
	static char logbuf[1 << 20];
	int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, logbuf, sizeof(logbuf) - 1);

	if (n < 0)
		return -1;
	logbuf[n] = '\0';
	return strstr(logbuf, text) != NULL;
}

/*
 * A page reference that outlives the buffer: vmsplice() leaves the page in
 * a pipe after munmap, close and delete.  The driver must not free memory
 * that is still referenced (that would be a use after free and a "Bad page
 * state" or CMA warning in the log); the pipe still reads the data.
 */
TEST(page_mode_page_held_by_pipe_outlives_buffer)
{
	static const char create[] = "create udmem-mm-pin 0x10000 quirk-mmap-page\n";
	static const char del[] = "delete udmem-mm-pin\n";
	static const char msg[] = "held-by-a-pipe";
	struct iovec iov;
	char got[4096];
	int mgr, fd, pfd[2];
	char *p;

	mgr = open("/dev/u-dma-buf-mgr", O_WRONLY);
	ASSERT_OK(mgr);
	ASSERT_EQ(write(mgr, create, strlen(create)), (ssize_t)strlen(create));
	fd = open("/dev/udmem-mm-pin", O_RDWR);
	ASSERT_OK(fd);
	p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	if (vma_has_flag(p, "pf") == 1) {
		munmap(p, 8192);
		close(fd);
		EXPECT_EQ(write(mgr, del, strlen(del)), (ssize_t)strlen(del));
		SKIP("page mode fell back to a pfn mapping (see dmesg)");
	}
	memset(p, 0x77, 8192);
	memcpy(p + 4096, msg, sizeof(msg));
	ASSERT_OK(pipe(pfd));
	iov.iov_base = p + 4096;
	iov.iov_len = 4096;
	EXPECT_EQ(vmsplice(pfd[1], &iov, 1, 0), 4096);
	munmap(p, 8192);
	close(fd);
	/* nothing but the pipe holds it: the delete is allowed */
	EXPECT_EQ(write(mgr, del, strlen(del)), (ssize_t)strlen(del));
	EXPECT_EQ(access("/dev/udmem-mm-pin", F_OK), -1);
	EXPECT_EQ(read(pfd[0], got, sizeof(got)), (ssize_t)sizeof(got));
	EXPECT_STREQ(got, msg);
	EXPECT_EQ(log_has("udmem-mm-pin: page 1 is still in use"), 1);
	EXPECT_EQ((unsigned char)got[sizeof(msg)], 0x77);
	close(pfd[0]);
	close(pfd[1]);
	close(mgr);
}

static double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Not a timed test (TCG timings are noise): memcpy bandwidth out of and
 * into the mapping beside the same copies on anonymous memory, printed as
 * a diagnostic for the benchmark record; the copies must be right.
 */
TEST(copy_bandwidth_mapping_vs_anon_diag)
{
	const char *name = env_buf("UDMABUF_MMAP_BIG");
	size_t size = sysfs_u64(name, "size");
	int fd = open_buf(name, O_RDWR);
	uint8_t *map, *a, *b;
	double t0, t_rd, t_wr, t_anon;
	int pass;

	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_TRUE(map != MAP_FAILED);
	a = malloc(size);
	b = malloc(size);
	ASSERT_TRUE(a && b);
	memset(a, 0x3c, size);
	memset(b, 0, size);
	for (pass = 0; pass < 3; pass++) {
		if (pass == 2) {
			/* a fresh mapping, as seed 000 does for every test */
			munmap(map, size);
			map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
			ASSERT_TRUE(map != MAP_FAILED);
		}
		t0 = now_sec();
		memcpy(map, a, size);
		t_wr = now_sec() - t0;
		t0 = now_sec();
		memcpy(b, map, size);
		t_rd = now_sec() - t0;
		t0 = now_sec();
		memcpy(b, a, size);
		t_anon = now_sec() - t0;
		printf("# copy MB/s %s pass %d: into-mapping %.0f out-of-mapping %.0f anon-to-anon %.0f\n",
		       name, pass, size / t_wr / 1e6, size / t_rd / 1e6, size / t_anon / 1e6);
	}
	{
		int k;

		for (k = 0; k < 2; k++) {
			uint8_t *c = mmap(NULL, size, PROT_READ | PROT_WRITE,
					  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			madvise(c, size, k ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
			memset(c, 0x11, size);
			t0 = now_sec();
			memcpy(b, c, size);
			t_rd = now_sec() - t0;
			t0 = now_sec();
			memcpy(b, c, size);
			t_wr = now_sec() - t0;
			printf("# copy MB/s fresh anon %s: first read %.0f second %.0f\n",
			       k ? "THP" : "4K", size / t_rd / 1e6, size / t_wr / 1e6);
			munmap(c, size);
		}
		t0 = now_sec();
		memcpy(b, map, size);
		t_rd = now_sec() - t0;
		printf("# copy MB/s mapping again %.0f\n", size / t_rd / 1e6);
		munmap(map, size);
		map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		t0 = now_sec();
		memcpy(b, map, size);
		t_rd = now_sec() - t0;
		printf("# copy MB/s fresh mapping read-first %.0f\n", size / t_rd / 1e6);
	}
	fflush(stdout);
	EXPECT_EQ(memcmp(b, map, size), 0);
	munmap(map, size);
	close(fd);
}

TEST_HARNESS_MAIN
