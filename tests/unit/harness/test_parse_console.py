# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Feed recorded guest consoles (logs/*.log) to the harness's parser (udmemqemu.parse).

Each log's first line says what the parser must conclude:
    # expect: passed=N failed=N skipped=N [reason=<substring of a failure reason>]
Prints one TAP line per log; exits non-zero if any expectation fails.
LINES below checks single lines in every result form the parser reads.
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

# (console line, the (verdict, name, reason) it must give, or None: not a result)
LINES = [
    ("ok - cli/list", ("ok", "cli/list", "")),
    ("not ok - cli/list # exit 1", ("not ok", "cli/list", "exit 1")),
    ("ok - cli/list # SKIP no edu", ("ok", "cli/list", "SKIP no edu")),
    ("ok 1 cli/list", ("ok", "cli/list", "")),
    ("ok 12 - cli/list", ("ok", "cli/list", "")),
    ("not ok 3 cli/list # errno 22", ("not ok", "cli/list", "errno 22")),
    ("ok 4 cli/list # SKIP no IOMMU", ("ok", "cli/list", "SKIP no IOMMU")),
    ("ok 5 cli/list\r", ("ok", "cli/list", "")),
    ("not ok 6", ("not ok", "cli/result-6", "")),
    ("KTAP version 1", None),
    ("1..12", None),
    ("# ok 1 cli/list", None),
    ("    ok 1 sync-for-cpu", None),
    ("okay 1 cli/list", None),
    ("ok", None),
    ("[    2.27] ok 1 cli/list", None),
]


def check_lines():
    """One TAP line per form; returns the number of failures."""
    failed = 0
    for n, (line, want) in enumerate(LINES, 1):
        got = parse.parse_result(line, "cli")
        if got == want:
            print(f"ok - harness/parse-line-{n}")
        else:
            failed += 1
            print(f"not ok - harness/parse-line-{n} # {line!r}: want {want} got {got}")
    return failed


def main():
    failed = check_lines()
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
