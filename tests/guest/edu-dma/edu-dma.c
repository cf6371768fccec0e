// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * edu-dma - slave transfers and cut-short transfers on the test dmaengine
 * provider (tests/kmod/udmem-edu-dma.ko), through the client
 * tests/kmod/udmem-dmaengine-test.ko loaded with device= and slave= naming
 * the provider's device.  The slave channel's emulated FIFO produces a
 * 32-bit counter (debugfs rx_next is the next sample) and its sink checks
 * one (tx_next, tx_errors, tx_bytes), so every sample is verified.  See
 * edu-dma.h for the environment.
 */
#define _FILE_OFFSET_BITS 64
#include "edu-dma.h"

#define ED_EMPTY	0xffffffffu	/* what the buffers hold before a transfer */

static struct udmem_dmaengine_xfer ed_rx(uint64_t addr, uint64_t len)
{
	struct udmem_dmaengine_xfer x = {
		.addr = addr, .len = len, .kind = UDMEM_DMAENGINE_DEV_TO_MEM,
	};

	return x;
}

/* w[from, to) holds the counter from first on. */
static void ed_expect_count(const uint32_t *w, long from, long to, uint32_t first)
{
	uint32_t want;
	long i;

	for (i = from; i < to; i++) {
		want = first + (uint32_t)(i - from);
		UT_CHECK(w[i] == want, 1, "word %ld: want 0x%08x, got 0x%08x", i, want, w[i]);
	}
}

static void ed_expect_fill(const uint32_t *w, long from, long to, uint32_t fill)
{
	long i;

	for (i = from; i < to; i++)
		UT_CHECK(w[i] == fill, 1, "word %ld outside the transfer: 0x%08x", i, w[i]);
}

/* One entry of 12 KiB: the counter from rx_next, nothing written beyond. */
TEST(rx_single_entry_counts_from_rx_next)
{
	struct ed_buf b;
	struct udmem_dmaengine_xfer x;
	uint32_t first = 0x5a000000;

	ed_open(&b, "EDU_BUF0", "udmabuf0", ED_EMPTY);
	ed_dbg_set("rx_next", first);
	x = ed_rx(b.dma, 12288);
	ASSERT_EQ(ed_xfer(&x), 0);
	EXPECT_EQ(x.callbacks, 1);
	EXPECT_EQ(x.result, 0);
	ed_sync(&b, 0, 2);
	ed_expect_count(b.w, 0, 3072, first);
	ed_expect_fill(b.w, 3072, ED_WORDS, ED_EMPTY);
	EXPECT_EQ(ed_dbg_get("rx_next"), first + 3072);
	ed_close(&b);
}

/* Scatter-gather: 1 KiB entries 3 KiB apart, the gaps untouched. */
TEST(rx_scatter_gather_fills_entries_in_order)
{
	struct ed_buf b;
	struct udmem_dmaengine_xfer x;
	uint32_t first = 0x00c0ffee;
	long e;

	ed_open(&b, "EDU_BUF0", "udmabuf0", ED_EMPTY);
	ed_dbg_set("rx_next", first);
	x = ed_rx(b.dma + 4096, 8 * 1024);
	x.seg = 1024;
	x.stride = 3072;
	ASSERT_EQ(ed_xfer(&x), 0);
	EXPECT_EQ(x.callbacks, 1);
	ed_sync(&b, 0, 2);
	ed_expect_fill(b.w, 0, 1024, ED_EMPTY);
	for (e = 0; e < 8; e++) {
		long at = 1024 + e * 768;

		ed_expect_count(b.w, at, at + 256, first + e * 256);
		ed_expect_fill(b.w, at + 256, e == 7 ? ED_WORDS : at + 768, ED_EMPTY);
	}
	ed_close(&b);
}

/* The FIFO is a stream: a second transfer goes on where the first ended. */
TEST(rx_counter_continues_across_transfers)
{
	struct ed_buf b;
	struct udmem_dmaengine_xfer x;
	uint32_t first;

	ed_open(&b, "EDU_BUF0", "udmabuf0", ED_EMPTY);
	first = ed_dbg_get("rx_next");
	x = ed_rx(b.dma, 4096);
	ASSERT_EQ(ed_xfer(&x), 0);
	x = ed_rx(b.dma + 8192, 6000);
	ASSERT_EQ(ed_xfer(&x), 0);
	ed_sync(&b, 0, 2);
	ed_expect_count(b.w, 0, 1024, first);
	ed_expect_count(b.w, 2048, 2048 + 1500, first + 1024);
	ed_expect_fill(b.w, 1024, 2048, ED_EMPTY);
	ed_expect_fill(b.w, 2048 + 1500, ED_WORDS, ED_EMPTY);
	ed_close(&b);
}

/*
 * Cyclic, 4 periods of 2 KiB, until 6 period callbacks: one lap and a half
 * at least.  The buffer then holds the stream with one seam at most, where
 * the newer lap meets the older one, every value from this transfer.
 */
TEST(rx_cyclic_calls_back_each_period_and_wraps)
{
	struct ed_buf b;
	struct udmem_dmaengine_xfer x;
	uint32_t first = 0x10000000, next, max = 0;
	const long words = 2048;
	long i, seams = 0;

	ed_open(&b, "EDU_BUF0", "udmabuf0", ED_EMPTY);
	ed_dbg_set("rx_next", first);
	x = ed_rx(b.dma, 8192);
	x.flags = UDMEM_DMAENGINE_CYCLIC;
	x.seg = 2048;
	x.periods = 6;
	ASSERT_EQ(ed_xfer(&x), 0);
	EXPECT_GE(x.callbacks, 6);
	EXPECT_EQ(x.result, 0);
	EXPECT_TRUE(x.residue > 0 && x.residue <= 8192);
	next = ed_dbg_get("rx_next");
	ed_sync(&b, 0, 2);
	for (i = 0; i < words; i++) {
		UT_CHECK(b.w[i] >= first && b.w[i] < next, 1,
			 "word %ld: 0x%08x is not of this transfer [0x%08x, 0x%08x)", i, b.w[i],
			 first, next);
		if (b.w[i] > max)
			max = b.w[i];
		if (i && b.w[i] != b.w[i - 1] + 1) {
			UT_CHECK(b.w[i] == b.w[i - 1] + 1 - words, 1,
				 "word %ld: 0x%08x after 0x%08x is neither the next sample nor a lap back",
				 i, b.w[i], b.w[i - 1]);
			seams++;
		}
	}
	EXPECT_LE(seams, 1);
	/* six periods of 512 samples came at least */
	EXPECT_GE(max, first + 6 * 512 - 1);
	ed_expect_fill(b.w, words, ED_WORDS, ED_EMPTY);
	ed_close(&b);
}

/* MEM_TO_DEV: the sink takes the counter without an error, and sees each wrong one. */
TEST(tx_sink_counts_each_wrong_sample)
{
	struct ed_buf b;
	struct udmem_dmaengine_xfer x = { .len = 12288, .kind = UDMEM_DMAENGINE_MEM_TO_DEV };
	uint32_t first = 0x77000000;
	uint64_t bytes;
	long i;

	ed_open(&b, "EDU_BUF1", "udmabuf1", ED_EMPTY);
	ed_sync(&b, 0, 0);
	for (i = 0; i < 3072; i++)
		b.w[i] = first + i;
	ed_sync(&b, 1, 1);
	x.addr = b.dma;
	ed_dbg_set("tx_next", first);
	ed_dbg_set("tx_errors", 0);
	bytes = ed_dbg_get("tx_bytes");
	ASSERT_EQ(ed_xfer(&x), 0);
	EXPECT_EQ(ed_dbg_get("tx_errors"), 0);
	EXPECT_EQ(ed_dbg_get("tx_next"), first + 3072);
	EXPECT_EQ(ed_dbg_get("tx_bytes"), bytes + 12288);

	/* three wrong samples, in two scatter-gather entries */
	ed_sync(&b, 0, 0);
	b.w[0] ^= 1;
	b.w[1500] = 0;
	b.w[3071] += 2;
	ed_sync(&b, 1, 1);
	ed_dbg_set("tx_next", first);
	x.seg = 6144;
	ASSERT_EQ(ed_xfer(&x), 0);
	EXPECT_EQ(ed_dbg_get("tx_errors"), 3);
	ed_close(&b);
}

/*
 * A memcpy of 64 KiB terminated once it made progress: no callback, the
 * copied head equals the source, the tail past the chunk that was on the
 * engine (at most 4 KiB) is untouched; the channel copies again after.
 */
TEST(memcpy_terminated_mid_transfer_stops)
{
	struct ed_buf s, d;
	struct udmem_dmaengine_copy c;
	struct udmem_dmaengine_xfer x = { .len = ED_MAP, .kind = UDMEM_DMAENGINE_MEMCPY,
					  .flags = UDMEM_DMAENGINE_TERMINATE };
	long i, done;
	int fd;

	ed_open(&s, "EDU_BUF0", "udmabuf0", 0);
	ed_open(&d, "EDU_BUF1", "udmabuf1", 0);
	ed_sync(&s, 0, 0);
	for (i = 0; i < ED_WORDS; i++)
		s.w[i] = 0xabc00000 + i;
	ed_sync(&s, 1, 1);
	x.src = s.dma;
	x.addr = d.dma;
	ASSERT_EQ(ed_xfer(&x), 0);
	EXPECT_EQ(x.callbacks, 0);
	ASSERT_TRUE(x.residue > 0 && x.residue < ED_MAP);
	ed_sync(&d, 0, 2);
	done = (ED_MAP - x.residue) / 4;
	ed_expect_count(d.w, 0, done, 0xabc00000);
	/* the chunk in flight may have landed, nothing after it */
	ed_expect_fill(d.w, done + 1024 < ED_WORDS ? done + 1024 : ED_WORDS, ED_WORDS, 0);
	TH_LOG("terminated with %llu of %d bytes left", (unsigned long long)x.residue, ED_MAP);

	c = (struct udmem_dmaengine_copy){ .src = s.dma + 4096, .dst = d.dma + 4096, .len = 4096 };
	fd = open(ED_DEV, O_RDWR);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(ioctl(fd, UDMEM_DMAENGINE_COPY, &c), 0);
	close(fd);
	ed_sync(&d, 0, 2);
	ed_expect_count(d.w, 1024, 2048, 0xabc00000 + 1024);
	ed_close(&s);
	ed_close(&d);
}

/* DEV_TO_MEM terminated mid-transfer; the stream then goes on from rx_next. */
TEST(rx_terminated_mid_transfer_then_stream_goes_on)
{
	struct ed_buf b;
	struct udmem_dmaengine_xfer x;
	uint32_t first = 0x20000000, next;
	long done;

	ed_open(&b, "EDU_BUF0", "udmabuf0", ED_EMPTY);
	ed_dbg_set("rx_next", first);
	x = ed_rx(b.dma, 32768);
	x.flags = UDMEM_DMAENGINE_TERMINATE;
	ASSERT_EQ(ed_xfer(&x), 0);
	EXPECT_EQ(x.callbacks, 0);
	ASSERT_TRUE(x.residue > 0 && x.residue < 32768);
	ed_sync(&b, 0, 2);
	done = (32768 - x.residue) / 4;
	ed_expect_count(b.w, 0, done, first);
	ed_expect_fill(b.w, done + 1024, ED_WORDS, ED_EMPTY);
	next = ed_dbg_get("rx_next");
	x = ed_rx(b.dma + 40960, 1024);
	ASSERT_EQ(ed_xfer(&x), 0);
	ed_sync(&b, 0, 2);
	ed_expect_count(b.w, 10240, 10240 + 256, next);
	ed_close(&b);
}

/* What the provider refuses (prep returns NULL): -EINVAL, nothing moves. */
TEST(provider_refuses_bad_slave_transfers)
{
	struct ed_buf b;
	struct udmem_dmaengine_xfer x;
	uint32_t next;

	ed_open(&b, "EDU_BUF0", "udmabuf0", ED_EMPTY);
	next = ed_dbg_get("rx_next");
	x = ed_rx(b.dma, 6);			/* not whole samples */
	EXPECT_EQ(ed_xfer(&x), -EINVAL);
	x = ed_rx(b.dma + 2, 64);		/* unaligned */
	EXPECT_EQ(ed_xfer(&x), -EINVAL);
	x = ed_rx(1ULL << 32, 64);		/* beyond the 32-bit DMA mask */
	EXPECT_EQ(ed_xfer(&x), -EINVAL);
	x = ed_rx((1ULL << 32) - 32, 64);	/* across it */
	EXPECT_EQ(ed_xfer(&x), -EINVAL);
	x = ed_rx(b.dma, 8192);			/* cyclic: not whole periods */
	x.flags = UDMEM_DMAENGINE_CYCLIC;
	x.seg = 3000;
	x.periods = 1;
	EXPECT_EQ(ed_xfer(&x), -EINVAL);
	x = ed_rx(b.dma, 8192);			/* the client's own checks */
	x.kind = 9;
	EXPECT_EQ(ed_xfer(&x), -EINVAL);
	x = ed_rx(b.dma, 8192);
	x.reserved = 1;
	EXPECT_EQ(ed_xfer(&x), -EINVAL);
	EXPECT_EQ(ed_dbg_get("rx_next"), next);
	ed_sync(&b, 0, 2);
	ed_expect_fill(b.w, 0, ED_WORDS, ED_EMPTY);
	ed_close(&b);
}

TEST_HARNESS_MAIN
