# SPDX-License-Identifier: GPL-2.0 OR MIT
"""The guest's initramfs and device tree."""

import glob
import os
import re
import shutil
import subprocess

from . import boards, pyroot
from .config import QEMU_DIR, TOP
from .fetch import guest_debs
from .parse import BENIGN_FILE, PEER_FILE, REPORTS_FILE, alternation
from .pyroot import guest_top
from .qemu import qemu_cmd
from .util import run


def copy_distro_module(state, name, dest):
    """Copy the kernel's NAME.ko (decompressed) into dest; False if absent.

    The modules folder is the package's lib/modules/<release> (or its usr/lib
    twin: the package may install either) or a debug build's modroot."""
    mods = state["modules"]
    usr = re.sub(r"/lib/modules/([^/]+)$", r"/usr/lib/modules/\1", mods)
    found = []
    for base in (mods, usr):
        found += glob.glob(os.path.join(base, "kernel", "**", name + ".ko*"),
                           recursive=True)
    if not found:
        return False
    out = os.path.join(dest, name + ".ko")
    src = found[0]
    if src.endswith(".xz"):
        run(f"xz -dc '{src}' > '{out}'")
    elif src.endswith(".zst"):
        run(f"zstd -qdc '{src}' > '{out}'")
    else:
        shutil.copy(src, out)
    return True


def module_depends(path):
    """The modules NAME.ko at path needs (its .modinfo `depends=`), as named."""
    with open(path, "rb") as f:
        found = re.search(rb"(?:^|\0)depends=([^\0]*)", f.read())
    if not found or not found.group(1):
        return []
    return found.group(1).decode().split(",")


def make_initramfs(conf, state, bdir, suites):
    stage = os.path.join(bdir, "initramfs")
    if os.path.exists(stage):
        shutil.rmtree(stage)
    for d in ("bin", "udmem/bin", "udmem/modules", "udmem/suites"):
        os.makedirs(os.path.join(stage, d))
    shutil.copy(state["busybox"], os.path.join(stage, "bin", "busybox"))
    shutil.copy(os.path.join(os.path.dirname(__file__), "init.sh"),
                os.path.join(stage, "init"))
    os.chmod(os.path.join(stage, "init"), 0o755)
    with open(os.path.join(stage, "udmem", "env"), "w") as f:
        f.write(f"UDMEM_TARGET={conf.name}\nUDMEM_ARCH={conf.arch}\n"
                f"UDMEM_HAS_DT={1 if conf.dt else 0}\n"
                f"UDMEM_NONCOHERENT_DMA={1 if conf.noncoherent_dma else 0}\n")
    if conf.board:
        boards.stage(conf, stage)
    with open(os.path.join(stage, "udmem", "suites.list"), "w") as f:
        f.write("\n".join(suites) + "\n")
    shutil.copy(os.path.join(TOP, "tests", "guest", "lib.sh"),
                os.path.join(stage, "udmem", "lib.sh"))
    # /init's kernel-log scan: the patterns as one alternation.
    for path in (REPORTS_FILE, BENIGN_FILE):
        with open(os.path.join(stage, "udmem", os.path.basename(path)), "w") as f:
            f.write(alternation(path) + "\n")
    shutil.copy(PEER_FILE, os.path.join(stage, "udmem", os.path.basename(PEER_FILE)))
    for s in suites:
        shutil.copytree(os.path.join(TOP, "tests", "guest", s),
                        os.path.join(stage, "udmem", "suites", s),
                        ignore=shutil.ignore_patterns("*.c", "*.h", "*.o"))
    for p in glob.glob(os.path.join(bdir, "bin", "*")):
        shutil.copy(p, os.path.join(stage, "udmem", "bin"))
    for p in glob.glob(os.path.join(bdir, "modules", "*.ko")):
        shutil.copy(p, os.path.join(stage, "udmem", "modules"))
    # Distribution modules some suites use (brd: a RAM block device for
    # O_DIRECT tests); absent ones are simply missing and the suite SKIPs.
    # With them, the modules they depend on: a kernel configured otherwise
    # (the debug kernels) needs others than Debian's (i2c-core for drm and
    # videodev, the fb helpers for vivid); the suites load them in order.
    kmods = os.path.join(stage, "udmem", "kmods")
    os.makedirs(kmods)
    todo, seen = list(conf.guest_kmods), set()
    while todo:
        m = todo.pop(0)
        if m in seen:
            continue
        seen.add(m)
        if copy_distro_module(state, m, kmods):
            todo += module_depends(os.path.join(kmods, m + ".ko"))
    _stage_debs(conf, os.path.join(stage, "udmem", "debs"))
    if conf.mode == "host9p":
        kmods = os.path.join(stage, "udmem", "host9p-modules")
        os.makedirs(kmods)
        order = []
        for m in conf.host_modules:
            if not copy_distro_module(state, m, kmods):
                raise RuntimeError(f"no module {m} for {conf.name}")
            order.append(m + ".ko")
        with open(os.path.join(kmods, "order"), "w") as f:
            f.write("\n".join(order) + "\n")
        with open(os.path.join(stage, "udmem", "host-top"), "w") as f:
            f.write(guest_top(conf) + "\n")
    if conf.python_root:
        shutil.copytree(os.path.join(TOP, "python", "src", "udmem"),
                        os.path.join(stage, "udmem", "python", "udmem"),
                        ignore=shutil.ignore_patterns("__pycache__"))
    out = os.path.join(bdir, "initramfs.cpio.gz")
    run(f"cd {stage} && find . | cpio -o -H newc --quiet | gzip -1 > {out}")
    if conf.python_root:
        _prepend_python_root(conf, bdir, out)
    return out


def _stage_debs(conf, dest):
    """The programs of the target's guest_debs, their libc and /udmem/debs/run."""
    root = guest_debs(conf)
    if not root:
        return
    for sub in ("bin", "lib"):
        os.makedirs(os.path.join(dest, sub))
    for p in glob.glob(os.path.join(root, "usr", "bin", "*")) + \
            glob.glob(os.path.join(root, "usr", "sbin", "*")):
        if os.path.isfile(p):
            shutil.copy(p, os.path.join(dest, "bin"))
    loaders = sorted(glob.glob(os.path.join(root, "lib*", "**", "ld-linux*.so.*"),
                               recursive=True) +
                     glob.glob(os.path.join(root, "usr", "lib*", "**", "ld-linux*.so.*"),
                               recursive=True))
    libcs = glob.glob(os.path.join(root, "**", "libc.so.6"), recursive=True)
    if not loaders or not libcs:
        raise RuntimeError(f"guest_debs of {conf.name}: no loader or libc.so.6 in libc6")
    shutil.copy(loaders[0], os.path.join(dest, "ld.so"))
    shutil.copy(libcs[0], os.path.join(dest, "lib", "libc.so.6"))
    with open(os.path.join(dest, "run"), "w") as f:
        f.write('#!/bin/sh\n# run PROGRAM ARGS...: a program of the guest_debs, with their libc.\n'
                'p=$1\nshift\nexec /udmem/debs/ld.so --library-path /udmem/debs/lib '
                '"/udmem/debs/bin/$p" "$@"\n')
    os.chmod(os.path.join(dest, "run"), 0o755)


# Not needed to run python3 and numpy: left out of the board's initramfs, which
# QEMU loads 128 MiB into RAM, below the test device tree's reserved memory.
_PYTHON_ROOT_PRUNE = ("usr/share/doc", "usr/share/man", "usr/share/locale", "usr/share/info",
                      "usr/share/lintian", "usr/share/python-wheels", "usr/lib/*/gconv",
                      "usr/lib/python3/dist-packages/pip", "usr/lib/python3/dist-packages/_pytest",
                      "usr/lib/python3/dist-packages/setuptools",
                      "usr/lib/python3/dist-packages/pkg_resources",
                      "usr/lib/python3/dist-packages/numpy/*/tests", "usr/lib/python3.*/test",
                      # byte code (pyroot.py): 43 MB unpacked, for one short script
                      "*/__pycache__")


def _prepend_python_root(conf, bdir, out):
    """Put the Python root, as /host, in a second archive before the
    initramfs (the kernel unpacks concatenated archives)."""
    root = pyroot.ensure_root(conf)
    tree = os.path.join(bdir, "python-root")
    shutil.rmtree(tree, ignore_errors=True)
    os.makedirs(tree)
    # Hard links: the cache and the build tree are one file system, or a copy.
    run(["cp", "-al", root, os.path.join(tree, "host")])
    prune = " -o ".join(f"-path 'host/{p}'" for p in _PYTHON_ROOT_PRUNE)
    run(f"cd {tree} && find host \\( {prune} \\) -prune -o -print | "
        f"cpio -o -H newc --quiet | gzip -1 > {out}.tmp && "
        f"cat {out} >> {out}.tmp && mv {out}.tmp {out}")
    shutil.rmtree(tree)


def initrd_chosen(start, size):
    """A /chosen fragment naming an initramfs of SIZE bytes loaded at START (two
    cells each: the kernel reads any number of them)."""
    end = start + size
    return ("/ {\n\tchosen {\n"
            f"\t\tlinux,initrd-start = <{start >> 32:#x} {start & 0xffffffff:#x}>;\n"
            f"\t\tlinux,initrd-end = <{end >> 32:#x} {end & 0xffffffff:#x}>;\n"
            "\t};\n};\n")


def make_dtb(conf, state, bdir, initrd=None):
    """QEMU's own device tree (a board's: its kernel's DTB, edited) plus
    tests/qemu/dt/*.dtsi, and the initramfs's place when the harness loads it
    (`initrd_addr`)."""
    if conf.board:
        base = boards.board_dtb(conf, state, bdir)
    else:
        base = os.path.join(bdir, "base.dtb")
        cmd = qemu_cmd(conf, None, None, None, None) + \
            ["-machine", f"{conf.machine},dumpdtb={base}"]
        run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    dts = run(["dtc", "-q", "-I", "dtb", "-O", "dts", base], capture_output=True,
              text=True).stdout
    parts = [dts]
    for dtsi in sorted(glob.glob(os.path.join(QEMU_DIR, "dt", "*.dtsi"))):
        pre = run(["cpp", "-nostdinc", "-undef", "-P", "-x", "assembler-with-cpp",
                   f"-DRAM_BASE={conf.ram_base}", f"-DUDMEM_ARCH_{conf.arch}=1"] +
                  (["-DUDMEM_NONCOHERENT_DMA=1"] if conf.noncoherent_dma else []) +
                  ([f"-DUDMEM_BOARD_{conf.board}=1"] if conf.board else []) + [dtsi],
                  capture_output=True, text=True).stdout
        parts.append(f"/* {os.path.basename(dtsi)} */\n" + pre)
    if conf.initrd_addr and initrd:
        parts.append(initrd_chosen(int(conf.initrd_addr, 16), os.path.getsize(initrd)))
    full = os.path.join(bdir, "test.dts")
    with open(full, "w") as f:
        f.write("\n".join(parts))
    dtb = os.path.join(bdir, "test.dtb")
    run(["dtc", "-q", "-@", "-I", "dts", "-O", "dtb", "-o", dtb, full])
    return dtb
