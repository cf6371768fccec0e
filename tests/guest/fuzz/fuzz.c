// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fuzz: a structure-aware fuzzer of u-dma-buf, its manager, uiomem and
 * u-dma-chan.
 *
 * From one seed (FUZZ_SEED, else from the clock; printed first) it makes
 * FUZZ_OPS operations (default 5000), one at a time, each drawn from the
 * seed alone, so that the same seed makes the same sequence of calls:
 *
 *  - manager commands: create with odd names (empty, long, with '/', '.',
 *    spaces, high bytes, a name already taken), sizes (0, 1, page +- 1,
 *    huge, negative, hex, garbage) and options (every keyword, bad values,
 *    unknown words), several commands in one write, delete of names that
 *    exist, do not or are in use;
 *  - read/write/lseek/mmap of a buffer's files (read-write, read-only,
 *    O_SYNC) at boundary offsets and sizes: 0, size - 1, size, size + 1,
 *    ~0, 2^31, 2^32, unaligned, random;
 *  - every u-dma-buf ioctl of include/uapi/linux/u-dma-buf-ioctl.h with
 *    random and boundary field values and flag bits, and unknown numbers;
 *  - sysfs writes of the sync attributes (sync_offset, sync_size,
 *    sync_direction, sync_mode, sync_for_cpu, sync_for_device, debug_vma,
 *    debug_export): numbers in and out of range, garbage, empty;
 *  - DMA-BUF export (EXPORT), its mmap and DMA_BUF_IOCTL_SYNC with valid and
 *    invalid flags, IMPORT of it and IMPORT_SYNC;
 *  - on a uiomem region (FUZZ_UIOMEM names it), read/write/lseek/mmap and
 *    its ioctls (QUERY, SYNC, EXPORT and the reference-style ones);
 *  - with FUZZ_DMA=1, a u-dma-chan channel made by its manager: odd manager
 *    commands, open/close/delete while open, SUBMIT batches over the
 *    buffers' exports, the region's export and fds of the wrong kinds with
 *    edge values in every field, WAIT, SLAVE_CONFIG, TERMINATE, read() and
 *    poll() of the records, the fences, sysfs writes, unknown ioctls.
 *
 * Invariants checked after each operation: data read back (read(), the
 * mappings, an export's mapping) is what was written (a shadow copy of
 * each buffer and of the region); a read or write never reports more bytes
 * than the object has past the offset; lseek() lands where it says; a
 * mapping past the end fails; GET_SIZE is the created size; a numeric
 * sysfs write that succeeded reads back; uiomem SYNC and EXPORT succeed or
 * fail exactly as include/uapi/linux/uiomem.h documents; a SUBMIT is refused
 * exactly when docs/dma.md says, with an errno it gives for the reason, and
 * changes nothing then; an accepted batch's copies are in the destinations
 * (the shadows, updated in transfer order), its status, fence, WAIT and
 * record agree and the records come in order; every buffer it
 * made can be deleted once its files are closed, and no "fuzz-" buffer is
 * left.  New kernel reports (Oops, BUG, WARNING, KASAN, lockdep, DMA-API)
 * are read from /dev/kmsg after every operation.
 *
 * Any failure prints the seed and the operation's index with the last
 * operations made; FUZZ_SEED=<seed> replays it (with the same FUZZ_OPS).
 *
 * On arm64 the program is also built 32-bit (UDMEM_TEST_COMPAT32), and
 * suite.sh runs it again through the compat ioctl paths.
 */
#define _FILE_OFFSET_BITS 64

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <linux/dma-buf.h>
#include <linux/sync_file.h>
#include <linux/u-dma-buf-ioctl.h>
#include <linux/u-dma-chan.h>
#include <linux/uiomem.h>

#include "harness.h"
#include "ut.h"

#define MGR		"/dev/u-dma-buf-mgr"
#define CLS		"/sys/class/u-dma-buf"
#define NBUF		3		/* buffers in the pool */
#define NEXP		2		/* exports kept per buffer */
#define HIST		12		/* operations quoted on a failure */
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

struct fexp {
	int fd;			/* a dma-buf, or -1 */
	uint64_t off, size;
	uint8_t *map;		/* its mapping, or NULL */
	int ifd;		/* an import of it, or -1 */
};

struct fbuf {
	char name[32];		/* "" when the slot is free */
	uint64_t size;
	uint8_t *shadow;
	int fd[3];		/* O_RDWR, O_RDONLY, O_RDWR | O_SYNC */
	uint8_t *map;		/* a shared mapping of fd[0] */
	uint64_t maplen;
	struct fexp exp[NEXP];
};

/* the kinds of operation */
enum { K_CREATE, K_DELETE, K_READ, K_WRITE, K_LSEEK, K_MMAP, K_MAPRW, K_IOCTL, K_SYSFS,
	K_EXPORT, K_UIO, K_CHAN, K_N };

static unsigned long long g_seed;
static uint64_t g_rng;
static unsigned long g_op, g_nops;
static char g_hist[HIST][200];
static int g_kmsg = -1;
static int g_mgr = -1;
static long g_page;
static struct fbuf g_buf[NBUF];
static unsigned long g_names;		/* for fresh names */
static unsigned long g_count[K_N], g_ok[K_N];	/* per kind: made, succeeded */

/* the uiomem region */
static int g_uio = -1, g_uio_ro = -1;
static uint64_t g_uio_size;
static uint8_t *g_uio_shadow;
static char g_uio_name[32];

static uint64_t rnd(void)
{
	/* splitmix64: every value depends on the seed and the count alone */
	uint64_t z = (g_rng += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static uint64_t rn(uint64_t n)
{
	return n ? rnd() % n : 0;
}

/* Describe the operation being made (kept for a failure report). */
static void __attribute__((format(printf, 1, 2))) op(const char *fmt, ...)
{
	char *h = g_hist[g_op % HIST];
	va_list ap;
	int n;

	n = snprintf(h, sizeof(g_hist[0]), "op %lu: ", g_op);
	va_start(ap, fmt);
	vsnprintf(h + n, sizeof(g_hist[0]) - n, fmt, ap);
	va_end(ap);
}

static void dump_history(void)
{
	unsigned long i, from = g_op + 1 > HIST ? g_op + 1 - HIST : 0;

	for (i = from; i <= g_op; i++)
		printf("#   %s\n", g_hist[i % HIST]);
}

/* An invariant broke: the seed, the operation, the last operations; the test fails. */
static void __attribute__((format(printf, 1, 2))) broken(const char *fmt, ...)
{
	char msg[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	printf("# fuzz: seed %llu, op %lu of %lu: %s\n# the last operations:\n", g_seed, g_op,
	       g_nops, msg);
	dump_history();
	printf("# replay: FUZZ_SEED=%llu FUZZ_OPS=%lu\n", g_seed, g_nops);
	fflush(stdout);
	ut_failed++;
	ut_checks++;
	ut_msg("seed %llu op %lu: %s (replay: FUZZ_SEED=%llu FUZZ_OPS=%lu)", g_seed, g_op, msg,
	       g_seed, g_nops);
	ut_end(UT_EXIT_FAIL);
}

#define CHECK(cond, fmt, ...) do {					\
		ut_checks++;						\
		if (!(cond))						\
			broken(fmt, ##__VA_ARGS__);			\
	} while (0)

/* ----------------------------------------------------- kernel reports */

static const char *const k_reports[] = {
	"Oops", "BUG:", "WARNING:", "Call trace", "Call Trace", "general protection",
	"Unable to handle", "KASAN", "kmemleak", "DMA-API", "possible recursive locking",
	"possible circular locking", "inconsistent lock state", "suspicious RCU usage",
	"list_add corruption", "list_del corruption", "refcount_t:",
};

static void kmsg_open(void)
{
	g_kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (g_kmsg >= 0)
		lseek(g_kmsg, 0, SEEK_END);
}

/* New kernel-log records that are reports: fail with the seed and the operation. */
static void kmsg_check(void)
{
	char rec[1024];
	ssize_t n;
	size_t i;

	if (g_kmsg < 0)
		return;
	for (;;) {
		n = read(g_kmsg, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten records: go on */
		if (n <= 0)
			return;
		rec[n] = '\0';
		rec[strcspn(rec, "\n")] = '\0';
		for (i = 0; i < ARRAY_SIZE(k_reports); i++)
			if (strstr(rec, k_reports[i]))
				broken("kernel report: %.200s", strchr(rec, ';') ?
				       strchr(rec, ';') + 1 : rec);
	}
}

/* ------------------------------------------------------------- values */

/* An offset or size near the edges of an object of @size bytes. */
static uint64_t edge(uint64_t size)
{
	switch (rn(16)) {
	case 0:
		return 0;
	case 1:
		return size;
	case 2:
		return size - 1;
	case 3:
		return size + 1;
	case 4:
		return ~0ULL;
	case 5:
		return 1ULL << 31;
	case 6:
		return 1ULL << 32;
	case 7:
		return (uint64_t)INT64_MAX;
	case 8:
		return g_page;
	case 9:		/* odd */
		return size ? rn(size) | 1 : 1;
	case 10:	/* page-aligned */
		return size ? rn(size) & ~(uint64_t)(g_page - 1) : 0;
	case 11:
		return size / 2;
	case 12:
		return (uint64_t)-g_page;
	default:
		return rn(size + 2 * g_page);
	}
}

/* A length to transfer: small mostly, bounded by what a scratch buffer holds. */
static size_t xfer_len(uint64_t size, size_t max)
{
	uint64_t v;

	switch (rn(6)) {
	case 0:
		v = 0;
		break;
	case 1:
		v = 1;
		break;
	case 2:
		v = size;
		break;
	case 3:
		v = g_page + 1;
		break;
	default:
		v = rn(2 * g_page) + 1;
		break;
	}
	return v > max ? max : v;
}

/* A number written as sysfs or the manager would read it, or garbage. */
static void num_str(char *s, size_t len, uint64_t v, bool *canonical)
{
	static const char *const junk[] = {
		"", "\n", "-1", "+1", " 1", "1 ", "0x", "0x1g", "1e3", "18446744073709551616",
		"99999999999999999999999", "0777", "08", "abc", "1\n2", "\x01\xff",
		"0x10000000000000000", "-0", "0b101",
	};

	*canonical = false;
	switch (rn(5)) {
	case 0:
		snprintf(s, len, "%s", junk[rn(ARRAY_SIZE(junk))]);
		return;
	case 1:
		snprintf(s, len, "0x%llx", (unsigned long long)v);
		break;
	case 2:
		snprintf(s, len, "%llu\n", (unsigned long long)v);
		break;
	default:
		snprintf(s, len, "%llu", (unsigned long long)v);
		break;
	}
	*canonical = true;
}

/* ----------------------------------------------------------- buffers */

static void exp_close(struct fexp *e)
{
	if (e->map)
		munmap(e->map, e->size);
	if (e->ifd >= 0)
		close(e->ifd);
	if (e->fd >= 0)
		close(e->fd);
	e->map = NULL;
	e->fd = -1;
	e->ifd = -1;
}

static void chan_let_go(void);

static void buf_close(struct fbuf *b)
{
	int i;

	for (i = 0; i < NEXP; i++)
		exp_close(&b->exp[i]);
	if (b->map)
		munmap(b->map, b->maplen);
	b->map = NULL;
	for (i = 0; i < 3; i++) {
		if (b->fd[i] >= 0)
			close(b->fd[i]);
		b->fd[i] = -1;
	}
}

static int mgr_write(const char *cmd, size_t len)
{
	ssize_t n = write(g_mgr, cmd, len);

	return n < 0 ? errno : 0;
}

/* Delete a pool buffer, all its files closed first: that must work. */
static void buf_delete(struct fbuf *b)
{
	char cmd[64];
	int err;

	if (!b->name[0])
		return;
	buf_close(b);
	chan_let_go();
	op("delete %s (files closed)", b->name);
	snprintf(cmd, sizeof(cmd), "delete %s\n", b->name);
	err = mgr_write(cmd, strlen(cmd));
	CHECK(err == 0, "delete %s with its files closed: %s", b->name, strerror(err));
	CHECK(!ut_sysfs_exists("u-dma-buf", b->name), "%s still exists after its delete",
	      b->name);
	free(b->shadow);
	b->shadow = NULL;
	b->name[0] = '\0';
}

/* Open the files of a fresh buffer; its contents are zero. */
static void buf_adopt(struct fbuf *b, const char *name, uint64_t size)
{
	char path[64];
	uint64_t got = 0;
	int i;

	memset(b, 0, sizeof(*b));
	snprintf(b->name, sizeof(b->name), "%s", name);
	b->size = size;
	for (i = 0; i < NEXP; i++) {
		b->exp[i].fd = -1;
		b->exp[i].ifd = -1;
	}
	snprintf(path, sizeof(path), "/dev/%s", name);
	b->fd[0] = open(path, O_RDWR);
	b->fd[1] = open(path, O_RDONLY);
	b->fd[2] = open(path, O_RDWR | O_SYNC);
	CHECK(b->fd[0] >= 0 && b->fd[1] >= 0 && b->fd[2] >= 0, "open %s: %s", path,
	      strerror(errno));
	CHECK(ioctl(b->fd[0], U_DMA_BUF_IOCTL_GET_SIZE, &got) == 0 && got == size,
	      "GET_SIZE of %s: %llu, created with %llu", name, (unsigned long long)got,
	      (unsigned long long)size);
	b->shadow = calloc(1, size);
	CHECK(b->shadow, "no memory for a shadow of %llu bytes",
	      (unsigned long long)size);
	/* a new buffer is zeroed: check it whole */
	{
		uint8_t *tmp = malloc(size);
		long r;

		CHECK(tmp, "no memory");
		r = ut_pread_all(b->fd[0], tmp, size, 0);
		CHECK(r == 0 && !memcmp(tmp, b->shadow, size), "new buffer %s is not zeroed",
		      name);
		free(tmp);
	}
}

static const char *const opts[] = {
	"quirk-mmap-on", "quirk-mmap-off", "quirk-mmap-auto", "quirk-mmap-page",
	"dma-coherent", "dma-mask=32", "dma-mask=64", "dma-mask=0", "dma-mask=256",
	"dma-mask=", "keep-contents", "bus=", "bus=pci", "device=", "device=nothing",
	"quirk", "size=", "size=0", "unknown", "=", "quirk-mmap-onx",
};

/* A manager create with odd names, sizes and options; adopt what it makes. */
static void op_create(void)
{
	static const char *const odd[] = {
		"", "fuzz-", "fuzz-a/b", "fuzz-..", "../fuzz", "fuzz a", "fuzz-\xff\xfe",
		"fuzz-u-dma-buf-mgr", ".", "fuzz-\t", "fuzz-;x",
	};
	char name[400], cmd[600], size_s[64];
	uint64_t size = 0;
	bool canon = true, fresh = false, split;
	int slot = -1, i, err;

	for (i = 0; i < NBUF; i++)
		if (!g_buf[i].name[0])
			slot = i;
	switch (rn(6)) {
	case 0:
		snprintf(name, sizeof(name), "%s", odd[rn(ARRAY_SIZE(odd))]);
		break;
	case 1:		/* long */
		memset(name, 'f', sizeof(name) - 1);
		name[rn(sizeof(name) - 1)] = '\0';
		memcpy(name, "fuzz-", 5);
		break;
	case 2:		/* taken */
		snprintf(name, sizeof(name), "%s", g_buf[rn(NBUF)].name);
		break;
	default:
		snprintf(name, sizeof(name), "fuzz-%lu", g_names++);
		fresh = true;
		break;
	}
	switch (rn(8)) {
	case 0:
		num_str(size_s, sizeof(size_s), edge(1 << 20), &canon);
		break;
	case 1:
		snprintf(size_s, sizeof(size_s), "%ld", g_page - 1 + (long)rn(3));
		break;
	default:
		snprintf(size_s, sizeof(size_s), "%llu",
			 (unsigned long long)(rn(4) ? g_page * (1 + rn(16)) : 1 + rn(70000)));
		break;
	}
	size_s[strcspn(size_s, "\n")] = '\0';
	snprintf(cmd, sizeof(cmd), "create %s %s%s", name, rn(4) ? "" : "size=", size_s);
	for (i = rn(3); i > 0; i--) {
		strncat(cmd, " ", sizeof(cmd) - strlen(cmd) - 1);
		strncat(cmd, opts[rn(ARRAY_SIZE(opts))], sizeof(cmd) - strlen(cmd) - 1);
	}
	strncat(cmd, rn(8) ? "\n" : ";", sizeof(cmd) - strlen(cmd) - 1);
	split = fresh && rn(8) == 0;
	if (fresh && rn(6) == 0) {
		/* create and delete in one write: nothing is left when it succeeds */
		size_t n = strlen(cmd);

		snprintf(cmd + n, sizeof(cmd) - n, "delete %s\n", name);
		op("manager '%.120s' (one write)", cmd);
		ut_cleanup_buffer(name);
		if (mgr_write(cmd, strlen(cmd)) == 0)
			CHECK(!ut_sysfs_exists("u-dma-buf", name),
			      "'%.100s' in one write left %s", cmd, name);
		return;
	}
	op("manager '%.120s'%s", cmd, split ? " in two writes" : "");
	if (fresh)
		ut_cleanup_buffer(name);
	if (split) {
		/* a command over two writes: the first part is kept, not run */
		size_t cut = rn(strlen(cmd));

		err = mgr_write(cmd, cut);
		CHECK(err == 0 || cut == 0, "the first %zu bytes of '%.100s': %s", cut, cmd,
		      strerror(err));
		err = mgr_write(cmd + cut, strlen(cmd) - cut);
	} else {
		err = mgr_write(cmd, strlen(cmd));
	}
	if (err)
		return;
	g_ok[K_CREATE]++;
	/* it made a buffer: the name as the manager reads it (tokens split by blanks) */
	{
		char line[600], *p = line, *t;
		int ntok = 0;

		snprintf(line, sizeof(line), "%.*s", (int)strcspn(cmd, "\n;"), cmd);
		name[0] = '\0';
		while ((t = strsep(&p, " \t")))
			if (*t && ntok++ == 1)
				snprintf(name, sizeof(name), "%s", t);
	}
	for (i = 0; name[i]; i++)
		CHECK(name[i] > ' ' && name[i] <= '~' && name[i] != '/',
		      "create '%.100s' took a name with byte 0x%02x", cmd, (uint8_t)name[i]);
	CHECK(name[0] && strcmp(name, ".") && strcmp(name, ".."),
	      "create '%.100s' succeeded with name '%s'", cmd, name);
	if (!ut_sysfs_exists("u-dma-buf", name)) {
		broken("create '%.100s' succeeded but no class device %.60s", cmd, name);
		return;
	}
	ut_cleanup_buffer(name);
	size = ut_sysfs_get("u-dma-buf", name, "size", 0);
	CHECK(size > 0, "created %s has size 0", name);
	if (!canon || strchr(name, '/') || strlen(name) >= sizeof(g_buf[0].name) ||
	    slot < 0 || size > (4U << 20)) {
		/* not kept: delete it at once (nothing open) */
		snprintf(cmd, sizeof(cmd), "delete %s\n", name);
		op("delete %.60s (made by the create before)", name);
		err = mgr_write(cmd, strlen(cmd));
		CHECK(err == 0, "delete of %.60s just made: %s", name, strerror(err));
		return;
	}
	buf_adopt(&g_buf[slot], name, size);
}

static struct fbuf *pick_buf(void)
{
	int i, k = rn(NBUF);

	for (i = 0; i < NBUF; i++)
		if (g_buf[(k + i) % NBUF].name[0])
			return &g_buf[(k + i) % NBUF];
	return NULL;
}

/* A manager delete, of a buffer in use or not, or of no buffer. */
static void op_delete(void)
{
	struct fbuf *b = pick_buf();
	char cmd[96];
	int err;

	if (!b || rn(4) == 0) {
		snprintf(cmd, sizeof(cmd), "delete fuzz-none-%lu\n", (unsigned long)rn(100));
		op("%.60s", cmd);
		err = mgr_write(cmd, strlen(cmd));
		CHECK(err == ENOENT, "delete of a name never made: %s, want ENOENT",
		      strerror(err));
		return;
	}
	if (rn(2)) {
		buf_delete(b);
		g_ok[K_DELETE]++;
		return;
	}
	snprintf(cmd, sizeof(cmd), "delete %s\n", b->name);
	op("delete %s while its files are open", b->name);
	err = mgr_write(cmd, strlen(cmd));
	CHECK(err == EBUSY, "delete of %s while open: %s, want EBUSY", b->name,
	      err ? strerror(err) : "success");
}

/* read()/pread() at the edges; what comes back is the shadow. */
static void op_read(struct fbuf *b)
{
	static uint8_t tmp[3 * 65536];
	int which = rn(3);
	uint64_t off = edge(b->size);
	size_t len = xfer_len(b->size, sizeof(tmp));
	ssize_t r;

	op("pread %s fd%d %zu bytes at %llu", b->name, which, len, (unsigned long long)off);
	r = pread(b->fd[which], tmp, len, off);
	if (r < 0)
		return;
	g_ok[K_READ]++;
	CHECK(off <= b->size || r == 0, "pread at %llu past the end (%llu) gave %zd bytes",
	      (unsigned long long)off, (unsigned long long)b->size, r);
	if (off >= b->size)
		return;
	CHECK((uint64_t)r <= b->size - off, "pread gave %zd bytes, only %llu are there", r,
	      (unsigned long long)(b->size - off));
	CHECK(!memcmp(tmp, b->shadow + off, r), "pread of %zd bytes at %llu differs from "
	      "what was written", r, (unsigned long long)off);
}

static void op_write(struct fbuf *b)
{
	static uint8_t tmp[3 * 65536];
	int which = rn(3) ? 0 : 2;
	uint64_t off = edge(b->size);
	size_t len = xfer_len(b->size, sizeof(tmp)), i;
	uint8_t base = rnd();
	ssize_t r;

	for (i = 0; i < len; i++)
		tmp[i] = base + i * 7;
	if (rn(8) == 0)
		which = 1;	/* read-only: must fail */
	op("pwrite %s fd%d %zu bytes at %llu", b->name, which, len, (unsigned long long)off);
	r = pwrite(b->fd[which], tmp, len, off);
	if (which == 1) {
		/* EBADF, or EINVAL for an offset past 2^63 (checked first) */
		CHECK(r < 0 && (errno == EBADF || errno == EINVAL),
		      "pwrite on a read-only file: %zd (%s)", r, r < 0 ? strerror(errno) : "");
		return;
	}
	if (r < 0)
		return;
	g_ok[K_WRITE]++;
	CHECK(off < b->size || r == 0, "pwrite at %llu past the end (%llu) wrote %zd bytes",
	      (unsigned long long)off, (unsigned long long)b->size, r);
	if (off >= b->size)
		return;
	CHECK((uint64_t)r <= b->size - off, "pwrite wrote %zd bytes, only %llu are there",
	      r, (unsigned long long)(b->size - off));
	memcpy(b->shadow + off, tmp, r);
}

static void op_lseek(struct fbuf *b)
{
	static const int wh[] = { SEEK_SET, SEEK_CUR, SEEK_END, SEEK_DATA, SEEK_HOLE, 7 };
	int w = wh[rn(ARRAY_SIZE(wh))];
	int64_t off = (int64_t)edge(b->size), cur, r;

	if (rn(3) == 0)
		off = -off;
	cur = lseek(b->fd[0], 0, SEEK_CUR);
	op("lseek %s %lld whence %d (at %lld)", b->name, (long long)off, w, (long long)cur);
	r = lseek(b->fd[0], off, w);
	if (r < 0) {
		CHECK(lseek(b->fd[0], 0, SEEK_CUR) == cur, "a failed lseek moved the position");
		return;
	}
	g_ok[K_LSEEK]++;
	CHECK((uint64_t)r <= b->size, "lseek to %lld, past the end %llu", (long long)r,
	      (unsigned long long)b->size);
	if (w == SEEK_SET)
		CHECK(r == off, "lseek(SEEK_SET, %lld) gave %lld", (long long)off, (long long)r);
	if (w == SEEK_END)
		CHECK(r == (int64_t)b->size + off, "lseek(SEEK_END, %lld) gave %lld",
		      (long long)off, (long long)r);
	if (w == SEEK_CUR)
		CHECK(r == cur + off, "lseek(SEEK_CUR, %lld) from %lld gave %lld",
		      (long long)off, (long long)cur, (long long)r);
}

static uint64_t page_up(uint64_t v)
{
	return (v + g_page - 1) & ~(uint64_t)(g_page - 1);
}

/* mmap at odd lengths and offsets; a mapping that works shows the shadow. */
static void op_mmap(struct fbuf *b)
{
	uint64_t off = edge(b->size) & ~(uint64_t)(g_page - 1), len = edge(b->size);
	int which = rn(3), prot = rn(4) ? PROT_READ | PROT_WRITE : PROT_READ;
	uint8_t *p;
	uint64_t i, n;

	if (rn(8) == 0)
		off |= 1 + rn(g_page - 1);	/* unaligned: must fail */
	if (len > (64ULL << 20))
		len = rn(2) ? len : 64ULL << 20;
	len = (size_t)len;	/* what mmap() gets on a 32-bit program */
	op("mmap %s fd%d %llu bytes at %llu prot %d", b->name, which,
	   (unsigned long long)len, (unsigned long long)off, prot);
	p = mmap(NULL, len, prot, MAP_SHARED, b->fd[which], off);
	if (p == MAP_FAILED)
		return;
	g_ok[K_MMAP]++;
	CHECK(!(off & (g_page - 1)), "mmap at unaligned offset %llu worked",
	      (unsigned long long)off);
	CHECK(len && off + page_up(len) <= page_up(b->size) && off + len > off,
	      "mmap of %llu bytes at %llu worked past the end (%llu)",
	      (unsigned long long)len, (unsigned long long)off, (unsigned long long)b->size);
	CHECK(!(which == 1 && (prot & PROT_WRITE)), "a writable shared mapping of a "
	      "read-only file worked");
	n = b->size - off < len ? b->size - off : len;
	for (i = 0; i < n; i += 1 + rn(g_page))
		CHECK(p[i] == b->shadow[off + i], "mapping at %llu: byte %llu is 0x%02x, "
		      "written 0x%02x", (unsigned long long)off, (unsigned long long)i, p[i],
		      b->shadow[off + i]);
	if (prot & PROT_WRITE && n) {
		i = rn(n);
		p[i] = rnd();
		b->shadow[off + i] = p[i];
	}
	munmap(p, len);
}

/* Write through the kept mapping; read it back through read(). */
static void op_map_rw(struct fbuf *b)
{
	uint8_t got;
	uint64_t i;

	if (!b->map) {
		b->maplen = b->size;
		op("mmap %s whole, kept", b->name);
		b->map = mmap(NULL, b->maplen, PROT_READ | PROT_WRITE, MAP_SHARED, b->fd[0], 0);
		CHECK(b->map != MAP_FAILED, "mmap of %s whole: %s", b->name, strerror(errno));
		return;
	}
	i = rn(b->size);
	op("store through the mapping of %s at %llu, read() it", b->name,
	   (unsigned long long)i);
	b->map[i] = rnd();
	b->shadow[i] = b->map[i];
	CHECK(pread(b->fd[rn(3)], &got, 1, i) == 1 && got == b->shadow[i],
	      "read() at %llu after a store through the mapping: 0x%02x, stored 0x%02x",
	      (unsigned long long)i, got, b->shadow[i]);
	g_ok[K_MAPRW]++;
}

static const unsigned long udb_ioctls[] = {
	U_DMA_BUF_IOCTL_GET_DRV_INFO, U_DMA_BUF_IOCTL_GET_SIZE, U_DMA_BUF_IOCTL_GET_DMA_ADDR,
	U_DMA_BUF_IOCTL_GET_SYNC_OWNER, U_DMA_BUF_IOCTL_SET_SYNC_FOR_CPU,
	U_DMA_BUF_IOCTL_SET_SYNC_FOR_DEVICE, U_DMA_BUF_IOCTL_GET_DEV_INFO,
	U_DMA_BUF_IOCTL_GET_SYNC, U_DMA_BUF_IOCTL_SET_SYNC, U_DMA_BUF_IOCTL_EXPORT,
	U_DMA_BUF_IOCTL_IMPORT, U_DMA_BUF_IOCTL_IMPORT_SYNC,
};

/* Fill an ioctl argument with edge values and random flag bits. */
static void fill_args(uint64_t *a, int n, uint64_t size)
{
	int i;

	for (i = 0; i < n; i++) {
		switch (rn(5)) {
		case 0:
			a[i] = rnd();
			break;
		case 1:
			a[i] = 1ULL << rn(64);
			break;
		case 2:
			a[i] = rn(16);
			break;
		default:
			a[i] = edge(size);
			break;
		}
	}
}

/* Any ioctl, or an unknown number; the getters must agree with what we know. */
static void op_ioctl(struct fbuf *b)
{
	uint64_t arg[32] = { 0 };	/* longer than any argument: QUERY has 96 bytes */
	unsigned long cmd = udb_ioctls[rn(ARRAY_SIZE(udb_ioctls))];
	int which = rn(3), r;

	fill_args(arg, 8, b->size);
	if (rn(10) == 0)
		cmd = _IOC(rn(4), 'U', rn(256), rn(64));
	if (cmd == U_DMA_BUF_IOCTL_SET_SYNC_FOR_CPU || cmd == U_DMA_BUF_IOCTL_SET_SYNC_FOR_DEVICE) {
		if (rn(2))
			arg[0] = u_dma_buf_sync_pack(edge(b->size), edge(b->size), rn(4));
	} else if (cmd == U_DMA_BUF_IOCTL_EXPORT) {
		arg[0] = rn(3) ? (rn(2) ? O_RDWR : O_RDONLY) | (rn(2) ? O_CLOEXEC : 0) : rnd();
	} else if (cmd == U_DMA_BUF_IOCTL_IMPORT) {
		arg[0] = (uint32_t)(rn(2) && b->exp[0].fd >= 0 ? (uint64_t)b->exp[0].fd : rn(64)) |
			 (rn(4) << 32);
	}
	op("ioctl %s fd%d 0x%lx {0x%llx 0x%llx 0x%llx 0x%llx}", b->name, which, cmd,
	   (unsigned long long)arg[0], (unsigned long long)arg[1],
	   (unsigned long long)arg[2], (unsigned long long)arg[3]);
	r = ioctl(b->fd[which], cmd, arg);
	if (r < 0)
		return;
	g_ok[K_IOCTL]++;
	if (cmd == U_DMA_BUF_IOCTL_GET_SIZE)
		CHECK(arg[0] == b->size, "GET_SIZE %llu, created %llu",
		      (unsigned long long)arg[0], (unsigned long long)b->size);
	if (cmd == U_DMA_BUF_IOCTL_GET_DEV_INFO)
		CHECK(arg[1] == b->size, "GET_DEV_INFO size %llu, created %llu",
		      (unsigned long long)arg[1], (unsigned long long)b->size);
	if (cmd == U_DMA_BUF_IOCTL_EXPORT) {
		struct u_dma_buf_ioctl_export_args *ea = (void *)arg;

		CHECK(ea->fd >= 0, "EXPORT succeeded with fd %d", ea->fd);
		CHECK(ea->offset <= b->size && ea->size <= b->size - ea->offset,
		      "EXPORT of %llu bytes at %llu worked on %llu bytes",
		      (unsigned long long)ea->size, (unsigned long long)ea->offset,
		      (unsigned long long)b->size);
		close(ea->fd);
	}
	if (cmd == U_DMA_BUF_IOCTL_IMPORT) {
		struct u_dma_buf_ioctl_import_args *ia = (void *)arg;

		CHECK(ia->import_fd >= 0, "IMPORT succeeded with fd %d", ia->import_fd);
		close(ia->import_fd);
	}
}

/* sysfs writes; a canonical number that was taken reads back. */
static void op_sysfs(struct fbuf *b)
{
	static const char *const attrs[] = {
		"sync_offset", "sync_size", "sync_direction", "sync_mode", "sync_for_cpu",
		"sync_for_device", "debug_vma", "debug_export", "size", "sync_owner",
	};
	const char *a = attrs[rn(ARRAY_SIZE(attrs))];
	uint64_t v = rn(3) ? edge(b->size) : rn(9), back = ~0ULL;
	char s[64];
	bool canon;
	int err;

	if (!strcmp(a, "sync_for_cpu") || !strcmp(a, "sync_for_device"))
		v = rn(3) ? u_dma_buf_sync_pack(edge(b->size), edge(b->size), rn(4)) : v;
	num_str(s, sizeof(s), v, &canon);
	op("sysfs %s/%s <- '%s'", b->name, a, s);
	err = -ut_sysfs_write("u-dma-buf", b->name, a, s);
	if (err)
		return;
	g_ok[K_SYSFS]++;
	CHECK(strcmp(a, "size") && strcmp(a, "sync_owner"), "write to read-only %s worked", a);
	if (!canon || strncmp(a, "sync_", 5) || strstr(a, "_for_"))
		return;
	CHECK(ut_sysfs_u64("u-dma-buf", b->name, a, 0, &back) == 0 && back == v,
	      "%s: wrote %llu, reads %llu", a, (unsigned long long)v,
	      (unsigned long long)back);
}

/* Export a range, map it, sync it; its bytes are the shadow's. */
static void op_export(struct fbuf *b)
{
	struct fexp *e = &b->exp[rn(NEXP)];
	struct u_dma_buf_ioctl_export_args ea = { 0 };
	struct dma_buf_sync sy;
	uint64_t i;

	if (e->fd < 0 || rn(4) == 0) {
		exp_close(e);
		ea.flags = O_RDWR | O_CLOEXEC;
		ea.offset = rn(2) ? 0 : rn(b->size / g_page) * g_page;
		ea.size = rn(2) ? b->size - ea.offset : page_up(rn(b->size - ea.offset) + 1);
		if (ea.offset + ea.size > b->size)
			ea.size = b->size - ea.offset;
		op("export %s %llu bytes at %llu", b->name, (unsigned long long)ea.size,
		   (unsigned long long)ea.offset);
		if (ioctl(b->fd[0], U_DMA_BUF_IOCTL_EXPORT, &ea))
			return;
		e->fd = ea.fd;
		e->off = ea.offset;
		e->size = ea.size;
		e->map = mmap(NULL, e->size, PROT_READ | PROT_WRITE, MAP_SHARED, e->fd, 0);
		if (e->map == MAP_FAILED)
			e->map = NULL;
		if (rn(2)) {
			struct u_dma_buf_ioctl_import_args ia = { .fd = e->fd, .flags = rn(3) };

			if (ioctl(b->fd[0], U_DMA_BUF_IOCTL_IMPORT, &ia) == 0)
				e->ifd = ia.import_fd;
		}
		g_ok[K_EXPORT]++;
		return;
	}
	sy.flags = rn(4) ? (rn(2) ? DMA_BUF_SYNC_START : DMA_BUF_SYNC_END) | (1 + rn(3)) :
		   rnd();
	op("DMA_BUF_IOCTL_SYNC 0x%llx on the export of %s at %llu", (unsigned long long)sy.flags,
	   b->name, (unsigned long long)e->off);
	if (ioctl(e->fd, DMA_BUF_IOCTL_SYNC, &sy)) {
		CHECK(sy.flags & ~(uint64_t)DMA_BUF_SYNC_VALID_FLAGS_MASK || !(sy.flags & 3),
		      "DMA_BUF_IOCTL_SYNC with valid flags 0x%llx: %s",
		      (unsigned long long)sy.flags, strerror(errno));
		return;
	}
	CHECK(!(sy.flags & ~(uint64_t)DMA_BUF_SYNC_VALID_FLAGS_MASK) && (sy.flags & 3),
	      "DMA_BUF_IOCTL_SYNC with invalid flags 0x%llx worked",
	      (unsigned long long)sy.flags);
	if (e->ifd >= 0 && rn(2)) {
		struct u_dma_buf_ioctl_import_sync is = { .flags = sy.flags };

		ioctl(e->ifd, U_DMA_BUF_IOCTL_IMPORT_SYNC, &is);
	}
	if (!e->map)
		return;
	for (i = 0; i < e->size; i += 1 + rn(g_page))
		CHECK(e->map[i] == b->shadow[e->off + i], "export mapping at %llu: byte %llu "
		      "is 0x%02x, written 0x%02x", (unsigned long long)e->off,
		      (unsigned long long)i, e->map[i], b->shadow[e->off + i]);
	i = rn(e->size);
	e->map[i] = rnd();
	b->shadow[e->off + i] = e->map[i];
	g_ok[K_EXPORT]++;
}

/* ------------------------------------------------------------- uiomem */

static void uio_init(void)
{
	const char *name = getenv("FUZZ_UIOMEM");
	char path[64];

	if (!name || !*name)
		return;
	snprintf(g_uio_name, sizeof(g_uio_name), "%s", name);
	snprintf(path, sizeof(path), "/dev/%s", name);
	g_uio = open(path, O_RDWR);
	g_uio_ro = open(path, O_RDONLY);
	CHECK(g_uio >= 0 && g_uio_ro >= 0, "open %s: %s", path, strerror(errno));
	CHECK(ioctl(g_uio, UIOMEM_IOCTL_GET_SIZE, &g_uio_size) == 0 && g_uio_size > 0,
	      "GET_SIZE of %s", name);
	g_uio_shadow = malloc(g_uio_size);
	CHECK(g_uio_shadow && ut_pread_all(g_uio, g_uio_shadow, g_uio_size, 0) == 0,
	      "read %s whole", name);
}

static void op_uio(void)
{
	static uint8_t tmp[3 * 65536];
	uint64_t off = edge(g_uio_size);
	size_t len = xfer_len(g_uio_size, sizeof(tmp)), i;
	int fd = rn(4) ? g_uio : g_uio_ro;
	ssize_t r;

	switch (rn(6)) {
	case 0:
		op("uiomem pread %zu bytes at %llu", len, (unsigned long long)off);
		r = pread(fd, tmp, len, off);
		if (r <= 0)
			return;
		CHECK(off < g_uio_size && (uint64_t)r <= g_uio_size - off,
		      "uiomem pread gave %zd bytes at %llu of %llu", r, (unsigned long long)off,
		      (unsigned long long)g_uio_size);
		CHECK(!memcmp(tmp, g_uio_shadow + off, r), "uiomem pread of %zd bytes at %llu "
		      "differs from what was written", r, (unsigned long long)off);
		break;
	case 1:
		for (i = 0; i < len; i++)
			tmp[i] = rnd();
		op("uiomem pwrite %zu bytes at %llu%s", len, (unsigned long long)off,
		   fd == g_uio_ro ? " (read-only)" : "");
		r = pwrite(fd, tmp, len, off);
		if (r <= 0)
			return;
		CHECK(fd == g_uio, "uiomem pwrite on a read-only file worked");
		CHECK(off < g_uio_size && (uint64_t)r <= g_uio_size - off,
		      "uiomem pwrite wrote %zd bytes at %llu of %llu", r,
		      (unsigned long long)off, (unsigned long long)g_uio_size);
		memcpy(g_uio_shadow + off, tmp, r);
		break;
	case 2: {
		struct uiomem_sync s = { 0 };
		bool inval, valid;
		int err;

		s.flags = rn(4) ? (rn(2) ? UIOMEM_SYNC_END : 0) | rn(4) : rnd();
		s.offset = edge(g_uio_size);
		s.length = edge(g_uio_size);
		if (rn(8) == 0)
			s.reserved[rn(2)] = 1;
		if (rn(8) == 0)
			s.__pad = 1;
		valid = !(s.flags & ~UIOMEM_SYNC_VALID_FLAGS) && (s.flags & UIOMEM_SYNC_RW) &&
			!s.__pad && !s.reserved[0] && !s.reserved[1] && s.offset <= g_uio_size &&
			s.length <= g_uio_size - s.offset;
		inval = (s.flags & UIOMEM_SYNC_READ) &&
			((s.flags & UIOMEM_SYNC_END) ? !(s.flags & UIOMEM_SYNC_WRITE) : 1);
		op("uiomem SYNC flags 0x%x offset %llu length %llu%s", s.flags,
		   (unsigned long long)s.offset, (unsigned long long)s.length,
		   fd == g_uio_ro ? " (read-only)" : "");
		err = ioctl(fd, UIOMEM_IOCTL_SYNC, &s) ? errno : 0;
		if (valid && !(inval && fd == g_uio_ro))
			CHECK(err == 0, "uiomem SYNC as documented failed: %s", strerror(err));
		else if (!valid)
			CHECK(err == EINVAL || (err == EBADF && inval && fd == g_uio_ro),
			      "uiomem SYNC out of its rules: %s, want EINVAL",
			      err ? strerror(err) : "success");
		else
			CHECK(err == EBADF, "uiomem invalidating SYNC on a read-only file: %s, "
			      "want EBADF", err ? strerror(err) : "success");
		break;
	}
	case 3: {
		struct uiomem_export x = { 0 };
		bool valid, wr;
		int err, acc;

		x.flags = rn(4) ? (rn(3)) | (rn(2) ? O_CLOEXEC : 0) : rnd();
		x.offset = rn(2) ? rn(g_uio_size / g_page) * g_page : edge(g_uio_size);
		x.size = rn(2) ? page_up(rn(g_uio_size - (x.offset < g_uio_size ? x.offset : 0))
					 + 1) : edge(g_uio_size);
		acc = x.flags & O_ACCMODE;
		wr = acc == O_WRONLY || acc == O_RDWR;
		valid = !(x.flags & ~(uint32_t)(O_CLOEXEC | O_ACCMODE)) && acc != 3 &&
			!(x.offset & (g_page - 1)) && !(x.size & (g_page - 1)) && x.size &&
			x.offset <= g_uio_size && x.size <= g_uio_size - x.offset;
		op("uiomem EXPORT flags 0x%x offset %llu size %llu%s", x.flags,
		   (unsigned long long)x.offset, (unsigned long long)x.size,
		   fd == g_uio_ro ? " (read-only)" : "");
		err = ioctl(fd, UIOMEM_IOCTL_EXPORT, &x) ? errno : 0;
		if (!err)
			close(x.fd);
		if (!valid)
			CHECK(err == EINVAL || (err == EACCES && wr && fd == g_uio_ro),
			      "uiomem EXPORT out of its rules: %s, want EINVAL",
			      err ? strerror(err) : "success");
		else if (wr && fd == g_uio_ro)
			CHECK(err == EACCES, "uiomem writable EXPORT of a read-only file: %s",
			      err ? strerror(err) : "success");
		else
			CHECK(err == 0 || err == EOPNOTSUPP || err == ENOMEM,
			      "uiomem EXPORT as documented failed: %s", strerror(err));
		break;
	}
	case 4: {
		uint64_t arg[32] = { 0 };	/* longer than any argument: QUERY has 96 bytes */
		unsigned long cmd;
		static const unsigned long c[] = {
			UIOMEM_IOCTL_GET_DRV_INFO, UIOMEM_IOCTL_GET_SIZE,
			UIOMEM_IOCTL_GET_PHYS_ADDR, UIOMEM_IOCTL_GET_SYNC_OWNER,
			UIOMEM_IOCTL_SET_SYNC_FOR_CPU, UIOMEM_IOCTL_SET_SYNC_FOR_DEVICE,
			UIOMEM_IOCTL_GET_DEV_INFO, UIOMEM_IOCTL_GET_SYNC, UIOMEM_IOCTL_SET_SYNC,
			UIOMEM_IOCTL_QUERY,
		};

		fill_args(arg, 8, g_uio_size);
		cmd = rn(10) ? c[rn(ARRAY_SIZE(c))] : _IOC(rn(4), rn(2) ? 'u' : 'U', rn(256),
							   rn(64));
		op("uiomem ioctl 0x%lx {0x%llx 0x%llx 0x%llx}", cmd, (unsigned long long)arg[0],
		   (unsigned long long)arg[1], (unsigned long long)arg[2]);
		if (ioctl(fd, cmd, arg))
			return;
		if (cmd == UIOMEM_IOCTL_GET_SIZE)
			CHECK(arg[0] == g_uio_size, "uiomem GET_SIZE changed: %llu",
			      (unsigned long long)arg[0]);
		if (cmd == UIOMEM_IOCTL_QUERY)
			CHECK(arg[0] == g_uio_size, "uiomem QUERY size %llu, GET_SIZE %llu",
			      (unsigned long long)arg[0], (unsigned long long)g_uio_size);
		break;
	}
	default: {
		uint64_t moff = edge(g_uio_size) & ~(uint64_t)(g_page - 1);
		uint64_t mlen = edge(g_uio_size);
		uint8_t *p;

		if (mlen > (64ULL << 20))
			mlen = 64ULL << 20;
		mlen = (size_t)mlen;
		op("uiomem mmap %llu bytes at %llu", (unsigned long long)mlen,
		   (unsigned long long)moff);
		p = mmap(NULL, mlen, PROT_READ, MAP_SHARED, fd, moff);
		if (p == MAP_FAILED)
			return;
		CHECK(mlen && moff + page_up(mlen) <= page_up(g_uio_size),
		      "uiomem mmap of %llu bytes at %llu worked past the end (%llu)",
		      (unsigned long long)mlen, (unsigned long long)moff,
		      (unsigned long long)g_uio_size);
		for (i = 0; i + moff < g_uio_size && i < mlen; i += 1 + rn(g_page))
			CHECK(p[i] == g_uio_shadow[moff + i], "uiomem mapping at %llu: byte %zu "
			      "is 0x%02x, written 0x%02x", (unsigned long long)moff, i, p[i],
			      g_uio_shadow[moff + i]);
		munmap(p, mlen);
		break;
	}
	}
	g_ok[K_UIO]++;
}

/* --------------------------------------------------------- u-dma-chan */

/*
 * A DMA channel of u-dma-chan, made through its manager (FUZZ_DMA=1 says
 * one can be: suite.sh tried).  The channel's engine is slow on QEMU (the
 * edu device moves a chunk of up to 4 KiB in 100 ms), so the transfers it
 * may run are counted in chunks (FUZZ_DMA_CHUNKS, default 64); a batch that
 * would run more is made invalid (a reserved field set) and only checked
 * for its refusal.  Every batch accepted is waited for before the next
 * operation: no choice depends on timing.
 */
#define CMGR		"/dev/u-dma-chan-mgr"
#define CCLS		"u-dma-chan"
#define NFENCE		4		/* fences of past batches kept open */
#define NREC		4096		/* records the driver keeps for read() */
#define NSTAT		64		/* statuses of the last batches we know */
#define CHUNK		4032		/* bytes the edu engine moves at once */

static int g_cmgr = -1;			/* the channel manager; -1: no channel */
static char g_cname[32];		/* our channel, "" when none */
static unsigned long g_cnames;		/* for fresh channel names */
static int g_cfd = -1;			/* the channel open, or -1 */
static bool g_cnonblock;		/* g_cfd is O_NONBLOCK */
static bool g_cgone;			/* deleted while open */
static struct u_dma_chan_info g_cinfo;
static uint64_t g_cseq;			/* the last batch of this open file */
static int g_cstat[NSTAT];		/* its statuses: [seq % NSTAT] */
static uint64_t g_csub;			/* batches the channel ran since made */
static uint64_t g_rseq[NREC];		/* records to read: a ring */
static int g_rst[NREC];
static unsigned int g_rhead, g_rn;
static int g_fence[NFENCE];
static long g_dma_left;			/* chunks the engine may still move */
static int g_rexp = -1;			/* a writable export of the region, whole */
static int g_file = -1;			/* a regular file */
static unsigned long g_sub[3];		/* batches refused, run, data checked */
static uint32_t g_cwidth[2];		/* SLAVE_CONFIG width, DEV_TO_MEM and MEM_TO_DEV */

/* What a transfer names as its source or destination. */
struct dref {
	int fd;
	uint8_t *shadow;	/* its bytes' shadow (NULL: not a DMA-BUF we know) */
	uint64_t size;		/* its DMA-BUF's size */
	int rfd;		/* a file to pread its bytes from, at base */
	uint64_t base;
	const void *obj;	/* the memory below it */
	unsigned int bad;	/* why it cannot be used (R_*), 0 if it can */
	bool ro;		/* an O_RDONLY DMA-BUF: EACCES as a destination */
	char what[24];
};

/* reasons for a refusal, as errnos of SUBMIT */
enum { R_EBADF = 1, R_EINVAL = 2, R_EACCES = 4, R_EOPNOTSUPP = 8 };

static bool err_in(int err, unsigned int mask)
{
	return (err == EBADF && mask & R_EBADF) || (err == EINVAL && mask & R_EINVAL) ||
	       (err == EACCES && mask & R_EACCES) || (err == EOPNOTSUPP && mask & R_EOPNOTSUPP);
}

static bool status_known(int st)
{
	return st == 0 || st == -EIO || st == -ECANCELED || st == -ENODEV || st == -EBUSY;
}

static void rec_push(uint64_t seq, int st)
{
	if (g_rn == NREC) {		/* the driver drops the oldest */
		g_rhead = (g_rhead + 1) % NREC;
		g_rn--;
	}
	g_rseq[(g_rhead + g_rn) % NREC] = seq;
	g_rst[(g_rhead + g_rn) % NREC] = st;
	g_rn++;
}

static void chan_open(void)
{
	char path[64];

	snprintf(path, sizeof(path), "/dev/%s", g_cname);
	g_cnonblock = rn(2);
	op("open %s%s", path, g_cnonblock ? " O_NONBLOCK" : "");
	g_cfd = open(path, (rn(2) ? O_RDWR : O_RDONLY) | (g_cnonblock ? O_NONBLOCK : 0));
	CHECK(g_cfd >= 0, "open %s, not open elsewhere: %s", path, strerror(errno));
	g_cseq = 0;
	g_rn = 0;
	g_cgone = false;
	g_cwidth[0] = 0;
	g_cwidth[1] = 0;
	memset(&g_cinfo, 0, sizeof(g_cinfo));
	CHECK(ioctl(g_cfd, U_DMA_CHAN_IOCTL_INFO, &g_cinfo) == 0, "INFO of %s: %s", g_cname,
	      strerror(errno));
	CHECK(g_cinfo.abi_version == U_DMA_CHAN_ABI_VERSION &&
	      g_cinfo.max_batch == U_DMA_CHAN_MAX_BATCH && !strcmp(g_cinfo.name, g_cname) &&
	      g_cinfo.copy_align && !(g_cinfo.copy_align & (g_cinfo.copy_align - 1)) &&
	      g_cinfo.caps & U_DMA_CHAN_CAP_MEMCPY && g_cinfo.max_segment,
	      "INFO of %s: abi %u batch %u name '%.60s' align %u caps 0x%llx", g_cname,
	      g_cinfo.abi_version, g_cinfo.max_batch, g_cinfo.name, g_cinfo.copy_align,
	      (unsigned long long)g_cinfo.caps);
}

static void chan_close(void)
{
	if (g_cfd < 0)
		return;
	op("close %s", g_cname);
	close(g_cfd);
	g_cfd = -1;
	g_rn = 0;
	if (g_cgone) {		/* its name is free now */
		g_cname[0] = '\0';
		g_cgone = false;
	}
}

static int cmgr_write(const char *cmd, size_t len)
{
	ssize_t n = write(g_cmgr, cmd, len);

	return n < 0 ? errno : 0;
}

/* A fresh channel by the manager, opened. */
static void chan_create(void)
{
	char cmd[96];
	int err;

	snprintf(g_cname, sizeof(g_cname), "fuzz-c%lu", g_cnames++);
	snprintf(cmd, sizeof(cmd), "create %s memcpy\n", g_cname);
	op("channel manager '%s'", cmd);
	err = cmgr_write(cmd, strlen(cmd));
	CHECK(err == 0, "'%.60s' with a free channel: %s", cmd, strerror(err));
	g_csub = 0;
	chan_open();
}

/* The manager deletes our channel; its file, if open, stays so. */
static void chan_delete(void)
{
	char cmd[96];
	int err;

	snprintf(cmd, sizeof(cmd), "delete %s\n", g_cname);
	op("channel manager '%s'%s", cmd, g_cfd >= 0 ? " (open)" : "");
	err = cmgr_write(cmd, strlen(cmd));
	CHECK(err == 0, "'%.60s': %s", cmd, strerror(err));
	CHECK(!ut_sysfs_exists(CCLS, g_cname) || g_cfd >= 0, "%s is still there after delete",
	      g_cname);
	g_cgone = g_cfd >= 0;
	if (g_cfd < 0)
		g_cname[0] = '\0';
}

/*
 * Let go of the buffers' DMA-BUFs the channel still maps, so that a buffer
 * whose files are closed can be deleted: a WAIT trims them, a close drops
 * them.
 */
static void chan_let_go(void)
{
	struct u_dma_chan_wait w = { .timeout_ns = -1 };

	if (g_cfd < 0)
		return;
	if (g_cgone || !g_cseq) {
		chan_close();
		return;
	}
	CHECK(ioctl(g_cfd, U_DMA_CHAN_IOCTL_WAIT, &w) == 0, "WAIT for the last batch: %s",
	      strerror(errno));
}

static void chan_init(void)
{
	const char *v = getenv("FUZZ_DMA");
	int i;

	for (i = 0; i < NFENCE; i++)
		g_fence[i] = -1;
	if (!v || strcmp(v, "1"))
		return;
	g_dma_left = strtol(ut_env("FUZZ_DMA_CHUNKS", "64"), NULL, 0);
	g_cmgr = open(CMGR, O_WRONLY);
	CHECK(g_cmgr >= 0, "open %s: %s", CMGR, strerror(errno));
	g_file = open("/tmp/fuzz-file", O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(g_file >= 0 && ftruncate(g_file, 65536) == 0, "a regular file: %s",
	      strerror(errno));
	chan_create();
	if (g_uio >= 0) {
		struct uiomem_export x = { .flags = O_RDWR | O_CLOEXEC, .size = g_uio_size };
		uint64_t phys = ~0ULL;

		/* the region as a DMA-BUF, if the engine reaches it (no IOMMU here) */
		if (ioctl(g_uio, UIOMEM_IOCTL_GET_PHYS_ADDR, &phys) == 0 &&
		    phys + g_uio_size - 1 <= g_cinfo.dma_mask &&
		    ioctl(g_uio, UIOMEM_IOCTL_EXPORT, &x) == 0)
			g_rexp = x.fd;
		else
			printf("# fuzz: region at 0x%llx: no DMA-BUF for %s (mask 0x%llx)\n",
			       (unsigned long long)phys, g_cinfo.device,
			       (unsigned long long)g_cinfo.dma_mask);
	}
}

static void chan_fini(void)
{
	char path[300];
	DIR *d;
	struct dirent *e;
	int i;

	if (g_cmgr < 0)
		return;
	printf("# fuzz: %s: %lu batches refused, %lu run (%lu copies checked), %ld chunks of "
	       "the budget left%s\n", g_cinfo.channel, g_sub[0], g_sub[1], g_sub[2], g_dma_left,
	       g_rexp < 0 ? "" : ", the region among the DMA-BUFs");
	for (i = 0; i < NFENCE; i++)
		if (g_fence[i] >= 0)
			close(g_fence[i]);
	if (g_cname[0]) {
		if (!g_cgone && g_cfd >= 0 && rn(2))
			chan_close();
		chan_delete();
	}
	chan_close();
	if (g_rexp >= 0)
		close(g_rexp);
	close(g_file);
	unlink("/tmp/fuzz-file");
	close(g_cmgr);
	d = opendir("/sys/class/" CCLS);
	while (d && (e = readdir(d))) {
		snprintf(path, sizeof(path), "%s", e->d_name);
		CHECK(strncmp(path, "fuzz", 4), "channel %s left behind", path);
	}
	if (d)
		closedir(d);
}

/* A source or destination of a transfer: a DMA-BUF of ours, or the wrong kind of fd. */
static void pick_ref(struct dref *r, struct fbuf **ro_of, int *ro_fd, bool clean)
{
	struct fbuf *b = pick_buf();
	struct fexp *e = b ? &b->exp[rn(NEXP)] : NULL;
	unsigned int k = rn(clean ? 20 : 24);
	int fd;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	if (k >= 17 && k < 20 && g_rexp < 0)
		k = 0;
	if (k < 17) {
		if (!e || e->fd < 0) {
			snprintf(r->what, sizeof(r->what), "no-export");
			r->bad = R_EBADF;
			return;
		}
		r->fd = e->fd;
		r->shadow = b->shadow + e->off;
		r->size = e->size;
		r->rfd = b->fd[0];
		r->base = e->off;
		r->obj = b;
		snprintf(r->what, sizeof(r->what), "%.8s@%llu", b->name + 5,
			 (unsigned long long)e->off);
		return;
	}
	switch (k) {
	case 17: case 18: case 19:
		r->fd = g_rexp;
		r->shadow = g_uio_shadow;
		r->size = g_uio_size;
		r->rfd = g_uio;
		r->obj = g_uio_shadow;
		snprintf(r->what, sizeof(r->what), "region");
		return;
	case 20:	/* a read-only export, closed after the submit */
		if (b && *ro_fd < 0) {
			struct u_dma_buf_ioctl_export_args ea = {
				.flags = O_RDONLY | O_CLOEXEC, .size = b->size,
			};

			if (ioctl(b->fd[0], U_DMA_BUF_IOCTL_EXPORT, &ea) == 0) {
				*ro_fd = ea.fd;
				*ro_of = b;
			}
		}
		if (*ro_fd >= 0) {
			b = *ro_of;
			r->fd = *ro_fd;
			r->shadow = b->shadow;
			r->size = b->size;
			r->rfd = b->fd[0];
			r->obj = b;
			r->ro = true;
			snprintf(r->what, sizeof(r->what), "ro-%.8s", b->name + 5);
			return;
		}
		r->bad = R_EBADF;
		snprintf(r->what, sizeof(r->what), "no-ro-export");
		return;
	case 21:	/* files that are not DMA-BUFs */
		{
			int wrong[] = { g_file, g_cfd, g_cmgr, b ? b->fd[0] : g_file, g_mgr,
					g_fence[0] >= 0 ? g_fence[0] : g_file };

			fd = wrong[rn(ARRAY_SIZE(wrong))];
		}
		r->fd = fd;
		r->bad = fd >= 0 ? R_EINVAL : R_EBADF;
		snprintf(r->what, sizeof(r->what), "not-dmabuf-%d", fd);
		return;
	default:	/* no file */
		/* numbers far above what the fuzzer opens: a later open cannot take them */
		{
			static const int none[] = { -1, 1 << 20, INT32_MAX, INT32_MIN };

			fd = none[rn(ARRAY_SIZE(none))];
		}
		if (rn(2))
			fd = 900 + rn(100);
		if (fd >= 0 && fd < 1000)
			CHECK(fcntl(fd, F_GETFD) < 0, "fd %d is open", fd);
		r->fd = fd;
		r->bad = R_EBADF;
		snprintf(r->what, sizeof(r->what), "closed-%d", fd);
		return;
	}
}

/* An offset and length in an object of @size bytes: mostly fit, else at the edges. */
static void pick_range(uint64_t size, uint64_t align, uint64_t *off, uint64_t *len,
		       bool clean)
{
	uint64_t maxlen = size < 2048 ? size : 2048;

	if (clean || rn(4)) {
		*len = (1 + rn(maxlen / align)) * align;
		*off = rn((size - *len) / align + 1) * align;
		if (!clean && rn(6) == 0 && align > 1)
			*(rn(2) ? off : len) |= 1 + rn(align - 1);	/* unaligned */
		return;
	}
	*off = rn(3) ? edge(size) : rn(2) ? size - align : 0;
	switch (rn(8)) {
	case 0:
		*len = 0;
		break;
	case 1:
		*len = size - *off;
		break;
	case 2:
		*len = size - *off + align;
		break;
	case 3:
		*len = ~0ULL - *off + 1 + rn(2) * align;	/* wraps */
		break;
	default:
		*len = edge(size);
		break;
	}
}

static bool overlap(uint64_t a, uint64_t b, uint64_t len)
{
	return a < b + len && b < a + len;
}

/* Why the kernel must refuse transfer @x (R_*), 0 when it must take it. */
static unsigned int xfer_bad(const struct u_dma_chan_xfer *x, const struct dref *s,
			     const struct dref *d)
{
	bool cyclic = x->flags & U_DMA_CHAN_XFER_CYCLIC;
	uint64_t caps = g_cinfo.caps, align = g_cinfo.copy_align, end;
	unsigned int bad = 0;
	bool need_s = true, need_d = true;

	if (x->reserved[0] || x->reserved[1] || x->flags & ~U_DMA_CHAN_XFER_FLAGS ||
	    !x->length || (!cyclic && x->period))
		bad |= R_EINVAL;
	switch (x->op) {
	case U_DMA_CHAN_OP_MEMCPY:
		if (cyclic)
			bad |= R_EINVAL;
		break;
	case U_DMA_CHAN_OP_DEV_TO_MEM:
		need_s = false;
		align = 1;
		if (x->src_fd != -1 || x->src_offset)
			bad |= R_EINVAL;
		if (!(caps & U_DMA_CHAN_CAP_DEV_TO_MEM))
			bad |= R_EOPNOTSUPP;
		break;
	case U_DMA_CHAN_OP_MEM_TO_DEV:
		need_d = false;
		align = 1;
		if (x->dst_fd != -1 || x->dst_offset)
			bad |= R_EINVAL;
		if (!(caps & U_DMA_CHAN_CAP_MEM_TO_DEV))
			bad |= R_EOPNOTSUPP;
		break;
	default:
		return bad | R_EINVAL;
	}
	if (cyclic && (!x->period || x->length % x->period))
		bad |= R_EINVAL;
	if (cyclic && !(caps & U_DMA_CHAN_CAP_CYCLIC))
		bad |= R_EOPNOTSUPP;
	if (need_s) {
		bad |= s->bad;
		if (!s->bad && (__builtin_add_overflow(x->src_offset, x->length, &end) ||
				end > s->size || (x->src_offset | x->length) & (align - 1)))
			bad |= R_EINVAL;
	}
	if (need_d) {
		bad |= d->bad | (d->ro ? R_EACCES : 0);
		if (!d->bad && (__builtin_add_overflow(x->dst_offset, x->length, &end) ||
				end > d->size || (x->dst_offset | x->length) & (align - 1)))
			bad |= R_EINVAL;
	}
	if (need_s && need_d && !s->bad && s->fd == d->fd &&
	    overlap(x->src_offset, x->dst_offset, x->length))
		bad |= R_EINVAL;
	return bad;
}

/* Wait for batch @seq by its fence and WAIT; its status. */
static int chan_complete(uint64_t seq, int fence)
{
	struct u_dma_chan_wait w = { .seq = seq, .timeout_ns = -1 };
	struct pollfd p = { .fd = fence, .events = POLLIN };
	int r;

	if (fence >= 0) {
		do
			r = poll(&p, 1, -1);
		while (r < 0 && errno == EINTR);
		CHECK(r == 1 && p.revents & POLLIN, "poll of batch %llu's fence: %d 0x%x",
		      (unsigned long long)seq, r, p.revents);
	}
	CHECK(ioctl(g_cfd, U_DMA_CHAN_IOCTL_WAIT, &w) == 0, "WAIT for batch %llu: %s",
	      (unsigned long long)seq, strerror(errno));
	CHECK(w.completed == seq, "WAIT: %llu batches completed, %llu submitted",
	      (unsigned long long)w.completed, (unsigned long long)seq);
	CHECK(status_known(w.status), "batch %llu completed with status %d, not one "
	      "docs/dma.md lists", (unsigned long long)seq, w.status);
	if (fence >= 0) {
		struct sync_file_info fi = { 0 };

		CHECK(ioctl(fence, SYNC_IOC_FILE_INFO, &fi) == 0 &&
		      fi.status == (w.status ? w.status : 1),
		      "the fence of batch %llu: status %d, WAIT says %d",
		      (unsigned long long)seq, fi.status, w.status);
	}
	return w.status;
}

/* Compare [off, off + len) of @r with its shadow; with @adopt, take the bytes instead. */
static void ref_compare(const struct dref *r, uint64_t off, uint64_t len, bool adopt,
			const char *when)
{
	static uint8_t tmp[65536];
	uint64_t i, n;

	while (len) {
		n = len < sizeof(tmp) ? len : sizeof(tmp);
		CHECK(ut_pread_all(r->rfd, tmp, n, r->base + off) == 0, "read back %s: %s",
		      r->what, strerror(errno));
		if (adopt) {
			memcpy(r->shadow + off, tmp, n);
		} else if (memcmp(tmp, r->shadow + off, n)) {
			for (i = 0; tmp[i] == r->shadow[off + i]; i++)
				;
			broken("%s: %s byte %llu is 0x%02x, want 0x%02x", when, r->what,
			       (unsigned long long)(off + i), tmp[i], r->shadow[off + i]);
		}
		off += n;
		len -= n;
	}
}

/* Do [a, a + la) of oa and [b, b + lb) of ob share memory? */
static bool mem_overlap(const void *oa, uint64_t a, uint64_t la, const void *ob, uint64_t b,
			uint64_t lb)
{
	return oa && oa == ob && a < b + lb && b < a + la;
}

/* Does transfer j touch memory transfer i wrote, or write memory i touched? */
static bool xfer_hazard(const struct u_dma_chan_xfer *xi, const struct dref *si,
			const struct dref *di, const struct u_dma_chan_xfer *xj,
			const struct dref *sj, const struct dref *dj)
{
	bool ri = xi->op != U_DMA_CHAN_OP_DEV_TO_MEM, wi = xi->op != U_DMA_CHAN_OP_MEM_TO_DEV;
	bool rj = xj->op != U_DMA_CHAN_OP_DEV_TO_MEM, wj = xj->op != U_DMA_CHAN_OP_MEM_TO_DEV;
	uint64_t ai = si->base + xi->src_offset, bi = di->base + xi->dst_offset;
	uint64_t aj = sj->base + xj->src_offset, bj = dj->base + xj->dst_offset;

	return (wi && rj && mem_overlap(di->obj, bi, xi->length, sj->obj, aj, xj->length)) ||
	       (wi && wj && mem_overlap(di->obj, bi, xi->length, dj->obj, bj, xj->length)) ||
	       (ri && wj && mem_overlap(si->obj, ai, xi->length, dj->obj, bj, xj->length));
}

/* SUBMIT a batch of 1..4 transfers (or an odd count) and check what comes of it. */
static void chan_submit(void)
{
	static struct u_dma_chan_xfer x[U_DMA_CHAN_MAX_BATCH + 2];
	static struct dref s[U_DMA_CHAN_MAX_BATCH + 2], d[U_DMA_CHAN_MAX_BATCH + 2];
	struct u_dma_chan_submit sub = { 0 };
	unsigned int n = 1 + rn(4), i, bad = 0, first = 0, sbad = 0;
	struct fbuf *ro_of = NULL;
	int ro_fd = -1, err, st, fence;
	bool weird = false, term, forced = false, clean = rn(2), stall = false, wcyc = false;
	long cost = 0;
	uint64_t cnt;

	/* a clean batch has good DMA-BUFs and ranges, and no field set wrong on purpose */
	switch (clean ? 2 : rn(16)) {
	case 0:
		n = 0;
		break;
	case 1:
		n = rn(2) ? U_DMA_CHAN_MAX_BATCH + 1 : U_DMA_CHAN_MAX_BATCH;
		break;
	}
	cnt = n;
	for (i = 0; i < n && i < ARRAY_SIZE(x); i++) {
		struct u_dma_chan_xfer *t = &x[i];
		unsigned int o = rn(10);

		memset(t, 0, sizeof(*t));
		if (i >= 4) {			/* a big batch: copies of the first */
			*t = x[i % 4];
			s[i] = s[i % 4];
			d[i] = d[i % 4];
			continue;
		}
		if (clean)
			o %= 9;
		t->op = o < 7 ? U_DMA_CHAN_OP_MEMCPY : o < 8 ? U_DMA_CHAN_OP_DEV_TO_MEM :
			o < 9 ? U_DMA_CHAN_OP_MEM_TO_DEV : (rn(2) ? 3 : (uint32_t)rnd());
		pick_ref(&s[i], &ro_of, &ro_fd, clean);
		pick_ref(&d[i], &ro_of, &ro_fd, clean);
		if (t->op == U_DMA_CHAN_OP_MEMCPY || t->op > 2) {
			uint64_t sz = s[i].bad ? 65536 : s[i].size, off, len;

			pick_range(sz < (d[i].bad ? 65536 : d[i].size) ? sz :
				   (d[i].bad ? 65536 : d[i].size), g_cinfo.copy_align,
				   &off, &len, clean);
			t->src_offset = off;
			t->length = len;
			t->dst_offset = clean || rn(4) ? rn(((d[i].bad ? 65536 : d[i].size) -
						     (t->length < d[i].size ? t->length : 0)) /
						    g_cinfo.copy_align + 1) * g_cinfo.copy_align :
				edge(d[i].size);
			if (rn(8) == 0) {	/* the same DMA-BUF, overlapping or not */
				d[i] = s[i];
				t->dst_offset = t->src_offset + rn(2) * t->length +
						(rn(2) ? -1 : 1) * rn(3) * g_cinfo.copy_align;
			}
		} else {
			/*
			 * Slave transfers stay 4-byte aligned: edu's prep refuses
			 * others, which costs 5 s of a stalled submit.
			 */
			struct dref *m = t->op == U_DMA_CHAN_OP_DEV_TO_MEM ? &d[i] : &s[i];
			uint64_t sz = m->bad ? 65536 : m->size, off, len;

			pick_range(sz, 4, &off, &len, clean);
			off &= ~3ULL;
			len &= ~3ULL;
			if (t->op == U_DMA_CHAN_OP_DEV_TO_MEM) {
				t->dst_offset = off;
				s[i].fd = -1;
				s[i].bad = 0;
				if (!clean && rn(8) == 0)
					s[i].fd = rn(2) ? 0 : g_file;
				t->src_fd = s[i].fd;
			} else {
				t->src_offset = off;
				d[i].fd = clean || rn(8) ? -1 : g_file;
				d[i].bad = 0;
				t->dst_fd = d[i].fd;
			}
			t->length = len;
			if (rn(3) == 0) {
				t->flags |= U_DMA_CHAN_XFER_CYCLIC;
				t->period = clean || rn(4) ? len / (1 + rn(4)) & ~3ULL : rnd();
			}
		}
		if (t->op != U_DMA_CHAN_OP_DEV_TO_MEM || (!clean && rn(8) == 0))
			t->src_fd = s[i].fd;
		if (t->op != U_DMA_CHAN_OP_MEM_TO_DEV || (!clean && rn(8) == 0))
			t->dst_fd = d[i].fd;
		if (rn(3) == 0)
			t->flags |= U_DMA_CHAN_XFER_NO_SYNC;
		if (clean)
			continue;
		if (rn(16) == 0)
			t->flags |= 1u << rn(32);
		if (rn(16) == 0)
			t->period = rn(2) ? t->length : rnd();
		if (rn(16) == 0)
			t->reserved[rn(2)] = 1ULL << rn(64);
	}
	for (i = 0; i < n && i < ARRAY_SIZE(x); i++) {
		unsigned int why = xfer_bad(&x[i], &s[i], &d[i]);

		if (why && !bad) {
			bad = why;
			first = i;
		}
		if ((x[i].op == U_DMA_CHAN_OP_DEV_TO_MEM || x[i].op == U_DMA_CHAN_OP_MEM_TO_DEV) &&
		    g_cwidth[x[i].op - 1] && g_cwidth[x[i].op - 1] != 4)
			stall = true;
		if (x[i].flags & U_DMA_CHAN_XFER_CYCLIC)
			cost += 4;
		else if (x[i].length)
			cost += (1 + (x[i].length - 1) / CHUNK) *
				(x[i].op == U_DMA_CHAN_OP_MEMCPY ? 2 : 1);
		if (d[i].obj && s[i].obj == d[i].obj && s[i].fd != d[i].fd &&
		    overlap(s[i].base + x[i].src_offset, d[i].base + x[i].dst_offset,
			    x[i].length))
			weird = true;	/* the same memory through two DMA-BUFs */
	}
	sub.xfers = (uintptr_t)x;
	sub.count = n;
	sub.flags = rn(2) ? U_DMA_CHAN_SUBMIT_FENCE_FD : 0;
	if (rn(4) == 0)
		sub.flags |= U_DMA_CHAN_SUBMIT_NO_EVENT;
	if (rn(8) == 0)
		sub.flags |= U_DMA_CHAN_SUBMIT_WAIT;
	if (!clean && rn(16) == 0)
		sub.flags |= 1u << rn(32);
	if (!clean && rn(16) == 0)
		sub.status = 1;
	if (!clean && rn(16) == 0)
		sub.reserved[rn(2)] = 1;
	if (!clean && rn(24) == 0) {
		sub.xfers = rn(2) ? 0 : (uintptr_t)-4096;
		cnt = 1 + rn(4);
		sub.count = cnt;
	}
	sub.fence_fd = rnd();
	sub.seq = rnd();
	if (!bad && cnt && cnt <= U_DMA_CHAN_MAX_BATCH && sub.xfers == (uintptr_t)x &&
	    (cost > g_dma_left || stall)) {
		/*
		 * Over the budget, or a slave transfer of a width edu's engine
		 * does not take (4 bytes only: its prep fails, and the driver
		 * waits 5 s for descriptors before the batch ends with EBUSY):
		 * made invalid, it must be refused.
		 */
		sub.reserved[1] = 1;
		forced = true;
	}
	if (sub.flags & ~U_DMA_CHAN_SUBMIT_FLAGS || sub.status || sub.reserved[0] ||
	    sub.reserved[1] || !cnt)
		sbad = R_EINVAL;
	/* SUBMIT_WAIT refuses a cyclic transfer once the ones before it passed */
	if (sub.flags & U_DMA_CHAN_SUBMIT_WAIT)
		for (i = 0; i < n && i < ARRAY_SIZE(x) && (!bad || i < first); i++)
			wcyc |= !!(x[i].flags & U_DMA_CHAN_XFER_CYCLIC);
	term = rn(8) == 0;
	op("SUBMIT %u transfer(s) flags 0x%x%s: %s op %u fl 0x%x %s+%llu -> %s+%llu len %llu "
	   "period %llu%s", sub.count, sub.flags, sbad ? " (bad header)" : "",
	   bad ? "bad" : "good", x[0].op, x[0].flags, s[0].what,
	   (unsigned long long)x[0].src_offset, d[0].what, (unsigned long long)x[0].dst_offset,
	   (unsigned long long)x[0].length, (unsigned long long)x[0].period,
	   forced ? " (made invalid)" : "");
	err = ioctl(g_cfd, U_DMA_CHAN_IOCTL_SUBMIT, &sub) ? errno : 0;
	if (ro_fd >= 0)
		close(ro_fd);
	if (sbad)
		CHECK(err == EINVAL, "SUBMIT with a bad header: %s, want EINVAL",
		      err ? strerror(err) : "success");
	else if (cnt > U_DMA_CHAN_MAX_BATCH)
		CHECK(err == E2BIG, "SUBMIT of %llu transfers: %s, want E2BIG",
		      (unsigned long long)cnt, err ? strerror(err) : "success");
	else if (sub.xfers != (uintptr_t)x)
		CHECK(err == EFAULT, "SUBMIT of transfers at 0x%llx: %s, want EFAULT",
		      (unsigned long long)sub.xfers, err ? strerror(err) : "success");
	else if (wcyc)
		CHECK(err == EINVAL, "SUBMIT_WAIT of a cyclic transfer: %s, want EINVAL",
		      err ? strerror(err) : "success");
	else if (bad)
		CHECK(err_in(err, bad), "SUBMIT refusing transfer %u (reasons 0x%x): %s",
		      first, bad, err ? strerror(err) : "success");
	else
		CHECK(err == 0, "SUBMIT of a good batch: %s", strerror(err));
	g_sub[!err]++;
	if (err) {
		/* nothing moved */
		for (i = 0; i < n && i < 4; i++)
			if (d[i].shadow && !d[i].bad && x[i].dst_offset < d[i].size)
				ref_compare(&d[i], x[i].dst_offset,
					    x[i].length < d[i].size - x[i].dst_offset ?
					    x[i].length : d[i].size - x[i].dst_offset, false,
					    "after a refused SUBMIT");
		return;
	}
	g_ok[K_CHAN]++;
	g_dma_left -= cost;
	CHECK(sub.seq == g_cseq + 1, "SUBMIT gave seq %llu after %llu",
	      (unsigned long long)sub.seq, (unsigned long long)g_cseq);
	CHECK((sub.flags & U_DMA_CHAN_SUBMIT_FENCE_FD) ? sub.fence_fd >= 0 : sub.fence_fd == -1,
	      "SUBMIT flags 0x%x gave fence fd %d", sub.flags, sub.fence_fd);
	g_cseq = sub.seq;
	g_csub++;
	fence = sub.flags & U_DMA_CHAN_SUBMIT_FENCE_FD ? sub.fence_fd : -1;
	for (i = 0; i < n; i++)
		term |= !!(x[i].flags & U_DMA_CHAN_XFER_CYCLIC);
	if (term)
		CHECK(ioctl(g_cfd, U_DMA_CHAN_IOCTL_TERMINATE) == 0, "TERMINATE: %s",
		      strerror(errno));
	st = chan_complete(sub.seq, fence);
	g_cstat[sub.seq % NSTAT] = st;
	if (sub.flags & U_DMA_CHAN_SUBMIT_WAIT)
		CHECK(sub.status == st, "SUBMIT_WAIT gave status %d, the batch completed with %d",
		      sub.status, st);
	if (!(sub.flags & U_DMA_CHAN_SUBMIT_NO_EVENT))
		rec_push(sub.seq, st);
	if (fence >= 0) {
		i = rn(NFENCE);
		if (g_fence[i] >= 0)
			close(g_fence[i]);
		g_fence[i] = fence;
	}
	CHECK(st == 0 || (term && st == -ECANCELED), "batch %llu completed with %d%s",
	      (unsigned long long)sub.seq, st, term ? " after TERMINATE" : "");
	/*
	 * Transfers of one batch whose memory overlaps, one of them writing:
	 * u-dma-chan issues them in order but asks the engine for no fence
	 * between them (DMA_PREP_FENCE), so which bytes a later one sees is
	 * the engine's business, and a copy after a slave transfer reads the
	 * device's data, which no shadow has.  Such a batch's bytes are taken
	 * as they are.
	 */
	for (i = 0; i < n && !weird; i++) {
		unsigned int j;

		for (j = i + 1; j < n && !weird; j++)
			weird = xfer_hazard(&x[i], &s[i], &d[i], &x[j], &s[j], &d[j]);
	}
	/* the data: copies in order on the shadows; what the engine made otherwise is taken */
	g_sub[2] += !st && !weird && x[0].op == U_DMA_CHAN_OP_MEMCPY;
	for (i = 0; i < n; i++)
		if (x[i].op == U_DMA_CHAN_OP_MEMCPY && !st && !weird)
			memmove(d[i].shadow + x[i].dst_offset, s[i].shadow + x[i].src_offset,
				x[i].length);
	for (i = 0; i < n; i++) {
		char when[160];

		snprintf(when, sizeof(when), "transfer %u of %u (op %u fl 0x%x %s+%llu -> %s+%llu "
			 "len %llu) done", i, n, x[i].op, x[i].flags, s[i].what,
			 (unsigned long long)x[i].src_offset, d[i].what,
			 (unsigned long long)x[i].dst_offset, (unsigned long long)x[i].length);
		if (x[i].op != U_DMA_CHAN_OP_MEM_TO_DEV)
			ref_compare(&d[i], x[i].dst_offset, x[i].length,
				    x[i].op != U_DMA_CHAN_OP_MEMCPY || st || weird, when);
	}
}

/* Manager commands with odd names, channels and syntax; a channel made is deleted. */
static void chan_mgr(void)
{
	static const struct { const char *cmd; int err, err2; } c[] = {
		{ "\n", EINVAL }, { "create\n", EINVAL }, { "create fuzz-cx\n", EINVAL },
		{ "create fuzz-cx memcpy extra\n", EINVAL }, { "delete\n", EINVAL },
		{ "delete fuzz-cx extra\n", EINVAL }, { "frobnicate fuzz-cx memcpy\n", EINVAL },
		{ "create ../fuzz memcpy\n", EINVAL, ENODEV },
		{ "create fuzz/x memcpy\n", EINVAL, ENODEV },
		{ "create . memcpy\n", EINVAL, ENODEV }, { "create .. memcpy\n", EINVAL, ENODEV },
		{ "create fuzz-\xff memcpy\n", EINVAL, ENODEV },
		{ "create fuzz-\x01 memcpy\n", EINVAL, ENODEV },
		{ "CREATE fuzz-cx memcpy\n", EINVAL }, { "create fuzz-cx nosuchchan\n", ENODEV },
		{ "create fuzz-cx dma99chan99\n", ENODEV }, { "create fuzz-cx MEMCPY\n", ENODEV },
		{ "create fuzz-cx\t\n", EINVAL }, { "delete fuzz-none\n", ENOENT },
		{ "delete u-dma-chan-mgr\n", ENOENT },
		{ "create fuzz-cx memcpy\ncreate fuzz-cy memcpy\n", EINVAL },
		{ "delete\tfuzz-none", ENOENT },
	};
	char cmd[400], name[80];
	unsigned int k = rn(ARRAY_SIZE(c) + 4);
	int err, want = 0, want2 = 0;
	bool fresh = false;

	if (k < ARRAY_SIZE(c)) {
		snprintf(cmd, sizeof(cmd), "%s", c[k].cmd);
		want = c[k].err;
		want2 = c[k].err2 ? c[k].err2 : want;
	} else if (k == ARRAY_SIZE(c)) {		/* the name taken */
		snprintf(cmd, sizeof(cmd), "create %s memcpy\n", g_cname);
		want = EEXIST;
		want2 = ENODEV;
	} else if (k == ARRAY_SIZE(c) + 1) {		/* too long a line */
		memset(cmd, 'x', sizeof(cmd) - 1);
		cmd[sizeof(cmd) - 1] = '\0';
		memcpy(cmd, "create ", 7);
		want = EINVAL;
		want2 = EINVAL;
	} else {					/* 63 or 64 bytes, odd but allowed bytes */
		unsigned int len = rn(2) ? 63 : 64, i;

		snprintf(name, sizeof(name), "fuzz-x%lu", g_cnames++);
		for (i = strlen(name); i < len; i++)
			name[i] = "~.-_:@+=!"[rn(9)];
		name[len - (rn(2) ? 0 : len - 8)] = '\0';
		snprintf(cmd, sizeof(cmd), "create %s memcpy\n", name);
		fresh = strlen(name) < 64;
		want = fresh ? 0 : EINVAL;
		want2 = ENODEV;
	}
	op("channel manager '%.100s'", cmd);
	err = cmgr_write(cmd, strlen(cmd));
	CHECK(err == want || err == want2, "manager '%.80s': %s, want %s", cmd,
	      err ? strerror(err) : "success", strerror(want));
	if (err)
		return;
	g_ok[K_CHAN]++;
	CHECK(fresh, "manager '%.80s' worked", cmd);
	CHECK(ut_sysfs_exists(CCLS, name), "created %s, no class device", name);
	snprintf(cmd, sizeof(cmd), "delete %s\n", name);
	err = cmgr_write(cmd, strlen(cmd));
	CHECK(err == 0, "delete of %.70s just made: %s", name, strerror(err));
}

/* WAIT with edge values: a batch of this file is known, else EINVAL/ENOENT. */
static void chan_wait(void)
{
	static const int64_t timeouts[] = { 0, 1, -1, INT64_MIN, INT64_MAX, 1000000 };
	struct u_dma_chan_wait w = { 0 };
	uint64_t seq;
	int err;

	switch (rn(6)) {
	case 0:
		seq = 0;
		break;
	case 1:
		seq = g_cseq + 1 + rn(2);
		break;
	case 2:
		seq = rn(2) ? ~0ULL : 1ULL << 63;
		break;
	default:
		seq = g_cseq > NSTAT ? g_cseq - rn(NSTAT) : 1 + rn(g_cseq + 1);
		break;
	}
	w.seq = seq;
	w.timeout_ns = timeouts[rn(ARRAY_SIZE(timeouts))];
	if (rn(10) == 0)
		w.reserved0 = 1;
	else if (rn(10) == 0)
		w.reserved[rn(2)] = 1;
	w.status = rnd();
	w.completed = rnd();
	op("WAIT seq %llu timeout %lld (last %llu)", (unsigned long long)seq,
	   (long long)w.timeout_ns, (unsigned long long)g_cseq);
	err = ioctl(g_cfd, U_DMA_CHAN_IOCTL_WAIT, &w) ? errno : 0;
	if (w.reserved0 || w.reserved[0] || w.reserved[1] || (!seq && !g_cseq) ||
	    seq > g_cseq) {
		CHECK(err == EINVAL, "WAIT for seq %llu of %llu (reserved %u): %s, want EINVAL",
		      (unsigned long long)seq, (unsigned long long)g_cseq, w.reserved0,
		      err ? strerror(err) : "success");
		return;
	}
	CHECK(err == 0, "WAIT for batch %llu of %llu, all complete: %s",
	      (unsigned long long)seq, (unsigned long long)g_cseq, strerror(err));
	g_ok[K_CHAN]++;
	if (!seq)
		seq = g_cseq;
	CHECK(w.completed == g_cseq && w.status == g_cstat[seq % NSTAT],
	      "WAIT for batch %llu: status %d completed %llu, want %d and %llu",
	      (unsigned long long)seq, w.status, (unsigned long long)w.completed,
	      g_cstat[seq % NSTAT], (unsigned long long)g_cseq);
}

/* poll() and read() of the completion records: ours, in order. */
static void chan_read(void)
{
	static const size_t sizes[] = { 0, 1, 15, 16, 17, 32, 48, 16 * 17, 4096 };
	struct u_dma_chan_completion rec[64];
	struct pollfd p = { .fd = g_cfd, .events = POLLIN };
	size_t len = sizes[rn(ARRAY_SIZE(sizes))];
	ssize_t r;
	int i, pr;

	op("poll and read %zu bytes of %s (%u records due)", len, g_cname, g_rn);
	pr = poll(&p, 1, 0);
	CHECK(pr >= 0 && !!(p.revents & POLLIN) == !!g_rn && !(p.revents & POLLHUP) == !g_cgone,
	      "poll of the channel: 0x%x with %u records due%s", p.revents, g_rn,
	      g_cgone ? ", channel deleted" : "");
	if (!g_rn && !g_cnonblock && len >= sizeof(rec[0]))
		return;		/* it would block */
	r = read(g_cfd, rec, len);
	if (len < sizeof(rec[0])) {
		CHECK(r < 0 && errno == EINVAL, "read of %zu bytes: %zd, want EINVAL", len, r);
		return;
	}
	if (!g_rn) {
		CHECK(r < 0 && errno == EAGAIN, "O_NONBLOCK read with no record: %zd (%s)", r,
		      r < 0 ? strerror(errno) : "");
		return;
	}
	CHECK(r > 0 && r % sizeof(rec[0]) == 0 && (size_t)r <= len,
	      "read of %zu bytes: %zd (%s)", len, r, r < 0 ? strerror(errno) : "");
	g_ok[K_CHAN]++;
	for (i = 0; i < r / (ssize_t)sizeof(rec[0]); i++) {
		CHECK(g_rn, "read gave a record %llu we did not expect",
		      (unsigned long long)rec[i].seq);
		CHECK(rec[i].seq == g_rseq[g_rhead] && rec[i].status == g_rst[g_rhead] &&
		      !rec[i].reserved, "record %d: seq %llu status %d, want seq %llu status %d",
		      i, (unsigned long long)rec[i].seq, rec[i].status,
		      (unsigned long long)g_rseq[g_rhead], g_rst[g_rhead]);
		g_rhead = (g_rhead + 1) % NREC;
		g_rn--;
	}
}

/* SLAVE_CONFIG with edge values: taken exactly when docs/dma.md says. */
static void chan_slave(void)
{
	static const uint32_t widths[] = { 0, 3, 12, 96, ~0u };
	struct u_dma_chan_slave_config c = { 0 };
	bool valid;
	int err;

	c.direction = rn(4) ? 1 + rn(2) : rn(2) ? 0 : (uint32_t)rnd();
	c.dev_addr = rn(2) ? 0 : rnd();
	c.addr_width = rn(4) ? 1u << rn(8) : widths[rn(ARRAY_SIZE(widths))];
	c.maxburst = rn(2) ? rn(17) : (uint32_t)rnd();
	if (rn(10) == 0)
		c.reserved0 = 1;
	else if (rn(10) == 0)
		c.reserved[rn(3)] = 1;
	valid = (c.direction == 1 || c.direction == 2) && c.addr_width &&
		c.addr_width <= 64 && !(c.addr_width & (c.addr_width - 1)) && !c.reserved0 &&
		!c.reserved[0] && !c.reserved[1] && !c.reserved[2];
	op("SLAVE_CONFIG dir %u addr 0x%llx width %u burst %u", c.direction,
	   (unsigned long long)c.dev_addr, c.addr_width, c.maxburst);
	err = ioctl(g_cfd, U_DMA_CHAN_IOCTL_SLAVE_CONFIG, &c) ? errno : 0;
	CHECK(valid ? err == 0 : err == EINVAL, "SLAVE_CONFIG dir %u width %u: %s, want %s",
	      c.direction, c.addr_width, err ? strerror(err) : "success",
	      valid ? "success" : "EINVAL");
	g_ok[K_CHAN] += valid;
	if (valid)
		g_cwidth[c.direction - 1] = c.addr_width;
}

/* The fences of past batches: signalled; closing one is harmless. */
static void chan_fences(void)
{
	int i = rn(NFENCE);
	struct pollfd p = { .fd = g_fence[i], .events = POLLIN };

	if (g_fence[i] < 0)
		return;
	op("poll%s fence %d", rn(2) ? " and close" : "", g_fence[i]);
	CHECK(poll(&p, 1, 0) == 1 && p.revents & POLLIN, "a completed batch's fence polls "
	      "0x%x", p.revents);
	g_ok[K_CHAN]++;
	if (rn(2)) {
		close(g_fence[i]);
		g_fence[i] = -1;
	}
}

/* The channel's attributes: read-only, and what they say agrees with us. */
static void chan_sysfs(void)
{
	static const char *const attrs[] = {
		"channel", "device", "dma_mask", "copy_align", "max_segment", "caps", "busy",
		"in_flight", "submitted", "completed", "failed", "dev_to_mem_addr",
		"dev_to_mem_width", "mem_to_dev_maxburst", "name", "nosuch",
	};
	const char *a = attrs[rn(ARRAY_SIZE(attrs))];
	uint64_t v[4];
	char s[64];
	bool canon;
	int err;

	num_str(s, sizeof(s), rn(2) ? rnd() : rn(3), &canon);
	op("sysfs %s/%s <- '%s'", g_cname, a, s);
	err = -ut_sysfs_write(CCLS, g_cname, a, s);
	CHECK(err, "write to read-only %s/%s worked", g_cname, a);
	if (g_cgone)
		return;
	CHECK(!ut_sysfs_u64(CCLS, g_cname, "busy", 0, &v[0]) &&
	      !ut_sysfs_u64(CCLS, g_cname, "in_flight", 0, &v[1]) &&
	      !ut_sysfs_u64(CCLS, g_cname, "submitted", 0, &v[2]) &&
	      !ut_sysfs_u64(CCLS, g_cname, "completed", 0, &v[3]),
	      "reading the attributes of %s", g_cname);
	CHECK(v[0] == (g_cfd >= 0) && v[1] == 0 && v[2] == g_csub && v[3] == g_csub,
	      "%s: busy %llu in_flight %llu submitted %llu completed %llu; want %d 0 %llu",
	      g_cname, (unsigned long long)v[0], (unsigned long long)v[1],
	      (unsigned long long)v[2], (unsigned long long)v[3], g_cfd >= 0,
	      (unsigned long long)g_csub);
	g_ok[K_CHAN]++;
}

/* After the manager deleted the channel: ENODEV, POLLHUP, the records still there. */
static void chan_gone(void)
{
	struct u_dma_chan_info info;
	struct u_dma_chan_xfer x = { 0 };
	struct u_dma_chan_submit sub = { .xfers = (uintptr_t)&x, .count = 1 };
	int e1, e2, e3;

	op("INFO, SUBMIT, TERMINATE of deleted %s", g_cname);
	e1 = ioctl(g_cfd, U_DMA_CHAN_IOCTL_INFO, &info) ? errno : 0;
	e2 = ioctl(g_cfd, U_DMA_CHAN_IOCTL_SUBMIT, &sub) ? errno : 0;
	e3 = ioctl(g_cfd, U_DMA_CHAN_IOCTL_TERMINATE) ? errno : 0;
	CHECK(e1 == ENODEV && e2 == ENODEV && e3 == ENODEV, "INFO, SUBMIT, TERMINATE of a "
	      "deleted channel: %d %d %d, want ENODEV", e1, e2, e3);
	g_ok[K_CHAN]++;
}

static void op_chan(void)
{
	unsigned int k = rn(20);
	int fd, err;

	if (!g_cname[0]) {
		chan_create();
		return;
	}
	if (g_cgone) {
		if (k < 6)
			chan_gone();
		else if (k < 10)
			chan_read();
		else if (k < 12)
			chan_sysfs();
		else
			chan_close();
		return;
	}
	if (g_cfd < 0 && k >= 2) {
		chan_open();
		return;
	}
	switch (k) {
	case 0:
		chan_mgr();
		break;
	case 1:
		if (g_cfd < 0)
			chan_sysfs();
		else if (rn(2))
			chan_close();
		else
			chan_delete();
		break;
	case 2: {
		char path[64];

		snprintf(path, sizeof(path), "/dev/%s", g_cname);
		op("second open of %s", path);
		fd = open(path, O_RDWR);
		err = fd < 0 ? errno : 0;
		if (fd >= 0)
			close(fd);
		CHECK(err == EBUSY, "a second open of %s: %s, want EBUSY", path,
		      err ? strerror(err) : "success");
		break;
	}
	case 3: case 4: case 5: case 6: case 7: case 8: case 9:
		chan_submit();
		break;
	case 10: case 11:
		chan_wait();
		break;
	case 12:
		chan_slave();
		break;
	case 13:
		op("TERMINATE of idle %s", g_cname);
		err = ioctl(g_cfd, U_DMA_CHAN_IOCTL_TERMINATE) ? errno : 0;
		CHECK(!err, "TERMINATE with nothing running: %s", strerror(err));
		g_ok[K_CHAN]++;
		break;
	case 14: case 15:
		chan_read();
		break;
	case 16:
		chan_fences();
		break;
	case 17:
		chan_sysfs();
		break;
	default: {
		unsigned long cmd = _IOC(rn(4), rn(2) ? 'u' : 'U', 0xd0 + rn(32), rn(256));

		if (cmd == U_DMA_CHAN_IOCTL_INFO || cmd == U_DMA_CHAN_IOCTL_SUBMIT ||
		    cmd == U_DMA_CHAN_IOCTL_WAIT || cmd == U_DMA_CHAN_IOCTL_SLAVE_CONFIG ||
		    cmd == U_DMA_CHAN_IOCTL_TERMINATE)
			cmd = _IO('u', 0xdf);
		op("ioctl 0x%lx on %s", cmd, g_cname);
		err = ioctl(g_cfd, cmd, 0) ? errno : 0;
		CHECK(err == ENOTTY, "unknown ioctl 0x%lx on the channel: %s, want ENOTTY", cmd,
		      err ? strerror(err) : "success");
		break;
	}
	}
}

/* ---------------------------------------------------------------- run */

/* A crash of the fuzzer itself: the seed and the last operations, then the signal. */
static void on_crash(int sig)
{
	printf("# fuzz: signal %d at op %lu of seed %llu; the last operations:\n", sig, g_op,
	       g_seed);
	dump_history();
	fflush(stdout);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void seed_init(void)
{
	const char *v = getenv("FUZZ_SEED");

	if (v && *v) {
		g_seed = strtoull(v, NULL, 0);
	} else {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		g_seed = ((unsigned long long)ts.tv_sec * 1000003ULL ^ ts.tv_nsec) % 1000000007ULL;
	}
	g_rng = g_seed;
	g_nops = strtoul(ut_env("FUZZ_OPS", "5000"), NULL, 0);
	printf("# fuzz: seed %llu, %lu operations (replay: FUZZ_SEED=%llu FUZZ_OPS=%lu)\n",
	       g_seed, g_nops, g_seed, g_nops);
	fflush(stdout);
}

static int count_fuzz_buffers(char *names, size_t len)
{
	DIR *d = opendir(CLS);
	struct dirent *e;
	int n = 0;

	names[0] = '\0';
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "fuzz", 4))
			continue;
		n++;
		if (strlen(names) + strlen(e->d_name) + 2 < len) {
			strcat(names, " ");
			strcat(names, e->d_name);
		}
	}
	closedir(d);
	return n;
}

static const char *const kinds[K_N] = {
	"create", "delete", "read", "write", "lseek", "mmap", "map-rw", "ioctl", "sysfs",
	"export", "uiomem", "dmachan",
};

/* How often each kind is drawn, out of the sum. */
static const unsigned int weight[K_N] = { 1, 1, 2, 2, 1, 2, 2, 3, 2, 3, 1, 2 };

/* The next kind of operation: with no buffer yet, create or delete only. */
static unsigned int pick_kind(const struct fbuf *have_buf)
{
	unsigned int k, sum = 0, r;

	if (!have_buf)
		return rn(2) ? K_DELETE : K_CREATE;
	for (k = 0; k < K_N; k++)
		sum += weight[k];
	r = rn(sum);
	for (k = 0; r >= weight[k]; k++)
		r -= weight[k];
	if (k == K_UIO && g_uio < 0)
		k = K_READ;
	if (k == K_CHAN && g_cmgr < 0)
		k = K_READ;
	return k;
}

TEST(sequence)
{
	char left[256];
	struct fbuf *b;
	unsigned int k;
	int i;

	seed_init();
	g_page = ut_page();
	signal(SIGSEGV, on_crash);
	signal(SIGBUS, on_crash);
	g_mgr = open(MGR, O_WRONLY);
	if (g_mgr < 0)
		SKIP("no %s (u-dma-buf-mgr not loaded)", MGR);
	ut_cleanup_buffer("fuzz*");
	CHECK(count_fuzz_buffers(left, sizeof(left)) == 0, "fuzz buffers before the run:%s",
	      left);
	kmsg_open();
	if (g_kmsg < 0)
		TH_LOG("no /dev/kmsg: kernel reports are left to the suite's log check");
	uio_init();
	chan_init();
	for (g_op = 0; g_op < g_nops; g_op++) {
		UT_PROGRESS("fuzz: seed %llu op %lu", g_seed, g_op);
		b = pick_buf();
		k = pick_kind(b);
		g_count[k]++;
		switch (k) {
		case K_CREATE:
			op_create();
			break;
		case K_DELETE:
			op_delete();
			break;
		case K_READ:
			op_read(b);
			break;
		case K_WRITE:
			op_write(b);
			break;
		case K_LSEEK:
			op_lseek(b);
			break;
		case K_MMAP:
			op_mmap(b);
			break;
		case K_MAPRW:
			op_map_rw(b);
			break;
		case K_IOCTL:
			op_ioctl(b);
			break;
		case K_SYSFS:
			op_sysfs(b);
			break;
		case K_EXPORT:
			op_export(b);
			break;
		case K_UIO:
			op_uio();
			break;
		default:
			op_chan();
			break;
		}
		kmsg_check();
	}
	g_op = g_nops;
	op("delete every buffer made");
	for (i = 0; i < NBUF; i++)
		buf_delete(&g_buf[i]);
	CHECK(count_fuzz_buffers(left, sizeof(left)) == 0, "left behind:%s", left);
	op("delete the channel");
	chan_fini();
	kmsg_check();
	for (k = 0; k < K_N; k++)
		printf("# fuzz: %-7s %5lu made, %5lu succeeded\n", kinds[k], g_count[k], g_ok[k]);
	if (g_uio >= 0) {
		close(g_uio);
		close(g_uio_ro);
	}
	close(g_mgr);
	ut_checks++;
}

/*
 * The invariant check itself: a shadow that differs from the buffer must
 * be caught (FUZZ_SELFTEST=1 in suite.sh: it must fail).
 */
TEST(manual_broken_invariant)
{
	seed_init();
	g_page = ut_page();
	g_mgr = open(MGR, O_WRONLY);
	if (g_mgr < 0)
		SKIP("no %s (u-dma-buf-mgr not loaded)", MGR);
	ut_cleanup_buffer("fuzz*");
	CHECK(mgr_write("create fuzz-self 8192\n", 22) == 0, "create fuzz-self");
	buf_adopt(&g_buf[0], "fuzz-self", 8192);
	g_buf[0].shadow[100] ^= 0x5a;		/* as if a write had been lost */
	for (g_op = 0; g_op < 200; g_op++)
		op_read(&g_buf[0]);
	buf_delete(&g_buf[0]);
}

TEST_HARNESS_MAIN
