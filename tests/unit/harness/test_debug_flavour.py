# SPDX-License-Identifier: GPL-2.0 OR MIT
"""The debug kernel's flavour: the target key debug_flavour, the command
fetch.py runs for it, and build-kernel's -f and fragment check.

x86_64-kcsan loads with the KCSAN flavour and is left out of `make test`;
an unknown flavour is refused by the config and by build-kernel; fetch.py
passes the flavour to build-kernel as -f; kcsan.config turns off each
KASAN symbol the other fragments turn on (build-kernel checks the last
mention of a symbol, so that is what a built kernel has).
"""
import contextlib
import io
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
QEMU = os.path.join(HERE, "..", "..", "qemu")
DEBUG = os.path.join(QEMU, "debug")
sys.path.insert(0, QEMU)

from tap import Tap  # noqa: E402
from udmemqemu import config, fetch  # noqa: E402


def symbols(path):
    """{symbol: its setting} of a config fragment, its last mention winning."""
    got = {}
    with open(path) as f:
        for line in f:
            m = re.match(r"^(CONFIG_\w+)=(.*)$", line) or \
                re.match(r"^# (CONFIG_\w+) is not set$", line)
            if m:
                got[m.group(1)] = m.group(2) if m.lastindex == 2 else "n"
    return got


def main():
    tap = Tap()
    check = tap.check

    t = config.parse_target("x86_64-kcsan")
    check("kcsan-target", (t.debug_kernel, t.debug_flavour, t.default_run) ==
          ("x86_64", "kcsan", False), f"{t.debug_kernel} {t.debug_flavour} {t.default_run}")
    check("debug-target-kasan", config.parse_target("x86_64-debug").debug_flavour == "kasan",
          config.parse_target("x86_64-debug").debug_flavour)
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "bad.conf"), "w") as f:
            f.write("base = x86_64-debug\ndebug_flavour = tsan\n")
        for name in ("x86_64-debug", "x86_64"):
            with open(os.path.join(config.TARGETS_DIR, name + ".conf")) as src, \
                 open(os.path.join(d, name + ".conf"), "w") as dst:
                dst.write(src.read())
        try:
            config.parse_target("bad", d)
            why = "accepted"
        except config.TargetError as e:
            why = str(e)
        check("unknown-flavour-refused", "debug_flavour = tsan: must be one of kasan, kcsan"
              in why, why)

    # fetch.debug_state's command, with build-kernel stood in for.
    ran = []

    class FakePopen:
        def __init__(self, cmd, **kw):
            ran.append(cmd)
            self.stdout = io.StringIO("/nonexistent\n")
            self.stderr = io.StringIO("")
            self.returncode = 1

        def wait(self):
            return 1

    real = fetch.subprocess.Popen
    fetch.subprocess.Popen = FakePopen
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            fetch.debug_state(t)
    except RuntimeError:
        pass
    finally:
        fetch.subprocess.Popen = real
    cmd = ran[0][1:] if ran else []
    check("fetch-passes-flavour", "-f" in cmd and cmd[cmd.index("-f") + 1] == "kcsan",
          f"command {cmd}")

    p = subprocess.run([os.path.join(DEBUG, "build-kernel"), "-f", "tsan"],
                       capture_output=True, text=True)
    check("build-kernel-unknown-flavour", p.returncode == 2 and "unknown flavour" in p.stderr,
          f"exit {p.returncode}: {p.stderr.strip()}")

    base = {}
    for frag in ("common.config", "x86_64.config"):
        base.update(symbols(os.path.join(DEBUG, frag)))
    kcsan = symbols(os.path.join(DEBUG, "kcsan.config"))
    on = [s for s, v in base.items() if s.startswith("CONFIG_KASAN") and v != "n"]
    left = [s for s in on if kcsan.get(s) != "n"]
    check("kcsan-turns-off-every-kasan-symbol", on and not left, f"on: {on}, left on: {left}")
    check("kcsan-on", kcsan.get("CONFIG_KCSAN") == "y", kcsan.get("CONFIG_KCSAN"))
    return tap.status()


if __name__ == "__main__":
    sys.exit(main())
