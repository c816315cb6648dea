#!/usr/bin/env python3
"""Every class of bad model input through every subcommand that takes a model (issue 16):
each must exit 1 with a message naming what is wrong, never crash (negative return code),
hang or exit 0. Model files and conformance vector files are both covered.

usage: bad_models_test.py NNCOSIM VECTORS_DIR [--backends ref,isa,sim]"""
import copy
import json
import os
import subprocess
import sys
import tempfile

NNCOSIM, VECTORS = sys.argv[1], sys.argv[2]
BACKENDS = ["ref", "isa"]
if "--backends" in sys.argv:
    BACKENDS = sys.argv[sys.argv.index("--backends") + 1].split(",")

failures = []
checks = 0


def run(args):
    try:
        p = subprocess.run([NNCOSIM, *args], capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return None, "", "timeout"
    return p.returncode, p.stdout, p.stderr


# The model of docs/model-format.md (without its pool): ADD of an input and a constant.
GOOD_MODEL = {
    "format": "nncosim-model/1",
    "main": {
        "operands": [
            {"type": "TENSOR_FLOAT32", "dimensions": [1, 4], "scale": 0, "zeroPoint": 0, "lifetime": "SUBGRAPH_INPUT"},
            {"type": "TENSOR_FLOAT32", "dimensions": [1, 4], "scale": 0, "zeroPoint": 0, "lifetime": "CONSTANT_COPY",
             "data": [1, 2, 3, 4]},
            {"type": "INT32", "dimensions": [], "scale": 0, "zeroPoint": 0, "lifetime": "CONSTANT_COPY", "data": [0]},
            {"type": "TENSOR_FLOAT32", "dimensions": [1, 4], "scale": 0, "zeroPoint": 0, "lifetime": "SUBGRAPH_OUTPUT"}],
        "operations": [{"type": "ADD", "inputs": [0, 1, 2], "outputs": [3]}],
        "inputIndexes": [0], "outputIndexes": [3]}}


def edited(fn):
    m = copy.deepcopy(GOOD_MODEL)
    fn(m)
    return json.dumps(m)


def setp(path, value):
    def fn(m):
        node = m
        for k in path[:-1]:
            node = node[k]
        node[path[-1]] = value
    return fn


# (name, file text, a fragment the message must contain). The classes of tests/hal and
# tests/cli/cli_test.py: malformed and truncated JSON, wrong field types, unknown enums,
# indexes out of range (operation outputs and inputs, model inputs and outputs), missing
# and short pools, NaN and negative scales, element-count overflow, bad lifetimes.
MODEL_CASES = [
    ("malformed JSON", "{not json", "malformed JSON"),
    ("truncated", json.dumps(GOOD_MODEL)[:200], "malformed JSON"),
    ("empty file", "", ""),
    ("not an object", "[1, 2, 3]", ""),
    ("wrong format", edited(setp(["format"], "nncosim-model/9")), "format"),
    ("output index out of range (issue reproducer)",
     edited(setp(["main", "operations", 0, "outputs"], [1000000])), "1000000"),
    ("input index out of range", edited(setp(["main", "operations", 0, "inputs"], [0, 7, 2])), "7"),
    ("model input index out of range", edited(setp(["main", "inputIndexes"], [99])), "99"),
    ("model output index out of range", edited(setp(["main", "outputIndexes"], [4000000000])), "4000000000"),
    ("unknown operand type", edited(setp(["main", "operands", 0, "type"], "TENSOR_FOO")), "TENSOR_FOO"),
    ("unknown operation", edited(setp(["main", "operations", 0, "type"], "FROBNICATE")), "FROBNICATE"),
    ("unknown lifetime", edited(setp(["main", "operands", 0, "lifetime"], "SOMEWHERE")), "SOMEWHERE"),
    ("dimensions of the wrong type", edited(setp(["main", "operands", 0, "dimensions"], "x")), "dimensions"),
    ("negative dimension", edited(setp(["main", "operands", 0, "dimensions"], [1, -4])), "dimensions"),
    ("negative scale", edited(lambda m: (m["main"]["operands"][0].update(type="TENSOR_QUANT8_ASYMM", scale=-0.5))),
     "scale"),
    ("NaN scale", edited(setp(["main", "operands", 0, "scale"], "NaN")).replace('"NaN"', "NaN"), ""),
    ("element-count overflow", edited(setp(["main", "operands", 0, "dimensions"], [65536, 65536, 4])), "overflow"),
    ("constant data too short", edited(setp(["main", "operands", 1, "data"], [1])), "operand 1"),
    ("missing pool", edited(lambda m: m.update(pools=[{"file": "gone.bin"}])), "gone.bin"),
    ("pool location out of range",
     edited(lambda m: (m.update(pools=[{"file": "short.bin"}]),
                       m["main"]["operands"][1].pop("data"),
                       m["main"]["operands"][1].update(lifetime="CONSTANT_POOL",
                                                       location={"poolIndex": 0, "offset": 0, "length": 16}))),
     "pool"),
    ("operation with no outputs", edited(setp(["main", "operations", 0, "outputs"], [])), ""),
    ("operand written twice",
     edited(lambda m: m["main"]["operations"].append({"type": "ADD", "inputs": [0, 1, 2], "outputs": [3]})), ""),
]


def vector_cases(tmp):
    """Bad conformance vector files: a real one with one field broken at a time."""
    with open(os.path.join(VECTORS, "V1_0", "add.json")) as f:
        good = json.load(f)

    def vedit(fn):
        v = copy.deepcopy(good)
        fn(v["tests"][0])
        return json.dumps(v)

    return [
        ("vector: truncated", json.dumps(good)[:300], "malformed JSON"),
        ("vector: output index out of range",
         vedit(lambda t: t["main"]["operations"][0].update(outputs=[1000000])), "1000000"),
        ("vector: input index out of range",
         vedit(lambda t: t["main"]["operations"][0].update(inputs=[0, 1, 50])), "50"),
        ("vector: model input index out of range", vedit(lambda t: t["main"].update(inputIndexes=[0, 77])), "77"),
        ("vector: unknown operand type", vedit(lambda t: t["main"]["operands"][0].update(type="TENSOR_BAR")),
         "TENSOR_BAR"),
        ("vector: input data too short", vedit(lambda t: t["main"]["operands"][0].update(data=[1.0])), ""),
        ("vector: dimensions overflow",
         vedit(lambda t: t["main"]["operands"][0].update(dimensions=[65536, 65536, 4])), "overflow"),
        ("vector: referenced subgraph out of range",
         vedit(lambda t: t["main"]["operands"][2].update(type="SUBGRAPH", dimensions=[], data=[5])), ""),
    ]


def tflite_cases():
    """Bad TFLite files: a real model cut short, its root offset broken, its tensors'
    buffer indexes out of range (bytes flipped), and a header with nothing behind it."""
    src = os.path.join(os.path.dirname(VECTORS.rstrip("/")), "..", "models", "tflite", "hello_world_int8",
                       "hello_world_int8.tflite")
    if not os.path.exists(src):
        return []
    good = open(src, "rb").read()
    flipped = bytearray(good)
    for k in range(len(flipped) // 3, len(flipped) // 3 + 64):
        flipped[k] ^= 0xff
    return [
        ("tflite: truncated", good[:len(good) // 2], ""),
        ("tflite: root offset out of range", b"\xff\xff\xff\x7f" + good[4:], ""),
        ("tflite: 64 bytes flipped", bytes(flipped), ""),
        ("tflite: header only", good[:8], ""),
    ]


with tempfile.TemporaryDirectory() as tmp:
    with open(os.path.join(tmp, "short.bin"), "wb") as f:
        f.write(b"\0" * 4)
    cases = [(n, t, frag, False) for n, t, frag in MODEL_CASES] + [(n, t, frag, True) for n, t, frag in vector_cases(tmp)]
    cases += [(n, t, frag, "tflite") for n, t, frag in tflite_cases()]
    for i, (name, text, fragment, is_vector) in enumerate(cases):
        path = os.path.join(tmp, f"case{i}." + ("tflite" if is_vector == "tflite" else "json"))
        with open(path, "wb") as f:
            f.write(text if isinstance(text, bytes) else text.encode())
        commands = [["validate", path], ["info", path]]
        if is_vector == "tflite":
            commands.append(["import", path, "-o", os.path.join(tmp, "imported.json")])
            for b in BACKENDS:
                commands.append(["run", path, "--backend", b])
        elif is_vector:
            for b in BACKENDS:
                commands.append(["conformance", path, "--backend", b, "--jobs", "0"])
        else:
            for b in BACKENDS:
                commands.append(["run", path, "--backend", b])
        for args in commands:
            checks += 1
            rc, out, err = run(args)
            label = f"{name}: nncosim {args[0]}{' ' + args[-3] + ' ' + args[-2] if args[0] == 'conformance' else ''}" \
                    f"{' --backend ' + args[-1] if args[0] == 'run' else ''}"
            if rc is None:
                failures.append(f"{label}: hung (no exit within 120 s)")
                continue
            if rc < 0 or rc >= 128:
                failures.append(f"{label}: crashed (exit {rc}); stderr: {err[-300:]}")
                continue
            if rc != 1:
                failures.append(f"{label}: exit {rc}, wanted 1; stderr: {err[-300:]}")
                continue
            text_out = err + out
            if not text_out.strip():
                failures.append(f"{label}: exit 1 with no message")
            elif fragment and fragment not in text_out:
                failures.append(f"{label}: message lacks {fragment!r}: {text_out[-300:]!r}")

    # A required input given no value (an empty data list means "omitted" in vector
    # files): valid model, bad request. Execution must refuse it by name (fuzz finding:
    # L2_NORMALIZATION read a null input), not crash in a worker.
    with open(os.path.join(VECTORS, "V1_0", "l2_normalization.json")) as f:
        v = json.load(f)
    for t in v["tests"]:
        for o in t["main"]["operands"]:
            if o["lifetime"] == "SUBGRAPH_INPUT":
                o["data"] = []
    omitted = os.path.join(tmp, "omitted.json")
    with open(omitted, "w") as f:
        json.dump(v, f)
    for b in BACKENDS:
        checks += 1
        rc, out, err = run(["conformance", omitted, "--backend", b])
        if rc != 1 or "requires it" not in out + err or "crashed" in out + err:
            failures.append(f"omitted required input: conformance --backend {b}: exit {rc}: {(out + err)[-300:]!r}")

    # --inputs values that do not fill the model input, or disagree with its declared
    # shape: refused by the one input binding both executors share, on every backend.
    good_path = os.path.join(tmp, "good_for_inputs.json")
    with open(good_path, "w") as f:
        json.dump(GOOD_MODEL, f)
    for label, values, fragment in [("too few values", {"dimensions": [1, 4], "data": [1, 2]}, "bytes given"),
                                    ("other shape", {"dimensions": [1, 5], "data": [1, 2, 3, 4, 5]},
                                     "disagree with declared")]:
        inputs = os.path.join(tmp, "inputs.json")
        with open(inputs, "w") as f:
            json.dump({"inputs": [values]}, f)
        for b in BACKENDS:
            checks += 1
            rc, out, err = run(["run", good_path, "--inputs", inputs, "--backend", b])
            if rc != 1 or fragment not in err:
                failures.append(f"--inputs {label}: run --backend {b}: exit {rc}: {err[-300:]!r}")

    # The good model itself passes where it should: the harness checks real refusals.
    good = os.path.join(tmp, "good.json")
    with open(good, "w") as f:
        json.dump(GOOD_MODEL, f)
    for args in (["validate", good], ["info", good]):
        checks += 1
        rc, out, err = run(args)
        if rc != 0:
            failures.append(f"good model: nncosim {args[0]}: exit {rc}: {err[-300:]}")

for f in failures:
    print("FAIL", f)
print(f"{checks - len(failures)} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
