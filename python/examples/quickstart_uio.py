# SPDX-License-Identifier: GPL-2.0 OR MIT
"""The round of docs/quickstart.md in Python, the UIO way: fill a buffer, sync
for the device, start the engine, wait for its interrupt, sync for the CPU,
read.  The engine is QEMU's "edu" PCI device under uio_pci_generic (only its
register offsets are edu's); for FPGA IP under uio_pdrv_genirq, give no PCI
device: the registers are then /dev/uioN's first map and writing 1 unmasks.

    python3 quickstart_uio.py SRC DST /dev/uioN [PCI-DEVICE]
"""

import mmap
import os
import select
import sys

import numpy as np

import udmem

EDU_IRQ_STATUS, EDU_IRQ_ACK = 0x24, 0x64  # edu's registers
EDU_DMA_SRC, EDU_DMA_DST, EDU_DMA_COUNT, EDU_DMA_CMD = 0x80, 0x88, 0x90, 0x98
EDU_START, EDU_TO_RAM, EDU_IRQ = 0x1, 0x2, 0x4
EDU_MEM = 0x40000  # edu's own memory, as it addresses it


class UioEngine:
    """Registers mapped as 32-bit words; the interrupt through /dev/uioN."""

    def __init__(self, uio, pci=None):
        self.uio = os.open(uio, os.O_RDWR)
        self.config = None
        if pci is None:  # uio_pdrv_genirq: map 0 is the node's "reg"
            self.mm = mmap.mmap(self.uio, 0x10000)
        else:  # uio_pci_generic: BAR 0, and bus mastering on
            self.config = os.open(f"/sys/bus/pci/devices/{pci}/config", os.O_RDWR)
            self._command(set_bits=0x6)
            fd = os.open(f"/sys/bus/pci/devices/{pci}/resource0", os.O_RDWR | os.O_SYNC)
            self.mm = mmap.mmap(fd, 0x10000)
            os.close(fd)
        self.regs = np.frombuffer(self.mm, dtype=np.uint32)  # one 32-bit access each

    def _command(self, set_bits=0, clear_bits=0):
        cmd = int.from_bytes(os.pread(self.config, 2, 4), "little")
        os.pwrite(self.config, ((cmd | set_bits) & ~clear_bits).to_bytes(2, "little"), 4)

    def _unmask(self):
        if self.config is None:
            os.write(self.uio, (1).to_bytes(4, "little"))  # uio_pdrv_genirq: write 1
        else:
            self._command(clear_bits=0x400)  # uio_pci_generic: INTx Disable off

    def _transfer(self, src, dst, length, cmd):
        self._unmask()
        self.regs[EDU_DMA_SRC // 4] = src & 0xFFFFFFFF  # edu takes 32-bit addresses
        self.regs[EDU_DMA_DST // 4] = dst & 0xFFFFFFFF
        self.regs[EDU_DMA_COUNT // 4] = length
        self.regs[EDU_DMA_CMD // 4] = cmd | EDU_IRQ | EDU_START
        poll = select.poll()
        poll.register(self.uio, select.POLLIN)
        while not poll.poll(10000):  # only to notice a device done without interrupting
            if not self.regs[EDU_DMA_CMD // 4] & EDU_START:
                raise TimeoutError("the engine finished without an interrupt")
        os.read(self.uio, 4)  # the interrupt's count; it is masked again now
        self.regs[EDU_IRQ_ACK // 4] = self.regs[EDU_IRQ_STATUS // 4]

    def copy(self, src, dst, length):
        """Start the engine and wait: edu copies through its own memory."""
        self._transfer(src, EDU_MEM, length, 0)
        self._transfer(EDU_MEM, dst, length, EDU_TO_RAM)

    def close(self):
        del self.regs
        self.mm.close()
        for fd in (self.uio, self.config):
            if fd is not None:
                os.close(fd)


def round_trip(src, dst, engine, length=2048):
    data = (np.arange(length) * 13 + 5).astype(np.uint8)
    a = src.asarray(np.uint8, length)
    b = dst.asarray(np.uint8, length)
    a[:] = data  # 1. the CPU writes
    src.sync_for_device(0, length, udmem.TO_DEVICE)  # 2. hand both ranges to the device
    dst.sync_for_device(0, length, udmem.FROM_DEVICE)
    engine.copy(src.device_address, dst.device_address, length)  # 3. start, wait
    dst.sync_for_cpu(0, length, udmem.FROM_DEVICE)  # 4. take the destination back
    same = np.array_equal(b, data)  # 5. read
    del a, b
    return same


def main(argv):
    src_name, dst_name, uio = argv[1:4]
    engine = UioEngine(uio, argv[4] if len(argv) > 4 else None)
    try:
        with udmem.Buffer.open(src_name) as src, udmem.Buffer.open(dst_name) as dst:
            print(f"{src_name} at {src.device_address:#x} -> {dst_name} at "
                  f"{dst.device_address:#x} (DMA addresses)")
            if not round_trip(src, dst, engine):
                print("the copy differs")
                return 1
    finally:
        engine.close()
    print("the device copied 2048 bytes: verified")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
