# SPDX-License-Identifier: GPL-2.0 OR MIT
# trinity: Debian's system-call fuzzer (the `trinity` package, staged by the
# target's guest_debs) with our device nodes as its only files: u-dma-buf
# buffers of every sync and mmap mode, the manager, a uiomem region, and,
# where a channel that can memcpy exists (the test provider of the second
# edu device), two u-dma-chan channels and their manager.  It
# opens them with random flags and calls ioctl, mmap, read, write and their
# kin on them with random arguments, from two children, for TRINITY_OPS
# calls (default 5000) from TRINITY_SEED (default: from /dev/urandom; always
# printed).  Passes when trinity finishes its calls, the kernel is not
# tainted, the kernel log is clean (the harness's check) and every module
# unloads after it: no reference left behind.
#
# DMA-BUFs are not among the victims: trinity opens its victims by path,
# and a DMA-BUF cannot be opened again by one.  /proc/<pid>/fd/<n> of a
# DMA-BUF leads to its inode on the dmabuf pseudo file system, whose i_fop
# is the kernel's no_open_fops (only the file gets dma_buf_fops, in
# dma_buf_getfile()): open() fails with ENXIO (6.1 as 7.x).
#
# Replay:
#   tests/qemu/udmem-qemu run x86_64-debug --suite trinity --append "TRINITY_SEED=<seed>"

tr_unload() {
	for _m in u_dma_chan u_dma_buf_mgr u_dma_buf uiomem udmem_edu_dma; do
		grep -q "^$_m " /proc/modules && rmmod $_m
	done
}

if [ ! -x /udmem/debs/bin/trinity ]; then
	tap_skip run "no trinity in this guest: the debug targets run it (their guest_debs name it)"
	return 0
fi
TRINITY_SEED=${TRINITY_SEED:-$(udmem_seed)}
TRINITY_OPS=${TRINITY_OPS:-5000}
echo "# trinity: seed $TRINITY_SEED, $TRINITY_OPS calls; replay: --append \"TRINITY_SEED=$TRINITY_SEED\""

tr_unload
# A uiomem region: 64 KiB of the ivshmem BAR from 64 KiB on (the first page
# is the host peer's mailbox), as the fuzz suite takes it.
set --
_d=$(udmem_pci_dev 0x1af4 0x1110) && _bar=$(sed -n 3p "$_d/resource")
if [ -n "$_bar" ]; then
	# shellcheck disable=SC2086 # start, end and flags: one a word
	set -- $_bar
	if [ "$1" != "0x0000000000000000" ] && [ $(($2 - $1 + 1)) -ge $((0x20000)) ]; then
		set -- "uiomem0_addr=$(printf '0x%x' $(($1 + 0x10000)))" "uiomem0_size=0x10000"
	else
		set --
	fi
fi
if ! udmem_insmod u-dma-buf info_enable=0 udmabuf0=0x10000 udmabuf1=0x21000 ||
	! udmem_insmod u-dma-buf-mgr || ! udmem_insmod uiomem info_enable=0 "$@"; then
	tap_fail setup "insmod u-dma-buf, u-dma-buf-mgr or uiomem failed"
	tr_unload
	return 0
fi
for spec in "tr-on 0x3000 quirk-mmap-on" "tr-page 0x8000 quirk-mmap-page" \
	"tr-off 0x5000 quirk-mmap-off"; do
	# shellcheck disable=SC2086 # a manager command: words
	echo "create $spec" > /dev/u-dma-buf-mgr ||
		tap_fail setup "manager create $spec failed"
done
# Two DMA channels (edu's provider has two), by the manager.
tr_chans=0
tr_made=
if [ -f /udmem/modules/udmem-edu-dma.ko ] && [ -e /sys/bus/pci/devices/0000:00:10.0 ]; then
	udmem_insmod udmem-edu-dma ||
		tap_fail setup-edu "insmod udmem-edu-dma failed: $(dmesg | tail -n 2 | tr '\n' ' ')"
fi
if [ -f /udmem/modules/u-dma-chan.ko ] && udmem_insmod u-dma-chan; then
	for c in tr-chan0 tr-chan1; do
		if echo "create $c memcpy" 2>/dev/null > /dev/u-dma-chan-mgr; then
			tr_chans=$((tr_chans + 1))
			tr_made="$tr_made $c"
		fi
	done
fi
[ $tr_chans -gt 0 ] ||
	tap_skip dma-chan "no u-dma-chan channel that can memcpy in this guest: no channel among the victims"
# Sync modes 2 and 3 (write-combine, uncached with O_SYNC), sync_always on one.
[ -w /sys/class/u-dma-buf/tr-on/sync_mode ] && echo 2 > /sys/class/u-dma-buf/tr-on/sync_mode
[ -w /sys/class/u-dma-buf/tr-page/sync_mode ] && echo 3 > /sys/class/u-dma-buf/tr-page/sync_mode
[ -w /sys/class/u-dma-buf/udmabuf1/sync_always ] && echo 1 > /sys/class/u-dma-buf/udmabuf1/sync_always

# The victims: copies of our nodes (same device numbers) in a folder of
# their own, so that trinity opens nothing else.
victims=/tmp/trinity-victims
rm -rf $victims
mkdir -p $victims
names=
for dev in /sys/class/u-dma-buf/*/dev /sys/class/uiomem/*/dev /sys/class/misc/u-dma-buf-mgr/dev \
	/sys/class/u-dma-chan/*/dev /sys/class/misc/u-dma-chan-mgr/dev; do
	[ -r "$dev" ] || continue
	n=${dev%/dev}
	n=${n##*/}
	IFS=: read -r maj min < "$dev"
	mknod "$victims/$n" c "$maj" "$min" && names="$names $n"
done
echo "# trinity victims:$names"
# shellcheck disable=SC2086 # count the words
set -- $names
tr_want=6
[ $tr_chans -gt 0 ] && tr_want=$((tr_want + tr_chans + 1))
if [ $# -lt $tr_want ]; then
	tap_fail victims "want the 5 buffers and the manager (and a region), the channels made ($tr_chans) and their manager, have:$names"
fi
if [ $tr_chans -gt 0 ]; then
	for c in $tr_made u-dma-chan-mgr; do
		case "$names " in
		*" $c "*) ;;
		*) tap_fail "victims-$c" "want $c among the victims, have:$names" ;;
		esac
	done
fi

taint0=$(cat /proc/sys/kernel/tainted)
mkdir -p /tmp/trinity-run
out=/tmp/trinity-run/out
# As root (--dangerous) in this throwaway guest; only the pseudo-file fds
# (the victims), none of trinity's own sockets, pipes or test files.
( cd /tmp/trinity-run && /udmem/debs/run trinity --dangerous -q -l off -C 2 \
	-N "$TRINITY_OPS" -s "$TRINITY_SEED" -V $victims \
	--disable-fds=sockets,pipes,perf,epoll,eventfd,timerfd,testfile,memfd,drm \
	-c ioctl -c mmap -c munmap -c mremap -c mprotect -c madvise -c msync \
	-c read -c write -c pread64 -c pwrite64 -c readv -c writev -c lseek \
	-c fsync -c fcntl -c ppoll ) > $out 2>&1
rc=$?
sed 's/^/# trinity: /' $out | tail -n 15
if [ $rc = 0 ] && grep -q "Ran [0-9]* syscalls" $out; then
	tap_ok run
else
	tap_fail run "trinity exited $rc, seed $TRINITY_SEED: $(tail -n 3 $out | tr '\n' ' ')"
fi
tap_eq not-tainted "$taint0" "$(cat /proc/sys/kernel/tainted)"

for b in tr-on tr-page tr-off; do
	tap_check "delete-$b" sh -c "echo 'delete $b' > /dev/u-dma-buf-mgr"
done
for m in u-dma-chan u-dma-buf-mgr u-dma-buf uiomem udmem-edu-dma; do
	grep -q "^$(echo $m | tr - _) " /proc/modules || continue
	tap_check "rmmod-$m" udmem_rmmod $m
done
rm -rf $victims /tmp/trinity-run
true
