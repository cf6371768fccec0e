// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * dmachan.c - `udmem bench --dma CHAN`: copies through a u-dma-chan
 * channel (/dev/CHAN) between two u-dma-buf buffers, beside a CPU copy of
 * the same size, and the cost of getting a transfer in and its completion
 * out.
 *
 * Per size: the time of the SUBMIT ioctl (one transfer, no fence fd, no
 * completion record), the time from before it to the return of the WAIT
 * ioctl for its sequence number, two system calls per transfer; in the
 * full run also one batch of four transfers (two system calls for four).
 * The CPU copy is the bench's copy loop between anonymous buffers of the
 * same size.  Every copy is checked byte for byte.  Under emulation (QEMU
 * TCG) an engine's time is the emulator's, not hardware's: the figures to
 * read are the counts and the ratios, and the times are instruction counts
 * only where the caller says so (--icount).
 *
 * The kernel's dmatest on the same channel would be the engine with no
 * user space in the way; it needs the channel free and a kernel built with
 * it (CONFIG_DMATEST), so the bench says why it did not run it.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/u-dma-buf-ioctl.h>
#include <linux/u-dma-chan.h>

#include "bench-priv.h"

#define BENCH_DMA_BATCH		4
#define BENCH_DMA_TIMEOUT_NS	(30ll * 1000 * 1000 * 1000)

struct bench_dma_buf {
	int fd;			/* the device file */
	int dmabuf;		/* its export */
	uint8_t *map;
	size_t len;
};

struct bench_dma_fig {
	double *submit;		/* us per SUBMIT, one per run */
	double *done;		/* us from before SUBMIT to WAIT's return */
	bool verified;
};

static int bench_dma_buf_open(const struct bench_target *t, size_t len,
			      struct bench_dma_buf *b)
{
	struct u_dma_buf_ioctl_export_args ex = { .fd = -1 };

	b->len = len;
	b->dmabuf = -1;
	b->map = MAP_FAILED;
	b->fd = open(t->dev_path, O_RDWR | O_CLOEXEC);
	if (b->fd < 0)
		return -errno;
	SET_U_DMA_BUF_IOCTL_FLAGS_EXPORT_FD_FLAGS(&ex, O_RDWR | O_CLOEXEC);
	ex.size = len;
	if (ioctl(b->fd, U_DMA_BUF_IOCTL_EXPORT, &ex))
		return -errno;
	b->dmabuf = ex.fd;
	b->map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, b->fd, 0);
	return b->map == MAP_FAILED ? -errno : 0;
}

static void bench_dma_buf_close(struct bench_dma_buf *b)
{
	if (b->map != MAP_FAILED)
		munmap(b->map, b->len);
	if (b->dmabuf >= 0)
		close(b->dmabuf);
	if (b->fd >= 0)
		close(b->fd);
}

/* One batch of n copies of size bytes each, back to back in both buffers. */
static int bench_dma_batch(int ch, const struct bench_dma_buf *s, const struct bench_dma_buf *d,
			   uint64_t size, int n, double *submit_us, double *done_us)
{
	struct u_dma_chan_xfer x[BENCH_DMA_BATCH];
	struct u_dma_chan_submit sub = { .count = n, .flags = U_DMA_CHAN_SUBMIT_NO_EVENT };
	struct u_dma_chan_wait w = { .timeout_ns = BENCH_DMA_TIMEOUT_NS };
	double t0, t1;
	int i;

	memset(x, 0, sizeof(x));
	for (i = 0; i < n; i++) {
		x[i].op = U_DMA_CHAN_OP_MEMCPY;
		x[i].src_fd = s->dmabuf;
		x[i].dst_fd = d->dmabuf;
		x[i].src_offset = i * size;
		x[i].dst_offset = i * size;
		x[i].length = size;
	}
	sub.xfers = (uintptr_t)x;
	t0 = bench_now();
	if (ioctl(ch, U_DMA_CHAN_IOCTL_SUBMIT, &sub))
		return -errno;
	t1 = bench_now();
	w.seq = sub.seq;
	if (ioctl(ch, U_DMA_CHAN_IOCTL_WAIT, &w))
		return -errno;
	*submit_us = (t1 - t0) * 1e6;
	*done_us = (bench_now() - t0) * 1e6;
	return w.status;
}

/* Microseconds of one CPU copy of size bytes, the median of the runs. */
static double bench_dma_cpu_copy(struct bench_ctx *c, uint64_t size, int runs)
{
	int reps = size >= BENCH_MIB ? 1 : (int)(BENCH_MIB / size), i, r;
	double *us = calloc(runs, sizeof(double)), t0;
	struct bench_stat st;

	if (!us)
		return -1;
	for (r = 0; r < runs; r++) {
		t0 = bench_now();
		for (i = 0; i < reps; i++)
			bench_copy(c->dst, c->src, size);
		us[r] = (bench_now() - t0) * 1e6 / reps;
	}
	bench_stat_of(&st, us, runs);
	free(us);
	return st.median;
}

static void bench_dma_emit(struct bench_ctx *c, const struct u_dma_chan_info *info,
			   uint64_t size, int batch, int runs, const struct bench_dma_fig *f,
			   double cpu_us)
{
	struct bench_stat sub, done;

	bench_stat_of(&sub, f->submit, runs);
	bench_stat_of(&done, f->done, runs);
	bench_json_begin(&c->out, "dma");
	bench_json_kv_s(&c->out, "target", info->name);
	bench_json_kv_s(&c->out, "channel", info->channel);
	bench_json_kv_s(&c->out, "device", info->device);
	bench_json_kv_s(&c->out, "op", "memcpy");
	bench_json_kv_u(&c->out, "size", size);
	bench_json_kv_i(&c->out, "batch", batch);
	bench_json_kv_i(&c->out, "runs", runs);
	bench_json_kv_f(&c->out, "syscalls_per_transfer", 2.0 / batch);
	bench_json_kv_s(&c->out, "clock", c->opt.icount ? "icount" : "wall");
	bench_json_kv_s(&c->out, "unit", "us");
	bench_json_kv_f(&c->out, "submit", sub.median / batch);
	bench_json_kv_f(&c->out, "median", done.median / batch);
	bench_json_kv_f(&c->out, "min", done.min / batch);
	bench_json_kv_f(&c->out, "max", done.max / batch);
	if (cpu_us > 0) {
		bench_json_kv_f(&c->out, "cpu_copy", cpu_us);
		bench_json_kv_f(&c->out, "ratio", done.median / batch / cpu_us);
	} else {
		bench_json_kv_null(&c->out, "cpu_copy");
		bench_json_kv_null(&c->out, "ratio");
	}
	bench_json_kv_b(&c->out, "verified", f->verified);
	bench_json_end(&c->out);
}

/* Runs of one size and batch: fill, copy, check. */
static int bench_dma_size(struct bench_ctx *c, int ch, const struct u_dma_chan_info *info,
			  struct bench_dma_buf *s, struct bench_dma_buf *d, uint64_t size,
			  int batch, int runs)
{
	struct bench_dma_fig f = { .verified = true };
	uint64_t len = size * batch;
	int r, err = 0;

	f.submit = calloc(runs, sizeof(double));
	f.done = calloc(runs, sizeof(double));
	if (!f.submit || !f.done) {
		err = -ENOMEM;
		goto out;
	}
	for (r = 0; r < runs && !err; r++) {
		bench_fill(s->map, len, r + 1);
		memset(d->map, 0, len);
		err = bench_dma_batch(ch, s, d, size, batch, &f.submit[r], &f.done[r]);
		if (!err && memcmp(s->map, d->map, len))
			f.verified = false;
	}
	if (!err)
		bench_dma_emit(c, info, size, batch, runs, &f, bench_dma_cpu_copy(c, size, runs));
out:
	free(f.submit);
	free(f.done);
	return err;
}

static const struct bench_target *bench_dma_nth_buffer(const struct bench_target *v, int n,
						       int k)
{
	int i;

	for (i = 0; i < n; i++)
		if (v[i].class == BENCH_UDMABUF && v[i].has_ioctl && !k--)
			return &v[i];
	return NULL;
}

/*
 * --dma CHAN: the first two u-dma-buf buffers of v, source and destination;
 * 4 KiB transfers (and 16 KiB and a batch of four in a full run).
 */
int bench_dma_run(struct bench_ctx *c, const char *chan, struct bench_target *v, int n)
{
	const struct bench_target *ts = bench_dma_nth_buffer(v, n, 0);
	const struct bench_target *td = bench_dma_nth_buffer(v, n, 1);
	static const uint64_t sizes[] = { 4096, 16384 };
	struct bench_dma_buf s = { .fd = -1, .dmabuf = -1, .map = MAP_FAILED };
	struct bench_dma_buf d = { .fd = -1, .dmabuf = -1, .map = MAP_FAILED };
	int runs = c->opt.quick ? 2 : c->opt.runs, ch = -1, err = 0;
	struct u_dma_chan_info info;
	size_t len = BENCH_DMA_BATCH * 4096, i;
	char path[160], why[200];

	c->steps = 1;
	c->start = bench_now();
	bench_emit_meta(c);
	bench_progress(c, "DMA channel copies", chan);
	if (!ts || !td) {
		bench_emit_skip(c, chan, "dma",
				"needs two u-dma-buf buffers (source, destination)");
		goto end;
	}
	if (len < sizes[1])
		len = sizes[1];
	if (ts->size < len || td->size < len) {
		snprintf(why, sizeof(why), "needs buffers of %zu bytes or more", len);
		bench_emit_skip(c, chan, "dma", why);
		goto end;
	}
	snprintf(path, sizeof(path), "/dev/%s", chan);
	ch = open(path, O_RDWR | O_CLOEXEC);
	memset(&info, 0, sizeof(info));
	if (ch < 0 || ioctl(ch, U_DMA_CHAN_IOCTL_INFO, &info)) {
		snprintf(why, sizeof(why), "no u-dma-chan channel %s: %s", path, strerror(errno));
		bench_emit_skip(c, chan, "dma", why);
		goto end;
	}
	if (!(info.caps & U_DMA_CHAN_CAP_MEMCPY) || (info.copy_align && 4096 % info.copy_align)) {
		bench_emit_skip(c, chan, "dma", "the channel cannot copy 4 KiB blocks");
		goto end;
	}
	c->buf_size = sizes[1];
	c->src = bench_anon_alloc(c->buf_size);
	c->dst = bench_anon_alloc(c->buf_size);
	if (!c->src || !c->dst) {
		err = -ENOMEM;
		goto fail;
	}
	err = bench_dma_buf_open(ts, len, &s);
	if (!err)
		err = bench_dma_buf_open(td, len, &d);
	for (i = 0; i < (c->opt.quick ? 1u : 2u) && !err; i++)
		err = bench_dma_size(c, ch, &info, &s, &d, sizes[i], 1, runs);
	if (!err && !c->opt.quick)
		err = bench_dma_size(c, ch, &info, &s, &d, 4096, BENCH_DMA_BATCH, runs);
fail:
	if (err)
		bench_emit_error(c, chan, "dma", err, strerror(-err));
	bench_dma_buf_close(&s);
	bench_dma_buf_close(&d);
	bench_anon_free(c->src, c->buf_size);
	bench_anon_free(c->dst, c->buf_size);
	c->src = NULL;
	c->dst = NULL;
	if (access("/sys/module/dmatest", F_OK))
		bench_emit_skip(c, chan, "dmatest",
				"dmatest is not loaded (no /sys/module/dmatest; CONFIG_DMATEST)");
	else
		bench_emit_skip(c, chan, "dmatest",
				"dmatest needs the channel free; u-dma-chan holds it while the bench runs");
end:
	if (ch >= 0)
		close(ch);
	bench_emit_end(c);
	return c->out.errors ? -EIO : 0;
}
