# SPDX-License-Identifier: GPL-2.0 OR MIT
# guest-env: the guest has what the other suites rely on.

tap_eq kernel-release "$UDMEM_KVER" "$(uname -r)"

if udmem_pci_dev 0x1234 0x11e8 > /dev/null; then
	tap_ok edu-device-present
else
	tap_fail edu-device-present "no PCI 1234:11e8 in /sys/bus/pci/devices"
fi
if udmem_pci_dev 0x1af4 0x1110 > /dev/null; then
	tap_ok ivshmem-device-present
else
	tap_fail ivshmem-device-present "no PCI 1af4:1110 in /sys/bus/pci/devices"
fi

if [ "$UDMEM_HAS_DT" = 1 ]; then
	_pools=$(echo /proc/device-tree/reserved-memory/udmem-nomap@*)
	if [ -e "${_pools%% *}" ]; then
		tap_ok dt-reserved-memory
	else
		tap_fail dt-reserved-memory "no udmem-nomap pool under /proc/device-tree/reserved-memory"
	fi
else
	tap_skip dt-reserved-memory "$UDMEM_TARGET has no device tree"
fi

udmem_run guest-env-check

# The harness's own self-test (udmem-qemu selftest) breaks a guest on purpose
# to prove that a failed check, a kernel crash and a hang are all caught, and
# that a known peer-driver stack dump (kernel-reports-peer.tsv) is not.
case "$(cat /proc/cmdline)" in
*udmem.selftest=assert*)
	udmem_run guest-env-check manual_must_fail ;;
*udmem.selftest=oops*)
	udmem_insmod udmem-selftest-oops ;;
*udmem.selftest=panic*)
	echo c > /proc/sysrq-trigger ;;
*udmem.selftest=hang*)
	sleep 100000 ;;
*udmem.selftest=peerdump*)
	# vivid's known stack dump (kernel-reports-peer.tsv): both scans must
	# set it aside, and this guest pass.  At KERN_ERR, so that the console
	# shows it whatever the target's loglevel and the host's scan sees it too.
	for line in "<3>schedule_timeout: wrong timeout value ffffffffffffffff" \
		"<3>Call Trace:" "<3> <TASK>" "<3> schedule_timeout+0x138/0x150" \
		"<3> vivid_thread_vid_cap+0x6bc/0x750 [vivid]" "<3> kthread+0xda/0x100" \
		"<3> </TASK>"; do
		echo "$line" > /dev/kmsg
	done
	if dmesg | grep -q 'Call Trace:' && dmesg | grep -q 'vivid_thread_vid_cap+0x6bc'; then
		tap_ok selftest-peer-dump-logged
	else
		tap_fail selftest-peer-dump-logged "the dump written to /dev/kmsg is not in dmesg"
	fi ;;
esac
