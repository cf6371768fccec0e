# SPDX-License-Identifier: GPL-2.0 OR MIT
"""The kernel-report patterns (tests/qemu/udmemqemu/kernel-reports*.ere) on
single kernel log lines, read both ways they are used: by the host's parser
(udmemqemu.parse.kernel_report, Python's re) and by the guest's /init (grep -E -f
over dmesg, then grep -v -E -f of the benign list, each list one alternation;
busybox's grep, the guest's, where the host has busybox).  Each line must be a
report, or not, to both.  One TAP line per log line; exits non-zero on a failure.
"""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "qemu"))

from udmemqemu import parse  # noqa: E402

# (name, kernel log line, whether it is a report).  The debug kernel's lines
# are written the way its reports begin (mm/kasan/report.c,
# kernel/locking/lockdep.c, kernel/dma/debug.c, mm/kmemleak.c).
LINES = [
    ("kasan", "[   41.118512] BUG: KASAN: slab-use-after-free in udmabuf_mmap+0x3c/0x1a0"
     " [u_dma_buf]", True),
    ("kasan-oob", "BUG: KASAN: slab-out-of-bounds in memcpy+0x2f/0x60", True),
    ("lockdep-circular", "[   12.000001] possible circular locking dependency detected",
     True),
    ("lockdep-circular-header", "WARNING: possible circular locking dependency detected",
     True),
    ("lockdep-recursive", "WARNING: possible recursive locking detected", True),
    ("lockdep-inconsistent", "inconsistent lock state", True),
    ("dma-api", "[    9.5] u-dma-buf udmabuf0: DMA-API: device driver frees DMA memory "
     "with wrong function [device address=0x0000000001000000] [size=4096 bytes]", True),
    ("dma-api-sync", "edu 0000:00:02.0: DMA-API: device driver tries to sync DMA memory "
     "it has not allocated", True),
    ("dma-api-pending", "DMA-API: pci 0000:00:02.0: device driver has pending DMA "
     "allocations while released from device [count=1]", True),
    ("dma-api-oom", "DMA-API: debugging out of memory - disabling", True),
    ("kmemleak-leaks", "kmemleak: 3 new suspected memory leaks (see "
     "/sys/kernel/debug/kmemleak)", True),
    ("kmemleak-off", "kmemleak: Kernel memory leak detector disabled", True),
    ("kmemleak-pool", "kmemleak: Memory pool empty, consider increasing "
     "CONFIG_DEBUG_KMEMLEAK_MEM_POOL_SIZE", True),
    ("warn", "[    3.1] WARNING: CPU: 1 PID: 97 at mm/vmalloc.c:2610 vunmap+0x4c/0x60",
     True),
    ("oops", "Internal error: Oops: 0000000096000046 [#1] SMP", True),
    ("call-trace", " Call Trace:", True),
    ("stall", "rcu: INFO: rcu_sched self-detected stall on CPU", True),
    # Progress messages of the same subsystems, and ordinary lines.
    ("dma-api-prealloc", "[    0.91] DMA-API: preallocated 65536 debug entries", False),
    ("dma-api-enabled", "DMA-API: debugging enabled by kernel config", False),
    ("dma-api-grown", "DMA-API: dma_debug_entry pool grown to 131072 (200%)", False),
    ("kmemleak-init", "kmemleak: Kernel memory leak detector initialized (mem pool "
     "available: 14283)", False),
    ("kmemleak-thread", "kmemleak: Automatic memory scanning thread started", False),
    ("kmemleak-scan-area", "[  669.907854] kmemleak: Cannot allocate a scan area, scanning "
     "the full object", False),
    ("boot", "[    0.000000] Linux version 6.1.192-udmem-debug (udmem@debug)", False),
    ("module", "u_dma_buf: loading out-of-tree module taints kernel.", False),
]


GREP = ["busybox", "grep"] if shutil.which("busybox") else ["grep"]


def grep_reports(lines):
    """The lines the guest's /init would count as reports (its two greps)."""
    with tempfile.TemporaryDirectory() as d:
        files = []
        for path in (parse.REPORTS_FILE, parse.BENIGN_FILE):
            files.append(os.path.join(d, os.path.basename(path)))
            with open(files[-1], "w") as f:
                f.write(parse.alternation(path) + "\n")
        found = subprocess.run(GREP + ["-E", "-f", files[0]], input="\n".join(lines) + "\n",
                               capture_output=True, text=True).stdout
        kept = subprocess.run(GREP + ["-v", "-E", "-f", files[1]], input=found,
                              capture_output=True, text=True).stdout
    return set(kept.splitlines())


def main():
    failed = 0
    grepped = grep_reports([line for _, line, _ in LINES])
    for name, line, want in LINES:
        host = parse.kernel_report(line)
        guest = line in grepped
        if host == want and guest == want:
            print(f"ok - harness/kernel-report-{name}")
        else:
            failed += 1
            print(f"not ok - harness/kernel-report-{name} # {line!r}: want {want}, "
                  f"parser says {host}, guest grep says {guest}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
