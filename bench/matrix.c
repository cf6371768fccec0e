// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * matrix.c - `udmem bench`'s access matrix: mmap and read()/write(),
 * with and without syncs, cached and O_SYNC, against anonymous memory.
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

const char *bench_access_name(enum bench_access a)
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
	int anon_fd;		/* and its memfd, for read()/write() */
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

	if (p->t->class == BENCH_ANON) {
		fd = p->anon_fd;
	} else {
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
	int nfile = t->class != BENCH_ANON || c->anon_fd >= 0 ? 2 : 1;
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
					.anon_fd = c->anon_fd,
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

void bench_matrix(struct bench_ctx *c, const struct bench_target *t,
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
 * Anonymous memory behind a file, for the read()/write() columns of the
 * reference: a memfd (shmem) of the given size, its pages allocated by
 * one write of the pattern.  The device's file columns then have a like
 * for like limit, the same system calls and the kernel's same user copy
 * on ordinary memory.  -1 where the kernel or libc has no memfd.
 */
static int bench_anon_file(const void *fill, size_t size)
{
	int fd = memfd_create("udmem-bench-anon", MFD_CLOEXEC);

	if (fd < 0)
		return -1;
	if (ftruncate(fd, size) || bench_rw_all(fd, (void *)fill, size, true)) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The physical limit: the same passes on pre-faulted anonymous memory;
 * read()/write() on a memfd of the same size.
 */
int bench_anon_ref(struct bench_ctx *c, size_t size,
		   struct bench_ref *ref)
{
	struct bench_target t = { .class = BENCH_ANON, .dma_coherent = -1,
				  .sync_mode = -1 };
	void *anon = bench_anon_alloc(size);

	if (!anon)
		return -ENOMEM;
	c->anon_fd = bench_anon_file(anon, size);
	snprintf(t.name, sizeof(t.name), "anon");
	t.size = size;
	ref->size = size;
	ref->write_mbs = NAN;
	ref->read_mbs = NAN;
	bench_emit_target(c, &t, size);
	if (c->anon_fd < 0)
		bench_emit_skip(c, "anon", "file_read",
				"no memfd: no read()/write() figures for anonymous memory");
	bench_matrix(c, &t, size, anon, ref);
	if (c->anon_fd >= 0)
		close(c->anon_fd);
	c->anon_fd = -1;
	bench_touch(c, &t);
	bench_anon_free(anon, size);
	return 0;
}
