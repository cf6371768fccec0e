/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * udmem_parse.h - number parsing with the rules of the sysfs attributes.
 *
 * Attribute stores take an unsigned number in base 0 (decimal, 0x hex or
 * 0 octal) with at most one trailing newline, like kstrtoull(buf, 0, ...).
 */
#ifndef UDMEM_COMMON_PARSE_H
#define UDMEM_COMMON_PARSE_H

#include "udmem_types.h"

#ifndef __KERNEL__
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Host stand-in for kstrtoull(s, 0, res): same accepted forms and errors. */
static inline int udmem_host_kstrtoull0(const char *s, u64 *res)
{
	unsigned long long v;
	char *end;

	/* kstrtoull takes one optional '+', no spaces and no '-'. */
	if (*s == '+')
		s++;
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') &&
	    !isxdigit((unsigned char)s[2]))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno == ERANGE)
		return -ERANGE;
	if (*end == '\n')
		end++;
	if (*end)
		return -EINVAL;
	*res = v;
	return 0;
}

#define kstrtoull(s, base, res)	udmem_host_kstrtoull0(s, res)
#endif

/**
 * udmem_parse_u64() - parse an attribute value
 * @buf: NUL-terminated text, e.g. "4096\n", "0x1000", "010000"
 * @max: largest accepted value
 * @res: where the value goes, only on success
 *
 * Return: 0, -EINVAL for malformed text or a value above @max, -ERANGE on
 * overflow of 64 bits.
 */
static inline int udmem_parse_u64(const char *buf, u64 max, u64 *res)
{
	u64 v;
	int ret;

	ret = kstrtoull(buf, 0, &v);
	if (ret)
		return ret;
	if (v > max)
		return -EINVAL;
	*res = v;
	return 0;
}

#endif /* UDMEM_COMMON_PARSE_H */
