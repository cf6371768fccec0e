# SPDX-License-Identifier: GPL-2.0 OR MIT
# libudmem: every library function against the real drivers.  udmabuf0
# (1 MiB, module parameter) and u-dma-buf-mgr for buffers; uiomem0 over
# the first 64 KiB of ivshmem's shared-memory BAR for regions.

lu_loaded=""
if [ ! -f /udmem/modules/u-dma-buf.ko ]; then
	tap_skip setup-u-dma-buf "u-dma-buf.ko was not built"
elif udmem_insmod u-dma-buf udmabuf0=0x100000 && [ -e /dev/udmabuf0 ]; then
	lu_loaded="u-dma-buf"
	tap_ok setup-u-dma-buf
	if udmem_insmod u-dma-buf-mgr && [ -e /dev/u-dma-buf-mgr ]; then
		lu_loaded="u-dma-buf-mgr $lu_loaded"
		tap_ok setup-u-dma-buf-mgr
	else
		tap_fail setup-u-dma-buf-mgr "insmod u-dma-buf-mgr failed"
	fi
else
	tap_fail setup-u-dma-buf "insmod u-dma-buf udmabuf0=0x100000 failed"
fi

lu_ivshmem=$(udmem_pci_dev 0x1af4 0x1110)
if [ ! -f /udmem/modules/uiomem.ko ]; then
	tap_skip setup-uiomem "uiomem.ko was not built"
elif [ -z "$lu_ivshmem" ]; then
	tap_skip setup-uiomem "no ivshmem device"
else
	echo 1 > "$lu_ivshmem/enable" 2>/dev/null
	read -r lu_bar _ <<-EOF
		$(sed -n 3p "$lu_ivshmem/resource")
	EOF
	if udmem_insmod uiomem uiomem0_addr="$lu_bar" uiomem0_size=0x10000 &&
	   [ -e /dev/uiomem0 ]; then
		lu_loaded="uiomem $lu_loaded"
		tap_ok setup-uiomem
	else
		tap_fail setup-uiomem "insmod uiomem uiomem0_addr=$lu_bar uiomem0_size=0x10000 failed"
	fi
fi

export UDMEM_TEST_BUFFER=udmabuf0 UDMEM_TEST_REGION=uiomem0
udmem_run libudmem-misc
udmem_run libudmem-handle
udmem_run libudmem-buffer
udmem_run libudmem-region

# The library example of docs/library.md: a pattern there and back through
# the edu device's DMA engine.
lu_edu=$(udmem_pci_dev 0x1234 0x11e8)
if [ -z "$lu_edu" ] || [ ! -e /dev/udmabuf0 ]; then
	tap_skip example-edu-round-trip "no edu device or no udmabuf0"
elif [ -n "$(ls /sys/class/iommu 2>/dev/null)" ]; then
	# Behind an IOMMU the driverless edu device has no DMA setup (the bus
	# makes it when a driver binds), so no buffer has an address it can use
	# (udmabuf-dma covers DMA through the IOMMU with a driver bound).
	tap_skip example-edu-round-trip "edu is behind an IOMMU with no driver bound"
else
	if lu_out=$(example-edu udmabuf0 "${lu_edu##*/}" 2>&1); then
		tap_ok example-edu-round-trip
	else
		tap_fail example-edu-round-trip "$(echo "$lu_out" | tail -n 2 | tr '\n' ' ')"
	fi
	echo "$lu_out" | sed 's/^/# example-edu: /'
fi

for m in $lu_loaded; do
	udmem_rmmod "$m" || tap_fail "rmmod-$m" "rmmod $m failed"
done
