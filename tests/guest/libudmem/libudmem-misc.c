// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libudmem-misc.c - the library-wide functions: version, strerror, lists.
 */
#include "libudmem-test.h"

TEST(api_version_matches_macro)
{
	char want[16];

	snprintf(want, sizeof(want), "%d.%d.%d", UDMEM_API_VERSION >> 16,
		 (UDMEM_API_VERSION >> 8) & 0xff, UDMEM_API_VERSION & 0xff);
	EXPECT_STREQ(udmem_api_version(), want);
}

TEST(strerror_takes_negative_and_positive_errno)
{
	EXPECT_STREQ(udmem_strerror(-ENOENT), strerror(ENOENT));
	EXPECT_STREQ(udmem_strerror(ENODEV), strerror(ENODEV));
	EXPECT_STREQ(udmem_strerror(0), "Success");
	EXPECT_TRUE(udmem_strerror(-123456) != NULL);
	EXPECT_TRUE(udmem_strerror(-2147483647) != NULL);
}

TEST(list_free_null_is_safe)
{
	udmem_list_free(NULL);
	EXPECT_EQ(udmem_region_list(NULL), -EINVAL);
	EXPECT_EQ(udmem_buffer_list(NULL), -EINVAL);
}

TEST(lists_are_null_terminated)
{
	char **names = NULL;
	int n;

	n = udmem_buffer_list(&names);
	ASSERT_GE(n, 0);
	EXPECT_TRUE(names != NULL && names[n] == NULL);
	udmem_list_free(names);
	names = NULL;
	n = udmem_region_list(&names);
	ASSERT_GE(n, 0);
	EXPECT_TRUE(names != NULL && names[n] == NULL);
	udmem_list_free(names);
}

TEST_HARNESS_MAIN
