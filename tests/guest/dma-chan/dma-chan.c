// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * dma-chan - u-dma-chan through libudmem: copies between two u-dma-buf
 * buffers (and a uiomem region) checked byte for byte, fences, completion
 * records, batches, the checks of every transfer, and close or TERMINATE
 * with transfers in flight.
 *
 * Environment: DMA_CHAN the channel (a DMA_MEMCPY one); DMA_SRC, DMA_DST two
 * buffers of at least DMA_LEN bytes (default 1 MiB; at least 256 KiB, a
 * multiple of 64 KiB), the span the copies cover; DMA_REGION a uiomem
 * region, optional; DMA_CHECKED a buffer of at least 256 KiB whose sync
 * checker is strict, optional.
 * UDMEM_TEST_COMPAT32
 */
#define _FILE_OFFSET_BITS 64
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <linux/u-dma-chan.h>

#include "udmem.h"
#include "ut.h"

/* The span of the buffers the copies cover: DMA_LEN. */
static uint64_t ut_len = 1u << 20;
#define UT_FOREVER	(-1LL)
#define UT_SEC		1000000000LL

FIXTURE(dc) {
	struct udmem_dma *dma;
	struct udmem_dma_info info;
	struct udmem_buffer *src, *dst;
	uint8_t *s, *d;
	int sfd, dfd;
};

FIXTURE_SETUP(dc)
{
	const char *chan = ut_env("DMA_CHAN", "");
	void *p;
	int ret;

	self->sfd = self->dfd = -1;
	if (!*chan)
		SKIP("no DMA channel in this guest");
	ut_len = strtoull(ut_env("DMA_LEN", "0x100000"), NULL, 0);
	ASSERT_TRUE(ut_len >= 262144 && ut_len % 65536 == 0);
	ASSERT_OK(udmem_buffer_open(ut_env("DMA_SRC", "udmabuf0"), 0, &self->src));
	ASSERT_OK(udmem_buffer_open(ut_env("DMA_DST", "udmabuf1"), 0, &self->dst));
	ASSERT_GE(udmem_buffer_size(self->src), ut_len);
	ASSERT_GE(udmem_buffer_size(self->dst), ut_len);
	ASSERT_OK(udmem_buffer_map(self->src, &p));
	self->s = p;
	ASSERT_OK(udmem_buffer_map(self->dst, &p));
	self->d = p;
	self->sfd = udmem_buffer_export_dmabuf(self->src, 0, ut_len, O_RDWR | O_CLOEXEC, NULL);
	ASSERT_GE(self->sfd, 0);
	self->dfd = udmem_buffer_export_dmabuf(self->dst, 0, ut_len, O_RDWR | O_CLOEXEC, NULL);
	ASSERT_GE(self->dfd, 0);
	ret = udmem_dma_open(chan, &self->dma);
	UT_CHECK(ret == 0, 1, "udmem_dma_open(%s): %s", chan, strerror(-ret));
	ASSERT_OK(udmem_dma_info(self->dma, &self->info));
	ut_fill(self->s, ut_len, 0, 1);
	memset(self->d, 0x5a, ut_len);
}

FIXTURE_TEARDOWN(dc)
{
	udmem_dma_close(self->dma);
	if (self->sfd >= 0)
		close(self->sfd);
	if (self->dfd >= 0)
		close(self->dfd);
	udmem_buffer_close(self->src);
	udmem_buffer_close(self->dst);
}

/* Bytes [off, off + len) of dst equal src at soff; the rest of dst is 0x5a. */
static int ut_copied(const uint8_t *d, uint64_t off, const uint8_t *s, uint64_t soff,
		     uint64_t len)
{
	uint64_t i;

	if (memcmp(d + off, s + soff, len)) {
		for (i = 0; i < len && d[off + i] == s[soff + i]; i++)
			;
		TH_LOG("first difference at dst byte %llu", (unsigned long long)(off + i));
		return 0;
	}
	for (i = 0; i < ut_len; i++) {
		if ((i < off || i >= off + len) && d[i] != 0x5a) {
			TH_LOG("dst byte %llu outside the copy changed", (unsigned long long)i);
			return 0;
		}
	}
	return 1;
}

static struct udmem_dma_xfer ut_copy(int dfd, uint64_t doff, int sfd, uint64_t soff,
				     uint64_t len)
{
	struct udmem_dma_xfer x = {
		.op = UDMEM_DMA_MEMCPY, .src_fd = sfd, .dst_fd = dfd,
		.src_offset = soff, .dst_offset = doff, .length = len,
	};
	return x;
}

/* The raw SUBMIT of one transfer, for the kernel's own checks; -errno. */
static int ut_submit_raw(struct udmem_dma *dma, const struct u_dma_chan_xfer *x,
			 uint32_t count, uint32_t flags)
{
	struct u_dma_chan_submit sub = {
		.xfers = (uintptr_t)x, .count = count, .flags = flags,
	};

	return ioctl(udmem_dma_fd(dma), U_DMA_CHAN_IOCTL_SUBMIT, &sub) ? -errno : 0;
}

static int ut_submit_one(struct udmem_dma *dma, struct udmem_dma_xfer x)
{
	return udmem_dma_submit(dma, &x, 1, 0, NULL, NULL);
}

TEST_F(dc, info_names_the_channel)
{
	char attr[64];

	EXPECT_STREQ(self->info.name, ut_env("DMA_CHAN", ""));
	EXPECT_TRUE(self->info.channel[0] != 0);
	EXPECT_TRUE(self->info.device[0] != 0);
	EXPECT_EQ(self->info.max_batch, U_DMA_CHAN_MAX_BATCH);
	EXPECT_GE(self->info.copy_align, 1);
	EXPECT_EQ(self->info.copy_align & (self->info.copy_align - 1), 0);
	EXPECT_TRUE(self->info.caps & UDMEM_DMA_CAP_MEMCPY);
	ASSERT_OK(ut_sysfs_read("u-dma-chan", self->info.name, "channel", attr, sizeof(attr)));
	attr[strcspn(attr, "\n")] = 0;
	EXPECT_STREQ(attr, self->info.channel);
	ASSERT_OK(ut_sysfs_read("u-dma-chan", self->info.name, "busy", attr, sizeof(attr)));
	EXPECT_STREQ(attr, "1\n");
}

TEST_F(dc, second_open_is_ebusy)
{
	struct udmem_dma *two = NULL;

	EXPECT_EQ(udmem_dma_open(self->info.name, &two), -EBUSY);
	udmem_dma_close(two);
}

TEST_F(dc, copy_buffer_to_buffer_byte_exact)
{
	uint64_t off = 4 * 4096, soff = ut_len / 4, len = 64 * 1024;

	ASSERT_EQ(udmem_dma_copy(self->dma, self->dfd, off, self->sfd, soff, len, UT_FOREVER), 0);
	EXPECT_TRUE(ut_copied(self->d, off, self->s, soff, len));
}

TEST_F(dc, copy_whole_buffer_byte_exact)
{
	ASSERT_EQ(udmem_dma_copy(self->dma, self->dfd, 0, self->sfd, 0, ut_len, UT_FOREVER), 0);
	EXPECT_TRUE(ut_copied(self->d, 0, self->s, 0, ut_len));
}

TEST_F(dc, copy_unaligned_length_where_channel_allows)
{
	uint64_t len = 4096 + self->info.copy_align;

	ASSERT_EQ(udmem_dma_copy(self->dma, self->dfd, self->info.copy_align, self->sfd,
				 3 * self->info.copy_align, len, UT_FOREVER), 0);
	EXPECT_TRUE(ut_copied(self->d, self->info.copy_align, self->s,
			      3 * self->info.copy_align, len));
}

/* One system call: SUBMIT with U_DMA_CHAN_SUBMIT_WAIT returns with the batch done. */
TEST_F(dc, submit_wait_returns_the_batch_done)
{
	struct u_dma_chan_xfer x[2] = {
		{ .op = U_DMA_CHAN_OP_MEMCPY, .src_fd = self->sfd, .dst_fd = self->dfd,
		  .length = ut_len / 4 },
		{ .op = U_DMA_CHAN_OP_MEMCPY, .src_fd = self->sfd, .dst_fd = self->dfd,
		  .src_offset = ut_len / 4, .dst_offset = ut_len / 4, .length = ut_len / 4 },
	};
	struct u_dma_chan_submit sub = {
		.xfers = (uintptr_t)x, .count = 2, .flags = U_DMA_CHAN_SUBMIT_WAIT,
	};
	struct udmem_dma_xfer cyc = {
		.op = UDMEM_DMA_DEV_TO_MEM, .flags = UDMEM_DMA_CYCLIC, .src_fd = -1,
		.dst_fd = self->dfd, .length = 16384, .period = 4096,
	};
	struct udmem_dma_xfer one = ut_copy(self->dfd, ut_len / 2, self->sfd, 0, 65536);
	int fd = udmem_dma_fd(self->dma), status = 1;
	uint64_t seq = 0;

	ASSERT_OK(ioctl(fd, U_DMA_CHAN_IOCTL_SUBMIT, &sub));
	EXPECT_GE(sub.seq, 1);
	EXPECT_EQ(sub.status, 0);
	EXPECT_EQ(sub.fence_fd, -1);
	/* the data is there when the call returns, with no WAIT */
	EXPECT_TRUE(ut_copied(self->d, 0, self->s, 0, ut_len / 2));
	EXPECT_EQ(udmem_dma_wait(self->dma, sub.seq, 0, &status), 0);
	EXPECT_EQ(status, 0);
	/* the library's form returns the status */
	EXPECT_EQ(udmem_dma_submit(self->dma, &one, 1, UDMEM_DMA_WAIT, &seq, NULL), 0);
	EXPECT_EQ(seq, sub.seq + 1);
	EXPECT_EQ(memcmp(self->d + ut_len / 2, self->s, 65536), 0);
	/* input status must be zero (it was reserved0 before) */
	sub.status = -5;
	EXPECT_ERRNO(ioctl(fd, U_DMA_CHAN_IOCTL_SUBMIT, &sub), EINVAL);
	/* a cyclic transfer never completes by itself: refused, nothing runs */
	if (self->info.caps & UDMEM_DMA_CAP_CYCLIC) {
		ASSERT_OK(udmem_dma_slave_config(self->dma, UDMEM_DMA_DEV_TO_MEM, 0, 4, 0));
		EXPECT_EQ(udmem_dma_submit(self->dma, &cyc, 1, UDMEM_DMA_WAIT, NULL, NULL),
			  -EINVAL);
		EXPECT_EQ(udmem_dma_wait(self->dma, 0, 0, &status), 0);
	}
}

TEST_F(dc, fence_fd_signals_after_the_data_moved)
{
	struct udmem_dma_xfer x = ut_copy(self->dfd, 0, self->sfd, 0, ut_len / 4);
	struct pollfd pfd;
	uint64_t seq = 0;
	int fence = -1;

	ASSERT_OK(udmem_dma_submit(self->dma, &x, 1, UDMEM_DMA_FENCE_FD, &seq, &fence));
	ASSERT_GE(fence, 0);
	EXPECT_GE(seq, 1);
	EXPECT_EQ(udmem_dma_fence_wait(fence, UT_FOREVER), 0);
	pfd.fd = fence;
	pfd.events = POLLIN;
	EXPECT_EQ(poll(&pfd, 1, 0), 1);
	EXPECT_TRUE(ut_copied(self->d, 0, self->s, 0, ut_len / 4));
	EXPECT_EQ(udmem_dma_fence_wait(self->sfd, 0), -EINVAL);
	close(fence);
}

TEST_F(dc, wait_reports_status_and_rejects_unknown_seq)
{
	uint64_t seq = 0;
	int status = 1;

	ASSERT_EQ(udmem_dma_wait(self->dma, 0, 0, &status), -EINVAL);
	ASSERT_OK(ut_submit_one(self->dma, ut_copy(self->dfd, 0, self->sfd, 0, 4096)));
	ASSERT_OK(udmem_dma_wait(self->dma, 0, UT_FOREVER, &status));
	EXPECT_EQ(status, 0);
	ASSERT_OK(udmem_dma_submit(self->dma, &(struct udmem_dma_xfer){
		.op = UDMEM_DMA_MEMCPY, .src_fd = self->sfd, .dst_fd = self->dfd,
		.dst_offset = 8192, .src_offset = 8192, .length = 4096 }, 1, 0, &seq, NULL));
	EXPECT_EQ(seq, 2);
	status = 1;
	ASSERT_OK(udmem_dma_wait(self->dma, seq, 10 * UT_SEC, &status));
	EXPECT_EQ(status, 0);
	/* done batches: looking (timeout 0) answers at once */
	status = 1;
	EXPECT_OK(udmem_dma_wait(self->dma, 1, 0, &status));
	EXPECT_EQ(status, 0);
	EXPECT_EQ(udmem_dma_wait(self->dma, seq + 1, 0, &status), -EINVAL);
}

TEST_F(dc, completions_come_in_order_and_poll_says_so)
{
	struct udmem_dma_completion c[8];
	uint64_t want = 1;
	int i, n, got = 0;

	for (i = 0; i < 8; i++)
		ASSERT_OK(ut_submit_one(self->dma, ut_copy(self->dfd, i * 4096, self->sfd,
							   i * 4096, 4096)));
	while (got < 8) {
		n = udmem_dma_completions(self->dma, c, 8, 30 * UT_SEC);
		ASSERT_GT(n, 0);
		for (i = 0; i < n; i++) {
			EXPECT_EQ(c[i].seq, want);
			EXPECT_EQ(c[i].status, 0);
			want++;
		}
		got += n;
	}
	EXPECT_EQ(got, 8);
	EXPECT_EQ(udmem_dma_completions(self->dma, c, 8, 0), 0);
	EXPECT_TRUE(ut_copied(self->d, 0, self->s, 0, 8 * 4096));
}

TEST_F(dc, read_needs_room_for_one_record)
{
	char small[8];

	EXPECT_ERRNO(read(udmem_dma_fd(self->dma), small, sizeof(small)), EINVAL);
	EXPECT_ERRNO(read(udmem_dma_fd(self->dma), small, 0), EINVAL);
}

TEST_F(dc, batch_of_one_and_of_max_transfers)
{
	struct udmem_dma_xfer x[U_DMA_CHAN_MAX_BATCH];
	uint64_t piece = ut_len / U_DMA_CHAN_MAX_BATCH, seq;
	int i, status = 1;

	/* reversed pieces: piece i of dst is piece 255 - i of src */
	for (i = 0; i < U_DMA_CHAN_MAX_BATCH; i++)
		x[i] = ut_copy(self->dfd, i * piece, self->sfd,
			       (U_DMA_CHAN_MAX_BATCH - 1 - i) * piece, piece);
	ASSERT_OK(udmem_dma_submit(self->dma, x, U_DMA_CHAN_MAX_BATCH, 0, &seq, NULL));
	ASSERT_OK(udmem_dma_wait(self->dma, seq, UT_FOREVER, &status));
	ASSERT_EQ(status, 0);
	for (i = 0; i < U_DMA_CHAN_MAX_BATCH; i++)
		ASSERT_EQ(memcmp(self->d + i * piece,
				 self->s + (U_DMA_CHAN_MAX_BATCH - 1 - i) * piece, piece), 0);
}

TEST_F(dc, batch_past_max_is_e2big_and_empty_is_einval)
{
	static struct u_dma_chan_xfer x[U_DMA_CHAN_MAX_BATCH + 1];
	int i;

	for (i = 0; i <= U_DMA_CHAN_MAX_BATCH; i++) {
		x[i].op = U_DMA_CHAN_OP_MEMCPY;
		x[i].src_fd = self->sfd;
		x[i].dst_fd = self->dfd;
		x[i].length = 4096;
	}
	EXPECT_EQ(ut_submit_raw(self->dma, x, U_DMA_CHAN_MAX_BATCH + 1, 0), -E2BIG);
	EXPECT_EQ(ut_submit_raw(self->dma, x, 0xffffffffu, 0), -E2BIG);
	EXPECT_EQ(ut_submit_raw(self->dma, x, 0, 0), -EINVAL);
	EXPECT_EQ(ut_submit_raw(self->dma, NULL, 1, 0), -EFAULT);
	/* nothing ran: no sequence number was given out */
	EXPECT_EQ(udmem_dma_wait(self->dma, 0, 0, NULL), -EINVAL);
}

TEST_F(dc, fds_that_are_not_dmabufs_are_refused)
{
	int p[2], null, bfd = udmem_buffer_fd(self->src);

	ASSERT_OK(pipe(p));
	null = open("/dev/null", O_RDWR);
	ASSERT_GE(null, 0);
	EXPECT_EQ(ut_submit_one(self->dma, ut_copy(self->dfd, 0, p[0], 0, 4096)), -EINVAL);
	EXPECT_EQ(ut_submit_one(self->dma, ut_copy(p[1], 0, self->sfd, 0, 4096)), -EINVAL);
	EXPECT_EQ(ut_submit_one(self->dma, ut_copy(self->dfd, 0, null, 0, 4096)), -EINVAL);
	EXPECT_EQ(ut_submit_one(self->dma, ut_copy(self->dfd, 0, bfd, 0, 4096)), -EINVAL);
	EXPECT_EQ(ut_submit_one(self->dma, ut_copy(self->dfd, 0, 1000, 0, 4096)), -EBADF);
	EXPECT_EQ(ut_submit_one(self->dma, ut_copy(-1, 0, self->sfd, 0, 4096)), -EBADF);
	EXPECT_EQ(ut_submit_one(self->dma, ut_copy(self->dfd, 0, udmem_dma_fd(self->dma), 0,
						   4096)), -EINVAL);
	close(p[0]);
	close(p[1]);
	close(null);
}

TEST_F(dc, ranges_outside_the_dmabuf_are_einval)
{
	uint64_t a = self->info.copy_align;

	EXPECT_EQ(ut_submit_one(self->dma, ut_copy(self->dfd, ut_len, self->sfd, 0, a)), -EINVAL);
	EXPECT_EQ(ut_submit_one(self->dma, ut_copy(self->dfd, 0, self->sfd, ut_len, a)), -EINVAL);
	EXPECT_EQ(ut_submit_one(self->dma, ut_copy(self->dfd, ut_len - a, self->sfd, 0, 2 * a)),
		  -EINVAL);
	EXPECT_EQ(ut_submit_one(self->dma, ut_copy(self->dfd, 0, self->sfd, 0, ut_len + a)),
		  -EINVAL);
	EXPECT_EQ(ut_submit_one(self->dma, ut_copy(self->dfd, -a, self->sfd, 0, 2 * a)), -EINVAL);
	EXPECT_EQ(ut_submit_one(self->dma, ut_copy(self->dfd, 0, self->sfd, 0, -a)), -EINVAL);
	EXPECT_EQ(ut_submit_one(self->dma, ut_copy(self->dfd, 0, self->sfd, 0, 0)), -EINVAL);
	/* the last byte is inside */
	EXPECT_EQ(ut_submit_one(self->dma, ut_copy(self->dfd, ut_len - a, self->sfd, 0, a)), 0);
	EXPECT_EQ(udmem_dma_wait(self->dma, 0, UT_FOREVER, NULL), 0);
}

TEST_F(dc, offsets_off_the_channel_alignment_are_einval)
{
	uint64_t a = self->info.copy_align;

	if (a == 1)
		SKIP("%s copies at any alignment (copy_align 1)", self->info.channel);
	EXPECT_EQ(ut_submit_one(self->dma, ut_copy(self->dfd, 1, self->sfd, 0, a)), -EINVAL);
	EXPECT_EQ(ut_submit_one(self->dma, ut_copy(self->dfd, 0, self->sfd, a / 2, a)), -EINVAL);
	EXPECT_EQ(ut_submit_one(self->dma, ut_copy(self->dfd, 0, self->sfd, 0, a + 1)), -EINVAL);
}

TEST_F(dc, overlapping_ranges_of_one_dmabuf_are_einval)
{
	uint64_t seq;
	int status = 1;

	EXPECT_EQ(ut_submit_one(self->dma, ut_copy(self->sfd, 2048, self->sfd, 0, 4096)), -EINVAL);
	EXPECT_EQ(ut_submit_one(self->dma, ut_copy(self->sfd, 4096, self->sfd, 0, 8192)), -EINVAL);
	EXPECT_EQ(ut_submit_one(self->dma, ut_copy(self->sfd, 0, self->sfd, 0, 4096)), -EINVAL);
	/* apart: allowed, and it copies */
	ASSERT_OK(udmem_dma_submit(self->dma, &(struct udmem_dma_xfer){
		.op = UDMEM_DMA_MEMCPY, .src_fd = self->sfd, .dst_fd = self->sfd,
		.src_offset = 0, .dst_offset = 8192, .length = 8192 }, 1, 0, &seq, NULL));
	ASSERT_OK(udmem_dma_wait(self->dma, seq, UT_FOREVER, &status));
	EXPECT_EQ(status, 0);
	EXPECT_EQ(memcmp(self->s + 8192, self->s, 8192), 0);
}

TEST_F(dc, read_only_dmabuf_as_destination_is_eacces)
{
	int ro = udmem_buffer_export_dmabuf(self->dst, 0, ut_len, O_RDONLY | O_CLOEXEC, NULL);

	ASSERT_GE(ro, 0);
	EXPECT_EQ(ut_submit_one(self->dma, ut_copy(ro, 0, self->sfd, 0, 4096)), -EACCES);
	/* as a source it is fine */
	EXPECT_EQ(udmem_dma_copy(self->dma, self->sfd, 0, ro, 0, 4096, UT_FOREVER), 0);
	close(ro);
}

TEST_F(dc, bad_fields_and_flags_are_einval)
{
	struct u_dma_chan_xfer x = {
		.op = U_DMA_CHAN_OP_MEMCPY, .src_fd = self->sfd, .dst_fd = self->dfd,
		.length = 4096,
	};
	struct u_dma_chan_submit sub = { .xfers = (uintptr_t)&x, .count = 1 };
	int fd = udmem_dma_fd(self->dma);

	x.reserved[1] = 1;
	EXPECT_EQ(ut_submit_raw(self->dma, &x, 1, 0), -EINVAL);
	x.reserved[1] = 0;
	x.flags = 1u << 7;
	EXPECT_EQ(ut_submit_raw(self->dma, &x, 1, 0), -EINVAL);
	x.flags = U_DMA_CHAN_XFER_CYCLIC;
	EXPECT_EQ(ut_submit_raw(self->dma, &x, 1, 0), -EINVAL);
	x.flags = 0;
	x.period = 4096;
	EXPECT_EQ(ut_submit_raw(self->dma, &x, 1, 0), -EINVAL);
	x.period = 0;
	x.op = 7;
	EXPECT_EQ(ut_submit_raw(self->dma, &x, 1, 0), -EINVAL);
	x.op = U_DMA_CHAN_OP_MEMCPY;
	EXPECT_EQ(ut_submit_raw(self->dma, &x, 1, 1u << 9), -EINVAL);
	sub.status = 1;
	EXPECT_ERRNO(ioctl(fd, U_DMA_CHAN_IOCTL_SUBMIT, &sub), EINVAL);
	EXPECT_ERRNO(ioctl(fd, _IO('u', 0xdf)), ENOTTY);
	EXPECT_EQ(udmem_dma_slave_config(self->dma, UDMEM_DMA_DEV_TO_MEM, 0, 3, 0), -EINVAL);
	EXPECT_EQ(udmem_dma_slave_config(self->dma, UDMEM_DMA_MEMCPY, 0, 4, 0), -EINVAL);
	/* and a good one still goes */
	EXPECT_EQ(ut_submit_raw(self->dma, &x, 1, 0), 0);
	EXPECT_EQ(udmem_dma_wait(self->dma, 0, UT_FOREVER, NULL), 0);
}

TEST_F(dc, slave_transfer_on_a_memcpy_channel_is_eopnotsupp)
{
	struct udmem_dma_xfer x = {
		.op = UDMEM_DMA_DEV_TO_MEM, .src_fd = -1, .dst_fd = self->dfd, .length = 4096,
	};

	if (self->info.caps & UDMEM_DMA_CAP_DEV_TO_MEM)
		SKIP("%s does slave transfers", self->info.channel);
	EXPECT_EQ(udmem_dma_submit(self->dma, &x, 1, 0, NULL, NULL), -EOPNOTSUPP);
}

TEST_F(dc, no_sync_copy_moves_the_data)
{
	struct udmem_dma_xfer x = ut_copy(self->dfd, 0, self->sfd, 0, 65536);
	int status = 1;

	x.flags = UDMEM_DMA_NO_SYNC;
	ASSERT_OK(udmem_buffer_sync_for_device(self->src, 0, 65536, UDMEM_DIR_TO_DEVICE));
	ASSERT_OK(udmem_buffer_sync_for_device(self->dst, 0, 65536, UDMEM_DIR_FROM_DEVICE));
	ASSERT_OK(udmem_dma_submit(self->dma, &x, 1, 0, NULL, NULL));
	ASSERT_OK(udmem_dma_wait(self->dma, 0, UT_FOREVER, &status));
	EXPECT_EQ(status, 0);
	ASSERT_OK(udmem_buffer_sync_for_cpu(self->dst, 0, 65536, UDMEM_DIR_FROM_DEVICE));
	EXPECT_TRUE(ut_copied(self->d, 0, self->s, 0, 65536));
}

TEST_F(dc, dmabuf_fds_closed_in_flight_still_complete)
{
	const uint64_t piece = ut_len / 64;
	struct udmem_dma_xfer x[64];
	uint64_t seq;
	int i, status = 1;

	for (i = 0; i < 64; i++)
		x[i] = ut_copy(self->dfd, i * piece, self->sfd, i * piece, piece);
	ASSERT_OK(udmem_dma_submit(self->dma, x, 64, 0, &seq, NULL));
	close(self->sfd);
	close(self->dfd);
	self->sfd = self->dfd = -1;
	ASSERT_OK(udmem_dma_wait(self->dma, seq, UT_FOREVER, &status));
	EXPECT_EQ(status, 0);
	EXPECT_TRUE(ut_copied(self->d, 0, self->s, 0, ut_len));
}

TEST_F(dc, close_in_flight_signals_every_fence)
{
	struct udmem_dma_xfer x[U_DMA_CHAN_MAX_BATCH];
	int fence[4], i, j, r, status = 1;

	for (i = 0; i < U_DMA_CHAN_MAX_BATCH; i++)
		x[i] = ut_copy(self->dfd, (i % 64) * 4096, self->sfd, (i % 64) * 4096, 4096);
	for (j = 0; j < 4; j++)
		ASSERT_OK(udmem_dma_submit(self->dma, x, U_DMA_CHAN_MAX_BATCH,
					   UDMEM_DMA_FENCE_FD, NULL, &fence[j]));
	udmem_dma_close(self->dma);
	self->dma = NULL;
	for (j = 0; j < 4; j++) {
		r = udmem_dma_fence_wait(fence[j], 0);
		UT_CHECK(r == 0 || r == -ECANCELED, 0, "fence %d: %s", j, strerror(-r));
		close(fence[j]);
	}
	/* the channel is free again and works */
	ASSERT_OK(udmem_dma_open(self->info.name, &self->dma));
	memset(self->d, 0x5a, ut_len);
	ASSERT_OK(udmem_dma_submit(self->dma, x, 1, 0, NULL, NULL));
	ASSERT_OK(udmem_dma_wait(self->dma, 0, UT_FOREVER, &status));
	EXPECT_EQ(status, 0);
	EXPECT_TRUE(ut_copied(self->d, 0, self->s, 0, 4096));
}

TEST_F(dc, terminate_completes_what_runs)
{
	struct udmem_dma_xfer x[U_DMA_CHAN_MAX_BATCH];
	struct udmem_dma_completion c[4];
	int i, j, n, got = 0, status = 1;

	for (i = 0; i < U_DMA_CHAN_MAX_BATCH; i++)
		x[i] = ut_copy(self->dfd, (i % 64) * 4096, self->sfd, (i % 64) * 4096, 4096);
	for (j = 0; j < 4; j++)
		ASSERT_OK(udmem_dma_submit(self->dma, x, U_DMA_CHAN_MAX_BATCH, 0, NULL, NULL));
	ASSERT_OK(udmem_dma_terminate(self->dma));
	/* every batch completed by now, with 0 or ECANCELED */
	for (j = 1; j <= 4; j++) {
		ASSERT_OK(udmem_dma_wait(self->dma, j, 0, &status));
		UT_CHECK(status == 0 || status == -ECANCELED, 0, "batch %d: %d", j, status);
	}
	while (got < 4) {
		n = udmem_dma_completions(self->dma, c, 4, 0);
		ASSERT_GT(n, 0);
		got += n;
	}
	EXPECT_EQ(got, 4);
	/* and the channel goes on */
	memset(self->d, 0x5a, ut_len);
	ASSERT_EQ(udmem_dma_copy(self->dma, self->dfd, 0, self->sfd, 0, 4096, UT_FOREVER), 0);
	EXPECT_TRUE(ut_copied(self->d, 0, self->s, 0, 4096));
}

/*
 * TERMINATE right after a submit, while the engine's transfers have started
 * and their end is not yet seen, then a copy: the channel must go on, round
 * after round.  ZynqMP's ZDMA driver (6.1) masks the channel's interrupts in
 * terminate_all and so never learns that a started chain ended: its channel
 * stayed busy and the next copy never started.  A stuck channel is a
 * timeout here, not a hang: a 4 KiB copy on an idle channel takes
 * microseconds of engine time.
 */
TEST_F(dc, copy_after_terminate_in_flight)
{
	const uint64_t chunk = ut_len / 16, tail = ut_len - 4096;
	struct udmem_dma_xfer x[8];
	int i, round, r, status = 1;
	uint64_t seq;

	for (i = 0; i < 8; i++)
		x[i] = ut_copy(self->dfd, i * chunk, self->sfd, i * chunk, chunk);
	for (round = 0; round < 16; round++) {
		ASSERT_OK(udmem_dma_submit(self->dma, x, 8, 0, &seq, NULL));
		ASSERT_OK(udmem_dma_terminate(self->dma));
		ASSERT_OK(udmem_dma_wait(self->dma, seq, 0, &status));
		UT_CHECK(status == 0 || status == -ECANCELED, 0, "round %d: batch status %d",
			 round, status);
		memset(self->d + tail, 0x5a, 4096);
		r = udmem_dma_copy(self->dma, self->dfd, tail, self->sfd, round * 4096, 4096,
				   60 * UT_SEC);
		UT_CHECK(r == 0, 1, "round %d: copy after TERMINATE: %s", round, strerror(-r));
		UT_CHECK(!memcmp(self->d + tail, self->s + round * 4096, 4096), 1,
			 "round %d: copy after TERMINATE moved the wrong bytes", round);
	}
}

/*
 * Does a device behind the channel's slave side stream a 32-bit counter?
 * The edu test provider's DEV_TO_MEM channel does (the suite says so in
 * DMA_COUNTER_STREAM); a board engine's slave side needs a peripheral's
 * request line, and none is wired up in these guests.
 */
static int ut_counter_stream(void)
{
	return !strcmp(ut_env("DMA_COUNTER_STREAM", "0"), "1");
}

/* Are the 32-bit samples of p[0..n) a counter, each one more than the last? */
static int ut_counter(const uint8_t *p, uint64_t len)
{
	uint32_t a, b;
	uint64_t i;

	for (i = 4; i < len; i += 4) {
		memcpy(&a, p + i - 4, 4);
		memcpy(&b, p + i, 4);
		if (b != a + 1) {
			TH_LOG("sample at byte %llu: %u after %u", (unsigned long long)i, b, a);
			return 0;
		}
	}
	return 1;
}

TEST_F(dc, slave_dev_to_mem_brings_the_device_stream)
{
	struct udmem_dma_xfer x = {
		.op = UDMEM_DMA_DEV_TO_MEM, .src_fd = -1, .dst_fd = self->dfd,
		.dst_offset = 4096, .length = 16384,
	};
	uint64_t seq;
	int status = 1;

	if (!(self->info.caps & UDMEM_DMA_CAP_DEV_TO_MEM))
		SKIP("%s has no DEV_TO_MEM (a memcpy engine)", self->info.channel);
	if (!ut_counter_stream())
		SKIP("%s: no device streams a known pattern to it", self->info.channel);
	ASSERT_OK(udmem_dma_slave_config(self->dma, UDMEM_DMA_DEV_TO_MEM, 0, 4, 0));
	ASSERT_OK(udmem_dma_submit(self->dma, &x, 1, 0, &seq, NULL));
	ASSERT_OK(udmem_dma_wait(self->dma, seq, UT_FOREVER, &status));
	ASSERT_EQ(status, 0);
	EXPECT_TRUE(ut_counter(self->d + 4096, 16384));
	EXPECT_EQ(self->d[4095], 0x5a);
	EXPECT_EQ(self->d[4096 + 16384], 0x5a);
	/* a slave transfer names no source */
	x.src_fd = self->sfd;
	EXPECT_EQ(udmem_dma_submit(self->dma, &x, 1, 0, NULL, NULL), -EINVAL);
}

TEST_F(dc, cyclic_dev_to_mem_runs_until_terminated)
{
	struct udmem_dma_xfer x = {
		.op = UDMEM_DMA_DEV_TO_MEM, .flags = UDMEM_DMA_CYCLIC | UDMEM_DMA_NO_SYNC,
		.src_fd = -1,
		.dst_fd = self->dfd, .length = 16384, .period = 4096,
	};
	volatile uint8_t *last = self->d + 16384 - 1;
	uint64_t seq;
	int status = 1;

	if (!(self->info.caps & UDMEM_DMA_CAP_CYCLIC))
		SKIP("%s has no cyclic transfers", self->info.channel);
	if (!ut_counter_stream())
		SKIP("%s: no device streams a known pattern to it", self->info.channel);
	ASSERT_OK(udmem_dma_slave_config(self->dma, UDMEM_DMA_DEV_TO_MEM, 0, 4, 0));
	x.period = 3000;
	EXPECT_EQ(udmem_dma_submit(self->dma, &x, 1, 0, NULL, NULL), -EINVAL);
	x.period = 4096;
	ASSERT_OK(udmem_dma_submit(self->dma, &x, 1, 0, &seq, NULL));
	EXPECT_EQ(udmem_dma_wait(self->dma, seq, 0, &status), -ETIMEDOUT);
	/* the last period is written once the engine went round (NO_SYNC: looked at live) */
	while (*last == 0x5a)
		usleep(1000);
	ASSERT_OK(udmem_dma_terminate(self->dma));
	ASSERT_OK(udmem_dma_wait(self->dma, seq, 0, &status));
	EXPECT_EQ(status, -ECANCELED);
}

/* Does reading *p in a child of this process die of SIGBUS? -1: it died otherwise. */
static int ut_read_faults(const volatile uint8_t *p)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		(void)*p;
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	return WIFSIGNALED(st) && WTERMSIG(st) == SIGBUS ? 1 : -1;
}

static long long ut_violations(const char *name)
{
	char v[32];

	if (ut_sysfs_read("u-dma-buf", name, "ownership_violations", v, sizeof(v)))
		return -1;
	return strtoll(v, NULL, 0);
}

/*
 * The sync checker sees a transfer's syncs: while a cyclic transfer writes
 * [64 KiB, 80 KiB) of a checked buffer, those bytes are the device's and a
 * CPU read of them faults; the rest of the buffer, exported whole, stays
 * the CPU's (u-dma-chan syncs the bytes it moves, not the whole DMA-BUF).
 */
TEST_F(dc, checker_owns_only_the_transferred_range)
{
	const char *name = ut_env("DMA_CHECKED", "");
	struct udmem_dma_xfer x = {
		.op = UDMEM_DMA_DEV_TO_MEM, .flags = UDMEM_DMA_CYCLIC, .src_fd = -1,
		.dst_offset = 65536, .length = 16384, .period = 4096,
	};
	struct udmem_buffer *cb;
	long long v0;
	uint64_t seq;
	int status = 1;
	uint8_t *c;
	void *p;

	if (!*name)
		SKIP("no buffer with the sync checker in this guest");
	if (!(self->info.caps & UDMEM_DMA_CAP_CYCLIC) || !ut_counter_stream())
		SKIP("%s: no cyclic transfer from a device that streams to it",
		     self->info.channel);
	ASSERT_OK(udmem_buffer_open(name, 0, &cb));
	ASSERT_OK(udmem_buffer_map(cb, &p));
	c = p;
	memset(c, 0x5a, 262144);
	x.dst_fd = udmem_buffer_export_dmabuf(cb, 0, 262144, O_RDWR | O_CLOEXEC, NULL);
	ASSERT_GE(x.dst_fd, 0);
	v0 = ut_violations(name);
	ASSERT_GE(v0, 0);
	ASSERT_OK(udmem_dma_slave_config(self->dma, UDMEM_DMA_DEV_TO_MEM, 0, 4, 0));
	ASSERT_OK(udmem_dma_submit(self->dma, &x, 1, 0, &seq, NULL));
	/* in flight until TERMINATE: every check below sees it running */
	EXPECT_EQ(ut_read_faults(c), 0);
	EXPECT_EQ(ut_read_faults(c + 65535), 0);
	EXPECT_EQ(ut_read_faults(c + 81920), 0);
	EXPECT_EQ(ut_read_faults(c + 262143), 0);
	EXPECT_EQ(ut_violations(name), v0);
	EXPECT_EQ(ut_read_faults(c + 65536 + 100), 1);
	EXPECT_EQ(ut_read_faults(c + 81919), 1);
	EXPECT_EQ(ut_violations(name), v0 + 2);
	EXPECT_EQ(udmem_dma_wait(self->dma, seq, 0, &status), -ETIMEDOUT);
	ASSERT_OK(udmem_dma_terminate(self->dma));
	ASSERT_OK(udmem_dma_wait(self->dma, seq, UT_FOREVER, &status));
	EXPECT_EQ(status, -ECANCELED);
	/* the completion gave the range back */
	EXPECT_EQ(ut_read_faults(c + 65536 + 100), 0);
	EXPECT_EQ(c[65535], 0x5a);
	EXPECT_EQ(c[81920], 0x5a);
	EXPECT_EQ(ut_violations(name), v0 + 2);
	close(x.dst_fd);
	udmem_buffer_close(cb);
}

TEST_F(dc, buffer_to_region_and_back)
{
	const char *name = ut_env("DMA_REGION", "");
	struct udmem_region *reg;
	uint64_t len = 65536;
	int rfd;

	if (!*name)
		SKIP("no uiomem region in this guest");
	ASSERT_OK(udmem_region_open(name, 0, &reg));
	if (udmem_region_size(reg) < len)
		len = udmem_region_size(reg) & ~4095ull;
	rfd = udmem_region_export_dmabuf(reg, 0, len, O_RDWR | O_CLOEXEC);
	UT_CHECK(rfd >= 0, 1, "export of %s: %s", name, strerror(-rfd));
	ASSERT_EQ(udmem_dma_copy(self->dma, rfd, 0, self->sfd, 0, len, UT_FOREVER), 0);
	ASSERT_EQ(udmem_dma_copy(self->dma, self->dfd, 0, rfd, 0, len, UT_FOREVER), 0);
	EXPECT_TRUE(ut_copied(self->d, 0, self->s, 0, len));
	close(rfd);
	udmem_region_close(reg);
}

TEST_HARNESS_MAIN
