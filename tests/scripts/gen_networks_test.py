#!/usr/bin/env python3
"""scripts/gen_mobilenet_v2.py and scripts/gen_resnet50.py end to end: a small variant of
each is generated (deterministically), validated, and run on the simulated SoC with the
cross-check; the MACs match `nncosim info`, the network has its residual ADDs (and
ResNet its MAX_POOL_2D), every NPU step is bit-exact, the probabilities are a sane
softmax, and --stats is refused naming what it cannot simulate.

usage: gen_networks_test.py NNCOSIM SCRIPTS_DIR"""
import json
import os
import re
import subprocess
import sys
import tempfile

NNCOSIM, SCRIPTS = sys.argv[1], sys.argv[2]
SMALL = ["--size", "32", "--width-multiplier", "0.25", "--classes", "10"]
failures = []


def check(name, cond, detail=""):
    print(("ok   " if cond else "FAIL ") + name + ("" if cond else f": {detail}"))
    if not cond:
        failures.append(name)
    return cond


def run(*args):
    p = subprocess.run(list(args), capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


with tempfile.TemporaryDirectory() as tmp:
    # MobileNet-v2 at width 0.25: the full network's 10 residual ADDs and one more, as the
    # first block's 32 -> 16 channels both round to 8.
    nets = (("gen_mobilenet_v2.py", {"ADD": 11}), ("gen_resnet50.py", {"ADD": 16, "MAX_POOL_2D": 1}))
    for gen, ops in nets:
        script = os.path.join(SCRIPTS, gen)
        model, inputs = os.path.join(tmp, gen + ".json"), os.path.join(tmp, gen + ".in.json")
        rc, out, err = run(sys.executable, script, "-o", model, "--inputs-out", inputs, *SMALL)
        if not check(f"{gen}: writes the model", rc == 0, err[-600:]):
            continue
        macs = int(re.search(r"(\d+) MACs", out).group(1))
        again = os.path.join(tmp, gen + ".again.json")
        run(sys.executable, script, "-o", again, *SMALL)
        with open(model) as a, open(again) as b:
            strip = lambda t: t.replace(os.path.basename(again)[:-5], os.path.basename(model)[:-5])  # noqa: E731
            check(f"{gen}: deterministic", strip(b.read()) == a.read())
        with open(model) as f:
            types = [o["type"] for o in json.load(f)["main"]["operations"]]
        for op, n in ops.items():
            check(f"{gen}: {n} {op}", types.count(op) == n, str(types.count(op)))
        rc, out, err = run(NNCOSIM, "validate", model)
        check(f"{gen}: validates", rc == 0 and "1 valid" in out, out[-300:] + err[-300:])
        rc, out, err = run(NNCOSIM, "info", model, "--no-operands")
        check(f"{gen}: info counts the generator's MACs", rc == 0 and f"total: {macs} MACs" in out,
              out[-300:])
        rc, out, err = run(NNCOSIM, "run", model, "--inputs", inputs, "--check")
        check(f"{gen}: runs bit-exact on the SoC", rc == 0 and "every NPU step bit-exact" in out,
              out[-500:] + err[-500:])
        m = re.search(r"^output 0 TENSOR_FLOAT32 \[1, 10\]: (\[.*\])$", out, re.M)
        probs = json.loads(m.group(1)) if m else []
        check(f"{gen}: a sane softmax", len(probs) == 10 and abs(sum(probs) - 1) < 1e-4
              and max(probs) < 0.99 and sum(p > 1e-3 for p in probs) >= 3, str(probs))
        rc, out, err = run(sys.executable, script, "-o", os.path.join(tmp, "x.json"), *SMALL, "--stats")
        check(f"{gen}: --stats refused", rc == 2 and "this network also has add" in err, err[-300:])

print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
