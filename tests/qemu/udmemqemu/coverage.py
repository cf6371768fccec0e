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
file's figures and its lines never run.
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
import tarfile

from .util import show


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


def merge_gcov_json(docs, kernel_dir):
    """{relative source: {line: (count, branches, branches taken)}} from gcov
    JSON documents, for the sources under kernel_dir only."""
    files = {}
    for doc in docs:
        cwd = doc.get("current_working_directory", "")
        for f in doc.get("files", []):
            path = os.path.normpath(os.path.join(cwd, f["file"]))
            if not path.startswith(kernel_dir + os.sep):
                continue
            rel = os.path.relpath(path, kernel_dir)
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
    return ",".join(out)


def _pct(a, b):
    return 100.0 * a / b if b else 0.0


def report(conf, bdir, logpath, floor):
    """The coverage results of a finished guest of a `coverage` target."""
    name = "coverage/kernel-lines"
    text = _block(logpath)
    if text is None:
        return [("not ok", name, "the guest printed no @@GCOV block: is CONFIG_GCOV_KERNEL "
                 "on and debugfs mounted?")]
    kernel_dir = os.path.join(bdir, "src", "kernel")
    try:
        raw = gzip.decompress(base64.b64decode(text))
    except (ValueError, OSError) as e:
        return [("not ok", name, f"the @@GCOV block does not decode: {e}")]
    placed = 0
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
    lr, lines, bt, branches, rows = summarize(merge_gcov_json(docs, kernel_dir))
    out = [f"coverage of kernel/ on {conf.name}: {lr}/{lines} lines "
           f"({_pct(lr, lines):.1f} %), {bt}/{branches} branches taken "
           f"({_pct(bt, branches):.1f} %)", ""]
    for rel, run, n, t, nb, _ in rows:
        out.append(f"{rel:34} lines {run:5}/{n:<5} {_pct(run, n):5.1f} %   "
                   f"branches {t:5}/{nb:<5} {_pct(t, nb):5.1f} %")
    out.append("")
    out.append("lines never run (file: line ranges):")
    for rel, _, _, _, _, missed in rows:
        if missed:
            out.append(f"{rel}: {_ranges(missed)}")
    with open(os.path.join(bdir, "coverage.txt"), "w") as f:
        f.write("\n".join(out) + "\n")
    show("\n".join(f"# [{conf.name}] {line}" for line in out[:len(rows) + 2]))
    why = (f"{_pct(lr, lines):.1f} % of {lines} lines, {_pct(bt, branches):.1f} % of "
           f"{branches} branches (build/{conf.name}/coverage.txt)")
    if _pct(lr, lines) < floor:
        return [("not ok", name, f"{why}: below the target's floor of {floor} %")]
    return [("ok", name, why)]
