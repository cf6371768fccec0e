# SPDX-License-Identifier: GPL-2.0 OR MIT
# json.sh, sourced by suite.sh (its ct_run/ct_grep and modules): `udmem info
# --json` and `udmem list --json` carry every key docs/cli.md promises, null
# where a key does not apply, and device names that JSON must escape
# (the driver allows '"' and '\' in names).

if [ -e /dev/udmabuf0 ]; then
	ct_run json-info-exit-0 0 udmem info udmabuf0 --json
	for k in name kind device size phys_addr dma_addr coherent dma_mask_bits \
		mmap_mode sync_mode sync_owner memtype_mmap memtype_mmap_sync; do
		ct_grep "json-info-key-$k" "$CT/out" "\"$k\": "
	done
	# With the page-table reader (arm64, x86_64): the types, not null.
	case $(uname -m) in
	aarch64 | x86_64)
		if udmem_insmod udmem-memtype; then
			ct_run json-info-memtype-exit-0 0 udmem info udmabuf0 --json
			ct_grep json-info-memtype "$CT/out" \
				'"memtype_mmap": "[a-z-]*", "memtype_mmap_sync": "[a-z-]*"}'
			ct_run info-memtype-exit-0 0 udmem info udmabuf0
			ct_grep info-memtype "$CT/out" '^memtype: *mmap [a-z-]*, O_SYNC mmap [a-z-]* (page tables)$'
			udmem_rmmod udmem-memtype
		else
			tap_fail json-info-memtype "insmod udmem-memtype failed"
		fi
		;;
	*) tap_skip json-info-memtype "the page-table reader knows arm64 and x86_64 only" ;;
	esac
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

# `udmem list --json` parsed as a script would (json.awk, a strict parser):
# one object per device of sysfs, in sysfs order, each with every documented
# key, and the values sysfs has.
ct_tab=$(printf '\t')
ct_keys="name kind device size phys_addr dma_addr coherent dma_mask_bits mmap_mode sync_mode sync_owner memtype_mmap memtype_mmap_sync"
ct_run json-list-parse-exit-0 0 udmem list --json
if awk -f ./json.awk "$CT/out" > "$CT/parsed" 2> "$CT/err"; then
	tap_ok json-list-parses
else
	tap_fail json-list-parses "$(head -n 1 "$CT/err")"
fi
ct_want=""
for d in /sys/class/u-dma-buf/* /sys/class/uiomem/*; do
	[ -e "$d" ] && ct_want="$ct_want ${d##*/}"
done
ct_got=$(sed -n "s/^\[[0-9]*\]\.name$ct_tab\"/ /p" "$CT/parsed" | tr -d '\n')
tap_eq json-list-names-are-sysfs "$ct_want" "$ct_got"
# One pass over the parsed list (a grep per key and device took 13 s on the
# armhf guest): " [i].key" for every key object i lacks.
# shellcheck disable=SC2086 # one word per device
ct_n=$(set -- $ct_want; echo $#)
ct_missing=$(awk -F "$ct_tab" -v n="$ct_n" -v keys="$ct_keys" '
	{ have[$1] = 1 }
	END {
		m = split(keys, k, " ")
		for (i = 0; i < n; i++)
			for (j = 1; j <= m; j++)
				if (!(("[" i "]." k[j]) in have))
					printf " [%d].%s", i, k[j]
	}' "$CT/parsed")
tap_eq json-list-every-key "" "$ct_missing"
ct_extra=$(sed -n "s/^\[[0-9]*\]\.\([a-z_]*\)$ct_tab.*/\1/p" "$CT/parsed" | sort -u |
	grep -v -x -E "$(echo "$ct_keys" | tr ' ' '|')" | tr '\n' ' ')
tap_eq json-list-only-documented-keys "" "$ct_extra"
if [ -e /dev/udmabuf0 ]; then
	ct_i=$(sed -n "s/^\[\([0-9]*\)\]\.name$ct_tab\"udmabuf0\$/\1/p" "$CT/parsed")
	ct_val() { sed -n "s/^\[$ct_i\]\.$1$ct_tab//p" "$CT/parsed"; }
	tap_eq json-list-size-is-sysfs "$(cat /sys/class/u-dma-buf/udmabuf0/size)" "$(ct_val size)"
	tap_eq json-list-phys-is-sysfs \
		"$(printf '"0x%x' "$(cat /sys/class/u-dma-buf/udmabuf0/phys_addr)")" "$(ct_val phys_addr)"
	tap_eq json-list-kind '"buffer' "$(ct_val kind)"
	tap_eq json-list-device '"/dev/udmabuf0' "$(ct_val device)"
	case $(ct_val coherent) in
	true | false) tap_ok json-list-coherent-boolean ;;
	*) tap_fail json-list-coherent-boolean "coherent is '$(ct_val coherent)'" ;;
	esac
fi
