# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Build the modules and the static guest programs for one target."""

import concurrent.futures
import contextlib
import functools
import glob
import hashlib
import os
import re
import shutil
import subprocess
import threading

from . import boards, buildroot, kmods_src
from .config import BUILD, CACHE, TOP
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
                                        ".tmp_versions", "*.gcno", "*.gcda")] +
            [os.path.join(TOP, sub) + "/", dst + "/"])
    mods = os.path.join(bdir, "modules")
    if os.path.exists(mods):
        shutil.rmtree(mods)
    os.makedirs(mods)
    margs = [a for a in kmake_args(conf, state) if not a.startswith("KERNEL_SRC=")]
    jobs = ["-j2"]
    steps = [("modules", ["make", "-C", os.path.join(src, "kernel"),
                          f"KERNEL_SRC={state['kernel_src']}"] + margs + jobs)]
    # Distribution modules the kernel's configuration lacks (kmods_src.py).
    src_args, src_symvers = kmods_src.build_iio(conf, state, margs, mods, results)
    # The test modules are loaded only in a booted guest; a build-only target
    # checks what users build, the product's modules.
    if conf.boot and glob.glob(os.path.join(src, "tests/kmod/*.c")):
        # Test modules may call u-dma-buf's exports: modpost needs its symbols.
        steps.append(("test-modules", ["make", "-C", state["kernel_src"],
                                       "M=" + os.path.join(src, "tests/kmod"),
                                       "KBUILD_EXTRA_SYMBOLS=" + " ".join(
                                           [os.path.join(src, "kernel", "Module.symvers")] +
                                           src_symvers)] +
                      margs + src_args + jobs + ["modules"]))
    if conf.build_root:
        # Host-incompatible headers (sid 7.x): make runs in the suite's build root.
        root = buildroot.ensure(conf.build_root)
        binds = [bdir, os.path.join(CACHE, "kernels", conf.kernel_key)]
        steps = [(name, buildroot.wrap(root, cmd, binds)) for name, cmd in steps]
    with _module_cache(conf, state, [name for name, _ in steps],
                       margs + src_args + src_symvers) as cached:
        kos = cached.kos
        if kos:
            results += [("ok", f"build/{name}", "") for name, _ in steps]
        else:
            start = len(results)
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
            kos = glob.glob(os.path.join(src, "kernel", "**", "*.ko"), recursive=True) + \
                glob.glob(os.path.join(src, "tests", "kmod", "*.ko"))
            if all(r[0] == "ok" for r in results[start:]):
                cached.store(kos, os.path.join(src, "kernel"))
        cached.restore_notes(os.path.join(src, "kernel"))
        for ko in kos:
            shutil.copy(ko, mods)
    if conf.board:
        boards.build_drivers(conf, state, margs, mods, results)

    # Static user-space programs: those of tests/guest/<suite>/, and the udmem tool.
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
    # A program is a .c file with a main (TEST_HARNESS_MAIN or its own); a .c
    # file without one is a part of the program of its directory whose name
    # and a dash begin its own (stress-endurance.c is a part of stress),
    # linked after the program's file in the order of the names.
    progs = []
    for d in sorted(glob.glob(os.path.join(TOP, "tests", "guest", "*", ""))):
        mains, parts = {}, []
        for c in sorted(glob.glob(os.path.join(d, "*.c"))):
            with open(c, errors="replace") as f:
                has_main = re.search(r"^(TEST_HARNESS_MAIN|int main\()", f.read(), re.M)
            if has_main:
                mains[os.path.basename(c)[:-2]] = [c]
            else:
                parts.append(c)
        for c in parts:
            owners = [m for m in mains if os.path.basename(c).startswith(m + "-")]
            if owners:
                mains[max(owners, key=len)].append(c)
            else:
                results.append(("not ok", f"build/part-{os.path.basename(c)}",
                                "no program in its directory is named by its prefix"))
        progs += [(name, sources + lib_src) for name, sources in mains.items()]
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
        cache = _prog_cache(compiler, cflags)
        cached = os.path.join(cache, name)
        if not os.path.exists(cached):
            # libudmem is compiled once for all programs; if that fails, each
            # program compiles it itself and reports the error.
            objs = _lib_objects(compiler, cflags, lib_src, cache)
            if objs:
                sources = [f for f in sources if f not in lib_src] + objs
            # Built under a temporary name, renamed when complete: a target
            # that looks at the same time sees the whole program or none.
            tmp = f"{cached}.{os.getpid()}.{threading.get_ident()}"
            p = subprocess.run([compiler] + cflags + ["-o", tmp] + sources +
                               ["-lm", "-lpthread"], capture_output=True, text=True)
            if p.returncode != 0:
                return name, p
            os.replace(tmp, cached)
        shutil.copy2(cached, os.path.join(bins, name))
        return name, subprocess.CompletedProcess([], 0)

    with concurrent.futures.ThreadPoolExecutor(2) as ex:
        for name, p in ex.map(compile_one, progs + compat):
            if p.returncode != 0:
                results.append(("not ok", f"build/prog-{name}",
                                " | ".join(p.stderr.splitlines()[:6])[:600]))
            else:
                results.append(("ok", f"build/prog-{name}", ""))
    return bdir


# ----------------------------------------------------------------- module cache

# Targets that boot one kernel with other QEMU options (arm64, arm64-python,
# arm64-iommu and zcu102; x86_64, x86_64-python and x86_64-iommu; ...) build
# the same modules from the same headers with the same flags.  The first
# target's modules are kept in build/module-cache/<key>/ and copied by the
# others; the key covers every source and Makefile of kernel/, include/ and
# tests/kmod/, the kernel's headers and version, the make arguments and the
# steps, so any difference builds anew.  Only a build without a failure or a
# warning is kept: a target that would fail builds, and fails, itself.
_MODULE_SOURCES = ("kernel", "include", "tests/kmod")
_module_locks = {}


def _tree_digest(tops, pattern):
    """The names and contents of the files matching PATTERN under TOPS (build
    products a developer left in the tree excluded)."""
    h = hashlib.sha256()
    for top in tops:
        for path in sorted(glob.glob(os.path.join(TOP, top, "**", pattern), recursive=True)):
            if os.path.isfile(path) and not re.search(r"\.(o|ko|mod|mod\.c|a|cmd)$", path):
                h.update(os.path.relpath(path, TOP).encode() + b"\0")
                with open(path, "rb") as f:
                    h.update(f.read() + b"\0")
    return h.hexdigest()


@functools.cache
def _module_digest():
    """Every file the modules build from, hashed once a run."""
    return _tree_digest(_MODULE_SOURCES, "*")


class _CachedModules:
    def __init__(self, folder):
        self.folder = folder
        self.kos = sorted(glob.glob(os.path.join(folder, "*.ko"))) \
            if os.path.exists(os.path.join(folder, "complete")) else []

    def store(self, kos, kernel_dir):
        shutil.rmtree(self.folder, ignore_errors=True)
        os.makedirs(self.folder)
        for ko in kos:
            shutil.copy(ko, self.folder)
        # gcov's notes of a coverage build: the counts the guest brings back
        # are read against them, and they must be those of these very .ko.
        for gcno in glob.glob(os.path.join(kernel_dir, "**", "*.gcno"), recursive=True):
            dst = os.path.join(self.folder, "gcno", os.path.relpath(gcno, kernel_dir))
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy(gcno, dst)
        open(os.path.join(self.folder, "complete"), "w").close()

    def restore_notes(self, kernel_dir):
        """Put the cached modules' gcov notes back beside their sources."""
        for old in glob.glob(os.path.join(kernel_dir, "**", "*.gc[dn][ao]"), recursive=True):
            os.remove(old)
        notes = os.path.join(self.folder, "gcno")
        for gcno in glob.glob(os.path.join(notes, "**", "*.gcno"), recursive=True):
            dst = os.path.join(kernel_dir, os.path.relpath(gcno, notes))
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy(gcno, dst)


@functools.cache
def _cc_version(cc):
    return subprocess.run([cc, "--version"], capture_output=True, text=True).stdout


def _compiler_id(conf, margs):
    """What identifies the compiler of a module build: a build root's record
    of its making (a root made anew may hold a newer gcc), or the version of
    the host's compiler that the make arguments name."""
    if conf.build_root:
        stamp = os.path.join(buildroot.root_dir(conf.build_root), ".udmem-ready")
        with open(stamp) as f:
            return f"{f.read()}{os.stat(stamp).st_mtime_ns}"
    cc = next((a[3:] for a in margs if a.startswith("CC=")), target_cc(conf))
    return _cc_version(cc)


@contextlib.contextmanager
def _module_cache(conf, state, steps, margs):
    """The cached modules of this kernel, sources and flags (none yet: build
    them, then store()); targets with the same key wait for each other."""
    h = hashlib.sha256(_module_digest().encode())
    h.update("\0".join([state["kernel_src"], state.get("kver", ""), conf.build_root or "",
                        _compiler_id(conf, margs)] + list(margs) + list(steps)).encode())
    key = h.hexdigest()[:16]
    with _prog_lock:
        lock = _module_locks.setdefault(key, threading.Lock())
    with lock:
        yield _CachedModules(os.path.join(BUILD, "module-cache", key))


# ---------------------------------------------------------------- program cache

# The guest programs do not depend on the kernel: every target of one
# architecture (arm64, arm64-5.10, arm64-7, arm64-iommu, zcu102, ...) builds
# the same binaries.  They are kept in build/programs/<key>/, where the key
# covers the compiler and its version, the flags and every user-space source
# and header, so a changed file or compiler builds them anew.
_PROG_SOURCES = ("include/uapi", "kernel/common", "lib", "cli", "bench", "tests/guest",
                 "tests/kmod")
_prog_lock = threading.Lock()
_prog_dirs = {}
_lib_locks = {}


@functools.cache
def _sources_digest():
    """Every user-space source the programs compile from, hashed once a run."""
    return _tree_digest(_PROG_SOURCES, "*.[ch]")


def _prog_cache(compiler, cflags):
    """The folder of compiled programs for this compiler and these flags."""
    with _prog_lock:
        key = (compiler, tuple(cflags))
        if key not in _prog_dirs:
            h = hashlib.sha256(_sources_digest().encode())
            h.update("\0".join([compiler, _cc_version(compiler)] + list(cflags)).encode())
            d = os.path.join(BUILD, "programs", h.hexdigest()[:16])
            os.makedirs(d, exist_ok=True)
            _prog_dirs[key] = d
        return _prog_dirs[key]


def _lib_objects(compiler, cflags, lib_src, cache):
    """libudmem's objects for these programs, compiled once into the cache
    folder; None if one does not compile."""
    with _prog_lock:
        lock = _lib_locks.setdefault(cache, threading.Lock())
    with lock:
        objs = []
        for c in lib_src:
            obj = os.path.join(cache, "lib-" + os.path.basename(c)[:-2] + ".o")
            if not os.path.exists(obj):
                tmp = f"{obj}.{os.getpid()}.tmp"
                flags = [f for f in cflags if f != "-static"]
                if subprocess.run([compiler] + flags + ["-c", "-o", tmp, c],
                                  capture_output=True).returncode != 0:
                    return None
                os.replace(tmp, obj)
            objs.append(obj)
        return objs
