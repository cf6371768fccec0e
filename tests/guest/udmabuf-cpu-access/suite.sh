# SPDX-License-Identifier: GPL-2.0 OR MIT
# udmabuf-cpu-access: the CPU writes and reads back every buffer of seed
# 000's table (fabric, SoC and DDR memory, cached, non-cached and write-
# combining) through mmap() and read()/write(), O_SYNC and cached with the
# sync protocol (udmabuf-cpu-access.c).  Its timing lines are summed up per
# buffer as "# udmabuf-cpu-access: summary ..." (sync=0: mmap vs file).
#
# Device-tree targets get the buffers from tests/qemu/dt/10-u-dma-buf.dtsi
# (reserved-memory pools included).  Elsewhere (x86_64) they are made
# through u-dma-buf-mgr with the same names and sizes; there is no pool.
#
# Optionally the seed document's own program runs too.  It is not part of
# the repository; extract it from the document first (the file is ignored
# by git), and the harness builds it like every program of this folder:
#
#   tests/guest/udmabuf-cpu-access/extract-document-program.sh \
#	/path/to/000_3b8d59898fa499fe.txt \
#	tests/guest/udmabuf-cpu-access/u-dma-buf-file-test.c
#
# Each of its "compare = ..." lines then becomes a result.  Without it
# that part is one counted SKIP.

SD_CLS=/sys/class/u-dma-buf
SD_BUFS="udmabuf-fabric-low:0x200000:32 udmabuf-fabric-high:0x200000:40
udmabuf-soc-high:0x200000:40 udmabuf-ddr-c0:0x2000000:0 udmabuf-ddr-nc0:0x2000000:0
udmabuf-ddr-nc-wcb0:0x2000000:0"
sd_mgr=0

# sd_summary LOG NAME: the sync=0 figures of one buffer, mmap vs file
sd_summary() {
	awk -v b="$2" -v s="$UDMEM_SUITE" '
		$2 == "cpu-access" && $6 == "sync=0" && !(($4 "-" $5) in f) { f[$4 "-" $5] = $(NF - 1) }
		END { printf "# %s: summary %s mmap-write %s file-write %s mmap-read %s file-read %s MB/s\n", s, b, f["mmap-write"], f["file-write"], f["mmap-read"], f["file-read"] }
	' "$1"
}

# sd_access NAME: our program on one buffer
sd_access() {
	_log=/tmp/cpu-access-$1.log
	udmem_run UDMEM_SUITE="$UDMEM_SUITE/$1" UDMABUF_DEV="$1" udmabuf-cpu-access |
		tee "$_log"
	sd_summary "$_log" "$1"
	rm -f "$_log"
}

# sd_doc_run NAME: the document's program on one buffer, its output as results
sd_doc_run() {
	_out=/tmp/doc-program-$1.log
	u-dma-buf-file-test -n "$1" > "$_out" 2>&1
	_rc=$?
	sed "s/^/# document-program: $1: /" "$_out"
	if ! grep -q '^compare = ' "$_out"; then
		tap_fail "document-program/$1/ran" "exit $_rc, no compare line: $(tail -n 2 "$_out" | tr '\n' ' ')"
		return
	fi
	tap_eq "document-program/$1/size-and-phys_addr-as-sysfs" \
		"size=$(cat "$SD_CLS/$1/size") phys_addr=$(printf 0x%x "$(($(cat "$SD_CLS/$1/phys_addr")))")" \
		"$(grep '^size=' "$_out") $(grep '^phys_addr=' "$_out")"
	# compare lines, named after the two lines before them
	awk -v s="$UDMEM_SUITE/document-program/$1" '
		/ write test : sync=/ { w = $1 "-write-sync" substr($5, 6, 1) }
		/ read  test : sync=/ { r = $1 "-read-sync" substr($5, 6, 1) }
		/^compare = / {
			n++
			name = s "/" n "-" w "-" r
			if ($3 == "ok") print "ok - " name
			else print "not ok - " name " # compare = " $3
		}
		END { if (n != 8) print "not ok - " s "/eight-compares # saw " n }
	' "$_out"
	rm -f "$_out"
}

sd_doc=0
if [ -x /udmem/bin/u-dma-buf-file-test ]; then
	sd_doc=1
else
	tap_skip document-program "no source document given (see extract-document-program.sh)"
fi
if ! udmem_insmod u-dma-buf; then
	tap_fail setup "insmod u-dma-buf failed"
else
	if [ "$UDMEM_HAS_DT" != 1 ]; then
		if udmem_insmod u-dma-buf-mgr; then
			sd_mgr=1
			for b in $SD_BUFS; do
				_n=${b%%:*}
				_r=${b#*:}
				_s=${_r%%:*}
				_m=${_r#*:}
				if [ "$_m" = 0 ]; then
					echo "create $_n $_s" > /dev/u-dma-buf-mgr 2>/dev/null
				else
					echo "create $_n $_s dma-mask=$_m" > /dev/u-dma-buf-mgr 2>/dev/null
				fi
			done
			echo "# $UDMEM_SUITE: no device tree on $UDMEM_ARCH: buffers made by u-dma-buf-mgr"
		else
			tap_fail setup "insmod u-dma-buf-mgr failed"
		fi
	fi
	tap_ok setup
	for b in $SD_BUFS; do
		_n=${b%%:*}
		if [ -e "$SD_CLS/$_n" ]; then
			sd_access "$_n"
			if [ $sd_doc = 1 ]; then
				sd_doc_run "$_n"
			fi
		elif [ "$UDMEM_HAS_DT" != 1 ] && ! grep -q '^CmaTotal: *[1-9]' /proc/meminfo; then
			# sid's amd64 7.x has CONFIG_CMA with an empty default area.
			tap_skip "$_n" "no CMA area (CONFIG_CMA off, or CmaTotal 0 without cma=): no $(echo "${b#*:}" | cut -d: -f1)-byte contiguous buffer"
		else
			tap_fail "$_n" "buffer $_n missing (see tests/qemu/dt/10-u-dma-buf.dtsi)"
		fi
	done
	if [ $sd_mgr = 1 ]; then
		for b in $SD_BUFS; do
			echo "delete ${b%%:*}" > /dev/u-dma-buf-mgr 2>/dev/null
		done
		udmem_rmmod u-dma-buf-mgr
	fi
	udmem_rmmod u-dma-buf
fi
