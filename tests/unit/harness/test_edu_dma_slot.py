# SPDX-License-Identifier: GPL-2.0 OR MIT
"""The second edu device, the engine of the test dmaengine provider
(tests/kmod/udmem-edu-dma.c): every target with PCI gets it in the slot
qemu.EDU_DMA_SLOT, after the edu device the other suites use (which keeps
the lower address, the first one the suites find); the guest's /init
reserves that same slot for the provider; a board without PCI gets neither.
One TAP line per check; exits non-zero on a failure."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "qemu"))

from udmemqemu import config, qemu  # noqa: E402

results = []


def check(name, ok, why=""):
    results.append(ok)
    print(f"ok - harness/{name}" if ok else f"not ok - harness/{name} # {why}")


def edu_devices(target):
    conf = config.parse_target(target)
    cmd = qemu.qemu_cmd(conf, "/k/vmlinuz", "/k/initrd.gz", "/k/test.dtb", None)
    return [cmd[i + 1] for i, a in enumerate(cmd[:-1])
            if a == "-device" and cmd[i + 1].split(",")[0] == "edu"]


def main():
    slot = f"addr={qemu.EDU_DMA_SLOT:#x}"
    for target in ("x86_64", "arm64", "x86_64-iommu", "arm64-iommu", "riscv64", "armhf"):
        edus = edu_devices(target)
        check(f"{target}-two-edu-devices", len(edus) == 2 and
              not any("addr=" in e for e in edus[:1]) and slot in edus[1].split(","),
              " ".join(edus))
    check("board-no-edu-device", edu_devices("zcu102") == [], " ".join(edu_devices("zcu102")))
    with open(os.path.join(HERE, "..", "..", "qemu", "udmemqemu", "init.sh")) as f:
        init = f.read()
    pci = f"/sys/bus/pci/devices/0000:00:{qemu.EDU_DMA_SLOT:02x}.0"
    check("init-reserves-the-slot", f"d={pci}\n" in init and
          "echo udmem-edu-dma > $d/driver_override" in init, pci)
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
