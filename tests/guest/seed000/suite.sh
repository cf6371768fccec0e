# SPDX-License-Identifier: GPL-2.0 OR MIT
# seed000: seed 000's own client program (u-dma-buf-file-test.c, unmodified)
# against the six buffers of the seed's table.  Every "compare = ..." line
# becomes one TAP line; the timing lines are echoed as "# seed000: ..." for
# the benchmark record, with a summary per buffer (mmap vs file figures).
#
# Device-tree targets get the buffers from tests/qemu/dt/10-u-dma-buf.dtsi
# (reserved-memory pools included).  Elsewhere (x86_64) they are made
# through u-dma-buf-mgr with the same names and sizes; there is no pool.

SD_CLS=/sys/class/u-dma-buf
SD_BUFS="udmabuf-fabric-low:0x200000:32 udmabuf-fabric-high:0x200000:40
udmabuf-soc-high:0x200000:40 udmabuf-ddr-c0:0x2000000:0 udmabuf-ddr-nc0:0x2000000:0
udmabuf-ddr-nc-wcb0:0x2000000:0"
sd_mgr=0

# sd_run NAME: run the client on one buffer and turn its output into TAP
sd_run() {
	_out=/tmp/seed000-$1.log
	u-dma-buf-file-test -n "$1" > "$_out" 2>&1
	_rc=$?
	sed "s/^/# seed000: $1: /" "$_out"
	if ! grep -q '^compare = ' "$_out"; then
		tap_fail "$1/ran" "exit $_rc, no compare line: $(tail -n 2 "$_out" | tr '\n' ' ')"
		return
	fi
	tap_eq "$1/size-and-phys_addr-as-sysfs" \
		"size=$(cat $SD_CLS/$1/size) phys_addr=$(printf 0x%x $(($(cat $SD_CLS/$1/phys_addr))))" \
		"$(grep '^size=' "$_out") $(grep '^phys_addr=' "$_out")"
	# compare lines, named after the two lines before them
	awk -v s="$UDMEM_SUITE/$1" '
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
	# the figures the lead records: total MB/s of the sync=0 runs, mmap vs file
	awk -v b="$1" '
		/^mmap write test : sync=0/ && !mw { mw = $(NF - 1) }
		/^file write test : sync=0/ && !fw { fw = $(NF - 1) }
		/^mmap read  test : sync=0/ && !mr { mr = $(NF - 1) }
		/^file read  test : sync=0/ && !fr { fr = $(NF - 1) }
		END { printf "# seed000: summary %s mmap-write %s file-write %s mmap-read %s file-read %s MB/s\n", b, mw, fw, mr, fr }
	' "$_out"
}

if [ ! -x /udmem/bin/u-dma-buf-file-test ]; then
	tap_fail setup "program u-dma-buf-file-test is missing"
elif ! udmem_insmod u-dma-buf; then
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
			echo "# seed000: no device tree on $UDMEM_ARCH: buffers made by u-dma-buf-mgr"
		else
			tap_fail setup "insmod u-dma-buf-mgr failed"
		fi
	fi
	tap_ok setup
	for b in $SD_BUFS; do
		_n=${b%%:*}
		if [ -e "$SD_CLS/$_n" ]; then
			sd_run "$_n"
		elif [ "$UDMEM_HAS_DT" != 1 ] && ! grep -q '^CmaTotal:' /proc/meminfo; then
			tap_skip "$_n" "kernel without CONFIG_CMA: no $(echo ${b#*:} | cut -d: -f1)-byte contiguous buffer"
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
rm -f /tmp/seed000-*.log
