#!/usr/bin/env python3
"""firmware/gen_isa.py refuses a spec that breaks the hardware contract's rules, each with
an error naming the entry: bit patterns written in hex, quantities in decimal, an ASCII
magic that matches its value, depths and buffers of legal sizes, CONFIG fields that hold
what they report. The committed spec itself generates.
Usage: gen_isa_test.py firmware/gen_isa.py firmware/isa.json"""
import copy
import json
import os
import subprocess
import sys
import tempfile

GEN, SPEC = sys.argv[1], sys.argv[2]
failures = []
checks = 0


def generate(spec, tmp):
    path = os.path.join(tmp, "isa.json")
    with open(path, "w") as f:
        json.dump(spec, f)
    p = subprocess.run([sys.executable, GEN, "--spec", path, "--cpp-dir", os.path.join(tmp, "cpp"),
                        "--sv-dir", os.path.join(tmp, "sv")], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stderr


def reg(spec, name):
    return next(r for r in spec["registers"] if r["name"] == name)


def const(spec, name):
    return next(c for c in spec["constants"] if c["name"] == name)


def field(spec, register, name):
    return next(f for f in reg(spec, register)["fields"] if f["name"] == name)


def set_key(getter, key, value):
    def mutate(spec):
        getter(spec)[key] = value
    return mutate


# (what, mutation, fragment of the expected error)
CASES = [
    ("a decimal reset value", set_key(lambda s: reg(s, "id"), "reset", 1313752881), "is not a hex string"),
    ("a reset that is not hex", set_key(lambda s: reg(s, "id"), "reset", "0xNNC1"), "is not a hex string"),
    ("an empty hex string", set_key(lambda s: reg(s, "id"), "reset", "0x"), "is not a hex string"),
    ("a reset wider than 32 bits", set_key(lambda s: reg(s, "id"), "reset", "0x14E4E4331"), "does not fit 32 bits"),
    ("the magic of 'NNG1' under 'NNC1'", set_key(lambda s: reg(s, "id"), "reset", "0x4E4E4731"), "does not spell 'NNC1'"),
    ("a decimal offset", set_key(lambda s: reg(s, "ctrl"), "offset", 8), "is not a hex string"),
    ("an offset beyond reg_addr_bits", set_key(lambda s: reg(s, "ctrl"), "offset", "0x1000"), "does not fit 12 bits"),
    ("an unaligned offset", set_key(lambda s: reg(s, "ctrl"), "offset", "0x009"), "not word aligned"),
    ("two registers at one offset", set_key(lambda s: reg(s, "ctrl"), "offset", "0x004"), "is also version's"),
    ("a quantity written as a string", set_key(lambda s: const(s, "array_rows"), "value", "16"), "is not an integer"),
    ("a hex quantity", set_key(lambda s: const(s, "cmd_queue_depth"), "value", "0x4"), "is not an integer"),
    ("a buffer that is not a power of two", set_key(lambda s: const(s, "inp_buf_bytes"), "value", 200000),
     "must be a power of two"),
    ("a depth of one", set_key(lambda s: const(s, "gemm_tiles"), "value", 1), "must be a power of two >= 2"),
    ("a buffer beyond the buffer address", set_key(lambda s: const(s, "acc_buf_bytes"), "value", 1 << 21),
     "exceeds 2^buf_addr_bits"),
    ("a depth too wide for its CONFIG field", set_key(lambda s: const(s, "cmd_queue_depth"), "value", 512),
     "does not fit 8 bits"),
    ("a field reporting an unknown constant", set_key(lambda s: field(s, "config_queues", "queue_depth"), "reports",
                                                      "queue_deep"), "unknown constant 'queue_deep'"),
    ("a writable register reporting a constant", set_key(lambda s: reg(s, "config_inp_bytes"), "access", "rw"),
     "only a read-only register"),
    ("a constant reported twice", set_key(lambda s: field(s, "config_dma", "bursts"), "reports", "cmd_queue_depth"),
     "already reported by CONFIG_QUEUES.queue_depth"),
    ("overlapping register fields", set_key(lambda s: field(s, "config_compute", "densify_beats"), "lsb", 4),
     "overlaps another field"),
]


def check(name, cond, detail=""):
    global checks
    checks += 1
    if not cond:
        failures.append(f"{name}: {detail}")


with open(SPEC) as f:
    base = json.load(f)
with tempfile.TemporaryDirectory() as tmp:
    rc, err = generate(base, tmp)
    check("the committed spec generates", rc == 0, err)
    for what, mutate, fragment in CASES:
        spec = copy.deepcopy(base)
        mutate(spec)
        rc, err = generate(spec, tmp)
        check(what, rc == 1 and fragment in err, f"exit {rc}, wanted 1 with {fragment!r}; stderr: {err.strip()}")

print(f"{checks - len(failures)} passed, {len(failures)} failed")
for f in failures:
    print("FAIL", f)
sys.exit(1 if failures else 0)
