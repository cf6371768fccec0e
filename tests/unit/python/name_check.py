# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Print "1 NAME" or "0 NAME" for each line of stdin, as udmem's check_name() judges it.

With --names, print the names to judge instead: every single printable or
control character, and the edge cases of the rule (".", "..", 63 and 64
characters, device-tree names, separators).
"""

import sys

if sys.argv[1:] == ["--names"]:
    names = [chr(c) for c in range(1, 128) if chr(c) != "\n"]
    names += [".", "..", "...", "a" * 63, "a" * 64, "amba:udmabuf@0x00", "a b", "a/b",
              "a;b", "udmabuf0", "x\x7f", "\u00e9t\u00e9", "u-dma-buf-mgr", "-x", "a.b"]
    sys.stdout.write("".join(f"{n}\n" for n in names))
    sys.exit(0)

sys.path.insert(0, sys.argv[1])
from udmem._device import check_name  # noqa: E402

for line in sys.stdin.read().split("\n")[:-1]:
    try:
        check_name(line)
        ok = 1
    except ValueError:
        ok = 0
    print(f"{ok} {line}")
