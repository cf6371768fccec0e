# SPDX-License-Identifier: GPL-2.0 OR MIT
# board-dma: on a board target (zcu102 ...), the SoC's own DMA engine moves
# data between u-dma-buf buffers and between a buffer and the on-chip
# memory through uiomem, both ways, at the DMA addresses the drivers report
# (tests/kmod/udmem-dmaengine-test.ko is the peer).  dmatest proves every
# channel of the engine first.  Other targets have no engine: one SKIP.
#
# The engine drivers Debian lacks (zynqmp_dma, sf-pdma) and dmatest are built
# from Debian's linux-source by tests/qemu/udmemqemu/boards.py.

# shellcheck disable=SC2154 # udmem_board_*: set by lib.sh's udmem_board_* helpers
# bd_chans: the dmaengine channels of the guest, one a line
bd_chans() {
	ls /sys/class/dma 2>/dev/null
}

udmem_board_engines
for m in $udmem_board_loaded; do
	tap_ok "engine-$m-loads"
done
for m in $udmem_board_failed; do
	tap_fail "engine-$m-loads" "insmod $m.ko failed: $udmem_board_why"
done
bd_n=$(bd_chans | wc -l)

if [ "$bd_n" = 0 ]; then
	tap_skip engine "no dmaengine channel in this guest (board targets have one)"
else
	echo "# $bd_n dmaengine channels"
	tap_ok engine-channels

	# ---- dmatest: every channel, 20 copies each
	if [ ! -f /udmem/modules/dmatest.ko ]; then
		tap_skip dmatest "dmatest.ko was not built for this target"
	elif ! udmem_insmod dmatest timeout=5000 iterations=20; then
		tap_fail dmatest "insmod dmatest failed"
	else
		# iterations and timeout are read when a channel is added
		bd_before=$(for c in $(bd_chans); do echo "$c $(udmem_dmatest_count "$c")"; done)
		echo "" > /sys/module/dmatest/parameters/channel
		echo 1 > /sys/module/dmatest/parameters/run
		for c in $(bd_chans); do
			bd_sum=$(udmem_dmatest_summary "$c" \
				"$(echo "$bd_before" | awk -v c="$c" '$1 == c { print $2 }')")
			udmem_dmatest_check "dmatest-$c" 20 "$c" "$bd_sum"
		done
		udmem_rmmod dmatest
	fi

	# ---- the peer, buffers bound to its engine, the on-chip memory
	bd_eng=""
	if ! udmem_board_peer; then
		tap_fail peer "insmod udmem-dmaengine-test failed: $udmem_board_why"
	else
		bd_eng=$udmem_board_eng
		tap_check peer test -n "$udmem_board_bits"
		echo "# peer: channel $udmem_board_chan of $bd_eng, DMA mask $udmem_board_bits bits"
	fi
	if [ -n "$bd_eng" ]; then
		bd_bind=$udmem_board_bind
		if udmem_insmod u-dma-buf udmabuf0=0x100000 udmabuf0_bind="$bd_bind" \
			udmabuf1=0x100000 udmabuf1_bind="$bd_bind" info_enable=3 &&
			[ -e /dev/udmabuf0 ] && [ -e /dev/udmabuf1 ]; then
			tap_ok buffers-bound-to-engine
		else
			tap_fail buffers-bound-to-engine "insmod u-dma-buf bind=$bd_bind failed"
			bd_eng=""
		fi
		bd_region=$(udmem_board_region)
		if [ -n "$bd_region" ]; then
			tap_ok on-chip-memory-region
		else
			tap_fail on-chip-memory-region "no /dev/uiomem-ocm or /dev/uiomem-l2lim: $(dmesg | grep -i uiomem | tail -n 2)"
		fi
	fi
	if [ -n "$bd_eng" ]; then
		# bd_pair TAG SRC DST: the program from SRC to DST (DST also with OCM)
		bd_pair() {
			if [ ! -e "/dev/$2" ] || [ ! -e "/dev/$3" ]; then
				tap_fail "$1" "no /dev/$2 or /dev/$3 (tests/qemu/dt/10-u-dma-buf.dtsi)"
				return
			fi
			echo "# $1: $2 at $(cat "/sys/class/u-dma-buf/$2/phys_addr") -> $3 at $(cat "/sys/class/u-dma-buf/$3/phys_addr")"
			udmem_run UDMEM_SUITE="$UDMEM_SUITE/$1" BOARD_SRC="$2" BOARD_DST="$3" \
				BOARD_REGION="$bd_region" board-dma
		}
		bd_pair bound udmabuf0 udmabuf1
		bd_pair bound-reverse udmabuf1 udmabuf0
		# device-tree buffers: coherent, non-coherent in a no-map pool, CMA, no-map
		if [ "$UDMEM_ARCH" = riscv64 ]; then
			tap_skip dt-noncoherent-to-cma "10-u-dma-buf.dtsi leaves both nodes out on riscv64 (QEMU's harts have no Zicbom to maintain a non-coherent buffer; trixie's riscv64 kernel has no CMA)"
		else
			bd_pair dt-noncoherent-to-cma udmabuf-dt-noncoherent udmabuf-dt-cma
		fi
		bd_pair dt-coherent-to-nomap udmabuf-dt-coherent udmabuf-dt-nomap
		# seed 000's six buffers
		bd_pair seed-fabric-low-to-ddr-c udmabuf-fabric-low udmabuf-ddr-c0
		bd_pair seed-ddr-nc-to-fabric-high udmabuf-ddr-nc0 udmabuf-fabric-high
		bd_pair seed-ddr-nc-wcb-to-soc-high udmabuf-ddr-nc-wcb0 udmabuf-soc-high

		# ---- as a user would: the udmem tool loads, the engine copies, the tool saves
		bd_in=/tmp/board-dma.in
		bd_out=/tmp/board-dma.out
		dd if=/dev/urandom of=$bd_in bs=4096 count=16 2>/dev/null
		bd_s=$(cat /sys/class/u-dma-buf/udmabuf0/phys_addr)
		bd_d=$(cat /sys/class/u-dma-buf/udmabuf1/phys_addr)
		if udmem load udmabuf0 $bd_in &&
			echo "copy $bd_s $bd_d 65536" > /dev/udmem-dmaengine-test &&
			udmem save udmabuf1 $bd_out --length 65536 --sync &&
			cmp -s $bd_in $bd_out; then
			tap_ok cli-load-engine-save
		else
			tap_fail cli-load-engine-save "the buffer did not come back equal"
		fi
		if [ -n "$bd_region" ]; then
			bd_r=$(cat "/sys/class/uiomem/$bd_region/phys_addr")
			if udmem load "$bd_region" $bd_in &&
				echo "copy $bd_r $bd_d 65536" > /dev/udmem-dmaengine-test &&
				udmem save udmabuf1 $bd_out --length 65536 --sync &&
				cmp -s $bd_in $bd_out; then
				tap_ok cli-load-ocm-engine-save
			else
				tap_fail cli-load-ocm-engine-save "the on-chip memory did not come back equal"
			fi
		fi
		rm -f $bd_in $bd_out
		# The Python package's transfers: the board-python suite.
	fi
	udmem_board_unload
	# ---- the engine's next client after the peer is gone
	if [ -n "$bd_eng" ] && [ -f /udmem/modules/dmatest.ko ] &&
		! grep -q '^udmem_dmaengine_test ' /proc/modules; then
		udmem_dmatest_next_client next-client-after-peer "$udmem_board_chan"
	fi
fi
udmem_board_unload_engines
