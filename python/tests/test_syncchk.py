# SPDX-License-Identifier: GPL-2.0 OR MIT
"""install_sync_check_handler(): a strict-mode SIGBUS names buffer, offset and line.

The handler is libudmem's (C): the tests build libudmem from lib/ with the C
compiler they find, and SKIP without one.  On the host a fake buffer gets
its SIGBUS from a file mapped past its end over part of the mapping; in a
guest, deliberately wrong programs touch pages a strict buffer's device owns,
and the Python examples run clean with the checker strict.
"""

from __future__ import annotations

import ctypes
import gc
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
from typing import Any

import pytest

import udmem
from udmem import _syncchk

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
HERE = os.path.dirname(os.path.abspath(__file__))
LINE = "udmem: {} offset {:#x}: CPU access to device-owned memory (sync checker)"


@pytest.fixture(scope="session")
def built_libudmem(tmp_path_factory: pytest.TempPathFactory) -> str | None:
    """libudmem.so.1 built from lib/ (its exported symbols and versions), or
    None without a C compiler (the Python roots of the ARM guests)."""
    cc = shutil.which("cc") or shutil.which("gcc")
    lib = os.path.join(TOP, "lib")
    if cc is None or not os.path.isfile(os.path.join(lib, "syncchk.c")):
        return None
    out = str(tmp_path_factory.mktemp("libudmem") / "libudmem.so.1")
    srcs = [c for c in sorted(glob.glob(os.path.join(lib, "*.c")))
            if os.path.basename(c) != "size.c"]  # the tools', not the library's
    r = subprocess.run([cc, "-std=gnu11", "-D_GNU_SOURCE", "-O0", "-fPIC", "-shared",
                        "-fvisibility=hidden", "-I", lib,
                        "-I", os.path.join(TOP, "include", "uapi"),
                        "-Wl,--version-script=" + os.path.join(lib, "libudmem.map"),
                        "-o", out, *srcs, "-lpthread"], capture_output=True, text=True)
    if r.returncode:
        pytest.fail(f"building libudmem: {r.stderr[-600:]}")
    return out


@pytest.fixture
def libudmem(built_libudmem: str | None) -> str:
    if built_libudmem is None:
        pytest.skip("no C compiler to build libudmem from lib/ (the handler is libudmem's)")
    return built_libudmem


def _python(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run CODE in a new interpreter that imports this udmem."""
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True,
                          text=True, timeout=600,
                          env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))


def _line_of(code: str, marker: str) -> str:
    """faulthandler's words for the line of CODE that holds MARKER."""
    n = next(i for i, x in enumerate(code.splitlines(), 1) if marker in x)
    return f'File "<string>", line {n}'


def _died_of_sigbus_naming(r: subprocess.CompletedProcess[str], name: str, offset: int,
                           where: str) -> None:
    assert r.returncode == -signal.SIGBUS, f"exit {r.returncode}: {r.stderr[-800:]}"
    assert LINE.format(name, offset) in r.stderr.splitlines(), r.stderr[-800:]
    # faulthandler's traceback names the line that touched the page
    assert "Fatal Python error: Bus error" in r.stderr, r.stderr[-800:]
    assert where in r.stderr, r.stderr[-800:]


# ---- host: no driver needed

def test_without_libudmem_the_error_says_what_is_missing(tmp_path):
    with pytest.raises(OSError, match="needs libudmem 1.6 or later"):
        udmem.install_sync_check_handler(str(tmp_path / "libudmem.so.1"))
    assert _syncchk._lib is None


def test_an_older_libudmem_is_refused(tmp_path):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler to build a stand-in for libudmem 1.5")
    src = tmp_path / "old.c"
    src.write_text("int udmem_sync_check_handler_install(void) { return 0; }\n")
    lib = tmp_path / "libold.so"
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(lib), str(src)], check=True)
    with pytest.raises(OSError, match="older than libudmem 1.6"):
        udmem.install_sync_check_handler(str(lib))
    assert _syncchk._lib is None


def test_mappings_are_noted_while_they_live(fake_tree):
    name = fake_tree("u-dma-buf", "fakebuf", size=65536)
    buf = udmem.Buffer.open(name)
    assert _syncchk._maps.get(buf._va, ("", 0))[:2] == ("fakebuf", 65536)
    va = buf._va
    buf.close()
    assert va not in _syncchk._maps
    # the mapping goes with the last view when the Buffer is dropped
    buf = udmem.Buffer.open(name)
    view = buf.asarray("u4")
    va = buf._va
    del buf
    gc.collect()
    assert va in _syncchk._maps
    del view
    gc.collect()
    assert va not in _syncchk._maps


# The child opens a fake buffer (over /dev/zero), installs the handler before
# or after, and puts a file mapped past its end over one page of the buffer's
# mapping: touching that page is a SIGBUS with si_addr inside the buffer.
FAKE_CHILD = r"""
import ctypes, mmap, os, sys
import udmem
from udmem import _device
_device.SYSFS_CLASS, _device.DEV, lib, order, empty = sys.argv[1:6]
if order == "before":
    udmem.install_sync_check_handler(lib)
buf = udmem.Buffer.open("fakebuf")
if order == "after":
    udmem.install_sync_check_handler(lib)
a = buf.asarray()
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                      ctypes.c_int, ctypes.c_long]
fd = os.open(empty, os.O_RDONLY)
page = buf._va + 0x2000
assert libc.mmap(page, 0x1000, mmap.PROT_READ, mmap.MAP_SHARED | 0x10, fd, 0) == page
print(a[0x2010])  # touch
"""


@pytest.mark.parametrize("order", ["before", "after"])
def test_fault_in_a_mapping_names_buffer_offset_and_line(fake_tree, libudmem, tmp_path, order):
    fake_tree("u-dma-buf", "fakebuf", size=65536)
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    from udmem import _device
    r = _python(FAKE_CHILD, _device.SYSFS_CLASS, _device.DEV, libudmem, order, str(empty))
    _died_of_sigbus_naming(r, "fakebuf", 0x2010, _line_of(FAKE_CHILD, "# touch"))


def test_fault_outside_the_mappings_gets_no_line(fake_tree, libudmem, tmp_path):
    code = r"""
import ctypes, mmap, os, sys
import udmem
udmem.install_sync_check_handler(sys.argv[1])
fd = os.open(sys.argv[2], os.O_RDWR)
m = mmap.mmap(fd, 4096, mmap.MAP_SHARED, mmap.PROT_READ)
os.ftruncate(fd, 0)
print(m[16])
"""
    page = tmp_path / "page"
    page.write_bytes(bytes(4096))
    r = _python(code, libudmem, str(page))
    assert r.returncode == -signal.SIGBUS, r.stderr
    assert "udmem:" not in r.stderr
    assert "Fatal Python error: Bus error" in r.stderr


# ---- a guest: the real driver, a strict buffer

WRONG = r"""
import sys
import udmem
name, lib, case = sys.argv[1:4]
udmem.install_sync_check_handler(lib)
buf = udmem.Buffer.open(name)
a = buf.asarray()
a[:] = 7
if case == "read-without-sync-for-cpu":
    buf.sync_for_device()           # the device owns it all
    x = a[0x3024]                   # touch read-without-sync-for-cpu
elif case == "write-after-flush":
    a[:0x8000].flush()              # handed to the device (it reads)
    a[0x5010] = 1                   # touch write-after-flush
elif case == "wrong-range":
    buf.sync_for_device()
    buf.sync_for_cpu(0, 0x1000)     # took back only the first page
    x = a[0x2ff0]                   # touch wrong-range
print("not caught")
"""
WRONG_CASES = {"read-without-sync-for-cpu": 0x3024, "write-after-flush": 0x5010,
               "wrong-range": 0x2ff0}


@pytest.fixture
def strict_buffer(udmabuf: str) -> Any:
    """A 64 KiB buffer made with the sync checker strict; yields its name."""
    if not os.path.exists("/dev/u-dma-buf-mgr"):
        pytest.skip("u-dma-buf-mgr is not loaded")
    name = f"udmem-py-sc-{os.getpid()}"
    udmem.Buffer.create(name, 0x10000, mmap_mode="on", sync_check="strict")
    try:
        with udmem.Buffer.open(name) as buf:
            mode = buf.sync_check
        if mode != "strict":
            pytest.skip(f"the sync checker could not be switched on (sync_check={mode})")
        yield name
    finally:
        udmem.Buffer.delete(name)


@pytest.mark.parametrize("case", list(WRONG_CASES))
def test_wrong_program_dies_naming_buffer_and_offset(strict_buffer, libudmem, case):
    r = _python(WRONG, strict_buffer, libudmem, case)
    _died_of_sigbus_naming(r, strict_buffer, WRONG_CASES[case], _line_of(WRONG, "# touch " + case))
    with udmem.Buffer.open(strict_buffer) as buf:
        assert buf.ownership_violations >= 1


def _run_checked(libudmem: str | None, script: str, *args: str) -> list[dict[str, Any]]:
    """Run python/examples/SCRIPT with every buffer it allocates strict; their counters.

    Without libudmem a violation still ends the run with SIGBUS, only unnamed.
    """
    r = subprocess.run([sys.executable, os.path.join(HERE, "syncchk_run.py"), libudmem or "",
                        os.path.join(TOP, "python", "examples", script), *args],
                       capture_output=True, text=True, timeout=600,
                       env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert r.returncode == 0, r.stderr[-1500:]
    report = [json.loads(x[len("syncchk-run: "):]) for x in r.stderr.splitlines()
              if x.startswith("syncchk-run: ")]
    assert report, f"the example allocated no buffer: {r.stderr[-800:]}"
    return report


def test_ten_line_example_is_clean_with_the_checker_strict(udmabuf, built_libudmem):
    if not os.path.exists("/dev/u-dma-buf-mgr"):
        pytest.skip("u-dma-buf-mgr is not loaded")
    for b in _run_checked(built_libudmem, "ten_lines.py"):
        if b["sync_check"] != "strict":
            pytest.skip(f"the sync checker could not be switched on: {b}")
        assert b["ownership_violations"] == 0, b


def test_edu_example_is_clean_with_the_checker_strict(udmabuf, built_libudmem):
    if not os.path.exists("/dev/u-dma-buf-mgr"):
        pytest.skip("u-dma-buf-mgr is not loaded")
    if not any(open(p).read().strip() == "0x11e8"
               for p in glob.glob("/sys/bus/pci/devices/*/device")):
        pytest.skip("no edu PCI device")
    for b in _run_checked(built_libudmem, "edu_roundtrip.py"):
        if b["sync_check"] != "strict":
            pytest.skip(f"the sync checker could not be switched on: {b}")
        assert b["ownership_violations"] == 0, b


def test_unwatch_runs_on_close_with_the_handler_on(fake_tree, libudmem):
    # In this process: close() hands the mapping back to libudmem's table.
    code = r"""
import ctypes, sys
import udmem
from udmem import _device, _syncchk
_device.SYSFS_CLASS, _device.DEV, lib = sys.argv[1:4]
udmem.install_sync_check_handler(lib)
buf = udmem.Buffer.open("fakebuf")
va = buf._va
buf.close()
# gone from the table: unwatch finds nothing there any more
print(_syncchk._lib.udmem_sync_check_unwatch(ctypes.c_void_p(va)))
"""
    fake_tree("u-dma-buf", "fakebuf", size=65536)
    from udmem import _device
    r = _python(code, _device.SYSFS_CLASS, _device.DEV, libudmem)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [str(-2)]  # -ENOENT


def test_ctypes_sees_the_new_symbols(libudmem):
    lib = ctypes.CDLL(libudmem)
    assert hasattr(lib, "udmem_sync_check_watch") and hasattr(lib, "udmem_sync_check_unwatch")
