# SPDX-License-Identifier: GPL-2.0 OR MIT
"""When the harness boots a target a second time (udmemqemu.runner.crashed_before_init).

Only a guest whose kernel stopped, or stalled past boot.BEGIN_WITHIN, before
/init printed @@BEGIN, that is before any module of ours was loaded, is booted
again.  A report after @@BEGIN, a hang (timeout) and a passing guest are
results as they stand.  Uses the recorded
logs of logs/, parsed as the harness parses them.
"""
import contextlib
import io
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "qemu"))

from udmemqemu import parse  # noqa: E402
from udmemqemu.boot import BEGIN_WITHIN, STALLED  # noqa: E402
from udmemqemu.runner import crashed_before_init  # noqa: E402

# (log, how the guest ended, whether it must be booted again)
CASES = [
    ("early-boot-oops", "qemu exit 0", True),
    ("early-boot-oops", "timed out after 600 s", False),
    ("kernel-oops", "qemu exit 0", False),
    ("kernel-panic", "qemu exit 0", False),
    ("hung-guest", "timed out after 600 s", False),
    ("passing-guest", "qemu exit 0", False),
    # icicle once: OpenSBI's banner, then nothing until the harness stopped it
    ("stalled-before-init", f"{STALLED} {BEGIN_WITHIN} s", True),
    ("hung-guest", f"{STALLED} {BEGIN_WITHIN} s", False),
]


def main():
    failed = 0
    for name, ended, want in CASES:
        with open(os.path.join(HERE, "logs", name + ".log"), errors="replace") as f:
            lines = f.read().splitlines()[1:]
        with contextlib.redirect_stdout(io.StringIO()):
            results = parse.parse_console(lines, ended)
        with tempfile.NamedTemporaryFile("w", suffix=".log") as log:
            log.write("\n".join(lines) + "\n")
            log.flush()
            got = crashed_before_init(results, log.name)
        how = "timeout" if "timed" in ended else "stall" if STALLED in ended else "exit"
        test = f"harness/boot-again-{name}-{how}"
        if bool(got) == bool(want) and (not want or "int3" in got or STALLED in got):
            print(f"ok - {test}")
        else:
            failed += 1
            print(f"not ok - {test} # want {'a reason' if want else 'None'}, got {got!r}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
