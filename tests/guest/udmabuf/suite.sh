# SPDX-License-Identifier: GPL-2.0 OR MIT
# udmabuf: u-dma-buf conformance against ../shared/reference/u-dma-buf-interface.md.
# Module parameters, device-tree nodes (tests/qemu/dt/10-u-dma-buf.dtsi), the
# manager, and the C programs of this folder (sysfs, ioctl, chardev, export,
# mgr) on buffers made each way.  Sourced by busybox sh after lib.sh.

UT_KO=/udmem/modules/u-dma-buf.ko
UT_MGR_KO=/udmem/modules/u-dma-buf-mgr.ko
UT_CLS=/sys/class/u-dma-buf
UT_PAR=/sys/module/u_dma_buf/parameters
UT_EDU_PATH=$(udmem_pci_dev 0x1234 0x11e8)
UT_EDU=${UT_EDU_PATH##*/}
case $UDMEM_ARCH in
arm64|armhf) UT_QUIRK_DEFAULT=2 ;;
*) UT_QUIRK_DEFAULT=3 ;;
esac
case $UDMEM_ARCH in
armhf) UT_64BIT=0 ;;
*) UT_64BIT=1 ;;
esac

# ut_load [param=value...]: load u-dma-buf with info_enable=0 unless the
# arguments say otherwise (keeps the kernel log small); ut_load_plain loads
# with the arguments alone.  The errno line is in $ut_load_out.
ut_load() {
	ut_load_out=$(udmabuf-insmod "$UT_KO" info_enable=0 "$@" 2>&1)
}
ut_load_plain() {
	ut_load_out=$(udmabuf-insmod "$UT_KO" "$@" 2>&1)
}

ut_loaded() {
	grep -q '^u_dma_buf ' /proc/modules
}

ut_unload() {
	ut_loaded || return 0
	rmmod u_dma_buf
}

# ut_load_refused NAME ERRNO PARAM...: loading with PARAMs must fail with ERRNO.
ut_load_refused() {
	_name=$1
	_errno=$2
	shift 2
	ut_load "$@"
	if ut_loaded; then
		tap_fail "$_name" "insmod succeeded"
		ut_unload
	else
		tap_eq "$_name" "errno $_errno" "$(echo "$ut_load_out" | cut -d' ' -f1-2)"
	fi
}

# ut_prog [VAR=VALUE...] TAG DEV PROG [FILTER]: a conformance program on
# buffer DEV with extra environment, results named udmabuf/TAG/<test>.
ut_prog() {
	_envs=""
	while case $1 in *=*) true ;; *) false ;; esac; do
		_envs="$_envs $1"
		shift
	done
	_tag=$1
	_dev=$2
	_prog=$3
	shift 3
	# shellcheck disable=SC2086
	udmem_run $_envs UDMEM_SUITE="$UDMEM_SUITE/$_tag" UDMABUF_DEV="$_dev" "$_prog" "$@"
}

ut_attr() {
	cat "$UT_CLS/$1/$2" 2>/dev/null
}

# ut_attr_eq NAME DEV ATTR WANT
ut_attr_eq() {
	tap_eq "$1" "$4" "$(ut_attr "$2" "$3")"
}

# ut_minor DEV: the minor number from the dev attribute (MAJOR:MINOR)
ut_minor() {
	ut_attr "$1" dev | cut -d: -f2
}

# ut_parent DEV: name of the device the buffer hangs under
ut_parent() {
	_l=$(readlink "$UT_CLS/$1/device" 2>/dev/null)
	echo "${_l##*/}"
}

# ut_dmesg_mark / ut_dmesg_since: kernel log lines after the mark, by
# timestamp (the ring buffer wraps, so line counts do not work)
ut_dmesg_mark() {
	ut_mark=$(dmesg | tail -n 1 | sed -n 's/^\[ *\([0-9.]*\)\].*/\1/p')
	[ -n "$ut_mark" ] || ut_mark=0
}
ut_dmesg_since() {
	dmesg | awk -v m="$ut_mark" '{ s = $0; sub(/^\[ */, "", s); sub(/\].*/, "", s);
		if (s + 0 > m + 0) print }'
}

# ut_hold DEV MODE: start udmabuf-hold in the background; sets ut_hold_pid.
ut_hold() {
	rm -f /tmp/ut-ready
	udmabuf-hold "$1" "$2" /tmp/ut-ready &
	ut_hold_pid=$!
	_i=0
	while [ ! -e /tmp/ut-ready ] && [ $_i -lt 100 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	[ -e /tmp/ut-ready ]
}
ut_release() {
	kill -USR1 "$ut_hold_pid" 2>/dev/null
	wait "$ut_hold_pid"
}

if [ ! -f "$UT_KO" ]; then
	tap_fail setup "u-dma-buf.ko was not built"
	return 0
fi
ut_unload

# ut_dt_nodes off|on: keep the platform devices of the device-tree buffer
# nodes from binding (driver_override), or let them bind again.  The
# parameter tests load the module about 30 times, and each load would make
# every node's buffer (47 nodes, 100 MiB of pools on the seed's six): on
# the arm64 debug kernel that took 2.5 s a load against 0.8 s on x86_64,
# which has no device tree.  dt.sh tests the nodes themselves.
ut_dt_nodes() {
	[ "$UDMEM_HAS_DT" = 1 ] || return 0
	grep -l 'ikwzm,u-dma-buf' /sys/bus/platform/devices/*/of_node/compatible 2>/dev/null |
	while read -r _c; do
		if [ "$1" = off ]; then
			echo udmem-no-driver > "${_c%/of_node/compatible}/driver_override"
		else
			echo > "${_c%/of_node/compatible}/driver_override"
		fi
	done
}

# ---------------------------------------------------------------- parameters

ut_dt_nodes off

# Defaults, with no buffer.
if ut_load_plain; then
	tap_ok param/load-without-buffers
	tap_eq param/dma_mask_bit-default 32 "$(cat $UT_PAR/dma_mask_bit)"
	tap_eq param/quirk_mmap_mode-default "$UT_QUIRK_DEFAULT" "$(cat $UT_PAR/quirk_mmap_mode)"
	tap_eq param/info_enable-default 1 "$(cat $UT_PAR/info_enable)"
	tap_eq param/udmabuf0-default 0 "$(cat $UT_PAR/udmabuf0)"
	if [ -e "$UT_CLS/udmabuf0" ]; then
		tap_fail param/udmabuf0-absent-by-default "udmabuf0 exists without udmabuf0="
	else
		tap_ok param/udmabuf0-absent-by-default
	fi
	_perm=$(stat -c %a "$UT_PAR/udmabuf0" 2>/dev/null)
	tap_eq param/parameters-read-only 444 "$_perm"
	ut_unload
else
	tap_fail param/load-without-buffers "$ut_load_out"
fi

# All eight static buffers, sizes in decimal and hex, one not page aligned.
if ut_load udmabuf0=0x40000 udmabuf1=65537 udmabuf2=0x2000 udmabuf3=0x3000 \
	   udmabuf4=0x4000 udmabuf5=0x5000 udmabuf6=0x6000 udmabuf7=0x7000; then
	tap_ok param/load-eight-buffers
	# The original's modes: writable attributes are group-writable (udev rules
	# hand buffers to a group), the others read-only.
	_modes=
	for a in sync_mode sync_offset sync_size sync_direction sync_for_cpu \
		 sync_for_device debug_vma debug_export sync_owner size phys_addr; do
		_modes="$_modes $a=$(stat -c %a "$UT_CLS/udmabuf0/$a" 2>/dev/null)"
	done
	tap_eq sysfs/attribute-modes-as-reference \
		" sync_mode=664 sync_offset=664 sync_size=664 sync_direction=664 sync_for_cpu=664 sync_for_device=664 debug_vma=664 debug_export=664 sync_owner=444 size=444 phys_addr=444" \
		"$_modes"
	_bad=""
	for n in 0 1 2 3 4 5 6 7; do
		case $n in
		0) _want=262144 ;;
		1) _want=65537 ;;
		*) _want=$((n * 4096)) ;;
		esac
		[ "$(ut_attr udmabuf$n size)" = "$_want" ] ||
			_bad="$_bad udmabuf$n:size=$(ut_attr udmabuf$n size)(want $_want)"
		[ "$(ut_minor udmabuf$n)" = "$n" ] ||
			_bad="$_bad udmabuf$n:minor=$(ut_minor udmabuf$n)"
		[ -c "/dev/udmabuf$n" ] || _bad="$_bad /dev/udmabuf$n:missing"
		_mode=$(stat -c %a "/dev/udmabuf$n" 2>/dev/null)
		[ "$_mode" = 600 ] || _bad="$_bad /dev/udmabuf$n:mode=$_mode"
		[ "$(ut_parent udmabuf$n)" = "u-dma-buf.$n" ] ||
			_bad="$_bad udmabuf$n:parent=$(ut_parent udmabuf$n)"
		[ "$(ut_attr udmabuf$n sync_size)" = "$_want" ] ||
			_bad="$_bad udmabuf$n:sync_size=$(ut_attr udmabuf$n sync_size)"
	done
	if [ -z "$_bad" ]; then
		tap_ok param/udmabuf0-7-size-minor-node-parent
	else
		tap_fail param/udmabuf0-7-size-minor-node-parent "$_bad"
	fi
	tap_eq param/udmabuf1-reads-back 65537 "$(cat $UT_PAR/udmabuf1)"

	ut_prog p0 udmabuf0 udmabuf-sysfs
	ut_prog UDMABUF_MASK=32 p0 udmabuf0 udmabuf-ioctl
	ut_prog p0 udmabuf0 udmabuf-chardev
	ut_prog p0 udmabuf0 udmabuf-export
	# 32-bit user space on a 64-bit kernel: the compat_ioctl path
	if [ "$UDMEM_ARCH" = arm64 ]; then
		for p in udmabuf-ioctl udmabuf-export; do
			if [ -x "/udmem/bin/$p-compat32" ]; then
				ut_prog UDMABUF_MASK=32 p0-compat32 udmabuf0 "$p-compat32"
			else
				tap_fail "p0-compat32/$p" "the harness did not build $p-compat32"
			fi
		done
	fi
	ut_prog p1 udmabuf1 udmabuf-sysfs
	ut_prog p1 udmabuf1 udmabuf-chardev
	ut_prog p1 udmabuf1 udmabuf-export

	# rmmod refused while the buffer is open, mapped or exported
	for how in open mmap export; do
		if ut_hold udmabuf2 $how; then
			if rmmod u_dma_buf 2>/dev/null; then
				tap_fail "lifetime/rmmod-refused-while-$how" "rmmod succeeded"
			elif ut_loaded && [ -e "$UT_CLS/udmabuf2" ]; then
				tap_ok "lifetime/rmmod-refused-while-$how"
			else
				tap_fail "lifetime/rmmod-refused-while-$how" "module or buffer vanished"
			fi
			ut_release
			tap_eq "lifetime/$how-holder-unharmed" 0 "$?"
		else
			tap_fail "lifetime/rmmod-refused-while-$how" "udmabuf-hold $how failed"
			kill "$ut_hold_pid" 2>/dev/null
		fi
	done
	if ut_unload && [ ! -e "$UT_CLS/udmabuf0" ] && [ ! -e /dev/udmabuf0 ]; then
		tap_ok lifetime/rmmod-when-idle-removes-all
	else
		tap_fail lifetime/rmmod-when-idle-removes-all "rmmod failed or buffers remain"
	fi
else
	tap_fail param/load-eight-buffers "$ut_load_out"
fi

# quirk_mmap_mode 1..4: the parameter, the attribute, GET_DEV_INFO and the data paths
for m in 1 2 3 4; do
	if ut_load quirk_mmap_mode=$m udmabuf0=0x10000; then
		tap_eq "param/quirk_mmap_mode=$m" "$m $m" \
			"$(cat $UT_PAR/quirk_mmap_mode) $(ut_attr udmabuf0 quirk_mmap_mode)"
		ut_prog "q$m" udmabuf0 udmabuf-ioctl get_dev_info
		ut_prog "q$m" udmabuf0 udmabuf-chardev
		ut_unload
	else
		tap_fail "param/quirk_mmap_mode=$m" "$ut_load_out"
	fi
done

# dma_mask_bit
if ut_load dma_mask_bit=40 udmabuf0=0x10000; then
	ut_prog UDMABUF_MASK=40 mask40 udmabuf0 udmabuf-ioctl get_dev_info
	ut_unload
else
	tap_fail param/dma_mask_bit=40 "$ut_load_out"
fi

# info_enable: 0 silences, 1 prints the buffer, 3 adds DMA details, 4 a config line
ut_info_lines() {
	ut_dmesg_mark
	if ut_load_plain info_enable="$1" udmabuf0=0x10000; then
		ut_info_all=$(ut_dmesg_since | wc -l)
		ut_info_buf=$(ut_dmesg_since | grep -c udmabuf0)
		ut_unload
	else
		ut_info_all=-1
		ut_info_buf=-1
	fi
}
ut_info_lines 0
_i0="$ut_info_all/$ut_info_buf"
_i0buf=$ut_info_buf
ut_info_lines 1
_i1all=$ut_info_all
_i1buf=$ut_info_buf
ut_info_lines 3
_i3buf=$ut_info_buf
ut_info_lines 7
_i7all=$ut_info_all
tap_eq param/info_enable=0-silent 0 "$_i0buf"
if [ "$_i1buf" -gt 0 ]; then
	tap_ok param/info_enable=1-prints-buffer
else
	tap_fail param/info_enable=1-prints-buffer "no log line names udmabuf0 ($_i1buf)"
fi
if [ "$_i3buf" -gt "$_i1buf" ]; then
	tap_ok param/info_enable=3-adds-dma-details
else
	tap_fail param/info_enable=3-adds-dma-details "lines naming udmabuf0: 1 -> $_i1buf, 3 -> $_i3buf"
fi
if [ "$_i7all" -gt "$_i1all" ]; then
	tap_ok param/info_enable=7-adds-config-line
else
	tap_fail param/info_enable=7-adds-config-line "log lines: 1 -> $_i1all, 7 -> $_i7all"
fi

# Buffers bound to a PCI device (the edu device).
if [ -z "$UT_EDU" ]; then
	tap_fail param/bind "no edu PCI device (1234:11e8) in this guest"
else
	if ut_load udmabuf0=0x10000 udmabuf0_bind="pci/$UT_EDU" udmabuf1=0x10000; then
		tap_eq param/udmabuf0_bind-parent "$UT_EDU" "$(ut_parent udmabuf0)"
		tap_eq param/unbound-neighbour-parent u-dma-buf.1 "$(ut_parent udmabuf1)"
		ut_attr_eq param/bound-sync_size-is-size udmabuf0 sync_size 65536
		ut_prog UDMABUF_MASK=32 bind0 udmabuf0 udmabuf-ioctl
		ut_prog bind0 udmabuf0 udmabuf-sysfs
		ut_prog bind0 udmabuf0 udmabuf-chardev data_
		ut_prog bind0 udmabuf0 udmabuf-export export_whole
		ut_unload
	else
		tap_fail param/udmabuf0_bind "$ut_load_out"
	fi
	if ut_load bind="pci/$UT_EDU" udmabuf2=0x10000 udmabuf3=0x2000; then
		tap_eq param/bind-fallback-parents "$UT_EDU $UT_EDU" \
			"$(ut_parent udmabuf2) $(ut_parent udmabuf3)"
		ut_unload
	else
		tap_fail param/bind-fallback "$ut_load_out"
	fi
	for b in "udmabuf0_bind=pci/0000:ff:1f.7" "bind=nosuchbus/x" \
		 "udmabuf0_bind=platform/u-dma-buf.0" "udmabuf0_bind=no-such-device" \
		 "bind=pci/" "udmabuf0_bind=pci_express/no-such-service"; do
		ut_load_refused "param/bad-bind-einval($b)" EINVAL udmabuf0=0x10000 "$b"
	done
fi

# udmabufN_dma_coherent (a udmem addition): the buffer's own platform device
# counts as DMA-coherent; a neighbour keeps the platform's default (that of
# a buffer loaded alone); a bound parent's coherency is not ours to change.
_dc_default=none
if ut_load udmabuf1=0x10000; then
	_dc_default=$(ut_attr udmabuf1 dma_coherent)
	ut_unload
fi
if ut_load udmabuf0=0x10000 udmabuf0_dma_coherent=1 udmabuf1=0x10000; then
	if [ ! -e /sys/class/u-dma-buf/udmabuf0 ] &&
		dmesg | grep -q 'cannot mark the device DMA-coherent'; then
		tap_skip param/udmabuf0_dma_coherent \
			"this kernel chose its DMA operations at device setup (ARM before 5.19)"
	else
		ut_attr_eq param/udmabuf0_dma_coherent udmabuf0 dma_coherent 1
		ut_prog dmacoherent0 udmabuf0 udmabuf-chardev data_
	fi
	ut_attr_eq param/neighbour-keeps-default-coherency udmabuf1 dma_coherent "$_dc_default"
	ut_unload
else
	tap_fail param/udmabuf0_dma_coherent "$ut_load_out"
fi
for b in "udmabuf0_dma_coherent=maybe" ${UT_EDU:+"udmabuf0_bind=pci/$UT_EDU"}; do
	ut_load_refused "param/dma_coherent-refused($b)" EINVAL \
		udmabuf0=0x10000 udmabuf0_dma_coherent=1 "$b"
done
# udmabufN_keep_contents (a udmem addition) needs a bind= device with a
# no-map memory-region (dt.sh); a buffer's own platform device has none
ut_load_refused param/keep_contents-refused-without-region EINVAL \
	udmabuf0=0x10000 udmabuf0_keep_contents=1

# ut_bind_bus <bus> <device, or empty> <what>: udmabuf0 bound as <bus>/<device>
ut_bind_bus() {
	if [ -z "$2" ]; then
		tap_skip "param/bind-$1" "no $3 on $UDMEM_TARGET"
	elif ut_load udmabuf0=0x10000 udmabuf0_bind="$1/$2"; then
		tap_eq "param/bind-$1-parent" "$2" "$(ut_parent udmabuf0)"
		ut_prog "bind-$1" udmabuf0 udmabuf-chardev data_
		ut_prog "bind-$1" udmabuf0 udmabuf-sysfs
		ut_unload
	else
		tap_fail "param/bind-$1" "$ut_load_out"
	fi
}

# amba/<device>: an AMBA device (ARM device-tree machines).  pci_express/<service>:
# a PCI Express port service (the harness adds a pcie-root-port), whose bus is
# found without the symbol the kernel stopped exporting in 6.6.  The manager's
# bus=amba and bus=pci_express are tested by udmabuf-mgr below.
# ut_first DIR: the first name in DIR (empty when there is none).
ut_first() {
	for _f in "$1"/*; do
		[ -e "$_f" ] && echo "${_f##*/}" && return 0
	done
}
ut_amba=$(ut_first /sys/bus/amba/devices)
ut_bind_bus amba "$ut_amba" "AMBA bus"
ut_pcie=$(ut_first /sys/bus/pci_express/devices)
ut_bind_bus pci_express "$ut_pcie" "PCI Express port service device"

# Values that are not numbers
for v in "udmabuf0=abc" "udmabuf0=0x" "udmabuf0=-1" "dma_mask_bit=x" "info_enable=1k"; do
	ut_load_refused "param/bad-value-einval($v)" EINVAL "$v"
done

# Sizes the guest cannot hold: insmod loads, the buffer is missing (never
# truncated), the others are made, and the allocator does not splat.
if [ "$UT_64BIT" = 1 ]; then
	set -- udmabuf0=0x100000000 udmabuf1=0x40000000
else
	set -- udmabuf1=0x40000000
fi
if ut_load "$@" udmabuf2=0x1000; then
	_bad=""
	for n in 0 1; do
		if [ -e "$UT_CLS/udmabuf$n" ]; then
			_bad="$_bad udmabuf$n exists with size $(ut_attr udmabuf$n size)"
		fi
	done
	[ "$(ut_attr udmabuf2 size)" = 4096 ] || _bad="$_bad udmabuf2 missing"
	if [ -z "$_bad" ]; then
		tap_ok param/oversized-buffers-missing-others-made
	else
		tap_fail param/oversized-buffers-missing-others-made "$_bad"
	fi
	ut_unload
else
	tap_fail param/oversized-buffers-missing-others-made "$ut_load_out"
fi
if [ "$UT_64BIT" = 0 ]; then
	# unsigned long is 32 bits: 4 GiB cannot be given at all
	ut_load udmabuf0=0x100000000
	if ut_loaded; then
		tap_eq param/udmabuf0=4GiB-on-32bit "" "$(ut_attr udmabuf0 size)"
		ut_unload
	else
		tap_ok param/udmabuf0=4GiB-on-32bit
	fi
fi

ut_dt_nodes on

# ---------------------------------------------------------------- manager

if [ ! -f "$UT_MGR_KO" ]; then
	tap_fail mgr/setup "u-dma-buf-mgr.ko was not built"
elif ! ut_load; then
	tap_fail mgr/setup "$ut_load_out"
elif ! udmem_insmod u-dma-buf-mgr; then
	tap_fail mgr/setup "insmod u-dma-buf-mgr failed"
	ut_unload
else
	if [ -c /dev/u-dma-buf-mgr ]; then
		tap_ok mgr/node
	else
		tap_fail mgr/node "/dev/u-dma-buf-mgr missing"
	fi
	ut_prog UDMABUF_PCI="$UT_EDU" UDMABUF_AMBA="$ut_amba" UDMABUF_PCIE="$ut_pcie" mgr - udmabuf-mgr
	# keep-contents: the refusals here, everything on device-tree targets (dt.sh)
	[ "$UDMEM_HAS_DT" = 1 ] || ut_prog keep - udmabuf-keep
	# a buffer made by the manager is a full citizen
	echo "create ut-mgr-full 0x40000" > /dev/u-dma-buf-mgr
	ut_prog UDMABUF_MASK=32 mgrbuf ut-mgr-full udmabuf-ioctl
	ut_prog mgrbuf ut-mgr-full udmabuf-sysfs
	ut_prog mgrbuf ut-mgr-full udmabuf-chardev data_
	ut_prog mgrbuf ut-mgr-full udmabuf-export
	# u-dma-buf stays while the manager uses it
	if rmmod u_dma_buf 2>/dev/null; then
		tap_fail lifetime/rmmod-u-dma-buf-refused-under-mgr "rmmod succeeded"
	else
		tap_ok lifetime/rmmod-u-dma-buf-refused-under-mgr
	fi
	# removing the manager with a buffer it made: refused, or allowed with the
	# buffer left to u-dma-buf (still usable, removed by rmmod u-dma-buf)
	if rmmod u_dma_buf_mgr 2>/dev/null; then
		if [ ! -e "$UT_CLS/ut-mgr-full" ] ||
		   dd if=/dev/ut-mgr-full of=/dev/null bs=4096 count=1 2>/dev/null; then
			tap_ok lifetime/rmmod-mgr-with-buffer
		else
			tap_fail lifetime/rmmod-mgr-with-buffer "ut-mgr-full left behind unreadable"
		fi
	else
		if [ -e "$UT_CLS/ut-mgr-full" ] && [ -c /dev/u-dma-buf-mgr ]; then
			tap_ok lifetime/rmmod-mgr-with-buffer
		else
			tap_fail lifetime/rmmod-mgr-with-buffer "refused, but the buffer or the node vanished"
		fi
		echo "delete ut-mgr-full" > /dev/u-dma-buf-mgr
		rmmod u_dma_buf_mgr
	fi
	ut_unload
	if [ -e "$UT_CLS/ut-mgr-full" ]; then
		tap_fail lifetime/rmmod-removes-mgr-buffers "ut-mgr-full survived rmmod u-dma-buf"
	else
		tap_ok lifetime/rmmod-removes-mgr-buffers
	fi
	if ut_loaded || grep -q '^u_dma_buf_mgr ' /proc/modules; then
		tap_fail mgr/unload "modules still loaded: $(grep u_dma_buf /proc/modules | cut -d' ' -f1)"
	else
		tap_ok mgr/unload
	fi
fi

# ---------------------------------------------------------------- device tree

if [ "$UDMEM_HAS_DT" != 1 ]; then
	tap_skip dt "no device tree on $UDMEM_ARCH (ACPI/PC platform)"
else
	. ./dt.sh
fi
ut_unload
rm -f /tmp/ut-ready
