#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Host test of bench/plot.py's enqueue chart; prints TAP.

enqueue_series() must group a run's enqueue records by exporter, in size
order, with the clock they were taken with; plot.py must draw enqueue.png
from a run that has only the enqueue sweep (`udmem bench --enqueue`), and
refuse a run that has neither bw nor enqueue records.  The drawing needs
matplotlib: without it those cases are counted skips.
"""

import importlib.util
import json
import os
import subprocess
import sys
import tempfile

SUITE = "bench-plot"
TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
PLOT = os.path.join(TOP, "bench", "plot.py")


def records():
    meta = {"type": "meta", "kernel": "6.12", "arch": "aarch64", "machine": "virt",
            "emulated": True, "runs": 3}
    rows = [meta]
    for size in (1048576, 4096, 65536):
        for exporter, sg, ops in (("udmabuf", size // 4096, 2 * size // 4096),
                                  ("u-dma-buf", 1, 2)):
            rows.append({"type": "enqueue", "target": "udmabuf0", "exporter": exporter,
                         "size": size, "pages": size // 4096, "device": "platform/udmabuf0",
                         "coherent": False, "sg_entries": sg, "cache_ops": ops,
                         "cache_ops_source": "kprobe", "runs": 3, "clock": "icount",
                         "unit": "us", "median": 10.0 * sg, "min": 10.0 * sg,
                         "max": 10.0 * sg, "us_per_mib": 1.0, "ratio": 1.0})
    return rows


def load_plot():
    spec = importlib.util.spec_from_file_location("udmem_plot", PLOT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main():
    results = []
    have_mpl = importlib.util.find_spec("matplotlib") is not None

    def case(name, fn):
        if not have_mpl:
            results.append(f"ok - {SUITE}/{name} # SKIP no matplotlib on this host")
            return
        try:
            fn()
            results.append(f"ok - {SUITE}/{name}")
        except Exception as e:  # noqa: BLE001 - any failure is the test's
            results.append(f"not ok - {SUITE}/{name} # {e}")

    def series():
        mod = load_plot()
        got, clock = mod.enqueue_series(records())
        if clock != "icount":
            raise AssertionError(f"clock {clock!r}")
        sizes = [row[0] for row in got["udmabuf"]]
        if sizes != [4096, 65536, 1048576]:
            raise AssertionError(f"udmabuf sizes out of order: {sizes}")
        if [row[1:3] for row in got["u-dma-buf"]] != [(1, 2)] * 3:
            raise AssertionError(f"u-dma-buf rows: {got['u-dma-buf']}")
        if got["udmabuf"][-1][1:3] != (256, 512):
            raise AssertionError(f"udmabuf 1 MiB row: {got['udmabuf'][-1]}")

    def sync_check_rows():
        rows = [records()[0]]
        for mode, flt, us in (("off", 0, 10.0), ("strict", 512, 70.0), ("report", 512, 80.0)):
            rows.append({"type": "synccheck", "target": "udmem-bench-sc", "mode": mode,
                         "size": 1048576, "pages": 256, "runs": 3, "rounds": 2,
                         "method": "ioctl", "clock": "wall", "unit": "us", "median": us,
                         "min": us, "max": us, "write_mbs": 400.0, "read_mbs": 800.0,
                         "first_minflt": flt, "minflt": flt, "minflt_max": flt,
                         "faults_per_mib": float(flt), "violations": 0,
                         "ratio_write": None, "ratio_read": None, "ratio_sync": None})
        return rows

    def sync_check_series():
        got, clock = load_plot().sync_check_series(sync_check_rows())
        if clock != "wall" or list(got) != ["udmem-bench-sc"]:
            raise AssertionError(f"series {got!r}, clock {clock!r}")
        modes = got["udmem-bench-sc"]
        if sorted(modes) != ["off", "report", "strict"] or modes["strict"]["median"] != 70.0:
            raise AssertionError(f"modes {modes!r}")

    def sync_check_draws():
        with tempfile.TemporaryDirectory() as d:
            run = os.path.join(d, "run.jsonl")
            with open(run, "w") as f:
                f.write("".join(json.dumps(r) + "\n" for r in sync_check_rows()))
            p = subprocess.run([sys.executable, PLOT, run, "--out", d], capture_output=True,
                               text=True, timeout=120, check=False)
            png = os.path.join(d, "sync-check.png")
            if p.returncode or not os.path.exists(png) or os.path.getsize(png) < 1000:
                raise AssertionError(f"exit {p.returncode}: {p.stderr.strip()[-300:]}")

    def draws(rows, want):
        with tempfile.TemporaryDirectory() as d:
            run = os.path.join(d, "run.jsonl")
            with open(run, "w") as f:
                f.write("".join("@@JSON " + json.dumps(r) + "\n" for r in rows))
            p = subprocess.run([sys.executable, PLOT, run, "--out", d], capture_output=True,
                               text=True, timeout=120, check=False)
            png = os.path.join(d, "enqueue.png")
            if want and (p.returncode or not os.path.getsize(png) > 1000):
                raise AssertionError(f"exit {p.returncode}: {p.stderr.strip()[-300:]}")
            if not want and (p.returncode == 0 or os.path.exists(png)):
                raise AssertionError("drew a run without bw or enqueue records")

    case("enqueue-series-by-exporter-and-size", series)
    case("enqueue-only-run-draws-chart", lambda: draws(records(), True))
    case("run-without-records-refused", lambda: draws(records()[:1], False))
    case("sync-check-series-by-target-and-mode", sync_check_series)
    case("sync-check-only-run-draws-chart", sync_check_draws)
    print(f"1..{len(results)}")
    print("\n".join(results))
    return 1 if any(r.startswith("not ok") for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
