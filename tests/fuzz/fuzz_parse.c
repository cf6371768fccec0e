// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fuzz_parse.c - libFuzzer target for udmem_parse_u64() (kernel/common).
 *
 * The parser is compared with an oracle written here from the rules the
 * sysfs attributes document (base 0 like kstrtoull: one optional '+',
 * "0x"/"0X" hex, a leading 0 octal, otherwise decimal, at most one trailing
 * newline, no other characters; overflow is -ERANGE whatever follows).  The first 8 bytes of
 * the input are the maximum, the rest is the text.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "udmem_parse.h"

static int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

/* The oracle: 0 and *res, -EINVAL or -ERANGE. */
static int oracle(const char *s, u64 max, u64 *res)
{
	unsigned int base = 10;
	unsigned __int128 v = 0;
	int overflow = 0, ndigits = 0;

	if (*s == '+')
		s++;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	} else if (s[0] == '0') {
		base = 8;
	}
	for (; *s && digit_value(*s) < (int)base; s++, ndigits++) {
		v = v * base + (unsigned int)digit_value(*s);
		if (v > UINT64_MAX) {
			overflow = 1;
			v = UINT64_MAX;
		}
	}
	/* kstrtoull reports overflow before it looks at what follows. */
	if (overflow)
		return -ERANGE;
	if (*s == '\n')
		s++;
	if (*s || ndigits == 0)
		return -EINVAL;
	if ((u64)v > max)
		return -EINVAL;
	*res = (u64)v;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	u64 max = UINT64_MAX, got = 0xdeadbeef, want = 0xdeadbeef;
	char *text;
	int r1, r2;

	if (size >= sizeof(max)) {
		memcpy(&max, data, sizeof(max));
		data += sizeof(max);
		size -= sizeof(max);
	}
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';

	r1 = udmem_parse_u64(text, max, &got);
	r2 = oracle(text, max, &want);
	if (r1 != r2 || (r1 == 0 && got != want)) {
		fprintf(stderr, "udmem_parse_u64(\"%s\", %llu): %d/%llu, oracle %d/%llu\n",
			text, max, r1, got, r2, want);
		abort();
	}
	/* A failed parse must leave the result alone. */
	if (r1 && got != 0xdeadbeef)
		abort();
	free(text);
	return 0;
}
