# SPDX-License-Identifier: GPL-2.0 OR MIT
"""The QEMU command line of a target."""

from .pyroot import virtfs_args
from .qemupkg import packaged_qemu
from .rootfs import qemu_args as rootfs_qemu_args

IVSHMEM_SIZE = 4 << 20
# The slot of the second edu device, the engine of the test dmaengine provider
# (tests/kmod/udmem-edu-dma.c): the guest's /init reserves 0000:00:10.0 for it.
EDU_DMA_SLOT = 0x10


def qemu_cmd(conf, kernel, initrd, dtb, shm, append_extra="", icount=False):
    qemu = packaged_qemu(conf.qemu, conf.qemu_suite) if conf.qemu_suite else conf.qemu
    cmd = [qemu, "-M", conf.machine, "-cpu", conf.cpu,
           "-smp", str(conf.smp), "-m", str(conf.memory), "-nographic", "-no-reboot",
           "-nic", "none", "-accel", "tcg"]
    for serial in conf.serial:
        cmd += ["-serial", serial]
    if icount:
        # Guest time = instructions retired: timings repeat whatever the host load.
        cmd += ["-icount", "shift=0,sleep=off"]
    cmd += list(conf.qemu_args)
    if conf.bios:
        cmd += ["-bios", conf.bios]
    if kernel:
        if conf.initrd_addr:
            # Where make_dtb's /chosen says it is.
            cmd += ["-device", f"loader,file={initrd},addr={conf.initrd_addr},force-raw=on"]
        else:
            cmd += ["-initrd", initrd]
        cmd += ["-kernel", kernel,
                "-append", f"console={conf.console} quiet loglevel=4 log_buf_len=4M panic=-1 "
                f"{conf.cmdline} {append_extra}".strip()]
    if dtb:
        cmd += ["-dtb", dtb]
    if not conf.pci:
        return cmd
    cmd += ["-device", "edu,dma_mask=0xffffffff"]
    cmd += ["-device", f"edu,dma_mask=0xffffffff,addr={EDU_DMA_SLOT:#x}"]
    # A PCI Express root port, so that the port services' pci_express bus
    # exists for u-dma-buf's bind=pci_express/<device>.
    cmd += ["-device", "pcie-root-port,id=udmem_rp0,chassis=1,slot=1"]
    if conf.mode == "host9p":
        cmd += virtfs_args(conf)
    if conf.mode == "rootfs":
        cmd += rootfs_qemu_args(conf)
    if shm:
        cmd += ["-object", f"memory-backend-file,id=shm0,size={IVSHMEM_SIZE},"
                f"share=on,mem-path={shm}", "-device", "ivshmem-plain,memdev=shm0"]
    return cmd
