# SPDX-License-Identifier: GPL-2.0 OR MIT
"""When the harness builds IIO's DMA buffer from linux-source (kmods_src.py).

Only for a booted target that runs the iio suite, whose kernel has the IIO
core with buffers and its DMABUF interface (Module.symvers exports
iio_buffer_signal_dmabuf_done) but not CONFIG_IIO_BUFFER_DMAENGINE; never
where the kernel has the buffer, or lacks what it needs.  The test modules'
make arguments then define CONFIG_IIO_BUFFER_DMAENGINE; otherwise build_iio
adds nothing and builds nothing.
"""
import dataclasses
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "qemu"))

from tap import Tap  # noqa: E402
from udmemqemu import config, kmods_src  # noqa: E402

# Debian amd64 6.12: the core, its buffers, no DMA buffer.
DEB_612 = ("CONFIG_IIO=m\nCONFIG_IIO_BUFFER=y\n# CONFIG_IIO_BUFFER_DMA is not set\n"
           "# CONFIG_IIO_BUFFER_DMAENGINE is not set\nCONFIG_DMA_ENGINE=y\n")
SYMVERS_612 = ("0xf617736b\tiio_buffer_init\tdrivers/iio/industrialio\tEXPORT_SYMBOL\t\n"
               "0x12345678\tiio_buffer_signal_dmabuf_done\tdrivers/iio/industrialio\t"
               "EXPORT_SYMBOL_GPL\t\n")


def kernel(d, dotconfig, symvers):
    """A kernel's headers folder in D with that .config and Module.symvers."""
    with open(os.path.join(d, ".config"), "w") as f:
        f.write(dotconfig)
    with open(os.path.join(d, "Module.symvers"), "w") as f:
        f.write(symvers)
    return {"kernel_src": d, "kernel_release": "6.12.95+deb12-amd64"}


def main():
    tap = Tap()
    check = tap.check
    x86 = config.parse_target("x86_64-6.12")
    with tempfile.TemporaryDirectory() as d:
        state = kernel(d, DEB_612, SYMVERS_612)
        why = kmods_src.iio_needed(x86, state)
        check("needed-on-debian-6.12", why == "CONFIG_IIO_BUFFER_DMAENGINE is not set", why)
        for name, conf in (
                ("not-on-build-only", dataclasses.replace(x86, boot=False)),
                ("not-without-iio-suite", dataclasses.replace(x86, guest_suites=("uiomem",)))):
            check(name, kmods_src.iio_needed(conf, state) is None, name)
        check("all-suites-is-iio-too", kmods_src.iio_needed(
            dataclasses.replace(x86, guest_suites=()), state) is not None, "None")

        for name, dotconfig, symvers in (
                ("not-where-kernel-has-it",
                 DEB_612.replace("# CONFIG_IIO_BUFFER_DMAENGINE is not set",
                                 "CONFIG_IIO_BUFFER_DMAENGINE=m"), SYMVERS_612),
                ("not-without-iio", DEB_612.replace("CONFIG_IIO=m", "# CONFIG_IIO is not set"),
                 SYMVERS_612),
                ("not-without-buffers", DEB_612.replace("CONFIG_IIO_BUFFER=y\n", ""),
                 SYMVERS_612),
                ("not-without-dmaengine", DEB_612.replace("CONFIG_DMA_ENGINE=y", ""),
                 SYMVERS_612),
                # 6.1: the core has no DMABUF interface
                ("not-without-dmabuf-core", DEB_612,
                 SYMVERS_612.splitlines(True)[0])):
            with tempfile.TemporaryDirectory() as k:
                st = kernel(k, dotconfig, symvers)
                why = kmods_src.iio_needed(x86, st)
                check(name, why is None, str(why))
                results = []
                got = kmods_src.build_iio(x86, st, [], k, results)
                check(name + "-builds-nothing", got == ([], []) and results == [],
                      f"{got} {results}")
    return tap.status()


if __name__ == "__main__":
    sys.exit(main())
