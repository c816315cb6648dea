#!/usr/bin/env bash
# A fingerprint of what nncosim computes and how long the hardware takes: every
# conformance output (ref, isa, sim), the difftest layers (outcome and NPU cycles, isa and
# sim), every testbench's cycle count and the demo run's step table. A refactoring must
# leave every line unchanged: run it before and after and diff the two files.
#   scripts/behaviour_digest.sh OUT_DIR [BUILD_DIR]
set -euo pipefail
out="${1:?usage: behaviour_digest.sh OUT_DIR [BUILD_DIR]}"
build="${2:-build}"
nncosim="$build/cli/nncosim"
vectors="$(dirname "$0")/../../shared/conformance/vectors"
mkdir -p "$out"
for backend in ref isa sim; do
  "$nncosim" conformance "$vectors" --backend "$backend" --digests "$out/conformance-$backend.txt" >/dev/null || true
done
# Wall-clock figures are not behaviour: the progress and summary lines are dropped.
"$nncosim" difftest --layers 1000 --backend isa --seed 1 --verbose 2>/dev/null | grep '^layer\|^    ' > "$out/difftest-isa.txt" || true
"$nncosim" difftest --layers 300 --backend sim --seed 1 --verbose 2>/dev/null | grep '^layer\|^    ' > "$out/difftest-sim.txt" || true
"$nncosim" difftest --op QUANTIZED_16BIT_LSTM,QUANTIZED_LSTM --layers 300 --backend isa --seed 1 --verbose 2>/dev/null \
  | grep '^layer\|^    ' > "$out/difftest-lstm-isa.txt" || true
: > "$out/testbench.txt"
for tb in $("$nncosim" testbench --list | awk '{print $1}'); do
  # Simulation speed and host time are not behaviour: those figures are dropped.
  "$nncosim" testbench "$tb" --ci 2>&1 | sed -E 's/[0-9.]+ M (simulated )?cycles\/s//g; s/\([0-9.]+ s CPU\)//g; s/ratio [0-9.]+//g' \
    >> "$out/testbench.txt" || true
done
"$nncosim" run --report "$out/run-demo.json" >/dev/null
python3 - "$out/run-demo.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
def strip(x):
    if isinstance(x, dict):
        # Wall-clock and host time are not behaviour (the host books, partly measured,
        # are compared by their own tests); neither is the front door's validation count.
        return {k: strip(v) for k, v in x.items()
                if not k.startswith('host') and not any(w in k for w in (
                    'wall', 'seconds', 'per_second', 'validations', 'end_to_end', 'device_us', 'upload'))}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x
json.dump(strip(r), open(sys.argv[1], 'w'), indent=1, sort_keys=True)
PY
(cd "$out" && sha256sum *.txt run-demo.json | tee SHA256SUMS)
