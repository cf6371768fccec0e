# SPDX-License-Identifier: GPL-2.0 OR MIT
"""UdmemArray: an ndarray whose memory is a buffer or region shared with hardware."""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from ._uapi import U_DMA_BUF_SYNC_DIR_FROM_DEVICE as FROM_DEVICE
from ._uapi import U_DMA_BUF_SYNC_DIR_TO_DEVICE as TO_DEVICE


class ArrayOwner(Protocol):
    """What a UdmemArray needs of the Buffer or Region it lives in.

    ``_device.Device`` provides it; this module depends on nothing else of
    the package but the UAPI numbers.
    """

    _va: int
    _allocated: bool

    @property
    def name(self) -> str: ...

    @property
    def closed(self) -> bool: ...

    @property
    def physical_address(self) -> int: ...

    @property
    def device_address(self) -> int: ...

    @property
    def coherent(self) -> bool: ...

    def sync_for_cpu(self, offset: int = 0, size: int | None = None,
                     direction: int = ...) -> None: ...

    def sync_for_device(self, offset: int = 0, size: int | None = None,
                        direction: int = ...) -> None: ...

    def _contains(self, arr: np.ndarray[Any, Any]) -> bool: ...

    def _track(self, arr: UdmemArray) -> None: ...

    def _free_allocated(self, arr: UdmemArray) -> None: ...


class UdmemArray(np.ndarray[Any, np.dtype[Any]]):
    """An ndarray living in a u-dma-buf buffer or a uiomem region.

    Views and slices are UdmemArrays too and know their own addresses:
    ``a[16:].physical_address == a.physical_address + 16 * a.itemsize``.
    The sync methods cover only the bytes of the array they are called on.
    Results of arithmetic are ordinary memory: their address properties raise
    ``ValueError``.
    """

    _udmem: ArrayOwner | None = None

    def __array_finalize__(self, obj: Any) -> None:
        owner = getattr(obj, "_udmem", None)
        if owner is not None and self.size and not owner._contains(self):
            owner = None
        self._udmem = owner
        if owner is not None:
            owner._track(self)

    # ---- where the array is
    def _owner(self) -> ArrayOwner:
        owner = self._udmem
        if owner is None:
            raise ValueError("this array is not in a udmem buffer (it is a copy)")
        if owner.closed:
            raise ValueError(f"{owner.name}: the buffer is closed")
        return owner

    def _byte_range(self) -> tuple[int, int]:
        """[start, end) of the bytes this array touches, from the buffer start."""
        owner = self._owner()
        start = end = self.__array_interface__["data"][0]
        for n, stride in zip(self.shape, self.strides):
            if n == 0:
                return 0, 0
            if stride < 0:
                start += (n - 1) * stride
            else:
                end += (n - 1) * stride
        return start - owner._va, end + self.itemsize - owner._va

    @property
    def offset(self) -> int:
        """Offset of the first element from the start of the buffer, in bytes."""
        return self._byte_range()[0]

    @property
    def physical_address(self) -> int:
        """Physical address of the first byte (PYNQ's name)."""
        return self._owner().physical_address + self.offset

    @property
    def device_address(self) -> int:
        """Address of the first byte as the DMA master sees it."""
        return self._owner().device_address + self.offset

    @property
    def virtual_address(self) -> int:
        """Address of the first byte in this process."""
        return int(self.__array_interface__["data"][0])

    @property
    def coherent(self) -> bool:
        """True when the CPU and the device need no cache maintenance."""
        return self._owner().coherent

    @property
    def cacheable(self) -> bool:
        """PYNQ's spelling of ``not coherent``."""
        return not self.coherent

    @property
    def buffer(self) -> ArrayOwner:
        """The Buffer or Region this array lives in."""
        return self._owner()

    # ---- syncs, range-aware
    def sync_to_device(self) -> None:
        """Hand this array's bytes to the device (after the CPU wrote them)."""
        owner = self._owner()
        start, end = self._byte_range()
        if end > start:
            owner.sync_for_device(start, end - start, TO_DEVICE)

    def sync_from_device(self) -> None:
        """Take this array's bytes back from the device (before the CPU reads them)."""
        owner = self._owner()
        start, end = self._byte_range()
        if end > start:
            owner.sync_for_cpu(start, end - start, FROM_DEVICE)

    def flush(self) -> None:
        """PYNQ's name of :meth:`sync_to_device`."""
        self.sync_to_device()

    def invalidate(self) -> None:
        """PYNQ's name of :meth:`sync_from_device`."""
        self.sync_from_device()

    # ---- lifetime
    def freebuffer(self) -> None:
        """Free the buffer that :func:`udmem.allocate` made for this array.

        The buffer is deleted right away, even while slices or other views
        of it are alive (as PYNQ programs do): every view of the buffer then
        reads zeros from private memory, never freed memory, and its address
        and sync methods raise ``ValueError``.
        """
        owner = self._udmem
        if owner is None:
            raise ValueError("this array is not in a udmem buffer (it is a copy)")
        owner._free_allocated(self)

    def __enter__(self) -> UdmemArray:
        return self

    def __exit__(self, *exc: object) -> None:
        owner = self._udmem
        if owner is not None and owner._allocated and not owner.closed:
            self.freebuffer()

    def __reduce__(self) -> Any:
        # Pickling copies the data; the copy is plain memory.
        return np.asarray(self).copy().__reduce__()
