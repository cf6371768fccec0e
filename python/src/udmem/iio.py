# SPDX-License-Identifier: GPL-2.0 OR MIT
"""IIO buffers that move samples straight into udmem memory (Linux 6.11+).

A converter whose driver uses the kernel's DMA buffer
(``industrialio-buffer-dmaengine``: ``adi-axi-adc`` and the like) can have
its DMA write into, or read from, any DMA-BUF.  :class:`IIOBuffer` opens an
IIO device's buffer; :meth:`~IIOBuffer.attach` gives it a u-dma-buf export,
:meth:`~IIOBuffer.enqueue` hands it a block to fill (or to send), and
:meth:`~IIOBuffer.wait` returns when the device is done with the block::

    udmem.Buffer.create("adc0", 1 << 20, device="platform/axi-adc")
    with udmem.Buffer.open("adc0") as buf, udmem.iio.IIOBuffer("axi-ad9680") as adc:
        fd, _ = buf.export_dmabuf()
        adc.enable_channels()
        adc.attach(fd)
        adc.enable()
        adc.enqueue(fd)
        adc.wait(fd, timeout=1.0)
        buf.sync_for_cpu()          # then read the samples through buf
        adc.disable()
        adc.detach(fd)
        os.close(fd)

Our exports are one contiguous range: the device gets a single
scatter-gather entry, and a block is synced as one range.
"""

from __future__ import annotations

import errno
import fcntl
import glob
import os
import select
import struct

from ._device import FdOwner, oserror
from ._uapi import Layout, _ioc

# <linux/iio/buffer.h> (6.11): the buffer fd and its DMABUF ioctls
IIO_BUFFER_GET_FD_IOCTL = _ioc(3, ord("i"), 0x91, 4)
IIO_BUFFER_DMABUF_ATTACH_IOCTL = _ioc(1, ord("i"), 0x92, 4)
IIO_BUFFER_DMABUF_DETACH_IOCTL = _ioc(1, ord("i"), 0x93, 4)
IIO_BUFFER_DMABUF_ENQUEUE_IOCTL = _ioc(1, ord("i"), 0x94, 16)
IIO_BUFFER_DMABUF_CYCLIC = 1
#: struct iio_dmabuf
iio_dmabuf = Layout("=IIQ", ("fd", "flags", "bytes_used"))

SYSFS_IIO = "/sys/bus/iio/devices"


def find(device: str) -> str:
    """The sysfs folder of an IIO device given by its ``name`` attribute,
    as ``iio:deviceN``, or as a path; ``FileNotFoundError`` if none."""
    if os.path.isabs(device):
        if os.path.isdir(device):
            return device
    elif os.path.isdir(os.path.join(SYSFS_IIO, device)):
        return os.path.join(SYSFS_IIO, device)
    else:
        for d in sorted(glob.glob(os.path.join(SYSFS_IIO, "iio:device*"))):
            try:
                with open(os.path.join(d, "name")) as f:
                    if f.read().strip() == device:
                        return d
            except OSError:
                continue
    raise FileNotFoundError(errno.ENOENT, f"no IIO device {device!r} in {SYSFS_IIO}")


class IIOBuffer(FdOwner):
    """Buffer ``index`` of an IIO device, for DMABUF transfers.

    ``device`` is the device's name (its ``name`` attribute), ``iio:deviceN``
    or its sysfs folder.  The DMA-BUFs given to :meth:`attach` stay the
    caller's: close them after :meth:`detach` (or after closing this buffer,
    which detaches them all).  ``close()`` (or collecting it) closes the
    buffer's descriptor: the kernel detaches what is attached.
    """

    _CLOSE_ON_DEL = True

    def __init__(self, device: str, index: int = 0) -> None:
        self.sysfs = find(device)
        self.index = index
        with open(os.path.join(self.sysfs, "name")) as f:
            self.name = f.read().strip()
        self._dir = os.path.join(self.sysfs, f"buffer{index}")
        node = "/dev/" + os.path.basename(self.sysfs)
        try:
            cfd = os.open(node, os.O_RDWR | os.O_CLOEXEC)
        except OSError as e:
            raise oserror(e.errno, self.name, f"open {node}") from None
        try:
            raw = fcntl.ioctl(cfd, IIO_BUFFER_GET_FD_IOCTL, struct.pack("=i", index))
        except OSError as e:
            raise oserror(e.errno, self.name, f"buffer{index}: get fd") from None
        finally:
            os.close(cfd)
        self._fd: int = struct.unpack("=i", raw)[0]

    # ---- plumbing
    def fileno(self) -> int:
        """The buffer's descriptor (IIO_BUFFER_GET_FD_IOCTL's)."""
        if self._fd < 0:
            raise ValueError(f"{self.name}: buffer{self.index} closed")
        return self._fd

    def _ioctl(self, request: int, arg: bytes, what: str) -> None:
        try:
            fcntl.ioctl(self.fileno(), request, arg)
        except OSError as e:
            raise oserror(e.errno, self.name, what) from None

    def _attr(self, path: str, value: str | None = None) -> str:
        try:
            if value is None:
                with open(path) as f:
                    return f.read().strip()
            with open(path, "w") as f:
                f.write(value)
        except OSError as e:
            raise oserror(e.errno, self.name, f"{os.path.basename(path)}") from None
        return value

    # ---- the buffer's set-up (sysfs)
    @property
    def direction(self) -> str:
        """``"in"`` (the device writes the blocks) or ``"out"`` (it reads them)."""
        return self._attr(os.path.join(self._dir, "direction"))

    def channels(self) -> list[str]:
        """The buffer's scan elements (``in_voltage0``, ...)."""
        found = glob.glob(os.path.join(self._dir, "*_en"))
        if not found:
            found = glob.glob(os.path.join(self.sysfs, "scan_elements", "*_en"))
        return sorted(os.path.basename(p)[:-3] for p in found)

    def enable_channels(self, names: list[str] | None = None) -> None:
        """Enable these scan elements (all of them with ``None``)."""
        for ch in self.channels() if names is None else names:
            path = os.path.join(self._dir, f"{ch}_en")
            if not os.path.exists(path):
                path = os.path.join(self.sysfs, "scan_elements", f"{ch}_en")
            self._attr(path, "1")

    def enable(self) -> None:
        """Start the buffer: enqueued blocks now move."""
        self._attr(os.path.join(self._dir, "enable"), "1")

    def disable(self) -> None:
        self._attr(os.path.join(self._dir, "enable"), "0")

    @property
    def enabled(self) -> bool:
        return self._attr(os.path.join(self._dir, "enable")) == "1"

    # ---- DMABUF transfers
    def attach(self, dmabuf_fd: int) -> None:
        """Attach a DMA-BUF (IIO_BUFFER_DMABUF_ATTACH_IOCTL) for later enqueues."""
        self._ioctl(IIO_BUFFER_DMABUF_ATTACH_IOCTL, struct.pack("=i", dmabuf_fd),
                    f"attach DMA-BUF fd {dmabuf_fd}")

    def detach(self, dmabuf_fd: int) -> None:
        """Detach a DMA-BUF attached before."""
        self._ioctl(IIO_BUFFER_DMABUF_DETACH_IOCTL, struct.pack("=i", dmabuf_fd),
                    f"detach DMA-BUF fd {dmabuf_fd}")

    def enqueue(self, dmabuf_fd: int, nbytes: int | None = None, *,
                cyclic: bool = False) -> None:
        """Queue the first ``nbytes`` of an attached DMA-BUF (all of it with
        ``None``) as one block; ``cyclic`` repeats it until the buffer is
        disabled (output buffers)."""
        if nbytes is None:
            nbytes = os.lseek(dmabuf_fd, 0, os.SEEK_END)  # a DMA-BUF's size
            os.lseek(dmabuf_fd, 0, os.SEEK_SET)
        if nbytes <= 0:
            raise ValueError(f"{self.name}: a block of {nbytes} bytes")
        arg = iio_dmabuf.make(fd=dmabuf_fd, flags=IIO_BUFFER_DMABUF_CYCLIC if cyclic else 0,
                              bytes_used=nbytes)
        self._ioctl(IIO_BUFFER_DMABUF_ENQUEUE_IOCTL, arg, f"enqueue DMA-BUF fd {dmabuf_fd}")

    @staticmethod
    def wait(dmabuf_fd: int, timeout: float | None = None) -> None:
        """Wait until every fence of the DMA-BUF has signalled (the device's
        writes and reads of its blocks); ``TimeoutError`` after ``timeout``
        seconds."""
        p = select.poll()
        p.register(dmabuf_fd, select.POLLOUT)
        ms = None if timeout is None else max(0, int(timeout * 1000))
        if not p.poll(ms):
            raise TimeoutError(f"DMA-BUF fd {dmabuf_fd}: blocks still queued after {timeout} s")

    def __repr__(self) -> str:
        return f"<udmem.iio.IIOBuffer {self.name} buffer{self.index}>"
