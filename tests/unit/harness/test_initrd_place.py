# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Where the initramfs goes: a target with `initrd_addr` has QEMU's loader put
it there and its device tree's /chosen name it (checked by compiling the
fragment and reading it back with fdtget); any other target keeps -initrd.
A `qemu_suite` target runs the packaged QEMU's wrapper.  One TAP line per
check; exits non-zero on a failure."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "qemu"))

from udmemqemu import config, image, qemu  # noqa: E402

results = []


def check(name, ok, why=""):
    results.append(ok)
    print(f"ok - harness/{name}" if ok else f"not ok - harness/{name} # {why}")


def cmd_of(target):
    conf = config.parse_target(target)
    return conf, qemu.qemu_cmd(conf, "/k/vmlinuz", "/k/initrd.gz", "/k/test.dtb", None)


def main():
    # No download here: the packaged QEMU's path is stood in for.
    asked = []
    qemu.packaged_qemu = lambda binary, suite: asked.append((binary, suite)) or "/cache/q"
    conf, cmd = cmd_of("riscv64-7")
    loader = f"loader,file=/k/initrd.gz,addr={conf.initrd_addr},force-raw=on"
    check("initrd-addr-uses-loader", loader in cmd and "-initrd" not in cmd, " ".join(cmd))
    check("qemu-suite-runs-packaged", cmd[0] == "/cache/q" and
          asked == [("qemu-system-riscv64", "bookworm-backports")], f"{cmd[0]} {asked}")
    _, cmd = cmd_of("riscv64")
    check("default-keeps-initrd", cmd[cmd.index("-initrd") + 1] == "/k/initrd.gz" and
          not any(a.startswith("loader,") for a in cmd) and cmd[0] == "qemu-system-riscv64",
          " ".join(cmd))
    _, cmd = cmd_of("icicle")
    check("board-keeps-host-qemu", cmd[0] == "qemu-system-riscv64" and "-initrd" in cmd,
          " ".join(cmd))
    with tempfile.TemporaryDirectory() as d:
        dts = os.path.join(d, "t.dts")
        dtb = os.path.join(d, "t.dtb")
        with open(dts, "w") as f:
            f.write("/dts-v1/;\n/ {\n\tchosen { bootargs = \"x\"; };\n};\n" +
                    image.initrd_chosen(0x1_8820_0000, 0x1234567))
        subprocess.run(["dtc", "-q", "-I", "dts", "-O", "dtb", "-o", dtb, dts], check=True)

        def get(prop):
            return subprocess.run(["fdtget", "-t", "x", dtb, "/chosen", prop],
                                  capture_output=True, text=True).stdout.split()
        check("chosen-initrd-start", get("linux,initrd-start") == ["1", "88200000"],
              get("linux,initrd-start"))
        check("chosen-initrd-end", get("linux,initrd-end") == ["1", "89434567"],
              get("linux,initrd-end"))
        check("chosen-keeps-bootargs", subprocess.run(
            ["fdtget", dtb, "/chosen", "bootargs"], capture_output=True,
            text=True).stdout.strip() == "x")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
