# SPDX-License-Identifier: GPL-2.0 OR MIT
# syncchk: u-dma-buf's sync checker (docs/sync-checker.md).  syncchk.c runs
# the deliberately wrong programs (caught at the right offset in report and
# strict mode), the correct ones (clean), the races and the switch; then
# seed 000's client pattern (udmabuf-cpu-access: mmap and read()/write(),
# O_SYNC and cached with the sysfs sync protocol) runs on a buffer with the
# checker strict and must leave no violation, and so must the document's own
# program when it was extracted; the CLI's --sync-check and the
# module parameter make new buffers start checked.  sclib: libudmem's
# SIGBUS handler names the buffer and offset of a strict-mode fault, in its
# own mappings and in those given to udmem_sync_check_watch().  uiochk: the
# same checker on a uiomem region over the ivshmem BAR, and uiomem's module
# parameter.

SC_CLS=/sys/class/u-dma-buf

sc_cleanup() {
	for b in udmem-sc-client udmem-sc-param udmem-sc-cli udmem-sc-lib udmem-sc-lib2 udmem-sc-lib3 udmem-sc-lib4 udmem-sc-lib5 udmem-sc-lib6 udmem-sc-doc; do
		echo "delete $b" > /dev/u-dma-buf-mgr 2>/dev/null
	done
	lsmod | grep -q '^u_dma_buf_mgr' && udmem_rmmod u-dma-buf-mgr
	lsmod | grep -q '^u_dma_buf ' && udmem_rmmod u-dma-buf
}

if udmem_insmod u-dma-buf && udmem_insmod u-dma-buf-mgr; then
	tap_ok setup
	udmem_run syncchk
	udmem_run sclib

	# seed 000's client pattern, checked strictly
	if echo "create udmem-sc-client 0x100000 quirk-mmap-on sync-check=strict" > /dev/u-dma-buf-mgr; then
		tap_eq client/checker-on strict "$(cat $SC_CLS/udmem-sc-client/sync_check)"
		udmem_run UDMEM_SUITE="$UDMEM_SUITE/client" UDMABUF_DEV=udmem-sc-client udmabuf-cpu-access |
			grep -v '^# cpu-access '
		tap_eq client/no-violations 0 "$(cat $SC_CLS/udmem-sc-client/ownership_violations)"
		echo "delete udmem-sc-client" > /dev/u-dma-buf-mgr
	else
		tap_fail client/create "create with sync-check=strict failed"
	fi

	# seed 000's own program, when it was extracted from the document
	# (tests/guest/udmabuf-cpu-access/extract-document-program.sh), strict
	if [ ! -x /udmem/bin/u-dma-buf-file-test ]; then
		tap_skip document-program "no source document given (see udmabuf-cpu-access/extract-document-program.sh)"
	elif echo "create udmem-sc-doc 0x100000 quirk-mmap-on sync-check=strict" > /dev/u-dma-buf-mgr; then
		tap_eq document-program/checker-on strict "$(cat $SC_CLS/udmem-sc-doc/sync_check)"
		u-dma-buf-file-test -n udmem-sc-doc > /tmp/sc-doc.log 2>&1
		sc_rc=$?
		sed 's/^/# document-program: /' /tmp/sc-doc.log | grep -E 'test|compare'
		tap_eq document-program/exit-status 0 "$sc_rc"
		tap_eq document-program/compares-ok 8 "$(grep -c '^compare = ok$' /tmp/sc-doc.log)"
		tap_eq document-program/no-violations 0 "$(cat $SC_CLS/udmem-sc-doc/ownership_violations)"
		rm -f /tmp/sc-doc.log
		echo "delete udmem-sc-doc" > /dev/u-dma-buf-mgr
	else
		tap_fail document-program/create "create with sync-check=strict failed"
	fi

	# the CLI's switch (libudmem's UDMEM_CREATE_SYNC_CHECK_* flags)
	if udmem create udmem-sc-cli 64K --mmap-mode on --sync-check strict > /dev/null; then
		tap_eq cli/create-sync-check-strict strict "$(cat $SC_CLS/udmem-sc-cli/sync_check)"
		udmem delete udmem-sc-cli > /dev/null
	else
		tap_fail cli/create-sync-check-strict "udmem create --sync-check strict failed"
	fi
	if udmem create udmem-sc-cli 64K --sync-check loud 2> /dev/null; then
		tap_fail cli/bad-sync-check-refused "udmem create --sync-check loud succeeded"
		udmem delete udmem-sc-cli > /dev/null
	else
		tap_ok cli/bad-sync-check-refused
	fi

	# the module parameter: the default of new buffers
	echo report > /sys/module/u_dma_buf/parameters/sync_check
	tap_eq param/reads-back report "$(cat /sys/module/u_dma_buf/parameters/sync_check)"
	if echo "create udmem-sc-param 0x10000 quirk-mmap-on" > /dev/u-dma-buf-mgr; then
		tap_eq param/new-buffer-checked report "$(cat $SC_CLS/udmem-sc-param/sync_check)"
		echo "delete udmem-sc-param" > /dev/u-dma-buf-mgr
	else
		tap_fail param/create "create failed"
	fi
	echo off > /sys/module/u_dma_buf/parameters/sync_check
	if echo bogus > /sys/module/u_dma_buf/parameters/sync_check 2>/dev/null; then
		tap_fail param/bad-value-refused "bogus accepted"
	else
		tap_ok param/bad-value-refused
	fi
else
	tap_fail setup "insmod u-dma-buf or u-dma-buf-mgr failed"
fi
sc_cleanup

# uiomem: the same checker on a region of 64 KiB of the ivshmem BAR from
# 64 KiB on (the first page is the host peer's mailbox); the module
# parameter makes the new region start checked.
UC_CLS=/sys/class/uiomem
uc_addr=
_d=$(udmem_pci_dev 0x1af4 0x1110) && _bar=$(sed -n 3p "$_d/resource")
if [ -n "$_bar" ]; then
	# shellcheck disable=SC2086 # start, end and flags: one a word
	set -- $_bar
	if [ "$1" != "0x0000000000000000" ] && [ $(($2 - $1 + 1)) -ge $((0x20000)) ]; then
		uc_addr=$(printf '0x%x' $(($1 + 0x10000)))
	fi
fi
lsmod | grep -q '^uiomem ' && udmem_rmmod uiomem
if [ -z "$uc_addr" ]; then
	tap_skip uiomem "no ivshmem-plain device with a BAR 2: no uiomem region"
elif udmem_insmod uiomem uiomem0_addr="$uc_addr" uiomem0_size=0x10000 sync_check=report; then
	tap_eq uiomem/param-reads-back report "$(cat /sys/module/uiomem/parameters/sync_check)"
	tap_eq uiomem/param-new-region-checked report "$(cat $UC_CLS/uiomem0/sync_check)"
	tap_eq uiomem/no-violations-yet 0 "$(cat $UC_CLS/uiomem0/ownership_violations)"
	udmem_run UDMEM_SUITE="$UDMEM_SUITE/uiomem" UIOMEM_DEV=uiomem0 uiochk
	if echo bogus > /sys/module/uiomem/parameters/sync_check 2>/dev/null; then
		tap_fail uiomem/param-bad-value-refused "bogus accepted"
	else
		tap_ok uiomem/param-bad-value-refused
	fi
	udmem_rmmod uiomem
else
	tap_fail uiomem/setup "insmod uiomem with a region on the ivshmem BAR failed"
fi

if lsmod | grep -q '^u_dma_buf'; then
	tap_fail cleanup "u-dma-buf still loaded"
else
	tap_ok cleanup
fi
