// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * quickstart-peer.c - the board targets' engine for quickstart.c: the SoC's
 * DMA engine through the test peer tests/kmod/udmem-dmaengine-test.ko,
 * whose ioctl copies and returns when the copy is done.  Test glue, not
 * part of the documented program.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "../kmod/udmem-dmaengine-test.h"
#include "quickstart.h"

struct peer_engine {
	struct engine ops;		/* first: the struct engine * is this */
	int fd;
	int ret;
};

/* The peer's ioctl returns when the copy is done: start does it all. */
static int peer_start(struct engine *ops, uint64_t src, uint64_t dst, uint32_t len)
{
	struct peer_engine *e = (struct peer_engine *)ops;
	struct udmem_dmaengine_copy c = { .src = src, .dst = dst, .len = len };

	e->ret = ioctl(e->fd, UDMEM_DMAENGINE_COPY, &c) ? -errno : 0;
	return 0;
}

static int peer_wait(struct engine *ops)
{
	return ((struct peer_engine *)ops)->ret;
}

static void peer_close(struct engine *ops)
{
	struct peer_engine *e = (struct peer_engine *)ops;

	close(e->fd);
	free(e);
}

struct engine *peer_engine_open(void)
{
	struct peer_engine *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->fd = open("/dev/udmem-dmaengine-test", O_RDWR | O_CLOEXEC);
	if (e->fd < 0) {
		free(e);
		return NULL;
	}
	e->ops.start = peer_start;
	e->ops.wait = peer_wait;
	e->ops.close = peer_close;
	return &e->ops;
}
