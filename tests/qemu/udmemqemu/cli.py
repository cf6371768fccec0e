# SPDX-License-Identifier: GPL-2.0 OR MIT
"""udmem-qemu - boot Debian's kernels in QEMU and run udmem's tests inside.

  udmem-qemu fetch [TARGET...]        download and unpack kernels, headers, busybox
  udmem-qemu env TARGET               print KERNEL_SRC, ARCH, CROSS_COMPILE, KMAKE, CC
  udmem-qemu build TARGET             build modules and static test programs
  udmem-qemu run TARGET [--suite S]   build, boot, run suites, print TAP and a summary
  udmem-qemu test [--targets A,B]     host tests, then every target; the final summary

Everything downloaded lands in $UDMEM_CACHE (default ~/.cache/udmem) and is
reused.  Build trees and console logs go to build/<target>/.
"""

import argparse
import concurrent.futures
import os
import sys
import time
import traceback

from .apt import ArchiveMissing
from .build import build
from .config import TargetError, all_targets, load_target, parse_target
from .fetch import fetch, kmake_args, target_cc
from .matrix import matrix
from .parse import summary
from .runner import background_fetch, run_host_steps, run_target, selftest, target_lock
from .util import log

# ---------------------------------------------------------------- commands


def cmd_env(args):
    conf = load_target(args.target)
    state = fetch(conf)
    margs = kmake_args(conf, state)
    print(f"KERNEL_SRC={state['kernel_src']}")
    print(f"ARCH={conf.kernel_arch}")
    print(f"CROSS_COMPILE={conf.cross_compile}")
    print(f"KMAKE='{' '.join(margs)}'")
    print(f"CC={target_cc(conf)}")
    print(f"KERNEL_IMAGE={state['kernel_image']}")
    print(f"KERNEL_RELEASE={state['kernel_release']}")
    print(f"MODULES_DIR={state['modules']}")


def cmd_fetch(args):
    # Go on past a target the archive lists but does not serve (a test run
    # counts it as a SKIP), and name them all at the end.
    missing = []
    for t in args.targets or all_targets():
        try:
            fetch(load_target(t))
        except ArchiveMissing as e:
            log(f"udmem-qemu: {t}: the archive does not serve its packages: {str(e)[:300]}")
            missing.append(t)
            continue
        log(f"udmem-qemu: {t} ready")
    if missing:
        log(f"udmem-qemu: not fetched, not served by the archive: {' '.join(missing)}")
        return 1
    return 0


def cmd_build(args):
    conf = load_target(args.target)
    results = []
    with target_lock(args.target):
        build(conf, fetch(conf), results)
    for v, t, why in results:
        print(f"{v} - {t}" + (f" # {why}" if why else ""))
    p, f, s = summary(results)
    print(f"{p} passed, {f} failed, {s} skipped")
    return 1 if f else 0


def cmd_run(args):
    results, secs = run_target(args.target, args.suite, args.timeout, args.log,
                               args.append or "", icount=args.icount)
    for v, t, why in results:
        if v == "not ok":
            print(f"FAILED: {t} # {why}")
    p, f, s = summary(results)
    print(f"target {args.target}: {p} passed, {f} failed, {s} skipped ({secs:.0f} s)")
    print(f"{p} passed, {f} failed, {s} skipped")
    return 1 if f else 0


def cmd_selftest(args):
    results = selftest(args.target, args.record)
    for v, t, why in results:
        print(f"{v} - {t}" + (f" # {why}" if why else ""))
    p, f, s = summary(results)
    print(f"{p} passed, {f} failed, {s} skipped")
    return 1 if f else 0


def _stock_kernel(name):
    """Does target NAME load, with a kernel of Debian's (not a debug build)?"""
    try:
        return not parse_target(name).debug_kernel
    except TargetError:
        return False


def cmd_test(args):
    t_start = time.time()
    results, lines = [], []
    targets = args.targets.split(",") if args.targets else all_targets()
    # Download and unpack the later targets' kernels while earlier ones boot.
    prefetch = concurrent.futures.ThreadPoolExecutor(1)
    for t in targets[1:]:
        prefetch.submit(background_fetch, t)
    # Guests under TCG leave a core idle much of the time (timers, a single
    # busy vCPU): run two targets at once; runs of one target serialize.
    # Three at once ran the whole CI no faster (2 675 s against 2 671 s): the
    # guests, two vCPUs each, used 10 % more CPU when their threads shared
    # the two cores with four others.
    def one_target(t):
        r, secs = run_target(t, args.suite, args.timeout)
        p, f, s = summary(r)
        line = f"target {t}: {p} passed, {f} failed, {s} skipped ({secs:.0f} s)"
        log(line)
        return r, line

    def harness_selftest(t):
        # The harness must see a failed check, an oops, a panic and a hang.
        t0 = time.time()
        r = selftest(t)
        for v, name, why in r:
            print(f"{v} - {name}" + (f" # {why}" if why else ""))
        p, f, s = summary(r)
        line = (f"harness self-test on {t}: {p} passed, {f} failed, {s} skipped "
                f"({time.time() - t0:.0f} s)")
        log(line)
        return r, line

    def host_steps(_):
        t0 = time.time()
        r = run_host_steps()
        p, f, s = summary(r)
        line = f"host: {p} passed, {f} failed, {s} skipped ({time.time() - t0:.0f} s)"
        log(line)
        return r, line

    jobs = [(host_steps, None)] + [(one_target, t) for t in targets]
    if not args.no_selftest:
        # On a stock kernel: a debug kernel's guest is slower to fail.
        stock = [t for t in targets if _stock_kernel(t)]
        # Among the first, long jobs rather than last: run last, its 50 s
        # left the other slot idle at the end of the cold CI run (the short
        # build-only targets, run after it, balance the two slots instead).
        jobs.insert(min(4, len(jobs)), (harness_selftest, "arm64" if "arm64" in stock
                                        else (stock or targets)[0]))
    def guarded(job):
        # One target's trouble (a failed download, a build root that would
        # not set up, a bug of the harness) is that target's failure: the
        # others still run and the summary still comes.
        fn, arg = job
        t0 = time.time()
        try:
            return fn(arg)
        except Exception as e:  # noqa: BLE001 -- counted, printed, never lost
            traceback.print_exc()
            name = arg if arg else "host"
            why = f"{type(e).__name__}: {e}".replace("\n", " ")[:300]
            line = (f"target {name}: 0 passed, 1 failed, 0 skipped "
                    f"({time.time() - t0:.0f} s, the harness raised {type(e).__name__})")
            log(line)
            return [("not ok", f"{name}:harness/prepare-and-run", why)], line

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for r, line in pool.map(guarded, jobs):
            results += r
            lines.append(line)
    # Coverage of kernel/ over the coverage targets together (each lacks
    # what the other's architecture runs); judged on a whole run only.
    from .coverage import UNION_FLOOR, union_step
    results += union_step(targets, t_start, 0 if args.suite else UNION_FLOOR)
    print()
    for v, t, why in results:
        if v == "not ok":
            print(f"FAILED: {t} # {why}")
    for v, t, why in results:
        if v == "ok" and why.startswith("SKIP"):
            print(f"SKIPPED: {t} # {why[4:].strip()}")
    for line in lines:
        print(line)
    print()
    for line in matrix(targets, results):
        print(line)
    print()
    prefetch.shutdown()
    print(f"total time {time.time() - t_start:.0f} s")
    p, f, s = summary(results)
    print(f"{p} passed, {f} failed, {s} skipped")
    return 1 if f else 0


def main():
    ap = argparse.ArgumentParser(prog="udmem-qemu", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("fetch")
    p.add_argument("targets", nargs="*")
    p.set_defaults(fn=cmd_fetch)
    p = sub.add_parser("env")
    p.add_argument("target")
    p.set_defaults(fn=cmd_env)
    p = sub.add_parser("build")
    p.add_argument("target")
    p.set_defaults(fn=cmd_build)
    p = sub.add_parser("run")
    p.add_argument("target")
    p.add_argument("--suite", action="append", help="suite to run (repeatable)")
    p.add_argument("--timeout", type=int)
    p.add_argument("--log", help="where to save the console log")
    p.add_argument("--append", help="extra kernel command line")
    p.add_argument("--icount", action="store_true",
                   help="count instructions as guest time (-icount shift=0,sleep=off)")
    p.set_defaults(fn=cmd_run)
    p = sub.add_parser("selftest")
    p.add_argument("target", nargs="?", default="arm64")
    p.add_argument("--record", help="copy each console log into this folder")
    p.set_defaults(fn=cmd_selftest)
    p = sub.add_parser("test")
    p.add_argument("--targets", help="comma-separated targets (default: all)")
    p.add_argument("--suite", action="append")
    p.add_argument("--timeout", type=int)
    p.add_argument("-j", "--jobs", type=int,
                   default=int(os.environ.get("UDMEM_JOBS", "2")),
                   help="targets booted at once (default 2, or $UDMEM_JOBS)")
    p.add_argument("--no-selftest", action="store_true",
                   help="skip the harness self-test (deliberately broken guests)")
    p.set_defaults(fn=cmd_test)
    args = ap.parse_args()
    sys.exit(args.fn(args) or 0)


if __name__ == "__main__":
    main()
