# SPDX-License-Identifier: GPL-2.0 OR MIT
"""The kernel x architecture table (udmemqemu.matrix) that ends `make test`:
kernel lines read off releases, and each cell counting the targets of a run
that passed, failed or were skipped.  One TAP line per check; exits non-zero
on a failure."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "qemu"))

from udmemqemu import matrix  # noqa: E402

failed = 0


def check(name, got, want):
    global failed
    if got == want:
        print(f"ok - harness/matrix/{name}")
    else:
        failed += 1
        print(f"not ok - harness/matrix/{name} # got {got!r}, want {want!r}")


for release, want in [("6.1.0-56-arm64", "6.1"), ("7.2.13+deb14-riscv64", "7.2"),
                      ("5.10.0-35-armmp-lpae", "5.10"), ("6.12.95+deb12-amd64", "6.12"),
                      ("", ""), (None, "")]:
    check(f"kernel-line-{release}", matrix.kernel_line(release), want)

matrix.RELEASES.clear()
matrix.RELEASES.update({"arm64": "6.1.0-56-arm64", "arm64-iommu": "6.1.0-56-arm64",
                        "arm64-6.1-rt": "6.1.0-56-rt-arm64", "x86_64": "6.1.0-56-amd64",
                        "arm64-7": "7.2.13+deb14-arm64"})
results = [("ok", "arm64:build/modules", ""), ("ok", "arm64-iommu:udmabuf/a", ""),
           ("not ok", "arm64-iommu:udmabuf/b", "mismatch"),
           ("ok", "arm64-6.1-rt:build/modules", ""),
           ("ok", "arm64-7:build/modules", ""), ("ok", "arm64-7:x # SKIP", "SKIP no edu"),
           ("ok", "riscv64/fetch", "SKIP the index failed apt's verification"),
           ("ok", "x86_64-6.1-deb11/fetch", "SKIP the archive answers 404")]
lines = matrix.matrix(["arm64", "arm64-iommu", "arm64-6.1-rt", "arm64-7", "riscv64",
                       "x86_64", "x86_64-6.1-deb11"], results)
rows = {line.split()[0]: line for line in lines[2:]}
check("rows-in-version-order", [line.split()[0] for line in lines[2:]],
      ["6.1", "7.2", "(trixie)"])
check("failed-target-counted", "boot 1/2, build 1/1" in rows["6.1"], True)
check("target-without-results-fails", "boot 0/1" in rows["6.1"], True)
check("skipped-fetch-of-a-series-in-its-row", rows["6.1"].rstrip().endswith("build skip 1"),
      True)
check("skips-inside-a-run-still-pass", "boot 1/1" in rows["7.2"], True)
check("skipped-fetch-shown-apart", "boot skip 1" in rows["(trixie)"], True)
sys.exit(1 if failed else 0)
