#include "driver/compiler/fused_lowering.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>
#include <string>

#include "driver/compiler/block_pipeline.h"
#include "driver/compiler/chain_join.h"
#include "driver/compiler/gemm_engine.h"
#include "driver/compiler/lowering_internal.h"
#include "driver/compiler/weight_load_split.h"
#include "driver/isa_model/isa_interpreter.h"
#include "ops/conv/conv_args.h"

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

// The elementwise operation `eltwise`, if any, after a fused step's pointwise layer `pw`.
hal::Result<std::optional<internal::EltwiseAfter>> eltwiseAfterPointwise(
    const hal::Model& model, const hal::Operation& pw, std::optional<uint32_t> eltwise,
    const std::vector<ops::Shape>& shapes) {
  if (!eltwise) return std::optional<internal::EltwiseAfter>{};
  if (pw.outputs.size() != 1)
    return hal::fail("fused: the pointwise layer has more than one output");
  NNC_ASSIGN_OR_RETURN(auto after, eltwiseAfterLayer(model, pw.outputs[0], *eltwise, shapes));
  return std::optional<internal::EltwiseAfter>{std::move(after)};
}

// Whether the CONV_2D `pw` reads the depthwise layer `dw`'s only output.
hal::Status pointwiseReadsDepthwise(const hal::Operation& dw, const hal::Operation& pw) {
  if (dw.outputs.size() != 1 || pw.inputs.empty() || pw.inputs[0] != dw.outputs[0])
    return hal::fail("fused: the CONV_2D does not read the depthwise output");
  return hal::Status::Ok();
}

// A block's `rows` of `rowsTotal` output rows (whole multiples of rowStep) evened out: the
// same number of blocks, as even as the row tiles allow.
uint64_t evenBlockRows(uint64_t rowsTotal, uint64_t rows, uint64_t rowStep) {
  const uint64_t blocks = (rowsTotal + rows - 1) / rows;
  if (blocks <= 1) return rows;
  const uint64_t even = (rowsTotal + blocks - 1) / blocks;
  return std::min(rows, (even + rowStep - 1) / rowStep * rowStep);
}

// The first block's heights tried for blocks of `rows` rows: as tall as the others (0), a
// half, a quarter, an eighth (whole row steps) and one row step.
std::vector<uint64_t> firstBlockHeights(uint64_t rows, uint64_t rowStep) {
  std::vector<uint64_t> h = {0};
  for (uint64_t div : {2, 4, 8}) {
    const uint64_t r = rows / div / rowStep * rowStep;
    if (r >= rowStep && r != h.back()) h.push_back(r);
  }
  if (rowStep < rows && h.back() != rowStep) h.push_back(rowStep);
  return h;
}

// A depthwise layer's WGT slots in a fused step: two of every channel tile's filters.
uint64_t depthwiseWgtSlots(uint64_t tiles, uint64_t taps, uint32_t C) {
  return align64(2 * uint64_t{align64(tiles * taps * C)});
}

// A depthwise layer's input laid out in INP for the depthwise unit (an inverted residual's
// expanded tensor, a chain's next input): rows of `pitch` bytes, as wide as every DWCONV's
// span and the image, the image's first pixel `padLeft` vectors in; rows(b): the padded
// rows b output rows read.
struct PaddedRows {
  uint32_t padLeft = 0;
  uint64_t pitch = 0, strideH = 1, reachH = 1;
  uint64_t rows(uint64_t b) const { return (b - 1) * strideH + reachH; }
};
PaddedRows paddedRowsOf(const ops::conv::ConvGeometry& g, uint32_t C) {
  PaddedRows p;
  const uint64_t span = uint64_t{g.outW - 1} * static_cast<uint32_t>(g.strideW) +
                        uint64_t{g.filterW - 1} * static_cast<uint32_t>(g.dilationW) + 1;
  p.padLeft = static_cast<uint32_t>(std::max(0, g.padLeft));
  p.pitch = std::max<uint64_t>(span, uint64_t{p.padLeft} + g.inW) * C;
  p.strideH = static_cast<uint32_t>(g.strideH);
  p.reachH = uint64_t{g.filterH - 1} * static_cast<uint32_t>(g.dilationH) + 1;
  return p;
}

// The zero-point padding of an expanded tensor's padded rows [0, nx) in INP, every channel
// tile: the rows above `top` and from `bottom` on (outside the image), and each image row's
// columns left and right of the image's `width` pixels. No REQUANT_STORE writes these bytes.
std::vector<firmware::Command> paddingFills(const internal::PaddedInp& x, uint64_t nx, uint64_t top,
                                            uint64_t bottom, uint32_t width, uint32_t C,
                                            uint32_t tiles, uint8_t zero) {
  std::vector<firmware::Command> f;
  auto fill = [&](uint64_t at, uint64_t bytes, uint64_t n) {
    if (bytes > 0 && n > 0)
      f.push_back(firmware::Command{
          {},
          internal::inpRowsLoad(true, zero, 0, static_cast<uint32_t>(x.base + at), bytes,
                                static_cast<uint32_t>(n), 0, x.pitch, tiles, 0, x.tileStride)});
  };
  const uint64_t left = uint64_t{x.padLeft} * C, right = x.pitch - left - uint64_t{width} * C;
  fill(0, x.pitch, top);
  fill(bottom * x.pitch, x.pitch, nx - bottom);
  fill(top * x.pitch, left, bottom - top);
  fill(top * x.pitch + left + uint64_t{width} * C, right, bottom - top);
  return f;
}

// Plan choice: `candidate` replaces `best` when it is the first one, or a plan that is
// faster than `best` (or `best` is none): so a failed first candidate's error stays unless
// a plan follows.
void keepFaster(std::optional<hal::Result<CompiledStep>>& best,
                hal::Result<CompiledStep> candidate) {
  if (!best || (candidate.ok() && (!best->ok() || candidate->report.estimatedCycles <
                                                      (*best)->report.estimatedCycles)))
    best = std::move(candidate);
}

// The halves with their GEMM halves' first resident weights in pieces (weight_load_split.h:
// `gemmHalves[h]` for half h); none when no half changes.
std::optional<std::vector<std::vector<CompiledStep>>> withWeightsSplit(
    std::vector<std::vector<CompiledStep>> halves, const std::vector<bool>& gemmHalves,
    uint32_t cols) {
  bool changed = false;
  for (size_t h = 0; h < halves.size(); ++h) {
    if (!gemmHalves.at(h)) continue;
    for (CompiledStep& x : halves[h]) {
      const size_t added = splitFirstWeightLoad(x.commands, cols);
      x.report.dmaLoads += added;
      changed = changed || added > 0;
    }
  }
  if (!changed) return std::nullopt;
  return halves;
}

// How mergeHalves joins the halves' commands.
enum class Join {
  kJobPerBlock,  // block k's job: lead[k], then each half's commands in order
  kPipelined,    // the blocks in pipelined jobs (block_pipeline.h): the last half second
                 // and the others (with lead[k]) first
  kOverlapped,   // as kPipelined, the next block's depthwise half beside the GEMMs
  kChain,        // one block of a chain's halves, `links` its padding fills (chain_join.h)
};

// One step of every block's halves (`halves[h][k]`: half h of block k): block k's job is
// `lead[k]` (commands of its own, if given), then each half's commands in order (their ENDs
// but the last dropped); kPipelined joins the blocks into pipelined jobs of at most
// maxJobCommands, kChain a chain's halves into one job. The buffers are the first block's (every
// block binds the same operands and constants in the same order): every half's but a
// tensor between two halves (`between[h]` between half h and h + 1, which lives in INP: the
// earlier half's outputs and the later one's input of it), rebased into one space.
hal::Result<CompiledStep> mergeHalves(const std::vector<std::vector<CompiledStep>>& halves,
                                      const std::vector<uint32_t>& between, Join join,
                                      uint32_t maxJobCommands,
                                      const std::vector<std::vector<firmware::Command>>& lead = {},
                                      const std::vector<std::vector<firmware::Command>>& links = {},
                                      double overlapFrom = 0) {
  const size_t H = halves.size();
  const bool pipelined = join == Join::kPipelined || join == Join::kOverlapped;
  if (H < 2 || between.size() + 1 != H || (join == Join::kChain && halves[0].size() != 1))
    return hal::fail("fused: halves and the tensors between them do not match");
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
  // A half's bindings of the tensor it reads from the half before it.
  auto tensorIn = [&](size_t h) {
    std::vector<Binding> in;
    if (h > 0)
      for (const Binding& x : halves[h].at(0).inputs)
        if (x.operand == between[h - 1]) in.push_back(x);
    return in;
  };
  // Per half: where its buffers went and their index in the merged step.
  std::vector<std::pair<std::vector<uint64_t>, std::vector<size_t>>> rebased(H);
  for (size_t h = 0; h < H; ++h) {
    std::vector<Binding> dropped = tensorIn(h);
    if (h + 1 < H)
      dropped.insert(dropped.end(), halves[h].at(0).outputs.begin(), halves[h].at(0).outputs.end());
    NNC_TRY(take(halves[h].at(0), dropped, rebased[h].first, rebased[h].second));
  }
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
  const size_t blocks = halves[0].size();
  std::vector<std::vector<std::vector<firmware::Command>>> cmds(H);
  for (size_t h = 0; h < H; ++h) {
    if (halves[h].size() != blocks) return hal::fail("fused: halves of other block counts");
    for (size_t k = 0; k < blocks; ++k) {
      if (!sameBuffers(halves[h][k], halves[h][0]))
        return hal::fail("fused: block ", k, " lays out other buffers");
      NNC_ASSIGN_OR_RETURN(auto c, relocate(halves[h][k], rebased[h].first));
      if (splitJobs(c).size() != 1) return hal::fail("fused: a half is more than one job");
      cmds[h].push_back(std::move(c));
    }
  }
  if (pipelined) {
    // Block k's first part: lead[k], then every half but the last (an inverted residual's
    // expansion and depthwise layer); its second the last half.
    std::vector<std::vector<firmware::Command>> first(blocks);
    for (size_t k = 0; k < blocks; ++k) {
      if (k < lead.size()) first[k] = lead[k];
      for (size_t h = 0; h + 1 < H; ++h) {
        std::vector<firmware::Command>& c = cmds[h][k];
        if (h + 2 < H) c.pop_back();  // its END: the part goes on with the next half
        first[k].insert(first[k].end(), c.begin(), c.end());
      }
    }
    NNC_ASSIGN_OR_RETURN(
        m.commands, pipelineBlocks(first, cmds[H - 1], maxJobCommands,
                                   join == Join::kOverlapped ? std::optional<double>(overlapFrom)
                                                             : std::nullopt));
  } else if (join == Join::kChain) {
    std::vector<std::vector<firmware::Command>> one;
    for (size_t h = 0; h < H; ++h) one.push_back(std::move(cmds[h][0]));
    NNC_ASSIGN_OR_RETURN(m.commands, joinChain(one, links));
  } else {
    for (size_t k = 0; k < blocks; ++k) {
      if (k < lead.size()) m.commands.insert(m.commands.end(), lead[k].begin(), lead[k].end());
      for (size_t h = 0; h < H; ++h) {
        std::vector<firmware::Command>& c = cmds[h][k];
        if (h + 1 < H) c.pop_back();  // its END: the job goes on with the next half
        m.commands.insert(m.commands.end(), c.begin(), c.end());
      }
    }
  }
  for (Binding x : halves[0][0].inputs) {
    x.buffer = rebased[0].second.at(x.buffer);
    m.inputs.push_back(x);
  }
  for (size_t h = 1; h < H; ++h)
    for (Binding x : halves[h][0].inputs) {  // an elementwise operation's other input
      if (x.operand == between[h - 1]) continue;
      x.buffer = rebased[h].second.at(x.buffer);
      m.inputs.push_back(x);
    }
  for (Binding x : halves[H - 1][0].outputs) {
    x.buffer = rebased[H - 1].second.at(x.buffer);
    m.outputs.push_back(x);
  }
  // Every command now addresses the merged buffers only (a dropped buffer would not rebase).
  std::vector<uint64_t> same;
  for (const StepBuffer& x : m.buffers) same.push_back(x.localAddress);
  if (auto check = relocate(m, same); !check.ok()) return hal::fail("fused: ", check.error());
  return m;
}

// The merged step's report: the counts of every block's halves, the useful MACs of the
// layers (each once), the jobs and their estimated cycles; `first` is the first half's
// report, the rest as the last half's.
hal::Status summarize(CompiledStep& step, const std::vector<std::vector<CompiledStep>>& halves,
                      std::string mapping, const LoweringOptions& options) {
  StepReport& r = step.report;
  r = halves.back().at(0).report;
  r.operation.clear();
  r.usefulMacs = 0;
  for (const std::vector<CompiledStep>& half : halves) {
    r.operation += (r.operation.empty() ? "" : " + ") + half.at(0).report.operation;
    r.usefulMacs += half.at(0).report.usefulMacs;
  }
  r.mapping = std::move(mapping);
  r.gemms = r.macs = r.dmaLoads = r.dmaStores = r.loadBytes = r.storeBytes = 0;
  r.steps = 0;
  for (const std::vector<CompiledStep>& half : halves)
    for (const CompiledStep& x : half) {
      r.gemms += x.report.gemms;
      r.macs += x.report.macs;
      r.dmaLoads += x.report.dmaLoads;
      r.dmaStores += x.report.dmaStores;
      r.loadBytes += x.report.loadBytes;
      r.storeBytes += x.report.storeBytes;
      r.steps += x.report.steps;
    }
  r.commands = step.commands.size();
  r.estimatedCycles = 0;
  r.jobs = 0;
  for (const std::vector<firmware::Command>& job : splitJobs(step.commands)) {
    ++r.jobs;
    if (options.maxJobCommands && job.size() > options.maxJobCommands)
      return hal::fail("fused: a job of ", job.size(), " commands, more than ",
                       options.maxJobCommands);
    const InterpreterResult est = IsaInterpreter::estimate(options.npu, job, options.cost);
    if (!est.completed) return hal::fail("fused: plan estimate failed: ", est.describe());
    r.estimatedCycles += est.counters.cycles;
  }
  return hal::Status::Ok();
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
  NNC_TRY(pointwiseReadsDepthwise(dw, pw));
  NNC_ASSIGN_OR_RETURN(const std::optional<internal::EltwiseAfter> after,
                       eltwiseAfterPointwise(model, pw, eltwise, shapes));
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
  rows = evenBlockRows(rowsTotal, rows, rowStep);
  // The step in blocks of `rows` output rows: a job each, or pipelined (block_pipeline.h).
  // Overlapped (pipelined, block_pipeline.h): two copies of the tensor, the blocks'
  // in turn, and a quarter of ACC for the depthwise half.
  auto plan = [&](uint64_t rows, bool pipelined, bool overlapped = false,
                  uint64_t firstRows = 0) -> hal::Result<CompiledStep> {
    const uint64_t tileStride = rows * width * C, tensorBytes = tileStride * tiles;
    if (tileStride >= (1u << 20)) return hal::fail("fused: a tile of the tensor passes 1 MiB");
    const uint64_t copies = overlapped ? 2 : 1;
    if (copies * align64(tensorBytes) >= npu.inpBytes)
      return hal::fail("fused: ", copies, " copies of the tensor do not fit in INP");
    internal::FusedHalf dwHalf, pwHalf;
    const uint32_t base =
        static_cast<uint32_t>(npu.inpBytes - copies * align64(tensorBytes)) & ~63u;
    // The blocks: [first, + count) output rows each; with firstRows the first one is that
    // tall (its input loads and DWCONVs run before any GEMM; pipelined, the others' loads,
    // overlapped also their DWCONVs, under the GEMMs before them).
    std::vector<std::pair<uint64_t, uint64_t>> blocks;
    for (uint64_t first = 0; first < rowsTotal;) {
      uint64_t count = std::min(rows, rowsTotal - first);
      if (firstRows && first == 0 && count == rows && firstRows < rows) count = firstRows;
      blocks.emplace_back(first, count);
      first += count;
    }
    // Block k's copy of the tensor.
    auto tensorOf = [&](uint64_t k) {
      return internal::InpTensor{
          static_cast<uint32_t>(base + (overlapped && k % 2 ? align64(tensorBytes) : 0)),
          static_cast<uint32_t>(tileStride)};
    };
    dwHalf.tensor = pwHalf.tensor = tensorOf(0);
    if (overlapped) {
      const uint32_t dwAcc = (npu.accBytes / 4) & ~63u;
      dwHalf.acc = {npu.accBytes - dwAcc, dwAcc};
      pwHalf.acc = {0, npu.accBytes - dwAcc};
    }
    pwHalf.weightsOnce = pipelined;
    // An elementwise operation after the pointwise one: its rows (a step's, ACC's rows of C
    // bytes at most) in INP below the tensor, taken from the depthwise half's slots.
    uint32_t eltwiseRows = 0;
    if (after) {
      eltwiseRows = eltwiseRowBytes(npu);
      if (base < 2 * eltwiseRows)
        return hal::fail("fused: no room in INP for the ", after->name, "'s rows");
      pwHalf.eltwiseInp = {base - eltwiseRows, eltwiseRows};
    }
    dwHalf.inp = {0, base - eltwiseRows};
    pwHalf.inp = {0, npu.inpBytes};  // it loads nothing into INP: its slots are notional
    // WGT and PRM: twice the depthwise weights and parameters (its slots) low, the rest above.
    const uint64_t taps = uint64_t{f[1]} * f[2];
    const uint32_t dwWgt = static_cast<uint32_t>(depthwiseWgtSlots(tiles, taps, C));
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
    for (size_t k = 0; k < blocks.size(); ++k) {
      dwHalf.rowFirst = static_cast<uint32_t>(blocks[k].first);
      dwHalf.rowCount = static_cast<uint32_t>(blocks[k].second);
      dwHalf.tensor = tensorOf(k);
      NNC_ASSIGN_OR_RETURN(auto x,
                           internal::lowerDepthwiseIntoInp(model, depthwise, dwView, lo, dwHalf));
      x.report.dmaLoads -= dropRepeatedFills(x.commands, npu.inpBytes, npu.cols);
      a.push_back(std::move(x));
    }
    // The pointwise halves over those depthwise ones; `plain`: without FAST's search
    // (SUSTAINED_SPEED's plan).
    auto pointwiseHalves = [&](bool plain) -> hal::Result<std::vector<CompiledStep>> {
      LoweringOptions pwOptions = lo;
      if (plain) pwOptions.preference = hal::ExecutionPreference::SUSTAINED_SPEED;
      std::vector<CompiledStep> b;
      for (size_t k = 0; k < blocks.size(); ++k) {
        pwHalf.rowFirst = static_cast<uint32_t>(blocks[k].first);
        pwHalf.rowCount = static_cast<uint32_t>(blocks[k].second);
        pwHalf.tensor = tensorOf(k);
        NNC_ASSIGN_OR_RETURN(
            auto y, internal::lowerPointwiseFromInp(model, pointwise, pwView, pwOptions, pwHalf,
                                                    after ? &*after : nullptr));
        b.push_back(std::move(y));
      }
      return b;
    };
    // The halves as one step; overlapped, `from`: the share of each block's pointwise
    // computes before which none of the next block's depthwise computes go.
    auto joined = [&](const std::vector<CompiledStep>& b,
                      double from) -> hal::Result<CompiledStep> {
      const std::vector<std::vector<CompiledStep>> halves = {a, b};
      NNC_ASSIGN_OR_RETURN(auto step, mergeHalves(halves, {dw.outputs[0]},
                                                  overlapped  ? Join::kOverlapped
                                                  : pipelined ? Join::kPipelined
                                                              : Join::kJobPerBlock,
                                                  options.maxJobCommands, {}, {}, from));
      step.operation = depthwise;
      step.type = dw.type;
      step.fused = {pointwise};
      if (eltwise) step.fused.push_back(*eltwise);
      NNC_TRY(summarize(
          step, halves,
          "fused: " + a[0].report.mapping +
              "; its rows into INP (REQUANT_STORE to_inp, ISA 1.9), " +
              std::to_string(uint64_t{rowsTotal} * rowBytes) + " B never in DRAM" +
              (a.size() > 1 ? ", in " + std::to_string(a.size()) + " blocks of " +
                                  std::to_string(rows) + " rows" +
                                  (blocks[0].second != rows
                                       ? " (the first of " + std::to_string(blocks[0].second) + ")"
                                       : "") +
                                  (overlapped  ? " (overlapped: the next block's depthwise "
                                                 "input loads and its DWCONVs run while the "
                                                 "GEMMs run, ISA 1.14)"
                                   : pipelined ? " (pipelined: the next block's depthwise "
                                                 "input loads while the GEMMs run)"
                                               : " (a job each)")
                            : "") +
              "; then " + b[0].report.mapping,
          options));
      if (after) step.report.operation += " + " + after->name;
      return step;
    };
    // Pipelined, the pointwise half's search cannot see the pipeline: its plain plan is
    // tried too, on the same depthwise halves, and the faster kept. Overlapped, the next
    // block's depthwise computes among all of a block's GEMMs or their last three quarters,
    // half or quarter (where the depthwise input's loads take longer than the first GEMMs, a
    // DWCONV early among them waits for its input and holds the GEMMs behind it).
    // Each plan also with the pointwise weights in pieces (weight_load_split.h), which the
    // halves' own search does not see either.
    std::optional<hal::Result<CompiledStep>> best;
    for (bool plain : {false, true}) {
      if (plain && !pipelined) break;
      auto b = pointwiseHalves(plain);
      if (!b.ok()) {
        keepFaster(best, hal::fail(b.error()));
        continue;
      }
      std::vector<std::vector<CompiledStep>> variants = {std::move(*b)};
      if (auto split = withWeightsSplit(variants, {true}, C))
        variants.push_back(std::move(split->at(0)));
      for (const std::vector<CompiledStep>& halves : variants)
        for (double from : {0.0, 0.25, 0.5, 0.75}) {
          if (from > 0 && !overlapped) break;
          keepFaster(best, joined(halves, from));
        }
    }
    return std::move(*best);
  };
  NNC_ASSIGN_OR_RETURN(CompiledStep step, plan(rows, false));
  // Smaller blocks, pipelined: each block's depthwise input (its rows' whole input rows,
  // every channel tile) within half of what INP keeps for the depthwise slots, so the half
  // can load it while the previous block's GEMMs run. Tried also when the whole tensor fits
  // (one block waits for all of its input before its GEMMs); kept when the estimate is
  // faster (LOW_POWER keeps the blocks a job each: the smaller blocks reload the input rows
  // they share).
  if (!eltwise && options.preference != hal::ExecutionPreference::LOW_POWER) {
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
        for (uint64_t firstRows : firstBlockHeights(small, rowStep)) {
          auto pipelined = plan(small, true, false, firstRows);
          if (pipelined.ok() && pipelined->report.estimatedCycles < step.report.estimatedCycles)
            step = std::move(*pipelined);
        }
      }
      // Overlapped: the depthwise input slots and two copies of the tensor.
      uint64_t smaller = 0;
      for (uint64_t r = rowStep; r < rows; r += rowStep) {
        const uint64_t input = ((r - 1) * sh + f[1]) * inRowBytes, tensor = 2 * r * rowBytes;
        if (tensor >= npu.inpBytes || 2 * input > npu.inpBytes - tensor) break;
        smaller = r;
      }
      const bool forced = options.blockJoin == LoweringOptions::BlockJoin::kOverlapped;
      std::optional<hal::Result<CompiledStep>> overlapped;
      // Its blocks as tall as fit, and half as tall (more blocks, but each block's input
      // loads sooner beside the GEMMs: where the loads bind, as for MobileNet's 112 -> 56
      // stride-2 pair).
      std::vector<uint64_t> heights;
      if (smaller > 0) heights.push_back(smaller);
      if (const uint64_t half = smaller / 2 / rowStep * rowStep; half >= rowStep)
        heights.push_back(half);
      for (uint64_t height : heights)
        for (uint64_t firstRows : firstBlockHeights(height, rowStep)) {
          auto candidate = plan(height, true, true, firstRows);
          // Forced, a failure before any overlapped plan is the answer.
          if (forced && !candidate.ok() && (!overlapped || !overlapped->ok()))
            return hal::fail(candidate.error());
          keepFaster(overlapped, std::move(candidate));
        }
      if (forced && !overlapped) return hal::fail("fused: no overlapped blocks fit in INP");
      if (overlapped && overlapped->ok() &&
          (forced || (*overlapped)->report.estimatedCycles < step.report.estimatedCycles))
        step = std::move(**overlapped);
    }
  }
  return step;
}

hal::Result<CompiledStep> lowerFusedInvertedResidual(const hal::Model& model, uint32_t expand,
                                                     uint32_t depthwise, uint32_t pointwise,
                                                     const std::vector<ops::Shape>& shapes,
                                                     const LoweringOptions& options,
                                                     std::optional<uint32_t> eltwise) {
  const NpuConfig& npu = options.npu;
  const hal::Operation& ex = model.main.operations.at(expand);
  const hal::Operation& dw = model.main.operations.at(depthwise);
  const hal::Operation& pw = model.main.operations.at(pointwise);
  if (ex.type != hal::OperationType::CONV_2D || dw.type != hal::OperationType::DEPTHWISE_CONV_2D ||
      pw.type != hal::OperationType::CONV_2D)
    return hal::fail("fused: not a CONV_2D, a DEPTHWISE_CONV_2D and a CONV_2D");
  if (ex.outputs.size() != 1 || dw.inputs.empty() || dw.inputs[0] != ex.outputs[0])
    return hal::fail("fused: the depthwise layer does not read the expansion's output");
  NNC_TRY(pointwiseReadsDepthwise(dw, pw));
  internal::OpView exView(model, expand, shapes), dwView(model, depthwise, shapes),
      pwView(model, pointwise, shapes);
  NNC_ASSIGN_OR_RETURN(auto g,
                       ops::conv::convGeometry(dwView.ctx(), ops::conv::ConvKind::kDepthwise));
  if (g.nchw) return hal::fail("fused: NCHW layers are not fused");
  if (g.batches != 1)
    return hal::fail("fused: an inverted residual of ", g.batches, " images (one only)");
  if (g.inC != g.outC) return hal::fail("fused: a depthwise multiplier other than 1");
  NNC_ASSIGN_OR_RETURN(const std::optional<internal::EltwiseAfter> after,
                       eltwiseAfterPointwise(model, pw, eltwise, shapes));
  const uint32_t R = npu.rows, C = npu.cols, tiles = (g.outC + C - 1) / C;
  const uint32_t sh = static_cast<uint32_t>(g.strideH);
  // The expanded tensor's padded rows.
  const PaddedRows padded = paddedRowsOf(g, C);
  const uint32_t padLeft = padded.padLeft;
  const uint64_t pitch = padded.pitch;
  auto rowsX = [&](uint64_t b) { return padded.rows(b); };
  // INP from the top: the depthwise output (the pointwise half's A), the elementwise rows,
  // the expanded tensor, then the expansion half's slots (at least an eighth of INP). By
  // blocks of output rows when they do not fit, each block a job, every block but the last
  // a whole number of the pointwise half's row tiles.
  const uint32_t rowsTotal = g.outH;
  const uint64_t rowBytes = uint64_t{g.outW} * C * tiles;
  const uint32_t rowStep = R / std::gcd(g.outW, R);
  const uint32_t eltwiseRows = after ? eltwiseRowBytes(npu) : 0;
  // Blocks of b rows fit with `copies` of the depthwise output (two when overlapped).
  auto fits = [&](uint64_t b, uint64_t copies) {
    const uint64_t need =
        copies * align64(b * rowBytes) + eltwiseRows + align64(tiles * rowsX(b) * pitch);
    return b * g.outW * C < (1u << 20) && need + npu.inpBytes / 8 <= npu.inpBytes;
  };
  // The tallest blocks that fit, evened out; 0 when not even a row step does.
  auto tallest = [&](uint64_t copies) -> uint64_t {
    uint64_t rows = fits(rowsTotal, copies) ? rowsTotal : 0;
    for (uint64_t b = rowStep; rows == 0 && b < rowsTotal && fits(b, copies); b += rowStep)
      if (!fits(b + rowStep, copies) || b + rowStep >= rowsTotal) rows = b;
    return rows == 0 ? 0 : evenBlockRows(rowsTotal, rows, rowStep);
  };
  const uint64_t rows = tallest(1);
  if (rows == 0)
    return hal::fail("fused: not even ", rowStep, " rows of the inverted residual fit in INP");
  internal::FusedHalf exHalf, dwHalf, pwHalf;
  dwHalf.inp = pwHalf.inp = {0, npu.inpBytes};  // they load nothing into INP: notional slots
  // WGT: twice the depthwise weights low, the rest shared by the other two layers as their
  // filters' sizes are (each at least a quarter of it).
  const uint64_t taps = uint64_t{g.filterH} * g.filterW;
  const uint32_t dwWgt = static_cast<uint32_t>(depthwiseWgtSlots(tiles, taps, C));
  if (dwWgt > npu.wgtBytes / 4) return hal::fail("fused: the depthwise weights take too much WGT");
  auto elements = [&](uint32_t operand) {
    uint64_t n = 1;
    for (uint32_t x : shapes.at(operand).dimensions) n *= x;
    return n;
  };
  const uint64_t exW = elements(ex.inputs.at(1)), pwW = elements(pw.inputs.at(1));
  const uint64_t pwOut = shapes.at(pw.outputs.at(0)).dimensions.back();
  const uint64_t rest = npu.wgtBytes - dwWgt;
  const uint32_t exWgt = static_cast<uint32_t>(
      std::clamp(rest * exW / std::max<uint64_t>(1, exW + pwW), rest / 4, rest / 4 * 3) & ~63ull);
  dwHalf.wgt = {0, dwWgt};
  exHalf.wgt = {dwWgt, exWgt};
  pwHalf.wgt = {dwWgt + exWgt, npu.wgtBytes - dwWgt - exWgt};
  // PRM: the projection's parameters (two slots and the elementwise record; at most a
  // third), the rest halved between the expansion and the depthwise layer, which have as
  // many channels.
  const uint64_t pwTiles = (pwOut + C - 1) / C;
  const uint32_t pwPrm = align64(std::min<uint64_t>(
      2 * uint64_t{align64(pwTiles * prmTileBytes(C))} + (after ? 128 : 0), npu.prmBytes / 3));
  const uint32_t dwPrm =
      std::min((npu.prmBytes - pwPrm) / 2 & ~63u, 2 * align64(uint64_t{tiles} * prmTileBytes(C)));
  const uint32_t exPrm = (npu.prmBytes - pwPrm - dwPrm) & ~63u;
  dwHalf.prm = {0, dwPrm};
  exHalf.prm = {dwPrm, exPrm};
  pwHalf.prm = {dwPrm + exPrm, npu.prmBytes - dwPrm - exPrm};
  const hal::Operand& x = model.main.operands.at(ex.outputs[0]);
  const uint8_t zeroFill = static_cast<uint8_t>(x.zeroPoint);
  LoweringOptions lo = options;
  lo.maxJobCommands = 0;
  lo.costLimit = std::numeric_limits<double>::infinity();
  const uint64_t expandedBytes = uint64_t{g.inH} * g.inW * g.inC;
  // The step in blocks of `rows` output rows (the first `firstRows` tall, when given): a job
  // each, or overlapped in one job (block_pipeline.h): block k + 1's expansion and DWCONVs
  // among block k's projection GEMMs, the depthwise output in two copies (block k's in copy
  // k % 2), the expansion and depthwise halves in a quarter of ACC, the projection's
  // weights resident.
  auto plan = [&](uint64_t rows, bool overlapped,
                  uint64_t firstRows = 0) -> hal::Result<CompiledStep> {
    const uint64_t tileStride = rows * g.outW * C, tensorBytes = tileStride * tiles;
    const uint64_t xTile = rowsX(rows) * pitch, copies = overlapped ? 2 : 1;
    const uint32_t base =
        static_cast<uint32_t>(npu.inpBytes - copies * align64(tensorBytes)) & ~63u;
    const uint32_t xBase = static_cast<uint32_t>(base - eltwiseRows - xTile * tiles) & ~63u;
    if (after) pwHalf.eltwiseInp = {base - eltwiseRows, eltwiseRows};
    exHalf.inp = {0, xBase};
    exHalf.acc = dwHalf.acc = pwHalf.acc = {};
    if (overlapped) {
      const uint32_t dwAcc = (npu.accBytes / 4) & ~63u;
      exHalf.acc = dwHalf.acc = {npu.accBytes - dwAcc, dwAcc};
      pwHalf.acc = {0, npu.accBytes - dwAcc};
    }
    pwHalf.weightsOnce = overlapped;
    std::vector<std::pair<uint64_t, uint64_t>> blocks;  // [first, + count) output rows each
    for (uint64_t first = 0; first < rowsTotal;) {
      uint64_t count = std::min(rows, rowsTotal - first);
      if (firstRows && first == 0 && count == rows && firstRows < rows) count = firstRows;
      blocks.emplace_back(first, count);
      first += count;
    }
    std::vector<std::vector<CompiledStep>> halves(3);
    std::vector<std::vector<firmware::Command>> fills;
    for (size_t k = 0; k < blocks.size(); ++k) {
      const auto [first, count] = blocks[k];
      const uint64_t nx = rowsX(count);
      const int64_t origin = static_cast<int64_t>(first * sh) - g.padTop;
      const int64_t ya = std::max<int64_t>(0, origin),
                    yb = std::min<int64_t>(g.inH, origin + static_cast<int64_t>(nx));
      if (ya >= yb) return hal::fail("fused: a block of rows reads only padding");
      internal::PaddedInp xin{xBase, static_cast<uint32_t>(xTile), static_cast<uint32_t>(pitch),
                              padLeft, origin};
      exHalf.expanded = dwHalf.expanded = xin;
      exHalf.rowFirst = static_cast<uint32_t>(ya);
      exHalf.rowCount = static_cast<uint32_t>(yb - ya);
      dwHalf.rowFirst = pwHalf.rowFirst = static_cast<uint32_t>(first);
      dwHalf.rowCount = pwHalf.rowCount = static_cast<uint32_t>(count);
      dwHalf.tensor = pwHalf.tensor = {
          static_cast<uint32_t>(base + (overlapped && k % 2 ? align64(tensorBytes) : 0)),
          static_cast<uint32_t>(tileStride)};
      auto e = internal::lowerConvIntoInp(model, expand, exView, lo, exHalf);
      if (!e.ok()) return hal::fail("fused: the expansion: ", e.error());
      auto d = internal::lowerDepthwiseIntoInp(model, depthwise, dwView, lo, dwHalf);
      if (!d.ok()) return hal::fail("fused: the depthwise layer: ", d.error());
      auto p = internal::lowerPointwiseFromInp(model, pointwise, pwView, lo, pwHalf,
                                               after ? &*after : nullptr);
      if (!p.ok()) return hal::fail("fused: the projection: ", p.error());
      halves[0].push_back(std::move(*e));
      halves[1].push_back(std::move(*d));
      halves[2].push_back(std::move(*p));
      // The zero-point padding of the block's expanded rows. The load queue runs them ahead
      // of the expansion's first loads (its first GEMM waits for those).
      fills.push_back(paddingFills(xin, nx, static_cast<uint64_t>(ya - origin),
                                   static_cast<uint64_t>(yb - origin), g.inW, C, tiles, zeroFill));
    }
    auto build = [&](const std::vector<std::vector<CompiledStep>>& h,
                     double from) -> hal::Result<CompiledStep> {
      NNC_ASSIGN_OR_RETURN(CompiledStep step,
                           mergeHalves(h, {ex.outputs[0], dw.outputs[0]},
                                       overlapped ? Join::kOverlapped : Join::kJobPerBlock,
                                       options.maxJobCommands, fills, {}, from));
      step.operation = expand;
      step.type = ex.type;
      step.fused = {depthwise, pointwise};
      if (eltwise) step.fused.push_back(*eltwise);
      std::string inBlocks;
      if (h[0].size() > 1)
        inBlocks =
            ", in " + std::to_string(h[0].size()) + " blocks of " + std::to_string(rows) + " rows" +
            (blocks[0].second != rows ? " (the first of " + std::to_string(blocks[0].second) + ")"
                                      : "") +
            (overlapped ? " (overlapped: the next block's expansion and DWCONVs run "
                          "among the projection's GEMMs, ISA 1.14, 1.15)"
                        : " (a job each)");
      NNC_TRY(summarize(step, h,
                        "fused inverted residual: " + h[0][0].report.mapping +
                            "; its rows into INP (" + std::to_string(expandedBytes) +
                            " B never in DRAM, the depthwise unit's padding filled on chip); "
                            "then " +
                            h[1][0].report.mapping + "; its rows into INP (" +
                            std::to_string(uint64_t{rowsTotal} * rowBytes) + " B never in DRAM)" +
                            inBlocks + "; then " + h[2][0].report.mapping,
                        options));
      return step;
    };
    // The blocks as they are and with the GEMM halves' weights in pieces; overlapped, the
    // next block's commands among all of a block's projection GEMMs or their last three
    // quarters, half or quarter: the fastest.
    std::optional<hal::Result<CompiledStep>> best;
    std::vector<std::vector<std::vector<CompiledStep>>> variants = {halves};
    if (auto split = withWeightsSplit(halves, {true, false, true}, C))
      variants.push_back(std::move(*split));
    for (const auto& h : variants)
      for (double from : {0.0, 0.25, 0.5, 0.75}) {
        if (from > 0 && !overlapped) break;
        keepFaster(best, build(h, from));
      }
    return std::move(*best);
  };
  // Overlapped blocks (not with an elementwise operation, whose other input each block
  // loads; LOW_POWER keeps the jobs: the smaller blocks recompute more halo rows): as tall
  // as fit with two copies of the depthwise output, and half as tall, each with the first
  // block shorter too; kept when the estimate is faster. Forced (BlockJoin), half as tall
  // also where the whole fits (tried without forcing too: MobileNet-v2 kept every plan, so
  // not worth the compile time).
  const bool forced = options.blockJoin == LoweringOptions::BlockJoin::kOverlapped;
  std::optional<hal::Result<CompiledStep>> overlapped;
  if (!after && (forced || options.preference != hal::ExecutionPreference::LOW_POWER)) {
    std::vector<uint64_t> heights;
    if (const uint64_t r = tallest(2); r > 0 && (r < rowsTotal || forced)) {
      if (r < rowsTotal) heights.push_back(r);
      if (const uint64_t half = r / 2 / rowStep * rowStep; half >= rowStep) heights.push_back(half);
    }
    // The first block as tall as the others or half as tall (shorter ones gained less than
    // 0.4 % on MobileNet-v1's stem, each costing a compile of its own).
    for (uint64_t height : heights)
      for (uint64_t firstRows : firstBlockHeights(height, rowStep)) {
        if (firstRows != 0 && firstRows < height / 2 / rowStep * rowStep) continue;
        keepFaster(overlapped, plan(height, true, firstRows));
      }
  }
  if (forced) {
    if (after)
      return hal::fail("fused: no overlapped blocks with the ", after->name,
                       " (its other input loads per block)");
    if (!overlapped) return hal::fail("fused: no overlapped blocks fit in INP");
    return std::move(*overlapped);
  }
  NNC_ASSIGN_OR_RETURN(CompiledStep step, plan(rows, false));
  if (overlapped && overlapped->ok() &&
      (*overlapped)->report.estimatedCycles < step.report.estimatedCycles)
    step = std::move(**overlapped);
  if (after) step.report.operation += " + " + after->name;
  return step;
}

hal::Result<CompiledStep> lowerFusedChain(const hal::Model& model, uint32_t first, uint32_t pairs,
                                          const std::vector<ops::Shape>& shapes,
                                          const LoweringOptions& options) {
  const NpuConfig& npu = options.npu;
  const uint32_t C = npu.cols;
  if (pairs < 2) return hal::fail("fused chain: ", pairs, " pairs (two at least)");
  const auto& operations = model.main.operations;
  if (uint64_t{first} + 2 * uint64_t{pairs} > operations.size())
    return hal::fail("fused chain: past the model's operations");
  // Per pair: its depthwise geometry, the tensor between its layers (channel tiles, whole)
  // and, past the first, its depthwise input padded in INP as the inverted residual's is.
  struct Link {
    ops::conv::ConvGeometry g;
    uint32_t tiles = 0;
    uint64_t tileStride = 0, taps = 0, nx = 0;
    internal::PaddedInp x;
  };
  std::vector<Link> chain(pairs);
  uint64_t tensorMax = 0, paddedMax = 0, dwWgt = 0, dwPrm = 0;
  for (uint32_t i = 0; i < pairs; ++i) {
    const uint32_t d = first + 2 * i;
    const hal::Operation& dw = operations[d];
    const hal::Operation& pw = operations[d + 1];
    if (dw.type != hal::OperationType::DEPTHWISE_CONV_2D || pw.type != hal::OperationType::CONV_2D)
      return hal::fail("fused chain: operation ", d, " and ", d + 1,
                       " are not a DEPTHWISE_CONV_2D and a CONV_2D");
    NNC_TRY(pointwiseReadsDepthwise(dw, pw));
    if (i > 0) {
      const hal::Operation& before = operations[d - 1];
      if (before.outputs.size() != 1 || dw.inputs.empty() || dw.inputs[0] != before.outputs[0])
        return hal::fail("fused chain: operation ", d,
                         " does not read the pointwise output before it");
    }
    internal::OpView view(model, d, shapes);
    NNC_ASSIGN_OR_RETURN(auto g,
                         ops::conv::convGeometry(view.ctx(), ops::conv::ConvKind::kDepthwise));
    if (g.nchw) return hal::fail("fused chain: NCHW layers are not fused");
    if (g.batches != 1) return hal::fail("fused chain: ", g.batches, " images (one only)");
    if (g.inC != g.outC) return hal::fail("fused chain: a depthwise multiplier other than 1");
    Link& l = chain[i];
    l.g = g;
    l.tiles = (g.outC + C - 1) / C;
    l.tileStride = uint64_t{g.outH} * g.outW * C;
    if (l.tileStride >= (1u << 20)) return hal::fail("fused chain: a tile passes 1 MiB");
    tensorMax = std::max<uint64_t>(tensorMax, align64(l.tileStride * l.tiles));
    l.taps = uint64_t{g.filterH} * g.filterW;
    dwWgt = std::max(dwWgt, depthwiseWgtSlots(l.tiles, l.taps, C));
    dwPrm = std::max<uint64_t>(dwPrm, align64(2 * uint64_t{align64(l.tiles * prmTileBytes(C))}));
    if (i == 0) continue;
    const PaddedRows padded = paddedRowsOf(g, C);
    l.nx = padded.rows(g.outH);
    if (l.nx * padded.pitch >= (1u << 20))
      return hal::fail("fused chain: a padded tile passes 1 MiB");
    l.x = {0, static_cast<uint32_t>(l.nx * padded.pitch), static_cast<uint32_t>(padded.pitch),
           padded.padLeft, -static_cast<int64_t>(g.padTop)};
    paddedMax = std::max<uint64_t>(paddedMax, align64(uint64_t{l.x.tileStride} * l.tiles));
  }
  // INP from the top: the tensor between each pair's layers, the next depthwise input
  // (padded), then the first depthwise layer's slots (a sixteenth of INP at least).
  if (tensorMax + paddedMax + npu.inpBytes / 16 > npu.inpBytes)
    return hal::fail("fused chain: ", tensorMax, " + ", paddedMax,
                     " B of tensors do not fit in INP");
  const uint32_t tensorBase = static_cast<uint32_t>(npu.inpBytes - tensorMax);
  const uint32_t paddedBase = static_cast<uint32_t>(tensorBase - paddedMax);
  // WGT and PRM: the depthwise layers' slots low (at most a quarter and a half), the
  // pointwise layers' above; every pair's halves in the same windows.
  if (dwWgt > npu.wgtBytes / 4)
    return hal::fail("fused chain: the depthwise weights take too much WGT");
  dwPrm = std::min<uint64_t>(dwPrm, npu.prmBytes / 2 & ~63u);
  LoweringOptions lo = options;
  lo.maxJobCommands = 0;
  lo.costLimit = std::numeric_limits<double>::infinity();
  std::vector<std::vector<CompiledStep>> halves;
  std::vector<std::vector<firmware::Command>> links;
  std::vector<uint32_t> between;
  for (uint32_t i = 0; i < pairs; ++i) {
    const uint32_t d = first + 2 * i;
    Link& l = chain[i];
    l.x.base = paddedBase;
    internal::FusedHalf dwHalf, pwHalf;
    dwHalf.tensor = pwHalf.tensor = {tensorBase, static_cast<uint32_t>(l.tileStride)};
    dwHalf.wgt = {0, static_cast<uint32_t>(dwWgt)};
    dwHalf.prm = {0, static_cast<uint32_t>(dwPrm)};
    pwHalf.wgt = {static_cast<uint32_t>(dwWgt), static_cast<uint32_t>(npu.wgtBytes - dwWgt)};
    pwHalf.prm = {static_cast<uint32_t>(dwPrm), static_cast<uint32_t>(npu.prmBytes - dwPrm)};
    pwHalf.inp = {0, npu.inpBytes};  // it loads nothing into INP: its slots are notional
    pwHalf.splitWeights = true;      // its own plan search sees the whole of what they change
    if (i == 0) {
      dwHalf.inp = {0, paddedBase};
    } else {
      dwHalf.inp = {0, npu.inpBytes};
      dwHalf.expanded = l.x;
    }
    if (i + 1 < pairs) {
      // Only the rows the next depthwise layer reads (VALID windows may leave the last out).
      const Link& n = chain[i + 1];
      chain[i + 1].x.base = paddedBase;
      pwHalf.expanded = chain[i + 1].x;
      const int64_t rows = std::min<int64_t>(n.g.inH, n.x.rowOrigin + static_cast<int64_t>(n.nx));
      if (rows <= 0) return hal::fail("fused chain: operation ", d + 2, " reads only padding");
      pwHalf.rowCount = static_cast<uint32_t>(rows);
    }
    internal::OpView dwView(model, d, shapes), pwView(model, d + 1, shapes);
    auto a = internal::lowerDepthwiseIntoInp(model, d, dwView, lo, dwHalf);
    if (!a.ok()) return hal::fail("fused chain: the depthwise layer ", d, ": ", a.error());
    if (i == 0) a->report.dmaLoads -= dropRepeatedFills(a->commands, npu.inpBytes, C);
    auto b = internal::lowerPointwiseFromInp(model, d + 1, pwView, lo, pwHalf);
    if (!b.ok()) return hal::fail("fused chain: the pointwise layer ", d + 1, ": ", b.error());
    halves.push_back({std::move(*a)});
    halves.push_back({std::move(*b)});
    between.push_back(operations[d].outputs[0]);
    if (i + 1 == pairs) break;
    between.push_back(operations[d + 1].outputs[0]);
    // The next depthwise input's zero-point padding (its rows and columns outside the image).
    const Link& n = chain[i + 1];
    const int64_t origin = n.x.rowOrigin;
    const uint64_t top = static_cast<uint64_t>(-origin);
    const uint64_t bottom = static_cast<uint64_t>(
        std::min<int64_t>(n.g.inH, origin + static_cast<int64_t>(n.nx)) - origin);
    const hal::Operand& y = model.main.operands.at(operations[d + 1].outputs[0]);
    links.push_back(paddingFills(n.x, n.nx, top, bottom, n.g.inW, C, n.tiles,
                                 static_cast<uint8_t>(y.zeroPoint)));
  }
  NNC_ASSIGN_OR_RETURN(CompiledStep step, mergeHalves(halves, between, Join::kChain,
                                                      options.maxJobCommands, {}, links));
  step.operation = first;
  step.type = hal::OperationType::DEPTHWISE_CONV_2D;
  for (uint32_t f = first + 1; f < first + 2 * pairs; ++f) step.fused.push_back(f);
  uint64_t kept = 0;
  for (uint32_t i = 0; i < pairs; ++i) {
    kept += chain[i].tileStride * chain[i].tiles;
    if (i > 0) kept += uint64_t{chain[i].g.inH} * chain[i].g.inW * chain[i].g.inC;
  }
  NNC_TRY(summarize(step, halves,
                    "fused chain of " + std::to_string(pairs) +
                        " depthwise + pointwise pairs in one job: each pair's rows into INP as "
                        "in a fused pair, each pointwise layer's but the last into the next "
                        "depthwise input there (padding filled on chip), " +
                        std::to_string(kept) + " B never in DRAM; first " +
                        halves[0][0].report.mapping + "; last " + halves.back()[0].report.mapping,
                    options));
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
