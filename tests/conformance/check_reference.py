#!/usr/bin/env python3
"""Runs the whole conformance suite on a backend and checks it against the committed
expectations: the pass-count floor and, on the driver backends, the NPU coverage floor
(tests and steps that ran on the NPU, hybrid LSTM steps included; conformance_floor.json),
no unsupported test, every expectFailure test rejected, and bit-exactness everywhere
except the known deviations (known_bit_exact_deviations.tsv), in both directions."""
import json
import os
import subprocess
import sys
import tempfile

nncosim, vectors, backend = sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "ref"
here = os.path.dirname(os.path.abspath(__file__))
floor = json.load(open(os.path.join(here, "..", "conformance_floor.json"))).get(backend, {})
known = {}
for line in open(os.path.join(here, "known_bit_exact_deviations.tsv")):
    if line.startswith("#") or not line.strip():
        continue
    name, reason = line.rstrip("\n").split("\t", 1)
    known[name] = reason

with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "summary.json")
    p = subprocess.run([nncosim, "conformance", vectors, "--backend", backend, "--json", out,
                        "--max-failures", "50"], capture_output=True, text=True)
    print(p.stdout[-6000:])
    if not os.path.exists(out):
        print(p.stderr)
        sys.exit(1)
    s = json.load(open(out))

problems = []
if s["passed"] < floor.get("passed", 0):
    problems.append(f"passed {s['passed']} < floor {floor['passed']}")
if s["bit_exact"] < floor.get("bit_exact", 0):
    problems.append(f"bit-exact {s['bit_exact']} < floor {floor['bit_exact']}")
if s.get("npu_tests", 0) < floor.get("npu_tests", 0):
    problems.append(f"{s.get('npu_tests', 0)} tests used the NPU < floor {floor['npu_tests']}")
if s.get("npu_steps", 0) < floor.get("npu_steps", 0):
    problems.append(f"{s.get('npu_steps', 0)} NPU steps < floor {floor['npu_steps']}")
if s["unsupported"]:
    problems.append(f"{s['unsupported']} unsupported tests")
if s["expect_failure_rejected"] != s["expect_failure"]:
    problems.append(f"expectFailure rejected {s['expect_failure_rejected']}/{s['expect_failure']}")
inexact = set(s["not_bit_exact"])
for n in sorted(inexact - set(known)):
    problems.append(f"not bit-exact and not a known deviation: {n}")
for n in sorted(set(known) - inexact):
    problems.append(f"known deviation now bit-exact (remove it from the list): {n}")
print(f"{s['passed']}/{s['total']} passed, {s['failed']} failed, {s['unsupported']} unsupported, "
      f"bit-exact {s['bit_exact']}/{s['integer_output_tests']} ({len(known)} known deviations), "
      f"{s.get('npu_tests', 0)} tests on the NPU ({s.get('npu_steps', 0)} steps), {s['seconds']:.1f} s")
for p_ in problems:
    print("PROBLEM:", p_)
sys.exit(1 if problems else 0)
