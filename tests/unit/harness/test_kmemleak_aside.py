# SPDX-License-Identifier: GPL-2.0 OR MIT
"""What the guest's /init sets aside of kmemleak's report (kmemleak_suites_only).

The debug kernels are not scanned at boot (a scan costs 15-20 s of CPU under
TCG): at the end, the objects kmemleak recorded before the suites began (by
their jiffies, compared modulo 2^32 as time_before() does) are the kernel's
and are set aside; every other object is a leak.  The function is taken from
init.sh and run by busybox sh, as in the guest.
"""
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
INIT = os.path.join(HERE, "..", "..", "qemu", "udmemqemu", "init.sh")


def report(*objects):
    """kmemleak's file for objects given as (address, jiffies)."""
    out = ""
    for addr, jiffies in objects:
        out += (f"unreferenced object {addr} (size 256):\n"
                f"  comm \"insmod\", pid 56, jiffies {jiffies}\n"
                "  hex dump (first 32 bytes):\n"
                "    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  ................\n"
                "  backtrace:\n"
                "    [<(____ptrval____)>] kmalloc_trace+0x44/0xa8\n")
    return out


# (name, jiffies at @@BEGIN, objects, addresses that must be reported, set aside)
CASES = [
    ("boot-object-set-aside", "4294900000",
     [("0xboot", 4294899999), ("0xsuite", 4294900001)], ["0xsuite"], 1),
    ("object-at-begin-kept", "4294900000", [("0xsame", 4294900000)], ["0xsame"], 0),
    ("wrapped-jiffies-kept", "4294967000", [("0xwrapped", 200), ("0xboot", 4294966000)],
     ["0xwrapped"], 1),
    ("no-jiffies-keeps-all", "", [("0xa", 1), ("0xb", 2)], ["0xa", "0xb"], None),
    ("empty-report", "4294900000", [], [], 0),
]


def main():
    with open(INIT) as f:
        m = re.search(r"^kmemleak_suites_only\(\) \{\n.*?^\}\n", f.read(), re.M | re.S)
    shell = [shutil.which("busybox"), "sh"] if shutil.which("busybox") else ["sh"]
    failed = 0
    for name, began, objects, want, aside in CASES:
        if not m:
            got, why = None, "kmemleak_suites_only not found in init.sh"
        else:
            p = subprocess.run(shell + ["-c", m.group(0) + 'kmemleak_suites_only "$1"',
                                        "sh", began],
                               input=report(*objects), capture_output=True, text=True)
            got = re.findall(r"^unreferenced object (\S+)", p.stdout, re.M)
            said = re.search(r"(\d+) object\(s\) from before the suites set aside", p.stderr)
            why = f"reported {got}, stderr {p.stderr.strip()!r}"
            if aside is None:
                ok = got == want and "nothing set aside" in p.stderr
            else:
                ok = got == want and said is not None and int(said.group(1)) == aside
        if got is not None and ok:
            print(f"ok - harness/kmemleak-{name}")
        else:
            failed += 1
            print(f"not ok - harness/kmemleak-{name} # {why}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
