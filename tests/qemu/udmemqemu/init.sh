#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# The guest's /init, copied into every initramfs: mounts the pseudo file
# systems, runs each suite in /udmem/suites.list and brackets the console
# output with the @@BEGIN/@@SUITE/@@END markers the host parser reads.
/bin/busybox mkdir -p /proc /sys /dev /tmp /run /mnt /usr/bin /usr/sbin /sbin
/bin/busybox --install -s
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mkdir -p /dev/pts && mount -t devpts devpts /dev/pts
export PATH=/udmem/bin:/bin:/sbin:/usr/bin:/usr/sbin HOME=/tmp
. /udmem/env
export UDMEM_TARGET UDMEM_ARCH UDMEM_HAS_DT
UDMEM_KVER=$(uname -r); export UDMEM_KVER
# Enable PCI devices (edu, ivshmem) memory decoding for user-space BAR access.
for d in /sys/bus/pci/devices/*; do echo 1 > "$d/enable" 2>/dev/null; done
if [ -f /udmem/host9p-modules/order ]; then
    for m in $(cat /udmem/host9p-modules/order); do
        insmod "/udmem/host9p-modules/$m" || echo "# insmod $m failed"
    done
    mkdir -p /host
    mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,ro hostroot /host &&
    for d in proc sys dev run; do mount --bind "/$d" "/host/$d"; done
fi
echo "@@BEGIN $UDMEM_TARGET $UDMEM_KVER"
for suite in $(cat /udmem/suites.list); do
    echo "@@SUITE $suite"
    dmesg -c > /dev/null
    start=$(cut -d. -f1 /proc/uptime)
    ( cd "/udmem/suites/$suite" && UDMEM_SUITE=$suite && export UDMEM_SUITE &&
      . /udmem/lib.sh && . ./suite.sh ) < /dev/null
    rc=$?
    end=$(cut -d. -f1 /proc/uptime)
    echo "# suite $suite exited $rc after $((end - start)) s"
    if [ "$rc" != 0 ]; then
        echo "not ok - $suite/suite-exit-status # suite.sh exited $rc"
    fi
    pat='Oops|BUG:|WARNING:|Unable to handle|Call trace|Call Trace'
    pat="$pat|general protection|kernel BUG|Internal error"
    bad=$(dmesg | grep -E "$pat" | head -n 5 | tr '\n' ' ')
    if [ -n "$bad" ]; then
        echo "not ok - $suite/kernel-log-clean # $bad"
        dmesg | tail -n 60 | sed 's/^/# dmesg: /'
    else
        echo "ok - $suite/kernel-log-clean"
    fi
done
echo "@@END"
sync
poweroff -f
