/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * bench-priv.h - shared declarations of the `udmem bench` sources.
 *
 * A target is what the bench measures: a u-dma-buf buffer, a uiomem region,
 * or anonymous memory (the physical-limit reference).  Every measured path
 * uses raw system calls (open, mmap, read, write, ioctl, sysfs writes), so
 * the figures describe the driver and not a library.
 */
#ifndef UDMEM_BENCH_PRIV_H
#define UDMEM_BENCH_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define BENCH_SCHEMA_VERSION	1
#define BENCH_NAME_MAX		64

enum bench_class {
	BENCH_ANON,
	BENCH_UDMABUF,
	BENCH_UIOMEM,
};

/* How a sync is issued; each costs a known number of system calls. */
enum bench_sync_method {
	BENCH_SYNC_IOCTL,	/* one ioctl on the open device */
	BENCH_SYNC_SYSFS,	/* open + write(packed command) + close */
	BENCH_SYNC_SYSFS_ATTRS,	/* offset, size, direction, then go: 4 x 3 */
	BENCH_SYNC_IOCTL_PAGES,	/* one ioctl per page of the range (seed 004) */
	BENCH_SYNC_METHODS,
};

/* The step of BENCH_SYNC_IOCTL_PAGES. */
#define BENCH_SYNC_PAGE		4096ull

enum bench_dir {
	BENCH_DIR_BIDIR = 0,
	BENCH_DIR_TO_DEVICE = 1,
	BENCH_DIR_FROM_DEVICE = 2,
};

struct bench_target {
	char name[BENCH_NAME_MAX];
	enum bench_class class;
	char dev_path[128];
	char sys_path[128];
	uint64_t size;		/* bytes the driver reports */
	uint64_t phys_addr;
	int dma_coherent;	/* 1, 0, or -1 when unknown */
	int sync_mode;		/* as found; -1 when unknown */
	bool has_ioctl;		/* the sync ioctl answered */
	long cache_line;	/* uiomem: the driver's maintenance granule */
	bool no_cached;		/* uiomem: no cache maintenance, no cached map */
	char driver_version[32];
	/* sync attributes as found, put back by bench_target_restore() */
	long long saved_sync_offset;
	long long saved_sync_size;
	long long saved_sync_direction;
};

struct bench_opts {
	int runs;
	uint64_t size;		/* 0: each target's whole size */
	bool quick;
	bool icount;		/* the caller says time counts instructions */
	bool enqueue_only;	/* --enqueue: only the DMA-BUF enqueue sweep */
	bool sync_check_only;	/* --sync-check: only the sync checker's cost */
	const char *dmatest;	/* --dmatest FILE: dmatest's figures for --dma */
	bool json;
	bool quiet;
	bool progress_tty;
};

/* One measured figure with its spread over the runs. */
struct bench_stat {
	int runs;
	double median;
	double min;
	double max;
};

/* A driver's own count of the cache maintenance it did (uiomem). */
struct bench_counters {
	uint64_t calls;
	uint64_t lines;
	uint64_t barriers;
};

/* measure.c */
double bench_now(void);
void bench_copy(void *dst, const void *src, size_t size);
void bench_fill(void *buf, size_t size, uint64_t seed);
void bench_stat_of(struct bench_stat *st, double *v, int n);
long bench_minflt(void);
long bench_majflt(void);
void *bench_anon_alloc(size_t size);
void bench_anon_free(void *p, size_t size);

/* target.c */
int bench_target_open_all(struct bench_target **out, int *count,
			  char **names, int nnames);
int bench_target_sync(const struct bench_target *t, int fd,
		      enum bench_sync_method method, bool for_device,
		      uint64_t offset, uint64_t size, enum bench_dir dir);
int bench_target_counters(const struct bench_target *t, int fd,
			  struct bench_counters *c);
int bench_sync_syscalls(enum bench_sync_method method);
const char *bench_sync_method_name(enum bench_sync_method method);
int bench_target_read_str(const struct bench_target *t, const char *attr,
			  char *buf, size_t len);
int bench_target_write_str(const struct bench_target *t, const char *attr,
			   const char *val);
int bench_target_set_sync_mode(const struct bench_target *t, int mode);
void bench_target_restore(const struct bench_target *t);
int bench_target_read_int(const struct bench_target *t, const char *attr,
			  long long *val);
const char *bench_class_name(enum bench_class class);
long bench_cache_line(const char **source);

/* sysinfo.c */
struct bench_sysinfo {
	char kernel[128];
	char arch[32];
	char machine[128];
	char cpu[128];
	bool emulated;
	char emulation[160];	/* the evidence, or "none found" */
	long cpus;
	long page_size;
	long cache_line;
	char time[32];
};

void bench_sysinfo_get(struct bench_sysinfo *si);

/* report.c */
struct bench_out {
	FILE *f;
	bool first;		/* no key written yet in this record */
	int records;
	int errors;
	int skips;
};

void bench_json_begin(struct bench_out *o, const char *type);
void bench_json_end(struct bench_out *o);
void bench_json_kv_s(struct bench_out *o, const char *key, const char *val);
void bench_json_kv_u(struct bench_out *o, const char *key, uint64_t val);
void bench_json_kv_i(struct bench_out *o, const char *key, long long val);
void bench_json_kv_f(struct bench_out *o, const char *key, double val);
void bench_json_kv_b(struct bench_out *o, const char *key, bool val);
void bench_json_kv_null(struct bench_out *o, const char *key);

/* records.c: a recorded run, read back from JSON lines */
struct bench_rec {
	char type[16];
	char target[BENCH_NAME_MAX];
	char test[32];
	char access[16];
	char sync[16];
	char method[16];
	char direction[16];
	char klass[16];
	uint64_t size;
	uint64_t test_size;
	uint64_t offset;
	double median;
	double min;
	double max;
	double ratio;		/* NaN when absent */
	double minflt;
	double pmd_entries;	/* touch: NaN when absent */
	double pte_entries;
	double sg_entries;	/* dmabuf, enqueue: NaN when unknown */
	double us_per_mib;	/* enqueue */
	double ops_map;		/* enqueue: the importer's map and unmap */
	double ops_sync;	/* enqueue: the CPU's sync pair */
	double batch;		/* dma: transfers per submit */
	double submit;		/* dma: us per SUBMIT */
	double cpu_copy;	/* dma: us per CPU copy */
	char channel[32];	/* dma: the dmaengine channel */
	double kbps;		/* dma: u-dma-chan's KiB/s */
	double dmatest_kbps;	/* dma: dmatest's KiB/s, NaN when absent */
	double dmatest_ratio;	/* dma: kbps / dmatest_kbps */
	bool verified;		/* dma */
	char clock[8];		/* enqueue, synccheck: "icount" or "wall" */
	char mode[8];		/* synccheck: off, report, strict */
	double write_mbs;	/* synccheck */
	double read_mbs;
	double first_minflt;
	double faults_per_mib;
	double violations;
	double ratio_write;	/* synccheck: this mode / off, NaN for off */
	double ratio_read;
	double ratio_sync;
	double pages;
	char exporter[16];
	char sg_source[16];
	char mapping[16];	/* memtype: which mapping */
	char memtype[16];	/* memtype: what the page tables hold */
	double syscalls;
	double cache_ops;
	double barriers;
	char ops_source[16];
	char unit[16];
	char text[200];		/* meta: kernel/arch/machine summary */
	bool emulated;
};

struct bench_run {
	struct bench_rec *recs;
	int count;
};

int bench_run_load(struct bench_run *run, const char *path);
int bench_run_load_mem(struct bench_run *run, const char *text);
void bench_run_free(struct bench_run *run);
int bench_json_get(const char *line, const char *key, char *out, size_t len);

/* table.c */
void bench_table_print(FILE *f, const struct bench_run *run);
int bench_compare(FILE *f, const char *a, const char *b);

/* bench.c: one run of `udmem bench`, and what its measurements share */
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
	int anon_fd;		/* the reference's memfd while it runs, else -1 */
	int step;
	int steps;
	double start;
};

struct bench_ref {
	uint64_t size;
	double write_mbs;
	double read_mbs;
};

/* emit.c: the records of a run, for bench.c and the measurements */
void bench_progress(struct bench_ctx *c, const char *what,
		    const char *target);
void bench_emit_meta(struct bench_ctx *c);
void bench_emit_target(struct bench_ctx *c, const struct bench_target *t,
		       uint64_t test_size);
void bench_emit_skip(struct bench_ctx *c, const char *target,
		     const char *test, const char *reason);
void bench_emit_error(struct bench_ctx *c, const char *target,
		      const char *test, int err, const char *what);
void bench_emit_end(struct bench_ctx *c);

/* matrix.c */
void bench_matrix(struct bench_ctx *c, const struct bench_target *t,
		  size_t size, void *anon, struct bench_ref *ref);
int bench_anon_ref(struct bench_ctx *c, size_t size,
		   struct bench_ref *ref);

const char *bench_access_name(enum bench_access a);

/* touch.c */
void bench_touch(struct bench_ctx *c, const struct bench_target *t);

/* sync-cost.c */
void bench_sync_sweep(struct bench_ctx *c, const struct bench_target *t);

/* memtype.c */
void bench_memtype(struct bench_ctx *c, const struct bench_target *t);

/* dmabuf.c */
#define BENCH_IMPORTER		"/dev/udmem-dmabuf-importer"

void bench_dmabuf(struct bench_ctx *c, const struct bench_target *t);
int bench_mainline_udmabuf(uint64_t len, int *mfd);
int bench_parent(const struct bench_target *t, char *out, size_t len);

/* dmachan.c */
int bench_dma_run(struct bench_ctx *c, const char *chan, struct bench_target *v, int n);

/* synccheck.c */
void bench_sync_check(struct bench_ctx *c, const struct bench_target *t);

/* enqueue.c */
void bench_enqueue(struct bench_ctx *c, const struct bench_target *t);

#endif /* UDMEM_BENCH_PRIV_H */
