# SPDX-License-Identifier: GPL-2.0 OR MIT
"""_uapi.py, generated from the C headers, has the reference ABI's numbers.

tests/unit/python checks _uapi.py against the compiler (host, arm, arm64);
these values come from the reference ABI, written down independently.
"""

import sys

import pytest

from udmem import _uapi


def test_u_dma_buf_numbers_match_reference():
    assert _uapi.U_DMA_BUF_IOCTL_GET_SYNC_OWNER == 0x80045504
    assert _uapi.U_DMA_BUF_IOCTL_GET_DEV_INFO == 0x80185507
    assert _uapi.U_DMA_BUF_IOCTL_GET_SYNC == 0x80185508
    assert _uapi.U_DMA_BUF_IOCTL_SET_SYNC == 0x40185509
    assert _uapi.U_DMA_BUF_IOCTL_EXPORT == 0xC028550A


def test_u_dma_buf_struct_sizes():
    assert _uapi.u_dma_buf_ioctl_dev_info.size == 24
    assert _uapi.u_dma_buf_ioctl_sync_args.size == 24
    assert _uapi.u_dma_buf_ioctl_export_args.size == 40


def test_uiomem_numbers_match_header():
    assert _uapi.uiomem_query.size == 96
    assert _uapi.uiomem_sync.size == 40
    assert _uapi.UIOMEM_IOCTL_QUERY == 0x806075C0
    assert _uapi.UIOMEM_IOCTL_SYNC == 0x402875C1


def test_layout_make_and_parse_by_field_name():
    raw = _uapi.u_dma_buf_ioctl_export_args.make(size=4096, fd=-1)
    assert raw[8:16] == (4096).to_bytes(8, sys.byteorder)
    assert raw[32:36] == b"\xff\xff\xff\xff"
    out = _uapi.u_dma_buf_ioctl_export_args.parse(raw)
    assert (out["flags"], out["size"], out["fd"], out["reserved"]) == (0, 4096, -1, 0)
    with pytest.raises(TypeError):
        _uapi.uiomem_sync.make(lenght=1)
