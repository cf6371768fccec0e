// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * failnth - every allocation of an operation failed in turn: the operation
 * runs with /proc/thread-self/fail-nth = N for N = 1, 2, 3, ... until it
 * completes without reaching the Nth fault site (fail-nth still reads
 * non-zero).  For every N that failed the operation: a clean errno, nothing
 * left half made, and the same operation works right after.
 *
 * Operations: u-dma-buf-mgr create (also with the sync checker asked for)
 * and delete, U_DMA_BUF_IOCTL_EXPORT,
 * U_DMA_BUF_IOCTL_IMPORT of another buffer's export, and switching a
 * buffer's sync checker on (report and strict); where the guest has a
 * dmaengine channel that can copy memory and u-dma-chan is loaded, the
 * u-dma-chan manager's create, an open of the channel and a SUBMIT of a
 * copy between two buffers with a fence (whose data must then arrive).
 *
 * failslab and fail_page_alloc are armed for this thread only (task-filter,
 * make-it-fail, probability 0) and for every allocation (ignore-gfp-wait N,
 * min-order 0).  Each test prints, per N, what the operation gave: an errno
 * name, "ok" (the fault was taken and the operation still succeeded: a
 * fallback) or "done" (the fault was not reached).
 *
 * Environment, for replaying one failure (the kernel passes NAME=VALUE
 * words of its command line to the suites, so --append "..." sets them):
 *   FAILNTH_ONLY=N     run each operation at fail-nth N only
 *   FAILNTH_VERBOSE=2  the kernel logs each injected fault with its stack
 *                      (1: without); the log check then fails the suite
 */
#include <dirent.h>
#include <stdbool.h>
#include <sys/mount.h>
#include <sys/klog.h>
#include <sys/stat.h>
#include <linux/u-dma-buf-ioctl.h>
#include <linux/u-dma-chan.h>

#include "fault-nth.h"
#include "harness.h"
#include "ut.h"

#define FN_DEBUGFS	FNTH_DEBUGFS
#define FN_MGR		"/dev/u-dma-buf-mgr"
#define FN_CLASS	"/sys/class/u-dma-buf"
#define FN_MAX_NTH	600
#define FN_SIZE		65536

static unsigned int fn_first = 1, fn_last = FN_MAX_NTH;

/* Both fault attributes for this thread only; FAILNTH_ONLY: one N. */
static void fn_setup(void)
{
	fnth_setup();
	if (atoi(ut_env("FAILNTH_ONLY", "0")) > 0) {
		fn_first = atoi(ut_env("FAILNTH_ONLY", "0"));
		fn_last = fn_first;
	}
}

/*
 * What each N gave, as runs of equal results ("1-7 ENOMEM, 8 ok, 9 done"),
 * and the N that gave anything but ENOMEM.
 */
struct fn_log {
	const char *op;
	char text[1536];
	char odd[512];
	const char *last;
	unsigned int from, to, runs, failed;
};

static void fn_flush(struct fn_log *l)
{
	size_t n = strlen(l->text);

	if (!l->last)
		return;
	if (l->from == l->to)
		snprintf(l->text + n, sizeof(l->text) - n, "%s%u %s", n ? ", " : "", l->from,
			 l->last);
	else
		snprintf(l->text + n, sizeof(l->text) - n, "%s%u-%u %s", n ? ", " : "", l->from,
			 l->to, l->last);
}

static void fn_note(struct fn_log *l, unsigned int nth, const char *what, int err)
{
	l->runs++;
	if (err) {
		l->failed++;
		if (err != ENOMEM) {
			size_t n = strlen(l->odd);

			snprintf(l->odd + n, sizeof(l->odd) - n, " %u:%s", nth, what);
		}
	}
	if (l->last && !strcmp(l->last, what) && l->to + 1 == nth) {
		l->to = nth;
		return;
	}
	fn_flush(l);
	l->last = what;
	l->from = nth;
	l->to = nth;
}

static void fn_done(struct fn_log *l, bool complete)
{
	fn_flush(l);
	TH_LOG("%s: %u runs, %u failed; per fail-nth: %s", l->op, l->runs, l->failed, l->text);
	if (l->odd[0])
		TH_LOG("%s: errno other than ENOMEM at fail-nth:%s", l->op, l->odd);
	UT_CHECK(complete || fn_last < FN_MAX_NTH, 0, "%s: still reaching the fault at fail-nth %d",
		 l->op, FN_MAX_NTH);
}

static const char *fn_result(int err)
{
	return err ? strerrorname_np(err) ?: "E?" : "ok";
}

/* The errnos an operation may give when an allocation under it fails. */
#define B(e)		(1ULL << (e))
#define FN_NOMEM	(B(ENOMEM))

/* With FAILNTH_VERBOSE: the end of the kernel log, where the fault's stack is. */
static void fn_klog_tail(void)
{
	static char buf[1 << 17];
	char *p, *nl;
	int n, lines = 0;

	if (atoi(ut_env("FAILNTH_VERBOSE", "0")) < 2)
		return;
	n = klogctl(3, buf, sizeof(buf) - 1);	/* SYSLOG_ACTION_READ_ALL */
	if (n <= 0)
		return;
	buf[n] = 0;
	for (p = buf + n; p > buf && lines < 60; p--)
		lines += p[-1] == '\n';
	for (; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			break;
		TH_LOG("klog: %.*s", (int)(nl - p), p);
	}
}

static void fn_errno(struct fn_log *l, unsigned int nth, int err, unsigned long long allowed)
{
	bool good = err > 0 && err < 64 && (B(err) & allowed);

	UT_CHECK(good, 0, "%s with fail-nth %u: %s (%d), not a documented errno", l->op, nth,
		 fn_result(err), err);
	if (!good)
		fn_klog_tail();
}

static int fn_cmd(int mgr, const char *fmt, const char *name)
{
	char cmd[128];
	int n = snprintf(cmd, sizeof(cmd), fmt, name);

	return write(mgr, cmd, n) == n ? 0 : errno;
}

static bool fn_exists(const char *name)
{
	char path[128];
	struct stat st;

	snprintf(path, sizeof(path), FN_CLASS "/%s", name);
	if (!stat(path, &st))
		return true;
	snprintf(path, sizeof(path), "/dev/%s", name);
	return !stat(path, &st);
}

static bool fn_whole(const char *name)
{
	char path[128];
	struct stat st;

	snprintf(path, sizeof(path), FN_CLASS "/%s/size", name);
	if (stat(path, &st))
		return false;
	snprintf(path, sizeof(path), "/dev/%s", name);
	return !stat(path, &st) && S_ISCHR(st.st_mode);
}

static int fn_open_mgr(void)
{
	int mgr = open(FN_MGR, O_WRONLY);

	if (mgr < 0)
		SKIP("no " FN_MGR " (u-dma-buf-mgr not loaded)");
	return mgr;
}

static int fn_nfds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/*
 * Manager create with @opts.  With sync-check=report a buffer may also be
 * made unchecked when the checker's state cannot be allocated (a warning
 * in the log, documented), but only when the fault was taken.
 */
static void fn_create(const char *op, const char *opts, bool checked)
{
	struct fn_log l = { .op = op };
	char fmt[96], path[128], v[32];
	unsigned int n, unchecked = 0;
	bool done = false;
	int mgr, err;

	snprintf(fmt, sizeof(fmt), "create %%s 65536%s\n", opts);
	snprintf(path, sizeof(path), FN_CLASS "/fn-create/sync_check");
	fn_setup();
	mgr = fn_open_mgr();
	ut_cleanup_buffer("fn-create");
	for (n = fn_first; n <= fn_last && !done; n++) {
		fnth_arm(l.op, n);
		err = fn_cmd(mgr, fmt, "fn-create");
		done = fnth_disarm();
		fn_note(&l, n, done ? "done" : fn_result(err), err);
		if (err) {
			/*
			 * EINVAL: platform_device_add() (Linux 6.1) does not
			 * check dev_set_name(), and device_add() refuses the
			 * device without a name with EINVAL (x86_64-debug,
			 * fail-nth 7: kvasprintf() under dev_set_name()).
			 */
			fn_errno(&l, n, err, FN_NOMEM | B(EINVAL));
			UT_CHECK(!fn_exists("fn-create"), 0,
				 "create failed at fail-nth %u but left fn-create behind", n);
			err = fn_cmd(mgr, fmt, "fn-create");
			UT_CHECK(!err, 1, "create after the failed one (fail-nth %u): %s", n,
				 fn_result(err));
		} else if (checked) {
			v[0] = 0;
			fnth_read(path, v, sizeof(v));
			unchecked += !done && !strcmp(v, "off");
			UT_CHECK(!strcmp(v, "report") || (!done && !strcmp(v, "off")), 0,
				 "created with fail-nth %u: the checker reads %s", n, v);
		}
		UT_CHECK(fn_whole("fn-create"), 0, "fn-create (fail-nth %u) is not whole", n);
		err = fn_cmd(mgr, "delete %s\n", "fn-create");
		UT_CHECK(!err, 1, "delete after create with fail-nth %u: %s", n, fn_result(err));
	}
	if (checked)
		TH_LOG("%s: %u buffers made unchecked", op, unchecked);
	fn_done(&l, done);
	close(mgr);
}

TEST(manager_create)
{
	fn_create("manager create", "", false);
}

TEST(manager_create_sync_check)
{
	fn_create("manager create sync-check=report", " quirk-mmap-on sync-check=report", true);
}

TEST(manager_delete)
{
	struct fn_log l = { .op = "manager delete" };
	bool done = false;
	unsigned int n;
	int mgr, err;

	fn_setup();
	mgr = fn_open_mgr();
	ut_cleanup_buffer("fn-delete");
	for (n = fn_first; n <= fn_last && !done; n++) {
		err = fn_cmd(mgr, "create %s 65536\n", "fn-delete");
		UT_CHECK(!err, 1, "create before delete with fail-nth %u: %s", n, fn_result(err));
		fnth_arm(l.op, n);
		err = fn_cmd(mgr, "delete %s\n", "fn-delete");
		done = fnth_disarm();
		fn_note(&l, n, done ? "done" : fn_result(err), err);
		if (err) {
			fn_errno(&l, n, err, FN_NOMEM);
			UT_CHECK(fn_whole("fn-delete"), 0,
				 "delete failed at fail-nth %u and left fn-delete half gone", n);
			err = fn_cmd(mgr, "delete %s\n", "fn-delete");
			UT_CHECK(!err, 1, "delete after the failed one (fail-nth %u): %s", n,
				 fn_result(err));
		}
		UT_CHECK(!fn_exists("fn-delete"), 1, "fn-delete still there (fail-nth %u)", n);
	}
	fn_done(&l, done);
	close(mgr);
}

/* An open buffer made by the manager; -1 on failure (the check says why). */
static int fn_buffer(int mgr, const char *name)
{
	char path[128];
	int err, fd;

	ut_cleanup_buffer(name);
	err = fn_cmd(mgr, "create %s 65536\n", name);
	UT_CHECK(!err, 1, "create %s: %s", name, fn_result(err));
	snprintf(path, sizeof(path), "/dev/%s", name);
	fd = open(path, O_RDWR);
	UT_CHECK(fd >= 0, 1, "open %s: %s", path, fn_result(errno));
	return fd;
}

static int fn_export(int fd, int *out)
{
	struct u_dma_buf_ioctl_export_args a = { .flags = O_RDWR | O_CLOEXEC, .size = FN_SIZE };

	if (ioctl(fd, U_DMA_BUF_IOCTL_EXPORT, &a))
		return errno;
	*out = a.fd;
	return 0;
}

TEST(dmabuf_export)
{
	struct fn_log l = { .op = "EXPORT" };
	bool done = false;
	unsigned int n;
	int mgr, fd, bfd = -1, err, nfds;

	fn_setup();
	mgr = fn_open_mgr();
	fd = fn_buffer(mgr, "fn-export");
	nfds = fn_nfds();
	for (n = fn_first; n <= fn_last && !done; n++) {
		fnth_arm(l.op, n);
		err = fn_export(fd, &bfd);
		done = fnth_disarm();
		fn_note(&l, n, done ? "done" : fn_result(err), err);
		if (err) {
			fn_errno(&l, n, err, FN_NOMEM | B(EMFILE) | B(ENFILE));
			UT_CHECK(fn_nfds() == nfds, 0,
				 "EXPORT failed at fail-nth %u and left %d descriptors", n,
				 fn_nfds() - nfds);
			err = fn_export(fd, &bfd);
			UT_CHECK(!err, 1, "EXPORT after the failed one (fail-nth %u): %s", n,
				 fn_result(err));
		}
		close(bfd);
	}
	fn_done(&l, done);
	close(fd);
	err = fn_cmd(mgr, "delete %s\n", "fn-export");
	EXPECT_EQ(err, 0);
	close(mgr);
}

static int fn_import(int fd, int bfd, int *out)
{
	struct u_dma_buf_ioctl_import_args a;

	memset(&a, 0, sizeof(a));
	a.fd = bfd;
	a.flags = U_DMA_BUF_SYNC_DIR_BIDIRECTIONAL;
	a.import_fd = -1;
	if (ioctl(fd, U_DMA_BUF_IOCTL_IMPORT, &a))
		return errno;
	*out = a.import_fd;
	return 0;
}

TEST(dmabuf_import)
{
	struct fn_log l = { .op = "IMPORT" };
	bool done = false;
	unsigned int n;
	int mgr, src, dst, bfd = -1, ifd = -1, err, nfds;

	fn_setup();
	mgr = fn_open_mgr();
	src = fn_buffer(mgr, "fn-import-src");
	dst = fn_buffer(mgr, "fn-import-dst");
	err = fn_export(src, &bfd);
	ASSERT_EQ(err, 0);
	err = fn_import(dst, bfd, &ifd);
	if (err == EOPNOTSUPP || err == ENOTTY)
		SKIP("IMPORT of a manager buffer's export: %s", fn_result(err));
	ASSERT_EQ(err, 0);
	close(ifd);
	nfds = fn_nfds();
	for (n = fn_first; n <= fn_last && !done; n++) {
		fnth_arm(l.op, n);
		err = fn_import(dst, bfd, &ifd);
		done = fnth_disarm();
		fn_note(&l, n, done ? "done" : fn_result(err), err);
		if (err) {
			fn_errno(&l, n, err, FN_NOMEM | B(EMFILE) | B(ENFILE));
			UT_CHECK(fn_nfds() == nfds, 0,
				 "IMPORT failed at fail-nth %u and left %d descriptors", n,
				 fn_nfds() - nfds);
			err = fn_import(dst, bfd, &ifd);
			UT_CHECK(!err, 1, "IMPORT after the failed one (fail-nth %u): %s", n,
				 fn_result(err));
		}
		close(ifd);
	}
	fn_done(&l, done);
	close(bfd);
	close(dst);
	close(src);
	EXPECT_EQ(fn_cmd(mgr, "delete %s\n", "fn-import-dst"), 0);
	EXPECT_EQ(fn_cmd(mgr, "delete %s\n", "fn-import-src"), 0);
	close(mgr);
}

/*
 * The checker's state is allocated when it is first switched on and kept
 * while the buffer lives: every N on a new buffer.
 */
static void fn_sync_check(const char *mode)
{
	char op[48], path[128], v[32];
	struct fn_log l = { .op = op };
	bool done = false;
	unsigned int n;
	int mgr, err;

	snprintf(op, sizeof(op), "sync_check=%s", mode);
	fn_setup();
	mgr = fn_open_mgr();
	ut_cleanup_buffer("fn-sync");
	snprintf(path, sizeof(path), FN_CLASS "/fn-sync/sync_check");
	for (n = fn_first; n <= fn_last && !done; n++) {
		err = fn_cmd(mgr, "create %s 65536 quirk-mmap-on\n", "fn-sync");
		UT_CHECK(!err, 1, "create fn-sync before fail-nth %u: %s", n, fn_result(err));
		v[0] = 0;
		fnth_read(path, v, sizeof(v));
		UT_CHECK(!strcmp(v, "off"), 1, "a new buffer's checker reads %s", v);
		fnth_arm(l.op, n);
		err = fnth_write(path, mode);
		done = fnth_disarm();
		fn_note(&l, n, done ? "done" : fn_result(err), err);
		v[0] = 0;
		fnth_read(path, v, sizeof(v));
		if (err) {
			fn_errno(&l, n, err, FN_NOMEM);
			UT_CHECK(!strcmp(v, "off"), 0,
				 "%s failed at fail-nth %u but the checker reads %s", op, n, v);
			err = fnth_write(path, mode);
			UT_CHECK(!err, 1, "%s after the failed one (fail-nth %u): %s", op, n,
				 fn_result(err));
			fnth_read(path, v, sizeof(v));
		}
		UT_CHECK(!strcmp(v, mode), 0, "%s (fail-nth %u) reads %s", op, n, v);
		err = fnth_write(path, "off");
		UT_CHECK(!err, 1, "sync_check=off after fail-nth %u: %s", n, fn_result(err));
		err = fn_cmd(mgr, "delete %s\n", "fn-sync");
		UT_CHECK(!err, 1, "delete fn-sync after fail-nth %u: %s", n, fn_result(err));
	}
	fn_done(&l, done);
	close(mgr);
}

TEST(sync_check_report)
{
	fn_sync_check("report");
}

TEST(sync_check_strict)
{
	fn_sync_check("strict");
}

#define FN_CHAN_MGR	"/dev/u-dma-chan-mgr"
#define FN_CHAN_CLASS	"/sys/class/u-dma-chan"
#define FN_CHAN_LEN	4096

static bool fn_chan_exists(const char *name)
{
	char path[128];
	struct stat st;

	snprintf(path, sizeof(path), FN_CHAN_CLASS "/%s", name);
	if (!stat(path, &st))
		return true;
	snprintf(path, sizeof(path), "/dev/%s", name);
	return !stat(path, &st);
}

/* The u-dma-chan manager, with a channel that can copy; else the test skips. */
static int fn_chan_mgr(void)
{
	int cmgr = open(FN_CHAN_MGR, O_WRONLY), err;

	if (cmgr < 0)
		SKIP("no " FN_CHAN_MGR " (u-dma-chan not loaded)");
	err = fn_cmd(cmgr, "create %s memcpy\n", "fn-chan");
	if (err == ENODEV || err == ENOENT)
		SKIP("no free dmaengine channel that can copy memory: %s", fn_result(err));
	UT_CHECK(!err, 1, "create fn-chan memcpy: %s", fn_result(err));
	err = fn_cmd(cmgr, "delete %s\n", "fn-chan");
	UT_CHECK(!err, 1, "delete fn-chan: %s", fn_result(err));
	return cmgr;
}

TEST(chan_manager_create)
{
	struct fn_log l = { .op = "u-dma-chan create" };
	bool done = false;
	unsigned int n;
	int cmgr, err;

	fn_setup();
	cmgr = fn_chan_mgr();
	for (n = fn_first; n <= fn_last && !done; n++) {
		fnth_arm(l.op, n);
		err = fn_cmd(cmgr, "create %s memcpy\n", "fn-chan");
		done = fnth_disarm();
		fn_note(&l, n, done ? "done" : fn_result(err), err);
		if (err) {
			fn_errno(&l, n, err, FN_NOMEM);
			UT_CHECK(!fn_chan_exists("fn-chan"), 0,
				 "create failed at fail-nth %u but left fn-chan behind", n);
			err = fn_cmd(cmgr, "create %s memcpy\n", "fn-chan");
			UT_CHECK(!err, 1, "create after the failed one (fail-nth %u): %s", n,
				 fn_result(err));
		}
		err = fn_cmd(cmgr, "delete %s\n", "fn-chan");
		UT_CHECK(!err, 1, "delete after create with fail-nth %u: %s", n, fn_result(err));
	}
	fn_done(&l, done);
	close(cmgr);
}

TEST(chan_open)
{
	struct fn_log l = { .op = "u-dma-chan open" };
	bool done = false;
	unsigned int n;
	int cmgr, chan, err;

	fn_setup();
	cmgr = fn_chan_mgr();
	err = fn_cmd(cmgr, "create %s memcpy\n", "fn-chan");
	ASSERT_EQ(err, 0);
	for (n = fn_first; n <= fn_last && !done; n++) {
		fnth_arm(l.op, n);
		chan = open("/dev/fn-chan", O_RDWR);
		err = chan < 0 ? errno : 0;
		done = fnth_disarm();
		fn_note(&l, n, done ? "done" : fn_result(err), err);
		if (err) {
			fn_errno(&l, n, err, FN_NOMEM | B(ENFILE));
			chan = open("/dev/fn-chan", O_RDWR);
			UT_CHECK(chan >= 0, 1, "open after the failed one (fail-nth %u): %s", n,
				 fn_result(errno));
		}
		close(chan);
	}
	fn_done(&l, done);
	EXPECT_EQ(fn_cmd(cmgr, "delete %s\n", "fn-chan"), 0);
	close(cmgr);
}

static int fn_submit(int chan, int sfd, int dfd, int *fence, uint64_t *seq)
{
	struct u_dma_chan_xfer x = {
		.op = U_DMA_CHAN_OP_MEMCPY, .src_fd = sfd, .dst_fd = dfd, .length = FN_CHAN_LEN,
	};
	struct u_dma_chan_submit sub = {
		.xfers = (uintptr_t)&x, .count = 1, .flags = U_DMA_CHAN_SUBMIT_FENCE_FD,
	};

	if (ioctl(chan, U_DMA_CHAN_IOCTL_SUBMIT, &sub))
		return errno;
	*fence = sub.fence_fd;
	*seq = sub.seq;
	return 0;
}

/* Wait for batch @seq and check that @dst holds @val; the check says what went wrong. */
static void fn_chan_landed(int chan, int dst, uint64_t seq, uint8_t val, unsigned int n)
{
	struct u_dma_chan_wait w = { .seq = seq, .timeout_ns = -1 };
	uint8_t got[FN_CHAN_LEN];
	size_t i;

	UT_PROGRESS("wait for batch %llu (fail-nth %u)", (unsigned long long)seq, n);
	UT_CHECK(!ioctl(chan, U_DMA_CHAN_IOCTL_WAIT, &w), 1, "WAIT (fail-nth %u): %s", n,
		 fn_result(errno));
	UT_CHECK(w.status == 0, 0, "batch of fail-nth %u ended with %d", n, w.status);
	UT_CHECK(pread(dst, got, sizeof(got), 0) == (ssize_t)sizeof(got), 1,
		 "read the destination: %s", fn_result(errno));
	for (i = 0; i < sizeof(got) && got[i] == val; i++)
		;
	UT_CHECK(i == sizeof(got), 0, "copy of fail-nth %u: byte %zu is 0x%02x, not 0x%02x", n,
		 i, i < sizeof(got) ? got[i] : 0, val);
}

TEST(chan_submit)
{
	struct fn_log l = { .op = "u-dma-chan SUBMIT" };
	uint8_t pat[FN_CHAN_LEN];
	bool done = false;
	unsigned int n;
	int mgr, cmgr, chan, src, dst, sfd = -1, dfd = -1, fence = -1, err, nfds;
	uint64_t seq = 0;

	fn_setup();
	mgr = fn_open_mgr();
	cmgr = fn_chan_mgr();
	err = fn_cmd(cmgr, "create %s memcpy\n", "fn-chan");
	ASSERT_EQ(err, 0);
	src = fn_buffer(mgr, "fn-chan-src");
	dst = fn_buffer(mgr, "fn-chan-dst");
	ASSERT_EQ(fn_export(src, &sfd), 0);
	ASSERT_EQ(fn_export(dst, &dfd), 0);
	nfds = fn_nfds() + 1;
	for (n = fn_first; n <= fn_last && !done; n++) {
		/* A new file each time: a file keeps its DMA-BUF mappings. */
		chan = open("/dev/fn-chan", O_RDWR);
		UT_CHECK(chan >= 0, 1, "open /dev/fn-chan: %s", fn_result(errno));
		memset(pat, (uint8_t)n, sizeof(pat));
		ASSERT_EQ(pwrite(src, pat, sizeof(pat), 0), (ssize_t)sizeof(pat));
		fnth_arm(l.op, n);
		err = fn_submit(chan, sfd, dfd, &fence, &seq);
		done = fnth_disarm();
		fn_note(&l, n, done ? "done" : fn_result(err), err);
		if (err) {
			fn_errno(&l, n, err, FN_NOMEM | B(EMFILE) | B(ENFILE));
			UT_CHECK(fn_nfds() == nfds, 0,
				 "SUBMIT failed at fail-nth %u and left %d descriptors", n,
				 fn_nfds() - nfds);
			err = fn_submit(chan, sfd, dfd, &fence, &seq);
			UT_CHECK(!err, 1, "SUBMIT after the failed one (fail-nth %u): %s", n,
				 fn_result(err));
		}
		UT_CHECK(fence >= 0, 0, "SUBMIT (fail-nth %u) gave no fence", n);
		close(fence);
		fn_chan_landed(chan, dst, seq, (uint8_t)n, n);
		close(chan);
	}
	fn_done(&l, done);
	close(sfd);
	close(dfd);
	close(src);
	close(dst);
	EXPECT_EQ(fn_cmd(cmgr, "delete %s\n", "fn-chan"), 0);
	EXPECT_EQ(fn_cmd(mgr, "delete %s\n", "fn-chan-src"), 0);
	EXPECT_EQ(fn_cmd(mgr, "delete %s\n", "fn-chan-dst"), 0);
	close(cmgr);
	close(mgr);
}

TEST_HARNESS_MAIN
