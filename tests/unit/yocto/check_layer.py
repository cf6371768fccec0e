#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Check meta-udmem: oelint-adv, and the recipes against the tree they build."""

import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys

# The rules we set aside, each with its reason.
SUPPRESS = {
    # udmem has no public home page to name; a made-up one would be worse.
    "oelint.var.mandatoryvar.HOMEPAGE": "no public home page",
}
# The oldest and the newest long-term releases conf/layer.conf names.
RELEASES = ("kirkstone", "scarthgap")

FINDING_RE = re.compile(r"^(?P<path>[^:]+):(?P<line>\d+):(?P<sev>\w+):(?P<rule>[^:]+):(?P<msg>.*)$")


def tap(ok, name, why=""):
    print(f"{'ok' if ok else 'not ok'} - yocto/{name}{'' if ok else ' # ' + why}")
    return ok


def oelint(top, recipes, release):
    """oelint-adv over every recipe: findings of severity error or warning fail it."""
    exe = shutil.which("oelint-adv")
    if not exe:
        tap(False, "oelint-adv", "oelint-adv is not installed (scripts/setup-host.sh installs it)")
        return False
    cmd = [exe, "--quiet", "--release", release, "--hide", "info"]
    for rule in SUPPRESS:
        cmd += ["--suppress", rule]
    p = subprocess.run(cmd + recipes, capture_output=True, text=True, cwd=top)
    findings = {}
    for line in (p.stdout + p.stderr).splitlines():
        m = FINDING_RE.match(line.strip())
        if m and m["sev"] in ("error", "warning"):
            path = os.path.relpath(os.path.join(top, m["path"]), top)
            findings.setdefault(path, []).append(f"{m['line']}:{m['sev']}:{m['rule']}")
        elif line.strip() and not m:
            findings.setdefault("oelint-adv", []).append(line.strip())
    good = True
    for r in recipes:
        got = findings.pop(r, [])
        good &= tap(not got, f"oelint-{release}/{r}", " ".join(got[:3]))
    for path, got in findings.items():
        good &= tap(False, f"oelint-{release}/{path}", " ".join(got[:3]))
    return good


def assignments(path):
    """VAR = "value" lines of a recipe (continuations joined), as a dict."""
    with open(path) as f:
        text = f.read().replace("\\\n", " ")
    return dict(re.findall(r'^([A-Za-z_:${}]+)\s*\??\+?=\s*"([^"]*)"', text, re.M))


def udmem_version(top):
    with open(os.path.join(top, "lib", "udmem.h")) as f:
        text = f.read()
    parts = [re.search(rf"#define UDMEM_VERSION_{k}\s+(\d+)", text)[1]
             for k in ("MAJOR", "MINOR", "PATCH")]
    return ".".join(parts)


def recipe_matches_tree(top, path, version):
    """The license checksum, the version and the source folder of one recipe."""
    rel = os.path.relpath(path, top)
    v = assignments(path)
    good = True
    m = re.match(r"(.+)_([0-9.]+)\.bb$", os.path.basename(path))
    good &= tap(bool(m) and m[2] == version, f"version/{rel}",
                f"recipe version {m[2] if m else '?'}, lib/udmem.h says {version}")
    s = v.get("S", "").replace("${UNPACKDIR}/git", top).replace("${WORKDIR}/git", top)
    good &= tap(os.path.isdir(s) and (os.path.exists(os.path.join(s, "Makefile")) or
                                      os.path.exists(os.path.join(s, "pyproject.toml"))),
                f"source/{rel}", f"S = {v.get('S')} is not a folder with a Makefile or pyproject")
    for url in v.get("LIC_FILES_CHKSUM", "").split():
        fm = re.match(r"file://([^;]+);md5=([0-9a-f]{32})$", url)
        if not fm:
            good &= tap(False, f"license/{rel}", f"cannot read {url}")
            continue
        lic = os.path.normpath(os.path.join(s, fm[1]))
        try:
            with open(lic, "rb") as f:
                got = hashlib.md5(f.read()).hexdigest()
        except OSError as e:
            got = str(e)
        good &= tap(got == fm[2], f"license/{rel}",
                    f"{os.path.relpath(lic, top)}: md5 {got}, the recipe says {fm[2]}")
    return good


def main():
    top = os.path.abspath(sys.argv[1])
    layer = os.path.join(top, "meta-udmem")
    recipes = sorted(os.path.relpath(p, top) for p in
                     glob.glob(os.path.join(layer, "recipes-*", "**", "*.bb"), recursive=True) +
                     glob.glob(os.path.join(layer, "recipes-*", "**", "*.bbappend"),
                               recursive=True))
    if not recipes:
        tap(False, "recipes", "no recipe in meta-udmem")
        return 1
    good = True
    for release in RELEASES:
        good &= oelint(top, recipes, release)
    version = udmem_version(top)
    names = []
    for r in recipes:
        if "packagegroup" in r:
            continue
        names.append(os.path.basename(r).split("_")[0])
        good &= recipe_matches_tree(top, os.path.join(top, r), version)
    for pg in [r for r in recipes if "packagegroup" in r]:
        rdep = assignments(os.path.join(top, pg)).get("RDEPENDS:${PN}", "").split()
        good &= tap(sorted(rdep) == sorted(names), f"packagegroup/{pg}",
                    f"RDEPENDS {' '.join(rdep)}; the layer's recipes are {' '.join(names)}")
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
