# SPDX-License-Identifier: GPL-2.0 OR MIT
# dma.sh, sourced by suite.sh (its ct_run/ct_grep, $CT): `udmem dma` on a
# u-dma-chan channel that can memcpy (u-dma-chan.ko memcpy=cli-dma, over
# the board's engine where it has one).  A guest with no such channel runs
# the checks that need none and counts one SKIP for the rest.

cd_loaded=""
cd_bufs=""
ct_run dma-help-exit-0 0 udmem dma --help
ct_grep dma-help-usage "$CT/out" "^Usage: udmem dma list"
ct_run dma-no-subcommand-exit-2 2 udmem dma
ct_run dma-unknown-subcommand-exit-2 2 udmem dma frobnicate
ct_grep dma-unknown-subcommand-message "$CT/err" "unknown subcommand 'frobnicate'"
ct_run dma-copy-one-arg-exit-2 2 udmem dma copy cli-dma
ct_run dma-copy-bad-length-exit-2 2 udmem dma copy cli-dma a b --length 4Q
ct_run dma-copy-bad-timeout-exit-2 2 udmem dma copy cli-dma a b --timeout soon
ct_run dma-receive-no-length-exit-2 2 udmem dma receive cli-dma a
ct_run dma-bad-channel-exit-1 1 udmem dma copy cli-nosuch-chan a b
ct_grep dma-bad-channel-message "$CT/err" \
	"^udmem: cli-nosuch-chan: open (no such DMA channel): No such file or directory (errno 2, ENOENT)$"
ct_run dma-info-bad-channel-exit-1 1 udmem dma info cli-nosuch-chan

udmem_board_engines
cd_ready=
if [ ! -f /udmem/modules/u-dma-chan.ko ]; then
	tap_skip dma-commands "u-dma-chan.ko was not built"
elif [ ! -e /dev/u-dma-buf-mgr ]; then
	tap_skip dma-commands "u-dma-buf-mgr is not loaded (the copies need two buffers)"
elif ! udmem_insmod u-dma-chan memcpy=cli-dma; then
	tap_fail dma-module-loads "insmod u-dma-chan failed: $(dmesg | tail -n 2 | tr '\n' ' ')"
else
	cd_loaded=u-dma-chan
	if [ ! -e /dev/cli-dma ]; then
		tap_skip dma-commands "no dmaengine channel that can memcpy in this guest"
	elif udmem create cli-dma0 64K > /dev/null && cd_bufs=cli-dma0 &&
		udmem create cli-dma1 64K > /dev/null && cd_bufs="cli-dma1 cli-dma0"; then
		cd_ready=1
	else
		tap_fail dma-buffers "udmem create cli-dma0/cli-dma1 64K failed"
	fi
fi
if [ -n "$cd_ready" ]; then
	cd_sys=/sys/class/u-dma-chan/cli-dma
	cd_chan=$(cat $cd_sys/channel)
	cd_eng=$(cat $cd_sys/device)
	echo "# cli-dma: $cd_chan of $cd_eng, caps $(cat $cd_sys/caps)"

	# ---- list and info, against sysfs
	ct_run dma-list-exit-0 0 udmem dma list
	ct_grep dma-list-header "$CT/out" "^NAME  *CHANNEL  *ENGINE  *IN_USE  *CAPS$"
	ct_grep dma-list-row "$CT/out" "^cli-dma  *$cd_chan  *$cd_eng  *no  *\(.*,\)\?memcpy\(,.*\)\?$"
	ct_run dma-list-json-exit-0 0 udmem dma list --json
	if awk -f ./json.awk "$CT/out" > "$CT/parsed" 2> "$CT/err"; then
		tap_ok dma-list-json-parses
		ct_grep dma-list-json-name "$CT/parsed" '^\[[0-9]*\]\.name	"cli-dma$'
		ct_grep dma-list-json-channel "$CT/parsed" "^\[[0-9]*\]\.channel	\"$cd_chan$"
		ct_grep dma-list-json-caps "$CT/parsed" '^\[[0-9]*\]\.caps\[[0-9]\]	"memcpy$'
	else
		tap_fail dma-list-json-parses "$(cat "$CT/err")"
	fi
	ct_run dma-info-exit-0 0 udmem dma info cli-dma
	ct_grep dma-info-device "$CT/out" "^device:  */dev/cli-dma$"
	ct_grep dma-info-channel "$CT/out" "^channel:  *$cd_chan$"
	ct_grep dma-info-engine "$CT/out" "^engine:  *$cd_eng$"
	ct_grep dma-info-align "$CT/out" "^copy_align:  *$(cat $cd_sys/copy_align)$"
	ct_grep dma-info-max-segment "$CT/out" "^max_segment:  *$(cat $cd_sys/max_segment)$"
	ct_grep dma-info-mask "$CT/out" "^dma_mask:  *$(cat $cd_sys/dma_mask)$"
	ct_run dma-info-json-exit-0 0 udmem dma info cli-dma --json
	if awk -f ./json.awk "$CT/out" > "$CT/parsed" 2> "$CT/err"; then
		for k in name device channel engine in_use copy_align max_segment dma_mask max_batch; do
			ct_grep "dma-info-json-key-$k" "$CT/parsed" "^\.$k	"
		done
		ct_grep dma-info-json-engine "$CT/parsed" "^\.engine	\"$cd_eng$"
	else
		tap_fail dma-info-json-parses "$(cat "$CT/err")"
	fi

	# ---- a whole-buffer copy, read back through the CPU
	dd if=/dev/urandom of="$CT/dma-in" bs=4096 count=16 2>/dev/null
	dd if=/dev/zero of="$CT/dma-zero" bs=4096 count=16 2>/dev/null
	udmem load cli-dma0 "$CT/dma-in" > /dev/null
	udmem load cli-dma1 "$CT/dma-zero" > /dev/null
	udmem save cli-dma1 "$CT/dma-before" > /dev/null
	# the destination differs before the copy, so the cmp below can fail
	tap_check dma-copy-dst-differs-before sh -c "! cmp -s '$CT/dma-in' '$CT/dma-before'"
	cd_done=$(cat $cd_sys/completed)
	ct_run dma-copy-exit-0 0 udmem dma copy cli-dma cli-dma1 cli-dma0
	sed 's/^/# /' "$CT/out"
	ct_grep dma-copy-message "$CT/out" \
		"^cli-dma: copied cli-dma0+0x0 -> cli-dma1+0x0: 65536 bytes, batch 1, status 0 (done), [0-9.]* us$"
	tap_eq dma-copy-counted $((cd_done + 1)) "$(cat $cd_sys/completed)"
	udmem save cli-dma1 "$CT/dma-out" > /dev/null
	tap_check dma-copy-data cmp "$CT/dma-in" "$CT/dma-out"

	# ---- offsets and a length: the second page of cli-dma0 to cli-dma1's third
	udmem load cli-dma1 "$CT/dma-zero" > /dev/null
	ct_run dma-copy-offsets-exit-0 0 udmem dma copy cli-dma cli-dma1:8K cli-dma0:4K --length 4K --timeout 30
	ct_grep dma-copy-offsets-message "$CT/out" \
		"^cli-dma: copied cli-dma0+0x1000 -> cli-dma1+0x2000: 4096 bytes, batch 1, status 0 (done)"
	dd if="$CT/dma-in" of="$CT/dma-page" bs=4096 skip=1 count=1 2>/dev/null
	udmem save cli-dma1 "$CT/dma-out" --offset 8K --length 4K > /dev/null
	tap_check dma-copy-offsets-data cmp "$CT/dma-page" "$CT/dma-out"
	# and nothing around it moved
	udmem save cli-dma1 "$CT/dma-out" --length 8K > /dev/null
	dd if=/dev/zero of="$CT/dma-z8" bs=4096 count=2 2>/dev/null
	tap_check dma-copy-offsets-only-range cmp "$CT/dma-z8" "$CT/dma-out"
	ct_run dma-copy-no-sync-exit-0 0 udmem dma copy cli-dma cli-dma1 cli-dma0 --no-sync --length 4K

	# ---- a timeout shorter than any copy: ETIMEDOUT, and the channel
	# (the transfer stopped when udmem closed it) copies again
	udmem dma copy cli-dma cli-dma1 cli-dma0 --timeout 0.000000001 > "$CT/out" 2> "$CT/err"
	cd_rc=$?
	if [ $cd_rc = 0 ]; then
		tap_skip dma-copy-timeout "the engine finished the 64 KiB copy within 1 ns of the wait"
	elif [ $cd_rc = 1 ] && grep -q \
		"^udmem: cli-dma: batch 1 did not complete in time (it is stopped): .*(errno 110, ETIMEDOUT)$" \
		"$CT/err"; then
		tap_ok dma-copy-timeout
	else
		tap_fail dma-copy-timeout "exit $cd_rc: $(head -n 1 "$CT/err")"
	fi
	ct_run dma-copy-after-timeout-exit-0 0 udmem dma copy cli-dma cli-dma1 cli-dma0
	udmem save cli-dma1 "$CT/dma-out" > /dev/null
	tap_check dma-copy-after-timeout-data cmp "$CT/dma-in" "$CT/dma-out"

	# ---- what is refused
	ct_run dma-copy-past-end-exit-1 1 udmem dma copy cli-dma cli-dma1:60K cli-dma0 --length 8K
	ct_grep dma-copy-past-end-message "$CT/err" \
		"^udmem: cli-dma1: 8192 bytes at offset 61440 are outside its 65536 bytes: .*(errno 22, EINVAL)$"
	ct_run dma-copy-offset-at-end-exit-1 1 udmem dma copy cli-dma cli-dma1:64K cli-dma0
	ct_grep dma-copy-offset-at-end-message "$CT/err" "(errno 22, EINVAL)$"
	ct_run dma-copy-unknown-buffer-exit-1 1 udmem dma copy cli-dma cli-nosuch cli-dma0
	ct_grep dma-copy-unknown-buffer-message "$CT/err" \
		"^udmem: cli-nosuch: open (no such buffer or region): No such file or directory (errno 2, ENOENT)$"
	ct_run dma-copy-overlap-exit-1 1 udmem dma copy cli-dma cli-dma0:4K cli-dma0 --length 8K
	ct_grep dma-copy-overlap-message "$CT/err" "overlap: .*(errno 22, EINVAL)$"
	ct_run dma-copy-same-buffer-exit-0 0 udmem dma copy cli-dma cli-dma0:32K cli-dma0 --length 4K
	dd if="$CT/dma-in" of="$CT/dma-page" bs=4096 count=1 2>/dev/null
	udmem save cli-dma0 "$CT/dma-out" --offset 32K --length 4K > /dev/null
	tap_check dma-copy-same-buffer-data cmp "$CT/dma-page" "$CT/dma-out"
	# the channel is one open file at a time: a holder makes it busy
	exec 9< /dev/cli-dma
	ct_run dma-copy-busy-exit-1 1 udmem dma copy cli-dma cli-dma1 cli-dma0
	ct_grep dma-copy-busy-message "$CT/err" "in use by another program.*(errno 16, EBUSY)$"
	# list and info still describe it, from sysfs
	ct_run dma-list-busy-exit-0 0 udmem dma list
	ct_grep dma-list-busy-row "$CT/out" "^cli-dma  *$cd_chan  *$cd_eng  *yes  *.*memcpy"
	ct_run dma-info-busy-exit-0 0 udmem dma info cli-dma --json
	ct_grep dma-info-busy-json "$CT/out" "\"engine\": \"$cd_eng\", \"caps\": \[.*\"memcpy\".*\], \"in_use\": true, \"copy_align\": $(cat $cd_sys/copy_align),"
	exec 9<&-

	# ---- receive: a DEV_TO_MEM channel is not what memcpy= makes
	case " $(cat $cd_sys/caps) " in
	*" dev_to_mem "*)
		tap_skip dma-receive "the memcpy channel also has dev_to_mem: no known source to check against";;
	*)
		ct_run dma-receive-unsupported-exit-1 1 udmem dma receive cli-dma cli-dma1 --length 4K
		ct_grep dma-receive-unsupported-message "$CT/err" "cannot do this transfer.*EOPNOTSUPP)$";;
	esac
fi
for b in $cd_bufs; do
	udmem delete "$b" > /dev/null || tap_fail "dma-delete-$b" "udmem delete $b failed"
done
for m in $cd_loaded; do
	udmem_rmmod "$m" || tap_fail "rmmod-$m" "rmmod $m failed"
done
udmem_board_unload_engines
