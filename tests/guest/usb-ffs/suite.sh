# SPDX-License-Identifier: GPL-2.0 OR MIT
# usb-ffs: a u-dma-buf buffer streamed over USB FunctionFS.  dummy_hcd gives
# the guest a UDC (dummy_udc.0) and, on its root hub, the host side; a
# configfs gadget with one FunctionFS function is bound to it, the usb-ffs
# program writes its descriptors, sends through its bulk IN endpoint
# (write(), and FUNCTIONFS_DMABUF_* with an export of udmabuf0) and reads
# every byte back through usbfs.  Sourced by busybox sh after lib.sh.

uf_gadget=/sys/kernel/config/usb_gadget/udmem
uf_ffs=/dev/ffs-udmem
uf_vid=1209
uf_pid=7564
uf_loaded=
uf_configfs=

# uf_kmods NAME...: insmod each from /udmem/kmods after what its .modinfo
# `depends=` names; those loaded or built in are passed over.  1 with the
# missing one in $uf_missing.
uf_kmods() {
	uf_missing=
	while [ $# -gt 0 ]; do
		_l=$(echo "$1" | tr - _)
		if ! grep -q "^$_l " /proc/modules && [ ! -d "/sys/module/$_l" ]; then
			if [ ! -f "/udmem/kmods/$1.ko" ]; then
				uf_missing=$1
				return 1
			fi
			# shellcheck disable=SC2046 # one word a module
			uf_kmods $(tr '\0' '\n' < "/udmem/kmods/$1.ko" | sed -n 's/^depends=//p' | tr , ' ') ||
				return 1
			insmod "/udmem/kmods/$1.ko" ||
				{ uf_missing="$1 (insmod failed)"; return 1; }
			# $_l again: the dependencies' call changed it
			uf_loaded="$(echo "$1" | tr - _) $uf_loaded"
		fi
		shift
	done
}

# uf_setup: configfs gadget with one FunctionFS function, mounted at $uf_ffs
uf_setup() {
	grep -q configfs /proc/filesystems || return 1
	if ! grep -q ' /sys/kernel/config ' /proc/mounts; then
		mount -t configfs none /sys/kernel/config || return 1
		uf_configfs=1
	fi
	mkdir "$uf_gadget" &&
		echo "0x$uf_vid" > "$uf_gadget/idVendor" &&
		echo "0x$uf_pid" > "$uf_gadget/idProduct" &&
		mkdir "$uf_gadget/strings/0x409" &&
		echo udmem > "$uf_gadget/strings/0x409/manufacturer" &&
		echo "udmem usb-ffs" > "$uf_gadget/strings/0x409/product" &&
		echo 0001 > "$uf_gadget/strings/0x409/serialnumber" &&
		mkdir "$uf_gadget/functions/ffs.udmem" &&
		mkdir "$uf_gadget/configs/c.1" &&
		ln -s "$uf_gadget/functions/ffs.udmem" "$uf_gadget/configs/c.1/" &&
		mkdir -p "$uf_ffs" &&
		mount -t functionfs udmem "$uf_ffs"
}

uf_teardown() {
	grep -q " $uf_ffs " /proc/mounts && umount "$uf_ffs"
	rmdir "$uf_ffs" 2>/dev/null
	if [ -d "$uf_gadget" ]; then
		rm -f "$uf_gadget/configs/c.1/ffs.udmem"
		rmdir "$uf_gadget/configs/c.1" "$uf_gadget/functions/ffs.udmem" \
			"$uf_gadget/strings/0x409" "$uf_gadget" 2>/dev/null
	fi
	[ -z "$uf_configfs" ] || umount /sys/kernel/config
	for _m in u_dma_buf_mgr u_dma_buf; do
		grep -q "^$_m " /proc/modules && rmmod $_m
	done
	for _l in $uf_loaded; do
		rmmod "$_l" || tap_fail rmmod "rmmod $_l failed"
	done
	true
}

if [ ! -f /udmem/kmods/usb_f_fs.ko ] && [ ! -d /sys/module/usb_f_fs ]; then
	tap_skip suite "no FunctionFS (usb_f_fs) in this kernel's modules"
elif [ ! -f /udmem/kmods/dummy_hcd.ko ] && [ ! -d /sys/module/dummy_hcd ]; then
	tap_skip suite "no dummy_hcd in this kernel's modules: no UDC to bind a gadget to"
elif ! uf_kmods dummy_hcd libcomposite usb_f_fs; then
	tap_skip suite "a module dummy_hcd, libcomposite or usb_f_fs needs is missing: $uf_missing"
	uf_teardown
elif ! uf_setup; then
	tap_fail setup "configfs gadget with a FunctionFS function: $(dmesg | tail -n 2 | tr '\n' ' ')"
	uf_teardown
elif ! udmem_insmod u-dma-buf info_enable=0 udmabuf0=0x100000 ||
     ! udmem_insmod u-dma-buf-mgr; then
	tap_fail setup "insmod u-dma-buf, u-dma-buf-mgr failed"
	uf_teardown
else
	uf_udc=
	for _u in /sys/class/udc/*; do
		[ -e "$_u" ] && uf_udc=${_u##*/} && break
	done
	tap_eq udc dummy_udc.0 "$uf_udc"
	udmem_run FFS_DIR=$uf_ffs FFS_GADGET=$uf_gadget FFS_UDC="$uf_udc" FFS_VID=$uf_vid \
		FFS_PID=$uf_pid UDMABUF_DEV=udmabuf0 usb-ffs
	# The same tests on a UDC that does scatter-gather (so FunctionFS takes
	# DMA-BUFs), whose char device stands for the host: the export's bytes
	# go through FunctionFS's DMABUF path.
	if [ ! -f /udmem/modules/udmem-test-udc.ko ]; then
		tap_skip tudc "udmem-test-udc not built: this kernel has no USB gadget framework"
	elif ! udmem_insmod udmem-test-udc; then
		tap_fail tudc/setup "insmod udmem-test-udc failed: $(dmesg | tail -n 2 | tr '\n' ' ')"
	else
		udmem_run UDMEM_SUITE="$UDMEM_SUITE/tudc" FFS_DIR=$uf_ffs FFS_GADGET=$uf_gadget \
			FFS_UDC=udmem-test-udc FFS_HOST=tudc UDMABUF_DEV=udmabuf0 usb-ffs
		udmem_rmmod udmem-test-udc || tap_fail tudc/rmmod "rmmod udmem-test-udc failed"
	fi
	uf_teardown
fi
