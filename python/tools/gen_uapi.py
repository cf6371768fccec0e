#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Generate python/src/udmem/_uapi.py from the C headers, with the C compiler.

The headers (include/uapi/linux/u-dma-buf-ioctl.h, uiomem.h) and lib/udmem.h
are the only place the ABI and the version are written.  This script reads
their names (macros, enum constants, structure fields) and writes a C probe
that prints each value, ioctl number, structure size and field offset as the
compiler sees them; the Python module is made from the probe's output, so no
layout is written twice.  The module is committed, so the wheel needs no
compiler; tests/unit/python checks that regenerating gives the committed file
and that the probe built for 32- and 64-bit ARM prints the same layout.

    gen_uapi.py                 rewrite _uapi.py
    gen_uapi.py --check         exit 1 (with a diff) if _uapi.py is stale
    gen_uapi.py --probe-source  print the probe's C source (for cross builds)
    gen_uapi.py --from-probe F  make the module from a probe's output in F
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import struct
import subprocess
import sys
import tempfile
import textwrap

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
HEADERS = ["include/uapi/linux/u-dma-buf-ioctl.h", "include/uapi/linux/uiomem.h",
           "include/uapi/linux/u-dma-chan.h"]
VERSION_HEADER = "lib/udmem.h"
OUTPUT = "python/src/udmem/_uapi.py"

_DEFINE = re.compile(r"^#define\s+([A-Z][A-Z0-9_]*)\s+(\S.*?)\s*(?:/\*.*)?$", re.M)
_ENUM = re.compile(r"\benum\s*\w*\s*\{([^}]*)\}", re.S)
_STRUCT = re.compile(r"^struct\s+(\w+)\s*\{([^}]*)\};", re.M)
_FIELD = re.compile(r"^\s*([\w ]+?)\s+(\w+)(?:\[(\w+)\])?\s*;", re.M)
_COMMENTS = re.compile(r"/\*.*?\*/", re.S)


def _read(rel: str) -> str:
    with open(os.path.join(TOP, rel)) as f:
        return f.read()


def scan() -> tuple[list[str], list[str], dict[str, list[tuple[str, str, bool]]]]:
    """Constants, ioctl macros and structures (name -> [(type, field, is_array)])."""
    consts: list[str] = []
    ioctls: list[str] = []
    structs: dict[str, list[tuple[str, str, bool]]] = {}
    for rel in HEADERS:
        text = _read(rel)
        for name, value in _DEFINE.findall(text):
            if value.startswith("\\"):
                value = "_IO" if re.search(rf"#define\s+{name}\s*\\\s*\n\s*_IO", text) else ""
            if name.startswith("_") or not value:
                continue
            (ioctls if value.startswith("_IO") else consts).append(name)
        for body in _ENUM.findall(_COMMENTS.sub("", text)):
            consts += [m.group(1) for m in re.finditer(r"\b([A-Z][A-Z0-9_]*)\s*(?:=|,|$)",
                                                       body, re.M)]
        for sname, body in _STRUCT.findall(text):
            body = _COMMENTS.sub("", body)
            structs[sname] = [(t.strip(), f, bool(n)) for t, f, n in _FIELD.findall(body)]
    return consts, ioctls, structs


def probe_source() -> str:
    consts, ioctls, structs = scan()
    lines = ["#include <stddef.h>", "#include <stdio.h>"]
    lines += [f'#include "{os.path.join(TOP, h)}"' for h in HEADERS + [VERSION_HEADER]]
    lines += ["#define SIGNED(x) ((__typeof__(x))-1 < 0)", "int main(void)", "{"]
    for v in ("MAJOR", "MINOR", "PATCH"):
        lines.append(f'\tprintf("V {v} %d\\n", UDMEM_VERSION_{v});')
    for c in consts:
        lines.append(f'\tprintf("C {c} %llu\\n", (unsigned long long)({c}));')
    for i in ioctls:
        lines.append(f'\tprintf("I {i} %u %u %u %u\\n", (unsigned)_IOC_DIR({i}), '
                     f"(unsigned)_IOC_TYPE({i}), (unsigned)_IOC_NR({i}), "
                     f"(unsigned)_IOC_SIZE({i}));")
    for s, fields in structs.items():
        lines.append(f'\tprintf("S {s} %zu\\n", sizeof(struct {s}));')
        for ctype, f, is_array in fields:
            elem = f"((struct {s} *)0)->{f}" + ("[0]" if is_array else "")
            char = int("char" in ctype.split())
            lines.append(f'\tprintf("F {s} {f} %zu %zu %zu %d %d\\n", '
                         f"offsetof(struct {s}, {f}), sizeof({elem}), "
                         f"sizeof(((struct {s} *)0)->{f}), SIGNED({elem}), {char});")
    lines += ["\treturn 0;", "}", ""]
    return "\n".join(lines)


def run_probe(cc: str) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "probe.c")
        with open(src, "w") as f:
            f.write(probe_source())
        exe = os.path.join(tmp, "probe")
        subprocess.run([cc, "-std=gnu11", "-Wall", "-Werror", "-I",
                        os.path.join(TOP, "include", "uapi"), "-o", exe, src], check=True)
        return subprocess.run([exe], check=True, capture_output=True, text=True).stdout


_UNSIGNED = {1: "B", 2: "H", 4: "I", 8: "Q"}


def _format(sname: str, size: int, fields: list[list[str]]) -> str:
    """A native-order, padding-explicit struct format; checked against the probe."""
    fmt, pos = "=", 0
    for _, off, elem, total, signed, char in fields:
        o, e, t = int(off), int(elem), int(total)
        if o > pos:
            fmt += f"{o - pos}x"
        code = "s" if char == "1" else _UNSIGNED[e].lower() if signed == "1" else _UNSIGNED[e]
        count = t if code == "s" else t // e
        fmt += code if count == 1 else f"{count}{code}"
        pos = o + t
    if size > pos:
        fmt += f"{size - pos}x"
    if struct.calcsize(fmt) != size:
        raise SystemExit(f"gen_uapi: {sname}: {fmt} is {struct.calcsize(fmt)} bytes, "
                         f"the compiler says {size}")
    return fmt


def module_text(probe: str) -> str:
    version: dict[str, str] = {}
    out_consts: list[str] = []
    out_ioctls: list[str] = []
    sizes: dict[str, int] = {}
    fields: dict[str, list[list[str]]] = {}
    for line in probe.splitlines():
        kind, name, *rest = line.split()
        if kind == "V":
            version[name] = rest[0]
        elif kind == "C":
            value = int(rest[0])
            out_consts.append(f"{name} = {value:#x}" if value > 9 else f"{name} = {value}")
        elif kind == "I":
            d, t, nr, size = (int(x) for x in rest)
            out_ioctls.append(f"{name} = _ioc({d}, {t:#x}, {nr:#x}, {size})")
        elif kind == "S":
            sizes[name] = int(rest[0])
            fields[name] = []
        elif kind == "F":
            fields[name].append(rest)
    text = [
        "# SPDX-License-Identifier: GPL-2.0 OR MIT",
        "# Generated by python/tools/gen_uapi.py from:",
        *(f"#   {h}" for h in HEADERS + [VERSION_HEADER]),
        "# Do not edit: change the headers and run the script (tests/unit/python",
        "# fails while this file is stale).",
        '"""Constants, ioctl numbers and structure layouts of the udmem UAPI headers.',
        "",
        "Names are the C names.  A structure is a ``Layout`` (a ``struct.Struct`` in",
        "native byte order with explicit padding) whose ``fields`` name its items;",
        "arrays are flattened (``reserved`` of four words is four items).  The ioctl",
        "numbers use the generic _IOC encoding (x86, arm, arm64, riscv).",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "import struct",
        "from typing import Any",
        "",
        "VERSION = \"{MAJOR}.{MINOR}.{PATCH}\"".format(**version),
        "",
        "",
        "def _ioc(direction: int, kind: int, nr: int, size: int) -> int:",
        "    return (direction << 30) | (size << 16) | (kind << 8) | nr",
        "",
        "",
        "class Layout(struct.Struct):",
        '    """A C structure: its struct format and the names of its items."""',
        "",
        "    def __init__(self, fmt: str, fields: tuple[str, ...]) -> None:",
        "        super().__init__(fmt)",
        "        self.fields = fields",
        "",
        "    def make(self, **values: Any) -> bytes:",
        '        """The structure with the given items set and every other item zero."""',
        "        unknown = set(values) - set(self.fields)",
        "        if unknown:",
        '            raise TypeError(f"no field(s) {sorted(unknown)} in {self.fields}")',
        "        zero = self.unpack(bytes(self.size))",
        "        return self.pack(*(values.get(f, z) for f, z in zip(self.fields, zero)))",
        "",
        "    def parse(self, raw: bytes) -> dict[str, Any]:",
        '        """The items of a structure, by field name."""',
        "        return dict(zip(self.fields, self.unpack(raw)))",
        "",
        "",
    ]
    text += out_consts + [""] + out_ioctls + [""]
    for sname, flist in fields.items():
        fmt = _format(sname, sizes[sname], flist)
        items: list[str] = []
        for f, _, elem, total, _, char in flist:
            n = 1 if char == "1" else int(total) // int(elem)
            items += [f] if n == 1 else [f"{f}{i}" for i in range(n)]
        names = textwrap.wrap(" ".join(f'"{i}",' for i in items), 91)
        text.append(f"# struct {sname}: {sizes[sname]} bytes")
        text.append(f'{sname} = Layout("{fmt}", (')
        text += [f"    {line}" for line in names] + ["))"]
    return "\n".join(text) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--probe-source", action="store_true")
    ap.add_argument("--from-probe")
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    args = ap.parse_args()
    if args.probe_source:
        sys.stdout.write(probe_source())
        return 0
    if args.from_probe:
        with open(args.from_probe) as f:
            sys.stdout.write(module_text(f.read()))
        return 0
    new = module_text(run_probe(args.cc))
    path = os.path.join(TOP, OUTPUT)
    if args.check:
        old = _read(OUTPUT) if os.path.exists(path) else ""
        if old == new:
            return 0
        sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                                   OUTPUT, "regenerated"))
        return 1
    with open(path, "w") as f:
        f.write(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
