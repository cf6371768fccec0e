# SPDX-License-Identifier: GPL-2.0 OR MIT
# doctor: `udmem doctor` on a healthy setup (no check fails) and on setups
# broken on purpose, each of which the right check must name and fail:
# modules not loaded, a module built for another kernel (its vermagic
# changed by doctor-vermagic), a device node a non-root user cannot open
# (doctor-runas drops root), CMA too small for a wanted size, and lockdown.
# Each JSON check is one line: {"check": C, "subject": S, "status": ...}.

DT=/tmp/doctor-test
mkdir -p $DT
DM=/udmem/modules

# dt_run NAME WANT_RC CMD...: run CMD, stdout in $DT/out
dt_run() {
	_n=$1
	_want=$2
	shift 2
	"$@" > $DT/out 2> $DT/err
	_rc=$?
	if [ "$_rc" = "$_want" ]; then
		tap_ok "$_n"
	else
		tap_fail "$_n" "'$*' exited $_rc, want $_want: $(grep -E '^(FAIL|WARN)' $DT/out | head -n 3 | tr '\n' ' ') $(head -n 2 $DT/err | tr '\n' ' ')"
	fi
}

# dt_status NAME CHECK SUBJECT STATUS: $DT/out (--json) has that check's status
dt_status() {
	_line=$(grep -F "{\"check\": \"$2\", \"subject\": \"$3\", " $DT/out | head -n 1)
	case $_line in
	*"\"status\": \"$4\""*) tap_ok "$1" ;;
	"") tap_fail "$1" "no check $2/$3 in: $(grep -c '"check"' $DT/out) checks" ;;
	*) tap_fail "$1" "want $4: $_line" ;;
	esac
}

# dt_check_status CHECK SUBJECT: the status of that check in $DT/out, or nothing
dt_check_status() {
	grep -F "{\"check\": \"$1\", \"subject\": \"$2\", " $DT/out | head -n 1 |
		sed -n 's/.*"status": "\([a-z]*\)".*/\1/p'
}

# dt_cma_subject: the subject of the CMA check in $DT/out (CmaTotal or CmaFree)
dt_cma_subject() {
	sed -n 's/.*{"check": "cma", "subject": "\(Cma[A-Za-z]*\)".*/\1/p' $DT/out | head -n 1
}

# dt_no_fail NAME: no check of $DT/out (--json) failed, and the summary says so
dt_no_fail() {
	if grep -q '"status": "fail"' $DT/out; then
		tap_fail "$1" "$(grep '"status": "fail"' $DT/out | head -n 2 | tr '\n' ' ')"
	elif grep -q '"summary": {"ok": [0-9]*, "warn": [0-9]*, "fail": 0, "skip": [0-9]*}' $DT/out; then
		tap_ok "$1"
	else
		tap_fail "$1" "no summary with fail 0: $(tail -n 1 $DT/out)"
	fi
}

dt_load() {
	udmem_insmod u-dma-buf udmabuf0=0x10000 && udmem_insmod u-dma-buf-mgr &&
		udmem_insmod uiomem
}

dt_unload() {
	for _m in uiomem u-dma-buf-mgr u-dma-buf; do
		lsmod | grep -q "^$(echo $_m | tr - _) " && udmem_rmmod $_m
	done
}

dt_sec=
if [ -d /sys/kernel/security ] && [ ! -e /sys/kernel/security/lockdown ] &&
	mount -t securityfs securityfs /sys/kernel/security 2>/dev/null; then
	dt_sec=mounted
fi

if ! dt_load; then
	tap_fail setup "insmod u-dma-buf, u-dma-buf-mgr, uiomem failed: $(dmesg | tail -n 2 | tr '\n' ' ')"
	dt_unload
	return 0
fi

# Healthy: the modules loaded, a buffer, root.
dt_run healthy-exit-0 0 udmem doctor --module-dir $DM
sed 's/^/# /' $DT/out
dt_run healthy-json-exit-0 0 udmem doctor --json --module-dir $DM
dt_no_fail healthy-json-no-fail
for m in u-dma-buf u-dma-buf-mgr uiomem; do
	dt_status "healthy-module-$m-ok" module $m ok
done
dt_status healthy-permission-ok permission /dev/udmabuf0 ok
case $(dt_check_status cma "$(dt_cma_subject)") in
ok | warn) tap_ok healthy-cma-not-failed ;;
*) tap_fail healthy-cma-not-failed "$(grep '"check": "cma"' $DT/out)" ;;
esac
if grep -q '"check": "iommu", "subject": "udmabuf0", "status": "ok", "finding": "[^"]*dma_addr 0x' $DT/out; then
	tap_ok healthy-iommu-names-dma-addr
else
	tap_fail healthy-iommu-names-dma-addr "$(grep '"check": "iommu"' $DT/out | head -n 1)"
fi
case $(dt_check_status coherence udmabuf0) in
ok | warn) tap_ok healthy-coherence-checked ;;
*) tap_fail healthy-coherence-checked "$(grep '"check": "coherence"' $DT/out | head -n 1)" ;;
esac
dt_status healthy-memtype-not-checked memtype mappings skip
case $(uname -m) in
aarch64 | x86_64)
	if udmem_insmod udmem-memtype; then
		dt_run memtype-exit-0 0 udmem doctor --json --module-dir $DM
		if grep -q '"check": "memtype", "subject": "udmabuf0", "status": "ok", "finding": "mmap [a-z-]*, O_SYNC mmap [a-z-]* (page tables)"' $DT/out; then
			tap_ok memtype-udmabuf0
		else
			tap_fail memtype-udmabuf0 "$(grep '"check": "memtype"' $DT/out | head -n 1)"
		fi
		udmem_rmmod udmem-memtype
	else
		tap_fail memtype-udmabuf0 "insmod udmem-memtype failed"
	fi
	;;
*) tap_skip memtype-udmabuf0 "the page-table reader knows arm64 and x86_64 only" ;;
esac

# Coherence: a buffer the device tree makes coherent through its parent bus
# (the arm64 targets' udmem-t-fabric), and one marked coherent by hand,
# which only x86 (where DMA snoops the caches) takes without a warning.
if [ -e /sys/class/u-dma-buf/udmabuf-ddr-c0 ]; then
	if grep -q '"check": "coherence", "subject": "udmabuf-ddr-c0", "status": "ok", "finding": "coherent, as the device tree says (/udmem-t-fabric)' $DT/out; then
		tap_ok coherence-from-parent-bus
	else
		tap_fail coherence-from-parent-bus "$(grep '"subject": "udmabuf-ddr-c0"' $DT/out | head -n 1)"
	fi
else
	tap_skip coherence-from-parent-bus "no device-tree buffer udmabuf-ddr-c0 on this target"
fi
if udmem create doctor-coh 64K --dma-coherent > $DT/err 2>&1; then
	udmem doctor --json --module-dir $DM > $DT/out 2> $DT/err
	case $(uname -m) in
	x86_64 | i?86) dt_status coherence-by-hand coherence doctor-coh ok ;;
	*) dt_status coherence-by-hand coherence doctor-coh warn ;;
	esac
	udmem delete doctor-coh > /dev/null
elif grep -q EOPNOTSUPP $DT/err; then
	tap_skip coherence-by-hand "this kernel cannot mark a device dma-coherent (ARM before 5.19)"
else
	tap_fail coherence-by-hand "udmem create --dma-coherent: $(head -n 1 $DT/err)"
fi

# IOMMU: a buffer behind one names its group and dma_addr.
if [ -n "$(ls /sys/class/iommu 2>/dev/null)" ] && [ -e /sys/class/u-dma-buf/udmabuf0/device/iommu_group ]; then
	if grep -q '"check": "iommu", "subject": "udmabuf0", "status": "ok", "finding": "behind IOMMU group [0-9]* ([A-Za-z-]*): dma_addr 0x' $DT/out; then
		tap_ok iommu-group-named
	else
		tap_fail iommu-group-named "$(grep '"check": "iommu", "subject": "udmabuf0"' $DT/out)"
	fi
else
	tap_skip iommu-group-named "udmabuf0 is not behind an IOMMU on this target"
fi

# CMA too small for what is wanted; and enough for a small buffer.
dt_run cma-want-64g-exit-1 1 udmem doctor --json --want 64G --module-dir $DM
dt_status cma-want-64g-fails cma "$(dt_cma_subject)" fail
dt_run cma-want-4k-exit-0 0 udmem doctor --json --want 4K --module-dir $DM
dt_no_fail cma-want-4k-no-fail
dt_run cma-want-bad-exit-2 2 udmem doctor --want lots

# A node a non-root user cannot open, then one it can.
dt_mode=$(stat -c %a /dev/udmabuf0)
chmod 0600 /dev/udmabuf0
dt_run nonroot-0600-exit-1 1 doctor-runas 65534 65534 udmem doctor --json --module-dir $DM
dt_status nonroot-0600-permission-fails permission /dev/udmabuf0 fail
if grep -q '"uid": 65534' $DT/out; then tap_ok nonroot-uid; else tap_fail nonroot-uid "$(head -n 1 $DT/out)"; fi
chmod 0666 /dev/udmabuf0 /dev/u-dma-buf-mgr
[ -e /dev/uiomem0 ] && chmod 0666 /dev/uiomem0
doctor-runas 65534 65534 udmem doctor --json --module-dir $DM > $DT/out 2> $DT/err
dt_status nonroot-0666-permission-ok permission /dev/udmabuf0 ok
chmod "$dt_mode" /dev/udmabuf0 /dev/u-dma-buf-mgr

# The modules not loaded: each says so, and no driver at all fails.
dt_unload
dt_run unloaded-exit-1 1 udmem doctor --json --module-dir $DM
dt_status unloaded-drivers-fail module drivers fail
dt_status unloaded-u-dma-buf-warn module u-dma-buf warn
if grep -q '"check": "module", "subject": "u-dma-buf", .*"finding": "not loaded (a build for '"$(uname -r)"' is installed)"' $DT/out; then
	tap_ok unloaded-names-matching-build
else
	tap_fail unloaded-names-matching-build "$(grep '"subject": "u-dma-buf"' $DT/out | head -n 1)"
fi
dt_run unloaded-text-exit-1 1 udmem doctor --module-dir $DM
if grep -q '^FAIL  module     drivers ' $DT/out && grep -q 'fix: load u-dma-buf' $DT/out; then
	tap_ok unloaded-text-fail-and-fix
else
	tap_fail unloaded-text-fail-and-fix "$(grep -A1 '^FAIL' $DT/out | head -n 2 | tr '\n' ' ')"
fi

# A module built for another kernel: the same file with its vermagic's
# release changed.
mkdir -p $DT/mods
cp $DM/u-dma-buf-mgr.ko $DM/uiomem.ko $DT/mods/
if dt_other=$(doctor-vermagic $DM/u-dma-buf.ko $DT/mods/u-dma-buf.ko); then
	dt_run vermagic-exit-1 1 udmem doctor --json --module-dir $DT/mods
	dt_status vermagic-u-dma-buf-fails module u-dma-buf fail
	if grep -q "\"subject\": \"u-dma-buf\", .*built for kernel $dt_other, this is $(uname -r)" $DT/out; then
		tap_ok vermagic-names-both-kernels
	else
		tap_fail vermagic-names-both-kernels "$(grep '"subject": "u-dma-buf"' $DT/out | head -n 1)"
	fi
	dt_status vermagic-other-module-warn module uiomem warn
else
	tap_fail vermagic-copy "doctor-vermagic $DM/u-dma-buf.ko failed"
fi
rm -rf $DT/mods

# Lockdown cannot be lifted once set, and later suites load unsigned
# modules: only the last suite of a guest without debugfs users may set it.
dt_last=$(tail -n 1 /udmem/suites.list)
if [ ! -e /sys/kernel/security/lockdown ]; then
	tap_skip lockdown-integrity "this kernel has no lockdown LSM (no /sys/kernel/security/lockdown)"
elif ! grep -q '\[none\]' /sys/kernel/security/lockdown; then
	tap_skip lockdown-integrity "already locked down: $(cat /sys/kernel/security/lockdown)"
elif [ "$dt_last" != "$UDMEM_SUITE" ]; then
	tap_skip lockdown-integrity "lockdown cannot be undone and suite $dt_last runs after this one (run --suite doctor alone)"
elif [ -e /sys/kernel/debug/kmemleak ] || [ -d /sys/kernel/debug/dma-api ]; then
	tap_skip lockdown-integrity "this guest reads debugfs after the suites, which lockdown closes"
else
	dt_run lockdown-none-exit-1 1 udmem doctor --json --module-dir $DM
	dt_status lockdown-none-ok lockdown lockdown ok
	if echo integrity > /sys/kernel/security/lockdown 2>$DT/err; then
		dt_run lockdown-integrity-exit-1 1 udmem doctor --json --module-dir $DM
		dt_status lockdown-integrity-warns lockdown lockdown warn
		if grep -q '"subject": "u-dma-buf", .*"fix": "modprobe it; under lockdown sign it' $DT/out; then
			tap_ok lockdown-module-fix-names-signing
		else
			tap_fail lockdown-module-fix-names-signing "$(grep '"subject": "u-dma-buf"' $DT/out | head -n 1)"
		fi
	else
		tap_skip lockdown-integrity "the kernel refused integrity: $(cat $DT/err)"
	fi
fi
if [ "$dt_sec" = mounted ] && grep -q '\[none\]' /sys/kernel/security/lockdown 2>/dev/null; then
	umount /sys/kernel/security
fi
rm -rf $DT
