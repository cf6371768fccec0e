// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * example-copy.c - the worked example of docs/dma.md.
 *
 * Fill one u-dma-buf buffer, let a DMA channel copy it into another in a
 * batch of four transfers, wait on the batch's fence, and check the copy.
 *
 *   example-copy CHANNEL SRC DST      e.g. example-copy dma-chan0 udmabuf0 udmabuf1
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <udmem.h>

#define LEN	(256 * 1024)
#define PARTS	4

static int fail(const char *what, int err)
{
	fprintf(stderr, "example-copy: %s: %s\n", what, strerror(-err));
	return 1;
}

int main(int argc, char **argv)
{
	struct udmem_buffer *src, *dst;
	struct udmem_dma_xfer x[PARTS];
	struct udmem_dma *dma;
	int sfd, dfd, fence, ret, i;
	unsigned char *s, *d;
	uint64_t seq;

	if (argc != 4)
		return fprintf(stderr, "usage: example-copy CHANNEL SRC DST\n"), 2;
	ret = udmem_buffer_open(argv[2], 0, &src);
	if (ret)
		return fail(argv[2], ret);
	ret = udmem_buffer_open(argv[3], 0, &dst);
	if (ret)
		return fail(argv[3], ret);
	ret = udmem_dma_open(argv[1], &dma);
	if (ret)
		return fail(argv[1], ret);
	if (udmem_buffer_map(src, (void **)&s) || udmem_buffer_map(dst, (void **)&d))
		return fail("map", -ENOMEM);

	/* The buffers as DMA-BUFs: what the channel takes. */
	sfd = udmem_buffer_export_dmabuf(src, 0, LEN, O_RDONLY | O_CLOEXEC, NULL);
	dfd = udmem_buffer_export_dmabuf(dst, 0, LEN, O_RDWR | O_CLOEXEC, NULL);
	if (sfd < 0 || dfd < 0)
		return fail("export", sfd < 0 ? sfd : dfd);

	for (i = 0; i < LEN; i++)
		s[i] = (unsigned char)(i * 7 + 1);
	memset(d, 0, LEN);

	/* One system call for four transfers; the caches are synced for us. */
	for (i = 0; i < PARTS; i++)
		x[i] = (struct udmem_dma_xfer){
			.op = UDMEM_DMA_MEMCPY,
			.src_fd = sfd, .src_offset = i * (LEN / PARTS),
			.dst_fd = dfd, .dst_offset = i * (LEN / PARTS),
			.length = LEN / PARTS,
		};
	ret = udmem_dma_submit(dma, x, PARTS, UDMEM_DMA_FENCE_FD, &seq, &fence);
	if (ret)
		return fail("submit", ret);
	ret = udmem_dma_fence_wait(fence, 10LL * 1000000000);	/* 10 s */
	close(fence);
	if (ret)
		return fail("fence", ret);

	if (memcmp(s, d, LEN))
		return fail("compare", -EIO);
	printf("batch %llu: %d bytes copied by %s\n", (unsigned long long)seq, LEN, argv[1]);

	close(sfd);
	close(dfd);
	udmem_dma_close(dma);
	udmem_buffer_close(dst);
	udmem_buffer_close(src);
	return 0;
}
