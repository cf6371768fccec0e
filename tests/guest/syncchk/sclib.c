// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * sclib: libudmem's udmem_sync_check_handler_install() (docs/library.md).
 *
 * A child process maps a strict-mode buffer through libudmem, hands a page
 * to the device and touches it: the handler must write the line naming the
 * buffer and the offset it touched to standard error, and the child must still
 * die of SIGBUS (or reach the SIGBUS handler installed before the library's).
 * A touch of a page the CPU owns must pass without a line.  The same for a
 * mapping the library did not make (mmap() of /dev/NAME, as the Python
 * package makes its own) once udmem_sync_check_watch() registers it, and
 * no line once udmem_sync_check_unwatch() forgets it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "udmabuf-test.h"
#include "udmem.h"

#define SL_SIZE		0x10000
#define SL_OLD_EXIT	42

struct sl_case {
	const char *name;
	uint64_t synced;	/* the page handed to the device */
	uint64_t touched;	/* the byte the child reads */
	int chain;		/* a SIGBUS handler of the program's own first */
	int watch;		/* SL_WATCH*: map without the library */
};

enum { SL_LIB, SL_WATCH, SL_UNWATCH };

/* mmap() /dev/@name itself and register it (a stale name first). */
static void *sl_map_foreign(const char *name, int watch)
{
	char path[96];
	void *p;
	int fd;

	snprintf(path, sizeof(path), "/dev/%s", name);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		_exit(10);
	p = mmap(NULL, SL_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		_exit(11);
	close(fd);
	/* an entry left from a mapping that is gone: the new one replaces it */
	if (udmem_sync_check_watch("stale-name", (char *)p + 0x1000, 0x1000))
		_exit(12);
	if (udmem_sync_check_watch(name, p, SL_SIZE))
		_exit(13);
	if (watch == SL_UNWATCH &&
	    (udmem_sync_check_unwatch(p) || udmem_sync_check_unwatch(p) != -ENOENT))
		_exit(14);
	return p;
}

static void sl_old_handler(int sig, siginfo_t *si, void *ctx)
{
	(void)sig;
	(void)si;
	(void)ctx;
	_exit(SL_OLD_EXIT);
}

static void __attribute__((noreturn)) sl_child(const struct sl_case *c, int out)
{
	struct udmem_buffer *buf;
	struct sigaction sa;
	volatile uint8_t *p;
	void *addr;

	if (dup2(out, STDERR_FILENO) < 0)
		_exit(3);
	if (c->chain) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = sl_old_handler;
		sa.sa_flags = SA_SIGINFO;
		if (sigaction(SIGBUS, &sa, NULL) < 0)
			_exit(4);
	}
	if (udmem_sync_check_handler_install() || udmem_sync_check_handler_install())
		_exit(5);
	if (udmem_buffer_open(c->name, 0, &buf))
		_exit(6);
	if (c->watch != SL_LIB)
		addr = sl_map_foreign(c->name, c->watch);
	else if (udmem_buffer_map(buf, &addr))
		_exit(7);
	p = addr;
	if (udmem_buffer_sync_for_device(buf, c->synced, 0x1000, UDMEM_DIR_BIDIRECTIONAL))
		_exit(8);
	(void)p[c->touched];
	_exit(0);
}

/* Run @c in a child; its wait status and what it wrote to stderr. */
static int sl_run(const struct sl_case *c, char *msg, size_t len, int *status)
{
	size_t got = 0;
	ssize_t n;
	int fds[2];
	pid_t pid;

	if (pipe(fds) < 0)
		return -errno;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		close(fds[0]);
		sl_child(c, fds[1]);
	}
	close(fds[1]);
	while (got + 1 < len && (n = read(fds[0], msg + got, len - 1 - got)) > 0)
		got += n;
	msg[got] = '\0';
	close(fds[0]);
	if (waitpid(pid, status, 0) < 0)
		return -errno;
	return 0;
}

/* A strict buffer named @name through libudmem; 0, or SKIP's reason. */
static const char *sl_create(const char *name)
{
	char mode[32];
	int ret;

	udmem_buffer_delete(name);
	ut_cleanup_buffer(name);
	ret = udmem_buffer_create_on(name, SL_SIZE, 0, UDMEM_MMAP_ON, NULL,
				     UDMEM_CREATE_SYNC_CHECK_STRICT);
	if (ret == -EINVAL)
		return "the driver has no sync checker";
	if (ret)
		return "udmem_buffer_create_on failed";
	if (ut_attr_read(name, "sync_check", mode, sizeof(mode)) || strncmp(mode, "strict", 6))
		return "the checker could not be switched on";
	return NULL;
}

static void sl_expect_caught(const char *name, uint64_t page, int chain, int watch)
{
	struct sl_case c = { name, page, page + 0x24, chain, watch };
	char msg[512], want[160];
	const char *why;
	int status;

	why = sl_create(name);
	if (why)
		SKIP("%s", why);
	ASSERT_EQ(sl_run(&c, msg, sizeof(msg), &status), 0);
	snprintf(want, sizeof(want),
		 "udmem: %s offset 0x%llx: CPU access to device-owned memory (sync checker)\n",
		 name, (unsigned long long)c.touched);
	UT_CHECK(strstr(msg, want), 0, "child (status 0x%x) wrote '%s', not '%s'",
		 status, msg, want);
	if (chain) {
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == SL_OLD_EXIT);
	} else {
		EXPECT_TRUE(WIFSIGNALED(status));
		EXPECT_EQ(WIFSIGNALED(status) ? WTERMSIG(status) : 0, SIGBUS);
	}
	EXPECT_EQ(udmem_buffer_delete(name), 0);
}

TEST(lib_names_buffer_and_offset)
{
	sl_expect_caught("udmem-sc-lib", 0x3000, 0, SL_LIB);
}

TEST(lib_names_another_offset)
{
	sl_expect_caught("udmem-sc-lib2", 0xf000, 0, SL_LIB);
}

TEST(lib_hands_on_to_the_old_handler)
{
	sl_expect_caught("udmem-sc-lib3", 0x5000, 1, SL_LIB);
}

TEST(lib_watch_names_a_foreign_mapping)
{
	sl_expect_caught("udmem-sc-lib5", 0x1000, 0, SL_WATCH);
}

TEST(lib_unwatch_forgets_the_mapping)
{
	struct sl_case c = { "udmem-sc-lib6", 0x7000, 0x7024, 0, SL_UNWATCH };
	const char *why;
	char msg[512];
	int status;

	why = sl_create(c.name);
	if (why)
		SKIP("%s", why);
	ASSERT_EQ(sl_run(&c, msg, sizeof(msg), &status), 0);
	UT_CHECK(!msg[0], 0, "child (status 0x%x) wrote '%s'", status, msg);
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(WIFSIGNALED(status) ? WTERMSIG(status) : 0, SIGBUS);
	EXPECT_EQ(udmem_buffer_delete(c.name), 0);
}

TEST(lib_watch_refuses_bad_arguments)
{
	static char page[64];

	EXPECT_EQ(udmem_sync_check_watch(NULL, page, sizeof(page)), -EINVAL);
	EXPECT_EQ(udmem_sync_check_watch("x", NULL, sizeof(page)), -EINVAL);
	EXPECT_EQ(udmem_sync_check_watch("x", page, 0), -EINVAL);
	EXPECT_EQ(udmem_sync_check_unwatch(page), -ENOENT);
	EXPECT_EQ(udmem_sync_check_unwatch(NULL), -EINVAL);
}

TEST(lib_cpu_owned_page_passes)
{
	struct sl_case c = { "udmem-sc-lib4", 0x3000, 0x1010, 0, SL_LIB };
	const char *why;
	char msg[512];
	int status;

	why = sl_create(c.name);
	if (why)
		SKIP("%s", why);
	ASSERT_EQ(sl_run(&c, msg, sizeof(msg), &status), 0);
	UT_CHECK(!msg[0], 0, "child wrote '%s'", msg);
	UT_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, 0,
		 "child ended with status 0x%x", status);
	EXPECT_EQ(udmem_buffer_delete(c.name), 0);
}

TEST_HARNESS_MAIN
