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
# to prove that a failed check, a kernel crash and a hang are all caught.
case "$(cat /proc/cmdline)" in
*udmem.selftest=assert*)
	udmem_run guest-env-check manual_must_fail ;;
*udmem.selftest=oops*)
	udmem_insmod udmem-selftest-oops ;;
*udmem.selftest=panic*)
	echo c > /proc/sysrq-trigger ;;
*udmem.selftest=hang*)
	sleep 100000 ;;
esac
