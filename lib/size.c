// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * size.c - the one parser of byte counts on command lines (the udmem tool
 * and its bench).  Not exported from the shared library.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "size.h"

int udmem_parse_size(const char *text, uint64_t *val)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	/* strtoull() would take a sign or leading white space: refuse them. */
	if (!text || !val || *text < '0' || *text > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(text, &end, 0);
	if (end == text)
		return -EINVAL;
	if (errno)
		return -errno;
	switch (*end) {
	case 'k': case 'K':
		shift = 10;
		break;
	case 'm': case 'M':
		shift = 20;
		break;
	case 'g': case 'G':
		shift = 30;
		break;
	case 't': case 'T':
		shift = 40;
		break;
	case '\0':
		break;
	default:
		return -EINVAL;
	}
	if (shift) {
		end++;
		if (!strcmp(end, "iB") || !strcmp(end, "B"))
			end += strlen(end);
		if (*end)
			return -EINVAL;
		if (v > (UINT64_MAX >> shift))
			return -ERANGE;
		v <<= shift;
	}
	if (*end)
		return -EINVAL;
	*val = v;
	return 0;
}
