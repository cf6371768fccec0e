/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * fault-nth.h - the Nth allocation of this thread fails: the setup of
 * failslab and fail_page_alloc for /proc/thread-self/fail-nth, arming and
 * disarming, for failnth.c and failload.c.
 */
#ifndef FAULT_NTH_H
#define FAULT_NTH_H

#include <stdbool.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "harness.h"
#include "ut.h"

#define FNTH_DEBUGFS	"/sys/kernel/debug"

static inline int fnth_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, val, strlen(val)) < 0)
		err = errno;
	close(fd);
	return err;
}

/* The first line of @path, without its newline; 0 or an errno. */
static inline int fnth_read(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t r;

	if (fd < 0)
		return errno;
	r = read(fd, buf, len - 1);
	close(fd);
	if (r < 0)
		return errno;
	buf[r] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static inline int fnth_attr(const char *attr, const char *what, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), FNTH_DEBUGFS "/%s/%s", attr, what);
	return fnth_write(path, val);
}

/*
 * Both fault attributes for this thread only, for every allocation
 * (FAILNTH_VERBOSE: the kernel's verbose level for each fault); the test
 * skips on a kernel without them.
 */
static inline void fnth_setup(void)
{
	static const char *const attrs[] = { "failslab", "fail_page_alloc" };
	struct stat st;
	int i, err = 0;

	if (stat(FNTH_DEBUGFS "/failslab", &st))
		mount("debugfs", FNTH_DEBUGFS, "debugfs", 0, NULL);
	if (stat(FNTH_DEBUGFS "/failslab", &st) || stat(FNTH_DEBUGFS "/fail_page_alloc", &st) ||
	    access("/proc/thread-self/fail-nth", W_OK))
		SKIP("no %s/failslab, fail_page_alloc or fail-nth: the kernel has %s off",
		     FNTH_DEBUGFS, "FAULT_INJECTION, FAILSLAB, FAIL_PAGE_ALLOC or its debugfs");
	for (i = 0; i < 2; i++) {
		err |= fnth_attr(attrs[i], "task-filter", "Y");
		err |= fnth_attr(attrs[i], "probability", "0");
		err |= fnth_attr(attrs[i], "verbose", ut_env("FAILNTH_VERBOSE", "0"));
		err |= fnth_attr(attrs[i], "ignore-gfp-wait", "N");
	}
	err |= fnth_attr("fail_page_alloc", "ignore-gfp-highmem", "N");
	err |= fnth_attr("fail_page_alloc", "min-order", "0");
	err |= fnth_write("/proc/thread-self/make-it-fail", "1");
	ASSERT_EQ(err, 0);
}

/* The @n-th allocation of this thread from now fails (@op: for progress). */
static inline void fnth_arm(const char *op, unsigned int n)
{
	char v[16];

	UT_PROGRESS("%s, fail-nth %u", op, n);
	snprintf(v, sizeof(v), "%u", n);
	fnth_write("/proc/thread-self/fail-nth", v);
}

/* Disarm; true when the armed fault was not reached. */
static inline bool fnth_disarm(void)
{
	char v[16] = "0";

	fnth_read("/proc/thread-self/fail-nth", v, sizeof(v));
	fnth_write("/proc/thread-self/fail-nth", "0");
	return atoi(v) > 0;
}

#endif /* FAULT_NTH_H */
