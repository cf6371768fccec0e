// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * usb-ffs.c - a u-dma-buf buffer streamed over USB FunctionFS: a gadget
 * with one bulk IN endpoint on dummy_hcd's UDC, read back by the host side
 * of the same guest through usbfs, every byte compared.
 *
 * The write() path always runs where FunctionFS exists.  The DMABUF path
 * (FUNCTIONFS_DMABUF_ATTACH, _TRANSFER, _DETACH, Linux 6.9) attaches an
 * export of $UDMABUF_DEV to the endpoint.  FunctionFS attaches a DMA-BUF only
 * to a UDC that does scatter-gather (usb_gadget.sg_supported): dummy_udc
 * does not, so there ATTACH is EPERM for any file descriptor and the data
 * tests are counted SKIPs that say so; the checks of bad input that FunctionFS
 * makes before it looks for an attachment still run.
 */
#include "usb-ffs.h"

static const size_t ffs_sizes[] = { 4096, 64 * 1024, FFS_MIB };
#define FFS_NSIZES	(sizeof(ffs_sizes) / sizeof(ffs_sizes[0]))
#define FFS_ROUNDS	3	/* transfers in a row of each size */
#define FFS_NO_DMABUF	"FunctionFS of this kernel has no DMABUF ioctls (ENOTTY; since 6.9)"
#define FFS_NO_SG	"FUNCTIONFS_DMABUF_ATTACH is EPERM: the UDC (%s) does no scatter-gather " \
			"(usb_gadget.sg_supported), which FunctionFS requires before it maps a DMA-BUF"
#define FFS_OOPS	"not run: FunctionFS (6.12, 7.2) dereferences the gadget that the unbind " \
			"cleared in DETACH and TRANSFER, a NULL pointer oops"

FIXTURE(gadget) {
	struct ffs_gadget g;
	struct udmem_buffer *buf;
	int dmabuf;
	uint8_t *host;
};

FIXTURE_SETUP(gadget)
{
	self->dmabuf = -1;
	self->host = malloc(FFS_MIB);
	ASSERT_TRUE(self->host);
	ffs_gadget_open(&self->g);
}

FIXTURE_TEARDOWN(gadget)
{
	if (self->dmabuf >= 0)
		close(self->dmabuf);
	udmem_buffer_close(self->buf);
	ffs_gadget_close(&self->g);
	free(self->host);
}

/* An export of the whole of $UDMABUF_DEV into self->dmabuf; its size. */
static size_t ffs_export(FIXTURE_DATA(gadget) *self)
{
	const char *dev = ut_env("UDMABUF_DEV", "udmabuf0");
	int r = udmem_buffer_open(dev, 0, &self->buf);

	UT_CHECK(r == 0, 1, "udmem_buffer_open %s: %s", dev, strerror(-r));
	r = udmem_buffer_export_dmabuf(self->buf, 0, 0, O_RDWR | O_CLOEXEC, NULL);
	UT_CHECK(r >= 0, 1, "export of %s: %s", dev, strerror(-r));
	self->dmabuf = r;
	return lseek(r, 0, SEEK_END);
}

static int ffs_ioctl_fd(int ep, unsigned long cmd, int fd)
{
	return ioctl(ep, cmd, &fd) < 0 ? -errno : 0;
}

static int ffs_transfer(int ep, int fd, uint64_t len, uint32_t flags)
{
	struct usb_ffs_dmabuf_transfer_req req = { .fd = fd, .flags = flags, .length = len };

	return ioctl(ep, FUNCTIONFS_DMABUF_TRANSFER, &req) < 0 ? -errno : 0;
}

/*
 * The answer r of an ATTACH of an export.  The test SKIPs with the reason
 * when this kernel's FunctionFS has no DMABUF ioctls (ENOTTY, before 6.9) or
 * the UDC does no scatter-gather (EPERM: dummy_udc); another error fails.
 */
static void ffs_attach_verdict(int r)
{
	if (r == -ENOTTY)
		SKIP(FFS_NO_DMABUF);
	if (r == -EPERM)
		SKIP(FFS_NO_SG, ut_env("FFS_UDC", ""));
	UT_CHECK(r == 0, 1, "FUNCTIONFS_DMABUF_ATTACH: %s", strerror(-r));
}

static void ffs_attach_or_skip(FIXTURE_DATA(gadget) *self)
{
	ffs_attach_verdict(ffs_ioctl_fd(self->g.ep1, FUNCTIONFS_DMABUF_ATTACH, self->dmabuf));
}

/* Does this kernel's FunctionFS have the DMABUF ioctls?  SKIP if not. */
static void ffs_need_dmabuf_ioctls(FIXTURE_DATA(gadget) *self)
{
	if (ffs_ioctl_fd(self->g.ep1, FUNCTIONFS_DMABUF_DETACH, -1) == -ENOTTY)
		SKIP(FFS_NO_DMABUF);
}

/* The fences of the DMA-BUF signalled within the bound; poll's revents. */
static int ffs_fence_wait(int dmabuf)
{
	struct pollfd p = { .fd = dmabuf, .events = POLLOUT };
	int r;

	do {
		r = poll(&p, 1, FFS_HOST_MS);
	} while (r < 0 && errno == EINTR);
	return r > 0 ? p.revents : 0;
}

static void ffs_sync(int dmabuf, uint64_t flags)
{
	struct dma_buf_sync s = { .flags = flags };

	ASSERT_EQ(ioctl(dmabuf, DMA_BUF_IOCTL_SYNC, &s), 0);
}

/* write() on the endpoint: each size, FFS_ROUNDS times, every byte read back. */
TEST_F(gadget, write_path_moves_every_byte)
{
	uint32_t seed = 1;

	for (size_t s = 0; s < FFS_NSIZES; s++) {
		for (int round = 0; round < FFS_ROUNDS; round++, seed++) {
			size_t len = ffs_sizes[s], bad;
			pid_t w = ffs_writer(self->g.ep1, len, seed);
			ssize_t got;
			int st;

			memset(self->host, 0, len);
			got = ffs_host_read(&self->g, self->host, len, FFS_HOST_MS);
			st = ffs_writer_wait(w);
			UT_CHECK(got == (ssize_t)len, 1, "%zu bytes, round %d: host read %zd (%s)",
				 len, round, got, got < 0 ? strerror((int)-got) : "short");
			UT_CHECK(st == 0, 1, "%zu bytes, round %d: the writer ended with %d (%s)",
				 len, round, st, st > 0 ? strerror(st) : "signal");
			bad = ffs_mismatch(self->host, len, seed);
			UT_CHECK(bad == len, 1, "%zu bytes, round %d: byte %zu is 0x%02x, want 0x%02x",
				 len, round, bad, self->host[bad], ffs_pattern(seed, bad));
		}
		TH_LOG("write(): %d x %zu bytes read back by the host", FFS_ROUNDS, ffs_sizes[s]);
	}
}

/* The export attached, transferred, read back: each size, FFS_ROUNDS times. */
TEST_F(gadget, dmabuf_path_moves_every_byte)
{
	size_t size = ffs_export(self);
	uint32_t seed = 100;
	uint8_t *map;

	ASSERT_GE(size, FFS_MIB);
	ffs_attach_or_skip(self);
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, self->dmabuf, 0);
	ASSERT_TRUE(map != MAP_FAILED);
	for (size_t s = 0; s < FFS_NSIZES; s++) {
		for (int round = 0; round < FFS_ROUNDS; round++, seed++) {
			size_t len = ffs_sizes[s], bad;
			ssize_t got;
			int r, ev;

			ffs_sync(self->dmabuf, DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE);
			ffs_fill(map, len, seed);
			ffs_sync(self->dmabuf, DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE);
			r = ffs_transfer(self->g.ep1, self->dmabuf, len, 0);
			UT_CHECK(r == 0, 1, "TRANSFER of %zu bytes: %s", len, strerror(-r));
			memset(self->host, 0, len);
			got = ffs_host_read(&self->g, self->host, len, FFS_HOST_MS);
			ev = ffs_fence_wait(self->dmabuf);
			UT_CHECK(got == (ssize_t)len, 1, "%zu bytes, round %d: host read %zd",
				 len, round, got);
			UT_CHECK(ev & POLLOUT, 1, "%zu bytes, round %d: the fence did not signal",
				 len, round);
			bad = ffs_mismatch(self->host, len, seed);
			UT_CHECK(bad == len, 1, "%zu bytes, round %d: byte %zu is 0x%02x, want 0x%02x",
				 len, round, bad, self->host[bad], ffs_pattern(seed, bad));
		}
	}
	munmap(map, size);
	EXPECT_EQ(ffs_ioctl_fd(self->g.ep1, FUNCTIONFS_DMABUF_DETACH, self->dmabuf), 0);
}

/*
 * What dummy_udc does with an export: FunctionFS refuses the attachment
 * before it maps anything for the UDC's device.  The test says which of the
 * two answers this kernel and UDC gave.
 */
TEST_F(gadget, dmabuf_attach_on_this_udc_is_reported)
{
	int r;

	ffs_export(self);
	ffs_need_dmabuf_ioctls(self);
	r = ffs_ioctl_fd(self->g.ep1, FUNCTIONFS_DMABUF_ATTACH, self->dmabuf);
	UT_CHECK(r == 0 || r == -EPERM, 1, "FUNCTIONFS_DMABUF_ATTACH: %s", strerror(-r));
	if (r == 0) {
		TH_LOG("%s: ATTACH of a u-dma-buf export mapped it for the UDC's device",
		       ut_env("FFS_UDC", ""));
		EXPECT_EQ(ffs_ioctl_fd(self->g.ep1, FUNCTIONFS_DMABUF_DETACH, self->dmabuf), 0);
	} else {
		TH_LOG("%s: ATTACH is EPERM (no scatter-gather), nothing mapped",
		       ut_env("FFS_UDC", ""));
		/* The same answer for a file that is no DMA-BUF: checked before the fd. */
		EXPECT_EQ(ffs_ioctl_fd(self->g.ep1, FUNCTIONFS_DMABUF_ATTACH, self->g.ep0), -EPERM);
	}
}

/* TRANSFER and DETACH: each bad field rejected with its errno, nothing queued. */
TEST_F(gadget, dmabuf_bad_requests_fail_with_clear_errno)
{
	size_t size = ffs_export(self);

	ffs_need_dmabuf_ioctls(self);
	EXPECT_EQ(ffs_transfer(self->g.ep1, -1, 4096, 0), -EBADF);
	EXPECT_EQ(ffs_transfer(self->g.ep1, self->g.ep0, 4096, 0), -EINVAL);
	EXPECT_EQ(ffs_transfer(self->g.ep1, self->dmabuf, 4096, 1), -EINVAL);
	EXPECT_EQ(ffs_transfer(self->g.ep1, self->dmabuf, 0, 0), -EINVAL);
	EXPECT_EQ(ffs_transfer(self->g.ep1, self->dmabuf, size + 1, 0), -EINVAL);
	EXPECT_EQ(ffs_transfer(self->g.ep1, self->dmabuf, UINT64_MAX, 0), -EINVAL);
	/* a DMA-BUF that is not attached to this endpoint */
	EXPECT_EQ(ffs_transfer(self->g.ep1, self->dmabuf, 4096, 0), -EPERM);
	EXPECT_EQ(ffs_ioctl_fd(self->g.ep1, FUNCTIONFS_DMABUF_DETACH, self->dmabuf), -EPERM);
	EXPECT_EQ(ffs_ioctl_fd(self->g.ep1, FUNCTIONFS_DMABUF_DETACH, self->g.ep0), -EINVAL);
	EXPECT_EQ(ffs_ioctl_fd(self->g.ep1, FUNCTIONFS_DMABUF_DETACH, -1), -EBADF);
	/* the endpoint still works: nothing was queued */
	{
		pid_t w = ffs_writer(self->g.ep1, 4096, 7);
		ssize_t got = ffs_host_read(&self->g, self->host, 4096, FFS_HOST_MS);

		EXPECT_EQ(ffs_writer_wait(w), 0);
		ASSERT_EQ(got, 4096);
		EXPECT_EQ(ffs_mismatch(self->host, 4096, 7), 4096);
	}
}

/* A file that is no DMA-BUF: EINVAL where the UDC takes DMA-BUFs at all. */
TEST_F(gadget, dmabuf_attach_of_a_non_dmabuf_fails)
{
	ffs_export(self);
	ffs_attach_or_skip(self);
	EXPECT_EQ(ffs_ioctl_fd(self->g.ep1, FUNCTIONFS_DMABUF_ATTACH, self->g.ep0), -EINVAL);
	EXPECT_EQ(ffs_ioctl_fd(self->g.ep1, FUNCTIONFS_DMABUF_ATTACH, -1), -EBADF);
	EXPECT_EQ(ffs_ioctl_fd(self->g.ep1, FUNCTIONFS_DMABUF_DETACH, self->dmabuf), 0);
}

/* DETACH while a transfer waits for the host: the fence signals, the export is free. */
TEST_F(gadget, dmabuf_detach_in_flight_cancels)
{
	ffs_export(self);
	ffs_attach_or_skip(self);
	ASSERT_EQ(ffs_transfer(self->g.ep1, self->dmabuf, FFS_MIB, 0), 0);
	EXPECT_EQ(ffs_ioctl_fd(self->g.ep1, FUNCTIONFS_DMABUF_DETACH, self->dmabuf), 0);
	EXPECT_TRUE(ffs_fence_wait(self->dmabuf) & POLLOUT);
	EXPECT_EQ(ffs_transfer(self->g.ep1, self->dmabuf, 4096, 0), -EPERM);
}

/* Closing the endpoint with a transfer queued: the fence signals. */
TEST_F(gadget, dmabuf_close_in_flight_cancels)
{
	ffs_export(self);
	ffs_attach_or_skip(self);
	ASSERT_EQ(ffs_transfer(self->g.ep1, self->dmabuf, FFS_MIB, 0), 0);
	close(self->g.ep1);
	self->g.ep1 = -1;
	EXPECT_TRUE(ffs_fence_wait(self->dmabuf) & POLLOUT);
}

/* Unbinding the gadget with a transfer queued: the fence signals. */
TEST_F(gadget, dmabuf_unbind_in_flight_cancels)
{
	ffs_export(self);
	ffs_attach_or_skip(self);
	ASSERT_EQ(ffs_transfer(self->g.ep1, self->dmabuf, FFS_MIB, 0), 0);
	ASSERT_EQ(ffs_unbind(&self->g), 0);
	EXPECT_TRUE(ffs_fence_wait(self->dmabuf) & POLLOUT);
}

/*
 * Deleting the buffer through the manager while its export is attached is
 * refused (EBUSY: the manager deletes no exported buffer) and the transfer
 * still moves the bytes; once the endpoint let go and the export is closed,
 * the delete works.
 */
TEST_F(gadget, dmabuf_buffer_delete_refused_while_attached)
{
	const char *name = "usb-ffs-del";
	struct udmem_buffer *b;
	uint8_t *map;
	int r, fd, d, i;

	ffs_need_dmabuf_ioctls(self);
	if (access("/dev/u-dma-buf-mgr", F_OK))
		SKIP("no /dev/u-dma-buf-mgr");
	r = udmem_buffer_create(name, 65536, 0, UDMEM_MMAP_DEFAULT);
	UT_CHECK(r == 0, 1, "create %s: %s", name, strerror(-r));
	r = udmem_buffer_open(name, 0, &b);
	UT_CHECK(r == 0, 1, "open %s: %s", name, strerror(-r));
	fd = udmem_buffer_export_dmabuf(b, 0, 0, O_RDWR | O_CLOEXEC, NULL);
	udmem_buffer_close(b);
	UT_CHECK(fd >= 0, 1, "export of %s: %s", name, strerror(-fd));
	self->dmabuf = fd;
	r = ffs_ioctl_fd(self->g.ep1, FUNCTIONFS_DMABUF_ATTACH, fd);
	EXPECT_EQ(udmem_buffer_delete(name), -EBUSY);
	if (r == 0) {
		map = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		ASSERT_TRUE(map != MAP_FAILED);
		ffs_sync(fd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE);
		ffs_fill(map, 65536, 55);
		ffs_sync(fd, DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE);
		munmap(map, 65536);
		EXPECT_EQ(ffs_transfer(self->g.ep1, fd, 65536, 0), 0);
		EXPECT_EQ(ffs_host_read(&self->g, self->host, 65536, FFS_HOST_MS), 65536);
		EXPECT_TRUE(ffs_fence_wait(fd) & POLLOUT);
		EXPECT_EQ(ffs_mismatch(self->host, 65536, 55), 65536);
		EXPECT_EQ(ffs_ioctl_fd(self->g.ep1, FUNCTIONFS_DMABUF_DETACH, fd), 0);
	}
	close(fd);
	self->dmabuf = -1;
	/*
	 * FunctionFS lets go of the DMA-BUF in the work that follows the last
	 * transfer's completion, after DETACH returned: the delete works once
	 * it ran (a bounded count of 20 ms naps).
	 */
	for (i = 0; i < 500 && (d = udmem_buffer_delete(name)) == -EBUSY; i++) {
		struct timespec ts = { 0, 20000000 };

		nanosleep(&ts, NULL);
	}
	EXPECT_EQ(d, 0);
	if (i)
		TH_LOG("the delete took %d retries after the export was closed", i);
	ffs_attach_verdict(r);
}

/*
 * DETACH after the gadget was unbound, ep0 and ep1 still open.  FunctionFS
 * (6.12, 7.2) reads ffs->gadget->dev.parent in ffs_dmabuf_detach() (and in
 * ffs_dmabuf_find_attachment() for TRANSFER) without a check, and unbinding
 * set ffs->gadget to NULL: the ioctl oopses.  Not run unless
 * FFS_RUN_KNOWN_OOPS=1 (then it shows the bug on such a kernel).
 */
TEST_F(gadget, dmabuf_detach_after_unbind_fails_clearly)
{
	ffs_export(self);
	ffs_need_dmabuf_ioctls(self);
	if (strcmp(ut_env("FFS_RUN_KNOWN_OOPS", "0"), "1"))
		SKIP(FFS_OOPS);
	ASSERT_EQ(ffs_unbind(&self->g), 0);
	EXPECT_EQ(ffs_ioctl_fd(self->g.ep1, FUNCTIONFS_DMABUF_DETACH, self->dmabuf), -ENODEV);
}

/*
 * write() with the host not reading, then the gadget unbound: the writer
 * gets a clear error (ESHUTDOWN or ECONNRESET, as the UDC cancelled the
 * request), not a hang.
 */
TEST_F(gadget, write_unbind_in_flight_fails_clearly)
{
	pid_t w = ffs_writer(self->g.ep1, FFS_MIB, 3);
	int st, i;

	/* the writer is in write() once its request sits on the endpoint */
	for (i = 0; i < 50; i++) {
		struct timespec ts = { 0, 20000000 };

		nanosleep(&ts, NULL);
	}
	ASSERT_EQ(ffs_unbind(&self->g), 0);
	st = ffs_writer_wait(w);
	TH_LOG("write() after the unbind: %s", st > 0 ? strerror(st) : "no error");
	EXPECT_TRUE(st == ESHUTDOWN || st == ECONNRESET || st == ENODEV);
}

/*
 * A writer killed in write() while the host does not read: its request is
 * taken back, and the next writer's bytes, not the dead one's, reach the host.
 */
TEST_F(gadget, write_killed_in_flight_leaves_no_stale_bytes)
{
	pid_t w = ffs_writer(self->g.ep1, FFS_MIB, 4);
	ssize_t got;
	int i;

	for (i = 0; i < 50; i++) {
		struct timespec ts = { 0, 20000000 };

		nanosleep(&ts, NULL);
	}
	kill(w, SIGKILL);
	EXPECT_EQ(ffs_writer_wait(w), -1);
	w = ffs_writer(self->g.ep1, 65536, 5);
	got = ffs_host_read(&self->g, self->host, 65536, FFS_HOST_MS);
	EXPECT_EQ(ffs_writer_wait(w), 0);
	ASSERT_EQ(got, 65536);
	EXPECT_EQ(ffs_mismatch(self->host, 65536, 5), 65536);
}

TEST_HARNESS_MAIN
