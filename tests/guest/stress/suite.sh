# SPDX-License-Identifier: GPL-2.0 OR MIT
# stress: concurrent stress and fuzz of u-dma-buf and uiomem, endurance
# cycles and fault injection (stress.c says what each test checks), then
# checks of the whole run: both drivers unload once everything is closed,
# /proc/devices is as before the load, a buffer made after the run (and
# after a reload) gets the minor the first one got, and the kernel's
# unreclaimable slab is back near its level before the load.
#
# Environment (the kernel passes NAME=VALUE words of its command line to
# /init, so `tests/qemu/udmem-qemu run T --suite stress --append "..."`
# sets them):
#   STRESS_SEED               seed (default: from /dev/urandom); always printed
#   STRESS_SECONDS=10         fuzz time per driver (at most 90)
#   STRESS_THREADS=3          fuzz threads per driver (1..8)
#   STRESS_CREATE_CYCLES=300  manager create/delete cycles
#   STRESS_BIND_CYCLES=100    unbind/bind cycles, of a buffer and of a region
#   STRESS_SLAB_TOLERANCE_KB  see below
# The issue's full endurance counts:
#   tests/qemu/udmem-qemu run arm64 --suite stress \
#       --append "STRESS_CREATE_CYCLES=10000 STRESS_BIND_CYCLES=1000"
# Replay a failure with the seed it printed: --append "STRESS_SEED=<seed>".
#
# Slab tolerance: SUnreclaim is read after dropping the reclaimable caches
# and shrinking every slab cache.  It still moves by a few hundred kB
# without any leak (partly used slabs stay, and the first load of the
# modules grows caches such as kernfs nodes and kobjects for good).  512 kB per endurance test catches a
# leak of about 1.7 kB per cycle at the default 300 cycles and of about
# 52 bytes per cycle at the full 10 000; the whole-suite check allows
# 1024 kB, as it also covers the first use of caches by the modules.

st_loaded() { grep -q "^$1 " /proc/modules; }
st_unload_all() {
	for _m in u_dma_buf_mgr u_dma_buf uiomem; do
		st_loaded $_m && rmmod $_m
	done
}
# SUnreclaim in kB once the reclaimable caches are dropped and every slab
# cache gave its empty slabs back.
st_slab_kb() {
	sync
	echo 3 > /proc/sys/vm/drop_caches
	for _s in /sys/kernel/slab/*/shrink; do
		[ -w "$_s" ] && echo 1 > "$_s"
	done
	sed -n 's/^SUnreclaim: *\([0-9]*\) kB$/\1/p' /proc/meminfo
}
# st_minor: "major:minor" of a fresh manager buffer (empty on failure).
st_minor() {
	echo "create stress-minor 4096" > /dev/u-dma-buf-mgr 2>/dev/null || return 0
	cat /sys/class/u-dma-buf/stress-minor/dev
	echo "delete stress-minor" > /dev/u-dma-buf-mgr
}
# The ivshmem BAR 2 (the uiomem suite's window): "start size".
st_ivshmem_bar() {
	_d=$(udmem_pci_dev 0x1af4 0x1110) || return 1
	sed -n 3p "$_d/resource" | {
		read -r _s _e _f
		[ "$_s" != "0x0000000000000000" ] || return 1
		printf '0x%x 0x%x\n' $((_s)) $((_e - _s + 1))
	}
}

if [ -z "$STRESS_SEED" ]; then
	STRESS_SEED=$(udmem_seed)
fi
STRESS_SECONDS=${STRESS_SECONDS:-10}
STRESS_THREADS=${STRESS_THREADS:-3}
export STRESS_SEED STRESS_SECONDS STRESS_THREADS
echo "# stress: seed $STRESS_SEED, $STRESS_SECONDS s, $STRESS_THREADS threads;" \
	"replay: --append \"STRESS_SEED=$STRESS_SEED\""

st_unload_all
slab_before=$(st_slab_kb)
devices_before=$(wc -l < /proc/devices)

# uiomem regions: 64 KiB windows of the ivshmem BAR from 64 KiB on (the
# first page is the host peer's mailbox), one per thread and a shared one.
# The module parameters go into "$@".
set --
STRESS_UIOMEM=
bar=$(st_ivshmem_bar)
if [ -n "$bar" ]; then
	bar_start=${bar% *}
	bar_size=${bar#* }
	n=$((STRESS_THREADS + 1))
	[ $n -gt 7 ] && n=7
	[ $((bar_size / 0x10000 - 1)) -lt $n ] && n=$((bar_size / 0x10000 - 1))
	i=1
	while [ $i -le $n ]; do
		set -- "$@" "uiomem${i}_addr=$(printf '0x%x' $((bar_start + i * 0x10000)))" \
			"uiomem${i}_size=0x10000"
		STRESS_UIOMEM="$STRESS_UIOMEM uiomem$i"
		i=$((i + 1))
	done
	STRESS_UIOMEM=${STRESS_UIOMEM# }
else
	tap_skip uiomem-regions "no ivshmem-plain device with a BAR 2: no uiomem region to stress"
fi
export STRESS_UIOMEM

if ! udmem_insmod u-dma-buf || ! udmem_insmod u-dma-buf-mgr ||
	! udmem_insmod uiomem info_enable=0 "$@"; then
	tap_fail setup "insmod u-dma-buf, u-dma-buf-mgr or uiomem failed"
	st_unload_all
	return 0
fi
tap_ok setup
minor_first=$(st_minor)
echo "# first manager buffer: $minor_first; uiomem regions: ${STRESS_UIOMEM:-none}"

# fuzz_uiomem catches and counts the SIGBUS of a shared mapping that an
# unbind revoked; a SIGBUS anywhere else still kills the test.
for t in fuzz_udmabuf fuzz_uiomem faulting_write endurance_ fault_injection; do
	udmem_run stress "$t"
done
# arm64: the fuzz again from a 32-bit program, through the compat paths.
if [ -x /udmem/bin/stress-compat32 ]; then
	udmem_run UDMEM_SUITE=stress/compat32 STRESS_SECONDS=$(((STRESS_SECONDS + 1) / 2)) \
		stress-compat32 fuzz_udmabuf
fi

# The harness judges a hang by progress and cleans up after a killed test
# (harness.h): a test that progresses past the stall limit passes, one that
# stalls fails with where it stalled and the buffer it left, which is gone.
out=$(UDMEM_TEST_STALL_SECONDS=5 stress manual_progress_outlives_stall_limit 2>&1)
case $out in
*"ok 1 stress/manual_progress_outlives_stall_limit"*) tap_ok harness-progress-is-not-a-hang ;;
*) tap_fail harness-progress-is-not-a-hang "$(echo "$out" | grep ok | tr '\n' ' ')" ;;
esac
out=$(UDMEM_TEST_STALL_SECONDS=5 stress manual_stalled_test_is_cleaned_up 2>&1)
case $out in
*"not ok 1 stress/manual_stalled_test_is_cleaned_up # no progress for "*"now stalling"*"left behind: buffer stress-stalled (deleted)"*)
	if [ -e /sys/class/u-dma-buf/stress-stalled ]; then
		tap_fail harness-stalled-test-cleaned-up "stress-stalled is still there"
	else
		tap_ok harness-stalled-test-cleaned-up
	fi ;;
*) tap_fail harness-stalled-test-cleaned-up "$(echo "$out" | grep ok | tr '\n' ' ')" ;;
esac

left=
for b in /sys/class/u-dma-buf/stress-*; do
	[ -e "$b" ] && left="$left ${b##*/}"
done
tap_eq no-stress-buffer-left "" "$left"
tap_eq minor-after-run "$minor_first" "$(st_minor)"
for m in u-dma-buf-mgr u-dma-buf uiomem; do
	tap_check "rmmod-$m-after-run" udmem_rmmod $m
done
tap_eq proc-devices-after-unload "$devices_before" "$(wc -l < /proc/devices)"
if udmem_insmod u-dma-buf && udmem_insmod u-dma-buf-mgr; then
	tap_eq minor-after-reload "$minor_first" "$(st_minor)"
else
	tap_fail minor-after-reload "insmod u-dma-buf and u-dma-buf-mgr failed"
fi
st_unload_all
slab_after=$(st_slab_kb)
tol=$((${STRESS_SLAB_TOLERANCE_KB:-512} * 2))
echo "# SUnreclaim before load ${slab_before} kB, after unload ${slab_after} kB (tolerance ${tol} kB)"
if [ -z "$slab_before" ] || [ -z "$slab_after" ]; then
	tap_fail slab-after-unload "no SUnreclaim in /proc/meminfo"
elif [ $((slab_after - slab_before)) -gt "$tol" ]; then
	tap_fail slab-after-unload "SUnreclaim grew by $((slab_after - slab_before)) kB (tolerance $tol kB)"
else
	tap_ok slab-after-unload
fi
true
