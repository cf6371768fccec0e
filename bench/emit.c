// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * emit.c - the records of a `udmem bench` run and its progress lines.
 *
 * bench.c and every measurement write through these: the meta record that
 * opens a run, one target record per target, skip and error records, and
 * the end record with the counts.  report.c has the JSON primitives.
 */
#include <inttypes.h>

#include "bench.h"
#include "bench-priv.h"

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

void bench_emit_meta(struct bench_ctx *c)
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

void bench_emit_end(struct bench_ctx *c)
{
	bench_json_begin(&c->out, "end");
	bench_json_kv_i(&c->out, "records", c->out.records);
	bench_json_kv_i(&c->out, "errors", c->out.errors);
	bench_json_kv_i(&c->out, "skips", c->out.skips);
	bench_json_kv_f(&c->out, "seconds", bench_now() - c->start);
	bench_json_end(&c->out);
}
