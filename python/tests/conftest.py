# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Fixtures: a fake device tree for host tests, real modules for guest tests.

Host tests need nothing.  Device tests need root and the udmem modules: set
UDMEM_MODULES to a directory holding u-dma-buf.ko, u-dma-buf-mgr.ko and
uiomem.ko (the guest harness does), or load them yourself; otherwise they
SKIP with the reason.
"""

from __future__ import annotations

import glob
import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

try:
    import udmem  # noqa: F401
except ImportError:
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))
    import udmem  # noqa: F401

from udmem import _device

MODULES = os.environ.get("UDMEM_MODULES", "")
BUF_SIZE = 1 << 20  # udmabuf0, made by module parameter


def _loaded(module: str) -> bool:
    return os.path.isdir(f"/sys/module/{module.replace('-', '_')}")


def _insmod(module: str, *params: str) -> bool:
    """Load MODULE from $UDMEM_MODULES; True if this call loaded it."""
    if _loaded(module):
        return False
    if os.geteuid() != 0:
        pytest.skip(f"{module} is not loaded and loading it needs root")
    path = os.path.join(MODULES, module + ".ko") if MODULES else ""
    if not path or not os.path.exists(path):
        pytest.skip(f"{module} is not loaded and UDMEM_MODULES has no {module}.ko")
    r = subprocess.run(["insmod", path, *params], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.fail(f"insmod {path} {' '.join(params)}: {r.stderr.strip()}")
    return True


def _rmmod(module: str) -> None:
    subprocess.run(["rmmod", module.replace("-", "_")], capture_output=True)


@pytest.fixture(scope="session")
def udmabuf() -> Iterator[str]:
    """u-dma-buf with udmabuf0 (1 MiB) and u-dma-buf-mgr loaded; yields "udmabuf0"."""
    loaded = []
    if _insmod("u-dma-buf", f"udmabuf0={BUF_SIZE}"):
        loaded.append("u-dma-buf")
    if _insmod("u-dma-buf-mgr"):
        loaded.append("u-dma-buf-mgr")
    if "udmabuf0" not in udmem.Buffer.list():
        pytest.skip("u-dma-buf is loaded without udmabuf0")
    yield "udmabuf0"
    for m in reversed(loaded):
        _rmmod(m)


def _ivshmem_bar() -> tuple[int, int] | None:
    """(start, size) of the ivshmem-plain shared-memory BAR, if there is one."""
    for dev in glob.glob("/sys/bus/pci/devices/*"):
        try:
            with open(dev + "/vendor") as f, open(dev + "/device") as g:
                if (f.read().strip(), g.read().strip()) != ("0x1af4", "0x1110"):
                    continue
            with open(dev + "/resource") as f:
                start, end, _ = (int(x, 16) for x in f.read().splitlines()[2].split())
            with open(dev + "/enable", "w") as f:
                f.write("1")
        except OSError:
            continue
        if start:
            return start, end - start + 1
    return None


@pytest.fixture(scope="session")
def uiomem_region() -> Iterator[str]:
    """uiomem loaded with uiomem0 over the ivshmem BAR (64 KiB of it); yields "uiomem0"."""
    if not _loaded("uiomem"):
        bar = _ivshmem_bar()
        if bar is None:
            pytest.skip("no ivshmem-plain device to back a uiomem region")
        loaded = _insmod("uiomem", f"uiomem0_addr={bar[0]:#x}", "uiomem0_size=0x10000")
    else:
        loaded = False
    if "uiomem0" not in udmem.Region.list():
        if loaded:
            _rmmod("uiomem")
        pytest.skip("uiomem is loaded without uiomem0")
    yield "uiomem0"
    if loaded:
        _rmmod("uiomem")


@pytest.fixture
def fake_tree(tmp_path, monkeypatch):
    """A fake /sys/class and /dev whose devices are /dev/zero (char 1:5).

    make(cls, name, size, phys) adds a device.  ioctls on /dev/zero fail with
    ENOTTY, so the package takes size and address from the fake sysfs.
    """
    sysfs = tmp_path / "sys"
    dev = tmp_path / "dev"
    dev.mkdir()
    monkeypatch.setattr(_device, "SYSFS_CLASS", str(sysfs))
    monkeypatch.setattr(_device, "DEV", str(dev))
    zero = os.stat("/dev/zero").st_rdev

    def make(cls: str, name: str, size: int = 65536, phys: int = 0x40000000) -> str:
        d = sysfs / cls / name
        d.mkdir(parents=True)
        (d / "dev").write_text(f"{os.major(zero)}:{os.minor(zero)}\n")
        (d / "size").write_text(f"{size}\n")
        (d / "phys_addr").write_text(f"{phys:#018x}\n")
        (dev / name).symlink_to("/dev/zero")
        return name

    make.dev = dev  # type: ignore[attr-defined]
    return make
