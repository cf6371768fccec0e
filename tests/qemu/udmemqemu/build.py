# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Build the modules and the static guest programs for one target."""

import concurrent.futures
import glob
import os
import shutil
import subprocess

from .config import BUILD, TOP
from .fetch import kmake_args, target_cc
from .util import run


def build(conf, state, results):
    """Build modules and static programs into build/<target>/; record failures."""
    bdir = os.path.join(BUILD, conf.name)
    src = os.path.join(bdir, "src")
    os.makedirs(bdir, exist_ok=True)
    for sub in ("kernel", "include", "tests/kmod"):
        dst = os.path.join(src, sub)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        # Build products a developer left in the tree (perhaps for another
        # architecture) must neither be copied nor shadow ours.
        # No -t: a changed file arrives with a new mtime, so make rebuilds it
        # even when the stale object in the copy is younger than the source.
        run(["rsync", "-rlp", "--checksum", "--delete"] +
            [f"--exclude={p}" for p in ("*.o", "*.ko", "*.mod", "*.mod.c", ".*.cmd",
                                        "*.a", "modules.order", "Module.symvers",
                                        ".tmp_versions")] +
            [os.path.join(TOP, sub) + "/", dst + "/"])
    mods = os.path.join(bdir, "modules")
    if os.path.exists(mods):
        shutil.rmtree(mods)
    os.makedirs(mods)
    margs = [a for a in kmake_args(conf, state) if not a.startswith("KERNEL_SRC=")]
    jobs = ["-j2"]
    steps = [("modules", ["make", "-C", os.path.join(src, "kernel"),
                          f"KERNEL_SRC={state['kernel_src']}"] + margs + jobs)]
    if glob.glob(os.path.join(src, "tests/kmod/*.c")):
        steps.append(("test-modules", ["make", "-C", state["kernel_src"],
                                       "M=" + os.path.join(src, "tests/kmod")] +
                      margs + jobs + ["modules"]))
    for name, cmd in steps:
        p = subprocess.run(cmd, capture_output=True, text=True)
        out = p.stdout + p.stderr
        warnings = [line for line in out.splitlines() if "warning:" in line]
        if p.returncode != 0:
            results.append(("not ok", f"build/{name}", "make failed: " +
                            " | ".join(line for line in out.splitlines()
                                       if "error" in line.lower())[-600:]))
            print(out[-3000:])
        elif warnings:
            results.append(("not ok", f"build/{name}-warnings",
                            " | ".join(warnings)[:600]))
        else:
            results.append(("ok", f"build/{name}", ""))
    for ko in glob.glob(os.path.join(src, "kernel", "**", "*.ko"), recursive=True) + \
            glob.glob(os.path.join(src, "tests", "kmod", "*.ko")):
        shutil.copy(ko, mods)

    # Static user-space programs: each tests/guest/<suite>/*.c, and the udmem tool.
    bins = os.path.join(bdir, "bin")
    if os.path.exists(bins):
        shutil.rmtree(bins)
    os.makedirs(bins)
    if not conf.programs:
        return bdir
    cc = target_cc(conf)
    lib_src = sorted(glob.glob(os.path.join(TOP, "lib", "*.c")))
    cflags = ["-static", "-O2", "-g0", "-Wall", "-D_GNU_SOURCE",
              "-I", os.path.join(TOP, "include", "uapi"),
              "-I", os.path.join(TOP, "lib"), "-I", os.path.join(TOP, "tests", "guest"),
              "-I", os.path.join(TOP, "bench")]
    progs = []
    for c in sorted(glob.glob(os.path.join(TOP, "tests", "guest", "*", "*.c"))):
        progs.append((os.path.basename(c)[:-2], [c] + lib_src))
    # 32-bit programs for a 64-bit kernel's compat paths (arm64: AArch32 EL0).
    # A test source opts in by containing UDMEM_TEST_COMPAT32.
    compat = []
    if conf.compat_cc:
        for name, sources in list(progs):
            with open(sources[0], errors="replace") as f:
                if "UDMEM_TEST_COMPAT32" in f.read():
                    compat.append((name + "-compat32", sources))
    cli_src = sorted(glob.glob(os.path.join(TOP, "cli", "*.c")))
    if cli_src:
        progs.append(("udmem", cli_src + lib_src +
                      sorted(glob.glob(os.path.join(TOP, "bench", "*.c")))))

    def compile_one(item):
        name, sources = item
        compiler = conf.compat_cc if name.endswith("-compat32") else cc
        p = subprocess.run([compiler] + cflags + ["-o", os.path.join(bins, name)] +
                           sources + ["-lm", "-lpthread"],
                           capture_output=True, text=True)
        return name, p

    with concurrent.futures.ThreadPoolExecutor(2) as ex:
        for name, p in ex.map(compile_one, progs + compat):
            if p.returncode != 0:
                results.append(("not ok", f"build/prog-{name}",
                                " | ".join(p.stderr.splitlines()[:6])[:600]))
            else:
                results.append(("ok", f"build/prog-{name}", ""))
    return bdir
