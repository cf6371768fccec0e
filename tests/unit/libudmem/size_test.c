// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * size_test.c - udmem_parse_size(), the byte-count parser of the udmem tool
 * and its bench: accepted forms, refused forms, and 64-bit overflow.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "size.h"

static int failed;

static void expect(const char *text, int want_err, uint64_t want)
{
	uint64_t got = 0xdeadbeef;
	int err = udmem_parse_size(text, &got);
	int good = err == want_err &&
		   (want_err ? got == 0xdeadbeef : got == want);

	if (good) {
		printf("ok - libudmem/parse-size '%s'\n", text);
		return;
	}
	failed = 1;
	printf("not ok - libudmem/parse-size '%s' # got %d (%s), %" PRIu64
	       "; want %d, %" PRIu64 "\n", text, err, strerror(-err), got,
	       want_err, want);
}

int main(void)
{
	expect("4096", 0, 4096);
	expect("0x1000", 0, 4096);
	expect("4K", 0, 4096);
	expect("4KiB", 0, 4096);
	expect("4kB", 0, 4096);
	expect("2M", 0, 2ull << 20);
	expect("3G", 0, 3ull << 30);
	expect("1T", 0, 1ull << 40);
	expect("16777215T", 0, 16777215ull << 40);
	expect("18446744073709551615", 0, UINT64_MAX);
	/* Overflow is refused, never wrapped. */
	expect("16777216T", -ERANGE, 0);
	expect("17179869185G", -ERANGE, 0);
	expect("17592186044416M", -ERANGE, 0);
	expect("18446744073709551616", -ERANGE, 0);
	expect("0x10000000000000000", -ERANGE, 0);
	/* Not a count. */
	expect("", -EINVAL, 0);
	expect("-1", -EINVAL, 0);
	expect("+1", -EINVAL, 0);
	expect(" 1", -EINVAL, 0);
	expect("4Q", -EINVAL, 0);
	expect("4KX", -EINVAL, 0);
	expect("4 K", -EINVAL, 0);
	expect("4i", -EINVAL, 0);
	expect("K", -EINVAL, 0);
	if (udmem_parse_size(NULL, NULL) == -EINVAL) {
		printf("ok - libudmem/parse-size-null\n");
	} else {
		failed = 1;
		printf("not ok - libudmem/parse-size-null # not -EINVAL\n");
	}
	return failed;
}
