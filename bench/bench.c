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
 *
 * This file runs the targets and writes the records; matrix.c, touch.c and
 * sync-cost.c are the measurements.
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

void bench_progress(struct bench_ctx *c, const char *what,
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

void bench_emit_skip(struct bench_ctx *c, const char *target,
		     const char *test, const char *reason)
{
	bench_json_begin(&c->out, "skip");
	bench_json_kv_s(&c->out, "target", target);
	bench_json_kv_s(&c->out, "test", test);
	bench_json_kv_s(&c->out, "reason", reason);
	bench_json_end(&c->out);
	c->out.skips++;
}

void bench_emit_error(struct bench_ctx *c, const char *target,
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

void bench_emit_target(struct bench_ctx *c, const struct bench_target *t,
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

static size_t bench_test_size(const struct bench_ctx *c, uint64_t whole)
{
	uint64_t size = whole;

	if (c->opt.size && c->opt.size < size)
		size = c->opt.size;
	if (c->opt.quick && size > BENCH_QUICK_SIZE)
		size = BENCH_QUICK_SIZE;
	return size & ~63ull;
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
	      "faults; sync cost against size and method; the first buffer's DMA-BUF\n"
	      "export beside the kernel's udmabuf (memfd pages): scatterlist entries\n"
	      "and DMA_BUF_IOCTL_SYNC cost.  NAME \"anon\" runs only the anonymous-\n"
	      "memory reference.\n"
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

/* The buffer the DMA-BUF comparison exports: the first that has the ioctls. */
static const struct bench_target *bench_dmabuf_target(const struct bench_target *v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (v[i].class == BENCH_UDMABUF && v[i].has_ioctl)
			return &v[i];
	return NULL;
}

/*
 * Anonymous matrix and touch, then per target the matrix, touch and syncs,
 * then the DMA-BUF exporters.
 */
static int bench_count_steps(const struct bench_target *v, int n)
{
	return 2 + n * (BENCH_ACCESS_COUNT + 2) + !!bench_dmabuf_target(v, n);
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
	c->steps = bench_count_steps(v, n);
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
		bench_memtype(c, &v[i]);
		bench_sync_sweep(c, &v[i]);
		bench_target_restore(&v[i]);
	}
	if (bench_dmabuf_target(v, n))
		bench_dmabuf(c, bench_dmabuf_target(v, n));
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
	struct bench_ctx c = { .opt = { .runs = 0 }, .anon_fd = -1 };
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
