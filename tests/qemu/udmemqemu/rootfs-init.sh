#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# The suites of a rootfs guest (udmemqemu/rootfs.py): run by the systemd unit
# udmem-suites.service of the Debian root once it has booted, with the
# repository at /udmem-top (9p, read-only).  Prints the markers the host
# parser reads, as the busybox /init does, and powers off.
top=/udmem-top
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
echo "@@BEGIN $UDMEM_TARGET $UDMEM_KVER"
while read -r suite; do
	[ -n "$suite" ] || continue
	echo "@@SUITE $suite"
	dmesg -C
	start=$(cut -d. -f1 /proc/uptime)
	( cd "$top/tests/guest/$suite" && UDMEM_SUITE=$suite && export UDMEM_SUITE &&
		. "$top/tests/guest/lib.sh" && . ./suite.sh ) < /dev/null
	rc=$?
	end=$(cut -d. -f1 /proc/uptime)
	echo "# suite $suite exited $rc after $((end - start)) s"
	if [ "$rc" != 0 ]; then
		echo "not ok - $suite/suite-exit-status # suite.sh exited $rc"
	fi
	bad=$(log_reports | head -n 5 | cut -d: -f2- | tr '\n' ' ')
	if [ -n "$bad" ]; then
		echo "not ok - $suite/kernel-log-clean # $bad"
		dmesg | tail -n 40 | sed 's/^/# dmesg: /'
	else
		echo "ok - $suite/kernel-log-clean"
	fi
done < "$build/rootfs-suites.list"
echo "@@END"
sync
systemctl poweroff --no-block
