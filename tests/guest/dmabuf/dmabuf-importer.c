// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * dmabuf-importer - u-dma-buf's DMA-BUF exports seen by a kernel importer
 * (tests/kmod/udmem-dmabuf-importer.ko): attach to a chosen device, map,
 * the scatterlist's entries and DMA address, vmap with begin/end_cpu_access
 * on partial ranges, a DMA peer (edu) using the importer's address, an
 * export passed to another process over a UNIX socket, and the dma-buf
 * core's bufinfo.
 *
 * Environment: UDMABUF_DEV the buffer; DMABUF_ATTACH the device to attach
 * ("pci/<name>" or "platform/<name>"); DMABUF_DIRECT 1 when that device
 * maps without an IOMMU (the DMA address must then equal the buffer's);
 * DMABUF_EDU_DST a buffer bound to the edu device, for the DMA test
 * (empty: skipped); DMABUF_COHERENT 0 or 1 when the device's coherence is
 * known; DMABUF_CONTIG 0 when the buffer's memory is not physically
 * contiguous (an IOMMU allocation), so the exporter's table has one entry
 * per run of pages (the importer's mapping still has one).
 */
#define _FILE_OFFSET_BITS 64
#include <linux/dma-buf.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "dmabuf-util.h"
#include "../../kmod/udmem-dmabuf-importer.h"

#define UDI_NODE	"/dev/udmem-dmabuf-importer"

static const char *ut_attach_dev(void)
{
	return ut_env("DMABUF_ATTACH", "");
}

static int ut_direct(void)
{
	return atoi(ut_env("DMABUF_DIRECT", "1"));
}

static int udi_open(void)
{
	int fd = open(UDI_NODE, O_RDWR | O_CLOEXEC);

	UT_CHECK(fd >= 0, 1, "open %s: %s (is udmem-dmabuf-importer loaded?)", UDI_NODE,
		 strerror(errno));
	return fd;
}

/* UDI_ATTACH of bfd for dev; 0 or -errno, the filled arguments in *a. */
static int udi_attach(int ifd, int bfd, const char *dev, struct udi_attach *a)
{
	memset(a, 0, sizeof(*a));
	a->fd = bfd;
	a->dir = 0;
	snprintf(a->dev, sizeof(a->dev), "%s", dev);
	return ioctl(ifd, UDI_ATTACH, a) < 0 ? -errno : 0;
}

static int udi_rw(int ifd, unsigned long cmd, uint64_t off, uint64_t len, void *p)
{
	struct udi_access ac = { .offset = off, .len = len, .uptr = (uintptr_t)p };

	return ioctl(ifd, cmd, &ac) < 0 ? -errno : 0;
}

/* Attach an export of [off, off+len) and check the mapping. */
static void ut_attach_range(uint64_t off, uint64_t len)
{
	int fd = ut_open(ut_dev(), O_RDWR), ifd = udi_open(), bfd, r;
	struct udi_attach a;
	uint64_t addr = 0;

	bfd = ut_export_fd(fd, off, len, &addr);
	ASSERT_GE(bfd, 0);
	r = udi_attach(ifd, bfd, ut_attach_dev(), &a);
	UT_CHECK(r == 0, 1, "UDI_ATTACH %s: %s", ut_attach_dev(), strerror(-r));
	EXPECT_EQ(a.size, len);
	if (atoi(ut_env("DMABUF_CONTIG", "1")))
		EXPECT_EQ(a.orig_nents, 1);
	EXPECT_EQ(a.nents, 1);
	EXPECT_EQ(a.dma_len, len);
	EXPECT_EQ(a.dma_total, len);
	if (*ut_env("DMABUF_COHERENT", ""))
		EXPECT_EQ(a.coherent, atoi(ut_env("DMABUF_COHERENT", "")));
	if (ut_direct())
		EXPECT_EQ(a.dma_addr, addr);
	else
		UT_CHECK(a.dma_addr != 0, 0, "no IOVA");
	ut_msg("# %s: entries %u, dma 0x%llx (buffer's 0x%llx), coherent %u", a.dev, a.nents,
	       (unsigned long long)a.dma_addr, (unsigned long long)addr, a.coherent);
	close(bfd);
	/* the attachment holds the dma-buf after its last fd is closed */
	EXPECT_OK(ioctl(ifd, UDI_DETACH));
	EXPECT_ERRNO(ioctl(ifd, UDI_DETACH), ENXIO);
	close(ifd);
	close(fd);
}

TEST(attach_whole_buffer_one_entry_at_buffer_address)
{
	long pg = ut_page();

	ut_attach_range(0, ut_size(ut_dev()) / pg * pg);
}

TEST(attach_exports_at_offsets_one_entry_each)
{
	long pg = ut_page();
	uint64_t size = ut_size(ut_dev()) / pg * pg;

	ASSERT_GE(size, 4 * pg);
	ut_attach_range(pg, pg);
	ut_attach_range(2 * pg, size - 2 * pg);
	ut_attach_range(size - pg, pg);
}

TEST(attach_bad_arguments)
{
	int fd = ut_open(ut_dev(), O_RDWR), ifd = udi_open(), bfd;
	struct udi_attach a;

	bfd = ut_export_fd(fd, 0, ut_page(), NULL);
	ASSERT_GE(bfd, 0);
	EXPECT_EQ(udi_attach(ifd, bfd, "pci/no-such-device", &a), -ENODEV);
	EXPECT_EQ(udi_attach(ifd, fd, ut_attach_dev(), &a), -EINVAL);
	EXPECT_EQ(udi_attach(ifd, -1, ut_attach_dev(), &a), -EBADF);
	ASSERT_EQ(udi_attach(ifd, bfd, ut_attach_dev(), &a), 0);
	EXPECT_EQ(udi_attach(ifd, bfd, ut_attach_dev(), &a), -EBUSY);
	close(bfd);
	close(ifd);
	close(fd);
}

/*
 * An importer whose DMA mask ends below the buffer is refused with EIO,
 * with no kernel warning: the DMA API would bounce the pages through
 * swiotlb, where the importer's DMA would miss the buffer, or warn and
 * fail without swiotlb.  The same kind of device with a 64-bit mask maps
 * the buffer at its physical address (the device has no IOMMU and no
 * dma-ranges).
 */
TEST(attach_unreachable_importer_refused)
{
	int fd = ut_open(ut_dev(), O_RDWR), ifd = udi_open(), bfd, bits;
	uint64_t phys = ut_get(ut_dev(), "phys_addr", 16), len = ut_page();
	struct udi_attach a;
	char dev[UDI_DEV_NAME_MAX];

	if (!atoi(ut_env("DMABUF_CONTIG", "1")))
		SKIP("pages an IOMMU made contiguous: phys_addr is the first page's only");
	bfd = ut_export_fd(fd, 0, len, NULL);
	ASSERT_GE(bfd, 0);
	/* the highest set bit of the last byte's address: the mask stops short */
	bits = 63 - __builtin_clzll(phys + len - 1);
	ASSERT_GE(bits, 12);
	snprintf(dev, sizeof(dev), "mask/%d", bits);
	EXPECT_EQ(udi_attach(ifd, bfd, dev, &a), -EIO);
	EXPECT_EQ(udi_attach(ifd, bfd, "mask/64", &a), 0);
	EXPECT_EQ(a.nents, 1);
	EXPECT_EQ(a.dma_addr, phys);
	ut_msg("# buffer at 0x%llx: a %d-bit importer refused, a 64-bit one maps it",
	       (unsigned long long)phys, bits);
	EXPECT_OK(ioctl(ifd, UDI_DETACH));
	EXPECT_EQ(udi_attach(ifd, bfd, "mask/65", &a), -ENODEV);
	close(bfd);
	close(ifd);
	close(fd);
}

/* vmap reads and writes on partial ranges, against /dev/<name>. */
TEST(vmap_partial_ranges_match_device_file)
{
	long pg = ut_page();
	uint64_t len = 4 * pg;
	int fd = ut_open(ut_dev(), O_RDWR), ifd = udi_open(), bfd;
	struct udi_attach a;
	char *b = malloc(len), *c = malloc(len);

	ASSERT_TRUE(b && c);
	ASSERT_GE(ut_size(ut_dev()), 5 * pg);
	bfd = ut_export_fd(fd, pg, len, NULL);
	ASSERT_GE(bfd, 0);
	ASSERT_EQ(udi_attach(ifd, bfd, ut_attach_dev(), &a), 0);
	ut_fill(b, len, pg, 1401);
	ASSERT_EQ(ut_pwrite_all(fd, b, len, pg), 0);
	/* the whole export, then unaligned pieces */
	ASSERT_EQ(udi_rw(ifd, UDI_READ, 0, len, c), 0);
	ASSERT_PATTERN(c, len, pg, 1401);
	memset(c, 0, len);
	ASSERT_EQ(udi_rw(ifd, UDI_READ, 100, 333, c), 0);
	ASSERT_PATTERN(c, 333, pg + 100, 1401);
	ASSERT_EQ(udi_rw(ifd, UDI_READ, len - 7, 7, c), 0);
	ASSERT_PATTERN(c, 7, pg + len - 7, 1401);
	/* importer writes [pg+10, pg+10+2pg) of the export */
	ut_fill(c, 2 * pg, 2 * pg + 10, 1402);
	ASSERT_EQ(udi_rw(ifd, UDI_WRITE, pg + 10, 2 * pg, c), 0);
	ASSERT_EQ(ut_pread_all(fd, b, len, pg), 0);
	ASSERT_PATTERN(b, pg + 10, pg, 1401);
	ASSERT_PATTERN(b + pg + 10, 2 * pg, 2 * pg + 10, 1402);
	ASSERT_PATTERN(b + 3 * pg + 10, pg - 10, 4 * pg + 10, 1401);
	/* outside the export */
	EXPECT_EQ(udi_rw(ifd, UDI_READ, len - 1, 2, c), -EINVAL);
	EXPECT_EQ(udi_rw(ifd, UDI_READ, UINT64_MAX, 2, c), -EINVAL);
	free(b);
	free(c);
	close(bfd);
	close(ifd);
	close(fd);
}

/*
 * The edu device reads the export at the importer's DMA address (an IOVA
 * behind the IOMMU) and writes into a buffer bound to it: the address the
 * importer got reaches the exported memory.
 */
TEST(dma_peer_reads_at_importer_address)
{
	const char *dst = ut_env("DMABUF_EDU_DST", "");
	long pg = ut_page();
	uint64_t len = 2 * pg, daddr;
	int fd, dfd, ifd, bfd, r;
	struct udi_attach a;
	char *b;

	if (!*dst)
		SKIP("no edu device or no buffer bound to it");
	fd = ut_open(ut_dev(), O_RDWR);
	dfd = ut_open(dst, O_RDWR);
	ifd = udi_open();
	b = malloc(len);
	ASSERT_TRUE(b != NULL);
	ut_fill(b, len, 0, 1403);
	ASSERT_EQ(ut_pwrite_all(fd, b, len, pg), 0);
	memset(b, 0, len);
	ASSERT_EQ(ut_pwrite_all(dfd, b, len, 0), 0);
	bfd = ut_export_fd(fd, pg, len, NULL);
	ASSERT_GE(bfd, 0);
	ASSERT_EQ(udi_attach(ifd, bfd, ut_attach_dev(), &a), 0);
	ASSERT_EQ(a.nents, 1);
	daddr = ut_get(dst, "phys_addr", 16);
	r = ut_edu_copy(a.dma_addr, daddr, len);
	UT_CHECK(r == 0, 1, "edu copy 0x%llx -> 0x%llx: %s", (unsigned long long)a.dma_addr,
		 (unsigned long long)daddr, strerror(-r));
	ASSERT_EQ(ut_pread_all(dfd, b, len, 0), 0);
	ASSERT_PATTERN(b, len, 0, 1403);
	free(b);
	close(bfd);
	close(ifd);
	close(dfd);
	close(fd);
}

static int ut_send_fd(int sock, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))], c = 'x';
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			    .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &m, 0) == 1 ? 0 : -errno;
}

static int ut_recv_fd(int sock)
{
	char cbuf[CMSG_SPACE(sizeof(int))], c;
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			    .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(sock, &m, 0) != 1)
		return -1;
	cm = CMSG_FIRSTHDR(&m);
	if (!cm || cm->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

/* The receiver: mmap the dma-buf, check the pattern, write its own, attach. */
static int ut_receiver(int sock, uint64_t len)
{
	struct dma_buf_sync s = { DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW };
	struct udi_attach a;
	int bfd = ut_recv_fd(sock), ifd;
	char *p;

	if (bfd < 0 || lseek(bfd, 0, SEEK_END) != (off_t)len)
		return 2;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, bfd, 0);
	if (p == MAP_FAILED || ioctl(bfd, DMA_BUF_IOCTL_SYNC, &s))
		return 3;
	if (ut_check(p, len, 0, 1404) >= 0)
		return 4;
	ut_fill(p, len, 0, 1405);
	s.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW;
	if (ioctl(bfd, DMA_BUF_IOCTL_SYNC, &s))
		return 5;
	ifd = open(UDI_NODE, O_RDWR);
	if (ifd < 0 || udi_attach(ifd, bfd, ut_attach_dev(), &a) || a.nents != 1)
		return 6;
	close(ifd);
	munmap(p, len);
	close(bfd);
	return 0;
}

TEST(export_passed_over_unix_socket)
{
	long pg = ut_page();
	uint64_t len = 2 * pg;
	int fd = ut_open(ut_dev(), O_RDWR), sv[2], bfd, st, r;
	char *b = malloc(len);
	pid_t pid;

	ASSERT_TRUE(b != NULL);
	r = socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	if (r && errno == ENOSYS)	/* the debug kernels have no networking */
		SKIP("no AF_UNIX sockets in this kernel (CONFIG_UNIX off)");
	ASSERT_OK(r);
	ut_fill(b, len, 0, 1404);
	ASSERT_EQ(ut_pwrite_all(fd, b, len, 0), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		close(sv[0]);
		_exit(ut_receiver(sv[1], len));
	}
	close(sv[1]);
	bfd = ut_export_fd(fd, 0, len, NULL);
	ASSERT_GE(bfd, 0);
	ASSERT_EQ(ut_send_fd(sv[0], bfd), 0);
	/* the sender lets go of its copy at once */
	close(bfd);
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	UT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, 1,
		 "receiver failed: status 0x%x (2 fd, 3 mmap/sync, 4 data, 5 sync, 6 attach)", st);
	ASSERT_EQ(ut_pread_all(fd, b, len, 0), 0);
	ASSERT_PATTERN(b, len, 0, 1405);
	free(b);
	close(sv[0]);
	close(fd);
}

/* Find the bufinfo block of the dma-buf with inode ino: exporter and attachments. */
static int ut_bufinfo(unsigned long ino, char *exp, size_t elen, char *att, size_t alen)
{
	FILE *f = fopen("/sys/kernel/debug/dma_buf/bufinfo", "r");
	char line[512], name[128];
	int in = 0, found = 0, n;
	unsigned long i;

	if (!f)
		return -errno;
	att[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		/* size flags mode count exp_name ino name */
		n = sscanf(line, "%*x %*x %*x %*x %127s %lu", name, &i);
		if (n == 2) {
			in = i == ino;
			if (in) {
				snprintf(exp, elen, "%s", name);
				found = 1;
			}
			continue;
		}
		if (in && line[0] == '\t' && strncmp(line, "\tAttached", 9)) {
			size_t l = strlen(att);

			snprintf(att + l, alen - l, "%s", line + strspn(line, "\t"));
		}
	}
	fclose(f);
	return found ? 0 : -ENOENT;
}

TEST(bufinfo_lists_exporter_and_attachment)
{
	int fd = ut_open(ut_dev(), O_RDWR), ifd = udi_open(), bfd, r;
	char exp[128], att[1024];
	const char *dev = strchr(ut_attach_dev(), '/');
	struct udi_attach a;
	struct stat st;

	bfd = ut_export_fd(fd, 0, ut_page(), NULL);
	ASSERT_GE(bfd, 0);
	ASSERT_OK(fstat(bfd, &st));
	ASSERT_EQ(udi_attach(ifd, bfd, ut_attach_dev(), &a), 0);
	r = ut_bufinfo(st.st_ino, exp, sizeof(exp), att, sizeof(att));
	if (r == -ENOENT && access("/sys/kernel/debug/dma_buf", F_OK))
		SKIP("no /sys/kernel/debug/dma_buf (debugfs)");
	UT_CHECK(r == 0, 1, "dma-buf inode %lu not in bufinfo: %s", (unsigned long)st.st_ino,
		 strerror(-r));
	EXPECT_STREQ(exp, ut_dev());
	UT_CHECK(dev && strstr(att, dev + 1), 0, "attachments '%s' lack %s", att,
		 dev ? dev + 1 : "?");
	ASSERT_OK(ioctl(ifd, UDI_DETACH));
	ASSERT_EQ(ut_bufinfo(st.st_ino, exp, sizeof(exp), att, sizeof(att)), 0);
	UT_CHECK(!dev || !strstr(att, dev + 1), 0, "attachment '%s' left after detach", att);
	close(bfd);
	close(ifd);
	close(fd);
}

TEST_HARNESS_MAIN
