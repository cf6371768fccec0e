# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Line and branch coverage of kernel/ from a guest's gcov counts.

A target with `coverage = N` builds the project's modules with gcov profiling
(kernel/Kbuild, UDMEM_COVERAGE=1) on a kernel with CONFIG_GCOV_KERNEL.  The
kernel keeps every module's counts in debugfs, those of unloaded modules too,
and adds a reloaded module's new counts to them.  After the suites the guest's
/init prints them as one base64 tar between @@GCOV-BEGIN and @@GCOV-END (each
line "#gcov ...").  Here they are put beside the notes (.gcno) of the build
that made the very modules the guest ran, read with gcov's JSON output, and
summed per source line over every object that compiled it (a header's inline
function counts once per line, covered when any object ran it).

Results: coverage/kernel-lines, failed when no counts came back or when line
coverage is below the target's figure; build/<target>/coverage.txt lists each
file's figures and its lines never run, grouped by the function they belong to
(a reason is given per function: line numbers move with every change), and
build/<target>/coverage.json keeps the merged per-line counts and functions.

After every target of `udmem-qemu test`, when two or more coverage targets
wrote their counts in that run, union() makes coverage/kernel-lines-debug-tier:
a line counts once when any target compiled it, as run when any target ran it
(x86_64 has no device tree, arm64 does not compile the x86 cache code); it
fails below UNION_FLOOR % and build/coverage-debug-tier.txt lists its lines
never run, by function.  `python3 -m udmemqemu.coverage build/<t1> build/<t2>`
prints the same union from the coverage.json files of earlier runs.
"""
import base64
import glob
import gzip
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile

from .util import show

# Line coverage of kernel/ that the union of the coverage targets must reach.
UNION_FLOOR = 90.0
UNION_NAME = "coverage/kernel-lines-debug-tier"


def _block(logpath):
    """The base64 text between the markers, or None without a block."""
    lines, inside, seen = [], False, False
    with open(logpath, errors="replace") as f:
        for line in f:
            line = line.rstrip("\r\n")
            if line.startswith("@@GCOV-BEGIN"):
                inside, seen = True, True
            elif line.startswith("@@GCOV-END"):
                inside = False
            elif inside and line.startswith("#gcov "):
                lines.append(line[6:].strip())
    return "".join(lines) if seen else None


def _gcov_tool(conf):
    """gcov of the compiler that built the modules (its major version)."""
    cc = conf.cross_compile + "gcc"
    try:
        ver = subprocess.run([cc, "-dumpversion"], capture_output=True,
                             text=True).stdout.strip().split(".")[0]
    except OSError:
        ver = ""
    for tool in (f"{conf.cross_compile}gcov-{ver}", f"{conf.cross_compile}gcov",
                 f"gcov-{ver}", "gcov"):
        if shutil.which(tool):
            return tool
    return None


def _kernel_files(docs, kernel_dirs):
    """(relative source, gcov's file entry) of every file of the documents
    under one of kernel_dirs (a directory, or several: where the notes were
    made and where they are now)."""
    if isinstance(kernel_dirs, str):
        kernel_dirs = [kernel_dirs]
    for doc in docs:
        cwd = doc.get("current_working_directory", "")
        for f in doc.get("files", []):
            path = os.path.normpath(os.path.join(cwd, f["file"]))
            for kdir in kernel_dirs:
                if path.startswith(kdir.rstrip(os.sep) + os.sep):
                    yield os.path.relpath(path, kdir), f
                    break


def merge_gcov_json(docs, kernel_dirs):
    """{relative source: {line: (count, branches, branches taken)}} from gcov
    JSON documents, for the sources under kernel_dirs only."""
    files = {}
    for rel, f in _kernel_files(docs, kernel_dirs):
        lines = files.setdefault(rel, {})
        for ln in f.get("lines", []):
            n = ln["line_number"]
            br = ln.get("branches", [])
            count, nbr, taken = lines.get(n, (0, 0, 0))
            # The same line compiled into two objects: run if either ran
            # it; its branches are those of the object with most of them.
            if len(br) >= nbr:
                nbr, taken = len(br), max(taken if len(br) == nbr else 0,
                                          sum(1 for b in br if b["count"] > 0))
            lines[n] = (count + ln["count"], nbr, taken)
    return files


def line_functions(docs, kernel_dirs):
    """{relative source: {line: function}}: the function each line of the
    documents belongs to (gcov's "function_name" of the line, else the
    innermost of its "functions" whose start_line..end_line holds it)."""
    out = {}
    for rel, f in _kernel_files(docs, kernel_dirs):
        names = out.setdefault(rel, {})
        spans = sorted(((fn["start_line"], fn["end_line"], fn["name"])
                        for fn in f.get("functions", [])
                        if "start_line" in fn and "end_line" in fn),
                       key=lambda sp: sp[1] - sp[0])
        for ln in f.get("lines", []):
            n = ln["line_number"]
            name = ln.get("function_name")
            if not name:
                name = next((nm for a, b, nm in spans if a <= n <= b), None)
            if name and n not in names:
                names[n] = name
    return out


def per_line(files, functions):
    """{relative source: {line: [count, function or ""]}}: what coverage.json
    keeps of a target (its keys are strings there)."""
    return {rel: {n: [c, functions.get(rel, {}).get(n, "")]
                  for n, (c, _, _) in sorted(lines.items())}
            for rel, lines in sorted(files.items())}


def save_json(path, target, data):
    with open(path, "w") as f:
        json.dump({"target": target,
                   "files": {rel: {str(n): v for n, v in lines.items()}
                             for rel, lines in data.items()}}, f, indent=0)


def load_json(path):
    """(target, {relative source: {line: [count, function]}}) of coverage.json."""
    with open(path) as f:
        doc = json.load(f)
    return doc["target"], {rel: {int(n): v for n, v in lines.items()}
                           for rel, lines in doc["files"].items()}


def never_run(data):
    """[(relative source, function, [lines never run])] in file and line
    order: a function's lines never run, grouped."""
    out = []
    for rel in sorted(data):
        groups = {}
        for n in sorted(data[rel]):
            count, fn = data[rel][n]
            if count == 0:
                groups.setdefault(fn or "(outside any function)", []).append(n)
        out += sorted(((rel, fn, nums) for fn, nums in groups.items()),
                      key=lambda g: g[2][0])
    return out


def _func(fn):
    return fn if fn.startswith("(") else fn + "()"


def _never_run_lines(data):
    return [f"{rel} {_func(fn)}: {_ranges(nums)}" for rel, fn, nums in never_run(data)]


def summarize(files):
    """(lines run, lines, branches taken, branches, per-file rows)."""
    rows, tl, tlr, tb, tbt = [], 0, 0, 0, 0
    for rel in sorted(files):
        lines = files[rel]
        run = sum(1 for c, _, _ in lines.values() if c > 0)
        nb = sum(b for _, b, _ in lines.values())
        bt = sum(t for _, _, t in lines.values())
        missed = sorted(n for n, (c, _, _) in lines.items() if c == 0)
        rows.append((rel, run, len(lines), bt, nb, missed))
        tl, tlr, tb, tbt = tl + len(lines), tlr + run, tb + nb, tbt + bt
    return tlr, tl, tbt, tb, rows


def _ranges(nums):
    out, start, prev = [], None, None
    for n in nums:
        if start is None:
            start = prev = n
        elif n == prev + 1:
            prev = n
        else:
            out.append(f"{start}-{prev}" if prev != start else f"{start}")
            start = prev = n
    if start is not None:
        out.append(f"{start}-{prev}" if prev != start else f"{start}")
    return ", ".join(out)


def _pct(a, b):
    return 100.0 * a / b if b else 0.0


def report(conf, bdir, logpath, floor):
    """The coverage results of a finished guest of a `coverage` target."""
    name = "coverage/kernel-lines"
    jpath = os.path.join(bdir, "coverage.json")
    if os.path.exists(jpath):
        # Only this run's counts may enter the union of the targets.
        os.remove(jpath)
    text = _block(logpath)
    if text is None:
        return [("not ok", name, "the guest printed no @@GCOV block: is CONFIG_GCOV_KERNEL "
                 "on and debugfs mounted?")]
    kernel_dir = os.path.join(bdir, "src", "kernel")
    try:
        raw = gzip.decompress(base64.b64decode(text))
    except (ValueError, OSError) as e:
        return [("not ok", name, f"the @@GCOV block does not decode: {e}")]
    placed, origins = 0, {kernel_dir}
    with tarfile.open(fileobj=io.BytesIO(raw)) as tar:
        for m in tar.getmembers():
            if not m.isfile() or not m.name.endswith(".gcda"):
                continue
            # ./<absolute object directory on this host>/kernel/<dir>/<obj>.gcda
            path = "/" + m.name.lstrip("./")
            at = path.rfind("/src/kernel/")
            if at < 0:
                continue
            dst = os.path.join(kernel_dir, path[at + len("/src/kernel/"):])
            # The notes name the sources where they were built (a build
            # directory copied elsewhere still reads).
            origins.add(path[:at + len("/src/kernel")])
            if not os.path.exists(dst[:-5] + ".gcno"):
                continue
            with open(dst, "wb") as out:
                out.write(tar.extractfile(m).read())
            placed += 1
    if not placed:
        return [("not ok", name, "no counts of kernel/ objects came back (modules not "
                 "built with UDMEM_COVERAGE, or their notes are gone)")]
    tool = _gcov_tool(conf)
    if not tool:
        return [("not ok", name, "no gcov on this host for the modules' compiler")]
    docs, errors = [], []
    for gcda in sorted(glob.glob(os.path.join(kernel_dir, "**", "*.gcda"), recursive=True)):
        p = subprocess.run([tool, "--json-format", "--stdout", "--branch-probabilities",
                            "-o", os.path.dirname(gcda), gcda],
                           capture_output=True, text=True, cwd=os.path.dirname(gcda))
        if p.returncode != 0 or "mismatch" in p.stderr:
            errors.append(f"{os.path.relpath(gcda, kernel_dir)}: {p.stderr.strip()[:160]}")
            continue
        for chunk in re.split(r"\n(?=\{)", p.stdout.strip()):
            if chunk:
                docs.append(json.loads(chunk))
    if errors:
        return [("not ok", name, "gcov could not read the counts: " + "; ".join(errors)[:400])]
    files = merge_gcov_json(docs, sorted(origins))
    data = per_line(files, line_functions(docs, sorted(origins)))
    save_json(jpath, conf.name, data)
    lr, lines, bt, branches, rows = summarize(files)
    out = [f"coverage of kernel/ on {conf.name}: {lr}/{lines} lines "
           f"({_pct(lr, lines):.1f} %), {bt}/{branches} branches taken "
           f"({_pct(bt, branches):.1f} %)", ""]
    for rel, run, n, t, nb, _ in rows:
        out.append(f"{rel:34} lines {run:5}/{n:<5} {_pct(run, n):5.1f} %   "
                   f"branches {t:5}/{nb:<5} {_pct(t, nb):5.1f} %")
    out.append("")
    out.append("lines never run (file function(): line ranges):")
    out += _never_run_lines(data)
    with open(os.path.join(bdir, "coverage.txt"), "w") as f:
        f.write("\n".join(out) + "\n")
    show("\n".join(f"# [{conf.name}] {line}" for line in out[:len(rows) + 2]))
    why = (f"{_pct(lr, lines):.1f} % of {lines} lines, {_pct(bt, branches):.1f} % of "
           f"{branches} branches (build/{conf.name}/coverage.txt)")
    if _pct(lr, lines) < floor:
        return [("not ok", name, f"{why}: below the target's floor of {floor} %")]
    return [("ok", name, why)]


def union(per_target):
    """({relative source: {line: [count, function]}}, {relative source:
    {line: [targets that compiled it]}}) of [(target, data)]: a line counts
    once when any target compiled it, its count is the sum of theirs."""
    data, built = {}, {}
    for target, files in per_target:
        for rel, lines in files.items():
            mine, where = data.setdefault(rel, {}), built.setdefault(rel, {})
            for n, (count, fn) in lines.items():
                old = mine.get(n, [0, ""])
                mine[n] = [old[0] + count, old[1] or fn]
                where.setdefault(n, []).append(target)
    return data, built


def union_text(per_target, floor=UNION_FLOOR):
    """(verdict, why, lines of the report) of the union of [(target, data)]."""
    data, built = union(per_target)
    targets = [t for t, _ in per_target]
    lines = sum(len(v) for v in data.values())
    run = sum(1 for v in data.values() for c, _ in v.values() if c > 0)
    pct = _pct(run, lines)
    head = (f"coverage of kernel/ over {', '.join(targets)}: {run}/{lines} lines "
            f"({pct:.1f} %) run by at least one of them")
    out = [head, "", "lines never run on any of them (file function(): line ranges; "
           "[targets] when not all compile them):"]
    for rel, fn, nums in never_run(data):
        where = sorted({t for n in nums for t in built[rel][n]})
        only = f"  [{', '.join(where)}]" if len(where) < len(targets) else ""
        out.append(f"{rel} {_func(fn)}: {_ranges(nums)}{only}")
    why = f"{pct:.1f} % of {lines} lines over {', '.join(targets)}"
    if pct < floor:
        return "not ok", f"{why}: below the floor of {floor} %", out
    return "ok", why, out


def union_step(targets, since, floor=UNION_FLOOR):
    """coverage/kernel-lines-debug-tier after the targets of `udmem-qemu test`,
    from the coverage.json of those written since `since` (this run); no result
    with fewer than two of them."""
    from .config import BUILD, TargetError, parse_target

    per_target = []
    for t in targets:
        try:
            conf = parse_target(t)
        except TargetError:
            continue
        path = os.path.join(BUILD, conf.name, "coverage.json")
        if conf.coverage and os.path.exists(path) and os.path.getmtime(path) >= since:
            try:
                per_target.append(load_json(path))
            except (OSError, ValueError, KeyError) as e:
                return [("not ok", UNION_NAME, f"{path} does not read: {e}")]
    if len(per_target) < 2:
        return []
    verdict, why, out = union_text(per_target, floor)
    with open(os.path.join(BUILD, "coverage-debug-tier.txt"), "w") as f:
        f.write("\n".join(out) + "\n")
    show(f"# {out[0]} (build/coverage-debug-tier.txt)")
    return [(verdict, UNION_NAME, why + " (build/coverage-debug-tier.txt)")]


def main(argv):
    """python3 -m udmemqemu.coverage BDIR BDIR...: the union of earlier runs."""
    if len(argv) < 2:
        print("usage: python3 -m udmemqemu.coverage build/<target> build/<target>...",
              file=sys.stderr)
        return 2
    per_target = [load_json(os.path.join(d, "coverage.json")) for d in argv]
    verdict, why, out = union_text(per_target)
    print("\n".join(out))
    print(f"{verdict} - {UNION_NAME} # {why}")
    return 0 if verdict == "ok" else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
