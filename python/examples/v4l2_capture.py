#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""The Python V4L2 capture example of docs/dma-buf.md.

A camera driver (here vivid, the kernel's virtual video test driver)
captures straight into a u-dma-buf buffer: each V4L2 buffer is a DMA-BUF
export of one slot of the buffer (V4L2_MEMORY_DMABUF), and each frame is
read as a numpy view of the buffer, with no copy.

    python3 v4l2_capture.py VIDEO-NODE      e.g. /dev/video0 (vivid's capture node)

The V4L2 structures are packed by hand for a 64-bit (LP64) system.
"""

import fcntl
import mmap
import os
import struct
import sys

import numpy as np

import udmem

NBUF, FRAMES = 3, 6
CAPTURE, DMABUF, FIELD_NONE = 1, 4, 1   # V4L2_BUF_TYPE_VIDEO_CAPTURE, V4L2_MEMORY_*, ...
YUYV = int.from_bytes(b"YUYV", "little")


def vidioc(direction, nr, size):
    """_IOC(direction, 'V', nr, size): 1 write, 2 read, 3 both."""
    return direction << 30 | size << 16 | ord("V") << 8 | nr


S_FMT = vidioc(3, 5, 208)        # struct v4l2_format
REQBUFS = vidioc(3, 8, 20)       # struct v4l2_requestbuffers
QBUF = vidioc(3, 15, 88)         # struct v4l2_buffer
DQBUF = vidioc(3, 17, 88)
STREAMON = vidioc(1, 18, 4)      # int
STREAMOFF = vidioc(1, 19, 4)


def v4l2_buffer(index=0, fd=-1, length=0):
    """struct v4l2_buffer: index, type @4, memory @60, m.fd @64, length @72."""
    b = bytearray(88)
    struct.pack_into("=II", b, 0, index, CAPTURE)
    struct.pack_into("=I", b, 60, DMABUF)
    struct.pack_into("=iI", b, 64, fd, 0)
    struct.pack_into("=I", b, 72, length)
    return b


def main(node):
    assert struct.calcsize("l") == 8, "the structures are packed for LP64"
    vfd = os.open(node, os.O_RDWR)
    fmt = bytearray(208)                # type, then struct v4l2_pix_format at 8
    struct.pack_into("=I4x6I", fmt, 0, CAPTURE, 320, 240, YUYV, FIELD_NONE, 0, 0)
    fcntl.ioctl(vfd, S_FMT, fmt)
    width, height, _, _, _, size = struct.unpack_from("=6I", fmt, 8)
    fcntl.ioctl(vfd, REQBUFS, bytearray(struct.pack("=4I4x", NBUF, CAPTURE, DMABUF, 0)))
    slot = -(-size // mmap.PAGESIZE) * mmap.PAGESIZE  # exports are whole pages

    with udmem.allocate(NBUF * slot, dtype="u1") as mem:
        mem[:] = 0                      # limited-range YUYV has no zero byte
        mem.flush()
        exports = [mem.buffer.export_dmabuf(i * slot, slot) for i in range(NBUF)]
        for i, (fd, _) in enumerate(exports):
            fcntl.ioctl(vfd, QBUF, v4l2_buffer(i, fd, slot))
        fcntl.ioctl(vfd, STREAMON, struct.pack("=i", CAPTURE))
        for n in range(FRAMES):
            b = v4l2_buffer()
            fcntl.ioctl(vfd, DQBUF, b)
            i, used = struct.unpack_from("=I4xI", b, 0)
            # The frame is in slot i: hand it to the CPU, then look at it.
            mem.buffer.sync_for_cpu(i * slot, size, udmem.FROM_DEVICE)
            frame = mem[i * slot:i * slot + size].reshape(height, width // 2, 4)
            y = frame[:, :, 0::2]       # Y0 U Y1 V: the luma of every pixel
            assert used == size and frame.all(), f"frame {n}: bytes not written"
            print(f"frame {n}: slot {i} at DMA address {exports[i][1]:#x}, "
                  f"mean luma {np.mean(y):.1f}, first pixel Y {frame[0, 0, 0]}")
            frame[:] = 0                # then give the slot back to the camera
            mem.buffer.sync_for_device(i * slot, size, udmem.TO_DEVICE)
            fcntl.ioctl(vfd, QBUF, v4l2_buffer(i, exports[i][0], slot))
            del frame, y
        fcntl.ioctl(vfd, STREAMOFF, struct.pack("=i", CAPTURE))
        os.close(vfd)                   # V4L2 lets go of the exports
        for fd, _ in exports:
            os.close(fd)
    print(f"captured {FRAMES} frames of {width}x{height} YUYV")


if __name__ == "__main__":
    main(sys.argv[1])
