// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * udmabuf-ioctl - the ten u-dma-buf ioctls: numbers and structure sizes of
 * the installed header against the reference, field semantics, and errors.
 * Reference: u-dma-buf-interface.md section 7.
 *
 * UDMEM_TEST_COMPAT32: on arm64 the harness also builds this program for
 * AArch32 (<name>-compat32), which checks the driver's compat_ioctl.
 */
#define _FILE_OFFSET_BITS 64
#include <stddef.h>
#include <stdint.h>
#include <linux/u-dma-buf-ioctl.h>

#include "udmabuf-test.h"

/* The driver's header must carry the reference numbers and layouts. */
_Static_assert(U_DMA_BUF_IOCTL_GET_DRV_INFO == UT_GET_DRV_INFO, "GET_DRV_INFO number");
_Static_assert(U_DMA_BUF_IOCTL_GET_SIZE == UT_GET_SIZE, "GET_SIZE number");
_Static_assert(U_DMA_BUF_IOCTL_GET_DMA_ADDR == UT_GET_DMA_ADDR, "GET_DMA_ADDR number");
_Static_assert(U_DMA_BUF_IOCTL_GET_SYNC_OWNER == UT_GET_SYNC_OWNER, "GET_SYNC_OWNER number");
_Static_assert(U_DMA_BUF_IOCTL_SET_SYNC_FOR_CPU == UT_SET_SYNC_FOR_CPU, "SET_SYNC_FOR_CPU");
_Static_assert(U_DMA_BUF_IOCTL_SET_SYNC_FOR_DEVICE == UT_SET_SYNC_FOR_DEVICE,
	       "SET_SYNC_FOR_DEVICE number");
_Static_assert(U_DMA_BUF_IOCTL_GET_DEV_INFO == UT_GET_DEV_INFO, "GET_DEV_INFO number");
_Static_assert(U_DMA_BUF_IOCTL_GET_SYNC == UT_GET_SYNC, "GET_SYNC number");
_Static_assert(U_DMA_BUF_IOCTL_SET_SYNC == UT_SET_SYNC, "SET_SYNC number");
_Static_assert(U_DMA_BUF_IOCTL_EXPORT == UT_EXPORT, "EXPORT number");
_Static_assert(sizeof(struct u_dma_buf_ioctl_drv_info) == 24, "drv_info size");
_Static_assert(sizeof(struct u_dma_buf_ioctl_dev_info) == 24, "dev_info size");
_Static_assert(sizeof(struct u_dma_buf_ioctl_sync_args) == 24, "sync_args size");
_Static_assert(sizeof(struct u_dma_buf_ioctl_export_args) == 40, "export_args size");

/* The same checks at run time, so that they show up as results. */
TEST(ioctl_numbers_match_reference)
{
	EXPECT_EQ(U_DMA_BUF_IOCTL_GET_DRV_INFO, 0x80185501u);
	EXPECT_EQ(U_DMA_BUF_IOCTL_GET_SIZE, 0x80085502u);
	EXPECT_EQ(U_DMA_BUF_IOCTL_GET_DMA_ADDR, 0x80085503u);
	EXPECT_EQ(U_DMA_BUF_IOCTL_GET_SYNC_OWNER, 0x80045504u);
	EXPECT_EQ(U_DMA_BUF_IOCTL_SET_SYNC_FOR_CPU, 0x40085505u);
	EXPECT_EQ(U_DMA_BUF_IOCTL_SET_SYNC_FOR_DEVICE, 0x40085506u);
	EXPECT_EQ(U_DMA_BUF_IOCTL_GET_DEV_INFO, 0x80185507u);
	EXPECT_EQ(U_DMA_BUF_IOCTL_GET_SYNC, 0x80185508u);
	EXPECT_EQ(U_DMA_BUF_IOCTL_SET_SYNC, 0x40185509u);
	EXPECT_EQ(U_DMA_BUF_IOCTL_EXPORT, 0xC028550Au);
	/* and the local copies agree with the _IOC encoding */
	EXPECT_EQ(UT_GET_DRV_INFO, _IOR('U', 1, struct ut_drv_info));
	EXPECT_EQ(UT_GET_SIZE, _IOR('U', 2, uint64_t));
	EXPECT_EQ(UT_GET_SYNC_OWNER, _IOR('U', 4, uint32_t));
	EXPECT_EQ(UT_SET_SYNC, _IOW('U', 9, struct ut_sync_args));
	EXPECT_EQ(UT_EXPORT, _IOWR('U', 10, struct ut_export_args));
}

TEST(struct_layouts_match_reference)
{
	EXPECT_EQ(sizeof(struct u_dma_buf_ioctl_drv_info), 24);
	EXPECT_EQ(sizeof(struct u_dma_buf_ioctl_dev_info), 24);
	EXPECT_EQ(sizeof(struct u_dma_buf_ioctl_sync_args), 24);
	EXPECT_EQ(sizeof(struct u_dma_buf_ioctl_export_args), 40);
	EXPECT_EQ(offsetof(struct u_dma_buf_ioctl_drv_info, version), 8);
	EXPECT_EQ(offsetof(struct u_dma_buf_ioctl_dev_info, size), 8);
	EXPECT_EQ(offsetof(struct u_dma_buf_ioctl_dev_info, addr), 16);
	EXPECT_EQ(offsetof(struct u_dma_buf_ioctl_sync_args, size), 8);
	EXPECT_EQ(offsetof(struct u_dma_buf_ioctl_sync_args, offset), 16);
	EXPECT_EQ(offsetof(struct u_dma_buf_ioctl_export_args, size), 8);
	EXPECT_EQ(offsetof(struct u_dma_buf_ioctl_export_args, offset), 16);
	EXPECT_EQ(offsetof(struct u_dma_buf_ioctl_export_args, addr), 24);
	EXPECT_EQ(offsetof(struct u_dma_buf_ioctl_export_args, fd), 32);
}

TEST(get_drv_info_version_2_and_string)
{
	struct ut_drv_info info;
	char ver[64];
	int fd = ut_open(ut_dev(), O_RDWR);

	memset(&info, 0xa5, sizeof(info));
	ASSERT_OK(ioctl(fd, UT_GET_DRV_INFO, &info));
	EXPECT_EQ(UT_DRV_IOCTL_VERSION(info.flags), 2);
	/* in-kernel functions (the manager uses them), quirk mmap, page mode */
	EXPECT_EQ(UT_FIELD(info.flags, 8, 1), 1);
	EXPECT_EQ(UT_FIELD(info.flags, 16, 1), 1);
	EXPECT_EQ(UT_FIELD(info.flags, 17, 1), 1);
	/* of_dma_configure / of_reserved_mem: exactly on device-tree kernels */
	EXPECT_EQ(UT_FIELD(info.flags, 12, 1), access("/proc/device-tree", F_OK) == 0);
	EXPECT_EQ(UT_FIELD(info.flags, 13, 1), access("/proc/device-tree", F_OK) == 0);
	UT_CHECK(memchr(info.version, '\0', sizeof(info.version)) != NULL, 1,
		    "drv_info.version is not NUL-terminated");
	ASSERT_EQ(ut_attr_read(ut_dev(), "driver_version", ver, sizeof(ver)), 0);
	ver[strcspn(ver, "\n")] = '\0';
	EXPECT_STREQ(info.version, ver);
	close(fd);
}

TEST(get_size_dma_addr_owner_match_sysfs)
{
	uint64_t size = 0, addr = 0;
	uint32_t owner = 7;
	int fd = ut_open(ut_dev(), O_RDWR);

	ASSERT_OK(ioctl(fd, UT_GET_SIZE, &size));
	ASSERT_OK(ioctl(fd, UT_GET_DMA_ADDR, &addr));
	ASSERT_OK(ioctl(fd, UT_GET_SYNC_OWNER, &owner));
	EXPECT_EQ(size, ut_get(ut_dev(), "size", 10));
	EXPECT_EQ(addr, ut_get(ut_dev(), "phys_addr", 16));
	EXPECT_EQ(owner, ut_get(ut_dev(), "sync_owner", 10));
	close(fd);
}

TEST(get_dev_info_fields)
{
	struct ut_dev_info info;
	const char *mask = getenv("UDMABUF_MASK");
	int fd = ut_open(ut_dev(), O_RDWR);

	ASSERT_OK(ioctl(fd, UT_GET_DEV_INFO, &info));
	EXPECT_EQ(info.size, ut_get(ut_dev(), "size", 10));
	EXPECT_EQ(info.addr, ut_get(ut_dev(), "phys_addr", 16));
	EXPECT_EQ(UT_DEV_DMA_COHERENT(info.flags), ut_get(ut_dev(), "dma_coherent", 10));
	EXPECT_EQ(UT_DEV_MMAP_MODE(info.flags), ut_get(ut_dev(), "quirk_mmap_mode", 10));
	EXPECT_GE(UT_DEV_DMA_MASK(info.flags), 12);
	EXPECT_LE(UT_DEV_DMA_MASK(info.flags), 64);
	if (mask && *mask)
		EXPECT_EQ(UT_DEV_DMA_MASK(info.flags), strtoul(mask, NULL, 0));
	/* The buffer must lie below the mask. */
	if (UT_DEV_DMA_MASK(info.flags) < 64)
		EXPECT_LE(info.addr + info.size - 1, (1ull << UT_DEV_DMA_MASK(info.flags)) - 1);
	close(fd);
}

TEST(get_sync_matches_sysfs)
{
	struct ut_sync_args s;
	int fd = ut_open(ut_dev(), O_RDWR);

	ut_set(ut_dev(), "sync_offset", 0x40);
	ut_set(ut_dev(), "sync_size", 0x80);
	ut_set(ut_dev(), "sync_direction", 2);
	ut_set(ut_dev(), "sync_mode", 3);
	memset(&s, 0xa5, sizeof(s));
	ASSERT_OK(ioctl(fd, UT_GET_SYNC, &s));
	EXPECT_EQ(s.offset, 0x40);
	EXPECT_EQ(s.size, 0x80);
	EXPECT_EQ(UT_SYNC_DIR(s.flags), 2);
	EXPECT_EQ(UT_SYNC_MODE(s.flags), 3);
	EXPECT_EQ(UT_SYNC_CMD(s.flags), 0);
	EXPECT_EQ(UT_SYNC_OWNER(s.flags), ut_get(ut_dev(), "sync_owner", 10));
	ut_set(ut_dev(), "sync_mode", 1);
	ut_reset_sync(ut_dev());
	close(fd);
}

TEST(set_sync_field_semantics)
{
	struct ut_sync_args s;
	int fd = ut_open(ut_dev(), O_RDWR);

	ut_set(ut_dev(), "sync_mode", 2);
	ut_set(ut_dev(), "sync_direction", 1);
	ut_set(ut_dev(), "sync_size", 0x100);
	ut_set(ut_dev(), "sync_offset", 0x10);
	/* dir 3 = unchanged, mode 0 = unchanged, size 0 = unchanged, offset always set */
	s.flags = UT_SYNC_FLAGS(0, 3, 0);
	s.size = 0;
	s.offset = 0x20;
	ASSERT_OK(ioctl(fd, UT_SET_SYNC, &s));
	EXPECT_EQ(ut_get(ut_dev(), "sync_direction", 10), 1);
	EXPECT_EQ(ut_get(ut_dev(), "sync_mode", 10), 2);
	EXPECT_EQ(ut_get(ut_dev(), "sync_size", 10), 0x100);
	EXPECT_EQ(ut_get(ut_dev(), "sync_offset", 16), 0x20);
	/* every field set */
	s.flags = UT_SYNC_FLAGS(0, 2, 5);
	s.size = 0x200;
	s.offset = 0;
	ASSERT_OK(ioctl(fd, UT_SET_SYNC, &s));
	EXPECT_EQ(ut_get(ut_dev(), "sync_direction", 10), 2);
	EXPECT_EQ(ut_get(ut_dev(), "sync_mode", 10), 5);
	EXPECT_EQ(ut_get(ut_dev(), "sync_size", 10), 0x200);
	EXPECT_EQ(ut_get(ut_dev(), "sync_offset", 16), 0);
	ut_set(ut_dev(), "sync_mode", 1);
	ut_reset_sync(ut_dev());
	close(fd);
}

TEST(set_sync_cmd_performs_sync_and_sets_owner)
{
	struct ut_sync_args s;
	uint32_t owner;
	int fd = ut_open(ut_dev(), O_RDWR);

	s.flags = UT_SYNC_FLAGS(UT_SYNC_CMD_FOR_DEVICE, 0, 0);
	s.size = ut_size(ut_dev());
	s.offset = 0;
	ASSERT_OK(ioctl(fd, UT_SET_SYNC, &s));
	ASSERT_OK(ioctl(fd, UT_GET_SYNC_OWNER, &owner));
	EXPECT_EQ(owner, 1);
	EXPECT_EQ(ut_get(ut_dev(), "sync_owner", 10), 1);
	/* cmd 0 and 2 do nothing */
	s.flags = UT_SYNC_FLAGS(2, 3, 0);
	ASSERT_OK(ioctl(fd, UT_SET_SYNC, &s));
	ASSERT_OK(ioctl(fd, UT_GET_SYNC_OWNER, &owner));
	EXPECT_EQ(owner, 1);
	s.flags = UT_SYNC_FLAGS(UT_SYNC_CMD_FOR_CPU, 2, 0);
	s.size = ut_page();
	s.offset = ut_page();
	if (ut_size(ut_dev()) < 2 * (uint64_t)ut_page())
		s.offset = 0;
	ASSERT_OK(ioctl(fd, UT_SET_SYNC, &s));
	ASSERT_OK(ioctl(fd, UT_GET_SYNC_OWNER, &owner));
	EXPECT_EQ(owner, 0);
	ut_reset_sync(ut_dev());
	close(fd);
}

TEST(set_sync_range_past_end_einval)
{
	struct ut_sync_args s;
	uint64_t size = ut_size(ut_dev());
	uint32_t owner;
	int fd = ut_open(ut_dev(), O_RDWR);

	ut_reset_sync(ut_dev());
	ASSERT_OK(ioctl(fd, UT_SET_SYNC_FOR_CPU, &(uint64_t){ 1 }));
	s.flags = UT_SYNC_FLAGS(UT_SYNC_CMD_FOR_DEVICE, 0, 0);
	s.offset = 16;
	s.size = size;
	EXPECT_ERRNO(ioctl(fd, UT_SET_SYNC, &s), EINVAL);
	s.offset = UINT64_MAX - 4095;
	s.size = 8192;
	EXPECT_ERRNO(ioctl(fd, UT_SET_SYNC, &s), EINVAL);
	s.offset = 0;
	s.size = UINT64_MAX;
	EXPECT_ERRNO(ioctl(fd, UT_SET_SYNC, &s), EINVAL);
	ASSERT_OK(ioctl(fd, UT_GET_SYNC_OWNER, &owner));
	EXPECT_EQ(owner, 0);
	ut_reset_sync(ut_dev());
	close(fd);
}

TEST(set_sync_bad_mode_or_dir_einval)
{
	struct ut_sync_args s = { .size = 0, .offset = 0 };
	int fd = ut_open(ut_dev(), O_RDWR);

	ut_set(ut_dev(), "sync_mode", 1);
	s.flags = UT_SYNC_FLAGS(0, 3, 8);
	EXPECT_ERRNO(ioctl(fd, UT_SET_SYNC, &s), EINVAL);
	s.flags = UT_SYNC_FLAGS(0, 3, 255);
	EXPECT_ERRNO(ioctl(fd, UT_SET_SYNC, &s), EINVAL);
	EXPECT_EQ(ut_get(ut_dev(), "sync_mode", 10), 1);
	close(fd);
}

TEST(set_sync_for_cpu_device_values)
{
	uint64_t size = ut_size(ut_dev()), v;
	uint32_t owner;
	int fd = ut_open(ut_dev(), O_RDWR);

	ut_reset_sync(ut_dev());
	v = 1;
	ASSERT_OK(ioctl(fd, UT_SET_SYNC_FOR_DEVICE, &v));
	ASSERT_OK(ioctl(fd, UT_GET_SYNC_OWNER, &owner));
	EXPECT_EQ(owner, 1);
	v = ut_packed_sync(0, size, 2);
	ASSERT_OK(ioctl(fd, UT_SET_SYNC_FOR_CPU, &v));
	ASSERT_OK(ioctl(fd, UT_GET_SYNC_OWNER, &owner));
	EXPECT_EQ(owner, 0);
	v = ut_packed_sync(size & ~0xFull, 0x20, 1);
	EXPECT_ERRNO(ioctl(fd, UT_SET_SYNC_FOR_DEVICE, &v), EINVAL);
	v = 0xFFFFFFF000000021ull;
	EXPECT_ERRNO(ioctl(fd, UT_SET_SYNC_FOR_DEVICE, &v), EINVAL);
	ASSERT_OK(ioctl(fd, UT_GET_SYNC_OWNER, &owner));
	EXPECT_EQ(owner, 0);
	close(fd);
}

TEST(unknown_ioctl_enotty)
{
	uint64_t buf[8] = { 0 };
	int fd = ut_open(ut_dev(), O_RDWR);

	EXPECT_ERRNO(ioctl(fd, _IO('U', 0), buf), ENOTTY);
	EXPECT_ERRNO(ioctl(fd, _IOR('U', 11, uint64_t), buf), ENOTTY);
	EXPECT_ERRNO(ioctl(fd, _IOWR('U', 0xff, uint64_t), buf), ENOTTY);
	EXPECT_ERRNO(ioctl(fd, _IOR('V', 2, uint64_t), buf), ENOTTY);
	EXPECT_ERRNO(ioctl(fd, 0, buf), ENOTTY);
	close(fd);
}

TEST(wrong_size_or_direction_refused)
{
	uint64_t buf[8] = { 0 };
	unsigned long bad[] = {
		_IOR('U', 2, uint32_t),		/* GET_SIZE with 4 bytes */
		_IOW('U', 2, uint64_t),		/* GET_SIZE written */
		_IOR('U', 7, struct ut_drv_info[2]),
		_IOW('U', 10, struct ut_export_args),
	};
	int fd = ut_open(ut_dev(), O_RDWR);

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		long r;

		errno = 0;
		r = ioctl(fd, bad[i], buf);
		UT_CHECK(r == -1 && (errno == ENOTTY || errno == EINVAL), 0,
			    "ioctl 0x%lx: want ENOTTY or EINVAL, got ret %ld errno %s",
			    bad[i], r, strerror(errno));
	}
	close(fd);
}

TEST(bad_pointer_efault)
{
	long pg = ut_page();
	char *two = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	int fd = ut_open(ut_dev(), O_RDWR);
	unsigned long cmds[] = {
		UT_GET_DRV_INFO, UT_GET_SIZE, UT_GET_DMA_ADDR, UT_GET_SYNC_OWNER,
		UT_SET_SYNC_FOR_CPU, UT_SET_SYNC_FOR_DEVICE, UT_GET_DEV_INFO,
		UT_GET_SYNC, UT_SET_SYNC, UT_EXPORT,
	};

	ASSERT_TRUE(two != MAP_FAILED);
	ASSERT_OK(munmap(two + pg, pg));
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		/* NULL, a kernel-half address, and a struct straddling an unmapped page */
		void *straddle = two + pg - 2;

		EXPECT_ERRNO(ioctl(fd, cmds[i], NULL), EFAULT);
		EXPECT_ERRNO(ioctl(fd, cmds[i], (void *)(uintptr_t)-4096), EFAULT);
		EXPECT_ERRNO(ioctl(fd, cmds[i], straddle), EFAULT);
	}
	close(fd);
}

TEST(read_only_fd_may_query)
{
	uint64_t size = 0;
	int fd = ut_open(ut_dev(), O_RDONLY);

	ASSERT_OK(ioctl(fd, UT_GET_SIZE, &size));
	EXPECT_EQ(size, ut_size(ut_dev()));
	close(fd);
}

TEST_HARNESS_MAIN
