# SPDX-License-Identifier: MIT
SUMMARY = "The udmem command-line tool"
DESCRIPTION = "udmem list, info, create, sync, dump, load, save, import, export, \
bench and doctor, built from cli/ (linked with libudmem's sources) as make deb does; \
the udev rule that gives group udmem the device nodes."
SECTION = "devel"

LICENSE = "GPL-2.0-only | MIT"
LIC_FILES_CHKSUM = "file://debian/copyright;md5=8baf62d1c7ece543772e127fe3d9a923"

require recipes-support/udmem/udmem-source.inc

S = "${UNPACKDIR}/git"

inherit useradd

EXTRA_OEMAKE = "CC='${CC}' CFLAGS='${CFLAGS}' LDFLAGS='${LDFLAGS}' \
                PREFIX=${prefix} MANDIR=${mandir}"

do_compile() {
    oe_runmake -C cli
}

do_install() {
    oe_runmake -C cli install DESTDIR=${D}
    install -d ${D}${nonarch_base_libdir}/udev/rules.d
    install -m 0644 ${S}/packaging/60-udmem.rules ${D}${nonarch_base_libdir}/udev/rules.d/
}

USERADD_PACKAGES = "${PN}"
GROUPADD_PARAM:${PN} = "--system udmem"

FILES:${PN} += "${nonarch_base_libdir}/udev/rules.d/60-udmem.rules"
