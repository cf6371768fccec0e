# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Host tests on a fake device (/dev/zero behind a fake sysfs): views, addresses, lifetime."""

from __future__ import annotations

import errno
import gc

import numpy as np
import pytest

import udmem

PHYS = 0x40000000


@pytest.fixture
def buf(fake_tree):
    fake_tree("u-dma-buf", "fakebuf", size=65536, phys=PHYS)
    b = udmem.Buffer.open("fakebuf")
    yield b
    gc.collect()
    if not b.closed:
        b.close()


def test_open_reports_size_and_address(buf):
    assert buf.name == "fakebuf"
    assert buf.size == 65536
    assert buf.physical_address == PHYS
    assert buf.device_address == PHYS


def test_asarray_whole_buffer_defaults_to_bytes(buf):
    a = buf.asarray()
    assert a.dtype == np.uint8 and a.shape == (65536,)
    assert isinstance(a, udmem.UdmemArray)
    assert a.physical_address == PHYS


def test_asarray_shape_dtype_offset(buf):
    a = buf.asarray("u4", (4, 8), offset=256)
    assert a.shape == (4, 8) and a.dtype == np.uint32
    assert a.physical_address == PHYS + 256
    assert a.offset == 256


def test_slices_carry_their_own_address(buf):
    a = buf.asarray("u4")
    assert a[16:].physical_address == PHYS + 64
    assert a[16:32].device_address == PHYS + 64
    assert a[16:32][4:].physical_address == PHYS + 80
    m = a[: 64 * 64].reshape(64, 64)
    assert m[3].physical_address == PHYS + 3 * 64 * 4
    assert m[:, 5].physical_address == PHYS + 20


def test_reversed_view_range_starts_at_lowest_byte(buf):
    a = buf.asarray("u4", 16)
    assert a[::-1]._byte_range() == (0, 64)
    assert a[2:10:2]._byte_range() == (8, 36)


def test_views_share_memory_with_the_mapping(buf):
    a = buf.asarray("u4", 16)
    b = buf.asarray("u1", 64)
    a[:] = 0x01020304
    assert list(b[:4]) == [4, 3, 2, 1]


def test_arithmetic_result_has_no_address(buf):
    a = buf.asarray("u4", 16)
    c = a + 1
    with pytest.raises(ValueError, match="copy"):
        _ = c.physical_address
    with pytest.raises(ValueError):
        c.flush()


def test_asarray_out_of_bounds_raises(buf):
    with pytest.raises(ValueError):
        buf.asarray("u4", 16385)
    with pytest.raises(ValueError):
        buf.asarray("u1", 1, offset=65537)
    with pytest.raises(ValueError):
        buf.asarray("u4", 4, offset=2)


def test_close_while_view_alive_raises_then_succeeds(buf):
    a = buf.asarray("u4", 16)
    s = a[4:8]
    del a
    with pytest.raises(BufferError, match="still alive"):
        buf.close()
    assert not buf.closed
    s[0] = 7  # the mapping is still there
    assert s[0] == 7
    del s
    buf.close()
    assert buf.closed


def test_plain_ndarray_view_also_blocks_close(buf):
    v = np.asarray(buf.asarray("u4", 16))
    with pytest.raises(BufferError):
        buf.close()
    del v
    buf.close()


def test_with_block_closes(fake_tree):
    fake_tree("u-dma-buf", "fakebuf")
    with udmem.Buffer.open("fakebuf") as b:
        a = b.asarray("u2", 8)
        a[:] = 5
        del a
    assert b.closed
    with pytest.raises(ValueError, match="closed"):
        b.asarray()


def test_with_block_with_live_view_raises(fake_tree):
    fake_tree("u-dma-buf", "fakebuf")
    with pytest.raises(BufferError):
        with udmem.Buffer.open("fakebuf") as b:
            keep = b.asarray()
    del keep
    b.close()


def test_close_twice_is_harmless(buf):
    buf.close()
    buf.close()


def test_missing_name_is_enoent(fake_tree):
    with pytest.raises(FileNotFoundError):
        udmem.Buffer.open("nothere")


def test_name_of_another_driver_is_enodev(fake_tree):
    fake_tree("uiomem", "region0")
    with pytest.raises(OSError) as e:
        udmem.Buffer.open("region0")
    assert e.value.errno == errno.ENODEV


def test_bad_names_raise_value_error(fake_tree):
    for name in ("", "../etc", "a/b", "x;delete y", ".", "a" * 64):
        with pytest.raises(ValueError):
            udmem.Buffer.open(name)


def test_device_tree_style_name_opens(fake_tree):
    fake_tree("u-dma-buf", "amba:udmabuf@0x00")
    with udmem.Buffer.open("amba:udmabuf@0x00") as b:
        assert b.name == "amba:udmabuf@0x00"
    with pytest.raises(FileNotFoundError):
        udmem.Buffer.open("amba:other@0x10")


def test_readonly_view_cannot_be_written(fake_tree):
    fake_tree("u-dma-buf", "fakebuf")
    b = udmem.Buffer.open("fakebuf", readonly=True)
    a = b.asarray()
    with pytest.raises(ValueError):
        a[0] = 1
    del a
    b.close()


def test_region_open_on_fake_tree(fake_tree):
    fake_tree("uiomem", "uiomem9", size=8192, phys=0x10000000)
    with udmem.Region.open("uiomem9") as r:
        assert r.size == 8192 and r.physical_address == 0x10000000
        a = r.asarray("u8")
        assert a[1:].physical_address == 0x10000008
        del a


def test_list_reads_the_class_directory(fake_tree):
    fake_tree("u-dma-buf", "b1")
    fake_tree("u-dma-buf", "a0")
    assert udmem.Buffer.list() == ["a0", "b1"]
    assert udmem.Region.list() == []


def test_allocate_waits_for_udev_to_grant_the_new_node(fake_tree, monkeypatch):
    """A user in the udmem group gets EACCES until udev has chgrp'd the new
    /dev node: allocate() retries that, and gives up after UDEV_WAIT."""
    from udmem import buffer as bufmod

    fake_tree("u-dma-buf", "fake-new")
    monkeypatch.setattr(bufmod.Buffer, "create", staticmethod(lambda *a, **k: None))
    deleted = []
    monkeypatch.setattr(bufmod.Buffer, "delete", staticmethod(deleted.append))
    monkeypatch.setattr(bufmod.os, "geteuid", lambda: 1000)
    real_init = bufmod.Buffer.__init__
    calls = []

    def init(self, name, **kw):
        calls.append(name)
        if len(calls) < 3:
            raise PermissionError(13, "Permission denied")
        real_init(self, name, **kw)

    monkeypatch.setattr(bufmod.Buffer, "__init__", init)
    a = udmem.allocate(16, dtype="u1", name="fake-new")
    assert len(calls) == 3 and a.size == 16
    a.freebuffer()
    del a
    calls.clear()
    deleted.clear()
    monkeypatch.setattr(bufmod, "UDEV_WAIT", 0.05)
    monkeypatch.setattr(bufmod.Buffer, "__init__",
                        lambda self, name, **kw: (calls.append(name),
                                                  (_ for _ in ()).throw(
                                                      PermissionError(13, "denied"))))
    with pytest.raises(PermissionError):
        udmem.allocate(16, dtype="u1", name="fake-new")
    assert len(calls) > 1 and deleted == ["fake-new"]
