/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cache-walk.h - the cache-line walks the cache-<arch>.c files share.
 *
 * The per-line operations are __always_inline instruction wrappers, so each
 * walk compiles to the same plain loop an architecture file would write.
 * Plain C on udmem_types.h: tests/unit checks the walks on the host.
 */
#ifndef UIOMEM_CACHE_WALK_H
#define UIOMEM_CACHE_WALK_H

#include "common/udmem_types.h"

typedef void (*uiomem_line_op_t)(unsigned long addr);

/* Apply @op to [@first, @last), one line at a time. */
static __always_inline void uiomem_walk(unsigned long first, unsigned long last,
					u32 line, uiomem_line_op_t op)
{
	for (; first < last; first += line)
		op(first);
}

/* Apply @op to every line holding a byte of [@start, @start + @size). */
static __always_inline void uiomem_walk_lines(unsigned long start, size_t size,
					      u32 line, uiomem_line_op_t op)
{
	uiomem_walk(ALIGN_DOWN(start, line), start + size, line, op);
}

/*
 * The edges of an invalidate: a line the range covers only in part also
 * holds its neighbour's data, so @edge_op (clean and invalidate) runs on it
 * instead of a plain discard.  The whole lines left are [*@first, *@last).
 */
static __always_inline void uiomem_walk_edges(unsigned long start, size_t size,
					      u32 line, uiomem_line_op_t edge_op,
					      unsigned long *first,
					      unsigned long *last)
{
	unsigned long end = start + size;
	unsigned long a = ALIGN_DOWN(start, line);
	unsigned long l = ALIGN_DOWN(end, line);

	if (a != start) {
		edge_op(a);
		a += line;
	}
	if (l != end && l >= a)
		edge_op(l);
	*first = a;
	*last = l;
}

#endif /* UIOMEM_CACHE_WALK_H */
