# SPDX-License-Identifier: GPL-2.0 OR MIT
"""DMA engine channels driven from Python: copies and slave transfers.

A :class:`Channel` is a u-dma-chan device (``/dev/<name>``).  Its
:meth:`~Channel.copy`, :meth:`~Channel.receive`, :meth:`~Channel.send` and
:meth:`~Channel.submit` return a :class:`Fence` at once; ``fence.wait()``
returns when the engine has moved the data, or raises the engine's error.
The driver syncs the caches around each transfer (sources for the device
before it starts, the destination for the CPU when it ends), so the data is
ready to read when ``wait()`` returns::

    with udmem.dma.Channel("dma0") as ch:
        ch.copy(dst, src).wait(timeout=1.0)

An end of a transfer is a :class:`~udmem.UdmemArray` (contiguous; its bytes
are the range), a :class:`~udmem.Buffer` or :class:`~udmem.Region` (the
whole object), or a ``(dmabuf_fd, offset)`` pair naming a DMA-BUF.  Buffers
and regions are exported to a DMA-BUF for each submit, and the export is
closed as soon as the driver holds it: once ``fence.wait()`` has returned,
the driver has let go of it too, so a buffer can be freed (or deleted)
while the channel stays open.
"""

from __future__ import annotations

import errno
import fcntl
import os
import select
from dataclasses import dataclass
from typing import Union

import numpy as np

from . import _uapi
from ._device import Device, FdOwner, oserror
from .array import UdmemArray

MEMCPY = _uapi.U_DMA_CHAN_OP_MEMCPY
DEV_TO_MEM = _uapi.U_DMA_CHAN_OP_DEV_TO_MEM
MEM_TO_DEV = _uapi.U_DMA_CHAN_OP_MEM_TO_DEV

#: What a transfer's end may be.
Endpoint = Union[UdmemArray, Device, "tuple[int, int]"]

_CAPS = {"memcpy": _uapi.U_DMA_CHAN_CAP_MEMCPY,
         "dev_to_mem": _uapi.U_DMA_CHAN_CAP_DEV_TO_MEM,
         "mem_to_dev": _uapi.U_DMA_CHAN_CAP_MEM_TO_DEV,
         "cyclic": _uapi.U_DMA_CHAN_CAP_CYCLIC}


def _cstr(raw: bytes) -> str:
    return raw.split(b"\0", 1)[0].decode()


class Fence(FdOwner):
    """The completion of one submitted batch.

    ``seq`` is the batch's sequence number on its channel.  ``fileno()`` is a
    ``sync_file`` descriptor (pollable; the kernel's importers understand it)
    when the channel was asked for one.  ``close()`` closes that descriptor
    (the batch runs on), as does collecting the fence.
    """

    _CLOSE_ON_DEL = True

    def __init__(self, channel: Channel, seq: int, fd: int) -> None:
        self._channel = channel
        self.seq = seq
        self._fd = fd

    def _wait(self, timeout_ns: int) -> int:
        return self._channel._wait(self.seq, timeout_ns)

    def wait(self, timeout: float | None = None) -> None:
        """Block until the batch completes (at most ``timeout`` seconds).

        Raises ``TimeoutError`` if it is still running then, and ``OSError``
        with the batch's errno if it failed (``EIO``: the engine failed it,
        ``ECANCELED``: stopped, ``ENODEV``: the channel went away).
        """
        ns = -1 if timeout is None else max(0, int(timeout * 1e9))
        status = self._wait(ns)
        if status:
            raise oserror(-status, self._channel.name, f"batch {self.seq}")

    @property
    def done(self) -> bool:
        """Whether the batch has completed (successfully or not); never blocks."""
        try:
            self._wait(0)
        except TimeoutError:
            return False
        return True

    def fileno(self) -> int:
        """The batch's sync_file descriptor (owned by this fence)."""
        if self._fd < 0:
            raise ValueError(f"{self._channel.name}: batch {self.seq} has no sync_file")
        return self._fd

    def __repr__(self) -> str:
        return f"<udmem.dma.Fence {self._channel.name} seq={self.seq}>"


@dataclass
class Transfer:
    """One transfer of a batch for :meth:`Channel.submit`.

    ``op`` is :data:`MEMCPY`, :data:`DEV_TO_MEM` or :data:`MEM_TO_DEV`;
    ``src``/``dst`` are endpoints (``None`` for a slave transfer's device
    side); ``nbytes`` defaults to the smaller end; ``period`` makes a
    slave transfer cyclic in periods of that many bytes; ``sync=False``
    leaves the caches to the caller.
    """

    op: int
    dst: Endpoint | None = None
    src: Endpoint | None = None
    nbytes: int | None = None
    period: int = 0
    sync: bool = True


class Channel(FdOwner):
    """A u-dma-chan device: ``Channel("dma0")`` opens ``/dev/dma0``.

    The attributes ``channel`` (the kernel's name, ``dma0chan1``),
    ``device``, ``copy_align``, ``max_segment``, ``dma_mask`` and
    ``capabilities`` (a set of ``"memcpy"``, ``"dev_to_mem"``,
    ``"mem_to_dev"``, ``"cyclic"``) come from the driver.
    """

    def __init__(self, name: str, *, fences: bool = True) -> None:
        if not name or "/" in name:
            raise ValueError(f"bad channel name {name!r}")
        self._name = name
        self._fences = fences
        self._exports: list[int] = []  # the submit in progress's DMA-BUF fds
        try:
            self._fd = os.open(f"/dev/{name}", os.O_RDWR | os.O_CLOEXEC)
        except OSError as e:
            raise oserror(e.errno, name, "open") from None
        try:
            info = self._ioctl(_uapi.U_DMA_CHAN_IOCTL_INFO,
                               _uapi.u_dma_chan_info.make(), "info")
        except OSError:
            os.close(self._fd)
            raise
        out = _uapi.u_dma_chan_info.parse(info)
        self.channel = _cstr(out["channel"])
        self.device = _cstr(out["device"])
        self.copy_align = out["copy_align"]
        self.max_segment = out["max_segment"]
        self.dma_mask = out["dma_mask"]
        self.max_batch = out["max_batch"]
        self.capabilities = {k for k, bit in _CAPS.items() if out["caps"] & bit}

    # ---- plumbing
    @property
    def name(self) -> str:
        return self._name

    def fileno(self) -> int:
        if self._fd < 0:
            raise ValueError(f"{self._name}: channel closed")
        return self._fd

    def _ioctl(self, request: int, arg: bytes, what: str) -> bytes:
        try:
            return bytes(fcntl.ioctl(self.fileno(), request, arg))
        except OSError as e:
            raise oserror(e.errno, self._name, what) from None

    def _wait(self, seq: int, timeout_ns: int) -> int:
        args = _uapi.u_dma_chan_wait.make(seq=seq, timeout_ns=timeout_ns)
        try:
            raw = fcntl.ioctl(self.fileno(), _uapi.U_DMA_CHAN_IOCTL_WAIT, args)
        except OSError as e:
            if e.errno == errno.ETIMEDOUT:
                raise TimeoutError(f"{self._name}: batch {seq} still running") from None
            raise oserror(e.errno, self._name, "wait") from None
        return int(_uapi.u_dma_chan_wait.parse(raw)["status"])

    def _dmabuf(self, dev: Device) -> int:
        """A DMA-BUF of a whole Buffer or Region for the submit in progress."""
        fd, _ = dev.export_dmabuf()  # type: ignore[attr-defined]
        self._exports.append(int(fd))
        return int(fd)

    def _end(self, end: Endpoint | None, what: str) -> tuple[int, int, int]:
        """(fd, offset, bytes) of a transfer's end; (-1, 0, 0) for none."""
        if end is None:
            return -1, 0, 0
        if isinstance(end, tuple):
            fd, offset = end
            return int(fd), int(offset), 0
        if isinstance(end, Device):
            return self._dmabuf(end), 0, end.size
        if isinstance(end, np.ndarray) and isinstance(end, UdmemArray):
            owner = end._owner()
            if not isinstance(owner, Device):
                raise TypeError(f"{what}: array of an unknown owner")
            if not end.flags.c_contiguous:
                raise ValueError(f"{what}: a DMA transfer needs a contiguous array")
            offset = end.__array_interface__["data"][0] - owner._va
            return self._dmabuf(owner), offset, end.nbytes
        raise TypeError(f"{what}: a UdmemArray, Buffer, Region or (dmabuf_fd, offset), "
                        f"not {type(end).__name__}")

    def _xfer(self, t: Transfer) -> bytes:
        sfd, soff, sbytes = self._end(t.src, "source")
        dfd, doff, dbytes = self._end(t.dst, "destination")
        sizes = [n for n in (sbytes, dbytes) if n]
        nbytes = t.nbytes if t.nbytes is not None else min(sizes) if sizes else 0
        if nbytes <= 0:
            raise ValueError(f"{self._name}: transfer of {nbytes} bytes")
        flags = 0 if t.sync else _uapi.U_DMA_CHAN_XFER_NO_SYNC
        if t.period:
            flags |= _uapi.U_DMA_CHAN_XFER_CYCLIC
        return _uapi.u_dma_chan_xfer.make(op=t.op, flags=flags, src_fd=sfd, dst_fd=dfd,
                                          src_offset=soff, dst_offset=doff, length=nbytes,
                                          period=t.period)

    # ---- transfers
    def submit(self, transfers: list[Transfer]) -> Fence:
        """Submit a batch (one system call); its fence completes with the last."""
        if not transfers:
            raise ValueError(f"{self._name}: empty batch")
        # The driver holds each DMA-BUF it was handed while its transfers
        # run (and keeps its mapping while anybody else holds the DMA-BUF):
        # the exports made for this batch are closed once it has them.
        try:
            table = bytearray(b"".join(self._xfer(t) for t in transfers))
            addr = np.frombuffer(table, dtype=np.uint8).ctypes.data
            flags = _uapi.U_DMA_CHAN_SUBMIT_FENCE_FD if self._fences else 0
            args = _uapi.u_dma_chan_submit.make(xfers=addr, count=len(transfers),
                                                flags=flags, fence_fd=-1)
            out = _uapi.u_dma_chan_submit.parse(
                self._ioctl(_uapi.U_DMA_CHAN_IOCTL_SUBMIT, args, "submit"))
            del table
        finally:
            self._close_exports()
        return Fence(self, out["seq"], out["fence_fd"])

    def _close_exports(self) -> None:
        for fd in self._exports:
            os.close(fd)
        self._exports.clear()

    def copy(self, dst: Endpoint, src: Endpoint, nbytes: int | None = None, *,
             sync: bool = True) -> Fence:
        """Copy ``src`` to ``dst`` with the engine (``nbytes``: the smaller end)."""
        return self.submit([Transfer(MEMCPY, dst=dst, src=src, nbytes=nbytes, sync=sync)])

    def receive(self, dst: Endpoint, nbytes: int | None = None, *, period: int = 0,
                sync: bool = True) -> Fence:
        """Stream from the device into ``dst`` (cyclic with ``period`` bytes)."""
        return self.submit([Transfer(DEV_TO_MEM, dst=dst, nbytes=nbytes, period=period,
                                     sync=sync)])

    def send(self, src: Endpoint, nbytes: int | None = None, *, period: int = 0,
             sync: bool = True) -> Fence:
        """Stream ``src`` to the device (cyclic with ``period`` bytes)."""
        return self.submit([Transfer(MEM_TO_DEV, src=src, nbytes=nbytes, period=period,
                                     sync=sync)])

    def slave_config(self, direction: int, dev_addr: int = 0, addr_width: int = 4,
                     maxburst: int = 0) -> None:
        """Set the device side of DEV_TO_MEM or MEM_TO_DEV transfers."""
        args = _uapi.u_dma_chan_slave_config.make(direction=direction, dev_addr=dev_addr,
                                                  addr_width=addr_width, maxburst=maxburst)
        self._ioctl(_uapi.U_DMA_CHAN_IOCTL_SLAVE_CONFIG, args, "slave config")

    def terminate(self) -> None:
        """Stop every running transfer; their batches complete with ECANCELED."""
        try:
            fcntl.ioctl(self.fileno(), _uapi.U_DMA_CHAN_IOCTL_TERMINATE)
        except OSError as e:
            raise oserror(e.errno, self._name, "terminate") from None

    def completions(self, timeout: float | None = 0.0) -> list[tuple[int, int]]:
        """The (seq, status) records queued so far, waiting up to ``timeout``."""
        rec = _uapi.u_dma_chan_completion
        ms = -1 if timeout is None else int(timeout * 1000)
        poller = select.poll()
        poller.register(self.fileno(), select.POLLIN)
        if not poller.poll(ms):
            return []
        try:
            raw = os.read(self.fileno(), rec.size * 64)
        except BlockingIOError:
            return []
        out = []
        for i in range(0, len(raw) - rec.size + 1, rec.size):
            r = rec.parse(raw[i:i + rec.size])
            out.append((int(r["seq"]), int(r["status"])))
        return out

    def close(self) -> None:
        """Close the channel: running transfers are stopped."""
        self._close_exports()
        super().close()

    def __repr__(self) -> str:
        return f"<udmem.dma.Channel {self._name} ({self.channel} on {self.device})>"
