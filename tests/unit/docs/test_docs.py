# SPDX-License-Identifier: GPL-2.0 OR MIT
"""The documentation's checks pass on the tree and fail on a broken copy.

python3 -m pytest tests/unit/docs -q
"""

from __future__ import annotations

import glob
import os
import shutil
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, HERE)

import check_dts  # noqa: E402
import check_examples  # noqa: E402
import check_json_keys  # noqa: E402


def pages() -> list[str]:
    return [os.path.join(TOP, "README.md")] + sorted(glob.glob(os.path.join(TOP, "docs", "*.md")))


def fake_top(tmp_path, *copied: str) -> str:
    """A tree whose top folders link to the real ones, but for the copied files."""
    top = tmp_path / "top"
    top.mkdir()
    for rel in copied:
        dst = top / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(os.path.join(TOP, rel), dst)
    # every folder made for a copy gets links to the real folder's other entries
    folders = {""} | {os.path.dirname(rel) for rel in copied}
    for rel in list(folders):
        while rel:
            rel = os.path.dirname(rel)
            folders.add(rel)
    for rel in sorted(folders):
        for name in os.listdir(os.path.join(TOP, rel)):
            if not (top / rel / name).exists() and not (top / rel / name).is_symlink():
                (top / rel / name).symlink_to(os.path.join(TOP, rel, name))
    return str(top)


def edit(top: str, rel: str, old: str, new: str) -> None:
    path = os.path.join(top, rel)
    with open(path) as f:
        text = f.read()
    assert old in text, f"{old!r} not in {rel}"
    with open(path, "w") as f:
        f.write(text.replace(old, new, 1))


def test_quoted_examples_are_the_tested_files(capsys):
    assert check_examples.main(TOP, pages()) == 0, capsys.readouterr().out


def test_readme_quotes_tested_code():
    with open(os.path.join(TOP, "README.md")) as f:
        text = f.read()
    assert text.count("<!-- example: ") + text.count("<!-- excerpt: ") >= 2


def test_a_changed_quote_fails(tmp_path, capsys):
    top = fake_top(tmp_path, "docs/quickstart.md")
    edit(top, "docs/quickstart.md", "UDMEM_DIR_TO_DEVICE", "UDMEM_DIR_BIDIRECTIONAL")
    assert check_examples.main(top, [os.path.join(top, "docs", "quickstart.md")]) == 1
    assert "not a run of lines" in capsys.readouterr().out


def test_dts_snippets_compile_and_match_the_drivers(capsys):
    assert shutil.which("dtc"), "dtc is needed (device-tree-compiler)"
    assert check_dts.main(TOP) == 0, capsys.readouterr().out


@pytest.mark.parametrize("name,old,new,why", [
    ("zynqmp-system-user.dtsi", "dma-mask = <32>;", "dma-mask-bits = <32>;",
     "properties the driver does not read"),
    ("zynqmp-system-user.dtsi", "size = <0x04000000>;", "size = <0x20000000>;",
     "does not fit the pool"),
    ("zynq7000-system-user.dtsi", "reg = <0x1c000000 0x04000000>;",
     "reg = <0x1c100000 0x03f00000>;", "8 MiB aligned"),
    ("beaglebone-pru.dtsi", "reg = <0x9f000000 0x01000000>;", "reg = <0xaf000000 0x01000000>;",
     "not in the board's DDR"),
    ("zynq7000-system-user.dtsi", "interrupt-parent = <&intc>;", "interrupt-parent = <&gic>;",
     "dtc"),
    ("polarfire-soc.dtsi", "no-map;", "", "one of reusable or no-map"),
])
def test_a_broken_dts_snippet_fails(tmp_path, capsys, name, old, new, why):
    rel = f"docs/examples/{name}"
    top = fake_top(tmp_path, rel)
    edit(top, rel, old, new)
    results = check_dts.check(top, name)
    failed = [(test, msg) for ok, test, msg in results if not ok]
    assert failed, results
    assert any(why in test or why in msg for test, msg in failed), failed


def test_json_keys_are_documented(capsys):
    assert check_json_keys.main(TOP) == 0, capsys.readouterr().out


def test_a_key_missing_from_the_man_page_fails(tmp_path, capsys):
    top = fake_top(tmp_path, "docs/udmem.1")
    edit(top, "docs/udmem.1", ".BR memtype_mmap \" and \" memtype_mmap_sync :", "")
    assert check_json_keys.main(top) == 1
    assert "json/udmem.1/memtype_mmap" in capsys.readouterr().out
