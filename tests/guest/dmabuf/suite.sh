# SPDX-License-Identifier: GPL-2.0 OR MIT
# dmabuf: u-dma-buf's DMA-BUF exports with importers in the kernel: the test
# importer (tests/kmod/udmem-dmabuf-importer.ko) attached to a platform
# device, to the edu PCI device (behind the SMMU on arm64-iommu) and, on
# device-tree targets, to a non-coherent device.
# Sourced by busybox sh after lib.sh.

db_edu_path=$(udmem_pci_dev 0x1234 0x11e8)
db_edu=${db_edu_path##*/}
db_cls=/sys/class/u-dma-buf

# db_parent BUF: bus/name of the device the buffer hangs under
db_parent() {
	_d=$(readlink -f "$db_cls/$1/device")
	_b=$(readlink "$_d/subsystem")
	echo "${_b##*/}/${_d##*/}"
}

# db_importer TAG BUF ATTACH DIRECT EDU_DST: the importer program
db_importer() {
	udmem_run UDMEM_SUITE="$UDMEM_SUITE/$1" UDMABUF_DEV="$2" DMABUF_ATTACH="$3" \
		DMABUF_DIRECT="$4" DMABUF_EDU_DST="$5" dmabuf-importer
}

db_unload() {
	for m in u_dma_buf udmem_dmabuf_importer udmem_edu_test; do
		grep -q "^$m " /proc/modules && rmmod $m
	done
}

if [ -z "$db_edu" ]; then
	tap_fail setup "no edu PCI device (1234:11e8) in this guest"
elif ! udmem_insmod udmem-edu-test; then
	tap_fail setup "insmod udmem-edu-test failed"
elif ! udmem_insmod udmem-dmabuf-importer; then
	tap_fail setup "insmod udmem-dmabuf-importer failed"
	db_unload
elif ! udmem_insmod u-dma-buf info_enable=0 udmabuf0=0x10000 udmabuf1=0x10000 \
		udmabuf1_bind="pci/$db_edu" udmabuf2=0x10000 udmabuf2_bind="pci/$db_edu"; then
	tap_fail setup "insmod u-dma-buf failed"
	db_unload
else
	tap_ok setup
	if [ -e "$db_edu_path/iommu_group" ]; then
		db_direct=0
	else
		db_direct=1
	fi
	db_plat=$(db_parent udmabuf0)
	tap_eq platform-parent platform/u-dma-buf.0 "$db_plat"
	# The platform device's address reaches the edu device only without an IOMMU.
	if [ $db_direct = 1 ]; then
		db_importer platform udmabuf0 "$db_plat" 1 udmabuf2
	else
		db_importer platform udmabuf0 "$db_plat" 1 ""
	fi
	db_importer edu udmabuf0 "pci/$db_edu" $db_direct udmabuf2
	db_importer edu-bound udmabuf1 "pci/$db_edu" $db_direct udmabuf2
	if [ "$UDMEM_HAS_DT" != 1 ]; then
		tap_skip dt-noncoherent "no device tree on $UDMEM_ARCH"
	elif [ "$UDMEM_ARCH" = riscv64 ]; then
		tap_skip dt-noncoherent "the riscv64 virt kernel has no non-coherent DMA support"
	elif [ ! -e "$db_cls/udmabuf-dt-noncoherent" ]; then
		tap_fail dt-noncoherent "udmabuf-dt-noncoherent missing (tests/qemu/dt/10-u-dma-buf.dtsi)"
	else
		db_nc=$(db_parent udmabuf-dt-noncoherent)
		udmem_run UDMEM_SUITE="$UDMEM_SUITE/dt-noncoherent" UDMABUF_DEV=udmabuf-dt-noncoherent \
			DMABUF_ATTACH="$db_nc" DMABUF_DIRECT=1 DMABUF_COHERENT=0 dmabuf-importer
	fi
	db_unload
fi
