# SPDX-License-Identifier: GPL-2.0 OR MIT
"""A Debian build root for kernels whose build tools cannot run on the host.

Debian sid's 7.x headers set CC to gcc-16 (their .config records gcc-16's
features, e.g. -fmin-function-alignment; bookworm has gcc 12) and their
linux-kbuild programs (fixdep, modpost) need glibc >= 2.38 (bookworm has
2.36).  So the modules of a target with `build_root = sid` are built inside a
sid root that mmdebstrap makes from the archive: sid's own compilers and
glibc, nothing of the host but the kernel tree and the build folder, which
are bind-mounted at the same paths.

The root is cached in $UDMEM_CACHE/buildroot/<suite>-<key>, where the key
hashes the package list and the recipe, so a changed list makes a new root
(and the old one of that suite is removed).  Creation is locked and
idempotent: the root is built in a temporary folder and renamed once
complete.  Cold: 215 s on the 2-core host loaded by other QEMU runs; 790 MB.
"""

import fcntl
import glob
import hashlib
import os
import shutil
import subprocess
import time

from .config import CACHE, MIRROR
from .util import log

KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"
# What each suite's root holds: make and awk for kbuild, the compilers the
# headers name (CC = <triplet>-gcc-16) and the libraries of linux-kbuild's
# programs (its Depends, pahole among them: kbuild warns when it is missing).
PACKAGES = {
    "sid": ("make", "mawk", "gcc-16", "gcc-16-aarch64-linux-gnu",
            "gcc-16-riscv64-linux-gnu", "libelf1t64", "libssl3t64", "zlib1g", "pahole"),
}
# Bump when the recipe below changes in a way the package list does not show.
RECIPE = "1"
# Paths dpkg leaves out: documentation the build never reads.
EXCLUDES = ("/usr/share/doc/*", "/usr/share/man/*", "/usr/share/info/*",
            "/usr/share/locale/*")


def root_dir(suite: str) -> str:
    """The cache folder of SUITE's root for the current package list."""
    key = hashlib.sha256("\n".join((RECIPE, suite) + PACKAGES[suite]).encode()).hexdigest()
    return os.path.join(CACHE, "buildroot", f"{suite}-{key[:12]}")


def ensure(suite: str) -> str:
    """SUITE's build root, made first if it is missing; its path."""
    root = root_dir(suite)
    stamp = os.path.join(root, ".udmem-ready")
    if os.path.exists(stamp):
        return root
    os.makedirs(os.path.dirname(root), exist_ok=True)
    with open(root + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.path.exists(stamp):
            return root
        _create(suite, root, stamp)
    return root


def _create(suite, root, stamp):
    if not shutil.which("mmdebstrap"):
        raise RuntimeError("mmdebstrap is missing: run scripts/setup-host.sh")
    tmp = root + ".tmp"
    for old in (root, tmp):
        if os.path.exists(old):
            shutil.rmtree(old)
    log(f"udmem-qemu: making the {suite} build root in {root} with mmdebstrap "
        f"(cold: about 2 min, 800 MB)")
    t0 = time.time()
    # The archive served here is a frozen copy whose Release files are past
    # their Valid-Until date (the host's apt is set the same way); their
    # signatures are still checked against the keyring.
    cmd = ["mmdebstrap", "--mode=root", "--variant=essential", "--arch=amd64",
           "--include=" + ",".join(PACKAGES[suite]), f"--keyring={KEYRING}",
           "--aptopt=Acquire::Languages \"none\"",
           "--aptopt=Acquire::Check-Valid-Until \"false\"",
           "--aptopt=Acquire::Retries \"3\""]
    cmd += [f"--dpkgopt=path-exclude={p}" for p in EXCLUDES]
    cmd += [suite, tmp, MIRROR]
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        raise RuntimeError(f"mmdebstrap {suite} failed: " +
                           " | ".join(p.stderr.strip().splitlines()[-4:])[-500:])
    with open(os.path.join(tmp, ".udmem-ready"), "w") as f:
        f.write(f"suite={suite}\npackages={' '.join(PACKAGES[suite])}\n"
                f"seconds={time.time() - t0:.0f}\n")
    os.rename(tmp, root)
    # Roots of this suite made from another package list are stale now.
    for old in glob.glob(os.path.join(os.path.dirname(root), f"{suite}-*")):
        if old in (root, root + ".lock"):
            continue
        if os.path.isdir(old):
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.unlink(old)
    log(f"udmem-qemu: {suite} build root ready in {time.time() - t0:.0f} s")
    assert os.path.exists(stamp)


# Bind-mounts each path given before `--` into the root at the same place,
# adds /proc and /dev, and runs the command after `--` chrooted.  unshare's
# private mount namespace makes the mounts vanish with the command.
_ENTER = """set -e
root=$1; shift
while [ "$1" != -- ]; do
	mkdir -p "$root$1"
	mount --bind "$1" "$root$1"
	shift
done
shift
mount -t proc proc "$root/proc"
mount --rbind /dev "$root/dev"
exec chroot "$root" "$@"
"""


def wrap(root: str, cmd: list[str], binds: list[str]) -> list[str]:
    """CMD as run inside ROOT with BINDS (absolute paths) visible at their own paths."""
    return (["unshare", "--mount", "--fork", "sh", "-c", _ENTER, "sh", root] +
            [os.path.realpath(b) for b in binds] + ["--"] + cmd)

