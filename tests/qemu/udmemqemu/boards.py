# SPDX-License-Identifier: GPL-2.0 OR MIT
"""SoC boards: their device tree and the DMA-engine drivers Debian lacks.

A board target (`board = NAME` in its .conf) boots QEMU's model of a real
SoC board.  Debian's kernel ships that board's DTB, but the DTB describes
firmware, clocks and pins QEMU does not model, so the board's EDIT below
rewrites a copy of it with fdtput (every change is a line here; no
hand-edited blob).  The test nodes of tests/qemu/dt/*.dtsi are added after
it by image.make_dtb, as for the other device-tree targets.

The engine drivers Debian's config leaves out (and dmatest) are built out of
tree from the drivers/dma sources of Debian's linux-source package, once per
kernel release, into $UDMEM_CACHE/boards/ko/<release>-<hash>/.
"""

import fcntl
import glob
import hashlib
import os
import re
import shutil
import subprocess

from .apt import apt_env, download, newest_version
from .config import CACHE
from .util import log, run

BOARDS_CACHE = os.path.join(CACHE, "boards")
# Bump when the way drivers are built changes their result.
RECIPE = 1


class Fdt:
    """A DTB edited in place with fdtget/fdtput (device-tree-compiler)."""

    def __init__(self, path):
        self.path = path

    def _get(self, *args):
        return run(["fdtget", self.path] + list(args), capture_output=True,
                   text=True).stdout.split()

    def children(self, node):
        return self._get("-l", node)

    def walk(self, node="/"):
        """NODE and every node below it, parents first."""
        yield node
        for child in self.children(node):
            yield from self.walk(node.rstrip("/") + "/" + child)

    def props(self, node):
        return self._get("-p", node)

    def exists(self, node):
        return subprocess.run(["fdtget", "-l", self.path, node], capture_output=True
                              ).returncode == 0

    def get_str(self, node, prop):
        """PROP of NODE as a string ("" when absent); a list's first string."""
        return run(["fdtget", "-d", "", self.path, node, prop], capture_output=True,
                   text=True).stdout.split(" ")[0].strip()

    def u32(self, node, prop):
        return int(self._get("-t", "u", node, prop)[0])

    def delete_node(self, node):
        if self.exists(node):
            run(["fdtput", "-r", self.path, node])

    def delete_props(self, node, names):
        have = [p for p in self.props(node) if p in names]
        if have:
            run(["fdtput", "-d", self.path, node] + have)

    def set_str(self, node, prop, value):
        run(["fdtput", "-p", "-t", "s", self.path, node, prop, value])

    def set_u32(self, node, prop, *values):
        run(["fdtput", "-p", "-t", "u", self.path, node, prop] + [str(v) for v in values])


def _fixed_clock(fdt, old, new, hz):
    """Replace clock provider OLD by a root fixed-clock NEW of HZ with OLD's
    phandle: every `clocks = <&old N>` then reads HZ (the fixed-clock's xlate
    ignores the specifier).  QEMU models the clocks as always on."""
    phandle = fdt.u32(old, "phandle")
    fdt.set_str(new, "compatible", "fixed-clock")
    fdt.set_u32(new, "#clock-cells", 1)
    fdt.set_u32(new, "clock-frequency", hz)
    fdt.set_u32(new, "phandle", phandle)
    return phandle


# Properties that point at the firmware's power, reset and pin controllers,
# or at devices QEMU leaves out (the SMMU is not enabled, no PHYs, no PMU
# firmware behind the mailboxes, no CPU idle states or OPP tables).
FIRMWARE_LINKS = ("power-domains", "pinctrl-names", "pinctrl-0", "pinctrl-1", "resets",
                  "reset-names", "mboxes", "mbox-names", "iommus", "phys", "phy-names",
                  "cpu-idle-states", "operating-points-v2")


def edit_zcu102(fdt):
    """ZynqMP ZCU102 on -M xlnx-zcu102 (no PMU firmware, no ATF).

    QEMU disables the zynqmp-firmware node, so its clock controller never
    probes and every device waits for clocks forever (no console, init
    dies).  The clock controller becomes a 100 MHz fixed clock, links to the
    rest of the firmware go, and of the /axi devices only those the tests
    use stay enabled: the UARTs, the GIC and the 16 ZDMA/ADMA channels."""
    _fixed_clock(fdt, "/firmware/zynqmp-firmware/clock-controller", "/fwclk", 100000000)
    for node in ("/firmware", "/fpga-full", "/zynqmp_ipi", "/dcc", "/cpu-opp-table"):
        fdt.delete_node(node)
    for node in list(fdt.walk()):
        fdt.delete_props(node, FIRMWARE_LINKS)
    keep = re.compile(r"(serial@ff0[01]0000|interrupt-controller@.*)$")
    for child in fdt.children("/axi"):
        node = "/axi/" + child
        if fdt.get_str(node, "compatible") == "xlnx,zynqmp-dma-1.0":
            # FPD ZDMA fd500000-fd570000 and LPD ADMA ffa80000-ffaf0000
            fdt.set_str(node, "status", "okay")
        elif not keep.match(child):
            fdt.set_str(node, "status", "disabled")


# board -> (DT edit, drivers/dma sources to build, headers they include)
BOARDS = {
    "zcu102": (edit_zcu102, ("xilinx/zynqmp_dma.c", "dmatest.c"), ("dmaengine.h",)),
}


def board_dtb(conf, state, bdir):
    """The board's edited DTB in BDIR, from the kernel package's DTB."""
    src = os.path.join(os.path.dirname(state["kernel_src"]), "..", "lib",
                       "linux-image-" + state["kernel_release"], conf.board_dtb)
    if not os.path.exists(src):
        raise RuntimeError(f"{conf.name}: no {conf.board_dtb} in the kernel package")
    out = os.path.join(bdir, "board.dtb")
    # Room for the edits: fdtput grows the blob, but only into padding.
    run(["dtc", "-q", "-I", "dtb", "-O", "dtb", "-p", "65536", "-o", out, src])
    BOARDS[conf.board][0](Fdt(out))
    return out


def linux_source(state):
    """drivers/dma of Debian's linux-source for the kernel's series, unpacked
    once into $UDMEM_CACHE/boards/src/linux-source-<series>-<version>."""
    series = re.match(r"\d+\.\d+", state["abi"]).group(0)
    pkg = f"linux-source-{series}"
    srcdir = os.path.join(BOARDS_CACHE, "src")
    os.makedirs(srcdir, exist_ok=True)
    with open(os.path.join(srcdir, "lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = glob.glob(os.path.join(srcdir, f"{pkg}-*", ".unpacked"))
        if done:
            return os.path.dirname(sorted(done)[-1])
        env = apt_env()
        version = newest_version(env, pkg, ["bookworm-security", "bookworm",
                                            "bookworm-backports", "trixie", "sid"])
        out = os.path.join(srcdir, f"{pkg}-{version}")
        log(f"udmem-qemu: unpacking drivers/dma of {pkg} {version}")
        deb = download(env, [f"{pkg}={version}"])[0]
        if os.path.exists(out):
            shutil.rmtree(out)
        os.makedirs(out)
        run(f"dpkg-deb --fsys-tarfile '{deb}' | tar -xO ./usr/src/{pkg}.tar.xz | "
            f"xz -dc -T2 | tar -x -C '{out}' --strip-components=1 --wildcards "
            f"'*/drivers/dma/*'")
        open(os.path.join(out, ".unpacked"), "w").close()
        return out


def build_drivers(conf, state, margs, mods, results):
    """Build the board's engine drivers and dmatest into MODS (cached)."""
    _, sources, headers = BOARDS[conf.board]
    try:
        src = linux_source(state)
    except (RuntimeError, subprocess.CalledProcessError) as e:
        results.append(("not ok", "build/board-drivers", f"linux-source: {e}"[:400]))
        return
    dma = os.path.join(src, "drivers", "dma")
    h = hashlib.sha256(f"{RECIPE} {src} {' '.join(margs)}".encode())
    for f in sources + headers:
        with open(os.path.join(dma, f), "rb") as fh:
            h.update(fh.read())
    out = os.path.join(BOARDS_CACHE, "ko", f"{state['kernel_release']}-{h.hexdigest()[:12]}")
    if not glob.glob(os.path.join(out, "*.ko")):
        work = out + ".tmp"
        if os.path.exists(work):
            shutil.rmtree(work)
        for f in sources + headers:
            os.makedirs(os.path.dirname(os.path.join(work, f)), exist_ok=True)
            shutil.copy(os.path.join(dma, f), os.path.join(work, f))
        with open(os.path.join(work, "Kbuild"), "w") as f:
            f.write("".join(f"obj-m += {s[:-2]}.o\n" for s in sources))
        p = subprocess.run(["make", "-C", state["kernel_src"], "M=" + work] + margs +
                           ["-j2", "modules"], capture_output=True, text=True)
        if p.returncode != 0:
            results.append(("not ok", "build/board-drivers", "make failed: " +
                            (p.stdout + p.stderr)[-400:]))
            return
        os.makedirs(out, exist_ok=True)
        for ko in glob.glob(os.path.join(work, "**", "*.ko"), recursive=True):
            shutil.copy(ko, out)
        shutil.rmtree(work)
    for ko in glob.glob(os.path.join(out, "*.ko")):
        shutil.copy(ko, mods)
    results.append(("ok", "build/board-drivers", ""))
