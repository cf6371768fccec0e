# SPDX-License-Identifier: GPL-2.0 OR MIT
# bench: `udmem bench --quick --json` on a buffer and a device-memory region
# this suite creates; the output is well formed and complete, and touching
# a fresh 32 MiB mapping takes few page faults (issue 3: <= 16; the
# original driver faults once per 4 KiB page, 8192 times).

BENCH_OUT=/tmp/bench.jsonl
BENCH_FAULT_GOAL=16

# bench_field RECORD KEY: a number or bare value of a flat JSON line
bench_field() {
	echo "$1" | sed -n "s/.*\"$2\":\"\{0,1\}\([^,\"}]*\).*/\1/p"
}

# bench_enqueue_check: the enqueue records of $bench_buf in $BENCH_OUT.
bench_enqueue_check() {
	_recs=$(grep "\"type\":\"enqueue\",\"target\":\"$bench_buf\"" "$BENCH_OUT")
	_ours=$(echo "$_recs" | grep -c '"exporter":"u-dma-buf"')
	_theirs=$(echo "$_recs" | grep -c '"exporter":"udmabuf"')
	if [ "$_ours" -ge 2 ] && [ "$_ours" = "$_theirs" ]; then
		tap_ok enqueue-sizes-recorded
	else
		tap_fail enqueue-sizes-recorded "$_ours u-dma-buf and $_theirs udmabuf records (want >= 2 each)"
		return
	fi
	_bad=""
	_uncounted=""
	_rows=$(echo "$_recs" | tr ' ' '_')
	for _r in $_rows; do
		_e=$(bench_field "$_r" exporter)
		_sg=$(bench_field "$_r" sg_entries)
		_ops=$(bench_field "$_r" cache_ops)
		_map=$(bench_field "$_r" cache_ops_map)
		_sync=$(bench_field "$_r" cache_ops_sync)
		_pages=$(bench_field "$_r" pages)
		_coh=$(bench_field "$_r" coherent)
		echo "# enqueue $_e size=$(bench_field "$_r" size) pages=$_pages sg=$_sg ops=$_ops=$_map+$_sync ($(bench_field "$_r" cache_ops_source)) coherent=$_coh us=$(bench_field "$_r" median) clock=$(bench_field "$_r" clock)"
		case $_ops in
		''|null) _uncounted="$_uncounted $_e/$_pages"; continue ;;
		esac
		if [ "$_e" = u-dma-buf ]; then
			[ "$_sg" = 1 ] || _bad="$_bad $_e/$_pages:sg=$_sg"
			if [ "$_coh" = true ]; then
				[ "$_ops" = 0 ] || _bad="$_bad $_e/$_pages:ops=$_ops(coherent)"
			elif [ "$_ops" -lt 1 ] || [ "$_map" -gt 2 ] || [ "$_sync" -gt 2 ]; then
				_bad="$_bad $_e/$_pages:ops=$_map+$_sync"
			fi
		else
			[ "$_sg" -ge "$_pages" ] || _bad="$_bad $_e/$_pages:sg=$_sg"
			if [ "$_coh" = true ]; then
				[ "$_ops" = 0 ] || _bad="$_bad $_e/$_pages:ops=$_ops(coherent)"
			elif [ "$_sync" -lt "$_pages" ]; then
				_bad="$_bad $_e/$_pages:sync-ops=$_sync"
			fi
		fi
	done
	if [ -n "$_uncounted" ]; then
		tap_fail enqueue-cache-ops-counted "no count for$_uncounted"
	else
		tap_ok enqueue-cache-ops-counted
	fi
	if [ -z "$_bad" ]; then
		tap_ok enqueue-export-one-entry-udmabuf-one-per-page
	else
		tap_fail enqueue-export-one-entry-udmabuf-one-per-page "$_bad"
	fi
}

# bench_sc_check FILE TARGET: the sync checker's records of TARGET in FILE
# (a correct program): off takes no fault in a round after the first touch,
# report and strict take one per page or more (every sync for the device
# takes the pages away), and no mode counts a violation.
bench_sc_check() {
	for _m in off report strict; do
		_r=$(grep "\"type\":\"synccheck\",\"target\":\"$2\",\"mode\":\"$_m\"" "$1")
		if [ -z "$_r" ]; then
			tap_fail "sync-check-$_m-recorded" "no synccheck record of $2 in mode $_m"
			continue
		fi
		_flt=$(bench_field "$_r" minflt)
		_fmax=$(bench_field "$_r" minflt_max)
		_pages=$(bench_field "$_r" pages)
		echo "# sync check $_m: pages=$_pages faults/round=$_flt (max $_fmax) first=$(bench_field "$_r" first_minflt) sync=$(bench_field "$_r" median) us write=$(bench_field "$_r" write_mbs) read=$(bench_field "$_r" read_mbs) MB/s ratios w/r/s=$(bench_field "$_r" ratio_write)/$(bench_field "$_r" ratio_read)/$(bench_field "$_r" ratio_sync) clock=$(bench_field "$_r" clock)"
		tap_eq "sync-check-$_m-no-violations" 0 "$(bench_field "$_r" violations)"
		if [ "$_m" = off ]; then
			if [ "${_fmax%.*}" = 0 ]; then
				tap_ok sync-check-off-no-fault-per-round
			else
				tap_fail sync-check-off-no-fault-per-round "up to $_fmax faults in a round, $_pages pages"
			fi
		elif [ -n "$_flt" ] && [ -n "$_pages" ] && [ "${_flt%.*}" -ge "$_pages" ]; then
			tap_ok "sync-check-$_m-refaults-every-page"
		else
			tap_fail "sync-check-$_m-refaults-every-page" "$_flt faults per round for $_pages pages"
		fi
	done
}

# The buffer: 32 MiB when the kernel has CMA for it, else 4 MiB (x86 has none).
bench_buf=""
if [ ! -f /udmem/modules/u-dma-buf.ko ]; then
	tap_skip setup-u-dma-buf "u-dma-buf.ko was not built"
elif udmem_insmod u-dma-buf udmabuf0=0x2000000 udmabuf1=0x10000 2>/dev/null &&
     [ -e /dev/udmabuf0 ]; then
	bench_buf=udmabuf0
	tap_ok setup-u-dma-buf
else
	lsmod | grep -q '^u_dma_buf' && udmem_rmmod u-dma-buf
	if udmem_insmod u-dma-buf udmabuf0=0x400000 udmabuf1=0x10000 && [ -e /dev/udmabuf0 ]; then
		bench_buf=udmabuf0
		tap_ok setup-u-dma-buf
		echo "# no 32 MiB buffer here (no CMA?): measuring 4 MiB"
	else
		tap_fail setup-u-dma-buf "insmod u-dma-buf udmabuf0=4 MiB failed"
	fi
fi

# The region: ivshmem's shared-memory BAR, memory outside System RAM; on a
# board (no PCI), the SoC's on-chip memory, as seed 001 measured PL block
# RAM: the window of tests/qemu/dt/3*-board-*.dtsi.
bench_region=""
bench_ivshmem=$(udmem_pci_dev 0x1af4 0x1110)
if [ ! -f /udmem/modules/uiomem.ko ]; then
	tap_skip setup-uiomem "uiomem.ko was not built"
elif [ -z "$bench_ivshmem" ] && [ "$UDMEM_HAS_DT" = 1 ] &&
	grep -q -E 'uiomem-(ocm|l2lim)' /proc/device-tree/*/device-name 2>/dev/null; then
	if udmem_insmod uiomem; then
		for r in uiomem-ocm uiomem-l2lim; do
			[ -e "/dev/$r" ] && bench_region=$r
		done
	fi
	if [ -n "$bench_region" ]; then
		tap_ok setup-uiomem
		echo "# device memory: the on-chip window $bench_region"
	else
		tap_fail setup-uiomem "no /dev/uiomem-ocm or /dev/uiomem-l2lim"
	fi
elif [ -z "$bench_ivshmem" ]; then
	tap_skip setup-uiomem "no ivshmem device and no on-chip memory window"
else
	echo 1 > "$bench_ivshmem/enable" 2>/dev/null
	read -r bench_start bench_end _ <<-EOF
		$(sed -n 3p "$bench_ivshmem/resource")
	EOF
	bench_size=$(printf '0x%x' $((bench_end - bench_start + 1)))
	if udmem_insmod uiomem uiomem0_addr="$bench_start" \
	   uiomem0_size="$bench_size" && [ -e /dev/uiomem0 ]; then
		bench_region=uiomem0
		tap_ok setup-uiomem
	else
		tap_fail setup-uiomem "insmod uiomem uiomem0_addr=$bench_start uiomem0_size=$bench_size failed"
	fi
fi

# The page-table reader, for the memory type of each mapping (after
# u-dma-buf: it finds manager-made buffers through its API).
bench_mt=
if udmem_insmod udmem-memtype 2>/dev/null; then
	bench_mt=1
fi

# The test importer, for the exporters' scatterlist entries in the DMA-BUF
# comparison (without it the bench counts the memfd's contiguous runs).
bench_imp=
if [ -n "$bench_buf" ] && udmem_insmod udmem-dmabuf-importer 2>/dev/null; then
	bench_imp=1
fi

if [ -z "$bench_buf$bench_region" ]; then
	tap_skip run "nothing to measure (no driver loaded)"
else
	bench_t0=$(date +%s)
	if udmem bench --quick --json --quiet $bench_buf $bench_region \
	   > "$BENCH_OUT" 2> /tmp/bench.err; then
		tap_ok run-exit-0
	else
		tap_fail run-exit-0 "udmem bench exited $?: $(tail -n 2 /tmp/bench.err | tr '\n' ' ')"
	fi
	echo "# bench took $(($(date +%s) - bench_t0)) s, $(wc -l < "$BENCH_OUT") records"
	udmem bench --report "$BENCH_OUT" | sed 's/^/# /'

	# Well formed: one flat object per line, a known type first.
	bad=$(grep -c -v '^{"type":"\(meta\|target\|bw\|touch\|sync\|synccheck\|dmabuf\|enqueue\|memtype\|skip\|error\|end\)",.*}$' "$BENCH_OUT")
	if [ "$bad" = 0 ] && [ -s "$BENCH_OUT" ]; then
		tap_ok json-lines-well-formed
	else
		tap_fail json-lines-well-formed "$bad malformed lines: $(grep -v '^{"type":' "$BENCH_OUT" | head -n 1)"
	fi

	first=$(head -n 1 "$BENCH_OUT")
	last=$(tail -n 1 "$BENCH_OUT")
	case "$first" in
	'{"type":"meta"'*) tap_ok meta-first ;;
	*) tap_fail meta-first "first line: $first" ;;
	esac
	tap_eq meta-kernel "$(uname -r)" "$(bench_field "$first" kernel)"
	tap_eq meta-arch "$(uname -m)" "$(bench_field "$first" arch)"
	# Every harness guest runs under QEMU TCG.
	tap_eq meta-emulated true "$(bench_field "$first" emulated)"
	case "$last" in
	'{"type":"end"'*)
		tap_eq end-counts-records "$(($(wc -l < "$BENCH_OUT") - 1))" \
			"$(bench_field "$last" records)"
		tap_eq end-no-errors 0 "$(bench_field "$last" errors)" ;;
	*) tap_fail end-last "last line: $last" ;;
	esac

	if grep -q '"verified":false' "$BENCH_OUT"; then
		tap_fail data-verified "$(grep '"verified":false' "$BENCH_OUT" | head -n 1)"
	else
		tap_ok data-verified
	fi

	# anonymous memory is measured once per distinct pass size of the others
	# (a board's on-chip window is smaller than the buffer): mmap and, on a
	# memfd, read()/write(), unless a skip record says there is no memfd
	sizes=$(grep '"type":"bw"' "$BENCH_OUT" | grep -v '"target":"anon"' |
		sed -n 's/.*"size":\([0-9]*\).*/\1/p' | sort -u | wc -l)
	[ "$sizes" -gt 0 ] || sizes=1
	for t in anon $bench_buf $bench_region; do
		n=$(grep -c "\"type\":\"bw\",\"target\":\"$t\"" "$BENCH_OUT")
		# the matrix's skips (an access mode the target lacks), not the DMA-BUF ones
		skips=$(grep "\"type\":\"skip\",\"target\":\"$t\"" "$BENCH_OUT" |
			grep -v '"test":"dmabuf' | grep -v '"test":"enqueue' |
			grep -v '"test":"synccheck"' |
			grep -c -v '"test":"memtype"')
		case $t in
		anon) want=$((4 * sizes - 2 * skips)) ;;
		*) want=$((16 - 4 * skips)) ;;
		esac
		tap_eq "$t-matrix-complete" "$want" "$n"
		n=$(grep -c "\"type\":\"touch\",\"target\":\"$t\",\"access\":\"\(read\|write\)\"" "$BENCH_OUT")
		[ "$t" = anon ] && want=$((2 * sizes)) || want=2
		tap_eq "$t-touch-read-and-write-recorded" "$want" "$n"
		[ "$t" = anon ] && continue
		for d in for_cpu for_device; do
			n=$(grep "\"type\":\"sync\",\"target\":\"$t\"" "$BENCH_OUT" |
			    grep -c "\"direction\":\"$d\"")
			if [ "$n" -gt 0 ]; then
				tap_ok "$t-sync-$d-recorded"
			else
				tap_fail "$t-sync-$d-recorded" "no sync record"
			fi
		done
	done

	# The fault count of a fresh mapping of the whole buffer, touched once by
	# reads, then by writes (a CPU without hardware dirty bits traps the
	# first write to a clean PTE, so writes are checked on their own).
	for t in $bench_buf $bench_region; do
		for a in read write; do
			touch=$(grep "\"type\":\"touch\",\"target\":\"$t\",\"access\":\"$a\"" "$BENCH_OUT")
			faults=$(bench_field "$touch" minflt)
			pages=$(bench_field "$touch" pages)
			echo "# $t $a: faults=$faults pages=$pages size=$(bench_field "$touch" size)"
			if [ -n "$faults" ] && [ "${faults%.*}" -le "$BENCH_FAULT_GOAL" ]; then
				tap_ok "$t-$a-touch-faults-at-most-16"
			else
				tap_fail "$t-$a-touch-faults-at-most-16" "faults=$faults for $pages pages"
			fi
		done
	done
	# The buffer's export beside mainline udmabuf: one entry against up to
	# one per page, and the sync pair of each in the same run.
	if [ -z "$bench_buf" ]; then
		:
	elif [ ! -e /dev/udmabuf ]; then
		if grep -q "\"type\":\"skip\",\"target\":\"$bench_buf\",\"test\":\"dmabuf-udmabuf\"" "$BENCH_OUT"; then
			tap_skip dmabuf-udmabuf "no /dev/udmabuf (mainline udmabuf) in this kernel; the bench says so"
		else
			tap_fail dmabuf-udmabuf "no /dev/udmabuf and no skip record for the comparison"
		fi
	else
		ours=$(grep "\"type\":\"dmabuf\",\"target\":\"$bench_buf\",\"exporter\":\"u-dma-buf\"" "$BENCH_OUT")
		theirs=$(grep "\"type\":\"dmabuf\",\"target\":\"$bench_buf\",\"exporter\":\"udmabuf\"" "$BENCH_OUT")
		src=$(bench_field "$ours" sg_source)
		[ -n "$bench_imp" ] && want=importer || want=contiguous
		tap_eq dmabuf-sg-source "$want" "$src"
		tap_eq dmabuf-export-one-entry 1 "$(bench_field "$ours" sg_entries)"
		n=$(bench_field "$theirs" sg_entries)
		pages=$(bench_field "$theirs" pages)
		echo "# mainline udmabuf: $n entries ($(bench_field "$theirs" sg_source)) for $pages pages"
		if [ -n "$n" ] && [ "$n" != null ] && [ "$n" -ge 1 ] && [ "$n" -le "$pages" ]; then
			tap_ok dmabuf-udmabuf-entries-within-pages
		else
			tap_fail dmabuf-udmabuf-entries-within-pages "entries '$n' for $pages pages"
		fi
		r=$(bench_field "$theirs" ratio)
		case $r in
		[0-9]*) tap_ok dmabuf-udmabuf-sync-ratio ;;
		*) tap_fail dmabuf-udmabuf-sync-ratio "ratio '$r' in: $theirs" ;;
		esac
	fi
	# Per enqueue (the importer's map and unmap, the CPU's sync pair), every
	# size: our export is one entry and at most one operation each way;
	# mainline udmabuf is one entry per page and its sync at least one
	# operation per page on a non-coherent device (seed 004's finding), none
	# on a coherent one; the operations are counted, not assumed.
	if [ -z "$bench_buf" ]; then
		:
	elif [ ! -e /dev/udmabuf ] || [ -z "$bench_imp" ]; then
		if grep -q "\"type\":\"skip\",\"target\":\"$bench_buf\",\"test\":\"enqueue" "$BENCH_OUT"; then
			tap_skip enqueue "$(grep "\"test\":\"enqueue" "$BENCH_OUT" | head -n 1 |
				sed 's/.*"reason":"\([^"]*\)".*/\1/')"
		else
			tap_fail enqueue "no /dev/udmabuf or importer, and no skip record for the sweep"
		fi
	else
		bench_enqueue_check
	fi
	# The memory type of each mapping, from the page tables (the memtype
	# suite asserts the table; here: the bench reports one per mapping).
	for t in $bench_buf $bench_region; do
		n=$(grep -c "\"type\":\"memtype\",\"target\":\"$t\"" "$BENCH_OUT")
		skips=$(grep -c "\"type\":\"skip\",\"target\":\"$t\",\"test\":\"memtype\"" "$BENCH_OUT")
		skip=$(grep "\"type\":\"skip\",\"target\":\"$t\",\"test\":\"memtype\"" "$BENCH_OUT" | head -n 1)
		grep "\"type\":\"memtype\",\"target\":\"$t\"" "$BENCH_OUT" | sed 's/^/# /'
		if [ "$n" = 0 ] && [ "$skips" -gt 0 ]; then
			tap_skip "$t-memtype-reported" "$(bench_field "$skip" reason)"
		elif [ "$n" -ge 1 ] && [ $((n + skips)) -ge 3 ]; then
			tap_ok "$t-memtype-reported"
		else
			tap_fail "$t-memtype-reported" "$n memtype records and $skips skips for 3 mappings"
		fi
	done
	# uiomem counts its own cache maintenance: the bench must report it.
	if [ -n "$bench_region" ]; then
		if grep "\"type\":\"sync\",\"target\":\"$bench_region\"" "$BENCH_OUT" |
		   grep -q '"cache_ops_source":"driver"'; then
			tap_ok uiomem-cache-ops-from-driver
		else
			tap_fail uiomem-cache-ops-from-driver "no sync record with driver counters"
		fi
	fi
fi

# The sync checker in the full run: its three modes on the buffer, or a
# skip that says why not (x86: mmap mode auto on a coherent device).
if [ -n "$bench_buf" ] && [ -s "$BENCH_OUT" ]; then
	n=$(grep -c "\"type\":\"synccheck\",\"target\":\"$bench_buf\"" "$BENCH_OUT")
	if [ "$n" = 3 ]; then
		tap_ok "$bench_buf-sync-check-recorded"
	elif [ "$n" = 0 ] &&
	     grep -q "\"type\":\"skip\",\"target\":\"$bench_buf\",\"test\":\"synccheck\"" "$BENCH_OUT"; then
		tap_skip "$bench_buf-sync-check-recorded" "$(grep '"test":"synccheck"' "$BENCH_OUT" |
			sed -n 's/.*"reason":"\([^"]*\)".*/\1/p' | head -n 1)"
	else
		tap_fail "$bench_buf-sync-check-recorded" "$n synccheck records and no skip"
	fi
fi

# The sync checker's cost (udmem bench --sync-check) on a buffer of its own
# with mmap mode on, which the checker works with on every architecture.
if [ -z "$bench_buf" ] || [ ! -e "/sys/class/u-dma-buf/$bench_buf/sync_check" ]; then
	tap_skip sync-check "no u-dma-buf with the sync checker"
elif ! udmem_insmod u-dma-buf-mgr; then
	tap_fail sync-check "insmod u-dma-buf-mgr failed"
elif ! echo "create udmem-bench-sc 0x100000 quirk-mmap-on" > /dev/u-dma-buf-mgr; then
	tap_fail sync-check "create udmem-bench-sc 1 MiB quirk-mmap-on failed"
	udmem_rmmod u-dma-buf-mgr
else
	if udmem bench --sync-check --quick --json --quiet udmem-bench-sc \
	   > /tmp/bench-sc.jsonl 2> /tmp/bench.err; then
		tap_ok sync-check-run-exit-0
	else
		tap_fail sync-check-run-exit-0 "udmem bench --sync-check exited $?: $(tail -n 2 /tmp/bench.err | tr '\n' ' ')"
	fi
	udmem bench --report /tmp/bench-sc.jsonl | sed -n '/^The sync checker/,/^$/p' | sed 's/^/# /'
	bench_sc_check /tmp/bench-sc.jsonl udmem-bench-sc
	tap_eq sync-check-restored off "$(cat /sys/class/u-dma-buf/udmem-bench-sc/sync_check)"
	echo "delete udmem-bench-sc" > /dev/u-dma-buf-mgr
	udmem_rmmod u-dma-buf-mgr
	rm -f /tmp/bench-sc.jsonl
fi

# DMA channels (udmem bench --dma).  On the edu provider (the harness's
# second edu device, PCI targets): 4 KiB copies udmabuf0 to udmabuf1 beside a
# CPU copy, each checked, two system calls a transfer, dmatest said why not
# run (edu moves 4 KiB a 100 ms tick: no throughput to read).  On a board's
# engine (ZDMA, PL330, PDMA): the kernel's dmatest first, on the channel
# u-dma-chan takes (released for it), 64 KiB, 256 KiB and 1 MiB, then the
# bench on that channel with its figures (--dmatest), every size with 1, 2
# and 4 transfers in flight.  Under TCG the times are the emulator's: the
# records must exist, be positive and verified; no ratio is judged.
BENCH_DMA_SIZES="65536 262144 1048576"

# bench_dma_board_check FILE: the board run's records in FILE.
bench_dma_board_check() {
	_bad=
	for _sz in $BENCH_DMA_SIZES; do
		for _b in 1 2 4; do
			_r=$(grep "\"type\":\"dma\".*\"size\":$_sz,\"batch\":$_b," "$1" | head -n 1)
			case "$(bench_field "$_r" kbps)|$(bench_field "$_r" dmatest_kbps)|$(bench_field "$_r" dmatest_ratio)" in
			[0-9]*\|[0-9]*\|[0-9]*) ;;
			*) _bad="$_bad $_sz x$_b:{${_r:-no record}}" ;;
			esac
		done
	done
	if [ -z "$_bad" ]; then
		tap_ok dma-dmatest-records-every-size-and-flight
	else
		tap_fail dma-dmatest-records-every-size-and-flight "$_bad"
	fi
	_n=$(grep -c '"type":"dma"' "$1")
	_v=$(grep '"type":"dma"' "$1" | grep -c '"verified":true')
	if [ "$_n" -ge 9 ] && [ "$_n" = "$_v" ]; then
		tap_ok dma-every-copy-verified
	else
		tap_fail dma-every-copy-verified "$_v of $_n dma records verified (want >= 9, all)"
	fi
	_r=$(grep '"type":"dma".*"size":1048576,"batch":4,' "$1" | head -n 1)
	tap_eq dma-one-submit-wait-pair-per-batch-of-4 0.5 "$(bench_field "$_r" syscalls_per_transfer)"
}

if [ -z "$bench_buf" ] || [ ! -e /dev/udmabuf1 ]; then
	tap_skip dma "no buffers to copy between"
elif [ ! -f /udmem/modules/u-dma-chan.ko ]; then
	tap_skip dma "no u-dma-chan module"
elif [ ! -f /udmem/modules/udmem-edu-dma.ko ] || [ ! -e /sys/bus/pci/devices/0000:00:10.0 ]; then
	udmem_board_engines
	if ! udmem_insmod u-dma-chan memcpy=bench-dma0; then
		tap_fail dma "insmod u-dma-chan failed: $(dmesg | tail -n 2 | tr '\n' ' ')"
	elif [ ! -e /dev/bench-dma0 ]; then
		tap_skip dma "no edu DMA provider and no dmaengine channel that can memcpy"
		udmem_rmmod u-dma-chan
	elif [ ! -f /udmem/modules/dmatest.ko ]; then
		tap_skip dma "no dmatest module to compare with (CONFIG_DMATEST)"
		udmem_rmmod u-dma-chan
	else
		bench_chan=$(cat /sys/class/u-dma-chan/bench-dma0/channel)
		echo "# bench-dma0: $bench_chan of $(cat /sys/class/u-dma-chan/bench-dma0/device)"
		# the channel free for dmatest, then the same channel by name
		tap_check dma-channel-released sh -c 'echo "delete bench-dma0" > /dev/u-dma-chan-mgr'
		# shellcheck disable=SC2086 # the sizes are words
		udmem_dmatest_rates "$bench_chan" /tmp/bench-dmatest.txt $BENCH_DMA_SIZES
		tap_check dma-same-channel-taken-back \
			sh -c "echo 'create bench-dma0 $bench_chan' > /dev/u-dma-chan-mgr"
		if ! udmem_insmod u-dma-buf-mgr; then
			tap_fail dma-buffers "insmod u-dma-buf-mgr failed"
		elif ! echo "create bench-dma-src 0x400000" > /dev/u-dma-buf-mgr ||
		     ! echo "create bench-dma-dst 0x400000" > /dev/u-dma-buf-mgr; then
			tap_fail dma-buffers "two 4 MiB buffers: $(dmesg | tail -n 2 | tr '\n' ' ')"
		else
			if udmem bench --dma bench-dma0 --dmatest /tmp/bench-dmatest.txt --runs 3 \
			   --json --quiet bench-dma-src bench-dma-dst > /tmp/bench-dma.jsonl 2> /tmp/bench.err; then
				tap_ok dma-run-exit-0
			else
				tap_fail dma-run-exit-0 "udmem bench --dma exited $?: $(tail -n 2 /tmp/bench.err | tr '\n' ' ')"
			fi
			udmem bench --report /tmp/bench-dma.jsonl | sed -n '/^DMA channel/,$p' | sed 's/^/# /'
			bench_dma_board_check /tmp/bench-dma.jsonl
		fi
		for _b in bench-dma-src bench-dma-dst; do
			[ -e "/dev/$_b" ] && echo "delete $_b" > /dev/u-dma-buf-mgr
		done
		lsmod | grep -q '^u_dma_buf_mgr' && udmem_rmmod u-dma-buf-mgr
		udmem_rmmod u-dma-chan
		rm -f /tmp/bench-dmatest.txt /tmp/bench-dma.jsonl
	fi
	udmem_board_unload_engines
elif ! udmem_insmod udmem-edu-dma; then
	tap_fail dma "insmod udmem-edu-dma failed: $(dmesg | tail -n 2 | tr '\n' ' ')"
else
	if udmem_insmod u-dma-chan memcpy=bench-dma0 && [ -e /dev/bench-dma0 ]; then
		if udmem bench --dma bench-dma0 --quick --json --quiet udmabuf0 udmabuf1 \
		   > /tmp/bench-dma.jsonl 2> /tmp/bench.err; then
			tap_ok dma-run-exit-0
		else
			tap_fail dma-run-exit-0 "udmem bench --dma exited $?: $(tail -n 2 /tmp/bench.err | tr '\n' ' ')"
		fi
		udmem bench --report /tmp/bench-dma.jsonl | sed -n '/^DMA channel/,$p' | sed 's/^/# /'
		rec=$(grep '"type":"dma"' /tmp/bench-dma.jsonl | head -n 1)
		tap_eq dma-copy-verified true "$(bench_field "$rec" verified)"
		tap_eq dma-two-syscalls-per-transfer 2 "$(bench_field "$rec" syscalls_per_transfer)"
		case "$(bench_field "$rec" ratio)|$(bench_field "$rec" submit)" in
		[0-9]*\|[0-9]*) tap_ok dma-ratio-and-submit-recorded ;;
		*) tap_fail dma-ratio-and-submit-recorded "in: $rec" ;;
		esac
		if grep -q '"type":"skip","target":"bench-dma0","test":"dmatest"' /tmp/bench-dma.jsonl; then
			tap_ok dma-dmatest-reason-given
		else
			tap_fail dma-dmatest-reason-given "no dmatest skip record"
		fi
		udmem_rmmod u-dma-chan
	else
		tap_skip dma "no dmaengine channel that can memcpy (u-dma-chan memcpy=)"
		lsmod | grep -q '^u_dma_chan' && udmem_rmmod u-dma-chan
	fi
	udmem_rmmod udmem-edu-dma
	rm -f /tmp/bench-dma.jsonl
fi

[ -n "$bench_region" ] && udmem_rmmod uiomem
[ -n "$bench_imp" ] && udmem_rmmod udmem-dmabuf-importer
[ -n "$bench_mt" ] && udmem_rmmod udmem-memtype
[ -n "$bench_buf" ] && udmem_rmmod u-dma-buf
rm -f "$BENCH_OUT" /tmp/bench.err
