/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * harness.h - a small kselftest-like harness for udmem's guest tests.
 *
 * Each TEST() runs in its own child process, so a crash, a SIGBUS or a
 * hang (alarm) fails that test only.  Results are printed one per line:
 *
 *	ok - <suite>/<test>
 *	not ok - <suite>/<test> # <why>
 *	ok - <suite>/<test> # SKIP <reason>
 *
 * The suite name comes from $UDMEM_SUITE, else from the program name.
 * ASSERT_*() ends the test on failure, EXPECT_*() records it and goes on,
 * SKIP() ends the test as skipped.  A test that checks nothing fails.
 *
 * Usage: prog [substring]   runs the tests whose name contains substring.
 * Tests named manual_* run only when named exactly (for deliberate failures).
 */
#ifndef UDMEM_TEST_HARNESS_H
#define UDMEM_TEST_HARNESS_H

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define UDMEM_TEST_MAX		512
#define UDMEM_TEST_TIMEOUT	120	/* seconds per test */

struct udmem_test {
	const char *name;
	void (*fn)(void);
};

static struct udmem_test udmem_tests[UDMEM_TEST_MAX];
static int udmem_test_count;
static int udmem_test_checks;	/* checks made by the running test */
static int udmem_test_failed;	/* failed EXPECTs of the running test */
static int udmem_test_msg_fd = -1;

static inline void udmem_test_register(const char *name, void (*fn)(void))
{
	if (udmem_test_count < UDMEM_TEST_MAX) {
		udmem_tests[udmem_test_count].name = name;
		udmem_tests[udmem_test_count].fn = fn;
		udmem_test_count++;
	}
}

#define TEST(name)							\
	static void udmem_test_##name(void);				\
	__attribute__((constructor)) static void udmem_reg_##name(void)	\
	{								\
		udmem_test_register(#name, udmem_test_##name);		\
	}								\
	static void udmem_test_##name(void)

/* Send a one-line message to the parent; the first message is the verdict's "why". */
static inline void __attribute__((format(printf, 1, 2)))
udmem_test_msg(const char *fmt, ...)
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
	if (udmem_test_msg_fd >= 0 && write(udmem_test_msg_fd, line, n) < 0)
		return;
	/* Also in the console, as a TAP diagnostic line. */
	fprintf(stdout, "# %.*s", n, line);
	fflush(stdout);
}

#define UDMEM_EXIT_PASS	0
#define UDMEM_EXIT_FAIL	1
#define UDMEM_EXIT_SKIP	2

#define SKIP(...) do {							\
		udmem_test_msg(__VA_ARGS__);				\
		_exit(UDMEM_EXIT_SKIP);					\
	} while (0)

#define UDMEM_CHECK(cond, fatal, fmt, ...) do {				\
		udmem_test_checks++;					\
		if (!(cond)) {						\
			udmem_test_msg("%s:%d: " fmt, __FILE__, __LINE__, \
				       ##__VA_ARGS__);			\
			udmem_test_failed++;				\
			if (fatal)					\
				_exit(UDMEM_EXIT_FAIL);			\
		}							\
	} while (0)

#define UDMEM_CMP(a, op, b, fatal) do {					\
		long long __a = (long long)(a), __b = (long long)(b);	\
		UDMEM_CHECK(__a op __b, fatal,				\
			    "%s %s %s: %lld (0x%llx) vs %lld (0x%llx)",	\
			    #a, #op, #b, __a, (unsigned long long)__a,	\
			    __b, (unsigned long long)__b);		\
	} while (0)

#define ASSERT_TRUE(c)		UDMEM_CHECK((c), 1, "%s is false", #c)
#define ASSERT_FALSE(c)		UDMEM_CHECK(!(c), 1, "%s is true", #c)
#define ASSERT_EQ(a, b)		UDMEM_CMP(a, ==, b, 1)
#define ASSERT_NE(a, b)		UDMEM_CMP(a, !=, b, 1)
#define ASSERT_LT(a, b)		UDMEM_CMP(a, <, b, 1)
#define ASSERT_LE(a, b)		UDMEM_CMP(a, <=, b, 1)
#define ASSERT_GT(a, b)		UDMEM_CMP(a, >, b, 1)
#define ASSERT_GE(a, b)		UDMEM_CMP(a, >=, b, 1)
#define EXPECT_TRUE(c)		UDMEM_CHECK((c), 0, "%s is false", #c)
#define EXPECT_FALSE(c)		UDMEM_CHECK(!(c), 0, "%s is true", #c)
#define EXPECT_EQ(a, b)		UDMEM_CMP(a, ==, b, 0)
#define EXPECT_NE(a, b)		UDMEM_CMP(a, !=, b, 0)
#define EXPECT_LT(a, b)		UDMEM_CMP(a, <, b, 0)
#define EXPECT_LE(a, b)		UDMEM_CMP(a, <=, b, 0)
#define EXPECT_GT(a, b)		UDMEM_CMP(a, >, b, 0)
#define EXPECT_GE(a, b)		UDMEM_CMP(a, >=, b, 0)
#define ASSERT_STREQ(a, b)	UDMEM_CHECK(strcmp((a), (b)) == 0, 1,	\
					    "\"%s\" != \"%s\"", (a), (b))
#define EXPECT_STREQ(a, b)	UDMEM_CHECK(strcmp((a), (b)) == 0, 0,	\
					    "\"%s\" != \"%s\"", (a), (b))

/* A syscall-style call that must fail with a given errno: -1/errno or -errno. */
#define ASSERT_ERRNO(expr, err) do {					\
		long __r; errno = 0; __r = (long)(expr);		\
		UDMEM_CHECK(__r == -1 ? errno == (err) : __r == -(err), 1, \
			    "%s: want %s, got ret %ld errno %d (%s)",	\
			    #expr, strerror(err), __r, errno, strerror(errno)); \
	} while (0)
#define EXPECT_ERRNO(expr, err) do {					\
		long __r; errno = 0; __r = (long)(expr);		\
		UDMEM_CHECK(__r == -1 ? errno == (err) : __r == -(err), 0, \
			    "%s: want %s, got ret %ld errno %d (%s)",	\
			    #expr, strerror(err), __r, errno, strerror(errno)); \
	} while (0)
/* A syscall-style call that must succeed (>= 0). */
#define ASSERT_OK(expr) do {						\
		long __r; errno = 0; __r = (long)(expr);		\
		UDMEM_CHECK(__r >= 0, 1, "%s failed: ret %ld errno %d (%s)", \
			    #expr, __r, errno, strerror(errno));	\
	} while (0)
#define EXPECT_OK(expr) do {						\
		long __r; errno = 0; __r = (long)(expr);		\
		UDMEM_CHECK(__r >= 0, 0, "%s failed: ret %ld errno %d (%s)", \
			    #expr, __r, errno, strerror(errno));	\
	} while (0)

/*
 * Run fn(arg) in a child and return the signal that killed it (0 if it
 * exited normally).  For checks such as "touching past the end is SIGBUS".
 */
static inline int udmem_test_signal_of(void (*fn)(void *), void *arg)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		fn(arg);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

static inline const char *udmem_test_suite(const char *argv0)
{
	const char *s = getenv("UDMEM_SUITE");
	const char *slash;

	if (s && *s)
		return s;
	slash = strrchr(argv0, '/');
	return slash ? slash + 1 : argv0;
}

static inline int udmem_test_run_one(const char *suite, struct udmem_test *t)
{
	char why[512] = "";
	int pipefd[2], status, n = 0;
	ssize_t r;
	pid_t pid;

	if (pipe(pipefd) < 0)
		return UDMEM_EXIT_FAIL;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(pipefd[0]);
		udmem_test_msg_fd = pipefd[1];
		alarm(UDMEM_TEST_TIMEOUT);
		t->fn();
		if (udmem_test_checks == 0) {
			udmem_test_msg("test made no check");
			_exit(UDMEM_EXIT_FAIL);
		}
		_exit(udmem_test_failed ? UDMEM_EXIT_FAIL : UDMEM_EXIT_PASS);
	}
	close(pipefd[1]);
	while ((r = read(pipefd[0], why + n, sizeof(why) - 1 - n)) > 0)
		n += r;
	why[n] = '\0';
	close(pipefd[0]);
	if (pid < 0 || waitpid(pid, &status, 0) < 0) {
		printf("not ok - %s/%s # fork/wait failed\n", suite, t->name);
		return UDMEM_EXIT_FAIL;
	}
	/* Only the first message line goes into the verdict. */
	why[strcspn(why, "\n")] = '\0';
	if (WIFSIGNALED(status)) {
		printf("not ok - %s/%s # killed by signal %d (%s)%s%s\n", suite,
		       t->name, WTERMSIG(status), strsignal(WTERMSIG(status)),
		       *why ? ": " : "", why);
		return UDMEM_EXIT_FAIL;
	}
	switch (WEXITSTATUS(status)) {
	case UDMEM_EXIT_PASS:
		printf("ok - %s/%s\n", suite, t->name);
		return UDMEM_EXIT_PASS;
	case UDMEM_EXIT_SKIP:
		printf("ok - %s/%s # SKIP %s\n", suite, t->name, *why ? why : "no reason");
		return UDMEM_EXIT_SKIP;
	default:
		printf("not ok - %s/%s # %s\n", suite, t->name, *why ? why : "failed");
		return UDMEM_EXIT_FAIL;
	}
}

int main(int argc, char **argv)
{
	const char *suite = udmem_test_suite(argv[0]);
	int i, failed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; i < udmem_test_count; i++) {
		const char *name = udmem_tests[i].name;

		if (!strncmp(name, "manual_", 7) ?
		    argc < 2 || strcmp(name, argv[1]) :
		    argc > 1 && !strstr(name, argv[1]))
			continue;
		if (udmem_test_run_one(suite, &udmem_tests[i]) == UDMEM_EXIT_FAIL)
			failed++;
	}
	return failed ? 1 : 0;
}

#endif /* UDMEM_TEST_HARNESS_H */
