# SPDX-License-Identifier: GPL-2.0 OR MIT
# udmabuf-reliability: regression tests for the u-dma-buf defects of the
# reliability review (see udmabuf-reliability.c for the list).

# A mark is the time stamp of the last kernel message, not a line count:
# once the log buffer is full, old lines drop out and counts shift.
rel_mark() {
	rel_log_mark=$(dmesg | tail -n 1 | sed -n 's/^\[ *\([0-9.]*\)\].*/\1/p')
}
rel_since() {
	dmesg | awk -v m="${rel_log_mark:-0}" '{
		t = $0; sub(/^\[ */, "", t); sub(/\].*/, "", t)
		if (t + 0 > m + 0) print
	}'
}
rel_bad_log='Bad page state|vunmap|WARNING|Oops|BUG:|duplicate filename|Unable to handle'

# rel_log_clean NAME: ok when the kernel logged no report since rel_mark.
# KCSAN's reports are left to the harness's scans, which tell ours (a
# failure) from the rest of the kernel's (set aside).
rel_log_clean() {
	_bad=$(rel_since | grep -E "$rel_bad_log" | grep -v 'BUG: KCSAN: ' | head -n 3 | tr '\n' ' ')
	if [ -n "$_bad" ]; then
		tap_fail "$1" "kernel log: $_bad"
	else
		tap_ok "$1"
	fi
}

rel_cma_free() {
	sync
	echo 3 > /proc/sys/vm/drop_caches
	[ -w /proc/sys/vm/compact_memory ] && echo 1 > /proc/sys/vm/compact_memory
	sed -n 's/^CmaFree: *\([0-9]*\) kB$/\1/p' /proc/meminfo
}

# Freed CMA pages wait in the per-CPU page lists (as movable pages) before
# CmaFree counts them: the kB those lists hold now.
rel_pcp_kb() {
	awk '$1 == "count:" { n += $2 } END { print n * 4 }' /proc/zoneinfo
}

# rel_create LINE: a manager create; one that fails is tried once more after
# dropping caches and compacting.  CMA hands out a range only after moving the
# movable pages in it, and that can fail for a while (armhf 5.10 after the
# stress suite: ENOMEM for 64 KiB with 80 MiB of CMA free, then fine).
rel_create() {
	echo "$1" > /dev/u-dma-buf-mgr 2> /dev/null && return 0
	echo "# '$1' failed: $(grep -E '^(MemFree|CmaFree):' /proc/meminfo | tr -s ' \n' ' ')- compacting and trying again"
	rel_cma_free > /dev/null
	echo "$1" > /dev/u-dma-buf-mgr
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

if ! udmem_insmod u-dma-buf || ! udmem_insmod u-dma-buf-mgr; then
	tap_fail setup "insmod u-dma-buf and u-dma-buf-mgr failed"
	rel_unload
	[ $rel_brd = 1 ] && rmmod brd
	return 0
fi
tap_ok setup

export REL_SECONDS="${REL_SECONDS:-10}"
rel_mark
udmem_run udmabuf-reliability mgr_line
udmem_run udmabuf-reliability sync_access
udmem_run udmabuf-reliability page_refault
udmem_run udmabuf-reliability minors
udmem_run udmabuf-reliability import_races_removal
rel_log_clean log-clean-after-stress

# defect 2: the dma-ranges bus (device-tree targets).  Before the CmaFree
# measurement: the second test keeps its memory on purpose.
if [ -e /dev/udmabuf-dt-offset ]; then
	rel_mark
	udmem_run udmabuf-reliability dma_offset.sync_after_unbind
	rel_log_clean dma-offset-freed-log-clean
	if rel_since | grep -q 'udmabuf-dt-offset: keeping'; then
		tap_fail dma-offset-freed-after-rebind "memory kept although a driver was bound again"
	else
		tap_ok dma-offset-freed-after-rebind
	fi
	rel_mark
	udmem_run udmabuf-reliability dma_offset.release_while_unbound
	rel_log_clean dma-offset-kept-log-clean
	if rel_since | grep -q 'udmabuf-dt-offset: keeping 65536 bytes'; then
		tap_ok dma-offset-kept-while-unbound
	else
		tap_fail dma-offset-kept-while-unbound "no 'keeping' message: freed without the DMA setup?"
	fi
	# An import held across the unbind: unmapped at the removal, not after.
	rel_mark
	rm -f /tmp/rel-import-skipped
	udmem_run udmabuf-reliability dma_offset_import_unmapped_at_unbind
	rel_log_clean dma-offset-import-log-clean
	if rel_since | grep -q 'udmabuf-dt-offset: import unmapped at removal'; then
		tap_ok dma-offset-import-unmapped-at-removal
	elif [ -e /tmp/rel-import-skipped ]; then
		tap_skip dma-offset-import-unmapped-at-removal "the test skipped: its source is outside the dma-ranges window"
	else
		tap_fail dma-offset-import-unmapped-at-removal "no 'import unmapped at removal': unmapped after the unbind?"
	fi
else
	tap_skip dma-offset "no device tree here: no bus with dma-ranges"
fi

# read() of a buffer with a cached kernel alias (issue 31): one clean-and-
# invalidate pass by cache line, not the DMA API's clean pass then its
# invalidate pass, between which a line written through a cached user
# mapping was dropped.  QEMU models no caches, so the test counts the DMA
# API's syncs (kprobes on arch_sync_dma_for_cpu/_for_device, filtered on
# the copy's size): none for a read, one clean for a write, which shows
# the buffer has the alias.
rel_tr=/sys/kernel/debug/tracing
rel_ksz=12288
if [ ! -w "$rel_tr/kprobe_events" ]; then
	tap_skip alias-read "no kprobe events in this kernel"
elif ! grep -q ' arch_sync_dma_for_cpu$' /proc/kallsyms; then
	tap_skip alias-read "no arch_sync_dma_for_cpu: this kernel has no non-coherent DMA"
elif ! echo "create udmem-rel-alias 0x10000" > /dev/u-dma-buf-mgr; then
	tap_fail alias-read/create "manager create failed"
else
	rel_cls=/sys/class/u-dma-buf/udmem-rel-alias
	if [ "$(cat $rel_cls/dma_coherent)" != 0 ] || [ "$(cat $rel_cls/quirk_mmap_mode)" = 1 ]; then
		tap_skip alias-read "the buffer is DMA-coherent or maps through dma_mmap_coherent: no cached alias"
	else
		echo 'p:udmem_rel_cpu arch_sync_dma_for_cpu sz=%x1' >> $rel_tr/kprobe_events
		echo 'p:udmem_rel_dev arch_sync_dma_for_device sz=%x1' >> $rel_tr/kprobe_events
		for e in udmem_rel_cpu udmem_rel_dev; do
			echo "sz == $rel_ksz" > $rel_tr/events/kprobes/$e/filter
			echo 1 > $rel_tr/events/kprobes/$e/enable
		done
		echo > $rel_tr/trace
		dd if=/dev/zero of=/dev/udmem-rel-alias bs=$rel_ksz count=4 2>/dev/null
		rel_wr_dev=$(grep -c 'udmem_rel_dev:' $rel_tr/trace)
		echo > $rel_tr/trace
		dd if=/dev/udmem-rel-alias of=/dev/null bs=$rel_ksz count=4 2>/dev/null
		rel_rd_cpu=$(grep -c 'udmem_rel_cpu:' $rel_tr/trace)
		rel_rd_dev=$(grep -c 'udmem_rel_dev:' $rel_tr/trace)
		for e in udmem_rel_cpu udmem_rel_dev; do
			echo 0 > $rel_tr/events/kprobes/$e/enable
			echo "-:$e" >> $rel_tr/kprobe_events
		done
		if [ "$rel_wr_dev" = 0 ]; then
			# e.g. 32-bit arm before 6.5: its own DMA ops, no cached alias
			tap_skip alias-read "write() made no DMA API clean: no cached alias, or DMA ops of the platform's own"
		else
			tap_eq alias-read/write-cleans-through-the-dma-api 4 "$rel_wr_dev"
			tap_eq alias-read/read-no-dma-api-sync "cpu 0 dev 0" "cpu $rel_rd_cpu dev $rel_rd_dev"
		fi
	fi
	echo "delete udmem-rel-alias" > /dev/u-dma-buf-mgr
fi

# Buffers bound to a PCI device whose driver is unbound (issue 31): the
# device's DMA setup goes right after the driver's remove, so the buffers go
# at the unbind, before it, and their memory is freed there, through the
# setup it was allocated with (behind an IOMMU a free after it is the wrong
# free, and the DMA API debugger reports an allocation the unbind leaves):
# one held open too, whose file then reads ENODEV.  Before the fix only the
# device's removal was noticed.
rel_edu=$(udmem_pci_dev 0x1234 0x11e8) || rel_edu=
rel_edu_drv=/sys/bus/pci/drivers/udmem-edu-test
if [ -z "$rel_edu" ]; then
	tap_skip pci-unbind "no edu PCI device in this guest"
elif [ -e "$rel_edu/driver" ]; then
	tap_skip pci-unbind "edu already has a driver: $(readlink "$rel_edu/driver")"
elif ! udmem_insmod udmem-edu-test || [ ! -e "$rel_edu_drv/${rel_edu##*/}" ]; then
	tap_fail pci-unbind/setup "udmem-edu-test did not bind ${rel_edu##*/}"
	lsmod | grep -q '^udmem_edu_test' && udmem_rmmod udmem-edu-test
else
	rel_mark
	rel_pci=${rel_edu##*/}
	if rel_create "create udmem-rel-unbind 0x10000 bus=pci device=$rel_pci" &&
	   rel_create "create udmem-rel-unbind2 0x10000 bus=pci device=$rel_pci" &&
	   [ -e /dev/udmem-rel-unbind ] && [ -e /dev/udmem-rel-unbind2 ]; then
		tap_ok pci-unbind/create-bound
		rel_unbind_ready=1
	else
		tap_fail pci-unbind/create-bound "manager create on pci/$rel_pci failed twice"
		rel_since | tail -n 8 | sed 's/^/# dmesg: /'
		sed 's/^/# /' /proc/buddyinfo
		rel_unbind_ready=0
	fi
fi
# Only with both buffers: a redirection from a missing file would end the
# shell running the suite.
if [ "${rel_unbind_ready:-0}" = 1 ]; then
	# One is held open across the unbind: its memory goes back at the
	# unbind all the same (the DMA API debugger reports any allocation a
	# driver's unbind leaves behind), and the file says ENODEV.
	exec 4< /dev/udmem-rel-unbind
	echo "$rel_pci" > "$rel_edu_drv/unbind"
	_left=
	for b in udmem-rel-unbind udmem-rel-unbind2; do
		if [ -e /dev/$b ] || [ -e /sys/class/u-dma-buf/$b ]; then
			_left="$_left $b"
		fi
	done
	if [ -n "$_left" ]; then
		tap_fail pci-unbind/buffers-gone "outlived their parent's driver:$_left"
	else
		tap_ok pci-unbind/buffers-gone
	fi
	_err=$(dd bs=16 count=1 <&4 2>&1 >/dev/null)
	case $_err in
	*"No such device"*) tap_ok pci-unbind/open-file-enodev ;;
	*) tap_fail pci-unbind/open-file-enodev "read after the unbind: ${_err:-no error}" ;;
	esac
	if [ "$(rel_since | grep -c "removing buffer udmem-rel-unbind2\{0,1\} with its parent's driver")" = 2 ]; then
		tap_ok pci-unbind/removed-at-unbind
	else
		tap_fail pci-unbind/removed-at-unbind "not two 'removing buffer ... driver' messages"
	fi
	echo "$rel_pci" > "$rel_edu_drv/bind"
	exec 4<&-
	for b in $_left; do
		echo "delete $b" > /dev/u-dma-buf-mgr 2>/dev/null
	done
	rel_log_clean pci-unbind/log-clean
fi
if [ -n "${rel_unbind_ready:-}" ]; then
	for b in udmem-rel-unbind udmem-rel-unbind2; do
		[ -e /dev/$b ] && echo "delete $b" > /dev/u-dma-buf-mgr 2>/dev/null
	done
	udmem_rmmod udmem-edu-test
fi

# A buffer bound to edu, mapped, exported and copied from across the
# driver's unbind: its memory goes back at the unbind, and the old mappings
# get SIGBUS (udmabuf-reliability-devices.c, pci_unbind_revokes_memory).
# In each way user space maps a buffer: our remap of the page frames, also
# with 2 MiB entries at fault time where a 4 MiB buffer has room for them
# (compat.h's UDMEM_PMD_PFNMAP kernels), page mode (struct pages,
# refcounted), dma_mmap_coherent() (mode off) and the sync checker's
# mappings (filled at fault time).
rel_edu=$(udmem_pci_dev 0x1234 0x11e8) || rel_edu=
if [ -z "$rel_edu" ]; then
	tap_skip pci-revoke "no edu PCI device in this guest"
elif [ -e "$rel_edu/driver" ]; then
	tap_skip pci-revoke "edu already has a driver: $(readlink "$rel_edu/driver")"
elif ! udmem_insmod udmem-edu-test || [ ! -e "$rel_edu_drv/${rel_edu##*/}" ]; then
	tap_fail pci-revoke/setup "udmem-edu-test did not bind ${rel_edu##*/}"
	lsmod | grep -q '^udmem_edu_test' && udmem_rmmod udmem-edu-test
else
	rel_mark
	rel_pci=${rel_edu##*/}
	for rel_mode in pfn:0x40000:quirk-mmap-on pmd:0x400000:quirk-mmap-on \
		page:0x40000:quirk-mmap-page dma:0x40000:quirk-mmap-off \
		check:0x40000:sync-check=report; do
		rel_t=pci-revoke/${rel_mode%%:*}
		rel_size=${rel_mode#*:}
		rel_opt=${rel_size#*:}
		rel_size=${rel_size%%:*}
		[ -e "$rel_edu_drv/$rel_pci" ] || echo "$rel_pci" > "$rel_edu_drv/bind"
		if ! rel_create "create udmem-rel-revoke $rel_size $rel_opt bus=pci device=$rel_pci"; then
			tap_fail "$rel_t/create-bound" "manager create $rel_size $rel_opt on pci/$rel_pci failed"
			continue
		fi
		_n=$(rel_since | grep -c 'udmem-rel-revoke: in use, freed at the unbind')
		udmem_run UDMEM_SUITE="$UDMEM_SUITE/$rel_t" REL_REVOKE_BUF=udmem-rel-revoke \
			REL_REVOKE_DRV="$rel_edu_drv/unbind" REL_REVOKE_BDF="$rel_pci" \
			udmabuf-reliability pci_unbind_revokes_memory
		if [ "$(rel_since | grep -c 'udmem-rel-revoke: in use, freed at the unbind')" = $((_n + 1)) ]; then
			tap_ok "$rel_t/freed-at-unbind"
		else
			tap_fail "$rel_t/freed-at-unbind" "not freed at the unbind: $(rel_since | grep udmem-rel-revoke | tail -n 1)"
		fi
		[ -e /dev/udmem-rel-revoke ] && echo "delete udmem-rel-revoke" > /dev/u-dma-buf-mgr
	done
	[ -e "$rel_edu_drv/$rel_pci" ] || echo "$rel_pci" > "$rel_edu_drv/bind"
	rel_log_clean pci-revoke/log-clean
	udmem_rmmod udmem-edu-test
fi

# A buffer bound to a PCI device that goes away (hot-remove): the buffer goes
# with it, nothing dangles under the removed device, and a rescan brings
# the device back for a new buffer.
rel_edu=$(udmem_pci_dev 0x1234 0x11e8) || rel_edu=
if [ "$UDMEM_ARCH" = armhf ]; then
	# Seen on the armhf virt guest after the cli suite had run: the rescan gave
	# edu's BAR the window of ivshmem's BAR 2, and the uiomem suite could no
	# longer claim that BAR.  The other targets keep their assignments.
	tap_skip pci-remove "a PCI rescan reassigns BARs on the armhf guest (later suites need them)"
elif [ -n "$rel_edu" ] && [ -w "$rel_edu/remove" ]; then
	rel_mark
	rel_pci=${rel_edu##*/}
	if rel_create "create udmem-rel-pci 0x10000 bus=pci device=$rel_pci"; then
		tap_ok pci-remove/create-bound
	else
		tap_fail pci-remove/create-bound "manager create on pci/$rel_pci failed"
	fi
	echo 1 > "$rel_edu/remove"
	if [ -e /dev/udmem-rel-pci ] || [ -e /sys/class/u-dma-buf/udmem-rel-pci ]; then
		tap_fail pci-remove/buffer-gone "/dev/udmem-rel-pci outlived its PCI device"
	else
		tap_ok pci-remove/buffer-gone
	fi
	echo 1 > /sys/bus/pci/rescan
	if [ -e "$rel_edu" ] &&
	   echo "create udmem-rel-pci 0x10000 bus=pci device=$rel_pci" > /dev/u-dma-buf-mgr &&
	   echo "delete udmem-rel-pci" > /dev/u-dma-buf-mgr; then
		tap_ok pci-remove/rescan-create-delete
	else
		tap_fail pci-remove/rescan-create-delete "no buffer on pci/$rel_pci after a rescan"
	fi
	rel_log_clean pci-remove/log-clean
else
	tap_skip pci-remove "no removable edu PCI device in this guest"
fi

# Last: before its fix this one left bad pages behind (and could hang).
if [ "$UDMEM_HAS_DT" = 1 ]; then
	rel_nodes=
	for n in udmabuf-dt-nomap udmabuf-dt-cma; do
		[ -e /dev/$n ] && rel_nodes="$rel_nodes $n"
	done
	export REL_RMEM_NODES="${rel_nodes# }"
fi
# CmaFree is measured with the module out, right around the test: the
# stress tests above move anonymous and page-cache pages in and out of CMA.
rel_unload
rel_cma_before=$(rel_cma_free)
if ! udmem_insmod u-dma-buf; then
	tap_fail rmem-setup "insmod u-dma-buf failed"
fi
rel_mark
udmem_run udmabuf-reliability rmem
if [ -n "$REL_RMEM_NODES" ]; then
	rel_log_clean rmem-log-clean
fi

rel_unload
# CmaFree is reported, not checked: freed CMA pages wait in the per-CPU page
# lists, which held up to 16 MiB in these guests, far more than the 64 KiB a
# misfree would lose, and no stock kernel here has CMA_DEBUGFS to count a
# pool's own pages.  The kernel log above is what catches a misfree.
if [ -n "$REL_RMEM_NODES" ] && [ -n "$rel_cma_before" ]; then
	echo "# CmaFree before load ${rel_cma_before} kB, after unload $(rel_cma_free) kB," \
		"per-CPU lists $(rel_pcp_kb) kB"
fi
[ $rel_brd = 1 ] && rmmod brd
if lsmod | grep -q '^u_dma_buf'; then
	tap_fail cleanup "u-dma-buf still loaded"
fi
