# SPDX-License-Identifier: GPL-2.0 OR MIT
# fuzz: the structure-aware fuzzer of fuzz.c (what it generates and checks
# is said there) over u-dma-buf, its manager, a uiomem region and a
# u-dma-chan channel (over the test provider of the second edu device), for
# FUZZ_OPS operations (default 5000) from FUZZ_SEED (default: from
# /dev/urandom; always printed).  Then a check that the fuzzer can fail: its
# invariant check, given a shadow that differs from the buffer, must report
# the seed and the operation, and the buffer that test leaves must be
# removed for it.
#
# Replay a failure (the kernel passes NAME=VALUE words of its command line
# to /init):
#   tests/qemu/udmem-qemu run x86_64 --suite fuzz --append "FUZZ_SEED=<seed>"
# A longer run: --append "FUZZ_OPS=100000".

# Delete the channels a fuzz run left (it failed): their names, for the check.
fz_chan_left() {
	for _c in /sys/class/u-dma-chan/fuzz*; do
		[ -e "$_c" ] || continue
		printf ' %s' "${_c##*/}"
		echo "delete ${_c##*/}" > /dev/u-dma-chan-mgr
	done
}

fz_unload() {
	for _m in u_dma_chan u_dma_buf_mgr u_dma_buf uiomem udmem_edu_dma; do
		grep -q "^$_m " /proc/modules && rmmod $_m
	done
}

if [ -z "$FUZZ_SEED" ]; then
	FUZZ_SEED=$(udmem_seed)
fi
FUZZ_OPS=${FUZZ_OPS:-5000}
export FUZZ_SEED FUZZ_OPS
echo "# fuzz: seed $FUZZ_SEED, $FUZZ_OPS operations; replay: --append \"FUZZ_SEED=$FUZZ_SEED\""

fz_unload
# A uiomem region: 64 KiB of the ivshmem BAR from 64 KiB on (the first page
# is the host peer's mailbox).
set --
FUZZ_UIOMEM=
_d=$(udmem_pci_dev 0x1af4 0x1110) && _bar=$(sed -n 3p "$_d/resource")
if [ -n "$_bar" ]; then
	# shellcheck disable=SC2086 # start, end and flags: one a word
	set -- $_bar
	if [ "$1" != "0x0000000000000000" ] && [ $(($2 - $1 + 1)) -ge $((0x20000)) ]; then
		_addr=$(printf '0x%x' $(($1 + 0x10000)))
		set -- "uiomem0_addr=$_addr" "uiomem0_size=0x10000"
		FUZZ_UIOMEM=uiomem0
	else
		set --
	fi
fi
[ -n "$FUZZ_UIOMEM" ] ||
	tap_skip uiomem-region "no ivshmem-plain device with a BAR 2: no uiomem region to fuzz"
export FUZZ_UIOMEM

if ! udmem_insmod u-dma-buf info_enable=0 || ! udmem_insmod u-dma-buf-mgr ||
	! udmem_insmod uiomem info_enable=0 "$@"; then
	tap_fail setup "insmod u-dma-buf, u-dma-buf-mgr or uiomem failed"
	fz_unload
	return 0
fi
tap_ok setup

# A DMA channel: u-dma-chan's manager over a channel that can memcpy (the
# test provider of the harness's second edu device); fuzz.c makes its own.
FUZZ_DMA=
if [ -f /udmem/modules/udmem-edu-dma.ko ] && [ -e /sys/bus/pci/devices/0000:00:10.0 ]; then
	udmem_insmod udmem-edu-dma ||
		tap_fail edu-provider "insmod udmem-edu-dma failed: $(dmesg | tail -n 2 | tr '\n' ' ')"
fi
if [ -f /udmem/modules/u-dma-chan.ko ] && udmem_insmod u-dma-chan &&
	echo "create fuzz-probe memcpy" 2>/dev/null > /dev/u-dma-chan-mgr; then
	echo "delete fuzz-probe" > /dev/u-dma-chan-mgr
	FUZZ_DMA=1
else
	tap_skip dma-chan "no u-dma-chan channel that can memcpy in this guest: the channel is not fuzzed"
fi
export FUZZ_DMA

udmem_run fuzz sequence
[ -z "$FUZZ_DMA" ] || tap_eq no-fuzz-channel-left "" "$(fz_chan_left)"
# arm64: the same sequence from a 32-bit program, through the compat paths.
if [ -x /udmem/bin/fuzz-compat32 ]; then
	udmem_run UDMEM_SUITE=fuzz/compat32 fuzz-compat32 sequence
	[ -z "$FUZZ_DMA" ] || tap_eq no-fuzz-channel-left-compat32 "" "$(fz_chan_left)"
fi

# The fuzzer can fail: a broken invariant names the seed and the operation.
out=$(fuzz manual_broken_invariant 2>&1)
line=$(echo "$out" | grep '^not ok 1 ')
case $line in
*"left behind: buffer fuzz-self (deleted)"*"seed $FUZZ_SEED op "*"differs from what was written"*)
	tap_ok broken-invariant-is-reported ;;
*)
	tap_fail broken-invariant-is-reported "want a failure with the seed, the operation and the removed buffer, got: $(echo "$out" | tail -n 3 | tr '\n' ' ')" ;;
esac

left=
for b in /sys/class/u-dma-buf/fuzz*; do
	[ -e "$b" ] && left="$left ${b##*/}"
done
tap_eq no-fuzz-buffer-left "" "$left"
for m in u-dma-chan u-dma-buf-mgr u-dma-buf uiomem udmem-edu-dma; do
	grep -q "^$(echo $m | tr - _) " /proc/modules || continue
	tap_check "rmmod-$m" udmem_rmmod $m
done
true
