// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * dmabuf.c - `udmem bench`: a u-dma-buf export beside the kernel's own
 * udmabuf (memfd pages through /dev/udmabuf) of the same size: the
 * scatterlist entries each exporter gives and the time of a
 * DMA_BUF_IOCTL_SYNC start/end pair on each, measured in the same run so
 * that the ratio holds where absolute times do not (under emulation).
 *
 * Scatterlist entries: with the test importer module loaded
 * (tests/kmod/udmem-dmabuf-importer.ko, /dev/udmem-dmabuf-importer) both
 * DMA-BUFs are attached to the buffer's own device and the exporters'
 * tables are counted ("importer").  Without it, a u-dma-buf export is one
 * entry per GiB by construction ("contiguous") and the memfd's pages are
 * counted as physically contiguous runs from /proc/self/pagemap
 * ("pagemap", a lower bound: an exporter can merge only contiguous pages,
 * and need not), or not at all without the privilege to read frame
 * numbers.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/dma-buf.h>
#include <linux/u-dma-buf-ioctl.h>

#include "bench-priv.h"
#include "../tests/kmod/udmem-dmabuf-importer.h"

#define BENCH_DMABUF_SIZE	BENCH_MIB	/* at most: 256 pages of 4 KiB */
#define BENCH_DMABUF_PAIRS	20		/* sync pairs per timed run */

/* <linux/udmabuf.h>, which not every tool chain ships */
struct bench_udmabuf_create {
	uint32_t memfd;
	uint32_t flags;
	uint64_t offset;
	uint64_t size;
};

#define BENCH_UDMABUF_CLOEXEC	0x01
#define BENCH_UDMABUF_CREATE	_IOW('u', 0x42, struct bench_udmabuf_create)

struct bench_dmabuf {
	const char *target;
	const char *exporter;
	int fd;			/* the DMA-BUF */
	long long sg;		/* exporter's entries; -1: unknown */
	const char *sg_source;
	double *us;		/* per sync pair, one per run */
};

/* A mainline udmabuf over a sealed memfd of len bytes, or -errno. */
int bench_mainline_udmabuf(uint64_t len, int *mfd)
{
	struct bench_udmabuf_create cr = { .flags = BENCH_UDMABUF_CLOEXEC, .size = len };
	int dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC), fd;

	if (dev < 0)
		return -errno;
	*mfd = memfd_create("udmem-bench", MFD_ALLOW_SEALING | MFD_CLOEXEC);
	if (*mfd < 0 || ftruncate(*mfd, len) || fcntl(*mfd, F_ADD_SEALS, F_SEAL_SHRINK)) {
		fd = -errno;
		goto out;
	}
	cr.memfd = *mfd;
	fd = ioctl(dev, BENCH_UDMABUF_CREATE, &cr);
	if (fd < 0)
		fd = -errno;
out:
	close(dev);
	return fd;
}

/* Physically contiguous runs of the memfd's pages; -1 when frames are hidden. */
static long long bench_pagemap_runs(int mfd, uint64_t len, long page)
{
	long long runs = 0;
	uint64_t i, n = len / page, e, prev = 0;
	volatile uint8_t *p;
	int pm;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	if (p == MAP_FAILED)
		return -1;
	pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	for (i = 0; pm >= 0 && i < n; i++) {
		p[i * page] = 1;	/* the page exists from here on */
		if (pread(pm, &e, sizeof(e), ((uintptr_t)p / page + i) * sizeof(e)) !=
		    sizeof(e) || !(e & (1ull << 63)) || !(e & ((1ull << 55) - 1))) {
			runs = -1;	/* not present, or no CAP_SYS_ADMIN */
			break;
		}
		e &= (1ull << 55) - 1;
		if (!i || e != prev + 1)
			runs++;
		prev = e;
	}
	if (pm >= 0)
		close(pm);
	else
		runs = -1;
	munmap((void *)p, len);
	return runs;
}

/* "bus/name" of the device a buffer hangs under, for the importer. */
int bench_parent(const struct bench_target *t, char *out, size_t len)
{
	char path[300], dev[PATH_MAX], bus[PATH_MAX];
	const char *d, *b;

	snprintf(path, sizeof(path), "%s/device", t->sys_path);
	if (!realpath(path, dev))
		return -errno;
	snprintf(path, sizeof(path), "%s/device/subsystem", t->sys_path);
	if (!realpath(path, bus))
		return -errno;
	d = strrchr(dev, '/');
	b = strrchr(bus, '/');
	if (!d || !b)
		return -EINVAL;
	snprintf(out, len, "%s/%s", b + 1, d + 1);
	return 0;
}

/* The exporter's entries through the test importer: one open per attachment. */
static int bench_importer_sg(const char dev[UDI_DEV_NAME_MAX], int dmabuf, long long *sg)
{
	struct udi_attach a = { .fd = dmabuf };
	int ifd = open(BENCH_IMPORTER, O_RDWR | O_CLOEXEC);

	if (ifd < 0)
		return -errno;
	memcpy(a.dev, dev, sizeof(a.dev));
	if (ioctl(ifd, UDI_ATTACH, &a)) {
		close(ifd);
		return -errno;
	}
	*sg = a.orig_nents;
	return ifd;		/* attached until closed */
}

/* Microseconds per DMA_BUF_IOCTL_SYNC start/end pair over the whole DMA-BUF. */
static int bench_sync_pairs(int fd, double *us)
{
	struct dma_buf_sync s;
	double t0 = bench_now();
	int i;

	for (i = 0; i < BENCH_DMABUF_PAIRS; i++) {
		s.flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW;
		if (ioctl(fd, DMA_BUF_IOCTL_SYNC, &s))
			return -errno;
		s.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW;
		if (ioctl(fd, DMA_BUF_IOCTL_SYNC, &s))
			return -errno;
	}
	*us = (bench_now() - t0) * 1e6 / BENCH_DMABUF_PAIRS;
	return 0;
}

static void bench_emit_dmabuf(struct bench_ctx *c, const struct bench_dmabuf *d,
			      uint64_t size, long page, int runs, double ours)
{
	struct bench_stat st;

	bench_stat_of(&st, d->us, runs);
	bench_json_begin(&c->out, "dmabuf");
	bench_json_kv_s(&c->out, "target", d->target);
	bench_json_kv_s(&c->out, "exporter", d->exporter);
	bench_json_kv_u(&c->out, "size", size);
	bench_json_kv_u(&c->out, "pages", size / page);
	if (d->sg < 0)
		bench_json_kv_null(&c->out, "sg_entries");
	else
		bench_json_kv_i(&c->out, "sg_entries", d->sg);
	bench_json_kv_s(&c->out, "sg_source", d->sg_source);
	bench_json_kv_i(&c->out, "runs", runs);
	bench_json_kv_s(&c->out, "unit", "us");
	bench_json_kv_f(&c->out, "median", st.median);
	bench_json_kv_f(&c->out, "min", st.min);
	bench_json_kv_f(&c->out, "max", st.max);
	if (ours > 0)
		bench_json_kv_f(&c->out, "ratio", st.median / ours);
	else
		bench_json_kv_null(&c->out, "ratio");
	bench_json_end(&c->out);
}

/*
 * A u-dma-buf export of the buffer t and a mainline udmabuf of the same
 * size, their runs interleaved; skipped where the kernel has no
 * /dev/udmabuf.
 */
void bench_dmabuf(struct bench_ctx *c, const struct bench_target *t)
{
	struct u_dma_buf_ioctl_export_args ex = { .fd = -1 };
	struct bench_dmabuf d[2] = {
		{ .target = t->name, .exporter = "u-dma-buf", .fd = -1 },
		{ .target = t->name, .exporter = "udmabuf", .fd = -1 },
	};
	int runs = c->opt.quick ? 3 : c->opt.runs, bfd, mfd = -1, att[2] = { -1, -1 };
	long page = sysconf(_SC_PAGESIZE);
	uint64_t size = t->size / page * page;
	char dev[UDI_DEV_NAME_MAX], why[200];
	int i, k, err = 0;
	struct bench_stat st;

	bench_progress(c, "DMA-BUF exporters", t->name);
	if (size > BENCH_DMABUF_SIZE)
		size = BENCH_DMABUF_SIZE;
	if (!size) {
		bench_emit_skip(c, t->name, "dmabuf", "buffer smaller than a page");
		return;
	}
	d[1].fd = bench_mainline_udmabuf(size, &mfd);
	if (d[1].fd < 0) {
		snprintf(why, sizeof(why), "%s (%" PRIu64 " bytes): %s",
			 "no mainline udmabuf to compare with (/dev/udmabuf, CONFIG_UDMABUF)",
			 size, strerror(-d[1].fd));
		bench_emit_skip(c, t->name, "dmabuf-udmabuf", why);
		if (mfd >= 0)
			close(mfd);
		return;
	}
	bfd = open(t->dev_path, O_RDWR | O_CLOEXEC);
	if (bfd < 0) {
		err = -errno;
		goto out;
	}
	SET_U_DMA_BUF_IOCTL_FLAGS_EXPORT_FD_FLAGS(&ex, O_RDWR | O_CLOEXEC);
	ex.size = size;
	d[0].fd = ioctl(bfd, U_DMA_BUF_IOCTL_EXPORT, &ex) ? -errno : ex.fd;
	close(bfd);
	if (d[0].fd < 0) {
		err = d[0].fd;
		goto out;
	}
	/* The exporters' tables, through the importer where it is loaded. */
	if (!access(BENCH_IMPORTER, F_OK) && !bench_parent(t, dev, sizeof(dev))) {
		for (k = 0; k < 2; k++) {
			att[k] = bench_importer_sg(dev, d[k].fd, &d[k].sg);
			d[k].sg_source = "importer";
			if (att[k] < 0) {
				err = att[k];
				goto out;
			}
		}
	} else {
		d[0].sg = (size + (1ull << 30) - 1) >> 30;
		d[0].sg_source = "contiguous";
		d[1].sg = bench_pagemap_runs(mfd, size, page);
		d[1].sg_source = d[1].sg < 0 ? "unknown" : "pagemap";
	}
	d[0].us = calloc(runs, sizeof(double));
	d[1].us = calloc(runs, sizeof(double));
	if (!d[0].us || !d[1].us) {
		err = -ENOMEM;
		goto out;
	}
	/* One pair each first: the first sync may set up a mapping. */
	for (k = 0; k < 2 && !err; k++)
		err = bench_sync_pairs(d[k].fd, &d[k].us[0]);
	for (i = 0; i < runs && !err; i++)
		for (k = 0; k < 2 && !err; k++)
			err = bench_sync_pairs(d[k].fd, &d[k].us[i]);
	if (!err) {
		bench_stat_of(&st, d[0].us, runs);
		for (k = 0; k < 2; k++)
			bench_emit_dmabuf(c, &d[k], size, page, runs, st.median);
	}
out:
	if (err)
		bench_emit_error(c, t->name, "dmabuf", err, strerror(-err));
	for (k = 0; k < 2; k++) {
		if (att[k] >= 0)
			close(att[k]);
		if (d[k].fd >= 0)
			close(d[k].fd);
		free(d[k].us);
	}
	close(mfd);
}
