# SPDX-License-Identifier: GPL-2.0 OR MIT
# udmabuf-dma: QEMU's edu device DMAs between u-dma-buf buffers at the
# addresses the driver reports (tests/kmod/udmem-edu-test.ko is the peer).
# Buffers: a platform buffer, one bound to the edu device itself, and on
# device-tree targets a buffer in a no-map pool and a non-coherent one.

ud_edu_path=$(udmem_pci_dev 0x1234 0x11e8)
ud_edu=${ud_edu_path##*/}

# ud_pair TAG SRC DST: run the DMA program from SRC to DST
ud_pair() {
	udmem_run UDMEM_SUITE="$UDMEM_SUITE/$1" UDMABUF_SRC="$2" UDMABUF_DST="$3" \
		udmabuf-dma-edu
}

if [ -z "$ud_edu" ]; then
	tap_fail setup "no edu PCI device (1234:11e8) in this guest"
elif [ ! -x /udmem/bin/udmabuf-dma-edu ]; then
	tap_fail setup "program udmabuf-dma-edu is missing"
elif ! udmem_insmod udmem-edu-test; then
	tap_fail setup "insmod udmem-edu-test failed"
elif ! udmem_insmod u-dma-buf udmabuf0=0x10000 udmabuf1=0x10000 \
		udmabuf1_bind="pci/$ud_edu" udmabuf2=0x10000 udmabuf2_bind="pci/$ud_edu" \
		info_enable=3; then
	tap_fail setup "insmod u-dma-buf failed"
	rmmod udmem_edu_test
else
	if [ -c /dev/udmem-edu-test ]; then
		tap_ok setup
	else
		tap_fail setup "/dev/udmem-edu-test missing: $(dmesg | grep -i edu | tail -n 2)"
	fi
	ud_pair edu-bound-to-edu-bound udmabuf1 udmabuf2
	# The domain the edu device's DMA goes through, as the driver logs it.
	ud_domain=$(dmesg | sed -n 's/.*udmabuf1: iommu domain *= *//p' | tail -n 1)
	if [ -e "$ud_edu_path/iommu_group" ]; then
		tap_eq edu-bound-iommu-domain DMA "$ud_domain"
		# Behind the IOMMU the edu device reaches IOVAs of its own domain only:
		# a buffer of another device has a DMA address edu cannot use.
		tap_skip other-device-pairs "edu is behind an IOMMU: it reaches only buffers bound to it"
	else
		tap_eq edu-bound-iommu-domain NONE "$ud_domain"
		ud_pair platform-to-edu-bound udmabuf0 udmabuf1
		ud_pair edu-bound-to-platform udmabuf1 udmabuf0
	fi
	if [ "$UDMEM_HAS_DT" = 1 ] && [ ! -e "$ud_edu_path/iommu_group" ]; then
		# memory the kernel never maps, and (where the guest has non-coherent
		# DMA) a non-coherent device
		if [ -e /sys/class/u-dma-buf/udmabuf-dt-nomap ]; then
			ud_pair dt-nomap-to-platform udmabuf-dt-nomap udmabuf0
		else
			tap_fail dt-nomap "udmabuf-dt-nomap missing (tests/qemu/dt/10-u-dma-buf.dtsi)"
		fi
		if [ "$UDMEM_NONCOHERENT_DMA" != 1 ]; then
			tap_skip dt-noncoherent "no non-coherent DMA on this $UDMEM_ARCH guest (riscv64 harts without Zicbom: QEMU 7.2)"
		elif [ -e /sys/class/u-dma-buf/udmabuf-dt-noncoherent ]; then
			ud_pair platform-to-dt-noncoherent udmabuf0 udmabuf-dt-noncoherent
		else
			tap_fail dt-noncoherent "udmabuf-dt-noncoherent missing"
		fi
	fi
	rmmod u_dma_buf
	rmmod udmem_edu_test
fi
