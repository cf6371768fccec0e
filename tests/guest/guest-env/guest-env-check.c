// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guest-env-check - the C harness itself works in the guest: checks pass,
 * a crashing child is caught, and the static binary matches the target.
 */
#include <sys/mman.h>
#include <sys/utsname.h>

#include "harness.h"

static void touch_null(void *arg)
{
	(void)arg;
	*(volatile int *)0 = 1;
}

TEST(signal_of_child_reports_sigsegv)
{
	ASSERT_EQ(ut_signal_of(touch_null, NULL), SIGSEGV);
}

TEST(anonymous_mmap_round_trip)
{
	size_t len = 1 << 20;
	unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	size_t i;

	ASSERT_TRUE(p != MAP_FAILED);
	for (i = 0; i < len; i++)
		p[i] = (unsigned char)(i * 7);
	for (i = 0; i < len; i++)
		if (p[i] != (unsigned char)(i * 7))
			break;
	EXPECT_EQ(i, len);
	munmap(p, len);
}

TEST(machine_matches_target_arch)
{
	const char *want = getenv("UDMEM_ARCH");
	struct utsname u;

	if (!want)
		SKIP("UDMEM_ARCH is not set (not running in a udmem guest)");
	ASSERT_OK(uname(&u));
	if (!strcmp(want, "arm64"))
		EXPECT_STREQ(u.machine, "aarch64");
	else if (!strcmp(want, "armhf"))
		EXPECT_EQ(strncmp(u.machine, "armv7", 5), 0);
	else
		EXPECT_STREQ(u.machine, want);
}

/* Run only by name, by the harness self-test: a check that cannot hold. */
TEST(manual_must_fail)
{
	EXPECT_EQ(1 + 1, 3);
}

TEST_HARNESS_MAIN
