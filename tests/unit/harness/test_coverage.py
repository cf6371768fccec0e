# SPDX-License-Identifier: GPL-2.0 OR MIT
"""The coverage report's arithmetic (udmemqemu.coverage) on made-up gcov JSON.

Two objects compile the same header line (one runs it, one does not): the
line counts once, as run.  Sources outside kernel/ are left out.  A guest log
without the @@GCOV block is a failure, not an empty pass.  Lines never run are
grouped by the function gcov puts them in.

The union of two targets (coverage/kernel-lines-debug-tier): on made-up data
whose figure is known (a line both compile counts once, run when either ran
it; a line only one compiles counts too), and on the real counts of
kernel/dma-buf/of.c (coverage-of-c.json: arm64-debug ran 151 of its 163
lines, x86_64-debug, without a device tree, 39 of 156).  union_step() takes
only the coverage.json files of this run, and none with fewer than two.
"""
import json
import os
import sys
import tempfile
import time
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


def synthetic_union():
    """Target A and B both compile a.c (1-4: A runs 1-2, B runs 3) and one
    file each of their own (A: a_only.c 1-2 both run; B: b_only.c, 1 run).
    Lines: 4 + 2 + 2 = 8, run: 3 + 2 + 1 = 6, 75 %."""
    a = {"a.c": {1: [5, "f"], 2: [1, "f"], 3: [0, "f"], 4: [0, "g"]},
         "a_only.c": {1: [2, "h"], 2: [2, "h"]}}
    b = {"a.c": {1: [0, "f"], 2: [0, "f"], 3: [7, "f"], 4: [0, "g"]},
         "b_only.c": {1: [1, "k"], 2: [0, "k"]}}
    return [("A", a), ("B", b)]


def real_union():
    """(per-target line figures, union figures, never-run listing) of the
    stored real counts of dma-buf/of.c."""
    with open(os.path.join(HERE, "coverage-of-c.json")) as f:
        stored = json.load(f)
    per_target, figures = [], {}
    for t in ("arm64-debug", "x86_64-debug"):
        doc = stored[t]
        kdir = f"/work/final/build/{t}/src/kernel"
        files = coverage.merge_gcov_json([doc], kdir)
        data = coverage.per_line(files, coverage.line_functions([doc], kdir))
        lr, lines, _, _, _ = coverage.summarize(files)
        figures[t] = (lr, lines)
        per_target.append((t, data))
    verdict, why, out = coverage.union_text(per_target)
    return figures, verdict, why, out


def union_step_cases():
    """union_step() over a made-up build directory: (two fresh, one stale,
    one only)."""
    from udmemqemu import config
    saved = config.BUILD
    with tempfile.TemporaryDirectory() as tmp:
        config.BUILD = tmp
        try:
            since = time.time() - 5
            for name, (_, data) in zip(("arm64-debug", "x86_64-debug"), synthetic_union()):
                os.makedirs(os.path.join(tmp, name))
                coverage.save_json(os.path.join(tmp, name, "coverage.json"), name, data)
            targets = ["arm64-debug", "x86_64-debug", "x86_64"]
            both = coverage.union_step(targets, since)
            listing = open(os.path.join(tmp, "coverage-debug-tier.txt")).read()
            stale = coverage.union_step(targets, time.time() + 60)
            one = coverage.union_step(["arm64-debug", "x86_64"], since)
        finally:
            config.BUILD = saved
    return both, listing, stale, one


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
    fdoc = {"current_working_directory": KDIR + "/dma-buf", "files": [{
        "file": "mmap.c",
        "functions": [{"name": "outer", "start_line": 1, "end_line": 20},
                      {"name": "inner", "start_line": 5, "end_line": 8}],
        "lines": [{"line_number": 2, "count": 0, "branches": []},
                  {"line_number": 3, "count": 0, "branches": []},
                  {"line_number": 6, "count": 0, "branches": []},
                  {"line_number": 9, "count": 4, "branches": []},
                  {"line_number": 12, "count": 0, "branches": [],
                   "function_name": "named"},
                  {"line_number": 30, "count": 0, "branches": []}]}]}
    fdata = coverage.per_line(coverage.merge_gcov_json([fdoc], KDIR),
                              coverage.line_functions([fdoc], KDIR))
    grouped = coverage._never_run_lines(fdata)
    su = synthetic_union()
    sdata, sbuilt = coverage.union(su)
    sv, swhy, sout = coverage.union_text(su)
    sv70, _, _ = coverage.union_text(su, floor=70)
    figures, rv, rwhy, rout = real_union()
    both, listing, stale, one = union_step_cases()
    checks = [
        ("only-kernel-sources", sorted(files) == ["compat.h", "dma-buf/alloc.c"],
         f"files {sorted(files)}"),
        ("header-line-once-and-run", files.get("compat.h", {}).get(5, (0,))[0] == 2,
         f"compat.h {files.get('compat.h')}"),
        ("line-totals", (lr, lines) == (3, 4), f"{lr}/{lines}"),
        ("branch-totals", (bt, branches) == (3, 4), f"{bt}/{branches}"),
        ("missed-lines", missed.get("dma-buf/alloc.c") == [11], f"{missed}"),
        ("ranges", coverage._ranges([1, 2, 3, 7, 9, 10]) == "1-3, 7, 9-10",
         coverage._ranges([1, 2, 3, 7, 9, 10])),
        ("no-block-fails", none and none[0][0] == "not ok", f"{none}"),
        ("never-run-by-function",
         grouped == ["dma-buf/mmap.c outer(): 2-3", "dma-buf/mmap.c inner(): 6",
                     "dma-buf/mmap.c named(): 12",
                     "dma-buf/mmap.c (outside any function): 30"], f"{grouped}"),
        ("union-lines-once", sum(len(v) for v in sdata.values()) == 8,
         f"{ {k: sorted(v) for k, v in sdata.items()} }"),
        ("union-run-if-either", [sdata["a.c"][n][0] > 0 for n in (1, 2, 3, 4)]
         == [True, True, True, False], f"{sdata.get('a.c')}"),
        ("union-figure", sout[0].endswith("6/8 lines (75.0 %) run by at least one of them"),
         sout[0]),
        ("union-fails-below-floor", sv == "not ok" and "90.0 %" in swhy and sv70 == "ok",
         f"{sv} {swhy} / floor 70: {sv70}"),
        ("union-never-run-listing",
         sout[3:] == ["a.c g(): 4", "b_only.c k(): 2  [B]"] and sbuilt["b_only.c"][2] == ["B"],
         f"{sout[3:]}"),
        ("real-per-target", figures == {"arm64-debug": (151, 163), "x86_64-debug": (39, 156)},
         f"{figures}"),
        ("real-union-of-c", rout[0].startswith("coverage of kernel/ over arm64-debug, "
                                               "x86_64-debug: 151/163 lines"),
         rout[0]),
        ("real-union-listing",
         "dma-buf/of.c udmabuf_parse_properties(): 72, 124-127, 129" in rout
         and not any("[x86_64-debug]" in line for line in rout), f"{rout[3:]}"),
        ("union-step-this-run", len(both) == 1 and both[0][1] == coverage.UNION_NAME
         and both[0][0] == "not ok" and "75.0 %" in both[0][2]
         and "b_only.c k(): 2  [x86_64-debug]" in listing, f"{both} {listing!r}"),
        ("union-step-stale-or-alone", stale == [] and one == [], f"{stale} {one}"),
    ]
    failed = 0
    for name, good, why in checks:
        print(f"ok - harness/coverage/{name}" if good else
              f"not ok - harness/coverage/{name} # {why}")
        failed += not good
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
