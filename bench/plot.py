#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Charts of a `udmem bench --json` run (PNG, matplotlib).

    python3 bench/plot.py RUN.jsonl --out DIR

RUN.jsonl holds the JSON lines of one run; other lines, and a prefix
before the '{' of a record (the demo's "@@JSON "), are ignored.  Writes:

  throughput-ratio.png  every buffer/region and access mode as a fraction of
                        anonymous memory of the same size (the physical limit)
  throughput-mbs.png    the same in MB/s, the limit drawn as a line per panel
  mmap-vs-file.png      mmap throughput / read()-write() throughput
  sync-cost.png         time per sync and cache operations per sync against
                        the synced size, log axes
  first-touch.png       page faults to touch a fresh mapping once
  enqueue.png           per DMA-BUF enqueue (an importer's map and unmap), a
                        u-dma-buf export against mainline udmabuf, 4 KiB to
                        64 MiB: mapped entries, counted cache operations and
                        time (instruction-counted or not, as recorded)
  sync-check.png        u-dma-buf's sync checker off, report and strict on
                        one buffer: faults per MiB per round, the sync pair's
                        time and the mmap passes' MB/s, each mode beside off

When the run was emulated (QEMU TCG) every chart says so: absolute MB/s
mean nothing there; ratios, fault counts, syscalls and cache operations
per sync carry over to hardware.
"""

import argparse
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import matplotlib.ticker
from matplotlib.lines import Line2D

TESTS = ["mmap_write", "mmap_read", "file_write", "file_read"]
TITLES = {"mmap_write": "mmap write", "mmap_read": "mmap read",
          "file_write": "write()", "file_read": "read()"}
MODES = [("cached", "none"), ("cached", "sync"), ("uncached", "o_sync"), ("wc", "o_sync")]
MODE_LABEL = {
    ("cached", "none"): "cached, no sync",
    ("cached", "sync"): "cached + sync (ioctl/sysfs)",
    ("uncached", "o_sync"): "O_SYNC uncached (sync_mode 1)",
    ("wc", "o_sync"): "O_SYNC write-combine (sync_mode 2)",
}
MODE_COLOR = {
    ("cached", "none"): "#1f77b4", ("cached", "sync"): "#6baed6",
    ("uncached", "o_sync"): "#d62728", ("wc", "o_sync"): "#ff9896",
}


def load(path):
    recs = []
    with open(path, errors="replace") as f:
        for line in f:
            if "{" not in line:
                continue
            try:
                recs.append(json.loads(line[line.index("{"):]))
            except json.JSONDecodeError:
                continue
    return recs


def mode_of(rec):
    sync = rec["sync"]
    if rec["access"] == "cached" and sync in ("ioctl", "sysfs"):
        sync = "sync"
    return (rec["access"], sync)


def human_size(n):
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} B"


def header(meta, note=None):
    if not meta:
        return "udmem bench" + (f"\n{note}" if note else ""), False
    head = (f"udmem bench on {meta['machine']} ({meta['arch']}, Linux {meta['kernel']}), "
            f"median of {meta['runs']} runs")
    if meta.get("emulated"):
        head += ("\nEMULATED (QEMU TCG, no cache model): absolute MB/s and cached/uncached/WC "
                 "differences mean nothing here;\nratios to anonymous memory (software overheads), "
                 "faults, syscalls and cache ops per sync carry over")
    if note:
        head += "\n" + note
    return head, bool(meta.get("emulated"))


def save(fig, out, name, head, emulated):
    fig.suptitle(head, fontsize=9, color="#a00000" if emulated else "black")
    path = os.path.join(out, name)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def targets_of(recs):
    """Target names in run order, without the anonymous reference."""
    seen = []
    for r in recs:
        if r["type"] == "target" and r["class"] != "anon" and r["target"] not in seen:
            seen.append(r["target"])
    return seen


def bw_table(recs):
    table = {}
    for r in recs:
        if r["type"] == "bw":
            table[(r["target"], r["test"], mode_of(r))] = r
    return table


def plot_throughput(recs, out, head, emulated, ratio):
    names = targets_of(recs)
    table = bw_table(recs)
    sizes = {r["target"]: r["test_size"] for r in recs if r["type"] == "target"}
    anon = {r["size"]: {} for r in recs if r["type"] == "bw" and r["target"] == "anon"}
    for r in recs:
        if r["type"] == "bw" and r["target"] == "anon":
            anon[r["size"]][r["test"]] = r["median"]
    fig, axes = plt.subplots(2, 2, figsize=(max(9, 1.4 * len(names) + 4), 8.5),
                             constrained_layout=True)
    width = 0.8 / len(MODES)
    for ax, test in zip(axes.flat, TESTS):
        for k, mode in enumerate(MODES):
            xs, ys, lo, hi = [], [], [], []
            for i, name in enumerate(names):
                rec = table.get((name, test, mode))
                if rec is None or not rec["median"]:
                    continue
                value = rec["ratio"] if ratio else rec["median"]
                if value is None:
                    continue
                xs.append(i + (k - (len(MODES) - 1) / 2) * width)
                ys.append(value)
                # The spread of the runs, min to max, scaled like the bar.
                lo.append(value * (1 - (rec["min"] or 0) / rec["median"]))
                hi.append(value * ((rec["max"] or 0) / rec["median"] - 1))
            if xs:
                ax.bar(xs, ys, width, label=MODE_LABEL[mode], color=MODE_COLOR[mode],
                       yerr=[lo, hi], error_kw={"elinewidth": 0.8, "capsize": 2,
                                                "ecolor": "#444444"})
        if ratio:
            ax.axhline(1.0, color="black", linestyle="--", linewidth=1,
                       label="anonymous memory (limit) = 1")
            ax.set_ylabel("throughput / anonymous memory (ratio)")
        else:
            # Each buffer's own limit: anonymous memory of its size.
            for i, name in enumerate(names):
                lim = anon.get(sizes.get(name), {}).get(test.replace("file", "mmap"))
                if lim:
                    ax.plot([i - 0.45, i + 0.45], [lim, lim], color="black",
                            linestyle="--", linewidth=1.2,
                            label="anonymous memory of the same size (limit)"
                            if i == 0 else None)
            ax.set_ylabel("throughput (MB/s)")
        # The same system call on anonymous memory (a memfd), where measured.
        for i, name in enumerate(names):
            own = anon.get(sizes.get(name), {})
            like = own.get(test) if "file" in test else None
            if like and ratio and own.get(test.replace("file", "mmap")):
                like /= own[test.replace("file", "mmap")]
            if like:
                ax.plot([i - 0.45, i + 0.45], [like, like], color="#555555",
                        linestyle=":", linewidth=1.4,
                        label="read()/write() on anonymous memory (memfd)"
                        if i == 0 else None)
        ax.set_title(TITLES[test] + (" (limit: anonymous-memory copy)" if "file" in test else ""),
                     fontsize=10)
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names, rotation=25, ha="right", fontsize=8)
        ax.set_xlabel("buffer / region")
        ax.grid(axis="y", alpha=0.3)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    for ax in axes.flat[1:]:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    handles.append(Line2D([], [], color="#444444", marker="|", linestyle="none",
                          markersize=10))
    labels.append("min..max of the runs")
    fig.legend(handles, labels, loc="outside lower center", ncol=3, fontsize=8)
    name = "throughput-ratio.png" if ratio else "throughput-mbs.png"
    return save(fig, out, name, head, emulated)


def plot_mmap_vs_file(recs, out, head, emulated):
    names = targets_of(recs)
    table = bw_table(recs)
    fig, axes = plt.subplots(1, 2, figsize=(max(9, 1.3 * len(names) + 4), 5.4),
                             constrained_layout=True)
    width = 0.8 / len(MODES)
    for ax, (mm, ff, what) in zip(axes, (("mmap_write", "file_write", "write"),
                                         ("mmap_read", "file_read", "read"))):
        for k, mode in enumerate(MODES):
            xs, ys = [], []
            for i, name in enumerate(names):
                a, b = table.get((name, mm, mode)), table.get((name, ff, mode))
                if not a or not b or not a["median"] or not b["median"]:
                    continue
                xs.append(i + (k - (len(MODES) - 1) / 2) * width)
                ys.append(a["median"] / b["median"])
            if xs:
                ax.bar(xs, ys, width, label=MODE_LABEL[mode], color=MODE_COLOR[mode])
        ax.axhline(1.0, color="black", linestyle="--", linewidth=1, label="mmap = file")
        ax.set_title(f"mmap {what} / {what}() throughput", fontsize=10)
        ax.set_ylabel("ratio mmap / file (>= 1: mapping at least as fast)")
        ax.set_xlabel("buffer / region")
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names, rotation=25, ha="right", fontsize=8)
        ax.grid(axis="y", alpha=0.3)
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncol=5,
               fontsize=8)
    return save(fig, out, "mmap-vs-file.png", head, emulated)


def plot_sync(recs, out, head, emulated):
    syncs = [r for r in recs if r["type"] == "sync" and r["offset"] == 0]
    if not syncs:
        return None
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(15, 5.6), constrained_layout=True,
                                  gridspec_kw={"width_ratios": [1.25, 1]})
    series = {}
    for r in syncs:
        series.setdefault((r["target"], r["method"], r["direction"]), []).append(r)
    styles = {"for_cpu": "-", "for_device": "--"}
    markers = {"ioctl": "o", "sysfs": "s", "sysfs-attrs": "^"}
    colors = {}
    for (target, method, direction), rs in sorted(series.items()):
        rs.sort(key=lambda r: r["size"])
        color = colors.setdefault(target, f"C{len(colors) % 10}")
        ax.plot([r["size"] for r in rs], [r["median"] for r in rs],
                linestyle=styles[direction], marker=markers.get(method, "x"),
                color=color)
        if method in ("ioctl", "sysfs") and direction == "for_cpu" and \
                (method == "ioctl" or not any(k[0] == target and k[1] == "ioctl"
                                              for k in series)):
            pts = [(r["size"], r["cache_ops"] + r["barriers"]) for r in rs
                   if r["cache_ops"] + r["barriers"] > 0]
            if pts:
                src = rs[0]["cache_ops_source"]
                ax2.plot(*zip(*pts), marker="o", color=color,
                         label=f"{target} ({'driver count' if src == 'driver' else 'model'})")
    size_fmt = matplotlib.ticker.FuncFormatter(lambda v, _: human_size(int(v)))
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.xaxis.set_major_formatter(size_fmt)
    ax.set_xlabel("synced size (log scale)")
    ax.set_ylabel("time per sync call (us, log scale)")
    ax.set_title("time per sync against synced size", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    # One legend entry per buffer (colour), method (marker) and direction (line).
    keys = [Line2D([], [], color=c, linewidth=3, label=t) for t, c in colors.items()]
    keys += [Line2D([], [], color="grey", marker=m, linestyle="none",
                    label=f"{k} ({ {'ioctl': 1, 'sysfs': 3}.get(k, 12)} syscalls)")
             for k, m in markers.items()]
    keys += [Line2D([], [], color="grey", linestyle=ls, label=d) for d, ls in styles.items()]
    keys.append(Line2D([], [], color="grey", marker="*", markersize=10, linestyle="none",
                       label="4 KiB sync in the middle of the buffer"))
    ax.legend(handles=keys, fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    small = [r for r in recs if r["type"] == "sync" and r["offset"] != 0]
    for r in small:
        ax.plot([r["size"]], [r["median"]], marker="*", markersize=12,
                color=colors.get(r["target"], "black"), linestyle="none")
    ax2.set_xscale("log", base=2)
    ax2.set_yscale("log")
    ax2.xaxis.set_major_formatter(size_fmt)
    ax2.set_xlabel("synced size (log scale)")
    ax2.set_ylabel("cache-maintenance instructions per sync (lines + barriers)")
    ax2.set_title("cache operations per sync (carry over from emulation)", fontsize=9)
    ax2.grid(True, which="both", alpha=0.3)
    if ax2.get_legend_handles_labels()[0]:
        ax2.legend(fontsize=7)
    else:
        ax2.text(0.5, 0.5, "every buffer is DMA-coherent:\nsyncs maintain no cache lines",
                 ha="center", va="center", transform=ax2.transAxes)
    return save(fig, out, "sync-cost.png", head, emulated)


def plot_touch(recs, out, head, emulated):
    touches = [r for r in recs if r["type"] == "touch"]
    if not touches:
        return None
    # The anonymous reference has one record pair per size.
    names = []
    for r in touches:
        if (r["target"], r["size"]) not in names:
            names.append((r["target"], r["size"]))
    fig, ax = plt.subplots(figsize=(max(10, 1.3 * len(names) + 3), 5.2),
                           constrained_layout=True)
    width = 0.38
    colors = {"read": "#1f77b4", "write": "#ff7f0e"}
    top = 1
    for k, access in enumerate(("read", "write")):
        for i, name in enumerate(names):
            r = next((x for x in touches if (x["target"], x["size"]) == name
                      and x.get("access", "read") == access), None)
            if r is None:
                continue
            x = i + (k - 0.5) * width
            value = max(r["minflt"] or 0, 0.5)
            ax.bar(x, value, width, color=colors[access],
                   label=f"minor faults, one {access} per page" if i == 0 else None)
            ax.annotate(f"{r['minflt']:.0f}", (x, value), ha="center", va="bottom",
                        fontsize=8)
            ax.plot([x - width / 2, x + width / 2], [r["pages"]] * 2, color="black",
                    linewidth=2, label="pages touched (= one fault per page)"
                    if i == 0 and k == 0 else None)
            top = max(top, r["pages"], value)
    ax.axhline(16, color="green", linestyle="--", linewidth=1, label="goal: <= 16 faults")
    ax.set_yscale("log")
    ax.set_ylim(0.4, top * 4)
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels([f"{n}\n{human_size(size)}" for n, size in names], fontsize=8)
    ax.set_xlabel("fresh mapping (anon: anonymous memory, faulted on demand, for scale)")
    ax.set_ylabel("minor page faults (log scale; 0 drawn at 0.5)")
    ax.set_title("page faults to touch a fresh mapping once", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    return save(fig, out, "first-touch.png", head, emulated)


def enqueue_series(recs):
    """{exporter: [(size, sg_entries, cache_ops or None, median us)]} by size,
    and the clock of the records ("icount", "wall" or None without any)."""
    series, clock = {}, None
    for r in recs:
        if r.get("type") != "enqueue":
            continue
        clock = clock or r["clock"]
        series.setdefault(r["exporter"], []).append(
            (r["size"], r["sg_entries"], r["cache_ops"], r["median"]))
    for rows in series.values():
        rows.sort()
    return series, clock


def plot_enqueue(recs, out, head, emulated):
    series, clock = enqueue_series(recs)
    if not series:
        return None
    fig, axes = plt.subplots(1, 3, figsize=(16, 5.2), constrained_layout=True)
    colors = {"u-dma-buf": "#1f77b4", "udmabuf": "#d62728"}
    labels = {"u-dma-buf": "u-dma-buf export (one range)",
              "udmabuf": "mainline udmabuf (memfd pages)"}
    sizes = sorted({row[0] for rows in series.values() for row in rows})
    size_fmt = matplotlib.ticker.FuncFormatter(lambda v, _: human_size(int(v)))
    timing = ("time per enqueue (us = 1000 instructions, icount)" if clock == "icount"
              else "time per enqueue (us, not instruction-counted)")
    panels = (("entries of the importer's mapping", 1),
              ("cache operations per enqueue (counted)", 2),
              (timing, 3))
    for ax, (title, col) in zip(axes, panels):
        for exporter, rows in sorted(series.items()):
            pts = [(row[0], row[col]) for row in rows
                   if row[col] is not None and row[col] > 0]
            if pts:
                ax.plot(*zip(*pts), marker="o", color=colors.get(exporter, "grey"),
                        label=labels.get(exporter, exporter))
        if col in (1, 2):
            ax.plot(sizes, [s / 4096 * (col) for s in sizes], color="grey",
                    linestyle=":", label="one per 4 KiB page" if col == 1
                    else "two per 4 KiB page (one each way)")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.xaxis.set_major_formatter(size_fmt)
        ax.set_xlabel("DMA-BUF size (log scale)")
        ax.set_title(title, fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    if not any(row[2] for rows in series.values() for row in rows):
        axes[1].text(0.5, 0.5, "no cache operations counted\n(coherent device, or not counted)",
                     ha="center", va="center", transform=axes[1].transAxes)
    return save(fig, out, "enqueue.png", head, emulated)


SYNC_CHECK_MODES = ("off", "report", "strict")


def sync_check_series(recs):
    """{target: {mode: record}} of the synccheck records, and their clock."""
    series, clock = {}, None
    for r in recs:
        if r.get("type") != "synccheck":
            continue
        clock = clock or r["clock"]
        series.setdefault(r["target"], {})[r["mode"]] = r
    return series, clock


def plot_sync_check(recs, out, head, emulated):
    series, clock = sync_check_series(recs)
    if not series:
        return None
    fig, axes = plt.subplots(1, 3, figsize=(15, 5.2), constrained_layout=True)
    colors = {"off": "#2ca02c", "report": "#ff7f0e", "strict": "#d62728"}
    timing = ("sync for the device + for the CPU (us = 1000 instructions, icount)"
              if clock == "icount" else "sync for the device + for the CPU (us, wall clock)")
    panels = (("minor faults per MiB, per round", "faults_per_mib"),
              (timing, "median"),
              ("mmap write pass after the syncs (MB/s)", "write_mbs"))
    names = sorted(series)
    width = 0.27
    for ax, (title, key) in zip(axes, panels):
        for k, mode in enumerate(SYNC_CHECK_MODES):
            for i, name in enumerate(names):
                r = series[name].get(mode)
                if r is None or r.get(key) is None:
                    continue
                x = i + (k - 1) * width
                ax.bar(x, r[key], width, color=colors[mode], label=mode if i == 0 else None)
                ax.annotate(f"{r[key]:.0f}" if key == "faults_per_mib" else f"{r[key]:.3g}",
                            (x, r[key]), ha="center", va="bottom", fontsize=8)
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels([f"{n}\n{human_size(next(iter(series[n].values()))['size'])}"
                            for n in names], fontsize=8)
        ax.set_title(title, fontsize=10)
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=8, title="sync_check", title_fontsize=8)
    return save(fig, out, "sync-check.png", head, emulated)


def main():
    ap = argparse.ArgumentParser(description="PNG charts of a udmem bench --json run")
    ap.add_argument("run", help="JSON lines of one run")
    ap.add_argument("--out", default=".", help="folder for the PNG files")
    ap.add_argument("--note", help="one more header line (e.g. how guest time was counted)")
    args = ap.parse_args()
    recs = load(args.run)
    meta = next((r for r in recs if r.get("type") == "meta"), None)
    if not any(r.get("type") in ("bw", "enqueue", "synccheck") for r in recs):
        print(f"plot.py: {args.run}: no bw, enqueue or synccheck records", file=sys.stderr)
        return 1
    os.makedirs(args.out, exist_ok=True)
    head, emulated = header(meta, args.note)
    written = []
    if any(r.get("type") == "bw" for r in recs):
        written += [
            plot_throughput(recs, args.out, head, emulated, ratio=True),
            plot_throughput(recs, args.out, head, emulated, ratio=False),
            plot_mmap_vs_file(recs, args.out, head, emulated),
            plot_sync(recs, args.out, head, emulated),
            plot_touch(recs, args.out, head, emulated),
        ]
    written.append(plot_enqueue(recs, args.out, head, emulated))
    written.append(plot_sync_check(recs, args.out, head, emulated))
    for path in written:
        if path:
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
