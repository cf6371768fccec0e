#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Check `udmem bench --json` output against bench/schema.json; print TAP.

Runs the bench natively on this host against anonymous memory only, and
checks every recorded run given on the command line (fixtures from real
guest runs, lines may carry the demo's "@@JSON " prefix).  The validator
is a small subset of JSON Schema 2020-12 (type, const, enum, required,
properties, additionalProperties, minimum, maximum, minLength, maxLength,
pattern, oneOf, $ref) written against the standard library; when the
jsonschema package is installed it checks the same documents too.
"""

import argparse
import copy
import json
import os
import re
import subprocess
import sys
import tempfile

SUITE = "bench-schema"
TYPES = {
    "object": dict, "string": str, "boolean": bool, "null": type(None),
    "array": list,
}


class Invalid(Exception):
    pass


def is_type(value, name):
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, TYPES[name])


def resolve(root, ref):
    if not ref.startswith("#/"):
        raise Invalid(f"unsupported $ref {ref}")
    node = root
    for part in ref[2:].split("/"):
        node = node[part]
    return node


def validate(root, schema, value, path="$"):
    """Raise Invalid with a path when value does not match schema."""
    if "$ref" in schema:
        validate(root, resolve(root, schema["$ref"]), value, path)
    if "oneOf" in schema:
        errors, passed = [], 0
        for sub in schema["oneOf"]:
            try:
                validate(root, sub, value, path)
                passed += 1
            except Invalid as e:
                errors.append(str(e))
        if passed != 1:
            kind = value.get("type") if isinstance(value, dict) else None
            hint = [e for e in errors if f"'{kind}'" not in e and "const" not in e]
            raise Invalid(f"{path}: matches {passed} of the record kinds; "
                          + "; ".join(hint or errors)[:300])
    if "type" in schema:
        names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(is_type(value, n) for n in names):
            raise Invalid(f"{path}: {value!r} is not {'/'.join(names)}")
    if "const" in schema and value != schema["const"]:
        raise Invalid(f"{path}: {value!r} is not const {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        raise Invalid(f"{path}: {value!r} not in {schema['enum']}")
    if is_type(value, "number"):
        if "minimum" in schema and value < schema["minimum"]:
            raise Invalid(f"{path}: {value} < minimum {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            raise Invalid(f"{path}: {value} > maximum {schema['maximum']}")
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            raise Invalid(f"{path}: {value!r} shorter than {schema['minLength']}")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            raise Invalid(f"{path}: {value!r} longer than {schema['maxLength']}")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            raise Invalid(f"{path}: {value!r} does not match {schema['pattern']}")
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                raise Invalid(f"{path}: '{key}' is missing")
        props = schema.get("properties", {})
        for key, sub in value.items():
            if key in props:
                validate(root, props[key], sub, f"{path}.{key}")
            elif schema.get("additionalProperties") is False:
                raise Invalid(f"{path}: unexpected key '{key}'")


def records_of(text):
    """The JSON objects of a run: one per line, an optional prefix before '{'."""
    recs = []
    for n, line in enumerate(text.splitlines(), 1):
        if "{" not in line:
            continue
        body = line[line.index("{"):]
        try:
            recs.append(json.loads(body))
        except json.JSONDecodeError as e:
            raise Invalid(f"line {n}: not JSON: {e}") from e
    return recs


def check_valid(schema, recs, extra=None):
    if not recs:
        raise Invalid("no records")
    for i, rec in enumerate(recs):
        validate(schema, schema, rec, f"record {i + 1} ({rec.get('type')})")
    if extra is not None:
        for i, rec in enumerate(recs):
            errs = sorted(extra.iter_errors(rec), key=str)
            if errs:
                raise Invalid(f"jsonschema: record {i + 1}: {errs[0].message}")


def check_complete(recs, want_targets=None):
    """A whole run: meta first, end last with the right counts, every target measured."""
    if recs[0]["type"] != "meta":
        raise Invalid("first record is not meta")
    if recs[-1]["type"] != "end":
        raise Invalid("last record is not end (run cut short?)")
    if sum(r["type"] == "meta" for r in recs) != 1:
        raise Invalid("more than one meta record")
    end = recs[-1]
    if end["records"] != len(recs) - 1:
        raise Invalid(f"end.records {end['records']} != {len(recs) - 1} records before it")
    if end["errors"] != sum(r["type"] == "error" for r in recs):
        raise Invalid("end.errors does not count the error records")
    if end["skips"] != sum(r["type"] == "skip" for r in recs):
        raise Invalid("end.skips does not count the skip records")
    targets = [r for r in recs if r["type"] == "target"]
    names = {r["target"] for r in targets}
    if "anon" not in names:
        raise Invalid("no anonymous-memory reference")
    for r in recs:
        if r["type"] not in ("meta", "end") and r["target"] not in names:
            raise Invalid(f"{r['type']} record for unknown target {r['target']}")
    for t in targets:
        mine = [r for r in recs if r.get("target") == t["target"]]
        skipped = {r["test"] for r in mine if r["type"] == "skip"}
        bw = {(r["test"], r["access"], r["sync"]) for r in mine if r["type"] == "bw"}
        tests = ["mmap_write", "mmap_read"]
        # Anonymous memory's read()/write() (a memfd) came later: a run
        # has both or, when it has neither, a skip record or predates them.
        if t["class"] != "anon" or any(test.startswith("file_") for test, _, _ in bw):
            tests += ["file_write", "file_read"]
        rows = {(a, s) for _, a, s in bw}
        if t["class"] == "anon":
            want_rows = {("cached", "none")}
        else:
            sync = "ioctl" if t["sync_ioctl"] else "sysfs"
            want_rows = {("cached", "none"), ("cached", sync),
                         ("uncached", "o_sync"), ("wc", "o_sync")}
            want_rows = {(a, s) for a, s in want_rows if a not in skipped}
        if not want_rows <= rows:
            raise Invalid(f"{t['target']}: rows {sorted(want_rows - rows)} missing")
        for a, s in want_rows:
            for test in tests:
                if (test, a, s) not in bw:
                    raise Invalid(f"{t['target']}: {test} {a}/{s} missing")
        touched = {r["access"] for r in mine if r["type"] == "touch"}
        if touched != {"read", "write"}:
            raise Invalid(f"{t['target']}: first-touch records for {sorted(touched)}")
        if t["class"] != "anon":
            dirs = {r["direction"] for r in mine if r["type"] == "sync"}
            if dirs != {"for_cpu", "for_device"}:
                raise Invalid(f"{t['target']}: sync records for {sorted(dirs)}")
        for r in mine:
            if r["type"] == "bw" and r["runs"] and not r["verified"]:
                raise Invalid(f"{t['target']}: {r['test']} {r['access']} not verified")
    if want_targets is not None and not set(want_targets) <= names:
        raise Invalid(f"targets {sorted(set(want_targets) - names)} missing")


def tap(ok, name, why=""):
    if ok:
        print(f"ok - {SUITE}/{name}")
    else:
        print(f"not ok - {SUITE}/{name} # {why}")
    return ok


def run_case(name, fn):
    try:
        fn()
        return tap(True, name)
    except (Invalid, OSError, subprocess.SubprocessError, KeyError, ValueError) as e:
        return tap(False, name, str(e).replace("\n", " ")[:400])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", required=True, help="a udmem bench binary for this host")
    ap.add_argument("--schema", required=True)
    ap.add_argument("fixtures", nargs="*", help="recorded runs (JSON lines)")
    args = ap.parse_args()

    with open(args.schema) as f:
        schema = json.load(f)
    try:
        import jsonschema
        extra = jsonschema.Draft202012Validator(schema)
    except ImportError:
        extra = None
    ok = True
    live = {}

    def live_run():
        p = subprocess.run([args.bench, "--json", "--quick", "--quiet", "anon"],
                           capture_output=True, text=True, timeout=120, check=False)
        if p.returncode != 0:
            raise Invalid(f"exit {p.returncode}: {p.stderr.strip()[:200]}")
        live["recs"] = records_of(p.stdout)
        live["text"] = p.stdout
        check_valid(schema, live["recs"], extra)

    ok &= run_case("host-anon-run-valid", live_run)
    ok &= run_case("host-anon-run-complete",
                   lambda: check_complete(live.get("recs") or [{"type": "none"}]))

    def host_meta():
        meta = live["recs"][0]
        if meta["arch"] != os.uname().machine:
            raise Invalid(f"arch {meta['arch']} != {os.uname().machine}")
        if meta["kernel"] != os.uname().release:
            raise Invalid(f"kernel {meta['kernel']} != {os.uname().release}")
    ok &= run_case("host-meta-matches-uname", host_meta)

    def negative():
        """The checks can fail: broken copies of a good run must be refused."""
        recs = live["recs"]
        bad_cases = []
        r = copy.deepcopy(recs)
        r[1]["class"] = "ramdisk"
        bad_cases.append(("unknown class", r, check_valid))
        r = copy.deepcopy(recs)
        next(x for x in r if x["type"] == "bw")["median"] = "fast"
        bad_cases.append(("string median", r, check_valid))
        r = copy.deepcopy(recs)
        r[0]["surprise"] = 1
        bad_cases.append(("extra key", r, check_valid))
        r = copy.deepcopy(recs)
        del r[0]["emulated"]
        bad_cases.append(("no emulated flag", r, check_valid))
        r = copy.deepcopy(recs)[:-1]
        bad_cases.append(("no end record", r, lambda s, x, e: check_complete(x)))
        r = [x for x in copy.deepcopy(recs) if x.get("test") != "mmap_read"]
        r[-1]["records"] = len(r) - 1
        bad_cases.append(("mmap_read missing", r, lambda s, x, e: check_complete(x)))
        for what, recs_bad, fn in bad_cases:
            try:
                fn(schema, recs_bad, extra)
            except Invalid:
                continue
            raise Invalid(f"accepted a run with {what}")
    ok &= run_case("broken-runs-refused", negative)

    def report_renders(path):
        p = subprocess.run([args.bench, "--report", path], capture_output=True,
                           text=True, timeout=60, check=False)
        if p.returncode != 0 or "Throughput in MB/s" not in p.stdout:
            raise Invalid(f"--report exit {p.returncode}: {p.stderr.strip()[:200]}")
        return p.stdout

    def added_records(rows, key, wrong, what):
        """A live run with ROWS added must be valid and one with ROWS[0][KEY]
        set to WRONG refused; the report of the valid run, as text."""
        recs = copy.deepcopy(live["recs"])
        recs[-1:-1] = rows
        check_valid(schema, recs, extra)
        bad = copy.deepcopy(recs)
        next(x for x in bad if x["type"] == rows[0]["type"])[key] = wrong
        try:
            check_valid(schema, bad, extra)
        except Invalid:
            pass
        else:
            raise Invalid(f"accepted a {rows[0]['type']} record of {what}")
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl") as f:
            f.write("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in recs))
            f.flush()
            return report_renders(f.name)

    def dmabuf_records():
        """The exporter comparison's records (as an x86_64-7 guest printed them)
        are valid, a wrong one is refused, and --report renders their table."""
        rows = [{"type": "dmabuf", "target": "anon", "exporter": e, "size": 1048576,
                 "pages": 256, "sg_entries": n, "sg_source": "importer", "runs": 3,
                 "unit": "us", "median": us, "min": us, "max": us, "ratio": ratio}
                for e, n, us, ratio in (("u-dma-buf", 1, 2.0, 1.0), ("udmabuf", 68, 1.8, 0.9))]
        out = added_records(rows, "exporter", "dma-heap", "an unknown exporter")
        line = next((ln for ln in out.splitlines() if " udmabuf " in ln), "")
        if "68 (importer)" not in line or not line.rstrip().endswith("0.90"):
            raise Invalid(f"--report's DMA-BUF row: {line!r}")
    ok &= run_case("dmabuf-records-valid-and-reported", dmabuf_records)

    def enqueue_records():
        """The enqueue sweep's records (per exporter and size) are valid, an
        uncounted figure must say so, a wrong clock is refused, and --report
        renders their table with the counted operations and the clock."""
        rows = [{"type": "enqueue", "target": "anon", "exporter": e, "size": size,
                 "pages": size // 4096, "device": "platform/udmabuf0", "coherent": False,
                 "sg_entries": n, "cache_ops": ops, "cache_ops_map": 0 if n > 1 else 2,
                 "cache_ops_sync": ops - (0 if n > 1 else 2), "cache_ops_source": "kprobe",
                 "runs": 3, "clock": "icount", "unit": "us", "median": us, "min": us,
                 "max": us, "us_per_mib": us * 1048576 / size, "ratio": us / ours}
                for size, ours in ((4096, 20.0), (1048576, 40.0))
                for e, n, ops, us in (("u-dma-buf", 1, 4, ours),
                                      ("udmabuf", size // 4096, 2 * (size // 4096),
                                       ours * size / 4096))]
        uncounted = dict(rows[0], cache_ops=None, cache_ops_map=None, cache_ops_sync=None,
                         cache_ops_source="none")
        check_valid(schema, [uncounted])
        out = added_records(rows, "clock", "cycles", "an unknown clock")
        lines = out.splitlines()
        if not any(ln.startswith("time: instruction-counted") for ln in lines):
            raise Invalid("--report does not say the enqueue times count instructions")
        line = next((ln for ln in lines if " udmabuf " in ln and "1 MiB" in ln), "")
        cols = line.split()
        if cols[5:11] != ["256", "512", "=", "0", "+", "512"] or \
                not line.rstrip().endswith("256.00"):
            raise Invalid(f"--report's enqueue row: {line!r}")
        line = next((ln for ln in lines if " u-dma-buf " in ln and "1 MiB" in ln), "")
        if line.split()[5:12] != ["1", "4", "=", "2", "+", "2", "(kprobe)"]:
            raise Invalid(f"--report's enqueue row of the export: {line!r}")
    ok &= run_case("enqueue-records-valid-and-reported", enqueue_records)

    def synccheck_records():
        """The sync checker's records (off, report, strict) are valid, an
        unknown mode is refused, and --report renders their table with the
        faults per round and the ratios to off."""
        rows = []
        for mode, flt, wr, us in (("off", 0, 400.0, 50.0), ("report", 256, 100.0, 150.0),
                                  ("strict", 256, 80.0, 160.0)):
            on = mode != "off"
            rows.append({"type": "synccheck", "target": "anon", "mode": mode, "size": 1048576,
                         "pages": 256, "runs": 3, "rounds": 2, "method": "ioctl",
                         "clock": "wall", "unit": "us", "median": us, "min": us, "max": us,
                         "write_mbs": wr, "read_mbs": 2 * wr,
                         "first_minflt": 256, "minflt": flt, "minflt_max": flt,
                         "faults_per_mib": float(flt), "violations": 0,
                         "ratio_write": wr / 400.0 if on else None,
                         "ratio_read": wr / 400.0 if on else None,
                         "ratio_sync": us / 50.0 if on else None})
        out = added_records(rows, "mode", "on", "an unknown mode")
        lines = out.splitlines()
        if not any(ln.startswith("The sync checker, off beside") for ln in lines):
            raise Invalid("--report has no sync checker table")
        line = next((ln for ln in lines if " strict " in ln), "")
        if line.split()[6:11] != ["160.0", "256", "256", "256.0", "0"] or \
                not line.rstrip().endswith("0.20/0.20/3.20"):
            raise Invalid(f"--report's strict row: {line!r}")
        line = next((ln for ln in lines if " off " in ln and "anon" in ln), "")
        if line.split()[8:] != ["0", "0.0", "0", "-"]:
            raise Invalid(f"--report's off row: {line!r}")
    ok &= run_case("synccheck-records-valid-and-reported", synccheck_records)

    def dma_records():
        """The DMA channel's records are valid (with dmatest's figures and
        without), a wrong op is refused, and --report renders the table with
        per-transfer system calls, KiB/s, dmatest's KB/s and the ratios."""
        rows = [{"type": "dma", "target": "anon", "channel": "dma1chan0",
                 "device": "0000:00:10.0", "op": "memcpy", "size": 4096, "batch": b,
                 "runs": 2, "syscalls_per_transfer": 2 / b, "clock": "wall", "unit": "us",
                 "submit": 30.0, "median": us, "min": us, "max": us, "cpu_copy": 2.0,
                 "ratio": us / 2.0, "kbps": 4e6 / us, "dmatest_kbps": dt,
                 "dmatest_ratio": None if dt is None else 4e6 / us / dt, "verified": True}
                for b, us, dt in ((1, 200000.0, None), (4, 190000.0, 40.0))]
        out = added_records(rows, "op", "dev_to_mem", "an unknown op")
        lines = out.splitlines()
        if not any(ln.startswith("time: not instruction-counted") for ln in lines):
            raise Invalid("--report does not say the DMA times are wall clock")
        if "anon: dmaengine channel dma1chan0" not in lines:
            raise Invalid("--report does not name the dmaengine channel")
        row = next((ln.split() for ln in lines if ln.startswith("anon ")
                    and ln.split()[3:4] == ["4"]), [])
        if row[3:11] != ["4", "0.50", "30.0", "190000.0", "21", "40", "0.53", "2.00"] or \
                row[-1] != "yes":
            raise Invalid(f"--report's DMA row of the batch: {row!r}")
        row = next((ln.split() for ln in lines if ln.startswith("anon ")
                    and ln.split()[3:4] == ["1"]), [])
        if row[7:10] != ["20", "-", "-"]:
            raise Invalid(f"--report's DMA row without dmatest: {row!r}")
    ok &= run_case("dma-records-valid-and-reported", dma_records)

    def memtype_records():
        """The memory-type records (as the arm64 guest printed them) are valid,
        a wrong one is refused, and --report puts a target's mappings on one line."""
        rows = [{"type": "memtype", "target": "udmabuf-nc0", "mapping": m, "memtype": t,
                 "raw": raw}
                for m, t, raw in (("cached", "cacheable", 0xff0000007b3c8b80),
                                  ("uncached", "device", 0x7b3c8b80),
                                  ("wc", "normal-nc", 0x440000007b3c8b80),
                                  ("kernel", "cacheable", 0xff0000007b3c0b80))]
        out = added_records(rows, "memtype", "cached", "an unknown memory type")
        line = next((ln for ln in out.splitlines() if ln.startswith("udmabuf-nc0 ")), "")
        if line.split() != ["udmabuf-nc0", "cacheable", "device", "normal-nc", "cacheable"]:
            raise Invalid(f"--report's memory-type row: {line!r}")
    ok &= run_case("memtype-records-valid-and-reported", memtype_records)

    def compare_self(path):
        p = subprocess.run([args.bench, "--compare", path, path], capture_output=True,
                           text=True, timeout=60, check=False)
        if p.returncode != 0:
            raise Invalid(f"--compare exit {p.returncode}: {p.stderr.strip()[:200]}")
        rows = [ln for ln in p.stdout.splitlines() if ln.startswith("bw ")]
        if not rows:
            raise Invalid("--compare printed no bw row")
        for ln in rows:
            # A, B, then B/A: three numbers after the figure's name.
            m = re.search(r"\s(\d+\.\d+)\s+(\d+\.\d+)\s+(\S+)", ln)
            if not m or m.group(3) != "1.00":
                raise Invalid(f"a run compared with itself: {ln.strip()}")

    fixtures = [f for f in args.fixtures if os.path.exists(f)]
    for path in fixtures:
        name = os.path.basename(path).rsplit(".", 1)[0]
        holder = {}

        def load(path=path, holder=holder):
            with open(path) as f:
                holder["recs"] = records_of(f.read())
            check_valid(schema, holder["recs"], extra)
        ok &= run_case(f"fixture-{name}-valid", load)
        ok &= run_case(f"fixture-{name}-complete",
                       lambda holder=holder: check_complete(holder.get("recs")
                                                            or [{"type": "none"}]))
        ok &= run_case(f"fixture-{name}-report", lambda path=path: report_renders(path))
        ok &= run_case(f"fixture-{name}-compare-self", lambda path=path: compare_self(path))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
