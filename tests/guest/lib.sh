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

# udmem_of_pdev NODE: print the name of the platform device made from the
# device-tree node NODE (its full name, unit address included); 1 if none.
# One `ls` for every device: a readlink each costs a fork, and forks are
# slow on the debug kernels (the board targets have ~100 devices).
# shellcheck disable=SC2012 # sysfs device names have no blanks
udmem_of_pdev() {
	ls -l /sys/bus/platform/devices/*/of_node 2>/dev/null | awk -v node="$1" '
		{ n = $NF; sub(/.*\//, "", n) }
		n == node { d = $(NF - 2); sub(/\/of_node$/, "", d); sub(/.*\//, "", d)
			    print d; found = 1; exit }
		END { exit !found }'
}

# udmem_seed: a fuzzing seed below 10^9+7 from the kernel's entropy pool
# (a guest's clock may start at 1970, so the time repeats between boots).
udmem_seed() {
	echo $(($(od -An -N4 -tu4 /dev/urandom) % 1000000007))
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

# udmem_dmatest_count CHAN: how many dmatest summary lines for CHAN the log holds.
udmem_dmatest_count() {
	dmesg | grep -c "dmatest: $1-copy[0-9]*: summary"
}

# udmem_dmatest_summary CHAN BEFORE: print the newest dmatest summary line
# for CHAN once the log holds more than BEFORE of them (nothing if none
# comes).  Reading dmatest's `wait` parameter returns at once while a test
# thread is woken but has not run yet (dmatest counts it as pending, not
# running), so read it again until the thread has run and its line is there.
udmem_dmatest_summary() {
	_dt=0
	while [ "$_dt" -lt 300 ]; do
		cat /sys/module/dmatest/parameters/wait > /dev/null
		if [ "$(udmem_dmatest_count "$1")" -gt "$2" ]; then
			dmesg | grep "dmatest: $1-copy[0-9]*: summary" | tail -n 1
			return 0
		fi
		sleep 1
		_dt=$((_dt + 1))
	done
	return 1
}

# udmem_dmatest_run CHAN: run the loaded dmatest on CHAN alone (its
# iterations and sizes are the module's parameters) and print this run's
# summary line; nothing if dmatest refused the channel or no line came.
udmem_dmatest_run() {
	_dn=$(udmem_dmatest_count "$1")
	echo "$1" > /sys/module/dmatest/parameters/channel &&
		echo 1 > /sys/module/dmatest/parameters/run &&
		udmem_dmatest_summary "$1" "$_dn"
}

# udmem_dmatest_check TAG N CHAN SUMMARY: one TAP line TAG, ok when SUMMARY
# (a line of CHAN's) counts N tests and no failure.
udmem_dmatest_check() {
	case $4 in
	*" $2 tests, 0 failures"*) tap_ok "$1" ;;
	"") tap_fail "$1" "no dmatest summary for $3" ;;
	*) tap_fail "$1" "${4#*summary }" ;;
	esac
}

# udmem_dmatest_next_client TAG CHAN: the kernel's dmatest, 20 copies on
# CHAN, as the next client of an engine a module of ours has just let go:
# a descriptor it used must not carry its completion function along
# (PL330, docs/dma.md).  One TAP line TAG.
udmem_dmatest_next_client() {
	if ! udmem_insmod dmatest timeout=5000 iterations=20; then
		tap_fail "$1" "insmod dmatest failed"
		return
	fi
	udmem_dmatest_check "$1" 20 "$2" "$(udmem_dmatest_run "$2")"
	udmem_rmmod dmatest
}

# udmem_dmatest_rates CHAN FILE SIZE...: the kernel's dmatest on CHAN (free:
# no u-dma-chan holding it), 8 copies of each SIZE, one buffer at a time, no
# verify, no random lengths: the engine's copy rate with no user space in
# the way, as "CHAN SIZE KB/s" lines in FILE (`udmem bench --dmatest FILE`).
# A TAP line dmatest-SIZE each.
udmem_dmatest_rates() {
	_dc=$1
	_df=$2
	shift 2
	: > "$_df"
	for _sz in "$@"; do
		if ! udmem_insmod dmatest timeout=20000 iterations=8 norandom=1 noverify=1 \
		     test_buf_size="$_sz"; then
			tap_fail "dmatest-$_sz" "insmod dmatest failed"
			continue
		fi
		_ds=$(udmem_dmatest_run "$_dc")
		_kbs=$(echo "$_ds" | sed -n 's/.* 8 tests, 0 failures .* \([0-9][0-9]*\) KB\/s .*/\1/p')
		case $_kbs in
		'' | 0) tap_fail "dmatest-$_sz" "${_ds:-no dmatest summary for $_dc}" ;;
		*)
			tap_ok "dmatest-$_sz"
			echo "$_dc $_sz $_kbs" >> "$_df"
			;;
		esac
		udmem_rmmod dmatest
	done
}

# The board suites' shared setup (board-dma, board-python): the SoC's DMA
# engine, the test peer on it, and the on-chip memory region.

# udmem_board_engines: load the engine drivers built for this board that are
# not loaded yet (and virt-dma, which sf-pdma needs).  Sets
# udmem_board_loaded to the engines it loaded and udmem_board_failed to
# those whose insmod failed (with the kernel's last words in
# udmem_board_why).
# shellcheck disable=SC2034 # the suites read what it sets
udmem_board_engines() {
	udmem_board_loaded=
	udmem_board_failed=
	udmem_board_why=
	if [ -f /udmem/modules/sf-pdma.ko ] && [ -f /udmem/kmods/virt-dma.ko ] &&
		! grep -q '^virt_dma ' /proc/modules; then
		insmod /udmem/kmods/virt-dma.ko
	fi
	for _be in zynqmp_dma sf-pdma; do
		[ -f "/udmem/modules/$_be.ko" ] || continue
		grep -q "^$(echo "$_be" | tr - _) " /proc/modules && continue
		if udmem_insmod "$_be"; then
			udmem_board_loaded="$udmem_board_loaded $_be"
		else
			udmem_board_failed="$udmem_board_failed $_be"
			udmem_board_why=$(dmesg | tail -n 2 | tr '\n' ' ')
		fi
	done
}

# udmem_board_unload_engines: unload what udmem_board_engines loaded, but
# sf-pdma (and virt-dma under it): on 7.2 it cannot register its channels
# again after a removal (sysfs: duplicate dma0chan0), so later suites use
# it as loaded.
udmem_board_unload_engines() {
	for _be in $udmem_board_loaded; do
		[ "$_be" = sf-pdma ] || udmem_rmmod "$_be"
	done
}

# udmem_board_peer: load tests/kmod's dmaengine peer and read what it uses:
# udmem_board_chan, udmem_board_eng (the engine's device), udmem_board_bits
# (its DMA mask width) and udmem_board_bind (u-dma-buf's bind= name for it:
# the bus is named, but for the platform bus).  1 when the peer fails to
# load (udmem_board_why says why).
# shellcheck disable=SC2034 # the suites read what it sets
udmem_board_peer() {
	udmem_board_eng=
	udmem_board_bind=
	if ! udmem_insmod udmem-dmaengine-test; then
		udmem_board_why=$(dmesg | tail -n 2 | tr '\n' ' ')
		return 1
	fi
	# "<channel> <device> <DMA mask width>"
	read -r udmem_board_chan udmem_board_eng udmem_board_bits < /dev/udmem-dmaengine-test
	udmem_board_bind=$udmem_board_eng
	[ -e "/sys/bus/amba/devices/$udmem_board_eng" ] &&
		udmem_board_bind="amba/$udmem_board_eng"
	return 0
}

# udmem_board_region: load uiomem and print the name of the board's
# on-chip memory region (Zynq's OCM, PolarFire's L2-LIM, from
# tests/qemu/dt/3*-board-*.dtsi); nothing when there is none.
udmem_board_region() {
	grep -q '^uiomem ' /proc/modules || udmem_insmod uiomem || return 0
	for _br in uiomem-ocm uiomem-l2lim; do
		[ -e "/dev/$_br" ] && echo "$_br"
	done
	return 0
}

# udmem_board_unload: unload the drivers and the peer the board suites load.
udmem_board_unload() {
	for _bm in uiomem u_dma_buf udmem_dmaengine_test; do
		grep -q "^$_bm " /proc/modules && udmem_rmmod "$_bm"
	done
}
