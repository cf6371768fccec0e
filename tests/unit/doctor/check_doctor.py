#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""`udmem doctor` on the host: the JSON a script reads, and the text a user reads.

Whatever the host has (no module loaded, usually), the output must keep its
form: every documented key, statuses from the four, a fix for every problem,
counts that add up, exit status 1 exactly when a check failed."""

import json
import re
import subprocess
import sys

STATUSES = ("ok", "warn", "fail", "skip")
TOP_KEYS = ["udmem_doctor", "kernel", "machine", "uid", "checks", "summary"]
CHECK_KEYS = ["check", "subject", "status", "finding", "fix"]
FAMILIES = {"lockdown", "module", "cma", "permission", "coherence", "iommu", "kernel",
            "memtype"}
results = []


def tap(ok, name, why=""):
    results.append(ok)
    print(f"{'ok' if ok else 'not ok'} - doctor/{name}{'' if ok else ' # ' + why}")


def strict_json(text):
    """json.loads that refuses duplicate keys and NaN."""
    def no_dupes(pairs):
        keys = [k for k, _ in pairs]
        if len(keys) != len(set(keys)):
            raise ValueError(f"duplicate key in {keys}")
        return dict(pairs)

    def no_constant(name):
        raise ValueError(f"not JSON: {name}")
    return json.loads(text, object_pairs_hook=no_dupes, parse_constant=no_constant)


def check_json(name, udmem, args):
    p = subprocess.run([udmem, "doctor", "--json"] + args, capture_output=True, text=True)
    try:
        doc = strict_json(p.stdout)
    except ValueError as e:
        tap(False, f"{name}/parses", f"{e}: {p.stdout[:200]!r}")
        return None
    tap(True, f"{name}/parses")
    tap(list(doc) == TOP_KEYS, f"{name}/top-keys", f"keys {list(doc)}")
    checks = doc.get("checks", [])
    bad = [c for c in checks if list(c) != CHECK_KEYS]
    tap(not bad and checks != [], f"{name}/check-keys", f"{len(checks)} checks, bad: {bad[:2]}")
    bad = [c for c in checks if c.get("status") not in STATUSES or
           c.get("check") not in FAMILIES or not isinstance(c.get("finding"), str) or
           not c.get("finding") or not isinstance(c.get("subject"), str)]
    tap(not bad, f"{name}/check-values", f"{bad[:2]}")
    bad = [c for c in checks if c.get("status") in ("warn", "fail") and not c.get("fix")]
    tap(not bad, f"{name}/problems-have-a-fix", f"{bad[:2]}")
    count = {s: sum(c.get("status") == s for c in checks) for s in STATUSES}
    tap(doc.get("summary") == count, f"{name}/summary-adds-up",
        f"summary {doc.get('summary')}, counted {count}")
    want_rc = 1 if count["fail"] else 0
    tap(p.returncode == want_rc, f"{name}/exit-status",
        f"exit {p.returncode} with {count['fail']} failed checks")
    tap(doc.get("udmem_doctor") == 1 and isinstance(doc.get("uid"), int),
        f"{name}/version-and-uid", f"udmem_doctor {doc.get('udmem_doctor')}, uid {doc.get('uid')}")
    return doc


def check_text(udmem, doc):
    p = subprocess.run([udmem, "doctor"], capture_output=True, text=True)
    lines = p.stdout.splitlines()
    tags = {"ok": "ok  ", "warn": "WARN", "fail": "FAIL", "skip": "skip"}
    got = [ln for ln in lines if re.match(r"^(ok  |WARN|FAIL|skip)  ", ln)]
    want = [tags[c["status"]] for c in doc["checks"]]
    tap([g[:4] for g in got] == want, "text/one-line-per-check",
        f"{len(got)} lines for {len(want)} checks")
    fixes = sum(1 for ln in lines if re.match(r"^ +fix: ", ln))
    tap(fixes == sum(1 for c in doc["checks"] if c["fix"]), "text/fix-lines",
        f"{fixes} fix lines")
    s = doc["summary"]
    tap(lines[-1:] == [f"{s['ok']} ok, {s['warn']} warn, {s['fail']} fail, {s['skip']} skip"],
        "text/summary-line", f"last line {lines[-1:]}")


def check_docs(cli_md):
    """docs/cli.md names every key the output has."""
    with open(cli_md) as f:
        text = f.read()
    section = text[text.find("## doctor"):]
    missing = [k for k in TOP_KEYS + CHECK_KEYS if f"`{k}`" not in section]
    tap("## doctor" in text and not missing, "docs-name-every-key",
        f"docs/cli.md's doctor section lacks {missing}")


def main():
    udmem, cli_md = sys.argv[1], sys.argv[2]
    doc = check_json("json", udmem, [])
    # 64 GiB is more CMA than any host has: the cma check must fail, and exit 1.
    big = check_json("json-want-64g", udmem, ["--want", "64G"])
    if big is not None:
        cma = [c for c in big["checks"] if c["check"] == "cma"]
        tap(len(cma) == 1 and cma[0]["status"] == "fail", "want-64g-cma-fails", f"{cma}")
    p = subprocess.run([udmem, "doctor", "--want", "lots"], capture_output=True, text=True)
    tap(p.returncode == 2 and "bad size" in p.stderr, "bad-size-usage-error",
        f"exit {p.returncode}: {p.stderr.strip()}")
    if doc is not None:
        check_text(udmem, doc)
    check_docs(cli_md)
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
