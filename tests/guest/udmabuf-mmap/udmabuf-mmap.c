// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * udmabuf-mmap: how u-dma-buf maps buffers.
 *
 * The buffers come from suite.sh, named by environment variables:
 *   UDMABUF_MMAP_BIG   a 32 MiB buffer (4 MiB where there is no CMA)
 *   UDMABUF_MMAP_ON, _OFF, _AUTO, _PAGE   1 MiB buffers in each mmap mode
 *   UDMABUF_MMAP_DT    the device tree's buffer in a 2 MiB-aligned pool, if any
 *   UDMABUF_MMAP_PMD   BIG where it maps in a pfn mode, else 4 MiB in mode on
 * Fault counts are printed as "# faults=N" TAP diagnostics.
 *
 * This file holds the fault count, round-trip and mmap error tests;
 * udmabuf-mmap-pages.c the page-mode pinning tests, udmabuf-mmap-pmd.c the
 * 2 MiB entry tests and udmabuf-mmap-speed.c the bandwidth diagnostic, which
 * run after them, in that order.
 */
#include "udmabuf-mmap.h"

#define FAULT_GOAL	16

const char *env_buf(const char *var)
{
	const char *name = getenv(var);

	if (!name || !*name)
		SKIP("%s not set: suite.sh could not create that buffer", var);
	return name;
}

uint64_t sysfs_u64(const char *name, const char *attr)
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

int open_buf(const char *name, int flags)
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

TEST_HARNESS_MAIN
