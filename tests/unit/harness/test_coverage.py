# SPDX-License-Identifier: GPL-2.0 OR MIT
"""The coverage report's arithmetic (udmemqemu.coverage) on made-up gcov JSON.

Two objects compile the same header line (one runs it, one does not): the
line counts once, as run.  Sources outside kernel/ are left out.  A guest log
without the @@GCOV block is a failure, not an empty pass.
"""
import os
import sys
import tempfile
import types

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "qemu"))

from udmemqemu import coverage  # noqa: E402

KDIR = "/b/x86_64-debug/src/kernel"


def doc(cwd, path, lines):
    return {"current_working_directory": cwd,
            "files": [{"file": path, "lines": [
                {"line_number": n, "count": c,
                 "branches": [{"count": b} for b in br]} for n, c, br in lines]}]}


def main():
    docs = [
        doc(KDIR + "/dma-buf", "alloc.c", [(10, 3, [1, 0]), (11, 0, []), (12, 1, [])]),
        doc(KDIR + "/dma-buf", "../compat.h", [(5, 0, [0, 0])]),
        doc(KDIR + "/iomem", KDIR + "/compat.h", [(5, 2, [1, 1])]),
        doc(KDIR + "/iomem", "/usr/src/linux/include/linux/mm.h", [(99, 7, [])]),
    ]
    files = coverage.merge_gcov_json(docs, KDIR)
    lr, lines, bt, branches, rows = coverage.summarize(files)
    missed = {rel: m for rel, _, _, _, _, m in rows}
    with tempfile.NamedTemporaryFile("w", suffix=".log") as log:
        log.write("@@BEGIN x\nok - a/b\n@@END\n")
        log.flush()
        conf = types.SimpleNamespace(name="t", cross_compile="", coverage=90)
        none = coverage.report(conf, "/nonexistent", log.name, 90)
    checks = [
        ("only-kernel-sources", sorted(files) == ["compat.h", "dma-buf/alloc.c"],
         f"files {sorted(files)}"),
        ("header-line-once-and-run", files.get("compat.h", {}).get(5, (0,))[0] == 2,
         f"compat.h {files.get('compat.h')}"),
        ("line-totals", (lr, lines) == (3, 4), f"{lr}/{lines}"),
        ("branch-totals", (bt, branches) == (3, 4), f"{bt}/{branches}"),
        ("missed-lines", missed.get("dma-buf/alloc.c") == [11], f"{missed}"),
        ("ranges", coverage._ranges([1, 2, 3, 7, 9, 10]) == "1-3,7,9-10",
         coverage._ranges([1, 2, 3, 7, 9, 10])),
        ("no-block-fails", none and none[0][0] == "not ok", f"{none}"),
    ]
    failed = 0
    for name, good, why in checks:
        print(f"ok - harness/coverage/{name}" if good else
              f"not ok - harness/coverage/{name} # {why}")
        failed += not good
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
