// npu_calibrate: small command streams run on the simulated SoC (the RTL) and on the ISA
// interpreter's cost model, cycles side by side. The streams isolate what the compiler's
// plan choices depend on: command fetch, DMA latency and bursts (long rows, short rows,
// unaligned rows, stores), GEMM streaming and back-to-back overlap, REQUANT_STORE after
// GEMMs, the pipelined load/compute/store loop, and DENSIFY of a few sparse formats.
//
//   npu_calibrate [--filter SUBSTRING] [--set KEY=VALUE]...
//   npu_calibrate --model FILE --op N [--mapping im2col|dma|shifted|blocks]
//       one operation of a model, compiled as the driver does, on both (queue counters)
// --set changes the SoC (sim/soc_config.h keys) and the interpreter's timing with it
// (costModelFor), e.g. dram_read_qos=0 for reads answered in request order.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "Vnnc_npu_top.h"  // Verilator before SystemC

#include "driver/isa_model/densify_descriptor.h"
#include "driver/compiler/lowering.h"
#include "driver/compiler/model_plan.h"
#include "driver/runtime/interpreter_device.h"
#include "driver/runtime/npu_executor.h"
#include "driver/runtime/step_runner.h"
#include "hal/model_file.h"
#include "ops/shape.h"
#include "driver/runtime/soc/sim_npu_device.h"
#include "driver/runtime/soc/soc_cost_model.h"
#include "firmware/isa_generated.h"
#include "firmware/pool_window.h"
#include "sim/device.h"

using namespace nncosim;
using namespace nncosim::driver;
using firmware::Buffer;
using firmware::Command;

namespace {

struct Ctx {
  uint64_t src = 0, dst = 0;  // 1 MiB each
};

firmware::DmaLoad load(uint64_t dram, Buffer b, uint32_t buf, uint32_t c0, uint32_t c1 = 1,
                       uint32_t ds1 = 0, uint32_t bs1 = 0, uint32_t c2 = 1, uint32_t ds2 = 0,
                       uint32_t bs2 = 0) {
  firmware::DmaLoad d;
  d.bufId = b;
  d.dramAddr = static_cast<uint32_t>(dram);
  d.bufAddr = buf;
  d.count0 = c0;
  d.count1 = c1;
  d.dramStride1 = ds1;
  d.bufStride1 = bs1;
  d.count2 = c2;
  d.dramStride2 = ds2;
  d.bufStride2 = bs2;
  return d;
}

firmware::DmaStore store(uint64_t dram, uint32_t buf, uint32_t c0, uint32_t c1 = 1,
                         uint32_t ds1 = 0, uint32_t bs1 = 0) {
  firmware::DmaStore d;
  d.bufId = Buffer::kOut;
  d.dramAddr = static_cast<uint32_t>(dram);
  d.bufAddr = buf;
  d.count0 = c0;
  d.count1 = c1;
  d.dramStride1 = ds1;
  d.bufStride1 = bs1;
  return d;
}

firmware::Gemm gemm(uint32_t k, bool acc = false, uint32_t accAddr = 0, uint32_t inp = 0,
                    uint32_t wgt = 0) {
  firmware::Gemm g;
  g.m = 16;
  g.n = 16;
  g.k = k;
  g.accumulate = acc;
  g.accAddr = accAddr;
  g.inpAddr = inp;
  g.wgtAddr = wgt;
  return g;
}

// A window GEMM (ISA 1.5): m lanes of `vec`-element pixel vectors `laneStride` apart, taps
// adjacent vectors (a filter row at dilation 1) over `tiles` channel tiles 4 KiB apart.
firmware::Gemm windowGemm(uint32_t m, uint32_t vec, uint32_t taps, uint32_t tiles,
                          uint32_t laneStride, uint32_t accAddr = 0) {
  firmware::Gemm g;
  g.m = m;
  g.n = 16;
  g.window = true;
  g.vec = vec;
  g.taps = taps;
  g.tiles = tiles;
  g.k = vec * taps * tiles;
  g.laneStride = laneStride;
  g.tapStride = vec;
  g.tileStride = 4096;
  g.accAddr = accAddr;
  return g;
}

// A DWCONV (ISA 1.6) of m lanes, an fh x fw filter at stride sw, the filter rows' spans
// adjacent in INP.
firmware::Dwconv dwconv(uint32_t m, uint32_t fh, uint32_t fw, uint32_t sw, uint32_t accAddr = 0) {
  firmware::Dwconv w;
  w.m = m;
  w.n = 16;
  w.fh = fh;
  w.fw = fw;
  w.sw = sw;
  w.rowStride = ((m - 1) * sw + fw) * 16;
  w.accAddr = accAddr;
  return w;
}

firmware::RequantStore requant(uint32_t rows, uint32_t accAddr = 0, uint32_t outAddr = 0) {
  firmware::RequantStore r;
  r.rows = rows;
  r.accAddr = accAddr;
  r.outAddr = outAddr;
  r.perChannel = true;
  r.biasEn = true;
  r.biasAddr = 0;
  r.multAddr = 64;
  r.shiftAddr = 128;
  r.clampMin = -128;
  r.clampMax = 127;
  r.outSigned = true;
  return r;
}

// An int8 ELTWISE (ISA 1.7) ADD or MUL of `count` elements; the record at PRM 0 (whatever
// it holds: timing never depends on data).
firmware::Eltwise eltwise(uint32_t count, bool mul = false, uint32_t outAddr = 0) {
  firmware::Eltwise e;
  e.mul = mul;
  e.aSigned = e.bSigned = e.outSigned = true;
  e.left = mul ? 0 : 20;
  e.count = count;
  e.outAddr = outAddr;
  return e;
}

// A POOL (ISA 1.7) row tile of m pixels, an fh x fw window at stride sw (windows over 15:
// ISA 1.8's fh_hi, fw_hi), int8.
firmware::Pool pool(uint32_t m, uint32_t fh, uint32_t fw, uint32_t sw, bool avg,
                    uint32_t outAddr = 0) {
  firmware::Pool p;
  p.avg = avg;
  p.aSigned = true;
  p.m = m;
  p.n = 16;
  firmware::setPoolWindow(p, fh, fw);
  p.sw = sw;
  p.rowStride = ((m - 1) * sw + fw) * 16;
  p.outAddr = outAddr;
  p.clampMin = -128;
  p.clampMax = 127;
  return p;
}

Command end() {
  firmware::End e;
  e.irq = true;
  e.tag = 1;
  return Command{{}, e};
}

struct Case {
  std::string name;
  std::function<std::vector<Command>(const Ctx&)> build;
  // Device memory the stream needs (a DENSIFY descriptor), written before each run.
  std::function<void(NpuDevice&, const Ctx&)> setup = nullptr;
};

// A DENSIFY of `f` with its descriptor in the source area (1 MiB on), values at its start
// (whatever bytes are there), the output in the destination area.
Case densifyCase(const std::string& name, const ops::SparseFormat& f, uint32_t elemLog2) {
  auto w = ops::DensifyWalker::create(f);
  if (!w.ok()) std::abort();
  const uint32_t values = static_cast<uint32_t>(w->numValues());
  const uint32_t dense = static_cast<uint32_t>(w->denseElements());
  auto desc = [](const Ctx& x) { return static_cast<uint32_t>(x.src + (1 << 19)); };
  Case c;
  c.name = "DENSIFY " + name;
  c.setup = [=](NpuDevice& d, const Ctx& x) {
    auto image = buildDensifyImage(f, desc(x), elemLog2, static_cast<uint32_t>(x.src), values,
                                   static_cast<uint32_t>(x.dst), dense, 0);
    if (!image.ok() || !d.write(desc(x), image->bytes.data(), image->bytes.size()).ok())
      std::abort();
  };
  c.build = [=](const Ctx& x) {
    firmware::Densify d;
    d.elemWidth = static_cast<firmware::ElemWidth>(elemLog2);
    d.descAddr = desc(x);
    d.valuesAddr = static_cast<uint32_t>(x.src);
    d.outAddr = static_cast<uint32_t>(x.dst);
    d.outSize = dense << elemLog2;
    return std::vector<Command>{Command{{}, d}, end()};
  };
  return c;
}

// Levels of `dims` (formats 0 DENSE / 1 SPARSE_CSR); a sparse level keeps each coordinate
// with probability 1/keep (a fixed pseudo-random pattern).
ops::SparseFormat sparseFormat(const std::vector<int32_t>& dims,
                               const std::vector<int32_t>& formats, uint32_t keep,
                               std::vector<int32_t> blockMap = {}) {
  ops::SparseFormat f;
  const size_t n = dims.size();
  for (size_t l = 0; l < n; ++l) f.traversalOrder.push_back(static_cast<int32_t>(l));
  f.blockMap = std::move(blockMap);
  f.dimFormat = formats;
  f.dimensions = dims;
  f.segments.assign(n, {});
  f.indices.assign(n, {});
  uint32_t rng = 12345;
  uint64_t positions = 1;
  for (size_t l = 0; l < n; ++l) {
    if (!formats[l]) {
      positions *= static_cast<uint64_t>(dims[l]);
      continue;
    }
    f.segments[l].push_back(0);
    for (uint64_t q = 0; q < positions; ++q) {
      for (int32_t c = 0; c < dims[l]; ++c) {
        rng = rng * 1103515245u + 12345u;
        if ((rng >> 16) % keep == 0) f.indices[l].push_back(c);
      }
      f.segments[l].push_back(static_cast<int32_t>(f.indices[l].size()));
    }
    positions = f.indices[l].size();
  }
  return f;
}

std::vector<Case> cases() {
  std::vector<Case> v;
  auto only = [](std::vector<Command> c) {
    c.push_back(end());
    return c;
  };
  v.push_back({"empty job (END only)", [=](const Ctx&) { return only({}); }});
  for (int n : {16, 64})
    v.push_back({std::to_string(n) + " SYNC (compute)", [=](const Ctx&) {
                   std::vector<Command> c;
                   for (int i = 0; i < n; ++i)
                     c.push_back(Command{{}, firmware::Sync{firmware::Queue::kCompute}});
                   return only(c);
                 }});
  for (uint32_t bytes : {16u, 256u, 1024u, 4096u, 16384u, 65535u})
    v.push_back({"1 load " + std::to_string(bytes) + " B", [=](const Ctx& x) {
                   return only({Command{{}, load(x.src, Buffer::kInp, 0, bytes)}});
                 }});
  for (uint32_t n : {4u, 16u})
    v.push_back({std::to_string(n) + " loads 4096 B", [=](const Ctx& x) {
                   std::vector<Command> c;
                   for (uint32_t i = 0; i < n; ++i)
                     c.push_back(Command{{}, load(x.src + i * 4096, Buffer::kInp, i * 4096, 4096)});
                   return only(c);
                 }});
  for (uint32_t n : {4u, 16u})
    v.push_back({std::to_string(n) + " loads 256 B", [=](const Ctx& x) {
                   std::vector<Command> c;
                   for (uint32_t i = 0; i < n; ++i)
                     c.push_back(Command{{}, load(x.src + i * 256, Buffer::kInp, i * 256, 256)});
                   return only(c);
                 }});
  // Fills (ISA 1.4): on chip, a beat per cycle, no bus; beside a load they share the
  // engine, not the bus.
  for (uint32_t row : {16u, 100u, 4096u})
    v.push_back({"1 fill 8 rows x " + std::to_string(row) + " B", [=](const Ctx&) {
                   firmware::DmaLoad f = load(0, Buffer::kInp, 5, row, 8, 0, row + 7);
                   f.fill = true;
                   f.fillValue = 0x80;
                   return only({Command{{}, f}});
                 }});
  v.push_back({"16 fills 64 B, then a load 4096 B", [=](const Ctx& x) {
                 std::vector<Command> c;
                 for (uint32_t i = 0; i < 16; ++i) {
                   firmware::DmaLoad f = load(0, Buffer::kWgt, i * 64, 64);
                   f.fill = true;
                   c.push_back(Command{{}, f});
                 }
                 c.push_back(Command{{}, load(x.src, Buffer::kInp, 0, 4096)});
                 return only(c);
               }});
  for (uint32_t row : {16u, 64u, 256u})
    for (uint32_t off : {0u, 3u})
      v.push_back(
          {"1 load 64 rows x " + std::to_string(row) + " B, offset " + std::to_string(off),
           [=](const Ctx& x) {
             return only({Command{{}, load(x.src + off, Buffer::kInp, 0, row, 64, 1000, row)}});
           }});
  for (uint32_t bytes : {256u, 4096u})
    v.push_back({"1 store " + std::to_string(bytes) + " B", [=](const Ctx& x) {
                   return only({Command{{}, store(x.dst, 0, bytes)}});
                 }});
  v.push_back({"1 store 64 rows x 16 B", [=](const Ctx& x) {
                 return only({Command{{}, store(x.dst, 0, 16, 64, 512, 16)}});
               }});
  for (uint32_t k : {1u, 8u, 16u, 17u, 32u, 64u, 512u})
    for (int n : {1, 8})
      v.push_back({std::to_string(n) + " GEMM k=" + std::to_string(k), [=](const Ctx&) {
                     std::vector<Command> c;
                     for (int i = 0; i < n; ++i)
                       c.push_back(Command{{}, gemm(k, false, (i % 8) * 1024)});
                     return only(c);
                   }});
  // Window GEMMs: full tiles, a short vector (input-bound), few lanes, stride-2 lanes, and
  // back-to-back runs (the fetch reads the next window while the current one streams).
  struct WindowShape {
    uint32_t m, vec, taps, tiles, laneStride;
  };
  for (const WindowShape& w :
       {WindowShape{16, 16, 1, 1, 16}, WindowShape{16, 16, 3, 1, 16}, WindowShape{16, 16, 3, 4, 16},
        WindowShape{16, 16, 1, 16, 16}, WindowShape{16, 8, 3, 2, 8}, WindowShape{8, 16, 3, 2, 16},
        WindowShape{16, 16, 3, 2, 32}, WindowShape{16, 4, 1, 8, 4},
        // A 3-channel image's 7x7 stride-2 windows: 12-byte vectors 6 bytes apart, two per
        // INP read (ISA 1.10).
        WindowShape{16, 12, 2, 7, 6}})
    for (int n : {1, 8})
      v.push_back(
          {std::to_string(n) + " window GEMM m=" + std::to_string(w.m) +
               " vec=" + std::to_string(w.vec) + " taps=" + std::to_string(w.taps) +
               " tiles=" + std::to_string(w.tiles) + (w.laneStride > w.vec ? " stride 2" : "") +
               (w.laneStride < w.vec ? " overlapping" : ""),
           [=](const Ctx&) {
             std::vector<Command> c;
             for (int i = 0; i < n; ++i)
               c.push_back(Command{
                   {}, windowGemm(w.m, w.vec, w.taps, w.tiles, w.laneStride, (i % 8) * 1024)});
             return only(c);
           }});
  // DWCONVs: single and back-to-back row tiles, strides 1 and 2, short tiles, 1x1 and 5x5,
  // and mixed with GEMMs and REQUANT_STOREs.
  struct DwShape {
    uint32_t m, fh, fw, sw;
  };
  for (const DwShape& w : {DwShape{16, 3, 3, 1}, DwShape{16, 3, 3, 2}, DwShape{7, 3, 3, 1},
                           DwShape{16, 1, 1, 1}, DwShape{16, 5, 5, 1}, DwShape{14, 3, 3, 2}})
    for (int n : {1, 8})
      v.push_back({std::to_string(n) + " DWCONV m=" + std::to_string(w.m) + " " +
                       std::to_string(w.fh) + "x" + std::to_string(w.fw) + " s" +
                       std::to_string(w.sw),
                   [=](const Ctx&) {
                     std::vector<Command> c;
                     for (int i = 0; i < n; ++i)
                       c.push_back(Command{{}, dwconv(w.m, w.fh, w.fw, w.sw, (i % 8) * 1024)});
                     return only(c);
                   }});
  v.push_back({"DWCONV, GEMM k=64, DWCONV x4", [=](const Ctx&) {
                 std::vector<Command> c;
                 for (int i = 0; i < 4; ++i) {
                   c.push_back(Command{{}, dwconv(16, 3, 3, 1, 0)});
                   c.push_back(Command{{}, gemm(64, false, 1024)});
                 }
                 return only(c);
               }});
  // ISA 1.14 as the overlapped blocks use it: pointwise window GEMMs (k = 128, 16 lanes of
  // contiguous pixel vectors) with DWCONVs of one weight address among them.
  for (int per : {1, 2}) {
    v.push_back(
        {"16x (window GEMM k=128 ; " + std::to_string(per) + " DWCONV 3x3)", [=](const Ctx&) {
           std::vector<Command> c;
           for (int i = 0; i < 16; ++i) {
             c.push_back(Command{{}, windowGemm(16, 16, 1, 8, 16, (i % 2) * 1024)});
             for (int d = 0; d < per; ++d)
               c.push_back(Command{{}, dwconv(16, 3, 3, 1, 8192 + (d % 2) * 1024)});
           }
           return only(c);
         }});
  }
  v.push_back({"8x (4 DWCONV ; REQUANT rows=64)", [=](const Ctx&) {
                 std::vector<Command> c;
                 for (int i = 0; i < 8; ++i) {
                   for (int r = 0; r < 4; ++r)
                     c.push_back(Command{{}, dwconv(16, 3, 3, 1, r * 1024)});
                   c.push_back(Command{{}, requant(64)});
                 }
                 return only(c);
               }});
  // ELTWISEs: single and back-to-back, a beat and a partial beat, mixed with REQUANT_STOREs,
  // and the elementwise lowering's double-buffered chunk loop.
  for (uint32_t count : {1u, 16u, 100u, 4096u, 32768u})
    for (int n : {1, 4})
      v.push_back({std::to_string(n) + " ELTWISE count=" + std::to_string(count), [=](const Ctx&) {
                     std::vector<Command> c;
                     for (int i = 0; i < n; ++i)
                       c.push_back(Command{{}, eltwise(count, i % 2 == 1)});
                     return only(c);
                   }});
  struct PoolShape {
    uint32_t m, fh, fw, sw;
    bool avg;
  };
  for (const PoolShape& p :
       {PoolShape{56, 3, 3, 2, false}, PoolShape{1, 7, 7, 1, true}, PoolShape{16, 2, 2, 2, true},
        PoolShape{255, 1, 1, 1, false}, PoolShape{28, 3, 3, 1, true}, PoolShape{1, 56, 56, 1, true},
        PoolShape{2, 20, 31, 3, false}})
    for (int n : {1, 4})
      v.push_back({std::to_string(n) + (p.avg ? " POOL AVG m=" : " POOL MAX m=") +
                       std::to_string(p.m) + " " + std::to_string(p.fh) + "x" +
                       std::to_string(p.fw) + " s" + std::to_string(p.sw),
                   [=](const Ctx&) {
                     std::vector<Command> c;
                     for (int i = 0; i < n; ++i)
                       c.push_back(Command{{}, pool(p.m, p.fh, p.fw, p.sw, p.avg, (i % 2) * 8192)});
                     return only(c);
                   }});
  v.push_back({"4x (ELTWISE count=1024 ; REQUANT rows=16)", [=](const Ctx&) {
                 std::vector<Command> c;
                 for (int i = 0; i < 4; ++i) {
                   c.push_back(Command{{}, eltwise(1024, false, 4096)});
                   c.push_back(Command{{}, requant(16)});
                 }
                 return only(c);
               }});
  v.push_back({"window, k-major, window GEMM k=48 x4", [=](const Ctx&) {
                 std::vector<Command> c;
                 for (int i = 0; i < 4; ++i) {
                   c.push_back(Command{{}, windowGemm(16, 16, 3, 1, 16, 0)});
                   c.push_back(Command{{}, gemm(48, false, 1024)});
                 }
                 return only(c);
               }});
  v.push_back({"8x (3 window GEMM k=96 ; REQUANT rows=16)", [=](const Ctx&) {
                 std::vector<Command> c;
                 for (int i = 0; i < 8; ++i) {
                   for (int r = 0; r < 3; ++r) {
                     firmware::Gemm g = windowGemm(16, 16, 3, 2, 16, 0);
                     g.accumulate = r > 0;
                     c.push_back(Command{{}, g});
                   }
                   c.push_back(Command{{}, requant(16)});
                 }
                 return only(c);
               }});
  for (uint32_t rows : {1u, 16u, 64u, 256u})
    v.push_back({"1 REQUANT rows=" + std::to_string(rows), [=](const Ctx&) {
                   return only({Command{{}, requant(rows)}});
                 }});
  for (uint32_t k : {16u, 64u})
    for (uint32_t rows : {16u, 64u})
      v.push_back(
          {"8x (GEMM k=" + std::to_string(k) + " ; REQUANT rows=" + std::to_string(rows) + ")",
           [=](const Ctx&) {
             std::vector<Command> c;
             for (int i = 0; i < 8; ++i) {
               c.push_back(Command{{}, gemm(k)});
               c.push_back(Command{{}, requant(rows)});
             }
             return only(c);
           }});
  // ISA 1.10: each GEMM's REQUANT_STORE beside the next GEMM (another ACC tile), as the
  // compiler orders a step's tiles; and the same with window GEMMs of a pointwise step.
  for (uint32_t k : {16u, 64u, 256u})
    v.push_back(
        {"8x (GEMM k=" + std::to_string(k) + " tile i%2 ; its REQUANT rows=16)", [=](const Ctx&) {
           std::vector<Command> c;
           for (uint32_t i = 0; i < 8; ++i) {
             c.push_back(Command{{}, gemm(k, false, (i % 2) * 1024)});
             c.push_back(Command{{}, requant(16, (i % 2) * 1024, i * 256)});
           }
           return only(c);
         }});
  v.push_back({"4x (4 window GEMM k=64 tile q ; its REQUANT rows=64)", [=](const Ctx&) {
                 std::vector<Command> c;
                 for (uint32_t q = 0; q < 4; ++q) {
                   for (uint32_t p = 0; p < 4; ++p) {
                     firmware::Gemm g = windowGemm(16, 16, 1, 4, 16, 0);
                     g.accAddr = (q % 2) * 4096 + p * 1024;
                     c.push_back(Command{{}, g});
                   }
                   c.push_back(Command{{}, requant(64, (q % 2) * 4096, q * 1024)});
                 }
                 return only(c);
               }});
  v.push_back({"4x (4 GEMM k=64 ; 4 REQUANT rows=16)", [=](const Ctx&) {
                 std::vector<Command> c;
                 for (int i = 0; i < 4; ++i) {
                   for (int q = 0; q < 4; ++q) c.push_back(Command{{}, gemm(64, false, q * 1024)});
                   for (int q = 0; q < 4; ++q)
                     c.push_back(Command{{}, requant(16, q * 1024, q * 256)});
                 }
                 return only(c);
               }});
  v.push_back(densifyCase("10x2048 CSR 1/7, 8-bit", sparseFormat({10, 2048}, {0, 1}, 7), 0));
  v.push_back(densifyCase("128x128 CSR 1/8, 8-bit", sparseFormat({128, 128}, {0, 1}, 8), 0));
  v.push_back(densifyCase("64x64 CSR 1/2, 32-bit", sparseFormat({64, 64}, {0, 1}, 2), 2));
  v.push_back(
      densifyCase("16x16x16 D/S/S 1/4, 16-bit", sparseFormat({16, 16, 16}, {0, 1, 1}, 4), 1));
  v.push_back(densifyCase("32x32 dense, 8-bit", sparseFormat({32, 32}, {0, 0}, 1), 0));
  v.push_back(densifyCase("16x16 blocks 4x4 D/S/D/D 1/3, 8-bit",
                          sparseFormat({4, 4, 4, 4}, {0, 1, 0, 0}, 3, {0, 1}), 0));
  // ISA 1.15: a REQUANT_STORE pending behind another while the GEMMs behind it go on; and
  // an overlapped block's mix: a GEMM layer's tiles and REQUANT_STOREs with another layer's
  // DWCONVs and REQUANT_STOREs (into INP) among them.
  v.push_back({"16x (2 GEMM k=32 tiles i%4 ; their 2 REQUANT rows=16)", [=](const Ctx&) {
                 std::vector<Command> c;
                 for (uint32_t i = 0; i < 32; i += 2) {
                   for (uint32_t j : {i, i + 1})
                     c.push_back(Command{{}, gemm(32, false, (j % 4) * 1024, j * 512 % 65536)});
                   for (uint32_t j : {i, i + 1})
                     c.push_back(Command{{}, requant(16, (j % 4) * 1024, j * 256)});
                 }
                 return only(c);
               }});
  v.push_back({"8x (3 window GEMM k=32 ; REQUANT rows=48 ; DWCONV ; REQUANT to_inp rows=16)",
               [=](const Ctx&) {
                 std::vector<Command> c;
                 for (uint32_t i = 0; i < 8; ++i) {
                   for (uint32_t j = 0; j < 3; ++j) {
                     firmware::Gemm g = windowGemm(16, 16, 1, 2, 16, ((i % 2) * 3 + j) * 1024);
                     g.inpAddr = j * 256;
                     c.push_back(Command{{}, g});
                   }
                   c.push_back(Command{{}, requant(48, (i % 2) * 3 * 1024, i * 768)});
                   firmware::Dwconv w = dwconv(16, 3, 3, 1, 8192 + (i % 2) * 1024);
                   w.inpAddr = 32768;
                   c.push_back(Command{{}, w});
                   firmware::RequantStore r = requant(16, 8192 + (i % 2) * 1024, 65536 + i * 256);
                   r.toInp = true;
                   c.push_back(Command{{}, r});
                 }
                 return only(c);
               }});
  v.push_back({"4x (4 GEMM k=64 ; 1 REQUANT rows=64)", [=](const Ctx&) {
                 std::vector<Command> c;
                 for (int i = 0; i < 4; ++i) {
                   for (int q = 0; q < 4; ++q) c.push_back(Command{{}, gemm(64, false, q * 1024)});
                   c.push_back(Command{{}, requant(64, 0, 0)});
                 }
                 return only(c);
               }});
  for (uint32_t n : {1u, 4u})
    for (uint32_t bytes : {4096u, 16384u})
      v.push_back({std::to_string(n) + "x load " + std::to_string(bytes) + " B || store",
                   [=](const Ctx& x) {
                     std::vector<Command> c;
                     for (uint32_t i = 0; i < n; ++i) {
                       c.push_back(Command{{}, load(x.src + i * bytes, Buffer::kInp, 0, bytes)});
                       c.push_back(Command{{}, store(x.dst + i * bytes, 0, bytes)});
                     }
                     return only(c);
                   }});
  // Command fetches during long read bursts: short GEMMs dispatched while loads stream in
  // 4 KiB rows (256-beat bursts). The SoC answers the fetches first (ARQOS); in request
  // order (dram_read_qos=0) each would wait for the bursts requested before it.
  for (uint32_t n : {1u, 4u})
    v.push_back(
        {std::to_string(n) + "x load 16384 B in 4096 B rows || 32 GEMM k=16", [=](const Ctx& x) {
           std::vector<Command> c;
           for (uint32_t i = 0; i < n; ++i)
             c.push_back(
                 Command{{}, load(x.src + i * 16384, Buffer::kInp, 131072, 4096, 4, 4096, 4096)});
           for (int i = 0; i < 32; ++i) c.push_back(Command{{}, gemm(16, false, (i % 8) * 1024)});
           return only(c);
         }});
  // The OUT-to-INP path (ISA 1.9): a GEMM's rows requantized into INP and read back by a
  // window GEMM (a fused layer's chain), alone and beside a 16 KiB load into other INP
  // bytes, whose beats wait whenever a requantized pair takes INP's write port.
  for (bool beside : {false, true})
    v.push_back(
        {std::string("8x (GEMM k=64 ; REQUANT to_inp rows=64 ; window GEMM k=16)") +
             (beside ? " || load 16384 B" : ""),
         [=](const Ctx& x) {
           std::vector<Command> c;
           if (beside)
             c.push_back(Command{{}, load(x.src, Buffer::kInp, 131072, 4096, 4, 4096, 4096)});
           for (uint32_t i = 0; i < 8; ++i) {
             c.push_back(Command{{}, gemm(64, false, 0)});
             firmware::RequantStore r = requant(64, 0, 65536 + (i % 2) * 1024);
             r.toInp = true;
             c.push_back(Command{{}, r});
             firmware::Gemm g = windowGemm(16, 16, 1, 1, 16, 4096);
             g.inpAddr = r.outAddr;
             c.push_back(Command{{}, g});
           }
           return only(c);
         }});
  // The same rows in segments (ISA 1.13): 14 rows, then a gap of 2 vectors (a padded 14-wide
  // image's row and its padding), beside the load.
  v.push_back(
      {"8x (GEMM k=64 ; REQUANT to_inp rows=64 in segments of 14 ; window GEMM k=16) || "
       "load 16384 B",
       [=](const Ctx& x) {
         std::vector<Command> c;
         c.push_back(Command{{}, load(x.src, Buffer::kInp, 131072, 4096, 4, 4096, 4096)});
         for (uint32_t i = 0; i < 8; ++i) {
           c.push_back(Command{{}, gemm(64, false, 0)});
           firmware::RequantStore r = requant(64, 0, 65536 + (i % 2) * 2048);
           r.toInp = true;
           r.segments = true;
           r.segPairs = 7;
           r.segGap = 2;
           r.segGaps = 4;
           c.push_back(Command{{}, r});
           firmware::Gemm g = windowGemm(16, 16, 1, 1, 16, 4096);
           g.inpAddr = r.outAddr;
           c.push_back(Command{{}, g});
         }
         return only(c);
       }});
  // A double-buffered loop: load A (k*16 B) -> GEMM -> REQUANT -> store 256 B.
  for (uint32_t k : {32u, 256u})
    v.push_back({"pipeline 16 steps k=" + std::to_string(k), [=](const Ctx& x) {
                   const int S = 16;
                   std::vector<Command> L(S), C1(S), C2(S), St(S);
                   std::vector<Command> c;
                   for (int s = 0; s < S; ++s) {
                     Command l{{}, load(x.src + s * k * 16, Buffer::kInp, (s % 2) * 65536, k * 16)};
                     l.deps.pushNext = true;
                     if (s >= 2) l.deps.popNext = true;
                     Command g{{}, gemm(k, false, 0, (s % 2) * 65536)};
                     g.deps.popPrev = true;
                     if (s + 2 < S) g.deps.pushPrev = true;
                     Command r{{}, requant(16, 0, (s % 2) * 256)};
                     r.deps.pushNext = true;
                     if (s >= 2) r.deps.popNext = true;
                     Command st{{}, store(x.dst + s * 256, (s % 2) * 256, 256)};
                     st.deps.popPrev = true;
                     if (s + 2 < S) st.deps.pushPrev = true;
                     L[s] = l;
                     C1[s] = g;
                     C2[s] = r;
                     St[s] = st;
                   }
                   c.push_back(L[0]);
                   for (int s = 0; s < S; ++s) {
                     c.push_back(C1[s]);
                     if (s + 1 < S) c.push_back(L[s + 1]);
                     c.push_back(C2[s]);
                     c.push_back(St[s]);
                   }
                   return only(c);
                 }});
  return v;
}

}  // namespace

// One operation of a model compiled as the driver does and run on both, with the queue
// counters side by side.
int runOperation(SimNpuDevice& soc, InterpreterDevice& isa, const std::string& file, uint32_t op,
                 const std::string& mapping) {
  auto model = hal::readModelFile(file);
  if (!model.ok()) {
    std::fprintf(stderr, "%s\n", model.error().c_str());
    return 1;
  }
  LoweringOptions o;
  o.npu = soc.config();
  if (mapping == "im2col") o.convMapping = ConvMapping::kHostIm2col;
  if (mapping == "dma") o.convMapping = ConvMapping::kDmaIm2col;
  if (mapping == "shifted") o.convMapping = ConvMapping::kShiftedWindows;
  if (mapping == "blocks") o.convMapping = ConvMapping::kOutputBlocks;
  auto step = lowerOperation(*model, op, declaredShapes(*model), o);
  if (!step.ok()) {
    std::fprintf(stderr, "%s\n", step.error().c_str());
    return 1;
  }
  std::printf("%s\n", step->report.describe().c_str());
  std::vector<std::vector<uint8_t>> in;
  for (const Binding& b : step->inputs) {
    std::vector<uint8_t> bytes(
        ops::Shape{model->main.operands[b.operand].type, model->main.operands[b.operand].dimensions}
            .bytes());
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 7 + 3);
    in.push_back(std::move(bytes));
  }
  std::vector<std::vector<uint8_t>> outA, outB;
  soc.resetTimeline();
  auto a = runStep(soc, *step, in, outA);
  if (std::getenv("NNC_CALIBRATE_SPANS")) {
    int shown[4] = {0, 0, 0, 0};
    for (const auto& sp : soc.unitTimeline())
      if (shown[sp.unit]++ < 12)
        std::printf("  rtl unit %d busy [%llu, %llu) %llu\n", sp.unit,
                    static_cast<unsigned long long>(sp.start),
                    static_cast<unsigned long long>(sp.end),
                    static_cast<unsigned long long>(sp.end - sp.start));
  }
  auto b = runStep(isa, *step, in, outB);
  if (!a.ok() || !b.ok()) {
    std::fprintf(stderr, "%s\n", (!a.ok() ? a.error() : b.error()).c_str());
    return 1;
  }
  auto row = [](const char* what, uint64_t x, uint64_t y) {
    std::printf("  %-16s %10llu %10llu %8.3f\n", what, static_cast<unsigned long long>(x),
                static_cast<unsigned long long>(y), x ? double(y) / double(x) : 0.0);
  };
  std::printf("  %-16s %10s %10s %8s\n", "", "rtl", "isa", "isa/rtl");
  row("cycles", a->cycles, b->cycles);
  row("load busy", a->counters.loadBusy, b->counters.loadBusy);
  row("load stall", a->counters.loadStall, b->counters.loadStall);
  row("compute busy", a->counters.computeBusy, b->counters.computeBusy);
  row("compute stall", a->counters.computeStall, b->counters.computeStall);
  row("store busy", a->counters.storeBusy, b->counters.storeBusy);
  row("store stall", a->counters.storeStall, b->counters.storeStall);
  row("DRAM read", a->counters.dmaReadBytes, b->counters.dmaReadBytes);
  row("DRAM write", a->counters.dmaWriteBytes, b->counters.dmaWriteBytes);
  std::printf("  outputs %s\n", outA == outB ? "identical" : "DIFFER");
  return outA == outB ? 0 : 1;
}

int main(int argc, char** argv) {
  std::string filter, modelFile, mapping;
  int op = -1;
  sim::SocConfig socConfig;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--filter") == 0 && i + 1 < argc)
      filter = argv[++i];
    else if (std::strcmp(argv[i], "--model") == 0 && i + 1 < argc)
      modelFile = argv[++i];
    else if (std::strcmp(argv[i], "--op") == 0 && i + 1 < argc)
      op = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--mapping") == 0 && i + 1 < argc)
      mapping = argv[++i];
    else if (std::strcmp(argv[i], "--set") == 0 && i + 1 < argc) {
      if (auto st = socConfig.set(argv[++i]); !st.ok()) {
        std::fprintf(stderr, "%s\n", st.error().c_str());
        return 1;
      }
    }
  }
  auto dev = sim::Device::open(socConfig);
  if (!dev) {
    std::fprintf(stderr, "%s\n", dev.error().c_str());
    return 1;
  }
  SimNpuDevice soc(**dev);
  InterpreterDevice isa(soc.config(), socConfig.dramBytes, costModelFor(socConfig));
  Ctx sx, ix;
  std::vector<uint8_t> junk(1 << 20);
  for (size_t i = 0; i < junk.size(); ++i) junk[i] = static_cast<uint8_t>(i * 37);
  for (auto* d : std::initializer_list<NpuDevice*>{&soc, &isa}) {
    Ctx& x = d == &soc ? sx : ix;
    x.src = *d->allocate(1 << 20, "src");
    x.dst = *d->allocate(1 << 20, "dst");
    (void)d->write(x.src, junk.data(), junk.size());
  }
  if (!modelFile.empty())
    return runOperation(soc, isa, modelFile, static_cast<uint32_t>(op), mapping);
  std::printf("%-44s %9s %9s %8s\n", "stream", "rtl", "isa", "isa/rtl");
  for (const Case& c : cases()) {
    if (!filter.empty() && c.name.find(filter) == std::string::npos) continue;
    if (c.setup) {
      c.setup(soc, sx);
      c.setup(isa, ix);
    }
    auto a = soc.run(c.build(sx));
    auto b = isa.run(c.build(ix));
    if (!a.ok() || !b.ok()) {
      std::printf("%-44s failed: %s\n", c.name.c_str(), (!a.ok() ? a.error() : b.error()).c_str());
      continue;
    }
    std::printf("%-44s %9llu %9llu %8.3f\n", c.name.c_str(),
                static_cast<unsigned long long>(a->cycles),
                static_cast<unsigned long long>(b->cycles), double(b->cycles) / double(a->cycles));
  }
  return 0;
}
