# SPDX-License-Identifier: GPL-2.0 OR MIT
# json.sh, sourced by suite.sh (its ct_run/ct_grep and modules): `udmem info
# --json` and `udmem list --json` carry every key docs/cli.md promises, null
# where a key does not apply, and device names that JSON must escape
# (the driver allows '"' and '\' in names).

if [ -e /dev/udmabuf0 ]; then
	ct_run json-info-exit-0 0 udmem info udmabuf0 --json
	for k in name kind device size phys_addr dma_addr coherent dma_mask_bits \
		mmap_mode sync_mode sync_owner; do
		ct_grep "json-info-key-$k" "$CT/out" "\"$k\": "
	done
fi
if [ -e /dev/uiomem0 ]; then
	ct_run json-region-exit-0 0 udmem info uiomem0 --json
	ct_grep json-region-nulls "$CT/out" '"dma_mask_bits": null, "mmap_mode": null'
fi
if [ -e /dev/u-dma-buf-mgr ]; then
	q='cli"q\x'
	if udmem create "$q" 4K > "$CT/err" 2>&1; then
		ct_run json-escaped-info-exit-0 0 udmem info "$q" --json
		ct_grep json-escaped-info "$CT/out" \
			'^{"name": "cli\\"q\\\\x", "kind": "buffer", "device": "/dev/cli\\"q\\\\x", '
		ct_run json-escaped-list-exit-0 0 udmem list --json
		ct_grep json-escaped-list "$CT/out" '^  {"name": "cli\\"q\\\\x", '
		udmem delete "$q" > "$CT/err" 2>&1 ||
			tap_fail json-escaped-delete "$(head -n 1 "$CT/err")"
	else
		tap_fail json-escaped-create "udmem create: $(head -n 1 "$CT/err")"
	fi
fi
