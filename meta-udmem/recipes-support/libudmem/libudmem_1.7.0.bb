# SPDX-License-Identifier: MIT
SUMMARY = "libudmem: C library for u-dma-buf buffers and uiomem regions"
DESCRIPTION = "Shared and static library, udmem.h and the UAPI headers \
linux/u-dma-buf-ioctl.h and linux/uiomem.h, built from lib/ as make deb does."
SECTION = "libs"

LICENSE = "GPL-2.0-only | MIT"
LIC_FILES_CHKSUM = "file://debian/copyright;md5=8baf62d1c7ece543772e127fe3d9a923"

require recipes-support/udmem/udmem-source.inc

S = "${UNPACKDIR}/git"

EXTRA_OEMAKE = "CC='${CC}' AR='${AR}' CFLAGS='${CFLAGS}' LDFLAGS='${LDFLAGS}' \
                PREFIX=${prefix} LIBDIR=${libdir} INCLUDEDIR=${includedir} MANDIR=${mandir}"

do_compile() {
    oe_runmake -C lib
}

do_install() {
    oe_runmake -C lib install DESTDIR=${D}
    oe_runmake install-headers DESTDIR=${D}
}

FILES:${PN}-dev += "${includedir}/linux"
