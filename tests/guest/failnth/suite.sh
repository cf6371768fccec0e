# SPDX-License-Identifier: GPL-2.0 OR MIT
# failnth: every allocation under an operation failed in turn through
# /proc/thread-self/fail-nth (failnth.c says which operations and what each
# failure must leave), then: no buffer or channel left behind, and the
# modules unload (a reference a failed operation kept would hold them).
# The harness's kernel-log and kmemleak checks judge the rest.  Needs a
# kernel with CONFIG_FAULT_INJECTION, FAILSLAB, FAIL_PAGE_ALLOC and
# FAULT_INJECTION_DEBUG_FS (the debug targets); elsewhere the tests skip.
# failload.c fails the allocations of the drivers' module loads.
# The u-dma-chan tests use the edu provider (tests/kmod/udmem-edu-dma.c)
# where the guest has its device, else any channel that can copy memory.

fn_loaded() { grep -q "^$1 " /proc/modules; }

# Module loads first, while neither driver is loaded (failload.c): u-dma-buf
# with two buffers, uiomem with a region on the ivshmem BAR when there is one.
fn_bar=
if _d=$(udmem_pci_dev 0x1af4 0x1110); then
	fn_bar=$(sed -n 3p "$_d/resource" | {
		read -r _s _e _f
		[ "$_s" != "0x0000000000000000" ] && printf '0x%x 0x%x\n' $((_s)) $((_e - _s + 1))
	})
fi
udmem_run FAILLOAD_UIOMEM="$fn_bar" failload

fn_edu=
if [ -f /udmem/modules/udmem-edu-dma.ko ] && [ -e /sys/bus/pci/devices/0000:00:10.0 ] &&
	! fn_loaded udmem_edu_dma; then
	if udmem_insmod udmem-edu-dma; then
		fn_edu=1
	else
		tap_fail edu-provider "insmod udmem-edu-dma failed: $(dmesg | tail -n 2 | tr '\n' ' ')"
	fi
fi
fn_chan=
if [ -f /udmem/modules/u-dma-chan.ko ] && ! fn_loaded u_dma_chan; then
	if udmem_insmod u-dma-chan; then
		fn_chan=1
	else
		tap_fail u-dma-chan "insmod u-dma-chan failed: $(dmesg | tail -n 2 | tr '\n' ' ')"
	fi
fi

if udmem_insmod u-dma-buf info_enable=0 && udmem_insmod u-dma-buf-mgr; then
	tap_ok setup
	udmem_run failnth
	left=
	for b in /sys/class/u-dma-buf/fn-* /sys/class/u-dma-chan/fn-*; do
		[ -e "$b" ] || continue
		left="$left ${b##*/}"
		case $b in
		*/u-dma-buf/*) echo "delete ${b##*/}" > /dev/u-dma-buf-mgr ;;
		*) echo "delete ${b##*/}" > /dev/u-dma-chan-mgr ;;
		esac
	done
	tap_eq nothing-left "" "$left"
	[ -n "$fn_chan" ] && tap_check rmmod-u-dma-chan udmem_rmmod u-dma-chan
	for m in u-dma-buf-mgr u-dma-buf; do
		tap_check "rmmod-$m" udmem_rmmod $m
	done
else
	tap_fail setup "insmod u-dma-buf or u-dma-buf-mgr failed"
fi
for m in u_dma_chan u_dma_buf_mgr u_dma_buf; do
	fn_loaded $m && rmmod $m
done
[ -n "$fn_edu" ] && udmem_rmmod udmem-edu-dma
true
