// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * quickstart.c - the round of docs/quickstart.md: the CPU fills one buffer,
 * hands both buffers to the device, the device copies the first into the
 * second, the CPU takes the second back and reads it.
 *
 *   quickstart SRC DST /dev/uioN [PCI-DEVICE]   the UIO way (quickstart-uio.c)
 *   quickstart SRC DST                          the tests' engine on a board
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include <udmem.h>

#include "quickstart.h"

#define LEN	2048

static int round_trip(struct udmem_buffer *src, struct udmem_buffer *dst,
		      struct engine *eng)
{
	uint8_t *in, *out;
	void *addr;
	int ret, i;

	ret = udmem_buffer_map(src, &addr);
	if (ret)
		return ret;
	in = addr;
	ret = udmem_buffer_map(dst, &addr);
	if (ret)
		return ret;
	out = addr;

	/* 1. The CPU writes the data. */
	for (i = 0; i < LEN; i++)
		in[i] = (uint8_t)(i * 13 + 5);
	/* 2. Hand both ranges to the device: clean the source, drop the destination. */
	ret = udmem_buffer_sync_for_device(src, 0, LEN, UDMEM_DIR_TO_DEVICE);
	if (!ret)
		ret = udmem_buffer_sync_for_device(dst, 0, LEN, UDMEM_DIR_FROM_DEVICE);
	if (ret)
		return ret;
	/* 3. Start the engine at the DMA addresses, and wait for it. */
	ret = eng->start(eng, udmem_buffer_dma_addr(src), udmem_buffer_dma_addr(dst), LEN);
	if (!ret)
		ret = eng->wait(eng);
	if (ret)
		return ret;
	/* 4. Take the destination back before reading it. */
	ret = udmem_buffer_sync_for_cpu(dst, 0, LEN, UDMEM_DIR_FROM_DEVICE);
	if (ret)
		return ret;
	/* 5. Read. */
	for (i = 0; i < LEN; i++) {
		if (out[i] != (uint8_t)(i * 13 + 5)) {
			printf("byte %d: 0x%02x, not 0x%02x\n", i, out[i], (uint8_t)(i * 13 + 5));
			return -EIO;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct udmem_buffer *src = NULL, *dst = NULL;
	struct engine *eng;
	int ret;

	if (argc < 3 || argc > 5) {
		fprintf(stderr, "usage: %s SRC DST [/dev/uioN [PCI-DEVICE]]\n", argv[0]);
		return 2;
	}
	eng = argc == 3 ? peer_engine_open() : uio_engine_open(argv[3], argv[4]);
	if (!eng) {
		perror("engine");
		return 1;
	}
	ret = udmem_buffer_open(argv[1], 0, &src);
	if (!ret)
		ret = udmem_buffer_open(argv[2], 0, &dst);
	if (!ret) {
		printf("%s at 0x%" PRIx64 " -> %s at 0x%" PRIx64 " (DMA addresses)\n",
		       argv[1], udmem_buffer_dma_addr(src), argv[2], udmem_buffer_dma_addr(dst));
		ret = round_trip(src, dst, eng);
	}
	if (ret)
		fprintf(stderr, "quickstart: %s\n", udmem_strerror(ret));
	else
		printf("the device copied %d bytes: verified\n", LEN);
	udmem_buffer_close(dst);
	udmem_buffer_close(src);
	eng->close(eng);
	return ret ? 1 : 0;
}
