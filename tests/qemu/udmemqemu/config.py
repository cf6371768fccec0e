# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Where things live, and the targets (tests/qemu/targets/*.conf)."""

import glob
import os
import sys

TOP = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
QEMU_DIR = os.path.join(TOP, "tests", "qemu")
CACHE = os.environ.get("UDMEM_CACHE") or os.path.join(
    os.path.expanduser("~"), ".cache", "udmem")
BUILD = os.path.join(TOP, "build")


def load_target(name):
    path = os.path.join(QEMU_DIR, "targets", name + ".conf")
    if not os.path.exists(path):
        names = sorted(os.path.basename(p)[:-5] for p in
                       glob.glob(os.path.join(QEMU_DIR, "targets", "*.conf")))
        sys.exit(f"udmem-qemu: unknown target '{name}' (have: {', '.join(names)})")
    conf = {"name": name}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            key, _, value = line.partition("=")
            conf[key.strip()] = value.strip()
    if "base" in conf:
        base = load_target(conf["base"])
        base.update(conf)
        conf = base
        conf["name"] = name
    conf.setdefault("kmake", "")
    conf.setdefault("cross_compile", "")
    return conf


def all_targets():
    order = ["arm64", "x86_64", "arm64-6.12", "armhf", "riscv64", "x86_64-6.12",
             "x86_64-python", "armhf-6.12"]
    have = sorted(os.path.basename(p)[:-5] for p in
                  glob.glob(os.path.join(QEMU_DIR, "targets", "*.conf")))
    return [t for t in order if t in have] + [t for t in have if t not in order]
