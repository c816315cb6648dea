#!/usr/bin/env python3
"""scripts/synth.py's resource totals from Yosys `stat -json`: a unit's figures include its
submodules, whether Yosys names an instance's cell type `$paramod\\NAME\\...` (a module
with parameters) or `NAME` without the module key's backslash (a module without, such as
nnc_mbqm). Usage: synth_counts_test.py SYNTH_PY"""
import importlib.util
import sys

spec = importlib.util.spec_from_file_location("synth", sys.argv[1])
synth = importlib.util.module_from_spec(spec)
spec.loader.exec_module(synth)
failures = []


def check(name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else f": {detail}"))
    if not ok:
        failures.append(name)


stat = {"modules": {
    "\\top": {"num_cells_by_type": {"LUT6": 2, "plain": 3, "$paramod\\param\\X=1": 1}},
    "\\plain": {"num_cells_by_type": {"LUT6": 5, "DSP48E1": 1, "leaf": 2}},
    "\\leaf": {"num_cells_by_type": {"FDRE": 7}},
    "$paramod\\param\\X=1": {"num_cells_by_type": {"FDRE": 4, "RAMB36E1": 1}},
}}
own = synth.own_counts(stat)
check("an unparameterised instance is keyed by its module", own["\\top"].get("\\plain") == 3,
      own["\\top"])
totals = synth.totals("\\top", own, {})
check("LUTs of the top with its submodules", totals.get("LUT6") == 2 + 3 * 5, totals)
check("DSP48E1s of the instances", totals.get("DSP48E1") == 3, totals)
check("flip-flops two levels down and of the parameterised module",
      totals.get("FDRE") == 3 * 2 * 7 + 4, totals)
r = synth.resources(totals)
check("resources(): luts, ffs, dsp48e1, ramb36",
      (r["luts"], r["ffs"], r["dsp48e1"], r["ramb36"]) == (17, 46, 3, 1), r)
check("no instance left as a cell", not any(c.lstrip("\\") in ("plain", "leaf") for c in totals),
      totals)

print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
