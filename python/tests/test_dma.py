# SPDX-License-Identifier: GPL-2.0 OR MIT
"""udmem.dma: transfers described right on the host, data moved in the guest.

The device tests need a u-dma-chan channel with the memcpy capability (the
guest's python suite makes one over the target's DMA engine); without one
they SKIP with the reason.
"""

from __future__ import annotations

import errno
import glob
import os

import numpy as np
import pytest
from conftest import _insmod, _rmmod

import udmem
from udmem import _uapi, dma


def _bare_channel() -> dma.Channel:
    """A Channel object with no device behind it, for the packing tests."""
    ch = dma.Channel.__new__(dma.Channel)
    ch._name = "fake"
    ch._fences = True
    ch._exports = {}
    ch._fd = -1
    return ch


def test_a_dmabuf_pair_packs_into_the_uapi_layout():
    ch = _bare_channel()
    raw = ch._xfer(dma.Transfer(dma.MEMCPY, dst=(7, 4096), src=(5, 64), nbytes=512))
    f = _uapi.u_dma_chan_xfer.parse(raw)
    assert len(raw) == _uapi.u_dma_chan_xfer.size == 64
    assert (f["op"], f["src_fd"], f["dst_fd"]) == (_uapi.U_DMA_CHAN_OP_MEMCPY, 5, 7)
    assert (f["src_offset"], f["dst_offset"], f["length"]) == (64, 4096, 512)
    assert f["flags"] == 0 and f["period"] == 0


def test_slave_transfers_leave_the_device_side_unnamed_and_set_flags():
    ch = _bare_channel()
    f = _uapi.u_dma_chan_xfer.parse(
        ch._xfer(dma.Transfer(dma.DEV_TO_MEM, dst=(3, 0), nbytes=8192, period=4096,
                              sync=False)))
    assert f["src_fd"] == -1 and f["dst_fd"] == 3
    assert f["flags"] == _uapi.U_DMA_CHAN_XFER_CYCLIC | _uapi.U_DMA_CHAN_XFER_NO_SYNC
    assert f["period"] == 4096


@pytest.mark.parametrize("end", [b"bytes", 3, np.zeros(4, dtype=np.uint8)])
def test_an_end_that_is_no_udmem_memory_is_a_type_error(end):
    with pytest.raises(TypeError):
        _bare_channel()._xfer(dma.Transfer(dma.MEMCPY, dst=(3, 0), src=end, nbytes=4))


def test_a_transfer_of_no_bytes_is_refused_before_any_system_call():
    with pytest.raises(ValueError):
        _bare_channel()._xfer(dma.Transfer(dma.MEMCPY, dst=(3, 0), src=(4, 0)))


def test_opening_a_missing_channel_names_it():
    with pytest.raises(FileNotFoundError, match="no-such-chan"):
        dma.Channel("no-such-chan")


def _fd_is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def test_a_fence_closes_its_sync_file_once_and_when_collected():
    r, w = os.pipe()
    os.close(w)
    with dma.Fence(_bare_channel(), 1, r) as f:
        assert f.fileno() == r
    assert not _fd_is_open(r)
    f.close()  # again: nothing
    r, w = os.pipe()
    os.close(w)
    f = dma.Fence(_bare_channel(), 2, r)
    del f
    assert not _fd_is_open(r)


def test_a_forgotten_import_keeps_its_descriptor():
    # An import detaches only on close(): collecting it must not.
    r, w = os.pipe()
    os.close(w)
    imp = udmem.DmabufImport("b", r, 0x1000, 4096)
    del imp
    assert _fd_is_open(r)
    with udmem.DmabufImport("b", r, 0x1000, 4096):
        pass
    assert not _fd_is_open(r)


# The test DMA engine the guests have on PCI machines (tests/kmod/udmem-edu-dma.c
# over the harness's second edu device): loaded when no channel exists yet.
EDU_DMA_DEVICE = "/sys/bus/pci/devices/0000:00:10.0"


@pytest.fixture(scope="module")
def memcpy_channel_name(udmabuf):
    loaded = []
    if not glob.glob("/sys/class/u-dma-chan/*"):
        if os.path.exists(EDU_DMA_DEVICE) and _insmod("udmem-edu-dma"):
            loaded.append("udmem-edu-dma")
        if _insmod("u-dma-chan", "memcpy=py-dma"):
            loaded.insert(0, "u-dma-chan")
    names = sorted(os.path.basename(p) for p in glob.glob("/sys/class/u-dma-chan/*"))
    found = None
    for name in names:
        with dma.Channel(name) as ch:
            if "memcpy" in ch.capabilities:
                found = name
                break
    yield found
    for m in loaded:
        _rmmod(m)


@pytest.fixture()
def channel(memcpy_channel_name):
    if memcpy_channel_name is None:
        pytest.skip("no u-dma-chan channel with the memcpy capability on this system")
    with dma.Channel(memcpy_channel_name) as ch:
        yield ch


def test_copy_moves_the_data_and_the_fence_reports_it(channel):
    with udmem.allocate((16384,), dtype="u1") as src, \
            udmem.allocate((16384,), dtype="u1") as dst:
        src[:] = np.random.default_rng(1).integers(0, 256, src.size, dtype=np.uint8)
        dst[:] = 0
        fence = channel.copy(dst, src)
        fence.wait(timeout=60)
        assert fence.done
        assert np.array_equal(dst, src)
        assert fence.fileno() >= 0
        fence.close()


def test_slices_copy_only_their_own_bytes(channel):
    align = max(channel.copy_align, 1)
    with udmem.allocate((16384,), dtype="u1") as src, \
            udmem.allocate((16384,), dtype="u1") as dst:
        src[:] = 0x5A
        dst[:] = 0
        channel.copy(dst[8 * align:16 * align], src[:8 * align]).wait(timeout=60)
        assert (dst[8 * align:16 * align] == 0x5A).all()
        assert not dst[:8 * align].any() and not dst[16 * align:].any()


def test_a_batch_is_one_fence_and_one_completion_record(channel):
    with udmem.allocate((3, 4096), dtype="u1") as src, \
            udmem.allocate((3, 4096), dtype="u1") as dst:
        for i in range(3):
            src[i] = i + 1
        dst[:] = 0
        fence = channel.submit([dma.Transfer(dma.MEMCPY, dst=dst[i], src=src[i])
                                for i in range(3)])
        fence.wait(timeout=60)
        assert [int(dst[i, 0]) for i in range(3)] == [1, 2, 3]
        records = []
        for _ in range(50):
            records += channel.completions(timeout=1.0)
            if any(seq == fence.seq for seq, _ in records):
                break
        assert (fence.seq, 0) in records


def test_a_range_beyond_the_buffer_fails_with_einval_and_moves_nothing(channel):
    with udmem.allocate((4096,), dtype="u1") as src, \
            udmem.allocate((4096,), dtype="u1") as dst:
        dst[:] = 0
        with pytest.raises(OSError) as e:
            channel.copy(dst, src, nbytes=8192)
        assert e.value.errno == errno.EINVAL
        assert not dst.any()


def test_a_buffer_is_deleted_while_the_channel_that_used_it_stays_open(channel):
    src = udmem.allocate((8192,), dtype="u1")
    dst = udmem.allocate((8192,), dtype="u1")
    names = {src.buffer.name, dst.buffer.name}
    src[:] = 7
    dst[:] = 0
    channel.copy(dst, src).wait(timeout=60)
    assert (dst == 7).all()
    # the manager deletes them: nothing holds them exported any more
    src.freebuffer()
    dst.freebuffer()
    assert not names & set(udmem.Buffer.list())
    # and the channel goes on with new buffers
    with udmem.allocate((4096,), dtype="u1") as a, udmem.allocate((4096,), dtype="u1") as b:
        a[:] = 9
        b[:] = 0
        channel.copy(b, a).wait(timeout=60)
        assert (b == 9).all()


def test_a_strided_array_cannot_be_a_dma_end(channel):
    with udmem.allocate((4096,), dtype="u1") as src, \
            udmem.allocate((4096,), dtype="u1") as dst:
        with pytest.raises(ValueError, match="contiguous"):
            channel.copy(dst[::2], src[:2048])
