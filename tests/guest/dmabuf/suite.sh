# SPDX-License-Identifier: GPL-2.0 OR MIT
# dmabuf: u-dma-buf's DMA-BUF exports with importers in the kernel: the test
# importer (tests/kmod/udmem-dmabuf-importer.ko) attached to a platform
# device, to the edu PCI device (behind the SMMU on arm64-iommu) and, on
# device-tree targets, to a non-coherent device; vgem and vivid as
# importers; imports of foreign DMA-BUFs; uiomem's export of device memory.
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

# db_kmods NAME...: insmod the kernel's modules from /udmem/kmods (the
# target's guest_kmods and what they depend on), each after the modules its
# .modinfo `depends=` names (ones already loaded or built in are passed
# over); 1 and the missing one in $db_missing when one is not there.  The
# dependencies differ between Debian's kernels and the debug ones.
db_kmods() {
	# The names as arguments, not a loop variable: they are the function's
	# own, and the dependencies' call does not overwrite them.
	db_missing=
	while [ $# -gt 0 ]; do
		_l=$(echo "$1" | tr - _)
		if ! grep -q "^$_l " /proc/modules && [ ! -d "/sys/module/$_l" ]; then
			if [ ! -f "/udmem/kmods/$1.ko" ]; then
				db_missing=$1
				return 1
			fi
			db_kmod_deps "$1" || return 1
			insmod "/udmem/kmods/$1.ko" ||
				{ db_missing="$1 (insmod failed)"; return 1; }
			db_loaded="$(echo "$1" | tr - _) $db_loaded"
		fi
		shift
	done
}

# db_kmod_deps NAME: db_kmods of the modules /udmem/kmods/NAME.ko depends on
db_kmod_deps() {
	# shellcheck disable=SC2046 # one word a module
	db_kmods $(tr '\0' '\n' < "/udmem/kmods/$1.ko" | sed -n 's/^depends=//p' | tr , ' ')
}

db_loaded=

# db_ivshmem_bar: "start size" of the ivshmem-plain device's BAR 2
db_ivshmem_bar() {
	_d=$(udmem_pci_dev 0x1af4 0x1110) || return 1
	sed -n 3p "$_d/resource" | {
		read -r _s _e _f
		[ "$_s" != "0x0000000000000000" ] || return 1
		printf '0x%x 0x%x\n' $((_s)) $((_e - _s + 1))
	}
}

# db_vgem_card: /dev/dri/cardN of vgem, or nothing
db_vgem_card() {
	for _c in /sys/class/drm/card*; do
		[ -e "$_c/device" ] || continue
		_d=$(readlink -f "$_c/device")
		_drv=$(readlink "$_c/device/driver" 2>/dev/null)
		case "${_d##*/} ${_drv##*/}" in
		*vgem*) echo "/dev/dri/${_c##*/}"; return 0 ;;
		esac
	done
}

db_unload() {
	for m in uiomem u_dma_buf_mgr u_dma_buf udmem_dmabuf_importer udmem_edu_test; do
		if grep -q "^$m " /proc/modules; then
			rmmod $m
		fi
	done
	return 0
}

# db_vgem_flush_warns: does this kernel's vgem warn on every export?  Before
# 5.14 vgem flushed an exported object with drm_clflush_pages(), which only
# x86 implements; elsewhere it is a WARN_ON_ONCE in the kernel log.
db_vgem_flush_warns() {
	[ "$UDMEM_ARCH" = x86_64 ] && return 1
	_v=$(uname -r)
	_maj=${_v%%.*}
	_min=${_v#*.}
	_min=${_min%%.*}
	[ "$_maj" -lt 5 ] || { [ "$_maj" -eq 5 ] && [ "$_min" -lt 14 ]; }
}

# vgem (DRM) for the import tests and the vgem program
db_card=
if db_vgem_flush_warns; then
	db_novgem="vgem of $(uname -r) flushes exports with drm_clflush_pages(), a WARN on $UDMEM_ARCH"
	tap_skip vgem "$db_novgem"
elif db_kmods vgem; then
	db_card=$(db_vgem_card)
	[ -n "$db_card" ] ||
		tap_fail vgem/card "vgem loaded but no DRM card is vgem's: $(ls /sys/class/drm)"
else
	db_novgem="vgem or its dependencies not in this kernel: $db_missing"
	tap_skip vgem "$db_novgem"
fi

# db_import TAG PROG: the import program, buffer udmabuf2 (bound to edu)
# importing exports of udmabuf0 and vgem buffers
db_import() {
	udmem_run UDMEM_SUITE="$UDMEM_SUITE/$1" UDMABUF_DEV=udmabuf2 UDMABUF_SRC=udmabuf0 \
		DMABUF_DIRECT=$db_direct DMABUF_VGEM="$db_card" "$2"
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
	# Behind the IOMMU a buffer bound to edu is pages the IOMMU makes contiguous.
	udmem_run UDMEM_SUITE="$UDMEM_SUITE/edu-bound" UDMABUF_DEV=udmabuf1 \
		DMABUF_ATTACH="pci/$db_edu" DMABUF_DIRECT=$db_direct DMABUF_CONTIG=$db_direct \
		DMABUF_EDU_DST=udmabuf2 dmabuf-importer
	db_import import dmabuf-import
	# mainline udmabuf (memfd pages) next to an export, where the kernel has it
	udmem_run UDMEM_SUITE="$UDMEM_SUITE/udmabuf" UDMABUF_DEV=udmabuf0 \
		DMABUF_ATTACH="pci/$db_edu" dmabuf-udmabuf
	# The import example of docs/dma-buf.md
	if [ -z "$db_card" ]; then
		tap_skip example-import "${db_novgem:-no vgem card}"
	elif db_out=$(example-import udmabuf2 "$db_card" 2>&1); then
		tap_ok example-import
		echo "$db_out" | sed 's/^/# example-import: /'
	else
		tap_fail example-import "$(echo "$db_out" | tail -n 2 | tr '\n' ' ')"
	fi
	if [ "$UDMEM_ARCH" = arm64 ]; then
		db_import import-compat32 dmabuf-import-compat32
	fi
	# uiomem's DMA-BUF export of device memory: a region over the ivshmem BAR
	if ! db_bar=$(db_ivshmem_bar); then
		tap_skip uiomem "no ivshmem-plain device with a BAR 2"
	elif ! udmem_insmod uiomem info_enable=0 uiomem0_addr="${db_bar% *}" \
			uiomem0_size="${db_bar#* }"; then
		tap_fail uiomem/setup "insmod uiomem over the ivshmem BAR ($db_bar) failed"
	else
		udmem_run UDMEM_SUITE="$UDMEM_SUITE/uiomem" UIOMEM_DEV=uiomem0 \
			DMABUF_ATTACH="pci/$db_edu" DMABUF_DIRECT=$db_direct UDMABUF_DEV=udmabuf2 \
			DMABUF_VGEM="$db_card" dmabuf-uiomem
		rmmod uiomem || tap_fail uiomem/rmmod "rmmod uiomem after the exports closed failed"
	fi
	if [ "$UDMEM_HAS_DT" != 1 ]; then
		tap_skip dt-noncoherent "no device tree on $UDMEM_ARCH"
	elif [ "$UDMEM_NONCOHERENT_DMA" != 1 ]; then
		tap_skip dt-noncoherent "no non-coherent DMA on this $UDMEM_ARCH guest (riscv64 harts without Zicbom: QEMU 7.2)"
	elif [ ! -e "$db_cls/udmabuf-dt-noncoherent" ]; then
		tap_fail dt-noncoherent "udmabuf-dt-noncoherent missing (tests/qemu/dt/10-u-dma-buf.dtsi)"
	else
		db_nc=$(db_parent udmabuf-dt-noncoherent)
		udmem_run UDMEM_SUITE="$UDMEM_SUITE/dt-noncoherent" UDMABUF_DEV=udmabuf-dt-noncoherent \
			DMABUF_ATTACH="$db_nc" DMABUF_DIRECT=1 DMABUF_COHERENT=0 dmabuf-importer
	fi
	db_unload
fi

# vgem (DRM) imports of exports, with the manager for the delete test
if [ -z "$db_card" ]; then
	tap_skip vgem/import "${db_novgem:-no vgem card}"
elif ! udmem_insmod u-dma-buf info_enable=0 udmabuf0=0x10000 ||
     ! udmem_insmod u-dma-buf-mgr; then
	tap_fail vgem/setup "insmod u-dma-buf, u-dma-buf-mgr failed"
	db_unload
else
	udmem_run UDMEM_SUITE="$UDMEM_SUITE/vgem" UDMABUF_DEV=udmabuf0 \
		DMABUF_VGEM="$db_card" DMABUF_MGR=1 dmabuf-vgem
	db_unload
fi

# vivid (V4L2): capture into exports and output from them, with
# vb2-dma-contig (allocators=1) so vivid maps the exports for its device
if [ ! -f /udmem/kmods/vivid.ko ]; then
	tap_skip vivid "no vivid module in this kernel"
elif ! db_kmod_deps vivid; then
	tap_skip vivid "vivid's dependencies not in this kernel: $db_missing"
elif ! insmod /udmem/kmods/vivid.ko n_devs=1 allocators=1; then
	tap_fail vivid/setup "insmod vivid failed"
elif ! udmem_insmod u-dma-buf info_enable=0 udmabuf0=0x200000; then
	tap_fail vivid/setup "insmod u-dma-buf failed"
	rmmod vivid
else
	db_cap=
	db_out=
	for _v in /sys/class/video4linux/video*; do
		case $(cat "$_v/name" 2>/dev/null) in
		*vid-cap*) [ -n "$db_cap" ] || db_cap=/dev/${_v##*/} ;;
		*vid-out*) [ -n "$db_out" ] || db_out=/dev/${_v##*/} ;;
		esac
	done
	if [ -z "$db_cap" ] || [ -z "$db_out" ]; then
		tap_fail vivid/setup "vivid loaded but no vid-cap or vid-out node: $db_cap $db_out"
	else
		udmem_run UDMEM_SUITE="$UDMEM_SUITE/vivid" UDMABUF_DEV=udmabuf0 \
			DMABUF_VIVID="$db_cap" DMABUF_VIVID_OUT="$db_out" dmabuf-v4l2
		# The capture example of docs/dma-buf.md
		if db_log=$(example-capture udmabuf0 "$db_cap" 2>&1); then
			tap_ok example-capture
			echo "$db_log" | sed 's/^/# example-capture: /'
		else
			tap_fail example-capture "$(echo "$db_log" | tail -n 2 | tr '\n' ' ')"
		fi
	fi
	db_unload
	rmmod vivid
fi

# Debian's modules this suite loaded, last first
for _l in $db_loaded; do
	rmmod "$_l" 2>/dev/null
done
true
