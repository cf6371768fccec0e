/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * harness.h - the test harness of udmem's guest programs, modelled on the
 * kernel's kselftest harness (same macro names, our own implementation).
 *
 * A program registers its tests and ends with TEST_HARNESS_MAIN:
 *
 *	TEST(open_missing_node_enoent) { ... }
 *
 *	FIXTURE(dev) { int fd; };
 *	FIXTURE_VARIANT(dev) { const char *name; };
 *	FIXTURE_VARIANT_ADD(dev, buffer) { .name = "udmabuf0" };
 *	FIXTURE_VARIANT_ADD(dev, region) { .name = "uiomem0" };
 *	FIXTURE_SETUP(dev) { self->fd = open(variant->name, O_RDWR); ... }
 *	FIXTURE_TEARDOWN(dev) { close(self->fd); }
 *	TEST_F(dev, read_past_end_returns_zero) { ... self->fd ... }
 *
 *	TEST_HARNESS_MAIN
 *
 * Output is KTAP, one document per program, the plan known up front:
 *
 *	KTAP version 1
 *	1..3
 *	ok 1 <suite>/open_missing_node_enoent
 *	not ok 2 <suite>/dev.buffer.read_past_end_returns_zero # <why>
 *	ok 3 <suite>/dev.region.read_past_end_returns_zero # SKIP <reason>
 *
 * A TEST_F is named fixture.test, or fixture.variant.test when the fixture
 * has variants (it then runs once per variant).  The suite name comes from
 * $UDMEM_SUITE, else from the program name.  Lines starting with "# " are
 * diagnostics.
 *
 * Every test runs in its own child process, so a crash, a SIGBUS or a hang
 * fails that test only.  A hang is judged by progress, not by the clock:
 * the parent kills the child (SIGKILL, its process group too) when it made
 * no progress for UT_TIMEOUT seconds ($UDMEM_TEST_STALL_SECONDS if set).
 * A test that runs long calls
 * ut_progress() (or UT_PROGRESS(fmt, ...), which also notes where it is)
 * once per iteration; a test that never calls it has UT_TIMEOUT in all.
 *
 * What a test may leave behind when it is killed or forgets to clean up is
 * registered from the test: ut_cleanup_buffer("name") (or "prefix*") for
 * u-dma-buf manager buffers, ut_cleanup_bind(driver_dir, device) for a
 * platform device the test unbinds.  After the child ended, the parent
 * binds such a device again if it has no driver, and deletes through
 * /dev/u-dma-buf-mgr every buffer that matches and was not there before the
 * test; either makes that test fail ("left behind: ..."), never a later
 * one.  The fixture's
 * self starts zeroed; FIXTURE_TEARDOWN runs after the test body, also when
 * the body failed an ASSERT or SKIPped, but not when FIXTURE_SETUP did not
 * return.  ASSERT_*() ends the test on failure, EXPECT_*() records it and
 * goes on, SKIP() ends the test as skipped, TH_LOG() prints a diagnostic.
 * A test that checks nothing fails.  The program exits 0 when no test
 * failed, 1 otherwise.
 *
 * Usage: prog [substring]   runs the tests whose full name contains it.
 * A test whose name starts with manual_ runs only when named exactly (the
 * harness self-test uses one that must fail).
 *
 * A program may be several source files: prog.c ends with TEST_HARNESS_MAIN
 * and its parts, prog-*.c in the same directory, have no main (see
 * tests/qemu/udmemqemu/build.py).  Tests run in the order of definition,
 * those of prog.c first, then those of the parts in the order of their names.
 *
 * Helpers shared by the programs are in ut.h; everything here and there
 * is prefixed ut_ / UT_.
 */
#ifndef UT_HARNESS_H
#define UT_HARNESS_H

#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef UT_TIMEOUT
#define UT_TIMEOUT	120	/* seconds a test may go without progress */
#endif

#define UT_EXIT_PASS	0
#define UT_EXIT_FAIL	1
#define UT_EXIT_SKIP	2

struct ut_fixture;

struct ut_variant {
	const char *name;
	const void *data;
	struct ut_variant *next;
};

struct ut_fixture {
	const char *name;
	struct ut_variant *variants, **variants_tail;
};

struct ut_test {
	const char *name;
	struct ut_fixture *fixture;		/* NULL for TEST() */
	void (*run)(const void *variant);
	struct ut_test *next;
};

#define UT_MAX_CLEANUP	64
#ifndef UT_CLEANUP_MGR
#define UT_CLEANUP_MGR		"/dev/u-dma-buf-mgr"
#endif
#ifndef UT_CLEANUP_CLASS
#define UT_CLEANUP_CLASS	"/sys/class/u-dma-buf"
#endif

/* Shared between the running test (and its threads and children) and the parent. */
struct ut_shared {
	unsigned long beat;			/* ut_progress() count */
	char where[160];			/* the last UT_PROGRESS() note */
	int nbuf, nbind;
	char buf[UT_MAX_CLEANUP][64];		/* buffer names, "prefix*" */
	char bind[UT_MAX_CLEANUP][2][96];	/* driver directory, device */
};

/*
 * The harness's state, one copy per program (TEST_HARNESS_MAIN defines it),
 * so that a program may have tests and checks in several source files.
 */
extern struct ut_test *ut_tests, **ut_tests_tail;
extern int ut_checks;		/* checks made by the running test */
extern int ut_failed;		/* failed checks of the running test */
extern int ut_msg_fd;		/* the verdict pipe to the parent */
extern sigjmp_buf ut_jmp;	/* back to the TEST_F wrapper, for teardown */
extern int ut_jmp_armed;
extern int ut_end_code;		/* how the body ended when it jumped back */
extern struct ut_shared *ut_shm;	/* NULL outside a test */

#define UT_CTOR(fn)	__attribute__((constructor)) static void fn(void)

static inline void ut_test_register(struct ut_test *t)
{
	*ut_tests_tail = t;
	ut_tests_tail = &t->next;
}

static inline void ut_variant_register(struct ut_fixture *f, struct ut_variant *v)
{
	if (!f->variants_tail)
		f->variants_tail = &f->variants;
	*f->variants_tail = v;
	f->variants_tail = &v->next;
}

#define TEST(tn)							\
	static void ut_body_##tn(const void *variant);		\
	static struct ut_test ut_test_##tn = {			\
		.name = #tn, .run = ut_body_##tn,			\
	};								\
	UT_CTOR(ut_reg_##tn) { ut_test_register(&ut_test_##tn); }	\
	static void ut_body_##tn(const void *variant __attribute__((unused)))

#define FIXTURE_DATA(f)		struct ut_self_##f

#define FIXTURE(f)							\
	struct ut_variant_##f;						\
	struct ut_self_##f;						\
	static struct ut_fixture ut_fixture_##f = { .name = #f };	\
	static void ut_setup_##f(struct ut_self_##f *self,		\
				 const struct ut_variant_##f *variant);	\
	static void ut_teardown_##f(struct ut_self_##f *self,		\
				    const struct ut_variant_##f *variant); \
	struct ut_self_##f

#define FIXTURE_SETUP(f)						\
	static void ut_setup_##f(struct ut_self_##f *self __attribute__((unused)), \
		const struct ut_variant_##f *variant __attribute__((unused)))

#define FIXTURE_TEARDOWN(f)						\
	static void ut_teardown_##f(struct ut_self_##f *self __attribute__((unused)), \
		const struct ut_variant_##f *variant __attribute__((unused)))

#define FIXTURE_VARIANT(f)	struct ut_variant_##f

#define FIXTURE_VARIANT_ADD(f, v)					\
	static const struct ut_variant_##f ut_vdata_##f##_##v;		\
	static struct ut_variant ut_variant_##f##_##v = {		\
		.name = #v, .data = &ut_vdata_##f##_##v,		\
	};								\
	UT_CTOR(ut_vreg_##f##_##v)					\
	{								\
		ut_variant_register(&ut_fixture_##f, &ut_variant_##f##_##v); \
	}								\
	static const struct ut_variant_##f ut_vdata_##f##_##v =

/*
 * The wrapper runs setup, the body under a jump point (so that a failed
 * ASSERT or a SKIP in the body still reaches the teardown), then teardown.
 * self is static: each test is a fresh child process.
 */
#define TEST_F(f, tn)							\
	static void ut_body_##f##__##tn(struct ut_self_##f *self,	\
		const struct ut_variant_##f *variant);			\
	static void ut_run_##f##__##tn(const void *v)			\
	{								\
		static struct ut_self_##f self;				\
									\
		ut_setup_##f(&self, v);					\
		if (!sigsetjmp(ut_jmp, 0)) {				\
			ut_jmp_armed = 1;				\
			ut_body_##f##__##tn(&self, v);		\
		}							\
		ut_jmp_armed = 0;					\
		ut_teardown_##f(&self, v);				\
	}								\
	static struct ut_test ut_test_##f##__##tn = {			\
		.name = #tn, .fixture = &ut_fixture_##f,		\
		.run = ut_run_##f##__##tn,				\
	};								\
	UT_CTOR(ut_reg_##f##__##tn)					\
	{								\
		ut_test_register(&ut_test_##f##__##tn);		\
	}								\
	static void ut_body_##f##__##tn(				\
		struct ut_self_##f *self __attribute__((unused)),	\
		const struct ut_variant_##f *variant __attribute__((unused)))

/* Print a diagnostic line; it does not change the verdict. */
#define TH_LOG(fmt, ...) do {						\
		printf("# " fmt "\n", ##__VA_ARGS__);			\
		fflush(stdout);						\
	} while (0)

/* Send a one-line message to the parent; the first one is the verdict's "why". */
static inline void __attribute__((format(printf, 1, 2)))
ut_msg(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	if (ut_msg_fd >= 0 && write(ut_msg_fd, line, n) < 0)
		return;
	/* Also in the console, as a diagnostic line. */
	fprintf(stdout, "# %.*s", n, line);
	fflush(stdout);
}

/* End the running test: back to its TEST_F wrapper (teardown), else exit. */
static inline void __attribute__((noreturn)) ut_end(int code)
{
	if (ut_jmp_armed) {
		ut_jmp_armed = 0;
		ut_end_code = code;
		siglongjmp(ut_jmp, 1);
	}
	_exit(code);
}

#define SKIP(...) do {							\
		ut_msg(__VA_ARGS__);					\
		ut_end(UT_EXIT_SKIP);					\
	} while (0)

#define UT_CHECK(cond, fatal, fmt, ...) do {				\
		ut_checks++;						\
		if (!(cond)) {						\
			ut_msg("%s:%d: " fmt, __FILE__, __LINE__,	\
			       ##__VA_ARGS__);				\
			ut_failed++;					\
			if (fatal)					\
				ut_end(UT_EXIT_FAIL);			\
		}							\
	} while (0)

#define UT_CMP(a, op, b, fatal) do {					\
		long long __a = (long long)(a), __b = (long long)(b);	\
		UT_CHECK(__a op __b, fatal,				\
			 "%s %s %s: %lld (0x%llx) vs %lld (0x%llx)",	\
			 #a, #op, #b, __a, (unsigned long long)__a,	\
			 __b, (unsigned long long)__b);			\
	} while (0)

#define ASSERT_TRUE(c)		UT_CHECK((c), 1, "%s is false", #c)
#define ASSERT_FALSE(c)		UT_CHECK(!(c), 1, "%s is true", #c)
#define ASSERT_EQ(a, b)		UT_CMP(a, ==, b, 1)
#define ASSERT_NE(a, b)		UT_CMP(a, !=, b, 1)
#define ASSERT_LT(a, b)		UT_CMP(a, <, b, 1)
#define ASSERT_LE(a, b)		UT_CMP(a, <=, b, 1)
#define ASSERT_GT(a, b)		UT_CMP(a, >, b, 1)
#define ASSERT_GE(a, b)		UT_CMP(a, >=, b, 1)
#define EXPECT_TRUE(c)		UT_CHECK((c), 0, "%s is false", #c)
#define EXPECT_FALSE(c)		UT_CHECK(!(c), 0, "%s is true", #c)
#define EXPECT_EQ(a, b)		UT_CMP(a, ==, b, 0)
#define EXPECT_NE(a, b)		UT_CMP(a, !=, b, 0)
#define EXPECT_LT(a, b)		UT_CMP(a, <, b, 0)
#define EXPECT_LE(a, b)		UT_CMP(a, <=, b, 0)
#define EXPECT_GT(a, b)		UT_CMP(a, >, b, 0)
#define EXPECT_GE(a, b)		UT_CMP(a, >=, b, 0)
#define ASSERT_STREQ(a, b)	UT_CHECK(strcmp((a), (b)) == 0, 1,	\
					 "\"%s\" != \"%s\"", (a), (b))
#define EXPECT_STREQ(a, b)	UT_CHECK(strcmp((a), (b)) == 0, 0,	\
					 "\"%s\" != \"%s\"", (a), (b))

/* A syscall-style call that must fail with a given errno: -1/errno or -errno. */
#define UT_ERRNO(expr, err, fatal) do {					\
		long __r; errno = 0; __r = (long)(expr);		\
		UT_CHECK(__r == -1 ? errno == (err) : __r == -(err), fatal, \
			 "%s: want %s, got ret %ld errno %d (%s)",	\
			 #expr, strerror(err), __r, errno, strerror(errno)); \
	} while (0)
#define ASSERT_ERRNO(expr, err)	UT_ERRNO(expr, err, 1)
#define EXPECT_ERRNO(expr, err)	UT_ERRNO(expr, err, 0)

/* A syscall-style call that must succeed (>= 0). */
#define UT_OK(expr, fatal) do {						\
		long __r; errno = 0; __r = (long)(expr);		\
		UT_CHECK(__r >= 0, fatal, "%s failed: ret %ld errno %d (%s)", \
			 #expr, __r, errno, strerror(errno));		\
	} while (0)
#define ASSERT_OK(expr)		UT_OK(expr, 1)
#define EXPECT_OK(expr)		UT_OK(expr, 0)

/* The running test made progress: the watchdog starts its UT_TIMEOUT again. */
static inline void ut_progress(void)
{
	if (ut_shm)
		__atomic_add_fetch(&ut_shm->beat, 1, __ATOMIC_RELAXED);
}

/* ut_progress() and a note of where the test is, quoted if it then stalls. */
#define UT_PROGRESS(fmt, ...) do {					\
		if (ut_shm)						\
			snprintf(ut_shm->where, sizeof(ut_shm->where),	\
				 fmt, ##__VA_ARGS__);			\
		ut_progress();						\
	} while (0)

/*
 * The parent deletes, after the test, every manager buffer named @name (or,
 * for "prefix*", whose name starts with prefix) that it made.
 */
static inline void ut_cleanup_buffer(const char *name)
{
	int i, k;

	if (!ut_shm)
		return;
	for (i = 0; i < __atomic_load_n(&ut_shm->nbuf, __ATOMIC_ACQUIRE) &&
	     i < UT_MAX_CLEANUP; i++)
		if (!strcmp(ut_shm->buf[i], name))
			return;
	k = __atomic_fetch_add(&ut_shm->nbuf, 1, __ATOMIC_ACQ_REL);
	if (k < UT_MAX_CLEANUP)
		snprintf(ut_shm->buf[k], sizeof(ut_shm->buf[k]), "%s", name);
}

/* The parent binds @dev to the driver of @drv_dir after the test, if it has none. */
static inline void ut_cleanup_bind(const char *drv_dir, const char *dev)
{
	int i, k;

	if (!ut_shm)
		return;
	for (i = 0; i < __atomic_load_n(&ut_shm->nbind, __ATOMIC_ACQUIRE) &&
	     i < UT_MAX_CLEANUP; i++)
		if (!strcmp(ut_shm->bind[i][1], dev))
			return;
	k = __atomic_fetch_add(&ut_shm->nbind, 1, __ATOMIC_ACQ_REL);
	if (k >= UT_MAX_CLEANUP)
		return;
	snprintf(ut_shm->bind[k][0], sizeof(ut_shm->bind[k][0]), "%s", drv_dir);
	snprintf(ut_shm->bind[k][1], sizeof(ut_shm->bind[k][1]), "%s", dev);
}

/*
 * Run fn(arg) in a child and return the signal that killed it (0 if it
 * exited normally).  For checks such as "touching past the end is SIGBUS".
 */
static inline int ut_signal_of(void (*fn)(void *), void *arg)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		ut_jmp_armed = 0;	/* the teardown belongs to the parent */
		fn(arg);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

/* ---------------------------------------------------------------- runner */

static inline const char *ut_suite(const char *argv0)
{
	const char *s = getenv("UDMEM_SUITE");
	const char *slash;

	if (s && *s)
		return s;
	slash = strrchr(argv0, '/');
	return slash ? slash + 1 : argv0;
}

static inline void ut_full_name(char *buf, size_t len, const struct ut_test *t,
				const struct ut_variant *v)
{
	if (!t->fixture)
		snprintf(buf, len, "%s", t->name);
	else if (!v)
		snprintf(buf, len, "%s.%s", t->fixture->name, t->name);
	else
		snprintf(buf, len, "%s.%s.%s", t->fixture->name, v->name, t->name);
}

static inline int ut_selected(const struct ut_test *t, const char *full,
			      const char *filter)
{
	if (!strncmp(t->name, "manual_", 7))
		return filter && (!strcmp(filter, t->name) || !strcmp(filter, full));
	return !filter || strstr(full, filter);
}

/* Call fn for every (test, variant) instance the filter selects; returns how many. */
static inline int ut_for_each(const char *filter,
			      void (*fn)(int n, struct ut_test *t,
					 struct ut_variant *v, const char *full,
					 void *arg),
			      void *arg)
{
	struct ut_test *t;
	struct ut_variant *v;
	char full[256];
	int n = 0;

	for (t = ut_tests; t; t = t->next) {
		v = t->fixture ? t->fixture->variants : NULL;
		do {
			ut_full_name(full, sizeof(full), t, v);
			if (ut_selected(t, full, filter)) {
				n++;
				if (fn)
					fn(n, t, v, full, arg);
			}
			v = v ? v->next : NULL;
		} while (v);
	}
	return n;
}

static inline void __attribute__((noreturn))
ut_child(struct ut_test *t, struct ut_variant *v, int msg_fd)
{
	ut_msg_fd = msg_fd;
	setpgid(0, 0);		/* the watchdog kills the test's own children too */
	t->run(v ? v->data : NULL);
	if (ut_end_code)
		_exit(ut_end_code == UT_EXIT_SKIP && ut_failed ? UT_EXIT_FAIL : ut_end_code);
	if (ut_checks == 0) {
		ut_msg("test made no check");
		_exit(UT_EXIT_FAIL);
	}
	_exit(ut_failed ? UT_EXIT_FAIL : UT_EXIT_PASS);
}

struct ut_totals {
	const char *suite;
	int pass, fail, skip;
};

static inline double ut_watch_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Append to a bounded string. */
static inline void __attribute__((format(printf, 3, 4)))
ut_cleanup_cat(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

/* "\nname1\nname2\n": the u-dma-buf class devices now (the parent's snapshot). */
static inline void ut_cleanup_snapshot(char *buf, size_t len)
{
	DIR *d = opendir(UT_CLEANUP_CLASS);
	struct dirent *e;

	snprintf(buf, len, "\n");
	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			ut_cleanup_cat(buf, len, "%s\n", e->d_name);
	closedir(d);
}

static inline int ut_cleanup_listed(const char *list, const char *name)
{
	char key[300];

	snprintf(key, sizeof(key), "\n%s\n", name);
	return !!strstr(list, key);
}

static inline int ut_cleanup_matches(const char *pat, const char *name)
{
	size_t n = strlen(pat);

	if (n && pat[n - 1] == '*')
		return !strncmp(pat, name, n - 1);
	return !strcmp(pat, name);
}

static inline int ut_cleanup_write(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY), err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, s, strlen(s)) < 0)
		err = errno;
	close(fd);
	return err;
}

/*
 * After a test: bind again the devices it left without a driver, delete
 * the buffers it registered that were not there before it.  What was left
 * is described in @out; returns how many things were.
 */
static inline int ut_cleanup_run(struct ut_shared *sh, const char *before,
				 char *out, size_t len)
{
	char path[300], cmd[300];
	struct dirent *e;
	struct stat st;
	int i, k, left = 0, n;
	DIR *d;

	n = sh->nbind < UT_MAX_CLEANUP ? sh->nbind : UT_MAX_CLEANUP;
	for (i = 0; i < n; i++) {
		const char *dev = sh->bind[i][1];
		int err;

		snprintf(path, sizeof(path), "%s/%s", sh->bind[i][0], dev);
		if (!*dev || lstat(path, &st) == 0)
			continue;	/* bound (to this driver) */
		snprintf(path, sizeof(path), "/sys/bus/platform/devices/%s/driver", dev);
		if (lstat(path, &st) == 0)
			continue;	/* bound elsewhere */
		snprintf(path, sizeof(path), "/sys/bus/platform/devices/%s", dev);
		if (lstat(path, &st))
			continue;	/* the device is gone */
		snprintf(path, sizeof(path), "%s/bind", sh->bind[i][0]);
		err = ut_cleanup_write(path, dev);
		ut_cleanup_cat(out, len, "%s%s unbound (%s)", left++ ? ", " : "", dev,
			       err ? strerror(err) : "bound again");
	}
	n = sh->nbuf < UT_MAX_CLEANUP ? sh->nbuf : UT_MAX_CLEANUP;
	d = n ? opendir(UT_CLEANUP_CLASS) : NULL;
	while (d && (e = readdir(d))) {
		int err;

		if (e->d_name[0] == '.' || ut_cleanup_listed(before, e->d_name))
			continue;
		for (k = 0; k < n; k++)
			if (ut_cleanup_matches(sh->buf[k], e->d_name))
				break;
		if (k == n)
			continue;
		snprintf(cmd, sizeof(cmd), "delete %s\n", e->d_name);
		err = ut_cleanup_write(UT_CLEANUP_MGR, cmd);
		ut_cleanup_cat(out, len, "%sbuffer %s (%s)", left++ ? ", " : "", e->d_name,
			       err ? strerror(err) : "deleted");
	}
	if (d)
		closedir(d);
	return left;
}

/* UT_TIMEOUT, or $UDMEM_TEST_STALL_SECONDS (the harness's own checks use it). */
static inline int ut_stall_limit(void)
{
	const char *v = getenv("UDMEM_TEST_STALL_SECONDS");
	int n = v ? atoi(v) : 0;

	return n > 0 ? n : UT_TIMEOUT;
}

/*
 * Read the child's messages until it (and whatever holds the pipe) ends;
 * kill it when ut_progress() did not move for UT_TIMEOUT seconds.  Returns
 * the seconds it stalled when it was killed, else 0.
 */
static inline int ut_watch(pid_t pid, int fd, struct ut_shared *sh, char *why, int *len,
			   size_t size)
{
	unsigned long seen = sh ? sh->beat : 0;
	double last = ut_watch_now(), idle;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int stalled = 0;
	ssize_t r;

	for (;;) {
		char spill[256];
		int pr = poll(&pfd, 1, ut_stall_limit() < 10 ? 1000 : 5000);

		if (pr < 0 && errno != EINTR)
			break;
		if (pr > 0) {
			/* Keep the start, drain the rest: a child must never see EPIPE. */
			if (*len < (int)size - 1)
				r = read(fd, why + *len, size - 1 - *len);
			else
				r = read(fd, spill, sizeof(spill));
			if (r <= 0)
				break;
			if (*len < (int)size - 1)
				*len += r;
		}
		/* Messages are not progress: only ut_progress() is. */
		if (sh && __atomic_load_n(&sh->beat, __ATOMIC_RELAXED) != seen) {
			seen = __atomic_load_n(&sh->beat, __ATOMIC_RELAXED);
			last = ut_watch_now();
			continue;
		}
		idle = ut_watch_now() - last;
		if (!stalled && idle >= ut_stall_limit() && pid > 0) {
			stalled = (int)idle;
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
		}
	}
	return stalled;
}

static inline void ut_run_one(int n, struct ut_test *t, struct ut_variant *v,
			      const char *full, void *arg)
{
	struct ut_totals *tot = arg;
	struct ut_shared *sh = ut_shm;
	char why[512] = "", left[400] = "", before[4096];
	int pipefd[2], status, len = 0, stalled = 0, nleft = 0;
	pid_t pid = -1;

	if (sh)
		memset(sh, 0, sizeof(*sh));
	ut_cleanup_snapshot(before, sizeof(before));
	fflush(stdout);
	if (pipe(pipefd) == 0) {
		pid = fork();
		if (pid == 0) {
			close(pipefd[0]);
			ut_child(t, v, pipefd[1]);
		}
		close(pipefd[1]);
		if (pid > 0) {
			setpgid(pid, pid);	/* before any kill(-pid) */
			stalled = ut_watch(pid, pipefd[0], sh, why, &len, sizeof(why));
		}
		close(pipefd[0]);
	}
	why[len] = '\0';
	/* Only the first message line goes into the verdict. */
	why[strcspn(why, "\n")] = '\0';
	if (pid < 0 || waitpid(pid, &status, 0) < 0) {
		printf("not ok %d %s/%s # pipe/fork/wait failed: %s\n", n,
		       tot->suite, full, strerror(errno));
		tot->fail++;
		fflush(stdout);
		return;
	}
	if (sh)
		nleft = ut_cleanup_run(sh, before, left, sizeof(left));
	if (stalled) {
		printf("not ok %d %s/%s # no progress for %d s, killed%s%s%s%s%s%s\n", n,
		       tot->suite, full, stalled, sh && sh->where[0] ? " at: " : "",
		       sh ? sh->where : "", *why ? "; first message: " : "", why,
		       nleft ? "; left behind: " : "", left);
		tot->fail++;
	} else if (WIFSIGNALED(status)) {
		printf("not ok %d %s/%s # killed by signal %d (%s)%s%s%s%s\n", n,
		       tot->suite, full, WTERMSIG(status),
		       strsignal(WTERMSIG(status)), *why ? ": " : "", why,
		       nleft ? "; left behind: " : "", left);
		tot->fail++;
	} else if (nleft) {
		printf("not ok %d %s/%s # left behind: %s%s%s\n", n, tot->suite, full, left,
		       *why ? "; first message: " : "", why);
		tot->fail++;
	} else if (WEXITSTATUS(status) == UT_EXIT_PASS) {
		printf("ok %d %s/%s\n", n, tot->suite, full);
		tot->pass++;
	} else if (WEXITSTATUS(status) == UT_EXIT_SKIP) {
		printf("ok %d %s/%s # SKIP %s\n", n, tot->suite, full,
		       *why ? why : "no reason given");
		tot->skip++;
	} else {
		printf("not ok %d %s/%s # %s\n", n, tot->suite, full,
		       *why ? why : "failed");
		tot->fail++;
	}
	fflush(stdout);
}

static inline int ut_harness_main(int argc, char **argv)
{
	struct ut_totals tot = { .suite = ut_suite(argv[0]) };
	const char *filter = argc > 1 ? argv[1] : NULL;

	void *sh = mmap(NULL, sizeof(struct ut_shared), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	/* Without the shared page the tests still run, judged by UT_TIMEOUT in all. */
	ut_shm = sh == MAP_FAILED ? NULL : sh;
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("KTAP version 1\n1..%d\n", ut_for_each(filter, NULL, NULL));
	ut_for_each(filter, ut_run_one, &tot);
	printf("# %s: %d passed, %d failed, %d skipped\n", tot.suite, tot.pass,
	       tot.fail, tot.skip);
	return tot.fail ? 1 : 0;
}

#define TEST_HARNESS_MAIN						\
	struct ut_test *ut_tests, **ut_tests_tail = &ut_tests;		\
	int ut_checks, ut_failed, ut_msg_fd = -1;			\
	sigjmp_buf ut_jmp;						\
	int ut_jmp_armed, ut_end_code;					\
	struct ut_shared *ut_shm;					\
									\
	int main(int argc, char **argv)					\
	{								\
		return ut_harness_main(argc, argv);			\
	}

#endif /* UT_HARNESS_H */
