/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * iio-test.h - what the iio suite's programs share: the IIO buffer ABI
 * (include/uapi/linux/iio/buffer.h of 6.11, written out here because the
 * build host's headers predate it), the test IIO devices of
 * tests/kmod/udmem-iio-dma.ko, u-dma-buf manager buffers and their
 * exports, and the fences of DMA-BUFs.
 *
 * Environment (suite.sh sets it):
 *	IIO_RX, IIO_TX	the devices' sysfs folders (/sys/bus/iio/devices/iio:deviceN);
 *			IIO_TX empty when the kernel has no output dmaengine buffer
 *	EDU_DBG_RX, EDU_DBG_TX	debugfs folders of the provider's channels
 */
#ifndef IIO_TEST_H
#define IIO_TEST_H

#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <linux/dma-buf.h>
#include <linux/sync_file.h>

#include "ut.h"
#include "udmabuf-abi.h"

struct it_iio_dmabuf {
	uint32_t fd;
	uint32_t flags;
	uint64_t bytes_used;
};

#define IT_DMABUF_CYCLIC	1u
#define IT_GET_FD		_IOWR('i', 0x91, int)
#define IT_ATTACH		_IOW('i', 0x92, int)
#define IT_DETACH		_IOW('i', 0x93, int)
#define IT_ENQUEUE		_IOW('i', 0x94, struct it_iio_dmabuf)

_Static_assert(sizeof(struct it_iio_dmabuf) == 16, "struct iio_dmabuf is 16 bytes");

#ifndef DMA_BUF_IOCTL_EXPORT_SYNC_FILE
struct dma_buf_export_sync_file {
	uint32_t flags;
	int32_t fd;
};

#define DMA_BUF_IOCTL_EXPORT_SYNC_FILE	_IOWR(DMA_BUF_BASE, 2, struct dma_buf_export_sync_file)
#endif

#define IT_MGR		"/dev/u-dma-buf-mgr"
#define IT_FILL		0xffffffffu	/* the buffers' words before a transfer */

/* A file of a folder: its first line without the newline, "" if unreadable. */
static inline void it_read(const char *dir, const char *file, char *buf, size_t len)
{
	char p[256];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, file);
	buf[0] = 0;
	f = fopen(p, "r");
	if (!f)
		return;
	if (!fgets(buf, len, f))
		buf[0] = 0;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
}

/* Write s to a file of a folder: 0 or -errno. */
static inline int it_write(const char *dir, const char *file, const char *s)
{
	char p[256];
	int fd, err = 0;

	snprintf(p, sizeof(p), "%s/%s", dir, file);
	fd = open(p, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		err = -errno;
	close(fd);
	return err;
}

static inline uint64_t it_get(const char *dir, const char *file)
{
	char s[64];

	it_read(dir, file, s, sizeof(s));
	UT_CHECK(s[0], 1, "cannot read %s/%s", dir, file);
	return strtoull(s, NULL, 0);
}

static inline void it_set(const char *dir, const char *file, uint64_t v)
{
	char s[32];
	int err;

	snprintf(s, sizeof(s), "0x%llx", (unsigned long long)v);
	err = it_write(dir, file, s);
	UT_CHECK(!err, 1, "write %s to %s/%s: %s", s, dir, file, strerror(-err));
}

/* The test device of env var (a sysfs folder); SKIP when unset. */
static inline const char *it_dev(const char *env, const char *why)
{
	const char *d = ut_env(env, "");

	if (!*d)
		SKIP("%s", why);
	return d;
}

/* A buffer fd of the device's buffer0 (IIO_BUFFER_GET_FD_IOCTL on /dev/iio:deviceN). */
static inline int it_buffer_fd(const char *sysdir)
{
	const char *name = strrchr(sysdir, '/');
	char dev[64];
	int cfd, idx = 0;

	snprintf(dev, sizeof(dev), "/dev%s", name);
	cfd = open(dev, O_RDWR | O_CLOEXEC);
	UT_CHECK(cfd >= 0, 1, "open %s: %s", dev, strerror(errno));
	UT_CHECK(ioctl(cfd, IT_GET_FD, &idx) == 0, 1, "IIO_BUFFER_GET_FD_IOCTL on %s: %s", dev,
		 strerror(errno));
	close(cfd);
	return idx;
}

/* buffer0/enable of the device, 0 or 1. */
static inline int it_enable(const char *sysdir, int on)
{
	return it_write(sysdir, "buffer0/enable", on ? "1" : "0");
}

/* A 64 KiB manager buffer the edu device reaches (32-bit DMA), removed after the test. */
static inline void it_buf_create(const char *name, unsigned long size)
{
	char cmd[128];
	int fd, n;

	ut_cleanup_buffer(name);
	n = snprintf(cmd, sizeof(cmd), "create %s size=%#lx dma-mask=32\n", name, size);
	fd = open(IT_MGR, O_WRONLY);
	UT_CHECK(fd >= 0, 1, "open %s: %s", IT_MGR, strerror(errno));
	UT_CHECK(write(fd, cmd, n) == n, 1, "%s: %s", cmd, strerror(errno));
	close(fd);
}

static inline int it_buf_delete(const char *name)
{
	char cmd[128];
	int fd, n, err = 0;

	n = snprintf(cmd, sizeof(cmd), "delete %s\n", name);
	fd = open(IT_MGR, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, cmd, n) != n)
		err = -errno;
	close(fd);
	return err;
}

/*
 * Delete buffer name once nothing holds it: the manager refuses (EBUSY)
 * while an export lives, and an IIO attachment lets go of its export in a
 * work item after the last fence.  A hold that never ends is a stall for
 * the harness's watchdog.
 */
static inline int it_buf_delete_wait(const char *name)
{
	int r;

	while ((r = it_buf_delete(name)) == -EBUSY)
		usleep(50000);
	return r;
}

/* Does a DMA-BUF exported by buffer name live (debugfs dma_buf/bufinfo)? */
static inline int it_export_lives(const char *name)
{
	FILE *f = fopen("/sys/kernel/debug/dma_buf/bufinfo", "r");
	char line[512], key[140];
	int found = 0;

	UT_CHECK(f, 1, "open /sys/kernel/debug/dma_buf/bufinfo: %s", strerror(errno));
	snprintf(key, sizeof(key), "\t%s\t", name);
	while (!found && fgets(line, sizeof(line), f))
		found = !!strstr(line, key);
	fclose(f);
	return found;
}

/* EXPORT of [off, off + len) of buffer name with access mode and O_CLOEXEC: fd or -errno. */
static inline int it_export(const char *name, uint64_t off, uint64_t len, int mode)
{
	struct ut_export_args a;
	char dev[128];
	int fd, r;

	snprintf(dev, sizeof(dev), "/dev/%s", name);
	fd = open(dev, O_RDWR | O_CLOEXEC);
	UT_CHECK(fd >= 0, 1, "open %s: %s", dev, strerror(errno));
	memset(&a, 0, sizeof(a));
	a.flags = mode | O_CLOEXEC;
	a.offset = off;
	a.size = len;
	r = ioctl(fd, UT_EXPORT, &a) ? -errno : (int)a.fd;
	close(fd);
	return r;
}

static inline int it_attach(int bfd, int dfd)
{
	return ioctl(bfd, IT_ATTACH, &dfd) ? -errno : 0;
}

static inline int it_detach(int bfd, int dfd)
{
	return ioctl(bfd, IT_DETACH, &dfd) ? -errno : 0;
}

static inline int it_enqueue(int bfd, int dfd, uint64_t bytes, uint32_t flags)
{
	struct it_iio_dmabuf d = { .fd = dfd, .flags = flags, .bytes_used = bytes };

	return ioctl(bfd, IT_ENQUEUE, &d) ? -errno : 0;
}

/* DMA_BUF_IOCTL_SYNC on the export: flags DMA_BUF_SYNC_{START,END} | _{READ,WRITE,RW}. */
static inline void it_cpu(int dfd, uint64_t flags)
{
	struct dma_buf_sync s = { .flags = flags };

	UT_CHECK(ioctl(dfd, DMA_BUF_IOCTL_SYNC, &s) == 0, 1, "DMA_BUF_IOCTL_SYNC 0x%llx: %s",
		 (unsigned long long)flags, strerror(errno));
}

/* The export mapped read-write; the CPU fills it with word fill. */
static inline uint32_t *it_map_fill(int dfd, size_t len, uint32_t fill)
{
	uint32_t *w = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, dfd, 0);
	size_t i;

	UT_CHECK(w != MAP_FAILED, 1, "mmap of the export: %s", strerror(errno));
	it_cpu(dfd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE);
	for (i = 0; i < len / 4; i++)
		w[i] = fill;
	it_cpu(dfd, DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE);
	return w;
}

/*
 * Wait for the export's fences (poll() for POLLOUT: every fence, the
 * device's writes and reads), as long as the engine's counter (a debugfs
 * file of dir) moves; a stall is the harness's watchdog's.
 */
static inline void it_wait_poll(int dfd, const char *dbg, const char *counter)
{
	struct pollfd p = { .fd = dfd, .events = POLLOUT };
	uint64_t last = it_get(dbg, counter), now;
	int r;

	for (;;) {
		r = poll(&p, 1, 500);
		UT_CHECK(r >= 0, 1, "poll on the DMA-BUF: %s", strerror(errno));
		if (r > 0)
			break;
		now = it_get(dbg, counter);
		if (now != last)
			UT_PROGRESS("fence wait, %s 0x%llx", counter, (unsigned long long)now);
		last = now;
	}
}

/*
 * The fences as a sync_file (DMA_BUF_IOCTL_EXPORT_SYNC_FILE, 6.0), waited
 * on: the fence's status, 1 when signalled without error.
 */
static inline int it_wait_sync_file(int dfd, const char *dbg, const char *counter)
{
	struct dma_buf_export_sync_file e = { .flags = DMA_BUF_SYNC_RW, .fd = -1 };
	struct sync_file_info info;
	struct pollfd p;
	uint64_t last = it_get(dbg, counter), now;
	int r;

	UT_CHECK(ioctl(dfd, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &e) == 0, 1,
		 "DMA_BUF_IOCTL_EXPORT_SYNC_FILE: %s", strerror(errno));
	p.fd = e.fd;
	p.events = POLLIN;
	for (;;) {
		r = poll(&p, 1, 500);
		UT_CHECK(r >= 0, 1, "poll on the sync_file: %s", strerror(errno));
		if (r > 0)
			break;
		now = it_get(dbg, counter);
		if (now != last)
			UT_PROGRESS("sync_file wait, %s 0x%llx", counter, (unsigned long long)now);
		last = now;
	}
	memset(&info, 0, sizeof(info));
	UT_CHECK(ioctl(e.fd, SYNC_IOC_FILE_INFO, &info) == 0, 1, "SYNC_IOC_FILE_INFO: %s",
		 strerror(errno));
	close(e.fd);
	return info.status;
}

/* w[from, to) holds the counter from first on. */
static inline void it_expect_count(const uint32_t *w, long from, long to, uint32_t first)
{
	uint32_t want;
	long i;

	for (i = from; i < to; i++) {
		want = first + (uint32_t)(i - from);
		UT_CHECK(w[i] == want, 1, "word %ld: want 0x%08x, got 0x%08x", i, want, w[i]);
	}
}

static inline void it_expect_fill(const uint32_t *w, long from, long to, uint32_t fill)
{
	long i;

	for (i = from; i < to; i++)
		UT_CHECK(w[i] == fill, 1, "word %ld outside the transfer: 0x%08x", i, w[i]);
}

#endif /* IIO_TEST_H */
