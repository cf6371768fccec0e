# SPDX-License-Identifier: MIT
SUMMARY = "udmem kernel modules: u-dma-buf, u-dma-buf-mgr and uiomem"
DESCRIPTION = "Out-of-tree modules built by module.bbclass from the repository's \
kernel/ folder with its own Kbuild (kernel/Makefile takes KERNEL_SRC, as DKMS does)."
SECTION = "kernel/modules"

LICENSE = "GPL-2.0-only"
LIC_FILES_CHKSUM = "file://../debian/copyright;md5=8baf62d1c7ece543772e127fe3d9a923"

require recipes-support/udmem/udmem-source.inc

S = "${UNPACKDIR}/git/kernel"

inherit module

# module.bbclass passes KERNEL_SRC, O= and the cross tools; kernel/Makefile
# hands them to Kbuild.  The packages are kernel-module-u-dma-buf,
# kernel-module-u-dma-buf-mgr and kernel-module-uiomem; to load them at boot:
#   KERNEL_MODULE_AUTOLOAD += "u-dma-buf u-dma-buf-mgr"
