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
 * The driver's count of the entries it put into user mappings (u-dma-buf's
 * mmap_pmd_entries, mmap_pte_entries), or -1 where it has none.
 */
static long long bench_touch_entries(const struct bench_target *t, const char *attr)
{
	long long v;

	if (t->class == BENCH_ANON || bench_target_read_int(t, attr, &v))
		return -1;
	return v;
}

/* One count into the record: the difference, or null where there is none. */
static void bench_touch_kv_entries(struct bench_ctx *c, const char *key, long long before,
				   long long after)
{
	if (before < 0 || after < 0)
		bench_json_kv_null(&c->out, key);
	else
		bench_json_kv_i(&c->out, key, after - before);
}

/*
 * Fresh mapping, one read (or one write) per page: how many faults, how
 * long, and (u-dma-buf) how many PMD and PTE entries the driver put in for
 * it, from the last run.  Writes matter on their own: a CPU without hardware dirty-bit
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
	long long pmd0 = -1, pmd1 = -1, pte0 = -1, pte1 = -1;

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
		pmd0 = bench_touch_entries(t, "mmap_pmd_entries");
		pte0 = bench_touch_entries(t, "mmap_pte_entries");
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
		pmd1 = bench_touch_entries(t, "mmap_pmd_entries");
		pte1 = bench_touch_entries(t, "mmap_pte_entries");
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
		bench_touch_kv_entries(c, "pmd_entries", pmd0, pmd1);
		bench_touch_kv_entries(c, "pte_entries", pte0, pte1);
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
