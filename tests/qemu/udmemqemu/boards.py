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

import dataclasses
import fcntl
import glob
import hashlib
import os
import re
import shutil
import struct
import subprocess
from collections.abc import Callable

from . import buildroot
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

    def get_strs(self, node, prop):
        """PROP of NODE as a list of strings (fdtget prints them space-separated)."""
        return run(["fdtget", "-t", "s", "-d", "", self.path, node, prop],
                   capture_output=True, text=True).stdout.split()

    def get_str(self, node, prop):
        """PROP of NODE as a string ("" when absent); a list's first string."""
        return run(["fdtget", "-t", "s", "-d", "", self.path, node, prop],
                   capture_output=True, text=True).stdout.rstrip("\n")

    def set_strs(self, node, prop, *values):
        run(["fdtput", "-p", "-t", "s", self.path, node, prop] + list(values))

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
        if "xlnx,zynqmp-dma-1.0" in fdt.get_strs(node, "compatible"):
            # FPD ZDMA fd500000-fd570000 and LPD ADMA ffa80000-ffaf0000
            fdt.set_str(node, "status", "okay")
        elif not keep.match(child):
            fdt.set_str(node, "status", "disabled")


def edit_zynq7000(fdt):
    """Zynq-7000 (ZedBoard DTS from linux-source) on -M xilinx-zynq-a9.

    Debian's armmp kernel has no ARCH_ZYNQ: no SLCR clock driver, no SMP
    code, no Cadence UART (xilinx_uartps.ko, built here, is the console).
    The SLCR clock controller becomes a 333 MHz fixed clock (the global
    timer needs one), one CPU runs, and of /axi only the GIC, the L2C-310,
    both UARTs, the PL330 and the two ARM timers stay enabled.  uart0 gets
    the alias serial1, or it takes id 0 and the console (uart1, serial0)
    fails to register.  The root moves to two address and size cells, as
    tests/qemu/dt/*.dtsi expect (QEMU rewrites /memory's reg to match;
    /axi's empty ranges translate 1:1 whatever the cells)."""
    _fixed_clock(fdt, "/axi/slcr@f8000000/clkc@100", "/fclk", 333333333)
    for node in ("/axi/slcr@f8000000", "/cpus/cpu@1", "/fpga-full", "/replicator",
                 "/pmu@f8891000", "/phy0"):
        fdt.delete_node(node)
    fdt.delete_props("/cpus/cpu@0", ("operating-points", "clocks", "clock-latency"))
    for node in list(fdt.walk()):
        fdt.delete_props(node, FIRMWARE_LINKS)
    keep = re.compile(r"(interrupt-controller@f8f01000|cache-controller@f8f02000|"
                      r"serial@e000[01]000|dmac@f8003000|timer@f8f00[26]00)$")
    for child in fdt.children("/axi"):
        fdt.set_str("/axi/" + child, "status", "okay" if keep.match(child) else "disabled")
    fdt.set_str("/aliases", "serial1", "/axi/serial@e0000000")
    for node in fdt.children("/"):
        if node != "memory@0" and "reg" in fdt.props("/" + node):
            raise RuntimeError(f"zynq7000: /{node} has a reg with one cell")
    fdt.set_u32("/", "#address-cells", 2)
    fdt.set_u32("/", "#size-cells", 2)
    fdt.set_u32("/memory@0", "reg", 0, 0, 0, 0x20000000)


def edit_icicle(fdt):
    """PolarFire SoC Icicle Kit on -M microchip-icicle-kit (QEMU 7.2, no HSS).

    QEMU models the harts, CLINT, PLIC, L2 cache controller, PDMA, MMUARTs
    and a few sysreg registers, and none of the clock hardware: the MSS PLL
    registers read 0 (the clock driver finds a zero divisor) and the fabric
    clock conditioning circuit (CCC) is not there at all (its PLL driver
    takes a load access fault).  So the clock configurator becomes a
    150 MHz fixed clock with its phandle (the UARTs' clocks), reset links go
    (the devices QEMU models are never held in reset), and of /soc only the
    interrupt controllers, the cache controller, the PDMA and the four
    console-capable MMUARTs stay enabled.  At the root every device but the
    fixed clocks is disabled: the fabric designs' PWM, I2C and PCIe, the
    LEDs on GPIOs QEMU leaves out, and the system controller and its
    mailboxes (no HSS firmware)."""
    clkcfg = [c for c in fdt.children("/soc") if c.startswith("clkcfg@")]
    if len(clkcfg) != 1:
        raise RuntimeError(f"icicle: expected one /soc/clkcfg@*, found {clkcfg}")
    _fixed_clock(fdt, "/soc/" + clkcfg[0], "/mssclk-qemu", 150000000)
    fdt.delete_node("/soc/" + clkcfg[0])
    for node in list(fdt.walk()):
        fdt.delete_props(node, FIRMWARE_LINKS)
    keep = re.compile(r"(cache-controller@2010000|clint@2000000|interrupt-controller@c000000|"
                      r"dma-controller@3000000|serial@20(100|102|104|106)000)$")
    for child in fdt.children("/soc"):
        fdt.set_str("/soc/" + child, "status", "okay" if keep.match(child) else "disabled")
    for child in fdt.children("/"):
        node = "/" + child
        compatible = fdt.get_strs(node, "compatible")
        if compatible and compatible not in (["fixed-clock"], ["simple-bus"]):
            fdt.set_str(node, "status", "disabled")


@dataclasses.dataclass(frozen=True)
class Board:
    """What a board needs beyond its target file."""

    edit: Callable[[Fdt], None]
    # Sources of Debian's linux-source built out of tree (their paths kept),
    # the headers they include, and flags for all of them.
    sources: tuple[str, ...]
    headers: tuple[str, ...] = ()
    ccflags: str = ""
    # Shell run by /init first thing, and last before power-off.
    preinit: str = ""
    poweroff: str = ""


BOARDS = {
    "zcu102": Board(edit_zcu102,
                    ("drivers/dma/xilinx/zynqmp_dma.c", "drivers/dma/dmatest.c"),
                    ("drivers/dma/dmaengine.h",)),
    "icicle": Board(edit_icicle,
                    ("drivers/dma/sf-pdma/sf-pdma.c", "drivers/dma/dmatest.c"),
                    ("drivers/dma/dmaengine.h", "drivers/dma/virt-dma.h",
                     "drivers/dma/sf-pdma/sf-pdma.h"),
                    # No power-off or reset device: QEMU exits through
                    # semihosting (icicle.conf's -semihosting-config), once
                    # the UART has sent /init's last lines.
                    poweroff="sleep 1\nsemihost-exit\n"),
    "zynq7000": Board(edit_zynq7000,
                      ("drivers/tty/serial/xilinx_uartps.c", "drivers/dma/dmatest.c"),
                      ccflags="-DCONFIG_SERIAL_XILINX_PS_UART_CONSOLE=1",
                      # The console is a module: load it first thing, then
                      # give /init the console.  No power-off handler:
                      # reset through the SLCR (QEMU -no-reboot exits).
                      preinit="insmod /udmem/modules/xilinx_uartps.ko\n"
                              "exec </dev/console >/dev/console 2>&1\n",
                      poweroff="devmem 0xf8000008 32 0xdf0d\n"
                               "devmem 0xf8000200 32 1\n"),
}
# What linux_source unpacks: the sources above, and what DTS files include.
SOURCE_PARTS = ("drivers/dma", "drivers/tty/serial", "arch/arm/boot/dts",
                "include/dt-bindings", "scripts/dtc/include-prefixes")
SOURCE_STAMP = ".unpacked-2"


def board_dtb(conf, state, bdir):
    """The board's edited DTB in BDIR, from the kernel package's DTB."""
    out = os.path.join(bdir, "board.dtb")
    if conf.board_dtb.startswith("src:"):
        # Debian's package lacks it: build it from linux-source.
        top = linux_source(state)
        dts = os.path.join(top, conf.board_dtb[4:])
        inc = os.path.dirname(dts)
        src = os.path.join(bdir, "board-src.dtb")
        run(f"cpp -nostdinc -undef -D__DTS__ -x assembler-with-cpp -I '{inc}' "
            f"-I '{top}/include' '{dts}' | dtc -q -I dts -O dtb -o '{src}' -")
    else:
        src = package_dtb(conf, state)
    if not os.path.exists(src):
        raise RuntimeError(f"{conf.name}: no {conf.board_dtb} in the kernel package")
    # Room for the edits: fdtput grows the blob, but only into padding.
    run(["dtc", "-q", "-I", "dtb", "-O", "dtb", "-p", "65536", "-o", out, src])
    fdt = Fdt(out)
    BOARDS[conf.board].edit(fdt)
    # Say that this is QEMU's model of the board, where programs look
    # (udmem bench: "qemu" in the root compatible, the model in its table).
    machine = conf.machine.split(",")[0]
    fdt.set_strs("/", "compatible", *fdt.get_strs("/", "compatible"), f"qemu,{machine}")
    fdt.set_str("/", "model", f"{fdt.get_str('/', 'model')} (QEMU {machine})")
    # A seed for the kernel's random generator, as QEMU's virt machine and
    # the boards' boot loaders give: without it the guest's generator is
    # never ready, and every system call's random stack offset then costs
    # about 9 400 instructions on zcu102, which the benchmark's syscall-bound
    # rows (syncs) would count as the driver's.
    fdt.set_u32("/chosen", "rng-seed", *struct.unpack("<8I", os.urandom(32)))
    return out


def package_dtb(conf, state):
    """The path of the kernel package's board_dtb.  Debian 6.x ships the DTBs
    in linux-image-<release> (/usr/lib/linux-image-<release>/); sid's 7.x
    in linux-base-<release> (/usr/lib/modules/<release>/dtb/), which the
    kernel fetch does not unpack: that one file is taken from the package,
    once per release, into $UDMEM_CACHE/boards/dtb/<release>/."""
    release = state["kernel_release"]
    root = os.path.join(os.path.dirname(state["kernel_src"]), "..", "..")
    for path in (os.path.join(root, "usr", "lib", "linux-image-" + release),
                 os.path.join(root, "usr", "lib", "modules", release, "dtb"),
                 os.path.join(BOARDS_CACHE, "dtb", release)):
        if os.path.exists(os.path.join(path, conf.board_dtb)):
            return os.path.join(path, conf.board_dtb)
    out = os.path.join(BOARDS_CACHE, "dtb", release)
    deb = download(apt_env(), [f"linux-base-{release}:{conf.deb_arch}={state['kver']}"])[0]
    tmp = out + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    member = f"./usr/lib/modules/{release}/dtb/{conf.board_dtb}"
    run(f"dpkg-deb --fsys-tarfile '{deb}' | tar -x -C '{tmp}' '{member}'")
    os.makedirs(os.path.dirname(os.path.join(out, conf.board_dtb)), exist_ok=True)
    os.replace(os.path.join(tmp, member), os.path.join(out, conf.board_dtb))
    shutil.rmtree(tmp)
    return os.path.join(out, conf.board_dtb)


def linux_source(state, parts=SOURCE_PARTS, stamp=SOURCE_STAMP, tag=""):
    """PARTS (folders) of Debian's linux-source for the kernel's series,
    unpacked once into $UDMEM_CACHE/boards/src/linux-source-<series>-<version><TAG>
    (another TAG and STAMP for another set of parts)."""
    series = re.match(r"\d+\.\d+", state["abi"]).group(0)
    pkg = f"linux-source-{series}"
    srcdir = os.path.join(BOARDS_CACHE, "src")
    os.makedirs(srcdir, exist_ok=True)
    with open(os.path.join(srcdir, "lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = glob.glob(os.path.join(srcdir, f"{pkg}-*{tag}", stamp))
        if done:
            return os.path.dirname(sorted(done)[-1])
        # A package already downloaded does (the drivers change little
        # within a series); else the newest the archive has.
        have = sorted(glob.glob(os.path.join(CACHE, "debs", f"{pkg}_*_all.deb")))
        if have:
            deb = have[-1]
            version = os.path.basename(deb).split("_")[1].replace("%3a", ":")
        else:
            env = apt_env()
            version = newest_version(env, pkg, ["bookworm-security", "bookworm",
                                                "bookworm-backports", "trixie", "sid"])
            deb = download(env, [f"{pkg}={version}"])[0]
        out = os.path.join(srcdir, f"{pkg}-{version}{tag}")
        log(f"udmem-qemu: unpacking {' '.join(parts)} of {pkg} {version}")
        if os.path.exists(out):
            shutil.rmtree(out)
        os.makedirs(out)
        run(f"dpkg-deb --fsys-tarfile '{deb}' | tar -xO ./usr/src/{pkg}.tar.xz | "
            f"xz -dc -T2 | tar -x -C '{out}' --strip-components=1 --wildcards " +
            " ".join(f"'*/{part}/*'" for part in parts))
        open(os.path.join(out, stamp), "w").close()
        return out


def make_modules(conf, state, margs, work):
    """Run kbuild's `modules` for the out-of-tree folder WORK against the
    target's headers (in the build root where the target has one)."""
    cmd = ["make", "-C", state["kernel_src"], "M=" + work] + margs + ["-j2", "modules"]
    if conf.build_root:
        # sid's 7.x headers: their compiler and kbuild run in the build root.
        cmd = buildroot.wrap(buildroot.ensure(conf.build_root), cmd,
                             [work, os.path.join(CACHE, "kernels", conf.kernel_key)])
    return subprocess.run(cmd, capture_output=True, text=True)


def build_drivers(conf, state, margs, mods, results):
    """Build the board's drivers (engine, console, dmatest) into MODS (cached)."""
    board = BOARDS[conf.board]
    try:
        src = linux_source(state)
    except (RuntimeError, subprocess.CalledProcessError) as e:
        results.append(("not ok", "build/board-drivers", f"linux-source: {e}"[:400]))
        return
    h = hashlib.sha256(f"{RECIPE} {src} {board.ccflags} {' '.join(margs)}".encode())
    for f in board.sources + board.headers:
        with open(os.path.join(src, f), "rb") as fh:
            h.update(fh.read())
    out = os.path.join(BOARDS_CACHE, "ko", f"{state['kernel_release']}-{h.hexdigest()[:12]}")
    if not glob.glob(os.path.join(out, "*.ko")):
        work = out + ".tmp"
        if os.path.exists(work):
            shutil.rmtree(work)
        for f in board.sources + board.headers:
            os.makedirs(os.path.dirname(os.path.join(work, f)), exist_ok=True)
            shutil.copy(os.path.join(src, f), os.path.join(work, f))
        with open(os.path.join(work, "Kbuild"), "w") as f:
            if board.ccflags:
                f.write(f"ccflags-y += {board.ccflags}\n")
            f.write("".join(f"obj-m += {s[:-2]}.o\n" for s in board.sources))
        p = make_modules(conf, state, margs, work)
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


def stage(conf, stage_dir):
    """The board's /init hooks into the initramfs stage (see init.sh)."""
    board = BOARDS[conf.board]
    for name, text in (("board-preinit.sh", board.preinit),
                       ("board-poweroff.sh", board.poweroff)):
        if text:
            with open(os.path.join(stage_dir, "udmem", name), "w") as f:
                f.write(text)
