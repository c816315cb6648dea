#!/usr/bin/env python3
"""scripts/gen_mobilenet_v1.py end to end: a small MobileNet-v1 variant is generated,
validated and run on the reference by the nncosim CLI; the output must be a sane
probability vector equal to the generator's own integer simulation (--stats-json), and
generation must be deterministic.

usage: gen_mobilenet_test.py NNCOSIM [GENERATOR]"""
import json
import os
import re
import subprocess
import sys
import tempfile

NNCOSIM = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
GENERATOR = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "..", "..", "scripts",
                                                                "gen_mobilenet_v1.py")
SMALL = ["--size", "96", "--width-multiplier", "0.25", "--classes", "10"]
failures = []
checks = 0


def check(name, cond, detail=""):
    global checks
    checks += 1
    if not cond:
        failures.append(f"{name}: {detail}")
    return cond


def run(*args):
    p = subprocess.run(list(args), capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def generate(name, model, *extra):
    rc, out, err = run(sys.executable, GENERATOR, "-o", model, *extra)
    check(name + ": generator exit code", rc == 0, f"exit {rc}: {err[-800:]}")
    m = re.search(r"(\d+) MACs", out)
    return int(m.group(1)) if m else None


def run_model(name, model, inputs, classes):
    """nncosim validate + info + run; returns the printed probabilities (or None)."""
    rc, out, err = run(NNCOSIM, "validate", model)
    check(name + ": validate", rc == 0 and "1 valid" in out,
          f"exit {rc}: {out[-400:]} {err[-800:]}")
    rc, out, err = run(NNCOSIM, "run", model, "--inputs", inputs)
    if not check(name + ": run", rc == 0, f"exit {rc}: {err[-800:]}"):
        return None
    m = re.search(r"^output 0 TENSOR_FLOAT32 \[1, %d\]: (\[.*\])$" % classes, out, re.M)
    if not check(name + ": run prints the probabilities", m is not None, out[-800:]):
        return None
    probs = json.loads(m.group(1))
    check(name + ": %d probabilities" % classes, len(probs) == classes, str(probs))
    check(name + ": probabilities in [0, 1]", all(0 <= p <= 1 for p in probs), str(probs))
    check(name + ": probabilities sum to 1", abs(sum(probs) - 1) < 1e-4, str(sum(probs)))
    # Not degenerate: no class takes everything, and several classes are visible.
    check(name + ": softmax not saturated", max(probs) < 0.99 and sum(p > 1e-3 for p in probs) >= 3,
          str(probs))
    return probs


with tempfile.TemporaryDirectory() as tmp:
    model, inputs, stats = (os.path.join(tmp, f) for f in ("small.json", "in.json", "stats.json"))
    macs = generate("signed", model, *SMALL, "--inputs-out", inputs, "--stats-json", stats)
    pool = os.path.join(tmp, "small.pool0.bin")
    check("pool file written", os.path.isfile(pool))
    if os.path.isfile(pool):
        with open(model) as f:
            pools = json.load(f)["pools"]
        want = [{"file": "small.pool0.bin", "size": os.path.getsize(pool)}]
        check("pool size recorded", pools == want, str(pools))
    rc, out, err = run(NNCOSIM, "info", model, "--no-operands")
    check("info", rc == 0 and f"total: {macs} MACs" in out, f"exit {rc}, MACs {macs}: {out[-300:]}")

    probs = run_model("signed", model, inputs, 10)
    if probs is not None and os.path.isfile(stats):
        with open(stats) as f:
            st = json.load(f)
        want = st["probabilities"]
        check("reference equals the generator's integer simulation",
              len(want) == len(probs) and all(abs(a - b) < 1e-5 for a, b in zip(probs, want)),
              f"nncosim {probs}, simulation {want}")
        # No layer clamps a noticeable share of its outputs at the top of its range.
        for layer in st["layers"]:
            check(f"layer {layer['name']} not saturated", layer["at_high"] < 0.01, str(layer))
            check(f"layer {layer['name']} not dead",
                  layer["distinct"] >= min(8, layer["shape"][-1]), str(layer))

    # Same seed, same bytes; another seed, other weights.
    again = os.path.join(tmp, "again.json")
    generate("determinism", again, *SMALL)
    with open(model) as a, open(again) as b:
        # Equal but for the pool file's name, which follows the model's.
        check("same seed gives the same model JSON",
              a.read() == b.read().replace('"again.pool0.bin"', '"small.pool0.bin"'))
    with open(pool, "rb") as a, open(os.path.join(tmp, "again.pool0.bin"), "rb") as b:
        check("same seed gives the same pool", a.read() == b.read())
    other = os.path.join(tmp, "other.json")
    generate("other seed", other, *SMALL, "--seed", "2")
    with open(pool, "rb") as a, open(os.path.join(tmp, "other.pool0.bin"), "rb") as b:
        check("another seed gives other weights", a.read() != b.read())

    # TENSOR_QUANT8_ASYMM activations, another size and width.
    u_model, u_inputs = os.path.join(tmp, "u.json"), os.path.join(tmp, "u_in.json")
    generate("unsigned", u_model, "--unsigned", "--size", "64", "--width-multiplier", "0.5",
             "--classes", "16", "--inputs-out", u_inputs)
    with open(u_model) as f:
        check("unsigned activations", '"TENSOR_QUANT8_ASYMM"' in f.read())
    run_model("unsigned", u_model, u_inputs, 16)

    # --quant 16x8: int16 activations in the 16x8 mode; the int16 logits are the output
    # and must equal the generator's integer simulation code for code.
    w_model, w_inputs, w_stats = (os.path.join(tmp, f) for f in ("w.json", "w_in.json",
                                                                  "w_stats.json"))
    w_macs = generate("16x8", w_model, *SMALL, "--quant", "16x8", "--inputs-out", w_inputs,
                      "--stats-json", w_stats)
    check("16x8: same MACs as the 8-bit network", w_macs == macs, f"{w_macs} vs {macs}")
    with open(w_model) as f:
        text = f.read()
    check("16x8: the model selects the mode", '"quant16x8": true' in text)
    check("16x8: int16 activations", '"TENSOR_QUANT16_SYMM"' in text)
    rc, out, err = run(NNCOSIM, "validate", w_model)
    check("16x8: validate", rc == 0 and "1 valid" in out, f"exit {rc}: {out[-400:]} {err[-800:]}")
    rc, out, err = run(NNCOSIM, "info", w_model, "--no-operands")
    check("16x8: info", rc == 0 and "16x8 quantization: yes" in out, f"exit {rc}: {out[-300:]}")
    rc, out, err = run(NNCOSIM, "run", w_model, "--inputs", w_inputs, "--backend", "ref")
    m = re.search(r"^output 0 TENSOR_QUANT16_SYMM \[1, 10\]: (\[.*\])$", out, re.M)
    if check("16x8: run prints the int16 logits", rc == 0 and m is not None,
             f"exit {rc}: {out[-800:]} {err[-800:]}") and os.path.isfile(w_stats):
        with open(w_stats) as f:
            st = json.load(f)
        codes = json.loads(m.group(1))
        check("16x8: reference equals the generator's integer simulation",
              codes == st["output_codes"], f"nncosim {codes}, simulation {st['output_codes']}")
        check("16x8: logits not degenerate", len(set(codes)) == 10, str(codes))
        for layer in st["layers"]:
            check(f"16x8: layer {layer['name']} not saturated", layer["at_high"] < 0.01,
                  str(layer))

for f in failures:
    print("FAIL " + f)
print(f"{checks - len(failures)}/{checks} checks passed")
sys.exit(1 if failures else 0)
