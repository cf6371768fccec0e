#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Check that the documentation's quoted examples are the tested files.

    check_examples.py TOP DOC.md...

In a page, `<!-- example: PATH -->` on the line before a fenced code block
says the block is the file TOP/PATH whole; `<!-- excerpt: PATH -->` says
the block is a run of consecutive lines of it.  One TAP line per marker;
a page with a marker but no block after it, or a missing file, fails.
"""

from __future__ import annotations

import os
import re
import sys

MARK = re.compile(r"^<!-- (example|excerpt): (\S+) -->$")


def blocks(lines: list[str]) -> list[tuple[int, str, str, list[str] | None]]:
    """(line number, kind, path, block lines or None) per marker."""
    found = []
    for i, line in enumerate(lines):
        m = MARK.match(line)
        if not m:
            continue
        body = None
        if i + 1 < len(lines) and lines[i + 1].startswith("```"):
            end = next((j for j in range(i + 2, len(lines)) if lines[j] == "```"), None)
            if end is not None:
                body = lines[i + 2:end]
        found.append((i + 1, m.group(1), m.group(2), body))
    return found


def is_run(part: list[str], whole: list[str]) -> bool:
    """part is a run of whole's lines, less an indentation common to the run."""
    n = len(part)
    for i in range(len(whole) - n + 1):
        run = whole[i:i + n]
        indent = run[0][:len(run[0]) - len(part[0])] if part else ""
        if n and not indent.strip() and all(w == (indent + p if p else "")
                                            for w, p in zip(run, part)):
            return True
    return False


def main(top: str, docs: list[str]) -> int:
    results = []
    for doc in docs:
        with open(doc) as f:
            lines = f.read().splitlines()
        name = os.path.relpath(os.path.abspath(doc), os.path.abspath(top))
        for lineno, kind, path, body in blocks(lines):
            test = f"{name}:{lineno}/{path}"
            target = os.path.join(top, path)
            if body is None:
                results.append((False, test, "no fenced block right after the marker"))
                continue
            if not os.path.isfile(target):
                results.append((False, test, f"{path} does not exist"))
                continue
            with open(target) as f:
                text = f.read().splitlines()
            if kind == "example" and body != text:
                diff = next((k for k in range(min(len(body), len(text)))
                             if body[k] != text[k]), min(len(body), len(text)))
                results.append((False, test, f"differs from {path} at its line {diff + 1}"))
            elif kind == "excerpt" and not is_run(body, text):
                results.append((False, test, f"not a run of lines of {path}"))
            else:
                results.append((True, test, ""))
    if not results:
        print("not ok - docs/examples # no example marker in the documentation")
        return 1
    for n, (ok, test, why) in enumerate(results, 1):
        print(f"ok {n} {test}" if ok else f"not ok {n} {test} # {why}")
    return 0 if all(ok for ok, _, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
