// Runs a .tflite model through TensorFlow Lite's own interpreter (the npm package
// @tensorflow/tfjs-tflite: TFLite compiled to WebAssembly) under Node, for
// scripts/compare_tflite.py.
//
//   node scripts/tflite_run.mjs --module-dir DIR --model M.tflite --inputs a.npy,b.npy
//        --outputs-dir OUT [--xnnpack on]
//
// Writes OUT/output<k>.npy per model output and prints one JSON object on stdout:
// {"outputs": [{"name","dtype","shape","file"}], "nodes": [{"type","name"}],
//  "patches": [...], "xnnpack": "refused"|"on", "xnnpack_nodes": N, "log": [...]}.
//
// Why the module is loaded by hand: the package's client fetches its .wasm over HTTP
// (a browser path). Handing the Emscripten factory the .wasm bytes (`wasmBinary`)
// avoids that; the non-threaded, non-SIMD build runs single-threaded under Node.
import fs from 'node:fs';
import path from 'node:path';
import {createRequire} from 'node:module';

function parseArgs(argv) {
  const args = {threads: 1};
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i].replace(/^--/, '').replace(/-/g, '_');
    args[key] = argv[++i];
  }
  for (const k of ['module_dir', 'model', 'inputs', 'outputs_dir']) {
    if (args[k] === undefined) throw new Error(`missing --${k.replace(/_/g, '-')}`);
  }
  return args;
}

// --- .npy (format 1.0-3.0, little-endian, C order) -------------------------------
const kDescr = {int8: '|i1', uint8: '|u1', int16: '<i2', int32: '<i4', uint32: '<u4',
                float32: '<f4', float64: '<f8', bool: '|b1'};

function readNpy(file) {
  const b = fs.readFileSync(file);
  if (b.length < 10 || b.toString('latin1', 0, 6) !== '\x93NUMPY') {
    throw new Error(`${file}: not a .npy file (bad magic)`);
  }
  const major = b[6];
  const hlen = major === 1 ? b.readUInt16LE(8) : b.readUInt32LE(8);
  const hstart = major === 1 ? 10 : 12;
  const header = b.toString('latin1', hstart, hstart + hlen);
  const descr = /'descr':\s*'([^']*)'/.exec(header);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header);
  if (!descr || !shape || /'fortran_order':\s*True/.test(header)) {
    throw new Error(`${file}: unsupported .npy header ${header.trim()}`);
  }
  return {descr: descr[1],
          shape: shape[1].split(',').map((s) => s.trim()).filter((s) => s).map(Number),
          data: b.subarray(hstart + hlen)};
}

function writeNpy(file, dtype, shape, bytes) {
  const shapeText = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  let header = `{'descr': '${kDescr[dtype]}', 'fortran_order': False, 'shape': ${shapeText}, }`;
  // Magic (6) + version (2) + length (2) + header + '\n' is a multiple of 64.
  const pad = 64 - ((10 + header.length + 1) % 64);
  header += ' '.repeat(pad % 64) + '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1;
  head[7] = 0;
  head.writeUInt16LE(header.length, 8);
  fs.writeFileSync(file, Buffer.concat([head, Buffer.from(header, 'latin1'), Buffer.from(bytes)]));
}

// --- Flatbuffer walk: quantized_dimension out of range --------------------------
// TFLite's interpreter refuses a tensor whose quantized_dimension is not below its
// rank ("quantized_dimension must be in range [0, 1). Was 3."); tflite-micro does not
// check it, and person_detect's rank-1 biases carry 3. For a rank-1 tensor the only
// valid dimension is 0, which is what the scales mean, so the field is rewritten to 0
// in a copy of the bytes, and every rewrite is reported. Offsets follow the public
// schema: Model.subgraphs = field 2, SubGraph.tensors = 0, Tensor.shape = 0,
// Tensor.quantization = 4, QuantizationParameters.quantized_dimension = 6.
function fieldPos(buf, table, field) {
  const vtable = table - buf.readInt32LE(table);
  const vtsize = buf.readUInt16LE(vtable);
  if (4 + 2 * field >= vtsize) return 0;
  const off = buf.readUInt16LE(vtable + 4 + 2 * field);
  return off === 0 ? 0 : table + off;
}
function deref(buf, pos) { return pos + buf.readUInt32LE(pos); }
function vectorOf(buf, table, field) {
  const pos = fieldPos(buf, table, field);
  if (!pos) return null;
  const v = deref(buf, pos);
  return {len: buf.readUInt32LE(v), at: v + 4};
}

function patchQuantizedDimensions(buf) {
  const patches = [];
  const model = deref(buf, 0);
  const subgraphs = vectorOf(buf, model, 2);
  if (!subgraphs) return patches;
  for (let s = 0; s < subgraphs.len; s++) {
    const sg = deref(buf, subgraphs.at + 4 * s);
    const tensors = vectorOf(buf, sg, 0);
    if (!tensors) continue;
    for (let t = 0; t < tensors.len; t++) {
      const tensor = deref(buf, tensors.at + 4 * t);
      const shape = vectorOf(buf, tensor, 0);
      const rank = shape ? shape.len : 0;
      const qpos = fieldPos(buf, tensor, 4);
      if (!qpos) continue;
      const q = deref(buf, qpos);
      const dpos = fieldPos(buf, q, 6);
      if (!dpos) continue;
      const dim = buf.readInt32LE(dpos);
      if (rank > 0 && (dim < 0 || dim >= rank)) {
        buf.writeInt32LE(0, dpos);
        patches.push({subgraph: s, tensor: t, rank, quantized_dimension: dim, now: 0});
      }
    }
  }
  return patches;
}

// --- Refusing XNNPACK -------------------------------------------------------------
// The package's interpreter applies TFLite's default XNNPACK delegate when it is built
// (BuiltinOpResolver's lazy delegate), and XNNPACK takes int8 nodes as well as float
// ones; its int8 arithmetic is not the builtin kernels'. The runner has no option to
// turn it off (numThreads, enableProfiling, maxProfilingBufferEntries only). So, when
// the delegate announces itself ("Created TensorFlow Lite XNNPACK delegate for CPU"),
// just before the interpreter applies it, its TfLiteDelegate struct is found in the
// WebAssembly heap and its Prepare pointer (a table index) is replaced by a function
// of the same signature whose body is `return 0` (kTfLiteOk): the delegate then claims
// no node and every node runs on the builtin kernels. The profile that follows names
// the kernel of every node, so a delegate that still took nodes is seen and reported.
//
//   TfLiteDelegate (wasm32):  +0 data_ (== the struct: the delegate object begins with it)
//                             +4 Prepare  (table index)   +8/+12/+16 buffer-handle
//                             functions, all null for XNNPACK

// Table indices of functions (i32, i32) -> i32 whose body is exactly `i32.const 0; end`,
// read from the module's type, import, function, element and code sections.
function returnZeroTableIndices(wasm) {
  let p = 8;
  const leb = () => {
    let r = 0, shift = 0, x;
    do { x = wasm[p++]; r |= (x & 0x7f) << shift; shift += 7; } while (x & 0x80);
    return r >>> 0;
  };
  const types = [], funcType = [], bodies = [], elems = [];
  let imported = 0;
  while (p < wasm.length) {
    const id = wasm[p++];
    const len = leb();
    const end = p + len;
    if (id === 1) {  // types
      for (let n = leb(), i = 0; i < n; i++) {
        p++;  // 0x60
        const np = leb(); const params = wasm.subarray(p, p + np).join(); p += np;
        const nr = leb(); const results = wasm.subarray(p, p + nr).join(); p += nr;
        types.push(`${params}->${results}`);
      }
    } else if (id === 2) {  // imports: count the functions, skip the rest
      for (let n = leb(), i = 0; i < n; i++) {
        const moduleLen = leb(); p += moduleLen;
        const fieldLen = leb(); p += fieldLen;
        const kind = wasm[p++];
        if (kind === 0) { leb(); imported++; }
        else if (kind === 1) { p++; const f = leb(); leb(); if (f & 1) leb(); }
        else if (kind === 2) { const f = leb(); leb(); if (f & 1) leb(); }
        else if (kind === 3) { p += 2; }
      }
    } else if (id === 3) {  // functions
      for (let n = leb(), i = 0; i < n; i++) funcType.push(leb());
    } else if (id === 9) {  // elements (active, table 0, i32.const offset)
      for (let n = leb(), i = 0; i < n; i++) {
        if (leb() !== 0 || wasm[p++] !== 0x41) return [];
        const offset = leb(); p++;  // end
        for (let m = leb(), j = 0; j < m; j++) elems.push([offset + j, leb()]);
      }
    } else if (id === 10) {  // code
      for (let n = leb(), i = 0; i < n; i++) { const sz = leb(); bodies.push(wasm.subarray(p, p + sz)); p += sz; }
    }
    p = end;
  }
  const kI32 = 0x7f;
  return elems.filter(([, f]) => {
    const k = f - imported;
    if (k < 0 || types[funcType[k]] !== `${kI32},${kI32}->${kI32}`) return false;
    const b = bodies[k];
    return b.length === 4 && b[0] === 0 && b[1] === 0x41 && b[2] === 0 && b[3] === 0x0b;
  }).map(([t]) => t);
}

// Finds the TfLiteDelegate struct(s) of a just-created XNNPACK delegate and points
// their Prepare at `noop`. Returns how many were patched.
function refuseDelegate(Module, noop) {
  const h = Module.HEAPU32;
  const table = Object.values(Module.asm || {}).find((v) => v instanceof WebAssembly.Table);
  const limit = table ? table.length : 0;
  let patched = 0;
  for (let a = 1; a < h.length - 5; a++) {
    if (h[a] === a * 4 && h[a + 1] > 0 && h[a + 1] !== noop && h[a + 1] < limit &&
        h[a + 2] === 0 && h[a + 3] === 0 && h[a + 4] === 0) {
      h[a + 1] = noop;
      patched++;
    }
  }
  return patched;
}

// --- Run --------------------------------------------------------------------------
async function main() {
  const args = parseArgs(process.argv.slice(2));
  const wasmDir = path.join(args.module_dir, '@tensorflow', 'tfjs-tflite', 'wasm');
  const require = createRequire(import.meta.url);
  const factory = require(path.join(wasmDir, 'tflite_web_api_cc.js'));
  const wasm = fs.readFileSync(path.join(wasmDir, 'tflite_web_api_cc.wasm'));
  const allowXnnpack = args.xnnpack === 'on';
  const noop = allowXnnpack ? 0 : (returnZeroTableIndices(wasm)[0] || 0);
  if (!allowXnnpack && !noop) throw new Error('no `return 0` function found to refuse XNNPACK');
  const log = [];
  let refused = null;
  let Module = null;
  const onLog = (s) => {
    log.push(s);
    if (!allowXnnpack && Module && /Created TensorFlow Lite XNNPACK delegate/.test(s)) {
      refused = refuseDelegate(Module, noop);
    }
  };
  Module = await factory({wasmBinary: wasm, print: onLog, printErr: onLog});

  const bytes = Buffer.from(fs.readFileSync(args.model));
  const patches = patchQuantizedDimensions(bytes);
  // The runner keeps a pointer to the model, so the copy lives as long as the process.
  const ptr = Module._malloc(bytes.length);
  Module.HEAPU8.set(bytes, ptr);
  const status = Module.TFLiteWebModelRunner.CreateFromBufferAndOptions(
      ptr, bytes.length,
      {numThreads: Number(args.threads), enableProfiling: true, maxProfilingBufferEntries: 4096});
  if (!status.ok()) {
    throw new Error(`TFLite refused ${args.model}: ${status.errorMessage()}\n${log.join('\n')}`);
  }
  const runner = status.value();

  const inputs = runner.GetInputs();
  const files = args.inputs.split(',').filter((f) => f);
  if (files.length !== inputs.size()) {
    throw new Error(`${files.length} input files but the model has ${inputs.size()} inputs`);
  }
  for (let i = 0; i < inputs.size(); i++) {
    const info = inputs.get(i);
    const npy = readNpy(files[i]);
    const shape = info.shape.split(',').filter((s) => s).map(Number);
    if (npy.descr !== kDescr[info.dataType] || npy.shape.join(',') !== shape.join(',')) {
      throw new Error(`${files[i]} (input ${i}): dtype '${npy.descr}' shape (${npy.shape}) ` +
                      `but the model input is '${kDescr[info.dataType]}' shape (${shape})`);
    }
    const dst = info.data();
    const view = new Uint8Array(dst.buffer, dst.byteOffset, dst.byteLength);
    if (npy.data.length !== view.length) {
      throw new Error(`${files[i]}: ${npy.data.length} data bytes, the tensor has ${view.length}`);
    }
    view.set(npy.data);
  }
  if (!runner.Infer()) throw new Error(`TFLite inference failed\n${log.join('\n')}`);

  fs.mkdirSync(args.outputs_dir, {recursive: true});
  const outputs = runner.GetOutputs();
  const result = {outputs: [], nodes: [], patches, xnnpack: allowXnnpack ? 'on' : 'refused',
                  delegates_refused: refused, xnnpack_nodes: 0, log};
  for (let k = 0; k < outputs.size(); k++) {
    const info = outputs.get(k);
    const shape = info.shape.split(',').filter((s) => s).map(Number);
    const d = info.data();
    const file = path.join(args.outputs_dir, `output${k}.npy`);
    writeNpy(file, info.dataType, shape, new Uint8Array(d.buffer, d.byteOffset, d.byteLength));
    result.outputs.push({name: info.name, dtype: info.dataType, shape, file});
  }
  const prof = runner.GetProfilingResults();
  for (let i = 0; i < prof.size(); i++) {
    const p = prof.get(i);
    result.nodes.push({type: p.nodeType, name: p.nodeName});
    if (/xnnpack/i.test(p.nodeType)) result.xnnpack_nodes++;
  }
  process.stdout.write(JSON.stringify(result) + '\n');
}

main().catch((e) => {
  process.stderr.write(`tflite_run: ${e.message}\n`);
  process.exit(1);
});
