# SPDX-License-Identifier: GPL-2.0 OR MIT
# lib.sh - helpers for guest suites (busybox sh).  Sourced before each suite.sh;
# $UDMEM_SUITE is the suite's name.
#
# C programs (harness.h) print KTAP ("ok 3 suite/name") and are run through
# udmem_run; checks made in shell print the plain form ("ok - suite/name")
# through tap_ok, tap_fail, tap_skip, tap_check and tap_eq.  The host
# counts both forms.

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

# udmem_run [VAR=VALUE...] PROG [ARGS...]: run a harness.h program from
# /udmem/bin with the given environment; its KTAP goes to the console.  The
# program must print as many results as its plan and exit 0, else one more
# failing line: "not ok - <suite>/<prog>/plan # printed 7 of 9 results" (a
# crash or a hang cuts the count) and/or "exit status 139".  A
# UDMEM_SUITE=... assignment names the suite of that line too.  Returns
# the program's exit status.
udmem_run() {
	_ur_suite=$UDMEM_SUITE
	_ur_prog=
	for _ur_a in "$@"; do
		case $_ur_a in
		UDMEM_SUITE=*) _ur_suite=${_ur_a#UDMEM_SUITE=} ;;
		*=*) ;;
		*) _ur_prog=$_ur_a; break ;;
		esac
	done
	if [ ! -x "/udmem/bin/$_ur_prog" ]; then
		echo "not ok - $_ur_suite/$_ur_prog/plan # program /udmem/bin/$_ur_prog is missing"
		return 127
	fi
	_ur_log=/tmp/udmem-run.$$.log
	{ env "$@"; echo $? > "$_ur_log.rc"; } | tee "$_ur_log"
	_ur_rc=$(cat "$_ur_log.rc")
	_ur_plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$_ur_log" | head -n 1)
	_ur_got=$(grep -cE '^(not )?ok [0-9]+ ' "$_ur_log")
	rm -f "$_ur_log" "$_ur_log.rc"
	_ur_why=
	if [ -z "$_ur_plan" ]; then
		_ur_why="printed no plan ($_ur_got results)"
	elif [ "$_ur_got" != "$_ur_plan" ]; then
		_ur_why="printed $_ur_got of $_ur_plan results"
	fi
	if [ "$_ur_rc" != 0 ]; then
		_ur_why="${_ur_why:+$_ur_why, }exit status $_ur_rc"
	fi
	if [ -n "$_ur_why" ]; then
		echo "not ok - $_ur_suite/$_ur_prog/plan # $_ur_why"
	fi
	return "$_ur_rc"
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
