// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * iio-dmabuf - u-dma-buf exports in IIO's DMABUF interface (6.11): the test
 * IIO devices of tests/kmod/udmem-iio-dma.ko, whose buffers are the
 * kernel's dmaengine buffer on the channels of the edu test provider.
 * The input device's samples are the rx channel's counter; the output
 * device's go into the tx channel's sink, which checks its own counter.
 * Every sample is checked.  See iio-test.h for the environment.
 */
#define _FILE_OFFSET_BITS 64
#include "iio-test.h"

#define IT_BUF		"udmem-iio0"
#define IT_SIZE		0x10000ul
#define IT_BLOCK	8192ul		/* two edu chunks and a bit: a few 100 ms */
#define IT_WORDS	(IT_BLOCK / 4)

/*
 * What a test holds: the IIO buffer's file, whether it enabled the buffer,
 * exports of the buffer IT_BUF (and their mappings), whether IT_BUF is
 * its own.  The teardown lets go of all, also after a failed ASSERT or a
 * SKIP, then deletes the buffer (it_buf_delete_wait).
 */
#define IT_NEXP		2

struct it_self {
	const char *iio;
	const char *dbg;
	int bfd;
	int enabled;
	int made;
	int d[IT_NEXP];
	uint32_t *w[IT_NEXP];
};

FIXTURE(rx) {
	struct it_self t;
};

FIXTURE(tx) {
	struct it_self t;
};

static void it_setup(struct it_self *t, const char *env, const char *why, const char *dbg,
		     const char *scan)
{
	int i;

	t->bfd = -1;
	for (i = 0; i < IT_NEXP; i++)
		t->d[i] = -1;
	t->iio = it_dev(env, why);
	t->dbg = ut_env(dbg, "/nonexistent");
	it_buf_create(IT_BUF, IT_SIZE);
	t->made = 1;
	ASSERT_EQ(it_write(t->iio, scan, "1"), 0);
	/* the blocks of read(), which the DMABUF interface does not use */
	it_write(t->iio, "buffer0/length", "1024");
	t->bfd = it_buffer_fd(t->iio);
}

static void it_teardown(struct it_self *t)
{
	int i;

	if (t->enabled)
		it_enable(t->iio, 0);
	if (t->bfd >= 0)
		close(t->bfd);
	for (i = 0; i < IT_NEXP; i++) {
		if (t->w[i])
			munmap(t->w[i], IT_BLOCK);
		if (t->d[i] >= 0)
			close(t->d[i]);
	}
	if (t->made)
		it_buf_delete_wait(IT_BUF);
}

/* Export i: [off, off + IT_BLOCK) of IT_BUF, mapped and filled with IT_FILL when map. */
static int it_exp(struct it_self *t, int i, uint64_t off, int mode, int map)
{
	t->d[i] = it_export(IT_BUF, off, IT_BLOCK, mode);
	ASSERT_GE(t->d[i], 0);
	if (map)
		t->w[i] = it_map_fill(t->d[i], IT_BLOCK, IT_FILL);
	return t->d[i];
}

/* Attach, or SKIP when the kernel has no DMABUF interface on IIO buffers. */
static void it_attach_or_skip(int bfd, int dfd)
{
	int r = it_attach(bfd, dfd);

	if (r == -ENOTTY || r == -EINVAL)
		SKIP("IIO_BUFFER_DMABUF_ATTACH_IOCTL: %s (the IIO DMABUF API is 6.11's)",
		     strerror(-r));
	ASSERT_EQ(r, 0);
}

static void it_on(struct it_self *t)
{
	ASSERT_EQ(it_enable(t->iio, 1), 0);
	t->enabled = 1;
}

#define T	(&self->t)

FIXTURE_SETUP(rx)
{
	it_setup(T, "IIO_RX", "no udmem-iio-rx device", "EDU_DBG_RX", "buffer0/in_voltage0_en");
}

FIXTURE_TEARDOWN(rx)
{
	it_teardown(T);
}

/*
 * Two exports of one buffer, enqueued back to back, twice: each block holds
 * the counter where the previous one stopped.  The first round waits with
 * poll(), the second on the fences as sync_files (their status: signalled,
 * no error).  Then both detach, and a second detach finds nothing.
 */
TEST_F(rx, blocks_in_a_row_carry_the_counter)
{
	uint32_t first = 0x40000000;
	int round, i;

	for (i = 0; i < 2; i++)
		it_exp(T, i, i * IT_BLOCK, O_RDWR, 1);
	it_attach_or_skip(T->bfd, T->d[0]);
	ASSERT_EQ(it_attach(T->bfd, T->d[1]), 0);
	it_set(T->dbg, "rx_next", first);
	it_on(T);
	for (round = 0; round < 2; round++) {
		for (i = 0; i < 2; i++)
			ASSERT_EQ(it_enqueue(T->bfd, T->d[i], IT_BLOCK, 0), 0);
		for (i = 0; i < 2; i++) {
			if (round == 0)
				it_wait_poll(T->d[i], T->dbg, "rx_next");
			else
				EXPECT_EQ(it_wait_sync_file(T->d[i], T->dbg, "rx_next"), 1);
			it_cpu(T->d[i], DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ);
			it_expect_count(T->w[i], 0, IT_WORDS, first);
			it_cpu(T->d[i], DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ);
			first += IT_WORDS;
		}
	}
	EXPECT_EQ(it_get(T->dbg, "rx_next"), first);
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(it_detach(T->bfd, T->d[i]), 0);
		EXPECT_EQ(it_detach(T->bfd, T->d[i]), -EPERM);
	}
}

/* bytes_used below the export's size: the device writes that much, nothing after it. */
TEST_F(rx, partial_block_writes_bytes_used_only)
{
	uint32_t first = 0x50000000;
	uint64_t used = 4096 + 256;
	int d = it_exp(T, 0, 0, O_RDWR, 1);

	it_attach_or_skip(T->bfd, d);
	it_set(T->dbg, "rx_next", first);
	it_on(T);
	ASSERT_EQ(it_enqueue(T->bfd, d, used, 0), 0);
	it_wait_poll(d, T->dbg, "rx_next");
	it_cpu(d, DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ);
	it_expect_count(T->w[0], 0, used / 4, first);
	it_expect_fill(T->w[0], used / 4, IT_WORDS, IT_FILL);
	it_cpu(d, DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ);
	EXPECT_EQ(it_get(T->dbg, "rx_next"), first + used / 4);
}

/*
 * Bad enqueues and attaches, each refused before the device sees it: the
 * errors of the kernel's IIO core.
 */
TEST_F(rx, bad_enqueues_and_attaches_are_refused)
{
	int d = it_exp(T, 0, 0, O_RDWR, 0);
	int other = it_exp(T, 1, IT_BLOCK, O_RDWR, 0);
	uint64_t next = it_get(T->dbg, "rx_next");
	int p[2];

	it_attach_or_skip(T->bfd, d);
	it_on(T);
	/* beyond the DMA-BUF, nothing, an unknown flag, cyclic on an input buffer */
	EXPECT_EQ(it_enqueue(T->bfd, d, IT_BLOCK + 4, 0), -EINVAL);
	EXPECT_EQ(it_enqueue(T->bfd, d, 0, 0), -EINVAL);
	EXPECT_EQ(it_enqueue(T->bfd, d, IT_BLOCK, 1u << 1), -EINVAL);
	EXPECT_EQ(it_enqueue(T->bfd, d, IT_BLOCK, IT_DMABUF_CYCLIC), -EINVAL);
	/* an export that is not attached, a file that is no DMA-BUF, no file */
	EXPECT_EQ(it_enqueue(T->bfd, other, IT_BLOCK, 0), -EPERM);
	ASSERT_EQ(pipe(p), 0);
	EXPECT_EQ(it_attach(T->bfd, p[0]), -EINVAL);
	EXPECT_EQ(it_enqueue(T->bfd, p[0], IT_BLOCK, 0), -EINVAL);
	EXPECT_EQ(it_attach(T->bfd, -1), -EBADF);
	close(p[0]);
	close(p[1]);
	/* the same DMA-BUF twice; detach of one never attached */
	EXPECT_EQ(it_attach(T->bfd, d), -EBUSY);
	EXPECT_EQ(it_detach(T->bfd, other), -EPERM);
	EXPECT_EQ(it_detach(T->bfd, d), 0);
	/* the device moved nothing */
	EXPECT_EQ(it_get(T->dbg, "rx_next"), next);
}

/*
 * A read-only export is no place for a device to write: u-dma-buf refuses
 * to map it for DMA_FROM_DEVICE (EACCES, as for a writable mmap of it), so
 * the input buffer's attach fails.  A writable export of the same range
 * attaches.
 */
TEST_F(rx, read_only_export_is_refused_for_device_writes)
{
	int rw = it_exp(T, 0, 0, O_RDWR, 0);
	int ro = it_exp(T, 1, 0, O_RDONLY, 0);

	it_attach_or_skip(T->bfd, rw);
	ASSERT_EQ(it_detach(T->bfd, rw), 0);
	EXPECT_EQ(it_attach(T->bfd, ro), -EACCES);
}

/*
 * Detach while the block is in flight: the detach returns at once, the
 * block's fence keeps the attachment until the transfer ends, and the
 * samples land.
 */
TEST_F(rx, detach_in_flight_lets_the_block_finish)
{
	uint32_t first = 0x60000000;
	int d = it_exp(T, 0, 0, O_RDWR, 1);

	it_attach_or_skip(T->bfd, d);
	it_set(T->dbg, "rx_next", first);
	it_on(T);
	ASSERT_EQ(it_enqueue(T->bfd, d, IT_BLOCK, 0), 0);
	EXPECT_EQ(it_detach(T->bfd, d), 0);
	EXPECT_EQ(it_enqueue(T->bfd, d, IT_BLOCK, 0), -EPERM);
	it_wait_poll(d, T->dbg, "rx_next");
	it_cpu(d, DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ);
	it_expect_count(T->w[0], 0, IT_WORDS, first);
	it_cpu(d, DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ);
}

/*
 * Close the DMA-BUF and the IIO buffer's file while the block is in
 * flight: the transfer still ends, then IIO lets go of the export (it
 * leaves the dma-buf core's bufinfo), and read() of /dev/<name> shows the
 * samples.  The device is free for a new file, attach and block.
 */
TEST_F(rx, close_in_flight_then_the_device_works_again)
{
	uint32_t first = 0x70000000, got[IT_WORDS];
	uint64_t last, now;
	char dev[64];
	int d, fd;
	long r;

	d = it_exp(T, 0, 0, O_RDWR, 1);
	it_attach_or_skip(T->bfd, d);
	it_set(T->dbg, "rx_next", first);
	it_on(T);
	ASSERT_EQ(it_enqueue(T->bfd, d, IT_BLOCK, 0), 0);
	munmap(T->w[0], IT_BLOCK);
	T->w[0] = NULL;
	close(d);
	T->d[0] = -1;
	close(T->bfd);
	T->bfd = -1;
	last = first;
	while (it_export_lives(IT_BUF)) {
		now = it_get(T->dbg, "rx_next");
		if (now != last)
			UT_PROGRESS("rx_next 0x%llx", (unsigned long long)now);
		last = now;
		usleep(100000);
	}
	EXPECT_EQ(it_get(T->dbg, "rx_next"), first + IT_WORDS);
	snprintf(dev, sizeof(dev), "/dev/%s", IT_BUF);
	fd = open(dev, O_RDONLY);
	ASSERT_GE(fd, 0);
	r = ut_pread_all(fd, got, IT_BLOCK, 0);
	close(fd);
	ASSERT_EQ(r, 0);
	it_expect_count(got, 0, IT_WORDS, first);

	T->bfd = it_buffer_fd(T->iio);
	ASSERT_EQ(it_enable(T->iio, 0), 0);
	T->enabled = 0;
	d = it_exp(T, 0, 0, O_RDWR, 0);
	ASSERT_EQ(it_attach(T->bfd, d), 0);
	it_on(T);
	ASSERT_EQ(it_enqueue(T->bfd, d, IT_BLOCK, 0), 0);
	EXPECT_EQ(it_wait_sync_file(d, T->dbg, "rx_next"), 1);
	EXPECT_EQ(it_get(T->dbg, "rx_next"), first + 2 * IT_WORDS);
}

/*
 * Enabled with no DMA-BUF attached, the buffer serves read() from the
 * kernel's own blocks (the counter, in order) and refuses attaches
 * (EBUSY) until it is disabled; then the attach goes through.
 */
TEST_F(rx, enabled_without_dmabuf_reads_and_refuses_attach)
{
	uint32_t first = 0x90000000, got[512];
	size_t done = 0;
	ssize_t n;
	int d = it_exp(T, 0, 0, O_RDWR, 0);

	it_set(T->dbg, "rx_next", first);
	it_on(T);
	while (done < sizeof(got)) {
		n = read(T->bfd, (char *)got + done, sizeof(got) - done);
		ASSERT_GT(n, 0);
		done += n;
		UT_PROGRESS("read %zu bytes", done);
	}
	it_expect_count(got, 0, 512, first);
	EXPECT_EQ(it_attach(T->bfd, d), -EBUSY);
	ASSERT_EQ(it_enable(T->iio, 0), 0);
	T->enabled = 0;
	it_attach_or_skip(T->bfd, d);
	EXPECT_EQ(it_detach(T->bfd, d), 0);
}

/*
 * Delete the u-dma-buf buffer while its export is attached: the manager
 * refuses (EBUSY) and the blocks go on; once the export is detached and
 * closed, the delete goes through.
 */
TEST_F(rx, buffer_delete_refused_while_attached)
{
	uint32_t first = 0x80000000;
	char dev[64];
	int d = it_exp(T, 0, 0, O_RDWR, 1);

	it_attach_or_skip(T->bfd, d);
	EXPECT_EQ(it_buf_delete(IT_BUF), -EBUSY);
	it_set(T->dbg, "rx_next", first);
	it_on(T);
	ASSERT_EQ(it_enqueue(T->bfd, d, IT_BLOCK, 0), 0);
	EXPECT_EQ(it_buf_delete(IT_BUF), -EBUSY);
	EXPECT_EQ(it_wait_sync_file(d, T->dbg, "rx_next"), 1);
	it_cpu(d, DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ);
	it_expect_count(T->w[0], 0, IT_WORDS, first);
	it_cpu(d, DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ);
	EXPECT_EQ(it_detach(T->bfd, d), 0);
	munmap(T->w[0], IT_BLOCK);
	T->w[0] = NULL;
	close(d);
	T->d[0] = -1;
	EXPECT_EQ(it_buf_delete_wait(IT_BUF), 0);
	T->made = 0;
	snprintf(dev, sizeof(dev), "/dev/%s", IT_BUF);
	EXPECT_EQ(access(dev, F_OK), -1);
}

FIXTURE_SETUP(tx)
{
	static const char why[] =
		"no udmem-iio-tx: no output dmaengine buffers before 6.9";

	it_setup(T, "IIO_TX", why, "EDU_DBG_TX", "buffer0/out_voltage0_en");
	it_set(T->dbg, "tx_next", 0);
	it_set(T->dbg, "tx_errors", 0);
	it_set(T->dbg, "tx_bytes", 0);
	it_set(T->dbg, "tx_wrap", IT_WORDS);
}

FIXTURE_TEARDOWN(tx)
{
	it_teardown(T);
	if (T->iio)
		it_write(T->dbg, "tx_wrap", "0");
}

/* The CPU writes the counter from 0 into export 0, which is attached; the buffer is on. */
static int it_tx_prepare(struct it_self *t)
{
	int d = it_exp(t, 0, 0, O_RDWR, 1);
	long i;

	it_cpu(d, DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE);
	for (i = 0; i < (long)IT_WORDS; i++)
		t->w[0][i] = i;
	it_cpu(d, DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE);
	it_attach_or_skip(t->bfd, d);
	it_on(t);
	return d;
}

/* Two blocks out of one export: the sink counts every sample right. */
TEST_F(tx, blocks_reach_the_sink_intact)
{
	int d = it_tx_prepare(T), i;

	for (i = 0; i < 2; i++) {
		ASSERT_EQ(it_enqueue(T->bfd, d, IT_BLOCK, 0), 0);
		EXPECT_EQ(it_wait_sync_file(d, T->dbg, "tx_bytes"), 1);
	}
	EXPECT_EQ(it_get(T->dbg, "tx_bytes"), 2 * IT_BLOCK);
	EXPECT_EQ(it_get(T->dbg, "tx_errors"), 0);
	EXPECT_EQ(it_detach(T->bfd, d), 0);
}

/*
 * IIO_BUFFER_DMABUF_CYCLIC on the output buffer: the core takes it.  Where
 * the kernel's dmaengine buffer repeats the block until the buffer is
 * disabled, the sink (its counter wrapping at the block's length) sees
 * more than two passes, every sample right.  A kernel whose dmaengine
 * buffer prepares DMABUF blocks as plain dma_vec transfers, which have no
 * cyclic form, sends the block once and signals its fence: that pass is
 * checked, and the repetition is a SKIP that says so.
 */
TEST_F(tx, cyclic_block_repeats_until_disabled)
{
	static const char once[] =
		"IIO dmaengine buffer sent the cyclic block once (dma_vec has no cyclic form)";
	struct pollfd p;
	uint64_t bytes, last = 0;
	int d = it_tx_prepare(T);

	ASSERT_EQ(it_enqueue(T->bfd, d, IT_BLOCK, IT_DMABUF_CYCLIC), 0);
	p.fd = d;
	p.events = POLLOUT;
	for (;;) {
		bytes = it_get(T->dbg, "tx_bytes");
		if (bytes > 2 * IT_BLOCK)
			break;
		if (poll(&p, 1, 500) > 0) {
			/* the fence signalled while the buffer is on: one pass */
			EXPECT_EQ(it_get(T->dbg, "tx_bytes"), IT_BLOCK);
			EXPECT_EQ(it_get(T->dbg, "tx_errors"), 0);
			if (ut_failed)
				return;
			SKIP("%s", once);
		}
		if (bytes != last)
			UT_PROGRESS("cyclic, tx_bytes %llu", (unsigned long long)bytes);
		last = bytes;
	}
	EXPECT_EQ(it_get(T->dbg, "tx_errors"), 0);
	ASSERT_EQ(it_enable(T->iio, 0), 0);
	T->enabled = 0;
	it_wait_poll(d, T->dbg, "tx_bytes");
	EXPECT_EQ(it_get(T->dbg, "tx_bytes") % 4, 0);
	EXPECT_EQ(it_get(T->dbg, "tx_errors"), 0);
}

TEST_HARNESS_MAIN
