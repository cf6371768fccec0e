#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""The complete example of docs/python.md.

Write a pattern into a buffer, hand it to a device, take it back, verify.
The device is QEMU's edu PCI device, driven from user space through its
BAR: its DMA engine copies the first half of the buffer into its own
memory, then from there into the second half.

    python3 edu_roundtrip.py [PCI-DEVICE]      (default: the first edu device)
"""

import glob
import mmap
import os
import sys
import time

import numpy as np

import udmem

SRC, DST, COUNT, CMD = 0x80 // 4, 0x88 // 4, 0x90 // 4, 0x98 // 4  # u32 registers
START, TO_RAM = 1, 2
EDU_MEM = 0x40000  # the device's own memory, as it addresses it
LEN = 2048  # QEMU 7.2's edu refuses a transfer of all 4 KiB


def edu_registers(pci):
    """Map the edu BAR as u32 registers and let the device master the bus."""
    with open(f"/sys/bus/pci/devices/{pci}/config", "r+b") as f:
        f.seek(4)
        command = int.from_bytes(f.read(2), "little") | 0x6  # memory + bus master
        f.seek(4)
        f.write(command.to_bytes(2, "little"))
    fd = os.open(f"/sys/bus/pci/devices/{pci}/resource0", os.O_RDWR | os.O_SYNC)
    bar = mmap.mmap(fd, 1 << 20)
    os.close(fd)
    return np.frombuffer(bar, dtype="<u4")


def edu_dma(regs, src, dst, cmd):
    regs[SRC], regs[DST], regs[COUNT] = src, dst, LEN
    regs[CMD] = cmd | START
    deadline = time.monotonic() + 5
    while regs[CMD] & START:  # the transfer runs 100 ms (virtual time) later
        if time.monotonic() > deadline:
            raise TimeoutError("edu DMA did not finish")
        time.sleep(0.01)


def main():
    pci = sys.argv[1] if len(sys.argv) > 1 else next(
        os.path.basename(os.path.dirname(p))
        for p in sorted(glob.glob("/sys/bus/pci/devices/*/device"))
        if open(p).read().strip() == "0x11e8")
    regs = edu_registers(pci)
    with udmem.allocate(2 * LEN, dtype="u1") as buf:    # a new u-dma-buf buffer
        src, dst = buf[:LEN], buf[LEN:]                  # views know their addresses
        src[:] = np.arange(LEN) * 7 + 1                  # 1. write a pattern
        dst[:] = 0
        buf.flush()                                      # 2. hand it to the device
        edu_dma(regs, src.device_address, EDU_MEM, 0)    # 3. device: src -> its memory
        edu_dma(regs, EDU_MEM, dst.device_address, TO_RAM)  # ... -> dst
        dst.invalidate()                                 # 4. take dst back (only dst)
        assert np.array_equal(dst, src), "the device's copy differs"  # 5. verify
        print(f"{buf.buffer.name}: the device copied {LEN} bytes from "
              f"{src.device_address:#x} to {dst.device_address:#x}: verified")
        del src, dst                                     # views die before the buffer


if __name__ == "__main__":
    main()
