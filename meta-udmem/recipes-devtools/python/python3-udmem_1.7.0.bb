# SPDX-License-Identifier: MIT
SUMMARY = "numpy arrays over u-dma-buf buffers and uiomem regions"
DESCRIPTION = "The udmem Python package from python/ (setuptools through PEP 517), \
as make deb builds it."
SECTION = "devel/python"

LICENSE = "GPL-2.0-only | MIT"
LIC_FILES_CHKSUM = "file://../debian/copyright;md5=8baf62d1c7ece543772e127fe3d9a923"

require recipes-support/udmem/udmem-source.inc

S = "${UNPACKDIR}/git/python"

inherit python_setuptools_build_meta

RDEPENDS:${PN} += "python3-ctypes python3-fcntl python3-mmap python3-numpy"
