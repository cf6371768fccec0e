// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * uiomem-region-threads.c - uiomem-region's tests of concurrent calls, of an unbind under
 * mappings, and of read() into a buffer mapped from the region.
 */
#include <setjmp.h>
#include <signal.h>

#include "uiomem-region.h"

/* One worker of the concurrency test: runs for two seconds, exits 0 if every call worked. */
static int hammer(int kind, size_t size)
{
	time_t end = time(NULL) + 2;
	uint8_t buf[512];
	int fd = ut_uiomem_open(O_RDWR), bad = 0;
	unsigned int n = 0;

	if (fd < 0)
		return 1;
	while (time(NULL) < end) {
		uint64_t off = SCRATCH + (n * 4099) % (size - SCRATCH - sizeof(buf));
		struct uiomem_query q;
		char cmd[40];
		void *p;

		n++;
		switch (kind) {
		case 0:
			bad += ut_uiomem_sync(fd, UIOMEM_SYNC_START | UIOMEM_SYNC_RW, off, 300) != 0;
			bad += ut_uiomem_sync(fd, UIOMEM_SYNC_END | UIOMEM_SYNC_RW, off + 1, 300) != 0;
			break;
		case 1:
			bad += pwrite(fd, buf, sizeof(buf), off) != sizeof(buf);
			bad += pread(fd, buf, sizeof(buf), off) != sizeof(buf);
			break;
		case 2:
			snprintf(cmd, sizeof(cmd), "0x%08X%08X", (unsigned int)off, 0x100 | 1);
			bad += ut_uiomem_attr_write("sync_for_device", cmd) != 0;
			bad += ut_uiomem_attr_write("sync_for_cpu", cmd) != 0;
			break;
		default:
			p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, SCRATCH);
			bad += p == MAP_FAILED;
			if (p != MAP_FAILED) {
				((volatile uint8_t *)p)[n % 8192] = (uint8_t)n;
				munmap(p, 8192);
			}
			bad += ut_uiomem_query(fd, &q) != 0;
			break;
		}
	}
	close(fd);
	return bad ? 1 : 0;
}

/* Syncs, reads, writes, sysfs commands, mmaps and queries at once. */
TEST(concurrent_calls_all_succeed)
{
	struct uiomem_query a, b;
	size_t size;
	int fd = open_region(O_RDWR, &size);
	pid_t pid[4];
	int i, status;

	ASSERT_OK(ut_uiomem_query(fd, &a));
	for (i = 0; i < 4; i++) {
		pid[i] = fork();
		ASSERT_GE(pid[i], 0);
		if (pid[i] == 0)
			_exit(hammer(i, size));
	}
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(waitpid(pid[i], &status, 0), pid[i]);
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	ASSERT_OK(ut_uiomem_query(fd, &b));
	EXPECT_GT(b.sync_calls, a.sync_calls);
}

static void read_byte(void *arg)
{
	(void)*(volatile uint8_t *)arg;
}

/* Write @val to /sys/bus/platform/drivers/uiomem/@file: 0 or -errno. */
static int driver_write(const char *file, const char *val)
{
	char path[128];
	int fd, err = 0;

	snprintf(path, sizeof(path), "/sys/bus/platform/drivers/uiomem/%s", file);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		err = -errno;
	close(fd);
	return err;
}

/*
 * Unbinding the region revokes its user mappings, also those whose file
 * was closed: the next access is SIGBUS, not a write to a window that may
 * have been handed to something else.  Run by suite.sh on the
 * module-parameter region only, $UIOMEM_PDEV (default uiomem.0), which it
 * rebinds.
 */
TEST(manual_unbind_revokes_mappings)
{
	const char *pdev = ut_env("UIOMEM_PDEV", "uiomem.0");
	long pg = sysconf(_SC_PAGESIZE);
	volatile uint8_t *p, *q;
	size_t size;
	int fd = open_region(O_RDWR, &size);

	p = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, SCRATCH);
	ASSERT_TRUE(p != MAP_FAILED);
	q = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, SCRATCH);
	ASSERT_TRUE(q != MAP_FAILED);
	close(fd);
	p[0] = 0x5a;
	EXPECT_EQ(q[0], 0x5a);
	ASSERT_OK(driver_write("unbind", pdev));
	EXPECT_EQ(ut_signal_of(read_byte, (void *)p), SIGBUS);
	EXPECT_EQ(ut_signal_of(write_byte, (void *)(p + pg)), SIGBUS);
	EXPECT_EQ(ut_signal_of(read_byte, (void *)q), SIGBUS);
	ASSERT_OK(driver_write("bind", pdev));
	/* The old mappings stay revoked; a new one works. */
	EXPECT_EQ(ut_signal_of(read_byte, (void *)q), SIGBUS);
	fd = open_region(O_RDWR, &size);
	p = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, SCRATCH);
	ASSERT_TRUE(p != MAP_FAILED);
	p[1] = 0xa5;
	EXPECT_EQ(p[1], 0xa5);
}

/* The mappings the faulting thread keeps, to be checked after the removal. */
#define FAULT_KEEP	8
#define FAULT_PAGES	8

struct fault_loop {
	int fd;
	long pg;
	volatile int stop;
	volatile unsigned long rounds;	/* mappings read whole */
	volatile unsigned long bus;	/* reads ended by SIGBUS */
	volatile unsigned long enodev;	/* mmap() refused: the region is gone */
	volatile unsigned long failed;	/* any other mmap() error */
	void *keep[FAULT_KEEP];
};

static __thread sigjmp_buf fault_env;

static void fault_sigbus(int sig)
{
	(void)sig;
	siglongjmp(fault_env, 1);
}

/* Read @pages pages of @p; 0, or 1 if a read raised SIGBUS. */
static int fault_read(struct fault_loop *m, volatile uint8_t *p, int pages)
{
	int i;

	if (sigsetjmp(fault_env, 1))
		return 1;
	for (i = 0; i < pages; i++)
		(void)p[i * m->pg + (i & 63)];
	return 0;
}

/*
 * Read a page of every kept mapping, map the region again, fault every
 * page of the new mapping in and keep it (the oldest kept one is
 * unmapped), over and over: mmap(), the faults and the reads race the
 * removal that the test does meanwhile, and after it the reads of kept
 * mappings must raise SIGBUS.
 */
static void *fault_loop(void *arg)
{
	struct fault_loop *m = arg;
	size_t len = FAULT_PAGES * m->pg;
	unsigned long n = 0;
	void *p;
	int i;

	while (!m->stop) {
		for (i = 0; i < FAULT_KEEP; i++) {
			uint8_t *k = m->keep[i];

			if (k && fault_read(m, k + (n % FAULT_PAGES) * m->pg, 1))
				m->bus++;
		}
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, m->fd, SCRATCH);
		if (p == MAP_FAILED) {
			if (errno == ENODEV)
				m->enodev++;
			else
				m->failed++;
			continue;
		}
		if (fault_read(m, p, FAULT_PAGES))
			m->bus++;
		else
			m->rounds++;
		if (m->keep[n % FAULT_KEEP])
			munmap(m->keep[n % FAULT_KEEP], len);
		m->keep[n % FAULT_KEEP] = p;
		n++;
	}
	return NULL;
}

/* Wait until @cond is true, at most @secs s (a hang guard, not a measure). */
#define WAIT_FOR(cond, secs) ({						\
		int _w = 0;						\
		while (!(cond) && _w++ < (secs) * 100)			\
			usleep(10000);					\
		(cond);							\
	})

/*
 * Removal while another thread maps the region and faults its pages in,
 * over and over: afterwards every mapping, also one made or faulted in
 * while the region went, raises SIGBUS on access, and mmap() says ENODEV.
 * Entries made at mmap() time, before the kernel links the new mapping
 * where removal looks for it, would stay behind.  Run by suite.sh on the
 * module-parameter region ($UIOMEM_PDEV, default uiomem.0), which it
 * rebinds.
 */
TEST(manual_unbind_while_faulting_leaves_no_mapping)
{
	const char *pdev = ut_env("UIOMEM_PDEV", "uiomem.0");
	struct fault_loop m = { .pg = sysconf(_SC_PAGESIZE) };
	struct sigaction sa = { .sa_handler = fault_sigbus };
	unsigned long before;
	volatile uint8_t *p;
	size_t size;
	pthread_t t;
	int i, live = 0;

	m.fd = open_region(O_RDWR, &size);
	ASSERT_OK(sigaction(SIGBUS, &sa, NULL));
	ASSERT_OK(pthread_create(&t, NULL, fault_loop, &m));
	/* The loop runs before the removal, and goes on during it. */
	EXPECT_TRUE(WAIT_FOR(m.rounds >= 50, 60));
	before = m.rounds;
	ASSERT_OK(driver_write("unbind", pdev));
	/* The loop goes on until mmap() has refused it a few times. */
	EXPECT_TRUE(WAIT_FOR(m.enodev >= 5, 60));
	m.stop = 1;
	pthread_join(t, NULL);
	sa.sa_handler = SIG_DFL;
	sigaction(SIGBUS, &sa, NULL);
	printf("# %lu rounds before the unbind, %lu in all, %lu SIGBUS, %lu ENODEV\n",
	       before, m.rounds, m.bus, m.enodev);
	EXPECT_EQ(m.failed, 0);
	/* The loop's reads of the mappings it kept met the removal. */
	EXPECT_GE(m.bus, 1);
	for (i = 0; i < FAULT_KEEP; i++) {
		p = m.keep[i];
		if (!p)
			continue;
		live += ut_signal_of(read_byte, (void *)(p + (i % FAULT_PAGES) * m.pg)) != SIGBUS;
		live += ut_signal_of(write_byte, (void *)(p + m.pg)) != SIGBUS;
	}
	EXPECT_EQ(live, 0);
	EXPECT_TRUE(mmap(NULL, m.pg, PROT_READ, MAP_SHARED, m.fd, SCRATCH) == MAP_FAILED);
	EXPECT_EQ(errno, ENODEV);
	ASSERT_OK(driver_write("bind", pdev));
	close(m.fd);
	m.fd = open_region(O_RDWR, &size);
	p = mmap(NULL, m.pg, PROT_READ | PROT_WRITE, MAP_SHARED, m.fd, SCRATCH);
	ASSERT_TRUE(p != MAP_FAILED);
	p[2] = 0x3c;
	EXPECT_EQ(p[2], 0x3c);
}

struct mmap_loop {
	int fd;
	volatile int stop;
	unsigned long maps;
	unsigned long failed;
};

/* mmap() takes mmap_lock, then the driver's lock. */
static void *mmap_loop(void *arg)
{
	struct mmap_loop *m = arg;

	while (!m->stop) {
		void *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, m->fd, SCRATCH);

		if (p == MAP_FAILED) {
			m->failed++;
			continue;
		}
		munmap(p, 8192);
		m->maps++;
	}
	return NULL;
}

/*
 * The reader's copy_to_user() faults on every page of a fresh anonymous
 * buffer and so takes mmap_lock, while the other thread holds mmap_lock in
 * mmap() of the region.  The buffer is new each time because kernels with
 * per-VMA locks (6.4+) still need mmap_lock for the first fault of an
 * anonymous mapping (it has no anon_vma yet).  Exit 0 if all calls worked.
 */
static int read_vs_mmap(int secs)
{
	const size_t len = 0x10000;
	struct mmap_loop m = { .fd = ut_uiomem_open(O_RDWR) };
	time_t end = time(NULL) + secs;
	unsigned long reads = 0, bad = 0;
	pthread_t t;

	if (m.fd < 0 || pthread_create(&t, NULL, mmap_loop, &m))
		return 2;
	while (time(NULL) < end) {
		void *buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (buf == MAP_FAILED)
			return 2;
		bad += pread(m.fd, buf, len, SCRATCH) != (ssize_t)len;
		munmap(buf, len);
		reads++;
	}
	m.stop = 1;
	pthread_join(t, NULL);
	printf("# %lu reads, %lu mmaps in %d s\n", reads, m.maps, secs);
	return bad || m.failed || !reads || !m.maps;
}

/*
 * read() into memory that faults while another thread of the process maps
 * the region: no lock order inversion between the driver and mmap_lock.
 * Runs $UIOMEM_DEADLOCK_SECONDS (default 10); a worker still running well
 * after that is deadlocked and is killed (the driver's lock waits are
 * interruptible, so that frees it).
 */
TEST(read_faulting_buffer_vs_mmap_no_deadlock)
{
	int secs = atoi(ut_env("UIOMEM_DEADLOCK_SECONDS", "10"));
	int status, waited;
	size_t size;
	pid_t pid;

	close(open_region(O_RDWR, &size));
	if (secs <= 0 || secs > UT_TIMEOUT / 2)
		secs = 10;
	fflush(stdout);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(read_vs_mmap(secs));
	for (waited = 0; waited < 4 * (secs + 10); waited++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
		usleep(250000);
	}
	if (waited == 4 * (secs + 10)) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		UT_CHECK(0, 1, "reader and mapper still running %d s after their %d s: deadlock",
			 secs + 10, secs);
	}
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}
