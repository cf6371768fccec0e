// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * uiomem-abi11.c - the uiomem 1.1 user ABI on one region ($UIOMEM_DEV): the
 * 'U' 1..9 ioctls, the sysfs attributes 1.1 added, and the compatibility
 * checks of the 1.1 fact sheet, one test each (named cNN_...).
 *
 * UDMEM_TEST_COMPAT32: on arm64 the harness also builds this program for
 * AArch32 (<name>-compat32), which checks the driver's compat_ioctl.
 *
 * Tests that move data stay above the host peer's 64 KiB mailbox when the
 * region is larger than 128 KiB.  Every test puts back the sync_* state it
 * changed.
 *
 * This file holds the ioctl and sysfs checks; uiomem-abi11-data.c the
 * checks of the data paths, which run after them.
 */
#include "uiomem-abi11.h"

/* The frozen numbers and layouts of uiomem 1.1. */
_Static_assert(UIOMEM_IOCTL_GET_DRV_INFO == 0x80285501, "GET_DRV_INFO");
_Static_assert(UIOMEM_IOCTL_GET_SIZE == 0x80085502, "GET_SIZE");
_Static_assert(UIOMEM_IOCTL_GET_PHYS_ADDR == 0x80085503, "GET_PHYS_ADDR");
_Static_assert(UIOMEM_IOCTL_GET_SYNC_OWNER == 0x80045504, "GET_SYNC_OWNER");
_Static_assert(UIOMEM_IOCTL_SET_SYNC_FOR_CPU == 0x40085505, "SET_SYNC_FOR_CPU");
_Static_assert(UIOMEM_IOCTL_SET_SYNC_FOR_DEVICE == 0x40085506, "SET_SYNC_FOR_DEVICE");
_Static_assert(UIOMEM_IOCTL_GET_DEV_INFO == 0x80185507, "GET_DEV_INFO");
_Static_assert(UIOMEM_IOCTL_GET_SYNC == 0x80185508, "GET_SYNC");
_Static_assert(UIOMEM_IOCTL_SET_SYNC == 0x40185509, "SET_SYNC");
_Static_assert(sizeof(struct uiomem_ioctl_drv_info) == 40, "drv_info size");
_Static_assert(offsetof(struct uiomem_ioctl_drv_info, version) == 8, "version");
_Static_assert(offsetof(struct uiomem_ioctl_drv_info, sync_operation) == 24, "sync_op");
_Static_assert(sizeof(struct uiomem_ioctl_dev_info) == 24, "dev_info size");
_Static_assert(offsetof(struct uiomem_ioctl_dev_info, size) == 8, "dev_info size field");
_Static_assert(offsetof(struct uiomem_ioctl_dev_info, addr) == 16, "dev_info addr");
_Static_assert(sizeof(struct uiomem_ioctl_sync_args) == 24, "sync_args size");
_Static_assert(offsetof(struct uiomem_ioctl_sync_args, size) == 8, "sync_args size field");
_Static_assert(offsetof(struct uiomem_ioctl_sync_args, offset) == 16, "sync_args offset");

#define SYNC_DIR(f)	UIOMEM_FLAGS_GET(f, UIOMEM_SYNC_ARGS_FLAGS_SYNC_DIR)
#define SYNC_MODE(f)	UIOMEM_FLAGS_GET(f, UIOMEM_SYNC_ARGS_FLAGS_SYNC_MODE)
#define SYNC_OWNER(f)	UIOMEM_FLAGS_GET(f, UIOMEM_SYNC_ARGS_FLAGS_SYNC_OWNER)
#define SYNC_CMD(f)	UIOMEM_FLAGS_GET(f, UIOMEM_SYNC_ARGS_FLAGS_SYNC_CMD)

/* Hidden from the compiler, which would warn about a constant bad pointer. */
static void *volatile bad_pointer = (void *)16;

struct saved {
	char mode[32], offset[32], size[32], dir[32];
};

static void save_state(struct saved *s)
{
	ASSERT_OK(ut_uiomem_attr_read("sync_mode", s->mode, sizeof(s->mode)));
	ASSERT_OK(ut_uiomem_attr_read("sync_offset", s->offset, sizeof(s->offset)));
	ASSERT_OK(ut_uiomem_attr_read("sync_size", s->size, sizeof(s->size)));
	ASSERT_OK(ut_uiomem_attr_read("sync_direction", s->dir, sizeof(s->dir)));
}

static void restore_state(const struct saved *s)
{
	EXPECT_OK(ut_uiomem_attr_write("sync_mode", s->mode));
	EXPECT_OK(ut_uiomem_attr_write("sync_offset", s->offset));
	EXPECT_OK(ut_uiomem_attr_write("sync_size", s->size));
	EXPECT_OK(ut_uiomem_attr_write("sync_direction", s->dir));
}

int open_region(int flags, uint64_t *size)
{
	int fd = ut_uiomem_open(flags);

	if (fd < 0)
		SKIP("/dev/%s: %s", ut_uiomem_name(), strerror(errno));
	*size = ut_uiomem_attr_u64("size");
	return fd;
}

/* Where data tests may write: above the peer's mailbox if there is room. */
uint64_t scratch(uint64_t size)
{
	return size > 0x20000 ? 0x10000 : 0;
}

uint32_t owner_ioctl(int fd)
{
	uint32_t v[2] = { 0xa5a5a5a5, 0x5a5a5a5a };

	ASSERT_OK(ioctl(fd, UIOMEM_IOCTL_GET_SYNC_OWNER, &v[0]));
	/* A u32: the word after it stays untouched. */
	EXPECT_EQ(v[1], 0x5a5a5a5a);
	return v[0];
}

static int set_sync(int fd, uint64_t cmd, uint64_t dir, uint64_t mode,
		    uint64_t size, uint64_t offset)
{
	struct uiomem_ioctl_sync_args a;

	memset(&a, 0, sizeof(a));
	a.flags = UIOMEM_FLAGS_SET(a.flags, UIOMEM_SYNC_ARGS_FLAGS_SYNC_CMD, cmd);
	a.flags = UIOMEM_FLAGS_SET(a.flags, UIOMEM_SYNC_ARGS_FLAGS_SYNC_DIR, dir);
	a.flags = UIOMEM_FLAGS_SET(a.flags, UIOMEM_SYNC_ARGS_FLAGS_SYNC_MODE, mode);
	a.size = size;
	a.offset = offset;
	return ioctl(fd, UIOMEM_IOCTL_SET_SYNC, &a);
}

uint64_t packed(uint64_t offset, uint64_t size, unsigned int dir)
{
	return (offset << 32) | (size & 0xfffffff0ULL) | ((uint64_t)dir << 2) | 1;
}

TEST(c01_get_drv_info_version_and_strings)
{
	struct uiomem_ioctl_drv_info info;
	uint64_t size;
	int fd = open_region(O_RDWR, &size);

	memset(&info, 0xa5, sizeof(info));
	ASSERT_OK(ioctl(fd, UIOMEM_IOCTL_GET_DRV_INFO, &info));
	EXPECT_EQ(info.flags & 0xff, 1);
	EXPECT_EQ(UIOMEM_FLAGS_GET(info.flags, UIOMEM_DRV_INFO_FLAGS_IOCTL_VERSION),
		  UIOMEM_IOCTL_VERSION);
	EXPECT_EQ(info.flags >> 8, 0);
	ASSERT_TRUE(memchr(info.version, 0, sizeof(info.version)) != NULL);
	EXPECT_GT(strlen(info.version), 0);
	ASSERT_TRUE(memchr(info.sync_operation, 0, sizeof(info.sync_operation)) != NULL);
	EXPECT_LE(strlen(info.sync_operation), 15);
	printf("# version \"%s\" sync_operation \"%s\"\n", info.version, info.sync_operation);
}

TEST(c02_ioctl_version_attr_and_driver_version)
{
	struct uiomem_ioctl_drv_info info;
	char buf[64];
	uint64_t size;
	int fd = open_region(O_RDONLY, &size);

	ASSERT_OK(ut_sysfs_read("uiomem", ut_uiomem_name(), "ioctl_version", buf, sizeof(buf)));
	EXPECT_STREQ(buf, "1\n");
	ASSERT_OK(ioctl(fd, UIOMEM_IOCTL_GET_DRV_INFO, &info));
	ASSERT_OK(ut_uiomem_attr_read("driver_version", buf, sizeof(buf)));
	EXPECT_STREQ(buf, info.version);
}

TEST(c03_get_size_and_phys_addr_match_sysfs)
{
	uint64_t size, v;
	int fd = open_region(O_RDONLY, &size);

	v = ~0ULL;
	ASSERT_OK(ioctl(fd, UIOMEM_IOCTL_GET_SIZE, &v));
	EXPECT_EQ(v, size);
	v = ~0ULL;
	ASSERT_OK(ioctl(fd, UIOMEM_IOCTL_GET_PHYS_ADDR, &v));
	EXPECT_EQ(v, ut_uiomem_attr_u64("phys_addr"));
}

TEST(c04_phys_addr_format)
{
	const char *arch = ut_env("UDMEM_ARCH", "");
	char buf[64];
	size_t digits, i;

	ASSERT_OK(ut_sysfs_read("uiomem", ut_uiomem_name(), "phys_addr", buf, sizeof(buf)));
	ASSERT_TRUE(!strncmp(buf, "0x", 2));
	digits = strspn(buf + 2, "0123456789abcdef");
	EXPECT_STREQ(buf + 2 + digits, "\n");
	/* 32-bit ARM without LPAE has a 32-bit phys_addr_t and dma_addr_t. */
	if (!strcmp(arch, "armhf"))
		EXPECT_TRUE(digits == 8 || digits == 16);
	else
		EXPECT_EQ(digits, 16);
	for (i = 2; i < 2 + digits; i++)
		EXPECT_FALSE(buf[i] >= 'A' && buf[i] <= 'F');
}

TEST(c05_sync_offset_hex_format)
{
	struct saved s;
	char buf[64];

	save_state(&s);
	ASSERT_OK(ut_uiomem_attr_write("sync_offset", "0"));
	ASSERT_OK(ut_sysfs_read("uiomem", ut_uiomem_name(), "sync_offset", buf, sizeof(buf)));
	EXPECT_STREQ(buf, "0x0\n");
	ASSERT_OK(ut_uiomem_attr_write("sync_offset", "4096"));
	ASSERT_OK(ut_sysfs_read("uiomem", ut_uiomem_name(), "sync_offset", buf, sizeof(buf)));
	EXPECT_STREQ(buf, "0x1000\n");
	EXPECT_OK(ut_uiomem_attr_write("sync_offset", "0x2000"));
	ASSERT_OK(ut_sysfs_read("uiomem", ut_uiomem_name(), "sync_offset", buf, sizeof(buf)));
	EXPECT_STREQ(buf, "0x2000\n");
	restore_state(&s);
}

TEST(c06_direction_and_mode_ranges)
{
	struct saved s;
	char v[8];
	int i;

	save_state(&s);
	for (i = 0; i <= 2; i++) {
		snprintf(v, sizeof(v), "%d", i);
		EXPECT_OK(ut_uiomem_attr_write("sync_direction", v));
		EXPECT_EQ(ut_uiomem_attr_u64("sync_direction"), i);
	}
	EXPECT_ERRNO(ut_uiomem_attr_write("sync_direction", "3"), EINVAL);
	for (i = 0; i <= 7; i++) {
		snprintf(v, sizeof(v), "%d", i);
		EXPECT_OK(ut_uiomem_attr_write("sync_mode", v));
		EXPECT_EQ(ut_uiomem_attr_u64("sync_mode"), i);
	}
	EXPECT_ERRNO(ut_uiomem_attr_write("sync_mode", "8"), EINVAL);
	EXPECT_EQ(ut_uiomem_attr_u64("sync_mode"), 7);
	restore_state(&s);
}

TEST(c07_owner_follows_sysfs_syncs_and_ioctl_agrees)
{
	struct saved s;
	uint64_t size;
	int fd = open_region(O_RDWR, &size);

	save_state(&s);
	ASSERT_OK(ut_uiomem_attr_write("sync_offset", "0"));
	ASSERT_OK(ut_uiomem_attr_write("sync_size", "4096"));
	ASSERT_OK(ut_uiomem_attr_write("sync_for_device", "1"));
	EXPECT_EQ(ut_uiomem_attr_u64("sync_owner"), 1);
	EXPECT_EQ(owner_ioctl(fd), 1);
	EXPECT_EQ(ut_uiomem_attr_u64("sync_for_device"), 0);
	ASSERT_OK(ut_uiomem_attr_write("sync_for_cpu", "1"));
	EXPECT_EQ(ut_uiomem_attr_u64("sync_owner"), 0);
	EXPECT_EQ(owner_ioctl(fd), 0);
	restore_state(&s);
}

TEST(c08_zero_command_changes_nothing)
{
	uint64_t size, zero = 0;
	int fd = open_region(O_RDWR, &size);

	ASSERT_OK(ioctl(fd, UIOMEM_IOCTL_SET_SYNC_FOR_DEVICE, &(uint64_t){ packed(0, 4096, 0) }));
	EXPECT_EQ(ut_uiomem_attr_u64("sync_owner"), 1);
	EXPECT_OK(ut_uiomem_attr_write("sync_for_cpu", "0"));
	EXPECT_EQ(ut_uiomem_attr_u64("sync_owner"), 1);
	EXPECT_OK(ioctl(fd, UIOMEM_IOCTL_SET_SYNC_FOR_CPU, &zero));
	EXPECT_EQ(owner_ioctl(fd), 1);
	/* Zero needs no write access: it syncs nothing. */
	close(fd);
	fd = open_region(O_RDONLY, &size);
	EXPECT_OK(ioctl(fd, UIOMEM_IOCTL_SET_SYNC_FOR_CPU, &zero));
	EXPECT_EQ(owner_ioctl(fd), 1);
	ASSERT_OK(ut_uiomem_attr_write("sync_for_cpu", "1"));
}

TEST(c09_packed_command_past_the_end_is_einval)
{
	char v[32], off[32], sz[32];
	uint64_t size, cmd;
	int fd = open_region(O_RDWR, &size);

	if (size >= (1ULL << 32))
		SKIP("a window of 4 GiB or more cannot be overrun by a packed offset");
	ASSERT_OK(ut_uiomem_attr_read("sync_offset", off, sizeof(off)));
	ASSERT_OK(ut_uiomem_attr_read("sync_size", sz, sizeof(sz)));
	ASSERT_OK(ut_uiomem_attr_write("sync_for_cpu", "1"));

	cmd = (size << 32) | 0x10 | 1;
	snprintf(v, sizeof(v), "%llu", (unsigned long long)cmd);
	EXPECT_ERRNO(ut_uiomem_attr_write("sync_for_device", v), EINVAL);
	EXPECT_EQ(ut_uiomem_attr_u64("sync_for_device"), cmd);
	EXPECT_ERRNO(ioctl(fd, UIOMEM_IOCTL_SET_SYNC_FOR_DEVICE, &cmd), EINVAL);
	/* The last page plus 16 bytes: the size alone overruns. */
	cmd = ((size - 4096) << 32) | (4096 + 16) | 1;
	EXPECT_ERRNO(ioctl(fd, UIOMEM_IOCTL_SET_SYNC_FOR_DEVICE, &cmd), EINVAL);
	EXPECT_EQ(ut_uiomem_attr_u64("sync_owner"), 0);
	EXPECT_EQ(owner_ioctl(fd), 0);

	ASSERT_OK(ut_uiomem_attr_read("sync_offset", v, sizeof(v)));
	EXPECT_STREQ(v, off);
	ASSERT_OK(ut_uiomem_attr_read("sync_size", v, sizeof(v)));
	EXPECT_STREQ(v, sz);

	/* The last 4 KiB exactly is fine, and leaves the stored range alone. */
	cmd = packed(size - 4096, 4096, 1);
	EXPECT_OK(ioctl(fd, UIOMEM_IOCTL_SET_SYNC_FOR_DEVICE, &cmd));
	EXPECT_EQ(owner_ioctl(fd), 1);
	EXPECT_EQ(ut_uiomem_attr_u64("sync_for_device"), 0);
	ASSERT_OK(ut_uiomem_attr_read("sync_offset", v, sizeof(v)));
	EXPECT_STREQ(v, off);
	ASSERT_OK(ut_uiomem_attr_write("sync_for_cpu", "1"));
}

TEST(c10_get_dev_info_matches_sysfs)
{
	struct uiomem_ioctl_dev_info info;
	unsigned char raw[24];
	uint64_t size, v;
	int fd = open_region(O_RDONLY, &size);

	memset(&info, 0xa5, sizeof(info));
	ASSERT_OK(ioctl(fd, UIOMEM_IOCTL_GET_DEV_INFO, &info));
	EXPECT_EQ(info.flags & 1, ut_uiomem_attr_u64("shareable"));
	EXPECT_EQ((info.flags >> 1) & 1, ut_uiomem_attr_u64("cached"));
	EXPECT_EQ((info.flags >> 2) & 1, ut_uiomem_attr_u64("coherent"));
	EXPECT_EQ(info.flags >> 3, 0);
	EXPECT_EQ(UIOMEM_FLAGS_GET(info.flags, UIOMEM_DEV_INFO_FLAGS_CACHED),
		  ut_uiomem_attr_u64("cached"));
	memcpy(raw, &info, sizeof(raw));
	memcpy(&v, raw + 8, 8);
	EXPECT_EQ(v, size);
	memcpy(&v, raw + 16, 8);
	EXPECT_EQ(v, ut_uiomem_attr_u64("phys_addr"));
}

TEST(c11_set_sync_then_get_sync)
{
	struct uiomem_ioctl_sync_args a;
	struct saved s;
	uint64_t size;
	int fd = open_region(O_RDWR, &size);

	save_state(&s);
	ASSERT_OK(set_sync(fd, UIOMEM_SYNC_CMD_FOR_DEVICE, 1, 0, 4096, 0));
	memset(&a, 0xa5, sizeof(a));
	ASSERT_OK(ioctl(fd, UIOMEM_IOCTL_GET_SYNC, &a));
	EXPECT_EQ(SYNC_CMD(a.flags), 0);
	EXPECT_EQ(SYNC_DIR(a.flags), 1);
	EXPECT_EQ(SYNC_OWNER(a.flags), 1);
	EXPECT_EQ(a.flags & (1ULL << 16), 1ULL << 16);
	EXPECT_EQ(SYNC_MODE(a.flags), ut_uiomem_attr_u64("sync_mode"));
	EXPECT_EQ(a.size, 4096);
	EXPECT_EQ(a.offset, 0);
	EXPECT_EQ(ut_uiomem_attr_u64("sync_direction"), 1);
	EXPECT_EQ(ut_uiomem_attr_u64("sync_size"), 4096);

	ASSERT_OK(set_sync(fd, UIOMEM_SYNC_CMD_FOR_CPU, 1, 0, 4096, 0));
	ASSERT_OK(ioctl(fd, UIOMEM_IOCTL_GET_SYNC, &a));
	EXPECT_EQ(SYNC_OWNER(a.flags), 0);
	EXPECT_EQ(ut_uiomem_attr_u64("sync_owner"), 0);
	restore_state(&s);
}

/* SET_SYNC's keep-the-stored-value rules, and its errors. */
TEST(set_sync_field_rules)
{
	struct uiomem_ioctl_sync_args a;
	struct saved s;
	uint64_t size, owner;
	int fd = open_region(O_RDWR, &size);

	save_state(&s);
	owner = ut_uiomem_attr_u64("sync_owner");
	ASSERT_OK(set_sync(fd, 0, 2, 3, 8192, 4096));
	/* No command: nothing synced, owner unchanged. */
	EXPECT_EQ(ut_uiomem_attr_u64("sync_owner"), owner);
	/* DIR 3, MODE 0 and size 0 keep the stored values; offset is stored. */
	ASSERT_OK(set_sync(fd, 2, 3, 0, 0, 0));
	ASSERT_OK(ioctl(fd, UIOMEM_IOCTL_GET_SYNC, &a));
	EXPECT_EQ(SYNC_DIR(a.flags), 2);
	EXPECT_EQ(SYNC_MODE(a.flags), 3);
	EXPECT_EQ(a.size, 8192);
	EXPECT_EQ(a.offset, 0);
	EXPECT_EQ(ut_uiomem_attr_u64("sync_mode"), 3);
	/* A range past the end fails the sync but stays stored (as upstream). */
	EXPECT_ERRNO(set_sync(fd, UIOMEM_SYNC_CMD_FOR_DEVICE, 0, 0, 8192, size - 4096), EINVAL);
	EXPECT_EQ(ut_uiomem_attr_u64("sync_owner"), owner);
	EXPECT_EQ(ut_uiomem_attr_u64("sync_offset"), size - 4096);
	/* Ours: a mode above 7 is refused, and nothing is stored. */
	EXPECT_ERRNO(set_sync(fd, 0, 0, 8, 4096, 0), EINVAL);
	EXPECT_EQ(ut_uiomem_attr_u64("sync_offset"), size - 4096);
	/* OWNER is ignored on SET. */
	memset(&a, 0, sizeof(a));
	a.flags = (1ULL << 16) | (3ULL << 2);
	a.offset = 0;
	ASSERT_OK(ioctl(fd, UIOMEM_IOCTL_SET_SYNC, &a));
	EXPECT_EQ(ut_uiomem_attr_u64("sync_owner"), owner);
	EXPECT_EQ(ut_uiomem_attr_u64("sync_offset"), 0);
	restore_state(&s);
}

TEST(c12_unknown_commands_are_enotty)
{
	unsigned char buf[64];
	uint64_t size;
	int fd = open_region(O_RDWR, &size);

	EXPECT_ERRNO(ioctl(fd, _IO('U', 10), NULL), ENOTTY);
	EXPECT_ERRNO(ioctl(fd, _IOR('U', 10, uint64_t), buf), ENOTTY);
	EXPECT_ERRNO(ioctl(fd, _IOR('U', 0, uint64_t), buf), ENOTTY);
	/* Right number, wrong size or direction. */
	EXPECT_ERRNO(ioctl(fd, _IOR('U', 1, uint32_t), buf), ENOTTY);
	EXPECT_ERRNO(ioctl(fd, _IOW('U', 2, uint64_t), buf), ENOTTY);
	EXPECT_ERRNO(ioctl(fd, _IOR('U', 4, uint64_t), buf), ENOTTY);
}

TEST(u_ioctls_bad_pointer_is_efault)
{
	uint64_t size;
	int fd = open_region(O_RDWR, &size);

	EXPECT_ERRNO(ioctl(fd, UIOMEM_IOCTL_GET_DRV_INFO, bad_pointer), EFAULT);
	EXPECT_ERRNO(ioctl(fd, UIOMEM_IOCTL_GET_SIZE, bad_pointer), EFAULT);
	EXPECT_ERRNO(ioctl(fd, UIOMEM_IOCTL_GET_PHYS_ADDR, bad_pointer), EFAULT);
	EXPECT_ERRNO(ioctl(fd, UIOMEM_IOCTL_GET_SYNC_OWNER, bad_pointer), EFAULT);
	EXPECT_ERRNO(ioctl(fd, UIOMEM_IOCTL_SET_SYNC_FOR_CPU, bad_pointer), EFAULT);
	EXPECT_ERRNO(ioctl(fd, UIOMEM_IOCTL_SET_SYNC_FOR_DEVICE, bad_pointer), EFAULT);
	EXPECT_ERRNO(ioctl(fd, UIOMEM_IOCTL_GET_DEV_INFO, bad_pointer), EFAULT);
	EXPECT_ERRNO(ioctl(fd, UIOMEM_IOCTL_GET_SYNC, bad_pointer), EFAULT);
	EXPECT_ERRNO(ioctl(fd, UIOMEM_IOCTL_SET_SYNC, bad_pointer), EFAULT);
}

/* Ours: an invalidating sync on a file not open for writing is EBADF. */
TEST(readonly_file_invalidating_sync_is_ebadf)
{
	struct uiomem_ioctl_sync_args a;
	struct saved s;
	uint64_t size, v;
	int fd = open_region(O_RDONLY, &size);

	save_state(&s);
	ASSERT_OK(ut_uiomem_attr_write("sync_offset", "0"));
	ASSERT_OK(ut_uiomem_attr_write("sync_size", "4096"));
	ASSERT_OK(ut_uiomem_attr_write("sync_direction", "0"));
	ASSERT_OK(ut_uiomem_attr_write("sync_for_device", "1"));
	v = 1;	/* stored direction 0: invalidates */
	EXPECT_ERRNO(ioctl(fd, UIOMEM_IOCTL_SET_SYNC_FOR_CPU, &v), EBADF);
	v = packed(0, 4096, 2);
	EXPECT_ERRNO(ioctl(fd, UIOMEM_IOCTL_SET_SYNC_FOR_CPU, &v), EBADF);
	EXPECT_ERRNO(ioctl(fd, UIOMEM_IOCTL_SET_SYNC_FOR_DEVICE, &v), EBADF);
	EXPECT_EQ(owner_ioctl(fd), 1);
	EXPECT_ERRNO(set_sync(fd, UIOMEM_SYNC_CMD_FOR_CPU, 2, 0, 8192, 4096), EBADF);
	EXPECT_EQ(ut_uiomem_attr_u64("sync_offset"), 0);
	EXPECT_EQ(ut_uiomem_attr_u64("sync_size"), 4096);
	/* Cleaning and doing nothing work on any file. */
	v = packed(0, 4096, 1);
	EXPECT_OK(ioctl(fd, UIOMEM_IOCTL_SET_SYNC_FOR_CPU, &v));
	EXPECT_EQ(owner_ioctl(fd), 0);
	v = packed(0, 4096, 0);
	EXPECT_OK(ioctl(fd, UIOMEM_IOCTL_SET_SYNC_FOR_DEVICE, &v));
	EXPECT_EQ(owner_ioctl(fd), 1);
	EXPECT_OK(set_sync(fd, UIOMEM_SYNC_CMD_FOR_CPU, 1, 0, 0, 0));
	EXPECT_EQ(owner_ioctl(fd), 0);
	ASSERT_OK(ioctl(fd, UIOMEM_IOCTL_GET_SYNC, &a));
	EXPECT_EQ(SYNC_DIR(a.flags), 1);
	restore_state(&s);
}

TEST_HARNESS_MAIN
