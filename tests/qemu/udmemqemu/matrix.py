# SPDX-License-Identifier: GPL-2.0 OR MIT
"""The kernel x architecture table that ends `udmem-qemu test`: for each
kernel line and architecture, how many booted and build-only targets of this
run passed, so the README's table can be read off a real run."""

import re

from .config import TargetError, load_target

ARCHES = ("arm64", "armhf", "riscv64", "x86_64")

# Kernel release of each target that fetched, filled by the runner.
RELEASES = {}


def kernel_line(release):
    """'6.1.0-56-arm64' -> '6.1', '7.2.13+deb14-arm64' -> '7.2'."""
    m = re.match(r"(\d+)\.(\d+)", release or "")
    return f"{m.group(1)}.{m.group(2)}" if m else ""


def _sort_key(line):
    nums = [int(n) for n in re.findall(r"\d+", line)]
    return (not nums, nums, line)


def matrix(targets, results):
    """Lines of the table.  A target counts as passed when none of its checks
    failed and it was not skipped whole (its fetch a counted SKIP)."""
    cells = {}
    for t in targets:
        try:
            conf = load_target(t)
        except TargetError:
            continue
        # "<target>:<check>", or "<target>/fetch" for a target that stopped there
        mine = [(v, why) for v, name, why in results
                if name.startswith(t + ":") or name == t + "/fetch"]
        if not mine or any(v == "not ok" for v, _ in mine):
            state = "failed"
        elif mine and all(why.startswith("SKIP") for _, why in mine):
            state = "skipped"
        else:
            state = "passed"
        line = kernel_line(RELEASES.get(t)) or conf.series or f"({conf.suites[0]})"
        kind = "boot" if conf.boot else "build"
        cell = cells.setdefault((line, conf.arch), {})
        cell.setdefault(kind, []).append(state)

    def show(cell):
        parts = []
        for kind in ("boot", "build"):
            states = cell.get(kind, [])
            ran = [s for s in states if s != "skipped"]
            if ran:
                parts.append(f"{kind} {ran.count('passed')}/{len(ran)}")
            if len(ran) < len(states):
                parts.append(f"{kind} skip {len(states) - len(ran)}")
        return ", ".join(parts) or "-"

    lines = sorted({line for line, _ in cells}, key=_sort_key)
    rows = [["kernel", *ARCHES]] + [[line] + [show(cells.get((line, a), {})) for a in ARCHES]
                                    for line in lines]
    widths = [max(len(r[i]) for r in rows) for i in range(len(ARCHES) + 1)]
    out = ["kernel x architecture: targets passed/run, booted (all their suites) "
           "and build-only (W=1)"]
    out += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    return out
