# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Region against the real uiomem module over ivshmem's shared-memory BAR."""

from __future__ import annotations

import errno
import fcntl
import mmap
import os
import struct

import numpy as np
import pytest

import udmem


def sysfs(name: str, attr: str) -> int:
    with open(f"/sys/class/uiomem/{name}/{attr}") as f:
        return int(f.read(), 0)


def test_open_reports_the_driver_facts(uiomem_region):
    with udmem.Region.open(uiomem_region) as r:
        assert r.size == sysfs(uiomem_region, "size")
        assert r.physical_address == sysfs(uiomem_region, "phys_addr")
        assert r.device_address == r.physical_address
        assert r.sync_mode == sysfs(uiomem_region, "sync_mode")


def test_sync_owner_follows_the_syncs(uiomem_region):
    """sync_mode and sync_owner come from the 1.1 ioctls and agree with sysfs."""
    with udmem.Region.open(uiomem_region) as r:
        r.sync_for_device(0, 64)
        assert r.sync_owner == "device" and sysfs(uiomem_region, "sync_owner") == 1
        r.sync_for_cpu(0, 64)
        assert r.sync_owner == "cpu" and sysfs(uiomem_region, "sync_owner") == 0


def test_sync_check_catches_a_read_without_sync_for_cpu(uiomem_region):
    """Region.sync_check switches the checker; its counters read back."""
    with udmem.Region.open(uiomem_region) as r:
        assert r.sync_check == "off"
        with pytest.raises(ValueError):
            r.sync_check = "loud"
        r.sync_check = "report"
        try:
            assert r.sync_check == "report"
            for attr in ("ownership_violations", "redundant_syncs"):
                with open(f"/sys/class/uiomem/{uiomem_region}/{attr}", "w") as f:
                    f.write("0")
            r.sync_for_device(0, 4096)
            r.sync_for_cpu(0x1000, 4096)      # the CPU owned these: redundant
            r.sync_for_cpu(0x2000, 4096)
            assert r.redundant_syncs == sysfs(uiomem_region, "redundant_syncs") == 2
            # report mode: the read goes on and is counted
            os.pread(r.fileno, 16, 0)
            assert r.ownership_violations == sysfs(uiomem_region, "ownership_violations") == 1
            r.sync_for_cpu(0, 4096)
            os.pread(r.fileno, 16, 0)
            assert r.ownership_violations == 1
        finally:
            r.sync_check = "off"


def test_data_round_trip_through_the_device_file(uiomem_region):
    with udmem.Region.open(uiomem_region) as r:
        a = r.asarray("u8", offset=4096)
        a[:] = np.arange(a.size, dtype="u8") ^ 0x0123456789ABCDEF
        a.flush()
        back = np.frombuffer(os.pread(r.fileno, a.nbytes, 4096), dtype="u8")
        assert np.array_equal(back, a)
        os.pwrite(r.fileno, bytes(range(256)) * 16, 0)
        head = r.asarray("u1", 4096)
        head.invalidate()
        assert bytes(head) == bytes(range(256)) * 16
        del a, back, head


def test_slice_sync_is_one_call_over_its_lines(uiomem_region):
    with udmem.Region.open(uiomem_region) as r:
        a = r.asarray("u4")
        before = r.query()
        a[100:116].flush()
        after = r.query()
        assert after["sync_calls"] - before["sync_calls"] == 1
        line = before["cache_line_size"]
        if line:
            assert after["sync_lines"] - before["sync_lines"] <= 64 // line + 2
        assert a[100:].physical_address == r.physical_address + 400
        del a


def test_close_with_live_view_raises(uiomem_region):
    r = udmem.Region.open(uiomem_region)
    v = r.asarray("u2")
    with pytest.raises(BufferError):
        r.close()
    del v
    r.close()


def test_region_is_not_a_buffer(uiomem_region):
    with pytest.raises(OSError):
        udmem.Buffer.open(uiomem_region)
    assert uiomem_region in udmem.Region.list()


def test_uncached_open_round_trips(uiomem_region):
    with udmem.Region.open(uiomem_region, cacheable=False) as r:
        a = r.asarray("u4", 256)
        a[:] = np.arange(256, dtype="u4") * 3
        back = np.frombuffer(os.pread(r.fileno, 1024, 0), dtype="u4")
        assert np.array_equal(back, a)
        del a, back


def test_export_dmabuf_of_device_memory(uiomem_region):
    """A page of the region as a DMA-BUF: its size, no mmap, syncs, bad ranges."""
    with udmem.Region.open(uiomem_region) as reg:
        fd = reg.export_dmabuf(mmap.PAGESIZE, mmap.PAGESIZE)
        try:
            assert os.lseek(fd, 0, os.SEEK_END) == mmap.PAGESIZE
            with pytest.raises(OSError) as e:
                mmap.mmap(fd, mmap.PAGESIZE)
            assert e.value.errno == errno.EINVAL
            # DMA_BUF_IOCTL_SYNC: _IOW('b', 0, __u64), START|RW then END|RW
            sync = (1 << 30) | (8 << 16) | (ord("b") << 8)
            fcntl.ioctl(fd, sync, struct.pack("=Q", 3))
            fcntl.ioctl(fd, sync, struct.pack("=Q", 4 | 3))
        finally:
            os.close(fd)
        with pytest.raises(OSError) as e:
            reg.export_dmabuf(1, mmap.PAGESIZE)
        assert e.value.errno == errno.EINVAL
        with pytest.raises(OSError) as e:
            reg.export_dmabuf(0, reg.size + mmap.PAGESIZE)
        assert e.value.errno == errno.EINVAL
