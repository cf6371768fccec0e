# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Host test: the package's modules import each other in one direction only."""

from __future__ import annotations

import ast
import os

import udmem

PKG = os.path.dirname(udmem.__file__)


def _imports(module: str) -> set[str]:
    """The package modules that ``module`` imports, TYPE_CHECKING blocks included."""
    with open(os.path.join(PKG, module + ".py")) as f:
        tree = ast.parse(f.read())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                found.add(node.module.split(".")[0])
            else:
                found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("udmem."):
            found.add(node.module.split(".")[1])
    return found


def _modules() -> list[str]:
    return sorted(n[:-3] for n in os.listdir(PKG) if n.endswith(".py") and n != "__init__.py")


def test_no_import_cycle():
    graph = {m: _imports(m) & set(_modules()) for m in _modules()}
    done: set[str] = set()

    def visit(m: str, path: list[str]) -> None:
        assert m not in path, "import cycle: " + " -> ".join(path[path.index(m):] + [m])
        if m in done:
            return
        for dep in sorted(graph[m]):
            visit(dep, path + [m])
        done.add(m)

    for m in graph:
        visit(m, [])


def test_array_needs_only_the_uapi():
    assert _imports("array") <= {"_uapi"}
