// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bench.c - `udmem bench`: what each way of reaching a buffer costs.
 *
 * For every u-dma-buf buffer and uiomem region (or the ones named) it runs
 * the matrix of the original u-dma-buf measurements (mmap and read/write,
 * with and without syncs, cached and O_SYNC), the same copy loop on
 * anonymous memory as the physical limit, the first-touch fault count,
 * and the cost of a sync against its size and method.  Results are JSON
 * lines (--json) or a table rendered from them.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench.h"
#include "bench-priv.h"
#include "size.h"

#define BENCH_MIB		(1024ull * 1024)
#define BENCH_TOUCH_SIZE	(32 * BENCH_MIB)
#define BENCH_QUICK_SIZE	(1 * BENCH_MIB)
#define BENCH_ANON_DEFAULT	(32 * BENCH_MIB)
#define BENCH_SYNC_MIN		4096ull

enum bench_access {
	BENCH_CACHED,		/* plain open: the driver's cached mapping */
	BENCH_CACHED_SYNC,	/* plain open plus the syncs a device needs */
	BENCH_UNCACHED,		/* O_SYNC with sync_mode 1 */
	BENCH_WC,		/* O_SYNC with sync_mode 2 */
	BENCH_ACCESS_COUNT,
};

struct bench_ctx {
	struct bench_opts opt;
	struct bench_out out;
	struct bench_sysinfo si;
	uint8_t *src;
	uint8_t *dst;
	size_t buf_size;
	int step;
	int steps;
	double start;
};

static void bench_progress(struct bench_ctx *c, const char *what,
			   const char *target)
{
	if (c->opt.quiet)
		return;
	c->step++;
	fprintf(stderr, "%sbench: [%d/%d] %.1fs %s %s%s",
		c->opt.progress_tty ? "\r\033[K" : "", c->step, c->steps,
		bench_now() - c->start, target, what,
		c->opt.progress_tty ? "" : "\n");
	fflush(stderr);
}

static void bench_emit_skip(struct bench_ctx *c, const char *target,
			    const char *test, const char *reason)
{
	bench_json_begin(&c->out, "skip");
	bench_json_kv_s(&c->out, "target", target);
	bench_json_kv_s(&c->out, "test", test);
	bench_json_kv_s(&c->out, "reason", reason);
	bench_json_end(&c->out);
	c->out.skips++;
}

static void bench_emit_error(struct bench_ctx *c, const char *target,
			     const char *test, int err, const char *what)
{
	bench_json_begin(&c->out, "error");
	bench_json_kv_s(&c->out, "target", target);
	bench_json_kv_s(&c->out, "test", test);
	bench_json_kv_i(&c->out, "errno", err < 0 ? -err : err);
	bench_json_kv_s(&c->out, "message", what);
	bench_json_end(&c->out);
	c->out.errors++;
}

static void bench_emit_meta(struct bench_ctx *c)
{
	const struct bench_sysinfo *si = &c->si;
	const char *line_src;

	bench_cache_line(&line_src);
	bench_json_begin(&c->out, "meta");
	bench_json_kv_i(&c->out, "schema", BENCH_SCHEMA_VERSION);
	bench_json_kv_s(&c->out, "tool", "udmem bench");
	bench_json_kv_s(&c->out, "time", si->time);
	bench_json_kv_s(&c->out, "kernel", si->kernel);
	bench_json_kv_s(&c->out, "arch", si->arch);
	bench_json_kv_s(&c->out, "machine", si->machine);
	bench_json_kv_s(&c->out, "cpu", si->cpu);
	bench_json_kv_i(&c->out, "cpus", si->cpus);
	bench_json_kv_b(&c->out, "emulated", si->emulated);
	bench_json_kv_s(&c->out, "emulation", si->emulation);
	bench_json_kv_i(&c->out, "page_size", si->page_size);
	bench_json_kv_i(&c->out, "cache_line", si->cache_line);
	bench_json_kv_s(&c->out, "cache_line_source", line_src);
	bench_json_kv_i(&c->out, "runs", c->opt.runs);
	bench_json_kv_b(&c->out, "quick", c->opt.quick);
	bench_json_kv_s(&c->out, "copy_loop", "16-byte vectors, 64 bytes per iteration");
	bench_json_kv_s(&c->out, "anon_pages", "4 KiB (MADV_NOHUGEPAGE)");
	bench_json_end(&c->out);
}

static void bench_emit_target(struct bench_ctx *c, const struct bench_target *t,
			      uint64_t test_size)
{
	char addr[32];

	bench_json_begin(&c->out, "target");
	bench_json_kv_s(&c->out, "target", t->name);
	bench_json_kv_s(&c->out, "class", bench_class_name(t->class));
	bench_json_kv_u(&c->out, "size", t->size);
	bench_json_kv_u(&c->out, "test_size", test_size);
	if (t->class == BENCH_ANON) {
		bench_json_kv_null(&c->out, "phys_addr");
	} else {
		snprintf(addr, sizeof(addr), "0x%" PRIx64, t->phys_addr);
		bench_json_kv_s(&c->out, "phys_addr", addr);
	}
	if (t->dma_coherent < 0)
		bench_json_kv_null(&c->out, "dma_coherent");
	else
		bench_json_kv_b(&c->out, "dma_coherent", t->dma_coherent);
	bench_json_kv_i(&c->out, "sync_mode", t->sync_mode);
	bench_json_kv_b(&c->out, "sync_ioctl", t->has_ioctl);
	bench_json_kv_s(&c->out, "driver_version", t->driver_version);
	bench_json_end(&c->out);
}

static const char *bench_access_name(enum bench_access a)
{
	static const char *const names[] = {
		[BENCH_CACHED] = "cached",
		[BENCH_CACHED_SYNC] = "cached",
		[BENCH_UNCACHED] = "uncached",
		[BENCH_WC] = "wc",
	};

	return names[a];
}

/* One timed pass: write src into the target or read it into dst. */
struct bench_pass {
	const struct bench_target *t;
	enum bench_access access;
	enum bench_sync_method method;
	bool file;		/* read()/write() rather than mmap */
	bool write;
	size_t size;
	void *anon;		/* the anonymous target's memory */
	double seconds;
	long minflt;
};

static bool bench_pass_syncs(const struct bench_pass *p)
{
	return p->access == BENCH_CACHED_SYNC && p->t->class != BENCH_ANON;
}

static int bench_rw_all(int fd, uint8_t *buf, size_t size, bool write)
{
	size_t done = 0;

	while (done < size) {
		ssize_t n = write ? pwrite(fd, buf + done, size - done, done) :
				    pread(fd, buf + done, size - done, done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		done += n;
	}
	return 0;
}

static int bench_pass_run(struct bench_ctx *c, struct bench_pass *p)
{
	enum bench_dir dir = p->write ? BENCH_DIR_TO_DEVICE :
					BENCH_DIR_FROM_DEVICE;
	bool o_sync = p->access == BENCH_UNCACHED || p->access == BENCH_WC;
	bool syncs = bench_pass_syncs(p);
	void *map = p->anon;
	double t0, t1;
	long f0, f1;
	int fd = -1, err = 0;

	if (p->t->class != BENCH_ANON) {
		fd = open(p->t->dev_path,
			  O_RDWR | O_CLOEXEC | (o_sync ? O_SYNC : 0));
		if (fd < 0)
			return -errno;
		if (!p->file) {
			map = mmap(NULL, p->size, PROT_READ | PROT_WRITE,
				   MAP_SHARED, fd, 0);
			if (map == MAP_FAILED) {
				err = -errno;
				close(fd);
				return err;
			}
		}
	}
	f0 = bench_minflt();
	t0 = bench_now();
	if (syncs)
		err = bench_target_sync(p->t, fd, p->method, false, 0,
					p->size, dir);
	if (!err && p->file)
		err = bench_rw_all(fd, p->write ? c->src : c->dst, p->size,
				   p->write);
	else if (!err && p->write)
		bench_copy(map, c->src, p->size);
	else if (!err)
		bench_copy(c->dst, map, p->size);
	if (!err && syncs)
		err = bench_target_sync(p->t, fd, p->method, true, 0,
					p->size, dir);
	t1 = bench_now();
	f1 = bench_minflt();
	p->seconds = t1 - t0;
	p->minflt = f1 - f0;
	if (p->t->class != BENCH_ANON) {
		if (!p->file)
			munmap(map, p->size);
		close(fd);
	}
	return err;
}

struct bench_ref {
	uint64_t size;
	double write_mbs;
	double read_mbs;
};

static const char *const bench_test_names[2][2] = {
	{ "mmap_read", "mmap_write" },
	{ "file_read", "file_write" },
};

static void bench_emit_bw(struct bench_ctx *c, const struct bench_pass *p,
			  const char *sync, double *mbs, double *flt, int n,
			  int mismatches, const struct bench_ref *ref)
{
	struct bench_stat st, fst;
	double limit;

	bench_stat_of(&st, mbs, n);
	bench_stat_of(&fst, flt, n);
	limit = ref ? (p->write ? ref->write_mbs : ref->read_mbs) : NAN;
	bench_json_begin(&c->out, "bw");
	bench_json_kv_s(&c->out, "target", p->t->name);
	bench_json_kv_s(&c->out, "test", bench_test_names[p->file][p->write]);
	bench_json_kv_s(&c->out, "access", bench_access_name(p->access));
	bench_json_kv_s(&c->out, "sync", sync);
	bench_json_kv_u(&c->out, "size", p->size);
	bench_json_kv_i(&c->out, "runs", st.runs);
	bench_json_kv_s(&c->out, "unit", "MB/s");
	bench_json_kv_f(&c->out, "median", st.median);
	bench_json_kv_f(&c->out, "min", st.min);
	bench_json_kv_f(&c->out, "max", st.max);
	bench_json_kv_f(&c->out, "spread",
			st.median > 0 ? (st.max - st.min) / st.median : NAN);
	bench_json_kv_f(&c->out, "ratio",
			limit > 0 ? st.median / limit : NAN);
	bench_json_kv_f(&c->out, "minflt", fst.median);
	bench_json_kv_b(&c->out, "verified", mismatches == 0);
	bench_json_end(&c->out);
	if (mismatches)
		bench_emit_error(c, p->t->name,
				 bench_test_names[p->file][p->write], EIO,
				 "data read back differs from data written");
}

/*
 * The write pass then the read pass, run after run, checking each read
 * against what was written; the write and read figures of each path
 * (mmap, file) become one record each.
 */
static int bench_matrix_one(struct bench_ctx *c, const struct bench_target *t,
			    enum bench_access access, size_t size, void *anon,
			    struct bench_ref *ref)
{
	enum bench_sync_method method = t->has_ioctl ? BENCH_SYNC_IOCTL :
						       BENCH_SYNC_SYSFS;
	int nfile = t->class == BENCH_ANON ? 1 : 2;
	int runs = c->opt.runs, f, w, r, err = 0;
	double *mbs[2][2], *flt[2][2];
	int bad[2] = { 0, 0 };
	const char *sync;

	if (access == BENCH_CACHED_SYNC)
		sync = t->class == BENCH_ANON ? "none" :
		       bench_sync_method_name(method);
	else if (access == BENCH_CACHED)
		sync = "none";
	else
		sync = "o_sync";
	for (f = 0; f < 2; f++)
		for (w = 0; w < 2; w++) {
			mbs[f][w] = calloc(runs, sizeof(double));
			flt[f][w] = calloc(runs, sizeof(double));
		}
	for (f = 0; f < 2; f++)
		for (w = 0; w < 2; w++)
			if (!mbs[f][w] || !flt[f][w])
				err = -ENOMEM;
	for (r = 0; r < runs && !err; r++) {
		for (f = 0; f < nfile && !err; f++) {
			for (w = 1; w >= 0 && !err; w--) {
				struct bench_pass p = {
					.t = t, .access = access,
					.method = method, .file = f,
					.write = w, .size = size, .anon = anon,
				};

				if (w)
					bench_fill(c->src, size, r * 2 + f + 1);
				else
					memset(c->dst, 0xee, size);
				err = bench_pass_run(c, &p);
				if (err) {
					bench_emit_error(c, t->name,
							 bench_test_names[f][w],
							 err, strerror(-err));
					break;
				}
				mbs[f][w][r] = p.seconds > 0 ?
					size / p.seconds / 1e6 : NAN;
				flt[f][w][r] = p.minflt;
				if (!w && memcmp(c->src, c->dst, size))
					bad[f]++;
			}
		}
	}
	if (!err && t->class == BENCH_ANON && ref) {
		struct bench_stat st;

		/* The reference is its own limit: its ratios are 1. */
		bench_stat_of(&st, mbs[0][1], runs);
		ref->write_mbs = st.median;
		bench_stat_of(&st, mbs[0][0], runs);
		ref->read_mbs = st.median;
	}
	for (f = 0; f < nfile && !err; f++)
		for (w = 1; w >= 0; w--) {
			struct bench_pass p = {
				.t = t, .access = access, .file = f,
				.write = w, .size = size,
			};

			bench_emit_bw(c, &p, sync, mbs[f][w], flt[f][w], runs,
				      w ? 0 : bad[f], ref);
		}
	for (f = 0; f < 2; f++)
		for (w = 0; w < 2; w++) {
			free(mbs[f][w]);
			free(flt[f][w]);
		}
	return err;
}

static void bench_matrix(struct bench_ctx *c, const struct bench_target *t,
			 size_t size, void *anon, struct bench_ref *ref)
{
	enum bench_access a;

	for (a = 0; a < BENCH_ACCESS_COUNT; a++) {
		char what[64];
		int mode = a == BENCH_UNCACHED ? 1 : 2;

		if (t->class == BENCH_ANON && a != BENCH_CACHED)
			continue;
		if (t->no_cached && (a == BENCH_CACHED || a == BENCH_CACHED_SYNC)) {
			bench_emit_skip(c, t->name, bench_access_name(a),
					"the CPU has no cache maintenance: no cached mapping");
			continue;
		}
		snprintf(what, sizeof(what), "matrix %s%s",
			 bench_access_name(a),
			 a == BENCH_CACHED_SYNC ? "+sync" : "");
		bench_progress(c, what, t->name);
		if ((a == BENCH_UNCACHED || a == BENCH_WC) &&
		    bench_target_set_sync_mode(t, mode)) {
			char why[96];

			snprintf(why, sizeof(why),
				 "cannot set sync_mode %d: %s", mode,
				 strerror(errno));
			bench_emit_skip(c, t->name, bench_access_name(a), why);
			continue;
		}
		bench_matrix_one(c, t, a, size, anon, ref);
		if (t->sync_mode >= 0)
			bench_target_set_sync_mode(t, t->sync_mode);
	}
}

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

static void bench_touch(struct bench_ctx *c, const struct bench_target *t)
{
	bench_progress(c, "first touch", t->name);
	bench_touch_one(c, t, false);
	bench_touch_one(c, t, true);
}

/* Cache-maintenance operations one sync issues: lines covered + 1 barrier. */
static void bench_cache_model(const struct bench_ctx *c,
			      const struct bench_target *t, uint64_t off,
			      uint64_t size, uint64_t *ops, int *barriers)
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
	*barriers = 1;
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
		  c1.calls - c0.calls == (uint64_t)reps;
	if (!err) {
		bench_stat_of(&st, us, reps);
		if (counted) {
			/* What the driver says it did, per call. */
			ops = (c1.lines - c0.lines) / reps;
			barriers = (c1.barriers - c0.barriers) / reps;
		} else {
			bench_cache_model(c, t, off, size, &ops, &barriers);
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
		bench_json_kv_i(&c->out, "syscalls", bench_sync_syscalls(m));
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
static void bench_sync_sweep(struct bench_ctx *c, const struct bench_target *t)
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

static size_t bench_test_size(const struct bench_ctx *c, uint64_t whole)
{
	uint64_t size = whole;

	if (c->opt.size && c->opt.size < size)
		size = c->opt.size;
	if (c->opt.quick && size > BENCH_QUICK_SIZE)
		size = BENCH_QUICK_SIZE;
	return size & ~63ull;
}

/* The physical limit: the same passes on pre-faulted anonymous memory. */
static int bench_anon_ref(struct bench_ctx *c, size_t size,
			  struct bench_ref *ref)
{
	struct bench_target t = { .class = BENCH_ANON, .dma_coherent = -1,
				  .sync_mode = -1 };
	void *anon = bench_anon_alloc(size);

	if (!anon)
		return -ENOMEM;
	snprintf(t.name, sizeof(t.name), "anon");
	t.size = size;
	ref->size = size;
	ref->write_mbs = NAN;
	ref->read_mbs = NAN;
	bench_emit_target(c, &t, size);
	bench_matrix(c, &t, size, anon, ref);
	bench_touch(c, &t);
	bench_anon_free(anon, size);
	return 0;
}

static void bench_usage(FILE *f)
{
	fputs("usage: udmem bench [options] [NAME...]\n"
	      "       udmem bench --compare A.json B.json\n"
	      "       udmem bench --report RUN.json\n"
	      "\n"
	      "Measures every /sys/class/u-dma-buf and /sys/class/uiomem device (or\n"
	      "the NAMEs) beside anonymous memory: mmap and read()/write() with and\n"
	      "without syncs, cached, uncached and write-combine; first-touch page\n"
	      "faults; sync cost against size and method.  NAME \"anon\" runs only\n"
	      "the anonymous-memory reference.\n"
	      "\n"
	      "  -r, --runs N       runs per figure (median and spread), default 5\n"
	      "  -s, --size BYTES   bytes per pass (K/M/G suffixes), default the whole buffer\n"
	      "  -q, --quick        3 runs, at most 1 MiB per pass\n"
	      "  -j, --json         JSON lines on stdout instead of the table\n"
	      "      --quiet        no progress lines on stderr\n"
	      "      --report FILE  print the table of a recorded --json run\n"
	      "      --compare A B  ratios B/A between two recorded --json runs\n"
	      "  -h, --help         this text\n", f);
}

static int bench_report(const char *path)
{
	struct bench_run run;
	int err = bench_run_load(&run, path);

	if (err) {
		fprintf(stderr, "udmem bench: %s: %s\n", path, strerror(-err));
		return 1;
	}
	bench_table_print(stdout, &run);
	bench_run_free(&run);
	return 0;
}

/* Anonymous matrix and touch, then per target the matrix, touch and syncs. */
static int bench_count_steps(int n)
{
	return 2 + n * (BENCH_ACCESS_COUNT + 2);
}

static int bench_run_all(struct bench_ctx *c, struct bench_target *v, int n)
{
	struct bench_ref *refs;
	size_t max = 0, anon_size;
	int i, j, nref = 0, err = 0;

	for (i = 0; i < n; i++)
		if (bench_test_size(c, v[i].size) > max)
			max = bench_test_size(c, v[i].size);
	anon_size = bench_test_size(c, c->opt.size ? c->opt.size :
					BENCH_ANON_DEFAULT);
	if (anon_size > max)
		max = anon_size;
	c->buf_size = max;
	c->src = bench_anon_alloc(max);
	c->dst = bench_anon_alloc(max);
	refs = calloc(n + 1, sizeof(*refs));
	if (!c->src || !c->dst || !refs) {
		fprintf(stderr, "udmem bench: cannot allocate %zu bytes\n", max);
		err = -ENOMEM;
		goto out;
	}
	c->steps = bench_count_steps(n);
	c->start = bench_now();
	bench_emit_meta(c);
	/* One reference per distinct pass size; without targets, one of 32 MiB. */
	for (i = 0; i <= n; i++) {
		size_t size = i < n ? bench_test_size(c, v[i].size) :
			      anon_size;

		if (i == n && n)
			break;
		for (j = 0; j < nref; j++)
			if (refs[j].size == size)
				break;
		if (j < nref || !size)
			continue;
		err = bench_anon_ref(c, size, &refs[nref]);
		if (err) {
			bench_emit_error(c, "anon", "reference", err,
					 strerror(-err));
			goto out;
		}
		nref++;
	}
	for (i = 0; i < n; i++) {
		size_t size = bench_test_size(c, v[i].size);
		struct bench_ref *ref = NULL;

		for (j = 0; j < nref; j++)
			if (refs[j].size == size)
				ref = &refs[j];
		bench_emit_target(c, &v[i], size);
		if (!size) {
			bench_emit_skip(c, v[i].name, "all",
					"buffer smaller than 64 bytes");
			continue;
		}
		bench_matrix(c, &v[i], size, NULL, ref);
		bench_touch(c, &v[i]);
		bench_sync_sweep(c, &v[i]);
		bench_target_restore(&v[i]);
	}
out:
	bench_json_begin(&c->out, "end");
	bench_json_kv_i(&c->out, "records", c->out.records);
	bench_json_kv_i(&c->out, "errors", c->out.errors);
	bench_json_kv_i(&c->out, "skips", c->out.skips);
	bench_json_kv_f(&c->out, "seconds", bench_now() - c->start);
	bench_json_end(&c->out);
	if (!c->opt.quiet && c->opt.progress_tty)
		fputs("\r\033[K", stderr);
	bench_anon_free(c->src, max);
	bench_anon_free(c->dst, max);
	free(refs);
	return err ? err : (c->out.errors ? -EIO : 0);
}

int udmem_bench_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "runs", required_argument, NULL, 'r' },
		{ "size", required_argument, NULL, 's' },
		{ "quick", no_argument, NULL, 'q' },
		{ "json", no_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'Q' },
		{ "report", required_argument, NULL, 'R' },
		{ "compare", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bench_ctx c = { .opt = { .runs = 0 } };
	struct bench_target *targets = NULL;
	const char *report = NULL, *term;
	bool compare = false;
	char *buf = NULL;
	size_t len = 0;
	uint64_t size;
	int opt, n = 0, err;

	optind = 0;
	while ((opt = getopt_long(argc, argv, "r:s:qjh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'r':
			c.opt.runs = atoi(optarg);
			if (c.opt.runs < 1 || c.opt.runs > 1000) {
				fprintf(stderr, "udmem bench: --runs wants 1..1000\n");
				return 2;
			}
			break;
		case 's':
			err = udmem_parse_size(optarg, &size);
			if (err || size < 64 || size > SIZE_MAX) {
				fprintf(stderr, "udmem bench: bad --size %s: %s\n",
					optarg, err ? strerror(-err) :
					"wants 64 bytes or more, within the address space");
				return 2;
			}
			c.opt.size = size;
			break;
		case 'q':
			c.opt.quick = true;
			break;
		case 'j':
			c.opt.json = true;
			break;
		case 'Q':
			c.opt.quiet = true;
			break;
		case 'R':
			report = optarg;
			break;
		case 'C':
			compare = true;
			break;
		case 'h':
			bench_usage(stdout);
			return 0;
		default:
			bench_usage(stderr);
			return 2;
		}
	}
	if (report)
		return bench_report(report);
	if (compare) {
		if (argc - optind != 2) {
			bench_usage(stderr);
			return 2;
		}
		return bench_compare(stdout, argv[optind], argv[optind + 1]) ?
		       1 : 0;
	}
	if (!c.opt.runs)
		c.opt.runs = c.opt.quick ? 3 : 5;
	/* Rewrite one line on a terminal; a console log gets one line per step. */
	term = getenv("TERM");
	c.opt.progress_tty = isatty(STDERR_FILENO) && term && *term &&
			     strcmp(term, "dumb") && strcmp(term, "linux");
	err = bench_target_open_all(&targets, &n, argv + optind,
				    argc - optind);
	if (err)
		return 1;
	bench_sysinfo_get(&c.si);
	if (c.opt.json) {
		c.out.f = stdout;
	} else {
		c.out.f = open_memstream(&buf, &len);
		if (!c.out.f) {
			free(targets);
			return 1;
		}
	}
	err = bench_run_all(&c, targets, n);
	if (!c.opt.json) {
		struct bench_run run;

		fclose(c.out.f);
		if (!bench_run_load_mem(&run, buf)) {
			bench_table_print(stdout, &run);
			bench_run_free(&run);
		}
		free(buf);
	}
	free(targets);
	return err ? 1 : 0;
}
