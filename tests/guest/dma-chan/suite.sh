# SPDX-License-Identifier: GPL-2.0 OR MIT
# dma-chan: u-dma-chan publishes a dmaengine channel that can memcpy as
# /dev/dma-chan0 (memcpy=); the program copies between two u-dma-buf
# buffers (and the board's on-chip memory through uiomem) with fences,
# completion records and batches, slave and cyclic transfers where the
# channel has them (the edu provider of tests/kmod on PCI targets), and
# checks what the driver refuses.  The
# shell adds the manager's commands, sysfs and unloading.  A guest without
# such a channel is one counted SKIP.

dc_cls=/sys/class/u-dma-chan
dc_mgr=/dev/u-dma-chan-mgr

udmem_board_engines
dc_region=$(udmem_board_region)
# The test provider over the harness's second edu device, where there is one
dc_edu=
if [ -f /udmem/modules/udmem-edu-dma.ko ] && [ -e /sys/bus/pci/devices/0000:00:10.0 ]; then
	if udmem_insmod udmem-edu-dma; then
		dc_edu=1
	else
		tap_fail edu-provider "insmod udmem-edu-dma failed: $(dmesg | tail -n 2 | tr '\n' ' ')"
	fi
fi

if ! udmem_insmod u-dma-buf udmabuf0=0x100000 udmabuf1=0x100000; then
	tap_fail buffers "insmod u-dma-buf failed: $(dmesg | tail -n 2 | tr '\n' ' ')"
elif ! udmem_insmod u-dma-chan memcpy=dma-chan0; then
	tap_fail module-loads "insmod u-dma-chan failed: $(dmesg | tail -n 2 | tr '\n' ' ')"
	udmem_rmmod u-dma-buf
else
	tap_ok module-loads
	tap_check mgr-node-0600 test "$(stat -c %a $dc_mgr)" = 600
	# ---- a channel of the device tree with its slave configuration
	# (tests/qemu/dt/30-board-zcu102.dtsi); other guests have no such node
	if [ -d /proc/device-tree/dma-chan-dt ]; then
		dc_dt=$dc_cls/dma-chan-dt
		if [ ! -e /dev/dma-chan-dt ]; then
			tap_fail dt-channel "no /dev/dma-chan-dt: $(dmesg | grep -i u-dma-chan | tail -n 2 | tr '\n' ' ')"
		else
			tap_eq dt-channel-device fd570000.dma-controller "$(cat $dc_dt/device)"
			tap_eq dt-slave-dev-to-mem "0x80001000 4 16" \
				"$(cat $dc_dt/dev_to_mem_addr $dc_dt/dev_to_mem_width $dc_dt/dev_to_mem_maxburst | tr '\n' ' ' | sed 's/ $//')"
			tap_eq dt-slave-mem-to-dev "0x0 8 0" \
				"$(cat $dc_dt/mem_to_dev_addr $dc_dt/mem_to_dev_width $dc_dt/mem_to_dev_maxburst | tr '\n' ' ' | sed 's/ $//')"
			tap_check dt-bad-width-refused test ! -e /dev/dma-chan-bad-width
			tap_check dt-bad-width-says-why sh -c "dmesg | grep -q 'dma-chan-bad-width: .*mem-to-dev-width: 3 is not'"
			udmem_run UDMEM_SUITE="$UDMEM_SUITE/dt" DMA_CHAN=dma-chan-dt DMA_SRC=udmabuf0 \
				DMA_DST=udmabuf1 DMA_LEN=0x100000 dma-chan copy_whole_buffer_byte_exact
		fi
	fi
	if [ ! -e /dev/dma-chan0 ]; then
		tap_skip channel "no dmaengine channel that can memcpy in this guest"
	else
		dc_chan=$(cat $dc_cls/dma-chan0/channel)
		echo "# dma-chan0: $dc_chan of $(cat $dc_cls/dma-chan0/device), align $(cat $dc_cls/dma-chan0/copy_align), caps $(cat $dc_cls/dma-chan0/caps)"
		tap_check node-0600 test "$(stat -c %a /dev/dma-chan0)" = 600
		tap_eq sysfs-idle 0 "$(cat $dc_cls/dma-chan0/in_flight)"
		# the edu provider's slave channel streams a counter; no board
		# engine's slave side has a device behind it here
		dc_stream=0
		# The edu device moves 4 KiB a tick of its 100 ms DMA timer: its
		# copies cover the first 256 KiB of the buffers, a board
		# engine's the whole MiB.
		dc_len=0x100000
		if [ "$(cat $dc_cls/dma-chan0/device)" = 0000:00:10.0 ]; then
			dc_stream=1
			dc_len=0x40000
		fi
		# a buffer whose sync checker watches the transfers' syncs
		dc_checked=
		if udmem_insmod u-dma-buf-mgr &&
			echo "create dc-checked 0x40000 quirk-mmap-on sync-check=strict" > /dev/u-dma-buf-mgr; then
			dc_checked=dc-checked
		else
			tap_fail checked-buffer "no buffer with the sync checker: $(dmesg | tail -n 2 | tr '\n' ' ')"
		fi
		udmem_run DMA_CHAN=dma-chan0 DMA_SRC=udmabuf0 DMA_DST=udmabuf1 DMA_LEN=$dc_len \
			DMA_REGION="$dc_region" DMA_COUNTER_STREAM=$dc_stream DMA_CHECKED=$dc_checked dma-chan
		if [ -n "$dc_checked" ]; then
			tap_check checked-buffer-delete sh -c "echo 'delete dc-checked' > /dev/u-dma-buf-mgr"
		fi
		grep -q '^u_dma_buf_mgr ' /proc/modules && udmem_rmmod u-dma-buf-mgr
		# the worked example of docs/dma.md
		if dc_out=$(example-copy dma-chan0 udmabuf0 udmabuf1 2>&1); then
			tap_ok example-copy
			echo "# example-copy: $dc_out"
		else
			tap_fail example-copy "$dc_out"
		fi
		tap_eq sysfs-idle-after "0 0" \
			"$(cat $dc_cls/dma-chan0/in_flight) $(cat $dc_cls/dma-chan0/busy)"
		tap_check sysfs-counts-completions test "$(cat $dc_cls/dma-chan0/completed)" -gt 0
		tap_eq sysfs-submitted-equals-completed "$(cat $dc_cls/dma-chan0/submitted)" \
			"$(cat $dc_cls/dma-chan0/completed)"

		# ---- the manager: delete, create by the channel's name, refusals
		tap_check mgr-delete sh -c "echo 'delete dma-chan0' > $dc_mgr && test ! -e $dc_cls/dma-chan0"
		tap_check mgr-delete-again-fails sh -c "! echo 'delete dma-chan0' > $dc_mgr"
		tap_check mgr-create-by-channel sh -c "echo 'create dma-chan1 $dc_chan' > $dc_mgr && test -e /dev/dma-chan1"
		tap_check mgr-create-taken-name-fails sh -c "! echo 'create dma-chan1 memcpy' > $dc_mgr"
		tap_check mgr-create-unknown-channel-fails sh -c "! echo 'create dma-chan2 nosuchchan' > $dc_mgr && test ! -e $dc_cls/dma-chan2"
		tap_check mgr-bad-command-fails sh -c "! echo 'frobnicate' > $dc_mgr"
		tap_check mgr-bad-name-fails sh -c "! echo 'create ../x memcpy' > $dc_mgr"
		udmem_run UDMEM_SUITE="$UDMEM_SUITE/mgr" DMA_CHAN=dma-chan1 DMA_SRC=udmabuf0 \
			DMA_DST=udmabuf1 DMA_LEN=$dc_len dma-chan copy_whole_buffer_byte_exact
	fi
	# ---- unload with nothing in flight takes the channels away
	if udmem_rmmod u-dma-chan; then
		tap_ok unload-idle
		tap_check unload-removes-class test ! -e $dc_cls
	else
		tap_fail unload-idle "rmmod u_dma_chan failed: $(dmesg | tail -n 2 | tr '\n' ' ')"
	fi
	udmem_rmmod u-dma-buf
fi
# ---- the engine's next client after u-dma-chan is gone: a descriptor it
# used must not carry its completion function along (PL330, docs/dma.md)
if [ -n "${dc_chan:-}" ] && [ -f /udmem/modules/dmatest.ko ] &&
	! grep -q '^u_dma_chan ' /proc/modules; then
	udmem_dmatest_next_client next-client-after-unload "$dc_chan"
fi
grep -q '^uiomem ' /proc/modules && udmem_rmmod uiomem
[ -n "$dc_edu" ] && udmem_rmmod udmem-edu-dma
udmem_board_unload_engines
