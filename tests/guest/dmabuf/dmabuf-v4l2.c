// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * dmabuf-v4l2 - V4L2 with u-dma-buf exports, through vivid:
 *
 * capture: vivid's capture node with V4L2_MEMORY_DMABUF fills exports of
 * one buffer at different offsets, and the frames read through /dev/<name>
 * equal a V4L2_MEMORY_MMAP capture of the same test pattern (with vivid's
 * OSD text, which holds a counter and the time, turned off);
 *
 * output: vivid's output node with V4L2_MEMORY_DMABUF sends frames from
 * exports of the buffer, and vivid's loopback (its HDMI output looped to
 * its HDMI input) brings them back on the capture node, which captures with
 * V4L2_MEMORY_MMAP into vivid's own memory: the frames captured equal the
 * patterns written into the buffer, one rewritten while streaming.
 *
 * Environment: UDMABUF_DEV a buffer of at least three frames; DMABUF_VIVID
 * vivid's capture node, DMABUF_VIVID_OUT its output node (/dev/videoN;
 * empty: skipped).
 */
#define _FILE_OFFSET_BITS 64
#include <poll.h>
#include <time.h>
#include <linux/videodev2.h>

#include "dmabuf-util.h"

#define UT_WIDTH		320
#define UT_HEIGHT		240
#define UT_NBUF		3
#define UT_FRAMES	6

/* The id of vivid's control whose name starts with prefix and holds part; 0: none. */
static unsigned int ut_find_ctrl(int vfd, const char *prefix, const char *part)
{
	struct v4l2_queryctrl q = { .id = V4L2_CTRL_FLAG_NEXT_CTRL };

	while (!ioctl(vfd, VIDIOC_QUERYCTRL, &q)) {
		if (!strncmp((char *)q.name, prefix, strlen(prefix)) &&
		    strstr((char *)q.name, part))
			return q.id;
		q.id |= V4L2_CTRL_FLAG_NEXT_CTRL;
	}
	return 0;
}

/* Set vivid's control NAME (found by name: its id is vivid's own). */
static void ut_set_ctrl(int vfd, const char *name, int value)
{
	struct v4l2_control c = { .id = ut_find_ctrl(vfd, name, ""), .value = value };

	UT_CHECK(c.id, 1, "vivid has no control '%s'", name);
	ASSERT_OK(ioctl(vfd, VIDIOC_S_CTRL, &c));
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

static void ut_reqbufs_type(int vfd, unsigned int type, unsigned int memory,
			    unsigned int count)
{
	struct v4l2_requestbuffers rb = { .count = count, .type = type, .memory = memory };

	ASSERT_OK(ioctl(vfd, VIDIOC_REQBUFS, &rb));
	if (count)
		ASSERT_GE(rb.count, count);
}

static void ut_reqbufs(int vfd, unsigned int memory, unsigned int count)
{
	ut_reqbufs_type(vfd, V4L2_BUF_TYPE_VIDEO_CAPTURE, memory, count);
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
		bfd[i] = ut_export_fd(fd, i * slot, slot, NULL);
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

#define UT_OUT_NBUF	3
#define UT_CAP_NBUF	4
#define UT_SEED		1700	/* export i sends pattern UT_SEED + i; the rewrite, + UT_OUT_NBUF */
#define UT_LOOP_SECONDS	120
#define UT_LOOP_FRAMES	300
#define UT_LOOP_TRIES	10	/* times to set vivid's loop control until it holds */

/* The first input (output) with DV timings, vivid's HDMI; -1: none. */
static int ut_hdmi(int vfd, int output)
{
	struct v4l2_output o;
	struct v4l2_input in;
	unsigned int i;

	for (i = 0; i < 64; i++) {
		if (output) {
			memset(&o, 0, sizeof(o));
			o.index = i;
			if (ioctl(vfd, VIDIOC_ENUMOUTPUT, &o))
				return -1;
			if (o.capabilities & V4L2_OUT_CAP_DV_TIMINGS)
				return i;
		} else {
			memset(&in, 0, sizeof(in));
			in.index = i;
			if (ioctl(vfd, VIDIOC_ENUMINPUT, &in))
				return -1;
			if (in.capabilities & V4L2_IN_CAP_DV_TIMINGS)
				return i;
		}
	}
	return -1;
}

/*
 * Loop vivid's video output to its capture: the capture node's "Loop
 * Video" control (vivid of 6.1 and before), else its HDMI input's "Is
 * Connected To" menu set to the first output it offers (items 0 and 1 are
 * the test pattern generator and "None").  The control set is left in *c.  0,
 * -ENOENT when this vivid has neither, -EAGAIN when vivid keeps putting
 * the control back, or -errno.
 *
 * vivid 7.x may undo "Is Connected To" by itself: setting it queues a work
 * item (update_hdmi_ctrls_work_handler) that narrows every such menu to
 * the outputs not taken, keeping the control's current value, which it
 * reads before it takes the control's lock.  If the work runs while
 * S_CTRL has not stored the new value yet (the ioctl preempted after
 * queue_work()), the new item is left skipped and v4l2_ctrl_modify_range()
 * puts the control back to its default, the test pattern generator: the
 * loop then shows none of the output frames.  So let the work run, read
 * the control back, and set it again until it holds.
 */
static int ut_loop(int cfd, struct v4l2_control *c)
{
	struct v4l2_control g;
	struct v4l2_queryctrl q;
	struct v4l2_querymenu m;
	int i;

	memset(c, 0, sizeof(*c));
	c->id = ut_find_ctrl(cfd, "Loop Video", "");
	c->value = 1;
	if (!c->id) {
		c->id = ut_find_ctrl(cfd, "HDMI", "Is Connected To");
		if (!c->id)
			return -ENOENT;
		memset(&q, 0, sizeof(q));
		q.id = c->id;
		if (ioctl(cfd, VIDIOC_QUERYCTRL, &q))
			return -errno;
		for (c->value = -1, i = 2; i <= q.maximum && c->value < 0; i++) {
			memset(&m, 0, sizeof(m));
			m.id = c->id;
			m.index = i;
			if (!ioctl(cfd, VIDIOC_QUERYMENU, &m))
				c->value = i;
		}
		if (c->value < 0)
			return -ENOENT;
	}
	memset(&q, 0, sizeof(q));
	q.id = c->id;
	if (!ioctl(cfd, VIDIOC_QUERYCTRL, &q))
		ut_msg("# vivid loop through control '%s' = %d", (char *)q.name, c->value);
	for (i = 0; i < UT_LOOP_TRIES; i++) {
		if (ioctl(cfd, VIDIOC_S_CTRL, c))
			return -errno;
		/* vivid's work item, queued on this CPU, runs meanwhile */
		usleep(50000);
		g.id = c->id;
		if (ioctl(cfd, VIDIOC_G_CTRL, &g))
			return -errno;
		if (g.value == c->value) {
			if (i)
				ut_msg("# vivid undid the setting %d time(s): set it again", i);
			return 0;
		}
	}
	return -EAGAIN;
}

/* The smallest progressive DV timings of the capture side, set on both sides. */
static void ut_timings(int cfd, int ofd, struct v4l2_dv_timings *t)
{
	uint64_t px, best = UINT64_MAX;
	struct v4l2_enum_dv_timings e;
	unsigned int i;

	for (i = 0; i < 1000; i++) {
		memset(&e, 0, sizeof(e));
		e.index = i;
		if (ioctl(cfd, VIDIOC_ENUM_DV_TIMINGS, &e))
			break;
		px = (uint64_t)e.timings.bt.width * e.timings.bt.height;
		if (!e.timings.bt.interlaced && px < best) {
			best = px;
			*t = e.timings;
		}
	}
	if (best == UINT64_MAX)
		ASSERT_OK(ioctl(cfd, VIDIOC_G_DV_TIMINGS, t));
	ASSERT_OK(ioctl(cfd, VIDIOC_S_DV_TIMINGS, t));
	ASSERT_OK(ioctl(ofd, VIDIOC_S_DV_TIMINGS, t));
}

/* YUYV frames of the timings' size on one side; vivid may not scale them. */
static void ut_fmt(int vfd, unsigned int type, const struct v4l2_dv_timings *t,
		   struct v4l2_format *f)
{
	memset(f, 0, sizeof(*f));
	f->type = type;
	f->fmt.pix.width = t->bt.width;
	f->fmt.pix.height = t->bt.height;
	f->fmt.pix.pixelformat = V4L2_PIX_FMT_YUYV;
	f->fmt.pix.field = V4L2_FIELD_NONE;
	ASSERT_OK(ioctl(vfd, VIDIOC_S_FMT, f));
	ASSERT_EQ(f->fmt.pix.pixelformat, V4L2_PIX_FMT_YUYV);
	ASSERT_EQ(f->fmt.pix.width, t->bt.width);
	ASSERT_EQ(f->fmt.pix.height, t->bt.height);
	ASSERT_EQ(f->fmt.pix.field, V4L2_FIELD_NONE);
}

static void ut_qbuf_out(int ofd, unsigned int i, int bfd, uint64_t slot, size_t len)
{
	struct v4l2_buffer b;

	memset(&b, 0, sizeof(b));
	b.type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
	b.memory = V4L2_MEMORY_DMABUF;
	b.index = i;
	b.m.fd = bfd;
	b.length = slot;
	b.bytesused = len;
	b.field = V4L2_FIELD_NONE;
	ASSERT_OK(ioctl(ofd, VIDIOC_QBUF, &b));
}

/*
 * Which pattern a captured frame is: its index, -1 for none (vivid's own
 * picture, sent while no output frame was queued), -2 for a frame whose
 * first or last line is a pattern's and the rest is not (a torn frame).
 */
static int ut_which(const char *f, size_t len, size_t bpl, char *const *pat, int n)
{
	int k;

	for (k = 0; k < n; k++) {
		if (!memcmp(f, pat[k], len))
			return k;
		if (!memcmp(f, pat[k], bpl) || !memcmp(f + len - bpl, pat[k] + len - bpl, bpl))
			return -2;
	}
	return -1;
}

/*
 * Frames sent from exports come back through vivid's loop: every frame is
 * one of the patterns written into the buffer (or vivid's own when no
 * output frame was queued), at least three are ours, none is torn, and a
 * pattern written into an export between two of its frames comes back.
 */
TEST(vivid_dmabuf_output_from_exports_loops_back_to_capture)
{
	int ctype = V4L2_BUF_TYPE_VIDEO_CAPTURE, otype = V4L2_BUF_TYPE_VIDEO_OUTPUT;
	const char *cpath = ut_env("DMABUF_VIVID", ""), *opath = ut_env("DMABUF_VIVID_OUT", "");
	int cfd, ofd, fd, in, out, i, k, r, frames = 0, ours = 0, torn = 0, rewritten = 0;
	int count[UT_OUT_NBUF + 1] = { 0 }, bfd[UT_OUT_NBUF];
	char *pat[UT_OUT_NBUF + 1], *cap[UT_CAP_NBUF];
	size_t caplen[UT_CAP_NBUF];
	struct v4l2_format cf, of;
	struct v4l2_dv_timings t;
	struct v4l2_control lc;
	struct v4l2_buffer b;
	long pg = ut_page();
	size_t len, bpl;
	uint64_t slot;
	time_t end;

	if (!*cpath || !*opath)
		SKIP("no vivid capture and output nodes");
	cfd = open(cpath, O_RDWR | O_NONBLOCK);
	UT_CHECK(cfd >= 0, 1, "open %s: %s", cpath, strerror(errno));
	ofd = open(opath, O_RDWR | O_NONBLOCK);
	UT_CHECK(ofd >= 0, 1, "open %s: %s", opath, strerror(errno));
	in = ut_hdmi(cfd, 0);
	out = ut_hdmi(ofd, 1);
	if (in < 0 || out < 0)
		SKIP("vivid has no HDMI input and output to loop");
	ASSERT_OK(ioctl(cfd, VIDIOC_S_INPUT, &in));
	ASSERT_OK(ioctl(ofd, VIDIOC_S_OUTPUT, &out));
	r = ut_loop(cfd, &lc);
	if (r == -ENOENT)
		SKIP("this vivid has no 'Loop Video' and no HDMI 'Is Connected To' control");
	UT_CHECK(r == 0, 1, "looping vivid's output to its input: %s", strerror(-r));
	/* no text over the looped picture */
	ut_set_ctrl(cfd, "OSD Text Mode", 2);
	ut_timings(cfd, ofd, &t);
	ut_fmt(cfd, ctype, &t, &cf);
	ut_fmt(ofd, otype, &t, &of);
	ASSERT_EQ(cf.fmt.pix.bytesperline, of.fmt.pix.bytesperline);
	ASSERT_EQ(cf.fmt.pix.sizeimage, of.fmt.pix.sizeimage);
	len = of.fmt.pix.sizeimage;
	bpl = of.fmt.pix.bytesperline;
	slot = (len + pg - 1) / pg * pg;
	ut_msg("# vivid loop: HDMI output %d to input %d, %ux%u, %zu bytes a frame", out, in,
	       t.bt.width, t.bt.height, len);

	fd = ut_open(ut_dev(), O_RDWR);
	ASSERT_GE(ut_size(ut_dev()), UT_OUT_NBUF * slot);
	for (i = 0; i <= UT_OUT_NBUF; i++) {
		pat[i] = malloc(len);
		ASSERT_TRUE(pat[i] != NULL);
		ut_fill(pat[i], len, 0, UT_SEED + i);
	}
	/* the output side: exports of the buffer, each with its own pattern */
	ut_reqbufs_type(ofd, otype, V4L2_MEMORY_DMABUF, UT_OUT_NBUF);
	for (i = 0; i < UT_OUT_NBUF; i++) {
		ASSERT_EQ(ut_pwrite_all(fd, pat[i], len, i * slot), 0);
		bfd[i] = ut_export_fd(fd, i * slot, slot, NULL);
		ASSERT_GE(bfd[i], 0);
		ut_qbuf_out(ofd, i, bfd[i], slot, len);
	}
	/* the capture side: vivid's own memory */
	ut_reqbufs_type(cfd, ctype, V4L2_MEMORY_MMAP, UT_CAP_NBUF);
	for (i = 0; i < UT_CAP_NBUF; i++) {
		memset(&b, 0, sizeof(b));
		b.type = ctype;
		b.memory = V4L2_MEMORY_MMAP;
		b.index = i;
		ASSERT_OK(ioctl(cfd, VIDIOC_QUERYBUF, &b));
		ASSERT_GE(b.length, len);
		caplen[i] = b.length;
		cap[i] = mmap(NULL, b.length, PROT_READ, MAP_SHARED, cfd, b.m.offset);
		ASSERT_TRUE(cap[i] != MAP_FAILED);
		ASSERT_OK(ioctl(cfd, VIDIOC_QBUF, &b));
	}
	ASSERT_OK(ioctl(ofd, VIDIOC_STREAMON, &otype));
	ASSERT_OK(ioctl(cfd, VIDIOC_STREAMON, &ctype));
	end = time(NULL) + UT_LOOP_SECONDS;
	while (frames < UT_LOOP_FRAMES && time(NULL) < end &&
	       !(count[UT_OUT_NBUF] && ours >= 4)) {
		struct pollfd p[2] = { { .fd = cfd, .events = POLLIN },
				       { .fd = ofd, .events = POLLOUT } };

		if (poll(p, 2, 1000) <= 0)
			continue;
		memset(&b, 0, sizeof(b));
		b.type = otype;
		b.memory = V4L2_MEMORY_DMABUF;
		if ((p[1].revents & POLLOUT) && !ioctl(ofd, VIDIOC_DQBUF, &b)) {
			/* export 0 is off the queue: give it the new pattern */
			if (b.index == 0 && !rewritten && ours >= 2) {
				ASSERT_EQ(ut_pwrite_all(fd, pat[UT_OUT_NBUF], len, 0), 0);
				rewritten = 1;
			}
			ut_qbuf_out(ofd, b.index, bfd[b.index], slot, len);
		}
		memset(&b, 0, sizeof(b));
		b.type = ctype;
		b.memory = V4L2_MEMORY_MMAP;
		if ((p[0].revents & POLLIN) && !ioctl(cfd, VIDIOC_DQBUF, &b)) {
			ASSERT_LT(b.index, UT_CAP_NBUF);
			ASSERT_EQ(b.bytesused, len);
			k = ut_which(cap[b.index], len, bpl, pat, UT_OUT_NBUF + 1);
			frames++;
			if (k >= 0) {
				count[k]++;
				ours++;
			} else if (k == -2) {
				torn++;
			}
			ASSERT_OK(ioctl(cfd, VIDIOC_QBUF, &b));
		}
	}
	ut_msg("# %d frames captured: %d, %d, %d from exports 0-2, %d of the rewrite, %d torn",
	       frames, count[0], count[1], count[2], count[UT_OUT_NBUF], torn);
	ASSERT_OK(ioctl(cfd, VIDIOC_STREAMOFF, &ctype));
	ASSERT_OK(ioctl(ofd, VIDIOC_STREAMOFF, &otype));
	if (ours < 3) {
		struct v4l2_control g = { .id = lc.id };

		if (!ioctl(cfd, VIDIOC_G_CTRL, &g) && g.value != lc.value)
			ut_msg("# vivid's loop control is %d now, not %d: its loop was undone",
			       g.value, lc.value);
	}
	EXPECT_EQ(torn, 0);
	UT_CHECK(ours >= 3, 0, "%d of %d captured frames came from the exports", ours, frames);
	UT_CHECK(count[UT_OUT_NBUF] > 0, 0,
		 "the pattern written into export 0 while streaming never came back%s",
		 rewritten ? "" : " (it was never written: too few frames came back first)");
	for (i = 0; i < UT_CAP_NBUF; i++)
		munmap(cap[i], caplen[i]);
	ut_reqbufs_type(cfd, ctype, V4L2_MEMORY_MMAP, 0);
	ut_reqbufs_type(ofd, otype, V4L2_MEMORY_DMABUF, 0);
	for (i = 0; i < UT_OUT_NBUF; i++)
		close(bfd[i]);
	for (i = 0; i <= UT_OUT_NBUF; i++)
		free(pat[i]);
	close(fd);
	close(ofd);
	close(cfd);
}

TEST_HARNESS_MAIN
