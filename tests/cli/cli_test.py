#!/usr/bin/env python3
"""End-to-end checks of the nncosim command line: exit codes, messages, and that bad
input never crashes (a crash shows up as a negative return code)."""
import json
import os
import re
import subprocess
import sys
import tempfile

NNCOSIM, VECTORS = sys.argv[1], sys.argv[2]
failures = []
checks = 0


def run(*args, input_files=None):
    p = subprocess.run([NNCOSIM, *args], capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def check(name, cond, detail=""):
    global checks
    checks += 1
    if not cond:
        failures.append(f"{name}: {detail}")


def expect(name, args, code, fragment=None, stream="stderr"):
    rc, out, err = run(*args)
    text = out if stream == "stdout" else err
    check(name, rc == code, f"exit {rc}, wanted {code}; stderr: {err[-400:]}")
    if fragment is not None:
        check(name + " (message)", fragment in text, f"missing {fragment!r} in {text[-400:]!r}")


with tempfile.TemporaryDirectory() as tmp:
    def write(name, text):
        path = os.path.join(tmp, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    expect("help", ["--help"], 0, "conformance", "stdout")
    expect("no command", [], 2)
    expect("unknown command", ["frobnicate"], 2, "unknown command")
    for cmd in ["run", "validate", "info", "conformance", "testbench", "disasm", "capabilities"]:
        expect(f"{cmd} --help", [cmd, "--help"], 0, "usage:", "stdout")
    expect("bad option", ["validate", "--bogus"], 2, "bogus")

    # validate: good vector file, malformed/truncated/unknown-enum/overflow files.
    expect("validate vectors", ["validate", os.path.join(VECTORS, "V1_0", "conv_float.json")], 0, "valid", "stdout")
    expect("validate malformed", ["validate", write("m.json", "{not json")], 1, "malformed JSON")
    expect("validate truncated", ["validate", write("t.json", '{"format":"nncosim-model/1","main":{"operands":[')], 1,
           "malformed JSON")
    op = '{"type":"%s","dimensions":%s,"scale":%s,"zeroPoint":%s,"lifetime":"%s"%s}'
    def model(*operands, ops="[]", ins="[0]", outs="[]"):
        return '{"format":"nncosim-model/1","main":{"operands":[%s],"operations":%s,"inputIndexes":%s,"outputIndexes":%s}}' % (
            ",".join(operands), ops, ins, outs)
    expect("validate unknown enum", ["validate", write("e.json", model(op % ("TENSOR_FOO", "[1]", 0, 0, "SUBGRAPH_INPUT", "")))],
           1, 'unknown operand type "TENSOR_FOO"')
    expect("validate wrong type", ["validate", write("w.json", model(op % ("TENSOR_FLOAT32", '"x"', 0, 0, "SUBGRAPH_INPUT", "")))],
           1, "dimensions: expected an array")
    good_in = op % ("TENSOR_FLOAT32", "[2]", 0, 0, "SUBGRAPH_INPUT", "")
    good_out = op % ("TENSOR_FLOAT32", "[2]", 0, 0, "SUBGRAPH_OUTPUT", "")
    act = op % ("INT32", "[]", 0, 0, "CONSTANT_COPY", ',"data":[0]')
    expect("validate index out of range",
           ["validate", write("i.json", model(good_in, good_out, act,
                                              ops='[{"type":"ADD","inputs":[0,7,2],"outputs":[1]}]', outs="[1]"))],
           1, "operand 7 out of range")
    expect("validate negative scale",
           ["validate", write("s.json", model(op % ("TENSOR_QUANT8_ASYMM", "[2]", -0.5, 0, "SUBGRAPH_INPUT", ""), good_out,
                                              ops='[{"type":"ADD","inputs":[0,0,2],"outputs":[1]}]', outs="[1]"))],
           1, "scale is negative")
    expect("validate overflow",
           ["validate", write("o.json", model(op % ("TENSOR_FLOAT32", "[65536,65536,4]", 0, 0, "SUBGRAPH_INPUT", ""), good_out,
                                              ops='[{"type":"ADD","inputs":[0,0,2],"outputs":[1]}]', outs="[1]"))],
           1, "overflows")
    expect("validate missing pool",
           ["validate", write("p.json", '{"format":"nncosim-model/1","pools":[{"file":"gone.bin"}],"main":{}}')],
           1, "gone.bin")
    expect("validate missing file", ["validate", os.path.join(tmp, "absent.json")], 1, "cannot open")

    # info on the demo network and on a vector file.
    rc, out, _ = run("info")
    check("info demo", rc == 0 and "DENSIFY" in out and "MACs" in out, out[-300:])
    expect("info vector", ["info", os.path.join(VECTORS, "V1_0", "conv_float.json")], 0, "CONV_2D", "stdout")

    # conformance: a filtered run writes the JSON summary and JUnit.
    js, xml = os.path.join(tmp, "c.json"), os.path.join(tmp, "c.xml")
    rc, out, err = run("conformance", VECTORS, "--filter", "V1_0/add", "--json", js, "--junit", xml)
    check("conformance runs", rc in (0, 1), err[-300:])
    summary = json.load(open(js))
    for key in ["total", "passed", "failed", "unsupported", "bit_exact", "seconds", "by_operation", "failures"]:
        check(f"conformance json has {key}", key in summary)
    check("conformance filtered", 0 < summary["total"] < 100, summary.get("total"))
    check("junit written", open(xml).read().startswith("<?xml"))
    # Shards are disjoint and cover everything.
    totals = []
    for k in (1, 2, 3):
        sj = os.path.join(tmp, f"s{k}.json")
        run("conformance", VECTORS, "--filter", "V1_0/", "--shard", f"{k}/3", "--json", sj)
        totals.append(json.load(open(sj))["total"])
    whole = os.path.join(tmp, "all.json")
    run("conformance", VECTORS, "--filter", "V1_0/", "--json", whole)
    check("shards cover the set", sum(totals) == json.load(open(whole))["total"], totals)
    expect("bad shard", ["conformance", VECTORS, "--shard", "4/3"], 2, "--shard")
    expect("bad regex", ["conformance", VECTORS, "--filter", "(("], 2, "bad regex")

    # disasm: a valid END, an undefined opcode and a truncated tail.
    import struct
    stream = os.path.join(tmp, "s.bin")
    with open(stream, "wb") as f:
        f.write(struct.pack("<8I", 7, 0, 0, 0, 0, 0, 0, 0))
        f.write(struct.pack("<8I", 0xFF, 0, 0, 0, 0, 0, 0, 0))
        f.write(b"\x01\x02")
    rc, out, err = run("disasm", stream)
    check("disasm decodes end", "end" in out.splitlines()[0], out)
    check("disasm flags corrupt", "undefined opcode 255" in out, out)
    check("disasm truncated", rc == 1 and "trailing bytes" in err, err)
    ok_stream = os.path.join(tmp, "ok.bin")
    with open(ok_stream, "wb") as f:
        f.write(struct.pack("<8I", 7, 0, 0, 0, 0, 0, 0, 0))
    expect("disasm clean", ["disasm", ok_stream], 0)

    # The SoC is deterministic across processes: the same job, the same cycles.
    rc, out, _ = run("testbench", "--list")
    if " soc " in out or "\nsoc " in out or out.startswith("soc "):
        a = run("testbench", "soc", "--seed", "3", "--iterations", "2")
        b = run("testbench", "soc", "--seed", "3", "--iterations", "2")
        check("soc passes", a[0] == 0, a[1][-300:])
        cyc = [l.split("cycles=")[1].split()[0] for l in (a[1], b[1]) if "cycles=" in l]
        check("soc cycles identical across runs", len(cyc) == 2 and cyc[0] == cyc[1], cyc)
        # run on the NPU with the cross-check, report and trace.
        rep, trace = os.path.join(tmp, "r.json"), os.path.join(tmp, "t.json")
        rc, out, err = run("run", "--check", "--report", rep, "--trace", trace)
        check("run --check on sim", rc == 0 and "every NPU step bit-exact" in out, err[-300:] + out[-500:])
        r = json.load(open(rep))
        check("report has steps", len(r["steps"]) == 8 and r["totals"]["npu_steps"] >= 4, r.get("totals"))
        t = json.load(open(trace))
        tracks = {(e.get("pid"), e.get("tid")) for e in t["traceEvents"] if e.get("ph") == "X"}
        check("trace has NPU unit and CPU tracks", (1, 2) in tracks and (2, 1) in tracks, tracks)
        # One slice per command that reached a unit (every command but each job's END),
        # named by opcode, inside its step in time, and never overlapping on one queue.
        xs = [e for e in t["traceEvents"] if e.get("ph") == "X" and e.get("pid") == 1]
        steps_x = {e["name"]: e for e in xs if e["tid"] == 0}
        slices = [e for e in xs if e["tid"] >= 1]
        eps = 1e-6
        for s in r["steps"]:
            if s["where"] != "npu":
                continue
            name = f"{s['step']} {s['operation']}"
            mine = [e for e in slices if e["args"].get("step") == name]
            check(f"trace: {name} has a slice per command", len(mine) == s["commands"] - s["jobs"],
                  f"{len(mine)} slices, {s['commands']} commands in {s['jobs']} jobs")
            st = steps_x.get(name)
            inside = st is not None and all(st["ts"] - eps <= e["ts"] and e["ts"] + e["dur"] <= st["ts"] + st["dur"] + eps
                                            for e in mine)
            check(f"trace: {name} slices inside the step", inside, st)
        ops = {"DMA_LOAD", "DMA_STORE", "GEMM", "DWCONV", "REQUANT_STORE", "DENSIFY", "SYNC"}
        check("trace: slices named by opcode", slices and all(e["name"].split()[0] in ops for e in slices),
              sorted({e["name"] for e in slices})[:10])
        gemms = [e for e in slices if e["name"].startswith("GEMM")]
        check("trace: GEMM slices on the compute track with m, n, k",
              gemms and all(e["tid"] == 2 and " m=" in e["name"] and " k=" in e["name"] for e in gemms), gemms[:2])
        check("trace: DENSIFY on the densify track",
              [e["tid"] for e in slices if e["name"].startswith("DENSIFY")] == [4], None)
        for tid in (1, 2, 3, 4):
            track = sorted((e for e in slices if e["tid"] == tid), key=lambda e: e["ts"])
            overlaps = [(a["name"], b["name"]) for a, b in zip(track, track[1:]) if b["ts"] < a["ts"] + a["dur"] - eps]
            check(f"trace: unit {tid} slices never overlap", not overlaps, overlaps[:3])
        # The front door validates once: the model's structure once, each operation's
        # signature once (the demo network has 8 operations).
        check("run validates the model once", r.get("validations") == {"model": 1, "operation_signatures": 8},
              r.get("validations"))
        # Every host cycle on the books: the totals add the modelled host time to the
        # device's, each step says what the host moved, and the table says both.
        tot = r["totals"]
        check("report: end to end = device + host", abs(tot["end_to_end_us"] - tot["device_us"] - tot["host_model_us"]) < 1e-6
              and tot["host_model_us"] > 0 and tot["host_layout_bytes"] > 0
              and 0 <= tot["host_bytes_between_npu_steps"] <= tot["host_layout_bytes"], tot)
        # A step whose tensors stay in device DRAM (its producer and consumers NPU steps in
        # one layout) moves nothing on the host; the network's input and output do.
        check("report: every step has its host share", all("host" in s for s in r["steps"])
              and r["steps"][0]["host"]["dram_bytes"] > 0 and r["steps"][-1]["host"]["dram_bytes"] > 0,
              [s.get("host") for s in r["steps"]][:3])
        check("report: a tensor between NPU steps stays on the device",
              any(s["where"] == "npu" and s["host"]["dram_bytes"] == 0 for s in r["steps"]),
              [(s["where"], s.get("host", {}).get("dram_bytes")) for s in r["steps"]])
        check("table: end to end beside the device cycles", "end to end" in out and "of them between NPU steps" in out,
              out[-600:])
        # The SoC's counters have no array timeline: no depthwise figure from them.
        check("report: no depthwise cycles without a timeline", tot.get("depthwise_cycles") == 0
              and "depthwise layers:" not in out, (tot.get("depthwise_cycles"), out[-400:]))
        rc2, out2, err2 = run("run", "--backend", "isa", "--host", "clock_mhz=1000")
        check("run --host clock_mhz=1000", rc2 == 0 and "host model: 1000 MHz" in out2, err2[-300:] + out2[-300:])
        # The ISA model's array timeline: GEMM beats, the idle cycles while DWCONVs run and
        # before the first GEMMs, and the depthwise layers' figure (the demo's pair).
        check("run --backend isa: the array's timeline and the depthwise figure",
              "array (the ISA model's timeline): GEMM beats" in out2 and "depthwise layers: 9216 MACs" in out2,
              out2[-900:])
        expect("run --host bad", ["run", "--backend", "isa", "--host", "warp=9"], 1, "unknown host model key")
        # The report's times are at the SoC's clock, not a fixed 1000 MHz.
        rep500 = os.path.join(tmp, "r500.json")
        rc, out, err = run("run", "--set", "clock_mhz=500", "--report", rep500)
        r500 = json.load(open(rep500)) if rc == 0 else {}
        check("run --set clock_mhz=500 reports at 500 MHz", rc == 0 and r500.get("clock_mhz") == 500
              and " at 500 MHz" in out, out[-400:] + err[-300:])
        # A faulty NPU (every DRAM write burst's first byte XOR 1) is caught: --check names the
        # differing steps and fails, the SoC line says a fault is injected, and a difftest
        # over the same faulty SoC counts mismatches; the ISA model refuses the setting.
        rc, out, err = run("run", "--check", "--set", "fault_write_xor=1")
        check("run --check catches a faulty NPU", rc == 1 and "MISMATCH step 2 (CONV_2D)" in err
              and "FAULT INJECTED" in out and "every NPU step bit-exact" not in out,
              out[-500:] + err[-500:])
        rc, out, err = run("difftest", "--layers", "6", "--seed", "2", "--set", "fault_write_xor=1")
        found = re.search(r"mismatches (\d+)", out + err)
        check("difftest catches a faulty NPU", rc == 1 and found is not None and int(found.group(1)) > 0,
              out[-500:] + err[-500:])
        expect("isa refuses fault injection", ["run", "--backend", "isa", "--set", "fault_write_xor=1"], 1,
               "injects no faults")
        # Buffer sizes: the ISA model takes others (a sweep axis without a build), the RTL
        # only its own.
        rc, out, err = run("run", "--backend", "isa", "--set", "inp_buf_bytes=32768", "--set",
                           "wgt_buf_bytes=16384")
        check("isa models other buffer sizes", rc == 0 and "inp_buf_bytes 32768 (built" in out
              and "wgt_buf_bytes 16384" in out, out[-400:] + err[-300:])
        expect("sim refuses buffer sizes it was not built with",
               ["run", "--set", "inp_buf_bytes=32768"], 1, "the RTL's buffers are fixed when it is built")
        # The compiler plans for the SoC's DRAM: on the ISA model (the compiler's own cost
        # model) every GEMM step's estimate equals what it ran, at slow DRAM as at the default.
        # Planning with the default SoC's latency would estimate 400-cycle DRAM 2-3x too fast.
        for lat in ("40", "400"):
            rep_lat = os.path.join(tmp, f"lat{lat}.json")
            rc, out, err = run("run", "--backend", "isa", "--set", f"dram_latency_cycles={lat}",
                               "--report", rep_lat)
            gemms = [] if rc else [s for s in json.load(open(rep_lat))["steps"]
                                   if s["where"] == "npu" and s["operation"] != "DENSIFY"]
            check(f"plans at DRAM latency {lat} estimate what they run", rc == 0 and len(gemms) >= 4
                  and all(s["estimated_cycles"] == s["cycles"] for s in gemms),
                  [(s["operation"], s["estimated_cycles"], s["cycles"]) for s in gemms] or err[-300:])
        expect("run bad preference", ["run", "--preference", "turbo"], 2, "--preference")
        expect("run bad setting", ["run", "--set", "warp_factor=9"], 1, "unknown key")
        # The array size is the RTL's, fixed when it is built (NNCOSIM_ARRAY_SIZE): refused when
        # set, naming the built size.
        rc, out, err = run("run", "--set", "array_rows=64")
        built = re.search(r"is not the built size (\d+)", err)
        check("run array size not the built one", rc == 1 and built is not None
              and f"{built.group(1)}x{built.group(1)}, fixed at build time" in err, err[-300:])

    # capabilities: measured figures, and with a model where each operation runs and why.
    rc, out, err = run("capabilities", "--demo", "--backend", "isa")
    check("capabilities --demo", rc == 0 and "measured: calibration CONV_2D" in out and "#0   CONV_2D" in out
          and "SOFTMAX" in out and "on the NPU" in out and "on the MAC array" in out, err[-300:] + out[-800:])
    rc, out, err = run("capabilities", "--backend", "ref")
    check("capabilities without an NPU", rc == 0 and "no NPU" in out, err[-300:] + out[-400:])
    expect("capabilities of a bad model", ["capabilities", write("bad_cap.json", "{not json")], 1, "malformed JSON")

    # run: the demo network is valid and runs or says what it cannot do yet.
    rc, out, err = run("run")
    check("run demo", rc == 0 and "demo network" in out, err[-300:] + out[-300:])

print(f"{checks - len(failures)} passed, {len(failures)} failed")
for f in failures:
    print("FAIL", f)
sys.exit(1 if failures else 0)
