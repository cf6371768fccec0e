# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Run targets, the host-side unit tests and the harness self-test."""

import contextlib
import fcntl
import glob
import os
import shutil
import subprocess
import time

from . import coverage
from .apt import ArchiveMissing, index_failure
from .boot import BEGIN_WITHIN, boot
from .build import build
from .config import BUILD, TOP, load_target
from .fetch import fetch
from .matrix import RELEASES
from .parse import parse_result
from .qemupkg import packaged_qemu
from .util import QUIET, log, show


def list_suites(conf):
    """Suites for a target: host9p and rootfs targets run the suites marked with
    a file of their mode's name only."""
    suites = []
    for d in sorted(glob.glob(os.path.join(TOP, "tests", "guest", "*", "suite.sh"))):
        d = os.path.dirname(d)
        if all(os.path.exists(os.path.join(d, m)) == (conf.mode == m)
               for m in ("host9p", "rootfs")):
            suites.append(os.path.basename(d))
    # The demo is run by `make demo`, not by the test suite.
    return [s for s in suites if s != "demo"]


def run_target(name, suites=None, timeout=None, logpath=None, append="",
               rebuild=True, icount=False):
    """Fetch, build and boot one target.  Runs of the same target serialize
    on build/<target>.lock: they share its build tree and ivshmem file."""
    with target_lock(name):
        return _run_target(name, suites, timeout, logpath, append, rebuild, icount)


@contextlib.contextmanager
def target_lock(name):
    os.makedirs(BUILD, exist_ok=True)
    with open(os.path.join(BUILD, name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _run_target(name, suites, timeout, logpath, append, rebuild, icount=False):
    conf = load_target(name)
    results = []
    t0 = time.time()
    try:
        if name in NOT_SERVED:
            raise NOT_SERVED[name]
        state = fetch(conf)
    except (RuntimeError, subprocess.CalledProcessError) as e:
        bad_index = index_failure(conf)
        if isinstance(e, ArchiveMissing):
            results.append(("ok", f"{name}/fetch",
                            f"SKIP the Debian archive lists this target's packages but "
                            f"does not serve them ({str(e)[:300]})"))
        elif bad_index and isinstance(e, RuntimeError) and str(e).startswith("no version"):
            # Not ours to fix: the archive could not give a verified index.
            results.append(("ok", f"{name}/fetch",
                            f"SKIP the Debian archive's package index for this target "
                            f"failed apt's verification, so its kernel cannot be "
                            f"fetched ({bad_index[:300]})"))
        else:
            results.append(("not ok", f"{name}/fetch", str(e)[:400]))
        return results, time.time() - t0
    if conf.qemu_suite:
        # The target's own QEMU, fetched now so that an archive that does not
        # serve it costs a counted SKIP, as a missing kernel does.
        try:
            packaged_qemu(conf.qemu, conf.qemu_suite)
        except ArchiveMissing as e:
            results.append(("ok", f"{name}/qemu", f"SKIP the Debian archive lists "
                            f"{conf.qemu_suite}'s QEMU but does not serve it ({str(e)[:300]})"))
            return results, time.time() - t0
        except (RuntimeError, subprocess.CalledProcessError) as e:
            results.append(("not ok", f"{name}/qemu", str(e)[:400]))
            return results, time.time() - t0
    RELEASES[name] = state.get("kernel_release", "")
    bdir = os.path.join(BUILD, conf.name)
    if rebuild or not os.path.exists(os.path.join(bdir, "bin")):
        build(conf, state, results)
    # A build-only target (boot = no): the modules and programs must build warning-free.
    if conf.boot:
        # Coverage is judged against the target's floor on its whole run only.
        chosen = bool(suites)
        if not suites and conf.guest_suites:
            # A board target runs its own suites; the rest are counted skips.
            suites = [s for s in list_suites(conf) if s in conf.guest_suites]
            results += [("ok", f"{s}/suite", "SKIP not in this target's guest_suites: "
                         + conf.suites_elsewhere)
                        for s in list_suites(conf) if s not in conf.guest_suites]
        suites = suites or list_suites(conf)
        timeout = timeout or conf.timeout
        logpath = logpath or os.path.join(bdir, "console.log")
        os.makedirs(os.path.dirname(os.path.abspath(logpath)), exist_ok=True)
        first = []
        boot(conf, state, bdir, suites, first, timeout, logpath, append, icount,
             begin_within=BEGIN_WITHIN)
        crash = crashed_before_init(first, logpath)
        if crash:
            # Nothing of ours had run: the guest's /init prints @@BEGIN before
            # it loads any module of this project.  Such a crash or stall is
            # the stock kernel's or firmware's under emulation (seen once
            # each: "Oops: int3" at 3.4 s on x86_64-6.12, never again in eight
            # boots; icicle silent after OpenSBI's banner); boot once more,
            # with the whole timeout, and keep the first log and a counted
            # SKIP that says so.
            kept = logpath + ".first"
            shutil.copyfile(logpath, kept)
            show(f"# [{name}] the kernel failed before /init ran: {crash}; "
                 f"log kept as {kept}; booting once more")
            results.append(("ok", "guest/first-boot",
                            f"SKIP the kernel failed before /init ran ({crash}), before "
                            f"any module of ours; booted once more (log {kept})"))
            first = []
            boot(conf, state, bdir, suites, first, timeout, logpath, append, icount)
        results += first
        if conf.coverage:
            results += coverage.report(conf, bdir, logpath, 0 if chosen else conf.coverage)
    return [(v, f"{name}:{t}", why) for v, t, why in results], time.time() - t0


def crashed_before_init(results, logpath):
    """The first failure's reason when a guest stopped (crashed, or stalled
    past BEGIN_WITHIN; not timed out) before its /init printed @@BEGIN,
    else None."""
    failed = [why for v, t, why in results if v == "not ok"]
    if not failed or any(t == "guest/finished" and "timed out" in why
                         for v, t, why in results):
        return None
    with open(logpath, errors="replace") as f:
        if any("@@BEGIN " in line for line in f):
            return None
    return failed[0][:200]


# ---------------------------------------------------------------- host tests

def run_host_steps():
    """Host-side checks: every tests/unit/**/Makefile `check` target and the short
    fuzz run of tests/fuzz, TAP out."""
    results = []
    makefiles = sorted(glob.glob(os.path.join(TOP, "tests", "unit", "**", "Makefile"),
                                 recursive=True))
    makefiles.append(os.path.join(TOP, "tests", "fuzz", "Makefile"))
    for mk in makefiles:
        d = os.path.dirname(mk)
        rel = os.path.relpath(d, TOP)
        p = subprocess.run(["make", "-s", "-C", d, "check"], capture_output=True,
                           text=True)
        step = []
        for line in (p.stdout + p.stderr).splitlines():
            r = parse_result(line)
            if r:
                show(f"[host] {line.strip()}")
                step.append((r[0], "host:" + r[1], r[2]))
        # A step that fails must show it, and one that passes must have run something.
        if p.returncode != 0 and not any(v == "not ok" for v, _, _ in step):
            step.append(("not ok", f"host:{rel}", "make check failed: " +
                         (p.stdout + p.stderr)[-400:]))
        elif not step:
            step.append(("not ok", f"host:{rel}", "ran no test"))
        results += step
    return results


SELFTESTS = [
    # (name, kernel command line, what the harness must report)
    ("passing-guest", "", None),
    ("failed-assertion", "udmem.selftest=assert", "manual_must_fail"),
    ("kernel-oops", "udmem.selftest=oops", "kernel-log-clean"),
    ("kernel-panic", "udmem.selftest=panic", "guest/finished"),
    ("hung-guest", "udmem.selftest=hang", "guest/finished"),
    # A stack dump kernel-reports-peer.tsv lists (vivid's) fails nothing.
    ("peer-dump-set-aside", "udmem.selftest=peerdump", None),
]


def selftest(target, record=None):
    """Break a guest on purpose four ways; the harness must see each one.  A
    fifth guest logs a known peer-driver dump, which must fail nothing."""
    results = []
    for name, append, must_fail in SELFTESTS:
        logpath = os.path.join(BUILD, target, f"selftest-{name}.log")
        QUIET.on = True
        try:
            r, _ = run_target(target, ["guest-env"], 30 if "hang" in append else 300,
                              logpath, append, rebuild=name == SELFTESTS[0][0])
        finally:
            QUIET.on = False
        # Build results do not concern the harness's own detection.
        failures = [t for v, t, _ in r if v == "not ok" and ":build/" not in t]
        if must_fail is None:
            ok = not failures
            why = "failures: " + ", ".join(failures)
        else:
            ok = any(must_fail in t for t in failures)
            why = f"no failure named {must_fail} (got: {', '.join(failures) or 'none'})"
        results.append(("ok" if ok else "not ok", f"harness/detects-{name}",
                        "" if ok else why))
        if record:
            shutil.copy(logpath, os.path.join(record, f"{target}-{name}.log"))
    return results


# Targets whose packages the archive lists but does not serve, as their
# prefetch found: the run counts the SKIP at once instead of asking the
# archive again (each refused download cost about 10 s).
NOT_SERVED: dict[str, ArchiveMissing] = {}


def background_fetch(target):
    """Fetch for later; a failure shows up when the target itself runs."""
    try:
        fetch(load_target(target))
    except Exception as e:  # noqa: BLE001 - reported again by run_target
        if isinstance(e, ArchiveMissing):
            NOT_SERVED[target] = e
        log(f"udmem-qemu: prefetch of {target} failed: {e}")
