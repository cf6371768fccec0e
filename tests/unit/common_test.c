// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Host unit tests of the header-only helpers in kernel/common.
 * Prints "ok - unit/<name>" or "not ok - unit/<name> # why" per test.
 */
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "udmem_parse.h"
#include "udmem_range.h"
#include "udmem_sync.h"
#include "iomem/cache-walk.h"

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

/*
 * The cache walks of kernel/iomem/cache-walk.h, on a pretend cache of
 * WALK_LINES lines: what each line got, '.' for nothing, 'C' clean, 'I'
 * invalidate, 'F' clean+invalidate, '!' a second operation on one line.
 */
#define WALK_BASE	0x10000UL
#define WALK_LINES	8
static char walk_log[WALK_LINES + 1];
static u32 walk_line;

static void walk_mark(unsigned long addr, char op)
{
	unsigned long i = (addr - WALK_BASE) / walk_line;

	if (addr < WALK_BASE || i >= WALK_LINES || (addr - WALK_BASE) % walk_line) {
		walk_log[0] = '?';	/* outside the pretend cache, or unaligned */
		return;
	}
	walk_log[i] = walk_log[i] == '.' ? op : '!';
}

static void walk_clean(unsigned long addr) { walk_mark(addr, 'C'); }
static void walk_inval(unsigned long addr) { walk_mark(addr, 'I'); }
static void walk_flush(unsigned long addr) { walk_mark(addr, 'F'); }

static void walk_reset(u32 line)
{
	memset(walk_log, '.', WALK_LINES);
	walk_log[WALK_LINES] = '\0';
	walk_line = line;
}

/* An invalidate as cache-arm.c, cache-arm64.c and cache-riscv.c do it. */
static void walk_invalidate(unsigned long start, size_t size, u32 line)
{
	unsigned long first, last;

	uiomem_walk_edges(start, size, line, walk_flush, &first, &last);
	uiomem_walk(first, last, line, walk_inval);
}

/*
 * Every range of the pretend cache: an invalidate gives each line the
 * range covers whole one 'I' (its data is the device's), each line it
 * covers in part one 'F' (its other bytes are the CPU's: cleaned, not
 * lost), and no other line anything.
 */
static void walk_invalidate_flushes_partial_edge_lines(void)
{
	static const u32 lines[] = { 32, 64, 128, 0 };
	unsigned long off, start, end, a, b;
	unsigned int l, i;
	size_t size;
	char want;

	for (l = 0; lines[l]; l++) {
		u32 line = lines[l];

		for (off = 0; off < 3 * line; off++) {
			for (size = 1; off + size <= (WALK_LINES - 1) * line; size++) {
				start = WALK_BASE + off;
				end = start + size;
				walk_reset(line);
				walk_invalidate(start, size, line);
				for (i = 0; i < WALK_LINES; i++) {
					a = WALK_BASE + i * line;
					b = a + line;
					if (b <= start || a >= end)
						want = '.';
					else if (a >= start && b <= end)
						want = 'I';
					else
						want = 'F';
					if (walk_log[i] != want) {
						printf("# line %u, range +%lu size %zu: %s\n",
						       line, off, size, walk_log);
						CHECK(walk_log[i] == want);
						goto next_line_size;
					}
				}
			}
		}
next_line_size:
		;
	}
	report("walk_invalidate_flushes_partial_edge_lines");
}

/* A clean (and a flush) touches every line holding a byte of the range, once. */
static void walk_lines_covers_each_line_once(void)
{
	unsigned long off, start, a;
	unsigned int i;
	size_t size;
	char want;

	for (off = 0; off < 128; off++) {
		for (size = 1; off + size <= (WALK_LINES - 1) * 64; size++) {
			start = WALK_BASE + off;
			walk_reset(64);
			uiomem_walk_lines(start, size, 64, walk_clean);
			for (i = 0; i < WALK_LINES; i++) {
				a = WALK_BASE + i * 64;
				want = a + 64 <= start || a >= start + size ? '.' : 'C';
				if (walk_log[i] != want) {
					printf("# range +%lu size %zu: %s\n", off, size, walk_log);
					CHECK(walk_log[i] == want);
					goto done;
				}
			}
		}
	}
done:
	report("walk_lines_covers_each_line_once");
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
	walk_invalidate_flushes_partial_edge_lines();
	walk_lines_covers_each_line_once();
	return failures ? 1 : 0;
}
