# SPDX-License-Identifier: GPL-2.0 OR MIT
# quickstart: the round program of docs/quickstart.md (quickstart.c), as a
# user runs it: fill a buffer, sync for the device, start the engine, wait,
# sync for the CPU, read.  Two engines:
# - the UIO way (quickstart-uio.c) where QEMU's edu PCI device is: edu
#   bound to uio_pci_generic, its interrupt through /dev/uioN, the buffers
#   bound to it (udmabufN_bind=pci/...);
#   with a Python root over 9p (x86_64-python), the same round in Python,
#   python/examples/quickstart_uio.py;
# - on a board target the SoC's DMA engine (zynqmp_dma, PL330, PDMA)
#   through the test peer, the buffers bound to the engine;
# - the engine's own kernel driver through u-dma-chan (quickstart-chan.c),
#   which does the syncs: a board's engine, or on PCI targets the test
#   provider over the second edu device.
# A guest with neither is one SKIP each.

# shellcheck disable=SC2154 # udmem_board_*: set by lib.sh's udmem_board_* helpers

qs_mods=""
qs_cleanup() {
	for _m in $qs_mods; do
		udmem_rmmod "$_m" || tap_fail "rmmod-$_m" "rmmod $_m failed"
	done
	qs_mods=""
}

# qs_round TAG ARGS...: run the program on udmabuf0 -> udmabuf1
qs_round() {
	_tag=$1
	shift
	if qs_out=$(quickstart udmabuf0 udmabuf1 "$@" 2>&1); then
		tap_ok "$_tag"
	else
		tap_fail "$_tag" "$(echo "$qs_out" | tail -n 2 | tr '\n' ' ')"
	fi
	echo "$qs_out" | sed "s/^/# $_tag: /"
}

# qs_python UIO PCI: the Python round, where the host's root is mounted over
# 9p (/udmem/host-top names the repository in it)
qs_python() {
	if [ ! -x /host/usr/bin/python3 ] || [ ! -f /udmem/host-top ]; then
		tap_skip python-uio-round "no Python root over 9p in this guest (x86_64-python has one)"
		return
	fi
	_top=$(cat /udmem/host-top)
	if qs_out=$(chroot /host /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		PYTHONPATH="$_top/python/src" PYTHONDONTWRITEBYTECODE=1 \
		python3 "$_top/python/examples/quickstart_uio.py" udmabuf0 udmabuf1 "$@" 2>&1); then
		tap_ok python-uio-round
	else
		tap_fail python-uio-round "$(echo "$qs_out" | tail -n 2 | tr '\n' ' ')"
	fi
	echo "$qs_out" | sed "s/^/# python-uio-round: /"
}

# ---- the UIO way: edu behind uio_pci_generic
qs_edu=$(udmem_pci_dev 0x1234 0x11e8)
if [ -z "$qs_edu" ]; then
	tap_skip uio-round "no edu PCI device in this guest (the x86_64 and arm64 targets have one)"
elif [ ! -f /udmem/kmods/uio_pci_generic.ko ] || [ ! -f /udmem/kmods/uio.ko ]; then
	tap_skip uio-round "this kernel has no uio_pci_generic module"
elif [ -e "$qs_edu/driver" ]; then
	tap_skip uio-round "edu is bound to $(basename "$(readlink "$qs_edu/driver")")"
else
	qs_pci=${qs_edu##*/}
	if insmod /udmem/kmods/uio.ko && insmod /udmem/kmods/uio_pci_generic.ko; then
		qs_mods="uio_pci_generic uio"
		tap_ok uio-pci-generic-loads
	else
		tap_fail uio-pci-generic-loads "insmod uio, uio_pci_generic failed"
	fi
	echo "1234 11e8" > /sys/bus/pci/drivers/uio_pci_generic/new_id 2>/dev/null
	qs_uio=
	for _u in "$qs_edu"/uio/uio*; do
		[ -e "$_u" ] && qs_uio=${_u##*/}
	done
	if [ -n "$qs_uio" ] && [ -e "/dev/$qs_uio" ]; then
		tap_ok edu-bound-to-uio
	else
		tap_fail edu-bound-to-uio "no $qs_edu/uio/uioN: $(dmesg | tail -n 2 | tr '\n' ' ')"
	fi
	if [ -n "$qs_uio" ] &&
		udmem_insmod u-dma-buf udmabuf0=0x4000 udmabuf0_bind="pci/$qs_pci" \
			udmabuf1=0x4000 udmabuf1_bind="pci/$qs_pci"; then
		qs_round uio-round "/dev/$qs_uio" "$qs_pci"
		qs_python "/dev/$qs_uio" "$qs_pci"
		udmem_rmmod u-dma-buf
	elif [ -n "$qs_uio" ]; then
		tap_fail uio-round "insmod u-dma-buf bound to pci/$qs_pci failed"
	fi
	echo "$qs_pci" > /sys/bus/pci/drivers/uio_pci_generic/unbind 2>/dev/null
	echo "1234 11e8" > /sys/bus/pci/drivers/uio_pci_generic/remove_id 2>/dev/null
	qs_cleanup
fi

# ---- a board: the SoC's DMA engine
udmem_board_engines
if [ -z "$(ls /sys/class/dma 2>/dev/null)" ]; then
	tap_skip board-round "no dmaengine channel in this guest (board targets have one)"
elif ! udmem_board_peer; then
	tap_fail board-round "insmod udmem-dmaengine-test failed: $udmem_board_why"
else
	if udmem_insmod u-dma-buf udmabuf0=0x100000 udmabuf0_bind="$udmem_board_bind" \
		udmabuf1=0x100000 udmabuf1_bind="$udmem_board_bind"; then
		qs_round board-round
	else
		tap_fail board-round "insmod u-dma-buf bound to $udmem_board_bind failed"
	fi
	udmem_board_unload
fi

# ---- the same round through u-dma-chan: the engine's own kernel driver,
# the syncs done by the module (a board's engine, or the test provider over
# the second edu device on PCI targets)
qs_prov=
if [ -z "$(ls /sys/class/dma 2>/dev/null)" ] && [ -f /udmem/modules/udmem-edu-dma.ko ] &&
	[ -e /sys/bus/pci/devices/0000:00:10.0 ] && udmem_insmod udmem-edu-dma; then
	qs_prov=udmem-edu-dma
fi
if [ ! -f /udmem/modules/u-dma-chan.ko ]; then
	tap_skip chan-round "u-dma-chan is not built for this kernel (it needs sync_file, DMA-BUF and dmaengine)"
elif [ -z "$(ls /sys/class/dma 2>/dev/null)" ]; then
	tap_skip chan-round "no dmaengine channel in this guest (board targets and PCI targets have one)"
elif ! udmem_insmod u-dma-buf udmabuf0=0x10000 udmabuf1=0x10000; then
	tap_fail chan-round "insmod u-dma-buf failed: $(dmesg | tail -n 2 | tr '\n' ' ')"
else
	if ! udmem_insmod u-dma-chan memcpy=qs-chan; then
		tap_fail chan-round "insmod u-dma-chan memcpy=qs-chan failed: $(dmesg | tail -n 2 | tr '\n' ' ')"
	elif [ ! -e /dev/qs-chan ]; then
		tap_skip chan-round "no channel here can copy memory (DMA_MEMCPY)"
		udmem_rmmod u-dma-chan
	else
		echo "# chan-round: $(cat /sys/class/u-dma-chan/qs-chan/channel) of $(cat /sys/class/u-dma-chan/qs-chan/device)"
		if qs_out=$(quickstart-chan udmabuf0 udmabuf1 qs-chan 2>&1); then
			tap_ok chan-round
		else
			tap_fail chan-round "$(echo "$qs_out" | tail -n 2 | tr '\n' ' ')"
		fi
		echo "$qs_out" | sed 's/^/# chan-round: /'
		udmem_rmmod u-dma-chan
	fi
	udmem_rmmod u-dma-buf
fi
[ -n "$qs_prov" ] && udmem_rmmod "$qs_prov"
udmem_board_unload_engines
