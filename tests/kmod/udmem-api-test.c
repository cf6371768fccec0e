// SPDX-License-Identifier: GPL-2.0
/*
 * udmem-api-test: an in-kernel user of u-dma-buf's exported API, built
 * the way a module written for the original driver is built: against
 * that driver's declarations (below, with its parameter types), not
 * against our header.  If a type drifted (a u64 where the original has
 * size_t, say), the calls here would pass arguments the driver reads
 * differently on 32-bit kernels, and the checks would fail there.
 *
 * At load it creates buffer "ut-api0" (64 KiB) and a second one, checks
 * search, getmap and sync, fills ut-api0 through the kernel address
 * getmap gave, removes the second, and logs one line per check:
 *
 *	udmem-api-test: ok <check>
 *	udmem-api-test: not ok <check>: <what>
 *
 * ending with "udmem-api-test: done <failures>".  ut-api0 stays for user
 * space to read (tests/guest/udmabuf-api/suite.sh) until rmmod.
 * The declarations are in udmem-api-test.h.
 */
#include <linux/device.h>
#include <linux/dma-direction.h>
#include <linux/err.h>
#include <linux/module.h>

#include "udmem-api-test.h"

#define UT_NAME		"ut-api0"
#define UT_SIZE		0x10000

static struct device *ut_dev;
static int ut_failures;

static void ut_check(bool ok, const char *check, const char *what)
{
	if (ok) {
		pr_info("udmem-api-test: ok %s\n", check);
	} else {
		pr_info("udmem-api-test: not ok %s: %s\n", check, what);
		ut_failures++;
	}
}

static u8 ut_pattern(size_t i)
{
	return (u8)(i * 7 + 3);
}

static void ut_second_buffer(void)
{
	struct device *dev;

	dev = u_dma_buf_device_create("ut-api1", -1, 4096, 0, NULL);
	ut_check(!IS_ERR(dev), "create-second", "create failed");
	if (IS_ERR(dev))
		return;
	ut_check(!IS_ERR_OR_NULL(u_dma_buf_device_search(NULL, -1)), "search-wildcard",
		 "no match for NULL, -1");
	ut_check(u_dma_buf_device_remove(dev) == 0, "remove", "remove failed");
	ut_check(IS_ERR(u_dma_buf_device_search("ut-api1", -1)), "search-after-remove",
		 "the removed buffer is still found");
}

static int __init ut_init(void)
{
	size_t size = 0, i;
	dma_addr_t phys = 0;
	void *virt = NULL;
	struct device *dup;
	u8 *p;
	int ret;

	ut_dev = u_dma_buf_device_create(UT_NAME, -1, UT_SIZE, 0, NULL);
	if (IS_ERR(ut_dev)) {
		pr_info("udmem-api-test: not ok create: %ld\n", PTR_ERR(ut_dev));
		pr_info("udmem-api-test: done 1\n");
		return PTR_ERR(ut_dev);
	}
	pr_info("udmem-api-test: ok create\n");
	ut_check(u_dma_buf_device_search(UT_NAME, -1) == ut_dev, "search-by-name",
		 "another device, or none");
	ut_check(PTR_ERR(u_dma_buf_device_search("ut-api-none", -1)) == -ENODEV,
		 "search-unknown-enodev", "not ERR_PTR(-ENODEV)");

	dup = u_dma_buf_device_create(UT_NAME, -1, UT_SIZE, 0, NULL);
	ut_check(IS_ERR(dup), "create-duplicate-refused", "a second buffer of the same name");
	if (!IS_ERR(dup))
		u_dma_buf_device_remove(dup);
	ut_check(IS_ERR(u_dma_buf_device_create("ut-api-zero", -1, 0, 0, NULL)),
		 "create-size-0-refused", "size 0 accepted");
	/* option bit 13, keep-contents (a udmem addition): no region, EINVAL */
	dup = u_dma_buf_device_create("ut-api-keep", -1, UT_SIZE, 1ULL << 13, NULL);
	ut_check(PTR_ERR(dup) == -EINVAL, "create-keep-contents-without-region-einval",
		 "not -EINVAL");
	if (!IS_ERR(dup))
		u_dma_buf_device_remove(dup);

	ret = u_dma_buf_device_getmap(ut_dev, &size, &virt, &phys);
	ut_check(ret == 0, "getmap", "getmap failed");
	ut_check(size == UT_SIZE, "getmap-size", "size differs from the request");
	ut_check(virt, "getmap-virt", "no kernel address");
	pr_info("udmem-api-test: phys %pad\n", &phys);
	if (!ret && virt) {
		p = virt;
		for (i = 0; i < size; i++)
			p[i] = ut_pattern(i);
	}
	/* The original's commands: 1 for the CPU, 2 for the device, 0 nothing. */
	ut_check(u_dma_buf_device_sync(ut_dev, 2, DMA_TO_DEVICE, 0, UT_SIZE) == 0,
		 "sync-for-device", "failed");
	ut_check(u_dma_buf_device_sync(ut_dev, 1, DMA_BIDIRECTIONAL, 0x1000, 0x1000) == 0,
		 "sync-for-cpu-range", "failed");
	ut_check(u_dma_buf_device_sync(ut_dev, 0, DMA_BIDIRECTIONAL, 0, 0) == 0,
		 "sync-command-0-noop", "failed");
	ut_check(u_dma_buf_device_sync(ut_dev, 3, DMA_BIDIRECTIONAL, 0, UT_SIZE) == -EINVAL,
		 "sync-bad-command-einval", "not -EINVAL");

	ut_second_buffer();
	pr_info("udmem-api-test: done %d\n", ut_failures);
	return 0;
}

static void __exit ut_exit(void)
{
	if (u_dma_buf_device_remove(ut_dev))
		pr_info("udmem-api-test: remove at exit failed\n");
}

module_init(ut_init);
module_exit(ut_exit);

MODULE_DESCRIPTION("udmem test: an in-kernel user of the u-dma-buf API");
MODULE_LICENSE("GPL");
