/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * edu-dma.h - what the edu-dma programs share: the client's transfers
 * (tests/kmod/udmem-dmaengine-test.ko, /dev/udmem-dmaengine-test), the
 * provider's debugfs counters (tests/kmod/udmem-edu-dma.ko) and the
 * u-dma-buf buffers bound to the provider's device.
 *
 *	EDU_DBG		the slave channel's debugfs folder
 *			(/sys/kernel/debug/udmem-edu-dma/<pci>/chan<N>)
 *	EDU_BUF0, EDU_BUF1	two buffers bound to the device, 64 KiB at least
 */
#ifndef EDU_DMA_H
#define EDU_DMA_H

#include "udmabuf-test.h"
#include "../kmod/udmem-dmaengine-test.h"

#define ED_DEV		"/dev/udmem-dmaengine-test"
#define ED_MAP		(64 * 1024)
#define ED_WORDS	(ED_MAP / 4)

struct ed_buf {
	const char *name;
	int fd;
	uint32_t *w;
	uint64_t dma;
};

/* The client runs x: 0 or -errno. */
static inline int ed_xfer(struct udmem_dmaengine_xfer *x)
{
	int fd = open(ED_DEV, O_RDWR), err = 0;

	UT_CHECK(fd >= 0, 1, "open %s: %s", ED_DEV, strerror(errno));
	if (ioctl(fd, UDMEM_DMAENGINE_XFER, x))
		err = -errno;
	close(fd);
	return err;
}

/* A debugfs counter of the slave channel. */
static inline void ed_dbg_path(char *p, size_t n, const char *file)
{
	snprintf(p, n, "%s/%s", ut_env("EDU_DBG", "/nonexistent"), file);
}

static inline uint64_t ed_dbg_get(const char *file)
{
	char p[256], s[32] = "";
	FILE *f;

	ed_dbg_path(p, sizeof(p), file);
	f = fopen(p, "r");
	UT_CHECK(f, 1, "open %s: %s", p, strerror(errno));
	UT_CHECK(fgets(s, sizeof(s), f), 1, "read %s", p);
	fclose(f);
	return strtoull(s, NULL, 0);
}

static inline void ed_dbg_set(const char *file, uint64_t v)
{
	char p[256];
	FILE *f;

	ed_dbg_path(p, sizeof(p), file);
	f = fopen(p, "w");
	UT_CHECK(f, 1, "open %s: %s", p, strerror(errno));
	fprintf(f, "0x%llx\n", (unsigned long long)v);
	UT_CHECK(fclose(f) == 0, 1, "write %s: %s", p, strerror(errno));
}

/* u-dma-buf: the whole buffer for the CPU (dir 2: from the device) or the device. */
static inline void ed_sync(struct ed_buf *b, int for_device, unsigned int dir)
{
	ut_set(b->name, "sync_offset", 0);
	ut_set(b->name, "sync_size", ED_MAP);
	ut_set(b->name, "sync_direction", dir);
	ASSERT_EQ(ut_attr_write(b->name, for_device ? "sync_for_device" : "sync_for_cpu", "1"),
		  0);
}

/* Map buffer env (default dflt), filled with the word fill, owned by the device. */
static inline void ed_open(struct ed_buf *b, const char *env, const char *dflt, uint32_t fill)
{
	long i;

	b->name = ut_env(env, dflt);
	b->fd = ut_open(b->name, O_RDWR);
	b->dma = ut_get(b->name, "phys_addr", 16);
	ASSERT_GE(ut_size(b->name), ED_MAP);
	b->w = mmap(NULL, ED_MAP, PROT_READ | PROT_WRITE, MAP_SHARED, b->fd, 0);
	ASSERT_TRUE(b->w != MAP_FAILED);
	ed_sync(b, 0, 0);
	for (i = 0; i < ED_WORDS; i++)
		b->w[i] = fill;
	ed_sync(b, 1, 0);
}

static inline void ed_close(struct ed_buf *b)
{
	munmap(b->w, ED_MAP);
	close(b->fd);
}

#endif /* EDU_DMA_H */
