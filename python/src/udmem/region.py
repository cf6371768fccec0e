# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Region: a uiomem device-memory region (FPGA block RAM, a carve-out)."""

from __future__ import annotations

import errno
import fcntl
import mmap
import os
import sys

from . import _device, _uapi
from ._device import BIDIRECTIONAL, FROM_DEVICE, TO_DEVICE, Device, oserror

_ACCESS = {
    BIDIRECTIONAL: _uapi.UIOMEM_SYNC_RW,
    TO_DEVICE: _uapi.UIOMEM_SYNC_WRITE,
    FROM_DEVICE: _uapi.UIOMEM_SYNC_READ,
}


class Region(Device):
    """A uiomem region (/dev/NAME, /sys/class/uiomem/NAME), mapped whole."""

    _CLASS = "uiomem"

    @classmethod
    def open(cls, name: str, *, cacheable: bool = True, readonly: bool = False) -> Region:
        """Open and map the region NAME.

        ``cacheable=False`` opens with O_SYNC: the mapping then follows the
        region's sync_mode (uncached, write-combine).
        """
        return cls(name, cacheable=cacheable, readonly=readonly)

    @staticmethod
    def list() -> list[str]:
        """Names of all uiomem regions."""
        return _device.class_list(Region._CLASS)

    def _query(self) -> None:
        try:
            q = self._ask()
        except OSError as e:
            if e.errno != errno.ENOTTY:
                raise oserror(e.errno, self._name, "query") from None
            self._size = _device.sysfs_int(self._CLASS, self._name, "size")
            self._phys = _device.sysfs_int(self._CLASS, self._name, "phys_addr")
            self._coherent = False
            self._line = 0
        else:
            self._size, self._phys = q["size"], q["phys_addr"]
            self._line = q["cache_line_size"]
            self._coherent = q["map_type"] != _uapi.UIOMEM_MAP_CACHED
        self._dma = self._phys

    def query(self) -> dict[str, int]:
        """The driver's answer to UIOMEM_IOCTL_QUERY, as a dict (struct uiomem_query)."""
        self._check_open()
        return self._ask()

    def _ask(self) -> dict[str, int]:
        raw = fcntl.ioctl(self._fd, _uapi.UIOMEM_IOCTL_QUERY, _uapi.uiomem_query.make())
        return _uapi.uiomem_query.parse(raw)

    @property
    def cache_line_size(self) -> int:
        """Granule of the CPU's cache maintenance (0: none)."""
        return self._line

    @property
    def sync_mode(self) -> int:
        """The region's sync_mode (0..7), by the uiomem 1.1 ioctl GET_SYNC."""
        self._check_open()
        try:
            raw = fcntl.ioctl(self._fd, _uapi.UIOMEM_IOCTL_GET_SYNC,
                              _uapi.uiomem_ioctl_sync_args.make())
        except OSError as e:
            raise oserror(e.errno, self._name, "get sync") from None
        flags: int = _uapi.uiomem_ioctl_sync_args.parse(raw)["flags"]
        return flags >> _uapi.UIOMEM_SYNC_ARGS_FLAGS_SYNC_MODE_SHIFT & \
            _uapi.UIOMEM_SYNC_ARGS_FLAGS_SYNC_MODE_MASK

    @property
    def sync_owner(self) -> str:
        """"cpu" or "device", by the uiomem 1.1 ioctl GET_SYNC_OWNER."""
        self._check_open()
        try:
            raw = fcntl.ioctl(self._fd, _uapi.UIOMEM_IOCTL_GET_SYNC_OWNER, bytes(4))
        except OSError as e:
            raise oserror(e.errno, self._name, "get sync owner") from None
        return "device" if int.from_bytes(raw, sys.byteorder) else "cpu"

    def _sync(self, when: int, offset: int, size: int | None, direction: int, what: str) -> None:
        self._check_open()
        offset, size = self._range(offset, size)
        if direction not in _ACCESS:
            raise ValueError(f"{self._name}: direction must be 0, 1 or 2")
        args = _uapi.uiomem_sync.make(flags=when | _ACCESS[direction], offset=offset,
                                      length=size)
        try:
            fcntl.ioctl(self._fd, _uapi.UIOMEM_IOCTL_SYNC, args)
        except OSError as e:
            raise oserror(e.errno, self._name, what) from None

    def sync_for_cpu(self, offset: int = 0, size: int | None = None,
                     direction: int = BIDIRECTIONAL) -> None:
        """Make bytes [offset, offset+size) written by a device visible to the CPU."""
        self._sync(_uapi.UIOMEM_SYNC_START, offset, size, direction, "sync for cpu")

    def sync_for_device(self, offset: int = 0, size: int | None = None,
                        direction: int = BIDIRECTIONAL) -> None:
        """Make bytes [offset, offset+size) written by the CPU visible to a device."""
        self._sync(_uapi.UIOMEM_SYNC_END, offset, size, direction, "sync for device")

    def export_dmabuf(self, offset: int = 0, size: int | None = None,
                      flags: int = os.O_RDWR | os.O_CLOEXEC) -> int:
        """Export a page-aligned range as a DMA-BUF for another driver's device.

        Importers get DMA addresses only (device memory has no pages); the
        DMA-BUF has no mmap.  The caller closes the returned fd.
        """
        self._check_open()
        if size is None:
            size = (self._size - offset) & ~(mmap.PAGESIZE - 1)
        args = _uapi.uiomem_export.make(flags=flags, offset=offset, size=size, fd=-1)
        try:
            raw = fcntl.ioctl(self._fd, _uapi.UIOMEM_IOCTL_EXPORT, args)
        except OSError as e:
            raise oserror(e.errno, self._name, "export") from None
        fd: int = _uapi.uiomem_export.parse(raw)["fd"]
        return fd
