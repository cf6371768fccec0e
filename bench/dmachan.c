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
 * The kernel's dmatest on the same channel is the engine with no user
 * space in the way.  It needs the channel free, which u-dma-chan holds
 * while the bench runs, so it runs before: --dmatest FILE hands the bench
 * its figures, lines of "CHANNEL SIZE KB/s" (dmatest's summary, one run
 * per size with norandom=1 test_buf_size=SIZE), and every record of that
 * channel and size carries them and the ratio u-dma-chan / dmatest.
 * Throughput is bytes moved over the time from SUBMIT to WAIT's return,
 * with 1, 2 and 4 transfers in flight (one SUBMIT for all of them).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/u-dma-buf-ioctl.h>
#include <linux/u-dma-chan.h>

#include "bench-priv.h"

#define BENCH_DMA_BATCH		4
#define BENCH_DMA_MAX_DMATEST	32
#define BENCH_DMA_SIZES		5
#define BENCH_DMA_FLIGHTS	3

static const uint64_t bench_dma_sizes[BENCH_DMA_SIZES] = {
	4096, 16384, 65536, 262144, 1048576
};

static const int bench_dma_flights[BENCH_DMA_FLIGHTS] = { 1, 2, BENCH_DMA_BATCH };

#define BENCH_DMA_TIMEOUT_NS	(30ll * 1000 * 1000 * 1000)

struct bench_dma_buf {
	int fd;			/* the device file */
	int dmabuf;		/* its export */
	uint8_t *map;
	size_t len;
};

/* One line of --dmatest FILE. */
struct bench_dmatest {
	char channel[32];
	uint64_t size;
	double kbps;
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
			   double cpu_us, double dmatest_kbps)
{
	struct bench_stat sub, done;
	double kbps;

	bench_stat_of(&sub, f->submit, runs);
	bench_stat_of(&done, f->done, runs);
	kbps = done.median > 0 ? (double)size * batch / 1024 / (done.median / 1e6) : NAN;
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
	bench_json_kv_f(&c->out, "kbps", kbps);
	if (dmatest_kbps > 0) {
		bench_json_kv_f(&c->out, "dmatest_kbps", dmatest_kbps);
		bench_json_kv_f(&c->out, "dmatest_ratio", kbps / dmatest_kbps);
	} else {
		bench_json_kv_null(&c->out, "dmatest_kbps");
		bench_json_kv_null(&c->out, "dmatest_ratio");
	}
	bench_json_kv_b(&c->out, "verified", f->verified);
	bench_json_end(&c->out);
}

/* Runs of one size and batch: fill, copy, check. */
static int bench_dma_size(struct bench_ctx *c, int ch, const struct u_dma_chan_info *info,
			  struct bench_dma_buf *s, struct bench_dma_buf *d, uint64_t size,
			  int batch, int runs, double dmatest_kbps)
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
		bench_dma_emit(c, info, size, batch, runs, &f, bench_dma_cpu_copy(c, size, runs),
			       dmatest_kbps);
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
 * --dmatest FILE: up to BENCH_DMA_MAX_DMATEST lines of "CHANNEL SIZE KB/s";
 * blank lines and lines from '#' on are skipped.  The count read, or a
 * negative errno (-EINVAL: a line that is not of that form, in *bad).
 */
static int bench_dmatest_read(const char *path, struct bench_dmatest *v, int *bad)
{
	FILE *f = fopen(path, "re");
	char line[256], chan[32];
	unsigned long long size;
	int n = 0, no = 0;
	double kbps;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *hash = strchr(line, '#');

		no++;
		if (hash)
			*hash = '\0';
		if (strspn(line, " \t\r\n") == strlen(line))
			continue;
		if (sscanf(line, "%31s %llu %lf", chan, &size, &kbps) != 3 || !size ||
		    !(kbps > 0) || n == BENCH_DMA_MAX_DMATEST) {
			*bad = no;
			fclose(f);
			return -EINVAL;
		}
		snprintf(v[n].channel, sizeof(v[n].channel), "%s", chan);
		v[n].size = size;
		v[n++].kbps = kbps;
	}
	fclose(f);
	return n;
}

/* dmatest's KB/s for this channel and size, 0 when the file has none. */
static double bench_dmatest_kbps(const struct bench_dmatest *v, int n, const char *channel,
				 uint64_t size)
{
	int i;

	for (i = 0; i < n; i++)
		if (v[i].size == size && !strcmp(v[i].channel, channel))
			return v[i].kbps;
	return 0;
}

/*
 * --dma CHAN: the first two u-dma-buf buffers of v, source and destination;
 * 4 KiB transfers one at a time in a quick run; else every size of sizes[]
 * the buffers and the channel take, with 1, 2 and 4 in flight.
 */
int bench_dma_run(struct bench_ctx *c, const char *chan, struct bench_target *v, int n)
{
	const struct bench_target *ts = bench_dma_nth_buffer(v, n, 0);
	const struct bench_target *td = bench_dma_nth_buffer(v, n, 1);
	const uint64_t *sizes = bench_dma_sizes;
	const int *batches = bench_dma_flights;
	struct bench_dma_buf s = { .fd = -1, .dmabuf = -1, .map = MAP_FAILED };
	struct bench_dma_buf d = { .fd = -1, .dmabuf = -1, .map = MAP_FAILED };
	int runs = c->opt.quick ? 2 : c->opt.runs, ch = -1, err = 0, ndt = 0, bad = 0;
	int nsizes = c->opt.quick ? 1 : BENCH_DMA_SIZES;
	int nbatches = c->opt.quick ? 1 : BENCH_DMA_FLIGHTS;
	struct bench_dmatest dt[BENCH_DMA_MAX_DMATEST];
	struct u_dma_chan_info info;
	uint64_t room, len = 0, cpu_len = 0;
	char path[160], why[240];
	int i, j, left = 0;

	c->steps = 1;
	c->start = bench_now();
	bench_emit_meta(c);
	bench_progress(c, "DMA channel copies", chan);
	if (c->opt.dmatest) {
		ndt = bench_dmatest_read(c->opt.dmatest, dt, &bad);
		if (ndt < 0) {
			if (bad)
				snprintf(why, sizeof(why),
					 "--dmatest %s: line %d: not CHANNEL SIZE KB/s, or past %d lines",
					 c->opt.dmatest, bad, BENCH_DMA_MAX_DMATEST);
			else
				snprintf(why, sizeof(why), "--dmatest %s: %s", c->opt.dmatest,
					 strerror(-ndt));
			bench_emit_error(c, chan, "dmatest", -ndt, why);
			goto end;
		}
	}
	if (!ts || !td) {
		bench_emit_skip(c, chan, "dma",
				"needs two u-dma-buf buffers (source, destination)");
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
	/* the buffers hold a batch of each size run */
	room = ts->size < td->size ? ts->size : td->size;
	for (i = 0; i < nsizes; i++) {
		for (j = 0; j < nbatches; j++)
			if (sizes[i] * batches[j] <= room && sizes[i] * batches[j] > len)
				len = sizes[i] * batches[j];
		if (sizes[i] <= room)
			cpu_len = sizes[i];
	}
	if (!len) {
		bench_emit_skip(c, chan, "dma", "needs buffers of 4 KiB or more");
		goto end;
	}
	c->buf_size = cpu_len;
	c->src = bench_anon_alloc(c->buf_size);
	c->dst = bench_anon_alloc(c->buf_size);
	if (!c->src || !c->dst) {
		err = -ENOMEM;
		goto fail;
	}
	err = bench_dma_buf_open(ts, len, &s);
	if (!err)
		err = bench_dma_buf_open(td, len, &d);
	for (i = 0; i < nsizes && !err; i++) {
		double dk = bench_dmatest_kbps(dt, ndt, info.channel, sizes[i]);

		for (j = 0; j < nbatches && !err; j++) {
			if (sizes[i] * batches[j] > len) {
				left++;
				continue;
			}
			err = bench_dma_size(c, ch, &info, &s, &d, sizes[i], batches[j], runs, dk);
		}
	}
	if (left && !err) {
		snprintf(why, sizeof(why),
			 "%d of the sizes and counts in flight past the buffers (%" PRIu64
			 " bytes; 4 MiB hold them all)", left, room);
		bench_emit_skip(c, chan, "dma", why);
	}
fail:
	if (err)
		bench_emit_error(c, chan, "dma", err, strerror(-err));
	bench_dma_buf_close(&s);
	bench_dma_buf_close(&d);
	bench_anon_free(c->src, c->buf_size);
	bench_anon_free(c->dst, c->buf_size);
	c->src = NULL;
	c->dst = NULL;
	for (i = 0; i < ndt && strcmp(dt[i].channel, info.channel); i++)
		;
	if (!c->opt.dmatest) {
		bench_emit_skip(c, chan, "dmatest",
				"no --dmatest FILE (dmatest needs the channel free: run it first)");
	} else if (i == ndt) {
		snprintf(why, sizeof(why), "--dmatest %s has no figures for %s",
			 c->opt.dmatest, info.channel);
		bench_emit_skip(c, chan, "dmatest", why);
	}
end:
	if (ch >= 0)
		close(ch);
	bench_emit_end(c);
	return c->out.errors ? -EIO : 0;
}
