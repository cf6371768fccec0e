# SPDX-License-Identifier: GPL-2.0 OR MIT
"""The documented example really runs: a pattern through the edu DMA engine and back."""

from __future__ import annotations

import glob
import os
import subprocess
import sys

import pytest

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "examples")


def test_edu_round_trip_example(udmabuf, capsys):
    if not os.path.exists("/dev/u-dma-buf-mgr"):
        pytest.skip("u-dma-buf-mgr is not loaded")
    if not any(open(p).read().strip() == "0x11e8"
               for p in glob.glob("/sys/bus/pci/devices/*/device")):
        pytest.skip("no edu PCI device")
    r = subprocess.run([sys.executable, os.path.join(EXAMPLES, "edu_roundtrip.py")],
                       capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert r.returncode == 0, r.stderr
    assert "verified" in r.stdout
    with capsys.disabled():  # into the console log, for docs/python.md
        print("\n# edu_roundtrip.py: " + r.stdout.strip())


def test_ten_line_example(udmabuf, capsys):
    if not os.path.exists("/dev/u-dma-buf-mgr"):
        pytest.skip("u-dma-buf-mgr is not loaded")
    r = subprocess.run([sys.executable, os.path.join(EXAMPLES, "ten_lines.py")],
                       capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.split()
    assert lines[0].startswith("0x") and lines[1] == "2048"
    with capsys.disabled():
        print("\n# ten_lines.py: " + " | ".join(lines))
