// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * udmabuf-mgr - /dev/u-dma-buf-mgr: create/delete, terminators, several
 * commands per write and one command over several writes, prefix matching,
 * options, errors (EINVAL, ENOSPC) and deleting a busy buffer (EBUSY).
 * Reference: u-dma-buf-interface.md section 4.
 */
#define _FILE_OFFSET_BITS 64
#include <dirent.h>
#include <libgen.h>

#include "udmabuf-test.h"

#define UT_MGR	"/dev/u-dma-buf-mgr"

static int ut_mgr_open(void)
{
	int fd = open(UT_MGR, O_WRONLY);

	UT_CHECK(fd >= 0, 1, "open %s: %s", UT_MGR, strerror(errno));
	return fd;
}

/* One write() of len bytes: 0 when all were taken, else -errno. */
static int ut_mgr_write(int fd, const char *s, size_t len)
{
	ssize_t n = write(fd, s, len);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

/* A whole command string on a fresh open. */
static int ut_mgr(const char *s)
{
	int fd = ut_mgr_open(), err;

	err = ut_mgr_write(fd, s, strlen(s));
	close(fd);
	return err;
}

static int ut_exists(const char *name)
{
	char path[256];

	ut_path(path, sizeof(path), name, "");
	return access(path, F_OK) == 0;
}

static void ut_drop(const char *name)
{
	char cmd[128];

	if (ut_exists(name)) {
		snprintf(cmd, sizeof(cmd), "delete %s\n", name);
		ut_mgr(cmd);
	}
}

#define ASSERT_MGR_OK(s) do {						\
		int __e = ut_mgr(s);					\
		UT_CHECK(__e == 0, 1, "mgr \"%s\": want success, got %s", \
			 s, strerror(-__e));				\
	} while (0)

#define EXPECT_MGR_ERR(s, e1, e2) do {					\
		int __e = ut_mgr(s);					\
		UT_CHECK(__e == -(e1) || __e == -(e2), 0,		\
			 "mgr \"%s\": want %s, got %s", s, strerror(e1), \
			 __e ? strerror(-__e) : "success");		\
	} while (0)

#define EXPECT_EXISTS(name, want) do {					\
		int __x = ut_exists(name);				\
		UT_CHECK(__x == (want), 0, "buffer %s: want %s, got %s", \
			 name, (want) ? "present" : "absent",	\
			 __x ? "present" : "absent");		\
	} while (0)

TEST(create_and_delete)
{
	char path[64];
	struct stat st;

	ut_drop("ut-m0");
	ASSERT_MGR_OK("create ut-m0 65536\n");
	ASSERT_TRUE(ut_exists("ut-m0"));
	EXPECT_EQ(ut_size("ut-m0"), 65536);
	snprintf(path, sizeof(path), "/dev/%s", "ut-m0");
	EXPECT_OK(stat(path, &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	/* default node mode 0600 */
	EXPECT_EQ(st.st_mode & 0777, 0600);
	/* a platform buffer syncs the whole buffer by default */
	EXPECT_EQ(ut_get("ut-m0", "sync_size", 10), 65536);
	EXPECT_EQ(ut_get("ut-m0", "sync_mode", 10), 1);
	ASSERT_MGR_OK("delete ut-m0\n");
	EXPECT_EXISTS("ut-m0", 0);
	EXPECT_ERRNO(stat(path, &st), ENOENT);
}

TEST(auto_minors_differ)
{
	char a[32], b[32];

	ut_drop("ut-m1");
	ut_drop("ut-m2");
	ASSERT_MGR_OK("create ut-m1 4096\ncreate ut-m2 4096\n");
	ASSERT_EQ(ut_attr_read("ut-m1", "dev", a, sizeof(a)), 0);
	ASSERT_EQ(ut_attr_read("ut-m2", "dev", b, sizeof(b)), 0);
	UT_CHECK(strcmp(a, b) != 0, 0, "two buffers share dev %s", a);
	ASSERT_MGR_OK("delete ut-m1;delete ut-m2;");
	EXPECT_EXISTS("ut-m1", 0);
	EXPECT_EXISTS("ut-m2", 0);
}

TEST(terminators_newline_semicolon_nul)
{
	static const char cmds[] = "create ut-t1 4096;create ut-t2 4096\ncreate ut-t3 4096";
	int fd;

	ut_drop("ut-t1");
	ut_drop("ut-t2");
	ut_drop("ut-t3");
	fd = ut_mgr_open();
	/* sizeof includes the final NUL, which terminates the third command */
	ASSERT_EQ(ut_mgr_write(fd, cmds, sizeof(cmds)), 0);
	close(fd);
	EXPECT_EXISTS("ut-t1", 1);
	EXPECT_EXISTS("ut-t2", 1);
	EXPECT_EXISTS("ut-t3", 1);
	fd = ut_mgr_open();
	ASSERT_EQ(ut_mgr_write(fd, "delete ut-t1\0delete ut-t2;delete ut-t3\n", 39), 0);
	close(fd);
	EXPECT_EXISTS("ut-t1", 0);
	EXPECT_EXISTS("ut-t2", 0);
	EXPECT_EXISTS("ut-t3", 0);
}

TEST(command_split_over_writes)
{
	int fd;

	ut_drop("ut-s1");
	fd = ut_mgr_open();
	ASSERT_EQ(ut_mgr_write(fd, "crea", 4), 0);
	ASSERT_EQ(ut_mgr_write(fd, "te ut-s1 0x", 11), 0);
	ASSERT_EQ(ut_mgr_write(fd, "2000", 4), 0);
	/* not terminated yet: nothing happened */
	EXPECT_EXISTS("ut-s1", 0);
	ASSERT_EQ(ut_mgr_write(fd, "\n", 1), 0);
	close(fd);
	EXPECT_EXISTS("ut-s1", 1);
	EXPECT_EQ(ut_size("ut-s1"), 0x2000);
	ut_drop("ut-s1");
}

TEST(whitespace_runs_and_tabs)
{
	ut_drop("ut-w1");
	ASSERT_MGR_OK("  create \t ut-w1\t\t 8192  \n");
	EXPECT_EQ(ut_size("ut-w1"), 8192);
	ASSERT_MGR_OK("\tdelete   ut-w1 \n");
	EXPECT_EXISTS("ut-w1", 0);
}

TEST(size_forms_hex_octal_size_eq_last_wins)
{
	ut_drop("ut-z1");
	ASSERT_MGR_OK("create ut-z1 010000\n");
	EXPECT_EQ(ut_size("ut-z1"), 4096);
	ASSERT_MGR_OK("delete ut-z1\n");
	ASSERT_MGR_OK("create ut-z1 size=0x3000\n");
	EXPECT_EQ(ut_size("ut-z1"), 0x3000);
	ASSERT_MGR_OK("delete ut-z1\n");
	ASSERT_MGR_OK("create ut-z1 4096 size=12288\n");
	EXPECT_EQ(ut_size("ut-z1"), 12288);
	ASSERT_MGR_OK("delete ut-z1\n");
	ASSERT_MGR_OK("create ut-z1 size=12288 5000\n");
	EXPECT_EQ(ut_size("ut-z1"), 5000);
	ASSERT_MGR_OK("delete ut-z1\n");
}

TEST(keywords_are_prefix_matched)
{
	ut_drop("ut-p1");
	ASSERT_MGR_OK("createX ut-p1 4096 quirk-mmap-offFOO\n");
	EXPECT_EXISTS("ut-p1", 1);
	EXPECT_EQ(ut_get("ut-p1", "quirk_mmap_mode", 10), 1);
	ASSERT_MGR_OK("deleteme ut-p1\n");
	EXPECT_EXISTS("ut-p1", 0);
}

TEST(quirk_mmap_options)
{
	static const char *const opt[] = {
		"quirk-mmap-off", "quirk-mmap-on", "quirk-mmap-auto", "quirk-mmap-page",
	};
	char cmd[128];

	for (int i = 0; i < 4; i++) {
		ut_drop("ut-q1");
		snprintf(cmd, sizeof(cmd), "create ut-q1 0x10000 %s\n", opt[i]);
		ASSERT_MGR_OK(cmd);
		EXPECT_EQ(ut_get("ut-q1", "quirk_mmap_mode", 10), i + 1);
		/* the buffer maps and holds data in every mode */
		{
			int fd = ut_open("ut-q1", O_RDWR);
			char *p = mmap(NULL, 0x10000, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
			char b[256];

			ASSERT_TRUE(p != MAP_FAILED);
			ut_fill(p, 0x10000, 0, 1000 + i);
			ASSERT_EQ(ut_pread_all(fd, b, sizeof(b), 0x10000 - sizeof(b)), 0);
			ASSERT_PATTERN(b, sizeof(b), 0x10000 - sizeof(b), 1000 + i);
			munmap(p, 0x10000);
			close(fd);
		}
		ASSERT_MGR_OK("delete ut-q1\n");
	}
}

/* The flags of GET_DEV_INFO for buffer NAME. */
static uint64_t ut_dev_flags(const char *name)
{
	struct ut_dev_info info;
	int fd = ut_open(name, O_RDWR);

	ASSERT_OK(ioctl(fd, UT_GET_DEV_INFO, &info));
	close(fd);
	return info.flags;
}

static uint64_t ut_mask_bits(const char *name)
{
	return UT_DEV_DMA_MASK(ut_dev_flags(name));
}

TEST(dma_mask_option)
{
	uint64_t def;

	ut_drop("ut-d1");
	ASSERT_MGR_OK("create ut-d1 4096 dma-mask=40\n");
	EXPECT_EQ(ut_mask_bits("ut-d1"), 40);
	ASSERT_MGR_OK("delete ut-d1\n");
	/* 0: the dma_mask_bit parameter */
	def = ut_get("../../module/u_dma_buf/parameters", "dma_mask_bit", 10);
	ASSERT_MGR_OK("create ut-d1 4096 dma-mask=0\n");
	EXPECT_EQ(ut_mask_bits("ut-d1"), def);
	ASSERT_MGR_OK("delete ut-d1\n");
	ASSERT_MGR_OK("create ut-d1 4096 dma-mask=32\n");
	EXPECT_EQ(ut_mask_bits("ut-d1"), 32);
	ASSERT_MGR_OK("delete ut-d1\n");
}

static int ut_coherent_flag(const char *name)
{
	return UT_DEV_DMA_COHERENT(ut_dev_flags(name));
}

/*
 * dma-coherent, a udmem addition (u-dma-buf issues #69 and #127): the new
 * platform device counts as DMA-coherent, as a device-tree node with the
 * dma-coherent property would, in sysfs, in GET_DEV_INFO and for the DMA
 * API.  Without it the device keeps the architecture's default.
 */
TEST(dma_coherent_option)
{
	const char *pci;
	char b[256], cmd[160];
	int fd, err;
	char *p;

	ut_drop("ut-c1");
	err = ut_mgr("create ut-c1 0x10000 dma-coherent\n");
	if (err == -EOPNOTSUPP)
		SKIP("this kernel chose its DMA operations at device setup (ARM before 5.19)");
	UT_CHECK(err == 0, 1, "create dma-coherent: %s", strerror(-err));
	EXPECT_EQ(ut_get("ut-c1", "dma_coherent", 10), 1);
	EXPECT_EQ(ut_coherent_flag("ut-c1"), 1);
	/* data and the sync paths work as on any buffer */
	fd = ut_open("ut-c1", O_RDWR);
	p = mmap(NULL, 0x10000, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	ut_fill(p, 0x10000, 0, 77);
	EXPECT_EQ(ut_attr_write("ut-c1", "sync_for_device", "1"), 0);
	EXPECT_EQ(ut_attr_write("ut-c1", "sync_for_cpu", "1"), 0);
	ASSERT_EQ(ut_pread_all(fd, b, sizeof(b), 0x10000 - sizeof(b)), 0);
	ASSERT_PATTERN(b, sizeof(b), 0x10000 - sizeof(b), 77);
	munmap(p, 0x10000);
	close(fd);
	ASSERT_MGR_OK("delete ut-c1\n");
	/*
	 * Without the keyword: the platform default, non-coherent on ARM,
	 * coherent on x86 (RISC-V: coherent unless the CPU has cache
	 * maintenance, so not checked).
	 */
	ASSERT_MGR_OK("create ut-c1 0x10000\n");
#if defined(__x86_64__) || defined(__i386__)
	EXPECT_EQ(ut_get("ut-c1", "dma_coherent", 10), 1);
#elif defined(__arm__) || defined(__aarch64__)
	EXPECT_EQ(ut_get("ut-c1", "dma_coherent", 10), 0);
	EXPECT_EQ(ut_coherent_flag("ut-c1"), 0);
#endif
	ASSERT_MGR_OK("delete ut-c1\n");
	/* an exact keyword, and not for a parent whose coherency its bus decides */
	EXPECT_MGR_ERR("create ut-c1 0x10000 dma-coherentX\n", EINVAL, EINVAL);
	pci = getenv("UDMABUF_PCI");
	if (pci && *pci) {
		snprintf(cmd, sizeof(cmd), "create ut-c1 0x4000 dma-coherent bus=pci device=%s\n",
			 pci);
		EXPECT_MGR_ERR(cmd, EINVAL, EINVAL);
	}
	EXPECT_EXISTS("ut-c1", 0);
}

/*
 * create bus=<bus> device=<$var>, which suite.sh sets to a device of that
 * bus when the guest has one; the buffer's parent is that device.
 */
static void ut_bind_on_bus(const char *bus, const char *var)
{
	const char *dev = getenv(var);
	char cmd[200], link[256], target[256];
	ssize_t n;

	if (!dev || !*dev)
		SKIP("no %s device in this guest (%s is empty)", bus, var);
	ut_drop("ut-b1");
	snprintf(cmd, sizeof(cmd), "create ut-b1 0x4000 bus=%s device=%s\n", bus, dev);
	ASSERT_MGR_OK(cmd);
	ut_path(link, sizeof(link), "ut-b1", "device");
	n = readlink(link, target, sizeof(target) - 1);
	ASSERT_GT(n, 0);
	target[n] = '\0';
	EXPECT_STREQ(basename(target), dev);
	EXPECT_EQ(ut_size("ut-b1"), 0x4000);
	/* the reference left sync_size 0 for bound buffers; a full range is expected */
	EXPECT_EQ(ut_get("ut-b1", "sync_size", 10), 0x4000);
	EXPECT_EQ(ut_attr_write("ut-b1", "sync_for_device", "1"), 0);
	EXPECT_EQ(ut_get("ut-b1", "sync_owner", 10), 1);
	ASSERT_MGR_OK("delete ut-b1\n");
	EXPECT_EXISTS("ut-b1", 0);
}

TEST(bind_to_pci_device)
{
	ut_bind_on_bus("pci", "UDMABUF_PCI");
}

TEST(bind_to_amba_device)
{
	ut_bind_on_bus("amba", "UDMABUF_AMBA");
}

TEST(bind_to_pci_express_service)
{
	ut_bind_on_bus("pci_express", "UDMABUF_PCIE");
}

TEST(bad_commands_einval)
{
	static const char *const bad[] = {
		"frobnicate ut-e1 4096\n",
		"create\n",
		"create ut-e1\n",
		"create ut-e1 0\n",
		"create ut-e1 size=0\n",
		"create ut-e1 12k\n",
		"create ut-e1 4096 bogus=1\n",
		"create ut-e1 4096 bus=platform\n",
		"create ut-e1 4096 bus=nosuchbus\n",
		"create ut-e1 4096 bus=pci device=0000:ff:1f.7\n",
		"create ut-e1 4096 bus=pci_express device=no-such-service\n",
		"create ut-e1 4096 dma-mask=256\n",
		"create ut-e1 -4096\n",
		"create ut-e1 0x\n",
		"delete\n",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_MGR_ERR(bad[i], EINVAL, EINVAL);
		EXPECT_EXISTS("ut-e1", 0);
	}
}

TEST(bad_names_einval)
{
	char cmd[128];

	EXPECT_MGR_ERR("create ut/e2 4096\n", EINVAL, EINVAL);
	EXPECT_MGR_ERR("create .. 4096\n", EINVAL, EINVAL);
	EXPECT_MGR_ERR("create . 4096\n", EINVAL, EINVAL);
	EXPECT_MGR_ERR("create ut\001e 4096\n", EINVAL, EINVAL);
	/* 64 characters: too long for a name */
	snprintf(cmd, sizeof(cmd), "create %s 4096\n",
		 "ut-0123456789012345678901234567890123456789012345678901234567890");
	EXPECT_MGR_ERR(cmd, EINVAL, EINVAL);
	EXPECT_EXISTS("ut", 0);
}

TEST(delete_unknown_enoent)
{
	EXPECT_MGR_ERR("delete ut-nosuch\n", ENOENT, ENOENT);
	ut_drop("ut-x1");
	ASSERT_MGR_OK("create ut-x1 4096\n");
	ASSERT_MGR_OK("delete ut-x1\n");
	EXPECT_MGR_ERR("delete ut-x1\n", ENOENT, ENOENT);
}

TEST(duplicate_name_refused)
{
	ut_drop("ut-y1");
	ASSERT_MGR_OK("create ut-y1 4096\n");
	EXPECT_MGR_ERR("create ut-y1 8192\n", EEXIST, EEXIST);
	EXPECT_EQ(ut_size("ut-y1"), 4096);
	ASSERT_MGR_OK("delete ut-y1\n");
	/* the failed create left nothing behind (reference issue #110) */
	ASSERT_MGR_OK("create ut-y1 8192\n");
	EXPECT_EQ(ut_size("ut-y1"), 8192);
	ASSERT_MGR_OK("delete ut-y1\n");
}

TEST(state_resets_after_error)
{
	int fd = ut_mgr_open();
	int e;

	ut_drop("ut-r1");
	e = ut_mgr_write(fd, "bogus\n", 6);
	EXPECT_EQ(e, -EINVAL);
	e = ut_mgr_write(fd, "create ut-r1 4096\n", 18);
	EXPECT_EQ(e, 0);
	e = ut_mgr_write(fd, "delete ut-nosuch\n", 17);
	EXPECT_EQ(e, -ENOENT);
	e = ut_mgr_write(fd, "delete ut-r1\n", 13);
	EXPECT_EQ(e, 0);
	close(fd);
	EXPECT_EXISTS("ut-r1", 0);
}

TEST(full_line_buffer_enospc)
{
	char junk[1024];
	int fd = ut_mgr_open(), e = 0, i;

	memset(junk, 'a', sizeof(junk));
	memcpy(junk, "create ", 7);
	/* 1024 unterminated bytes, then more: ENOSPC within a few writes, no hang */
	for (i = 0; i < 4; i++) {
		e = ut_mgr_write(fd, junk, sizeof(junk));
		if (e)
			break;
	}
	UT_CHECK(e == -ENOSPC, 0, "over-long command: want ENOSPC, got %s",
		 e ? strerror(-e) : "success");
	close(fd);
	/* a fresh open starts clean */
	ut_drop("ut-n1");
	ASSERT_MGR_OK("create ut-n1 4096\n");
	ASSERT_MGR_OK("delete ut-n1\n");
}

TEST(size_4gib_or_more_exact_or_refused)
{
	static const char *const cmd[] = {
		"create ut-g1 0x100000000\n", "create ut-g1 0x100001000\n",
		"create ut-g1 0xFFFFFFFFFFFFF000\n", "create ut-g1 0xFFFFFFFFFFFFFFFF\n",
		"create ut-g1 18446744073709551616\n",
	};
	static const uint64_t want[] = {
		0x100000000ull, 0x100001000ull, 0xFFFFFFFFFFFFF000ull, UINT64_MAX, 0,
	};

	for (size_t i = 0; i < sizeof(cmd) / sizeof(cmd[0]); i++) {
		int e;

		ut_drop("ut-g1");
		e = ut_mgr(cmd[i]);
		if (e == 0) {
			/* never a truncated buffer */
			EXPECT_EQ(ut_size("ut-g1"), want[i]);
			ut_drop("ut-g1");
		} else {
			UT_CHECK(e == -ENOMEM || e == -EINVAL || e == -E2BIG ||
				 e == -ERANGE || e == -EFBIG, 0,
				 "\"%.40s\": want success or a size error, got %s", cmd[i],
				 strerror(-e));
			EXPECT_EXISTS("ut-g1", 0);
		}
	}
}

TEST(delete_busy_ebusy)
{
	long pg = ut_page();
	struct ut_export_args a;
	char *p;
	int fd;

	ut_drop("ut-busy");
	ASSERT_MGR_OK("create ut-busy 0x10000\n");
	/* open */
	fd = ut_open("ut-busy", O_RDWR);
	EXPECT_MGR_ERR("delete ut-busy\n", EBUSY, EBUSY);
	EXPECT_EXISTS("ut-busy", 1);
	/* mapped, fd closed */
	p = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	close(fd);
	EXPECT_MGR_ERR("delete ut-busy\n", EBUSY, EBUSY);
	EXPECT_EXISTS("ut-busy", 1);
	p[0] = 1;
	ASSERT_OK(munmap(p, pg));
	/* exported, fd closed */
	fd = ut_open("ut-busy", O_RDWR);
	memset(&a, 0, sizeof(a));
	a.flags = O_RDWR;
	a.size = pg;
	ASSERT_OK(ioctl(fd, UT_EXPORT, &a));
	close(fd);
	EXPECT_MGR_ERR("delete ut-busy\n", EBUSY, EBUSY);
	EXPECT_EXISTS("ut-busy", 1);
	close(a.fd);
	/* idle again */
	ASSERT_MGR_OK("delete ut-busy\n");
	EXPECT_EXISTS("ut-busy", 0);
}

TEST(failed_export_leaves_buffer_deletable)
{
	long pg = ut_page();
	struct ut_export_args a;
	int fd;

	ut_drop("ut-fx");
	ASSERT_MGR_OK("create ut-fx 0x10000\n");
	fd = ut_open("ut-fx", O_RDWR);
	memset(&a, 0, sizeof(a));
	a.flags = O_RDWR | O_APPEND;
	a.size = pg;
	EXPECT_ERRNO(ioctl(fd, UT_EXPORT, &a), EINVAL);
	a.flags = O_RDWR;
	a.offset = 1;
	EXPECT_ERRNO(ioctl(fd, UT_EXPORT, &a), EINVAL);
	close(fd);
	ASSERT_MGR_OK("delete ut-fx\n");
}

TEST_HARNESS_MAIN
