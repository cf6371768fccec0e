// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * measure.c - the timing primitives and the one copy loop every path uses.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>

#include "bench-priv.h"

double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* 16 bytes: one q register on arm64, one xmm register on x86. */
typedef uint64_t bench_vec __attribute__((vector_size(16)));

/*
 * Copy with aligned 16-byte loads and stores, 64 bytes per iteration.
 *
 * The same loop runs on anonymous memory, cached buffers, uncached and
 * write-combine mappings, so the ratios compare the memory and not the
 * copy routine.  Aligned accesses are also legal on arm64 Device memory,
 * where a libc memcpy may fault.  The empty asm keeps the compiler from
 * turning the loop back into a memcpy call.  Sizes are multiples of 64
 * and both ends page-aligned (the bench only passes such buffers).
 */
void bench_copy(void *dst, const void *src, size_t size)
{
	bench_vec *d = dst;
	const bench_vec *s = src;
	size_t n = size / 64;
	size_t i;

	for (i = 0; i < n; i++) {
		bench_vec a = s[0], b = s[1], c = s[2], e = s[3];

		d[0] = a;
		d[1] = b;
		d[2] = c;
		d[3] = e;
		s += 4;
		d += 4;
		__asm__ __volatile__("" ::: "memory");
	}
}

/* A pattern that differs per seed, so a stale buffer never verifies. */
void bench_fill(void *buf, size_t size, uint64_t seed)
{
	uint64_t *w = buf;
	size_t i;

	for (i = 0; i < size / 8; i++)
		w[i] = (seed << 40) ^ (i * 0x9e3779b97f4a7c15ull) ^ i;
}

static int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void bench_stat_of(struct bench_stat *st, double *v, int n)
{
	memset(st, 0, sizeof(*st));
	st->runs = n;
	if (n <= 0)
		return;
	qsort(v, n, sizeof(*v), bench_cmp_double);
	st->min = v[0];
	st->max = v[n - 1];
	st->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

long bench_minflt(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return -1;
	return ru.ru_minflt;
}

long bench_majflt(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return -1;
	return ru.ru_majflt;
}

/*
 * Anonymous memory in 4 KiB pages like the drivers' mappings (no
 * transparent huge pages: the reference differs from a buffer only in the
 * memory behind it), faulted in with a non-zero pattern (never calloc'ed).
 */
void *bench_anon_alloc(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	madvise(p, size, MADV_NOHUGEPAGE);
	bench_fill(p, size, 0x5a);
	return p;
}

void bench_anon_free(void *p, size_t size)
{
	if (p)
		munmap(p, size);
}
