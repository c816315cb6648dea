#!/usr/bin/env python3
"""Seed corpora for the fuzz targets (README, "Fuzzing"), made from the project's own files:
the ISA spec (firmware/isa.json) encodes valid command streams and DENSIFY descriptors,
docs/model-format.md gives a model file, and the conformance vectors (read in place from
../shared) give vector files. Nothing here is committed; it is rebuilt on demand.

usage: make_fuzz_corpus.py OUTDIR [--vectors DIR]
writes OUTDIR/{model_reader,vector_reference,isa_stream,soc_stream,densify,tflite_reader}/"""
import argparse
import json
import os
import re
import struct

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ISA = json.load(open(os.path.join(ROOT, "firmware", "isa.json")))
OPCODES = {v["name"]: v["value"] for e in ISA["enums"] if e["name"] == "opcode" for v in e["values"]}
BUFFERS = {v["name"]: v["value"] for e in ISA["enums"] if e["name"] == "buffer" for v in e["values"]}
# The SoC fuzz targets map one 64 KiB window after the 128 KiB command ring (tests/fuzz/
# soc_harness.h); the ISA target's DRAM model covers it too.
WINDOW = 0x8002_0000


def encode(op, **fields):
    """One 32-byte command from field values by name (header flags included)."""
    words = [0] * ISA["command_words"]
    spec = {f["name"]: f for f in ISA["header"]}
    cmd = next(c for c in ISA["commands"] if c["opcode"] == op)
    spec.update({f["name"]: f for f in cmd["fields"]})
    fields = dict(fields, opcode=OPCODES[op])
    for name, value in fields.items():
        f = spec[name]
        words[f["word"]] |= (value & ((1 << f["width"]) - 1)) << f["lsb"]
    return struct.pack("<8I", *words)


def streams():
    end = encode("end", tag=1)
    inp, wgt, out = BUFFERS["inp"], BUFFERS["wgt"], BUFFERS["out"]
    load = lambda buf, off, n, **k: encode("dma_load", buf_id=buf, dram_addr=WINDOW + off, count0=n, count1=1,
                                           count2=1, **k)
    yield "end", end
    yield "load", load(inp, 0, 256) + end
    yield "load_2d", encode("dma_load", buf_id=inp, dram_addr=WINDOW, dram_stride1=64, count0=16, count1=16,
                            count2=2, dram_stride2=1024, buf_stride1=16, buf_stride2=256) + end
    yield "store", encode("dma_store", buf_id=out, dram_addr=WINDOW + 0x8000, count0=256, count1=1, count2=1) + end
    gemm = encode("gemm", m=16, n=16, k=16, inp_addr=0, wgt_addr=0, acc_addr=0, a_signed=1, b_signed=1,
                  pop_prev=1)
    rq = encode("requant_store", rows=16, out_signed=1, acc_addr=0, out_addr=0, clamp_min=0xFFFFFF80,
                clamp_max=0x7F, push_next=1)
    yield "gemm_chain", (load(inp, 0, 256) + encode("dma_load", buf_id=wgt, dram_addr=WINDOW + 256, count0=256,
                                                    count1=1, count2=1, push_next=1)
                         + gemm + rq
                         + encode("dma_store", buf_id=out, dram_addr=WINDOW + 0x8000, count0=256, count1=1,
                                  count2=1, pop_prev=1) + end)
    yield "sync", encode("sync", exec_queue=1) + end
    yield "densify", encode("densify", desc_addr=WINDOW, values_addr=WINDOW + 0x4000, out_addr=WINDOW + 0x8000,
                            out_size=64) + end


def densify_inputs():
    """[elem width, out size lo, hi, spare] + a descriptor (rtl-datapath.md, "Descriptor")
    whose arrays lie in the same image; the values are the image again at +16 KiB."""
    def header(levels, blocks, values, fill):
        return struct.pack("<8I", levels, blocks, values, fill, 0, 0, 0, 0)

    def level(order, fmt, dim, bmap=0, seg=0, nseg=0, idx=0, nidx=0):
        return struct.pack("<8I", order, fmt, dim, bmap, seg, nseg, idx, nidx)

    # Dense 4x4: two dense levels, 16 values.
    dense = header(2, 0, 16, 0) + level(0, 0, 4) + level(1, 0, 4)
    yield "dense4x4", bytes([0, 16, 0, 0]) + dense
    # CSR 4x4 with 3 stored values: rows dense, columns sparse; arrays after the records.
    base = 8 * 4 + 2 * 8 * 4
    segs = struct.pack("<5i", 0, 1, 1, 2, 3)
    idxs = struct.pack("<3i", 2, 0, 3)
    csr = (header(2, 0, 3, 0) + level(0, 0, 4)
           + level(1, 1, 4, seg=WINDOW + base, nseg=5, idx=WINDOW + base + len(segs), nidx=3) + segs + idxs)
    yield "csr4x4", bytes([0, 16, 0, 0]) + csr
    yield "csr4x4_int32", bytes([2, 64, 0, 0]) + csr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("--vectors", default=os.path.join(ROOT, "..", "shared", "conformance", "vectors"))
    a = ap.parse_args()

    def put(target, name, data):
        d = os.path.join(a.outdir, target)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)

    doc = open(os.path.join(ROOT, "docs", "model-format.md")).read()
    for i, block in enumerate(re.findall(r"```json\n(.*?)```", doc, re.S)):
        put("model_reader", f"doc{i}.json", block.encode())
    # Small vector files of several operation families, read in place.
    picked = 0
    if os.path.isdir(a.vectors):
        small = sorted(os.path.join(d, f) for d, _, fs in os.walk(a.vectors) for f in fs
                       if f.endswith(".json") and os.path.getsize(os.path.join(d, f)) < 8000)
        for p in small[::max(1, len(small) // 60)][:60]:  # spread over every operation family
            data = open(p, "rb").read()
            name = os.path.basename(p)
            put("vector_reference", name, data)
            put("model_reader", "vec_" + name, data)
            picked += 1
    tfl = os.path.join(os.path.dirname(a.vectors.rstrip("/")), "..", "models", "tflite")
    for dirpath, _, files in sorted(os.walk(tfl)):
        for fn in sorted(files):
            if fn.endswith(".tflite") and os.path.getsize(os.path.join(dirpath, fn)) < (1 << 20):
                put("tflite_reader", fn, open(os.path.join(dirpath, fn), "rb").read())
    for name, data in streams():
        put("isa_stream", name, data)
        put("soc_stream", name, data)
    for name, data in densify_inputs():
        put("densify", name, data)
    print(f"corpus in {a.outdir}: {picked} vector files, {len(list(streams()))} streams, "
          f"{len(list(densify_inputs()))} densify inputs")


if __name__ == "__main__":
    main()
