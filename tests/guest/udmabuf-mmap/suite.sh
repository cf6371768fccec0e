# SPDX-License-Identifier: GPL-2.0 OR MIT
# udmabuf-mmap: u-dma-buf mappings cost no page fault per page (goal: touching
# a 32 MiB buffer once takes <= 16 minor faults; the reference takes 8192),
# every mmap mode reads back what read/write see, page mode is GUP-able, and
# 2 MiB-aligned memory maps with PMD entries where the kernel allows them.

mm_cleanup() {
	for b in udmem-mm-on udmem-mm-off udmem-mm-auto udmem-mm-page udmem-mm-pin udmem-mm-pmd; do
		echo "delete $b" > /dev/u-dma-buf-mgr 2>/dev/null
	done
	lsmod | grep -q '^u_dma_buf_mgr' && udmem_rmmod u-dma-buf-mgr
	lsmod | grep -q '^u_dma_buf ' && udmem_rmmod u-dma-buf
}

mm_ok=1
# A RAM block device for the O_DIRECT test, when the guest carries brd.ko.
mm_brd=0
for k in /udmem/modules/brd.ko /udmem/kmods/brd.ko; do
	if [ -f "$k" ] && [ ! -e /dev/ram0 ] && insmod "$k" rd_nr=1 rd_size=4096; then
		mm_brd=1
		break
	fi
done
# The big buffer: 32 MiB where CMA can give it, else 4 MiB (x86 has no CMA).
if udmem_insmod u-dma-buf udmabuf0=0x2000000 info_enable=3 2>/dev/null && [ -e /dev/udmabuf0 ]; then
	tap_ok setup-32mib
else
	lsmod | grep -q '^u_dma_buf ' && udmem_rmmod u-dma-buf
	if udmem_insmod u-dma-buf udmabuf0=0x400000 info_enable=3 && [ -e /dev/udmabuf0 ]; then
		tap_skip setup-32mib "no 32 MiB contiguous buffer here (no CMA): measuring 4 MiB"
	else
		tap_fail setup-32mib "insmod u-dma-buf udmabuf0 failed"
		mm_ok=0
	fi
fi
if [ $mm_ok = 1 ] && udmem_insmod u-dma-buf-mgr; then
	export UDMABUF_MMAP_BIG=udmabuf0
	# The device tree's 32 MiB buffer in a 2 MiB-aligned CMA pool (PMD tests).
	if [ -e /dev/udmabuf-ddr-c0 ]; then
		export UDMABUF_MMAP_DT=udmabuf-ddr-c0
	fi
	for m in on off auto page; do
		if echo "create udmem-mm-$m 0x100000 quirk-mmap-$m" > /dev/u-dma-buf-mgr; then
			eval "export UDMABUF_MMAP_$(echo "$m" | tr '[:lower:]' '[:upper:]')=udmem-mm-$m"
		fi
	done
	# For the PMD tests, a buffer the driver maps itself (pfn mode): udmabuf0
	# where its mode is on, or auto on a non-coherent device; else (x86: auto
	# on a coherent device) a 4 MiB buffer in mode on.
	mm_b0=/sys/class/u-dma-buf/udmabuf0
	case "$(cat $mm_b0/quirk_mmap_mode)/$(cat $mm_b0/dma_coherent)" in
	2/* | 3/0)
		export UDMABUF_MMAP_PMD=udmabuf0
		;;
	*)
		if echo "create udmem-mm-pmd 0x400000 quirk-mmap-on" > /dev/u-dma-buf-mgr; then
			export UDMABUF_MMAP_PMD=udmem-mm-pmd
		fi
		;;
	esac
	tap_eq mode-page-attr 4 "$(cat /sys/class/u-dma-buf/udmem-mm-page/quirk_mmap_mode 2>/dev/null)"
	udmem_run udmabuf-mmap
else
	tap_fail setup-mgr "insmod u-dma-buf-mgr failed"
fi
mm_cleanup
[ $mm_brd = 1 ] && rmmod brd
if lsmod | grep -q '^u_dma_buf'; then
	tap_fail cleanup "u-dma-buf still loaded"
else
	tap_ok cleanup
fi
