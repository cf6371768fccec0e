# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Results from a guest's console."""

import re

from .util import show

RESULT_RE = re.compile(r"^(not ok|ok) - (\S+)(?:\s+#\s*(.*))?$")
# Console lines that mean the guest kernel went wrong.
KERNEL_BAD_RE = re.compile(
    r"(Kernel panic|Oops|BUG:|Unable to handle kernel|Internal error:|"
    r"general protection fault|kernel BUG at|WARNING: CPU:|Call trace:|"
    r"Call Trace:|rcu_sched self-detected stall|soft lockup|hung_task)")


def parse_console(console, ended):
    """Results from a guest's console lines.

    Every TAP result line counts.  A kernel problem on the console, or a
    guest that never printed @@END (panic, hang, timeout: `ended` says
    which), is one more failure whose reason carries the evidence; the
    console tail is printed for a reader.
    """
    results, seen_end = [], False
    suite, counted = None, 0

    def suite_done():
        # A suite must report something besides the harness's own checks.
        if suite and not counted:
            results.append(("not ok", f"{suite}/ran-no-test",
                            "the suite printed no result line"))

    for line in console:
        m = RESULT_RE.match(line.strip())
        if m:
            results.append((m.group(1), m.group(2), m.group(3) or ""))
            if not m.group(2).endswith(("/kernel-log-clean", "/suite-exit-status")):
                counted += 1
        elif line.startswith("@@SUITE "):
            suite_done()
            suite, counted = line.split()[1], 0
        elif line.startswith("@@END"):
            seen_end = True
    if seen_end:
        suite_done()
    bad = [line for line in console if KERNEL_BAD_RE.search(line) and
           not RESULT_RE.match(line.strip()) and not line.startswith("#")]
    tail = "\n".join("#   " + line for line in console[-40:])
    if bad:
        results.append(("not ok", "kernel/console-clean", bad[0].strip()[:300]))
    if not seen_end:
        results.append(("not ok", "guest/finished",
                         f"guest stopped before @@END ({ended})"))
    if bad or not seen_end:
        show("# console tail:\n" + tail)
    return results


def summary(results):
    passed = sum(1 for v, _, why in results if v == "ok" and not why.startswith("SKIP"))
    skipped = sum(1 for v, _, why in results if v == "ok" and why.startswith("SKIP"))
    failed = sum(1 for v, _, _ in results if v == "not ok")
    return passed, failed, skipped
