# SPDX-License-Identifier: GPL-2.0 OR MIT
"""The target config (udmemqemu.config): every shipped target loads, and a
file with an unknown key, a bad value or a missing key is refused with the
file and line named.  One TAP line per check; exits non-zero on a failure.
"""
import dataclasses
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "qemu"))

from udmemqemu import config  # noqa: E402

GOOD = """# a minimal booted target
arch = arm64
kernel_arch = arm64
cross_compile = aarch64-linux-gnu-
deb_arch = arm64
suites = bookworm bookworm-security
flavour = arm64
busybox_suite = bookworm
qemu = qemu-system-aarch64
machine = virt
cpu = cortex-a53
console = ttyAMA0
dt = yes
ram_base = 0x40000000
"""

# (name, extra lines appended to GOOD, substring the error must contain or None)
CASES = [
    ("good", "", None),
    ("unknown-key", "colour = blue\n", "unknown key 'colour'"),
    ("bad-bool", "boot = maybe\n", "good.conf:15: boot = maybe: must be yes or no"),
    ("bad-int", "smp = two\n", "smp = two: not a decimal number"),
    ("bad-choice", "modpost = cross\n", "modpost = cross: must be one of host, target"),
    ("twice", "cpu = max\n", "cpu given twice"),
    ("not-key-value", "just words\n", "not a `key = value` line"),
    ("zero-memory", "memory = 0\n", "memory must be positive"),
    ("host9p-without-modules", "mode = host9p\n", "mode = host9p needs host_modules"),
    ("unknown-suite", "kbuild_suite = hamm\n", "suite hamm: not one of"),
    ("build-root", "build_root = sid\n", None),
    ("build-root-unknown", "build_root = trixie\n",
     "build_root = trixie: must be empty or one of sid"),
    ("programs-no-boot", "programs = no\n", "programs = no needs boot = no"),
    ("modules-only", "boot = no\nprograms = no\nseries = 6.1\n", None),
    ("debug-kernel", "debug_kernel = arm64\n", None),
    ("debug-kernel-unknown", "debug_kernel = riscv64\n",
     "debug_kernel = riscv64: must be one of x86_64, arm64"),
    ("debug-kernel-other-arch", "debug_kernel = x86_64\n",
     "debug_kernel = x86_64: not the target's arch (arm64)"),
    ("qemu-suite", "qemu_suite = bookworm-backports\n", None),
    ("qemu-suite-unknown", "qemu_suite = hamm\n", "qemu_suite = hamm: not one of"),
    ("initrd-addr", "initrd_addr = 0x48200000\n", None),
    ("initrd-addr-not-hex", "initrd_addr = 512M\n", "initrd_addr = '512M': needs dt = yes"),
]


def check(results, name, ok, why=""):
    results.append(ok)
    print(f"ok - harness/config-{name}" if ok else f"not ok - harness/config-{name} # {why}")


def error_of(directory, name):
    try:
        config.parse_target(name, directory)
    except config.TargetError as e:
        return str(e)
    return None


def main():
    results = []
    for name in config.target_names():
        err = error_of(config.TARGETS_DIR, name)
        check(results, f"loads-{name}", err is None, err)
    undocumented = [f.name for f in dataclasses.fields(config.Target)
                    if not f.metadata.get("doc")]
    check(results, "every-key-documented", not undocumented, " ".join(undocumented))
    with tempfile.TemporaryDirectory() as d:
        for name, extra, want in CASES:
            with open(os.path.join(d, "good.conf"), "w") as f:
                f.write(GOOD + extra)
            err = error_of(d, "good")
            ok = err is None if want is None else (err is not None and want in err)
            check(results, f"rejects-{name}" if want else name, ok,
                  f"want {want!r}, got {err!r}")
        with open(os.path.join(d, "good.conf"), "w") as f:
            f.write(GOOD)
        with open(os.path.join(d, "variant.conf"), "w") as f:
            f.write("base = good\nsmp = 4\ncmdline = cma=64M\n")
        t = config.parse_target("variant", d)
        check(results, "base-inherits", (t.arch, t.suites, t.smp, t.cmdline, t.kernel_key) ==
              ("arm64", ("bookworm", "bookworm-security"), 4, "cma=64M", "good"), repr(t))
        with open(os.path.join(d, "newer.conf"), "w") as f:
            f.write("base = variant\nsuites = bookworm-backports\n")
        t = config.parse_target("newer", d)
        check(results, "other-kernel-own-cache", (t.smp, t.kernel_key) == (4, "newer"), repr(t))
        with open(os.path.join(d, "newer.conf"), "w") as f:
            f.write("base = variant\nsuites = trixie\n")
        err = error_of(d, "newer")
        check(results, "rejects-suite-without-arch", err is not None and
              "for riscv64 only, not arm64" in err, repr(err))
        with open(os.path.join(d, "good.conf"), "a") as f:
            f.write("base = variant\n")
        err = error_of(d, "variant")
        check(results, "rejects-base-loop", err is not None and "loops" in err, repr(err))
        with open(os.path.join(d, "good.conf"), "w") as f:
            f.write(GOOD.replace("cpu = cortex-a53\n", ""))
        err = error_of(d, "good")
        check(results, "rejects-missing-key", err is not None and "missing cpu" in err, repr(err))
    # `default_run = no` keeps a target out of the default `udmem-qemu test` only.
    off = [n for n in config.target_names() if not config.parse_target(n).default_run]
    default = config.all_targets()
    check(results, "default-run-no-left-out", not set(off) & set(default) and
          set(off) | set(default) == set(config.target_names()), f"{off} {default}")
    try:
        dataclasses.replace(config.parse_target("arm64"), smp=0)
        check(results, "validates-replace", False, "smp=0 accepted")
    except config.TargetError:
        check(results, "validates-replace", True)
    try:
        dataclasses.replace(config.parse_target("riscv64-7"), dt=False)
        check(results, "rejects-initrd-addr-without-dt", False, "accepted")
    except config.TargetError as e:
        check(results, "rejects-initrd-addr-without-dt", "needs dt = yes" in str(e), str(e))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
