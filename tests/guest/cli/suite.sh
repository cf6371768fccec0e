# SPDX-License-Identifier: GPL-2.0 OR MIT
# cli: every udmem subcommand, its output, its failure messages and its exit
# codes (0 ok, 1 failure, 2 usage), against udmabuf0 (64 KiB, module
# parameter), u-dma-buf-mgr and uiomem0 (ivshmem's BAR).

CT=/tmp/cli-test
mkdir -p $CT

# ct_run NAME WANT_RC CMD...: run CMD, keep stdout/stderr in $CT/out, $CT/err
ct_run() {
	_n=$1
	_want=$2
	shift 2
	"$@" > $CT/out 2> $CT/err
	_rc=$?
	if [ "$_rc" = "$_want" ]; then
		tap_ok "$_n"
	else
		tap_fail "$_n" "'$*' exited $_rc, want $_want: $(head -n 2 $CT/err | tr '\n' ' ')"
	fi
}

# ct_grep NAME FILE PATTERN: FILE ($CT/out or $CT/err) has a line matching PATTERN
ct_grep() {
	if grep -q -e "$3" "$2"; then
		tap_ok "$1"
	else
		tap_fail "$1" "no '$3' in: $(head -n 3 "$2" | tr '\n' ' ')"
	fi
}

# ct_create_additions: udmem's additions to the manager, --dma-coherent,
# --device and --keep-contents (u-dma-buf issues #69, #127, #55)
ct_create_additions() {
	udmem create cli-t2 64K --dma-coherent > $CT/out 2> $CT/err
	_rc=$?
	if [ $_rc = 1 ] && grep -q EOPNOTSUPP $CT/err; then
		tap_skip create-dma-coherent "this kernel chose its DMA operations at device setup (ARM before 5.19)"
	elif [ $_rc = 0 ]; then
		tap_eq create-dma-coherent 1 "$(cat /sys/class/u-dma-buf/cli-t2/dma_coherent 2>&1)"
		udmem delete cli-t2 > /dev/null
	else
		tap_fail create-dma-coherent "exit $_rc: $(head -n 1 $CT/err)"
	fi
	ct_run create-dma-coherent-with-device-exit-2 2 udmem create cli-t2 64K --dma-coherent --device x
	ct_run create-keep-contents-without-device-exit-2 2 udmem create cli-t2 64K --keep-contents
	ct_grep create-keep-contents-without-device-message $CT/err "needs --device"
	_edu=$(udmem_pci_dev 0x1234 0x11e8)
	if [ -n "$_edu" ]; then
		ct_run create-keep-contents-no-region-exit-1 1 \
			udmem create cli-t2 64K --device "pci/$_edu" --keep-contents
		ct_grep create-keep-contents-no-region-einval $CT/err "(errno 22, EINVAL)$"
	else
		tap_skip create-keep-contents-no-region "no edu device"
	fi
	_kp=$(udmem_of_pdev udmem-t-keep-parent)
	if [ -z "$_kp" ]; then
		tap_skip create-keep-contents "no device-tree node udmem-t-keep-parent on this target"
		return
	fi
	ct_run create-keep-contents-exit-0 0 udmem create cli-t2 64K --device "$_kp" --keep-contents
	_pat="cli-keep-$$"
	printf '%s' "$_pat" > /dev/cli-t2
	udmem delete cli-t2 > /dev/null
	ct_run create-keep-contents-again-exit-0 0 udmem create cli-t2 64K --device "platform/$_kp" --keep-contents
	tap_eq create-keep-contents-kept "$_pat" "$(dd if=/dev/cli-t2 bs=${#_pat} count=1 2>/dev/null)"
	udmem delete cli-t2 > /dev/null
}

ct_loaded=""
if [ ! -f /udmem/modules/u-dma-buf.ko ]; then
	tap_skip setup-u-dma-buf "u-dma-buf.ko was not built"
elif udmem_insmod u-dma-buf udmabuf0=0x10000 && [ -e /dev/udmabuf0 ]; then
	ct_loaded="u-dma-buf"
	udmem_insmod u-dma-buf-mgr && ct_loaded="u-dma-buf-mgr $ct_loaded"
	tap_ok setup-u-dma-buf
else
	tap_fail setup-u-dma-buf "insmod u-dma-buf udmabuf0=0x10000 failed"
fi
ct_ivshmem=$(udmem_pci_dev 0x1af4 0x1110)
if [ -f /udmem/modules/uiomem.ko ] && [ -n "$ct_ivshmem" ]; then
	echo 1 > "$ct_ivshmem/enable" 2>/dev/null
	read -r ct_bar _ <<-EOF
		$(sed -n 3p "$ct_ivshmem/resource")
	EOF
	if udmem_insmod uiomem uiomem0_addr="$ct_bar" uiomem0_size=0x10000; then
		ct_loaded="uiomem $ct_loaded"
	fi
fi

# ---- general
ct_run help-exit-0 0 udmem --help
ct_grep help-lists-commands $CT/out "^  dump "
ct_run no-command-exit-2 2 udmem
ct_run unknown-command-exit-2 2 udmem frobnicate
ct_grep unknown-command-message $CT/err "unknown command 'frobnicate'"
ct_run version-exit-0 0 udmem --version
ct_grep version-printed $CT/out "^udmem [0-9]*\.[0-9]*\.[0-9]*$"
for c in list info create delete sync dump load save import export; do
	ct_run "$c-help-exit-0" 0 udmem $c --help
	ct_grep "$c-help-usage" $CT/out "^Usage: udmem $c"
done
ct_run bench-dispatched 0 udmem bench --help
ct_grep bench-help-usage $CT/out "udmem bench"
ct_run unknown-option-exit-2 2 udmem list --frob
ct_grep unknown-option-message $CT/err "unknown option '--frob'"

# ---- failures that need no driver
ct_run info-missing-exit-1 1 udmem info udmem-nosuch
ct_grep info-missing-message $CT/err \
	"^udmem: udmem-nosuch: open (no such buffer or region): No such file or directory (errno 2, ENOENT)$"
ct_run info-not-ours-exit-1 1 udmem info null
ct_grep info-not-ours-message $CT/err \
	"^udmem: null: open (not a u-dma-buf buffer or uiomem region): No such device (errno 19, ENODEV)$"
ct_run info-bad-name-exit-1 1 udmem info ../etc
ct_grep info-bad-name-message $CT/err "errno 22, EINVAL"
ct_run info-no-name-exit-2 2 udmem info
ct_run create-bad-size-exit-2 2 udmem create cli-t0 4Q
ct_grep create-bad-size-message $CT/err "bad SIZE '4Q'"
ct_run create-bad-mode-exit-2 2 udmem create cli-t0 4K --mmap-mode sometimes
ct_run create-bad-mask-exit-2 2 udmem create cli-t0 4K --dma-mask 8
ct_run create-one-arg-exit-2 2 udmem create cli-t0
ct_run sync-no-for-exit-2 2 udmem sync udmabuf0
ct_grep sync-no-for-message $CT/err "for cpu|device is required"
ct_run sync-bad-for-exit-2 2 udmem sync udmabuf0 --for gpu
ct_run sync-bad-dir-exit-2 2 udmem sync udmabuf0 --for cpu --dir sideways

if [ ! -e /dev/udmabuf0 ]; then
	tap_skip buffer-commands "u-dma-buf is not loaded"
else
	# ---- list and info
	ct_run list-exit-0 0 udmem list
	ct_grep list-header $CT/out "^NAME  *KIND  *SIZE  *ADDRESS  *COHERENT  *SYNC_MODE  *OWNER$"
	ct_grep list-buffer-row $CT/out "^udmabuf0  *buffer  *65536  *0x[0-9a-f]\{16\}  *\(yes\|no\)  *[0-7]  *\(cpu\|device\)$"
	if [ -e /dev/uiomem0 ]; then
		ct_grep list-region-row $CT/out "^uiomem0  *region  *65536 "
	fi
	ct_run list-json-exit-0 0 udmem list --json
	ct_grep list-json-array $CT/out "^\["
	ct_grep list-json-buffer $CT/out "\"name\": \"udmabuf0\", \"kind\": \"buffer\""

	ct_run info-exit-0 0 udmem info udmabuf0
	ct_grep info-size $CT/out "^size:  *65536$"
	ct_grep info-device $CT/out "^device:  */dev/udmabuf0$"
	want=$(printf '0x%016x' "$(cat /sys/class/u-dma-buf/udmabuf0/phys_addr)")
	ct_grep info-phys-matches-sysfs $CT/out "^phys_addr:  *$want$"
	ct_run info-json-exit-0 0 udmem info udmabuf0 --json
	ct_grep info-json-size $CT/out "\"size\": 65536"
	ct_grep info-json-kind $CT/out "\"kind\": \"buffer\""

	# ---- create and delete
	if [ -e /dev/u-dma-buf-mgr ]; then
		ct_run create-exit-0 0 udmem create cli-t0 8K
		tap_eq create-size-in-sysfs 8192 "$(cat /sys/class/u-dma-buf/cli-t0/size 2>&1)"
		ct_run create-existing-exit-1 1 udmem create cli-t0 4K
		ct_grep create-existing-message $CT/err "^udmem: cli-t0: create: File exists (errno 17, EEXIST)$"
		ct_run delete-exit-0 0 udmem delete cli-t0
		if [ -e /sys/class/u-dma-buf/cli-t0 ]; then
			tap_fail delete-removes "cli-t0 still in sysfs"
		else
			tap_ok delete-removes
		fi
		ct_run create-options-exit-0 0 udmem create cli-t1 1M --dma-mask 32 --mmap-mode off
		ct_run create-options-info 0 udmem info cli-t1
		ct_grep create-options-mask $CT/out "^dma_mask_bits: 32$"
		ct_grep create-options-mode $CT/out "^mmap_mode:  *off$"
		ct_grep create-options-size $CT/out "^size:  *1048576$"
		ct_run create-options-delete 0 udmem delete cli-t1
		ct_create_additions
	else
		tap_skip create-commands "u-dma-buf-mgr is not loaded"
	fi
	ct_run delete-missing-exit-1 1 udmem delete cli-t0
	ct_grep delete-missing-message $CT/err "^udmem: cli-t0: delete: No such file or directory (errno 2, ENOENT)$"

	# ---- sync
	ct_run sync-cpu-exit-0 0 udmem sync udmabuf0 --for cpu --offset 4K --size 8K --dir from-device
	tap_eq sync-cpu-offset 0x1000 "$(cat /sys/class/u-dma-buf/udmabuf0/sync_offset)"
	tap_eq sync-cpu-size 8192 "$(cat /sys/class/u-dma-buf/udmabuf0/sync_size)"
	tap_eq sync-cpu-direction 2 "$(cat /sys/class/u-dma-buf/udmabuf0/sync_direction)"
	tap_eq sync-cpu-owner 0 "$(cat /sys/class/u-dma-buf/udmabuf0/sync_owner)"
	ct_run sync-device-exit-0 0 udmem sync udmabuf0 --for device
	tap_eq sync-device-owner 1 "$(cat /sys/class/u-dma-buf/udmabuf0/sync_owner)"
	tap_eq sync-device-whole 65536 "$(cat /sys/class/u-dma-buf/udmabuf0/sync_size)"
	ct_run sync-past-end-exit-1 1 udmem sync udmabuf0 --for cpu --offset 64K
	ct_grep sync-past-end-message $CT/err "^udmem: udmabuf0: sync for cpu: Invalid argument (errno 22, EINVAL)$"

	# ---- load, save, dump
	dd if=/dev/urandom of=$CT/in bs=4096 count=2 2>/dev/null
	ct_run load-exit-0 0 udmem load udmabuf0 $CT/in --offset 4096
	ct_grep load-message $CT/out "^udmabuf0: loaded 8192 bytes at offset 4096$"
	dd if=/dev/udmabuf0 of=$CT/back bs=4096 skip=1 count=2 2>/dev/null
	tap_check load-reaches-the-device cmp $CT/in $CT/back
	ct_run save-exit-0 0 udmem save udmabuf0 $CT/saved --offset 4K --length 8K
	tap_check save-round-trip cmp $CT/in $CT/saved
	udmem save udmabuf0 - --offset 4096 --length 8192 > $CT/stdout 2> $CT/err
	tap_check save-to-stdout cmp $CT/in $CT/stdout
	printf 'HELLO, DEVICE!' > $CT/hello
	udmem load udmabuf0 - < $CT/hello > /dev/null
	ct_run dump-exit-0 0 udmem dump udmabuf0 --length 32
	ct_grep dump-first-line $CT/out "^00000000  48 45 4c 4c 4f 2c 20 44  45 56 49 43 45 21 .. ..  |HELLO, DEVICE!..|$"
	ct_grep dump-end-offset $CT/out "^00000020$"
	ct_run dump-sync-exit-0 0 udmem dump udmabuf0 --offset 16 --length 16 --sync
	ct_grep dump-offset-column $CT/out "^00000010  "
	ct_run dump-past-end-exit-1 1 udmem dump udmabuf0 --offset 65530 --length 16
	ct_grep dump-past-end-message $CT/err "is outside the 65536 bytes of the device (errno 22, EINVAL)"
	dd if=/dev/zero of=$CT/big bs=4096 count=17 2>/dev/null
	ct_run load-too-big-exit-1 1 udmem load udmabuf0 $CT/big
	ct_grep load-too-big-message $CT/err "errno 27, EFBIG"
	ct_run load-missing-file-exit-1 1 udmem load udmabuf0 $CT/nonexistent
	ct_grep load-missing-file-message $CT/err "^udmem: $CT/nonexistent: open: No such file or directory (errno 2, ENOENT)$"
fi

# The CLI example of docs/cli.md: a pattern through the edu device's DMA
# engine and back, with busybox devmem programming the device.
ct_edu=$(udmem_pci_dev 0x1234 0x11e8)
if [ -z "$ct_edu" ] || [ ! -e /dev/u-dma-buf-mgr ]; then
	tap_skip edu-round-trip "no edu device or no u-dma-buf-mgr"
elif [ -n "$(ls /sys/class/iommu 2>/dev/null)" ]; then
	# Behind an IOMMU the driverless edu device has no DMA setup (the bus
	# makes it when a driver binds), so no buffer has an address it can use.
	tap_skip edu-round-trip "edu is behind an IOMMU with no driver bound (udmabuf-dma covers it)"
else
	printf '\007' | dd of="$ct_edu/config" bs=1 seek=4 conv=notrunc 2>/dev/null
	bar=$(($(cut -d' ' -f1 "$ct_edu/resource" | head -n 1)))
	# ct_dma SRC DST CMD: one 2 KiB transfer (QEMU 7.2's edu refuses 4 KiB),
	# then wait for it to finish
	ct_dma() {
		devmem $((bar + 0x80)) 32 "$1"
		devmem $((bar + 0x88)) 32 "$2"
		devmem $((bar + 0x90)) 32 2048
		devmem $((bar + 0x98)) 32 "$3"
		for _i in 1 2 3 4 5 6 7 8 9 10; do
			[ $(($(devmem $((bar + 0x98)) 32) & 1)) = 0 ] && return 0
			sleep 1
		done
		return 1
	}
	udmem create cli-edu 8K > /dev/null
	dd if=/dev/urandom of=$CT/pattern bs=2048 count=1 2>/dev/null
	udmem load cli-edu $CT/pattern > /dev/null
	dma=$(udmem info cli-edu | sed -n 's/^dma_addr: *//p')
	if ct_dma "$dma" 0x40000 1 && ct_dma 0x40000 $((dma + 4096)) 3; then
		tap_ok edu-dma-done
	else
		tap_fail edu-dma-done "the edu DMA did not finish"
	fi
	ct_run edu-sync-for-cpu 0 udmem sync cli-edu --for cpu --offset 4K --size 2K --dir from-device
	udmem save cli-edu $CT/back --offset 4K --length 2K
	tap_check edu-round-trip cmp $CT/pattern $CT/back
	ct_run edu-delete 0 udmem delete cli-edu
fi

if [ -e /dev/uiomem0 ]; then
	ct_run region-info-exit-0 0 udmem info uiomem0
	ct_grep region-info-kind $CT/out "^kind:  *region$"
	ct_run region-load-exit-0 0 udmem load uiomem0 $CT/in
	ct_run region-save-exit-0 0 udmem save uiomem0 $CT/rsaved --length 8K
	tap_check region-round-trip cmp $CT/in $CT/rsaved
	ct_run region-sync-exit-0 0 udmem sync uiomem0 --for device --size 4K --dir to-device
	# A region's export: no CPU mapping, so --uncached is refused
	ct_run region-export-exit-0 0 udmem export uiomem0 --offset 4K --size 8K
	ct_grep region-export-exporter $CT/out "^exporter uiomem0$"
	ct_grep region-export-size $CT/out "^size 8192$"
	ct_run region-export-uncached-exit-2 2 udmem export uiomem0 --uncached
	# shellcheck disable=SC2016 # expanded by the command's shell
	ct_run region-export-to-command 0 udmem export uiomem0 --size 4K -- \
		sh -c 'grep "^exp_name:" /proc/self/fdinfo/3; echo "env $UDMEM_DMABUF_FD $UDMEM_DMABUF_SIZE"'
	ct_grep region-export-inherited $CT/out "^exp_name:[[:space:]]*uiomem0$"
	ct_grep region-export-env $CT/out "^env 3 4096$"
else
	tap_skip region-commands "uiomem is not loaded"
fi

# ---- export and import: DMA-BUFs passed on to a command
ct_run export-misaligned-exit-2 2 udmem export udmabuf0 --offset 100
ct_grep export-misaligned-message $CT/err "must be multiples of the"
ct_run export-bad-access-exit-2 2 udmem export udmabuf0 --access rwx
ct_run export-low-fd-exit-2 2 udmem export udmabuf0 --fd 2 -- true
ct_run export-no-command-exit-2 2 udmem export udmabuf0 --
ct_run import-no-fd-exit-2 2 udmem import udmabuf0
ct_grep import-no-fd-message $CT/err "fd N is required"
ct_run import-bad-fd-exit-2 2 udmem import udmabuf0 --fd x
if [ ! -e /dev/udmabuf0 ]; then
	tap_skip export-commands "u-dma-buf is not loaded"
else
	ct_run export-exit-0 0 udmem export udmabuf0 --offset 4K --size 8K
	ct_grep export-exporter $CT/out "^exporter udmabuf0$"
	ct_grep export-size $CT/out "^size 8192$"
	want=$(udmem info udmabuf0 | sed -n 's/^dma_addr: *//p')
	want=$(printf '0x%x' $((want + 4096)))
	ct_grep export-addr-is-dma-addr $CT/out "^addr $want$"
	ct_run export-whole-exit-0 0 udmem export udmabuf0 --access ro --uncached
	ct_grep export-whole-size $CT/out "^size 65536$"
	ct_run export-past-end-exit-1 1 udmem export udmabuf0 --offset 64K
	ct_grep export-past-end-message $CT/err "^udmem: udmabuf0: export: .*EINVAL)$"
	ct_run export-command-status 7 udmem export udmabuf0 -- sh -c 'exit 7'
	ct_run export-exec-fails-exit-127 127 udmem export udmabuf0 -- /nonexistent
	ct_run import-not-dmabuf-exit-1 1 udmem import udmabuf0 --fd 0
	ct_grep import-not-dmabuf-message $CT/err "^udmem: udmabuf0: import: .*EINVAL)$"
	ct_run import-closed-fd-exit-1 1 udmem import udmabuf0 --fd 77
	ct_grep import-closed-fd-message $CT/err "EBADF)$"
	# The export handed to "udmem import" as descriptor 7: both sides map
	# the buffer directly (a platform device), so the addresses agree.
	# shellcheck disable=SC2016 # expanded by the command's shell
	ct_run export-to-import 0 udmem export udmabuf0 --size 4K --fd 7 -- \
		udmem import udmabuf0 --fd 7 --dir from-device -- \
		sh -c 'echo "held $UDMEM_IMPORT_ADDR $UDMEM_IMPORT_SIZE"'
	ct_grep export-to-import-size $CT/out "^size 4096$"
	a1=$(sed -n 's/^addr //p' $CT/out | head -n 1)
	a2=$(sed -n 's/^addr //p' $CT/out | tail -n 1)
	if [ -n "$a1" ] && [ "$a1" = "$a2" ] && grep -q "^held $a1 4096$" $CT/out; then
		tap_ok export-to-import-same-addr
	else
		tap_fail export-to-import-same-addr "export $a1, import $a2: $(tr '\n' ' ' < $CT/out)"
	fi
fi

. ./json.sh

# A session for the documentation (docs/cli.md), as TAP comment lines: each
# command line exactly as a user types it, then its output.  Each step must
# end with the status the session shows (session-N).
ct_step=0
ct_show() {
	ct_step=$((ct_step + 1))
	echo "# \$ $2"
	eval "$2" > $CT/show 2>&1
	ct_rc=$?
	sed 's/^/#   /' $CT/show
	if [ "$ct_rc" = "$1" ]; then
		tap_ok "session-$ct_step"
	else
		tap_fail "session-$ct_step" "$2: exit $ct_rc, not $1: $(tail -n 1 $CT/show)"
	fi
}
if [ -e /dev/u-dma-buf-mgr ] && [ -n "$ct_edu" ]; then
	echo "# ---- session begin"
	ct_show 0 "udmem list"
	ct_show 0 "udmem create demo 8K"
	ct_show 0 "udmem info demo"
	ct_show 0 "udmem load demo $CT/pattern"
	dma=$(udmem info demo | sed -n 's/^dma_addr: *//p')
	echo "# \$ (the edu device copies 2 KiB from $dma to its memory, then to $dma + 4 KiB)"
	ct_dma "$dma" 0x40000 1 && ct_dma 0x40000 $((dma + 4096)) 3
	ct_show 0 "udmem sync demo --for cpu --offset 4K --size 2K --dir from-device"
	ct_show 0 "udmem save demo $CT/back --offset 4K --length 2K"
	ct_show 0 "cmp $CT/pattern $CT/back && echo identical"
	ct_show 0 "udmem dump demo --offset 4K --length 48"
	ct_show 0 "udmem delete demo"
	ct_show 1 "udmem info demo"
	echo "# ---- session end"
fi

. ./dma.sh

rm -rf $CT
for m in $ct_loaded; do
	udmem_rmmod "$m" || tap_fail "rmmod-$m" "rmmod $m failed"
done
