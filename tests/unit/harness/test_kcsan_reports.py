# SPDX-License-Identifier: GPL-2.0 OR MIT
"""KCSAN's reports on the KCSAN debug kernel (x86_64-kcsan): a report that
involves none of our modules is set aside and counted, one that does fails,
in the guest's log scan (init.sh: log_reports, foreign_report_lines,
foreign_report_summary, run by busybox sh as in the guest) and in the
host's console scan (parse.py) alike.

The log is logs/kcsan-foreign-and-ours.log (made up in the shape of 6.1's
reports: a page-cache race, then one with u_dma_buf's frames); the other
cases are cut from it or changed in one place each.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
QDIR = os.path.join(HERE, "..", "..", "qemu", "udmemqemu")
sys.path.insert(0, os.path.join(HERE, "..", "..", "qemu"))
from udmemqemu import parse  # noqa: E402

with open(os.path.join(HERE, "logs", "kcsan-foreign-and-ours.log")) as f:
    KERNEL = [line for line in f.read().splitlines() if line.startswith("[")]
# The page-cache report ("=" line to "=" line) and the u_dma_buf one.
SPLIT = [n for n, line in enumerate(KERNEL) if line.endswith("=" * 66)][1] + 1
FOREIGN, OURS = KERNEL[:SPLIT], KERNEL[SPLIT:]


def text(lines):
    return "\n".join(lines) + "\n"


def swap(lines, old, new):
    return [line.replace(old, new) for line in lines]


WARN = ["[   60.000000] WARNING: CPU: 0 PID: 1 at mm/page_alloc.c:1 foo",
        "[   60.000100] Call Trace:"]

# (name, log lines, report lines wanted (their numbers), foreign count wanted)
CASES = [
    ("recorded-log-ours-counts-foreign-aside", KERNEL, ["30"], 1),
    ("foreign-report-set-aside", FOREIGN, [], 1),
    ("ours-report-counts", OURS, ["2"], 0),
    # Our module only deep in one stack, not in the "data-race in" line.
    ("ours-frame-below-foreign-head-counts",
     swap(FOREIGN, "filemap_add_folio+0x6c/0x120", "uiomem_rw+0x6c/0x120 [uiomem]"), ["2"], 0),
    # A symbol of ours without a module (our prefix), and u_dma_chan's module.
    ("ours-prefix-counts", swap(FOREIGN, "__do_fault+", "udmachan_done+"), ["2"], 0),
    ("ours-dma-chan-module-counts",
     swap(FOREIGN, "__do_fault+0x4e/0x120", "udc_xfer_done+0x4e/0x120 [u_dma_chan]"), ["2"], 0),
    # A process named like our programs is no frame of ours.
    ("comm-is-not-ours", swap(FOREIGN, "Comm: udmabuf-lifetim", "Comm: uiomem-region"), [], 1),
    # Never closed (the log ends inside it): not set aside.
    ("unclosed-foreign-report-counts", FOREIGN[:-1], ["2"], 0),
    ("warning-after-foreign-report-counts", FOREIGN + WARN, ["29", "30"], 1),
    ("warning-before-foreign-report-counts", WARN + FOREIGN, ["1", "2"], 1),
    ("two-foreign-reports-set-aside", FOREIGN + FOREIGN, [], 2),
]


def guest_script(tmp):
    with open(os.path.join(QDIR, "init.sh")) as f:
        src = f.read()
    funcs = ""
    for name in ("log_reports", "peer_bug_lines", "foreign_report_lines",
                 "foreign_report_summary"):
        m = re.search(rf"^{name}\(\) \{{\n.*?^\}}\n", src, re.M | re.S)
        funcs += m.group(0)
    return funcs.replace("/udmem/", tmp + "/").replace("/tmp/dmesg.", tmp + "/dmesg.")


def main():
    shell = [shutil.which("busybox"), "sh"] if shutil.which("busybox") else ["sh"]
    failed = 0

    def check(name, got, want):
        nonlocal failed
        if got == want:
            print(f"ok - harness/{name}")
        else:
            print(f"not ok - harness/{name} # got {got}, want {want}")
            failed += 1

    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(os.path.join(QDIR, "kernel-reports-peer.tsv"), tmp)
        env = dict(os.environ)
        if shutil.which("busybox"):
            os.mkdir(os.path.join(tmp, "bin"))
            for applet in ("awk", "grep", "tr", "cat", "cut"):
                os.symlink(shutil.which("busybox"), os.path.join(tmp, "bin", applet))
            env["PATH"] = os.path.join(tmp, "bin") + os.pathsep + env["PATH"]
        for path in (parse.REPORTS_FILE, parse.BENIGN_FILE):
            with open(os.path.join(tmp, os.path.basename(path)), "w") as f:
                f.write(parse.alternation(path) + "\n")
        script = guest_script(tmp)
        for name, lines, want, want_n in CASES:
            with open(os.path.join(tmp, "log"), "w") as f:
                f.write(text(lines))
            out = subprocess.run(shell + ["-c", f'dmesg() {{ cat "{tmp}/log"; }}\n{script}\n'
                                          "log_reports > " + tmp + "/reports\n"
                                          "foreign_report_summary suite-x"],
                                 capture_output=True, text=True, env=env)
            with open(os.path.join(tmp, "reports")) as f:
                got = [line.split(":", 1)[0] for line in f.read().splitlines()]
            check(f"guest-{name}", got, want)
            m = re.search(r"^# kernel/kcsan-foreign-reports: (\d+) in suite-x$", out.stdout, re.M)
            check(f"guest-count-{name}", int(m.group(1)) if m else 0, want_n)
            check(f"guest-no-errors-{name}", out.stderr, "")
            aside, found = parse.foreign_reports(lines)
            aside |= parse.peer_bug_lines(lines)
            host = [str(n + 1) for n, line in enumerate(lines)
                    if parse.kernel_report(line) and n not in aside]
            check(f"host-{name}", host, want)
            check(f"host-count-{name}", len([n for n, _ in found if n == "kcsan"]), want_n)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
