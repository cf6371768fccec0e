#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# The suites of a rootfs guest (udmemqemu/rootfs.py): run by the systemd unit
# udmem-suites.service of the Debian root once it has booted, with the
# repository at /udmem-top (9p, read-only).  Prints the markers the host
# parser reads, as the busybox /init does, and powers off.
#
# A suite may reboot the guest: it calls `rootfs_reboot PHASE` and returns;
# this script then reboots (QEMU keeps running: rootfs.py's -action
# reboot=reset), and on the next boot runs the same suite again with
# UDMEM_RESUME=PHASE, then the suites after it.  The state lives in
# /var/lib/udmem-guest on the root disk (QEMU's snapshot keeps it across the
# reboot).  A boot that no suite asked for (a panic or a crash restarts the
# guest) fails guest/unexpected-reboot and powers off.
top=/udmem-top
state=/var/lib/udmem-guest
build=""
read -r cmdline < /proc/cmdline
for w in $cmdline; do
	case $w in
	udmem.build=*) build=$top/${w#udmem.build=} ;;
	esac
done
set -a
. "$build/rootfs-env"
set +a
UDMEM_KVER=$(uname -r)
export UDMEM_KVER PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
pat=/run/udmem-patterns
mkdir -p $pat
for f in kernel-reports kernel-reports-benign; do
	grep -v -e '^#' -e '^$' "$top/tests/qemu/udmemqemu/$f.ere" > "$pat/$f"
done
log_reports() {
	dmesg | grep -n -E -f $pat/kernel-reports | grep -v -E -f $pat/kernel-reports-benign
}
# rootfs_reboot PHASE: for a suite, reboot once it returns, then run it
# again with UDMEM_RESUME=PHASE.
rootfs_reboot() {
	echo "$UDMEM_SUITE $1" > "$state/reboot"
}
mkdir -p "$state"
resume_suite=""
resume_phase=""
if [ -f "$state/resume" ]; then
	read -r resume_suite resume_phase < "$state/resume"
	rm -f "$state/resume"
	echo "# booted again, $(cut -d' ' -f1 /proc/uptime) s after the reset: $resume_suite goes on ($resume_phase)"
elif [ -f "$state/begun" ]; then
	echo "not ok - guest/unexpected-reboot # the guest booted again without a suite asking for it (a panic or a crash restarts it); the console above shows why"
	echo "@@END"
	sync
	systemctl poweroff --no-block
	exit 0
else
	: > "$state/begun"
	echo "@@BEGIN $UDMEM_TARGET $UDMEM_KVER"
fi
while read -r suite; do
	[ -n "$suite" ] || continue
	if [ -n "$resume_suite" ] && [ "$suite" != "$resume_suite" ]; then
		continue	# ran before the reboot
	fi
	echo "@@SUITE $suite"
	# A resumed suite keeps the boot's log: what loading at boot said counts.
	[ -n "$resume_suite" ] || dmesg -C
	start=$(cut -d. -f1 /proc/uptime)
	( cd "$top/tests/guest/$suite" && UDMEM_SUITE=$suite && UDMEM_RESUME=$resume_phase &&
		export UDMEM_SUITE UDMEM_RESUME &&
		. "$top/tests/guest/lib.sh" && . ./suite.sh ) < /dev/null
	rc=$?
	resume_suite=""
	resume_phase=""
	end=$(cut -d. -f1 /proc/uptime)
	echo "# suite $suite exited $rc after $((end - start)) s"
	if [ "$rc" != 0 ]; then
		echo "not ok - $suite/suite-exit-status # suite.sh exited $rc"
	fi
	check=kernel-log-clean
	[ -f "$state/reboot" ] && check=kernel-log-clean-before-reboot
	bad=$(log_reports | head -n 5 | cut -d: -f2- | tr '\n' ' ')
	if [ -n "$bad" ]; then
		echo "not ok - $suite/$check # $bad"
		dmesg | tail -n 40 | sed 's/^/# dmesg: /'
	else
		echo "ok - $suite/$check"
	fi
	if [ -f "$state/reboot" ]; then
		mv "$state/reboot" "$state/resume"
		echo "# $suite asks for a reboot: $(cat "$state/resume")"
		sync
		systemctl reboot --no-block
		exit 0
	fi
done < "$build/rootfs-suites.list"
echo "@@END"
sync
systemctl poweroff --no-block
