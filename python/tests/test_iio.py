# SPDX-License-Identifier: GPL-2.0 OR MIT
"""udmem.iio: u-dma-buf exports in an IIO device's DMABUF buffer.

The layout tests run anywhere.  The device tests need the test IIO device
of tests/kmod/udmem-iio-dma.c (the kernel's dmaengine buffer on the edu test
provider's "rx" channel, which streams a 32-bit counter) and a kernel with
IIO's DMABUF interface (6.11); the guest's python suite loads the kernel's
IIO modules when it has them.  Without them the device tests SKIP, saying why.
"""

from __future__ import annotations

import errno
import mmap
import os
import platform
import time

import numpy as np
import pytest
from conftest import _insmod, _rmmod

import udmem
from udmem import _uapi, iio


def test_the_ioctl_numbers_are_linux_6_11s():
    # include/uapi/linux/iio/buffer.h: _IOWR('i', 0x91, int), _IOW('i', 0x92..0x94, ...)
    assert iio.IIO_BUFFER_GET_FD_IOCTL == 0xC0046991
    assert iio.IIO_BUFFER_DMABUF_ATTACH_IOCTL == 0x40046992
    assert iio.IIO_BUFFER_DMABUF_DETACH_IOCTL == 0x40046993
    assert iio.IIO_BUFFER_DMABUF_ENQUEUE_IOCTL == 0x40106994


def test_a_block_packs_into_struct_iio_dmabuf():
    raw = iio.iio_dmabuf.make(fd=7, flags=iio.IIO_BUFFER_DMABUF_CYCLIC, bytes_used=1 << 33)
    assert len(raw) == 16
    assert iio.iio_dmabuf.parse(raw) == {"fd": 7, "flags": 1, "bytes_used": 1 << 33}
    assert _uapi.Layout is type(iio.iio_dmabuf)


def test_a_missing_device_is_named(tmp_path, monkeypatch):
    monkeypatch.setattr(iio, "SYSFS_IIO", str(tmp_path))
    (tmp_path / "iio:device0").mkdir()
    (tmp_path / "iio:device0" / "name").write_text("other-adc\n")
    assert iio.find("other-adc") == str(tmp_path / "iio:device0")
    assert iio.find("iio:device0") == str(tmp_path / "iio:device0")
    with pytest.raises(FileNotFoundError, match="no-such-adc"):
        iio.find("no-such-adc")


# ---- on the test device
EDU_DMA_DEVICE = "/sys/bus/pci/devices/0000:00:10.0"
RX = "udmem-iio-rx"
SIZE = 65536


def _kernel_at_least(major: int, minor: int) -> bool:
    parts = platform.release().split(".")
    return (int(parts[0]), int("".join(c for c in parts[1] if c.isdigit()))) >= (major, minor)


@pytest.fixture(scope="module")
def rx_device(udmabuf):
    """The name of the test IIO device streaming a counter, or a SKIP."""
    if not _kernel_at_least(6, 11):
        pytest.skip(f"kernel {platform.release()} has no IIO DMABUF interface (6.11's)")
    if not os.path.isdir("/sys/module/industrialio_buffer_dmaengine"):
        pytest.skip("no industrialio-buffer-dmaengine loaded (the kernel has no "
                    "CONFIG_IIO_BUFFER_DMAENGINE, or the suite did not load it)")
    if not os.path.exists(EDU_DMA_DEVICE):
        pytest.skip("no second edu device (the test DMA provider's) in this guest")
    had_provider = os.path.isdir("/sys/module/udmem_edu_dma")
    if had_provider:
        _rmmod("udmem-edu-dma")
    loaded = []
    try:
        if _insmod("udmem-edu-dma", "map_client=udmem-iio-dma"):
            loaded.insert(0, "udmem-edu-dma")
        if _insmod("udmem-iio-dma"):
            loaded.insert(0, "udmem-iio-dma")
        iio.find(RX)
        yield RX
    finally:
        for m in loaded:
            _rmmod(m)
        if had_provider:
            _insmod("udmem-edu-dma")


def _delete(name: str) -> None:
    """Delete a manager buffer once nothing holds it: IIO lets go of an
    attachment's export in a work item after its last fence (EBUSY until)."""
    for _ in range(600):
        try:
            udmem.Buffer.delete(name)
            return
        except OSError as e:
            if e.errno != errno.EBUSY:
                raise
        time.sleep(0.05)
    udmem.Buffer.delete(name)


def _counter(words: np.ndarray) -> bool:
    return bool(np.all(np.diff(words.astype(np.uint64)) % (1 << 32) == 1))


def test_the_device_fills_an_export_with_its_counter(rx_device):
    name = "py-iio-rx"
    udmem.Buffer.create(name, SIZE, dma_mask_bits=32)
    try:
        with udmem.Buffer.open(name) as buf, iio.IIOBuffer(rx_device) as rx:
            assert rx.direction == "in"
            words = buf.asarray("u4")
            words[:] = 0xFFFFFFFF
            buf.sync_for_device()
            fd, _ = buf.export_dmabuf()
            try:
                rx.enable_channels()
                rx.attach(fd)
                rx.enable()
                rx.enqueue(fd, SIZE // 2)
                rx.wait(fd, timeout=120)
                buf.sync_for_cpu()
                assert _counter(words[:SIZE // 8]), words[:8]
                assert np.all(words[SIZE // 8:] == 0xFFFFFFFF), "bytes past the block changed"
                rx.disable()
                rx.detach(fd)
            finally:
                os.close(fd)
            del words
    finally:
        _delete(name)


def test_bad_blocks_are_refused_with_their_errno(rx_device):
    name = "py-iio-bad"
    udmem.Buffer.create(name, SIZE, dma_mask_bits=32)
    try:
        with udmem.Buffer.open(name) as buf, iio.IIOBuffer(rx_device) as rx:
            fd, _ = buf.export_dmabuf()
            ro, _ = buf.export_dmabuf(flags=os.O_RDONLY | os.O_CLOEXEC)
            try:
                with pytest.raises(OSError) as e:
                    rx.enqueue(fd, SIZE)  # not attached yet
                assert e.value.errno == errno.EPERM
                rx.attach(fd)
                with pytest.raises(OSError) as e:
                    rx.enqueue(fd, SIZE + mmap.PAGESIZE)  # past the DMA-BUF
                assert e.value.errno == errno.EINVAL
                with pytest.raises(ValueError):
                    rx.enqueue(fd, 0)
                with pytest.raises(OSError) as e:
                    rx.attach(ro)  # the device would write a read-only export
                assert e.value.errno == errno.EACCES
                rx.detach(fd)
                with pytest.raises(OSError) as e:
                    rx.detach(fd)
                assert e.value.errno == errno.EPERM
            finally:
                os.close(ro)
                os.close(fd)
    finally:
        _delete(name)
