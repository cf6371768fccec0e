/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * dmabuf-util.h - what the dmabuf suite's programs share: u-dma-buf
 * exports, vgem buffers and PRIME imports, the "export released" lines of
 * debug_export in the kernel log, and the edu test peer's copy command.
 *
 * Environment: DMABUF_VGEM vgem's /dev/dri/cardN (empty: vgem tests skip).
 */
#ifndef DMABUF_UTIL_H
#define DMABUF_UTIL_H

#include <sys/klog.h>

#include "udmabuf-test.h"
#include "dmabuf-drm.h"

#define UT_EDU		"/dev/udmem-edu-test"

/*
 * EXPORT of [offset, offset + size) of the buffer open as fd (O_RDWR,
 * O_CLOEXEC): the DMA-BUF fd or -errno; the buffer's DMA address of the
 * range in *addr when addr is not NULL.
 */
static inline int ut_export_fd(int fd, uint64_t offset, uint64_t size, uint64_t *addr)
{
	struct ut_export_args a;

	memset(&a, 0, sizeof(a));
	a.flags = O_RDWR | O_CLOEXEC;
	a.offset = offset;
	a.size = size;
	if (ioctl(fd, UT_EXPORT, &a) < 0)
		return -errno;
	if (addr)
		*addr = a.addr;
	return a.fd;
}

/* The same for the buffer dev, opened for the call only. */
static inline int ut_export_dev(const char *dev, uint64_t offset, uint64_t size,
				uint64_t *addr)
{
	int fd = ut_open(dev, O_RDWR), r;

	r = ut_export_fd(fd, offset, size, addr);
	close(fd);
	return r;
}

/* vgem's DRM file; the test SKIPs when the target has no vgem. */
static inline int ut_vgem_open(void)
{
	const char *path = ut_env("DMABUF_VGEM", "");
	int fd;

	if (!*path)
		SKIP("no vgem device");
	fd = open(path, O_RDWR | O_CLOEXEC);
	UT_CHECK(fd >= 0, 1, "open %s: %s", path, strerror(errno));
	return fd;
}

/* A dumb buffer of that many pages on the DRM file dfd: its handle, or -errno. */
static inline long ut_vgem_create(int dfd, uint32_t pages)
{
	struct ut_drm_create_dumb c = { .height = pages, .width = ut_page() / 4, .bpp = 32 };

	if (ioctl(dfd, UT_DRM_IOCTL_MODE_CREATE_DUMB, &c) < 0)
		return -errno;
	UT_CHECK(c.size == (uint64_t)pages * ut_page(), 1, "vgem gave %llu bytes for %u pages",
		 (unsigned long long)c.size, pages);
	return c.handle;
}

/* PRIME: the handle's DMA-BUF (O_RDWR, O_CLOEXEC), or -errno. */
static inline int ut_prime_fd(int dfd, uint32_t handle)
{
	struct ut_drm_prime_handle p = { .handle = handle, .flags = O_RDWR | O_CLOEXEC };

	if (ioctl(dfd, UT_DRM_IOCTL_PRIME_HANDLE_TO_FD, &p) < 0)
		return -errno;
	return p.fd;
}

/* PRIME: import the DMA-BUF bfd, its handle in *handle; 0 or -errno. */
static inline int ut_prime_import(int dfd, int bfd, uint32_t *handle)
{
	struct ut_drm_prime_handle p = { .fd = bfd };

	if (ioctl(dfd, UT_DRM_IOCTL_PRIME_FD_TO_HANDLE, &p) < 0)
		return -errno;
	*handle = p.handle;
	return 0;
}

static inline int ut_gem_close(int dfd, uint32_t handle)
{
	struct ut_drm_gem_close c = { .handle = handle };

	return ioctl(dfd, UT_DRM_IOCTL_GEM_CLOSE, &c) < 0 ? -errno : 0;
}

/*
 * A vgem buffer of that many pages as a DMA-BUF fd, its DRM file in *dfd (the
 * DMA-BUF keeps the object after the handle or the file is closed).
 */
static inline int ut_vgem_dmabuf(uint32_t pages, int *dfd)
{
	long h;
	int bfd;

	*dfd = ut_vgem_open();
	h = ut_vgem_create(*dfd, pages);
	UT_CHECK(h >= 0, 1, "vgem CREATE_DUMB of %u pages: %s", pages, strerror((int)-h));
	bfd = ut_prime_fd(*dfd, h);
	UT_CHECK(bfd >= 0, 1, "PRIME_HANDLE_TO_FD: %s", strerror(-bfd));
	return bfd;
}

/* Lines of the kernel log that hold "<dev>: export released"; -1: no log. */
static inline int ut_released(const char *dev)
{
	int len = klogctl(10, NULL, 0), n = 0;
	char *log, *p, key[128];

	if (len <= 0)
		return -1;
	log = malloc(len + 1);
	if (!log)
		return -1;
	len = klogctl(3, log, len);
	if (len < 0) {
		free(log);
		return -1;
	}
	log[len] = '\0';
	snprintf(key, sizeof(key), " %s: export released", dev);
	for (p = log; (p = strstr(p, key)); p += strlen(key))
		n++;
	free(log);
	return n;
}

/* The edu test peer copies len bytes from DMA address src to dst; 0 or -errno. */
static inline int ut_edu_copy(uint64_t src, uint64_t dst, uint64_t len)
{
	char cmd[128];
	int fd = open(UT_EDU, O_WRONLY), n, r = 0;

	if (fd < 0)
		return -errno;
	n = snprintf(cmd, sizeof(cmd), "copy 0x%llx 0x%llx %llu", (unsigned long long)src,
		     (unsigned long long)dst, (unsigned long long)len);
	if (write(fd, cmd, n) != n)
		r = -errno;
	close(fd);
	return r;
}

#endif /* DMABUF_UTIL_H */
