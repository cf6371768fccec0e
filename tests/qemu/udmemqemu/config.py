# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Where things live, and the targets (tests/qemu/targets/*.conf).

A target file is `key = value` lines; `#` starts a comment line.  `base = NAME`
takes every key of targets/NAME.conf first, so a variant is a few lines.
Every key, its type and its default is a field of `Target` below: that is the
one place they are documented.  Unknown keys and bad values are errors that
name the file and line.
"""

import dataclasses
import glob
import os
import re
import sys
from typing import Any

TOP = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
QEMU_DIR = os.path.join(TOP, "tests", "qemu")
TARGETS_DIR = os.path.join(QEMU_DIR, "targets")
CACHE = os.environ.get("UDMEM_CACHE") or os.path.join(
    os.path.expanduser("~"), ".cache", "udmem")
BUILD = os.path.join(TOP, "build")

MIRROR = "http://deb.debian.org/debian"
SECURITY = "http://deb.debian.org/debian-security"
# The Debian suites the private apt reads: suite -> (archive, architectures).
# A target may name only these.  Security lines are restricted to the
# architectures whose index the mirror serves whole (armhf and riscv64
# arrived truncated for bookworm-security; bullseye-security has no armhf).
ARCHIVE = {
    "bookworm": (MIRROR, ()),
    "bookworm-backports": (MIRROR, ()),
    "bookworm-security": (SECURITY, ("amd64", "arm64")),
    "trixie": (MIRROR, ("riscv64",)),
    "trixie-security": (SECURITY, ("riscv64",)),
    "bullseye": (MIRROR, ("amd64", "arm64", "armhf")),
    "bullseye-security": (SECURITY, ("amd64", "arm64")),
    "sid": (MIRROR, ("amd64", "arm64", "riscv64")),
}


# The suites buildroot.py can make a build root of (its PACKAGES).
BUILD_ROOTS = ("sid",)

# The architectures tests/qemu/debug/build-kernel builds a debug kernel for.
DEBUG_ARCHES = ("x86_64", "arm64")


class TargetError(ValueError):
    """A target file that cannot be used as written."""


def _key(doc: str, default: Any = dataclasses.MISSING, choices: tuple[str, ...] = ()) -> Any:
    """A target key: its documentation, default and (for strings) allowed values."""
    meta: dict[str, Any] = {"doc": doc}
    if choices:
        meta["choices"] = choices
    if default is dataclasses.MISSING:
        return dataclasses.field(metadata=meta)
    return dataclasses.field(default=default, metadata=meta)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Target:
    """One kernel on one machine: what to fetch, how to build, how to boot.

    Types: str, int (decimal), bool (`yes` or `no`), words (a space-separated
    list, held as a tuple).  Keys without a default are required.
    """

    name: str = _key("The file's name without .conf (not a key: set by the loader).")
    kernel_key: str = _key("Folder of the downloaded kernel in $UDMEM_CACHE/kernels: the "
                           "name of the nearest target in the `base` chain that sets a key "
                           "choosing the kernel (not a key: set by the loader).", "")
    # ---- the guest and its kernel
    arch: str = _key("udmem's name for the architecture; the guest sees it as "
                     "UDMEM_ARCH and the .dtsi files as UDMEM_ARCH_<arch>.",
                     choices=("x86_64", "arm64", "armhf", "riscv64"))
    kernel_arch: str = _key("The kernel's ARCH= for kbuild.",
                            choices=("x86", "arm64", "arm", "riscv"))
    cross_compile: str = _key("CROSS_COMPILE= prefix of the host cross tools "
                              "(empty for the host's own architecture).", "")
    deb_arch: str = _key("Debian architecture of the kernel packages and busybox.",
                         choices=("amd64", "arm64", "armhf", "riscv64"))
    suites: tuple[str, ...] = _key(
        "Debian suites (words) searched for the newest linux-image-<flavour>; "
        "each must be in ARCHIVE above.")
    flavour: str = _key("Debian kernel flavour: linux-image-<abi>-<flavour>.")
    series: str = _key("Kernel series of a versioned metapackage: the newest "
                       "linux-image-<series>-<flavour> instead of linux-image-<flavour> "
                       "(bullseye-security's 6.1 backport, `6.1`).", "")
    busybox_suite: str = _key("Debian suite whose busybox-static is the guest's user space.")
    kbuild_suite: tuple[str, ...] = _key(
        "Suites (words) to take linux-kbuild from instead of the kernel's own, when "
        "the kernel's kbuild cannot run on the host (same series, e.g. trixie "
        "riscv64 headers with bookworm-backports' kbuild).", ())
    modpost: str = _key("`host`: the kbuild's amd64 modpost; `target`: the target "
                        "architecture's modpost under qemu-user (Debian's amd64 modpost "
                        "mis-sizes 32-bit device tables).", "host", ("host", "target"))
    kmake: tuple[str, ...] = _key("Extra make arguments (words) for every module build.", ())
    build_root: str = _key(
        "Debian suite of a build root that mmdebstrap makes from the archive (cached "
        "in $UDMEM_CACHE/buildroot, see buildroot.py) in which the modules are built, "
        "for headers whose compiler or kbuild programs cannot run on the host (sid's "
        "7.x: gcc-16, glibc >= 2.38); empty: build on the host.  The guest programs "
        "are still built by the host's compilers.", "")
    compat_cc: str = _key("Compiler for 32-bit programs on a 64-bit kernel (compat "
                          "ioctls); empty for none.", "")
    # ---- QEMU
    qemu: str = _key("QEMU system emulator.")
    qemu_suite: str = _key(
        "Debian suite whose QEMU runs this target instead of the host's (unpacked "
        "into $UDMEM_CACHE/qemu by tests/qemu/udmemqemu/qemupkg.py): for what "
        "bookworm's 7.2 lacks, e.g. riscv64's Zicbom.  Empty: the host's QEMU.", "")
    initrd_addr: str = _key(
        "Physical address (hex) at which the harness loads the initramfs itself "
        "and names it in the device tree's /chosen, instead of where QEMU puts it "
        "(QEMU 10's riscv64 places it 512 MiB into RAM, inside the test pools).  "
        "Needs dt = yes; empty: QEMU's -initrd.", "")
    machine: str = _key("-M value.")
    cpu: str = _key("-cpu value.")
    smp: int = _key("-smp value (virtual CPUs).", 2)
    memory: int = _key("-m value in MiB.", 1024)
    console: str = _key("Serial console device for console=.")
    bios: str = _key("-bios value; empty for QEMU's default.", "")
    qemu_args: tuple[str, ...] = _key(
        "Extra QEMU arguments (words), placed before the harness's devices: e.g. "
        "an IOMMU, which QEMU wants before the PCI devices it translates.", ())
    cmdline: str = _key("Extra kernel command line.", "")
    pci: bool = _key("The machine has PCI: the harness adds QEMU's edu device, a PCIe "
                     "root port and ivshmem (with its host peer).  `no` for the "
                     "boards (zcu102 ...), which have none.", True)
    serial: tuple[str, ...] = _key(
        "-serial values (words) in order; empty: -nographic's one serial on stdio.  "
        "A board whose console is its second UART gives `null mon:stdio`.", ())
    noncoherent_dma: bool = _key(
        "The guest kernel does non-coherent DMA: the device-tree nodes with "
        "`dma-noncoherent` (cpp -DUDMEM_NONCOHERENT_DMA) and their tests exist.  "
        "`no` on riscv64 harts without Zicbom (QEMU 7.2), where the kernel warns "
        "on such a node and cannot maintain it.", True)
    dt: bool = _key("The machine has a device tree: the harness dumps QEMU's and adds "
                    "tests/qemu/dt/*.dtsi.", False)
    ram_base: str = _key("Physical address of RAM (hex), passed to the .dtsi files as "
                         "RAM_BASE; required when dt = yes.", "")
    board: str = _key(
        "A SoC board of tests/qemu/udmemqemu/boards.py (empty: none).  Its device "
        "tree is the kernel's own `board_dtb` with the board's scripted edits (not "
        "QEMU's dump), the DMA-engine drivers Debian lacks are built from Debian's "
        "linux-source, and the .dtsi files see UDMEM_BOARD_<board>.", "",
        ("", "zcu102", "zynq7000", "icicle"))
    board_dtb: str = _key("The DTB a board's device tree starts from, relative to the "
                          "kernel package's /usr/lib/linux-image-<release>/ (e.g. "
                          "xilinx/zynqmp-zcu102-rev1.0.dtb); required with `board`.", "")
    # ---- what runs
    boot: bool = _key("`no`: build-only target (the modules and programs must build "
                      "warning-free; nothing boots, and neither the kernel image nor "
                      "busybox is downloaded).", True)
    programs: bool = _key("`no`: build only the modules, not the guest programs (which "
                          "do not depend on the kernel): a build-only target that checks "
                          "one more headers package.", True)
    mode: str = _key("`initramfs`: busybox guest with the udmem suites; `host9p`: the "
                     "guest's root is the host's file system over 9p and only suites "
                     "holding a `host9p` file run; `rootfs`: a Debian root file system "
                     "made by mmdebstrap from `suites` boots with its own kernel and "
                     "systemd (tests/qemu/udmemqemu/rootfs.py), `make deb` runs first, "
                     "and only suites holding a `rootfs` file run.", "initramfs",
                     ("initramfs", "host9p", "rootfs"))
    python_root: bool = _key(
        "`yes`: the root of `host_root = debian` (the target architecture's Debian "
        "python3 and numpy, pyroot.py) is packed into the initramfs as /host, with the "
        "Python package at /udmem/python: for boards, whose QEMU machines have no 9p.  "
        "The board-python suite runs there.", False)
    host_root: str = _key(
        "For mode = host9p, the root the guest gets over 9p: `host`, the host's own / "
        "(amd64 only); `debian`, the target architecture's Debian python3, python3-numpy, "
        "python3-pytest, kmod, coreutils, dash, python3-venv and -pip with their "
        "dependencies, unpacked by `mmdebstrap --variant=extract` from the first of "
        "`suites` (tests/qemu/udmemqemu/pyroot.py, cached in $UDMEM_CACHE/pyroot), with "
        "the repository shared as /udmem-top.", "host", ("host", "debian"))
    host_modules: tuple[str, ...] = _key(
        "Distribution modules (words) loaded in this order before mounting the host "
        "over 9p; required when mode = host9p.", ())
    guest_kmods: tuple[str, ...] = _key(
        "Distribution modules (words) copied into the guest for suites to load "
        "(absent ones are skipped by the suites).",
        ("brd", "drm", "drm_kms_helper", "drm_shmem_helper", "vgem", "mc", "videodev",
         "rc-core", "cec", "v4l2-dv-timings", "v4l2-tpg", "videobuf2-common",
         "videobuf2-v4l2", "videobuf2-memops", "videobuf2-dma-contig", "videobuf2-vmalloc",
         "vivid", "uio_pci_generic",
         # the IIO and USB importers of exports: IIO's DMA buffer (DMABUF API
         # since 6.11), dummy_hcd + libcomposite + FunctionFS (DMABUF since 6.9)
         "industrialio", "industrialio-buffer-dma", "industrialio-buffer-dmaengine",
         "dummy_hcd", "libcomposite", "usb_f_fs",
         # the kernel's DMA test client, run by edu-dma on the test provider
         "dmatest"))
    guest_debs: tuple[str, ...] = _key(
        "Debian packages (words) of the target's architecture, from `busybox_suite`, "
        "whose programs suites run: their /usr/bin and /usr/sbin programs and the C "
        "library's loader and libc.so.6 go to /udmem/debs/ in the guest (run as "
        "/udmem/debs/run PROGRAM ARGS...).  The packages must need nothing but libc6.", ())
    guest_suites: tuple[str, ...] = _key(
        "The suites (words) this target runs; empty: every suite.  Each other suite "
        "is one counted SKIP naming this key and `suites_elsewhere` (a board target "
        "runs what the board adds, the generic target of its kernel runs the rest).", ())
    suites_elsewhere: str = _key(
        "Which target runs the suites that `guest_suites` leaves out, for their SKIP "
        "lines.", "the generic target of its kernel runs it")
    timeout: int = _key("Seconds before a guest counts as hung.", 1200)
    base: str = _key("Target whose keys this one starts from; the two share the "
                     "downloaded kernel.", "")
    # ---- a kernel built here instead of Debian's package
    debug_kernel: str = _key(
        "Architecture (x86_64 or arm64, the target's `arch`) of a debug kernel that "
        "tests/qemu/debug/build-kernel builds from Debian's linux-source-6.1 (KASAN, "
        "lockdep, DMA-API debug, kmemleak, fault injection; cached by its stamp in "
        "$UDMEM_CACHE/debug).  Its bzImage/Image is booted, its build tree is "
        "KERNEL_SRC and its modules are the guest_kmods; the Debian fetch still gives "
        "busybox.  Empty: Debian's packaged kernel.", "")
    debug_flavour: str = _key(
        "Flavour of the `debug_kernel` (build-kernel -f): kasan (KASAN, the default) or "
        "kcsan (the KCSAN data-race detector instead of KASAN; the rest alike).",
        "kasan", choices=("kasan", "kcsan"))
    coverage: int = _key(
        "Percent: build the project's modules (kernel/) with gcov profiling (the kernel "
        "needs CONFIG_GCOV_KERNEL: the debug kernels have it), bring the guest's counts "
        "back after the suites and print line and branch coverage of kernel/ "
        "(tests/qemu/udmemqemu/coverage.py); the run fails when line coverage is below "
        "this figure.  0: no coverage.", 0)
    default_run: bool = _key("`no`: `udmem-qemu test` (and `make test`) runs the target "
                             "only when --targets (TARGETS=) names it.", True)

    def __post_init__(self):
        for suite in self.suites + self.kbuild_suite + (self.busybox_suite,):
            if suite not in ARCHIVE:
                raise TargetError(f"suite {suite}: not one of {', '.join(ARCHIVE)}")
        for suite in self.suites:
            archs = ARCHIVE[suite][1]
            if archs and self.deb_arch not in archs:
                raise TargetError(f"suite {suite} is read for {', '.join(archs)} only, "
                                  f"not {self.deb_arch}")
        for f in dataclasses.fields(self):
            choices = f.metadata.get("choices")
            value = getattr(self, f.name)
            if choices and value not in choices:
                raise TargetError(f"{f.name} = {value}: must be one of {', '.join(choices)}")
        def hex_addr(value):
            return re.fullmatch(r"0x[0-9a-fA-F]+", value)
        if self.dt and not hex_addr(self.ram_base):
            raise TargetError(f"ram_base = {self.ram_base!r}: dt = yes needs a hex address")
        if self.qemu_suite and self.qemu_suite not in ARCHIVE:
            raise TargetError(f"qemu_suite = {self.qemu_suite}: not one of {', '.join(ARCHIVE)}")
        if self.initrd_addr and (not self.dt or
                                 not hex_addr(self.initrd_addr)):
            raise TargetError(f"initrd_addr = {self.initrd_addr!r}: needs dt = yes and "
                              "a hex address")
        if self.board and (not self.dt or not self.board_dtb):
            raise TargetError(f"board = {self.board} needs dt = yes and board_dtb")
        if not self.programs and self.boot:
            raise TargetError("programs = no needs boot = no (the guest runs the programs)")
        if self.mode == "host9p" and not self.host_modules:
            raise TargetError("mode = host9p needs host_modules")
        if self.mode == "host9p" and self.host_root == "host" and self.deb_arch != "amd64":
            raise TargetError("host_root = host runs the host's amd64 programs: a "
                              f"{self.deb_arch} guest needs host_root = debian")
        if self.debug_kernel:
            if self.debug_kernel not in DEBUG_ARCHES:
                raise TargetError(f"debug_kernel = {self.debug_kernel}: must be one of "
                                  f"{', '.join(DEBUG_ARCHES)}")
            if self.debug_kernel != self.arch:
                raise TargetError(f"debug_kernel = {self.debug_kernel}: not the target's "
                                  f"arch ({self.arch})")
        if self.build_root and self.build_root not in BUILD_ROOTS:
            raise TargetError(f"build_root = {self.build_root}: must be empty or one of "
                              f"{', '.join(BUILD_ROOTS)}")
        for key in ("smp", "memory", "timeout"):
            if getattr(self, key) <= 0:
                raise TargetError(f"{key} must be positive")


KEYS = {f.name: f for f in dataclasses.fields(Target) if f.name not in ("name", "kernel_key")}
# Keys that choose which kernel packages are fetched and how they are unpacked.
KERNEL_KEYS = ("deb_arch", "suites", "flavour", "series", "busybox_suite", "kbuild_suite",
               "modpost", "boot")


def _convert(field: dataclasses.Field[Any], value: str) -> Any:
    """A conf-file string as the field's type."""
    if field.type is bool:
        if value not in ("yes", "no"):
            raise TargetError(f"{field.name} = {value}: must be yes or no")
        return value == "yes"
    if field.type is int:
        try:
            return int(value, 10)
        except ValueError:
            raise TargetError(f"{field.name} = {value}: not a decimal number") from None
    if field.type == tuple[str, ...]:
        return tuple(value.split())
    return value


def read_conf(path: str) -> dict[str, Any]:
    """The raw `key = value` pairs of one file, checked against the known keys."""
    pairs = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            key, eq, value = line.partition("=")
            key, value = key.strip(), value.strip()
            where = f"{os.path.basename(path)}:{n}"
            if not eq:
                raise TargetError(f"{where}: not a `key = value` line: {line}")
            if key not in KEYS:
                raise TargetError(f"{where}: unknown key {key!r} "
                                  f"(keys: {', '.join(sorted(KEYS))})")
            if key in pairs:
                raise TargetError(f"{where}: {key} given twice")
            try:
                pairs[key] = _convert(KEYS[key], value)
            except TargetError as e:
                raise TargetError(f"{where}: {e}") from None
    return pairs


def target_names(directory: str = TARGETS_DIR) -> list[str]:
    return sorted(os.path.basename(p)[:-5] for p in
                  glob.glob(os.path.join(directory, "*.conf")))


def _pairs(name: str, directory: str, seen: list[str]) -> dict[str, Any]:
    path = os.path.join(directory, name + ".conf")
    if not os.path.exists(path):
        raise TargetError(f"unknown target '{name}' "
                          f"(have: {', '.join(target_names(directory))})")
    if name in seen:
        raise TargetError(f"{name}.conf: `base` loops through {' -> '.join(seen + [name])}")
    pairs = read_conf(path)
    own_kernel = "base" not in pairs or any(k in pairs for k in KERNEL_KEYS)
    if "base" in pairs:
        merged = _pairs(pairs["base"], directory, seen + [name])
        merged.update(pairs)
        pairs = merged
    if own_kernel:
        pairs["kernel_key"] = name
    return pairs


def parse_target(name: str, directory: str = TARGETS_DIR) -> Target:
    """The Target of DIRECTORY/NAME.conf, after its `base` chain; TargetError if unusable."""
    pairs = _pairs(name, directory, [])
    missing = [k for k, f in KEYS.items() if k not in pairs and
               f.default is dataclasses.MISSING]
    if missing:
        raise TargetError(f"{name}.conf: missing {', '.join(missing)}")
    try:
        return Target(name=name, **pairs)
    except TargetError as e:
        raise TargetError(f"{name}.conf: {e}") from None


def load_target(name):
    """Target NAME, or exit with the reason it cannot be used."""
    try:
        return parse_target(name)
    except TargetError as e:
        sys.exit(f"udmem-qemu: {e}")


def all_targets() -> list[str]:
    """The targets `udmem-qemu test` runs by default: every target file, in this
    order, but those with `default_run = no`.  A target that does not load stays
    in, so that its error shows.  Longest first (their last CI times), so that
    the two targets booted at once finish together rather than one long run
    at the end; the short build-only and board targets fill in last."""
    # The debug targets lead: on a cold cache their kernels build first
    # (10 min of CPU each), and their runs are the longest.
    order = ["arm64-debug", "x86_64-debug", "x86_64-rootfs", "arm64", "armhf", "riscv64", "x86_64",
             "arm64-iommu", "armhf-5.10", "armhf-python", "arm64-python", "arm64-6.12-python",
             "arm64-6.12", "riscv64-7", "arm64-7", "arm64-5.10", "x86_64-python", "x86_64-iommu",
             "x86_64-6.12", "x86_64-7", "x86_64-5.10", "armhf-6.12"]
    have = target_names()
    names = [t for t in order if t in have] + [t for t in have if t not in order]
    return [t for t in names if _default_run(t)]


def _default_run(name: str) -> bool:
    try:
        return bool(parse_target(name).default_run)
    except TargetError:
        return True


def describe_keys():
    """Every key with its type, default and documentation (for the docs)."""
    out = []
    for k, f in KEYS.items():
        kind = {"bool": "yes/no", "int": "int", "str": "text"}.get(
            getattr(f.type, "__name__", str(f.type)), "words")
        if f.default is dataclasses.MISSING:
            dflt = "required"
        elif isinstance(f.default, bool):
            dflt = "default " + ("yes" if f.default else "no")
        elif isinstance(f.default, tuple):
            dflt = "default " + (" ".join(f.default) or "empty")
        else:
            dflt = f"default {f.default}" if f.default != "" else "default empty"
        choices = f.metadata.get("choices")
        if choices:
            kind = "|".join(choices)
        out.append(f"{k} ({kind}, {dflt}): {f.metadata['doc']}")
    return out


if __name__ == "__main__":
    # python3 -m udmemqemu.config (from tests/qemu): the keys, for the docs.
    print("\n".join(describe_keys()))
