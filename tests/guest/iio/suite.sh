# SPDX-License-Identifier: GPL-2.0 OR MIT
# iio: u-dma-buf exports in IIO's DMABUF interface.  The test IIO devices of
# tests/kmod/udmem-iio-dma.ko use the kernel's own dmaengine buffer
# (industrialio-buffer-dmaengine, the buffer of adi-axi-adc) on the channels
# of the edu test provider (tests/kmod/udmem-edu-dma.ko, the harness's
# second edu device): udmem-iio-rx on its "rx" channel (a counter), and
# udmem-iio-tx on its "tx" channel (a sink that checks a counter).  The
# program iio-dmabuf attaches exports, enqueues blocks, waits on the fences
# and checks every sample, then the bad input and the lifetimes; this file
# checks the modules' unload order.

io_pci=0000:00:10.0
io_dbg=/sys/kernel/debug/udmem-edu-dma/$io_pci

# io_kmods NAME...: insmod the kernel's modules, each after those its
# .modinfo depends= names; the missing one in $io_missing.  From
# /udmem/kmods (the distribution's), else /udmem/modules: the harness
# builds the IIO DMA buffer there from the kernel's sources when the
# kernel's configuration leaves it out (Debian's amd64 and riscv64 6.12).
io_kmods() {
	io_missing=
	while [ $# -gt 0 ]; do
		_l=$(echo "$1" | tr - _)
		if ! grep -q "^$_l " /proc/modules && [ ! -d "/sys/module/$_l" ]; then
			_ko=/udmem/kmods/$1.ko
			[ -f "$_ko" ] || _ko=/udmem/modules/$1.ko
			if [ ! -f "$_ko" ]; then
				io_missing=$1
				return 1
			fi
			# shellcheck disable=SC2046 # one word a module
			io_kmods $(tr '\0' '\n' < "$_ko" |
				sed -n 's/^depends=//p' | tr , ' ') || return 1
			# the recursion above reused $_l and $_ko
			_l=$(echo "$1" | tr - _)
			_ko=/udmem/kmods/$1.ko
			[ -f "$_ko" ] || _ko=/udmem/modules/$1.ko
			insmod "$_ko" || { io_missing="$1 (insmod failed)"; return 1; }
			io_loaded="$_l $io_loaded"
		fi
		shift
	done
}
io_loaded=

# io_iio NAME: the sysfs folder of the IIO device called NAME
io_iio() {
	for _d in /sys/bus/iio/devices/iio:device*; do
		[ "$(cat "$_d/name" 2>/dev/null)" = "$1" ] && echo "$_d" && return 0
	done
	return 1
}

# io_kver_ge MAJOR MINOR: is the running kernel at least MAJOR.MINOR?
io_kver_ge() {
	_v=$(uname -r)
	_maj=${_v%%.*}
	_min=${_v#*.}
	_min=${_min%%[!0-9]*}
	[ "$_maj" -gt "$1" ] || { [ "$_maj" -eq "$1" ] && [ "$_min" -ge "$2" ]; }
}

# io_busy_chans: the provider's channels in use, one a line
io_busy_chans() {
	for _c in /sys/class/dma/*; do
		[ "$(basename "$(readlink "$_c/device")")" = "$io_pci" ] &&
			[ "$(cat "$_c/in_use")" = 1 ] && echo "${_c##*/}"
	done
}

io_had_provider=
if grep -q '^udmem_edu_dma ' /proc/modules; then
	io_had_provider=1
fi
# the kernel's IIO modules loaded before the suite: the suite unloads the others
io_bufmods="industrialio industrialio_buffer_dma industrialio_buffer_dmaengine"
io_before=
for _m in $io_bufmods; do
	grep -q "^$_m " /proc/modules && io_before="$io_before $_m"
done

if ! udmem_pci_dev 0x1234 0x11e8 > /dev/null; then
	tap_skip iio "no PCI edu device in this guest (a board without PCI)"
elif [ ! -f /udmem/modules/udmem-edu-dma.ko ]; then
	tap_skip iio "no udmem-edu-dma.ko: kernel $UDMEM_KVER has no dmaengine (CONFIG_DMA_ENGINE)"
elif [ ! -f /udmem/modules/udmem-iio-dma.ko ]; then
	tap_skip iio "no udmem-iio-dma.ko: kernel $UDMEM_KVER has no IIO dmaengine buffer (CONFIG_IIO_BUFFER_DMAENGINE)"
elif ! io_kmods industrialio industrialio-buffer-dma industrialio-buffer-dmaengine; then
	tap_skip iio "kernel $UDMEM_KVER: module $io_missing is not in /udmem/kmods or /udmem/modules"
else
	if [ -n "$io_had_provider" ]; then
		rmmod udmem_edu_dma
	fi
	if ! udmem_insmod udmem-edu-dma map_client=udmem-iio-dma; then
		tap_fail setup "insmod udmem-edu-dma map_client=udmem-iio-dma failed"
	elif ! udmem_insmod u-dma-buf || ! udmem_insmod u-dma-buf-mgr; then
		tap_fail setup "insmod u-dma-buf, u-dma-buf-mgr failed"
	elif ! udmem_insmod udmem-iio-dma; then
		tap_fail devices-probe "insmod udmem-iio-dma: $(dmesg | tail -n 3 | tr '\n' ' ')"
	else
		io_rx=$(io_iio udmem-iio-rx)
		io_tx=$(io_iio udmem-iio-tx)
		tap_check rx-device test -n "$io_rx"
		# the channels by name: rx is the provider's last channel, tx its first
		tap_eq rx-channel "$io_pci" "$(basename "$(readlink /sys/bus/platform/devices/udmem-iio-dma/dma:rx/device 2>/dev/null)")"
		if [ -n "$io_tx" ]; then
			tap_eq tx-channel "$io_pci" "$(basename "$(readlink /sys/bus/platform/devices/udmem-iio-dma/dma:tx/device 2>/dev/null)")"
		fi
		echo "# rx: $io_rx, tx: ${io_tx:-none ($(dmesg | grep udmem-iio-dma | tail -n 1))}"

		if ! io_kver_ge 6 11; then
			tap_skip dmabuf "kernel $UDMEM_KVER has no IIO DMABUF interface (IIO_BUFFER_DMABUF_ATTACH_IOCTL is 6.11's)"
		else
			udmem_run IIO_RX="$io_rx" IIO_TX="$io_tx" EDU_DBG_RX="$io_dbg/chan1" \
				EDU_DBG_TX="$io_dbg/chan0" iio-dmabuf
		fi

		# ---- unload order: each module refuses while a user holds it
		if [ -n "$io_rx" ]; then
			exec 3< "/dev/${io_rx##*/}"
			if rmmod udmem_iio_dma 2> /dev/null; then
				tap_fail unload-refused-while-open "rmmod udmem_iio_dma succeeded with /dev/${io_rx##*/} open"
			else
				tap_ok unload-refused-while-open
			fi
			exec 3<&-
		fi
		if rmmod udmem_edu_dma 2> /dev/null; then
			tap_fail provider-unload-refused "rmmod udmem_edu_dma succeeded under the IIO buffers' channels"
		else
			tap_ok provider-unload-refused
		fi
		if rmmod industrialio_buffer_dmaengine 2> /dev/null; then
			tap_fail buffer-unload-refused "rmmod industrialio_buffer_dmaengine succeeded under udmem_iio_dma"
		else
			tap_ok buffer-unload-refused
		fi
		tap_check unload-devices rmmod udmem_iio_dma
		tap_eq channels-released "" "$(io_busy_chans)"
	fi
	for _m in udmem_iio_dma u_dma_buf_mgr u_dma_buf udmem_edu_dma; do
		grep -q "^$_m " /proc/modules && rmmod "$_m"
	done
	tap_check unload-provider test ! -d /sys/module/udmem_edu_dma
	for _m in $io_loaded; do
		rmmod "$_m"
	done
	_left=
	for _m in $io_bufmods; do
		case " $io_before " in *" $_m "*) continue ;; esac
		grep -q "^$_m " /proc/modules && _left="$_left $_m"
	done
	tap_eq iio-modules-unloaded "" "$_left"
	if [ -n "$io_had_provider" ]; then
		udmem_insmod udmem-edu-dma
	fi
fi
