# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Feed recorded guest consoles (logs/*.log) to the harness's parser (udmemqemu.parse).

Each log's first line says what the parser must conclude:
    # expect: passed=N failed=N skipped=N [reason=<substring of a failure reason>]
Prints one TAP line per log; exits non-zero if any expectation fails.
"""
import contextlib
import glob
import io
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "qemu"))

from udmemqemu import parse  # noqa: E402


def main():
    failed = 0
    logs = sorted(glob.glob(os.path.join(HERE, "logs", "*.log")))
    for path in logs:
        name = os.path.basename(path)[:-4]
        with open(path, errors="replace") as f:
            lines = f.read().splitlines()
        want = dict(re.findall(r"(\w+)=(\S+)", lines[0]))
        with contextlib.redirect_stdout(io.StringIO()):
            results = parse.parse_console(lines[1:], "qemu exit 0")
        p, f, s = parse.summary(results)
        got = {"passed": str(p), "failed": str(f), "skipped": str(s)}
        problems = [f"{k} want {want[k]} got {got[k]}" for k in got if want.get(k) != got[k]]
        if "reason" in want and not any(want["reason"] in t + " " + why for v, t, why in results
                                        if v == "not ok"):
            problems.append(f"no failure mentions {want['reason']!r}")
        if problems:
            failed += 1
            print(f"not ok - harness/parse-{name} # {'; '.join(problems)}")
        else:
            print(f"ok - harness/parse-{name}")
    if not logs:
        print("not ok - harness/parse-logs # no recorded logs found")
        failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
