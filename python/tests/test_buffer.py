# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Buffer and allocate() against the real u-dma-buf and u-dma-buf-mgr modules.

Without the modules (a host, no root) every test here SKIPs with the reason.
"""

from __future__ import annotations

import errno
import glob
import mmap
import os

import numpy as np
import pytest

import udmem


def sysfs(name: str, attr: str) -> int:
    with open(f"/sys/class/u-dma-buf/{name}/{attr}") as f:
        return int(f.read(), 0)


def exists(name: str) -> bool:
    return os.path.isdir(f"/sys/class/u-dma-buf/{name}")


def test_open_reports_the_driver_facts(udmabuf):
    with udmem.Buffer.open(udmabuf) as buf:
        assert buf.size == sysfs(udmabuf, "size")
        assert buf.physical_address == sysfs(udmabuf, "phys_addr")
        assert buf.device_address == sysfs(udmabuf, "phys_addr")
        assert buf.coherent == bool(sysfs(udmabuf, "dma_coherent"))
        assert buf.sync_mode == sysfs(udmabuf, "sync_mode")
        assert 12 <= buf.dma_mask_bits <= 64


def test_data_round_trip_through_the_device_file(udmabuf):
    with udmem.Buffer.open(udmabuf) as buf:
        a = buf.asarray("u4")
        a[:] = np.arange(a.size, dtype="u4") * 2654435761
        a.flush()
        with open(f"/dev/{udmabuf}", "rb") as f:
            back = np.frombuffer(f.read(buf.size), dtype="u4")
        assert np.array_equal(back, a)
        pattern = np.random.default_rng(1).integers(0, 256, buf.size, dtype=np.uint8)
        os.pwrite(buf.fileno, pattern.tobytes(), 0)
        a.invalidate()
        assert np.array_equal(buf.asarray(), pattern)
        del a, back


def test_slice_sync_covers_only_its_bytes(udmabuf):
    with udmem.Buffer.open(udmabuf) as buf:
        a = buf.asarray("u4")
        s = a[1024:1536]
        s.flush()
        assert sysfs(udmabuf, "sync_offset") == 4096
        assert sysfs(udmabuf, "sync_size") == 2048
        assert sysfs(udmabuf, "sync_direction") == udmem.TO_DEVICE
        assert buf.sync_owner == "device"
        s.invalidate()
        assert sysfs(udmabuf, "sync_direction") == udmem.FROM_DEVICE
        assert buf.sync_owner == "cpu"
        a[16:32:4].sync_to_device()
        assert (sysfs(udmabuf, "sync_offset"), sysfs(udmabuf, "sync_size")) == (64, 52)
        del a, s


def test_slices_carry_physical_addresses(udmabuf):
    with udmem.Buffer.open(udmabuf) as buf:
        m = buf.asarray("u2", (64, 128))
        assert m.physical_address == buf.physical_address
        assert m[3].physical_address == buf.physical_address + 3 * 256
        assert m[3, 10:].device_address == buf.device_address + 3 * 256 + 20
        del m


def test_close_with_live_view_raises(udmabuf):
    buf = udmem.Buffer.open(udmabuf)
    v = buf.asarray("u1")[100:200]
    with pytest.raises(BufferError):
        buf.close()
    v[:] = 1  # still mapped
    del v
    buf.close()
    assert buf.closed


def test_sync_outside_the_buffer_raises(udmabuf):
    with udmem.Buffer.open(udmabuf) as buf:
        with pytest.raises(ValueError):
            buf.sync_for_cpu(buf.size, 16)
        with pytest.raises(ValueError):
            buf.sync_for_device(0, buf.size + 1)


def test_export_dmabuf_shares_the_memory(udmabuf):
    with udmem.Buffer.open(udmabuf) as buf:
        fd, addr = buf.export_dmabuf()
        try:
            assert addr == buf.device_address
            with mmap.mmap(fd, buf.size & ~(mmap.PAGESIZE - 1)) as m:
                a = buf.asarray("u1", 16)
                a[:] = np.arange(16, dtype="u1")
                assert m[:16] == bytes(range(16))
                del a
        finally:
            os.close(fd)


def test_allocate_round_trip_and_with_frees(udmabuf):
    with udmem.allocate((32, 32), dtype="u4") as a:
        name = a.buffer.name
        assert exists(name)
        assert a.shape == (32, 32) and a.dtype == np.uint32
        assert a.physical_address == sysfs(name, "phys_addr")
        a[:] = 0x5A5A5A5A
        a.flush()
        with open(f"/dev/{name}", "rb") as f:
            assert f.read(8) == b"\x5a" * 8
        a.invalidate()
        assert a.coherent in (True, False) and a.cacheable == (not a.coherent)
    assert not exists(name)
    with pytest.raises(ValueError):
        _ = a.physical_address
    assert not a.any()  # zero pages, never freed memory


def test_freebuffer_with_other_views_alive_detaches_them(udmabuf):
    a = udmem.allocate(1024, dtype="u1")
    name = a.buffer.name
    s = a[512:]
    r = a.reshape(32, 32)
    p = np.asarray(a)[:16]  # a plain ndarray view
    a[:] = 0xA5
    a.freebuffer()
    assert not exists(name)  # freed now, not when the views die
    for v in (a, s, r, p):
        assert not v.any()  # zero pages, never freed memory
    s[0] = 1  # writable private memory: reaches no device
    assert r[16, 0] == 1
    with pytest.raises(ValueError, match="closed"):
        _ = s.physical_address
    with pytest.raises(ValueError, match="closed"):
        r.flush()
    a.freebuffer()  # twice is harmless
    s.freebuffer()


def test_pynq_style_script_frees_with_views_alive(udmabuf):
    """What a PYNQ user writes: fill, flush, invalidate a slice, reshape, free."""
    buf = udmem.allocate(shape=(4096,), dtype="u4")
    name = buf.buffer.name
    buf[:] = np.arange(4096, dtype="u4")
    buf.flush()
    with open(f"/dev/{name}", "rb") as f:
        assert np.array_equal(np.frombuffer(f.read(16384), dtype="u4"), buf)
    half = buf[2048:]
    os.pwrite(buf.buffer.fileno, np.full(2048, 7, dtype="u4").tobytes(), 8192)
    half.invalidate()
    assert sysfs(name, "sync_offset") == 8192
    assert sysfs(name, "sync_size") == 8192
    assert (half == 7).all() and buf[2047] == 2047
    image = buf.reshape(64, 64)
    assert image[63, 63] == 7 and image.physical_address == buf.physical_address
    buf.freebuffer()
    assert not exists(name)
    assert not half.any() and not image.any() and not buf.any()
    image[0, 0] = 3
    assert buf[0] == 3
    del buf, half, image


def test_allocate_options_reach_the_driver(udmabuf):
    a = udmem.allocate(4096, dtype="u1", dma_mask_bits=32, mmap_mode="off")
    try:
        assert a.buffer.dma_mask_bits == 32
        assert a.buffer.mmap_mode == "off"
    finally:
        a.freebuffer()


def test_create_delete_and_errors(udmabuf):
    udmem.Buffer.create("py-t0", 8192)
    try:
        assert "py-t0" in udmem.Buffer.list()
        with pytest.raises(FileExistsError):
            udmem.Buffer.create("py-t0", 4096)
        with udmem.Buffer.open("py-t0") as b:
            assert b.size == 8192
    finally:
        udmem.Buffer.delete("py-t0")
    with pytest.raises(FileNotFoundError):
        udmem.Buffer.delete("py-t0")
    with pytest.raises(ValueError):
        udmem.Buffer.create("x;delete udmabuf0", 4096)


def test_open_errors_name_the_device(udmabuf):
    with pytest.raises(FileNotFoundError, match="py-nosuch"):
        udmem.Buffer.open("py-nosuch")
    with pytest.raises(OSError) as e:
        udmem.Buffer.open("null")
    assert e.value.errno == errno.ENODEV


def test_uncached_open_round_trips(udmabuf):
    with udmem.Buffer.open(udmabuf, cacheable=False) as buf:
        a = buf.asarray("u4", 1024)
        a[:] = np.arange(1024, dtype="u4") + 7
        with open(f"/dev/{udmabuf}", "rb") as f:
            assert np.array_equal(np.frombuffer(f.read(4096), dtype="u4"), a)
        del a


def test_device_tree_buffers_report_their_coherence(udmabuf):
    """The DT targets' buses: udmem-t-fabric is dma-coherent, udmem-t-soc is not."""
    if not exists("udmabuf-soc-high") or not exists("udmabuf-fabric-low"):
        pytest.skip("no device-tree buffers here (not a device-tree target)")
    with udmem.Buffer.open("udmabuf-fabric-low") as buf:
        assert buf.coherent is True
        assert buf.dma_mask_bits == 32
    with udmem.Buffer.open("udmabuf-soc-high") as buf:
        assert buf.coherent is (sysfs("udmabuf-soc-high", "dma_coherent") == 1)
        a = buf.asarray("u4", 4096)
        a[:] = np.arange(4096, dtype="u4") ^ 0xC0FFEE
        a.flush()  # the device (here the file interface) must see the CPU's data
        with open("/dev/udmabuf-soc-high", "rb") as f:
            assert np.array_equal(np.frombuffer(f.read(16384), dtype="u4"), a)
        os.pwrite(buf.fileno, np.full(1024, 0xAB, dtype="u4").tobytes(), 4096)
        a[1024:2048].invalidate()
        assert (a[1024:2048] == 0xAB).all() and a[0] == 0xC0FFEE
        del a


def test_noncoherent_buffer_on_arm_is_not_coherent(udmabuf):
    """dma-noncoherent on the ARM targets' SoC bus: the buffer must say so."""
    arch = os.uname().machine
    if not arch.startswith(("aarch64", "arm")):
        pytest.skip(f"dma-noncoherent is an ARM target's property here, not {arch}'s")
    if not exists("udmabuf-soc-high"):
        pytest.skip("no device-tree buffers here (not a device-tree target)")
    assert sysfs("udmabuf-soc-high", "dma_coherent") == 0
    with udmem.Buffer.open("udmabuf-soc-high") as buf:
        assert buf.coherent is False


def _platform_device_of_node(node: str) -> str | None:
    """The platform device made from the device-tree node NODE, if any."""
    for dev in glob.glob("/sys/bus/platform/devices/*"):
        if os.path.basename(os.path.realpath(dev + "/of_node")) == node:
            return os.path.basename(dev)
    return None


def _edu() -> str | None:
    for dev in glob.glob("/sys/bus/pci/devices/*"):
        with open(dev + "/vendor") as f, open(dev + "/device") as g:
            if (f.read().strip(), g.read().strip()) == ("0x1234", "0x11e8"):
                return os.path.basename(dev)
    return None


def test_create_additions_refused_before_the_manager():
    """Combinations the driver refuses are ValueErrors before anything is written."""
    with pytest.raises(ValueError, match="not device="):
        udmem.Buffer.create("py-t1", 4096, device="x", dma_coherent=True)
    with pytest.raises(ValueError, match="needs device="):
        udmem.Buffer.create("py-t1", 4096, keep_contents=True)
    for bad in ("", "/x", "a/b/c", "pci/", "x y", "x;delete udmabuf0", "x=1"):
        with pytest.raises(ValueError, match="BUS/"):
            udmem.Buffer.create("py-t1", 4096, device=bad)


def test_create_dma_coherent(udmabuf):
    """dma_coherent (u-dma-buf issues #69, #127): the new device is coherent."""
    try:
        udmem.Buffer.create("py-t1", 65536, dma_coherent=True)
    except OSError as e:
        if e.errno == errno.EOPNOTSUPP:
            pytest.skip("this kernel chose its DMA operations at device setup (ARM before 5.19)")
        raise
    try:
        assert sysfs("py-t1", "dma_coherent") == 1
        with udmem.Buffer.open("py-t1") as buf:
            assert buf.coherent is True
    finally:
        udmem.Buffer.delete("py-t1")


def test_create_on_device_and_keep_contents_without_region(udmabuf):
    """device= binds to the edu device; keep_contents there: EINVAL (no memory-region)."""
    edu = _edu()
    if edu is None:
        pytest.skip("no edu PCI device in this guest")
    udmem.Buffer.create("py-t1", 16384, device=f"pci/{edu}")
    try:
        assert os.path.basename(os.path.realpath("/sys/class/u-dma-buf/py-t1/device")) == edu
    finally:
        udmem.Buffer.delete("py-t1")
    with pytest.raises(OSError) as e:
        udmem.Buffer.create("py-t1", 16384, device=f"pci/{edu}", keep_contents=True)
    assert e.value.errno == errno.EINVAL
    assert not exists("py-t1")


def test_keep_contents_survives_delete_and_create(udmabuf):
    """keep_contents (u-dma-buf issue #55): data written before a delete is there after."""
    parent = _platform_device_of_node("udmem-t-keep-parent")
    if parent is None:
        pytest.skip("no device-tree node udmem-t-keep-parent (not a device-tree target)")
    data = np.arange(4096, dtype="u4") ^ os.getpid()
    a = udmem.allocate(4096, "u4", device=parent, keep_contents=True, name="py-keep")
    with a:
        a[:] = data
        a.flush()
    assert not exists("py-keep")
    a = udmem.allocate(4096, "u4", device=parent, keep_contents=True, name="py-keep")
    with a:
        a.invalidate()
        assert np.array_equal(a, data)


def test_sync_check_bad_mode_refused_before_the_manager():
    with pytest.raises(ValueError):
        udmem.Buffer.create("py-sc", 65536, sync_check="loud")


def test_sync_check_counts_a_missing_sync(udmabuf):
    udmem.Buffer.create("py-sc", 65536, mmap_mode="on", sync_check="report")
    done = False
    try:
        with udmem.Buffer.open("py-sc") as buf:
            assert buf.sync_check == "report"
            assert buf.ownership_violations == 0
            a = buf.asarray()
            a[:] = 7
            buf.sync_for_device()
            assert int(a[8192]) == 7        # the device owns it: counted
            assert buf.ownership_violations == 1
            buf.sync_for_cpu()
            assert int(a[12288]) == 7       # handed back: clean
            assert buf.ownership_violations == 1
            buf.sync_for_cpu()              # nothing to hand back
            assert buf.redundant_syncs == 1
            buf.sync_check = "off"
            assert buf.sync_check == "off"
            with pytest.raises(ValueError):
                buf.sync_check = "loud"
            del a
        done = True
    finally:
        # After a failed assert the traceback still holds the array: busy.
        try:
            udmem.Buffer.delete("py-sc")
        except OSError:
            if done:
                raise
