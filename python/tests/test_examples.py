# SPDX-License-Identifier: GPL-2.0 OR MIT
"""The documented example really runs: a pattern through the edu DMA engine and back."""

from __future__ import annotations

import glob
import os
import struct
import subprocess
import sys

import pytest

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "examples")


def _to_console(text: str) -> None:
    """Show an example's output in a guest's console log (docs quote it)."""
    try:
        with open("/dev/console", "w") as f:
            f.write(f"\n# {text}\n")
    except OSError:
        pass


def _need_mgr() -> None:
    if not os.path.exists("/dev/u-dma-buf-mgr"):
        pytest.skip("u-dma-buf-mgr is not loaded")


def _need_edu() -> None:
    if not any(open(p).read().strip() == "0x11e8"
               for p in glob.glob("/sys/bus/pci/devices/*/device")):
        pytest.skip("no edu PCI device")


def _run_example(script: str, *args: str) -> str:
    """Run python/examples/SCRIPT as a user would; its standard output."""
    r = subprocess.run([sys.executable, os.path.join(EXAMPLES, script), *args],
                       capture_output=True, text=True, timeout=600,
                       env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_edu_round_trip_example(udmabuf):
    _need_mgr()
    _need_edu()
    out = _run_example("edu_roundtrip.py")
    assert "verified" in out
    _to_console("edu_roundtrip.py: " + out.strip())


def test_ten_line_example(udmabuf):
    _need_mgr()
    out = _run_example("ten_lines.py")
    lines = out.split()
    assert lines[0].startswith("0x") and lines[1] == "2048"
    _to_console("ten_lines.py: " + " | ".join(lines))


def _vgem_card() -> str | None:
    for card in sorted(glob.glob("/sys/class/drm/card*")):
        # vgem's platform device has no driver: match the device's name
        if os.path.basename(os.path.realpath(card + "/device")) == "vgem":
            return "/dev/dri/" + os.path.basename(card)
    return None


def test_dmabuf_import_example(udmabuf):
    """A vgem DMA-BUF imported, the edu device writes at its address, numpy reads it."""
    _need_mgr()
    _need_edu()
    card = _vgem_card()
    if card is None:
        pytest.skip("no vgem DRM card (vgem is not in this kernel or not loaded)")
    out = _run_example("dmabuf_import.py", card)
    assert "verified 2048 bytes" in out
    _to_console("dmabuf_import.py: " + " | ".join(out.strip().splitlines()))


def _vivid_capture_node() -> str | None:
    for node in sorted(glob.glob("/sys/class/video4linux/video*")):
        try:
            with open(node + "/name") as f:
                if "vid-cap" in f.read():
                    return "/dev/" + os.path.basename(node)
        except OSError:
            continue
    return None


def test_v4l2_capture_example(udmabuf):
    """vivid captures into DMA-BUF exports of a buffer; numpy views read the frames."""
    _need_mgr()
    if struct.calcsize("P") != 8:
        pytest.skip("v4l2_capture.py packs struct v4l2_buffer in the 64-bit layout only "
                    "(open: the 32-bit layout; it fails on armhf)")
    node = _vivid_capture_node()
    if node is None:
        pytest.skip("no vivid capture node (vivid is not in this kernel or not loaded)")
    out = _run_example("v4l2_capture.py", node)
    assert "captured 6 frames" in out
    _to_console("v4l2_capture.py: " + " | ".join(out.strip().splitlines()))
