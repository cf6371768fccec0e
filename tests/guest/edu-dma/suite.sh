# SPDX-License-Identifier: GPL-2.0 OR MIT
# edu-dma: the test dmaengine provider (tests/kmod/udmem-edu-dma.ko) over the
# guest's second edu device, which the harness puts in slot 0x10 and /init
# reserves for it (driver_override).  Its channels carry memcpy for the
# kernel's dmatest and for udmem-dmaengine-test between u-dma-buf buffers
# bound to the device, and DEV_TO_MEM / MEM_TO_DEV slave transfers (single,
# scatter-gather and cyclic) of a counter pattern; then the lifetimes:
# terminate mid-transfer, unbind and unload with a client holding a channel.

ed_pci=0000:00:10.0
ed_path=/sys/bus/pci/devices/$ed_pci
ed_drv=/sys/bus/pci/drivers/udmem-edu-dma

# ed_chans: the provider's channels, one a line
# shellcheck disable=SC2012 # sysfs names have no blanks
ed_chans() {
	ls -l /sys/class/dma/*/device 2>/dev/null | awk -v pci="$ed_pci" '
		$NF ~ "/" pci "$" { c = $(NF - 2); sub(/\/device$/, "", c); sub(/.*\//, "", c); print c }'
}

# ed_unload: everything this suite loads, clients first
ed_unload() {
	for _m in dmatest udmem_dmaengine_test u_dma_buf udmem_edu_dma; do
		grep -q "^$_m " /proc/modules && rmmod "$_m"
	done
}

# ed_dmatest CHAN: the kernel's dmatest, 10 copies on CHAN
ed_dmatest() {
	_ko=
	for _k in /udmem/modules/dmatest.ko /udmem/kmods/dmatest.ko; do
		[ -f "$_k" ] && _ko=$_k
	done
	if [ -z "$_ko" ]; then
		tap_skip dmatest "this kernel ships no dmatest.ko (Debian: CONFIG_DMATEST is not set)"
		return
	fi
	if ! insmod "$_ko" timeout=60000 iterations=10 test_buf_size=8192; then
		tap_fail dmatest "insmod dmatest failed"
		return
	fi
	udmem_dmatest_check dmatest 10 "$1" "$(udmem_dmatest_run "$1")"
	rmmod dmatest
}

if ! udmem_pci_dev 0x1234 0x11e8 > /dev/null; then
	tap_skip edu-dma "no PCI edu device in this guest (a board without PCI)"
elif [ ! -f /udmem/modules/udmem-edu-dma.ko ]; then
	tap_skip edu-dma "no udmem-edu-dma.ko: kernel $UDMEM_KVER has no dmaengine (CONFIG_DMA_ENGINE)"
elif [ ! -e "$ed_path" ]; then
	tap_fail setup "no edu device at $ed_pci (tests/qemu/udmemqemu/qemu.py adds it)"
else
	tap_eq driver-override udmem-edu-dma "$(cat $ed_path/driver_override)"
	if udmem_insmod udmem-edu-dma && [ -e "$ed_drv/$ed_pci" ]; then
		tap_ok provider-binds
	else
		tap_fail provider-binds "$(dmesg | grep -i edu | tail -n 2 | tr '\n' ' ')"
	fi
	ed_c=$(ed_chans | head -n 1)
	tap_eq channels 2 "$(ed_chans | wc -l)"
	echo "# channels: $(ed_chans | tr '\n' ' ')($(dmesg | grep udmem-edu-dma | tail -n 1))"
	if [ -e "$ed_path/iommu_group" ]; then
		echo "# $ed_pci is behind an IOMMU: the buffers' DMA addresses are IOVAs"
	fi

	if [ -n "$ed_c" ]; then
		ed_dmatest "$ed_c"
	fi

	# ---- udmem-dmaengine-test takes a memcpy and a slave channel of the provider
	ed_pchan=
	ed_dbg=
	if udmem_insmod udmem-dmaengine-test device=$ed_pci slave=$ed_pci &&
		read -r ed_pchan ed_pdev ed_pbits < /dev/udmem-dmaengine-test; then
		tap_eq peer-takes-provider-channel "$ed_pci 32" "$ed_pdev $ed_pbits"
		for _c in $(ed_chans); do
			[ "$_c" != "$ed_pchan" ] && [ "$(cat "/sys/class/dma/$_c/in_use")" = 1 ] &&
				ed_dbg=/sys/kernel/debug/udmem-edu-dma/$ed_pci/chan${_c##*chan}
		done
		tap_check peer-takes-slave-channel test -d "$ed_dbg"
		echo "# peer: memcpy channel $ed_pchan, slave channel ${ed_dbg##*/}"
	else
		tap_fail peer-takes-provider-channel "insmod udmem-dmaengine-test device=$ed_pci slave=$ed_pci failed"
	fi
	ed_bufs=
	if udmem_insmod u-dma-buf udmabuf0=0x10000 udmabuf0_bind="pci/$ed_pci" \
		udmabuf1=0x10000 udmabuf1_bind="pci/$ed_pci" && [ -e /dev/udmabuf1 ]; then
		tap_ok buffers-bound-to-edu
		ed_bufs=1
	else
		tap_fail buffers-bound-to-edu "insmod u-dma-buf bind=pci/$ed_pci failed"
	fi
	if [ -n "$ed_pchan" ] && [ -n "$ed_bufs" ]; then
		# memcpy between the buffers, each sync way, bad copies refused
		udmem_run UDMEM_SUITE="$UDMEM_SUITE/memcpy" BOARD_SRC=udmabuf0 \
			BOARD_DST=udmabuf1 board-dma
		# slave transfers, cyclic ones, transfers cut short
		udmem_run EDU_DBG="$ed_dbg" EDU_BUF0=udmabuf0 EDU_BUF1=udmabuf1 edu-dma

		# ---- lifetimes: the client holds both channels
		if rmmod udmem_edu_dma 2> /dev/null; then
			tap_fail unload-refused-while-held "rmmod udmem_edu_dma succeeded under a client"
		else
			tap_ok unload-refused-while-held
		fi
		ed_s=$(cat /sys/class/u-dma-buf/udmabuf0/phys_addr)
		tap_check copy-after-refused-unload \
			sh -c "echo 'copy $ed_s $((ed_s + 8192)) 4096' > /dev/udmem-dmaengine-test"
		# unbind during a cyclic transfer, then the client lets go
		udmem_run EDU_DBG="$ed_dbg" EDU_PCI=$ed_pci EDU_BUF0=udmabuf0 edu-unbind
		tap_check client-releases-unbound-channels rmmod udmem_dmaengine_test
		tap_check unload-after-unbind rmmod udmem_edu_dma
		# u-dma-buf removes the buffers bound to a device when its driver
		# is unbound, so the INTx pass binds a new pair to the device
		tap_check unbind-removed-bound-buffers test ! -e /dev/udmabuf0
		udmem_rmmod u-dma-buf
		# bound again, on INTx this time: the slave and cut-short tests
		# again, the client asking for its slave channel by name ("rx", the
		# provider's map for the client's misc device, as IIO's buffer asks)
		if udmem_insmod udmem-edu-dma msi=0 map_client=udmem-dmaengine-test &&
			[ -e "$ed_drv/$ed_pci" ] && [ "$(ed_chans | wc -l)" = 2 ] &&
			dmesg | grep udmem-edu-dma | tail -n 1 | grep -q 'channels (INTx'; then
			tap_ok provider-binds-again-intx
			if ! udmem_insmod u-dma-buf udmabuf0=0x10000 udmabuf0_bind="pci/$ed_pci" \
				udmabuf1=0x10000 udmabuf1_bind="pci/$ed_pci"; then
				tap_fail buffers-bound-again "insmod u-dma-buf bind=pci/$ed_pci failed"
			elif udmem_insmod udmem-dmaengine-test device=$ed_pci slave_name=rx; then
				ed_rx=$(dmesg | sed -n 's/.*udmem-dmaengine-test: channel \(.*\) as "rx"/\1/p' | tail -n 1)
				tap_eq slave-channel-by-name "chan${ed_dbg##*chan}" "chan${ed_rx##*chan}"
				tap_check slave-channel-linked test -e "/sys/class/dma/$ed_rx/slave"
				udmem_run UDMEM_SUITE="$UDMEM_SUITE/intx" EDU_DBG="$ed_dbg" \
					EDU_BUF0=udmabuf0 EDU_BUF1=udmabuf1 edu-dma
			else
				tap_fail intx "insmod udmem-dmaengine-test slave_name=rx failed"
			fi
		else
			tap_fail provider-binds-again-intx "$(dmesg | grep -i edu | tail -n 2 | tr '\n' ' ')"
		fi
	fi
	ed_unload
fi
