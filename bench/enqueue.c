// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * enqueue.c - `udmem bench`: what an importer pays per block it hands to a
 * device, for a u-dma-buf export against the kernel's own udmabuf
 * (/dev/udmabuf over a sealed memfd), sizes 4 KiB to 64 MiB in one run.
 *
 * The importer is tests/kmod/udmem-dmabuf-importer.ko: both DMA-BUFs are
 * attached to the buffer's own device (non-coherent where its driver made
 * it so) and mapped once, as IIO and FunctionFS do on attach.  One
 * "enqueue" is then what a block costs on its way: the importer's
 * dma_buf_map_attachment() and dma_buf_unmap_attachment() (UDI_CYCLE: an
 * exporter that does not keep the mapping maps and syncs for the device,
 * then syncs for the CPU and unmaps), and the CPU's DMA_BUF_IOCTL_SYNC
 * start/end pair around reading the block (what libiio does per block).
 *
 * Per size and exporter: the entries of the importer's mapping, the cache
 * maintenance operations of one enqueue, each half apart, counted with
 * kprobes on the
 * architecture's per-range maintenance (arch_sync_dma_for_device and
 * arch_sync_dma_for_cpu, hit counts from tracefs' kprobe_profile), and the
 * time of one enqueue with the probes off.  The time is in instructions
 * where the caller says the machine counts them (--icount: QEMU -icount
 * shift=0, 1 us = 1000 instructions), else wall clock.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/dma-buf.h>
#include <linux/u-dma-buf-ioctl.h>

#include "bench-priv.h"
#include "../tests/kmod/udmem-dmabuf-importer.h"

#define BENCH_ENQ_MIN		4096ull
#define BENCH_ENQ_MAX		(64 * BENCH_MIB)
#define BENCH_ENQ_QUICK_MAX	BENCH_MIB
#define BENCH_ENQ_DIR		2	/* DMA_FROM_DEVICE: a capture pipeline */
#define BENCH_KP_GROUP		"udmem_bench"
#define BENCH_KP_INSTANCE	"udmem-bench"

static const char *const bench_kp_names[] = { "udmem_sync_dev", "udmem_sync_cpu" };
static const char *const bench_kp_syms[] = { "arch_sync_dma_for_device", "arch_sync_dma_for_cpu" };

struct bench_kprobes {
	char dir[64];		/* tracefs, "" when the probes are not set */
	char why[160];		/* why not */
};

static int bench_write_file(const char *path, const char *text, bool append)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | (append ? O_APPEND : O_TRUNC));
	ssize_t n;
	int err = 0;

	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	if (n < 0)
		err = -errno;
	else if ((size_t)n != strlen(text))
		err = -EIO;
	close(fd);
	return err;
}

/* tracefs, mounted at its usual place when it is not yet. */
static int bench_tracefs(char *dir, size_t len)
{
	static const char *const dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char path[128];
	size_t i;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/kprobe_events", dirs[i]);
		if (!access(path, W_OK)) {
			snprintf(dir, len, "%s", dirs[i]);
			return 0;
		}
	}
	if (mount("tracefs", dirs[0], "tracefs", 0, NULL))
		return -errno;
	snprintf(dir, len, "%s", dirs[0]);
	return access("/sys/kernel/tracing/kprobe_events", W_OK) ? -errno : 0;
}

static int bench_kp_enable(const struct bench_kprobes *kp, bool on)
{
	char path[192];

	snprintf(path, sizeof(path), "%s/instances/" BENCH_KP_INSTANCE "/events/"
		 BENCH_KP_GROUP "/enable", kp->dir);
	return bench_write_file(path, on ? "1" : "0", false);
}

static void bench_kp_remove(struct bench_kprobes *kp)
{
	char path[160], def[96];
	size_t i;

	if (!kp->dir[0])
		return;
	bench_kp_enable(kp, false);
	snprintf(path, sizeof(path), "%s/instances/" BENCH_KP_INSTANCE, kp->dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/kprobe_events", kp->dir);
	for (i = 0; i < 2; i++) {
		snprintf(def, sizeof(def), "-:" BENCH_KP_GROUP "/%s\n", bench_kp_names[i]);
		bench_write_file(path, def, true);
	}
	kp->dir[0] = '\0';
}

/*
 * The two probes, enabled in a trace instance of their own whose ring
 * buffer is off: kprobe_profile counts the hits, nothing is recorded.
 */
static void bench_kp_setup(struct bench_kprobes *kp)
{
	char path[160], def[128];
	size_t i;
	int err;

	kp->why[0] = '\0';
	err = bench_tracefs(kp->dir, sizeof(kp->dir));
	if (err) {
		snprintf(kp->why, sizeof(kp->why), "no tracefs with kprobe_events: %s",
			 strerror(-err));
		kp->dir[0] = '\0';
		return;
	}
	bench_kp_remove(kp);	/* a run that was killed may have left them */
	bench_tracefs(kp->dir, sizeof(kp->dir));
	snprintf(path, sizeof(path), "%s/kprobe_events", kp->dir);
	for (i = 0; i < 2; i++) {
		snprintf(def, sizeof(def), "p:" BENCH_KP_GROUP "/%s %s\n", bench_kp_names[i],
			 bench_kp_syms[i]);
		err = bench_write_file(path, def, true);
		if (err) {
			snprintf(kp->why, sizeof(kp->why), "kprobe on %s: %s", bench_kp_syms[i],
				 strerror(-err));
			goto fail;
		}
	}
	snprintf(path, sizeof(path), "%s/instances/" BENCH_KP_INSTANCE, kp->dir);
	if (mkdir(path, 0700) && errno != EEXIST) {
		snprintf(kp->why, sizeof(kp->why), "trace instance: %s", strerror(errno));
		goto fail;
	}
	snprintf(path, sizeof(path), "%s/instances/" BENCH_KP_INSTANCE "/tracing_on", kp->dir);
	err = bench_write_file(path, "0", false);
	if (err) {
		snprintf(kp->why, sizeof(kp->why), "tracing_on: %s", strerror(-err));
		goto fail;
	}
	return;
fail:
	bench_kp_remove(kp);
}

/* The hits of both probes so far, or -1. */
static long long bench_kp_hits(const struct bench_kprobes *kp)
{
	char path[128], line[256], name[128];
	unsigned long long hit, miss;
	long long sum = 0;
	int found = 0;
	FILE *f;
	size_t i, n, k;

	snprintf(path, sizeof(path), "%s/kprobe_profile", kp->dir);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%127s %llu %llu", name, &hit, &miss) != 3)
			continue;
		for (i = 0; i < 2; i++) {
			n = strlen(name);
			k = strlen(bench_kp_names[i]);
			if (n >= k && !strcmp(name + n - k, bench_kp_names[i]) &&
			    (n == k || name[n - k - 1] == '/')) {
				sum += (long long)(hit + miss);
				found++;
			}
		}
	}
	fclose(f);
	return found == 2 ? sum : -1;
}

struct bench_enq {
	const char *exporter;
	int fd;			/* the DMA-BUF */
	int mfd;		/* udmabuf: its memfd */
	int imp;		/* the importer's file, attached */
	struct udi_attach at;
	long long ops_map;	/* per enqueue, the importer's; -1: not counted */
	long long ops_sync;	/* per enqueue, the CPU's sync pair; -1: not counted */
	const char *ops_source;
	double *us;
};

static int bench_enq_map(int imp)
{
	struct udi_cycle cy = { .count = 1 };

	return ioctl(imp, UDI_CYCLE, &cy) ? -errno : 0;
}

/* The CPU's bracket around reading a block the device wrote. */
static int bench_enq_sync(int dmabuf)
{
	struct dma_buf_sync s = { .flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ };

	if (ioctl(dmabuf, DMA_BUF_IOCTL_SYNC, &s))
		return -errno;
	s.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ;
	return ioctl(dmabuf, DMA_BUF_IOCTL_SYNC, &s) ? -errno : 0;
}

static int bench_enq_cycle(const struct bench_enq *e)
{
	int err = bench_enq_map(e->imp);

	return err ? err : bench_enq_sync(e->fd);
}

static int bench_enq_attach(struct bench_enq *e, const char *dev)
{
	e->imp = open(BENCH_IMPORTER, O_RDWR | O_CLOEXEC);
	if (e->imp < 0)
		return -errno;
	memset(&e->at, 0, sizeof(e->at));
	e->at.fd = e->fd;
	e->at.dir = BENCH_ENQ_DIR;
	snprintf(e->at.dev, sizeof(e->at.dev), "%s", dev);
	return ioctl(e->imp, UDI_ATTACH, &e->at) ? -errno : 0;
}

/* The cache operations of one enqueue, each half counted; -1 where they cannot be. */
static int bench_enq_count(const struct bench_kprobes *kp, struct bench_enq *e)
{
	long long h[3];
	int err;

	e->ops_map = -1;
	e->ops_sync = -1;
	if (!kp->dir[0] || bench_kp_enable(kp, true))
		return 0;
	h[0] = bench_kp_hits(kp);
	err = bench_enq_map(e->imp);
	h[1] = bench_kp_hits(kp);
	if (!err)
		err = bench_enq_sync(e->fd);
	h[2] = bench_kp_hits(kp);
	bench_kp_enable(kp, false);
	if (err || h[0] < 0 || h[1] < h[0] || h[2] < h[1])
		return err;
	e->ops_map = h[1] - h[0];
	e->ops_sync = h[2] - h[1];
	return 0;
}

static void bench_enq_emit(struct bench_ctx *c, const struct bench_target *t,
			   const struct bench_enq *e, const char *dev, uint64_t size,
			   long page, int runs, double ours)
{
	struct bench_stat st;

	bench_stat_of(&st, e->us, runs);
	bench_json_begin(&c->out, "enqueue");
	bench_json_kv_s(&c->out, "target", t->name);
	bench_json_kv_s(&c->out, "exporter", e->exporter);
	bench_json_kv_u(&c->out, "size", size);
	bench_json_kv_u(&c->out, "pages", size / page);
	bench_json_kv_s(&c->out, "device", dev);
	bench_json_kv_b(&c->out, "coherent", e->at.coherent);
	bench_json_kv_i(&c->out, "sg_entries", e->at.nents);
	if (e->ops_map < 0) {
		bench_json_kv_null(&c->out, "cache_ops");
		bench_json_kv_null(&c->out, "cache_ops_map");
		bench_json_kv_null(&c->out, "cache_ops_sync");
	} else {
		bench_json_kv_i(&c->out, "cache_ops", e->ops_map + e->ops_sync);
		bench_json_kv_i(&c->out, "cache_ops_map", e->ops_map);
		bench_json_kv_i(&c->out, "cache_ops_sync", e->ops_sync);
	}
	bench_json_kv_s(&c->out, "cache_ops_source", e->ops_source);
	bench_json_kv_i(&c->out, "runs", runs);
	bench_json_kv_s(&c->out, "clock", c->opt.icount ? "icount" : "wall");
	bench_json_kv_s(&c->out, "unit", "us");
	bench_json_kv_f(&c->out, "median", st.median);
	bench_json_kv_f(&c->out, "min", st.min);
	bench_json_kv_f(&c->out, "max", st.max);
	bench_json_kv_f(&c->out, "us_per_mib", st.median * (double)BENCH_MIB / (double)size);
	if (ours > 0)
		bench_json_kv_f(&c->out, "ratio", st.median / ours);
	else
		bench_json_kv_null(&c->out, "ratio");
	bench_json_end(&c->out);
}

static void bench_enq_close(struct bench_enq *e)
{
	if (e->imp >= 0)
		close(e->imp);
	if (e->fd >= 0)
		close(e->fd);
	if (e->mfd >= 0)
		close(e->mfd);
	free(e->us);
	e->imp = -1;
	e->fd = -1;
	e->mfd = -1;
	e->us = NULL;
}

/* One size: both DMA-BUFs, attached, counted, then timed interleaved. */
static int bench_enq_size(struct bench_ctx *c, const struct bench_target *t,
			  const struct bench_kprobes *kp, const char *dev,
			  uint64_t size, long page, int runs)
{
	struct u_dma_buf_ioctl_export_args ex = { .fd = -1 };
	struct bench_enq e[2] = {
		{ .exporter = "u-dma-buf", .fd = -1, .mfd = -1, .imp = -1 },
		{ .exporter = "udmabuf", .fd = -1, .mfd = -1, .imp = -1 },
	};
	struct bench_stat st;
	char why[200];
	double t0;
	int bfd, i, k, err = 0;

	bfd = open(t->dev_path, O_RDWR | O_CLOEXEC);
	if (bfd < 0)
		return -errno;
	SET_U_DMA_BUF_IOCTL_FLAGS_EXPORT_FD_FLAGS(&ex, O_RDWR | O_CLOEXEC);
	ex.size = size;
	e[0].fd = ioctl(bfd, U_DMA_BUF_IOCTL_EXPORT, &ex) ? -errno : ex.fd;
	close(bfd);
	if (e[0].fd < 0)
		return e[0].fd;
	e[1].fd = bench_mainline_udmabuf(size, &e[1].mfd);
	if (e[1].fd < 0) {
		snprintf(why, sizeof(why), "mainline udmabuf of %" PRIu64 " bytes: %s",
			 size, strerror(-e[1].fd));
		bench_emit_skip(c, t->name, "enqueue-udmabuf", why);
		goto out;
	}
	for (k = 0; k < 2 && !err; k++) {
		err = bench_enq_attach(&e[k], dev);
		e[k].us = calloc(runs, sizeof(double));
		if (!err && !e[k].us)
			err = -ENOMEM;
	}
	/*
	 * One enqueue each first: the first may set up what later ones reuse
	 * (mainline udmabuf maps its own table at the first CPU sync).
	 */
	for (k = 0; k < 2 && !err; k++)
		err = bench_enq_cycle(&e[k]);
	for (k = 0; k < 2 && !err; k++) {
		err = bench_enq_count(kp, &e[k]);
		e[k].ops_source = "kprobe";
		if (e[k].ops_map < 0 && e[k].at.coherent) {
			/* no probe to place: nothing to maintain by construction */
			e[k].ops_map = 0;
			e[k].ops_sync = 0;
			e[k].ops_source = "coherent";
		} else if (e[k].ops_map < 0) {
			e[k].ops_source = "none";
		}
	}
	for (i = 0; i < runs && !err; i++)
		for (k = 0; k < 2 && !err; k++) {
			t0 = bench_now();
			err = bench_enq_cycle(&e[k]);
			e[k].us[i] = (bench_now() - t0) * 1e6;
		}
	if (!err) {
		bench_stat_of(&st, e[0].us, runs);
		for (k = 0; k < 2; k++)
			bench_enq_emit(c, t, &e[k], dev, size, page, runs, st.median);
	}
out:
	for (k = 0; k < 2; k++)
		bench_enq_close(&e[k]);
	return err;
}

/*
 * The sweep over the buffer t: 4 KiB (or the page, when larger) up by fours
 * to 64 MiB (--quick: by sixteens to 1 MiB), at most the buffer's size.
 */
void bench_enqueue(struct bench_ctx *c, const struct bench_target *t)
{
	uint64_t size, max = c->opt.quick ? BENCH_ENQ_QUICK_MAX : BENCH_ENQ_MAX;
	int runs = c->opt.quick ? 3 : c->opt.runs, err = 0, fd;
	long page = sysconf(_SC_PAGESIZE);
	struct bench_kprobes kp = { .dir = "" };
	char dev[UDI_DEV_NAME_MAX];

	bench_progress(c, "DMA-BUF enqueue sweep", t->name);
	if (access(BENCH_IMPORTER, F_OK)) {
		bench_emit_skip(c, t->name, "enqueue",
				"no importer to map with (tests/kmod/udmem-dmabuf-importer.ko, "
				BENCH_IMPORTER ")");
		return;
	}
	fd = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		bench_emit_skip(c, t->name, "enqueue-udmabuf",
				"no mainline udmabuf to compare with (/dev/udmabuf, CONFIG_UDMABUF)");
		return;
	}
	close(fd);
	err = bench_parent(t, dev, sizeof(dev));
	if (err) {
		bench_emit_error(c, t->name, "enqueue", err, "the buffer's device");
		return;
	}
	if (max > t->size)
		max = t->size;
	bench_kp_setup(&kp);
	if (!kp.dir[0])
		fprintf(stderr, "udmem bench: cache operations not counted: %s\n", kp.why);
	for (size = (uint64_t)page > BENCH_ENQ_MIN ? (uint64_t)page : BENCH_ENQ_MIN;
	     size <= max && !err; size *= c->opt.quick ? 16 : 4) {
		err = bench_enq_size(c, t, &kp, dev, size, page, runs);
		if (err)
			bench_emit_error(c, t->name, "enqueue", err, strerror(-err));
	}
	bench_kp_remove(&kp);
}
