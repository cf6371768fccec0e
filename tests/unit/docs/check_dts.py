#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Check the device-tree snippets of the documentation (docs/examples/*.dtsi).

    check_dts.py TOP

Each snippet is compiled by dtc after a stub of what the board's own tree
gives it (cell sizes, the interrupt controller's label): dtc must accept it
without a warning.  Then, read back from the blob: every u-dma-buf and
uiomem node uses only properties its driver reads (kernel/dma-buf/of.c,
kernel/iomem/probe.c) or the DMA core honours; a buffer has a size and
fits its memory-region; a pool is a shared-dma-pool, reusable (CMA, base
and size 8 MiB aligned) or no-map, inside the board's DDR; a generic-uio
node has reg and interrupts.  Every snippet is quoted whole by a page.
One TAP line per snippet and check.
"""

from __future__ import annotations

import glob
import os
import re
import subprocess
import sys
import tempfile

MiB = 1 << 20

# What the board's own tree gives the snippet, and where its DDR is.
BOARDS = {
    "zynqmp-system-user.dtsi": (2, "gic: interrupt-controller@f9010000 { "
                                "reg = <0x0 0xf9010000 0x0 0x10000>; interrupt-controller; "
                                "#interrupt-cells = <3>; #address-cells = <0>; };",
                                [(0, 0x80000000), (0x800000000, 0x880000000)]),
    "zynq7000-system-user.dtsi": (1, "intc: interrupt-controller@f8f01000 { "
                                  "reg = <0xf8f01000 0x1000>; interrupt-controller; "
                                  "#interrupt-cells = <3>; #address-cells = <0>; };",
                                  [(0, 0x20000000)]),
    "polarfire-soc.dtsi": (2, "", [(0x80000000, 0xc0000000), (0x1000000000, 0x1400000000)]),
    "beaglebone-pru.dtsi": (1, "", [(0x80000000, 0xa0000000)]),
}

# The DMA core's properties, honoured for any platform device.
DMA_CORE = {"dma-coherent", "dma-noncoherent", "iommus", "dma-ranges"}


def driver_props(top: str, path: str) -> set[str]:
    """The property names a driver's source reads (its string literals)."""
    with open(os.path.join(top, path)) as f:
        return set(re.findall(r'"([a-z][a-z0-9-]*)"', f.read()))


def parse_dts(text: str) -> dict[str, dict[str, str]]:
    """dtc -O dts output: {node path: {property: raw value}}."""
    nodes: dict[str, dict[str, str]] = {}
    stack: list[str] = []
    for line in text.splitlines():
        line = line.strip()
        if line.endswith("{"):
            name = line[:-1].strip().split(":")[-1].strip()
            stack.append(name)
            nodes["/".join(stack)] = {}
        elif line == "};":
            stack.pop()
        elif stack and line.endswith(";") and not line.startswith("/"):
            key, _, val = line[:-1].partition("=")
            nodes["/".join(stack)][key.strip()] = val.strip()
    return nodes


def cells(raw: str) -> list[int]:
    return [int(x, 0) for x in re.findall(r"0x[0-9a-f]+|\d+", raw.strip("<>"))]


def num(raw: str, n: int) -> list[int]:
    """Values of n cells each."""
    c = cells(raw)
    return [sum(c[i + k] << (32 * (n - 1 - k)) for k in range(n)) for i in range(0, len(c), n)]


def check(top: str, name: str) -> list[tuple[bool, str, str]]:
    ncells, stub, ddr = BOARDS[name]
    path = os.path.abspath(os.path.join(top, "docs", "examples", name))
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "board.dts")
        with open(src, "w") as f:
            f.write(f'/dts-v1/;\n/ {{\n\t#address-cells = <{ncells}>;\n'
                    f'\t#size-cells = <{ncells}>;\n\t{stub}\n}};\n/include/ "{path}"\n')
        dtb = os.path.join(tmp, "board.dtb")
        p = subprocess.run(["dtc", "-I", "dts", "-O", "dtb", "-o", dtb, src],
                           capture_output=True, text=True)
        ok = p.returncode == 0 and not p.stderr.strip()
        out.append((ok, f"{name}/dtc", " | ".join(p.stderr.strip().splitlines()[:3])))
        if p.returncode:
            return out
        text = subprocess.run(["dtc", "-I", "dtb", "-O", "dts", dtb], capture_output=True,
                              text=True, check=True).stdout
    nodes = parse_dts(text)
    by_phandle = {cells(props["phandle"])[0]: (path, props) for path, props in nodes.items()
                  if "phandle" in props}
    udmabuf = driver_props(top, "kernel/dma-buf/of.c") | DMA_CORE | {"compatible"}
    uiomem = driver_props(top, "kernel/iomem/probe.c") | DMA_CORE | {"compatible"}
    found = 0
    for node, props in nodes.items():
        compat = props.get("compatible", "")
        test = f"{name}/{node.split('/')[-1]}"
        if "ikwzm,u-dma-buf" in compat:
            found += 1
            bad = set(props) - udmabuf
            why = f"properties the driver does not read: {sorted(bad)}" if bad else ""
            if not why and "size" not in props:
                why = "no size"
            if not why and "memory-region" in props:
                pool_path, pool = by_phandle.get(cells(props["memory-region"])[0], ("", {}))
                size = num(props["size"], len(cells(props["size"])))[0]
                base, psize = num(pool.get("reg", "<>"), ncells)[:2] or (0, 0)
                if '"shared-dma-pool"' not in pool.get("compatible", ""):
                    why = f"memory-region {pool_path} is not a shared-dma-pool"
                elif ("reusable" in pool) == ("no-map" in pool):
                    why = f"{pool_path}: one of reusable or no-map"
                elif "reusable" in pool and (base % (8 * MiB) or psize % (8 * MiB)):
                    why = f"{pool_path}: a CMA pool's base and size must be 8 MiB aligned"
                elif not any(lo <= base and base + psize <= hi for lo, hi in ddr):
                    why = f"{pool_path} at {base:#x} is not in the board's DDR"
                elif size > psize:
                    why = f"size {size:#x} does not fit the pool ({psize:#x})"
            out.append((not why, test, why))
        elif "ikwzm,uiomem" in compat:
            found += 1
            bad = set(props) - uiomem
            why = f"properties the driver does not read: {sorted(bad)}" if bad else ""
            if not why and "reg" not in props and "memory-region" not in props:
                why = "no reg and no memory-region"
            out.append((not why, test, why))
        elif '"generic-uio"' in compat:
            found += 1
            missing = {"reg", "interrupts"} - set(props)
            out.append((not missing, test, f"missing {sorted(missing)}" if missing else ""))
    out.append((found > 0, f"{name}/has-nodes", "no u-dma-buf, uiomem or generic-uio node"))
    return out


def quoted(top: str, name: str) -> tuple[bool, str, str]:
    """The snippet is quoted whole by a page (check_examples.py compares)."""
    mark = f"<!-- example: docs/examples/{name} -->"
    pages = glob.glob(os.path.join(top, "docs", "*.md")) + [os.path.join(top, "README.md")]
    ok = any(mark in open(p).read() for p in pages)
    return ok, f"{name}/quoted", "" if ok else f"no page has {mark}"


def main(top: str) -> int:
    results = []
    snippets = sorted(os.path.basename(p)
                      for p in glob.glob(os.path.join(top, "docs", "examples", "*.dtsi")))
    for name in snippets:
        if name not in BOARDS:
            results.append((False, f"{name}/board", "add the board to BOARDS in check_dts.py"))
            continue
        results += check(top, name)
        results.append(quoted(top, name))
    if not results:
        print("not ok - dts # no snippet in docs/examples")
        return 1
    for n, (ok, test, why) in enumerate(results, 1):
        print(f"ok {n} dts/{test}" if ok else f"not ok {n} dts/{test} # {why}")
    return 0 if all(ok for ok, _, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
