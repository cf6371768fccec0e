# SPDX-License-Identifier: GPL-2.0 OR MIT
# udmabuf-api: u-dma-buf's in-kernel API driven by a module built against
# the original driver's declarations (tests/kmod/udmem-api-test.c), then the
# buffer it made and filled, seen from user space.

ua_log() {
	dmesg | sed -n 's/.*udmem-api-test: //p'
}

# udmabuf2 is a module-parameter buffer the module finds, uses and removes.
if ! udmem_insmod u-dma-buf udmabuf2=0x2000; then
	tap_fail setup "insmod u-dma-buf failed"
elif ! udmem_insmod udmem-api-test static_name=udmabuf2; then
	tap_fail setup "insmod udmem-api-test failed: $(ua_log | tail -n 2 | tr '\n' ' ')"
	udmem_rmmod u-dma-buf
else
	tap_ok setup
	# One TAP line per check the module logged; "done N" closes the list.
	ua_log | while read -r _res _rest; do
		case $_res in
		ok) tap_ok "kernel/$_rest" ;;
		not) _name=${_rest#ok }
			tap_fail "kernel/${_name%%:*}" "${_name#*: }" ;;
		esac
	done
	tap_eq kernel/all-checks-logged "done 0" "$(ua_log | grep '^done' | tail -n 1)"
	if [ -e /dev/udmabuf2 ] || [ -e /sys/class/u-dma-buf/udmabuf2 ]; then
		tap_fail static-buffer-removed-by-api "/dev/udmabuf2 is still there"
	else
		tap_ok static-buffer-removed-by-api
	fi

	# The bytes the module wrote through getmap's address, read through
	# the character device: pattern (i * 7 + 3) & 0xff.
	tap_eq data-written-in-kernel-read-by-user " 03 0a 11 18 1f 26 2d 34" \
		"$(od -An -tx1 -N8 /dev/ut-api0)"
	tap_eq data-at-last-bytes " e7 ee f5 fc" \
		"$(od -An -tx1 -j 65532 -N4 /dev/ut-api0)"
	# getmap's address is the one sysfs shows.
	_phys=$(ua_log | sed -n 's/^phys //p' | tail -n 1)
	tap_eq getmap-phys-is-sysfs-phys_addr "$(cat /sys/class/u-dma-buf/ut-api0/phys_addr)" "$_phys"
	# The last sync call stored its range (size 0 is "keep", as in the original).
	tap_eq sync-stored-size 4096 "$(cat /sys/class/u-dma-buf/ut-api0/sync_size)"
	tap_eq sync-stored-offset 0x0 "$(cat /sys/class/u-dma-buf/ut-api0/sync_offset)"
	tap_check rmmod-removes-api-buffers udmem_rmmod udmem-api-test
	if [ -e /dev/ut-api0 ]; then
		tap_fail buffer-gone-after-rmmod "/dev/ut-api0 still exists"
	else
		tap_ok buffer-gone-after-rmmod
	fi
	udmem_rmmod u-dma-buf
fi
