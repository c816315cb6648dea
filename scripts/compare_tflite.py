#!/usr/bin/env python3
"""Runs a .tflite model on the same inputs through TensorFlow Lite itself and through
nncosim, and prints per output: shape, dtype, max absolute difference, how many elements
differ, and top-1 agreement (argmax equal) where the output is a vector.

usage: compare_tflite.py MODEL.tflite --inputs a.npy[,b.npy...] [--backend sim|isa|ref]
                         [--check] [--nncosim PATH] [--node-modules DIR] [--work-dir DIR]
                         [--json FILE] [--xnnpack on] [--intermediates]

TFLite is the npm package @tensorflow/tfjs-tflite 0.0.1-alpha.10 (TFLite compiled to
WebAssembly), run under Node by scripts/tflite_run.mjs, single-threaded, with its XNNPACK
delegate refused so that TFLite's builtin kernels run every node (--xnnpack on keeps the
delegate: its int8 arithmetic is XNNPACK's, not TFLite's kernels'). `scripts/setup.sh`
installs the package into build/node/.

What the figures mean: nncosim computes TFLite's *reference* kernels (double-rounding
requantization, as NNAPI). TFLite's builtin int8 CONV_2D and FULLY_CONNECTED kernels round
once, so an element can come out 1 higher or lower; the script says so when every
difference is 1 and the model has such a node. Any other difference is reported as not
explained by that rounding.

--intermediates: not available. The package's interpreter (TFLiteWebModelRunner)
exposes only the model's input and output tensors; intermediate tensors live in TFLite's
arena, which reuses their memory, and the runner has no option to preserve them. The
script exits 2 with that message.

Exit status: 0 when both runs completed (whatever the differences), 1 when a run failed,
2 on a usage error. --json FILE writes the figures for scripts and tests.
"""
import argparse
import ast
import json
import os
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
HELPER = os.path.join(ROOT, "scripts", "tflite_run.mjs")

# .npy descr -> (struct code, dtype name)
DESCR = {
    "|i1": ("b", "int8"), "|u1": ("B", "uint8"), "<i2": ("h", "int16"),
    "<i4": ("i", "int32"), "<u4": ("I", "uint32"), "<i8": ("q", "int64"),
    "<f4": ("f", "float32"), "<f8": ("d", "float64"), "|b1": ("?", "bool"),
}
ROUNDING_OPS = ("CONV_2D", "FULLY_CONNECTED")


def read_npy(path):
    """Returns (dtype name, shape, values) of a little-endian, C-order .npy file."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        raise ValueError(f"{path}: not a .npy file (bad magic)")
    major = data[6]
    if major == 1:
        hlen, start = struct.unpack_from("<H", data, 8)[0], 10
    else:
        hlen, start = struct.unpack_from("<I", data, 8)[0], 12
    header = ast.literal_eval(data[start:start + hlen].decode("latin1"))
    if header.get("fortran_order"):
        raise ValueError(f"{path}: Fortran order is not supported")
    descr = header["descr"]
    if descr not in DESCR:
        raise ValueError(f"{path}: unsupported dtype {descr!r}")
    code, name = DESCR[descr]
    shape = tuple(header["shape"])
    count = 1
    for d in shape:
        count *= d
    values = struct.unpack_from(f"<{count}{code}", data, start + hlen)
    return name, shape, list(values)


def argmax(values):
    best = 0
    for i, v in enumerate(values):
        if v > values[best]:
            best = i
    return best


def is_vector(shape):
    """A classifier-like output: one axis longer than 1, the others 1."""
    return len([d for d in shape if d != 1]) == 1


def compare(name, tfl, nnc, rounding_nodes):
    """The figures for one output: TFLite's array against nncosim's."""
    t_dtype, t_shape, t_vals = tfl
    n_dtype, n_shape, n_vals = nnc
    row = {"name": name, "shape": list(t_shape), "dtype": t_dtype,
           "nncosim_shape": list(n_shape), "nncosim_dtype": n_dtype}
    if t_shape != n_shape or t_dtype != n_dtype:
        row.update(comparable=False, verdict="shape or dtype differ")
        return row
    diffs = [abs(a - b) for a, b in zip(t_vals, n_vals)]
    differing = sum(1 for d in diffs if d != 0)
    max_diff = max(diffs) if diffs else 0
    by_one = sum(1 for d in diffs if d == 1)
    row.update(comparable=True, elements=len(diffs), max_abs_diff=max_diff,
               differing=differing, differing_by_1=by_one)
    if is_vector(t_shape) and len(t_vals) > 1:
        row["top1_tflite"] = argmax(t_vals)
        row["top1_nncosim"] = argmax(n_vals)
        row["top1_agree"] = row["top1_tflite"] == row["top1_nncosim"]
    if differing == 0:
        row["verdict"] = "equal"
    elif (t_dtype == "int8" and max_diff == 1 and rounding_nodes):
        row["verdict"] = (f"{differing} elements differ by 1: expected single- vs "
                          f"double-rounding difference in int8 CONV_2D/FULLY_CONNECTED "
                          f"({', '.join(rounding_nodes)} in the model; a ±1 in an early layer can "
                          f"reach this output)")
        row["explained"] = True
    else:
        row["verdict"] = (f"{differing} elements differ (max {max_diff}): NOT explained by the "
                          f"int8 CONV_2D/FULLY_CONNECTED rounding difference")
        row["explained"] = False
    return row


def run(cmd, what):
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        sys.stderr.write(f"compare_tflite: {what} failed (exit {proc.returncode}): "
                         f"{' '.join(cmd)}\n{proc.stdout[-4000:]}{proc.stderr[-4000:]}\n")
        sys.exit(1)
    return proc.stdout


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n\n".join(__doc__.split("\n\n")[2:]))
    ap.add_argument("model")
    ap.add_argument("--inputs", required=True, help="a.npy,b.npy in the model's input order")
    ap.add_argument("--backend", default="sim", choices=["sim", "isa", "ref"])
    ap.add_argument("--check", action="store_true", help="pass --check to nncosim run")
    ap.add_argument("--nncosim", default=os.path.join(ROOT, "build", "cli", "nncosim"))
    ap.add_argument("--node-modules", default=os.path.join(ROOT, "build", "node", "node_modules"))
    ap.add_argument("--work-dir", help="keep both runs' outputs here (default: a temporary dir)")
    ap.add_argument("--json", help="write the figures as JSON")
    ap.add_argument("--xnnpack", choices=["on"], help="keep TFLite's XNNPACK delegate")
    ap.add_argument("--intermediates", action="store_true",
                    help="per intermediate tensor: not available (see below)")
    args = ap.parse_args()
    args.node_modules = os.path.abspath(args.node_modules)
    args.nncosim = os.path.abspath(args.nncosim)

    if args.intermediates:
        sys.stderr.write("compare_tflite: --intermediates is not available: "
                         "@tensorflow/tfjs-tflite's TFLiteWebModelRunner exposes only the "
                         "model's inputs and outputs (intermediate tensors share TFLite's "
                         "arena and are not preserved)\n")
        sys.exit(2)
    pkg = os.path.join(args.node_modules, "@tensorflow", "tfjs-tflite", "wasm",
                       "tflite_web_api_cc.wasm")
    if not os.path.exists(pkg):
        sys.stderr.write(f"compare_tflite: TFLite's interpreter is not installed ({pkg} is "
                         "missing); run scripts/setup.sh (npm install --prefix build/node "
                         "@tensorflow/tfjs-tflite@0.0.1-alpha.10)\n")
        sys.exit(1)
    if not os.path.exists(args.nncosim):
        sys.stderr.write(f"compare_tflite: {args.nncosim} not found; build first "
                         "(scripts/build.sh build)\n")
        sys.exit(1)

    work = args.work_dir or tempfile.mkdtemp(prefix="compare_tflite.")
    tfl_dir, nnc_dir = os.path.join(work, "tflite"), os.path.join(work, "nncosim")
    os.makedirs(tfl_dir, exist_ok=True)
    os.makedirs(nnc_dir, exist_ok=True)

    cmd = ["node", HELPER, "--module-dir", args.node_modules, "--model", args.model,
           "--inputs", args.inputs, "--outputs-dir", tfl_dir]
    if args.xnnpack:
        cmd += ["--xnnpack", "on"]
    tfl = json.loads(run(cmd, "TFLite (scripts/tflite_run.mjs)").strip().splitlines()[-1])

    cmd = [args.nncosim, "run", args.model, "--inputs", args.inputs, "--outputs-dir", nnc_dir,
           "--backend", args.backend]
    if args.check:
        cmd.append("--check")
    run(cmd, "nncosim run")

    node_types = [n["type"] for n in tfl["nodes"]]
    counts = {}
    for t in node_types:
        counts[t] = counts.get(t, 0) + 1
    rounding = [f"{counts[t]} {t}" for t in ROUNDING_OPS if t in counts]

    print(f"model    {args.model}")
    print(f"inputs   {args.inputs}")
    print(f"TFLite   @tensorflow/tfjs-tflite 0.0.1-alpha.10 (WebAssembly, 1 thread), "
          f"{len(node_types)} nodes, XNNPACK {tfl['xnnpack']}"
          + (f", {tfl['xnnpack_nodes']} nodes on the XNNPACK delegate" if tfl["xnnpack_nodes"]
             else ", every node on the builtin kernels"))
    if tfl["patches"]:
        ids = ", ".join(str(p["tensor"]) for p in tfl["patches"])
        print(f"         note: {len(tfl['patches'])} tensors ({ids}) have a quantized_dimension "
              "not below their rank, which TFLite's interpreter refuses (tflite-micro does "
              "not check it); they were handed to TFLite with quantized_dimension 0, the only "
              "valid axis of a rank-1 tensor")
    if tfl["xnnpack"] == "refused" and tfl["delegates_refused"] != 1:
        print(f"         WARNING: XNNPACK refusal patched {tfl['delegates_refused']} delegate "
              f"structs (expected 1)")
    if tfl["xnnpack_nodes"]:
        print("         WARNING: nodes ran on XNNPACK, whose int8 arithmetic is neither "
              "TFLite's builtin nor its reference kernels")
    print(f"nncosim  {args.nncosim} run --backend {args.backend}"
          + (" --check" if args.check else ""))
    print()

    rows = []
    for k, out in enumerate(tfl["outputs"]):
        t = read_npy(out["file"])
        n = read_npy(os.path.join(nnc_dir, f"output{k}.npy"))
        row = compare(out["name"], t, n, rounding)
        row["index"] = k
        rows.append(row)
        print(f"output {k}  {out['name']}")
        print(f"  shape {tuple(row['shape'])}  dtype {row['dtype']}")
        if not row["comparable"]:
            print(f"  nncosim: shape {tuple(row['nncosim_shape'])} dtype {row['nncosim_dtype']}"
                  f": not comparable")
            continue
        print(f"  max abs diff {row['max_abs_diff']}  differing {row['differing']} of "
              f"{row['elements']}")
        if "top1_agree" in row:
            print(f"  top-1: TFLite {row['top1_tflite']}, nncosim {row['top1_nncosim']}: "
                  + ("agree" if row["top1_agree"] else "DISAGREE"))
        if row["elements"] <= 16:
            print(f"  TFLite  {t[2]}")
            print(f"  nncosim {n[2]}")
        print(f"  {row['verdict']}")

    if args.json:
        with open(args.json, "w") as f:
            json.dump({"model": args.model, "inputs": args.inputs.split(","),
                       "backend": args.backend, "tflite": {
                           "xnnpack": tfl["xnnpack"], "xnnpack_nodes": tfl["xnnpack_nodes"],
                           "delegates_refused": tfl["delegates_refused"],
                           "nodes": node_types, "patches": tfl["patches"]},
                       "work_dir": work, "outputs": rows}, f, indent=1)


if __name__ == "__main__":
    main()
