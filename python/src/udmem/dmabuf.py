# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Import of a foreign DMA-BUF into a u-dma-buf buffer's device.

:func:`import_dmabuf` hands a DMA-BUF file descriptor (from V4L2, DRM, a
DMA heap or an export) to a :class:`~udmem.Buffer`: the driver attaches it to
the buffer's DMA device, maps it and reports its DMA address, which a device
driven by that buffer's owner (an FPGA's DMA engine) can then use.  The
mapping lasts until the returned :class:`DmabufImport` is closed.
"""

from __future__ import annotations

import fcntl

from . import _uapi
from ._device import BIDIRECTIONAL, FROM_DEVICE, TO_DEVICE, FdOwner, oserror
from .buffer import Buffer

# <linux/dma-buf.h> struct dma_buf_sync flags
_SYNC_READ = 1
_SYNC_WRITE = 2
_SYNC_START = 0
_SYNC_END = 4
_SYNC_FOR = {BIDIRECTIONAL: _SYNC_READ | _SYNC_WRITE, TO_DEVICE: _SYNC_WRITE,
             FROM_DEVICE: _SYNC_READ}


class DmabufImport(FdOwner):
    """A DMA-BUF attached to a buffer's device: ``dma_addr`` and ``size``.

    Close it (or use it as a context manager) to detach.  The DMA-BUF's own
    descriptor may be closed at any time: the import holds the DMA-BUF.
    """

    def __init__(self, name: str, fd: int, dma_addr: int, size: int) -> None:
        self._name = name
        self._fd = fd
        self.dma_addr = dma_addr
        self.size = size

    @property
    def fileno(self) -> int:
        """The import's descriptor (owned by this object)."""
        if self._fd < 0:
            raise ValueError(f"{self._name}: import closed")
        return self._fd

    def _sync(self, when: int, direction: int, what: str) -> None:
        if direction not in _SYNC_FOR:
            raise ValueError(f"bad direction {direction}")
        args = _uapi.u_dma_buf_ioctl_import_sync.make(flags=when | _SYNC_FOR[direction])
        try:
            fcntl.ioctl(self.fileno, _uapi.U_DMA_BUF_IOCTL_IMPORT_SYNC, args)
        except OSError as e:
            raise oserror(e.errno, self._name, what) from None

    def sync_for_cpu(self, direction: int = BIDIRECTIONAL) -> None:
        """Begin CPU access (the exporter's begin_cpu_access)."""
        self._sync(_SYNC_START, direction, "import sync for cpu")

    def sync_for_device(self, direction: int = BIDIRECTIONAL) -> None:
        """End CPU access before the device's DMA (the exporter's end_cpu_access)."""
        self._sync(_SYNC_END, direction, "import sync for device")

    def __repr__(self) -> str:
        return (f"DmabufImport({self._name!r}, dma_addr={self.dma_addr:#x}, "
                f"size={self.size})")


def import_dmabuf(buffer: Buffer, fd: int, direction: int = BIDIRECTIONAL) -> DmabufImport:
    """Attach DMA-BUF ``fd`` to ``buffer``'s device and map it.

    Raises ``OSError`` with ``EOPNOTSUPP`` when the DMA-BUF is not one DMA
    range for that device, ``EINVAL`` when ``fd`` is not a DMA-BUF.
    """
    if direction not in _SYNC_FOR:
        raise ValueError(f"bad direction {direction}")
    args = _uapi.u_dma_buf_ioctl_import_args.make(fd=fd, flags=direction, import_fd=-1)
    try:
        raw = fcntl.ioctl(buffer.fileno, _uapi.U_DMA_BUF_IOCTL_IMPORT, args)
    except OSError as e:
        raise oserror(e.errno, buffer.name, "import") from None
    out = _uapi.u_dma_buf_ioctl_import_args.parse(raw)
    return DmabufImport(buffer.name, out["import_fd"], out["addr"], out["size"])
