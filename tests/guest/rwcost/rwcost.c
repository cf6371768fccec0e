// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rwcost - where read()/write() of a u-dma-buf buffer spend their guest
 * time against mmap and anonymous memory.  Under QEMU -icount shift=0 one
 * nanosecond of guest time is one instruction, so every figure printed is
 * an instruction count (the minimum of REPS runs).  docs/benchmarks.md
 * ("Where read() and write() spend it") explains the figures.
 *
 *   rwcost DEV [SIZE]     DEV: a /dev name, SIZE bytes (default 2 MiB)
 *
 * One TAP result: every step ran.  The figures are "# rwcost" lines.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/u-dma-buf-ioctl.h>

#include "measure-copy.h"

#define REPS 5

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static uint64_t t_min;

/* Run STMT REPS times; t_min is its shortest run in guest nanoseconds. */
#define TIMED(stmt)							\
	do {								\
		t_min = ~0ull;						\
		for (int r_ = 0; r_ < REPS; r_++) {			\
			uint64_t t0_ = now_ns(), d_;			\
									\
			stmt;						\
			d_ = now_ns() - t0_;				\
			if (d_ < t_min)					\
				t_min = d_;				\
		}							\
	} while (0)

static size_t size;

static void report(const char *what, uint64_t ns, unsigned long calls)
{
	printf("# rwcost %-34s %10llu instr  %6.2f instr/64B  %8.1f per call\n",
	       what, (unsigned long long)ns, ns * 64.0 / size,
	       calls ? (double)ns / calls : 0.0);
}

static void rw_chunks(int fd, void *buf, size_t chunk, int wr)
{
	for (size_t off = 0; off < size; off += chunk) {
		ssize_t n = wr ? pwrite(fd, (char *)buf + off, chunk, off) :
				 pread(fd, (char *)buf + off, chunk, off);
		if (n != (ssize_t)chunk) {
			perror(wr ? "pwrite" : "pread");
			exit(1);
		}
	}
}

static void sync_ioctl(int fd, int for_device, int dir)
{
	struct u_dma_buf_ioctl_sync_args a = {
		.flags = (for_device ? 3u : 1u) | ((uint64_t)dir << 2),
		.size = size, .offset = 0,
	};

	if (ioctl(fd, U_DMA_BUF_IOCTL_SET_SYNC, &a)) {
		perror("U_DMA_BUF_IOCTL_SET_SYNC");
		exit(1);
	}
}

static void files(const char *name, int fd, void *ubuf)
{
	static const size_t chunks[] = { 4096, 65536, 0 };
	char what[96];

	for (int i = 0; i < 3; i++) {
		size_t c = chunks[i] ? chunks[i] : size;

		TIMED(rw_chunks(fd, ubuf, c, 1));
		snprintf(what, sizeof(what), "%s pwrite %zu KiB", name, c >> 10);
		report(what, t_min, size / c);
		TIMED(rw_chunks(fd, ubuf, c, 0));
		snprintf(what, sizeof(what), "%s pread %zu KiB", name, c >> 10);
		report(what, t_min, size / c);
	}
}

int main(int argc, char **argv)
{
	char path[128], what[96];
	void *a, *b, *map;
	int fd, mfd, sfd;

	if (argc < 2) {
		fprintf(stderr, "usage: rwcost DEV [SIZE]\n");
		return 2;
	}
	printf("1..1\n");
	size = argc > 2 ? strtoul(argv[2], NULL, 0) : 2u << 20;
	a = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	b = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a == MAP_FAILED || b == MAP_FAILED)
		return 1;
	madvise(a, size, MADV_NOHUGEPAGE);
	madvise(b, size, MADV_NOHUGEPAGE);
	memset(a, 0x5a, size);
	memset(b, 0xa5, size);

	TIMED((void)0);
	report("clock_gettime pair", t_min, 1);
	TIMED(getppid());
	report("getppid (empty syscall)", t_min, 1);
	TIMED(rwcost_copy(b, a, size));
	report("anon user copy loop", t_min, 0);
	TIMED(memcpy(b, a, size));
	report("anon libc memcpy", t_min, 0);

	mfd = memfd_create("rwcost", 0);
	if (mfd < 0 || ftruncate(mfd, size))
		return 1;
	rw_chunks(mfd, a, size, 1);
	files("memfd", mfd, b);

	snprintf(path, sizeof(path), "/dev/%s", argv[1]);
	fd = open(path, O_RDWR);
	sfd = open(path, O_RDWR | O_SYNC);
	if (fd < 0 || sfd < 0) {
		perror(path);
		return 1;
	}
	files(argv[1], fd, b);
	snprintf(what, sizeof(what), "%s O_SYNC", argv[1]);
	files(what, sfd, b);

	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return 1;
	TIMED(rwcost_copy(map, a, size));
	report("mmap write (user copy loop)", t_min, 0);
	TIMED(rwcost_copy(b, map, size));
	report("mmap read (user copy loop)", t_min, 0);
	TIMED(sync_ioctl(fd, 0, 2));
	report("ioctl sync for cpu, from device", t_min, 1);
	TIMED(sync_ioctl(fd, 1, 1));
	report("ioctl sync for device, to device", t_min, 1);
	TIMED(sync_ioctl(fd, 0, 0));
	report("ioctl sync for cpu, bidirectional", t_min, 1);
	TIMED(sync_ioctl(fd, 1, 0));
	report("ioctl sync for device, bidirectional", t_min, 1);
	printf("ok 1 - rwcost %s measured\n", argv[1]);
	return 0;
}
