#!/usr/bin/env python3
"""scripts/sweep.py on the embedded demo: the grid's points, the ISA model following the
SoC settings (more DRAM latency, more cycles), SoC-checked points with the model's error,
and shards that merge into the whole grid. Usage: sweep_test.py SWEEP_PY BUILD_DIR"""
import csv
import json
import os
import subprocess
import sys
import tempfile

SWEEP, BUILD = sys.argv[1], sys.argv[2]
failures = []


def check(name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else f": {detail}"))
    if not ok:
        failures.append(name)


def sweep(*args):
    p = subprocess.run([sys.executable, SWEEP, "-", "--build", BUILD, *args], capture_output=True,
                       text=True, timeout=600)
    return p.returncode, p.stderr


def rows(path):
    with open(path) as fh:
        return list(csv.DictReader(fh))


with tempfile.TemporaryDirectory() as tmp:
    grid = ["--set", "dram_latency_cycles=40,400", "--set", "dram_bytes_per_cycle=4,16"]
    full = os.path.join(tmp, "full.csv")
    rc, err = sweep(*grid, "--check-every", "3", "--csv", full)
    check("sweep runs", rc == 0, err[-400:])
    r = rows(full) if rc == 0 else []
    check("four points", [x["point"] for x in r] == ["0", "1", "2", "3"], str(r)[:300])
    by = {x["settings"]: x for x in r}
    slow = by.get("dram_latency_cycles=400 dram_bytes_per_cycle=4", {})
    fast = by.get("dram_latency_cycles=40 dram_bytes_per_cycle=16", {})
    check("the ISA model follows the SoC settings",
          int(slow.get("npu_cycles", 0)) > int(fast.get("npu_cycles", 1)), f"{slow} {fast}")
    checked = [x for x in r if x["sim_npu_cycles"]]
    check("every 3rd point checked on the SoC", [x["point"] for x in checked] == ["0", "3"], str(checked))
    # Recorded, not bounded: away from the SoC's defaults the model's error is large (the
    # demo at 400 cycles of DRAM latency: -33 %; docs say so).
    check("the model's error is recorded", bool(checked) and all(
        abs(float(x["model_error_pct"]) - 100.0 * (int(x["npu_cycles"]) - int(x["sim_npu_cycles"]))
            / int(x["sim_npu_cycles"])) < 0.01 for x in checked), str(checked))
    parts = []
    for k in (1, 2):
        part = os.path.join(tmp, f"part{k}.csv")
        rc, err = sweep(*grid, "--check-every", "3", "--shard", f"{k}/2", "--csv", part)
        check(f"shard {k}/2", rc == 0, err[-300:])
        parts.append(part)
    merged = os.path.join(tmp, "merged.csv")
    p = subprocess.run([sys.executable, SWEEP, "--merge", *parts, "--csv", merged], capture_output=True, text=True)
    check("shards merge into the whole grid", p.returncode == 0 and
          [(x["point"], x["npu_cycles"], x["sim_npu_cycles"]) for x in rows(merged)] ==
          [(x["point"], x["npu_cycles"], x["sim_npu_cycles"]) for x in r], p.stderr[-300:])
    # Resources attached afterwards: --merge with --synth sets them on the rows of that size.
    synth16 = os.path.join(tmp, "synth16.json")
    with open(synth16, "w") as fh:
        json.dump({"top": "nnc_npu_top", "array": "16x16", "problems": [], "units": [
            {"unit": "nnc_npu_top", "luts": 111, "ffs": 222, "dsp48e1": 333, "bram36_equiv": 44.5}]}, fh)
    withres = os.path.join(tmp, "withres.csv")
    p = subprocess.run([sys.executable, SWEEP, "--merge", full, "--synth", synth16, "--csv", withres],
                       capture_output=True, text=True)
    wr = rows(withres) if p.returncode == 0 else []
    check("--merge --synth sets the resources of every row", p.returncode == 0 and len(wr) == len(r) and all(
        (x["luts"], x["ffs"], x["dsp48e1"], x["bram36"]) == ("111", "222", "333", "44.5") and
        x["npu_cycles"] == y["npu_cycles"] for x, y in zip(wr, r)), p.stderr[-300:] + str(wr)[:300])
    unit = os.path.join(tmp, "unit.json")
    with open(unit, "w") as fh:
        json.dump({"top": "nnc_mac_array", "array": "16x16", "problems": [], "units": [
            {"unit": "nnc_mac_array", "luts": 1, "ffs": 2, "dsp48e1": 3, "bram36_equiv": 0}]}, fh)
    p = subprocess.run([sys.executable, SWEEP, "--merge", full, "--synth", unit, "--csv", withres],
                       capture_output=True, text=True)
    check("a unit's synthesis is not taken for the NPU's",
          p.returncode == 1 and "nnc_mac_array, not of nnc_npu_top" in p.stderr, p.stderr)
    with open(unit, "w") as fh:
        fh.write("{ not json")
    p = subprocess.run([sys.executable, SWEEP, "--merge", full, "--synth", unit, "--csv", withres],
                       capture_output=True, text=True)
    check("a malformed --synth file is named", p.returncode == 1 and unit in p.stderr
          and "Traceback" not in p.stderr, p.stderr)
    p = subprocess.run([sys.executable, SWEEP, "--merge", parts[0], parts[0], "--csv", merged],
                       capture_output=True, text=True)
    check("a shard merged twice is refused", p.returncode == 1 and "repeat grid points" in p.stderr, p.stderr)
    # Buffer sizes: an ISA-model axis; a size the RTL was not built with is not SoC-checked.
    bufs = os.path.join(tmp, "bufs.csv")
    rc, err = sweep("--set", "wgt_buf_bytes=262144,8192", "--check-every", "1", "--csv", bufs)
    b = rows(bufs) if rc == 0 else []
    check("buffer sizes sweep on the ISA model", rc == 0 and len(b) == 2, err[-400:])
    if len(b) == 2:
        # The plan follows the buffer (the demo streams its weights through 8 KiB: other
        # cycles and DRAM bytes; not always more cycles, as streaming can overlap better).
        check("the plan follows the WGT buffer size", b[1]["npu_cycles"] != b[0]["npu_cycles"]
              and b[1]["npu_dram_bytes"] != b[0]["npu_dram_bytes"], str(b))
        check("the built size is SoC-checked, the other not", b[0]["sim_npu_cycles"].isdigit()
              and b[1]["sim_npu_cycles"] == "not built", str(b))
    rc, err = sweep("--set", "array_rows=32")
    check("the array as a --set axis is refused", rc == 2 and "--build per size" in err, err)
    rc, err = sweep("--set", "warp=1,2")
    check("an unknown key names the point and the key", rc == 1 and "point 0" in err and "warp" in err, err)

print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
