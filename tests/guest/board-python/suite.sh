# SPDX-License-Identifier: GPL-2.0 OR MIT
# board-python: on a board target with a Python root (python_root = yes:
# Debian's python3 and numpy of the board's architecture, packed into the
# initramfs as /host, and the udmem package at /udmem/python), the board's
# DMA engine copies between two u-dma-buf buffers bound to it and between a
# buffer and the on-chip memory through uiomem, driven from Python
# (board_python.py says how).  Other guests have no Python: one SKIP.

# shellcheck disable=SC2154 # udmem_board_*: set by lib.sh's udmem_board_* helpers
bp_eng=""

# bp_chroot CMD...: CMD in the Python root, with a clean environment.
bp_chroot() {
	chroot /host /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp \
		PYTHONPATH=/run/udmem-python PYTHONDONTWRITEBYTECODE=1 "$@"
}

if [ ! -x /host/usr/bin/python3 ] || [ ! -d /udmem/python/udmem ]; then
	tap_skip python "no Python root in this guest (board targets with python_root = yes have one)"
else
	udmem_board_engines
	if ! udmem_board_peer; then
		tap_fail peer "insmod udmem-dmaengine-test failed: $udmem_board_why"
	else
		bp_eng=$udmem_board_eng
		echo "# peer: channel $udmem_board_chan of $bp_eng"
	fi
fi
if [ -n "$bp_eng" ]; then
	bp_bind=$udmem_board_bind
	tap_check buffers-bound-to-engine udmem_insmod u-dma-buf \
		udmabuf0=0x100000 udmabuf0_bind="$bp_bind" \
		udmabuf1=0x100000 udmabuf1_bind="$bp_bind"
	bp_region=$(udmem_board_region)
	[ -n "$bp_region" ] ||
		tap_fail region "no /dev/uiomem-ocm or /dev/uiomem-l2lim: $(dmesg | grep -i uiomem | tail -n 2)"
	for d in proc sys dev run tmp; do
		mkdir -p "/host/$d"
	done
	mount -t proc proc /host/proc
	mount -o bind /sys /host/sys
	mount -o bind /dev /host/dev
	mkdir -p /host/run/udmem-python
	cp -r /udmem/python/udmem ./board_python.py /host/run/udmem-python/
	# shellcheck disable=SC2086 # no region: no argument
	bp_out=$(bp_chroot python3 /run/udmem-python/board_python.py \
		udmabuf0 udmabuf1 $bp_region 2>&1)
	bp_rc=$?
	echo "$bp_out" | grep '^#'
	bp_checks="buffer-to-buffer buffer-to-buffer-reverse"
	[ -n "$bp_region" ] && bp_checks="$bp_checks buffer-to-region region-to-buffer"
	for c in $bp_checks; do
		bp_line=$(echo "$bp_out" | grep "^RESULT $c ")
		case $bp_line in
		"RESULT $c ok") tap_ok "python-$c" ;;
		"") tap_fail "python-$c" "no result (exit $bp_rc): $(echo "$bp_out" | tail -n 3 | tr '\n' ' ')" ;;
		*) tap_fail "python-$c" "${bp_line#RESULT "$c" fail }" ;;
		esac
	done
	umount /host/dev /host/sys /host/proc
	rm -rf /host/run/udmem-python
fi
udmem_board_unload
udmem_board_unload_engines
