# SPDX-License-Identifier: GPL-2.0 OR MIT
# memtype: the memory type of every u-dma-buf mapping mode and of the
# kernel alias, read from the page tables by tests/kmod/udmem-memtype.ko,
# for buffers on a coherent and a non-coherent device in each mmap mode,
# and of every user mapping of the uiomem regions there are (memtype.c has
# the tables it asserts; docs/memory-types.md explains them).

mt_bufs="coh-on:dma-coherent,quirk-mmap-on coh-off:dma-coherent,quirk-mmap-off
nc-on:quirk-mmap-on nc-off:quirk-mmap-off nc-auto:quirk-mmap-auto nc-page:quirk-mmap-page"

# The uiomem regions memtype.c asserts: the device tree's, and ivshmem's
# shared-memory BAR as uiomem0 where there is one (the bench suite's region).
mt_uiomem_setup() {
	if [ ! -f /udmem/modules/uiomem.ko ]; then
		tap_skip setup-uiomem "uiomem.ko was not built"
		return 0
	fi
	mt_ivshmem=$(udmem_pci_dev 0x1af4 0x1110)
	if [ -n "$mt_ivshmem" ]; then
		echo 1 > "$mt_ivshmem/enable" 2>/dev/null
		read -r mt_start mt_end _ <<-EOF
			$(sed -n 3p "$mt_ivshmem/resource")
		EOF
		mt_size=$(printf '0x%x' $((mt_end - mt_start + 1)))
		set -- uiomem0_addr="$mt_start" uiomem0_size="$mt_size"
	else
		set --
	fi
	if udmem_insmod uiomem "$@"; then
		tap_ok setup-uiomem
	else
		tap_fail setup-uiomem "insmod uiomem $* failed"
	fi
}

# A buffer bound to the edu PCI device and held open while the device is
# removed, then closed.  Its memory was allocated through the device's DMA
# setup, an IOMMU domain of the DMA API (its iommu_group's type DMA or
# DMA-FQ), an identity domain or none, and goes back through it at the
# removal, while the setup is there: not kept (what the driver did behind
# an IOMMU before), not freed at the close after the setup went (what it
# did elsewhere, which DMA-API debug reports as the driver's pending
# allocation).  (On 6.12+, where iommu-dma has no DMA ops, the driver once
# took the first case for the second.)
mt_pci_held() {
	mt_edu=$(udmem_pci_dev 0x1234 0x11e8) || mt_edu=
	if [ -z "$mt_edu" ] || [ ! -w "$mt_edu/remove" ]; then
		tap_skip pci-held-across-remove "no removable edu PCI device in this guest"
		return 0
	fi
	if [ "$UDMEM_ARCH" = armhf ]; then
		tap_skip pci-held-across-remove "a PCI rescan reassigns BARs on the armhf guest (later suites need them)"
		return 0
	fi
	# The DMA core sets a device's DMA up when a driver binds (dma_configure())
	# and tears it down on unbind: before 6.12 an unbound device behind an
	# IOMMU has no iommu-dma ops, and a buffer made for it is plain
	# dma-direct.  An earlier suite may have unloaded the edu driver: bind
	# our test driver, as a user's device has its driver.
	mt_edu_mod=
	if [ ! -e "$mt_edu/driver" ] && udmem_insmod udmem-edu-test; then
		mt_edu_mod=udmem-edu-test
	fi
	if [ ! -e "$mt_edu/driver" ]; then
		tap_fail pci-held-across-remove "no driver bound to $mt_edu: $(dmesg | tail -n 2 | tr '\n' ' ')"
		[ -n "$mt_edu_mod" ] && udmem_rmmod "$mt_edu_mod"
		return 0
	fi
	mt_domain=none
	[ -e "$mt_edu/iommu_group" ] && mt_domain=$(cat "$mt_edu/iommu_group/type" 2>/dev/null)
	case "$mt_domain" in
	DMA | DMA-FQ | none | identity) ;;
	*)
		tap_skip pci-held-across-remove "IOMMU group type '$mt_domain' of $mt_edu: neither DMA nor identity"
		return 0
		;;
	esac
	mt_bdf=${mt_edu##*/}
	if ! echo "create memtype-pci 0x10000 bus=pci device=$mt_bdf" > /dev/u-dma-buf-mgr; then
		tap_fail pci-held-across-remove "manager create on pci/$mt_bdf failed"
		return 0
	fi
	mt_kept_before=$(dmesg | grep -c 'memtype-pci: keeping')
	mt_freed_before=$(dmesg | grep -c 'memtype-pci: in use, freed at the unbind')
	exec 4< /dev/memtype-pci
	echo 1 > "$mt_edu/remove"
	if [ "$(dmesg | grep -c 'memtype-pci: in use, freed at the unbind')" -gt "$mt_freed_before" ]; then
		mt_got=freed-at-removal
	else
		mt_got=not-freed-at-removal
	fi
	exec 4<&-
	if [ "$(dmesg | grep -c 'memtype-pci: keeping')" -gt "$mt_kept_before" ]; then
		mt_got="$mt_got,kept"
	fi
	echo 1 > /sys/bus/pci/rescan
	[ -n "$mt_edu_mod" ] && udmem_rmmod "$mt_edu_mod"
	if [ "$mt_got" = freed-at-removal ]; then
		tap_ok pci-held-across-remove
	else
		tap_fail pci-held-across-remove "IOMMU domain $mt_domain: want the memory freed at the removal, it was $mt_got"
	fi
}

if ! udmem_insmod u-dma-buf || ! udmem_insmod u-dma-buf-mgr; then
	tap_fail setup "insmod u-dma-buf, u-dma-buf-mgr failed: $(dmesg | tail -n 2 | tr '\n' ' ')"
elif ! udmem_insmod udmem-memtype; then
	tap_fail setup "insmod udmem-memtype failed: $(dmesg | tail -n 2 | tr '\n' ' ')"
else
	for b in $mt_bufs; do
		opts=$(echo "${b#*:}" | tr , ' ')
		if ! mt_err=$( (echo "create memtype-${b%%:*} 0x10000 $opts" > /dev/u-dma-buf-mgr) 2>&1); then
			case $opts:$mt_err in
			*dma-coherent*:*"not supported"*)
				tap_skip "create-${b%%:*}" "this kernel cannot mark a device dma-coherent (EOPNOTSUPP, docs/buffers.md)" ;;
			*)
				tap_fail "create-${b%%:*}" "the manager refused: create memtype-${b%%:*} 0x10000 $opts: $mt_err" ;;
			esac
		fi
	done
	mt_uiomem_setup
	udmem_run memtype
	mt_pci_held
	lsmod | grep -q '^uiomem ' && udmem_rmmod uiomem
	for b in $mt_bufs; do
		echo "delete memtype-${b%%:*}" > /dev/u-dma-buf-mgr
	done
	udmem_rmmod udmem-memtype
fi
lsmod | grep -q '^u_dma_buf_mgr ' && udmem_rmmod u-dma-buf-mgr
lsmod | grep -q '^u_dma_buf ' && udmem_rmmod u-dma-buf
