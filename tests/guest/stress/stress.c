// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * stress: concurrent stress and fuzz of u-dma-buf and uiomem, endurance
 * cycles and fault injection.
 *
 *  - fuzz_udmabuf: STRESS_THREADS threads for STRESS_SECONDS.  Each owns a
 *    manager-made buffer (random size and mmap mode) and keeps a shadow of
 *    its bytes and of its sync state: every pattern it writes through
 *    write() or a mapping must read back through read(), a mapping and an
 *    export's mapping, and every call's result is predicted (value or
 *    errno) from the documented rules.  The threads also race on a few
 *    shared names: manager create/delete, open/close, mmap/touch, every
 *    ioctl, exports, sysfs writes (garbage included), platform unbind and
 *    bind, rmmod attempts and malformed manager lines.  There only the
 *    documented errno set of each call (plus ENODEV once a buffer is gone)
 *    is accepted.
 *  - fuzz_uiomem: the same on uiomem regions (STRESS_UIOMEM: the names of
 *    module-parameter regions; the last one is shared, the others are owned
 *    one per thread), with the sync counters of the query as a check.
 *  - endurance_*: STRESS_CREATE_CYCLES manager create/delete cycles and
 *    STRESS_BIND_CYCLES unbind/bind cycles of a buffer, of the device-tree
 *    buffers of a CMA and a no-map reserved-memory pool, and of a region:
 *    the same minor every time, a rebound buffer zeroed, the kernel's
 *    unreclaimable slab (SUnreclaim) back within STRESS_SLAB_TOLERANCE_KB,
 *    and CmaFree back (give or take the per-CPU page lists).
 *  - fault_injection: with failslab and fail_page_alloc (debug kernels;
 *    a SKIP with the reason elsewhere), the n-th allocation of the test
 *    thread fails (fail-nth, task filter on) during manager create, probe
 *    (bind), export, open and mmap, for n = 1, 2, ... until the operation
 *    no longer reaches the n-th allocation: every failure is a documented
 *    errno and leaves nothing behind, and the operation works afterwards.
 *
 * The program's files: stress-common.c (settings, per-thread reports,
 * helpers), stress-fuzz-ops.c (operations both fuzz tests run),
 * stress-fuzz-udmabuf-own.c and stress-fuzz-udmabuf.c, stress-fuzz-uiomem.c,
 * stress-faults.c (faulting write, fault injection) and stress-endurance.c;
 * stress.h declares what they share.  This file lists the tests, in the
 * order they run.
 *
 * On arm64 the program is also built 32-bit (UDMEM_TEST_COMPAT32), and
 * suite.sh runs its fuzz tests through the compat ioctl paths.
 *
 * Every test prints its seed (STRESS_SEED, else from the clock): a failure
 * replays with the same STRESS_SEED (each thread's sequence of calls is a
 * function of the seed and its index; the interleaving is not).  A failing
 * check prints the seed, the thread, the operation number, the call and
 * its arguments, what came back and what was expected.
 */
#include "stress.h"

TEST(fuzz_udmabuf)
{
	fuzz_udmabuf();
}

TEST(fuzz_uiomem)
{
	fuzz_uiomem();
}

TEST(udmabuf_faulting_write_changes_no_other_byte)
{
	udmabuf_faulting_write_changes_no_other_byte();
}

TEST(uiomem_faulting_write_changes_no_other_byte)
{
	uiomem_faulting_write_changes_no_other_byte();
}

TEST(endurance_create_delete)
{
	endurance_create_delete();
}

TEST(endurance_bind_unbind_udmabuf)
{
	endurance_bind_unbind_udmabuf();
}

TEST(endurance_bind_unbind_pools)
{
	endurance_bind_unbind_pools();
}

TEST(endurance_bind_unbind_uiomem)
{
	endurance_bind_unbind_uiomem();
}

TEST(fault_injection)
{
	fault_injection();
}

/*
 * The harness's own checks, run by suite.sh with a short stall limit
 * (UDMEM_TEST_STALL_SECONDS): a test that makes progress for longer than
 * the limit passes; one that stalls is killed, and the buffer it made is
 * deleted for it and reported as its failure.
 */
TEST(manual_progress_outlives_stall_limit)
{
	int i, steps = 12 * ut_stall_limit();

	/* three times the limit, a step every quarter of a second */
	for (i = 0; i < steps; i++) {
		UT_PROGRESS("step %d", i);
		usleep(250000);
	}
	ASSERT_TRUE(i == steps);
}

TEST(manual_stalled_test_is_cleaned_up)
{
	int mgr = open(MGR, O_WRONLY);

	if (mgr < 0)
		SKIP("no %s (u-dma-buf-mgr not loaded)", MGR);
	ut_cleanup_buffer("stress-*");
	ASSERT_EQ(mgr_cmd(mgr, "create stress-stalled 4096\n"), 0);
	UT_PROGRESS("stress-stalled made, now stalling");
	pause();
}

TEST_HARNESS_MAIN
