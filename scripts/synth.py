#!/usr/bin/env python3
"""Synthesizes the NPU with Yosys (synth_xilinx, 7-series) and reports its resources.

One hierarchical synthesis of nnc_npu_top at the build's parameters gives every unit's
LUTs, flip-flops, DSP48E1s, block RAMs and LUT RAMs (a unit's figures include the modules
it instantiates), the longest combinational path in cells of each unit's own logic
(Yosys `ltp`; flip-flops, block RAMs, DSP48E1s and submodule instances cut paths) and of
the flattened whole NPU. The mapped netlist stays in --out DIR as mapped.il. Checks: no latch anywhere, every buffer bank in block RAM (no
flip-flop or LUT RAM array left in its place), every MAC multiplier in a DSP48E1.

  scripts/synth.py [--array N] [--out DIR] [--json FILE] [--top MODULE] [--from DIR]

The ISA package comes from firmware/gen_isa.py with the chosen array size, so no build is
needed. Exit status 0 when synthesis succeeded and every check passed, 1 otherwise, 2 on a
usage error. The table goes to stdout; --json writes the same figures as JSON.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# 7-series primitive -> resource column.
LUTS = {f"LUT{i}" for i in range(1, 7)}
FFS = {"FDRE", "FDSE", "FDCE", "FDPE"}
LATCHES = {"LDCE", "LDPE", "$_DLATCH_P_", "$_DLATCH_N_", "$dlatch", "$adlatch", "$sr"}
LUTRAMS = {"RAM32M", "RAM64M", "RAM32X1D", "RAM64X1D", "RAM128X1D", "RAM256X1S", "RAM32X1S",
           "RAM64X1S", "RAM128X1S", "RAM32M16", "RAM64M8"}
SRLS = {"SRL16E", "SRLC32E"}
BRAM36, BRAM18 = "RAMB36E1", "RAMB18E1"
DSP = "DSP48E1"
# Cells that end a combinational path: registered outputs (flip-flops, block RAMs, DSP48E1s
# with their accumulator register) and storage written on a clock (LUT RAM, shift
# registers), whose ports ltp would otherwise join into loops.
SEQUENTIAL = sorted(FFS | {BRAM36, BRAM18, DSP} | {"LDCE", "LDPE"} | SRLS | LUTRAMS)

# Units reported, by module name (parameterised copies are named $paramod\NAME\...).
UNITS = ["nnc_npu_top", "nnc_regfile", "nnc_cmd_proc", "nnc_dma", "nnc_dma_walker",
         "nnc_compute", "nnc_mac_array", "nnc_requant", "nnc_densify", "nnc_densify_reader",
         "prim_fifo_sync", "nnc_buffer", "prim_ram_1r1w_be", "nnc_eltwise_engine", "nnc_eltwise",
         "nnc_mbqm", "nnc_pool_engine", "nnc_pool"]


def base_name(module):
    """'$paramod$<hash>\\nnc_buffer', '$paramod\\nnc_requant\\Lanes=...' or '\\nnc_buffer'
    -> 'nnc_buffer'."""
    m = module.lstrip("\\")
    if m.startswith("$paramod"):
        return m.split("\\")[1]
    return m


def sources(sv_dir):
    rtl = os.path.join(ROOT, "rtl")
    files = [os.path.join(sv_dir, "nnc_isa_pkg.sv"), os.path.join(rtl, "nnc_pkg.sv")]
    for d in (rtl, os.path.join(rtl, "prim")):
        for f in sorted(os.listdir(d)):
            if f.endswith(".sv") and f != "nnc_pkg.sv":
                files.append(os.path.join(d, f))
    return files


def yosys_script(files, top, work):
    cut = " ".join(f"t:{c} %d" for c in SEQUENTIAL)
    # Per unit, a submodule instance ends a path like a register: counted as one cell whose
    # every output depends on every input, instances that feed each other (the top's units
    # through its buffers) form loops, and ltp on the 16x16 top printed gigabytes of loop
    # warnings. The top's figure comes from the flattened netlist instead.
    instance_cut = "t:$paramod* %d t:nnc_* %d t:prim_* %d"
    inc = os.path.join(ROOT, "rtl", "prim")
    return "\n".join([
        f"read_verilog -sv -DSYNTHESIS -I{inc} " + " ".join(files),
        f"synth_xilinx -family xc7 -top {top}",
        f"tee -q -o {work}/stat.json stat -json",
        f"tee -q -o {work}/top_cells.txt dump {top}/t:$paramod*",
        # The mapped netlist, so that paths can be analysed again without a resynthesis.
        f"write_rtlil {work}/mapped.il",
        f"tee -q -o {work}/ltp_units.txt ltp * {cut} {instance_cut} {top} %d",
        "flatten",
        f"tee -q -o {work}/ltp_top.txt ltp * {cut}",
        "",
    ])


def load_stat(path):
    """Yosys 0.23's `stat -json` on a hierarchy prints the hierarchy as text after the
    modules object; keep the JSON up to there."""
    text = open(path).read()
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        cut = text.rfind("\n   },", 0, e.pos)
        if cut < 0:
            raise
        return json.loads(text[:cut] + "\n   }\n}")


def own_counts(stat):
    """module -> {cell type: count} of its own cells (submodule instances included). An
    instance of a module without parameters has the module's name without the leading
    backslash as its cell type: it is renamed to the module's key, so that it expands."""
    modules = stat["modules"]
    out = {}
    for name, m in modules.items():
        cells = {}
        for cell, n in m.get("num_cells_by_type", {}).items():
            key = "\\" + cell if cell not in modules and "\\" + cell in modules else cell
            cells[key] = cells.get(key, 0) + n
        out[name] = cells
    return out


def totals(module, own, memo):
    """Cell counts of module with its submodules expanded."""
    if module in memo:
        return memo[module]
    out = {}
    for cell, n in own.get(module, {}).items():
        if cell in own:
            for c, k in totals(cell, own, memo).items():
                out[c] = out.get(c, 0) + n * k
        else:
            out[cell] = out.get(cell, 0) + n
    memo[module] = out
    return out


def resources(counts):
    def total(types):
        return sum(n for c, n in counts.items() if c in types)
    return {
        "luts": total(LUTS),
        "ffs": total(FFS),
        "dsp48e1": counts.get(DSP, 0),
        "ramb36": counts.get(BRAM36, 0),
        "ramb18": counts.get(BRAM18, 0),
        "bram36_equiv": counts.get(BRAM36, 0) + counts.get(BRAM18, 0) / 2,
        "lutram": total(LUTRAMS),
        "srl": total(SRLS),
        "carry4": counts.get("CARRY4", 0),
        "latches": total(LATCHES),
    }


def parse_ltp(path):
    """module -> longest path length in cells ({} when the file is missing: a run stopped
    before its path analysis, whose resources still report)."""
    out = {}
    if not os.path.exists(path):
        return out
    with open(path) as fh:
        for line in fh:
            m = re.match(r"Longest topological path in (\S+) \(length=(\d+)\)", line.strip())
            if m:
                out[m.group(1)] = int(m.group(2))
    return out


def parse_instances(path):
    """[(instance name, module)] of the top's submodule instances, from `dump`."""
    out = []
    with open(path) as fh:
        for line in fh:
            m = re.match(r"\s*cell (\S+) \\?(\S+)$", line.rstrip())
            if m:
                out.append((m.group(2), m.group(1)))
    return sorted(out)


def instances(module, own):
    """Count of each unit's instances under module (for the table's 'x N' column)."""
    out = {}
    for cell, n in own.get(module, {}).items():
        if cell in own:
            out[cell] = out.get(cell, 0) + n
            for c, k in instances(cell, own).items():
                out[c] = out.get(c, 0) + n * k
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--array", type=int, default=16, help="MAC array rows = columns (8, 16, 32)")
    ap.add_argument("--top", default="nnc_npu_top")
    ap.add_argument("--out", help="keep the work files (Yosys log, stat JSON) in DIR")
    ap.add_argument("--json", help="write the figures as JSON to FILE")
    ap.add_argument("--from", dest="reuse", metavar="DIR",
                    help="report from the work files of an earlier --out DIR run (no synthesis)")
    args = ap.parse_args()
    if args.array not in (8, 16, 32):
        print(f"synth: --array {args.array}: the NPU is built as 8x8, 16x16 or 32x32", file=sys.stderr)
        return 2
    if args.reuse:  # the report of an earlier run: no package, no Yosys needed
        args.out = args.reuse
        return report(args, args.reuse, 0.0)
    if not shutil.which("yosys"):
        print("synth: yosys not found (apt-get install yosys, or scripts/setup.sh)", file=sys.stderr)
        return 1
    work = args.out or tempfile.mkdtemp(prefix="nnc-synth-")
    os.makedirs(work, exist_ok=True)
    sv = os.path.join(work, "sv")
    os.makedirs(sv, exist_ok=True)
    gen = subprocess.run([sys.executable, os.path.join(ROOT, "firmware", "gen_isa.py"),
                          "--set", f"array_rows={args.array}", "--set", f"array_cols={args.array}",
                          "--sv-dir", sv], capture_output=True, text=True)
    if gen.returncode != 0:
        print(f"synth: gen_isa.py failed: {gen.stderr.strip()}", file=sys.stderr)
        return 1
    ys = os.path.join(work, "synth.ys")
    with open(ys, "w") as fh:
        fh.write(yosys_script(sources(sv), args.top, work))
    log = os.path.join(work, "yosys.log")
    t0 = time.monotonic()
    run = subprocess.run(["yosys", "-q", "-l", log, ys], capture_output=True, text=True)
    seconds = time.monotonic() - t0
    if run.returncode != 0:
        err = (run.stderr or run.stdout).strip().splitlines()
        print(f"synth: yosys failed on {args.top} ({args.array}x{args.array}); log: {log}", file=sys.stderr)
        print("\n".join(err[-20:]), file=sys.stderr)
        return 1
    with open(os.path.join(work, "seconds"), "w") as fh:
        fh.write(f"{seconds:.1f}\n")
    return report(args, work, seconds)


def report(args, work, seconds):
    if not seconds and os.path.exists(os.path.join(work, "seconds")):
        seconds = float(open(os.path.join(work, "seconds")).read())
    stat = load_stat(os.path.join(work, "stat.json"))
    own = own_counts(stat)
    memo = {}
    ltp_units = parse_ltp(os.path.join(work, "ltp_units.txt"))
    ltp_top = parse_ltp(os.path.join(work, "ltp_top.txt"))
    top_module = next(m for m in own if base_name(m) == args.top)
    inst = instances(top_module, own)
    children = parse_instances(os.path.join(work, "top_cells.txt"))

    def row(label, m, count, path):
        r = resources(totals(m, own, memo))
        r.update(unit=label, module=m.lstrip("\\"), instances=count, ltp_cells=path)
        return r

    def unit_path(m):
        return ltp_units.get(m.lstrip("\\"), ltp_units.get(m))

    rows = [row(args.top, top_module, 1, ltp_top.get(top_module.lstrip("\\"), ltp_top.get(top_module)))]
    for name, m in children:
        rows.append(row(f"{name} ({base_name(m)})", m, 1, unit_path(m)))
    direct = {m for _, m in children}
    for unit in UNITS:
        for m in sorted(m for m in own if base_name(m) == unit and m not in direct and m != top_module):
            rows.append(row(unit, m, inst.get(m, 0), unit_path(m)))

    problems = []
    all_counts = totals(top_module, own, memo)
    latches = resources(all_counts)["latches"]
    if latches:
        problems.append(f"{latches} latch(es) inferred")
    for m in own:
        if base_name(m) == "prim_ram_1r1w_be":
            r = resources(totals(m, own, memo))
            if r["bram36_equiv"] == 0 or r["lutram"] > 0:
                problems.append(f"{m.lstrip(chr(92))}: not in block RAM ({r['ramb36']} RAMB36, "
                                f"{r['ramb18']} RAMB18, {r['lutram']} LUT RAM)")
            # A bank in block RAM keeps at most a read register per block RAM port (72 bits) in
            # flip-flops; a bank left in flip-flops has its whole array there.
            if r["ffs"] > 72 * (r["ramb36"] + r["ramb18"]):
                problems.append(f"{m.lstrip(chr(92))}: {r['ffs']} flip-flops beside its block RAM")
    for m in own:
        if base_name(m) == "nnc_mac_array":
            r = resources(totals(m, own, memo))
            pes = args.array * args.array
            if r["dsp48e1"] < pes:
                problems.append(f"{m.lstrip(chr(92))}: {r['dsp48e1']} DSP48E1 for {pes} PEs")

    result = {"top": args.top, "array": f"{args.array}x{args.array}", "family": "xc7",
              "yosys": subprocess.run(["yosys", "-V"], capture_output=True, text=True).stdout.strip(),
              "seconds": round(seconds, 1), "units": rows, "problems": problems}
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(result, fh, indent=1)
            fh.write("\n")

    print(f"{args.top} {args.array}x{args.array}, synth_xilinx -family xc7 ({result['yosys']}), "
          f"{seconds:.0f} s")
    hdr = f"{'unit':<26}{'x':>3}{'LUT':>9}{'FF':>9}{'DSP48E1':>9}{'RAMB36':>8}{'RAMB18':>8}{'LUTRAM':>8}{'SRL':>6}{'path':>6}"
    print(hdr)
    print("-" * len(hdr))
    for r in rows:
        name = r["unit"]
        path = "-" if r["ltp_cells"] is None else str(r["ltp_cells"])
        print(f"{name:<26}{r['instances']:>3}{r['luts']:>9,}{r['ffs']:>9,}{r['dsp48e1']:>9}"
              f"{r['ramb36']:>8}{r['ramb18']:>8}{r['lutram']:>8}{r['srl']:>6}{path:>6}")
    print("(a unit's figures include its submodules; x = instances in the NPU; path = longest "
          "combinational path in cells: the top's in the flattened NPU, a unit's in its own "
          "logic, submodule instances cutting paths like registers; - = not analysed)")
    sys.stdout.flush()
    if not args.out:
        shutil.rmtree(work, ignore_errors=True)
    if problems:
        for p in problems:
            print(f"synth: FAILED: {p}", file=sys.stderr)
        return 1
    checked = ["no latch"]
    if any(base_name(m) == "prim_ram_1r1w_be" for m in own):
        checked.append("every buffer bank in block RAM")
    if any(base_name(m) == "nnc_mac_array" for m in own):
        checked.append("every MAC in a DSP48E1")
    print("checks: " + ", ".join(checked))
    return 0


if __name__ == "__main__":
    sys.exit(main())
