// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * udmabuf-mmap-speed.c - udmabuf-mmap's diagnostic copy bandwidth of a mapping against
 * anonymous memory.
 */
#include "udmabuf-mmap.h"

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
