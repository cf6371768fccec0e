#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""The Python import example of docs/dma-buf.md.

Take a DMA-BUF from another driver (here vgem, a DRM driver standing in for
a camera or a GPU), get its DMA address for a u-dma-buf buffer's device with
udmem.import_dmabuf(), let a device write into it (QEMU's edu device, driven
through its BAR as in edu_roundtrip.py; on a board, the FPGA's DMA engine),
and read what arrived through the DMA-BUF's own mapping as a numpy array.

    python3 dmabuf_import.py [VGEM-CARD [PCI-DEVICE]]
                  (default: vgem's /dev/dri/cardN and the first edu device)
"""

import fcntl
import glob
import mmap
import os
import struct
import sys

import numpy as np
from edu_roundtrip import EDU_MEM, LEN, TO_RAM, edu_dma, edu_registers

import udmem

PAGE = mmap.PAGESIZE


def drm_iowr(nr, size):
    """_IOWR('d', nr, size) of <drm/drm.h>."""
    return (3 << 30) | (size << 16) | (ord("d") << 8) | nr


CREATE_DUMB = drm_iowr(0xB2, 32)     # struct drm_mode_create_dumb
HANDLE_TO_FD = drm_iowr(0x2D, 12)    # struct drm_prime_handle


def vgem_card():
    for card in sorted(glob.glob("/sys/class/drm/card*")):
        # vgem's platform device is named vgem (it has no driver link)
        if os.path.basename(os.path.realpath(card + "/device")) == "vgem":
            return "/dev/dri/" + os.path.basename(card)
    raise SystemExit("no vgem card (modprobe vgem)")


def vgem_dmabuf(card):
    """A one-page vgem buffer as a DMA-BUF descriptor."""
    fd = os.open(card, os.O_RDWR | os.O_CLOEXEC)
    try:
        # height, width, bpp, flags -> handle, pitch, size
        dumb = bytearray(struct.pack("=6IQ", 1, PAGE // 4, 32, 0, 0, 0, 0))
        fcntl.ioctl(fd, CREATE_DUMB, dumb)
        handle = struct.unpack_from("=I", dumb, 16)[0]
        prime = bytearray(struct.pack("=IIi", handle, os.O_RDWR | os.O_CLOEXEC, -1))
        fcntl.ioctl(fd, HANDLE_TO_FD, prime)
        return struct.unpack_from("=i", prime, 8)[0]
    finally:
        os.close(fd)   # the DMA-BUF keeps the object


def main():
    card = sys.argv[1] if len(sys.argv) > 1 else vgem_card()
    pci = sys.argv[2] if len(sys.argv) > 2 else next(
        os.path.basename(os.path.dirname(p))
        for p in sorted(glob.glob("/sys/bus/pci/devices/*/device"))
        if open(p).read().strip() == "0x11e8")
    regs = edu_registers(pci)
    frame_fd = vgem_dmabuf(card)
    with udmem.allocate(LEN, dtype="u1") as src:           # what the device sends
        src[:] = np.arange(LEN) * 5 + 2
        src.flush()
        # The DMA-BUF's address for the device of the buffer src lives in
        with udmem.import_dmabuf(src.buffer, frame_fd, udmem.FROM_DEVICE) as imp:
            print(f"DMA-BUF of {imp.size} bytes at DMA address {imp.dma_addr:#x}")
            edu_dma(regs, src.device_address, EDU_MEM, 0)    # device: src -> its memory
            edu_dma(regs, EDU_MEM, imp.dma_addr, TO_RAM)    # ... -> the DMA-BUF
            imp.sync_for_cpu(udmem.FROM_DEVICE)             # then the CPU may look
            with mmap.mmap(frame_fd, imp.size, prot=mmap.PROT_READ) as m:
                frame = np.frombuffer(m, dtype="u1")
                assert np.array_equal(frame[:LEN], src), "the device's bytes differ"
                assert not frame[LEN:].any(), "bytes past the transfer changed"
                del frame                                   # before the mapping goes
        print(f"verified {LEN} bytes written by the device into the DMA-BUF")
    os.close(frame_fd)


if __name__ == "__main__":
    main()
