// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Host unit tests of the header-only helpers in kernel/common.
 * Prints "ok - unit/<name>" or "not ok - unit/<name> # why" per test.
 */
#include <stdio.h>
#include <stdint.h>

#include "udmem_parse.h"
#include "udmem_range.h"
#include "udmem_sync.h"

static int failures;
static int test_failed;

#define CHECK(cond) do {						\
		if (!(cond) && !test_failed++)				\
			printf("# %s:%d: %s\n", __FILE__, __LINE__, #cond); \
	} while (0)

static void report(const char *name)
{
	if (test_failed) {
		printf("not ok - unit/%s # check failed\n", name);
		failures++;
	} else {
		printf("ok - unit/%s\n", name);
	}
	test_failed = 0;
}

static void range_inside_and_at_end_ok(void)
{
	CHECK(udmem_range_ok(0, 4096, 4096));
	CHECK(udmem_range_ok(4095, 1, 4096));
	CHECK(udmem_range_ok(0, 0, 0));
	CHECK(udmem_range_ok(4096, 0, 4096));
	CHECK(udmem_range_ok(0x100000000ull, 0x100000000ull, 0x200000000ull));
	CHECK(udmem_range_check(16, 16, 32) == 0);
	report("range_inside_and_at_end_ok");
}

static void range_past_end_or_wrapping_einval(void)
{
	CHECK(!udmem_range_ok(0, 4097, 4096));
	CHECK(!udmem_range_ok(4096, 1, 4096));
	CHECK(!udmem_range_ok(4097, 0, 4096));
	CHECK(!udmem_range_ok(UINT64_MAX, 2, 4096));
	CHECK(!udmem_range_ok(1, UINT64_MAX, UINT64_MAX));
	CHECK(!udmem_range_ok(0xFFFFFFFFFFFFF000ull, 0x2000, UINT64_MAX));
	CHECK(udmem_range_check(4096, 1, 4096) == -EINVAL);
	report("range_past_end_or_wrapping_einval");
}

static void sync_cmd_zero_is_none(void)
{
	struct udmem_sync_cmd c;

	udmem_sync_cmd_decode(0, &c);
	CHECK(c.kind == UDMEM_SYNC_NONE);
	report("sync_cmd_zero_is_none");
}

static void sync_cmd_one_uses_stored(void)
{
	struct udmem_sync_cmd c;

	udmem_sync_cmd_decode(1, &c);
	CHECK(c.kind == UDMEM_SYNC_STORED);
	report("sync_cmd_one_uses_stored");
}

static void sync_cmd_packed_fields(void)
{
	struct udmem_sync_cmd c;

	/* The reference's example: offset 0, size 0x10000, bidirectional. */
	udmem_sync_cmd_decode(0x0000000000010001ull, &c);
	CHECK(c.kind == UDMEM_SYNC_PACKED);
	CHECK(c.offset == 0 && c.size == 0x10000 && c.dir == UDMEM_SYNC_BIDIRECTIONAL);

	udmem_sync_cmd_decode(0x0000100000002005ull, &c);
	CHECK(c.offset == 0x1000 && c.size == 0x2000 && c.dir == UDMEM_SYNC_TO_DEVICE);

	udmem_sync_cmd_decode(0xFFFFFFF0FFFFFFF9ull, &c);
	CHECK(c.offset == 0xFFFFFFF0ull && c.size == 0xFFFFFFF0ull);
	CHECK(c.dir == UDMEM_SYNC_FROM_DEVICE);

	/* Direction 3 is bidirectional; the low size bits are dropped. */
	udmem_sync_cmd_decode(0x000000000000001Full, &c);
	CHECK(c.size == 0x10 && c.dir == UDMEM_SYNC_BIDIRECTIONAL);

	/* Any nonzero value other than 1 runs, even with bit 0 clear. */
	udmem_sync_cmd_decode(0x0000000000000100ull, &c);
	CHECK(c.kind == UDMEM_SYNC_PACKED && c.size == 0x100);
	udmem_sync_cmd_decode(2, &c);
	CHECK(c.kind == UDMEM_SYNC_PACKED && c.size == 0 && c.offset == 0);
	report("sync_cmd_packed_fields");
}

static void sync_cmd_encode_roundtrip(void)
{
	struct udmem_sync_cmd c;
	u64 v = udmem_sync_cmd_encode(0x12345000, 0x7000, UDMEM_SYNC_FROM_DEVICE);

	CHECK(v == 0x1234500000007009ull);
	udmem_sync_cmd_decode(v, &c);
	CHECK(c.kind == UDMEM_SYNC_PACKED && c.offset == 0x12345000 &&
	      c.size == 0x7000 && c.dir == UDMEM_SYNC_FROM_DEVICE);
	CHECK(udmem_sync_cmd_encode(0, 0, UDMEM_SYNC_BIDIRECTIONAL) == 1);
	CHECK(udmem_sync_dir_valid(2) && !udmem_sync_dir_valid(3));
	report("sync_cmd_encode_roundtrip");
}

/* For the CPU all but to-device invalidates; for the device only from-device. */
static void sync_invalidates_by_side_and_dir(void)
{
	CHECK(udmem_sync_invalidates(false, UDMEM_SYNC_BIDIRECTIONAL));
	CHECK(!udmem_sync_invalidates(false, UDMEM_SYNC_TO_DEVICE));
	CHECK(udmem_sync_invalidates(false, UDMEM_SYNC_FROM_DEVICE));
	CHECK(!udmem_sync_invalidates(true, UDMEM_SYNC_BIDIRECTIONAL));
	CHECK(!udmem_sync_invalidates(true, UDMEM_SYNC_TO_DEVICE));
	CHECK(udmem_sync_invalidates(true, UDMEM_SYNC_FROM_DEVICE));
	report("sync_invalidates_by_side_and_dir");
}

static void parse_base0_forms(void)
{
	u64 v = 0;

	CHECK(udmem_parse_u64("4096\n", UINT64_MAX, &v) == 0 && v == 4096);
	CHECK(udmem_parse_u64("0x1000", UINT64_MAX, &v) == 0 && v == 4096);
	CHECK(udmem_parse_u64("010000", UINT64_MAX, &v) == 0 && v == 4096);
	CHECK(udmem_parse_u64("0", UINT64_MAX, &v) == 0 && v == 0);
	CHECK(udmem_parse_u64("18446744073709551615", UINT64_MAX, &v) == 0 &&
	      v == UINT64_MAX);
	CHECK(udmem_parse_u64("2\n", 2, &v) == 0 && v == 2);
	report("parse_base0_forms");
}

static void parse_bad_input_errno(void)
{
	u64 v = 77;

	CHECK(udmem_parse_u64("", UINT64_MAX, &v) == -EINVAL);
	CHECK(udmem_parse_u64("\n", UINT64_MAX, &v) == -EINVAL);
	CHECK(udmem_parse_u64("-1", UINT64_MAX, &v) == -EINVAL);
	CHECK(udmem_parse_u64(" 1", UINT64_MAX, &v) == -EINVAL);
	CHECK(udmem_parse_u64("1 ", UINT64_MAX, &v) == -EINVAL);
	CHECK(udmem_parse_u64("1\n\n", UINT64_MAX, &v) == -EINVAL);
	CHECK(udmem_parse_u64("0x", UINT64_MAX, &v) == -EINVAL);
	CHECK(udmem_parse_u64("08", UINT64_MAX, &v) == -EINVAL);
	CHECK(udmem_parse_u64("12k", UINT64_MAX, &v) == -EINVAL);
	CHECK(udmem_parse_u64("3", 2, &v) == -EINVAL);
	CHECK(udmem_parse_u64("18446744073709551616", UINT64_MAX, &v) == -ERANGE);
	CHECK(v == 77);
	report("parse_bad_input_errno");
}

int main(void)
{
	range_inside_and_at_end_ok();
	range_past_end_or_wrapping_einval();
	sync_cmd_zero_is_none();
	sync_cmd_one_uses_stored();
	sync_cmd_packed_fields();
	sync_cmd_encode_roundtrip();
	sync_invalidates_by_side_and_dir();
	parse_base0_forms();
	parse_bad_input_errno();
	return failures ? 1 : 0;
}
