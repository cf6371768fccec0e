# SPDX-License-Identifier: GPL-2.0 OR MIT
"""A QEMU of another Debian suite (key `qemu_suite`) for the targets that need
what bookworm's 7.2 lacks, e.g. Zicbom on riscv64.  Its packages come through
the private apt, are unpacked into $UDMEM_CACHE/qemu/<version> and run from
there through a wrapper; the host's QEMU stays the one every other target uses.
"""

import fcntl
import functools
import glob
import os
import subprocess

from .apt import apt_env, download, newest_version
from .config import CACHE
from .util import log, run

# The package that holds each emulator (QEMU 8.2+ split riscv out of misc).
PACKAGE_OF = {
    "qemu-system-aarch64": "qemu-system-arm",
    "qemu-system-arm": "qemu-system-arm",
    "qemu-system-x86_64": "qemu-system-x86",
    "qemu-system-riscv64": "qemu-system-riscv",
}

WRAPPER = """#!/bin/sh
# {binary} {version} of {suite}, unpacked from Debian's packages by udmem-qemu.
# Its own modules, then its own data; the host's data (firmware its packages
# take from other packages: SeaBIOS, OpenSBI) last.
QEMU_MODULE_DIR={root}/usr/lib/x86_64-linux-gnu/qemu
export QEMU_MODULE_DIR
exec {root}/usr/bin/{binary} -L {root}/usr/share/qemu -L /usr/share/qemu "$@"
"""


class QemuUnusable(RuntimeError):
    """The packaged QEMU cannot run on this host (a library it needs is missing)."""


@functools.cache
def packaged_qemu(binary, suite):
    """Path of a wrapper that runs BINARY of the newest QEMU in SUITE."""
    pkg = PACKAGE_OF.get(binary)
    if pkg is None:
        raise RuntimeError(f"qemu_suite: no package known for {binary}")
    env = apt_env()
    version = newest_version(env, f"{pkg}:amd64", [suite])
    top = os.path.join(CACHE, "qemu", version.replace(":", "_"))
    wrapper = os.path.join(top, "bin", binary)
    os.makedirs(top, exist_ok=True)
    with open(os.path.join(top, "lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not os.path.exists(wrapper):
            _unpack(env, pkg, version, top, binary, suite)
    return wrapper


def _unpack(env, pkg, version, top, binary, suite):
    debs = download(env, [f"{pkg}:amd64={version}", f"qemu-system-common:amd64={version}",
                          f"qemu-system-data={version}"])
    root = os.path.join(top, "root")
    log(f"udmem-qemu: unpacking QEMU {version} ({suite}) into {root}")
    for deb in debs:
        run(["dpkg-deb", "-x", deb, root])
    exe = os.path.join(root, "usr", "bin", binary)
    missing = [line.strip() for line in
               run(["ldd", exe], capture_output=True, text=True).stdout.splitlines()
               if "not found" in line]
    if missing:
        raise QemuUnusable(f"{binary} {version} needs " + "; ".join(missing))
    os.makedirs(os.path.join(top, "bin"), exist_ok=True)
    tmp = os.path.join(top, "bin", f".{binary}.tmp")
    with open(tmp, "w") as f:
        f.write(WRAPPER.format(binary=binary, version=version, suite=suite, root=root))
    os.chmod(tmp, 0o755)
    r = subprocess.run([tmp, "--version"], capture_output=True, text=True)
    if r.returncode != 0:
        raise QemuUnusable(f"{binary} {version} does not start: {r.stderr.strip()[-200:]}")
    os.rename(tmp, os.path.join(top, "bin", binary))
    for stale in glob.glob(os.path.join(top, "bin", ".*.tmp")):
        os.unlink(stale)
