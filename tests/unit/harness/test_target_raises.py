# SPDX-License-Identifier: GPL-2.0 OR MIT
"""A target whose preparation raises is that target's failure, not the run's.

udmemqemu.cli.cmd_test runs the host steps and every target; here one target's
run_target raises (as rootfs preparation did once, with a RuntimeError), the
others pass.  The run must still print every target's line and the summary,
count the raising target as one failure and exit 1.
"""
import argparse
import contextlib
import io
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "qemu"))

from udmemqemu import cli  # noqa: E402


def fake_run_target(t, suites, timeout):
    if t == "bad":
        raise RuntimeError("mmdebstrap failed (exit 1)")
    return [("ok", f"{t}:s/a", ""), ("ok", f"{t}:s/b", "SKIP why")], 1.0


def main():
    cli.run_target = fake_run_target
    cli.run_host_steps = lambda: [("ok", "host:unit/x", "")]
    cli.background_fetch = lambda t: None
    cli.matrix = lambda targets, results: []
    cli.log = lambda line: None
    args = argparse.Namespace(targets="good1,bad,good2", suite=None, timeout=None,
                              jobs=2, no_selftest=True)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = cli.cmd_test(args)
    text = out.getvalue()
    checks = [
        ("exit-status-1", rc == 1, f"rc {rc}"),
        ("summary-counts-it", "3 passed, 1 failed, 2 skipped" in text,
         text.strip().splitlines()[-1] if text.strip() else "no output"),
        ("names-the-target", "FAILED: bad:harness/prepare-and-run # RuntimeError: mmdebstrap"
         in text, "no FAILED line for bad"),
        ("others-ran", "target good2:" in text and "target good1:" in text,
         "a target line is missing"),
        ("traceback-printed", "Traceback" in err.getvalue(), "no traceback on stderr"),
    ]
    failed = 0
    for name, good, why in checks:
        print(f"ok - harness/target-raises/{name}" if good else
              f"not ok - harness/target-raises/{name} # {why}")
        failed += not good
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
