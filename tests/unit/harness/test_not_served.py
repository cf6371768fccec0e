# SPDX-License-Identifier: GPL-2.0 OR MIT
"""A target whose packages the archive does not serve is asked for once.

udmemqemu.runner.background_fetch remembers an ArchiveMissing, and the
target's own run then counts its SKIP without fetching again; any other
prefetch failure is not remembered (the target's run reports it itself).
"""
import contextlib
import io
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "qemu"))

from tap import Tap  # noqa: E402
from udmemqemu import runner  # noqa: E402
from udmemqemu.apt import ArchiveMissing  # noqa: E402

TARGET = "arm64-6.1-deb11"


def main():
    tap = Tap()
    check = tap.check
    calls = []

    def refused(conf):
        calls.append(conf.name)
        raise ArchiveMissing("404 Not Found")

    def other(conf):
        calls.append(conf.name)
        raise RuntimeError("no version of linux-image")

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        runner.fetch = other
        runner.background_fetch(TARGET)
    check("not-served-other-failure-not-kept", TARGET not in runner.NOT_SERVED,
          "a failure that is not a 404 was remembered")

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        runner.fetch = refused
        runner.background_fetch(TARGET)
        del calls[:]
        results, _ = runner._run_target(TARGET, None, None, None, "", True)
    check("not-served-fetched-once", calls == [], f"fetched again: {calls}")
    check("not-served-counted-skip",
          len(results) == 1 and results[0][0] == "ok" and results[0][2].startswith("SKIP")
          and "does not serve" in results[0][2], f"got {results}")
    return tap.status()


if __name__ == "__main__":
    sys.exit(main())
