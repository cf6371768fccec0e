// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * sync-cost.c - `udmem bench`: the cost of a sync against its size and method.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench.h"
#include "bench-priv.h"

/* The system calls (and driver calls) one sync of size bytes takes. */
static uint64_t bench_sync_calls(enum bench_sync_method m, uint64_t size)
{
	if (m == BENCH_SYNC_IOCTL_PAGES)
		return (size + BENCH_SYNC_PAGE - 1) / BENCH_SYNC_PAGE;
	return bench_sync_syscalls(m);
}

/*
 * Cache-maintenance operations one sync issues: lines covered + 1 barrier,
 * a barrier per call for the page-by-page method.
 */
static void bench_cache_model(const struct bench_ctx *c,
			      const struct bench_target *t, enum bench_sync_method m,
			      uint64_t off, uint64_t size, uint64_t *ops, int *barriers)
{
	uint64_t line = t->cache_line > 0 ? t->cache_line :
			c->si.cache_line > 0 ? c->si.cache_line : 64;
	uint64_t start = off & ~(line - 1);
	uint64_t end = (off + size + line - 1) & ~(line - 1);

	if (t->dma_coherent == 1) {
		*ops = 0;
		*barriers = 0;
		return;
	}
	*ops = (end - start) / line;
	*barriers = m == BENCH_SYNC_IOCTL_PAGES ? (int)bench_sync_calls(m, size) : 1;
}

static int bench_sync_point(struct bench_ctx *c, const struct bench_target *t,
			    int fd, enum bench_sync_method m, bool for_device,
			    uint64_t off, uint64_t size)
{
	enum bench_dir dir = for_device ? BENCH_DIR_TO_DEVICE :
					  BENCH_DIR_FROM_DEVICE;
	int reps = c->opt.quick ? 3 : c->opt.runs * 2 + 1;
	struct bench_counters c0, c1;
	struct bench_stat st;
	bool counted;
	uint64_t ops;
	int barriers, i, err = 0;
	double *us = calloc(reps, sizeof(*us));

	if (!us)
		return -ENOMEM;
	counted = !bench_target_counters(t, fd, &c0);
	for (i = 0; i < reps && !err; i++) {
		double t0 = bench_now();

		err = bench_target_sync(t, fd, m, for_device, off, size, dir);
		us[i] = (bench_now() - t0) * 1e6;
	}
	counted = counted && !err && !bench_target_counters(t, fd, &c1) &&
		  c1.calls - c0.calls == (uint64_t)reps *
			(m == BENCH_SYNC_IOCTL_PAGES ? bench_sync_calls(m, size) : 1);
	if (!err) {
		bench_stat_of(&st, us, reps);
		if (counted) {
			/* What the driver says it did, per call. */
			ops = (c1.lines - c0.lines) / reps;
			barriers = (c1.barriers - c0.barriers) / reps;
		} else {
			bench_cache_model(c, t, m, off, size, &ops, &barriers);
		}
		bench_json_begin(&c->out, "sync");
		bench_json_kv_s(&c->out, "target", t->name);
		bench_json_kv_s(&c->out, "method", bench_sync_method_name(m));
		bench_json_kv_s(&c->out, "direction",
				for_device ? "for_device" : "for_cpu");
		bench_json_kv_u(&c->out, "offset", off);
		bench_json_kv_u(&c->out, "size", size);
		bench_json_kv_i(&c->out, "runs", reps);
		bench_json_kv_s(&c->out, "unit", "us");
		bench_json_kv_f(&c->out, "median", st.median);
		bench_json_kv_f(&c->out, "min", st.min);
		bench_json_kv_f(&c->out, "max", st.max);
		bench_json_kv_i(&c->out, "syscalls", bench_sync_calls(m, size));
		bench_json_kv_u(&c->out, "cache_ops", ops);
		bench_json_kv_i(&c->out, "barriers", barriers);
		bench_json_kv_s(&c->out, "cache_ops_source",
				counted ? "driver" : "model");
		if (t->dma_coherent < 0)
			bench_json_kv_null(&c->out, "coherent");
		else
			bench_json_kv_b(&c->out, "coherent", t->dma_coherent);
		bench_json_end(&c->out);
	}
	free(us);
	return err;
}

/* Sync cost against size (4 KiB .. whole), per method, and a small sync deep inside. */
void bench_sync_sweep(struct bench_ctx *c, const struct bench_target *t)
{
	uint64_t size, whole = t->size & ~15ull;
	enum bench_sync_method m;
	int fd, err = 0;
	bool last = false;

	bench_progress(c, "sync cost", t->name);
	fd = open(t->dev_path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		bench_emit_error(c, t->name, "sync", -errno, strerror(errno));
		return;
	}
	for (size = BENCH_SYNC_MIN; !last && !err; size *= 4) {
		if (size >= whole) {
			size = whole;
			last = true;
		}
		for (m = 0; m < BENCH_SYNC_METHODS && !err; m++) {
			if (m == BENCH_SYNC_IOCTL && !t->has_ioctl)
				continue;
			if (m == BENCH_SYNC_SYSFS && size > 0xffffffffull)
				continue;
			if (m == BENCH_SYNC_SYSFS_ATTRS &&
			    size != BENCH_SYNC_MIN && !last)
				continue;
			/* page by page against one range: the whole buffer only */
			if (m == BENCH_SYNC_IOCTL_PAGES && (!t->has_ioctl || !last))
				continue;
			err = bench_sync_point(c, t, fd, m, false, 0, size);
			if (!err)
				err = bench_sync_point(c, t, fd, m, true, 0,
						       size);
			if (err)
				bench_emit_error(c, t->name, "sync", err,
						 bench_sync_method_name(m));
		}
	}
	/* A 4 KiB sync in the middle of the buffer: maintenance follows the range. */
	if (!err && whole >= 4 * BENCH_SYNC_MIN) {
		m = t->has_ioctl ? BENCH_SYNC_IOCTL : BENCH_SYNC_SYSFS;
		err = bench_sync_point(c, t, fd, m, false,
				       (whole / 2) & ~(BENCH_SYNC_MIN - 1),
				       BENCH_SYNC_MIN);
		if (err)
			bench_emit_error(c, t->name, "sync", err,
					 "small sync inside the buffer");
	}
	close(fd);
}
