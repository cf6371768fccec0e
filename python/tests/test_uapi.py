# SPDX-License-Identifier: GPL-2.0 OR MIT
"""The ioctl numbers and layouts match the C headers (values from the reference ABI)."""

from udmem import _uapi


def test_u_dma_buf_numbers_match_reference():
    assert _uapi.UDB_GET_SYNC_OWNER == 0x80045504
    assert _uapi.UDB_GET_DEV_INFO == 0x80185507
    assert _uapi.UDB_GET_SYNC == 0x80185508
    assert _uapi.UDB_SET_SYNC == 0x40185509
    assert _uapi.UDB_EXPORT == 0xC028550A


def test_u_dma_buf_struct_sizes():
    assert _uapi.UDB_DEV_INFO.size == 24
    assert _uapi.UDB_SYNC_ARGS.size == 24
    assert _uapi.UDB_EXPORT_ARGS.size == 40


def test_uiomem_numbers_match_header():
    assert _uapi.UIOMEM_QUERY.size == 96
    assert _uapi.UIOMEM_SYNC.size == 40
    assert _uapi.UIOMEM_IOCTL_QUERY == 0x806075C0
    assert _uapi.UIOMEM_IOCTL_SYNC == 0x402875C1
