# SPDX-License-Identifier: GPL-2.0 OR MIT
"""A Debian root of the target's architecture for host9p guests (host_root = debian).

The guest mounts it read-only over 9p and chroots into it to run Debian's
python3, numpy and pytest on the target's own CPU.  `mmdebstrap
--variant=extract` resolves the dependencies and unpacks the packages without
running their maintainer scripts (so it needs no qemu-user and takes about 30 s);
what those scripts would have made that Python needs is added here: the
BLAS/LAPACK alternatives numpy links against and the mount points.
"""

import fcntl
import glob
import hashlib
import os
import shutil
import subprocess

from .config import CACHE, MIRROR, TOP
from .util import log, run

PACKAGES = ("python3", "python3-numpy", "python3-pytest", "kmod",
            # what the suite runs besides Python (extract installs no Essential package)
            "coreutils", "dash",
            # pip install of the wheel into a fresh venv in the guest
            "python3-venv", "python3-pip")
# Where the guest mounts the repository (mount tag `udmemtop`) inside the root.
GUEST_TOP = "/udmem-top"
# Bump when the recipe below changes, so cached roots are remade.
RECIPE = "2"


def _suite(conf):
    """The release of the root: the user space the target's busybox comes
    from (bookworm for a bookworm-backports kernel, whose suite alone is
    no release)."""
    return conf.busybox_suite or conf.suites[0]


def root_path(conf):
    """The cached root's folder for CONF (it may not exist yet)."""
    suite = _suite(conf)
    key = hashlib.sha256(" ".join((RECIPE, suite, conf.deb_arch) + PACKAGES)
                         .encode()).hexdigest()[:12]
    return os.path.join(CACHE, "pyroot", f"{suite}-{conf.deb_arch}-{key}")


def ensure_root(conf):
    """Make CONF's root once (serialized on a lock file); return its folder."""
    root = root_path(conf)
    os.makedirs(os.path.dirname(root), exist_ok=True)
    with open(root + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.path.exists(os.path.join(root, ".udmem-complete")):
            return root
        tmp = root + ".tmp"
        if os.path.exists(tmp):
            shutil.rmtree(tmp)
        log(f"udmem-qemu: {conf.name}: unpacking {' '.join(PACKAGES)} "
            f"({conf.deb_arch}, {_suite(conf)}) into {root} (about 30 s)")
        # sid's Release files here are past their Valid-Until date (the
        # archive is a snapshot): as in buildroot.py, do not check it.
        run(["mmdebstrap", "--quiet", "--variant=extract", f"--architectures={conf.deb_arch}",
             "--aptopt=Acquire::Check-Valid-Until \"false\"",
             "--include=" + ",".join(PACKAGES), _suite(conf), tmp, MIRROR])
        # update-alternatives' links of libblas3 and liblapack3 (postinst).
        for impl in glob.glob(os.path.join(tmp, "usr", "lib", "*", "blas", "lib*.so.3")) + \
                glob.glob(os.path.join(tmp, "usr", "lib", "*", "lapack", "lib*.so.3")):
            parent = os.path.dirname(os.path.dirname(impl))
            sub = os.path.basename(os.path.dirname(impl))
            link = os.path.join(parent, os.path.basename(impl))
            if not os.path.lexists(link):
                os.symlink(os.path.join(sub, os.path.basename(impl)), link)
        # A merged-/usr suite (sid) keeps /bin, /sbin and /lib in /usr: the
        # links base-files would make (the ELF interpreter is /lib/ld-*).
        for d in ("bin", "sbin", "lib"):
            if not os.path.lexists(os.path.join(tmp, d)) and \
                    os.path.isdir(os.path.join(tmp, "usr", d)):
                os.symlink(os.path.join("usr", d), os.path.join(tmp, d))
        # dash's postinst makes /bin/sh.
        if not os.path.lexists(os.path.join(tmp, "bin", "sh")):
            os.symlink("dash", os.path.join(tmp, "bin", "sh"))
        for d in ("proc", "sys", "dev", "run", "tmp", GUEST_TOP.lstrip("/")):
            os.makedirs(os.path.join(tmp, d), exist_ok=True)
        _precompile(conf, tmp)
        open(os.path.join(tmp, ".udmem-complete"), "w").close()
        os.rename(tmp, root)
    return root


def _precompile(conf, root):
    """Write the byte code that python3's postinst (py3compile) would have.

    The guest mounts the root read-only, so without it every Python process
    in the guest compiles each module it imports from source, under TCG: the
    stdlib, numpy, pytest and pip, again for every test that starts Python.
    The host compiles for the guest when its /usr/bin/python3 is the root's
    version (byte code depends on the version, not on the CPU); a root of
    another version (sid) is left as it is."""
    host = subprocess.run(["/usr/bin/python3", "-c",
                           "import sys; print('python%d.%d' % sys.version_info[:2])"],
                          capture_output=True, text=True).stdout.strip()
    stdlib = os.path.join(root, "usr", "lib", host)
    if not host or not os.path.isfile(os.path.join(stdlib, "os.py")):
        log(f"udmem-qemu: {conf.name}: the root's Python is not the host's {host or 'python3'}: "
            "its modules stay uncompiled")
        return
    # -s/-p: the byte code names the files by the guest's paths.  A few files
    # the packages ship do not compile (py3compile skips them too): no check.
    subprocess.run(["/usr/bin/python3", "-m", "compileall", "-q", "-q", "-j", "0",
                    "-s", root, "-p", "/", stdlib,
                    os.path.join(root, "usr", "lib", "python3", "dist-packages")],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def build_wheel(bdir):
    """The package's pure wheel in BDIR/dist (built from a copy of python/, so
    the tree stays clean) for the guest python suite to pip install: being
    pure Python, it is the same wheel on every architecture, and building it
    in a TCG guest costs minutes."""
    dist = os.path.join(bdir, "dist")
    shutil.rmtree(dist, ignore_errors=True)
    src = os.path.join(bdir, "python-src")
    shutil.rmtree(src, ignore_errors=True)
    shutil.copytree(os.path.join(TOP, "python"), src,
                    ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    run(["/usr/bin/python3", "-m", "build", "--no-isolation", "--wheel", "--outdir", dist,
         src], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    shutil.rmtree(src)


def virtfs_args(conf):
    """QEMU's -virtfs options of a host9p target: the root, and the repository
    when the root is not the host's own."""
    if conf.host_root == "host":
        return ["-virtfs", "local,path=/,mount_tag=hostroot,security_model=none,"
                "readonly=on,id=hostroot"]
    return ["-virtfs", f"local,path={root_path(conf)},mount_tag=hostroot,"
            "security_model=none,readonly=on,id=hostroot",
            "-virtfs", f"local,path={TOP},mount_tag=udmemtop,security_model=none,"
            "readonly=on,id=udmemtop"]


def guest_top(conf):
    """The repository's path as the chrooted guest sees it."""
    return TOP if conf.host_root == "host" else GUEST_TOP
