# SPDX-License-Identifier: GPL-2.0 OR MIT
# udmabuf-reliability: regression tests for the u-dma-buf defects of the
# reliability review (see udmabuf-reliability.c for the list).

rel_mark() { rel_log_mark=$(dmesg | wc -l); }
rel_since() { dmesg | tail -n +$((rel_log_mark + 1)); }
rel_bad_log='Bad page state|vunmap|WARNING|Oops|BUG:|duplicate filename|Unable to handle'

# rel_log_clean NAME: ok when the kernel logged no report since rel_mark.
rel_log_clean() {
	_bad=$(rel_since | grep -E "$rel_bad_log" | head -n 3 | tr '\n' ' ')
	if [ -n "$_bad" ]; then
		tap_fail "$1" "kernel log: $_bad"
	else
		tap_ok "$1"
	fi
}

rel_cma_free() {
	sync
	echo 3 > /proc/sys/vm/drop_caches
	sed -n 's/^CmaFree: *\([0-9]*\) kB$/\1/p' /proc/meminfo
}

rel_unload() {
	lsmod | grep -q '^u_dma_buf_mgr' && udmem_rmmod u-dma-buf-mgr
	lsmod | grep -q '^u_dma_buf ' && udmem_rmmod u-dma-buf
}

# ---- defect 9: dma_mask_bit out of 12..64 (DMA_BIT_MASK(65) is undefined)
for v in 65 11 100; do
	if udmem_insmod u-dma-buf dma_mask_bit=$v 2>/dev/null; then
		tap_fail dma_mask_bit_$v-refused "insmod with dma_mask_bit=$v succeeded"
		rel_unload
	else
		tap_ok dma_mask_bit_$v-refused
	fi
done
if udmem_insmod u-dma-buf dma_mask_bit=64 udmabuf0=0x1000; then
	tap_eq dma_mask_bit_64-taken 64 "$(cat /sys/module/u_dma_buf/parameters/dma_mask_bit)"
	rel_unload
else
	tap_fail dma_mask_bit_64-taken "insmod with dma_mask_bit=64 failed"
fi

# A RAM block device for the O_DIRECT test, when the guest carries brd.ko.
rel_brd=0
for k in /udmem/modules/brd.ko /udmem/kmods/brd.ko; do
	if [ -f "$k" ] && [ ! -e /dev/ram0 ] && insmod "$k" rd_nr=1 rd_size=4096; then
		rel_brd=1
		break
	fi
done

rel_cma_before=$(rel_cma_free)
if ! udmem_insmod u-dma-buf || ! udmem_insmod u-dma-buf-mgr; then
	tap_fail setup "insmod u-dma-buf and u-dma-buf-mgr failed"
	rel_unload
	[ $rel_brd = 1 ] && rmmod brd
	return 0
fi
tap_ok setup

export REL_SECONDS=${REL_SECONDS:-10}
rel_mark
udmem_run udmabuf-reliability mgr_line
udmem_run udmabuf-reliability sync_access
udmem_run udmabuf-reliability page_refault
udmem_run udmabuf-reliability minors
rel_log_clean log-clean-after-stress

# Last: before its fix this one left bad pages behind (and could hang).
if [ "$UDMEM_HAS_DT" = 1 ]; then
	rel_nodes=
	for n in udmabuf-dt-nomap udmabuf-dt-cma; do
		[ -e /dev/$n ] && rel_nodes="$rel_nodes $n"
	done
	export REL_RMEM_NODES="${rel_nodes# }"
fi
rel_mark
udmem_run udmabuf-reliability rmem
if [ -n "$REL_RMEM_NODES" ]; then
	rel_log_clean rmem-log-clean
fi
rel_unload
if [ -n "$REL_RMEM_NODES" ] && [ -n "$rel_cma_before" ]; then
	rel_cma_after=$(rel_cma_free)
	echo "# CmaFree before load ${rel_cma_before} kB, after unload ${rel_cma_after} kB"
	# Movable allocations borrow CMA pages: allow 32 KiB of that noise, half of
	# the 64 KiB buffer that a free through the page allocator loses.
	if [ "$rel_cma_after" -ge $((rel_cma_before - 32)) ]; then
		tap_ok rmem-cma-free-back-to-baseline
	else
		tap_fail rmem-cma-free-back-to-baseline "CmaFree ${rel_cma_before} kB -> ${rel_cma_after} kB"
	fi
fi
[ $rel_brd = 1 ] && rmmod brd
if lsmod | grep -q '^u_dma_buf'; then
	tap_fail cleanup "u-dma-buf still loaded"
fi
