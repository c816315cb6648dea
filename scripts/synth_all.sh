#!/usr/bin/env bash
# The scheduled synthesis job: the whole NPU at every array size, one after the other (each
# is tens of minutes to over an hour of one core and 5-10 GB: too slow for CI, whose ctest
# synthesizes the units, label `synth`). Run it from cron or a CI schedule, e.g. nightly:
#   0 1 * * *  cd /path/to/nncosim && scripts/synth_all.sh /var/tmp/nncosim-synth
#
#   scripts/synth_all.sh OUT_DIR [--arrays 8,16,32] [--dry-run]
#
# Per size N: OUT_DIR/npuN.txt (the table), OUT_DIR/npuN.json (scripts/synth.py --json, what
# `scripts/sweep.py --synth` reads), OUT_DIR/npuN/ (the mapped netlist, the Yosys log).
# Exit status 0 when every size synthesized and passed synth.py's checks (no latch, buffers
# in block RAM, MACs in DSP48E1s), 1 when one did not (the others still run), 2 on a usage
# error. --dry-run prints the commands only.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { echo "usage: scripts/synth_all.sh OUT_DIR [--arrays 8,16,32] [--dry-run]" >&2; exit 2; }
out=""
arrays="8,16,32"
dry=0
while (($#)); do
  case "$1" in
    --arrays) (($# >= 2)) || usage; arrays="$2"; shift 2 ;;
    --dry-run) dry=1; shift ;;
    -*) echo "synth_all: unknown option $1" >&2; usage ;;
    *) [[ -z $out ]] || usage; out="$1"; shift ;;
  esac
done
[[ -n $out ]] || usage
IFS=, read -r -a sizes <<<"$arrays"
((${#sizes[@]} > 0)) || { echo "synth_all: --arrays $arrays: no size given" >&2; exit 2; }
for n in "${sizes[@]}"; do
  # The RTL and the ISA generator take the array sizes the build does (NNCOSIM_ARRAY_SIZE).
  case "$n" in
    8|16|32) ;;
    *) echo "synth_all: --arrays $arrays: $n is not an array size (8, 16 or 32)" >&2; exit 2 ;;
  esac
done

failed=()
for n in "${sizes[@]}"; do
  cmd=(python3 scripts/synth.py --array "$n" --out "$out/npu$n" --json "$out/npu$n.json")
  if ((dry)); then
    echo "${cmd[*]} > $out/npu$n.txt"
    continue
  fi
  mkdir -p "$out"
  start=$(date +%s)
  echo "synth_all: ${n}x${n} NPU ($(date -u +%H:%M) UTC) -> $out/npu$n.txt"
  if "${cmd[@]}" >"$out/npu$n.txt"; then
    echo "synth_all: ${n}x${n} passed in $(($(date +%s) - start)) s"
  else
    echo "synth_all: ${n}x${n} FAILED after $(($(date +%s) - start)) s (see $out/npu$n.txt, $out/npu$n/)" >&2
    failed+=("$n")
  fi
done
((dry)) && exit 0
if ((${#failed[@]})); then
  echo "synth_all: failed: ${failed[*]}" >&2
  exit 1
fi
echo "synth_all: every size passed; sweep CSVs take the figures with" \
     "scripts/sweep.py --merge SWEEP.csv --csv SWEEP.csv $(printf -- "--synth $out/npu%s.json " "${sizes[@]}")"
