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
# A board whose console driver is a module loads it here (udmemqemu/boards.py).
[ -f /udmem/board-preinit.sh ] && . /udmem/board-preinit.sh
export PATH=/udmem/bin:/bin:/sbin:/usr/bin:/usr/sbin HOME=/tmp
. /udmem/env
export UDMEM_TARGET UDMEM_ARCH UDMEM_HAS_DT UDMEM_NONCOHERENT_DMA
UDMEM_KVER=$(uname -r); export UDMEM_KVER
# Enable PCI devices (edu, ivshmem) memory decoding for user-space BAR access.
for d in /sys/bus/pci/devices/*; do [ -e "$d/enable" ] && echo 1 > "$d/enable" 2>/dev/null; done
# The second edu device (slot 0x10, udmemqemu/qemu.py) is the engine of the
# test dmaengine provider: only its driver (tests/kmod/udmem-edu-dma.c) binds it.
d=/sys/bus/pci/devices/0000:00:10.0
[ "$(cat $d/device 2>/dev/null)" = 0x11e8 ] && echo udmem-edu-dma > $d/driver_override
if [ -f /udmem/host9p-modules/order ]; then
    while read -r m; do
        insmod "/udmem/host9p-modules/$m" || echo "# insmod $m failed"
    done < /udmem/host9p-modules/order
    mkdir -p /host
    mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,cache=loose,ro hostroot /host &&
    for d in proc sys dev run; do mount --bind "/$d" "/host/$d"; done
fi
# Kernel reports in the log: lines matching /udmem/kernel-reports.ere (from
# tests/qemu/udmemqemu, as are the list of benign lines and that of other
# drivers' known stack dumps), numbered by grep -n.
# The known dumps are looked for only when there is a report: a clean log
# (the usual case, up to 35 000 lines) costs no second pass.  The lines of
# foreign reports that name none of our code (KCSAN's about the rest of the
# kernel) are left in /tmp/dmesg.foreign.
log_reports() {
    dmesg > /tmp/dmesg.scan
    : > /tmp/dmesg.foreign
    grep -n -E -f /udmem/kernel-reports.ere /tmp/dmesg.scan |
        grep -v -E -f /udmem/kernel-reports-benign.ere > /tmp/dmesg.reports
    [ -s /tmp/dmesg.reports ] || return 0
    foreign_report_lines /tmp/dmesg.scan > /tmp/dmesg.foreign
    awk -F: -v known="$(peer_bug_lines /tmp/dmesg.scan | cat - /tmp/dmesg.foreign | cut -d" " -f1 | tr '\n' ' ')" '
        BEGIN { n = split(known, k, " "); for (i = 1; i <= n; i++) skip[k[i]] }
        !($1 in skip)' /tmp/dmesg.reports
}
# peer_bug_lines LOG: the line numbers of each stack dump that
# /udmem/kernel-reports-peer.tsv lists (a bug of another driver's, not ours;
# the file says which and how a dump is told), as parse.py finds them on the
# host's console.
peer_bug_lines() {
    awk -F'\t' 'FILENAME == ARGV[1] { if ($0 !~ /^#/ && NF == 2) { start[++k] = $1; stack[k] = $2 }
                                      next }
        !inside { for (i = 1; i <= k; i++) if ($0 ~ start[i]) {
                      inside = i; first = FNR; n = 0; task = 0; hit = 0; break } }
        inside { n++; if ($0 ~ stack[inside]) hit = 1
                 if (/<TASK>/) task = 1
                 if (/<\/TASK>/ || (!task && /ret_from_fork/) || n > 40) {
                     if (hit) for (j = first; j <= FNR; j++) print j
                     inside = 0 } }' /udmem/kernel-reports-peer.tsv "$1"
}
# foreign_report_lines LOG: the line numbers of each report that a
# "foreign" line of /udmem/kernel-reports-peer.tsv describes and that names
# none of our code (the file says how), as parse.py finds them on the
# host's console; a report's first line is followed by its name.
foreign_report_lines() {
    awk -F'\t' 'FILENAME == ARGV[1] { if ($0 !~ /^#/ && NF == 5 && $1 == "foreign") {
                                          name[++k] = $2; first_re[k] = $3
                                          last_re[k] = $4; ours[k] = $5 }
                                      next }
        inside && FNR - first >= 400 { inside = 0 }
        inside { if ($0 ~ ours[inside]) hit = 1
                 if ($0 ~ last_re[inside]) {
                     if (!hit) { print first " " name[inside]
                                 for (j = first + 1; j <= FNR; j++) print j }
                     inside = 0 }
                 next }
        { for (i = 1; i <= k; i++) if ($0 ~ first_re[i]) {
              inside = i; first = FNR; hit = ($0 ~ ours[i]); break } }' \
        /udmem/kernel-reports-peer.tsv "$1"
}
# foreign_report_summary SUITE: after log_reports, the first line of each
# foreign report it set aside and their count by name, as comments.
foreign_report_summary() {
    [ -s /tmp/dmesg.foreign ] || return 0
    awk -v suite="$1" 'NR == FNR { if (NF == 2) first[$1] = $2; next }
         FNR in first { n[first[FNR]]++; print "# set aside (none of our code): " $0 }
         END { for (k in n) print "# kernel/" k "-foreign-reports: " n[k] " in " suite }' \
        /tmp/dmesg.foreign /tmp/dmesg.scan
}
# kmemleak (the debug kernel): report only objects that stay unreferenced
# over two scans (a scan skips objects younger than 5 s); each `scan` write
# returns when the scan is done.  A scan of the 2 GiB debug guests takes
# 15-20 s of CPU under TCG, so there is none at boot: what booting leaked
# (the kernel's, not the suites') is told apart at the end by the jiffies
# kmemleak records for each object (kmemleak_suites_only).
kmemleak=/sys/kernel/debug/kmemleak
kmemleak_scan() {
    sleep 6
    echo scan > $kmemleak || return 1
    sleep 1
    echo scan > $kmemleak
}
# jiffies_now: the kernel's jiffies, from the scheduler's debug file (empty
# when the kernel has none).
jiffies_now() {
    sed -n 's/^jiffies *: *\([0-9][0-9]*\)$/\1/p' /sys/kernel/debug/sched/debug \
        2>/dev/null | head -n 1
}
# kmemleak_suites_only JIFFIES: kmemleak's reports on stdin, less the
# objects allocated before JIFFIES (compared as the kernel's time_before()
# does, modulo 2^32); says on stderr how many it set aside.
kmemleak_suites_only() {
    awk -v began="$1" '
        function flush() { if (rec != "") { if (old) aside++; else printf "%s", rec } }
        /^unreferenced object/ { flush(); rec = ""; old = 0 }
        { rec = rec $0 "\n" }
        /^  comm .* jiffies [0-9]+/ && began != "" {
            j = $0; sub(/.* jiffies /, "", j); sub(/[^0-9].*/, "", j)
            d = (j - began) % 4294967296
            if (d < 0) d += 4294967296
            if (d >= 2147483648) old = 1
        }
        END { flush()
              if (began == "") print "# kmemleak: no jiffies at the start, nothing set aside" > "/dev/stderr"
              else printf "# kmemleak: %d object(s) from before the suites set aside\n", aside > "/dev/stderr" }'
}
# DMA-API debug (the debug kernel) prints only its first error unless told
# otherwise: every error, each with its WARNING, for the log scans.
dmaapi=/sys/kernel/debug/dma-api
[ -w $dmaapi/all_errors ] && echo 1 > $dmaapi/all_errors
# Processes started since boot: what a suite's shell loops cost under TCG.
forks_now() {
    sed -n 's/^processes //p' /proc/stat
}
# Idle time of all vCPUs, in hundredths of a second (idle + iowait).
idle_now() {
    awk '/^cpu / { print $5 + $6; exit }' /proc/stat
}
# Our modules still loaded, newest first (the order they unload in): those
# built from kernel/ and tests/kmod/, not the kernel's own drivers a board
# target puts beside them (its console UART, its DMA engine: suites keep
# those loaded on purpose, and zynq7000's console goes with xilinx_uartps).
our_modules_loaded() {
    : > /tmp/our-modules
    for _m in /udmem/modules/u-dma-*.ko /udmem/modules/uiomem*.ko /udmem/modules/udmem-*.ko; do
        [ -f "$_m" ] && basename "$_m" .ko | tr - _ >> /tmp/our-modules
    done
    cut -d' ' -f1 /proc/modules | grep -Fx -f /tmp/our-modules
}
echo "@@BEGIN $UDMEM_TARGET $UDMEM_KVER"
[ -w $kmemleak ] && began=$(jiffies_now)
# One suite name a line, read on fd 9 (the suites use 3 for themselves).
while read -r suite <&9; do
    echo "@@SUITE $suite"
    dmesg -c > /dev/null
    start=$(cut -d. -f1 /proc/uptime)
    forks0=$(forks_now)
    idle0=$(idle_now)
    ( cd "/udmem/suites/$suite" && UDMEM_SUITE=$suite && export UDMEM_SUITE &&
      . /udmem/lib.sh && . ./suite.sh ) < /dev/null
    rc=$?
    end=$(cut -d. -f1 /proc/uptime)
    echo "# suite $suite exited $rc after $((end - start)) s, $(($(forks_now) - forks0)) processes, $((($(idle_now) - idle0) / 100)) s idle (all vCPUs)"
    if [ "$rc" != 0 ]; then
        echo "not ok - $suite/suite-exit-status # suite.sh exited $rc"
    fi
    # A suite that stopped half-way can leave its modules in, and the next
    # suite's insmod would then fail: every suite starts from none.
    left=$(our_modules_loaded | tr '\n' ' ')
    if [ -n "$left" ]; then
        echo "# suite $suite left modules loaded: $left- unloading them"
        for _ in 1 2 3; do
            for m in $(our_modules_loaded); do
                rmmod "$m" 2> /dev/null
            done
        done
        left=$(our_modules_loaded | tr '\n' ' ')
        [ -n "$left" ] && echo "# still loaded after $suite: $left"
    fi
    bad=$(log_reports | head -n 5 | cut -d: -f2- | tr '\n' ' ')
    foreign_report_summary "$suite"
    # Say so when the scan is slow: a suite can leave tens of thousands of
    # lines (arm64 once lost 160 s between two suites with only this between).
    scanned=$(cut -d. -f1 /proc/uptime)
    [ $((scanned - end)) -ge 5 ] &&
        echo "# kernel log scan after $suite took $((scanned - end)) s ($(dmesg | wc -l) lines)"
    if [ -n "$bad" ]; then
        echo "not ok - $suite/kernel-log-clean # $bad"
        # The first report whole (KASAN's and lockdep's run to 100 lines)
        # and the log's end.
        first=$(log_reports | head -n 1 | cut -d: -f1)
        from=$((first - 5))
        [ "$from" -ge 1 ] || from=1
        dmesg | sed -n "$from,$((first + 120))p" | sed 's/^/# dmesg: /'
        echo "# dmesg: ..."
        dmesg | tail -n 30 | sed 's/^/# dmesg: /'
    else
        echo "ok - $suite/kernel-log-clean"
    fi
done 9< /udmem/suites.list
if [ -w $kmemleak ]; then
    if ! kmemleak_scan; then
        echo "not ok - kernel/kmemleak-clean # cannot scan: kmemleak turned itself off?"
        dmesg | grep kmemleak | tail -n 20 | sed 's/^/# dmesg: /'
    elif kmemleak_suites_only "$began" < $kmemleak > /tmp/kmemleak.txt 2> /tmp/kmemleak.aside
         cat /tmp/kmemleak.aside
         leaks=$(grep -c '^unreferenced object' /tmp/kmemleak.txt); [ "$leaks" != 0 ]; then
        echo "not ok - kernel/kmemleak-clean # $leaks unreferenced object(s) after the suites"
        head -n 400 /tmp/kmemleak.txt | sed 's/^/# kmemleak: /'
    else
        echo "ok - kernel/kmemleak-clean"
    fi
fi
# DMA-API debug must still be on (it turns itself off when it cannot
# allocate an entry) and have counted no error, whatever the log said.
if [ -r $dmaapi/error_count ]; then
    echo "# dma-api: $(cat $dmaapi/error_count) error(s), $(cat $dmaapi/nr_total_entries)" \
        "entries, $(cat $dmaapi/min_free_entries) free at the least"
    if [ "$(cat $dmaapi/disabled)" != N ]; then
        echo "not ok - kernel/dma-api-debug-clean # DMA-API debug turned itself off"
        dmesg | grep DMA-API | tail -n 20 | sed 's/^/# dmesg: /'
    elif [ "$(cat $dmaapi/error_count)" != 0 ]; then
        echo "not ok - kernel/dma-api-debug-clean # $(cat $dmaapi/error_count) error(s) counted"
    else
        echo "ok - kernel/dma-api-debug-clean"
    fi
fi
# Coverage (a target's `coverage` key builds our modules with gcov profiling):
# the counts the kernel keeps of every module, unloaded ones too, copied out
# (debugfs files show size 0 to tar) and printed as one base64 block, each
# line a comment for the parsers.
if [ -d /sys/kernel/debug/gcov ]; then
    rm -rf /tmp/gcov
    mkdir /tmp/gcov
    (cd /sys/kernel/debug/gcov && find . -name '*.gcda') | while read -r f; do
        mkdir -p "/tmp/gcov/${f%/*}"
        cat "/sys/kernel/debug/gcov/$f" > "/tmp/gcov/$f"
    done
    echo "@@GCOV-BEGIN $(find /tmp/gcov -name '*.gcda' | wc -l) files"
    (cd /tmp/gcov && tar cf - . | gzip -9 | base64 | sed 's/^/#gcov /')
    echo "@@GCOV-END"
fi
echo "@@END"
sync
# A board the kernel cannot power off resets itself (udmemqemu/boards.py).
[ -f /udmem/board-poweroff.sh ] && . /udmem/board-poweroff.sh
poweroff -f
