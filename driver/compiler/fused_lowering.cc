#include "driver/compiler/fused_lowering.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>
#include <string>

#include "driver/compiler/block_pipeline.h"
#include "driver/compiler/gemm_engine.h"
#include "driver/compiler/lowering_internal.h"
#include "driver/isa_model/isa_interpreter.h"

namespace nncosim::driver {
namespace {

uint32_t align64(uint64_t v) { return static_cast<uint32_t>((v + 63) & ~uint64_t{63}); }

// Drops the padding fills of a half's job that write INP bytes already holding their value:
// the depthwise half refills the same zero-point borders of the same slot step after step,
// and the load engine runs its commands one at a time, so each fill costs the half its
// cycles. Follows every INP write of the job in order (loads, fills, REQUANT_STORE to_inp);
// a fill that carries a dependency token stays. Returns the fills dropped.
uint64_t dropRepeatedFills(std::vector<firmware::Command>& commands, uint32_t inpBytes,
                           uint32_t cols) {
  std::vector<int16_t> known(inpBytes, -1);  // the byte's value when a fill wrote it last
  // Every INP byte a command's rows write (buffer addresses wrap, as INP's do).
  auto rows = [&](uint32_t addr, uint64_t bytes, uint32_t n1, uint32_t s1, uint32_t n2, uint32_t s2,
                  const auto& visit) {
    for (uint32_t z = 0; z < n2; ++z)
      for (uint32_t y = 0; y < n1; ++y) {
        const uint64_t row = uint64_t{addr} + uint64_t{z} * s2 + uint64_t{y} * s1;
        for (uint64_t b = 0; b < bytes; ++b) visit((row + b) % inpBytes);
      }
  };
  uint64_t dropped = 0;
  std::vector<firmware::Command> kept;
  for (const firmware::Command& c : commands) {
    if (const auto* d = std::get_if<firmware::DmaLoad>(&c.args);
        d && d->bufId == firmware::Buffer::kInp) {
      auto each = [&](const auto& visit) {
        rows(d->bufAddr, uint64_t{d->count0} << static_cast<int>(d->elemWidth), d->count1,
             d->bufStride1, d->count2, d->bufStride2, visit);
      };
      const int16_t value = d->fill ? d->fillValue : -1;  // what the bytes hold after it
      if (d->fill) {
        bool holds = true;
        each([&](uint64_t a) { holds = holds && known[a] == value; });
        const bool token = c.deps.popPrev || c.deps.popNext || c.deps.pushPrev || c.deps.pushNext;
        if (holds && !token) {
          ++dropped;
          continue;
        }
      }
      each([&](uint64_t a) { known[a] = value; });
    } else if (const auto* r = std::get_if<firmware::RequantStore>(&c.args); r && r->toInp) {
      const uint64_t bytes = (uint64_t{r->rows} * cols) << static_cast<int>(r->outWidth);
      rows(r->outAddr, bytes, 1, 0, 1, 0, [&](uint64_t a) { known[a] = -1; });
    }
    kept.push_back(c);
  }
  commands = std::move(kept);
  return dropped;
}

// The ADD, SUB or MUL `eltwise` after the layer whose output is `y`, which it must read
// exactly once: its arithmetic with y as ELTWISE's a.
hal::Result<internal::EltwiseAfter> eltwiseAfterLayer(const hal::Model& model, uint32_t y,
                                                      uint32_t eltwise,
                                                      const std::vector<ops::Shape>& shapes) {
  const hal::Operation& e = model.main.operations.at(eltwise);
  if (e.type != hal::OperationType::ADD && e.type != hal::OperationType::SUB &&
      e.type != hal::OperationType::MUL)
    return hal::fail("fused: not an ADD, SUB or MUL");
  if (e.inputs.size() < 2 || (e.inputs[0] == y) == (e.inputs[1] == y))
    return hal::fail("fused: the ", hal::toString(e.type),
                     " does not read the layer's output exactly once");
  internal::OpView v(model, eltwise, shapes);
  return internal::eltwiseAfter(v, e.inputs[0] == y ? 0 : 1);
}

// One step of every block's two halves: block i's job is `a[i]`'s commands (their END
// dropped) then `b[i]`'s, or with `pipelined` the blocks are joined into pipelined jobs of
// at most maxJobCommands (block_pipeline.h). The buffers are the first block's (every block
// binds the same operands and constants in the same order): all of `a`'s but its outputs
// and of `b`'s but its input `between` (the tensor between them, which lives in INP),
// rebased into one space.
hal::Result<CompiledStep> mergeHalves(const std::vector<CompiledStep>& a,
                                      const std::vector<CompiledStep>& b, uint32_t between,
                                      bool pipelined, uint32_t maxJobCommands) {
  CompiledStep m;
  uint64_t at = kStepLocalBase;
  auto take = [&](const CompiledStep& st, const std::vector<Binding>& dropped,
                  std::vector<uint64_t>& placement, std::vector<size_t>& index) -> hal::Status {
    placement.assign(st.buffers.size(), 0);
    index.assign(st.buffers.size(), SIZE_MAX);
    for (size_t i = 0; i < st.buffers.size(); ++i) {
      if (std::any_of(dropped.begin(), dropped.end(),
                      [&](const Binding& x) { return x.buffer == i; }))
        continue;
      placement[i] = at;
      index[i] = m.buffers.size();
      m.buffers.push_back(st.buffers[i]);
      m.buffers.back().localAddress = at;
      at += deviceAligned(st.buffers[i].bytes);
    }
    for (size_t i = 0; i < st.buffers.size(); ++i) {
      if (index[i] == SIZE_MAX || st.buffers[i].addressWords.empty()) continue;
      NNC_ASSIGN_OR_RETURN(m.buffers[index[i]].contents, relocatedContents(st, i, placement));
    }
    return hal::Status::Ok();
  };
  std::vector<uint64_t> pa, pb;
  std::vector<size_t> ia, ib;
  NNC_TRY(take(a.at(0), a[0].outputs, pa, ia));
  std::vector<Binding> tensorIn;
  for (const Binding& x : b.at(0).inputs)
    if (x.operand == between) tensorIn.push_back(x);
  NNC_TRY(take(b.at(0), tensorIn, pb, ib));
  if (at > 0xFFFFFFFFull) return hal::fail("fused: the step passes the 32-bit DRAM addresses");
  m.localBytes = at - kStepLocalBase;
  auto sameBuffers = [](const CompiledStep& x, const CompiledStep& y) {
    if (x.buffers.size() != y.buffers.size()) return false;
    for (size_t i = 0; i < x.buffers.size(); ++i)
      if (x.buffers[i].bytes != y.buffers[i].bytes ||
          x.buffers[i].localAddress != y.buffers[i].localAddress)
        return false;
    return true;
  };
  std::vector<std::vector<firmware::Command>> cas, cbs;
  for (size_t k = 0; k < a.size(); ++k) {
    if (!sameBuffers(a[k], a[0]) || !sameBuffers(b.at(k), b[0]))
      return hal::fail("fused: block ", k, " lays out other buffers");
    NNC_ASSIGN_OR_RETURN(auto ca, relocate(a[k], pa));
    NNC_ASSIGN_OR_RETURN(auto cb, relocate(b[k], pb));
    if (splitJobs(ca).size() != 1 || splitJobs(cb).size() != 1)
      return hal::fail("fused: a half is more than one job");
    cas.push_back(std::move(ca));
    cbs.push_back(std::move(cb));
  }
  if (pipelined) {
    NNC_ASSIGN_OR_RETURN(m.commands, pipelineBlocks(cas, cbs, maxJobCommands));
  } else {
    for (size_t k = 0; k < cas.size(); ++k) {
      cas[k].pop_back();  // its END: the job goes on with the pointwise half
      m.commands.insert(m.commands.end(), cas[k].begin(), cas[k].end());
      m.commands.insert(m.commands.end(), cbs[k].begin(), cbs[k].end());
    }
  }
  for (Binding x : a[0].inputs) {
    x.buffer = ia.at(x.buffer);
    m.inputs.push_back(x);
  }
  for (Binding x : b[0].inputs) {  // an elementwise operation's other input
    if (x.operand == between) continue;
    x.buffer = ib.at(x.buffer);
    m.inputs.push_back(x);
  }
  for (Binding x : b[0].outputs) {
    x.buffer = ib.at(x.buffer);
    m.outputs.push_back(x);
  }
  // Every command now addresses the merged buffers only (a dropped buffer would not rebase).
  std::vector<uint64_t> same;
  for (const StepBuffer& x : m.buffers) same.push_back(x.localAddress);
  if (auto check = relocate(m, same); !check.ok()) return hal::fail("fused: ", check.error());
  return m;
}

}  // namespace

hal::Result<CompiledStep> lowerFusedDepthwisePointwise(const hal::Model& model, uint32_t depthwise,
                                                       uint32_t pointwise,
                                                       const std::vector<ops::Shape>& shapes,
                                                       const LoweringOptions& options,
                                                       std::optional<uint32_t> eltwise) {
  const NpuConfig& npu = options.npu;
  const hal::Operation& dw = model.main.operations.at(depthwise);
  const hal::Operation& pw = model.main.operations.at(pointwise);
  if (dw.type != hal::OperationType::DEPTHWISE_CONV_2D || pw.type != hal::OperationType::CONV_2D)
    return hal::fail("fused: not a DEPTHWISE_CONV_2D and a CONV_2D");
  if (dw.outputs.size() != 1 || pw.inputs.empty() || pw.inputs[0] != dw.outputs[0])
    return hal::fail("fused: the CONV_2D does not read the depthwise output");
  const std::vector<uint32_t>& d = shapes.at(dw.outputs[0]).dimensions;
  const std::vector<uint32_t>& f = shapes.at(dw.inputs.at(1)).dimensions;
  if (d.size() != 4 || f.size() != 4) return hal::fail("fused: not 4-D");
  // The tensor between them in INP (channel tiles of C bytes per pixel; the geometry's NCHW
  // flag does not change it), above the depthwise input slots, which keep a quarter of INP;
  // by blocks of output rows when it does not fit whole, each block a job. A block other
  // than the last fills whole row tiles of the pointwise half (R pixels).
  const uint32_t R = npu.rows, C = npu.cols, tiles = (d[3] + C - 1) / C;
  const uint32_t rowsTotal = d[0] * d[1], width = d[2];
  const uint64_t rowBytes = uint64_t{width} * C * tiles, room = npu.inpBytes / 4 * 3;
  const uint32_t rowStep = R / std::gcd(width, R);
  uint64_t rows = std::min<uint64_t>(rowsTotal, room / rowBytes);
  if (rows < rowsTotal) rows -= rows % rowStep;
  if (rows == 0)
    return hal::fail("fused: not even ", rowStep, " rows of ", rowBytes,
                     " B between the layers fit in INP");
  const uint64_t blocks = (rowsTotal + rows - 1) / rows;
  if (blocks > 1) {  // the same number of blocks, as even as the row tiles allow
    const uint64_t even = (rowsTotal + blocks - 1) / blocks;
    rows = std::min(rows, (even + rowStep - 1) / rowStep * rowStep);
  }
  // The step in blocks of `rows` output rows: a job each, or pipelined (block_pipeline.h).
  auto plan = [&](uint64_t rows, bool pipelined) -> hal::Result<CompiledStep> {
    const uint64_t tileStride = rows * width * C, tensorBytes = tileStride * tiles;
    if (tileStride >= (1u << 20)) return hal::fail("fused: a tile of the tensor passes 1 MiB");
    internal::FusedHalf dwHalf, pwHalf;
    const uint32_t base = static_cast<uint32_t>(npu.inpBytes - tensorBytes) & ~63u;
    dwHalf.tensor = pwHalf.tensor = {base, static_cast<uint32_t>(tileStride)};
    pwHalf.weightsOnce = pipelined;
    // An elementwise operation after the pointwise one: its rows (a step's, ACC's rows of C
    // bytes at most) in INP below the tensor, taken from the depthwise half's slots.
    std::optional<internal::EltwiseAfter> after;
    uint32_t eltwiseRows = 0;
    if (eltwise) {
      if (pw.outputs.size() != 1)
        return hal::fail("fused: the pointwise layer has more than one output");
      NNC_ASSIGN_OR_RETURN(after, eltwiseAfterLayer(model, pw.outputs[0], *eltwise, shapes));
      eltwiseRows = eltwiseRowBytes(npu);
      if (base < 2 * eltwiseRows)
        return hal::fail("fused: no room in INP for the ", after->name, "'s rows");
      pwHalf.eltwiseInp = {base - eltwiseRows, eltwiseRows};
    }
    dwHalf.inp = {0, base - eltwiseRows};
    pwHalf.inp = {0, npu.inpBytes};  // it loads nothing into INP: its slots are notional
    // WGT and PRM: twice the depthwise weights and parameters (its slots) low, the rest above.
    const uint64_t taps = uint64_t{f[1]} * f[2];
    const uint32_t dwWgt = align64(2 * uint64_t{align64(tiles * taps * C)});
    // Pipelined, the pointwise parameters stay for every block (one copy): the depthwise
    // half gets the rest of PRM, at least a quarter.
    const uint64_t pwPrm =
        (uint64_t{shapes.at(pw.outputs.at(0)).dimensions.back()} + C - 1) / C * prmTileBytes(C);
    const uint32_t dwPrmRoom =
        pipelined
            ? std::max<uint32_t>(npu.prmBytes / 4,
                                 pwPrm < npu.prmBytes ? (npu.prmBytes - align64(pwPrm)) & ~63u : 0)
            : npu.prmBytes / 2;
    const uint32_t dwPrm =
        std::min(dwPrmRoom, align64(2 * uint64_t{align64(tiles * prmTileBytes(C))}));
    if (dwWgt > npu.wgtBytes / 4)
      return hal::fail("fused: the depthwise weights take too much WGT");
    dwHalf.wgt = {0, dwWgt};
    pwHalf.wgt = {dwWgt, npu.wgtBytes - dwWgt};
    dwHalf.prm = {0, dwPrm};
    pwHalf.prm = {dwPrm, npu.prmBytes - dwPrm};
    // Each half of each block alone in one job, planned without the caller's cost limit.
    LoweringOptions lo = options;
    lo.maxJobCommands = 0;
    lo.costLimit = std::numeric_limits<double>::infinity();
    internal::OpView dwView(model, depthwise, shapes), pwView(model, pointwise, shapes);

    std::vector<CompiledStep> a;
    for (uint64_t first = 0; first < rowsTotal; first += rows) {
      dwHalf.rowFirst = static_cast<uint32_t>(first);
      dwHalf.rowCount = static_cast<uint32_t>(std::min(rows, rowsTotal - first));
      NNC_ASSIGN_OR_RETURN(auto x,
                           internal::lowerDepthwiseIntoInp(model, depthwise, dwView, lo, dwHalf));
      x.report.dmaLoads -= dropRepeatedFills(x.commands, npu.inpBytes, npu.cols);
      a.push_back(std::move(x));
    }
    // The pointwise halves over those depthwise ones; `plain`: without FAST's search
    // (SUSTAINED_SPEED's plan).
    auto withPointwise = [&](bool plain) -> hal::Result<CompiledStep> {
      LoweringOptions pwOptions = lo;
      if (plain) pwOptions.preference = hal::ExecutionPreference::SUSTAINED_SPEED;
      std::vector<CompiledStep> b;
      for (uint64_t first = 0; first < rowsTotal; first += rows) {
        pwHalf.rowFirst = static_cast<uint32_t>(first);
        pwHalf.rowCount = static_cast<uint32_t>(std::min(rows, rowsTotal - first));
        NNC_ASSIGN_OR_RETURN(
            auto y, internal::lowerPointwiseFromInp(model, pointwise, pwView, pwOptions, pwHalf,
                                                    after ? &*after : nullptr));
        b.push_back(std::move(y));
      }
      NNC_ASSIGN_OR_RETURN(auto step,
                           mergeHalves(a, b, dw.outputs[0], pipelined, options.maxJobCommands));
      step.operation = depthwise;
      step.type = dw.type;
      step.fused = {pointwise};
      if (eltwise) step.fused.push_back(*eltwise);
      StepReport& r = step.report;
      r = b[0].report;
      r.operation = a[0].report.operation + " + " + b[0].report.operation +
                    (after ? " + " + after->name : std::string());
      r.mapping = "fused: " + a[0].report.mapping +
                  "; its rows into INP (REQUANT_STORE to_inp, ISA 1.9), " +
                  std::to_string(uint64_t{rowsTotal} * rowBytes) + " B never in DRAM" +
                  (a.size() > 1 ? ", in " + std::to_string(a.size()) + " blocks of " +
                                      std::to_string(rows) + " rows" +
                                      (pipelined ? " (pipelined: the next block's depthwise "
                                                   "input loads while the GEMMs run)"
                                                 : " (a job each)")
                                : "") +
                  "; then " + b[0].report.mapping;
      // The counts of every block's halves; the useful MACs are the two layers', once.
      r.gemms = r.macs = r.dmaLoads = r.dmaStores = r.loadBytes = r.storeBytes = 0;
      r.steps = 0;
      for (const std::vector<CompiledStep>* half : {&a, &b})
        for (const CompiledStep& x : *half) {
          r.gemms += x.report.gemms;
          r.macs += x.report.macs;
          r.dmaLoads += x.report.dmaLoads;
          r.dmaStores += x.report.dmaStores;
          r.loadBytes += x.report.loadBytes;
          r.storeBytes += x.report.storeBytes;
          r.steps += x.report.steps;
        }
      r.usefulMacs = a[0].report.usefulMacs + b[0].report.usefulMacs;
      r.commands = step.commands.size();
      r.estimatedCycles = 0;
      r.jobs = 0;
      for (const std::vector<firmware::Command>& job : splitJobs(step.commands)) {
        ++r.jobs;
        if (options.maxJobCommands && job.size() > options.maxJobCommands)
          return hal::fail("fused: a job of ", job.size(), " commands, more than ",
                           options.maxJobCommands);
        const InterpreterResult est = IsaInterpreter::estimate(npu, job, options.cost);
        if (!est.completed) return hal::fail("fused: plan estimate failed: ", est.describe());
        r.estimatedCycles += est.counters.cycles;
      }
      return step;
    };
    // Pipelined, the pointwise half's search cannot see the pipeline: its plain plan is
    // tried too, on the same depthwise halves, and the faster kept.
    auto best = withPointwise(false);
    if (pipelined) {
      auto alt = withPointwise(true);
      if (alt.ok() && (!best.ok() || alt->report.estimatedCycles < best->report.estimatedCycles))
        best = std::move(alt);
    }
    return best;
  };
  NNC_ASSIGN_OR_RETURN(CompiledStep step, plan(rows, false));
  // Smaller blocks, pipelined, when the whole tensor does not fit: each block's depthwise
  // input (its rows' whole input rows, every channel tile) within half of what INP keeps
  // for the depthwise slots, so the half can load it while the previous block's GEMMs run.
  // Kept when the estimate is faster (LOW_POWER keeps the blocks a job each: the smaller
  // blocks reload the input rows they share).
  if (!eltwise && rows < rowsTotal && options.preference != hal::ExecutionPreference::LOW_POWER) {
    const std::vector<uint32_t>& in = shapes.at(dw.inputs.at(0)).dimensions;
    if (in.size() == 4 && d[1] > 0) {
      const uint64_t sh = (uint64_t{in[1]} + d[1] - 1) / d[1];
      const uint64_t inRowBytes = uint64_t{in[2]} * C * tiles;
      uint64_t small = 0;
      for (uint64_t r = rowStep; r < rows; r += rowStep) {
        const uint64_t input = ((r - 1) * sh + f[1]) * inRowBytes, tensor = r * rowBytes;
        if (tensor >= npu.inpBytes || 2 * input > npu.inpBytes - tensor) break;
        small = r;
      }
      if (small > 0) {
        auto pipelined = plan(small, true);
        if (pipelined.ok() && pipelined->report.estimatedCycles < step.report.estimatedCycles)
          step = std::move(*pipelined);
      }
    }
  }
  return step;
}

hal::Result<CompiledStep> lowerFusedConvEltwise(const hal::Model& model, uint32_t conv,
                                                uint32_t eltwise,
                                                const std::vector<ops::Shape>& shapes,
                                                const LoweringOptions& options) {
  const hal::Operation& c = model.main.operations.at(conv);
  const hal::Operation& e = model.main.operations.at(eltwise);
  if (c.type != hal::OperationType::CONV_2D) return hal::fail("fused: not a CONV_2D");
  if (c.outputs.size() != 1) return hal::fail("fused: the convolution has more than one output");
  NNC_ASSIGN_OR_RETURN(auto after, eltwiseAfterLayer(model, c.outputs[0], eltwise, shapes));
  internal::OpView convView(model, conv, shapes);
  LoweringOptions lo = options;
  lo.costLimit = std::numeric_limits<double>::infinity();
  NNC_ASSIGN_OR_RETURN(auto step, internal::lowerConvThenEltwise(model, conv, convView, lo, after));
  step.fused = {eltwise};
  step.report.operation += " + " + std::string(hal::toString(e.type));
  step.report.mapping = "fused: " + step.report.mapping;
  return step;
}

}  // namespace nncosim::driver
