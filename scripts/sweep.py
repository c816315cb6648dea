#!/usr/bin/env python3
"""Design-space sweep: runs a model over a grid of SoC parameters and writes CSV rows.

  scripts/sweep.py MODEL [--inputs FILE] [--set KEY=V1,V2,...]... [--build DIR]...
                   [--backend isa|sim] [--check-every N] [--shard K/N] [--csv OUT.csv]
                   [--synth FILE.json]... [--plot OUT.png]
  scripts/sweep.py --merge A.csv B.csv ... --csv ALL.csv [--synth FILE.json]... [--plot OUT.png]

The grid is the product of every --set list (keys of `nncosim run --set`: dram_latency_cycles,
dram_bytes_per_cycle, clock_mhz, inp_buf_bytes and the other buffer sizes, ...; MODEL "-" is
the embedded demo) and of the builds (--build DIR, one per array size:
the array is fixed when the RTL is built, NNCOSIM_ARRAY_SIZE; default build/). Each grid
point is one `nncosim run` process, so `--shard K/N` takes every N-th point from the K-th
(1-based) and the shards' CSVs merge with --merge: spread a large sweep over machines with
any scheduler (GNU parallel, a Slurm job array) and merge the files.

The ISA model's fast path (--backend isa, the default) serves the sweep; --check-every N
also runs every N-th point of the whole grid (the same points whatever the sharding) on the
simulated SoC and records its cycles and the model's error beside the model's (a point
whose buffer sizes the RTL was not built with exists only in the ISA model: "not built"). A row's
resources are those of its build's array size from `scripts/synth.py --json` files
(--synth, one per size), blank when none is given; --merge with --synth sets them anew on
every row of its array size (synthesis of a large array may finish long after its sweep:
a CSV gets its resources without running the points again). Columns: see CSV_COLUMNS.
"""

import argparse
import csv
import itertools
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CSV_COLUMNS = [
    "point", "array", "backend", "settings", "npu_cycles", "device_us", "end_to_end_us",
    "utilization", "utilization_end_to_end", "npu_dram_bytes", "host_dram_bytes",
    "host_layout_bytes", "host_bytes_between_npu_steps", "energy_uj", "npu_steps", "cpu_steps",
    "luts", "ffs", "dsp48e1", "bram36", "sim_npu_cycles", "model_error_pct",
]


def fail(msg, code=1):
    print(f"sweep: {msg}", file=sys.stderr)
    sys.exit(code)


def build_array(build):
    """Array size of a build directory, from its CMake cache."""
    cache = os.path.join(build, "CMakeCache.txt")
    try:
        text = open(cache).read()
    except OSError:
        fail(f"--build {build}: no CMakeCache.txt (configure and build it first)")
    m = re.search(r"^NNCOSIM_ARRAY_SIZE:\w+=(\d+)$", text, re.M)
    return int(m.group(1)) if m else 16


def run_point(nncosim, model, inputs, backend, settings):
    with tempfile.TemporaryDirectory(prefix="nnc-sweep-") as tmp:
        report = os.path.join(tmp, "report.json")
        # "-" is nncosim run's embedded demo network.
        cmd = [nncosim, "run"] + ([] if model == "-" else [model]) + ["--backend", backend, "--report", report]
        if inputs:
            cmd += ["--inputs", inputs]
        for kv in settings:
            cmd += ["--set", kv]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            err = (p.stderr.strip().splitlines() or ["(no message)"])[-1]
            raise RuntimeError(f"{' '.join(cmd[1:])}: exit {p.returncode}: {err}")
        return json.load(open(report))["totals"]


def resources_of(synth_files):
    """Whole-NPU resources by array size from `synth.py --json` files."""
    out = {}
    for path in synth_files:
        try:
            r = json.load(open(path))
            top, array = r["units"][0], int(r["array"].split("x")[0])
            figures = {"luts": top["luts"], "ffs": top["ffs"], "dsp48e1": top["dsp48e1"],
                       "bram36": top["bram36_equiv"]}
        except (OSError, ValueError, KeyError, IndexError, TypeError, AttributeError) as e:
            fail(f"--synth {path}: not a synth.py --json file ({type(e).__name__}: {e})")
        # A unit's figures (synth.py --top MODULE) are not the NPU's.
        if r.get("top") != "nnc_npu_top":
            fail(f"--synth {path}: synthesis of {r.get('top')}, not of nnc_npu_top")
        if r.get("problems"):
            fail(f"--synth {path}: synthesis failed its checks: {'; '.join(map(str, r['problems']))}")
        if array in out:
            fail(f"--synth {path}: a second file for the {array}x{array} array")
        out[array] = figures
    return out


def plot(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    have_res = all(r.get("luts") not in ("", None) for r in rows)  # else by MAC PEs
    groups = {}
    for r in rows:
        groups.setdefault(r["settings"], []).append(r)
    ax = axes[0]
    for label, rs in sorted(groups.items()):
        rs = sorted(rs, key=lambda r: int(r["array"]))
        xs = [float(r["dsp48e1"]) if have_res else int(r["array"]) ** 2 for r in rs]
        ys = [float(r["end_to_end_us"]) / 1000 for r in rs]
        ax.plot(xs, ys, marker="o", label=label or "defaults")
        for x, y, r in zip(xs, ys, rs):
            ax.annotate(f"{r['array']}x{r['array']}", (x, y), fontsize=7, xytext=(3, 3),
                        textcoords="offset points")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("DSP48E1 (synth_xilinx)" if have_res else "MAC PEs")
    ax.set_ylabel("end-to-end latency (ms, host work included)")
    ax.set_title("latency against resources")
    ax.grid(True, alpha=0.3)
    if len(groups) <= 12:
        ax.legend(fontsize=7)
    ax = axes[1]
    for label, rs in sorted(groups.items()):
        rs = sorted(rs, key=lambda r: int(r["array"]))
        ax.plot([int(r["array"]) for r in rs], [100 * float(r["utilization_end_to_end"]) for r in rs],
                marker="o", label=label or "defaults")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("array size (rows = columns)")
    ax.set_ylabel("MAC utilization of the end-to-end time (%)")
    ax.set_title("utilization")
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def write_csv(rows, path):
    out = open(path, "w", newline="") if path != "-" else sys.stdout
    w = csv.DictWriter(out, fieldnames=CSV_COLUMNS, extrasaction="ignore")
    w.writeheader()
    for r in sorted(rows, key=lambda r: int(r["point"])):
        w.writerow(r)
    if out is not sys.stdout:
        out.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model", nargs="?")
    ap.add_argument("--inputs")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=V1,V2,...")
    ap.add_argument("--build", action="append", default=[], metavar="DIR")
    ap.add_argument("--backend", default="isa", choices=["isa", "sim"])
    ap.add_argument("--check-every", type=int, default=0, metavar="N")
    ap.add_argument("--shard", default="1/1", metavar="K/N")
    ap.add_argument("--csv", default="-")
    ap.add_argument("--synth", action="append", default=[], metavar="FILE.json")
    ap.add_argument("--plot")
    ap.add_argument("--merge", nargs="+", metavar="CSV")
    args = ap.parse_args()

    if args.merge:
        rows = []
        for path in args.merge:
            with open(path) as fh:
                rows += list(csv.DictReader(fh))
        points = [r["point"] for r in rows]
        if len(set(points)) != len(points):
            fail("--merge: the files repeat grid points (the same shard twice?)")
        resources = resources_of(args.synth)
        for r in rows:
            r.update(resources.get(int(r["array"]), {}))
        write_csv(rows, args.csv)
        if args.plot:
            plot(rows, args.plot)
        return 0
    if not args.model:
        fail("a MODEL (or --merge) is required", 2)
    m = re.fullmatch(r"(\d+)/(\d+)", args.shard)
    if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
        fail(f"--shard {args.shard}: expected K/N with 1 <= K <= N", 2)
    shard, shards = int(m.group(1)), int(m.group(2))

    axes = []
    for spec in args.set:
        key, sep, values = spec.partition("=")
        vals = [v for v in values.split(",") if v]
        if not sep or not key or not vals:
            fail(f"--set {spec}: expected KEY=V1,V2,...", 2)
        if key in ("array", "array_rows", "array_cols"):
            fail(f"--set {key}: the array is fixed when the RTL is built; give one --build per size", 2)
        axes.append([(key, v) for v in vals])
    builds = args.build or [os.path.join(ROOT, "build")]
    variants = []
    for b in builds:
        exe = os.path.join(b, "cli", "nncosim")
        if not os.access(exe, os.X_OK):
            fail(f"--build {b}: no {exe} (build it first)")
        variants.append((build_array(b), exe))
    if len({a for a, _ in variants}) != len(variants):
        fail("--build: two builds of the same array size")
    variants.sort()
    resources = resources_of(args.synth)

    grid = list(itertools.product(variants, *axes)) if axes else [(v,) for v in variants]
    rows = []
    for index, (variant, *settings) in enumerate(grid):
        if index % shards != shard - 1:
            continue
        array, exe = variant
        kvs = [f"{k}={v}" for k, v in settings]
        row = {"point": index, "array": array, "backend": args.backend, "settings": " ".join(kvs)}
        try:
            t = run_point(exe, args.model, args.inputs, args.backend, kvs)
        except RuntimeError as e:
            fail(f"point {index}: {e}")
        row.update(npu_cycles=t["npu_cycles"], device_us=t["device_us"], end_to_end_us=t["end_to_end_us"],
                   utilization=t["utilization"], utilization_end_to_end=t["utilization_end_to_end"],
                   npu_dram_bytes=t["dram_bytes"], host_dram_bytes=t["host_dram_bytes"],
                   host_layout_bytes=t["host_layout_bytes"],
                   host_bytes_between_npu_steps=t["host_bytes_between_npu_steps"], energy_uj=t.get("energy_uj", ""),
                   npu_steps=t["npu_steps"], cpu_steps=t["cpu_steps"])
        row.update(resources.get(array, {}))
        if args.check_every and args.backend == "isa" and index % args.check_every == 0:
            try:
                s = run_point(exe, args.model, args.inputs, "sim", kvs)
                row["sim_npu_cycles"] = s["npu_cycles"]
                row["model_error_pct"] = round(100.0 * (t["npu_cycles"] - s["npu_cycles"]) / s["npu_cycles"], 3)
            except RuntimeError as e:
                # Buffer sizes other than the build's exist only in the ISA model.
                if "the RTL's buffers are fixed when it is built" not in str(e):
                    fail(f"point {index} on the SoC: {e}")
                row["sim_npu_cycles"] = "not built"
                row["model_error_pct"] = ""
                print(f"sweep: point {index}: buffer sizes the RTL was not built with: "
                      "not checked on the SoC", file=sys.stderr)
        rows.append(row)
        print(f"sweep: point {index} {array}x{array} {row['settings'] or '(defaults)'}: "
              f"{row['npu_cycles']} NPU cycles, {float(row['end_to_end_us']):.1f} us end to end"
              + (f", SoC {row['sim_npu_cycles']} ({row['model_error_pct']:+.2f} %)"
                 if isinstance(row.get("sim_npu_cycles"), int) else ""),
              file=sys.stderr)
    write_csv(rows, args.csv)
    if args.plot:
        plot(rows, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
