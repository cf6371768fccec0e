# SPDX-License-Identifier: GPL-2.0 OR MIT
# udmabuf device-tree part, sourced by suite.sh on device-tree targets: the
# nodes of tests/qemu/dt/10-u-dma-buf.dtsi, one per property, the six seed
# 000 buffers, invalid nodes, and unbind/bind through the platform driver.
# suite.sh's ut_load and ut_hold set ut_load_out and ut_hold_pid.
# shellcheck disable=SC2154

UT_DRV=/sys/bus/platform/drivers/u-dma-buf
case $UDMEM_ARCH in
riscv64) UT_RAM=$((0x80000000)) ;;
*) UT_RAM=$((0x40000000)) ;;
esac

# ut_in_pool NAME DEV OFFSET SIZE: the buffer lies in [RAM + OFFSET, + SIZE)
ut_in_pool() {
	_p=$(ut_attr "$2" phys_addr)
	_s=$(ut_attr "$2" size)
	if [ -z "$_p" ]; then
		tap_fail "$1" "buffer $2 missing"
		return
	fi
	_lo=$((UT_RAM + $3))
	_hi=$((_lo + $4))
	if [ $((_p)) -ge $_lo ] && [ $((_p + _s)) -le $_hi ]; then
		tap_ok "$1"
	else
		tap_fail "$1" "$2 at $_p+$_s, want inside $(printf 0x%x $_lo)..$(printf 0x%x $_hi)"
	fi
}

ut_dmesg_mark
if ! ut_load; then
	tap_fail dt/load "$ut_load_out"
	return 0
fi
tap_ok dt/load

# ---- seed 000's six buffers
for b in udmabuf-fabric-low:2097152:1 udmabuf-fabric-high:2097152:1 \
	 udmabuf-soc-high:2097152:0 udmabuf-ddr-c0:33554432:1 \
	 udmabuf-ddr-nc0:33554432:1 udmabuf-ddr-nc-wcb0:33554432:1; do
	_n=${b%%:*}
	_rest=${b#*:}
	_size=${_rest%%:*}
	_coh=${_rest#*:}
	# without non-coherent DMA (riscv64 without Zicbom) the node stays coherent
	[ "$UDMEM_NONCOHERENT_DMA" = 1 ] || _coh=1
	tap_eq "dt/seed-$_n" "$_size $_coh" "$(ut_attr "$_n" size) $(ut_attr "$_n" dma_coherent)"
done
ut_in_pool dt/seed-ddr-c0-in-its-pool udmabuf-ddr-c0 0x10000000 0x03000000
ut_in_pool dt/seed-ddr-nc0-in-its-pool udmabuf-ddr-nc0 0x13000000 0x02000000
ut_in_pool dt/seed-ddr-nc-wcb0-in-its-pool udmabuf-ddr-nc-wcb0 0x15000000 0x02000000
ut_prog UDMABUF_MASK=32 seed-fabric-low udmabuf-fabric-low udmabuf-ioctl get_dev_info
ut_prog UDMABUF_MASK=40 seed-fabric-high udmabuf-fabric-high udmabuf-ioctl get_dev_info
ut_prog UDMABUF_MASK=40 seed-soc-high udmabuf-soc-high udmabuf-ioctl get_dev_info

# ---- size, minor-number, device-name
ut_attr_eq dt/size-u32 udmabuf-dt-u32 size 65536
ut_attr_eq dt/size-u64 udmabuf-dt-u64 size 196608
tap_eq dt/minor-number-names-udmabufN "16384 200" \
	"$(ut_attr udmabuf200 size) $(ut_minor udmabuf200)"
tap_eq dt/device-name-with-minor "16384 201" \
	"$(ut_attr udmabuf-dt-named size) $(ut_minor udmabuf-dt-named)"
tap_eq dt/minor-7-free-taken-by-node "16384 7" \
	"$(ut_attr udmabuf-dt-minor7 size) $(ut_minor udmabuf-dt-minor7)"
_pd=$(udmem_of_pdev udmabuf-dt-noname)
if [ -z "$_pd" ]; then
	tap_fail dt/no-name-uses-device-name "no platform device for udmabuf-dt-noname"
else
	ut_attr_eq dt/no-name-uses-device-name "$_pd" size 16384
fi

# ---- sync properties and their defaults
tap_eq dt/sync-defaults "1 0x0 65536 0 0" \
	"$(ut_attr udmabuf-dt-u32 sync_mode) $(ut_attr udmabuf-dt-u32 sync_offset) $(ut_attr udmabuf-dt-u32 sync_size) $(ut_attr udmabuf-dt-u32 sync_direction) $(ut_attr udmabuf-dt-u32 sync_owner)"
tap_eq dt/sync-mode-always-offset-size-direction "6 0x1000 8192 1" \
	"$(ut_attr udmabuf-dt-sync sync_mode) $(ut_attr udmabuf-dt-sync sync_offset) $(ut_attr udmabuf-dt-sync sync_size) $(ut_attr udmabuf-dt-sync sync_direction)"
tap_eq dt/sync-u64-properties "3 0x2000 16384 2" \
	"$(ut_attr udmabuf-dt-sync64 sync_mode) $(ut_attr udmabuf-dt-sync64 sync_offset) $(ut_attr udmabuf-dt-sync64 sync_size) $(ut_attr udmabuf-dt-sync64 sync_direction)"
# a node's sync range is what "sync_for_* = 1" uses: it must sync
if echo 1 > "$UT_CLS/udmabuf-dt-sync/sync_for_device" &&
   [ "$(ut_attr udmabuf-dt-sync sync_owner)" = 1 ]; then
	tap_ok dt/sync-range-from-node-syncs
else
	tap_fail dt/sync-range-from-node-syncs "sync_for_device failed or owner not 1"
fi

# ---- coherency, mask, pools
ut_attr_eq dt/dma-coherent udmabuf-dt-coherent dma_coherent 1
if [ "$UDMEM_NONCOHERENT_DMA" = 1 ]; then
	ut_attr_eq dt/dma-noncoherent udmabuf-dt-noncoherent dma_coherent 0
	ut_in_pool dt/noncoherent-in-no-map-pool udmabuf-dt-noncoherent 0x17000000 0x00100000
	# sync and data on a non-coherent buffer in memory the kernel never mapped
	ut_prog nomap-nc udmabuf-dt-noncoherent udmabuf-sysfs sync
	ut_prog nomap-nc udmabuf-dt-noncoherent udmabuf-chardev
	ut_prog nomap-nc udmabuf-dt-noncoherent udmabuf-export
else
	tap_skip dt/dma-noncoherent "no non-coherent DMA on this $UDMEM_ARCH guest (riscv64 harts without Zicbom: QEMU 7.2)"
fi
if [ "$UDMEM_ARCH" = riscv64 ]; then
	tap_skip dt/memory-region-cma "the riscv64 kernel has CONFIG_CMA=n"
else
	ut_in_pool dt/memory-region-cma udmabuf-dt-cma 0x20000000 0x04000000
	ut_prog cma udmabuf-dt-cma udmabuf-export
fi
ut_in_pool dt/memory-region-no-map udmabuf-dt-nomap 0x26000000 0x00800000
ut_prog nomap udmabuf-dt-nomap udmabuf-chardev data_
# page mode on a no-map pool maps through dma_mmap_coherent() without a log line
ut_attr_eq dt/nomap-page-mode udmabuf-dt-nomap-page quirk_mmap_mode 4
if dmesg | grep -q 'udmabuf-dt-nomap-page: .*falls back'; then
	tap_fail dt/nomap-page-no-fallback-warning "$(dmesg | grep 'udmabuf-dt-nomap-page: ' | tail -n 1)"
else
	tap_ok dt/nomap-page-no-fallback-warning
fi
ut_prog nomap-page udmabuf-dt-nomap-page udmabuf-chardev data_
ut_prog UDMABUF_MASK=40 mask40 udmabuf-dt-mask40 udmabuf-ioctl get_dev_info
ut_prog UDMABUF_MASK=64 mask64 udmabuf-dt-mask64 udmabuf-ioctl get_dev_info

# ---- quirk-mmap-*: page > auto > off > on
tap_eq dt/quirk-mmap-on-off-auto-page "2 1 3 4" \
	"$(ut_attr udmabuf-dt-quirk-on quirk_mmap_mode) $(ut_attr udmabuf-dt-quirk-off quirk_mmap_mode) $(ut_attr udmabuf-dt-quirk-auto quirk_mmap_mode) $(ut_attr udmabuf-dt-quirk-page quirk_mmap_mode)"
tap_eq dt/quirk-mmap-precedence "4 3" \
	"$(ut_attr udmabuf-dt-quirk-page-on quirk_mmap_mode) $(ut_attr udmabuf-dt-quirk-auto-off quirk_mmap_mode)"
# the hidden "option" property (u64 or u32): bits [12:10], overridden by any boolean
tap_eq dt/option-quirk-mode "4 1 2" \
	"$(ut_attr udmabuf-dt-option-page quirk_mmap_mode) $(ut_attr udmabuf-dt-option-u32-off quirk_mmap_mode) $(ut_attr udmabuf-dt-option-page-on quirk_mmap_mode)"
ut_prog quirk-page udmabuf-dt-quirk-page udmabuf-chardev
ut_prog quirk-off udmabuf-dt-quirk-off udmabuf-chardev data_

# ---- invalid nodes: no buffer, the platform device stays unbound, and a
# retried probe fails again with a log line naming the device
for n in size0 nosize 4g option7 syncmode0 syncmode4 syncdir3 syncoffset syncrange syncwrap \
	 mask8 mask65 minor256 region keepcma keepnoregion; do
	_node=udmabuf-dt-bad-$n
	_pd=$(udmem_of_pdev $_node)
	if [ -z "$_pd" ]; then
		tap_fail "dt/bad-$n" "no platform device for node $_node"
		continue
	fi
	if [ -e "$UT_CLS/$_node" ] || [ -e "/dev/$_node" ]; then
		tap_fail "dt/bad-$n" "a buffer appeared"
		continue
	fi
	if [ -e "/sys/bus/platform/devices/$_pd/driver" ]; then
		tap_fail "dt/bad-$n" "probe of $_pd succeeded without a buffer"
		continue
	fi
	ut_dmesg_mark
	if echo "$_pd" > "$UT_DRV/bind" 2>/dev/null; then
		tap_fail "dt/bad-$n" "binding $_pd again succeeded"
		echo "$_pd" > "$UT_DRV/unbind" 2>/dev/null
		continue
	fi
	if ut_dmesg_since | grep -q "$_pd"; then
		tap_ok "dt/bad-$n"
	else
		tap_fail "dt/bad-$n" "probe refused but the log does not say why for $_pd"
	fi
done

# ---- unbind / bind (what removing a device-tree overlay does)
_pd=$(udmem_of_pdev udmabuf-dt-u32)
if [ -z "$_pd" ]; then
	tap_fail dt/unbind-removes-buffer "no platform device for udmabuf-dt-u32"
else
	echo "$_pd" > "$UT_DRV/unbind"
	if [ ! -e "$UT_CLS/udmabuf-dt-u32" ] && [ ! -e /dev/udmabuf-dt-u32 ]; then
		tap_ok dt/unbind-removes-buffer
	else
		tap_fail dt/unbind-removes-buffer "udmabuf-dt-u32 still present"
	fi
	echo "$_pd" > "$UT_DRV/bind"
	tap_eq dt/bind-restores-buffer "65536 0x0 65536" \
		"$(ut_attr udmabuf-dt-u32 size) $(ut_attr udmabuf-dt-u32 sync_offset) $(ut_attr udmabuf-dt-u32 sync_size)"
	# a live mapping survives unbind (the memory is freed at the last unmap)
	if ut_hold udmabuf-dt-u32 mmap; then
		echo "$_pd" > "$UT_DRV/unbind"
		ut_release
		tap_eq dt/mapping-survives-unbind 0 "$?"
		echo "$_pd" > "$UT_DRV/bind"
	else
		tap_fail dt/mapping-survives-unbind "udmabuf-hold failed"
		kill "$ut_hold_pid" 2>/dev/null
	fi
	ut_attr_eq dt/bind-again-after-mapped-unbind udmabuf-dt-u32 size 65536
fi

# ---- keep-contents (udmem addition, u-dma-buf issue #55): the buffer is
# its no-map region and keeps what the memory held; a pool buffer does not
ut_keep_parent=$(udmem_of_pdev udmem-t-keep-parent)
ut_in_pool dt/keep-contents-is-its-region udmabuf-dt-keep 0x17100000 0x00100000
if udmem_insmod u-dma-buf-mgr; then
	ut_prog UDMABUF_KEEP_PARENT="$ut_keep_parent" \
		UDMABUF_KEEP_PARENT_BASE="$(printf 0x%x $((UT_RAM + 0x17200000)))" \
		UDMABUF_KEEP_PDEV="$(udmem_of_pdev udmabuf-dt-keep)" \
		UDMABUF_KEEP_BASE="$(printf 0x%x $((UT_RAM + 0x17100000)))" \
		UDMABUF_POOL_PDEV="$(udmem_of_pdev udmabuf-dt-nomap)" keep - udmabuf-keep
	udmem_rmmod u-dma-buf-mgr
else
	tap_fail dt/keep-contents-mgr "insmod u-dma-buf-mgr failed"
fi
ut_prog keep udmabuf-dt-keep udmabuf-chardev data_
ut_prog keep udmabuf-dt-keep udmabuf-export

ut_unload
if [ -e "$UT_CLS/udmabuf-dt-u32" ] || [ -e "$UT_CLS/udmabuf-fabric-low" ]; then
	tap_fail dt/rmmod-removes-dt-buffers "buffers remain after rmmod"
else
	tap_ok dt/rmmod-removes-dt-buffers
fi

# ---- a udmabufN= buffer owns minor N: a device-tree node asking for it
# fails, at load and when bound again later (the original driver's rule)
ut_dmesg_mark
if ut_load udmabuf7=0x1000; then
	tap_eq dt/minor-7-param-wins "4096 7" "$(ut_attr udmabuf7 size) $(ut_minor udmabuf7)"
	if [ -e "$UT_CLS/udmabuf-dt-minor7" ]; then
		tap_fail dt/minor-7-node-refused "udmabuf-dt-minor7 exists beside udmabuf7"
	else
		tap_ok dt/minor-7-node-refused
	fi
	_pd=$(udmem_of_pdev udmabuf-dt-minor7)
	if [ -n "$_pd" ] && ! echo "$_pd" > "$UT_DRV/bind" 2>/dev/null &&
	   [ ! -e "$UT_CLS/udmabuf-dt-minor7" ]; then
		tap_ok dt/minor-7-node-refused-on-bind
	else
		tap_fail dt/minor-7-node-refused-on-bind "node ${_pd:-?} bound with minor 7 taken"
	fi
	ut_unload
else
	tap_fail dt/minor-7-param-wins "$ut_load_out"
fi

# ---- udmabufN_bind= with udmabufN_keep_contents: kept across a reload
_pat="udmem-keep-$$"
if [ -z "$ut_keep_parent" ]; then
	tap_fail dt/param-keep-contents-survives-reload "no platform device for udmem-t-keep-parent"
elif ut_load udmabuf0=0x10000 udmabuf0_bind="$ut_keep_parent" udmabuf0_keep_contents=1; then
	printf '%s' "$_pat" > /dev/udmabuf0
	ut_unload
	if ut_load udmabuf0=0x10000 udmabuf0_bind="$ut_keep_parent" udmabuf0_keep_contents=1; then
		tap_eq dt/param-keep-contents-survives-reload "$_pat" \
			"$(dd if=/dev/udmabuf0 bs=${#_pat} count=1 2>/dev/null)"
		ut_unload
	else
		tap_fail dt/param-keep-contents-survives-reload "second load: $ut_load_out"
	fi
else
	tap_fail dt/param-keep-contents-survives-reload "$ut_load_out"
fi
