#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# demo.sh - what `make demo` runs: boot the arm64-6.12 guest whose device tree
# carries seed 000's six buffers and a device-memory region, run
# `udmem bench` there (tests/guest/demo), print its table and the figures
# of our CPU-access program (mmap against read()/write(), sync on and off),
# then the DMA-BUF enqueue sweep (a u-dma-buf export against mainline
# udmabuf, 4 KiB to 64 MiB: entries, counted cache operations, time), then
# copies through a DMA channel beside a CPU copy (udmem bench --dma), and
# draw the charts into results/<timestamp>/.  Debian's 6.12 is the first of
# the kernels we test with mainline udmabuf built in (CONFIG_UDMABUF) and
# with the IIO and FunctionFS DMA-BUF interfaces; arm64's device tree gives
# the non-coherent devices where cache maintenance shows.  When seed 000's own
# program was extracted from its document (tests/guest/udmabuf-cpu-access/
# extract-document-program.sh), it runs too (seed000.txt).
#
#   scripts/demo.sh [TARGET]        default $BOARD (make demo BOARD=zcu102), else
#                                   arm64-6.12; DEMO_RUNS=N runs per figure
set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)
TARGET=${1:-${BOARD:-arm64-6.12}}
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
RESULTS="$TOP/results/$STAMP"
LOG="$TOP/build/demo/console.log"
start=$(date +%s)

cd "$TOP"
mkdir -p "$RESULTS" "$(dirname "$LOG")"

# The charts need matplotlib on the host.
if ! python3 -c 'import matplotlib' 2>/dev/null; then
	echo "demo: installing matplotlib (pip)" >&2
	python3 -m pip install -q matplotlib 2>/dev/null ||
		python3 -m pip install -q --break-system-packages matplotlib ||
		{ [ "$(id -u)" = 0 ] && apt-get install -y -q python3-matplotlib >/dev/null; }
fi

# Deterministic guest time (instruction counting) when the harness offers it;
# the guest learns it from its command line (udmem.icount=1).  cma=128M: the
# 64 MiB buffer of the enqueue sweep.
icount=""
append="cma=128M"
if tests/qemu/udmem-qemu run --help 2>/dev/null | grep -q -- '--icount'; then
	icount="--icount"
	append="$append udmem.icount=1"
fi

echo "demo: booting the $TARGET guest and running udmem bench (a few minutes)" >&2
set +e
# shellcheck disable=SC2086
tests/qemu/udmem-qemu run "$TARGET" --suite demo --log "$LOG" $icount --append "$append" \
	> "$RESULTS/tap.txt" 2>&1
rc=$?
set -e
# Records and the table, without the console's carriage returns.
tr -d '\r' < "$LOG" | sed -n 's/^.*@@JSON //p' > "$RESULTS/bench.jsonl"
tr -d '\r' < "$LOG" | sed -n 's/^@@TABLE \{0,1\}//p' > "$RESULTS/table.txt"
tr -d '\r' < "$LOG" | sed -n 's/^@@ACCESS \{0,1\}//p' > "$RESULTS/cpu-access.txt"
tr -d '\r' < "$LOG" | sed -n 's/^@@SEED000 \{0,1\}//p' > "$RESULTS/seed000.txt"
tr -d '\r' < "$LOG" | sed -n 's/^.*@@ENQ //p' > "$RESULTS/enqueue.jsonl"
tr -d '\r' < "$LOG" | sed -n 's/^@@ENQTABLE \{0,1\}//p' > "$RESULTS/enqueue-table.txt"
tr -d '\r' < "$LOG" | sed -n 's/^.*@@DMA //p' > "$RESULTS/dma.jsonl"
tr -d '\r' < "$LOG" | sed -n 's/^@@DMATABLE \{0,1\}//p' > "$RESULTS/dma-table.txt"
[ -s "$RESULTS/seed000.txt" ] || rm -f "$RESULTS/seed000.txt"
cp "$LOG" "$RESULTS/console.log"

if [ ! -s "$RESULTS/bench.jsonl" ]; then
	echo "demo: the guest printed no bench records; its console log: $RESULTS/console.log" >&2
	tail -n 30 "$RESULTS/tap.txt" >&2
	exit 1
fi

note=""
if [ -n "$icount" ]; then
	note="Guest time counted in instructions (QEMU -icount shift=0): 1 us = 1000 guest instructions, so MB/s = bytes per 1000 instructions (deterministic)"
	echo "$note" > "$RESULTS/note.txt"
	echo "$note"
fi
cat "$RESULTS/table.txt"
if [ -s "$RESULTS/cpu-access.txt" ]; then
	echo
	echo "CPU access, whole buffer, timed with its syncs (udmabuf-cpu-access; sync=1: O_SYNC):"
	awk '{ printf "  %-22s %s %-5s %s %10s MB/s\n", $1, $2, $3, $4, $(NF - 1) }' \
		"$RESULTS/cpu-access.txt"
fi
if [ -f "$RESULTS/seed000.txt" ]; then
	echo
	echo "Seed 000's own program (u-dma-buf-file-test, from the document) in the same guest:"
	grep -E '^(##|mmap|file)' "$RESULTS/seed000.txt" || true
fi

if [ -s "$RESULTS/enqueue-table.txt" ]; then
	echo
	echo "DMA-BUF enqueue sweep on a buffer of its own (udmem bench --enqueue):"
	sed -n '/^DMA-BUF per enqueue/,$p' "$RESULTS/enqueue-table.txt"
fi
if [ -s "$RESULTS/dma-table.txt" ]; then
	echo
	echo "Copies through a DMA channel (udmem bench --dma, the edu test provider):"
	sed -n '/^DMA channel/,$p' "$RESULTS/dma-table.txt"
fi

python3 bench/plot.py "$RESULTS/bench.jsonl" --out "$RESULTS" ${note:+--note "$note"} > /dev/null
# enqueue.png: the sweep of the 64 MiB buffer, in place of the first buffer's
if grep -q '"type":"enqueue"' "$RESULTS/enqueue.jsonl" 2>/dev/null; then
	python3 bench/plot.py "$RESULTS/enqueue.jsonl" --out "$RESULTS" \
		${note:+--note "$note"} > /dev/null
fi
echo
grep -E '^(ok|not ok)' "$RESULTS/tap.txt" | sed 's/^/guest: /' || true
echo
echo "demo: results in $RESULTS ($(($(date +%s) - start)) s):"
for f in "$RESULTS"/*; do
	echo "  ${f##*/}"
done
if [ "$rc" != 0 ]; then
	echo "demo: the guest run reported failures (see $RESULTS/tap.txt)" >&2
	exit "$rc"
fi
