# SPDX-License-Identifier: GPL-2.0 OR MIT
"""ioctl numbers and structure layouts of <linux/u-dma-buf-ioctl.h> and <linux/uiomem.h>.

The _IOC encoding below is the generic one (x86, arm, arm64, riscv, loongarch);
mips, powerpc, sparc and alpha use another and are not supported.
"""

from __future__ import annotations

import struct

_IOC_NONE = 0
_IOC_WRITE = 1
_IOC_READ = 2


def _ioc(direction: int, kind: str, nr: int, size: int) -> int:
    return (direction << 30) | (size << 16) | (ord(kind) << 8) | nr


def _ior(kind: str, nr: int, size: int) -> int:
    return _ioc(_IOC_READ, kind, nr, size)


def _iow(kind: str, nr: int, size: int) -> int:
    return _ioc(_IOC_WRITE, kind, nr, size)


def _iowr(kind: str, nr: int, size: int) -> int:
    return _ioc(_IOC_READ | _IOC_WRITE, kind, nr, size)


# u-dma-buf (ioctl version 2), native byte order, no implicit padding.
UDB_DEV_INFO = struct.Struct("=QQQ")  # flags, size, addr
UDB_SYNC_ARGS = struct.Struct("=QQQ")  # flags, size, offset
UDB_EXPORT_ARGS = struct.Struct("=QQQQiI")  # flags, size, offset, addr, fd, reserved
UDB_U32 = struct.Struct("=I")

UDB_GET_SYNC_OWNER = _ior("U", 4, 4)
UDB_GET_DEV_INFO = _ior("U", 7, UDB_DEV_INFO.size)
UDB_GET_SYNC = _ior("U", 8, UDB_SYNC_ARGS.size)
UDB_SET_SYNC = _iow("U", 9, UDB_SYNC_ARGS.size)
UDB_EXPORT = _iowr("U", 10, UDB_EXPORT_ARGS.size)

UDB_SYNC_CMD_FOR_CPU = 1
UDB_SYNC_CMD_FOR_DEVICE = 3
UDB_SYNC_DIR_SHIFT = 2
UDB_SYNC_MODE_SHIFT = 8
UDB_DMA_MASK_MASK = 0xFF
UDB_DMA_COHERENT_SHIFT = 9
UDB_MMAP_MODE_SHIFT = 10

# uiomem (ABI version 1)
UIOMEM_QUERY = struct.Struct("=QQIIIIIIQQQ4Q")
UIOMEM_SYNC = struct.Struct("=IIQQ2Q")  # flags, pad, offset, length, reserved[2]
UIOMEM_IOCTL_QUERY = _ior("u", 0xC0, UIOMEM_QUERY.size)
UIOMEM_IOCTL_SYNC = _iow("u", 0xC1, UIOMEM_SYNC.size)

UIOMEM_MAP_CACHED = 0
UIOMEM_SYNC_READ = 1 << 0
UIOMEM_SYNC_WRITE = 1 << 1
UIOMEM_SYNC_RW = UIOMEM_SYNC_READ | UIOMEM_SYNC_WRITE
UIOMEM_SYNC_START = 0 << 2
UIOMEM_SYNC_END = 1 << 2
