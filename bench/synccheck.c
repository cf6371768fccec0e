// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * synccheck.c - `udmem bench`: what u-dma-buf's sync checker costs, off,
 * report and strict, on one buffer in one run.
 *
 * A correct program runs on the buffer in each mode: a fresh mapping, its
 * first touch (one write pass, one read pass), then rounds of: a sync for
 * the device and a sync for the CPU of the whole buffer (the ioctl), one
 * write pass and one read pass through the mapping.  Per mode: the sync
 * pair's time, the passes' MB/s, the minor faults (getrusage) of the first
 * touch and of each round, and the violations the driver counted (a
 * correct program has none).  On, every sync for the device takes the
 * pages out of the mapping, so each round faults every page back in: the
 * faults per MiB are the figure that holds under emulation.
 *
 * There is no build without the checker to compare with: off is measured
 * beside report and strict, and the records give on/off ratios.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench.h"
#include "bench-priv.h"

/* Faults per MiB do not depend on the size: 4 MiB keeps a full run short. */
#define BENCH_SC_MAX		(4 * BENCH_MIB)
#define BENCH_SC_MODES		3

static const char *const bench_sc_modes[BENCH_SC_MODES] = { "off", "report", "strict" };

static const char bench_sc_coherent[] =
	" (the mapping is dma_mmap_coherent()'s: mmap mode off, or auto on a coherent device)";

struct bench_sc_fig {
	struct bench_stat sync_us;
	double write_mbs;
	double read_mbs;
	double first_minflt;
	double minflt;
	double minflt_max;
	long long violations;
};

static sigjmp_buf bench_sc_jmp;
static volatile sig_atomic_t bench_sc_armed;

static void bench_sc_sigbus(int sig)
{
	if (bench_sc_armed)
		siglongjmp(bench_sc_jmp, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

static double bench_sc_median(double *v, int n)
{
	struct bench_stat st;

	bench_stat_of(&st, v, n);
	return st.median;
}

/*
 * One mode: runs fresh mappings, rounds syncs and passes each.  A SIGBUS
 * (strict mode catching what it should not) is an error, not a crash.
 */
static int bench_sc_mode(const struct bench_target *t, size_t size, uint8_t *src,
			 uint8_t *dst, int runs, int rounds, struct bench_sc_fig *fig)
{
	/* volatile: a SIGBUS in a pass comes back through siglongjmp() */
	volatile int i = 0, err = 0;
	int n = runs * rounds, r, k;
	double *sync_us = calloc(n, sizeof(double));
	double *wr = calloc(n, sizeof(double));
	double *rd = calloc(n, sizeof(double));
	double *flt = calloc(n, sizeof(double));
	double *first = calloc(runs, sizeof(double));
	double mib = (double)size / BENCH_MIB;
	long long v0 = 0, v1 = 0;
	struct bench_stat sflt;

	if (!sync_us || !wr || !rd || !flt || !first) {
		err = -ENOMEM;
		goto out;
	}
	if (bench_target_read_int(t, "ownership_violations", &v0))
		v0 = -1;
	for (r = 0; r < runs && !err; r++) {
		volatile uint8_t *map;
		double t0, t1, t2, t3;
		long f0;
		int fd = open(t->dev_path, O_RDWR | O_CLOEXEC);

		if (fd < 0) {
			err = -errno;
			break;
		}
		map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (map == MAP_FAILED) {
			err = -errno;
			close(fd);
			break;
		}
		/* a first sync pair: the sync path is warm before anything counts */
		err = bench_target_sync(t, fd, BENCH_SYNC_IOCTL, true, 0, size,
					BENCH_DIR_BIDIR);
		if (!err)
			err = bench_target_sync(t, fd, BENCH_SYNC_IOCTL, false, 0, size,
						BENCH_DIR_BIDIR);
		if (err)
			goto unmap;
		if (sigsetjmp(bench_sc_jmp, 1)) {
			bench_sc_armed = 0;
			err = -EFAULT;
			goto unmap;
		}
		bench_sc_armed = 1;
		f0 = bench_minflt();
		bench_copy((void *)map, src, size);
		bench_copy(dst, (void *)map, size);
		first[r] = bench_minflt() - f0;
		for (k = 0; k < rounds && !err; k++, i++) {
			f0 = bench_minflt();
			t0 = bench_now();
			err = bench_target_sync(t, fd, BENCH_SYNC_IOCTL, true, 0, size,
						BENCH_DIR_BIDIR);
			if (!err)
				err = bench_target_sync(t, fd, BENCH_SYNC_IOCTL, false, 0,
							size, BENCH_DIR_BIDIR);
			t1 = bench_now();
			bench_copy((void *)map, src, size);
			t2 = bench_now();
			bench_copy(dst, (void *)map, size);
			t3 = bench_now();
			flt[i] = bench_minflt() - f0;
			sync_us[i] = (t1 - t0) * 1e6;
			wr[i] = t2 > t1 ? mib / (t2 - t1) : 0;
			rd[i] = t3 > t2 ? mib / (t3 - t2) : 0;
		}
		bench_sc_armed = 0;
		if (!err && memcmp(dst, src, size))
			err = -EILSEQ;
unmap:
		munmap((void *)map, size);
		close(fd);
	}
	if (!err) {
		if (v0 < 0 || bench_target_read_int(t, "ownership_violations", &v1))
			fig->violations = -1;
		else
			fig->violations = v1 - v0;
		bench_stat_of(&fig->sync_us, sync_us, n);
		bench_stat_of(&sflt, flt, n);
		fig->minflt = sflt.median;
		fig->minflt_max = sflt.max;
		fig->write_mbs = bench_sc_median(wr, n);
		fig->read_mbs = bench_sc_median(rd, n);
		fig->first_minflt = bench_sc_median(first, runs);
	}
out:
	free(sync_us);
	free(wr);
	free(rd);
	free(flt);
	free(first);
	return err;
}

static void bench_sc_ratio(struct bench_ctx *c, const char *key, double on, double off)
{
	if (off > 0 && !isnan(on))
		bench_json_kv_f(&c->out, key, on / off);
	else
		bench_json_kv_null(&c->out, key);
}

static void bench_sc_emit(struct bench_ctx *c, const struct bench_target *t, int mode,
			  size_t size, long page, int runs, int rounds,
			  const struct bench_sc_fig *fig, const struct bench_sc_fig *off)
{
	bench_json_begin(&c->out, "synccheck");
	bench_json_kv_s(&c->out, "target", t->name);
	bench_json_kv_s(&c->out, "mode", bench_sc_modes[mode]);
	bench_json_kv_u(&c->out, "size", size);
	bench_json_kv_u(&c->out, "pages", size / page);
	bench_json_kv_i(&c->out, "runs", runs);
	bench_json_kv_i(&c->out, "rounds", rounds);
	bench_json_kv_s(&c->out, "method", bench_sync_method_name(BENCH_SYNC_IOCTL));
	bench_json_kv_s(&c->out, "clock", c->opt.icount ? "icount" : "wall");
	bench_json_kv_s(&c->out, "unit", "us");
	bench_json_kv_f(&c->out, "median", fig->sync_us.median);
	bench_json_kv_f(&c->out, "min", fig->sync_us.min);
	bench_json_kv_f(&c->out, "max", fig->sync_us.max);
	bench_json_kv_f(&c->out, "write_mbs", fig->write_mbs);
	bench_json_kv_f(&c->out, "read_mbs", fig->read_mbs);
	bench_json_kv_f(&c->out, "first_minflt", fig->first_minflt);
	bench_json_kv_f(&c->out, "minflt", fig->minflt);
	bench_json_kv_f(&c->out, "minflt_max", fig->minflt_max);
	bench_json_kv_f(&c->out, "faults_per_mib", fig->minflt * BENCH_MIB / size);
	if (fig->violations < 0)
		bench_json_kv_null(&c->out, "violations");
	else
		bench_json_kv_i(&c->out, "violations", fig->violations);
	if (off) {
		bench_sc_ratio(c, "ratio_write", fig->write_mbs, off->write_mbs);
		bench_sc_ratio(c, "ratio_read", fig->read_mbs, off->read_mbs);
		bench_sc_ratio(c, "ratio_sync", fig->sync_us.median, off->sync_us.median);
	} else {
		bench_json_kv_null(&c->out, "ratio_write");
		bench_json_kv_null(&c->out, "ratio_read");
		bench_json_kv_null(&c->out, "ratio_sync");
	}
	bench_json_end(&c->out);
}

void bench_sync_check(struct bench_ctx *c, const struct bench_target *t)
{
	long page = c->si.page_size > 0 ? c->si.page_size : 4096;
	size_t size = t->size < BENCH_SC_MAX ? t->size : BENCH_SC_MAX;
	int runs = c->opt.runs, rounds = c->opt.quick ? 2 : 4, m, err = 0;
	struct bench_sc_fig fig[BENCH_SC_MODES];
	struct sigaction sa = { .sa_handler = bench_sc_sigbus }, old;
	char saved[16], why[200];
	uint8_t *src, *dst;

	bench_progress(c, "sync checker", t->name);
	if (c->opt.size && c->opt.size < size)
		size = c->opt.size;
	if (c->opt.quick && size > BENCH_QUICK_SIZE)
		size = BENCH_QUICK_SIZE;
	size -= size % page;
	if (t->class != BENCH_UDMABUF || !t->has_ioctl || !size) {
		bench_emit_skip(c, t->name, "synccheck",
				"not a u-dma-buf buffer with the sync ioctl, of a page or more");
		return;
	}
	if (bench_target_read_str(t, "sync_check", saved, sizeof(saved))) {
		bench_emit_skip(c, t->name, "synccheck",
				"no sync checker in this u-dma-buf (no sync_check attribute)");
		return;
	}
	err = bench_target_write_str(t, "sync_check", "report");
	if (err) {
		snprintf(why, sizeof(why), "sync_check cannot be switched on: %s%s",
			 strerror(-err), err == -EOPNOTSUPP ? bench_sc_coherent : "");
		bench_emit_skip(c, t->name, "synccheck", why);
		return;
	}
	src = bench_anon_alloc(size);
	dst = bench_anon_alloc(size);
	if (!src || !dst) {
		bench_emit_error(c, t->name, "synccheck", -ENOMEM, "buffers for the passes");
		goto out;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &old);
	for (m = 0; m < BENCH_SC_MODES && !err; m++) {
		err = bench_target_write_str(t, "sync_check", bench_sc_modes[m]);
		if (err) {
			bench_emit_error(c, t->name, "synccheck", err, bench_sc_modes[m]);
			break;
		}
		err = bench_sc_mode(t, size, src, dst, runs, rounds, &fig[m]);
		if (err == -EFAULT)
			bench_emit_error(c, t->name, "synccheck", err,
					 "SIGBUS: the checker stopped a correct program");
		else if (err == -EILSEQ)
			bench_emit_error(c, t->name, "synccheck", err,
					 "read back differs from what was written");
		else if (err)
			bench_emit_error(c, t->name, "synccheck", err, bench_sc_modes[m]);
		else
			bench_sc_emit(c, t, m, size, page, runs, rounds, &fig[m],
				      m ? &fig[0] : NULL);
	}
	sigaction(SIGBUS, &old, NULL);
out:
	bench_target_write_str(t, "sync_check", saved);
	bench_anon_free(src, size);
	bench_anon_free(dst, size);
}
