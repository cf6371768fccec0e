// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * table.c - the human views of a run: the seed-000-style table, and the
 * ratios between two runs (--compare).
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "bench-priv.h"

/* Table titles and notes: whole lines, kept whole so they can be grepped. */
static const char bench_title_bw[] =
	"\nThroughput in MB/s, median of the runs (ratio to anonymous memory of the same size)\n";
static const char bench_title_ratio[] =
	"\nmmap against read()/write() (>= 1.00: the mapping is at least as fast), and\n"
	"read()/write() against the same calls on anonymous memory of the same size\n"
	"(a memfd; the kernel's same user copy, so 1.00 = the driver adds nothing)\n";
static const char bench_title_touch[] =
	"\nFirst touch of a fresh mapping, one access per page (faults = getrusage minor faults;\n"
	"PMD/PTE entries = the 2 MiB and 4 KiB entries u-dma-buf put in, - where not reported)\n";
static const char bench_title_dmabuf[] =
	"\nDMA-BUF exporters, same size, same run: DMA_BUF_IOCTL_SYNC start+end over the whole\n"
	"DMA-BUF, median us (ratio to the u-dma-buf export); sg entries of the exporter's table\n"
	"(importer: counted through the test importer; contiguous: one per GiB by construction;\n"
	"pagemap: contiguous runs of the memfd's pages, a lower bound)\n";
static const char bench_title_enqueue[] =
	"\nDMA-BUF per enqueue, one block on its way: the importer's map and unmap (attached to\n"
	"the buffer's own device, as IIO and FunctionFS attach) and the CPU's DMA_BUF_IOCTL_SYNC\n"
	"start+end around reading it; sg = entries of the importer's mapping; cache ops of one\n"
	"enqueue = map + sync (kprobe: counted hits of arch_sync_dma_for_device/_for_cpu;\n"
	"coherent: none to do); time of one enqueue, and per MiB of the block\n";
static const char bench_title_dma[] =
	"\nDMA channel copies (u-dma-chan) beside the kernel's dmatest on the same channel and a\n"
	"CPU copy of the same size: in flight = transfers per SUBMIT (2 system calls per batch);\n"
	"submit, complete = us per transfer (the SUBMIT ioctl; SUBMIT to WAIT's return);\n"
	"KiB/s = bytes moved over SUBMIT to WAIT's return; dmatest = its summary's KB/s (one\n"
	"transfer at a time, no user space); ratio = u-dma-chan / dmatest (- without dmatest);\n"
	"cpu/dma = CPU copy time over the engine's per transfer.  Under emulation the engine's\n"
	"time is the emulator's: read the counts and ratios\n";
static const char bench_title_synccheck[] =
	"\nThe sync checker, off beside report and strict, one buffer, one run, a correct program\n"
	"(rounds of: sync for the device + sync for the CPU (ioctl), one write and one read pass\n"
	"through a fresh mapping); sync = us per pair; faults = minor faults per round (first =\n"
	"the first touch); ratios = this mode / off (there is no build without the checker to\n"
	"compare off with: off adds one flag test per sync, read()/write(), CPU-access bracket\n"
	"and mmap()); viol = ownership_violations counted (0 for a correct program)\n";
static const char bench_note_icount[] =
	"time: instruction-counted (QEMU -icount shift=0: 1 us = 1000 guest instructions)\n";
static const char bench_note_wall[] =
	"time: not instruction-counted (wall clock)\n";
static const char bench_note_emulated[] =
	"EMULATED: this machine runs under QEMU without a cache model, so absolute MB/s\n"
	"mean nothing here, nor do cached/uncached/write-combine differences (TCG ignores\n"
	"memory types).  What carries over to hardware: the ratios to anonymous memory\n"
	"(software overheads: faults, syscalls, syncs), the fault counts, and the syscalls\n"
	"and cache operations per sync.\n";

static const char *const bench_tests[] = {
	"mmap_write", "mmap_read", "file_write", "file_read",
};

static const char *bench_size_str(uint64_t size, char *buf, size_t len)
{
	if (size >= 1024 * 1024 && size % (1024 * 1024) == 0)
		snprintf(buf, len, "%llu MiB", (unsigned long long)(size >> 20));
	else if (size >= 1024 && size % 1024 == 0)
		snprintf(buf, len, "%llu KiB", (unsigned long long)(size >> 10));
	else
		snprintf(buf, len, "%llu B", (unsigned long long)size);
	return buf;
}

/* A bw record; size 0 matches any (the anonymous reference has one per size). */
static const struct bench_rec *bench_find_bw(const struct bench_run *run,
					     const char *target, uint64_t size,
					     const char *test,
					     const char *access,
					     const char *sync)
{
	int i;

	for (i = 0; i < run->count; i++) {
		const struct bench_rec *r = &run->recs[i];

		if (!strcmp(r->type, "bw") && !strcmp(r->target, target) &&
		    (!size || r->size == size) &&
		    !strcmp(r->test, test) && !strcmp(r->access, access) &&
		    !strcmp(r->sync, sync))
			return r;
	}
	return NULL;
}

static void bench_cell(FILE *f, const struct bench_rec *r)
{
	char cell[32];

	if (!r)
		snprintf(cell, sizeof(cell), "-");
	else if (isnan(r->ratio))
		snprintf(cell, sizeof(cell), "%.1f", r->median);
	else
		snprintf(cell, sizeof(cell), "%.1f (%.2f)", r->median, r->ratio);
	fprintf(f, " %-16s", cell);
}

/* The (access, sync) rows a target has, in the order they were measured. */
static int bench_rows(const struct bench_run *run, const char *target,
		      uint64_t size, const struct bench_rec **rows, int max)
{
	int i, j, n = 0;

	for (i = 0; i < run->count && n < max; i++) {
		const struct bench_rec *r = &run->recs[i];

		if (strcmp(r->type, "bw") || strcmp(r->target, target) ||
		    r->size != size)
			continue;
		for (j = 0; j < n; j++)
			if (!strcmp(rows[j]->access, r->access) &&
			    !strcmp(rows[j]->sync, r->sync))
				break;
		if (j == n)
			rows[n++] = r;
	}
	return n;
}

static void bench_table_bw(FILE *f, const struct bench_run *run)
{
	char size[32];
	int i, k, t;

	fputs(bench_title_bw, f);
	fprintf(f, "%-22s %-8s %-9s %-11s", "target", "size", "access", "sync");
	for (t = 0; t < 4; t++)
		fprintf(f, " %-16s", bench_tests[t]);
	fputc('\n', f);
	for (i = 0; i < run->count; i++) {
		const struct bench_rec *tg = &run->recs[i];
		const struct bench_rec *rows[16];
		int n;

		if (strcmp(tg->type, "target"))
			continue;
		n = bench_rows(run, tg->target, tg->test_size, rows, 16);
		for (k = 0; k < n; k++) {
			fprintf(f, "%-22s %-8s %-9s %-11s",
				k ? "" : tg->target,
				k ? "" : bench_size_str(rows[k]->size, size,
							 sizeof(size)),
				rows[k]->access, rows[k]->sync);
			for (t = 0; t < 4; t++)
				bench_cell(f, bench_find_bw(run, tg->target,
							    tg->test_size,
							    bench_tests[t],
							    rows[k]->access,
							    rows[k]->sync));
			fputc('\n', f);
		}
	}
}

/* The file figure over anonymous memory's (memfd) for the same call, else NAN. */
static double bench_file_vs_anon(const struct bench_run *run,
				 const struct bench_rec *r)
{
	const struct bench_rec *a;

	a = bench_find_bw(run, "anon", r->size, r->test, "cached", "none");
	return a && a->median > 0 ? r->median / a->median : NAN;
}

/* Seed 000's puzzle: was read()/write() faster than the mapping? */
static void bench_table_mmap_vs_file(FILE *f, const struct bench_run *run)
{
	char name[80], size[32];
	bool header = false;
	int i;

	for (i = 0; i < run->count; i++) {
		const struct bench_rec *r = &run->recs[i], *fw, *mr, *fr;

		if (strcmp(r->type, "bw") || strcmp(r->test, "mmap_write"))
			continue;
		fw = bench_find_bw(run, r->target, r->size, "file_write",
				   r->access, r->sync);
		mr = bench_find_bw(run, r->target, r->size, "mmap_read",
				   r->access, r->sync);
		fr = bench_find_bw(run, r->target, r->size, "file_read",
				   r->access, r->sync);
		if (!fw || !mr || !fr)
			continue;
		if (!header) {
			fputs(bench_title_ratio, f);
			fprintf(f, "%-22s %-9s %-11s %-17s %-17s %-17s %s\n", "target",
				"access", "sync", "mmap/file write", "mmap/file read",
				"file/anon write", "file/anon read");
			header = true;
		}
		/* The reference has one row per size: say which. */
		if (!strcmp(r->target, "anon"))
			snprintf(name, sizeof(name), "anon %s",
				 bench_size_str(r->size, size, sizeof(size)));
		else
			snprintf(name, sizeof(name), "%s", r->target);
		fprintf(f, "%-22s %-9s %-11s %-17.2f %-17.2f %-17.2f %.2f\n",
			name, r->access, r->sync, r->median / fw->median,
			mr->median / fr->median, bench_file_vs_anon(run, fw),
			bench_file_vs_anon(run, fr));
	}
}

static void bench_table_touch(FILE *f, const struct bench_run *run)
{
	char size[32];
	int i;

	fputs(bench_title_touch, f);
	fprintf(f, "%-22s %-8s %-7s %-8s %-10s %-12s %s\n", "target", "size", "access",
		"pages", "faults", "time us", "PMD/PTE entries");
	for (i = 0; i < run->count; i++) {
		const struct bench_rec *r = &run->recs[i];
		char ent[48] = "-";

		if (strcmp(r->type, "touch"))
			continue;
		if (!isnan(r->pmd_entries))
			snprintf(ent, sizeof(ent), "%.0f/%.0f", r->pmd_entries, r->pte_entries);
		else if (!isnan(r->pte_entries))
			snprintf(ent, sizeof(ent), "-/%.0f", r->pte_entries);
		fprintf(f, "%-22s %-8s %-7s %-8llu %-10.0f %-12.0f %s\n", r->target,
			bench_size_str(r->size, size, sizeof(size)), r->access,
			(unsigned long long)(r->size / 4096), r->minflt,
			r->median, ent);
	}
}

static const struct bench_rec *bench_find_sync(const struct bench_run *run,
					       const struct bench_rec *like,
					       const char *direction)
{
	int i;

	for (i = 0; i < run->count; i++) {
		const struct bench_rec *r = &run->recs[i];

		if (!strcmp(r->type, "sync") && !strcmp(r->target, like->target) &&
		    !strcmp(r->method, like->method) &&
		    !strcmp(r->direction, direction) &&
		    r->size == like->size && r->offset == like->offset)
			return r;
	}
	return NULL;
}

static void bench_table_sync(FILE *f, const struct bench_run *run)
{
	char size[32], off[32];
	int i;

	fprintf(f, "\nSync cost, median us per call; "
		"cache ops = lines maintained + barriers per call,\n"
		"counted by the driver, or modelled (range / line size, none when coherent);\n"
		"syscalls = system calls per call, counted by construction of the method, not measured\n");
	fprintf(f, "%-22s %-12s %-10s %-10s %-12s %-12s %-9s %-12s\n", "target",
		"method", "offset", "size", "for_cpu us", "for_dev us",
		"syscalls", "cache ops");
	for (i = 0; i < run->count; i++) {
		const struct bench_rec *r = &run->recs[i], *d;

		if (strcmp(r->type, "sync") || strcmp(r->direction, "for_cpu"))
			continue;
		d = bench_find_sync(run, r, "for_device");
		snprintf(off, sizeof(off), "0x%llx", (unsigned long long)r->offset);
		fprintf(f, "%-22s %-12s %-10s %-10s %-12.1f ", r->target,
			r->method, off,
			bench_size_str(r->size, size, sizeof(size)), r->median);
		if (d)
			fprintf(f, "%-12.1f", d->median);
		else
			fprintf(f, "%-12s", "-");
		fprintf(f, " %-9.0f %.0f+%.0f (%s)\n", r->syscalls, r->cache_ops,
			r->barriers, r->ops_source);
	}
}

static const char bench_title_memtype[] =
	"\nMemory types (read from the page tables by tests/kmod/udmem-memtype.ko:\n"
	"kernel = the driver's own mapping, for buffers the manager made)\n";

/* One line per target: the type of each of its mappings. */
static void bench_table_memtype(FILE *f, const struct bench_run *run)
{
	static const char *const mappings[] = { "cached", "uncached", "wc", "kernel" };
	const char *seen[4];
	int i, j, k, n = 0;

	for (i = 0; i < run->count; i++) {
		const struct bench_rec *r = &run->recs[i];

		if (strcmp(r->type, "memtype"))
			continue;
		/* the first record of a target prints its line */
		for (j = 0; j < i; j++)
			if (!strcmp(run->recs[j].type, "memtype") &&
			    !strcmp(run->recs[j].target, r->target))
				break;
		if (j < i)
			continue;
		if (!n++) {
			fputs(bench_title_memtype, f);
			fprintf(f, "%-22s %-14s %-14s %-14s %s\n", "target", "cached",
				"uncached", "wc", "kernel");
		}
		for (k = 0; k < 4; k++)
			seen[k] = "-";
		for (j = i; j < run->count; j++) {
			const struct bench_rec *m = &run->recs[j];

			if (strcmp(m->type, "memtype") || strcmp(m->target, r->target))
				continue;
			for (k = 0; k < 4; k++)
				if (!strcmp(m->mapping, mappings[k]))
					seen[k] = m->memtype;
		}
		fprintf(f, "%-22s %-14s %-14s %-14s %s\n", r->target, seen[0], seen[1],
			seen[2], seen[3]);
	}
}

static void bench_table_dmabuf(FILE *f, const struct bench_run *run)
{
	char size[32], sg[48];
	int i, n = 0;

	for (i = 0; i < run->count; i++) {
		const struct bench_rec *r = &run->recs[i];

		if (strcmp(r->type, "dmabuf"))
			continue;
		if (!n++) {
			fputs(bench_title_dmabuf, f);
			fprintf(f, "%-22s %-10s %-8s %-6s %-22s %-12s %s\n", "target", "exporter",
				"size", "pages", "sg entries", "sync pair us", "ratio");
		}
		if (isnan(r->sg_entries))
			snprintf(sg, sizeof(sg), "- (%s)", r->sg_source);
		else
			snprintf(sg, sizeof(sg), "%.0f (%s)", r->sg_entries, r->sg_source);
		fprintf(f, "%-22s %-10s %-8s %-6.0f %-22s %-12.1f %.2f\n", r->target,
			r->exporter, bench_size_str(r->size, size, sizeof(size)), r->pages, sg,
			r->median, r->ratio);
	}
}

static void bench_table_enqueue(FILE *f, const struct bench_run *run)
{
	char size[32], ops[64], dev[48];
	int i, n = 0;

	for (i = 0; i < run->count; i++) {
		const struct bench_rec *r = &run->recs[i];

		if (strcmp(r->type, "enqueue"))
			continue;
		if (!n++) {
			fputs(bench_title_enqueue, f);
			fputs(strcmp(r->clock, "icount") ? bench_note_wall : bench_note_icount, f);
			fprintf(f, "%-18s %-10s %-8s %-6s %-6s %-28s %-12s %-12s %s\n", "target",
				"exporter", "size", "pages", "sg", "cache ops = map + sync",
				"us/enqueue", "us/MiB", "ratio");
		}
		if (isnan(r->cache_ops))
			snprintf(ops, sizeof(ops), "- (%s)", r->ops_source);
		else if (isnan(r->ops_map) || isnan(r->ops_sync))
			snprintf(ops, sizeof(ops), "%.0f (%s)", r->cache_ops, r->ops_source);
		else
			snprintf(ops, sizeof(ops), "%.0f = %.0f + %.0f (%s)", r->cache_ops,
				 r->ops_map, r->ops_sync, r->ops_source);
		snprintf(dev, sizeof(dev), "%.0f", r->sg_entries);
		fprintf(f, "%-18s %-10s %-8s %-6.0f %-6s %-28s %-12.1f %-12.1f %.2f\n",
			r->target, r->exporter, bench_size_str(r->size, size, sizeof(size)),
			r->pages, dev, ops, r->median, r->us_per_mib, r->ratio);
	}
}

static const char bench_row_synccheck[] =
	"%-18s %-7s %-8s %-10.1f %-10.1f %-10.1f %-7.0f %-8.0f %-9.1f %-5.0f %s\n";

static void bench_table_synccheck(FILE *f, const struct bench_run *run)
{
	char size[32], ratios[48];
	int i, n = 0;

	for (i = 0; i < run->count; i++) {
		const struct bench_rec *r = &run->recs[i];

		if (strcmp(r->type, "synccheck"))
			continue;
		if (!n++) {
			fputs(bench_title_synccheck, f);
			fputs(strcmp(r->clock, "icount") ? bench_note_wall : bench_note_icount, f);
			fprintf(f, "%-18s %-7s %-8s %-10s %-10s %-10s %-7s %-8s %-9s %-5s %s\n",
				"target", "mode", "size", "write MB/s", "read MB/s", "sync us",
				"first", "faults", "flt/MiB", "viol", "write/read/sync vs off");
		}
		if (isnan(r->ratio_write) && isnan(r->ratio_sync))
			snprintf(ratios, sizeof(ratios), "-");
		else
			snprintf(ratios, sizeof(ratios), "%.2f/%.2f/%.2f", r->ratio_write,
				 r->ratio_read, r->ratio_sync);
		fprintf(f, bench_row_synccheck,
			r->target, r->mode, bench_size_str(r->size, size, sizeof(size)),
			r->write_mbs, r->read_mbs, r->median, r->first_minflt, r->minflt,
			r->faults_per_mib, r->violations, ratios);
	}
}

static const char bench_head_dma[] =
	"%-12s %-8s %-9s %-8s %-10s %-11s %-12s %-12s %-7s %-10s %-8s %s\n";
static const char bench_row_dma[] =
	"%-12s %-8s %-9.0f %-8.2f %-10.1f %-11.1f %-12.0f %-12s %-7s %-10.2f %-8.2f %s\n";

static void bench_table_dma(FILE *f, const struct bench_run *run)
{
	char size[32], dt[16], ratio[16];
	int i, n = 0;

	for (i = 0; i < run->count; i++) {
		const struct bench_rec *r = &run->recs[i];

		if (strcmp(r->type, "dma"))
			continue;
		if (!n++) {
			fputs(bench_title_dma, f);
			fputs(strcmp(r->clock, "icount") ? bench_note_wall : bench_note_icount, f);
			fprintf(f, "%s: dmaengine channel %s\n", r->target,
				r->channel[0] ? r->channel : "?");
			fprintf(f, bench_head_dma, "channel", "size", "in flight", "syscalls",
				"submit us", "complete us", "KiB/s", "dmatest", "ratio", "cpu us",
				"cpu/dma", "verified");
		}
		if (isnan(r->dmatest_kbps)) {
			snprintf(dt, sizeof(dt), "-");
			snprintf(ratio, sizeof(ratio), "-");
		} else {
			snprintf(dt, sizeof(dt), "%.0f", r->dmatest_kbps);
			snprintf(ratio, sizeof(ratio), "%.2f", r->dmatest_ratio);
		}
		fprintf(f, bench_row_dma, r->target, bench_size_str(r->size, size, sizeof(size)),
			r->batch, r->syscalls, r->submit, r->median, r->kbps, dt, ratio,
			r->cpu_copy, r->median > 0 ? r->cpu_copy / r->median : NAN,
			r->verified ? "yes" : "NO");
	}
}

void bench_table_print(FILE *f, const struct bench_run *run)
{
	int i, errors = 0;

	for (i = 0; i < run->count; i++) {
		const struct bench_rec *r = &run->recs[i];

		if (strcmp(r->type, "meta"))
			continue;
		fprintf(f, "udmem bench: %s\n", r->text);
		if (r->emulated)
			fputs(bench_note_emulated, f);
	}
	bench_table_bw(f, run);
	bench_table_mmap_vs_file(f, run);
	bench_table_touch(f, run);
	bench_table_sync(f, run);
	bench_table_synccheck(f, run);
	bench_table_memtype(f, run);
	bench_table_dmabuf(f, run);
	bench_table_enqueue(f, run);
	bench_table_dma(f, run);
	for (i = 0; i < run->count; i++) {
		const struct bench_rec *r = &run->recs[i];

		if (!strcmp(r->type, "error")) {
			if (!errors++)
				fputc('\n', f);
			fprintf(f, "ERROR %s %s: %s\n", r->target, r->test,
				r->text);
		} else if (!strcmp(r->type, "skip")) {
			fprintf(f, "skipped %s %s: %s\n", r->target, r->test,
				r->text);
		}
	}
}

static const struct bench_rec *bench_match(const struct bench_run *run,
					   const struct bench_rec *like)
{
	int i;

	for (i = 0; i < run->count; i++) {
		const struct bench_rec *r = &run->recs[i];

		if (strcmp(r->type, like->type) || strcmp(r->target, like->target))
			continue;
		if (!strcmp(r->type, "bw") && !strcmp(r->test, like->test) &&
		    !strcmp(r->access, like->access) &&
		    !strcmp(r->sync, like->sync) &&
		    (strcmp(r->target, "anon") || r->size == like->size))
			return r;
		if (!strcmp(r->type, "sync") && !strcmp(r->method, like->method) &&
		    !strcmp(r->direction, like->direction) &&
		    r->size == like->size && r->offset == like->offset)
			return r;
		if (!strcmp(r->type, "dmabuf") && r->size == like->size &&
		    !strcmp(r->exporter, like->exporter))
			return r;
		if (!strcmp(r->type, "touch") && !strcmp(r->access, like->access) &&
		    (strcmp(r->target, "anon") || r->size == like->size))
			return r;
	}
	return NULL;
}

static void bench_meta_line(FILE *f, const char *label,
			    const struct bench_run *run, const char *path)
{
	int i;

	for (i = 0; i < run->count; i++)
		if (!strcmp(run->recs[i].type, "meta")) {
			fprintf(f, "%s: %s (%s)%s\n", label, run->recs[i].text,
				path, run->recs[i].emulated ? " EMULATED" : "");
			return;
		}
	fprintf(f, "%s: %s (no meta record)\n", label, path);
}

int bench_compare(FILE *f, const char *a_path, const char *b_path)
{
	struct bench_run a, b;
	int i, matched = 0, err;
	char size[32];

	err = bench_run_load(&a, a_path);
	if (err) {
		fprintf(stderr, "udmem bench: %s: %s\n", a_path, strerror(-err));
		return err;
	}
	err = bench_run_load(&b, b_path);
	if (err) {
		fprintf(stderr, "udmem bench: %s: %s\n", b_path, strerror(-err));
		bench_run_free(&a);
		return err;
	}
	bench_meta_line(f, "A", &a, a_path);
	bench_meta_line(f, "B", &b, b_path);
	fprintf(f, "B/A > 1: B is faster (throughput) or B needs more (time, faults)\n\n");
	fprintf(f, "%-8s %-20s %-34s %-12s %-12s %-8s %-16s\n", "kind", "target",
		"figure", "A", "B", "B/A", "ratio-to-anon A/B");
	for (i = 0; i < b.count; i++) {
		const struct bench_rec *rb = &b.recs[i], *ra;
		char what[64], anon[32] = "";

		if (strcmp(rb->type, "bw") && strcmp(rb->type, "sync") &&
		    strcmp(rb->type, "touch") && strcmp(rb->type, "dmabuf"))
			continue;
		ra = bench_match(&a, rb);
		if (!ra)
			continue;
		matched++;
		if (!strcmp(rb->type, "bw")) {
			snprintf(what, sizeof(what), "%.20s %.12s/%.12s MB/s", rb->test,
				 rb->access, rb->sync);
			if (!isnan(ra->ratio) && !isnan(rb->ratio))
				snprintf(anon, sizeof(anon), "%.2f/%.2f",
					 ra->ratio, rb->ratio);
		} else if (!strcmp(rb->type, "sync")) {
			snprintf(what, sizeof(what), "sync %s %s %s us",
				 rb->method, rb->direction,
				 bench_size_str(rb->size, size, sizeof(size)));
		} else if (!strcmp(rb->type, "dmabuf")) {
			snprintf(what, sizeof(what), "%s sync pair %s us", rb->exporter,
				 bench_size_str(rb->size, size, sizeof(size)));
		} else {
			snprintf(what, sizeof(what), "%s touch faults", rb->access);
			fprintf(f, "%-8s %-20s %-34s %-12.0f %-12.0f %-8.2f\n",
				rb->type, rb->target, what, ra->minflt,
				rb->minflt, ra->minflt > 0 ?
				rb->minflt / ra->minflt : NAN);
			snprintf(what, sizeof(what), "%s touch time us", rb->access);
		}
		fprintf(f, "%-8s %-20s %-34s %-12.1f %-12.1f %-8.2f %-16s\n",
			rb->type, rb->target, what, ra->median, rb->median,
			ra->median > 0 ? rb->median / ra->median : NAN, anon);
	}
	if (!matched)
		fprintf(f, "no figure of B matches one of A (same target name, test and mode)\n");
	bench_run_free(&a);
	bench_run_free(&b);
	return matched ? 0 : -ENOENT;
}
