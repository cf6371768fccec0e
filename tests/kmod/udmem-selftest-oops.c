// SPDX-License-Identifier: GPL-2.0
/*
 * udmem-selftest-oops - oopses on load, on purpose.
 *
 * Loaded only by the QEMU harness's self-test (udmem-qemu selftest), to
 * prove that a kernel oops in a guest fails the run and shows the oops.
 */
#include <linux/module.h>

static int *udmem_selftest_target;

static int __init udmem_selftest_oops_init(void)
{
	/* A NULL store the compiler cannot see through. */
	WRITE_ONCE(*READ_ONCE(udmem_selftest_target), 1);
	return 0;
}
module_init(udmem_selftest_oops_init);

MODULE_DESCRIPTION("udmem harness self-test: oops on load");
MODULE_LICENSE("GPL");
