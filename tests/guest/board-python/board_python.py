# SPDX-License-Identifier: GPL-2.0 OR MIT
"""One transfer by the board's DMA engine, driven from Python as a user
would: the udmem package maps the buffers (and the on-chip memory region),
numpy writes and compares, the package's flush()/invalidate() hand the
ranges over, and the engine copies between the addresses the package
reports (tests/kmod/udmem-dmaengine-test.ko, one ioctl).

  python3 board_python.py SRC-BUFFER DST-BUFFER [REGION]

Prints "RESULT <name> ok" or "RESULT <name> fail <why>" a check; the suite
turns them into TAP lines (a missing one fails there)."""

import fcntl
import struct
import sys

import numpy as np
import udmem

PEER = "/dev/udmem-dmaengine-test"
# struct udmem_dmaengine_copy { __u64 src, dst, len, flags; }, _IOW('d', 0xe0, ...)
COPY = struct.Struct("=QQQQ")
IOC_COPY = (1 << 30) | (COPY.size << 16) | (ord("d") << 8) | 0xE0
LENGTH = 64 * 1024


def result(name, why=None):
    print(f"RESULT {name} " + ("ok" if why is None else f"fail {why}"), flush=True)


def engine_copy(src_addr, dst_addr, length):
    with open(PEER, "wb", buffering=0) as peer:
        fcntl.ioctl(peer, IOC_COPY, COPY.pack(src_addr, dst_addr, length, 0))


def transfer(name, src, dst, seed):
    """SRC's first LENGTH bytes, written by numpy, to DST by the engine."""
    rng = np.random.default_rng(seed)
    pattern = rng.integers(0, 256, LENGTH, dtype=np.uint8)
    a = src.asarray(np.uint8, LENGTH)
    b = dst.asarray(np.uint8, LENGTH)
    a[:] = pattern
    b[:] = 0
    a.flush()
    b.flush()
    try:
        engine_copy(a.device_address, b.device_address, LENGTH)
    except OSError as e:
        result(name, f"the engine's copy failed: {e}")
        return
    b.invalidate()
    bad = np.flatnonzero(b != pattern)
    if bad.size:
        result(name, f"{bad.size} bytes differ, the first at {bad[0]}")
    else:
        result(name)


def main():
    src_name, dst_name = sys.argv[1], sys.argv[2]
    print(f"# numpy {np.__version__}, udmem {udmem.__version__}", flush=True)
    with udmem.Buffer.open(src_name) as src, udmem.Buffer.open(dst_name) as dst:
        transfer("buffer-to-buffer", src, dst, 1)
        transfer("buffer-to-buffer-reverse", dst, src, 2)
        if len(sys.argv) > 3:
            with udmem.Region.open(sys.argv[3]) as region:
                transfer("buffer-to-region", src, region, 3)
                transfer("region-to-buffer", region, dst, 4)


if __name__ == "__main__":
    main()
