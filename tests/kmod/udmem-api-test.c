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
 * It also checks getmap with NULL out-pointers, -EINVAL for a device the
 * API does not know, the udmabufN= buffer named by static_name (found,
 * used and removed, as in the original), and getmap/sync racing a removal.
 * The log ends with "udmem-api-test: done <failures>".  ut-api0 stays for user
 * space to read (tests/guest/udmabuf-api/suite.sh) until rmmod.
 * The declarations are in udmem-api-test.h.
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/dma-direction.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "udmem-api-test.h"

#define UT_NAME		"ut-api0"
#define UT_SIZE		0x10000

static struct device *ut_dev;
static int ut_failures;

/* A module-parameter buffer of u-dma-buf to find, use and remove ("": none). */
static char *static_name = "";
module_param(static_name, charp, 0444);
MODULE_PARM_DESC(static_name, "name of a udmabufN= buffer the API must find");

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

/* Neither a buffer nor anything else u-dma-buf knows. */
static struct device ut_stranger;

/*
 * The original driver fills only the out-pointers given; a device it does
 * not know is -EINVAL for getmap, sync and remove.
 */
static void ut_null_and_unknown(void)
{
	size_t size = 0;

	ut_check(u_dma_buf_device_getmap(ut_dev, NULL, NULL, NULL) == 0,
		 "getmap-all-null-pointers", "failed (or oopsed)");
	ut_check(u_dma_buf_device_getmap(ut_dev, &size, NULL, NULL) == 0 && size == UT_SIZE,
		 "getmap-size-only", "failed or wrong size");
	ut_check(u_dma_buf_device_getmap(&ut_stranger, &size, NULL, NULL) == -EINVAL,
		 "getmap-unknown-device-einval", "not -EINVAL");
	ut_check(u_dma_buf_device_getmap(NULL, &size, NULL, NULL) == -EINVAL,
		 "getmap-null-device-einval", "not -EINVAL");
	ut_check(u_dma_buf_device_sync(&ut_stranger, 1, 0, 0, 0) == -EINVAL,
		 "sync-unknown-device-einval", "not -EINVAL");
	ut_check(u_dma_buf_device_remove(&ut_stranger) == -EINVAL,
		 "remove-unknown-device-einval", "not -EINVAL");
}

/* A buffer of u-dma-buf's udmabufN= parameters, seen as the original sees it. */
static void ut_static_buffer(void)
{
	struct device *dev;
	size_t size = 0;
	void *virt = NULL;

	if (!*static_name)
		return;
	dev = u_dma_buf_device_search(static_name, -1);
	ut_check(!IS_ERR(dev), "static-search-by-name", "module-parameter buffer not found");
	if (IS_ERR(dev))
		return;
	ut_check(u_dma_buf_device_getmap(dev, &size, &virt, NULL) == 0 && size && virt,
		 "static-getmap", "failed, or no size or address");
	if (virt)
		memset(virt, 0x5a, size);
	ut_check(u_dma_buf_device_sync(dev, 2, DMA_TO_DEVICE, 0, 0) == 0,
		 "static-sync", "failed");
	ut_check(u_dma_buf_device_remove(dev) == 0, "static-remove", "failed");
	ut_check(IS_ERR(u_dma_buf_device_search(static_name, -1)),
		 "static-search-after-remove", "still found");
}

/*
 * getmap and sync from a thread while the buffer is removed: each call
 * either finds the buffer (and uses it under a reference) or gives
 * -EINVAL, never reads a freed one (KASAN on the debug kernels).
 */
struct ut_race {
	struct device *dev;
	struct completion started;
	atomic_t calls;
	atomic_t gone;
	atomic_t bad;
};

static int ut_race_thread(void *arg)
{
	struct ut_race *r = arg;
	size_t size;
	void *virt;
	int ret;

	while (!kthread_should_stop()) {
		ret = u_dma_buf_device_getmap(r->dev, &size, &virt, NULL);
		if (!ret)
			ret = u_dma_buf_device_sync(r->dev, 2, DMA_TO_DEVICE, 0, 0);
		if (ret == -EINVAL || ret == -ENODEV)
			atomic_inc(&r->gone);
		else if (ret)
			atomic_inc(&r->bad);
		if (atomic_inc_return(&r->calls) == 100)
			complete(&r->started);
		cond_resched();
	}
	return 0;
}

static void ut_race_remove(void)
{
	struct task_struct *t;
	struct ut_race r = { };
	int ret, tries = 0;

	r.dev = u_dma_buf_device_create("ut-api-race", -1, 4096, 0, NULL);
	ut_check(!IS_ERR(r.dev), "race-create", "create failed");
	if (IS_ERR(r.dev))
		return;
	init_completion(&r.started);
	t = kthread_run(ut_race_thread, &r, "udmem-api-race");
	if (IS_ERR(t)) {
		ut_check(false, "race-thread", "kthread_run failed");
		u_dma_buf_device_remove(r.dev);
		return;
	}
	wait_for_completion(&r.started);
	/* A call in flight holds the buffer: busy for that instant. */
	do {
		ret = u_dma_buf_device_remove(r.dev);
		if (ret == -EBUSY)
			cond_resched();
	} while (ret == -EBUSY && ++tries < 1000000);
	ut_check(ret == 0, "race-remove", "remove failed");
	/* Progress, not time: the thread's calls now find nothing. */
	while (!atomic_read(&r.gone))
		schedule_timeout_interruptible(1);
	kthread_stop(t);
	ut_check(!atomic_read(&r.bad), "race-calls-find-or-einval", "another error");
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

	ut_null_and_unknown();
	ut_second_buffer();
	ut_static_buffer();
	ut_race_remove();
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
