/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * udmem_range.h - overflow-safe range checks for buffers and regions.
 */
#ifndef UDMEM_COMMON_RANGE_H
#define UDMEM_COMMON_RANGE_H

#include "udmem_types.h"

/**
 * udmem_range_ok() - is [offset, offset + size) inside [0, total)?
 * @offset: start of the range
 * @size: length of the range; 0 is an empty range
 * @total: length of the object
 *
 * An empty range is valid anywhere from 0 to @total inclusive, so a range
 * that ends exactly at @total is valid and one that wraps around 2^64 is not.
 *
 * Return: true if the range is inside the object.
 */
static inline bool udmem_range_ok(u64 offset, u64 size, u64 total)
{
	u64 end;

	if (check_add_overflow(offset, size, &end))
		return false;
	return end <= total;
}

/**
 * udmem_range_check() - udmem_range_ok() as an errno
 * @offset: start of the range
 * @size: length of the range
 * @total: length of the object
 *
 * Return: 0 if the range is inside the object, else -EINVAL.
 */
static inline int udmem_range_check(u64 offset, u64 size, u64 total)
{
	return udmem_range_ok(offset, size, total) ? 0 : -EINVAL;
}

#endif /* UDMEM_COMMON_RANGE_H */
