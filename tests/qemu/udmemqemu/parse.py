# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Results from a guest's console.

A result is a line that starts with one of
    ok - NAME                 not ok - NAME # REASON     ok - NAME # SKIP REASON
    ok N NAME                 not ok N NAME # REASON     ok N NAME # SKIP REASON
(the second row is KTAP; `ok N - NAME` is read too).  `KTAP version 1`, plans
(`1..N`) and `#` diagnostic lines are not results; the guest's lib.sh checks
plans.  An indented line is a KTAP subtest, summed up by its parent's line.
"""

import os
import re

from .util import show

RESULT_RE = re.compile(r"^(not ok|ok)\s+(?:(\d+)(?:\s+-)?|-)"
                       r"(?:\s+([^#\s][^#]*?))?\s*(?:#\s*(.*))?$")

HERE = os.path.dirname(os.path.abspath(__file__))
# The kernel-report patterns the guest's /init greps dmesg with, and those
# that are no report; the files say more.
REPORTS_FILE = os.path.join(HERE, "kernel-reports.ere")
BENIGN_FILE = os.path.join(HERE, "kernel-reports-benign.ere")
# Other drivers' known stack dumps, set aside by both scans.
PEER_FILE = os.path.join(HERE, "kernel-reports-peer.tsv")


def read_patterns(path: str) -> list[str]:
    """The patterns of a .ere file: its lines but comments and blank ones."""
    with open(path) as f:
        return [line.rstrip("\n") for line in f
                if line.strip() and not line.startswith("#")]


def alternation(path: str) -> str:
    """The patterns of a .ere file as one ERE, for the host's re and for the
    grep of /init alike: in the guest one alternation costs a regexec per log
    line instead of one per pattern (a scan of 17 000 lines took 6 s of guest
    time with the patterns apart)."""
    return "|".join(f"({p})" for p in read_patterns(path))


KERNEL_BAD_RE = re.compile(alternation(REPORTS_FILE))
KERNEL_BENIGN_RE = re.compile(alternation(BENIGN_FILE))


def kernel_report(line: str) -> bool:
    """Whether a kernel log line is (part of) a report that fails a run."""
    return bool(KERNEL_BAD_RE.search(line)) and not KERNEL_BENIGN_RE.search(line)


def read_peer_bugs(path: str = PEER_FILE) -> list[tuple[re.Pattern, re.Pattern]]:
    """(first line, stack line) patterns of each dump kernel-reports-peer.tsv
    lists."""
    with open(path) as f:
        return [tuple(re.compile(p) for p in line.rstrip("\n").split("\t"))
                for line in f if not line.startswith("#") and line.count("\t") == 1]


PEER_BUGS = read_peer_bugs()


def read_foreign(path: str = PEER_FILE) -> list[tuple[str, re.Pattern, re.Pattern, re.Pattern]]:
    """(name, first line, last line, ours) of each "foreign" line of
    kernel-reports-peer.tsv: reports of the rest of the kernel (KCSAN's)."""
    with open(path) as f:
        rows = [line.rstrip("\n").split("\t") for line in f if not line.startswith("#")]
    return [(r[1], re.compile(r[2]), re.compile(r[3]), re.compile(r[4]))
            for r in rows if len(r) == 5 and r[0] == "foreign"]


FOREIGN = read_foreign()
# Lines a foreign report may run to; one not closed by then is not set aside.
FOREIGN_MAX_LINES = 400


def foreign_reports(lines: list[str]) -> tuple[set[int], list[tuple[str, int]]]:
    """The foreign reports (kernel-reports-peer.tsv) that name none of our
    code: the indexes of all their lines, and (name, index of the first
    line) of each.  A report runs from a line its first pattern matches to
    the next line its last-line pattern matches, within FOREIGN_MAX_LINES;
    a line of it that the ours pattern matches keeps it a report.
    init.sh's foreign_report_lines does the same in the guest."""
    aside: set[int] = set()
    found: list[tuple[str, int]] = []
    i = 0
    while i < len(lines):
        kind = next((k for k in FOREIGN if k[1].search(lines[i])), None)
        if kind is None:
            i += 1
            continue
        name, _, last, ours = kind
        end = next((j for j in range(i + 1, min(len(lines), i + FOREIGN_MAX_LINES))
                    if last.search(lines[j])), None)
        if end is None:
            i += FOREIGN_MAX_LINES
            continue
        if not any(ours.search(line) for line in lines[i:end + 1]):
            aside.update(range(i, end + 1))
            found.append((name, i))
        i = end + 1
    return aside, found


def peer_bug_lines(lines: list[str]) -> set[int]:
    """Indexes of the lines of each stack dump kernel-reports-peer.tsv lists:
    from a line its first pattern matches to the dump's </TASK>, or its
    ret_from_fork when the stack has no <TASK> bracket, at most 40 lines, if
    a line of it matches the second pattern.  init.sh's peer_bug_lines does
    the same in the guest."""
    aside, inside = set(), None
    for i, line in enumerate(lines):
        if inside is None:
            inside = next((b for b in PEER_BUGS if b[0].search(line)), None)
            if inside is None:
                continue
            first, n, task, hit = i, 0, False, False
        n += 1
        hit = hit or bool(inside[1].search(line))
        task = task or "<TASK>" in line
        if "</TASK>" in line or (not task and "ret_from_fork" in line) or n > 40:
            if hit:
                aside.update(range(first, i + 1))
            inside = None
    return aside


def parse_result(line, suite=None):
    """(verdict, name, reason) of a result line, else None.

    A KTAP line without a name is named after its number in the suite."""
    m = RESULT_RE.match(line.rstrip())
    if not m:
        return None
    verdict, number, name, why = m.groups()
    if not name:
        name = f"{suite or 'guest'}/result-{number or 'unnumbered'}"
    return verdict, name, why or ""


def parse_console(console, ended):
    """Results from a guest's console lines.

    Every TAP result line counts.  A kernel problem on the console, or a
    guest that never printed @@END (panic, hang, timeout: `ended` says
    which), is one more failure whose reason carries the evidence; the
    console tail is printed for a reader.
    """
    results, seen_end = [], False
    suite, counted = None, 0

    def suite_done():
        # A suite must report something besides the harness's own checks.
        if suite and not counted:
            results.append(("not ok", f"{suite}/ran-no-test",
                            "the suite printed no result line"))

    for line in console:
        r = parse_result(line, suite)
        if r:
            results.append(r)
            if not r[1].endswith(("/kernel-log-clean", "/suite-exit-status")):
                counted += 1
        elif line.startswith("@@SUITE "):
            suite_done()
            suite, counted = line.split()[1], 0
        elif line.startswith("@@END"):
            seen_end = True
    if seen_end:
        suite_done()
    aside = peer_bug_lines(console)
    foreign, found = foreign_reports(console)
    aside |= foreign
    for name in sorted({n for n, _ in found}):
        firsts = [console[i].strip()[:200] for n, i in found if n == name]
        show(f"# kernel/{name}-foreign-reports: {len(firsts)} (none of our code; set aside)\n" +
             "\n".join(f"#   {line}" for line in firsts))
    bad = [n for n, line in enumerate(console) if kernel_report(line) and n not in aside and
           not parse_result(line) and not line.startswith("#")]
    tail = "\n".join("#   " + line for line in console[-40:])
    if bad:
        results.append(("not ok", "kernel/console-clean", console[bad[0]].strip()[:300]))
        # The first report whole (a KASAN or lockdep report runs to 100 lines),
        # when the tail below does not hold it.
        if bad[0] < len(console) - 40:
            first = console[max(0, bad[0] - 5):bad[0] + 120]
            show("# first kernel report:\n" + "\n".join("#   " + line for line in first))
    if not seen_end:
        results.append(("not ok", "guest/finished",
                         f"guest stopped before @@END ({ended})"))
    if bad or not seen_end:
        show("# console tail:\n" + tail)
    return results


def summary(results):
    passed = sum(1 for v, _, why in results if v == "ok" and not why.startswith("SKIP"))
    skipped = sum(1 for v, _, why in results if v == "ok" and why.startswith("SKIP"))
    failed = sum(1 for v, _, _ in results if v == "not ok")
    return passed, failed, skipped
