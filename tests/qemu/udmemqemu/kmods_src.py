# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Kernel modules a target's kernel configuration leaves out, built here.

The iio suite needs the kernel's DMA buffer of IIO (industrialio-buffer-dma
and industrialio-buffer-dmaengine, the buffer of adi-axi-adc).  Debian's
amd64 and riscv64 6.12 kernels build IIO's core with its buffers, DMABUF
interface included (IIO_BUFFER_DMABUF_ATTACH_IOCTL is in industrialio.ko),
but not these two modules.  Where a booted target's kernel has that core and
lacks them, they are built out of tree from drivers/iio/buffer of Debian's
linux-source package of the kernel's series (boards.linux_source), against
the target's headers: the vermagic and the CRCs of the symbols they import
are the target kernel's.  Built once per kernel release and source, into
$UDMEM_CACHE/kmods-src/<release>-<hash>/, with their Module.symvers, which
the test modules (tests/kmod/udmem-iio-dma.ko) link against.  They go to
the guest's /udmem/modules, where the suite loads them from when
/udmem/kmods (the distribution's) has none.
"""

import fcntl
import glob
import hashlib
import os
import re
import shutil
import subprocess

from . import boards
from .config import CACHE
from .util import log

KMODS_CACHE = os.path.join(CACHE, "kmods-src")
# Bump when the way the modules are built changes their result.
RECIPE = 1
IIO_PARTS = ("drivers/iio/buffer",)
IIO_SOURCES = ("drivers/iio/buffer/industrialio-buffer-dma.c",
               "drivers/iio/buffer/industrialio-buffer-dmaengine.c")
# The IIO core's DMABUF interface (6.11): what the DMA buffer calls back.
IIO_DMABUF_SYMBOL = "iio_buffer_signal_dmabuf_done"


def kernel_config(state):
    """The kernel's CONFIG_ values (name -> value) from its headers' .config."""
    values = {}
    try:
        with open(os.path.join(state["kernel_src"], ".config")) as f:
            for line in f:
                m = re.match(r"(CONFIG_\w+)=(.*)", line)
                if m:
                    values[m.group(1)] = m.group(2)
    except OSError:
        pass
    return values


def exports(state, symbol):
    """Does the kernel's Module.symvers list SYMBOL?"""
    try:
        with open(os.path.join(state["kernel_src"], "Module.symvers")) as f:
            return any(line.split("\t")[1:2] == [symbol] for line in f)
    except OSError:
        return False


def iio_needed(conf, state):
    """Why the IIO DMA buffer is to be built here, or None when it is not:
    the kernel has it, or lacks what it needs (the suite then SKIPs naming
    that), or the target runs no iio suite."""
    if not conf.boot or (conf.guest_suites and "iio" not in conf.guest_suites):
        return None
    cfg = kernel_config(state)
    if cfg.get("CONFIG_IIO_BUFFER_DMAENGINE") in ("y", "m"):
        return None
    if cfg.get("CONFIG_IIO") not in ("y", "m") or cfg.get("CONFIG_IIO_BUFFER") != "y" or \
            cfg.get("CONFIG_DMA_ENGINE") != "y":
        return None
    if not exports(state, IIO_DMABUF_SYMBOL):
        return None
    return "CONFIG_IIO_BUFFER_DMAENGINE is not set"


def build_iio(conf, state, margs, mods, results):
    """Build the IIO DMA buffer modules into MODS where iio_needed says so.

    Returns what the test modules then build with: make arguments (their
    Kbuild's CONFIG_IIO_BUFFER_DMAENGINE) and the Module.symvers files of
    the modules built, or two empty lists."""
    if not iio_needed(conf, state):
        return [], []
    name = "build/iio-buffer-modules"
    try:
        src = boards.linux_source(state, IIO_PARTS, ".unpacked-iio-1", "-iio")
    except (RuntimeError, subprocess.CalledProcessError) as e:
        results.append(("not ok", name, f"linux-source: {e}"[:400]))
        return [], []
    h = hashlib.sha256(f"{RECIPE} {src} {' '.join(margs)}".encode())
    for f in IIO_SOURCES:
        with open(os.path.join(src, f), "rb") as fh:
            h.update(fh.read())
    with open(os.path.join(state["kernel_src"], "Module.symvers"), "rb") as fh:
        h.update(fh.read())
    out = os.path.join(KMODS_CACHE, f"{state['kernel_release']}-{h.hexdigest()[:12]}")
    os.makedirs(KMODS_CACHE, exist_ok=True)
    with open(out + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not os.path.exists(os.path.join(out, "Module.symvers")):
            log(f"udmem-qemu: building {', '.join(os.path.basename(f) for f in IIO_SOURCES)} "
                f"from {os.path.basename(src)}")
            work = out + ".tmp"
            shutil.rmtree(work, ignore_errors=True)
            os.makedirs(work)
            for f in IIO_SOURCES:
                shutil.copy(os.path.join(src, f), work)
            with open(os.path.join(work, "Kbuild"), "w") as f:
                f.write("".join(f"obj-m += {os.path.basename(s)[:-2]}.o\n"
                                for s in IIO_SOURCES))
            p = boards.make_modules(conf, state, margs, work)
            if p.returncode != 0:
                results.append(("not ok", name, "make failed: " +
                                (p.stdout + p.stderr)[-400:]))
                return [], []
            tmp = out + ".new"
            shutil.rmtree(tmp, ignore_errors=True)
            os.makedirs(tmp)
            for f in glob.glob(os.path.join(work, "*.ko")) + \
                    [os.path.join(work, "Module.symvers")]:
                shutil.copy(f, tmp)
            shutil.rmtree(out, ignore_errors=True)
            os.replace(tmp, out)
            shutil.rmtree(work)
    for ko in glob.glob(os.path.join(out, "*.ko")):
        shutil.copy(ko, mods)
    # Beside MODS, in the target's build folder (which a build root sees),
    # named by the build's hash (which the module cache's key then holds).
    bdir = os.path.dirname(os.path.abspath(mods))
    for old in glob.glob(os.path.join(bdir, "iio-buffer-*.symvers")):
        os.remove(old)
    symvers = os.path.join(bdir, f"iio-buffer-{os.path.basename(out)}.symvers")
    shutil.copy(os.path.join(out, "Module.symvers"), symvers)
    results.append(("ok", name, ""))
    return ["CONFIG_IIO_BUFFER_DMAENGINE=m"], [symvers]
