# SPDX-License-Identifier: GPL-2.0 OR MIT
"""udmem.dma: transfers are described in the UAPI's layout, bad ones refused.

These run without a device: they check what the package hands the driver.
"""

from __future__ import annotations

import numpy as np
import pytest

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
