// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * dmabuf-v4l2 - V4L2 capture into u-dma-buf exports: vivid's capture node
 * with V4L2_MEMORY_DMABUF fills exports of one buffer at different offsets,
 * and the frames read through /dev/<name> equal a V4L2_MEMORY_MMAP capture
 * of the same test pattern (with vivid's OSD text, which holds a counter
 * and the time, turned off).
 *
 * Environment: UDMABUF_DEV a buffer of at least three frames; DMABUF_VIVID
 * vivid's capture node (/dev/videoN; empty: skipped).
 */
#define _FILE_OFFSET_BITS 64
#include <linux/videodev2.h>

#include "udmabuf-test.h"

#define UT_WIDTH		320
#define UT_HEIGHT		240
#define UT_NBUF		3
#define UT_FRAMES	6

/* Set vivid's control NAME (found by name: its id is vivid's own). */
static void ut_set_ctrl(int vfd, const char *name, int value)
{
	struct v4l2_queryctrl q = { .id = V4L2_CTRL_FLAG_NEXT_CTRL };
	struct v4l2_control c;

	while (!ioctl(vfd, VIDIOC_QUERYCTRL, &q)) {
		if (!strcmp((char *)q.name, name)) {
			c.id = q.id;
			c.value = value;
			ASSERT_OK(ioctl(vfd, VIDIOC_S_CTRL, &c));
			return;
		}
		q.id |= V4L2_CTRL_FLAG_NEXT_CTRL;
	}
	UT_CHECK(0, 1, "vivid has no control '%s'", name);
}

static int ut_vivid(struct v4l2_format *f)
{
	const char *path = ut_env("DMABUF_VIVID", "");
	int fd;

	if (!*path)
		SKIP("no vivid capture node");
	fd = open(path, O_RDWR);
	UT_CHECK(fd >= 0, 1, "open %s: %s", path, strerror(errno));
	memset(f, 0, sizeof(*f));
	f->type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	f->fmt.pix.width = UT_WIDTH;
	f->fmt.pix.height = UT_HEIGHT;
	f->fmt.pix.pixelformat = V4L2_PIX_FMT_YUYV;
	f->fmt.pix.field = V4L2_FIELD_NONE;
	ASSERT_OK(ioctl(fd, VIDIOC_S_FMT, f));
	/* no text over the picture: it holds a frame counter and the time */
	ut_set_ctrl(fd, "OSD Text Mode", 2);
	/* the webcam input has fixed sizes: take the one it gives */
	ASSERT_EQ(f->fmt.pix.pixelformat, V4L2_PIX_FMT_YUYV);
	ASSERT_GE(f->fmt.pix.sizeimage, f->fmt.pix.bytesperline * f->fmt.pix.height);
	ut_msg("# vivid: %ux%u, %u bytes a frame", f->fmt.pix.width, f->fmt.pix.height,
	       f->fmt.pix.sizeimage);
	return fd;
}

static void ut_reqbufs(int vfd, unsigned int memory, unsigned int count)
{
	struct v4l2_requestbuffers rb = {
		.count = count, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .memory = memory,
	};

	ASSERT_OK(ioctl(vfd, VIDIOC_REQBUFS, &rb));
	if (count)
		ASSERT_GE(rb.count, count);
}

/* One frame by MMAP streaming, copied into ref (sizeimage bytes). */
static void ut_mmap_frame(int vfd, const struct v4l2_format *f, char *ref)
{
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE, i;
	struct v4l2_buffer b;
	void *p[UT_NBUF];

	ut_reqbufs(vfd, V4L2_MEMORY_MMAP, UT_NBUF);
	for (i = 0; i < UT_NBUF; i++) {
		memset(&b, 0, sizeof(b));
		b.type = type;
		b.memory = V4L2_MEMORY_MMAP;
		b.index = i;
		ASSERT_OK(ioctl(vfd, VIDIOC_QUERYBUF, &b));
		p[i] = mmap(NULL, b.length, PROT_READ, MAP_SHARED, vfd, b.m.offset);
		ASSERT_TRUE(p[i] != MAP_FAILED);
		ASSERT_OK(ioctl(vfd, VIDIOC_QBUF, &b));
	}
	ASSERT_OK(ioctl(vfd, VIDIOC_STREAMON, &type));
	memset(&b, 0, sizeof(b));
	b.type = type;
	b.memory = V4L2_MEMORY_MMAP;
	ASSERT_OK(ioctl(vfd, VIDIOC_DQBUF, &b));
	ASSERT_EQ(b.bytesused, f->fmt.pix.sizeimage);
	memcpy(ref, p[b.index], f->fmt.pix.sizeimage);
	ASSERT_OK(ioctl(vfd, VIDIOC_STREAMOFF, &type));
	for (i = 0; i < UT_NBUF; i++)
		munmap(p[i], f->fmt.pix.sizeimage);
	ut_reqbufs(vfd, V4L2_MEMORY_MMAP, 0);
}

static int ut_export(int fd, uint64_t offset, uint64_t size)
{
	struct ut_export_args a;

	memset(&a, 0, sizeof(a));
	a.flags = O_RDWR | O_CLOEXEC;
	a.offset = offset;
	a.size = size;
	return ioctl(fd, UT_EXPORT, &a) < 0 ? -errno : a.fd;
}

TEST(vivid_dmabuf_capture_into_exports_equals_mmap_capture)
{
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE, i, n, vfd, fd, bfd[UT_NBUF];
	long pg = ut_page();
	struct v4l2_format f;
	struct v4l2_buffer b;
	uint64_t slot, seen = 0;
	char *ref, *got;
	size_t len;

	vfd = ut_vivid(&f);
	len = f.fmt.pix.sizeimage;
	slot = (len + pg - 1) / pg * pg;
	fd = ut_open(ut_dev(), O_RDWR);
	ASSERT_GE(ut_size(ut_dev()), UT_NBUF * slot);
	ref = malloc(len);
	got = malloc(len);
	ASSERT_TRUE(ref && got);
	ut_mmap_frame(vfd, &f, ref);

	/* poison the buffer: a frame that never arrives cannot match */
	memset(got, 0x5a, len);
	for (i = 0; i < UT_NBUF; i++)
		ASSERT_EQ(ut_pwrite_all(fd, got, len, i * slot), 0);
	ut_reqbufs(vfd, V4L2_MEMORY_DMABUF, UT_NBUF);
	for (i = 0; i < UT_NBUF; i++) {
		bfd[i] = ut_export(fd, i * slot, slot);
		ASSERT_GE(bfd[i], 0);
		memset(&b, 0, sizeof(b));
		b.type = type;
		b.memory = V4L2_MEMORY_DMABUF;
		b.index = i;
		b.m.fd = bfd[i];
		b.length = slot;
		ASSERT_OK(ioctl(vfd, VIDIOC_QBUF, &b));
	}
	ASSERT_OK(ioctl(vfd, VIDIOC_STREAMON, &type));
	for (n = 0; n < UT_FRAMES; n++) {
		memset(&b, 0, sizeof(b));
		b.type = type;
		b.memory = V4L2_MEMORY_DMABUF;
		ASSERT_OK(ioctl(vfd, VIDIOC_DQBUF, &b));
		ASSERT_LT(b.index, UT_NBUF);
		ASSERT_EQ(b.bytesused, len);
		ASSERT_EQ(ut_pread_all(fd, got, len, b.index * slot), 0);
		UT_CHECK(!memcmp(got, ref, len), 1,
			 "frame %d in export %u (offset 0x%llx) differs from the MMAP frame", n,
			 b.index, (unsigned long long)(b.index * slot));
		seen |= 1u << b.index;
		b.m.fd = bfd[b.index];
		b.length = slot;
		ASSERT_OK(ioctl(vfd, VIDIOC_QBUF, &b));
	}
	EXPECT_EQ(seen, (1u << UT_NBUF) - 1);
	ASSERT_OK(ioctl(vfd, VIDIOC_STREAMOFF, &type));
	ut_reqbufs(vfd, V4L2_MEMORY_DMABUF, 0);
	for (i = 0; i < UT_NBUF; i++)
		close(bfd[i]);
	free(ref);
	free(got);
	close(fd);
	close(vfd);
}

TEST_HARNESS_MAIN
