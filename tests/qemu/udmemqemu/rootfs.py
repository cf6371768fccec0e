# SPDX-License-Identifier: GPL-2.0 OR MIT
"""A guest with a real Debian root file system (mode = rootfs).

For the install journey a user makes: `apt install` of our .debs on a Debian
system that boots with systemd and udev, builds the modules with DKMS for the
kernel it runs, and has users.  `mmdebstrap` makes the root from Debian's
archive (with the target's suites) with the kernel, its headers, dkms, gcc,
udev and python3-numpy; the root becomes an ext4 image, cached in
$UDMEM_CACHE/rootfs/ and booted with its own kernel and initrd through a
snapshot (QEMU's snapshot=on), so every run starts from the same image.  A systemd
unit mounts the repository over 9p (tag `udmemtop`) and runs
`tests/qemu/udmemqemu/rootfs-init.sh`, which runs the suites holding a
`rootfs` file with the same markers as the busybox /init, then powers off.
`make deb` builds the packages the suites install, before the boot, and
`upgrade_debs` builds them again as the next version, for an upgrade.

A suite may reboot the guest (rootfs-init.sh's `rootfs_reboot`): QEMU's
`-no-reboot` is overridden by `-action reboot=reset`, so the guest restarts
in the same QEMU process, on the same snapshot, and goes on where the suite
asked.  A pvpanic device with `-action panic=shutdown` still ends QEMU on a
kernel panic once the guest's pvpanic driver is loaded.
"""

import email.utils
import fcntl
import glob
import hashlib
import os
import re
import shlex
import shutil
import subprocess

from .config import CACHE, MIRROR, SECURITY, TOP
from .util import log, run

PACKAGES = ("systemd-sysv", "udev", "kmod", "linux-image-{flavour}",
            "linux-headers-{flavour}", "dkms", "gcc", "make", "libc6-dev", "pkg-config",
            "python3", "python3-numpy", "adduser", "passwd", "util-linux")
GUEST_TOP = "/udmem-top"
IMAGE_SIZE = "4G"
# Bump when the recipe below changes, so cached images are remade.
RECIPE = "1"

UNIT = ("[Unit]\n"
        "Description=udmem guest suites\n"
        "After=multi-user.target\n"
        "[Service]\n"
        "Type=oneshot\n"
        f"ExecStart=/bin/sh -c 'mkdir -p {GUEST_TOP} && mount -t 9p -o trans=virtio,"
        f"version=9p2000.L,msize=512000,ro udmemtop {GUEST_TOP} && exec /bin/sh "
        f"{GUEST_TOP}/tests/qemu/udmemqemu/rootfs-init.sh'\n"
        "StandardOutput=tty\n"
        "StandardError=tty\n"
        "TTYPath=/dev/{console}\n"
        "[Install]\n"
        "WantedBy=multi-user.target\n")


def _key(conf):
    words = (RECIPE, conf.deb_arch, conf.flavour, IMAGE_SIZE) + conf.suites + PACKAGES
    return hashlib.sha256(" ".join(words).encode()).hexdigest()[:12]


def image_dir(conf):
    return os.path.join(CACHE, "rootfs", f"{conf.suites[0]}-{conf.deb_arch}-{_key(conf)}")


def _sources(conf):
    lines = []
    for suite in conf.suites:
        url = SECURITY if suite.endswith("-security") else MIRROR
        lines.append(f"deb {url} {suite} main")
    return lines


def ensure_image(conf):
    """Make the cached image once (serialized on a lock file); return its folder
    with `root.img`, `vmlinuz` and `initrd.img`."""
    out = image_dir(conf)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.path.exists(os.path.join(out, "complete")):
            return out
        tmp = out + ".tmp"
        if os.path.exists(tmp):
            shutil.rmtree(tmp)
        os.makedirs(tmp)
        root = os.path.join(tmp, "root")
        unit = os.path.join(tmp, "udmem-suites.service")
        with open(unit, "w") as f:
            f.write(UNIT.format(console=conf.console))
        pkgs = ",".join(p.format(flavour=conf.flavour) for p in PACKAGES)
        log(f"udmem-qemu: {conf.name}: mmdebstrap {conf.deb_arch} root with {pkgs} "
            f"into {out} (cold: minutes)")
        hooks = [
            f'cp {unit} "$1/etc/systemd/system/udmem-suites.service"',
            'chroot "$1" systemctl enable udmem-suites.service',
            # No login prompt on the console the suites print to.
            f'chroot "$1" systemctl mask serial-getty@{conf.console}.service',
            'echo "/dev/vda / ext4 defaults 0 1" > "$1/etc/fstab"',
            'echo udmem-guest > "$1/etc/hostname"',
            'chroot "$1" passwd -d root',
        ]
        cmd = ["mmdebstrap", "--quiet", "--mode=root", "--variant=important",
               f"--architectures={conf.deb_arch}", f"--include={pkgs}"]
        for h in hooks:
            cmd.append(f"--customize-hook={h}")
        run(cmd + [conf.suites[0], root] + _sources(conf))
        for name, pattern in (("vmlinuz", "vmlinuz-*"), ("initrd.img", "initrd.img-*")):
            found = sorted(glob.glob(os.path.join(root, "boot", pattern)))
            if not found:
                raise RuntimeError(f"{conf.name}: the root has no /boot/{pattern}")
            shutil.copy(found[-1], os.path.join(tmp, name))
        run(["mkfs.ext4", "-q", "-F", "-L", "udmemroot", "-d", root,
             os.path.join(tmp, "root.img"), IMAGE_SIZE])
        shutil.rmtree(root)
        open(os.path.join(tmp, "complete"), "w").close()
        os.rename(tmp, out)
    return out


def upgrade_debs(out):
    """Build the packages once more, as the next patch version, into `out`
    (for the install suite's upgrade): a copy of the tree whose lib/udmem.h
    (the one version), python's generated _uapi.py and debian/changelog say
    MAJOR.MINOR.PATCH+1.  Returns (old version, new version)."""
    with open(os.path.join(TOP, "lib", "udmem.h")) as f:
        header = f.read()
    parts = [int(re.search(rf"^#define UDMEM_VERSION_{p}\s+(\d+)", header, re.M).group(1))
             for p in ("MAJOR", "MINOR", "PATCH")]
    old = ".".join(map(str, parts))
    new = f"{parts[0]}.{parts[1]}.{parts[2] + 1}"
    if os.path.exists(out):
        shutil.rmtree(out)
    src = os.path.join(out, f"udmem-{new}")
    os.makedirs(src)
    run(f"tar -c -C {shlex.quote(TOP)} --exclude=./build --exclude=./.git --exclude='*.o' . | "
        f"tar -x -C {shlex.quote(src)}")
    path = os.path.join(src, "lib", "udmem.h")
    with open(path, "w") as f:
        f.write(re.sub(r"^(#define UDMEM_VERSION_PATCH\s+)\d+", rf"\g<1>{parts[2] + 1}",
                       header, flags=re.M))
    run(["python3", os.path.join(src, "python", "tools", "gen_uapi.py")])
    path = os.path.join(src, "debian", "changelog")
    with open(path) as f:
        changelog = f.read()
    if not changelog.startswith(f"udmem ({old})"):
        raise RuntimeError(f"debian/changelog does not start with version {old}")
    maint = re.search(r"^ -- (.*?>)", changelog, re.M).group(1)
    entry = (f"udmem ({new}) unstable; urgency=medium\n\n"
             "  * The next version, made by tests/qemu/udmemqemu/rootfs.py for the\n"
             "    install suite's upgrade test; never released.\n\n"
             f" -- {maint}  {email.utils.formatdate(localtime=True)}\n\n")
    with open(path, "w") as f:
        f.write(entry + changelog)
    # As `make deb` does: the system python3, which has the Debian modules.
    r = subprocess.run(["dpkg-buildpackage", "-us", "-uc", "-b"], cwd=src,
                       capture_output=True, text=True,
                       env=dict(os.environ, PATH="/usr/sbin:/usr/bin:/sbin:/bin"))
    if r.returncode != 0:
        raise RuntimeError(f"dpkg-buildpackage of {new} failed: " +
                           (r.stdout + r.stderr)[-600:])
    shutil.rmtree(src)
    return old, new


def prepare(conf, bdir, suites):
    """Before a rootfs boot: the image, the packages, and the
    suite list and environment rootfs-init.sh reads over 9p.  Returns the
    image folder."""
    img = ensure_image(conf)
    log(f"udmem-qemu: {conf.name}: make deb")
    r = subprocess.run(["make", "-s", "-C", TOP, "deb"], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("make deb failed: " + (r.stdout + r.stderr)[-600:])
    os.makedirs(bdir, exist_ok=True)
    upgrade = os.path.join(bdir, "upgrade")
    log(f"udmem-qemu: {conf.name}: the packages of the next version, in {upgrade}")
    old, new = upgrade_debs(upgrade)
    with open(os.path.join(bdir, "rootfs-suites.list"), "w") as f:
        f.write("\n".join(suites) + "\n")
    with open(os.path.join(bdir, "rootfs-env"), "w") as f:
        f.write(f"UDMEM_TARGET={conf.name}\nUDMEM_ARCH={conf.arch}\n"
                f"UDMEM_HAS_DT={1 if conf.dt else 0}\n"
                f"UDMEM_BUILD={GUEST_TOP}/{os.path.relpath(bdir, TOP)}\n"
                f"UDMEM_DEB_VERSION={old}\nUDMEM_UPGRADE_VERSION={new}\n"
                f"UDMEM_UPGRADE_DEBS={GUEST_TOP}/{os.path.relpath(upgrade, TOP)}\n")
    return img


def boot_args(bdir):
    """Kernel command line words: where rootfs-init.sh finds the suite list."""
    return f"udmem.build={os.path.relpath(bdir, TOP)}"


def qemu_args(conf):
    """The root disk (writes go to a temporary file: snapshot=on, kept across
    a guest reboot), the repository share, and the actions: a reboot restarts
    the guest (it overrides -no-reboot), a panic the guest reports through
    pvpanic ends QEMU."""
    return ["-drive", f"file={os.path.join(image_dir(conf), 'root.img')},format=raw,"
            "snapshot=on,if=none,id=root0", "-device", "virtio-blk-pci,drive=root0",
            "-virtfs", f"local,path={TOP},mount_tag=udmemtop,security_model=none,"
            "readonly=on,id=udmemtop",
            "-device", "pvpanic", "-action", "reboot=reset", "-action", "panic=shutdown"]
