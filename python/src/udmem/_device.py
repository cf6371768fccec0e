# SPDX-License-Identifier: GPL-2.0 OR MIT
"""What buffers and regions share: opening by name, mapping, views, closing."""

from __future__ import annotations

import errno
import mmap
import os
import re
import stat
import weakref
from typing import Any, TypeVar

import numpy as np

from . import _syncchk, _uapi
from .array import UdmemArray

# Where devices are found; tests point these at a fake tree.
SYSFS_CLASS = "/sys/class"
DEV = "/dev"

# Directions, as the DMA API (and u-dma-buf's SYNC_DIR field) numbers them.
BIDIRECTIONAL = _uapi.U_DMA_BUF_SYNC_DIR_BIDIRECTIONAL
TO_DEVICE = _uapi.U_DMA_BUF_SYNC_DIR_TO_DEVICE
FROM_DEVICE = _uapi.U_DMA_BUF_SYNC_DIR_FROM_DEVICE

# 1..63 printable ASCII characters other than '/', ';' and space (as libudmem).
#: The sync checker's modes (docs/sync-checker.md).
SYNC_CHECK_MODES = ("off", "report", "strict")

_NAME = re.compile(r"[!-.0-:<-~]{1,63}")


def check_name(name: str) -> None:
    """Raise ValueError unless name is a plain device name (no path)."""
    if not isinstance(name, str) or not _NAME.fullmatch(name) or name in (".", ".."):
        raise ValueError(f"bad device name {name!r}")


def oserror(err: int | None, name: str, what: str) -> OSError:
    """An OSError saying which device and which operation failed."""
    err = err or errno.EIO
    return OSError(err, f"{name}: {what}: {os.strerror(err)}")


def sysfs_read(cls: str, name: str, attr: str) -> str:
    with open(os.path.join(SYSFS_CLASS, cls, name, attr)) as f:
        return f.read().strip()


def sysfs_int(cls: str, name: str, attr: str) -> int:
    return int(sysfs_read(cls, name, attr), 0)


def class_list(cls: str) -> list[str]:
    try:
        return sorted(n for n in os.listdir(os.path.join(SYSFS_CLASS, cls)) if n[0] != ".")
    except FileNotFoundError:
        return []


def open_device(cls: str, name: str, *, sync: bool, readonly: bool) -> int:
    """Open /dev/NAME after checking it is the device /sys/class/CLS/NAME describes."""
    check_name(name)
    path = os.path.join(DEV, name)
    if not os.path.isdir(os.path.join(SYSFS_CLASS, cls, name)):
        err = errno.ENODEV if os.path.exists(path) else errno.ENOENT
        kind = "a u-dma-buf buffer" if cls == "u-dma-buf" else "a uiomem region"
        raise OSError(err, f"{name}: not {kind}: {os.strerror(err)}", path)
    major, minor = (int(x) for x in sysfs_read(cls, name, "dev").split(":"))
    flags = (os.O_RDONLY if readonly else os.O_RDWR) | os.O_CLOEXEC
    if sync:
        flags |= os.O_SYNC
    fd = os.open(path, flags)
    st = os.fstat(fd)
    if not stat.S_ISCHR(st.st_mode) or st.st_rdev != os.makedev(major, minor):
        os.close(fd)
        raise OSError(errno.ENODEV, f"{name}: {path} is not the device sysfs describes", path)
    return fd


def _map(fd: int, size: int, prot: int) -> tuple[mmap.mmap, int | None]:
    """mmap fd; also return the descriptor the mmap object keeps, if any.

    Before Python 3.13 (trackfd) an mmap object holds a dup() of the file,
    which keeps the device open for as long as the object lives.  The dup
    takes the lowest free number: find it, and check it is our file.
    """
    try:
        return mmap.mmap(fd, size, mmap.MAP_SHARED, prot,  # type: ignore[call-arg]
                         trackfd=False), None
    except TypeError:
        pass
    probe = os.dup(fd)
    os.close(probe)
    mm = mmap.mmap(fd, size, mmap.MAP_SHARED, prot)
    mine = os.fstat(fd)
    try:
        st = os.fstat(probe)
    except OSError:
        return mm, None
    if probe != fd and (st.st_dev, st.st_ino, st.st_rdev) == (mine.st_dev, mine.st_ino,
                                                              mine.st_rdev):
        return mm, probe
    return mm, None


_FdT = TypeVar("_FdT", bound="FdOwner")


class FdOwner:
    """One descriptor, ``self._fd`` (-1 once closed); ``close()`` and ``with``.

    Subclasses set ``_fd`` in ``__init__`` and ``_CLOSE_ON_DEL`` if a
    forgotten object may close it when collected (a close has no effect
    beyond the object: nothing another object still needs goes with it).
    """

    _fd: int = -1
    _CLOSE_ON_DEL = False

    def close(self) -> None:
        """Close the descriptor (idempotent)."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self: _FdT) -> _FdT:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        if self._CLOSE_ON_DEL and self._fd >= 0:
            self.close()


def _cleanup(name: str, state: dict[str, Any]) -> None:
    if state["watch"] is not None:
        _syncchk.unmapped(*state["watch"])
        state["watch"] = None
    if state["fd"] is not None:
        os.close(state["fd"])
        state["fd"] = None
    if state["delete"] is not None:
        try:
            state["delete"](name)
        except OSError:
            pass


class Device:
    """A mapped buffer or region; subclasses say how to query and sync it."""

    _CLASS = ""
    # Set by _query() in the subclasses.
    _size: int
    _phys: int
    _dma: int
    _coherent: bool

    def __init__(self, name: str, *, cacheable: bool = True, readonly: bool = False) -> None:
        self._closed = True
        self._allocated = False
        self._name = name
        self._fd = open_device(self._CLASS, name, sync=not cacheable, readonly=readonly)
        try:
            self._query()
            if self._size <= 0:
                raise oserror(errno.EINVAL, name, "size is 0")
            prot = mmap.PROT_READ | (0 if readonly else mmap.PROT_WRITE)
            self._mm, self._mm_fd = _map(self._fd, self._size, prot)
        except BaseException:
            os.close(self._fd)
            raise
        self._readonly = readonly
        # Closes the descriptor (and deletes an allocated buffer) once the
        # mapping is gone, whether by close() or when the last view dies.
        self._cleanup_state: dict[str, Any] = {"fd": self._fd, "delete": None, "watch": None}
        self._finalizer = weakref.finalize(self._mm, _cleanup, name, self._cleanup_state)
        self._root: np.ndarray[Any, Any] | None = np.frombuffer(self._mm, dtype=np.uint8)
        self._va: int = self._root.__array_interface__["data"][0]
        # The sync checker's SIGBUS handler names this mapping (udmem._syncchk).
        self._cleanup_state["watch"] = (self._va, _syncchk.mapped(name, self._va, self._size))
        # id -> weak reference of every UdmemArray over this mapping (ndarrays
        # are unhashable, so no WeakSet).
        self._views: dict[int, weakref.ref[UdmemArray]] = {}
        self._closed = False

    # ---- subclass hooks
    def _query(self) -> None:
        raise NotImplementedError

    def sync_for_cpu(self, offset: int = 0, size: int | None = None,
                     direction: int = BIDIRECTIONAL) -> None:
        raise NotImplementedError

    def sync_for_device(self, offset: int = 0, size: int | None = None,
                        direction: int = BIDIRECTIONAL) -> None:
        raise NotImplementedError

    # ---- facts
    @property
    def name(self) -> str:
        """The device name (/dev/NAME)."""
        return self._name

    @property
    def size(self) -> int:
        """Size in bytes."""
        return self._size

    @property
    def physical_address(self) -> int:
        """Physical address, as the driver reports it in sysfs phys_addr."""
        return self._phys

    @property
    def device_address(self) -> int:
        """Address to program into a DMA master."""
        return self._dma

    @property
    def coherent(self) -> bool:
        """True when no cache maintenance is needed."""
        return self._coherent

    # ---- the sync checker (docs/sync-checker.md), a Buffer's or a Region's
    @property
    def sync_check(self) -> str:
        """The sync checker: "off", "report" or "strict" (docs/sync-checker.md).

        Setting it needs write access to the sysfs attribute.  Switch a
        Buffer's on before mapping it: its mapping is only checked if it was
        made while the checker was on (a Region's mappings always are).
        OSError EOPNOTSUPP where the driver cannot check a buffer's mappings.
        """
        return sysfs_read(self._CLASS, self._name, "sync_check")

    @sync_check.setter
    def sync_check(self, mode: str) -> None:
        if mode not in SYNC_CHECK_MODES:
            raise ValueError(f"{self._name}: sync_check must be one of {list(SYNC_CHECK_MODES)}")
        path = os.path.join(SYSFS_CLASS, self._CLASS, self._name, "sync_check")
        try:
            with open(path, "w") as f:
                f.write(mode)
        except OSError as e:
            raise oserror(e.errno, self._name, "sync_check") from None

    @property
    def ownership_violations(self) -> int:
        """CPU accesses to memory the device owned, as the sync checker counted them."""
        return sysfs_int(self._CLASS, self._name, "ownership_violations")

    @property
    def redundant_syncs(self) -> int:
        """Syncs for the CPU of memory the CPU owned already (the sync checker's count)."""
        return sysfs_int(self._CLASS, self._name, "redundant_syncs")

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def fileno(self) -> int:
        """The descriptor of /dev/NAME (owned by this object)."""
        self._check_open()
        return self._fd

    def _check_open(self) -> None:
        if self._closed:
            raise ValueError(f"{self._name}: closed")

    def _range(self, offset: int, size: int | None) -> tuple[int, int]:
        if size is None:
            size = self._size - offset
        if offset < 0 or size <= 0 or offset + size > self._size:
            raise ValueError(f"{self._name}: range {offset}+{size} is outside "
                             f"the {self._size} bytes of the device")
        return offset, size

    # ---- views
    def _contains(self, arr: np.ndarray[Any, Any]) -> bool:
        ptr: int = arr.__array_interface__["data"][0]
        return self._va <= ptr < self._va + self._size

    def _track(self, arr: UdmemArray) -> None:
        views = self._views
        key = id(arr)
        views[key] = weakref.ref(arr, lambda _ref: views.pop(key, None))

    def _live_views(self) -> list[UdmemArray]:
        return [v for v in (r() for r in list(self._views.values())) if v is not None]

    def asarray(self, dtype: Any = np.uint8, shape: int | tuple[int, ...] | None = None,
                offset: int = 0) -> UdmemArray:
        """A numpy view (never a copy) of the memory from byte ``offset``.

        Without ``shape`` the view runs to the end of the device.
        """
        self._check_open()
        assert self._root is not None
        dt = np.dtype(dtype)
        if offset < 0 or offset > self._size:
            raise ValueError(f"{self._name}: offset {offset} is outside the device")
        if dt.itemsize == 0 or offset % dt.alignment:
            raise ValueError(f"{self._name}: offset {offset} is not aligned for {dt}")
        if shape is None:
            shape = ((self._size - offset) // dt.itemsize,)
        elif isinstance(shape, int):
            shape = (shape,)
        nbytes = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
        if any(n < 0 for n in shape) or offset + nbytes > self._size:
            raise ValueError(f"{self._name}: {shape} of {dt} at offset {offset} does not "
                             f"fit in {self._size} bytes")
        arr = self._root[offset:offset + nbytes].view(dt).reshape(shape).view(UdmemArray)
        arr._udmem = self
        self._track(arr)
        return arr

    # ---- lifetime
    def _release_mapping(self) -> None:
        """Unmap, or raise BufferError (mapping kept) while numpy views are alive."""
        self._root = None
        try:
            self._mm.close()
        except BufferError:
            self._root = np.frombuffer(self._mm, dtype=np.uint8)
            alive = len(self._live_views())
            raise BufferError(f"{self._name}: cannot close, {alive or 'some'} numpy "
                              "view(s) of it are still alive; delete them first") from None

    def close(self) -> None:
        """Unmap and close.  Raises BufferError while numpy views are alive.

        A buffer made by :func:`udmem.allocate` is deleted too.
        """
        if self._closed:
            return
        self._release_mapping()
        self._closed = True
        delete = self._cleanup_state["delete"]
        self._cleanup_state["delete"] = None
        self._finalizer()
        if delete is not None:
            delete(self._name)

    def _free_allocated(self, arr: UdmemArray) -> None:
        raise TypeError(f"{self._name}: this array is a view of an opened device; "
                        "close the Buffer or Region instead")

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._closed else f"{self._size} bytes at {self._dma:#x}"
        return f"<{type(self).__name__} {self._name}: {state}>"
