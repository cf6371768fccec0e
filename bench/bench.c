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
 * This file parses the options and runs the targets in order; the
 * measurements (matrix.c, touch.c, memtype.c, sync-cost.c, synccheck.c,
 * dmabuf.c, enqueue.c) write
 * their records through emit.c, as this file does.
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
	      "and DMA_BUF_IOCTL_SYNC cost; and per enqueue (an importer's map and\n"
	      "unmap, 4 KiB to 64 MiB) its mapped entries, cache operations and time;\n"
	      "per u-dma-buf buffer, the sync checker off, report and strict: mmap\n"
	      "MB/s, sync cost and faults of a correct program.\n"
	      "NAME \"anon\" runs only the anonymous-memory reference.\n"
	      "\n"
	      "  -r, --runs N       runs per figure (median and spread), default 5\n"
	      "  -s, --size BYTES   bytes per pass (K/M/G suffixes), default the whole buffer\n"
	      "  -q, --quick        3 runs, at most 1 MiB per pass\n"
	      "      --enqueue      only the DMA-BUF enqueue sweep, on the first buffer\n"
	      "      --sync-check only the sync checker's cost (off, report, strict)\n"
	      "      --icount       time counts instructions (QEMU -icount): say so\n"
	      "      --dma CHAN     only copies through u-dma-chan channel CHAN between\n"
	      "                     the first two buffers, beside a CPU copy\n"
	      "      --dmatest FILE with --dma: dmatest's figures on the same channel,\n"
	      "                     lines of CHANNEL SIZE KB/s\n"
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
	int i, steps = 2 + n * (BENCH_ACCESS_COUNT + 2) + 2 * !!bench_dmabuf_target(v, n);

	for (i = 0; i < n; i++)
		steps += v[i].class == BENCH_UDMABUF;
	return steps;
}

/* --sync-check: the target record and the checker's three modes, per buffer. */
static int bench_run_sync_check(struct bench_ctx *c, struct bench_target *v, int n)
{
	int i, found = 0;

	c->start = bench_now();
	bench_emit_meta(c);
	for (i = 0; i < n; i++)
		c->steps += v[i].class == BENCH_UDMABUF;
	for (i = 0; i < n; i++) {
		if (v[i].class != BENCH_UDMABUF)
			continue;
		found++;
		bench_emit_target(c, &v[i], v[i].size);
		bench_sync_check(c, &v[i]);
	}
	if (!found)
		bench_emit_skip(c, "anon", "synccheck", "no u-dma-buf buffer");
	bench_emit_end(c);
	return c->out.errors ? -EIO : 0;
}

/* --enqueue: the target record and the sweep of the first buffer. */
static int bench_run_enqueue(struct bench_ctx *c, struct bench_target *v, int n)
{
	const struct bench_target *t = bench_dmabuf_target(v, n);

	c->steps = 1;
	c->start = bench_now();
	bench_emit_meta(c);
	if (t) {
		bench_emit_target(c, t, t->size);
		bench_enqueue(c, t);
	} else {
		bench_emit_skip(c, "anon", "enqueue", "no u-dma-buf buffer with the ioctls");
	}
	bench_emit_end(c);
	return c->out.errors ? -EIO : 0;
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
		if (v[i].class == BENCH_UDMABUF)
			bench_sync_check(c, &v[i]);
		bench_target_restore(&v[i]);
	}
	if (bench_dmabuf_target(v, n)) {
		bench_dmabuf(c, bench_dmabuf_target(v, n));
		bench_enqueue(c, bench_dmabuf_target(v, n));
	}
out:
	bench_emit_end(c);
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
		{ "enqueue", no_argument, NULL, 'E' },
		{ "icount", no_argument, NULL, 'I' },
		{ "sync-check", no_argument, NULL, 'S' },
		{ "dma", required_argument, NULL, 'D' },
		{ "dmatest", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bench_ctx c = { .opt = { .runs = 0 }, .anon_fd = -1 };
	struct bench_target *targets = NULL;
	const char *report = NULL, *dma = NULL, *term;
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
		case 'E':
			c.opt.enqueue_only = true;
			break;
		case 'I':
			c.opt.icount = true;
			break;
		case 'S':
			c.opt.sync_check_only = true;
			break;
		case 'D':
			dma = optarg;
			break;
		case 'T':
			c.opt.dmatest = optarg;
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
	if (dma)
		err = bench_dma_run(&c, dma, targets, n);
	else if (c.opt.sync_check_only)
		err = bench_run_sync_check(&c, targets, n);
	else if (c.opt.enqueue_only)
		err = bench_run_enqueue(&c, targets, n);
	else
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
