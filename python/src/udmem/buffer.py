# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Buffer: a u-dma-buf buffer; allocate(): PYNQ-style arrays in new buffers."""

from __future__ import annotations

import ctypes
import errno
import fcntl
import itertools
import mmap
import os
import sys
import time
from typing import Any

import numpy as np

from . import _device, _uapi
from ._device import BIDIRECTIONAL, SYNC_CHECK_MODES, Device, check_name, oserror
from .array import UdmemArray

MGR = "/dev/u-dma-buf-mgr"

MMAP_MODES = {
    "off": _uapi.U_DMA_BUF_MMAP_MODE_OFF,
    "on": _uapi.U_DMA_BUF_MMAP_MODE_ON,
    "auto": _uapi.U_DMA_BUF_MMAP_MODE_AUTO,
    "page": _uapi.U_DMA_BUF_MMAP_MODE_PAGE,
}
_MMAP_MODE_NAMES = {v: k for k, v in MMAP_MODES.items()}


_names = itertools.count()


def _flag(flags: int, name: str) -> int:
    """A field of a u-dma-buf flags word, e.g. "DMA_COHERENT" (the header's GET_*)."""
    shift = getattr(_uapi, f"U_DMA_BUF_IOCTL_FLAGS_{name}_SHIFT")
    mask = getattr(_uapi, f"U_DMA_BUF_IOCTL_FLAGS_{name}_MASK")
    return int(flags >> shift & mask)


def _mgr_command(name: str, command: str) -> None:
    try:
        fd = os.open(MGR, os.O_WRONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        raise oserror(errno.ENODEV, name, f"{MGR} is missing (load u-dma-buf-mgr)") from None
    try:
        os.write(fd, command.encode())
    except OSError as e:
        raise oserror(e.errno, name, command.split()[0]) from None
    finally:
        os.close(fd)


def _device_keywords(name: str, device: str) -> str:
    """The manager's bus=/device= keywords for "[BUS/]NAME"."""
    bus, _, dev = device.rpartition("/")
    if (not dev or "/" in bus or (not bus and device.startswith("/"))
            or any(c in device for c in " \t\n;=") or len(device) > 127):
        raise ValueError(f"{name}: device must be [BUS/]NAME, not {device!r}")
    return f" bus={bus} device={dev}" if bus else f" device={dev}"


class Buffer(Device):
    """A u-dma-buf buffer (/dev/NAME, /sys/class/u-dma-buf/NAME), mapped whole.

    Use :meth:`open` for buffers made by the device tree, module parameters
    or the manager; :func:`allocate` makes a new one for an array.
    """

    _CLASS = "u-dma-buf"

    @classmethod
    def open(cls, name: str, *, cacheable: bool = True, readonly: bool = False) -> Buffer:
        """Open and map the buffer NAME.

        ``cacheable=False`` opens with O_SYNC, so the mapping follows the
        buffer's sync_mode (uncached by default).
        """
        return cls(name, cacheable=cacheable, readonly=readonly)

    @staticmethod
    def create(name: str, size: int, *, dma_mask_bits: int = 0,
               mmap_mode: str | None = None, device: str | None = None,
               dma_coherent: bool = False, keep_contents: bool = False,
               sync_check: str | None = None) -> None:
        """Create a buffer through /dev/u-dma-buf-mgr.

        ``device`` ("[BUS/]NAME", e.g. ``"pci/0000:00:03.0"``) allocates for
        that device instead of a new platform device.  udmem's additions:
        ``dma_coherent`` marks the new platform device DMA-coherent (not with
        ``device``); ``keep_contents`` does not zero the memory: the buffer is
        ``device``'s no-map device-tree memory-region and keeps what it holds;
        ``sync_check`` ("off", "report" or "strict") switches the sync
        checker (None: the module's default).
        """
        check_name(name)
        if size <= 0:
            raise ValueError(f"{name}: size must be positive")
        if dma_mask_bits and not 12 <= dma_mask_bits <= 64:
            raise ValueError(f"{name}: dma_mask_bits must be 12..64")
        command = f"create {name} {int(size)}"
        if dma_mask_bits:
            command += f" dma-mask={dma_mask_bits}"
        if mmap_mode is not None:
            if mmap_mode not in MMAP_MODES:
                raise ValueError(f"{name}: mmap_mode must be one of {sorted(MMAP_MODES)}")
            command += f" quirk-mmap-{mmap_mode}"
        if device is not None:
            command += _device_keywords(name, device)
        if dma_coherent:
            if device is not None:
                raise ValueError(f"{name}: dma_coherent is for a new platform device, not device=")
            command += " dma-coherent"
        if keep_contents:
            if device is None:
                raise ValueError(f"{name}: keep_contents needs device= (its memory-region)")
            command += " keep-contents"
        if sync_check is not None:
            if sync_check not in SYNC_CHECK_MODES:
                raise ValueError(f"{name}: sync_check must be one of {list(SYNC_CHECK_MODES)}")
            command += f" sync-check={sync_check}"
        if name in Buffer.list():
            raise oserror(errno.EEXIST, name, "create")
        _mgr_command(name, command + "\n")

    @staticmethod
    def delete(name: str) -> None:
        """Delete a buffer made by the manager."""
        check_name(name)
        if name not in Buffer.list():
            raise oserror(errno.ENOENT, name, "delete")
        _mgr_command(name, f"delete {name}\n")

    @staticmethod
    def list() -> list[str]:
        """Names of all u-dma-buf buffers."""
        return _device.class_list(Buffer._CLASS)

    def _query(self) -> None:
        try:
            raw = fcntl.ioctl(self._fd, _uapi.U_DMA_BUF_IOCTL_GET_DEV_INFO,
                              _uapi.u_dma_buf_ioctl_dev_info.make())
        except OSError as e:
            if e.errno != errno.ENOTTY:
                raise oserror(e.errno, self._name, "GET_DEV_INFO") from None
            self._size = _device.sysfs_int(self._CLASS, self._name, "size")
            self._dma = _device.sysfs_int(self._CLASS, self._name, "phys_addr")
            self._coherent = False
            self._flags = 0
        else:
            info = _uapi.u_dma_buf_ioctl_dev_info.parse(raw)
            self._flags, self._size, self._dma = info["flags"], info["size"], info["addr"]
            self._coherent = bool(_flag(self._flags, "DMA_COHERENT"))
        try:
            self._phys = _device.sysfs_int(self._CLASS, self._name, "phys_addr")
        except (OSError, ValueError):
            self._phys = self._dma

    @property
    def dma_mask_bits(self) -> int:
        """Width of the device's DMA mask."""
        return _flag(self._flags, "DMA_MASK")

    @property
    def mmap_mode(self) -> str | None:
        """The buffer's mmap mode: "off", "on", "auto", "page" or None."""
        return _MMAP_MODE_NAMES.get(_flag(self._flags, "MMAP_MODE"))

    @property
    def sync_mode(self) -> int:
        """The buffer's sync_mode (0..7)."""
        self._check_open()
        raw = fcntl.ioctl(self._fd, _uapi.U_DMA_BUF_IOCTL_GET_SYNC,
                          _uapi.u_dma_buf_ioctl_sync_args.make())
        return _flag(_uapi.u_dma_buf_ioctl_sync_args.parse(raw)["flags"], "SYNC_MODE")

    @property
    def sync_owner(self) -> str:
        """"cpu" or "device": who the last sync handed the buffer to."""
        self._check_open()
        # The argument is a __u32: the ioctl number's size field says so.
        raw = fcntl.ioctl(self._fd, _uapi.U_DMA_BUF_IOCTL_GET_SYNC_OWNER,
                          bytes(_uapi.U_DMA_BUF_IOCTL_GET_SYNC_OWNER >> 16 & 0x3FFF))
        return "device" if int.from_bytes(raw, sys.byteorder) else "cpu"

    def _sync(self, cmd: int, offset: int, size: int | None, direction: int, what: str) -> None:
        self._check_open()
        offset, size = self._range(offset, size)
        if direction not in (0, 1, 2):
            raise ValueError(f"{self._name}: direction must be 0, 1 or 2")
        flags = cmd | direction << _uapi.U_DMA_BUF_IOCTL_FLAGS_SYNC_DIR_SHIFT
        args = _uapi.u_dma_buf_ioctl_sync_args.make(flags=flags, size=size, offset=offset)
        try:
            fcntl.ioctl(self._fd, _uapi.U_DMA_BUF_IOCTL_SET_SYNC, args)
        except OSError as e:
            raise oserror(e.errno, self._name, what) from None

    def sync_for_cpu(self, offset: int = 0, size: int | None = None,
                     direction: int = BIDIRECTIONAL) -> None:
        """Hand bytes [offset, offset+size) to the CPU: one ioctl."""
        self._sync(_uapi.U_DMA_BUF_IOCTL_FLAGS_SYNC_CMD_FOR_CPU, offset, size, direction,
                   "sync for cpu")

    def sync_for_device(self, offset: int = 0, size: int | None = None,
                        direction: int = BIDIRECTIONAL) -> None:
        """Hand bytes [offset, offset+size) to the device: one ioctl."""
        self._sync(_uapi.U_DMA_BUF_IOCTL_FLAGS_SYNC_CMD_FOR_DEVICE, offset, size, direction,
                   "sync for device")

    def export_dmabuf(self, offset: int = 0, size: int | None = None,
                      flags: int = os.O_RDWR | os.O_CLOEXEC) -> tuple[int, int]:
        """Export a page-aligned range as a DMA-BUF: (fd, device address).

        The caller closes the fd.
        """
        self._check_open()
        if size is None:
            size = (self._size - offset) & ~(mmap.PAGESIZE - 1)
        args = _uapi.u_dma_buf_ioctl_export_args.make(flags=flags, size=size, offset=offset,
                                                      fd=-1)
        try:
            raw = fcntl.ioctl(self._fd, _uapi.U_DMA_BUF_IOCTL_EXPORT, args)
        except OSError as e:
            raise oserror(e.errno, self._name, "export") from None
        out = _uapi.u_dma_buf_ioctl_export_args.parse(raw)
        return out["fd"], out["addr"]

    # ---- buffers made by allocate()
    def _free_allocated(self, arr: UdmemArray) -> None:
        if not self._allocated:
            super()._free_allocated(arr)
        if self._closed:
            return
        try:
            self._release_mapping()
        except BufferError:
            # Views are alive (this array, its slices, reshaped or plain
            # numpy views): put private zero pages under the whole mapping,
            # so that every view stays valid memory but none can reach the
            # buffer once it is freed, and make the mmap object let go of
            # the device file.  The pages go when the last view does.
            _replace_with_zero_pages(self._name, self._va, self._size)
            if self._mm_fd is None:
                # Unknown descriptor: the buffer is deleted when the last
                # view dies and the mmap object closes it.
                self._closed = True
                os.close(self._fd)
                self._cleanup_state["fd"] = None
                return
            nul = os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC)
            os.dup2(nul, self._mm_fd)
            os.close(nul)
            self._mm_fd = None
        self._closed = True
        self._cleanup_state["delete"] = None
        self._finalizer()
        Buffer.delete(self._name)


def _replace_with_zero_pages(name: str, addr: int, size: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                          ctypes.c_int, ctypes.c_long]
    map_fixed = 0x10
    got = libc.mmap(addr, size, mmap.PROT_READ | mmap.PROT_WRITE,
                    mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | map_fixed, -1, 0)
    if got != addr:
        raise oserror(ctypes.get_errno() or errno.EIO, name, "replacing the mapping")


# How long a user who is not root waits for udev to hand a new buffer's node
# to its group (60-udmem.rules).
UDEV_WAIT = 2.0


def _open_new(name: str, cacheable: bool) -> Buffer:
    """Open a buffer the manager has just made.

    The kernel creates /dev/NAME root-only; udev gives it to the group a
    moment later.  Meanwhile a user in the group gets EACCES: retry it for
    up to UDEV_WAIT seconds.
    """
    deadline = time.monotonic() + UDEV_WAIT
    while True:
        try:
            return Buffer(name, cacheable=cacheable)
        except PermissionError:
            if os.geteuid() == 0 or time.monotonic() >= deadline:
                raise
            time.sleep(0.01)


def allocate(shape: Any, dtype: Any = "u4", *, cacheable: bool = True,
             dma_mask_bits: int = 0, mmap_mode: str | None = None,
             name: str | None = None, device: str | None = None,
             dma_coherent: bool = False, keep_contents: bool = False) -> UdmemArray:
    """Make a new buffer through u-dma-buf-mgr and return an array over it.

    Like PYNQ's ``allocate``.  The array has ``physical_address``,
    ``flush()``/``invalidate()`` and ``freebuffer()``, and works as a
    context manager that frees the buffer at the end of the ``with`` block.
    ``cacheable=False`` maps it with O_SYNC (uncached).  ``device``,
    ``dma_coherent`` and ``keep_contents`` are those of :meth:`Buffer.create`.
    """
    dt = np.dtype(dtype)
    shape_t = (shape,) if isinstance(shape, int) else tuple(shape)
    nbytes = int(np.prod(shape_t, dtype=np.int64)) * dt.itemsize
    if nbytes <= 0:
        raise ValueError("allocate: the array would be empty")
    if name is None:
        name = f"udmem-py-{os.getpid()}-{next(_names)}"
    Buffer.create(name, nbytes, dma_mask_bits=dma_mask_bits, mmap_mode=mmap_mode,
                  device=device, dma_coherent=dma_coherent, keep_contents=keep_contents)
    try:
        buf = _open_new(name, cacheable)
    except BaseException:
        Buffer.delete(name)
        raise
    buf._allocated = True
    buf._cleanup_state["delete"] = Buffer.delete
    return buf.asarray(dt, shape_t)
