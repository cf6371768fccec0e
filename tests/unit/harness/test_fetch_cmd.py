# SPDX-License-Identifier: GPL-2.0 OR MIT
"""`udmem-qemu fetch` goes on past a target the archive does not serve.

A 404 for one target's packages (the archive lists them but does not serve
them) must not stop the fetch of the targets after it; the command names
the targets it could not fetch and exits 1.  Any other failure still stops
it, with its traceback.
"""
import argparse
import contextlib
import io
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "qemu"))

from tap import Tap  # noqa: E402
from udmemqemu import cli  # noqa: E402
from udmemqemu.apt import ArchiveMissing  # noqa: E402

TARGETS = ["arm64", "arm64-6.1-deb11", "x86_64"]


def main():
    tap = Tap()
    check = tap.check

    fetched = []

    def fake_fetch(conf):
        if "deb11" in conf.name:
            raise ArchiveMissing("404 Not Found")
        fetched.append(conf.name)

    cli.fetch = fake_fetch
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        rc = cli.cmd_fetch(argparse.Namespace(targets=TARGETS))
    check("fetch-goes-on-past-404", fetched == ["arm64", "x86_64"], f"fetched {fetched}")
    check("fetch-404-exit-status", rc == 1, f"exit status {rc}")
    check("fetch-404-names-target", "not served by the archive: arm64-6.1-deb11" in err.getvalue(),
          f"stderr: {err.getvalue()[-300:]!r}")

    def broken(conf):
        raise RuntimeError("dpkg-deb failed")

    cli.fetch = broken
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            cli.cmd_fetch(argparse.Namespace(targets=TARGETS))
        stopped = False
    except RuntimeError:
        stopped = True
    check("fetch-other-failure-stops", stopped, "a failure that is not a 404 was passed over")

    del fetched[:]
    cli.fetch = fake_fetch
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        rc = cli.cmd_fetch(argparse.Namespace(targets=["arm64", "x86_64"]))
    check("fetch-all-served-exit-status", rc == 0 and fetched == ["arm64", "x86_64"],
          f"exit status {rc}, fetched {fetched}")
    return tap.status()


if __name__ == "__main__":
    sys.exit(main())
