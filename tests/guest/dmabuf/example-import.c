// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * example-import.c - the import example of docs/dma-buf.md.
 *
 * Take a DMA-BUF from another driver (here vgem, a DRM driver standing in
 * for a camera or a GPU), get its DMA address for a u-dma-buf buffer's
 * device with udmem_buffer_import_dmabuf(), let that device write into it
 * (here QEMU's edu device through the test peer /dev/udmem-edu-test; on a
 * board, the FPGA's DMA engine), and read the result through the DMA-BUF.
 *
 *   example-import BUFFER VGEM-CARD    e.g. example-import udmabuf1 /dev/dri/card0
 *
 * BUFFER must be bound to the device that does the DMA (the edu device).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <udmem.h>

#include "dmabuf-drm.h"

#define LEN	4096

/* A one-page vgem buffer as a DMA-BUF descriptor. */
static int vgem_dmabuf(const char *card)
{
	struct ut_drm_create_dumb c = { .height = 1, .width = LEN / 4, .bpp = 32 };
	struct ut_drm_prime_handle p = { .flags = O_RDWR | O_CLOEXEC };
	int fd = open(card, O_RDWR | O_CLOEXEC);

	if (fd < 0 || ioctl(fd, UT_DRM_IOCTL_MODE_CREATE_DUMB, &c) < 0)
		return -1;
	p.handle = c.handle;
	if (ioctl(fd, UT_DRM_IOCTL_PRIME_HANDLE_TO_FD, &p) < 0)
		return -1;
	return p.fd;	/* the DMA-BUF keeps the object after the card closes */
}

/* The DMA engine: copy len bytes from DMA address src to dst. */
static int device_copy(uint64_t src, uint64_t dst, uint32_t len)
{
	char cmd[96];
	int fd = open("/dev/udmem-edu-test", O_WRONLY), n, ok;

	if (fd < 0)
		return -errno;
	n = snprintf(cmd, sizeof(cmd), "copy 0x%" PRIx64 " 0x%" PRIx64 " %u", src, dst, len);
	ok = write(fd, cmd, n) == n;
	close(fd);
	return ok ? 0 : -EIO;
}

int main(int argc, char **argv)
{
	struct udmem_buffer *buf;
	uint64_t addr, size, src;
	int dmabuf, imp, ret, i;
	uint8_t *mem, *frame;

	if (argc != 3) {
		fprintf(stderr, "usage: %s BUFFER VGEM-CARD\n", argv[0]);
		return 2;
	}
	ret = udmem_buffer_open(argv[1], 0, &buf);
	if (ret) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(-ret));
		return 1;
	}
	dmabuf = vgem_dmabuf(argv[2]);
	if (dmabuf < 0) {
		perror(argv[2]);
		return 1;
	}
	/* The DMA-BUF's address for the buffer's device. */
	imp = udmem_buffer_import_dmabuf(buf, dmabuf, UDMEM_DIR_FROM_DEVICE, &addr, &size);
	if (imp < 0) {
		fprintf(stderr, "import: %s\n", strerror(-imp));
		return 1;
	}
	printf("DMA-BUF of %" PRIu64 " bytes at DMA address 0x%" PRIx64 "\n", size, addr);

	/* Something for the device to send: a pattern in the buffer. */
	ret = udmem_buffer_map(buf, (void **)&mem);
	if (ret)
		return 1;
	for (i = 0; i < LEN; i++)
		mem[i] = (uint8_t)(i * 7 + 3);
	udmem_buffer_sync_for_device(buf, 0, LEN, UDMEM_DIR_TO_DEVICE);
	src = udmem_buffer_dma_addr(buf);

	/* The device writes into the DMA-BUF; then the CPU may look. */
	ret = device_copy(src, addr, LEN);
	if (ret) {
		fprintf(stderr, "device copy: %s\n", strerror(-ret));
		return 1;
	}
	udmem_import_sync_for_cpu(imp, UDMEM_DIR_FROM_DEVICE);
	frame = mmap(NULL, LEN, PROT_READ, MAP_SHARED, dmabuf, 0);
	if (frame == MAP_FAILED)
		return 1;
	for (i = 0; i < LEN; i++) {
		if (frame[i] != (uint8_t)(i * 7 + 3)) {
			fprintf(stderr, "byte %d: 0x%02x\n", i, frame[i]);
			return 1;
		}
	}
	printf("verified %d bytes written by the device\n", LEN);
	munmap(frame, LEN);
	close(imp);		/* detaches */
	close(dmabuf);
	udmem_buffer_close(buf);
	return 0;
}
