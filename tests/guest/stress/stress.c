// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * stress: concurrent stress and fuzz of u-dma-buf and uiomem, endurance
 * cycles and fault injection.
 *
 *  - fuzz_udmabuf: STRESS_THREADS threads for STRESS_SECONDS.  Each owns a
 *    manager-made buffer (random size and mmap mode) and keeps a shadow of
 *    its bytes and of its sync state: every pattern it writes through
 *    write() or a mapping must read back through read(), a mapping and an
 *    export's mapping, and every call's result is predicted (value or
 *    errno) from the documented rules.  The threads also race on a few
 *    shared names: manager create/delete, open/close, mmap/touch, every
 *    ioctl, exports, sysfs writes (garbage included), platform unbind and
 *    bind, rmmod attempts and malformed manager lines.  There only the
 *    documented errno set of each call (plus ENODEV once a buffer is gone)
 *    is accepted.
 *  - fuzz_uiomem: the same on uiomem regions (STRESS_UIOMEM: the names of
 *    module-parameter regions; the last one is shared, the others are owned
 *    one per thread), with the sync counters of the query as a check.
 *  - endurance_*: STRESS_CREATE_CYCLES manager create/delete cycles and
 *    STRESS_BIND_CYCLES unbind/bind cycles of a buffer and of a region: the
 *    same minor every time, a rebound buffer zeroed, and the kernel's
 *    unreclaimable slab (SUnreclaim) back within STRESS_SLAB_TOLERANCE_KB.
 *  - fault_injection: with failslab and fail_page_alloc (debug kernels;
 *    a SKIP with the reason elsewhere), the n-th allocation of the test
 *    thread fails (fail-nth, task filter on) during manager create, probe
 *    (bind), export, open and mmap, for n = 1, 2, ... until the operation
 *    no longer reaches the n-th allocation: every failure is a documented
 *    errno and leaves nothing behind, and the operation works afterwards.
 *
 * On arm64 the program is also built 32-bit (UDMEM_TEST_COMPAT32), and
 * suite.sh runs its fuzz tests through the compat ioctl paths.
 *
 * Every test prints its seed (STRESS_SEED, else from the clock): a failure
 * replays with the same STRESS_SEED (each thread's sequence of calls is a
 * function of the seed and its index; the interleaving is not).  A failing
 * check prints the seed, the thread, the operation number, the call and
 * its arguments, what came back and what was expected.
 */
#define _FILE_OFFSET_BITS 64

#include <dirent.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <linux/dma-buf.h>
#include <linux/u-dma-buf-ioctl.h>
#include <linux/uiomem.h>

#include "harness.h"
#include "ut.h"

#define MGR		"/dev/u-dma-buf-mgr"
#define UDB_CLASS	"u-dma-buf"
#define UIO_CLASS	"uiomem"
#define UDB_DRV		"/sys/bus/platform/drivers/u-dma-buf"
#define UIO_DRV		"/sys/bus/platform/drivers/uiomem"
#define MAX_THREADS	8
#define NSHARED		3	/* shared buffer names */
#define NSTASH		4	/* shared fds/mappings a thread holds */
#define MAX_PDEVS	64
#define MAX_REPORTS	20

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* errno sets as bit masks; EOVERFLOW (75 on every target) takes bit 63 */
static inline uint64_t B(int e)
{
	return e == EOVERFLOW ? 1ULL << 63 : 1ULL << (e & 63);
}

/* ------------------------------------------------------------ settings */

static unsigned long long g_seed;
static atomic_int g_fail;
static pthread_mutex_t g_fail_lock = PTHREAD_MUTEX_INITIALIZER;
static char g_first[400];

static unsigned long env_ul(const char *var, unsigned long dflt)
{
	const char *v = getenv(var);

	return v && *v ? strtoul(v, NULL, 0) : dflt;
}

/* The seed, printed by every test so that a failure can be replayed. */
static void seed_init(const char *test)
{
	const char *v = getenv("STRESS_SEED");

	if (v && *v) {
		g_seed = strtoull(v, NULL, 0);
	} else {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		g_seed = (unsigned long long)ts.tv_sec * 1000003ULL ^ ts.tv_nsec;
	}
	TH_LOG("%s: seed %llu (replay: STRESS_SEED=%llu)", test, g_seed, g_seed);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* --------------------------------------------------------- per thread */

struct stash {
	int fd;			/* an open shared buffer/region, or -1 */
	int dfd;		/* a dma-buf exported from it, or -1 */
	void *map;		/* a mapping of fd, or MAP_FAILED */
	size_t maplen;
	bool ro;
};

struct th {
	int id;
	uint64_t rng;
	unsigned long ops;
	char what[256];
	double until;
	pthread_t thread;
	/* the buffer or region this thread owns */
	char name[64];
	int fd, fd_ro, fd_sync;	/* O_RDWR, O_RDONLY, O_RDWR|O_SYNC */
	uint64_t size;		/* bytes read() and write() reach */
	uint64_t maplen;	/* bytes mmap() reaches */
	uint8_t *shadow;
	int64_t pos;		/* file position of fd */
	int quirk;		/* u-dma-buf mmap mode */
	/* the sync state the thread expects (its own object only) */
	uint64_t s_off, s_size;
	unsigned int s_dir, s_mode, owner;
	int mgr;		/* this thread's manager file */
	struct stash st[NSTASH];
	unsigned long counts[32];
};

static uint64_t rnd(struct th *t)
{
	/* xorshift64* */
	t->rng ^= t->rng >> 12;
	t->rng ^= t->rng << 25;
	t->rng ^= t->rng >> 27;
	return t->rng * 2685821657736338717ULL;
}

static uint64_t rn(struct th *t, uint64_t n)
{
	return n ? rnd(t) % n : 0;
}

static void th_seed(struct th *t, int id, unsigned int salt)
{
	t->id = id;
	t->rng = (g_seed + 1) * 0x9E3779B97F4A7C15ULL ^ (uint64_t)(id + 1) << 40 ^ salt;
	if (!t->rng)
		t->rng = 1;
	rnd(t);
}

/* Describe the call being made; a failure report quotes it. */
static void __attribute__((format(printf, 2, 3))) call(struct th *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->what, sizeof(t->what), fmt, ap);
	va_end(ap);
}

static void __attribute__((format(printf, 2, 3))) bad(struct th *t, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	int n;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	n = atomic_fetch_add(&g_fail, 1);
	if (n == 0) {
		pthread_mutex_lock(&g_fail_lock);
		snprintf(g_first, sizeof(g_first), "seed %llu thread %d op %lu: %.200s: %.150s",
			 g_seed, t->id, t->ops, t->what, msg);
		pthread_mutex_unlock(&g_fail_lock);
	}
	if (n < MAX_REPORTS)
		printf("# FAIL seed %llu thread %d op %lu: %s: %s\n", g_seed, t->id, t->ops,
		       t->what, msg);
}

static const char *ename(int e)
{
	static __thread char buf[48];

	if (!e)
		return "success";
	snprintf(buf, sizeof(buf), "%s (%d)", strerror(e), e);
	return buf;
}

/* err (0 or an errno) must be in the allowed set. */
static int allow(struct th *t, int err, uint64_t set)
{
	if (err && ((err >= 63 && err != EOVERFLOW) || !(set & B(err))))
		bad(t, "undocumented errno %s", ename(err));
	return err;
}

/* err (0 or an errno) must be exactly want. */
static int expect(struct th *t, int err, int want)
{
	if (err != want) {
		char w[48];

		snprintf(w, sizeof(w), "%s", ename(want));
		bad(t, "got %s, want %s", ename(err), w);
	}
	return err;
}

static int err_of(long r)
{
	return r < 0 ? errno : 0;
}

/* Report the test's verdict: no failure, else the first one in the TAP line. */
static void verdict(const char *test)
{
	int n = atomic_load(&g_fail);

	UT_CHECK(n == 0, 0, "%s: %d failed checks (seed %llu), first: %s", test, n, g_seed,
		 g_first);
}

/* ------------------------------------------------------------ helpers */

static int write_str_n(const char *path, const char *s, size_t len)
{
	int fd = open(path, O_WRONLY), err = 0;
	ssize_t n;

	if (fd < 0)
		return errno;
	n = write(fd, s, len);
	if (n < 0)
		err = errno;
	else if ((size_t)n != len)
		err = EIO;
	close(fd);
	return err;
}

static int write_str(const char *path, const char *s)
{
	return write_str_n(path, s, strlen(s));
}

static int read_str(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int mgr_cmd(int fd, const char *cmd)
{
	ssize_t n = write(fd, cmd, strlen(cmd));

	return n < 0 ? errno : 0;
}

/* The platform device of a class device: the basename of its device link. */
static int pdev_of(const char *class, const char *name, char *out, size_t len)
{
	char path[256], link[256], *b;
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/class/%s/%s/device", class, name);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return errno;
	link[n] = '\0';
	b = strrchr(link, '/');
	snprintf(out, len, "%.*s", (int)len - 1, b ? b + 1 : link);
	return 0;
}

/* "major:minor" of a class device, or "" */
static void dev_of(const char *class, const char *name, char *out, size_t len)
{
	char path[256];

	snprintf(path, sizeof(path), "/sys/class/%s/%s/dev", class, name);
	if (read_str(path, out, len))
		out[0] = '\0';
}

/*
 * SUnreclaim in kB after the reclaimable caches are dropped and every slab
 * cache gave back its empty slabs (SLUB keeps them on per-CPU and partial
 * lists otherwise, and the figure then follows the peak, not what is live).
 */
static long slab_kb(void)
{
	char line[128], path[320];
	struct dirent *e;
	long kb = -1;
	DIR *d;
	FILE *f;

	sync();
	write_str("/proc/sys/vm/drop_caches", "3");
	d = opendir("/sys/kernel/slab");
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink", e->d_name);
		write_str(path, "1");
	}
	if (d)
		closedir(d);
	f = fopen("/proc/meminfo", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "SUnreclaim: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

static int delete_module(const char *name)
{
	return syscall(__NR_delete_module, name, O_NONBLOCK) ? errno : 0;
}

/* A value near the interesting edges of a range of size n, or anywhere. */
static uint64_t pick(struct th *t, uint64_t n)
{
	switch (rn(t, 12)) {
	case 0:
		return 0;
	case 1:
		return n;
	case 2:
		return n ? n - 1 : 0;
	case 3:
		return n + 1;
	case 4:
		return UINT64_MAX - rn(t, 2);
	case 5:
		return (uint64_t)INT64_MAX + rn(t, 2);
	case 6:
		return 1ULL << rn(t, 64);
	case 7:
		return rnd(t);
	case 8:
		return (n & ~4095ULL) + 4096 * rn(t, 3);
	default:
		return rn(t, n + 1);
	}
}

/* SIZE_MAX of the kernel, which is not ours in a 32-bit program on arm64. */
static uint64_t kernel_size_max(void)
{
	struct utsname u;

	if (uname(&u) == 0 && strstr(u.machine, "64"))
		return UINT64_MAX;
	return UINT32_MAX;
}

/* The VFS refuses a negative position and one whose end passes 2^63 - 1. */
static int vfs_rw_errno(uint64_t off, size_t len)
{
	if (off > (uint64_t)INT64_MAX)
		return EINVAL;
	if (len && off > (uint64_t)INT64_MAX - len)
		return EINVAL;
	return 0;
}

static bool range_ok(uint64_t off, uint64_t len, uint64_t total)
{
	uint64_t end;

	if (__builtin_add_overflow(off, len, &end))
		return false;
	return end <= total;
}

/* Copy into a mapping byte by byte (see same()). */
static void poke(volatile uint8_t *dst, const uint8_t *src, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		dst[i] = src[i];
}

static void fill_rand(struct th *t, uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)rnd(t);
}

/*
 * Compare len bytes at p with the shadow from off; report the first
 * difference.  Byte by byte through a volatile pointer: a non-cached mapping
 * is Device memory on ARM, where wider or unaligned accesses may fault.
 */
static void same(struct th *t, const volatile uint8_t *p, uint64_t off, size_t len,
		 const char *via)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (p[i] != t->shadow[off + i]) {
			bad(t, "data mismatch via %s at byte %llu: got 0x%02x, want 0x%02x", via,
			    (unsigned long long)(off + i), p[i], t->shadow[off + i]);
			return;
		}
	}
}

/*
 * A number for a sysfs attribute, as text, with what kstrtou64 makes of it:
 * *perr 0 and *val, or EINVAL (malformed) or ERANGE (past 64 bits).
 */
static void gen_num(struct th *t, uint64_t hint, char *s, size_t len, int *perr, uint64_t *val)
{
	static const char junk[] = " -zg\t.#%xX";
	uint64_t v = rn(t, 3) ? hint : pick(t, hint);
	const char *nl = rn(t, 2) ? "\n" : "", *big;
	size_t i, n;

	*perr = 0;
	*val = v;
	switch (rn(t, 11)) {
	case 0:
	case 1:
	case 2:
		snprintf(s, len, "%llu%s", (unsigned long long)v, nl);
		break;
	case 3:
		snprintf(s, len, "0x%llx%s", (unsigned long long)v, nl);
		break;
	case 4:
		snprintf(s, len, "0%llo%s", (unsigned long long)v, nl);
		break;
	case 5:
		snprintf(s, len, "+%llu%s", (unsigned long long)v, nl);
		break;
	case 6:
		big = rn(t, 2) ? "18446744073709551616" : "99999999999999999999";
		snprintf(s, len, "%s%llu%s", big, (unsigned long long)rn(t, 1000), nl);
		*perr = ERANGE;
		break;
	case 7:
		snprintf(s, len, "0x1%016llx%s", (unsigned long long)rnd(t), nl);
		*perr = ERANGE;
		break;
	case 8:
		snprintf(s, len, "%llu%c%s", (unsigned long long)v, junk[rn(t, sizeof(junk) - 1)],
			 nl);
		*perr = EINVAL;
		break;
	case 9:
		snprintf(s, len, "%s", rn(t, 2) ? "0x" : "\n");
		*perr = EINVAL;
		break;
	default:
		/* junk first, then random bytes without NUL or newline */
		n = 1 + rn(t, len - 2 < 60 ? len - 2 : 60);
		s[0] = junk[rn(t, sizeof(junk) - 1)];
		for (i = 1; i < n; i++) {
			s[i] = (char)(1 + rn(t, 255));
			if (s[i] == '\n')
				s[i] = 'q';
		}
		s[n] = '\0';
		*perr = EINVAL;
		break;
	}
}

/* ------------------------------------------------- udmabuf: own buffer */

static const char *const quirk_opt[] = {
	"", "quirk-mmap-off", "quirk-mmap-on", "quirk-mmap-auto", "quirk-mmap-page",
};

static int own_open(struct th *t, const char *dev)
{
	char path[128];

	snprintf(path, sizeof(path), "/dev/%s", dev);
	t->fd = open(path, O_RDWR);
	t->fd_ro = open(path, O_RDONLY);
	t->fd_sync = open(path, O_RDWR | O_SYNC);
	if (t->fd < 0 || t->fd_ro < 0 || t->fd_sync < 0)
		return errno;
	t->pos = 0;
	return 0;
}

static void own_close(struct th *t)
{
	if (t->fd >= 0)
		close(t->fd);
	if (t->fd_ro >= 0)
		close(t->fd_ro);
	if (t->fd_sync >= 0)
		close(t->fd_sync);
	t->fd = -1;
	t->fd_ro = -1;
	t->fd_sync = -1;
}

static int udb_own_create(struct th *t)
{
	long pg = ut_page();
	char cmd[160], s[32];
	int q = rn(t, 5), err;

	snprintf(t->name, sizeof(t->name), "stress-t%d", t->id);
	t->size = pg * (1 + rn(t, 8)) + (rn(t, 2) ? rn(t, pg) : 0);
	t->maplen = (t->size + pg - 1) / pg * pg;
	snprintf(cmd, sizeof(cmd), "create %s %llu %s\n", t->name,
		 (unsigned long long)t->size, quirk_opt[q]);
	call(t, "manager \"%.*s\"", (int)strlen(cmd) - 1, cmd);
	err = expect(t, mgr_cmd(t->mgr, cmd), 0);
	if (err) {
		t->name[0] = '\0';
		return err;
	}
	t->shadow = calloc(1, t->maplen);
	if (!t->shadow)
		return ENOMEM;
	call(t, "open /dev/%s", t->name);
	err = expect(t, own_open(t, t->name), 0);
	if (err)
		return err;
	t->quirk = ut_sysfs_read(UDB_CLASS, t->name, "quirk_mmap_mode", s, sizeof(s)) ? -1 :
		   atoi(s);
	t->s_off = 0;
	t->s_size = t->size;
	t->s_dir = 0;
	t->s_mode = 1;
	t->owner = 0;
	return 0;
}

static bool udb_sync_active(struct th *t, int fd)
{
	return fd == t->fd_sync || (t->s_mode & 4);
}

/* What a sync command value does to the own buffer: the errno, and the model. */
static int udb_sync_predict(struct th *t, bool for_device, uint64_t v, bool writable)
{
	uint64_t off, size;
	unsigned int dir;

	if (v == 0)
		return 0;
	if (v == 1) {
		off = t->s_off;
		size = t->s_size;
		dir = t->s_dir;
	} else {
		off = v >> 32;
		size = v & 0xFFFFFFF0ULL;
		dir = (v >> 2) & 3;
		if (dir == 3)
			dir = 0;
	}
	if (!writable && (for_device ? dir == 2 : dir != 1))
		return EBADF;
	if (!range_ok(off, size, t->size))
		return EINVAL;
	t->owner = for_device;
	return 0;
}

static uint64_t gen_sync_value(struct th *t, uint64_t size)
{
	switch (rn(t, 5)) {
	case 0:
		return rn(t, 2);
	case 1:
		return rnd(t);
	default:
		return u_dma_buf_sync_pack((uint32_t)pick(t, size), (uint32_t)pick(t, size),
					   rn(t, 4));
	}
}

static void udb_own_rw(struct th *t)
{
	uint8_t buf[8192 + 64];
	uint64_t off = rn(t, 4) ? rn(t, t->size + 1) : pick(t, t->size);
	size_t len = rn(t, 4) ? rn(t, sizeof(buf)) : pick(t, sizeof(buf)) % sizeof(buf);
	int fd = rn(t, 2) ? t->fd : t->fd_sync;
	size_t want = off < t->size ? (size_t)(t->size - off < len ? t->size - off : len) : 0;
	int vfs = vfs_rw_errno(off, len);
	ssize_t r;

	if (vfs) {
		bool rd = rn(t, 2);

		call(t, "%s(len %zu, off %llu)", rd ? "pread" : "pwrite", len,
		     (unsigned long long)off);
		r = rd ? pread(fd, buf, len, off) : pwrite(fd, buf, len, off);
		expect(t, err_of(r), vfs);
		return;
	}
	if (rn(t, 2)) {
		fill_rand(t, buf, len);
		call(t, "pwrite(%s fd, len %zu, off %llu) size %llu", fd == t->fd ? "rw" : "sync",
		     len, (unsigned long long)off, (unsigned long long)t->size);
		r = pwrite(fd, buf, len, off);
		if (!len) {
			expect(t, err_of(r), 0);
		} else if (!want) {
			expect(t, err_of(r), ENOSPC);
		} else if (!expect(t, err_of(r), 0)) {
			if ((size_t)r != want)
				bad(t, "wrote %zd bytes, want %zu", r, want);
			else
				memcpy(t->shadow + off, buf, want);
		}
	} else {
		call(t, "pread(%s fd, len %zu, off %llu) size %llu", fd == t->fd ? "rw" : "sync",
		     len, (unsigned long long)off, (unsigned long long)t->size);
		r = pread(fd, buf, len, off);
		if (!expect(t, err_of(r), 0)) {
			if ((size_t)r != want)
				bad(t, "read %zd bytes, want %zu", r, want);
			else
				same(t, buf, off, want, "read()");
		}
	}
	if (want && r > 0 && udb_sync_active(t, fd))
		t->owner = 1;
}

/*
 * After a write() that reported done bytes of len at off: the bytes past
 * done must be as they were.  (copy_from_user() zero-fills what it could
 * not copy, so a driver that copies straight into its memory loses them.)
 * The shadow follows the memory afterwards, so that one such write is
 * reported once.
 */
static void check_unwritten(struct th *t, uint64_t off, size_t done, size_t len)
{
	size_t i, changed = 0, first = 0;
	uint8_t *buf;

	if (off + len > t->size)
		len = t->size - off;
	buf = malloc(len + 1);
	if (!buf || done >= len || ut_pread_all(t->fd, buf, len, off)) {
		free(buf);
		return;
	}
	for (i = done; i < len; i++) {
		if (buf[i] != t->shadow[off + i]) {
			if (!changed++)
				first = i;
		}
	}
	if (changed) {
		bad(t, "the write reported %zu bytes but changed %zu of the %zu after them "
		    "(byte %llu: 0x%02x became 0x%02x)", done, changed, len - done,
		    (unsigned long long)(off + first), t->shadow[off + first], buf[first]);
		memcpy(t->shadow + off + done, buf + done, len - done);
	}
	free(buf);
}

/* A bad user pointer: EFAULT when bytes would move, else as without it. */
static void udb_own_badptr(struct th *t)
{
	uint64_t off = rn(t, t->size + 2);
	size_t len = 1 + rn(t, 64);
	void *volatile bp = rn(t, 2) ? NULL : (void *)16;
	void *p = bp;
	bool inside = off < t->size;
	int fd = rn(t, 2) ? t->fd : t->fd_sync;
	long r;

	if (rn(t, 2)) {
		call(t, "pread(bad pointer %p, len %zu, off %llu) size %llu", p, len,
		     (unsigned long long)off, (unsigned long long)t->size);
		r = pread(fd, p, len, off);
		expect(t, err_of(r), inside ? EFAULT : 0);
	} else {
		call(t, "pwrite(bad pointer %p, len %zu, off %llu) size %llu", p, len,
		     (unsigned long long)off, (unsigned long long)t->size);
		r = pwrite(fd, p, len, off);
		expect(t, err_of(r), inside ? EFAULT : ENOSPC);
		if (r < 0 && errno == EFAULT)
			check_unwritten(t, off, 0, len);
	}
	if (inside && udb_sync_active(t, fd))
		t->owner = 1;
}

/* llseek then read/write at the file position; whence 0..5. */
static void own_seek(struct th *t, bool uiomem)
{
	int whence = rn(t, 6);
	int64_t offset = (int64_t)(rn(t, 3) ? rn(t, t->size + 2) - rn(t, t->size + 2) :
				   pick(t, t->size));
	int64_t base = 0, pos;
	int want = 0;
	off_t r;

	switch (whence) {
	case SEEK_SET:
		base = 0;
		break;
	case SEEK_CUR:
		base = t->pos;
		break;
	case SEEK_END:
		base = t->size;
		break;
	case SEEK_DATA:
	case SEEK_HOLE:
		base = 0;
		break;
	default:
		want = EINVAL;
		break;
	}
	pos = 0;
	if (!want && __builtin_add_overflow(base, offset, &pos))
		want = EINVAL;
	/* neither driver has holes: SEEK_DATA and SEEK_HOLE are EINVAL */
	if (whence == SEEK_DATA || whence == SEEK_HOLE)
		want = EINVAL;
	if (!want && (pos < 0 || (uint64_t)pos > t->size))
		want = EINVAL;
	call(t, "lseek(off %lld, whence %d) pos %lld size %llu", (long long)offset, whence,
	     (long long)t->pos, (unsigned long long)t->size);
	r = lseek(t->fd, offset, whence);
	if (expect(t, err_of(r), want) || want) {
		if (r >= 0)
			t->pos = r;
		return;
	}
	if (r != pos)
		bad(t, "lseek returned %lld, want %lld", (long long)r, (long long)pos);
	t->pos = r;
	/* read or write at the file position, which then moves */
	{
		uint8_t buf[512];
		size_t len = rn(t, sizeof(buf));
		size_t n = (uint64_t)t->pos < t->size ?
			   (t->size - t->pos < len ? t->size - t->pos : len) : 0;
		ssize_t k;

		if (rn(t, 2)) {
			call(t, "read(len %zu) at pos %lld size %llu", len, (long long)t->pos,
			     (unsigned long long)t->size);
			k = read(t->fd, buf, len);
			if (!expect(t, err_of(k), 0)) {
				if ((size_t)k != n)
					bad(t, "read %zd, want %zu", k, n);
				else
					same(t, buf, t->pos, n, "read() at the file position");
				t->pos += k;
			}
		} else {
			fill_rand(t, buf, len);
			call(t, "write(len %zu) at pos %lld size %llu", len, (long long)t->pos,
			     (unsigned long long)t->size);
			k = write(t->fd, buf, len);
			if (!expect(t, err_of(k), len && !n ? ENOSPC : 0)) {
				if ((size_t)k != (len ? n : 0))
					bad(t, "wrote %zd, want %zu", k, n);
				else
					memcpy(t->shadow + t->pos, buf, k);
				t->pos += k;
			}
		}
		if (n && (uiomem || (t->s_mode & 4)))
			t->owner = 1;
	}
}

/* Map (all or part), compare with the shadow, write through it, madvise. */
static void own_mmap(struct th *t, bool uiomem)
{
	long pg = ut_page();
	uint64_t pages = t->maplen / pg;
	uint64_t first = rn(t, 2) ? 0 : rn(t, pages);
	uint64_t n = first ? 1 + rn(t, pages - first) : pages;
	size_t len = n * pg;
	bool ro = !rn(t, 4);
	int fd = ro ? t->fd_ro : (rn(t, 2) ? t->fd : t->fd_sync);
	uint64_t vis, off, wl;
	uint8_t *p;
	static const int advice[] = {
		MADV_DONTNEED, MADV_WILLNEED, MADV_NORMAL, MADV_RANDOM, MADV_SEQUENTIAL,
		MADV_DONTFORK, MADV_DOFORK, MADV_DONTDUMP, MADV_DODUMP,
	};

	call(t, "mmap(len %zu, prot %s, MAP_SHARED, off %llu) size %llu", len, ro ? "R" : "RW",
	     (unsigned long long)(first * pg), (unsigned long long)t->size);
	p = mmap(NULL, len, ro ? PROT_READ : PROT_READ | PROT_WRITE, MAP_SHARED, fd, first * pg);
	if (expect(t, p == MAP_FAILED ? errno : 0, 0))
		return;
	/* bytes of the mapping that read() reaches */
	vis = first * pg < t->size ? t->size - first * pg : 0;
	if (vis > len)
		vis = len;
	same(t, p, first * pg, vis, "mmap");
	if (!ro && vis) {
		off = rn(t, vis);
		wl = 1 + rn(t, vis - off);
		fill_rand(t, t->shadow + first * pg + off, wl);
		poke(p + off, t->shadow + first * pg + off, wl);
	}
	if (rn(t, 2)) {
		int a = advice[rn(t, ARRAY_SIZE(advice))];
		uint64_t ap = rn(t, n), an = 1 + rn(t, n - ap);
		int err;

		call(t, "madvise(page %llu, %llu pages, advice %d) of a mapping of %s",
		     (unsigned long long)ap, (unsigned long long)an, a, t->name);
		err = madvise(p + ap * pg, an * pg, a) ? errno : 0;
		/* the kernel refuses some advice on VM_PFNMAP/VM_IO mappings */
		allow(t, err, B(EINVAL));
		same(t, p, first * pg, vis, "mmap after madvise");
	}
	/* the file reads what the mapping wrote */
	if (vis) {
		uint8_t buf[4096];
		uint64_t o = rn(t, vis);
		size_t l = vis - o < sizeof(buf) ? vis - o : sizeof(buf);
		ssize_t r;

		call(t, "pread(len %zu, off %llu) after a mapping wrote", l,
		     (unsigned long long)(first * pg + o));
		r = pread(t->fd, buf, l, first * pg + o);
		if (!expect(t, err_of(r), 0) && (size_t)r == l)
			same(t, buf, first * pg + o, l, "read() of mapped data");
		if (l && (uiomem || (t->s_mode & 4)))
			t->owner = 1;
	}
	munmap(p, len);
}

/* mmap() calls that must fail, with the errno the rules give. */
static void own_mmap_bad(struct th *t, bool uiomem)
{
	long pg = ut_page();
	uint64_t pages = t->maplen / pg;
	int kind = rn(t, 6), want, prot = PROT_READ, flags = MAP_SHARED, fd = t->fd;
	uint64_t off = 0;
	size_t len = t->maplen;
	uint64_t allowed = 0;
	void *p;

	switch (kind) {
	case 0:		/* MAP_PRIVATE is refused */
		flags = MAP_PRIVATE;
		prot |= rn(t, 2) ? PROT_WRITE : 0;
		want = EINVAL;
		break;
	case 1:		/* past the end */
		off = rn(t, pages + 2) * pg;
		len = (pages + 1 - (off / pg < pages ? off / pg : pages)) * pg;
		want = uiomem ? ENXIO : EINVAL;
		break;
	case 2:		/* writable shared mapping of a read-only file */
		fd = t->fd_ro;
		prot |= PROT_WRITE;
		want = EACCES;
		break;
	case 3:		/* unaligned offset */
		off = 1 + rn(t, pg - 1);
		want = EINVAL;
		break;
	case 4:		/* zero length */
		len = 0;
		want = EINVAL;
		break;
	default:	/* wild offset and length: refused, by the kernel or the driver */
		off = pick(t, t->maplen) & ~(uint64_t)(pg - 1);
		if (off < t->maplen)
			off += t->maplen;
		if (off > (uint64_t)INT64_MAX)
			off = (uint64_t)INT64_MAX & ~(uint64_t)(pg - 1);
		len = (size_t)(pick(t, t->maplen) | 1);
		want = -1;
		allowed = B(EINVAL) | B(ENOMEM) | B(EOVERFLOW) | (uiomem ? B(ENXIO) : 0);
		break;
	}
	call(t, "mmap(len %zu, prot %d, flags %#x, off %llu) on %s fd, size %llu (case %d)", len,
	     prot, flags, (unsigned long long)off, fd == t->fd_ro ? "RO" : "RW",
	     (unsigned long long)t->size, kind);
	p = mmap(NULL, len, prot, flags, fd, off);
	if (p != MAP_FAILED) {
		bad(t, "mmap succeeded");
		munmap(p, len);
		return;
	}
	if (want < 0)
		allow(t, errno, allowed);
	else
		expect(t, errno, want);
}

static void own_sysfs(struct th *t, bool uiomem)
{
	static const char *const attrs[] = {
		"sync_mode", "sync_offset", "sync_size", "sync_direction",
		"sync_for_cpu", "sync_for_device",
	};
	const char *class = uiomem ? UIO_CLASS : UDB_CLASS;
	int a = rn(t, 6), perr, err, want = 0;
	uint64_t v, hint;
	char s[80];

	switch (a) {
	case 0:
		hint = rn(t, 10);
		break;
	case 3:
		hint = rn(t, 4);
		break;
	case 4:
	case 5:
		hint = gen_sync_value(t, t->size);
		break;
	default:
		hint = pick(t, t->size);
		break;
	}
	gen_num(t, hint, s, sizeof(s), &perr, &v);
	switch (a) {
	case 0:		/* sync_mode: 0..7, else EINVAL (both ABI files say so) */
		want = perr || v > 7 ? EINVAL : 0;
		if (!want)
			t->s_mode = v;
		break;
	case 1:		/* sync_offset: any u64 */
	case 2:		/* sync_size: any u64 (uiomem: up to SIZE_MAX) */
		want = perr;
		if (!want && a == 2 && uiomem && v > kernel_size_max())
			want = EINVAL;
		if (!want) {
			if (a == 1)
				t->s_off = v;
			else
				t->s_size = v;
		}
		break;
	case 3:		/* sync_direction: 0..2, else EINVAL */
		want = perr || v > 2 ? EINVAL : 0;
		if (!want)
			t->s_dir = v;
		break;
	default:	/* sync_for_cpu / sync_for_device: a sync command */
		want = perr;
		if (!want) {
			if (uiomem) {
				uint64_t o = t->s_off, z = t->s_size;

				if (v > 1) {
					o = v >> 32;
					z = v & 0xFFFFFFF0ULL;
				}
				want = v && !range_ok(o, z, t->size) ? EINVAL : 0;
				if (v && !want)
					t->owner = a == 5;
			} else {
				want = udb_sync_predict(t, a == 5, v, true);
			}
		}
		break;
	}
	call(t, "write \"%.*s\" to %s/%s (size %llu, stored off %llu size %llu)",
	     (int)strcspn(s, "\n"), s, t->name, attrs[a], (unsigned long long)t->size,
	     (unsigned long long)t->s_off, (unsigned long long)t->s_size);
	err = -ut_sysfs_write(class, t->name, attrs[a], s);
	if (perr == ERANGE && (a == 1 || a == 2 || a >= 4)) {
		/* past 64 bits: the ABI files name no errno; kstrto* gives ERANGE */
		allow(t, err, B(ERANGE) | B(EINVAL));
		return;
	}
	expect(t, err, want);
}

static void udb_own_ioctl(struct th *t)
{
	struct u_dma_buf_ioctl_drv_info drv;
	struct u_dma_buf_ioctl_dev_info dev;
	struct u_dma_buf_ioctl_sync_args sa;
	uint64_t v;
	uint32_t o32;
	bool ro = !rn(t, 3);
	int fd = ro ? t->fd_ro : t->fd, err, want, kind = rn(t, 10);
	long r;

	switch (kind) {
	case 0:
		call(t, "GET_DRV_INFO");
		r = ioctl(fd, U_DMA_BUF_IOCTL_GET_DRV_INFO, &drv);
		if (!expect(t, err_of(r), 0) && GET_U_DMA_BUF_IOCTL_FLAGS_IOCTL_VERSION(&drv) != 2)
			bad(t, "ioctl version %d", GET_U_DMA_BUF_IOCTL_FLAGS_IOCTL_VERSION(&drv));
		break;
	case 1:
		call(t, "GET_SIZE");
		r = ioctl(fd, U_DMA_BUF_IOCTL_GET_SIZE, &v);
		if (!expect(t, err_of(r), 0) && v != t->size)
			bad(t, "size %llu, want %llu", (unsigned long long)v,
			    (unsigned long long)t->size);
		break;
	case 2:
		call(t, "GET_DEV_INFO");
		r = ioctl(fd, U_DMA_BUF_IOCTL_GET_DEV_INFO, &dev);
		if (!expect(t, err_of(r), 0) &&
		    (dev.size != t->size ||
		     (t->quirk > 0 && GET_U_DMA_BUF_IOCTL_FLAGS_MMAP_MODE(&dev) != t->quirk)))
			bad(t, "size %llu mode %d, want %llu %d", (unsigned long long)dev.size,
			    GET_U_DMA_BUF_IOCTL_FLAGS_MMAP_MODE(&dev),
			    (unsigned long long)t->size, t->quirk);
		break;
	case 3:
		call(t, "GET_SYNC (model: off %llu size %llu dir %u mode %u owner %u)",
		     (unsigned long long)t->s_off, (unsigned long long)t->s_size, t->s_dir,
		     t->s_mode, t->owner);
		r = ioctl(fd, U_DMA_BUF_IOCTL_GET_SYNC, &sa);
		if (!expect(t, err_of(r), 0) &&
		    (sa.offset != t->s_off || sa.size != t->s_size ||
		     GET_U_DMA_BUF_IOCTL_FLAGS_SYNC_DIR(&sa) != (int)t->s_dir ||
		     GET_U_DMA_BUF_IOCTL_FLAGS_SYNC_MODE(&sa) != (int)t->s_mode ||
		     GET_U_DMA_BUF_IOCTL_FLAGS_SYNC_OWNER(&sa) != (int)t->owner))
			bad(t, "got off %llu size %llu dir %d mode %d owner %d",
			    (unsigned long long)sa.offset, (unsigned long long)sa.size,
			    GET_U_DMA_BUF_IOCTL_FLAGS_SYNC_DIR(&sa),
			    GET_U_DMA_BUF_IOCTL_FLAGS_SYNC_MODE(&sa),
			    GET_U_DMA_BUF_IOCTL_FLAGS_SYNC_OWNER(&sa));
		break;
	case 4:
		call(t, "GET_SYNC_OWNER (model %u)", t->owner);
		r = ioctl(fd, U_DMA_BUF_IOCTL_GET_SYNC_OWNER, &o32);
		if (!expect(t, err_of(r), 0) && o32 != t->owner)
			bad(t, "owner %u, want %u", o32, t->owner);
		break;
	case 5:
	case 6:
		v = gen_sync_value(t, t->size);
		call(t, "SET_SYNC_FOR_%s(%#llx) on %s fd, size %llu, stored %llu+%llu dir %u",
		     kind == 6 ? "DEVICE" : "CPU", (unsigned long long)v, ro ? "RO" : "RW",
		     (unsigned long long)t->size, (unsigned long long)t->s_off,
		     (unsigned long long)t->s_size, t->s_dir);
		want = udb_sync_predict(t, kind == 6, v, !ro);
		r = ioctl(fd, kind == 6 ? U_DMA_BUF_IOCTL_SET_SYNC_FOR_DEVICE :
			  U_DMA_BUF_IOCTL_SET_SYNC_FOR_CPU, &v);
		expect(t, err_of(r), want);
		break;
	case 7: {
		unsigned int cmd = rn(t, 4), dir = rn(t, 4);
		unsigned int mode = rn(t, 3) ? rn(t, 8) : rn(t, 256);
		unsigned int edir = dir == 3 ? t->s_dir : dir;

		memset(&sa, 0, sizeof(sa));
		sa.flags = cmd | dir << 2 | (uint64_t)mode << 8 | (rn(t, 4) ? 0 : rnd(t) << 17);
		sa.offset = pick(t, t->size);
		sa.size = rn(t, 4) ? pick(t, t->size) : 0;
		call(t, "SET_SYNC(flags %#llx off %llu size %llu) on %s fd, buffer size %llu",
		     (unsigned long long)sa.flags, (unsigned long long)sa.offset,
		     (unsigned long long)sa.size, ro ? "RO" : "RW", (unsigned long long)t->size);
		want = 0;
		if (mode > 7) {
			want = EINVAL;
		} else if ((cmd == 1 || cmd == 3) && ro &&
			   (cmd == 3 ? edir == 2 : edir != 1)) {
			want = EBADF;
		} else {
			t->s_dir = edir;
			if (mode)
				t->s_mode = mode;
			t->s_off = sa.offset;
			if (sa.size)
				t->s_size = sa.size;
			if (cmd == 1 || cmd == 3)
				want = udb_sync_predict(t, cmd == 3, 1, !ro);
		}
		r = ioctl(fd, U_DMA_BUF_IOCTL_SET_SYNC, &sa);
		expect(t, err_of(r), want);
		break;
	}
	case 8: {	/* a bad pointer */
		static const unsigned long cmds[] = {
			U_DMA_BUF_IOCTL_GET_DRV_INFO, U_DMA_BUF_IOCTL_GET_SIZE,
			U_DMA_BUF_IOCTL_GET_DMA_ADDR, U_DMA_BUF_IOCTL_GET_SYNC_OWNER,
			U_DMA_BUF_IOCTL_SET_SYNC_FOR_CPU, U_DMA_BUF_IOCTL_SET_SYNC_FOR_DEVICE,
			U_DMA_BUF_IOCTL_GET_DEV_INFO, U_DMA_BUF_IOCTL_GET_SYNC,
			U_DMA_BUF_IOCTL_SET_SYNC, U_DMA_BUF_IOCTL_EXPORT,
		};
		unsigned long c = cmds[rn(t, 10)];

		call(t, "ioctl(%#lx, NULL)", c);
		r = ioctl(fd, c, NULL);
		expect(t, err_of(r), EFAULT);
		break;
	}
	default: {	/* an unknown command on our magic or uiomem's */
		unsigned int c;

		do {
			c = _IOC(rn(t, 4), rn(t, 2) ? 'U' : 'u', rn(t, 256), rn(t, 64));
		} while (c == U_DMA_BUF_IOCTL_GET_DRV_INFO || c == U_DMA_BUF_IOCTL_GET_SIZE ||
			 c == U_DMA_BUF_IOCTL_GET_DMA_ADDR || c == U_DMA_BUF_IOCTL_GET_SYNC_OWNER ||
			 c == U_DMA_BUF_IOCTL_SET_SYNC_FOR_CPU ||
			 c == U_DMA_BUF_IOCTL_SET_SYNC_FOR_DEVICE ||
			 c == U_DMA_BUF_IOCTL_GET_DEV_INFO || c == U_DMA_BUF_IOCTL_GET_SYNC ||
			 c == U_DMA_BUF_IOCTL_SET_SYNC || c == U_DMA_BUF_IOCTL_EXPORT);
		call(t, "ioctl(unknown %#x)", c);
		r = ioctl(fd, c, &v);
		expect(t, err_of(r), ENOTTY);
		break;
	}
	}
	(void)err;
}

/* DMA_BUF_IOCTL_SYNC with valid or bad flags. */
static void dmabuf_sync(struct th *t, int dfd, uint64_t set)
{
	struct dma_buf_sync s;
	bool good = rn(t, 3);
	int err;

	s.flags = good ? (rn(t, 2) ? DMA_BUF_SYNC_END : DMA_BUF_SYNC_START) | (1 + rn(t, 3)) :
		  rnd(t);
	if (!good && !(s.flags & ~DMA_BUF_SYNC_VALID_FLAGS_MASK) &&
	    (s.flags & DMA_BUF_SYNC_RW))
		good = true;
	call(t, "DMA_BUF_IOCTL_SYNC(flags %#llx)", (unsigned long long)s.flags);
	err = ioctl(dfd, DMA_BUF_IOCTL_SYNC, &s) ? errno : 0;
	if (set)
		allow(t, err, set | B(EINVAL));
	else
		expect(t, err, good ? 0 : EINVAL);
}

static void udb_own_export(struct th *t)
{
	long pg = ut_page();
	struct u_dma_buf_ioctl_export_args ea;
	static const uint64_t junk[] = {
		O_NONBLOCK, O_APPEND, 1ULL << 32, 1ULL << 63, O_CREAT, O_TRUNC,
	};
	bool ro = !rn(t, 3);
	uint64_t acc = rn(t, 8) ? rn(t, 3) : 3;
	int want = 0, err;
	long r;

	memset(&ea, 0, sizeof(ea));
	ea.flags = acc | (rn(t, 2) ? O_CLOEXEC : 0) | (rn(t, 2) ? O_SYNC : 0);
	if (!rn(t, 8))
		ea.flags |= junk[rn(t, 6)];
	ea.offset = rn(t, 3) ? rn(t, t->maplen / pg + 1) * pg : pick(t, t->size);
	ea.size = rn(t, 3) ? (1 + rn(t, t->maplen / pg)) * pg : pick(t, t->size);
	ea.fd = -1;
	if (ea.flags & ~(uint64_t)(O_CLOEXEC | O_SYNC | O_ACCMODE))
		want = EINVAL;
	else if (acc == 3)
		want = EINVAL;
	else if (acc != O_RDONLY && ro)
		want = EACCES;
	else if (!ea.size || ea.offset % pg || ea.size % pg ||
		 !range_ok(ea.offset, ea.size, t->size))
		want = EINVAL;
	call(t, "EXPORT(flags %#llx off %llu size %llu) on %s fd, buffer size %llu",
	     (unsigned long long)ea.flags, (unsigned long long)ea.offset,
	     (unsigned long long)ea.size, ro ? "RO" : "RW", (unsigned long long)t->size);
	r = ioctl(ro ? t->fd_ro : t->fd, U_DMA_BUF_IOCTL_EXPORT, &ea);
	err = err_of(r);
	if (want == 0 && err == ENOMEM)
		return;		/* documented for allocations; nothing to check */
	if (expect(t, err, want) || want)
		return;
	if (ea.fd < 0) {
		bad(t, "export gave fd %d", ea.fd);
		return;
	}
	/* a write-only dma-buf cannot be mapped */
	if (acc == O_WRONLY) {
		uint8_t *p;

		call(t, "mmap of a write-only dma-buf");
		p = mmap(NULL, ea.size, PROT_READ | PROT_WRITE, MAP_SHARED, ea.fd, 0);
		if (p != MAP_FAILED) {
			bad(t, "succeeded");
			munmap(p, ea.size);
		} else {
			expect(t, errno, EACCES);
		}
	} else if (rn(t, 4)) {
		/* map the dma-buf: the range's bytes are the buffer's */
		bool w = acc != O_RDONLY && rn(t, 2);
		uint8_t *p;

		call(t, "mmap of the dma-buf (off %llu size %llu, %s)",
		     (unsigned long long)ea.offset, (unsigned long long)ea.size, w ? "RW" : "R");
		p = mmap(NULL, ea.size, w ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED, ea.fd,
			 0);
		if (!expect(t, p == MAP_FAILED ? errno : 0, 0)) {
			same(t, p, ea.offset, ea.size, "dma-buf mmap");
			if (w) {
				uint64_t o = rn(t, ea.size), l = 1 + rn(t, ea.size - o);

				fill_rand(t, t->shadow + ea.offset + o, l);
				poke(p + o, t->shadow + ea.offset + o, l);
			}
			munmap(p, ea.size);
		}
		if (!w && acc == O_RDONLY) {
			call(t, "writable mmap of a read-only dma-buf");
			p = mmap(NULL, ea.size, PROT_READ | PROT_WRITE, MAP_SHARED, ea.fd, 0);
			if (p != MAP_FAILED) {
				bad(t, "succeeded");
				munmap(p, ea.size);
			} else {
				expect(t, errno, EACCES);
			}
		}
		call(t, "MAP_PRIVATE mmap of a dma-buf");
		p = mmap(NULL, ea.size, PROT_READ, MAP_PRIVATE, ea.fd, 0);
		if (p != MAP_FAILED) {
			bad(t, "succeeded");
			munmap(p, ea.size);
		} else {
			expect(t, errno, EINVAL);
		}
		call(t, "mmap of a dma-buf past its end");
		p = mmap(NULL, ea.size + pg, PROT_READ, MAP_SHARED, ea.fd, 0);
		if (p != MAP_FAILED) {
			bad(t, "succeeded");
			munmap(p, ea.size + pg);
		} else {
			expect(t, errno, EINVAL);
		}
	}
	dmabuf_sync(t, ea.fd, 0);
	close(ea.fd);
}

/* --------------------------------------------- udmabuf: shared objects */

struct udb_shared {
	pthread_mutex_t lock;
	char pdev[MAX_PDEVS][64];	/* platform devices unbound, to bind again */
	int npdev;
	atomic_ulong creates, deletes, binds, unbinds, exports, rmmods;
};

static struct udb_shared g_us = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void note_pdev(const char *pdev)
{
	int i;

	pthread_mutex_lock(&g_us.lock);
	for (i = 0; i < g_us.npdev; i++)
		if (!strcmp(g_us.pdev[i], pdev))
			break;
	if (i == g_us.npdev && g_us.npdev < MAX_PDEVS)
		snprintf(g_us.pdev[g_us.npdev++], sizeof(g_us.pdev[0]), "%s", pdev);
	pthread_mutex_unlock(&g_us.lock);
}

/* Take one unbound device off the list ("" when there is none). */
static void take_pdev(struct th *t, char *out, size_t len)
{
	int i;

	out[0] = '\0';
	pthread_mutex_lock(&g_us.lock);
	if (g_us.npdev) {
		i = rn(t, g_us.npdev);
		snprintf(out, len, "%s", g_us.pdev[i]);
		g_us.npdev--;
		memmove(g_us.pdev[i], g_us.pdev[g_us.npdev], sizeof(g_us.pdev[0]));
	}
	pthread_mutex_unlock(&g_us.lock);
}

static void stash_drop(struct stash *s)
{
	if (s->map != MAP_FAILED && s->map)
		munmap(s->map, s->maplen);
	if (s->dfd >= 0)
		close(s->dfd);
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	s->dfd = -1;
	s->map = MAP_FAILED;
}

static void stash_init(struct th *t)
{
	int i;

	for (i = 0; i < NSTASH; i++) {
		t->st[i].fd = -1;
		t->st[i].dfd = -1;
		t->st[i].map = MAP_FAILED;
	}
}

/* Errors any call on a file of a buffer that may be gone can also give. */
#define GONE	(B(ENODEV))

static void udb_shared_mgr(struct th *t)
{
	char name[32], cmd[160];
	int k = rn(t, NSHARED), err;

	snprintf(name, sizeof(name), "stress-sh%d", k);
	if (rn(t, 2)) {
		snprintf(cmd, sizeof(cmd), "create %s %llu %s\n", name,
			 (unsigned long long)(1 + rn(t, 4 * ut_page())), quirk_opt[rn(t, 5)]);
		call(t, "manager \"%.*s\"", (int)strlen(cmd) - 1, cmd);
		/* ENODEV: another thread unbound the new device before create returned. */
		err = allow(t, mgr_cmd(t->mgr, cmd), B(EEXIST) | B(ENOMEM) | B(ENODEV));
		if (!err)
			atomic_fetch_add(&g_us.creates, 1);
	} else {
		snprintf(cmd, sizeof(cmd), "delete %s\n", name);
		call(t, "manager \"%.*s\"", (int)strlen(cmd) - 1, cmd);
		err = allow(t, mgr_cmd(t->mgr, cmd), B(ENOENT) | B(EBUSY));
		if (!err)
			atomic_fetch_add(&g_us.deletes, 1);
	}
}

static void shared_open(struct th *t, bool uiomem, const char *name)
{
	static const int modes[] = { O_RDWR, O_RDONLY, O_RDWR | O_SYNC, O_WRONLY };
	struct stash *s = &t->st[rn(t, NSTASH)];
	int m = modes[rn(t, 4)];
	char path[128];

	stash_drop(s);
	snprintf(path, sizeof(path), "/dev/%s", name);
	call(t, "open(%s, %#x)", path, m);
	s->fd = open(path, m);
	/* gone: no node (ENOENT), or a node whose buffer/region went away */
	allow(t, s->fd < 0 ? errno : 0, B(ENOENT) | B(ENODEV) | (uiomem ? B(ENXIO) : 0));
	s->ro = (m & O_ACCMODE) == O_RDONLY;
}

/* Any call on a shared udmabuf file, with the documented errno sets. */
static void udb_shared_op(struct th *t)
{
	struct stash *s = &t->st[rn(t, NSTASH)];
	long pg = ut_page();
	uint8_t buf[256];
	uint64_t v, size = 0;
	int err, op = rn(t, 9);
	long r;

	if (s->fd < 0)
		return;
	if (ioctl(s->fd, U_DMA_BUF_IOCTL_GET_SIZE, &size))
		size = 4 * pg;
	switch (op) {
	case 0:
		v = pick(t, size);
		call(t, "pread(shared, off %llu)", (unsigned long long)v);
		r = pread(s->fd, buf, sizeof(buf), v);
		if (vfs_rw_errno(v, sizeof(buf)))	/* EBADF first on a write-only file */
			allow(t, err_of(r), B(EINVAL) | B(EBADF));
		else
			allow(t, err_of(r), GONE | B(EBADF));
		break;
	case 1:
		v = pick(t, size);
		fill_rand(t, buf, sizeof(buf));
		call(t, "pwrite(shared, off %llu)", (unsigned long long)v);
		r = pwrite(s->fd, buf, sizeof(buf), v);
		if (vfs_rw_errno(v, sizeof(buf)))	/* EBADF first on a read-only file */
			allow(t, err_of(r), B(EINVAL) | B(EBADF));
		else
			allow(t, err_of(r), GONE | B(ENOSPC) | B(EBADF));
		break;
	case 2:
		call(t, "lseek(shared)");
		r = lseek(s->fd, (off_t)pick(t, size), rn(t, 5));
		allow(t, err_of(r), B(EINVAL));
		break;
	case 3:		/* map, touch */
		if (s->map != MAP_FAILED)
			munmap(s->map, s->maplen);
		s->map = MAP_FAILED;
		s->maplen = (1 + rn(t, 5)) * pg;
		call(t, "mmap(shared, len %zu, %s)", s->maplen, s->ro ? "R" : "RW");
		s->map = mmap(NULL, s->maplen, s->ro ? PROT_READ : PROT_READ | PROT_WRITE,
			      MAP_SHARED, s->fd, 0);
		err = s->map == MAP_FAILED ? errno : 0;
		allow(t, err, GONE | B(EINVAL) | B(EACCES));
		if (!err) {
			size_t i;
			volatile uint8_t *p = s->map;

			for (i = 0; i < s->maplen; i += 64) {
				if (s->ro)
					(void)p[i];
				else
					p[i] = (uint8_t)i;
			}
		}
		break;
	case 4: {	/* sync commands */
		bool dev = rn(t, 2);

		v = gen_sync_value(t, size);
		call(t, "SET_SYNC_FOR_%s(shared, %#llx)", dev ? "DEVICE" : "CPU",
		     (unsigned long long)v);
		r = ioctl(s->fd, dev ? U_DMA_BUF_IOCTL_SET_SYNC_FOR_DEVICE :
			  U_DMA_BUF_IOCTL_SET_SYNC_FOR_CPU, &v);
		allow(t, err_of(r), GONE | B(EINVAL) | B(EBADF));
		break;
	}
	case 5: {
		struct u_dma_buf_ioctl_sync_args sa = {
			.flags = rnd(t) & 0x3ff0f, .size = pick(t, size), .offset = pick(t, size),
		};

		call(t, "SET_SYNC(shared, flags %#llx)", (unsigned long long)sa.flags);
		r = ioctl(s->fd, U_DMA_BUF_IOCTL_SET_SYNC, &sa);
		allow(t, err_of(r), GONE | B(EINVAL) | B(EBADF));
		break;
	}
	case 6: {	/* export, keep it */
		struct u_dma_buf_ioctl_export_args ea = {
			.flags = (rn(t, 3) ? O_RDONLY : O_RDWR) | O_CLOEXEC,
			.size = (1 + rn(t, 2)) * pg,
		};

		if (s->dfd >= 0) {
			dmabuf_sync(t, s->dfd, GONE);
			close(s->dfd);
			s->dfd = -1;
		}
		call(t, "EXPORT(shared, flags %#llx size %llu)", (unsigned long long)ea.flags,
		     (unsigned long long)ea.size);
		r = ioctl(s->fd, U_DMA_BUF_IOCTL_EXPORT, &ea);
		err = allow(t, err_of(r), GONE | B(EINVAL) | B(EACCES) | B(ENOMEM));
		if (!err) {
			s->dfd = ea.fd;
			atomic_fetch_add(&g_us.exports, 1);
		}
		break;
	}
	case 7:
		call(t, "GET_SYNC(shared)");
		{
			struct u_dma_buf_ioctl_sync_args sa;

			r = ioctl(s->fd, U_DMA_BUF_IOCTL_GET_SYNC, &sa);
			allow(t, err_of(r), GONE);
		}
		break;
	default:
		stash_drop(s);
		break;
	}
}

static void udb_shared_sysfs(struct th *t)
{
	static const char *const attrs[] = {
		"sync_mode", "sync_offset", "sync_size", "sync_direction",
		"sync_for_cpu", "sync_for_device", "debug_vma", "debug_export",
	};
	char name[32], s[80];
	int a = rn(t, 8), perr, err;
	uint64_t v;

	snprintf(name, sizeof(name), "stress-sh%d", (int)rn(t, NSHARED));
	gen_num(t, rn(t, 2) ? rn(t, 8) : gen_sync_value(t, 4096), s, sizeof(s), &perr, &v);
	if (a >= 6 && !perr && v)
		return;		/* no log flood */
	call(t, "write \"%.*s\" to %s/%s", (int)strcspn(s, "\n"), s, name, attrs[a]);
	err = -ut_sysfs_write(UDB_CLASS, name, attrs[a], s);
	/* gone: the open fails (ENOENT) or the write (ENODEV) */
	allow(t, err, B(ENOENT) | B(ENODEV) | B(EINVAL) |
	      (a == 1 || a == 2 || a == 4 || a == 5 ? B(ERANGE) : 0));
}

/*
 * Unbind or bind pdev.  u-dma-buf: unbind the current device of a shared
 * name (pdev NULL), or bind one unbound before; a device number freed by a
 * delete is reused at once, so a name noted long ago may be somebody else's.
 */
static void shared_bind(struct th *t, bool uiomem, const char *pdev)
{
	const char *drv = uiomem ? UIO_DRV : UDB_DRV;
	char path[128], name[32], dev[64];
	int err;

	if (!uiomem) {
		if (rn(t, 2)) {
			snprintf(name, sizeof(name), "stress-sh%d", (int)rn(t, NSHARED));
			if (pdev_of(UDB_CLASS, name, dev, sizeof(dev)) ||
			    strncmp(dev, "u-dma-buf.", 10))
				return;
			call(t, "unbind %s (%s)", dev, name);
			err = allow(t, write_str(UDB_DRV "/unbind", dev), B(ENODEV));
			if (!err) {
				atomic_fetch_add(&g_us.unbinds, 1);
				note_pdev(dev);
			}
			return;
		}
		take_pdev(t, dev, sizeof(dev));
		if (!dev[0])
			return;
		pdev = dev;
		snprintf(path, sizeof(path), "%s/bind", drv);
		call(t, "bind %s", pdev);
		/* EAGAIN: the driver core's answer when the bind races a removal */
		err = allow(t, write_str(path, pdev),
			    B(ENODEV) | B(EBUSY) | B(ENOMEM) | B(EEXIST) | B(EAGAIN));
		if (!err)
			atomic_fetch_add(&g_us.binds, 1);
		return;
	}
	if (rn(t, 2)) {
		snprintf(path, sizeof(path), "%s/unbind", drv);
		call(t, "unbind %s", pdev);
		err = allow(t, write_str(path, pdev), B(ENODEV));
		if (!err)
			atomic_fetch_add(&g_us.unbinds, 1);
	} else {
		snprintf(path, sizeof(path), "%s/bind", drv);
		call(t, "bind %s", pdev);
		/* already bound or gone: ENODEV; the name taken meanwhile: EEXIST */
		err = allow(t, write_str(path, pdev),
			    B(ENODEV) | B(EBUSY) | B(ENOMEM) | (uiomem ? 0 : B(EEXIST)));
		if (!err)
			atomic_fetch_add(&g_us.binds, 1);
	}
}

static void rmmod_attempt(struct th *t, const char *mod)
{
	int err;

	call(t, "delete_module(%s, O_NONBLOCK) while in use", mod);
	err = delete_module(mod);
	atomic_fetch_add(&g_us.rmmods, 1);
	if (!err)
		bad(t, "the module was unloaded while in use");
	else
		allow(t, err, B(EBUSY) | B(EAGAIN));
}

/* A malformed or hostile manager line, with the errno it must give. */
static void udb_mgr_garbage(struct th *t)
{
	static const char *const bad_args[] = {
		"", "0", "size=0", "size=zz", "0x", "-1", "18446744073709551616",
		"4096 dma-mask=5", "4096 dma-mask=300", "4096 quirk-mmap-bogus",
		"4096 bus=pci", "4096 device=no-such-device", "4096 bus=nosuchbus device=x",
	};
	static const char *const huge[] = {
		"0x10000000000", "0x4000000000000000", "0xfffffffffffff000",
		"size=0xffffffffffffffff",
	};
	static const char *const blank[] = { "\n", ";;", "\t\n", "" };
	char cmd[1200], name[80];
	int kind = rn(t, 12), want;
	size_t i, n;

	snprintf(name, sizeof(name), "stress-g%d", t->id);
	switch (kind) {
	case 0:
		snprintf(cmd, sizeof(cmd), "frob %s 4096\n", name);
		want = EINVAL;
		break;
	case 1:		/* bad names */
		switch (rn(t, 5)) {
		case 0:
			snprintf(cmd, sizeof(cmd), "create a/b 4096\n");
			break;
		case 1:
			snprintf(cmd, sizeof(cmd), "create %s 4096\n", rn(t, 2) ? "." : "..");
			break;
		case 2:
			snprintf(cmd, sizeof(cmd), "create %s\x01x 4096\n", name);
			break;
		case 3:
			snprintf(cmd, sizeof(cmd), "create %s\x7f 4096\n", name);
			break;
		default:
			snprintf(cmd, sizeof(cmd), "create %.*s 4096\n", 64,
				 "stress-long-name-0123456789abcdef0123456789abcdef0123456789abcdef");
			break;
		}
		want = EINVAL;
		break;
	case 2:		/* no size, zero, malformed */
		snprintf(cmd, sizeof(cmd), "create %s %s\n", name,
			 bad_args[rn(t, ARRAY_SIZE(bad_args))]);
		want = EINVAL;
		break;
	case 3:
		snprintf(cmd, sizeof(cmd), "delete %s-none\n", name);
		want = ENOENT;
		break;
	case 4:
		snprintf(cmd, sizeof(cmd), "delete\n");
		want = EINVAL;
		break;
	case 5:		/* a line of 1023 bytes or more: ENOSPC, and the line starts over */
		n = 1024 + rn(t, 100);
		memset(cmd, 'x', n);
		cmd[n] = '\0';
		want = ENOSPC;
		break;
	case 6:		/* two commands in one write, then one across writes */
		snprintf(cmd, sizeof(cmd), "create %s %llu;delete %s\n", name,
			 (unsigned long long)(1 + rn(t, 8192)), name);
		want = 0;
		break;
	case 7:		/* too much memory: ENOMEM, or E2BIG past the kernel's size_t */
		snprintf(cmd, sizeof(cmd), "create %s %s\n", name,
			 huge[rn(t, ARRAY_SIZE(huge))]);
		want = ENOMEM;
		break;
	case 8:		/* too many tokens */
		n = snprintf(cmd, sizeof(cmd), "create %s", name);
		for (i = 0; i < 17; i++)
			n += snprintf(cmd + n, sizeof(cmd) - n, " 4096");
		snprintf(cmd + n, sizeof(cmd) - n, "\n");
		want = EINVAL;
		break;
	case 9:		/* blank lines and separators only */
		snprintf(cmd, sizeof(cmd), "%s", blank[rn(t, ARRAY_SIZE(blank))]);
		want = 0;
		break;
	default:	/* random bytes after a letter no command starts with */
		n = 1 + rn(t, 200);
		cmd[0] = 'z';
		for (i = 1; i < n; i++) {
			cmd[i] = (char)(33 + rn(t, 94));
			if (cmd[i] == ';')
				cmd[i] = ':';
		}
		cmd[n] = '\n';
		cmd[n + 1] = '\0';
		want = EINVAL;
		break;
	}
	call(t, "manager write of %zu bytes \"%.*s\" (case %d)",
	     kind == 9 ? (size_t)1 : strlen(cmd), (int)strcspn(cmd, "\n") < 60 ?
	     (int)strcspn(cmd, "\n") : 60, cmd, kind);
	if (kind == 9 && !cmd[0]) {
		expect(t, write(t->mgr, "", 1) < 0 ? errno : 0, want);
	} else {
		int err = mgr_cmd(t->mgr, cmd);

		/* Which one depends on the kernel's size_t, not this program's. */
		if (kind == 7 && err == E2BIG)
			err = ENOMEM;
		expect(t, err, want);
	}
	if (kind == 6) {
		/* a command split over two writes */
		call(t, "manager command split over two writes");
		if (!expect(t, mgr_cmd(t->mgr, "create stress-g"), 0)) {
			snprintf(cmd, sizeof(cmd), "%d-s 4096\n", t->id);
			if (!expect(t, mgr_cmd(t->mgr, cmd), 0)) {
				snprintf(cmd, sizeof(cmd), "delete stress-g%d-s\n", t->id);
				expect(t, mgr_cmd(t->mgr, cmd), 0);
			}
		}
	}
}

static void *udb_thread(void *arg)
{
	struct th *t = arg;

	stash_init(t);
	t->mgr = open(MGR, O_WRONLY);
	call(t, "open %s", MGR);
	if (expect(t, t->mgr < 0 ? errno : 0, 0))
		return NULL;
	if (udb_own_create(t))
		goto out;
	while (now() < t->until) {
		int op = rn(t, 20);

		t->ops++;
		t->counts[op]++;
		switch (op) {
		case 0:
		case 1:
		case 2:
			udb_own_rw(t);
			break;
		case 3:
		case 4:
			own_mmap(t, false);
			break;
		case 5:
			own_mmap_bad(t, false);
			break;
		case 6:
		case 7:
			udb_own_ioctl(t);
			break;
		case 8:
			udb_own_export(t);
			break;
		case 9:
			own_seek(t, false);
			break;
		case 10:
			own_sysfs(t, false);
			break;
		case 11:
			udb_own_badptr(t);
			break;
		case 12:
			udb_shared_mgr(t);
			break;
		case 13: {
			char name[32];

			snprintf(name, sizeof(name), "stress-sh%d", (int)rn(t, NSHARED));
			shared_open(t, false, name);
			break;
		}
		case 14:
		case 15:
			udb_shared_op(t);
			break;
		case 16:
			shared_bind(t, false, NULL);
			break;
		case 17:
			if (!rn(t, 4))
				rmmod_attempt(t, rn(t, 2) ? "u_dma_buf" : "u_dma_buf_mgr");
			break;
		case 18:
			udb_mgr_garbage(t);
			break;
		default:
			udb_shared_sysfs(t);
			break;
		}
	}
	/* the whole buffer reads back as the thread left it */
	{
		uint8_t *p = malloc(t->size);

		call(t, "final pread of all %llu bytes", (unsigned long long)t->size);
		if (p && !expect(t, -ut_pread_all(t->fd, p, t->size, 0), 0))
			same(t, p, 0, t->size, "final read()");
		free(p);
	}
out:
	{
		int i;

		for (i = 0; i < NSTASH; i++)
			stash_drop(&t->st[i]);
	}
	own_close(t);
	if (t->name[0]) {
		char cmd[96];

		snprintf(cmd, sizeof(cmd), "delete %s\n", t->name);
		call(t, "manager \"delete %s\" once closed", t->name);
		expect(t, mgr_cmd(t->mgr, cmd), 0);
	}
	close(t->mgr);
	free(t->shadow);
	return NULL;
}

/* The minor the next manager buffer gets ("" on failure). */
static void probe_minor(int mgr, char *out, size_t len)
{
	out[0] = '\0';
	if (mgr_cmd(mgr, "create stress-minor 4096\n"))
		return;
	dev_of(UDB_CLASS, "stress-minor", out, len);
	mgr_cmd(mgr, "delete stress-minor\n");
}

static int count_stress_buffers(char *names, size_t len)
{
	DIR *d = opendir("/sys/class/u-dma-buf");
	struct dirent *e;
	int n = 0;

	names[0] = '\0';
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "stress-", 7))
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

static unsigned int nthreads(void)
{
	unsigned long n = env_ul("STRESS_THREADS", 3);

	return n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : n;
}

static unsigned long seconds(void)
{
	unsigned long s = env_ul("STRESS_SECONDS", 10);

	/* the harness stops a test after UT_TIMEOUT */
	return s > UT_TIMEOUT - 30 ? UT_TIMEOUT - 30 : s;
}

TEST(fuzz_udmabuf)
{
	static struct th th[MAX_THREADS];
	unsigned int n = nthreads(), i;
	char minor0[32], minor1[32], left[256], cmd[96];
	unsigned long ops = 0;
	int mgr, k;

	seed_init("fuzz_udmabuf");
	mgr = open(MGR, O_WRONLY);
	if (mgr < 0)
		SKIP("no %s (u-dma-buf-mgr not loaded)", MGR);
	probe_minor(mgr, minor0, sizeof(minor0));
	ASSERT_TRUE(minor0[0] != '\0');
	for (i = 0; i < n; i++) {
		memset(&th[i], 0, sizeof(th[i]));
		th_seed(&th[i], i, 1);
		th[i].fd = -1;
		th[i].fd_ro = -1;
		th[i].fd_sync = -1;
		th[i].until = now() + seconds();
		ASSERT_EQ(pthread_create(&th[i].thread, NULL, udb_thread, &th[i]), 0);
	}
	for (i = 0; i < n; i++) {
		pthread_join(th[i].thread, NULL);
		ops += th[i].ops;
	}
	TH_LOG("%u threads, %lu operations; shared: %lu creates, %lu deletes, %lu unbinds, "
	       "%lu binds, %lu exports, %lu rmmod attempts", n, ops,
	       atomic_load(&g_us.creates), atomic_load(&g_us.deletes),
	       atomic_load(&g_us.unbinds), atomic_load(&g_us.binds),
	       atomic_load(&g_us.exports), atomic_load(&g_us.rmmods));
	/* bind what is unbound, delete the shared names */
	for (k = 0; k < g_us.npdev; k++)
		write_str(UDB_DRV "/bind", g_us.pdev[k]);
	for (k = 0; k < NSHARED; k++) {
		int err;

		snprintf(cmd, sizeof(cmd), "delete stress-sh%d\n", k);
		err = mgr_cmd(mgr, cmd);
		EXPECT_TRUE(err == 0 || err == ENOENT);
		if (err && err != ENOENT)
			TH_LOG("%.*s: %s", (int)strlen(cmd) - 1, cmd, strerror(err));
	}
	EXPECT_EQ(count_stress_buffers(left, sizeof(left)), 0);
	if (left[0])
		TH_LOG("left behind:%s", left);
	probe_minor(mgr, minor1, sizeof(minor1));
	EXPECT_STREQ(minor1, minor0);
	close(mgr);
	EXPECT_GT(ops, 0UL);
	verdict("fuzz_udmabuf");
}

/* ---------------------------------------------------------------- uiomem */

static char g_regions[MAX_THREADS + 1][32];
static int g_nregions;

static int regions_init(void)
{
	char buf[512], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", ut_env("STRESS_UIOMEM", ""));
	g_nregions = 0;
	for (tok = strtok_r(buf, " ", &save); tok && g_nregions <= MAX_THREADS;
	     tok = strtok_r(NULL, " ", &save))
		snprintf(g_regions[g_nregions++], sizeof(g_regions[0]), "%s", tok);
	return g_nregions;
}

static int uio_own_init(struct th *t, const char *name)
{
	uint64_t v;
	int err;

	snprintf(t->name, sizeof(t->name), "%s", name);
	call(t, "open /dev/%s", name);
	err = expect(t, own_open(t, name), 0);
	if (err)
		return err;
	if (ut_sysfs_u64(UIO_CLASS, name, "size", 0, &t->size))
		return EIO;
	t->maplen = t->size;
	t->shadow = malloc(t->size);
	if (!t->shadow)
		return ENOMEM;
	/* a known content first */
	fill_rand(t, t->shadow, t->size);
	call(t, "pwrite of the whole region");
	err = expect(t, -ut_pwrite_all(t->fd, t->shadow, t->size, 0), 0);
	ut_sysfs_u64(UIO_CLASS, name, "sync_offset", 0, &t->s_off);
	ut_sysfs_u64(UIO_CLASS, name, "sync_size", 0, &t->s_size);
	ut_sysfs_u64(UIO_CLASS, name, "sync_direction", 0, &v);
	t->s_dir = v;
	ut_sysfs_u64(UIO_CLASS, name, "sync_mode", 0, &v);
	t->s_mode = v;
	t->owner = 1;
	return err;
}

static void uio_own_rw(struct th *t)
{
	uint8_t buf[8192 + 64];
	uint64_t off = rn(t, 4) ? rn(t, t->size + 1) : pick(t, t->size);
	size_t len = rn(t, 4) ? rn(t, sizeof(buf)) : pick(t, sizeof(buf)) % sizeof(buf);
	size_t want;
	bool bad_ptr = !rn(t, 10);
	int fd = rn(t, 2) ? t->fd : t->fd_sync;
	int vfs = vfs_rw_errno(off, len);
	ssize_t r;

	if (vfs) {
		bool rd = rn(t, 2);

		call(t, "%s(len %zu, off %llu)", rd ? "pread" : "pwrite", len,
		     (unsigned long long)off);
		r = rd ? pread(fd, buf, len, off) : pwrite(fd, buf, len, off);
		expect(t, err_of(r), vfs);
		return;
	}
	want = off < t->size ? (size_t)(t->size - off < len ? t->size - off : len) : 0;
	if (rn(t, 2)) {
		fill_rand(t, buf, len);
		call(t, "pwrite(len %zu, off %llu%s) size %llu", len, (unsigned long long)off,
		     bad_ptr ? ", NULL" : "", (unsigned long long)t->size);
		r = pwrite(fd, bad_ptr ? NULL : buf, len, off);
		if (!len) {
			expect(t, err_of(r), 0);
		} else if (!want) {
			expect(t, err_of(r), ENOSPC);
		} else if (bad_ptr) {
			expect(t, err_of(r), EFAULT);
			if (r < 0 && errno == EFAULT)
				check_unwritten(t, off, 0, len);
		} else if (!expect(t, err_of(r), 0)) {
			if ((size_t)r != want)
				bad(t, "wrote %zd bytes, want %zu", r, want);
			else
				memcpy(t->shadow + off, buf, want);
		}
	} else {
		call(t, "pread(len %zu, off %llu%s) size %llu", len, (unsigned long long)off,
		     bad_ptr ? ", NULL" : "", (unsigned long long)t->size);
		r = pread(fd, bad_ptr ? NULL : buf, len, off);
		if (bad_ptr && want) {
			expect(t, err_of(r), EFAULT);
		} else if (!expect(t, err_of(r), 0)) {
			if ((size_t)r != want)
				bad(t, "read %zd bytes, want %zu", r, want);
			else
				same(t, buf, off, want, "read()");
		}
	}
	if (want)
		t->owner = 1;
}

static int uio_query(struct th *t, int fd, struct uiomem_query *q)
{
	memset(q, 0xa5, sizeof(*q));
	return ioctl(fd, UIOMEM_IOCTL_QUERY, q) ? errno : 0;
}

static void uio_own_ioctl(struct th *t)
{
	struct uiomem_query q0, q1;
	struct uiomem_sync s;
	bool sfd = !rn(t, 3);
	int fd = sfd ? t->fd_sync : (rn(t, 2) ? t->fd : t->fd_ro), kind = rn(t, 5), want;
	long r;

	call(t, "QUERY on %s", t->name);
	if (expect(t, uio_query(t, fd, &q0), 0))
		return;
	if (q0.size != t->size || q0.abi_version != UIOMEM_ABI_VERSION || q0.map_type > 3 ||
	    q0.sync_mode != t->s_mode || !(q0.flags & UIOMEM_QUERY_O_SYNC) != !sfd ||
	    q0.reserved[0] || q0.reserved[1] || q0.reserved[2] || q0.reserved[3] || q0.__pad)
		bad(t, "query: size %llu abi %u map_type %u sync_mode %u (want %u) flags %#x",
		    (unsigned long long)q0.size, q0.abi_version, q0.map_type, q0.sync_mode,
		    t->s_mode, q0.flags);
	switch (kind) {
	case 0:
	case 1:
	case 2:
		memset(&s, 0, sizeof(s));
		s.flags = rn(t, 4) ? (rn(t, 2) ? UIOMEM_SYNC_END : 0) | rn(t, 4) : rnd(t);
		if (!rn(t, 8))
			s.__pad = 1;
		if (!rn(t, 8))
			s.reserved[rn(t, 2)] = rnd(t) | 1;
		s.offset = pick(t, t->size);
		s.length = pick(t, t->size);
		/*
		 * The driver's order: malformed flags and fields, then a sync
		 * that may discard lines (START with READ, END|READ) on a file
		 * not open for writing, then the range.
		 */
		if ((s.flags & ~UIOMEM_SYNC_VALID_FLAGS) || !(s.flags & UIOMEM_SYNC_RW) ||
		    s.__pad || s.reserved[0] || s.reserved[1])
			want = EINVAL;
		else if (fd == t->fd_ro && (s.flags & UIOMEM_SYNC_READ) &&
			 (!(s.flags & UIOMEM_SYNC_END) ||
			  (s.flags & UIOMEM_SYNC_RW) == UIOMEM_SYNC_READ))
			want = EBADF;
		else
			want = !range_ok(s.offset, s.length, t->size) ? EINVAL : 0;
		call(t, "SYNC(flags %#x pad %u off %llu len %llu res %#llx %#llx) size %llu",
		     s.flags, s.__pad, (unsigned long long)s.offset, (unsigned long long)s.length,
		     (unsigned long long)s.reserved[0], (unsigned long long)s.reserved[1],
		     (unsigned long long)t->size);
		r = ioctl(fd, UIOMEM_IOCTL_SYNC, &s);
		if (!expect(t, err_of(r), want) && !want)
			t->owner = !!(s.flags & UIOMEM_SYNC_END);
		call(t, "QUERY after a SYNC that gave %s", ename(want));
		if (!expect(t, uio_query(t, fd, &q1), 0) &&
		    q1.sync_calls != q0.sync_calls + (want ? 0 : 1))
			bad(t, "sync_calls went from %llu to %llu",
			    (unsigned long long)q0.sync_calls, (unsigned long long)q1.sync_calls);
		break;
	case 3: {
		unsigned long c = rn(t, 2) ? UIOMEM_IOCTL_QUERY : UIOMEM_IOCTL_SYNC;

		call(t, "ioctl(%#lx, NULL)", c);
		r = ioctl(fd, c, NULL);
		expect(t, err_of(r), EFAULT);
		break;
	}
	default: {
		unsigned int c;

		do {
			c = _IOC(rn(t, 4), rn(t, 2) ? 'U' : 'u', rn(t, 256), rn(t, 128));
		} while (c == UIOMEM_IOCTL_QUERY || c == UIOMEM_IOCTL_SYNC);
		call(t, "ioctl(unknown %#x)", c);
		r = ioctl(fd, c, &q1);
		expect(t, err_of(r), ENOTTY);
		break;
	}
	}
}

static void uio_check_owner(struct th *t)
{
	uint64_t v;

	call(t, "read sync_owner of %s (model %u)", t->name, t->owner);
	if (!expect(t, -ut_sysfs_u64(UIO_CLASS, t->name, "sync_owner", 0, &v), 0) &&
	    v != t->owner)
		bad(t, "sync_owner %llu", (unsigned long long)v);
}

static char g_uio_pdev[64];

/*
 * The shared region may be unbound by another thread at any time, and the
 * driver then revokes its mappings: a touch gets SIGBUS (documented).  The
 * touch loop catches it; anywhere else SIGBUS stays fatal.
 */
static __thread sigjmp_buf *t_bus_jmp;

static void on_sigbus(int sig)
{
	if (t_bus_jmp)
		siglongjmp(*t_bus_jmp, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void catch_sigbus(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigbus;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
}

static void uio_shared_op(struct th *t)
{
	struct stash *s = &t->st[rn(t, NSTASH)];
	long pg = ut_page();
	struct uiomem_sync sy;
	struct uiomem_query q;
	uint8_t buf[256];
	uint64_t v;
	int err;
	long r;

	if (s->fd < 0)
		return;
	switch (rn(t, 6)) {
	case 0:
		v = rn(t, 0x20000);
		call(t, "pread(shared region, off %llu)", (unsigned long long)v);
		r = pread(s->fd, buf, sizeof(buf), v);
		allow(t, err_of(r), GONE | B(EBADF));
		break;
	case 1:
		v = rn(t, 0x20000);
		fill_rand(t, buf, sizeof(buf));
		call(t, "pwrite(shared region, off %llu)", (unsigned long long)v);
		r = pwrite(s->fd, buf, sizeof(buf), v);
		allow(t, err_of(r), GONE | B(ENOSPC) | B(EBADF));
		break;
	case 2:
		if (s->map != MAP_FAILED)
			munmap(s->map, s->maplen);
		s->maplen = (1 + rn(t, 4)) * pg;
		call(t, "mmap(shared region, len %zu)", s->maplen);
		s->map = mmap(NULL, s->maplen, s->ro ? PROT_READ : PROT_READ | PROT_WRITE,
			      MAP_SHARED, s->fd, 0);
		err = s->map == MAP_FAILED ? errno : 0;
		allow(t, err, GONE | B(EACCES) | B(ENXIO));
		if (!err) {
			volatile uint8_t *p = s->map;
			sigjmp_buf jmp;
			size_t i;

			catch_sigbus();
			if (sigsetjmp(jmp, 1) == 0) {
				t_bus_jmp = &jmp;
				for (i = 0; i < s->maplen; i += 64) {
					if (s->ro)
						(void)p[i];
					else
						p[i] = (uint8_t)i;
				}
			}
			t_bus_jmp = NULL;
		}
		break;
	case 3:
		memset(&sy, 0, sizeof(sy));
		sy.flags = rn(t, 8);
		sy.offset = rn(t, 0x20000);
		sy.length = rn(t, 0x20000);
		call(t, "SYNC(shared region)");
		r = ioctl(s->fd, UIOMEM_IOCTL_SYNC, &sy);
		/* EBADF: a sync that may discard lines, on a read-only file */
		allow(t, err_of(r), GONE | B(EINVAL) | (s->ro ? B(EBADF) : 0));
		break;
	case 4:
		call(t, "QUERY(shared region)");
		allow(t, uio_query(t, s->fd, &q), GONE);
		break;
	default:
		stash_drop(s);
		break;
	}
}

static void uio_shared_sysfs(struct th *t, const char *name)
{
	static const char *const attrs[] = {
		"sync_mode", "sync_offset", "sync_size", "sync_direction",
		"sync_for_cpu", "sync_for_device",
	};
	int a = rn(t, 6), perr, err;
	uint64_t v;
	char s[80];

	gen_num(t, rn(t, 2) ? rn(t, 8) : gen_sync_value(t, 0x10000), s, sizeof(s), &perr, &v);
	call(t, "write \"%.*s\" to %s/%s", (int)strcspn(s, "\n"), s, name, attrs[a]);
	err = -ut_sysfs_write(UIO_CLASS, name, attrs[a], s);
	allow(t, err, B(ENOENT) | B(ENODEV) | B(EINVAL) |
	      (a == 1 || a == 2 || a >= 4 ? B(ERANGE) : 0));
}

static void *uio_thread(void *arg)
{
	struct th *t = arg;
	const char *shared = g_regions[g_nregions - 1];
	int i;

	stash_init(t);
	if (uio_own_init(t, g_regions[t->id]))
		goto out;
	while (now() < t->until) {
		int op = rn(t, 16);

		t->ops++;
		t->counts[op]++;
		switch (op) {
		case 0:
		case 1:
		case 2:
			uio_own_rw(t);
			break;
		case 3:
		case 4:
			own_mmap(t, true);
			break;
		case 5:
			own_mmap_bad(t, true);
			break;
		case 6:
		case 7:
			uio_own_ioctl(t);
			break;
		case 8:
			own_seek(t, true);
			break;
		case 9:
			own_sysfs(t, true);
			uio_check_owner(t);
			break;
		case 10:
			shared_open(t, true, shared);
			break;
		case 11:
		case 12:
			uio_shared_op(t);
			break;
		case 13:
			if (g_uio_pdev[0])
				shared_bind(t, true, g_uio_pdev);
			break;
		case 14:
			if (!rn(t, 4))
				rmmod_attempt(t, "uiomem");
			break;
		default:
			uio_shared_sysfs(t, shared);
			break;
		}
	}
	{
		uint8_t *p = malloc(t->size);

		call(t, "final pread of all %llu bytes of %s", (unsigned long long)t->size,
		     t->name);
		if (p && !expect(t, -ut_pread_all(t->fd, p, t->size, 0), 0))
			same(t, p, 0, t->size, "final read()");
		free(p);
	}
out:
	for (i = 0; i < NSTASH; i++)
		stash_drop(&t->st[i]);
	own_close(t);
	free(t->shadow);
	return NULL;
}

TEST(fuzz_uiomem)
{
	static struct th th[MAX_THREADS];
	unsigned int n, i;
	unsigned long ops = 0;
	const char *shared;
	char dev0[32], dev1[32];

	seed_init("fuzz_uiomem");
	if (regions_init() < 2)
		SKIP("STRESS_UIOMEM names fewer than two regions (no ivshmem BAR?)");
	n = g_nregions - 1;
	if (n > nthreads())
		n = nthreads();
	shared = g_regions[g_nregions - 1];
	ASSERT_EQ(pdev_of(UIO_CLASS, shared, g_uio_pdev, sizeof(g_uio_pdev)), 0);
	dev_of(UIO_CLASS, shared, dev0, sizeof(dev0));
	for (i = 0; i < n; i++) {
		memset(&th[i], 0, sizeof(th[i]));
		th_seed(&th[i], i, 2);
		th[i].fd = -1;
		th[i].fd_ro = -1;
		th[i].fd_sync = -1;
		th[i].until = now() + seconds();
		ASSERT_EQ(pthread_create(&th[i].thread, NULL, uio_thread, &th[i]), 0);
	}
	for (i = 0; i < n; i++) {
		pthread_join(th[i].thread, NULL);
		ops += th[i].ops;
	}
	TH_LOG("%u threads, %lu operations; shared region %s (%s): %lu unbinds, %lu binds, "
	       "%lu rmmod attempts", n, ops, shared, g_uio_pdev, atomic_load(&g_us.unbinds),
	       atomic_load(&g_us.binds), atomic_load(&g_us.rmmods));
	/* bound again: same name, same minor */
	write_str(UIO_DRV "/bind", g_uio_pdev);
	dev_of(UIO_CLASS, shared, dev1, sizeof(dev1));
	EXPECT_STREQ(dev1, dev0);
	EXPECT_GT(ops, 0UL);
	verdict("fuzz_uiomem");
}

/* ---------------------------------------------------- a faulting write */

/*
 * write() from a user buffer that faults: a NULL pointer, and 16 readable
 * bytes followed by an unmapped page.  The bytes of the object past what
 * the source could give must keep their content (copy_from_user() zero-fills
 * the part it could not copy, so a driver that copies straight into its
 * memory clears them); the 16 readable bytes may or may not be written, and
 * must be when the call reports them.
 */
static void faulting_write(int fd, size_t size)
{
	long pg = ut_page();
	uint8_t *ref = malloc(size), *got = malloc(size), *src;
	void *volatile null = NULL;
	size_t i, changed = 0, first = 0;
	ssize_t r;

	ASSERT_TRUE(ref && got && size >= 2 * (size_t)pg);
	ut_fill(ref, size, 0, 77);
	ASSERT_EQ(ut_pwrite_all(fd, ref, size, 0), 0);
	r = pwrite(fd, null, 64, 64);
	TH_LOG("pwrite(NULL, 64) at 64: %zd (%s)", r, r < 0 ? strerror(errno) : "bytes");
	EXPECT_TRUE(r == -1 && errno == EFAULT);
	src = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(src != MAP_FAILED);
	ASSERT_OK(munmap(src + pg, pg));
	memset(src + pg - 16, 0xee, 16);
	r = pwrite(fd, src + pg - 16, 256, pg);
	TH_LOG("pwrite of 256 bytes at %ld, the last 240 unmapped: %zd (%s)", pg, r,
	       r < 0 ? strerror(errno) : "bytes");
	EXPECT_TRUE(r == -1 ? errno == EFAULT : r >= 1 && r <= 16);
	munmap(src, pg);
	ASSERT_EQ(ut_pread_all(fd, got, size, 0), 0);
	for (i = 0; i < size; i++) {
		bool mine = i >= (size_t)pg && i < (size_t)pg + 16;

		if (got[i] == ref[i] || (mine && got[i] == 0xee))
			continue;
		if (!changed++)
			first = i;
	}
	for (i = 0; r > 0 && i < (size_t)r; i++)
		EXPECT_EQ(got[pg + i], 0xee);
	UT_CHECK(changed == 0, 0,
		 "faulting writes changed %zu bytes they did not write (first: byte %zu, "
		 "0x%02x became 0x%02x)", changed, first, ref[first], got[first]);
	free(ref);
	free(got);
}

TEST(udmabuf_faulting_write_changes_no_other_byte)
{
	int mgr, fd;

	mgr = open(MGR, O_WRONLY);
	if (mgr < 0)
		SKIP("no %s (u-dma-buf-mgr not loaded)", MGR);
	ASSERT_EQ(mgr_cmd(mgr, "create stress-efault 16384\n"), 0);
	fd = open("/dev/stress-efault", O_RDWR);
	EXPECT_OK(fd);
	if (fd >= 0) {
		faulting_write(fd, 16384);
		close(fd);
	}
	EXPECT_EQ(mgr_cmd(mgr, "delete stress-efault\n"), 0);
	close(mgr);
}

TEST(uiomem_faulting_write_changes_no_other_byte)
{
	uint64_t size = 0;
	char path[64];
	int fd;

	if (regions_init() < 1)
		SKIP("STRESS_UIOMEM names no region (no ivshmem BAR?)");
	ASSERT_EQ(ut_sysfs_u64(UIO_CLASS, g_regions[0], "size", 0, &size), 0);
	snprintf(path, sizeof(path), "/dev/%s", g_regions[0]);
	fd = open(path, O_RDWR);
	ASSERT_OK(fd);
	faulting_write(fd, size);
	close(fd);
}

/* -------------------------------------------------------------- endurance */

static long slab_tolerance(void)
{
	return env_ul("STRESS_SLAB_TOLERANCE_KB", 512);
}

static void slab_verdict(const char *what, long before, long after, unsigned long cycles)
{
	long tol = slab_tolerance();

	TH_LOG("%s: SUnreclaim %ld kB before, %ld kB after %lu cycles (tolerance %ld kB)", what,
	       before, after, cycles, tol);
	UT_CHECK(before > 0 && after > 0, 0, "no SUnreclaim in /proc/meminfo");
	UT_CHECK(after - before <= tol, 0,
		 "%s: SUnreclaim grew by %ld kB over %lu cycles (%ld bytes a cycle), tolerance "
		 "%ld kB", what, after - before, cycles,
		 cycles ? (after - before) * 1024 / (long)cycles : 0, tol);
}

/* Keep the per-test alarm ahead of a long endurance run. */
static void extend_alarm(unsigned long cycles, unsigned long per_second)
{
	alarm(UT_TIMEOUT + cycles / (per_second ? per_second : 1));
}

TEST(endurance_create_delete)
{
	unsigned long cycles = env_ul("STRESS_CREATE_CYCLES", 300), i, fails = 0;
	char minor0[32], minor1[32], cmd[96], left[256];
	long before, after;
	double t0;
	int mgr, err;

	seed_init("endurance_create_delete");
	extend_alarm(cycles, 20);
	mgr = open(MGR, O_WRONLY);
	if (mgr < 0)
		SKIP("no %s (u-dma-buf-mgr not loaded)", MGR);
	/* warm the caches up, then the baseline */
	for (i = 0; i < 10; i++) {
		mgr_cmd(mgr, "create stress-endure 4096\n");
		mgr_cmd(mgr, "delete stress-endure\n");
	}
	probe_minor(mgr, minor0, sizeof(minor0));
	ASSERT_TRUE(minor0[0] != '\0');
	before = slab_kb();
	t0 = now();
	for (i = 0; i < cycles; i++) {
		uint64_t size = 4096 * (1 + (i * 7 + g_seed) % 16);

		snprintf(cmd, sizeof(cmd), "create stress-endure %llu%s\n",
			 (unsigned long long)size, i % 5 == 4 ? " quirk-mmap-page" : "");
		err = mgr_cmd(mgr, cmd);
		if (err) {
			if (fails++ < 5)
				TH_LOG("cycle %lu: create: %s", i, strerror(err));
			continue;
		}
		if (i % 10 == 0) {
			/* open, map, touch, close: the files and mappings go too */
			int fd = open("/dev/stress-endure", O_RDWR);
			char *p;

			if (fd >= 0) {
				p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
				if (p != MAP_FAILED) {
					p[size - 1] = 1;
					munmap(p, size);
				}
				close(fd);
			}
		}
		err = mgr_cmd(mgr, "delete stress-endure\n");
		if (err && fails++ < 5)
			TH_LOG("cycle %lu: delete: %s", i, strerror(err));
	}
	TH_LOG("%lu create/delete cycles in %.1f s", cycles, now() - t0);
	after = slab_kb();
	EXPECT_EQ(fails, 0UL);
	probe_minor(mgr, minor1, sizeof(minor1));
	EXPECT_STREQ(minor1, minor0);
	EXPECT_EQ(count_stress_buffers(left, sizeof(left)), 0);
	slab_verdict("create/delete", before, after, cycles);
	close(mgr);
}

TEST(endurance_bind_unbind_udmabuf)
{
	unsigned long cycles = env_ul("STRESS_BIND_CYCLES", 100), i, fails = 0, dirty = 0;
	char pdev[64], dev0[32], dev1[32];
	long before, after;
	double t0;
	int mgr, fd;

	seed_init("endurance_bind_unbind_udmabuf");
	extend_alarm(cycles, 10);
	mgr = open(MGR, O_WRONLY);
	if (mgr < 0)
		SKIP("no %s (u-dma-buf-mgr not loaded)", MGR);
	ASSERT_EQ(mgr_cmd(mgr, "create stress-bind 8192\n"), 0);
	ASSERT_EQ(pdev_of(UDB_CLASS, "stress-bind", pdev, sizeof(pdev)), 0);
	dev_of(UDB_CLASS, "stress-bind", dev0, sizeof(dev0));
	for (i = 0; i < 5; i++) {
		write_str(UDB_DRV "/unbind", pdev);
		write_str(UDB_DRV "/bind", pdev);
	}
	before = slab_kb();
	t0 = now();
	for (i = 0; i < cycles; i++) {
		uint8_t b = 0x5a;
		int err;

		fd = open("/dev/stress-bind", O_RDWR);
		if (fd < 0 || pwrite(fd, &b, 1, 4097) != 1)
			fails++;
		if (fd >= 0)
			close(fd);
		err = write_str(UDB_DRV "/unbind", pdev);
		if (!err && access("/dev/stress-bind", F_OK) == 0)
			err = EEXIST;
		if (!err)
			err = write_str(UDB_DRV "/bind", pdev);
		if (err) {
			if (fails++ < 5)
				TH_LOG("cycle %lu: unbind/bind %s: %s", i, pdev, strerror(err));
			write_str(UDB_DRV "/bind", pdev);
			continue;
		}
		dev_of(UDB_CLASS, "stress-bind", dev1, sizeof(dev1));
		if (strcmp(dev1, dev0) && fails++ < 5)
			TH_LOG("cycle %lu: dev %s, was %s", i, dev1, dev0);
		/* a new buffer is zeroed */
		fd = open("/dev/stress-bind", O_RDONLY);
		b = 0xff;
		if (fd < 0 || pread(fd, &b, 1, 4097) != 1)
			fails++;
		else if (b != 0 && dirty++ < 5)
			TH_LOG("cycle %lu: the rebound buffer holds 0x%02x, not 0", i, b);
		if (fd >= 0)
			close(fd);
	}
	TH_LOG("%lu unbind/bind cycles of %s in %.1f s", cycles, pdev, now() - t0);
	after = slab_kb();
	EXPECT_EQ(fails, 0UL);
	EXPECT_EQ(dirty, 0UL);
	EXPECT_EQ(mgr_cmd(mgr, "delete stress-bind\n"), 0);
	slab_verdict("udmabuf unbind/bind", before, after, cycles);
	close(mgr);
}

TEST(endurance_bind_unbind_uiomem)
{
	unsigned long cycles = env_ul("STRESS_BIND_CYCLES", 100), i, fails = 0;
	char pdev[64], dev0[32], dev1[32], path[64];
	const char *name;
	long before, after;
	double t0;

	seed_init("endurance_bind_unbind_uiomem");
	extend_alarm(cycles, 10);
	if (regions_init() < 1)
		SKIP("STRESS_UIOMEM names no region (no ivshmem BAR?)");
	name = g_regions[g_nregions - 1];
	ASSERT_EQ(pdev_of(UIO_CLASS, name, pdev, sizeof(pdev)), 0);
	dev_of(UIO_CLASS, name, dev0, sizeof(dev0));
	snprintf(path, sizeof(path), "/dev/%s", name);
	for (i = 0; i < 5; i++) {
		write_str(UIO_DRV "/unbind", pdev);
		write_str(UIO_DRV "/bind", pdev);
	}
	before = slab_kb();
	t0 = now();
	for (i = 0; i < cycles; i++) {
		int err = write_str(UIO_DRV "/unbind", pdev);

		if (!err && access(path, F_OK) == 0)
			err = EEXIST;
		if (!err)
			err = write_str(UIO_DRV "/bind", pdev);
		if (err) {
			if (fails++ < 5)
				TH_LOG("cycle %lu: unbind/bind %s: %s", i, pdev, strerror(err));
			write_str(UIO_DRV "/bind", pdev);
			continue;
		}
		dev_of(UIO_CLASS, name, dev1, sizeof(dev1));
		if (strcmp(dev1, dev0) && fails++ < 5)
			TH_LOG("cycle %lu: dev %s, was %s", i, dev1, dev0);
	}
	TH_LOG("%lu unbind/bind cycles of %s in %.1f s", cycles, pdev, now() - t0);
	after = slab_kb();
	EXPECT_EQ(fails, 0UL);
	slab_verdict("uiomem unbind/bind", before, after, cycles);
}

/* -------------------------------------------------------- fault injection */

#define DEBUGFS		"/sys/kernel/debug"
#define FI_MAX_NTH	400

static int fi_write(const char *attr, const char *what, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), DEBUGFS "/%s/%s", attr, what);
	return write_str(path, val);
}

/*
 * Arm both fault attributes for this thread only: the task filter on,
 * probability 0 (no random faults anywhere), and fail-nth for the thread.
 */
static int fi_setup(void)
{
	static const char *const attrs[] = { "failslab", "fail_page_alloc" };
	int i, err = 0;

	for (i = 0; i < 2; i++) {
		err |= fi_write(attrs[i], "task-filter", "Y");
		err |= fi_write(attrs[i], "probability", "0");
		err |= fi_write(attrs[i], "verbose", "0");
		err |= fi_write(attrs[i], "ignore-gfp-wait", "N");
	}
	err |= fi_write("fail_page_alloc", "ignore-gfp-highmem", "N");
	err |= fi_write("fail_page_alloc", "min-order", "0");
	err |= write_str("/proc/thread-self/make-it-fail", "1");
	return err;
}

static void fi_arm(unsigned int nth)
{
	char v[16];

	snprintf(v, sizeof(v), "%u", nth);
	write_str("/proc/thread-self/fail-nth", v);
}

/* Disarm; true when the armed fault was not reached (the operation is done). */
static bool fi_disarm(void)
{
	char v[16] = "0";

	read_str("/proc/thread-self/fail-nth", v, sizeof(v));
	write_str("/proc/thread-self/fail-nth", "0");
	return atoi(v) > 0;
}

struct fi_stats {
	unsigned long runs, failed;
};

static void fi_report(struct th *t, const char *op, struct fi_stats *s, bool complete)
{
	TH_LOG("%s: %lu runs, %lu failed by an injected fault%s", op, s->runs, s->failed,
	       complete ? "" : " (stopped before the operation ran fault-free)");
	if (!complete) {
		call(t, "%s under fail-nth", op);
		bad(t, "still failing at fail-nth %d", FI_MAX_NTH);
	}
}

/* Manager create under a fault: a documented errno and nothing left behind. */
static void fi_create(struct th *t, int mgr)
{
	struct fi_stats s = { 0 };
	bool done = false;
	unsigned int n;
	int err;

	for (n = 1; n <= FI_MAX_NTH && !done; n++) {
		fi_arm(n);
		err = mgr_cmd(mgr, "create stress-fi 65536\n");
		done = fi_disarm();
		s.runs++;
		call(t, "manager create with fail-nth %u", n);
		if (err) {
			s.failed++;
			allow(t, err, B(EINVAL) | B(EEXIST) | B(ENOMEM) | B(ENOSPC));
			if (ut_sysfs_exists(UDB_CLASS, "stress-fi") ||
			    access("/dev/stress-fi", F_OK) == 0)
				bad(t, "failed create left stress-fi behind");
			err = mgr_cmd(mgr, "create stress-fi 65536\n");
			call(t, "manager create after a failed one (fail-nth %u)", n);
			expect(t, err, 0);
		}
		call(t, "manager delete after create with fail-nth %u", n);
		expect(t, mgr_cmd(mgr, "delete stress-fi\n"), 0);
	}
	fi_report(t, "manager create", &s, done);
}

/* Bind (probe) under a fault. */
static void fi_probe(struct th *t, int mgr)
{
	struct fi_stats s = { 0 };
	char pdev[64];
	bool done = false;
	unsigned int n;
	int err;

	call(t, "create stress-fi-probe");
	if (expect(t, mgr_cmd(mgr, "create stress-fi-probe 65536\n"), 0))
		return;
	if (pdev_of(UDB_CLASS, "stress-fi-probe", pdev, sizeof(pdev)))
		return;
	for (n = 1; n <= FI_MAX_NTH && !done; n++) {
		call(t, "unbind %s", pdev);
		if (expect(t, write_str(UDB_DRV "/unbind", pdev), 0))
			break;
		fi_arm(n);
		err = write_str(UDB_DRV "/bind", pdev);
		done = fi_disarm();
		s.runs++;
		call(t, "bind %s with fail-nth %u", pdev, n);
		if (err) {
			s.failed++;
			allow(t, err, B(ENOMEM) | B(ENODEV) | B(EINVAL) | B(ENOSPC));
			if (ut_sysfs_exists(UDB_CLASS, "stress-fi-probe"))
				bad(t, "a failed probe left the class device");
			call(t, "bind %s after a failed probe (fail-nth %u)", pdev, n);
			expect(t, write_str(UDB_DRV "/bind", pdev), 0);
		}
	}
	fi_report(t, "probe (bind)", &s, done);
	call(t, "delete stress-fi-probe");
	expect(t, mgr_cmd(mgr, "delete stress-fi-probe\n"), 0);
}

/* Open, export and mmap of a buffer under a fault. */
static void fi_file_ops(struct th *t, int mgr, const char *opt)
{
	struct fi_stats so = { 0 }, se = { 0 }, sm = { 0 };
	char cmd[96];
	bool done;
	unsigned int n;
	int fd, err;

	snprintf(cmd, sizeof(cmd), "create stress-fi-ops 65536 %s\n", opt);
	call(t, "%.*s", (int)strlen(cmd) - 1, cmd);
	if (expect(t, mgr_cmd(mgr, cmd), 0))
		return;
	for (n = 1, done = false; n <= FI_MAX_NTH && !done; n++) {
		fi_arm(n);
		fd = open("/dev/stress-fi-ops", O_RDWR);
		err = fd < 0 ? errno : 0;
		done = fi_disarm();
		so.runs++;
		call(t, "open with fail-nth %u", n);
		if (err) {
			so.failed++;
			allow(t, err, B(ENOMEM) | B(ENFILE));
		} else {
			close(fd);
		}
	}
	fi_report(t, "open", &so, done);
	fd = open("/dev/stress-fi-ops", O_RDWR);
	call(t, "open stress-fi-ops");
	if (expect(t, fd < 0 ? errno : 0, 0))
		goto out;
	for (n = 1, done = false; n <= FI_MAX_NTH && !done; n++) {
		struct u_dma_buf_ioctl_export_args ea = { .flags = O_RDWR | O_CLOEXEC,
							  .size = 65536 };

		fi_arm(n);
		err = ioctl(fd, U_DMA_BUF_IOCTL_EXPORT, &ea) ? errno : 0;
		done = fi_disarm();
		se.runs++;
		call(t, "EXPORT with fail-nth %u", n);
		if (err) {
			se.failed++;
			allow(t, err, B(ENOMEM) | B(EMFILE) | B(ENFILE));
		} else {
			close(ea.fd);
		}
	}
	fi_report(t, "export", &se, done);
	for (n = 1, done = false; n <= FI_MAX_NTH && !done; n++) {
		uint8_t *p;

		fi_arm(n);
		p = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		err = p == MAP_FAILED ? errno : 0;
		done = fi_disarm();
		sm.runs++;
		call(t, "mmap with fail-nth %u", n);
		if (err) {
			sm.failed++;
			allow(t, err, B(ENOMEM) | B(EAGAIN));
		} else {
			p[0] = (uint8_t)n;
			p[65535] = (uint8_t)n;
			munmap(p, 65536);
		}
	}
	fi_report(t, "mmap", &sm, done);
	close(fd);
out:
	call(t, "delete stress-fi-ops");
	expect(t, mgr_cmd(mgr, "delete stress-fi-ops\n"), 0);
}

/* uiomem bind (probe) under a fault. */
static void fi_uiomem_probe(struct th *t, const char *name)
{
	struct fi_stats s = { 0 };
	char pdev[64];
	bool done = false;
	unsigned int n;
	int err;

	if (pdev_of(UIO_CLASS, name, pdev, sizeof(pdev)))
		return;
	for (n = 1; n <= FI_MAX_NTH && !done; n++) {
		call(t, "unbind %s", pdev);
		if (expect(t, write_str(UIO_DRV "/unbind", pdev), 0))
			break;
		fi_arm(n);
		err = write_str(UIO_DRV "/bind", pdev);
		done = fi_disarm();
		s.runs++;
		call(t, "bind %s with fail-nth %u", pdev, n);
		if (err) {
			s.failed++;
			allow(t, err, B(ENOMEM) | B(ENODEV) | B(EINVAL) | B(EBUSY));
			call(t, "bind %s after a failed probe (fail-nth %u)", pdev, n);
			expect(t, write_str(UIO_DRV "/bind", pdev), 0);
		}
	}
	fi_report(t, "uiomem probe (bind)", &s, done);
}

TEST(fault_injection)
{
	struct th t;
	struct stat st;
	int mgr;

	seed_init("fault_injection");
	if (stat(DEBUGFS "/failslab", &st))
		mount("debugfs", DEBUGFS, "debugfs", 0, NULL);
	if (stat(DEBUGFS "/failslab", &st) || stat(DEBUGFS "/fail_page_alloc", &st) ||
	    access("/proc/thread-self/fail-nth", W_OK))
		SKIP("no " DEBUGFS "/failslab, fail_page_alloc or fail-nth: this kernel has "
		     "CONFIG_FAULT_INJECTION (FAILSLAB, FAIL_PAGE_ALLOC, "
		     "FAULT_INJECTION_DEBUG_FS) off");
	memset(&t, 0, sizeof(t));
	th_seed(&t, 0, 3);
	ASSERT_EQ(fi_setup(), 0);
	mgr = open(MGR, O_WRONLY);
	if (mgr < 0)
		SKIP("no %s (u-dma-buf-mgr not loaded)", MGR);
	fi_create(&t, mgr);
	fi_probe(&t, mgr);
	fi_file_ops(&t, mgr, "");
	fi_file_ops(&t, mgr, "quirk-mmap-page");
	if (regions_init() >= 1)
		fi_uiomem_probe(&t, g_regions[g_nregions - 1]);
	write_str("/proc/thread-self/make-it-fail", "0");
	close(mgr);
	verdict("fault_injection");
}

TEST_HARNESS_MAIN
