# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Other drivers' known stack dumps, set aside by the guest's log scan and the
host's console scan alike (kernel-reports-peer.tsv); today one, vivid's.

vivid's streaming threads on 6.1 (video capture and output, touch and SDR
capture) can pass schedule_timeout() a negative timeout (a tick between
their check and their computation) and the kernel prints a stack dump.
log_reports in init.sh sets aside exactly the lines of such a dump whose
stack holds one of those threads, up to its </TASK> on x86 or its
ret_from_fork elsewhere; the same dump from any other function, and every
other report, still count.  The guest's functions are taken from init.sh
and run by busybox sh, as in the guest; the host's are parse.py's, given the
same logs, and must find the same lines.
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


def dump(thread_fn):
    return ("[   28.024407] schedule_timeout: wrong timeout value ffffffffffffffff\n"
            "[   28.025348] CPU: 1 PID: 499 Comm: vivid-000-vid-o Tainted: G OE 6.1.0-56-amd64\n"
            "[   28.025630] Call Trace:\n"
            "[   28.026624]  <TASK>\n"
            "[   28.026815]  dump_stack_lvl+0x44/0x5c\n"
            "[   28.027171]  schedule_timeout+0x138/0x150\n"
            f"[   28.027230]  {thread_fn}+0x6bc/0x750 [vivid]\n"
            "[   28.027499]  kthread+0xda/0x100\n"
            "[   28.027628]  </TASK>\n")


def dump_arm64(thread_fn):
    return ("[   28.024407] schedule_timeout: wrong timeout value ffffffffffffffff\n"
            "[   28.025348] CPU: 1 PID: 499 Comm: vivid-000-vid-c Tainted: G OE 6.1.0-56-arm64\n"
            "[   28.025630] Call trace:\n"
            "[   28.026624]  dump_backtrace+0xe4/0x140\n"
            "[   28.027171]  schedule_timeout+0x148/0x150\n"
            f"[   28.027230]  {thread_fn}+0x5a4/0x600 [vivid]\n"
            "[   28.027499]  kthread+0x108/0x10c\n"
            "[   28.027628]  ret_from_fork+0x10/0x20\n")


WARN = ("[   30.000000] WARNING: CPU: 0 PID: 1 at mm/page_alloc.c:1 foo\n"
        "[   30.000100] Call Trace:\n")

# (name, log, report lines wanted: their numbers)
CASES = [
    ("vivid-vid-out-dump-set-aside", dump("vivid_thread_vid_out"), []),
    ("vivid-vid-cap-dump-set-aside", dump("vivid_thread_vid_cap"), []),
    ("vivid-touch-cap-dump-set-aside", dump("vivid_thread_touch_cap"), []),
    ("vivid-sdr-cap-dump-set-aside", dump("vivid_thread_sdr_cap"), []),
    ("vivid-arm64-dump-set-aside", dump_arm64("vivid_thread_vid_cap"), []),
    ("other-thread-dump-counts", dump("some_other_thread"), ["3"]),
    ("other-vivid-function-dump-counts", dump("vivid_thread_vid_cap_tick"), ["3"]),
    ("real-warning-after-arm64-vivid-dump-counts", dump_arm64("vivid_thread_vid_cap") + WARN,
     ["9", "10"]),
    ("real-warning-after-vivid-dump-counts", dump("vivid_thread_vid_out") + WARN, ["10", "11"]),
    ("real-warning-before-vivid-dump-counts", WARN + dump("vivid_thread_vid_out"), ["1", "2"]),
]


def main():
    with open(os.path.join(QDIR, "init.sh")) as f:
        text = f.read()
    funcs = ""
    for name in ("log_reports", "peer_bug_lines"):
        m = re.search(rf"^{name}\(\) \{{\n.*?^\}}\n", text, re.M | re.S)
        funcs += m.group(0)
    shell = [shutil.which("busybox"), "sh"] if shutil.which("busybox") else ["sh"]
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(os.path.join(QDIR, "kernel-reports-peer.tsv"), tmp)
        # The guest's applets, not the host's gawk or mawk, run the awk.
        env = dict(os.environ)
        if shutil.which("busybox"):
            os.mkdir(os.path.join(tmp, "bin"))
            for applet in ("awk", "grep", "tr", "cat"):
                os.symlink(shutil.which("busybox"), os.path.join(tmp, "bin", applet))
            env["PATH"] = os.path.join(tmp, "bin") + os.pathsep + env["PATH"]
        # The pattern files as the initramfs holds them (image.py).
        for path in (parse.REPORTS_FILE, parse.BENIGN_FILE):
            with open(os.path.join(tmp, os.path.basename(path)), "w") as f:
                f.write(parse.alternation(path) + "\n")
        script = funcs.replace("/udmem/", tmp + "/").replace("/tmp/dmesg.", tmp + "/dmesg.")
        for name, log, want in CASES:
            with open(os.path.join(tmp, "log"), "w") as f:
                f.write(log)
            out = subprocess.run(shell + ["-c", f'dmesg() {{ cat "{tmp}/log"; }}\n{script}\n'
                                          "log_reports"],
                                 capture_output=True, text=True, env=env).stdout
            got = [line.split(":", 1)[0] for line in out.splitlines()]
            if got == want:
                print(f"ok - harness/{name}")
            else:
                print(f"not ok - harness/{name} # report lines {got}, want {want}")
                failed += 1
            lines = log.splitlines()
            aside = parse.peer_bug_lines(lines)
            host = [str(n + 1) for n, line in enumerate(lines)
                    if parse.kernel_report(line) and n not in aside]
            if host == want:
                print(f"ok - harness/host-{name}")
            else:
                print(f"not ok - harness/host-{name} # report lines {host}, want {want}")
                failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
