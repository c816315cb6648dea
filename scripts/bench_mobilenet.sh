#!/usr/bin/env bash
# MobileNet-v1 benchmark: the 224x224 network of scripts/gen_mobilenet_v1.py (real layer
# shapes, synthetic weights) end to end through the driver, on the simulated SoC and/or
# the ISA interpreter. Prints per layer the operation, MACs, cycles and MAC utilization,
# then the totals: NPU cycles, overall utilization, simulated cycles per second, wall
# time and peak memory (max RSS of the nncosim process), on the interpreter the depthwise
# layers' figure from its array timeline, and, when both backends ran, the interpreter's
# cost model against the RTL per layer.
#
#   scripts/bench_mobilenet.sh [--build DIR] [--out DIR] [--backend sim|isa|both]
#                              [--check] [--preference P] [--json FILE] [--profile]
#                              [--bare] [-- GEN_ARGS...]
#
#   --build DIR       build tree holding cli/nncosim (default: build)
#   --out DIR         where the model, inputs and reports go (default: out/bench)
#   --backend B       sim (default), isa, or both (isa first, then sim, with a comparison)
#   --check           also run every NPU step on the reference and compare bit for bit
#   --preference P    fast_single_answer (default) | sustained_speed | low_power
#   --json FILE       write the summary (per layer and totals, per backend) as JSON
#   --profile         also print where each run's wall time went (nncosim run --profile)
#   --bare            then run tests/bench/bench_network on the model: its jobs on the bare
#                     Verilated loop and on the SoC, and its execution, alternating (5 runs)
#   -- GEN_ARGS       passed to gen_mobilenet_v1.py (e.g. --size 96 --width-multiplier 0.25);
#                     the model is regenerated when they change
#
# Exit status: 0 ok, 1 a run failed (or --check found a mismatch), 2 usage.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
build="$root/build"
out="$root/out/bench"
backend="sim"
check=""
preference="fast_single_answer"
json_out=""
profile=""
bare=""
gen_args=()

usage() { sed -n '2,25p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) build="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --backend) backend="$2"; shift 2 ;;
    --check) check="--check"; shift ;;
    --preference) preference="$2"; shift 2 ;;
    --json) json_out="$2"; shift 2 ;;
    --profile) profile="--profile"; shift ;;
    --bare) bare=1; shift ;;
    -h|--help) usage; exit 0 ;;
    --) shift; gen_args=("$@"); break ;;
    *) echo "bench_mobilenet.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
case "$backend" in
  sim) backends=(sim) ;;
  isa) backends=(isa) ;;
  both) backends=(isa sim) ;;
  *) echo "bench_mobilenet.sh: --backend must be sim, isa or both" >&2; exit 2 ;;
esac
nncosim="$build/cli/nncosim"
if [[ ! -x "$nncosim" ]]; then
  echo "bench_mobilenet.sh: $nncosim not found (build first: cmake --build $build --target nncosim)" >&2
  exit 2
fi

mkdir -p "$out"
model="$out/mobilenet.json"
inputs="$out/inputs.json"
stamp="$out/generator-args"
want_args="${gen_args[*]:-}"
if [[ ! -f "$model" || ! -f "$inputs" || ! -f "$stamp" || "$(cat "$stamp")" != "$want_args" ]]; then
  echo "generating $model ${gen_args[*]:-}"
  python3 "$here/gen_mobilenet_v1.py" -o "$model" --inputs-out "$inputs" "${gen_args[@]}"
  printf '%s' "$want_args" > "$stamp"
fi

# Runs nncosim under a Python wrapper that records the wall time and the child's peak RSS
# (wait4's rusage: ru_maxrss of that process), then prints the tables.
python3 - "$nncosim" "$model" "$inputs" "$out" "$preference" "$check" "$json_out" "$profile" "${backends[@]}" <<'EOF'
import json, os, subprocess, sys, time

nncosim, model, inputs, out, preference, check, json_out, profile = sys.argv[1:9]
backends = sys.argv[9:]
results = {}
for b in backends:
    report = os.path.join(out, f"report-{b}.json")
    log = os.path.join(out, f"run-{b}.log")
    cmd = [nncosim, "run", model, "--inputs", inputs, "--backend", b, "--preference", preference,
           "--report", report] + ([check] if check else []) + ([profile] if profile else [])
    print(f"running: {' '.join(cmd)}", flush=True)
    t0 = time.monotonic()
    with open(log, "w") as f:
        proc = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)  # this child's own rusage
        proc.returncode = rc = os.waitstatus_to_exitcode(status)
    wall = time.monotonic() - t0
    rss_kib = usage.ru_maxrss
    if rc != 0:
        sys.stdout.write(open(log).read()[-4000:])
        print(f"bench_mobilenet.sh: {b} run failed (exit {rc}); log {log}")
        sys.exit(1)
    r = json.load(open(report))
    r["bench"] = {"process_wall_seconds": wall, "peak_rss_bytes": rss_kib * 1024}
    results[b] = r

def short(note):
    n = note.split(",")[0]
    return n[:34]

for b, r in results.items():
    rows, cols = r["array"]
    t = r["totals"]
    print(f"\n== {b}: {r['model']} ({r['preference']}) ==")
    print(f"{'step':>4} {'operation':<18} {'MACs':>11} {'cycles':>10} {'util':>7} {'host B':>10} "
          f"{'host us':>8}  mapping")
    for s in r["steps"]:
        h = s["host"]
        moved = h["packed_bytes"] + h["copied_in_bytes"] + h["unpacked_bytes"] + h["copied_out_bytes"]
        if s["where"] != "npu":
            print(f"{s['step']:>4} {s['operation']:<18} {s['macs']:>11} {'cpu':>10} {'-':>7} {moved:>10} "
                  f"{h['model_ns'] / 1000:>8.2f}")
            continue
        print(f"{s['step']:>4} {s['operation']:<18} {s['macs']:>11} {s['cycles']:>10} "
              f"{100 * s['utilization']:>6.1f}% {moved:>10} {h['model_ns'] / 1000:>8.2f}  {short(s['note'])}")
    # Per operation type.
    by = {}
    for s in r["steps"]:
        if s["where"] != "npu" or not s["cycles"]:  # fused into another step: on its line
            continue
        key = s["operation"]
        if s["operation"] == "CONV_2D":
            key = "CONV_2D 1x1" if "1x1" in s["note"] else "CONV_2D 3x3"
        m, c = by.get(key, (0, 0))
        by[key] = (m + s["macs"], c + s["cycles"])
    print("by operation:")
    for k, (m, c) in sorted(by.items()):
        print(f"  {k:<20} {m:>11} MACs {c:>10} cycles {100 * m / (c * rows * cols):6.1f}% "
              f"({100 * c / t['npu_cycles']:.1f}% of the cycles)")
    wall = r["wall_seconds"]
    bench = r["bench"]
    hm = r["host_model"]
    print(f"total: end to end {t['end_to_end_us'] / 1000:.3f} ms = device {t['npu_cycles']} cycles "
          f"({t['device_us'] / 1000:.3f} ms at {r['clock_mhz']:.0f} MHz) + host {t['host_model_us'] / 1000:.3f} ms "
          f"(modelled: {hm['clock_mhz']:.0f} MHz, copies {hm['copy_bytes_per_cycle']:g} B/cycle, packing "
          f"{hm['pack_bytes_per_cycle']:g} B/cycle; {t['host_measured_ns'] / 1e6:.3f} ms measured here)")
    print(f"       MAC utilization {100 * t['utilization_end_to_end']:.1f}% of the end-to-end time "
          f"({100 * t['utilization']:.1f}% of the device cycles alone; {t['npu_macs']} MACs on a {rows}x{cols} array)")
    print(f"       DRAM: NPU {t['dram_bytes']} bytes, host {t['host_dram_bytes']} bytes; host layout passes "
          f"{t['host_layout_bytes']} bytes, between NPU steps {t['host_bytes_between_npu_steps']}; host share of the end-to-end time "
          f"{100 * t['host_model_us'] / max(t['end_to_end_us'], 1e-9):.1f}%")
    print(f"       energy {t['energy_uj'] / 1000:.2f} mJ per inference on the energy model "
          f"(docs/driver.md, \"Energy model\")")
    if t.get("depthwise_cycles"):
        # The ISA model's array timeline (the SoC counts no beats): docs/driver.md, "The
        # depthwise layers' 70 %".
        print(f"       depthwise layers {100 * t['depthwise_macs'] / (t['depthwise_cycles'] * rows * cols):.1f}% "
              f"of the array: {t['depthwise_macs']} MACs, {t['depthwise_cycles']} cycles charged to them "
              f"(their DWCONVs with the array idle, their jobs' starts; the ISA model's timeline)")
    print(f"wall: {wall:.2f} s execution ({t['npu_cycles'] / wall / 1e6:.3f} M simulated cycles/s), "
          f"{bench['process_wall_seconds']:.2f} s for the whole process; peak RSS "
          f"{bench['peak_rss_bytes'] / 2**20:.0f} MiB")
    if profile:
        # nncosim run's own table, from "profile:" to its last line.
        lines = open(os.path.join(out, f"run-{b}.log")).read().splitlines()
        start = next((i for i, l in enumerate(lines) if l.startswith("profile:")), None)
        if start is not None:
            end = next(i for i in range(start, len(lines)) if lines[i].startswith("NPU cycles") or
                       i == len(lines) - 1)
            print("\n".join(lines[start:end + 1]))
    if t.get("mismatches"):
        print(f"cross-check: {t['mismatches']} NPU steps MISMATCH")

if "isa" in results and "sim" in results:
    a, s = results["isa"], results["sim"]
    print("\n== interpreter cost model vs RTL (cycles) ==")
    print(f"{'step':>4} {'operation':<18} {'isa':>10} {'sim':>10} {'sim/isa':>8}")
    for x, y in zip(a["steps"], s["steps"]):
        if x["where"] != "npu":
            continue
        print(f"{x['step']:>4} {x['operation']:<18} {x['cycles']:>10} {y['cycles']:>10} "
              f"{y['cycles'] / max(1, x['cycles']):>8.3f}")
    ta, ts = a["totals"]["npu_cycles"], s["totals"]["npu_cycles"]
    print(f"{'':>4} {'total':<18} {ta:>10} {ts:>10} {ts / max(1, ta):>8.3f}")

if json_out:
    summary = {}
    for b, r in results.items():
        summary[b] = {
            "steps": [{k: s.get(k) for k in ("step", "operation", "where", "macs", "cycles", "utilization", "note",
                                             "host")}
                      for s in r["steps"]],
            "totals": r["totals"], "wall_seconds": r["wall_seconds"],
            "process_wall_seconds": r["bench"]["process_wall_seconds"],
            "peak_rss_bytes": r["bench"]["peak_rss_bytes"],
            "simulated_cycles_per_second": r["totals"]["npu_cycles"] / r["wall_seconds"],
        }
    with open(json_out, "w") as f:
        json.dump(summary, f, indent=1)
bad = sum(r["totals"].get("mismatches", 0) for r in results.values())
sys.exit(1 if bad else 0)
EOF
if [[ -n "$bare" ]]; then
  bench="$build/tests/bench/bench_network"
  if [[ ! -x "$bench" ]]; then
    echo "bench_mobilenet.sh: $bench not found (build it: cmake --build $build --target bench_network)" >&2
    exit 2
  fi
  echo
  echo "running: $bench $model --inputs $inputs --reps 5 --preference $preference"
  "$bench" "$model" --inputs "$inputs" --reps 5 --preference "$preference"
fi
