# SPDX-License-Identifier: GPL-2.0 OR MIT
"""pytest plugin: one udmem TAP line per test, for the QEMU harness."""
import os

SUITE = os.environ.get("UDMEM_SUITE", "python")


def _name(report):
    return f"{SUITE}/{report.nodeid.split('/')[-1]}".replace(" ", "_")


def _reason(report):
    text = str(report.longrepr) if report.longrepr else ""
    if isinstance(report.longrepr, tuple):  # skips: (file, line, reason)
        text = report.longrepr[2]
    lines = [line for line in text.splitlines() if line.strip()]
    return (lines[-1] if lines else "").strip()[:300]


def pytest_runtest_logreport(report):
    if report.when == "call" or report.outcome != "passed":
        if report.passed and report.when == "call":
            line = f"ok - {_name(report)}"
        elif report.skipped:
            line = f"ok - {_name(report)} # SKIP {_reason(report).removeprefix('Skipped: ')}"
        elif report.failed:
            line = f"not ok - {_name(report)} # {report.when}: {_reason(report)}"
        else:
            return
        print("\n" + line, flush=True)
