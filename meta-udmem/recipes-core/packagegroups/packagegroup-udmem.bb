# SPDX-License-Identifier: MIT
SUMMARY = "udmem: the kernel modules, libudmem, the udmem tool and the Python package"
DESCRIPTION = "Everything of udmem an image needs: IMAGE_INSTALL:append = \" packagegroup-udmem\""
LICENSE = "MIT"

# The kernel modules are built for the machine's kernel.
PACKAGE_ARCH = "${MACHINE_ARCH}"

inherit packagegroup

RDEPENDS:${PN} = "\
    libudmem \
    python3-udmem \
    udmem-mod \
    udmem-tools \
"
