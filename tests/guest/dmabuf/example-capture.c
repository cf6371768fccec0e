// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * example-capture.c - the V4L2 capture example of docs/dma-buf.md.
 *
 * A camera driver (here vivid, the kernel's virtual video test driver)
 * captures straight into a u-dma-buf buffer: each V4L2 buffer is a DMA-BUF
 * export of one slot of the buffer (V4L2_MEMORY_DMABUF), so frames land
 * where an FPGA reaches them, at known DMA addresses, with no copy.
 *
 *   example-capture BUFFER VIDEO-NODE    e.g. example-capture udmabuf0 /dev/video0
 *
 * BUFFER must hold NBUF frames of 320x240 YUYV (NBUF * 160 KiB).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/videodev2.h>

#include <udmem.h>

#define NBUF	3
#define FRAMES	6

int main(int argc, char **argv)
{
	struct v4l2_format fmt = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	struct v4l2_requestbuffers req = {
		.count = NBUF, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.memory = V4L2_MEMORY_DMABUF,
	};
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE, vfd, dmabuf[NBUF], i, n, ret;
	uint64_t slot, addr[NBUF], page = (uint64_t)sysconf(_SC_PAGESIZE);
	struct udmem_buffer *buf;
	struct v4l2_buffer vb;
	uint8_t *mem, *frame;
	size_t len, j;

	if (argc != 3) {
		fprintf(stderr, "usage: %s BUFFER VIDEO-NODE\n", argv[0]);
		return 2;
	}
	ret = udmem_buffer_open(argv[1], 0, &buf);
	if (!ret)
		ret = udmem_buffer_map(buf, (void **)&mem);
	if (ret) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(-ret));
		return 1;
	}
	vfd = open(argv[2], O_RDWR);
	if (vfd < 0) {
		perror(argv[2]);
		return 1;
	}
	fmt.fmt.pix.width = 320;
	fmt.fmt.pix.height = 240;
	fmt.fmt.pix.pixelformat = V4L2_PIX_FMT_YUYV;
	fmt.fmt.pix.field = V4L2_FIELD_NONE;
	if (ioctl(vfd, VIDIOC_S_FMT, &fmt) || ioctl(vfd, VIDIOC_REQBUFS, &req)) {
		perror("VIDIOC_S_FMT/REQBUFS");
		return 1;
	}
	len = fmt.fmt.pix.sizeimage;
	slot = (len + page - 1) / page * page;	/* exports are whole pages */
	if (NBUF * slot > udmem_buffer_size(buf)) {
		fprintf(stderr, "%s: too small for %d frames of %zu bytes\n", argv[1], NBUF, len);
		return 1;
	}
	/* Zero the slots: limited-range YUYV has no zero byte, so any left is a miss. */
	memset(mem, 0, NBUF * slot);
	udmem_buffer_sync_for_device(buf, 0, NBUF * slot, UDMEM_DIR_TO_DEVICE);
	for (i = 0; i < NBUF; i++) {
		dmabuf[i] = udmem_buffer_export_dmabuf(buf, i * slot, slot, O_RDWR | O_CLOEXEC,
						       &addr[i]);
		if (dmabuf[i] < 0) {
			fprintf(stderr, "export: %s\n", strerror(-dmabuf[i]));
			return 1;
		}
		vb = (struct v4l2_buffer){ .index = i, .type = type, .memory = V4L2_MEMORY_DMABUF,
					   .m.fd = dmabuf[i], .length = slot };
		if (ioctl(vfd, VIDIOC_QBUF, &vb)) {
			perror("VIDIOC_QBUF");
			return 1;
		}
	}
	if (ioctl(vfd, VIDIOC_STREAMON, &type)) {
		perror("VIDIOC_STREAMON");
		return 1;
	}
	for (n = 0; n < FRAMES; n++) {
		vb = (struct v4l2_buffer){ .type = type, .memory = V4L2_MEMORY_DMABUF };
		if (ioctl(vfd, VIDIOC_DQBUF, &vb)) {
			perror("VIDIOC_DQBUF");
			return 1;
		}
		/* The frame is in slot vb.index: hand it to the CPU, then read it. */
		udmem_buffer_sync_for_cpu(buf, vb.index * slot, len, UDMEM_DIR_FROM_DEVICE);
		frame = mem + vb.index * slot;
		for (j = 0; j < len && frame[j]; j++)
			;
		if (j < len || vb.bytesused != len) {
			fprintf(stderr, "frame %d: byte %zu not written\n", n, j);
			return 1;
		}
		printf("frame %d: slot %u at DMA address 0x%" PRIx64, n, vb.index, addr[vb.index]);
		printf(", first pixel Y %u U %u V %u\n", frame[0], frame[1], frame[3]);
		/* Here an FPGA could take the frame from addr[vb.index]; then requeue it. */
		memset(frame, 0, len);
		udmem_buffer_sync_for_device(buf, vb.index * slot, len, UDMEM_DIR_TO_DEVICE);
		vb.m.fd = dmabuf[vb.index];
		vb.length = slot;
		if (ioctl(vfd, VIDIOC_QBUF, &vb)) {
			perror("VIDIOC_QBUF");
			return 1;
		}
	}
	ioctl(vfd, VIDIOC_STREAMOFF, &type);
	printf("captured %d frames of %ux%u YUYV into %s\n", FRAMES, fmt.fmt.pix.width,
	       fmt.fmt.pix.height, argv[1]);
	close(vfd);		/* V4L2 lets go of the exports */
	for (i = 0; i < NBUF; i++)
		close(dmabuf[i]);
	udmem_buffer_close(buf);
	return 0;
}
