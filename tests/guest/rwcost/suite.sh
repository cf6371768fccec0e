# SPDX-License-Identifier: GPL-2.0 OR MIT
# rwcost: where read()/write() of a buffer spend their time against mmap,
# anonymous memory and a memfd, in instructions.  Opt-in, as its figures
# mean something only under instruction counting:
#   tests/qemu/udmem-qemu run arm64 --suite rwcost --icount --append udmem.rwcost=1
# docs/benchmarks.md reads the figures.

case "$(cat /proc/cmdline)" in
*udmem.rwcost=1*) ;;
*)
	tap_skip rwcost "opt-in: --icount --append udmem.rwcost=1 (figures are instruction counts)"
	return 0 ;;
esac

if ! udmem_insmod u-dma-buf; then
	tap_fail load "insmod u-dma-buf failed"
	return 0
fi
# What decides a system call's own cost: the command line and the kernel's
# mitigations on this CPU.
echo "# cmdline $(cat /proc/cmdline)"
for v in /sys/devices/system/cpu/vulnerabilities/*; do
	[ -r "$v" ] && echo "# vulnerability ${v##*/}: $(cat "$v")"
done
# The kernel's routines behind the figures, to disassemble from the image.
for k in __arch_copy_to_user __arch_copy_from_user dcache_inval_poc dcache_clean_poc; do
	grep " $k\$" /proc/kallsyms | sed 's/^/# ksym /'
done
# A coherent and a non-coherent buffer of the device tree (seed 000's).
rw_ran=""
for d in udmabuf-ddr-c0 udmabuf-soc-high; do
	[ -e "/dev/$d" ] || continue
	udmem_run UDMEM_SUITE="$UDMEM_SUITE/$d" rwcost "$d"
	rw_ran=1
done
[ -n "$rw_ran" ] || tap_skip devices "no udmabuf-ddr-c0 or udmabuf-soc-high in this device tree"
udmem_rmmod u-dma-buf
