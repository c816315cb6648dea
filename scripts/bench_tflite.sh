#!/usr/bin/env bash
# TFLite model benchmark on the simulated SoC: person_detect (int8 MobileNet-v1 0.25 at
# 96x96, the largest real model in ../shared/models/tflite) and hello_world_int8, each
# run as `nncosim run MODEL --inputs X.npy --backend sim --check --report FILE.json`.
# Prints per model: end-to-end time (device + modelled host) and MAC utilization of it,
# NPU cycles and utilization of the device cycles alone, NPU and host DRAM bytes, the
# steps on the CPU and why, and the wall time and simulated cycles per second as the median of 3 runs, the
# two models alternating (so a load spike on the shared machine hits both). Figures
# only: nothing here is timed or asserted, except that each run succeeds (bit-exact
# under --check).
#
#   scripts/bench_tflite.sh [--build DIR] [--models DIR] [--out DIR] [--runs N]
#
#   --build DIR    build tree holding cli/nncosim (default: build)
#   --models DIR   the shared TFLite models (default: ../shared/models/tflite)
#   --out DIR      where the reports go (default: out/bench_tflite)
#   --runs N       runs per model (default: 3)
#
# Exit status: 0 ok, 1 a run failed, 2 usage.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
build="$root/build"
models="$(realpath -m "$root/../shared/models/tflite")"
out="$root/out/bench_tflite"
runs=3

usage() { sed -n '2,18p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) build="$2"; shift 2 ;;
    --models) models="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "bench_tflite.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
nncosim="$build/cli/nncosim"
if [[ ! -x "$nncosim" ]]; then
  echo "bench_tflite.sh: $nncosim not found (build first: scripts/build.sh $build)" >&2
  exit 2
fi
mkdir -p "$out"

# name  model  input
cases=("person_detect person_detect/person_detect.tflite person_detect/person_input0.npy"
       "hello_world_int8 hello_world_int8/hello_world_int8.tflite hello_world_int8/case3_input0.npy")

for ((r = 1; r <= runs; r++)); do
  for c in "${cases[@]}"; do
    read -r name model input <<<"$c"
    start=$(date +%s.%N)
    if ! "$nncosim" run "$models/$model" --inputs "$models/$input" --backend sim --check \
         --report "$out/$name.$r.json" >"$out/$name.$r.log" 2>&1; then
      echo "bench_tflite.sh: $name run $r failed; see $out/$name.$r.log" >&2
      tail -5 "$out/$name.$r.log" >&2
      exit 1
    fi
    end=$(date +%s.%N)
    echo "$start $end" >"$out/$name.$r.wall"
  done
done

python3 - "$out" "$runs" "${cases[@]}" <<'EOF'
import json
import statistics
import sys

out, runs, cases = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
for c in cases:
    name = c.split()[0]
    reports, process_walls = [], []
    for r in range(1, runs + 1):
        with open(f"{out}/{name}.{r}.json") as f:
            reports.append(json.load(f))
        with open(f"{out}/{name}.{r}.wall") as f:
            start, end = map(float, f.read().split())
        process_walls.append(end - start)
    rep = reports[0]
    t = rep["totals"]
    run_wall = statistics.median(x["wall_seconds"] for x in reports)
    proc_wall = statistics.median(process_walls)
    print(f"{name}: {rep['model']}")
    print(f"  {rep['soc']}")
    print(f"  steps: {t['npu_steps']} on the NPU, {t['cpu_steps']} on the CPU; "
          f"mismatches under --check: {t['mismatches']}")
    # The headline is end to end (device + modelled host); the device-only figures say so.
    print(f"  end to end {t['end_to_end_us']:.1f} us = device {t['device_us']:.1f} us + modelled "
          f"host {t['host_model_us']:.1f} us; MAC utilization {100 * t['utilization_end_to_end']:.1f}% "
          f"of the end-to-end time")
    print(f"  NPU cycles {t['npu_cycles']} ({t['npu_cycles'] / rep['clock_mhz']:.1f} us at "
          f"{rep['clock_mhz']:.0f} MHz, device only); MACs {t['macs']} ({t['npu_macs']} on the NPU); "
          f"MAC utilization {100 * t['utilization']:.1f}% of the device cycles alone")
    print(f"  DRAM bytes: NPU {t['dram_bytes']}, host {t['host_dram_bytes']} "
          f"(layout passes {t['host_layout_bytes']}, {t['host_bytes_between_npu_steps']} of them between NPU steps)")
    for s in rep["steps"]:
        if s["where"] != "npu":
            print(f"  cpu step {s['step']}: {s['operation']}: {s['note']}")
    print(f"  wall (median of {runs}): run {run_wall:.3f} s (nncosim's own figure), process "
          f"{proc_wall:.3f} s (incl. start-up, model load and SoC elaboration); "
          f"{t['npu_cycles'] / run_wall / 1e6:.2f} M simulated cycles/s")
    print(f"  runs: {', '.join(f'{x:.3f}' for x in process_walls)} s process wall")
    print(f"  output: {rep['outputs'][0]['data'] if 'data' in rep['outputs'][0] else rep['outputs'][0]}")
EOF
