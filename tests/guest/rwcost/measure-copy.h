/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* The bench's copy loop (bench/measure.c), for rwcost's reference. */
#include <stddef.h>
#include <stdint.h>

typedef uint64_t rwcost_vec __attribute__((vector_size(16)));

static inline void rwcost_copy(void *dst, const void *src, size_t size)
{
	rwcost_vec *d = dst;
	const rwcost_vec *s = src;

	for (size_t i = 0; i < size / 64; i++) {
		rwcost_vec x = s[0], y = s[1], z = s[2], w = s[3];

		d[0] = x; d[1] = y; d[2] = z; d[3] = w;
		s += 4; d += 4;
		__asm__ __volatile__("" ::: "memory");
	}
}
