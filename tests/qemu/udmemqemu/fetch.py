# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Download and unpack a target's kernel, headers, kbuild and busybox."""

import collections
import fcntl
import glob
import os
import re
import shutil
import subprocess

from . import buildroot
from .apt import apt_env, depends_of, download, newest_version, resolve_kernel
from .config import CACHE, QEMU_DIR, Target
from .util import log, run

BUILD_KERNEL = os.path.join(QEMU_DIR, "debug", "build-kernel")


def fetch(conf):
    """Download and unpack everything the target needs; return its state dict.

    Serialized per kernel on a lock file, so a background prefetch and a run
    of the same target never unpack into each other."""
    kdir = os.path.join(CACHE, "kernels", conf.kernel_key)
    os.makedirs(os.path.dirname(kdir), exist_ok=True)
    with open(kdir + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        state = _fetch(conf, kdir)
    if conf.build_root:
        # Made here too so that a background prefetch makes it early.
        buildroot.ensure(conf.build_root)
    if conf.debug_kernel:
        state = dict(state, **debug_state(conf))
    return state


def debug_state(conf: Target) -> dict[str, str]:
    """The kernel entries of a fetch state for a `debug_kernel` target.

    tests/qemu/debug/build-kernel builds the kernel once (10 min of CPU: 6
    min on two idle cores, 25 on busy ones) and answers from its stamp
    afterwards; its stderr goes to ours as it comes.  The folder it prints
    last holds `info`, which names the image, the build tree (KERNEL_SRC) and
    the installed modules."""
    cmd = [BUILD_KERNEL, "-a", conf.debug_kernel, "-f", conf.debug_flavour, "-j", "2"]
    log(f"udmem-qemu: {conf.name}: debug kernel by tests/qemu/debug/build-kernel "
        f"{' '.join(cmd[1:])} (cold: 10 min of CPU)")
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stderr is not None
    tail: collections.deque[str] = collections.deque(maxlen=8)
    for line in proc.stderr:
        log("  " + line.rstrip("\n"))
        tail.append(line.strip())
    out = proc.stdout.read().split()
    if proc.wait() != 0 or not out:
        raise RuntimeError(f"build-kernel -a {conf.debug_kernel} failed (exit "
                           f"{proc.returncode}): {' | '.join(tail)}")
    with open(os.path.join(out[-1], "info")) as f:
        info = dict(line.rstrip("\n").split("=", 1) for line in f if "=" in line)
    return {"kver": info["version"], "abi": info["kernelrelease"],
            "kernel_release": info["kernelrelease"], "kernel_src": info["kernel_src"],
            "kernel_image": info["image"], "modules": info["modules"]}


def _fetch(conf, kdir):
    stamp = os.path.join(kdir, "state")
    if os.path.exists(stamp):
        with open(stamp) as f:
            return dict(line.rstrip("\n").split("=", 1) for line in f if "=" in line)
    env = apt_env()
    abi, kver, kbuild = resolve_kernel(env, conf.flavour, conf.deb_arch, conf.suites,
                                       conf.series)
    arch, flav = conf.deb_arch, conf.flavour
    # A build-only target needs the headers only: no image, no busybox.
    specs = [f"linux-image-{abi}-{flav}:{arch}={kver}"] if conf.boot else []
    # sid (7.x) splits the image: linux-image-<abi> only depends on the
    # kernel (linux-binary-<abi>) and its modules (linux-modules-<abi>).
    if conf.boot:
        specs += [f"{dep.split()[0]}:{arch}={kver}"
                  for dep in depends_of(env, f"linux-image-{abi}-{flav}:{arch}", kver)
                  if re.fullmatch(r"linux-(binary|modules)-" + re.escape(f"{abi}-{flav}"),
                                  dep.split()[0])]
    # The rt flavours' headers use linux-headers-<abi>-common-rt.
    common_pkg = f"linux-headers-{abi}-common"
    for dep in depends_of(env, f"linux-headers-{abi}-{flav}:{arch}", kver):
        m = re.match(r"(linux-headers-\S+-common(?:-\S+)?)\s*\(", dep)
        if m:
            common_pkg = m.group(1)
    specs += [f"linux-headers-{abi}-{flav}:{arch}={kver}", f"{common_pkg}={kver}"]
    kb_suites = conf.kbuild_suite
    if kb_suites:
        # The target's own kbuild cannot run here; take the same series from
        # another suite (riscv64: trixie headers, bookworm-backports kbuild).
        # The kbuild that the amd64 kernel of that suite builds with.
        _, kbuild_kver, kbuild = resolve_kernel(env, "amd64", "amd64", kb_suites)
        if not kbuild.startswith("linux-kbuild-" + re.match(r"\d+\.\d+", abi).group(0)):
            raise RuntimeError(f"{' '.join(kb_suites)} has {kbuild}, not the {abi} series")
        kbuild_ver = newest_version(env, kbuild + ":amd64", kb_suites)
    else:
        try:
            # The target's own suites first: bullseye-security's 6.1 backport
            # has a linux-kbuild-6.1 of its own, older than bookworm's.
            kbuild_ver = newest_version(env, kbuild + ":amd64", conf.suites)
        except RuntimeError:
            kbuild_ver = newest_version(env, kbuild + ":amd64",
                                        ["bookworm-backports", "bookworm-security",
                                         "bookworm"])
    specs.append(f"{kbuild}:amd64={kbuild_ver}")
    if conf.boot:
        bb_ver = newest_version(env, f"busybox-static:{arch}", [conf.busybox_suite])
        specs.append(f"busybox-static:{arch}={bb_ver}")
    if conf.modpost == "target":
        specs.append(f"{kbuild}:{arch}=" +
                     newest_version(env, f"{kbuild}:{arch}", conf.suites))
        specs.append(f"libc6:{arch}=" + newest_version(env, f"libc6:{arch}", ["bookworm"]))
    debs = download(env, specs)

    if os.path.exists(kdir):
        shutil.rmtree(kdir)
    root = os.path.join(kdir, "root")
    os.makedirs(root)
    log(f"udmem-qemu: unpacking {len(debs)} packages for {conf.name}")
    target_kbuild = os.path.join(kdir, "target-kbuild")
    for deb in debs:
        name = os.path.basename(deb)
        if conf.modpost == "target" and \
                (name.startswith(kbuild + "_") and name.endswith(f"_{arch}.deb") or
                 name.startswith("libc6_")):
            run(["dpkg-deb", "-x", deb, target_kbuild])
        else:
            run(["dpkg-deb", "-x", deb, root])
    hdr = os.path.join(root, "usr/src", f"linux-headers-{abi}-{flav}")
    common = os.path.join(root, "usr/src", common_pkg)
    kb_dir = os.path.join(root, "usr/lib", kbuild)
    # The arch headers include the common Makefile by absolute path.
    mk = os.path.join(hdr, "Makefile")
    with open(mk) as f:
        text = f.read()
    text = text.replace("/usr/src/", os.path.join(root, "usr/src") + "/")
    with open(mk, "w") as f:
        f.write(text)
    if kb_suites or conf.modpost == "target":
        scripts_src = kb_dir
        if conf.modpost == "target":
            # Debian's amd64 modpost computes 64-bit device-table offsets;
            # run the target's own modpost under qemu-user instead.
            own = os.path.join(root, "usr/lib", kbuild + "-target")
            shutil.copytree(kb_dir, own, symlinks=True)
            mp_dir = os.path.join(own, "scripts", "mod")
            for p in glob.glob(os.path.join(mp_dir, "modpost*")):
                os.remove(p)
            real = glob.glob(os.path.join(target_kbuild, "usr/lib", kbuild,
                                          "scripts/mod/modpost.real-lsb-32"))
            if not real:
                raise RuntimeError("no 32-bit modpost in the target kbuild")
            qemu_user = "qemu-" + {"armhf": "arm"}.get(arch, arch)
            with open(os.path.join(mp_dir, "modpost"), "w") as f:
                f.write(f'#!/bin/sh\nexec {qemu_user} -L {target_kbuild} {real[0]} "$@"\n')
            os.chmod(os.path.join(mp_dir, "modpost"), 0o755)
            scripts_src = own
        for d in (hdr, common):
            for sub in ("scripts", "tools"):
                link = os.path.join(d, sub)
                if os.path.lexists(link):
                    os.remove(link)
                os.symlink(os.path.join(scripts_src, sub), link)
    state = {"abi": abi, "kver": kver, "kernel_release": f"{abi}-{flav}",
             "kernel_src": hdr, "kernel_image": "", "busybox": "",
             "modules": os.path.join(root, "lib", "modules", f"{abi}-{flav}")}
    if conf.boot:
        kernels = glob.glob(os.path.join(root, "boot", "vmlinu*-" + abi + "-" + flav))
        # sid (7.x) keeps the kernel and its modules in /usr/lib/modules/<release>.
        kernels += glob.glob(os.path.join(root, "usr", "lib", "modules", f"{abi}-{flav}",
                                          "vmlinu*"))
        if not kernels:
            raise RuntimeError(f"no kernel image in {root}/boot")
        state["kernel_image"] = kernels[0]
        state["busybox"] = next(p for p in (os.path.join(root, "bin", "busybox"),
                                            os.path.join(root, "usr", "bin", "busybox"))
                                if os.path.exists(p))
    with open(stamp, "w") as f:
        for k, v in state.items():
            f.write(f"{k}={v}\n")
    return state


def kmake_args(conf, state):
    args = [f"KERNEL_SRC={state['kernel_src']}", f"ARCH={conf.kernel_arch}"]
    if conf.cross_compile:
        args.append(f"CROSS_COMPILE={conf.cross_compile}")
    args += list(conf.kmake)
    if conf.coverage:
        args.append("UDMEM_COVERAGE=1")
    return args


def target_cc(conf):
    return conf.cross_compile + "gcc"


def guest_debs(conf):
    """Unpack the target's `guest_debs` with libc6; return the root, or None.

    Kept apart from the kernel's folder (targets of one kernel differ in
    them), in $UDMEM_CACHE/guest-debs/<arch>-<packages>/, under a lock."""
    if not conf.guest_debs:
        return None
    arch = conf.deb_arch
    pkgs = sorted(set(conf.guest_debs) | {"libc6"})
    root = os.path.join(CACHE, "guest-debs", f"{arch}-{'-'.join(pkgs)}")
    os.makedirs(os.path.dirname(root), exist_ok=True)
    with open(root + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.path.exists(os.path.join(root, ".done")):
            return root
        env = apt_env()
        specs = [f"{p}:{arch}=" + newest_version(env, f"{p}:{arch}", [conf.busybox_suite])
                 for p in pkgs]
        debs = download(env, specs)
        shutil.rmtree(root, ignore_errors=True)
        os.makedirs(root)
        for deb in debs:
            run(["dpkg-deb", "-x", deb, root])
        open(os.path.join(root, ".done"), "w").close()
    return root

