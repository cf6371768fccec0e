// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * udmabuf-sysfs - /sys/class/u-dma-buf/<name>/ attributes: read formats,
 * write formats, range checks, both sync_for_* value forms and sync_owner.
 * Reference: u-dma-buf-interface.md section 6.
 */
#define _FILE_OFFSET_BITS 64
#include <ctype.h>
#include <sys/ioctl.h>

#include "udmabuf-test.h"

/* The whole text of an attribute must match: digits of the base, then "\n". */
static int ut_is_number_line(const char *s, int base)
{
	const char *p = s;

	if (!*p)
		return 0;
	if (base == 16) {
		if (strncmp(p, "0x", 2))
			return 0;
		p += 2;
		if (!isxdigit((unsigned char)*p))
			return 0;
		while (isdigit((unsigned char)*p) || (*p >= 'a' && *p <= 'f'))
			p++;
	} else {
		if (*p == '-')
			p++;
		if (!isdigit((unsigned char)*p))
			return 0;
		while (isdigit((unsigned char)*p))
			p++;
	}
	return p[0] == '\n' && p[1] == '\0';
}

#define ASSERT_ATTR_FORMAT(attr, base) do {				\
		char __b[128];						\
		int __e = ut_attr_read(ut_dev(), attr, __b, sizeof(__b)); \
		ASSERT_EQ(__e, 0);					\
		UT_CHECK(ut_is_number_line(__b, base), 1,		\
			    "%s: want a base-%d number and a newline, got \"%s\"", \
			    attr, base, __b);				\
	} while (0)

TEST(read_formats_numbers)
{
	ASSERT_ATTR_FORMAT("size", 10);
	ASSERT_ATTR_FORMAT("sync_mode", 10);
	ASSERT_ATTR_FORMAT("sync_size", 10);
	ASSERT_ATTR_FORMAT("sync_direction", 10);
	ASSERT_ATTR_FORMAT("sync_owner", 10);
	ASSERT_ATTR_FORMAT("sync_for_cpu", 10);
	ASSERT_ATTR_FORMAT("sync_for_device", 10);
	ASSERT_ATTR_FORMAT("dma_coherent", 10);
	ASSERT_ATTR_FORMAT("quirk_mmap_mode", 10);
	ASSERT_ATTR_FORMAT("sync_offset", 16);
	ASSERT_ATTR_FORMAT("phys_addr", 16);
}

TEST(driver_version_is_dotted_string)
{
	char b[64];
	unsigned int a, c, d;

	ASSERT_EQ(ut_attr_read(ut_dev(), "driver_version", b, sizeof(b)), 0);
	UT_CHECK(sscanf(b, "%u.%u.%u", &a, &c, &d) == 3, 1,
		    "driver_version: want N.N.N, got \"%s\"", b);
	UT_CHECK(b[strlen(b) - 1] == '\n', 1, "driver_version lacks a newline: \"%s\"", b);
}

TEST(ioctl_version_is_2)
{
	char b[16];

	ASSERT_EQ(ut_attr_read(ut_dev(), "ioctl_version", b, sizeof(b)), 0);
	ASSERT_STREQ(b, "2\n");
}

TEST(phys_addr_is_padded_lowercase_hex)
{
	char b[64];
	size_t len;

	ASSERT_EQ(ut_attr_read(ut_dev(), "phys_addr", b, sizeof(b)), 0);
	len = strlen(b);
	/* %pad: "0x" + 8 or 16 digits (dma_addr_t width) + "\n" */
	UT_CHECK(len == 2 + 8 + 1 || len == 2 + 16 + 1, 1,
		    "phys_addr: want 0x + 8 or 16 digits, got \"%s\"", b);
	UT_CHECK(ut_is_number_line(b, 16), 1, "phys_addr not lowercase hex: \"%s\"", b);
}

TEST(size_and_phys_addr_match_ioctl)
{
	uint64_t size = 0, addr = 0;
	int fd = ut_open(ut_dev(), O_RDWR);

	ASSERT_OK(ioctl(fd, UT_GET_SIZE, &size));
	ASSERT_OK(ioctl(fd, UT_GET_DMA_ADDR, &addr));
	EXPECT_EQ(ut_get(ut_dev(), "size", 10), size);
	EXPECT_EQ(ut_get(ut_dev(), "phys_addr", 16), addr);
	EXPECT_NE(size, 0);
	close(fd);
}

TEST(dma_coherent_and_owner_are_0_or_1)
{
	EXPECT_LE(ut_get(ut_dev(), "dma_coherent", 10), 1);
	EXPECT_LE(ut_get(ut_dev(), "sync_owner", 10), 1);
}

TEST(quirk_mmap_mode_is_1_to_4)
{
	uint64_t m = ut_get(ut_dev(), "quirk_mmap_mode", 10);

	EXPECT_GE(m, 1);
	EXPECT_LE(m, 4);
}

TEST(read_only_attrs_refuse_write_eacces)
{
	static const char *const ro[] = {
		"driver_version", "size", "phys_addr", "sync_owner",
		"dma_coherent", "quirk_mmap_mode", "ioctl_version",
	};
	char path[256];
	size_t i;

	for (i = 0; i < sizeof(ro) / sizeof(ro[0]); i++) {
		ut_path(path, sizeof(path), ut_dev(), ro[i]);
		EXPECT_ERRNO(open(path, O_WRONLY), EACCES);
	}
}

TEST(sync_mode_accepts_0_to_7_in_every_base)
{
	static const char *const in[] = { "0", "7\n", "0x5", "0X6\n", "03", "1\n" };
	static const uint64_t want[] = { 0, 7, 5, 6, 3, 1 };
	size_t i;

	for (i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		int err = ut_attr_write(ut_dev(), "sync_mode", in[i]);

		UT_CHECK(err == 0, 0, "sync_mode <- \"%s\": want success, got %s",
			    in[i], strerror(-err));
		EXPECT_EQ(ut_get(ut_dev(), "sync_mode", 10), want[i]);
	}
}

TEST(sync_mode_rejects_bad_input_einval)
{
	static const char *const bad[] = {
		"8", "0x8", "010", "-1", "\n", "0x", "1 2", "0x1g", "1\n\n",
		"one", "255", "4294967296",
	};
	size_t i;

	ut_set(ut_dev(), "sync_mode", 1);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int err = ut_attr_write(ut_dev(), "sync_mode", bad[i]);

		UT_CHECK(err == -EINVAL || err == -ERANGE, 0,
			    "sync_mode <- \"%s\": want EINVAL, got %s", bad[i],
			    err ? strerror(-err) : "success");
		EXPECT_EQ(ut_get(ut_dev(), "sync_mode", 10), 1);
	}
	/* Beyond U64_MAX: ERANGE from kstrtoull (EINVAL also acceptable). */
	{
		int err = ut_attr_write(ut_dev(), "sync_mode", "18446744073709551616");

		UT_CHECK(err == -ERANGE || err == -EINVAL, 0,
			    "sync_mode <- 2^64: want ERANGE, got %s",
			    err ? strerror(-err) : "success");
	}
}

TEST(sync_direction_accepts_0_to_2_rejects_3)
{
	int d, err;

	for (d = 0; d <= 2; d++) {
		ut_set(ut_dev(), "sync_direction", d);
		EXPECT_EQ(ut_get(ut_dev(), "sync_direction", 10), d);
	}
	err = ut_attr_write(ut_dev(), "sync_direction", "3");
	UT_CHECK(err == -EINVAL, 0, "sync_direction <- 3: want EINVAL, got %s",
		    err ? strerror(-err) : "success");
	EXPECT_EQ(ut_get(ut_dev(), "sync_direction", 10), 2);
	err = ut_attr_write(ut_dev(), "sync_direction", "-1");
	UT_CHECK(err == -EINVAL || err == -ERANGE, 0,
		    "sync_direction <- -1: want EINVAL, got %s", err ? strerror(-err) : "success");
	ut_set(ut_dev(), "sync_direction", 0);
}

TEST(sync_offset_reads_back_in_hex)
{
	char b[64];

	ASSERT_EQ(ut_attr_write(ut_dev(), "sync_offset", "4096"), 0);
	ASSERT_EQ(ut_attr_read(ut_dev(), "sync_offset", b, sizeof(b)), 0);
	EXPECT_STREQ(b, "0x1000\n");
	ASSERT_EQ(ut_attr_write(ut_dev(), "sync_offset", "0x20\n"), 0);
	ASSERT_EQ(ut_attr_read(ut_dev(), "sync_offset", b, sizeof(b)), 0);
	EXPECT_STREQ(b, "0x20\n");
	ASSERT_EQ(ut_attr_write(ut_dev(), "sync_offset", "010"), 0);
	ASSERT_EQ(ut_attr_read(ut_dev(), "sync_offset", b, sizeof(b)), 0);
	EXPECT_STREQ(b, "0x8\n");
	ASSERT_EQ(ut_attr_write(ut_dev(), "sync_offset", "0"), 0);
	ASSERT_EQ(ut_attr_read(ut_dev(), "sync_offset", b, sizeof(b)), 0);
	EXPECT_STREQ(b, "0x0\n");
}

TEST(sync_size_reads_back_in_decimal)
{
	char b[64];

	ASSERT_EQ(ut_attr_write(ut_dev(), "sync_size", "0x1000"), 0);
	ASSERT_EQ(ut_attr_read(ut_dev(), "sync_size", b, sizeof(b)), 0);
	EXPECT_STREQ(b, "4096\n");
	ut_reset_sync(ut_dev());
	EXPECT_EQ(ut_get(ut_dev(), "sync_size", 10), ut_size(ut_dev()));
}

TEST(sync_offset_and_size_reject_garbage_einval)
{
	static const char *const bad[] = { "\n", "0x", "-1", "1 2", "0x1g", "12k" };
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int e1 = ut_attr_write(ut_dev(), "sync_offset", bad[i]);
		int e2 = ut_attr_write(ut_dev(), "sync_size", bad[i]);

		UT_CHECK(e1 == -EINVAL || e1 == -ERANGE, 0,
			    "sync_offset <- \"%s\": want EINVAL, got %s", bad[i],
			    e1 ? strerror(-e1) : "success");
		UT_CHECK(e2 == -EINVAL || e2 == -ERANGE, 0,
			    "sync_size <- \"%s\": want EINVAL, got %s", bad[i],
			    e2 ? strerror(-e2) : "success");
	}
}

static void ut_expect_owner(uint64_t want, const char *after)
{
	uint64_t got = ut_get(ut_dev(), "sync_owner", 10);

	UT_CHECK(got == want, 0, "sync_owner after %s: want %llu, got %llu", after,
		    (unsigned long long)want, (unsigned long long)got);
}

TEST(sync_for_1_uses_stored_range_and_sets_owner)
{
	ut_reset_sync(ut_dev());
	ASSERT_EQ(ut_attr_write(ut_dev(), "sync_for_device", "1"), 0);
	ut_expect_owner(1, "sync_for_device <- 1");
	EXPECT_EQ(ut_get(ut_dev(), "sync_for_device", 10), 0);
	ASSERT_EQ(ut_attr_write(ut_dev(), "sync_for_cpu", "1\n"), 0);
	ut_expect_owner(0, "sync_for_cpu <- 1");
	EXPECT_EQ(ut_get(ut_dev(), "sync_for_cpu", 10), 0);
	/* a partial stored range, every direction */
	ut_set(ut_dev(), "sync_offset", ut_page());
	ut_set(ut_dev(), "sync_size", ut_size(ut_dev()) - ut_page());
	for (int d = 0; d <= 2; d++) {
		ut_set(ut_dev(), "sync_direction", d);
		EXPECT_EQ(ut_attr_write(ut_dev(), "sync_for_device", "1"), 0);
		ut_expect_owner(1, "sync_for_device, partial range");
		EXPECT_EQ(ut_attr_write(ut_dev(), "sync_for_cpu", "1"), 0);
		ut_expect_owner(0, "sync_for_cpu, partial range");
	}
	ut_reset_sync(ut_dev());
}

TEST(sync_for_0_does_nothing)
{
	ut_reset_sync(ut_dev());
	ASSERT_EQ(ut_attr_write(ut_dev(), "sync_for_device", "1"), 0);
	ASSERT_EQ(ut_attr_write(ut_dev(), "sync_for_cpu", "0"), 0);
	ut_expect_owner(1, "sync_for_cpu <- 0");
	ASSERT_EQ(ut_attr_write(ut_dev(), "sync_for_cpu", "1"), 0);
	ut_expect_owner(0, "sync_for_cpu <- 1");
}

TEST(sync_for_packed_form_keeps_attributes)
{
	uint64_t size = ut_size(ut_dev());
	char cmd[64];
	uint32_t pg = ut_page();

	ut_reset_sync(ut_dev());
	ut_set(ut_dev(), "sync_offset", 0x10);
	ut_set(ut_dev(), "sync_size", 0x20);
	ut_set(ut_dev(), "sync_direction", 2);
	/* whole buffer, each direction, in the seed program's exact format */
	for (unsigned int d = 0; d <= 3; d++) {
		snprintf(cmd, sizeof(cmd), "0x%08X%08X\n", 0u,
			 (unsigned int)((size & 0xFFFFFFF0) | (d << 2) | 1));
		EXPECT_EQ(ut_attr_write(ut_dev(), "sync_for_device", cmd), 0);
		ut_expect_owner(1, "packed sync_for_device");
		EXPECT_EQ(ut_attr_write(ut_dev(), "sync_for_cpu", cmd), 0);
		ut_expect_owner(0, "packed sync_for_cpu");
	}
	/* a sub-range ending exactly at the end */
	if (size >= 2 * pg) {
		snprintf(cmd, sizeof(cmd), "0x%08X%08X", pg,
			 (unsigned int)(((size - pg) & 0xFFFFFFF0) | (1 << 2) | 1));
		EXPECT_EQ(ut_attr_write(ut_dev(), "sync_for_device", cmd), 0);
		ut_expect_owner(1, "packed sub-range sync_for_device");
	}
	/* the packed fields are temporary */
	EXPECT_EQ(ut_get(ut_dev(), "sync_offset", 16), 0x10);
	EXPECT_EQ(ut_get(ut_dev(), "sync_size", 10), 0x20);
	EXPECT_EQ(ut_get(ut_dev(), "sync_direction", 10), 2);
	ut_reset_sync(ut_dev());
}

TEST(sync_for_packed_past_end_einval)
{
	uint64_t size = ut_size(ut_dev());
	char cmd[64];
	int err;

	ut_reset_sync(ut_dev());
	ASSERT_EQ(ut_attr_write(ut_dev(), "sync_for_cpu", "1"), 0);
	/* 16 bytes too long */
	snprintf(cmd, sizeof(cmd), "0x%08X%08X", (unsigned int)(size & ~0xFull),
		 (unsigned int)(0x20 | 1));
	err = ut_attr_write(ut_dev(), "sync_for_device", cmd);
	UT_CHECK(err == -EINVAL, 0, "sync_for_device <- %s (past end): want EINVAL, got %s",
		    cmd, err ? strerror(-err) : "success");
	ut_expect_owner(0, "a refused sync_for_device");
	/* offset at 4 GiB - 16 with size 32: must not wrap in 32 bits */
	err = ut_attr_write(ut_dev(), "sync_for_device", "0xFFFFFFF000000021");
	UT_CHECK(err == -EINVAL, 0, "packed offset 0xFFFFFFF0: want EINVAL, got %s",
		    err ? strerror(-err) : "success");
	/* size field 0xFFFFFFF0 */
	err = ut_attr_write(ut_dev(), "sync_for_device", "0x00000010FFFFFFF1");
	UT_CHECK(err == -EINVAL, 0, "packed size 0xFFFFFFF0: want EINVAL, got %s",
		    err ? strerror(-err) : "success");
	ut_expect_owner(0, "refused packed syncs");
}

/*
 * A stored range past the end is refused either when written or when the
 * sync runs; it must never be performed.
 */
static void ut_bad_stored_range(uint64_t off, uint64_t len)
{
	int e1, e2, e3, e4;

	ut_reset_sync(ut_dev());
	ASSERT_EQ(ut_attr_write(ut_dev(), "sync_for_cpu", "1"), 0);
	e1 = ut_attr_write_u64(ut_dev(), "sync_offset", off);
	e2 = ut_attr_write_u64(ut_dev(), "sync_size", len);
	UT_CHECK((e1 == 0 || e1 == -EINVAL) && (e2 == 0 || e2 == -EINVAL), 0,
		    "sync_offset %llu / sync_size %llu: want success or EINVAL, got %s / %s",
		    (unsigned long long)off, (unsigned long long)len, strerror(-e1),
		    strerror(-e2));
	if (e1 || e2)
		return;
	e3 = ut_attr_write(ut_dev(), "sync_for_device", "1");
	e4 = ut_attr_write(ut_dev(), "sync_for_cpu", "1");
	UT_CHECK(e3 == -EINVAL && e4 == -EINVAL, 0,
		    "sync with offset 0x%llx size 0x%llx: want EINVAL twice, got %s / %s",
		    (unsigned long long)off, (unsigned long long)len,
		    e3 ? strerror(-e3) : "success", e4 ? strerror(-e4) : "success");
	ut_expect_owner(0, "a refused sync");
}

TEST(sync_stored_range_past_end_einval)
{
	uint64_t size = ut_size(ut_dev());

	ut_bad_stored_range(0, size + 1);
	ut_bad_stored_range(size, 1);
	ut_bad_stored_range(1, size);
	ut_bad_stored_range(size + 4096, 0);
	ut_reset_sync(ut_dev());
}

TEST(sync_stored_range_overflow_einval)
{
	/* offset + size wraps to a small value: the reference's bug */
	ut_bad_stored_range(UINT64_MAX - 4095, 8192);
	ut_bad_stored_range(UINT64_MAX, 2);
	ut_bad_stored_range(4096, UINT64_MAX - 4095);
	ut_bad_stored_range(UINT64_MAX, UINT64_MAX);
	ut_reset_sync(ut_dev());
}

TEST(sync_for_rejects_garbage_einval)
{
	static const char *const bad[] = {
		"\n", "x", "0x", "1 1", "-1", "0x1g", "18446744073709551616",
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int e = ut_attr_write(ut_dev(), "sync_for_cpu", bad[i]);

		UT_CHECK(e == -EINVAL || e == -ERANGE, 0,
			    "sync_for_cpu <- \"%s\": want EINVAL, got %s", bad[i],
			    e ? strerror(-e) : "success");
	}
}

TEST_HARNESS_MAIN
