# SPDX-License-Identifier: GPL-2.0 OR MIT
# demo: what `make demo` runs in the arm64 guest.  The device tree carries
# the six buffers of seed 000's table (tests/qemu/dt/10-u-dma-buf.dtsi) and
# a device-memory region (20-uiomem.dtsi).  Runs the full `udmem bench`,
# prints every JSON record prefixed "@@JSON ", the table prefixed
# "@@TABLE ", our CPU-access program's timings prefixed "@@ACCESS " (and
# the seed document's own program prefixed "@@SEED000 " when the harness
# built it), and the DMA-BUF enqueue sweep (a 64 MiB buffer's export against
# mainline udmabuf, 4 KiB to 64 MiB) prefixed "@@ENQ " and "@@ENQTABLE ",
# and copies through a DMA channel beside a CPU copy (udmem bench --dma on
# a board's engine beside dmatest, or on the edu provider) prefixed "@@DMA "
# and "@@DMATABLE "; scripts/demo.sh
# picks them out of the console log.

DEMO_OUT=/tmp/demo.jsonl
DEMO_RUNS=${DEMO_RUNS:-5}
# Seed 000's table, in its order, and the region standing in for FPGA BRAM.
DEMO_BUFFERS="udmabuf-fabric-low udmabuf-fabric-high udmabuf-soc-high udmabuf-ddr-c0 udmabuf-ddr-nc0 udmabuf-ddr-nc-wcb0"
DEMO_REGION=uiomem-nomap
demo_loaded=""

if udmem_insmod u-dma-buf; then
	demo_loaded="u-dma-buf"
	tap_ok load-u-dma-buf
else
	tap_fail load-u-dma-buf "insmod u-dma-buf failed"
fi
if udmem_insmod uiomem; then
	demo_loaded="$demo_loaded uiomem"
	tap_ok load-uiomem
else
	tap_fail load-uiomem "insmod uiomem failed"
fi

# Without the device-tree buffers (a target without them), make seed 000's
# sizes from module parameters so that the demo still shows the matrix.
if [ -z "$(ls /sys/class/u-dma-buf 2>/dev/null)" ] &&
   echo "$demo_loaded" | grep -q u-dma-buf; then
	echo "# no device-tree buffers: seed 000's sizes from module parameters"
	udmem_rmmod u-dma-buf
	udmem_insmod u-dma-buf udmabuf0=0x200000 udmabuf1=0x200000 \
		udmabuf2=0x200000 udmabuf3=0x2000000 || true
fi
# Without a device-tree region, ivshmem's shared-memory BAR is one.
if [ -z "$(ls /sys/class/uiomem 2>/dev/null)" ] &&
   echo "$demo_loaded" | grep -q uiomem &&
   demo_ivshmem=$(udmem_pci_dev 0x1af4 0x1110); then
	echo "# no device-tree region: ivshmem's BAR 2 as uiomem0"
	echo 1 > "$demo_ivshmem/enable" 2>/dev/null
	read -r demo_start demo_end _ <<-EOF
		$(sed -n 3p "$demo_ivshmem/resource")
	EOF
	udmem_rmmod uiomem
	udmem_insmod uiomem uiomem0_addr="$demo_start" \
		uiomem0_size="$(printf '0x%x' $((demo_end - demo_start + 1)))" || true
fi

# The device tree also has the other suites' test nodes: measure seed
# 000's buffers and one region when they are there, else everything.
demo_names=""
for n in $DEMO_BUFFERS $DEMO_REGION; do
	[ -e "/sys/class/u-dma-buf/$n" ] || [ -e "/sys/class/uiomem/$n" ] &&
		demo_names="$demo_names $n"
done
# demo_ls DIR: the names in DIR, on one line.
demo_ls() {
	for _f in "$1"/*; do
		[ -e "$_f" ] && printf '%s ' "${_f##*/}"
	done
}
echo "# buffers: $(demo_ls /sys/class/u-dma-buf)"
echo "# regions: $(demo_ls /sys/class/uiomem)"
echo "# measuring:${demo_names:- every buffer and region}"

# The page-table reader: the report's memory-type lines (arm64, x86_64).
if udmem_insmod udmem-memtype 2>/dev/null; then
	demo_loaded="udmem-memtype $demo_loaded"
fi

demo_t0=$(date +%s)
# shellcheck disable=SC2086
if udmem bench --json --runs "$DEMO_RUNS" $demo_names > "$DEMO_OUT"; then
	tap_ok bench-run
else
	tap_fail bench-run "udmem bench exited $? (errors in the records below)"
fi
echo "# bench took $(($(date +%s) - demo_t0)) s"
sed 's/^/@@JSON /' "$DEMO_OUT"
udmem bench --report "$DEMO_OUT" | sed 's/^/@@TABLE /'
if grep -q '^{"type":"end"' "$DEMO_OUT"; then
	tap_ok bench-complete
else
	tap_fail bench-complete "no end record"
fi

# demo_measured NAME: is NAME one of the measured buffers (all when none is)?
demo_measured() {
	case " $demo_names " in
	*" $1 "*|"  ") return 0 ;;
	esac
	return 1
}

# Our CPU-access program (tests/guest/udmabuf-cpu-access: mmap against
# read()/write(), O_SYNC and cached, data checked) on every measured buffer;
# its timing lines again prefixed "@@ACCESS ".
for b in $(demo_ls /sys/class/u-dma-buf); do
	demo_measured "$b" || continue
	udmem_run UDMEM_SUITE="$UDMEM_SUITE/cpu-access/$b" UDMABUF_DEV="$b" \
		udmabuf-cpu-access | tee /tmp/demo-access.log
	sed -n 's/^# cpu-access /@@ACCESS /p' /tmp/demo-access.log
done
rm -f /tmp/demo-access.log

# The seed document's own program, when it was extracted from the document
# (tests/guest/udmabuf-cpu-access/extract-document-program.sh) and so
# built, prefixed "@@SEED000 ".
if [ -x /udmem/bin/u-dma-buf-file-test ]; then
	for b in $(demo_ls /sys/class/u-dma-buf); do
		demo_measured "$b" || continue
		echo "@@SEED000 ##  file-test-$b"
		/udmem/bin/u-dma-buf-file-test -n "$b" 2>&1 | sed 's/^/@@SEED000 /'
	done
	tap_ok document-program-ran
else
	tap_skip document-program-ran "no source document given (see tests/guest/udmabuf-cpu-access/extract-document-program.sh)"
fi

# The enqueue sweep: a buffer of its own from the manager, on the manager's
# device (not DMA-coherent on arm64: the cache maintenance shows), up to
# 64 MiB (scripts/demo.sh gives the guest the CMA for it), through the
# test importer; `--icount` when the demo runs the guest under -icount.
demo_enq=""
if echo "$demo_loaded" | grep -q u-dma-buf && udmem_insmod u-dma-buf-mgr; then
	demo_loaded="u-dma-buf-mgr $demo_loaded"
	for sz in 0x4000000 0x1000000; do
		echo "create udmabuf-enq $sz" > /dev/u-dma-buf-mgr 2>/dev/null &&
			[ -e /dev/udmabuf-enq ] && demo_enq=$sz && break
	done
fi
if udmem_insmod udmem-dmabuf-importer 2>/dev/null; then
	demo_loaded="udmem-dmabuf-importer $demo_loaded"
fi
case "$(cat /proc/cmdline)" in
*udmem.icount=1*) demo_icount=--icount ;;
*) demo_icount= ;;
esac
if [ -z "$demo_enq" ]; then
	tap_fail enqueue-run "no buffer for the enqueue sweep (u-dma-buf-mgr create failed)"
else
	echo "# enqueue sweep on udmabuf-enq ($demo_enq bytes)${demo_icount:+, instruction-counted}"
	# shellcheck disable=SC2086
	if udmem bench --enqueue --json --runs "$DEMO_RUNS" $demo_icount udmabuf-enq \
	   > "$DEMO_OUT"; then
		tap_ok enqueue-run
	else
		tap_fail enqueue-run "udmem bench --enqueue exited $?"
	fi
	sed 's/^/@@ENQ /' "$DEMO_OUT"
	udmem bench --report "$DEMO_OUT" | sed 's/^/@@ENQTABLE /'
	if grep -q '"type":"enqueue"' "$DEMO_OUT"; then
		tap_ok enqueue-records
	elif grep -q '"type":"skip"' "$DEMO_OUT"; then
		tap_skip enqueue-records "$(grep '"type":"skip"' "$DEMO_OUT" | head -n 1 |
			sed 's/.*"reason":"\([^"]*\)".*/\1/')"
	else
		tap_fail enqueue-records "no enqueue record"
	fi
	echo "delete udmabuf-enq" > /dev/u-dma-buf-mgr
fi

# Copies through u-dma-chan, between two buffers of the manager, beside a
# CPU copy: on a board (make demo BOARD=zcu102) through its own engine and
# beside the kernel's dmatest on the same channel, 64 KiB to 1 MiB with 1, 2
# and 4 transfers in flight; elsewhere on the test provider over the second
# edu device (4 KiB a 100 ms tick: the system calls, not the rate).
if [ -f /udmem/modules/u-dma-chan.ko ] && [ -f /udmem/modules/dmatest.ko ] &&
   [ -e /dev/u-dma-buf-mgr ] && [ ! -e /sys/bus/pci/devices/0000:00:10.0 ]; then
	udmem_board_engines
	if ! udmem_insmod u-dma-chan memcpy=demo-dma0 || [ ! -e /dev/demo-dma0 ]; then
		tap_fail dma-run "no dmaengine channel that can memcpy: $(dmesg | tail -n 2 | tr '\n' ' ')"
	else
		demo_chan=$(cat /sys/class/u-dma-chan/demo-dma0/channel)
		echo "# demo-dma0: $demo_chan of $(cat /sys/class/u-dma-chan/demo-dma0/device)"
		# dmatest needs the channel free: u-dma-chan lets it go, then takes it back
		echo "delete demo-dma0" > /dev/u-dma-chan-mgr
		udmem_dmatest_rates "$demo_chan" /tmp/demo-dmatest.txt 65536 262144 1048576
		if echo "create demo-dma0 $demo_chan" > /dev/u-dma-chan-mgr &&
		   echo "create udmabuf-dma-src 0x400000" > /dev/u-dma-buf-mgr &&
		   echo "create udmabuf-dma-dst 0x400000" > /dev/u-dma-buf-mgr; then
			# shellcheck disable=SC2086
			if udmem bench --dma demo-dma0 --dmatest /tmp/demo-dmatest.txt --json \
			   --runs 3 $demo_icount udmabuf-dma-src udmabuf-dma-dst > "$DEMO_OUT"; then
				tap_ok dma-run
			else
				tap_fail dma-run "udmem bench --dma exited $?"
			fi
			tap_check dma-beside-dmatest grep -q '"type":"dma".*"dmatest_ratio":[0-9]' "$DEMO_OUT"
			sed 's/^/@@DMA /' "$DEMO_OUT"
			udmem bench --report "$DEMO_OUT" | sed 's/^/@@DMATABLE /'
		else
			tap_fail dma-run "the channel or the buffers again: $(dmesg | tail -n 2 | tr '\n' ' ')"
		fi
		for b in udmabuf-dma-src udmabuf-dma-dst; do
			[ -e "/dev/$b" ] && echo "delete $b" > /dev/u-dma-buf-mgr
		done
		udmem_rmmod u-dma-chan
	fi
	rm -f /tmp/demo-dmatest.txt
	udmem_board_unload_engines
elif [ ! -f /udmem/modules/udmem-edu-dma.ko ] || [ ! -f /udmem/modules/u-dma-chan.ko ] ||
   [ ! -e /sys/bus/pci/devices/0000:00:10.0 ] || [ ! -e /dev/u-dma-buf-mgr ]; then
	tap_skip dma-run "no edu DMA provider (PCI, the second edu device) or no u-dma-chan"
elif udmem_insmod udmem-edu-dma && demo_loaded="udmem-edu-dma $demo_loaded" &&
     udmem_insmod u-dma-chan memcpy=demo-dma0 && demo_loaded="u-dma-chan $demo_loaded" &&
     [ -e /dev/demo-dma0 ] &&
     echo "create udmabuf-dma-src 0x10000" > /dev/u-dma-buf-mgr &&
     echo "create udmabuf-dma-dst 0x10000" > /dev/u-dma-buf-mgr; then
	# shellcheck disable=SC2086
	if udmem bench --dma demo-dma0 --json --runs 3 $demo_icount udmabuf-dma-src \
	   udmabuf-dma-dst > "$DEMO_OUT"; then
		tap_ok dma-run
	else
		tap_fail dma-run "udmem bench --dma exited $?"
	fi
	sed 's/^/@@DMA /' "$DEMO_OUT"
	udmem bench --report "$DEMO_OUT" | sed 's/^/@@DMATABLE /'
	echo "delete udmabuf-dma-src" > /dev/u-dma-buf-mgr
	echo "delete udmabuf-dma-dst" > /dev/u-dma-buf-mgr
else
	tap_fail dma-run "no channel or buffers for the copies: $(dmesg | tail -n 2 | tr '\n' ' ')"
fi

rm -f "$DEMO_OUT"
for m in $demo_loaded; do
	udmem_rmmod "$m"
done
