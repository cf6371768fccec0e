# SPDX-License-Identifier: GPL-2.0 OR MIT
# lib.sh - helpers for guest suites (busybox sh).  Sourced before each suite.sh;
# $UDMEM_SUITE is the suite's name.

tap_ok() { echo "ok - $UDMEM_SUITE/$1"; }
tap_fail() { echo "not ok - $UDMEM_SUITE/$1 # $2"; }
tap_skip() { echo "ok - $UDMEM_SUITE/$1 # SKIP $2"; }

# tap_check NAME CMD...: ok when CMD succeeds, else not ok with its output.
tap_check() {
	_name=$1
	shift
	if _out=$("$@" 2>&1); then
		tap_ok "$_name"
	else
		tap_fail "$_name" "$* failed: $(echo "$_out" | tail -n 3 | tr '\n' ' ')"
	fi
}

# tap_eq NAME WANT GOT
tap_eq() {
	if [ "$2" = "$3" ]; then
		tap_ok "$1"
	else
		tap_fail "$1" "want '$2', got '$3'"
	fi
}

# udmem_insmod NAME [PARAM=VALUE...]: load /udmem/modules/NAME.ko; 0 on success.
udmem_insmod() {
	_mod=$1
	shift
	insmod "/udmem/modules/$_mod.ko" "$@"
}

# udmem_rmmod NAME: unload (NAME as in lsmod, dashes allowed).
udmem_rmmod() {
	rmmod "$(echo "$1" | tr - _)"
}

# udmem_run PROG [ARGS...]: run a test program; its TAP lines go to the console.
udmem_run() {
	if [ ! -x "/udmem/bin/$1" ]; then
		tap_fail "$1" "program /udmem/bin/$1 is missing"
		return 1
	fi
	"/udmem/bin/$@"
}

# udmem_pci_dev VENDOR DEVICE: print the sysfs path of the first matching PCI device.
udmem_pci_dev() {
	for _d in /sys/bus/pci/devices/*; do
		if [ "$(cat "$_d/vendor")" = "$1" ] && [ "$(cat "$_d/device")" = "$2" ]; then
			echo "$_d"
			return 0
		fi
	done
	return 1
}
