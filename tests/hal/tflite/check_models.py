#!/usr/bin/env python3
"""Real TFLite models end to end: nncosim imports each model of one group of
../shared/models/tflite (manifest.json; a group is a model name or a manifest `group`
such as seanet/conv), runs every case on each backend with --check and compares the
outputs with the manifest's goldens value for value (`tflite-reference-kernels` .npy, or
tflite-micro's own `tflite-micro-golden` CSV where that is the only kind).
Models the manifest marks `import-error` must be refused with a message naming the
custom operator. Pass counts and NPU coverage are held against a floor file.

usage: check_models.py NNCOSIM MODELS_DIR GROUP BACKENDS(comma list) FLOOR.json
Exit 77 (skipped) when MODELS_DIR is absent."""
import json
import os
import struct
import subprocess
import sys
import tempfile

NNCOSIM, MODELS, GROUP, BACKENDS, FLOOR = sys.argv[1:6]
SKIP = 77
# Operations that must run on the NPU whenever the model has them.
NPU_OPS = {"CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "TRANSPOSE_CONV_2D"}


def npy_payload(path):
    """(descr, shape, data bytes) of a .npy file, parsed without NumPy."""
    with open(path, "rb") as f:
        b = f.read()
    assert b[:6] == b"\x93NUMPY", f"{path}: not a .npy file"
    n = b[8] | (b[9] << 8)
    header = b[10:10 + n].decode("latin1")
    d = eval(header, {"__builtins__": {}}, {"False": False, "True": True})  # a dict literal
    return d["descr"].replace("|", "<"), tuple(d["shape"]), b[10 + n:]


NPY_CODES = {"int8": ("<i1", "b"), "uint8": ("<u1", "B"), "int16": ("<i2", "h"),
             "int32": ("<i4", "i"), "float32": ("<f4", "f")}


def csv_to_npy(csv_path, dtype, shape, npy_path):
    """A tflite-micro CSV (one line of integers, C order) as a .npy file of dtype."""
    with open(csv_path) as f:
        values = [int(x) for x in f.read().strip().split(",")]
    descr, fmt = NPY_CODES[dtype]
    dims = ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "")
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr.replace("<i1", "|i1").replace("<u1", "|u1"), dims)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(npy_path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        f.write(struct.pack("<%d%s" % (len(values), fmt), *values))


def expected_payload(e, tmp):
    path = os.path.join(MODELS, e["file"])
    if e.get("format") == "csv":
        converted = os.path.join(tmp, "expected.npy")
        csv_to_npy(path, e["dtype"], e["shape"], converted)
        path = converted
    return npy_payload(path)


def case_inputs(case, tmp):
    files = []
    for k, i in enumerate(case["inputs"]):
        path = os.path.join(MODELS, i["file"])
        if i.get("format") == "csv":
            converted = os.path.join(tmp, f"input{k}.npy")
            csv_to_npy(path, i["dtype"], i["shape"], converted)
            path = converted
        files.append(path)
    return ",".join(files)


def golden_kind(case):
    kinds = {e["kind"] for e in case["expected"]}
    return "tflite-reference-kernels" if "tflite-reference-kernels" in kinds else "tflite-micro-golden"


def main():
    manifest_path = os.path.join(MODELS, "manifest.json")
    if not os.path.isfile(manifest_path):
        print(f"skipped: {manifest_path} is absent (the shared TFLite models are not checked out)")
        return SKIP
    with open(manifest_path) as f:
        manifest = json.load(f)
    with open(FLOOR) as f:
        floor = json.load(f).get(GROUP, {})
    models = [m for m in manifest["models"] if m["name"] == GROUP or m.get("group") == GROUP]
    if not models:
        print(f"FAIL: no model or group named {GROUP} in {manifest_path}")
        return 1
    model = models[0]
    path = os.path.join(MODELS, model["model"])
    failures = []
    figures = {}

    if len(models) == 1 and model.get("expect") == "import-error":
        refused = 0
        custom = [k.split(":", 1)[1] for k in model["operators"] if k.startswith("CUSTOM:")]
        for cmd in (["run", path], ["info", path], ["validate", path]):
            p = subprocess.run([NNCOSIM, *cmd], capture_output=True, text=True, timeout=300)
            named = all(c in p.stderr for c in custom) and "operator 0" in p.stderr
            if p.returncode == 1 and named:
                refused += 1
            else:
                failures.append(f"nncosim {cmd[0]}: exit {p.returncode}, stderr {p.stderr[-300:]!r} "
                                f"(wanted exit 1 naming operator 0 and {custom})")
        figures["refused"] = refused
        print(f"{GROUP}: refused by {refused} of 3 commands (run, info, validate)")
    else:
        cases = [(m, c) for m in models for c in m["cases"]]
        for backend in BACKENDS.split(","):
            passed = npu_steps = conv_steps = conv_on_npu = 0
            for m, case in cases:
                mpath = os.path.join(MODELS, m["model"])
                with tempfile.TemporaryDirectory() as tmp:
                    report = os.path.join(tmp, "report.json")
                    args = [NNCOSIM, "run", mpath, "--inputs", case_inputs(case, tmp), "--backend",
                            backend, "--outputs-dir", tmp]
                    if backend != "ref":
                        args += ["--check", "--report", report]
                    p = subprocess.run(args, capture_output=True, text=True, timeout=900)
                    name = f"{backend} {m['name']}:{case['name']}"
                    if p.returncode != 0:
                        failures.append(f"{name}: exit {p.returncode}: {p.stderr[-400:]}")
                        continue
                    ok = True
                    kind = golden_kind(case)
                    for e in case["expected"]:
                        if e["kind"] != kind:
                            continue
                        want = expected_payload(e, tmp)
                        got = npy_payload(os.path.join(tmp, f"output{e['output']}.npy"))
                        if got != want:
                            ok = False
                            failures.append(f"{name}: output {e['output']} {got[0]} {got[1]} "
                                            f"{list(got[2][:16])} != {kind} {want[0]} {want[1]} "
                                            f"{list(want[2][:16])}")
                    if backend != "ref":
                        with open(report) as f:
                            r = json.load(f)
                        if r["totals"]["mismatches"]:
                            ok = False
                            failures.append(f"{name}: {r['totals']['mismatches']} --check mismatches")
                        npu_steps += r["totals"]["npu_steps"]
                        for s in r["steps"]:
                            if s["operation"] in NPU_OPS:
                                conv_steps += 1
                                conv_on_npu += s["where"] == "npu"
                    passed += ok
            figures[backend] = {"passed": passed, "cases": len(cases)}
            line = f"{GROUP} {backend}: {passed}/{len(cases)} cases equal the goldens"
            if backend != "ref":
                figures[backend]["npu_steps"] = npu_steps
                line += (f", {npu_steps} NPU steps, {conv_on_npu}/{conv_steps} "
                         f"{'/'.join(sorted(NPU_OPS))} steps on the NPU")
                if conv_on_npu != conv_steps:
                    failures.append(f"{backend}: only {conv_on_npu} of {conv_steps} "
                                    f"convolution/fully-connected steps ran on the NPU")
            print(line)

    for key, want in floor.items():
        got = figures.get(key)
        if isinstance(want, dict):
            for k, v in want.items():
                have = (got or {}).get(k, 0)
                if have < v:
                    failures.append(f"floor: {key}.{k} = {have}, below the floor {v}")
        elif (got or 0) < want:
            failures.append(f"floor: {key} = {got}, below the floor {want}")
    for f in failures:
        print("FAIL:", f)
    print("PASS" if not failures else f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
