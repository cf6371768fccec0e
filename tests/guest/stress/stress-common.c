// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * stress: settings, the per-thread state and its failure reports, and the
 * helpers every test uses.
 */
#include "stress.h"

unsigned long long g_seed;
static atomic_int g_fail;
static pthread_mutex_t g_fail_lock = PTHREAD_MUTEX_INITIALIZER;
static char g_first[400];

unsigned long env_ul(const char *var, unsigned long dflt)
{
	const char *v = getenv(var);

	return v && *v ? strtoul(v, NULL, 0) : dflt;
}

/* The seed, printed by every test so that a failure can be replayed. */
void seed_init(const char *test)
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
	ut_cleanup_buffer("stress-*");
}

double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

uint64_t rnd(struct th *t)
{
	/* xorshift64* */
	t->rng ^= t->rng >> 12;
	t->rng ^= t->rng << 25;
	t->rng ^= t->rng >> 27;
	return t->rng * 2685821657736338717ULL;
}

uint64_t rn(struct th *t, uint64_t n)
{
	return n ? rnd(t) % n : 0;
}

void th_seed(struct th *t, int id, unsigned int salt)
{
	t->id = id;
	t->rng = (g_seed + 1) * 0x9E3779B97F4A7C15ULL ^ (uint64_t)(id + 1) << 40 ^ salt;
	if (!t->rng)
		t->rng = 1;
	rnd(t);
}

/* Describe the call being made; a failure report quotes it. */
void __attribute__((format(printf, 2, 3))) call(struct th *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->what, sizeof(t->what), fmt, ap);
	va_end(ap);
}

void __attribute__((format(printf, 2, 3))) bad(struct th *t, const char *fmt, ...)
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

const char *ename(int e)
{
	static __thread char buf[48];

	if (!e)
		return "success";
	snprintf(buf, sizeof(buf), "%s (%d)", strerror(e), e);
	return buf;
}

/* err (0 or an errno) must be in the allowed set. */
int allow(struct th *t, int err, uint64_t set)
{
	if (err && ((err >= 63 && err != EOVERFLOW) || !(set & B(err))))
		bad(t, "undocumented errno %s", ename(err));
	return err;
}

/* err (0 or an errno) must be exactly want. */
int expect(struct th *t, int err, int want)
{
	if (err != want) {
		char w[48];

		snprintf(w, sizeof(w), "%s", ename(want));
		bad(t, "got %s, want %s", ename(err), w);
	}
	return err;
}

int err_of(long r)
{
	return r < 0 ? errno : 0;
}

/* Report the test's verdict: no failure, else the first one in the TAP line. */
void verdict(const char *test)
{
	int n = atomic_load(&g_fail);

	UT_CHECK(n == 0, 0, "%s: %d failed checks (seed %llu), first: %s", test, n, g_seed,
		 g_first);
}

/* Every write is progress for the harness's watchdog. */
static int write_str_n(const char *path, const char *s, size_t len)
{
	int fd, err = 0;
	ssize_t n;

	ut_progress();
	fd = open(path, O_WRONLY);
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

int write_str(const char *path, const char *s)
{
	return write_str_n(path, s, strlen(s));
}

int read_str(const char *path, char *buf, size_t len)
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

/*
 * A manager command.  The buffers a test makes are registered with the
 * harness, which deletes what a killed test left (seed_init() registers
 * every "stress-" name; others, from the malformed lines, one by one).
 */
int mgr_cmd(int fd, const char *cmd)
{
	ssize_t n;

	ut_progress();
	if (!strncmp(cmd, "create ", 7) && strncmp(cmd + 7, "stress-", 7)) {
		char name[64];

		snprintf(name, sizeof(name), "%.*s", (int)strcspn(cmd + 7, " \t\n"), cmd + 7);
		if (name[0])
			ut_cleanup_buffer(name);
	}
	n = write(fd, cmd, strlen(cmd));

	return n < 0 ? errno : 0;
}

/* The platform device of a class device: the basename of its device link. */
int pdev_of(const char *class, const char *name, char *out, size_t len)
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
void dev_of(const char *class, const char *name, char *out, size_t len)
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
long slab_kb(void)
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

int delete_module(const char *name)
{
	return syscall(__NR_delete_module, name, O_NONBLOCK) ? errno : 0;
}

/* A value near the interesting edges of a range of size n, or anywhere. */
uint64_t pick(struct th *t, uint64_t n)
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
uint64_t kernel_size_max(void)
{
	struct utsname u;

	if (uname(&u) == 0 && strstr(u.machine, "64"))
		return UINT64_MAX;
	return UINT32_MAX;
}

/* The VFS refuses a negative position and one whose end passes 2^63 - 1. */
int vfs_rw_errno(uint64_t off, size_t len)
{
	if (off > (uint64_t)INT64_MAX)
		return EINVAL;
	if (len && off > (uint64_t)INT64_MAX - len)
		return EINVAL;
	return 0;
}

bool range_ok(uint64_t off, uint64_t len, uint64_t total)
{
	uint64_t end;

	if (__builtin_add_overflow(off, len, &end))
		return false;
	return end <= total;
}

/* Copy into a mapping byte by byte (see same()). */
void poke(volatile uint8_t *dst, const uint8_t *src, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		dst[i] = src[i];
}

void fill_rand(struct th *t, uint8_t *p, size_t len)
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
void same(struct th *t, const volatile uint8_t *p, uint64_t off, size_t len,
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
void gen_num(struct th *t, uint64_t hint, char *s, size_t len, int *perr, uint64_t *val)
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

unsigned int nthreads(void)
{
	unsigned long n = env_ul("STRESS_THREADS", 3);

	return n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : n;
}

unsigned long seconds(void)
{
	unsigned long s = env_ul("STRESS_SECONDS", 10);

	/* a bound that keeps a run short; the harness judges hangs by progress */
	return s > 90 ? 90 : s;
}

/*
 * Run @n fuzz threads of @fn for seconds() (@salt keeps the sequences of
 * different tests apart), wait for them; the operations they made.
 */
unsigned long run_fuzz_threads(struct th *th, unsigned int n, unsigned int salt,
			       void *(*fn)(void *))
{
	unsigned long ops = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		memset(&th[i], 0, sizeof(th[i]));
		th_seed(&th[i], i, salt);
		th[i].fd = -1;
		th[i].fd_ro = -1;
		th[i].fd_sync = -1;
		th[i].until = now() + seconds();
		ASSERT_EQ(pthread_create(&th[i].thread, NULL, fn, &th[i]), 0);
	}
	for (i = 0; i < n; i++) {
		pthread_join(th[i].thread, NULL);
		ops += th[i].ops;
	}
	return ops;
}
