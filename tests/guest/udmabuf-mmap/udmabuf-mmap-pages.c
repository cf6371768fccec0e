// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * udmabuf-mmap-pages.c - udmabuf-mmap's tests of page mode: its pages pinned by
 * get_user_pages, O_DIRECT, io_uring and a pipe, and a PFN map refusing them.
 */
#include "udmabuf-mmap.h"

/* Does /proc/self/smaps show VmFlags @flag for the mapping at @addr? */
static int vma_has_flag(void *addr, const char *flag)
{
	char line[512], want[32];
	unsigned long start, end, a = (unsigned long)addr;
	int in = 0, found = -1;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return -1;
	snprintf(want, sizeof(want), " %s", flag);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2)
			in = a >= start && a < end;
		else if (in && !strncmp(line, "VmFlags:", 8))
			found = strstr(line, want) != NULL;
	}
	fclose(f);
	return found;
}

/*
 * Page mode: the mapping is made of normal pages, so get_user_pages works
 * on it.  process_vm_readv/writev pin the "remote" pages with GUP; our own
 * pid is a fine remote.
 */
TEST(page_mode_gup_process_vm)
{
	const char *name = env_buf("UDMABUF_MMAP_PAGE");
	int fd = open_buf(name, O_RDWR);
	char src[64] = "written-by-process_vm_writev", dst[64] = "";
	struct iovec local, remote;
	char *p;

	p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	if (vma_has_flag(p, "pf") == 1)
		SKIP("page mode fell back to a pfn mapping (see dmesg)");
	EXPECT_EQ(vma_has_flag(p, "mm"), 1);
	local.iov_base = src;
	local.iov_len = sizeof(src);
	remote.iov_base = p + 4096 + 100;
	remote.iov_len = sizeof(src);
	EXPECT_EQ(process_vm_writev(getpid(), &local, 1, &remote, 1, 0), (ssize_t)sizeof(src));
	EXPECT_STREQ(p + 4096 + 100, src);
	local.iov_base = dst;
	EXPECT_EQ(process_vm_readv(getpid(), &local, 1, &remote, 1, 0), (ssize_t)sizeof(dst));
	EXPECT_STREQ(dst, src);
	munmap(p, 8192);
	close(fd);
}

/* The pfn modes are not GUP-able: that is what page mode is for. */
TEST(pfn_mode_gup_efault)
{
	const char *name = env_buf("UDMABUF_MMAP_ON");
	int fd = open_buf(name, O_RDWR);
	char dst[64];
	struct iovec local = { dst, sizeof(dst) }, remote;
	char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	ASSERT_TRUE(p != MAP_FAILED);
	EXPECT_EQ(vma_has_flag(p, "pf"), 1);
	remote.iov_base = p;
	remote.iov_len = sizeof(dst);
	EXPECT_ERRNO(process_vm_readv(getpid(), &local, 1, &remote, 1, 0), EFAULT);
	munmap(p, 4096);
	close(fd);
}

/* A block device for O_DIRECT (brd's /dev/ram0 when suite.sh could load it). */
static int open_odirect_dev(const char **which)
{
	static const char *const devs[] = { "/dev/ram0", "/dev/vda", "/dev/sda", "/dev/nvme0n1" };
	unsigned int i;
	int fd;

	for (i = 0; i < sizeof(devs) / sizeof(devs[0]); i++) {
		fd = open(devs[i], O_RDONLY | O_DIRECT);
		if (fd >= 0) {
			*which = devs[i];
			return fd;
		}
	}
	return -1;
}

/* The first 4 KiB of a block device, read back without O_DIRECT, equal p's. */
static void expect_device_data(const char *dev, const char *p)
{
	char ref[4096];
	int fd = open(dev, O_RDONLY);

	ASSERT_OK(fd);
	EXPECT_EQ(pread(fd, ref, sizeof(ref), 0), (ssize_t)sizeof(ref));
	EXPECT_EQ(memcmp(p, ref, sizeof(ref)), 0);
	close(fd);
}

/* A page-mode mapping of 8 KiB filled with fill, or a skip. */
static char *map_page_mode(int fd, int bfd, int fill)
{
	char *p;

	if (bfd < 0) {
		close(fd);
		SKIP("no block device for O_DIRECT in this guest (process_vm test covers GUP)");
	}
	p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	if (vma_has_flag(p, "pf") == 1)
		SKIP("page mode fell back to a pfn mapping (see dmesg)");
	memset(p, fill, 8192);
	return p;
}

/* O_DIRECT read from a block device into a page-mode mapping. */
TEST(page_mode_odirect_read)
{
	const char *name = env_buf("UDMABUF_MMAP_PAGE");
	const char *which = NULL;
	int fd = open_buf(name, O_RDWR | O_SYNC), bfd = open_odirect_dev(&which);
	char *p = map_page_mode(fd, bfd, 0x5a);

	EXPECT_EQ(pread(bfd, p, 4096, 0), 4096);
	close(bfd);
	expect_device_data(which, p);
	munmap(p, 8192);
	close(fd);
}

/*
 * One IORING_OP_READ through a raw io_uring (no liburing in the guest):
 * with O_DIRECT the kernel pins the destination pages itself, from its
 * own worker context, which a pfn mapping cannot satisfy.
 */
static int uring_read(int fd, void *dst, unsigned int len, int *res)
{
	struct io_uring_params par;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	unsigned int *sq_tail, *sq_array, *cq_head, *cq_tail;
	size_t sq_len, cq_len, sqe_len;
	uint8_t *sq, *cq;
	int ring, ret = -1;

	memset(&par, 0, sizeof(par));
	ring = syscall(__NR_io_uring_setup, 4, &par);
	if (ring < 0)
		return -1;
	sq_len = par.sq_off.array + par.sq_entries * sizeof(unsigned int);
	cq_len = par.cq_off.cqes + par.cq_entries * sizeof(struct io_uring_cqe);
	sqe_len = par.sq_entries * sizeof(struct io_uring_sqe);
	sq = mmap(NULL, sq_len, PROT_READ | PROT_WRITE, MAP_SHARED, ring, IORING_OFF_SQ_RING);
	cq = mmap(NULL, cq_len, PROT_READ | PROT_WRITE, MAP_SHARED, ring, IORING_OFF_CQ_RING);
	sqe = mmap(NULL, sqe_len, PROT_READ | PROT_WRITE, MAP_SHARED, ring, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || sqe == MAP_FAILED)
		goto out;
	sq_tail = (unsigned int *)(sq + par.sq_off.tail);
	sq_array = (unsigned int *)(sq + par.sq_off.array);
	cq_head = (unsigned int *)(cq + par.cq_off.head);
	cq_tail = (unsigned int *)(cq + par.cq_off.tail);

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_READ;
	sqe->fd = fd;
	sqe->addr = (uintptr_t)dst;
	sqe->len = len;
	sqe->off = 0;
	sqe->user_data = 0x5eed;
	sq_array[*sq_tail & *(unsigned int *)(sq + par.sq_off.ring_mask)] = 0;
	__atomic_store_n(sq_tail, *sq_tail + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0)
		goto out;
	if (__atomic_load_n(cq_tail, __ATOMIC_ACQUIRE) == *cq_head)
		goto out;
	cqe = (struct io_uring_cqe *)(cq + par.cq_off.cqes) +
	      (*cq_head & *(unsigned int *)(cq + par.cq_off.ring_mask));
	if (cqe->user_data != 0x5eed)
		goto out;
	*res = cqe->res;
	__atomic_store_n(cq_head, *cq_head + 1, __ATOMIC_RELEASE);
	ret = 0;
out:
	if (sq != MAP_FAILED)
		munmap(sq, sq_len);
	if (cq != MAP_FAILED)
		munmap(cq, cq_len);
	if (sqe != MAP_FAILED)
		munmap(sqe, sqe_len);
	close(ring);
	return ret;
}

/* io_uring O_DIRECT read from a block device into a page-mode mapping. */
TEST(page_mode_io_uring_odirect_read)
{
	const char *name = env_buf("UDMABUF_MMAP_PAGE");
	const char *which = NULL;
	int fd = open_buf(name, O_RDWR), bfd = open_odirect_dev(&which), res = 0;
	char *p = map_page_mode(fd, bfd, 0xa5);

	/* the second page, so that the pin is not of the block's first page */
	if (uring_read(bfd, p + 4096, 4096, &res) && errno == ENOSYS)
		SKIP("this kernel has no io_uring");
	EXPECT_EQ(res, 4096);
	close(bfd);
	expect_device_data(which, p + 4096);
	EXPECT_EQ((unsigned char)p[0], 0xa5);
	munmap(p, 8192);
	close(fd);
}

/* Does the kernel log hold this text? */
static int log_has(const char *text)
{
	static char logbuf[1 << 20];
	int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, logbuf, sizeof(logbuf) - 1);

	if (n < 0)
		return -1;
	logbuf[n] = '\0';
	return strstr(logbuf, text) != NULL;
}

/*
 * A page reference that outlives the buffer: vmsplice() leaves the page in
 * a pipe after munmap, close and delete.  The driver must not free memory
 * that is still referenced (that would be a use after free and a "Bad page
 * state" or CMA warning in the log); the pipe still reads the data.
 */
TEST(page_mode_page_held_by_pipe_outlives_buffer)
{
	static const char create[] = "create udmem-mm-pin 0x10000 quirk-mmap-page\n";
	static const char del[] = "delete udmem-mm-pin\n";
	static const char msg[] = "held-by-a-pipe";
	struct iovec iov;
	char got[4096];
	int mgr, fd, pfd[2];
	char *p;

	mgr = open("/dev/u-dma-buf-mgr", O_WRONLY);
	ASSERT_OK(mgr);
	ASSERT_EQ(write(mgr, create, strlen(create)), (ssize_t)strlen(create));
	fd = open("/dev/udmem-mm-pin", O_RDWR);
	ASSERT_OK(fd);
	p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	if (vma_has_flag(p, "pf") == 1) {
		munmap(p, 8192);
		close(fd);
		EXPECT_EQ(write(mgr, del, strlen(del)), (ssize_t)strlen(del));
		SKIP("page mode fell back to a pfn mapping (see dmesg)");
	}
	memset(p, 0x77, 8192);
	memcpy(p + 4096, msg, sizeof(msg));
	ASSERT_OK(pipe(pfd));
	iov.iov_base = p + 4096;
	iov.iov_len = 4096;
	EXPECT_EQ(vmsplice(pfd[1], &iov, 1, 0), 4096);
	munmap(p, 8192);
	close(fd);
	/* nothing but the pipe holds it: the delete is allowed */
	EXPECT_EQ(write(mgr, del, strlen(del)), (ssize_t)strlen(del));
	EXPECT_EQ(access("/dev/udmem-mm-pin", F_OK), -1);
	EXPECT_EQ(read(pfd[0], got, sizeof(got)), (ssize_t)sizeof(got));
	EXPECT_STREQ(got, msg);
	EXPECT_EQ(log_has("udmem-mm-pin: page 1 is still in use"), 1);
	EXPECT_EQ((unsigned char)got[sizeof(msg)], 0x77);
	close(pfd[0]);
	close(pfd[1]);
	close(mgr);
}

/* How many times the kernel log holds this text. */
static int log_count(const char *text)
{
	static char logbuf[1 << 20];
	int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, logbuf, sizeof(logbuf) - 1);
	const char *p;

	if (n < 0)
		return -1;
	logbuf[n] = '\0';
	for (n = 0, p = logbuf; (p = strstr(p, text)); p++)
		n++;
	return n;
}

/*
 * A page-mode page made read-only by mprotect(), zapped by MADV_DONTNEED
 * and faulted in again by a read: the new entry is read-only and clean.
 * A dirty bit left in the VMA's protection gave it Write=0,Dirty=1, which
 * x86 reads as shadow stack, and Linux 6.6+ warns about it in mk_pte().
 * The data reads back, and the kernel log gets no new warning.
 */
TEST(page_mode_readonly_refault)
{
	const char *name = env_buf("UDMABUF_MMAP_PAGE");
	int fd = open_buf(name, O_RDWR);
	int warnings = log_count("WARNING:");
	volatile char *p;
	char *q;

	ASSERT_GE(warnings, 0);
	q = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_TRUE(q != MAP_FAILED);
	if (vma_has_flag(q, "pf") == 1)
		SKIP("page mode fell back to a pfn mapping (see dmesg)");
	memset(q, 0x3c, 8192);
	ASSERT_OK(mprotect(q, 8192, PROT_READ));
	ASSERT_OK(madvise(q, 8192, MADV_DONTNEED));
	p = q;
	EXPECT_EQ(p[0], 0x3c);
	EXPECT_EQ(p[8191], 0x3c);
	/* Writable again: the write faults in a writable entry. */
	ASSERT_OK(mprotect(q, 8192, PROT_READ | PROT_WRITE));
	p[4096] = 0x4d;
	EXPECT_EQ(p[4096], 0x4d);
	munmap(q, 8192);
	/* A mapping read-only from the start. */
	q = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_TRUE(q != MAP_FAILED);
	p = q;
	EXPECT_EQ(p[4096], 0x4d);
	munmap(q, 8192);
	close(fd);
	EXPECT_EQ(log_count("WARNING:"), warnings);
}
