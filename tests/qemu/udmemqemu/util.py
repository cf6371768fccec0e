# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Logging and subprocess helpers shared by the harness."""

import subprocess
import sys
import threading


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# Per-thread switch for the guest output a run prints as it goes: the
# harness self-test breaks guests on purpose and keeps their noise to itself.
QUIET = threading.local()


def show(text: str) -> None:
    if not getattr(QUIET, "on", False):
        print(text, flush=True)


def run(cmd, **kw):
    """Run a command, raising with its output on failure."""
    kw.setdefault("check", True)
    if isinstance(cmd, str):
        kw.setdefault("shell", True)
    return subprocess.run(cmd, **kw)
