# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Name the buffer and offset of a sync checker SIGBUS (docs/sync-checker.md).

A strict-mode SIGBUS is a fault of the interpreter's own memory access: a
Python signal handler only runs between byte codes, after the faulting
instruction would have to return, so it can never see it.  libudmem's
handler is C and runs on the fault: the package gives it the mappings it
makes (udmem_sync_check_watch(), libudmem 1.6) and lets faulthandler add
the Python traceback.  The process still dies of SIGBUS.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import faulthandler
import os
import threading

# The libudmem that gives the handler, once installed.
_lib: ctypes.CDLL | None = None
# Every live mapping of a Buffer or Region: address -> (name, size, token).
_maps: dict[int, tuple[str, int, object]] = {}
# Reentrant: a garbage collection under the lock may finalize a mapping.
_lock = threading.RLock()


def _load(library: str | None) -> ctypes.CDLL:
    names: list[str | None] = [library] if library else ["libudmem.so.1",
                                                        ctypes.util.find_library("udmem")]
    tried = []
    for name in names:
        if not name:
            continue
        try:
            lib = ctypes.CDLL(name)
        except OSError as e:
            tried.append(str(e))
            continue
        if not hasattr(lib, "udmem_sync_check_watch"):
            tried.append(f"{name} is older than libudmem 1.6 (no udmem_sync_check_watch)")
            continue
        return lib
    raise OSError(errno.ENOENT,
                  "udmem.install_sync_check_handler() needs libudmem 1.6 or later, whose "
                  "C SIGBUS handler names the buffer and offset; install libudmem (the "
                  "libudmem1 package, or `make -C lib install`) or pass library=PATH. "
                  "Without it, run python3 -X faulthandler for the Python line and read "
                  "the kernel log for the buffer and offset"
                  + (f" ({'; '.join(tried)})" if tried else ""))


def install_sync_check_handler(library: str | None = None) -> None:
    """Make a sync checker SIGBUS name the buffer, the offset and the Python line.

    With a buffer's sync checker in strict mode (``sync_check="strict"``),
    touching a page the device owns through a view kills the interpreter
    with SIGBUS.  After this call, it first writes to standard error::

        udmem: NAME offset 0x3024: CPU access to device-owned memory (sync checker)
        Fatal Python error: Bus error
        ...the Python traceback (faulthandler)...

    for the mappings of every Buffer and Region, open now or later.  The
    process still dies of SIGBUS: no exception can be raised from there.

    It needs libudmem 1.6 or later (``library``: its path; by default
    ``libudmem.so.1`` as the dynamic loader finds it) and raises OSError
    without it.  It enables :mod:`faulthandler` (on standard error) unless
    it is on already.  Calling it again does nothing.
    """
    global _lib
    with _lock:
        if _lib is not None:
            return
        lib = _load(library)
        lib.udmem_sync_check_handler_install.restype = ctypes.c_int
        lib.udmem_sync_check_handler_install.argtypes = []
        lib.udmem_sync_check_watch.restype = ctypes.c_int
        lib.udmem_sync_check_watch.argtypes = [ctypes.c_char_p, ctypes.c_void_p,
                                               ctypes.c_size_t]
        lib.udmem_sync_check_unwatch.restype = ctypes.c_int
        lib.udmem_sync_check_unwatch.argtypes = [ctypes.c_void_p]
        # faulthandler first: libudmem's handler writes its line, then hands
        # the signal on to faulthandler's, which prints the traceback.
        if not faulthandler.is_enabled():
            faulthandler.enable()
        ret = lib.udmem_sync_check_handler_install()
        if ret < 0:
            raise OSError(-ret, f"udmem_sync_check_handler_install: {os.strerror(-ret)}")
        _lib = lib
        for addr, (name, size, _token) in list(_maps.items()):
            _watch(lib, name, addr, size)


def _watch(lib: ctypes.CDLL, name: str, addr: int, size: int) -> None:
    # A full table (256 mappings) only costs the name in the message.
    lib.udmem_sync_check_watch(name.encode(), addr, size)


def mapped(name: str, addr: int, size: int) -> object:
    """A Buffer or Region has mapped [addr, addr+size); the token for unmapped()."""
    token = object()
    with _lock:
        _maps[addr] = (name, size, token)
        if _lib is not None:
            _watch(_lib, name, addr, size)
    return token


def unmapped(addr: int, token: object) -> None:
    """The mapping mapped() returned token for is gone."""
    with _lock:
        entry = _maps.get(addr)
        if entry is None or entry[2] is not token:
            return  # a newer mapping at the same address
        del _maps[addr]
        if _lib is not None:
            _lib.udmem_sync_check_unwatch(addr)
