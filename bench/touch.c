// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * touch.c - `udmem bench`: the cost of the first touch of each page of a
 * fresh mapping.
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

/*
 * Fresh mapping, one read (or one write) per page: how many faults, how
 * long.  Writes matter on their own: a CPU without hardware dirty-bit
 * management (Cortex-A53, A9, U54) traps the first write to a clean PTE.
 */
static void bench_touch_one(struct bench_ctx *c, const struct bench_target *t,
			    bool write)
{
	size_t size = t->size < BENCH_TOUCH_SIZE ? t->size : BENCH_TOUCH_SIZE;
	long page = c->si.page_size > 0 ? c->si.page_size : 4096;
	double *us, *flt;
	struct bench_stat sus, sflt;
	int runs = c->opt.runs, r, err = 0;

	size -= size % page;
	us = calloc(runs, sizeof(*us));
	flt = calloc(runs, sizeof(*flt));
	if (!us || !flt) {
		free(us);
		free(flt);
		return;
	}
	for (r = 0; r < runs; r++) {
		volatile uint8_t *map;
		uint64_t sum = 0;
		double t0;
		long f0;
		size_t off;
		int fd = -1;

		if (t->class == BENCH_ANON) {
			map = mmap(NULL, size, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			/* 4 KiB pages, like the reference and the drivers. */
			if (map != MAP_FAILED)
				madvise((void *)map, size, MADV_NOHUGEPAGE);
		} else {
			fd = open(t->dev_path, O_RDWR | O_CLOEXEC);
			if (fd < 0) {
				err = -errno;
				break;
			}
			map = mmap(NULL, size, PROT_READ | PROT_WRITE,
				   MAP_SHARED, fd, 0);
		}
		if (map == MAP_FAILED) {
			err = -errno;
			if (fd >= 0)
				close(fd);
			break;
		}
		f0 = bench_minflt();
		t0 = bench_now();
		for (off = 0; off < size; off += page) {
			if (write)
				map[off] = (uint8_t)off;
			else
				sum += map[off];
		}
		us[r] = (bench_now() - t0) * 1e6;
		flt[r] = bench_minflt() - f0;
		munmap((void *)map, size);
		if (fd >= 0)
			close(fd);
		(void)sum;
	}
	if (err) {
		bench_emit_error(c, t->name, "touch", err, strerror(-err));
	} else {
		bench_stat_of(&sus, us, runs);
		bench_stat_of(&sflt, flt, runs);
		bench_json_begin(&c->out, "touch");
		bench_json_kv_s(&c->out, "target", t->name);
		bench_json_kv_s(&c->out, "access", write ? "write" : "read");
		bench_json_kv_u(&c->out, "size", size);
		bench_json_kv_u(&c->out, "pages", size / page);
		bench_json_kv_i(&c->out, "runs", runs);
		bench_json_kv_f(&c->out, "minflt", sflt.median);
		bench_json_kv_f(&c->out, "minflt_max", sflt.max);
		bench_json_kv_s(&c->out, "unit", "us");
		bench_json_kv_f(&c->out, "median", sus.median);
		bench_json_kv_f(&c->out, "min", sus.min);
		bench_json_kv_f(&c->out, "max", sus.max);
		bench_json_end(&c->out);
	}
	free(us);
	free(flt);
}

void bench_touch(struct bench_ctx *c, const struct bench_target *t)
{
	bench_progress(c, "first touch", t->name);
	bench_touch_one(c, t, false);
	bench_touch_one(c, t, true);
}
