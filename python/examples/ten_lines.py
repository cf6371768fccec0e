# SPDX-License-Identifier: GPL-2.0 OR MIT
import numpy as np

import udmem

with udmem.allocate((1024,), dtype="u4") as buf:   # a new u-dma-buf buffer
    buf[:] = np.arange(1024, dtype="u4")           # the CPU writes
    buf.flush()                                    # hand it to the device
    print(hex(buf.device_address))                 # program the DMA engine with this
    buf[512:].invalidate()                         # take back only the half the device wrote
    print(buf[512:].device_address - buf.device_address)   # 2048: slices know their address
# the buffer is deleted here (no view may still be alive)
