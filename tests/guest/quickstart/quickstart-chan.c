// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * quickstart-chan.c - the round of docs/quickstart.md with the SoC's DMA
 * engine driven through u-dma-chan: the kernel's own driver moves the data
 * and u-dma-chan does the cache maintenance, so the program has no sync of
 * its own to get right.
 *
 *   quickstart-chan SRC DST CHANNEL     e.g. udmabuf0 udmabuf1 dma-chan0
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <udmem.h>

#define LEN	4096

static int chan_round(struct udmem_buffer *src, struct udmem_buffer *dst,
		      struct udmem_dma *chan)
{
	int sfd, dfd, ret, i;
	uint8_t *in, *out;
	void *addr;

	ret = udmem_buffer_map(src, &addr);
	if (ret)
		return ret;
	in = addr;
	ret = udmem_buffer_map(dst, &addr);
	if (ret)
		return ret;
	out = addr;

	/* 1. The CPU writes the data, and clears the destination. */
	for (i = 0; i < LEN; i++) {
		in[i] = (uint8_t)(i * 7 + 3);
		out[i] = 0;
	}
	/* 2. The buffers as DMA-BUFs: what the channel takes. */
	sfd = udmem_buffer_export_dmabuf(src, 0, LEN, O_RDONLY | O_CLOEXEC, NULL);
	if (sfd < 0)
		return sfd;
	dfd = udmem_buffer_export_dmabuf(dst, 0, LEN, O_RDWR | O_CLOEXEC, NULL);
	if (dfd < 0) {
		close(sfd);
		return dfd;
	}
	/* 3. Copy and wait (10 s at most): the syncs both ways are u-dma-chan's. */
	ret = udmem_dma_copy(chan, dfd, 0, sfd, 0, LEN, 10000000000LL);
	close(sfd);
	close(dfd);
	if (ret)
		return ret;
	/* 4. Read. */
	for (i = 0; i < LEN; i++) {
		if (out[i] != (uint8_t)(i * 7 + 3)) {
			printf("byte %d: 0x%02x, not 0x%02x\n", i, out[i], (uint8_t)(i * 7 + 3));
			return -EIO;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct udmem_buffer *src = NULL, *dst = NULL;
	struct udmem_dma *chan = NULL;
	int ret;

	if (argc != 4) {
		fprintf(stderr, "usage: %s SRC DST CHANNEL\n", argv[0]);
		return 2;
	}
	ret = udmem_buffer_open(argv[1], 0, &src);
	if (!ret)
		ret = udmem_buffer_open(argv[2], 0, &dst);
	if (!ret)
		ret = udmem_dma_open(argv[3], &chan);
	if (!ret)
		ret = chan_round(src, dst, chan);
	printf("%s -> %s through %s: %s\n", argv[1], argv[2], argv[3],
	       ret ? strerror(-ret) : "the copy reads back");
	udmem_dma_close(chan);
	udmem_buffer_close(dst);
	udmem_buffer_close(src);
	return ret ? 1 : 0;
}
