#!/usr/bin/env python3
"""scripts/compare_tflite.py end to end on the shared TFLite models: person_detect (both
images) and hello_world_int8 (every case), on one nncosim backend.

For each case the figures the script reports must be the ones the goldens imply:
- TFLite's outputs (the package run with XNNPACK refused) equal the `_builtin.npy` files,
  and every node ran on the builtin kernels;
- nncosim's outputs equal the `_reference.npy` files;
- the reported max difference and differing count equal those between the two goldens,
  which equal the manifest's `agreement` figures; top-1 agreement is reported for the
  person_detect classifier, and every difference is explained as the int8
  single/double-rounding difference, never hidden.

TFLite's interpreter missing (npm or the package) is a FAILURE with a message, not a
skip: scripts/setup.sh installs it. The models folder missing is a skip (exit 77), as
for the tflite.* tests.

usage: compare_tflite_test.py NNCOSIM MODELS_DIR NODE_MODULES [BACKEND]"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

NNCOSIM, MODELS, NODE_MODULES = sys.argv[1], sys.argv[2], sys.argv[3]
BACKEND = sys.argv[4] if len(sys.argv) > 4 else "sim"
HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "scripts", "compare_tflite.py")
sys.path.insert(0, os.path.dirname(SCRIPT))
import compare_tflite  # noqa: E402  (its .npy reader)

failures = []
checks = 0


def check(name, cond, detail=""):
    global checks
    checks += 1
    if not cond:
        failures.append(f"{name}: {detail}")
    return cond


if not os.path.isdir(MODELS):
    print(f"SKIP: {MODELS} not found")
    sys.exit(77)
if not shutil.which("node"):
    print("FAIL: `node` is not on PATH; scripts/setup.sh installs nodejs and npm")
    sys.exit(1)
wasm = os.path.join(NODE_MODULES, "@tensorflow", "tfjs-tflite", "wasm", "tflite_web_api_cc.wasm")
if not os.path.exists(wasm):
    print(f"FAIL: TFLite's interpreter is not installed: {wasm} is missing; run "
          "scripts/setup.sh (npm install --prefix build/node @tensorflow/tfjs-tflite@0.0.1-alpha.10)")
    sys.exit(1)

work = tempfile.mkdtemp(prefix="compare_tflite_test.")
cases = 0
for model in ("person_detect", "hello_world_int8"):
    folder = os.path.join(MODELS, model)
    with open(os.path.join(folder, "expected.json")) as f:
        expected = json.load(f)
    for case in expected["cases"]:
        name = f"{model}/{case['name']}"
        inputs = ",".join(os.path.join(folder, i["file"]) for i in case["inputs"])
        out_json = os.path.join(work, f"{model}.{case['name']}.json")
        proc = subprocess.run(
            [sys.executable, SCRIPT, os.path.join(folder, expected["model"]), "--inputs", inputs,
             "--backend", BACKEND, "--nncosim", NNCOSIM, "--node-modules", NODE_MODULES,
             "--work-dir", os.path.join(work, model, case["name"]), "--json", out_json],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if not check(f"{name}: exit", proc.returncode == 0, proc.stdout[-3000:]):
            continue
        cases += 1
        with open(out_json) as f:
            report = json.load(f)
        tfl = report["tflite"]
        check(f"{name}: XNNPACK refused", tfl["xnnpack"] == "refused" and
              tfl["delegates_refused"] == 1 and tfl["xnnpack_nodes"] == 0, json.dumps(tfl)[:400])
        for out in case["outputs"]:
            k = out["index"]
            goldens = {e["kind"]: e for e in out["expected"]}
            ref = compare_tflite.read_npy(
                os.path.join(folder, goldens["tflite-reference-kernels"]["file"]))
            builtin = compare_tflite.read_npy(
                os.path.join(folder, goldens["tflite-builtin-kernels"]["file"]))
            got_tfl = compare_tflite.read_npy(
                os.path.join(work, model, case["name"], "tflite", f"output{k}.npy"))
            got_nnc = compare_tflite.read_npy(
                os.path.join(work, model, case["name"], "nncosim", f"output{k}.npy"))
            check(f"{name} output {k}: TFLite == _builtin.npy", got_tfl == builtin,
                  f"{got_tfl[2][:8]} vs {builtin[2][:8]}")
            check(f"{name} output {k}: nncosim == _reference.npy", got_nnc == ref,
                  f"{got_nnc[2][:8]} vs {ref[2][:8]}")
            diffs = [abs(a - b) for a, b in zip(ref[2], builtin[2])]
            agreement = out["agreement"][0]
            check(f"{name} output {k}: goldens agree with the manifest",
                  sum(d != 0 for d in diffs) == agreement["differing_elements"] and
                  max(diffs) == agreement["max_abs_diff"], json.dumps(agreement))
            row = next(r for r in report["outputs"] if r["index"] == k)
            check(f"{name} output {k}: shape/dtype", row["shape"] == out["shape"] and
                  row["dtype"] == out["dtype"], f"{row['shape']} {row['dtype']}")
            check(f"{name} output {k}: differing count", row["differing"] ==
                  agreement["differing_elements"] and row["elements"] == agreement["of"],
                  f"{row['differing']} of {row['elements']} vs {json.dumps(agreement)}")
            check(f"{name} output {k}: max abs diff",
                  row["max_abs_diff"] == agreement["max_abs_diff"], str(row["max_abs_diff"]))
            if row["differing"]:
                check(f"{name} output {k}: difference reported as the rounding difference",
                      row.get("explained") is True and "single- vs double-rounding" in
                      row["verdict"] and row["verdict"] in proc.stdout, row["verdict"])
            else:
                check(f"{name} output {k}: equal", row["verdict"] == "equal", row["verdict"])
            if "argmax" in goldens["tflite-builtin-kernels"]:
                check(f"{name} output {k}: top-1",
                      row.get("top1_tflite") == goldens["tflite-builtin-kernels"]["argmax"] and
                      row.get("top1_nncosim") == goldens["tflite-reference-kernels"]["argmax"] and
                      "top-1:" in proc.stdout, json.dumps(row))

# --intermediates is refused with the reason.
proc = subprocess.run([sys.executable, SCRIPT, "m.tflite", "--inputs", "a.npy", "--intermediates"],
                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
check("--intermediates refused", proc.returncode == 2 and "not available" in proc.stderr,
      proc.stderr)

shutil.rmtree(work, ignore_errors=True)
print(f"compare_tflite: {cases} cases on {BACKEND}, {checks} checks, {len(failures)} failures")
for f in failures:
    print("FAIL", f)
sys.exit(1 if failures or cases != 10 else 0)
