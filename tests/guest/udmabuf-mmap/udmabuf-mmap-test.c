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
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
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
		SKIP("page mode fell back to a pfn mapping (memory not from CMA, see dmesg)");
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

/* O_DIRECT read from a block device into a page-mode mapping. */
TEST(page_mode_odirect_read)
{
	static const char *const devs[] = { "/dev/ram0", "/dev/vda", "/dev/sda", "/dev/nvme0n1" };
	const char *name = env_buf("UDMABUF_MMAP_PAGE");
	int fd = open_buf(name, O_RDWR | O_SYNC), bfd = -1;
	char *p, ref[4096];
	unsigned int i;

	for (i = 0; i < sizeof(devs) / sizeof(devs[0]) && bfd < 0; i++)
		bfd = open(devs[i], O_RDONLY | O_DIRECT);
	if (bfd < 0) {
		close(fd);
		SKIP("no block device for O_DIRECT in this guest (process_vm test covers GUP)");
	}
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	if (vma_has_flag(p, "pf") == 1)
		SKIP("page mode fell back to a pfn mapping (memory not from CMA, see dmesg)");
	memset(p, 0x5a, 4096);
	EXPECT_EQ(pread(bfd, p, 4096, 0), 4096);
	close(bfd);
	bfd = open(devs[i - 1], O_RDONLY);
	ASSERT_OK(bfd);
	EXPECT_EQ(pread(bfd, ref, 4096, 0), 4096);
	EXPECT_EQ(memcmp(p, ref, 4096), 0);
	close(bfd);
	munmap(p, 4096);
	close(fd);
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
