#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Check that the documentation names every JSON key `udmem list/info --json` prints.

    check_json_keys.py TOP

The keys are the string literals cli/show.c's cli_facts_json() prints; the
pages are docs/udmem.1 (each key bold, `.BR key`) and docs/cli.md (each key
in backquotes).  A key a page lacks, or a key a page names in its key list
that the tool does not print, fails.
"""

from __future__ import annotations

import os
import re
import sys


def tool_keys(top: str) -> list[str]:
    with open(os.path.join(top, "cli", "show.c")) as f:
        src = f.read()
    body = src[src.index("static void cli_facts_json("):]
    body = body[:body.index("\n}\n")]
    return re.findall(r'(?:cli_json_(?:str|int)\((?:"[^"]*", )?|\\")"?([a-z_]+)(?:\\"|")', body)


def man_keys(top: str) -> set[str]:
    with open(os.path.join(top, "docs", "udmem.1")) as f:
        text = f.read()
    part = text[text.index("Every JSON object"):text.index("Every key is always present")]
    return set(re.findall(r"^\.BR? ([a-z_]+)", part, re.M)) | \
        set(re.findall(r'^\.BR [a-z_]+ " (?:and|,)?\s*" ([a-z_]+)', part, re.M)) | \
        set(re.findall(r'^\.BR [a-z_]+ " and " ([a-z_]+)', part, re.M))


def md_keys(top: str) -> set[str]:
    with open(os.path.join(top, "docs", "cli.md")) as f:
        text = f.read()
    return set(re.findall(r"`([a-z][a-z_]*)`", text))


def main(top: str) -> int:
    keys = [k for k in dict.fromkeys(tool_keys(top)) if k]
    results = [(len(keys) >= 10, "json/tool-keys", f"found only {keys} in cli/show.c")]
    man, md = man_keys(top), md_keys(top)
    for k in keys:
        results.append((k in man, f"json/udmem.1/{k}", "not named in docs/udmem.1"))
        results.append((k in md, f"json/cli.md/{k}", "not named in docs/cli.md"))
    # the man page's key list names nothing the tool lacks
    listed = {k for k in man if "_" in k or k in {"name", "kind", "device", "size", "coherent"}}
    for k in sorted(listed - set(keys)):
        results.append((False, f"json/udmem.1/{k}",
                        "named in docs/udmem.1, not printed by the tool"))
    for n, (ok, test, why) in enumerate(results, 1):
        print(f"ok {n} {test}" if ok else f"not ok {n} {test} # {why}")
    return 0 if all(ok for ok, _, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
