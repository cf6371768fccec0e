# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Boot a guest, with its host-side peers, and collect its console."""

import glob
import os
import signal
import subprocess
import sys
import time

from . import rootfs
from .config import QEMU_DIR
from .image import make_dtb, make_initramfs
from .parse import parse_console, parse_result
from .pyroot import build_wheel, ensure_root
from .qemu import IVSHMEM_SIZE, qemu_cmd
from .util import log, show

# Every target's /init prints @@BEGIN within 30 s of QEMU's start on an idle
# host (x86_64-rootfs, the slowest, at 26 s).  A first boot still without it
# after ten times that stalled in firmware or the kernel before any module
# of ours (icicle once hung after OpenSBI's banner): it is booted once more.
BEGIN_WITHIN = 300
STALLED = "stopped: no @@BEGIN from /init within"


def start_peers(bdir, shm):
    peers = []
    for p in sorted(glob.glob(os.path.join(QEMU_DIR, "peers", "*.py"))):
        name = os.path.basename(p)[:-3]
        out = open(os.path.join(bdir, f"peer-{name}.log"), "w+")
        proc = subprocess.Popen([sys.executable, p, "--shm", shm, "--size",
                                 str(IVSHMEM_SIZE)], stdout=out,
                                stderr=subprocess.STDOUT, text=True)
        peers.append((name, proc, out))
    return peers


def stop_peers(peers, results):
    for name, proc, out in peers:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            results.append(("not ok", f"peer-{name}/exit", "did not stop on SIGTERM"))
        out.seek(0)
        text = out.read()
        out.close()
        for line in text.splitlines():
            r = parse_result(line)
            if r:
                show(line.strip())
                results.append(r)
        if proc.returncode not in (0, -signal.SIGTERM):
            results.append(("not ok", f"peer-{name}/exit",
                            f"exit status {proc.returncode}: " +
                            " | ".join(text.splitlines()[-5:])))


def reap(proc, flags):
    """Reap PROC like Popen.poll()/wait(), returning its resource usage
    (None while it runs with os.WNOHANG)."""
    pid, status, usage = os.wait4(proc.pid, flags)
    if pid == 0:
        return None
    proc.returncode = os.waitstatus_to_exitcode(status)
    return usage


def boot(conf, state, bdir, suites, results, timeout, logpath, append="", icount=False,
         begin_within=None):
    """Boot the target and run the suites; their results go to `results`.

    `begin_within`: if the guest's /init has not printed @@BEGIN after so
    many seconds, the guest is stopped and its end says so (the caller
    boots once more)."""
    if conf.mode == "host9p":
        build_wheel(bdir)
        if conf.host_root == "debian":
            ensure_root(conf)
    kernel = state["kernel_image"]
    if conf.mode == "rootfs":
        img = rootfs.prepare(conf, bdir, suites)
        kernel, initrd = os.path.join(img, "vmlinuz"), os.path.join(img, "initrd.img")
        append = f"{append} {rootfs.boot_args(bdir)}".strip()
    else:
        initrd = make_initramfs(conf, state, bdir, suites)
    dtb = make_dtb(conf, state, bdir, initrd) if conf.dt else None
    shm = os.path.join(bdir, "ivshmem.bin")
    with open(shm, "wb") as f:
        f.truncate(IVSHMEM_SIZE)
    peers = start_peers(bdir, shm) if conf.pci else []
    cmd = qemu_cmd(conf, kernel, initrd, dtb, shm, append, icount)
    with open(os.path.join(bdir, "qemu-cmd.txt"), "w") as f:
        f.write(" ".join(cmd) + "\n")
    console = []
    t0 = time.time()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    timed_out = stalled = begun = False
    usage = None
    os.set_blocking(proc.stdout.fileno(), False)
    buf = b""
    # The console, and beside it each line with the seconds since QEMU
    # started: where a target's time goes.
    with open(logpath, "w", errors="replace") as logf, \
            open(logpath + ".times", "w", errors="replace") as timef:
        while True:
            if time.time() - t0 > timeout:
                timed_out = True
                proc.kill()
                break
            if begin_within and not begun and time.time() - t0 > begin_within:
                stalled = True
                proc.kill()
                break
            try:
                chunk = proc.stdout.read()
            except BlockingIOError:
                chunk = None
            if chunk:
                buf += chunk
                *lines, buf = buf.split(b"\n")
                for raw in lines:
                    line = raw.decode("utf-8", "replace").rstrip("\r")
                    console.append(line)
                    begun = begun or "@@BEGIN " in line
                    logf.write(line + "\n")
                    timef.write(f"{time.time() - t0:8.2f} {line}\n")
                    if parse_result(line):
                        show(f"[{conf.name}] {line.strip()}")
                    elif line.startswith("@@SUITE"):
                        log(f"  [{conf.name}] {line[2:]} "
                            f"({time.time() - t0:.0f} s)")
                logf.flush()
            elif (usage := reap(proc, os.WNOHANG)) is not None:
                break
            else:
                time.sleep(0.05)
        if buf:
            console.append(buf.decode("utf-8", "replace"))
            logf.write(console[-1] + "\n")
    if usage is None:
        usage = reap(proc, 0)
    # TCG guests are CPU-bound: the CI budget is counted in CPU, not wall.
    log(f"  [{conf.name}] qemu used {usage.ru_utime + usage.ru_stime:.0f} s of CPU "
        f"in {time.time() - t0:.0f} s")
    stop_peers(peers, results)
    if timed_out:
        ended = f"timed out after {timeout} s"
    elif stalled:
        ended = f"{STALLED} {begin_within} s"
    else:
        ended = f"qemu exit {proc.returncode}"
    results += parse_console(console, ended)
    return time.time() - t0
