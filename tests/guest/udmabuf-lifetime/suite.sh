# SPDX-License-Identifier: GPL-2.0 OR MIT
# udmabuf-lifetime: delete, unbind and rmmod while a buffer is open, mapped
# or exported (see docs/buffers.md, "Lifetime").

if ! udmem_insmod u-dma-buf udmabuf3=0x100000; then
	tap_fail setup "insmod u-dma-buf udmabuf3=0x100000 failed"
elif ! udmem_insmod u-dma-buf-mgr; then
	tap_fail setup "insmod u-dma-buf-mgr failed"
	udmem_rmmod u-dma-buf
else
	tap_ok setup
	udmem_run udmabuf-lifetime
	udmem_rmmod u-dma-buf-mgr

	# rmmod is refused while a file is open, and works once it is closed.
	exec 3< /dev/udmabuf3
	if udmem_rmmod u-dma-buf 2>/dev/null; then
		tap_fail rmmod_while_open_refused "rmmod succeeded with /dev/udmabuf3 open"
	else
		tap_ok rmmod_while_open_refused
	fi
	exec 3<&-
	if [ -d /sys/module/u_dma_buf ]; then
		tap_check rmmod_after_close udmem_rmmod u-dma-buf
	else
		tap_fail rmmod_after_close "module vanished while open"
	fi
fi
if lsmod | grep -q '^u_dma_buf'; then
	udmem_rmmod u-dma-buf-mgr 2>/dev/null
	udmem_rmmod u-dma-buf 2>/dev/null
fi
