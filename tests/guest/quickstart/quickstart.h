/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * quickstart.h - the engine of docs/quickstart.md's round: whatever moves
 * the data once the buffers are handed over.  quickstart-uio.c drives a
 * device's registers from user space and waits for its interrupt through
 * UIO; quickstart-peer.c is the tests' stand-in on the board targets.
 */
#ifndef QUICKSTART_H
#define QUICKSTART_H

#include <stdint.h>

/* One engine: start a copy of len bytes between two DMA addresses, wait for it. */
struct engine {
	int (*start)(struct engine *e, uint64_t src, uint64_t dst, uint32_t len);
	int (*wait)(struct engine *e);		/* 0 or a negative errno */
	void (*close)(struct engine *e);
};

/* NULL with errno set on failure. */
struct engine *uio_engine_open(const char *uio, const char *pci);
struct engine *peer_engine_open(void);

#endif /* QUICKSTART_H */
