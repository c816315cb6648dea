// The quantized LSTMs as hybrid steps: the gate products on the MAC array and the requant
// unit, the cell on the host (CompiledStep::epilogue running ops/recurrent's cell phase).
//
//   QUANTIZED_16BIT_LSTM  one GEMM: A = [input | previous output] (uint8, zero point 128),
//       B = the four gates' weights [4N, input + N] (uint8), per-gate-row int32 bias;
//       REQUANT_STORE to int16 Q3.12 (signed, saturating) -> gates [batch, 4N].
//   QUANTIZED_LSTM  two GEMMs over the G gates (G = 3 with CIFG, else 4), each gate's
//       columns with its own multiplier (per-channel parameters) and its folded bias:
//         input products      A = input [batch, input] (int8), B = W [G*units, input]
//                             -> int16, saturating (the reference's first requantization)
//         recurrent products  A = previous output [batch, output], B = R [G*units, output]
//                             -> int32 (the reference adds it to the input product and
//                             saturates once; the host does that sum, bit for bit)
//       The host then runs the rest of the cell: saturating sum, peepholes, layer norm,
//       activations, cell state, hidden state and the projection.
//
// A operands are the operands' matrix images (layout.h kMatrixImage): the concatenation
// [input | previous output] needs no host copy, the DMA loads each piece's k range from
// the image that holds it.
//
//   result buffer [batch][channels] of `ob`-byte elements (ob = 2 or 4), row-major
//
// The GEMM engine plans the wider outputs itself (GemmSpec::outBytes).
#include "driver/compiler/lstm_lowering.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>

#include "driver/compiler/gemm_engine.h"
#include "driver/compiler/lowering_table.h"
#include "ops/recurrent/quantized_lstm_params.h"

namespace nncosim::driver::internal {
namespace {

namespace rec = ops::recurrent;
using firmware::ElemWidth;

// One gate-product GEMM: out[b][c] = requant(bias[c] + sum_k (A[b][k] - aZp)(W[c][k] - bZp)).
struct GateGemm {
  std::string name;
  uint32_t batch = 0, depth = 0, channels = 0;
  std::vector<uint8_t> weights;                  // [channels][depth]
  std::vector<int32_t> bias, multiplier, shift;  // per channel
  bool aSigned = false, bSigned = false;
  int32_t aZp = 0, bZp = 0;
  ElemWidth outWidth = ElemWidth::kW16;
  int32_t outZp = 0, clampMin = 0, clampMax = 0;
  // A = the concatenation along k of these operand images: (operation input, depth).
  std::vector<std::pair<size_t, uint32_t>> parts;
};

uint32_t widthBytes(ElemWidth w) {
  switch (w) {
    case ElemWidth::kW8:
      return 1;
    case ElemWidth::kW16:
      return 2;
    default:
      return 4;
  }
}

void addReport(StepReport& total, const StepReport& r) {
  total.weightMode = total.weightMode.empty() ? r.weightMode : total.weightMode;
  total.bufferSlots = r.bufferSlots;
  total.outSlots = r.outSlots;
  total.ocTiles += r.ocTiles;
  total.pixelTiles = std::max(total.pixelTiles, r.pixelTiles);
  total.phases += r.phases;
  total.steps += r.steps;
  total.kChunk = std::max(total.kChunk, r.kChunk);
  total.rowTilesPerStep = std::max(total.rowTilesPerStep, r.rowTilesPerStep);
  total.groupsPerStep = std::max(total.groupsPerStep, r.groupsPerStep);
  total.depth = std::max(total.depth, r.depth);
  total.gemms += r.gemms;
  total.macs += r.macs;
  total.usefulMacs += r.usefulMacs;
  total.dmaLoads += r.dmaLoads;
  total.dmaStores += r.dmaStores;
  total.loadBytes += r.loadBytes;
  total.storeBytes += r.storeBytes;
  total.commands += r.commands;
  total.jobs += r.jobs;
  total.estimatedCycles += r.estimatedCycles;
}

// The buffers of one GateGemm (laid out later by the caller).
struct GateGemmBuffers {
  std::vector<size_t> parts;  // A images
  size_t weights = 0, prm = 0, result = 0;
};

hal::Result<GateGemmBuffers> addBuffers(StepBuilder& sb, const OpView& v, const GateGemm& g,
                                        const NpuConfig& npu) {
  // REQUANT_STORE's PRM shifts are -31..30 (docs/isa.md).
  for (uint32_t c = 0; c < g.channels; ++c)
    if (g.shift[c] < -31 || g.shift[c] > 30)
      return hal::fail(g.name, " column ", c, ": requantization shift ", g.shift[c],
                       " is outside the requant unit's -31..30");
  GateGemmBuffers b;
  for (const auto& [input, depth] : g.parts) {
    TensorLayout a;
    a.kind = TensorLayout::Kind::kMatrixImage;
    a.matrices = 1;
    a.lanes = g.batch;
    a.depth = depth;
    a.laneTile = npu.rows;
    a.lanesMajor = true;
    a.fill = static_cast<uint8_t>(g.aZp);
    NNC_ASSIGN_OR_RETURN(
        auto buf, sb.bindInput(v.inOperand(input), a, g.name + " input " + std::to_string(input)));
    b.parts.push_back(buf);
  }
  TensorLayout w;
  w.kind = TensorLayout::Kind::kMatrixImage;
  w.matrices = 1;
  w.lanes = g.channels;
  w.depth = g.depth;
  w.laneTile = npu.cols;
  w.lanesMajor = true;
  w.fill = static_cast<uint8_t>(g.bZp);
  auto image = packTensor(w, g.weights);
  if (!image.ok()) return hal::fail(g.name, " weights: ", image.error());
  b.weights = sb.addConstant(g.name + " weights", std::move(*image));
  b.prm = sb.addConstant(g.name + " requant parameters",
                         prmImage(g.channels, npu.cols, g.bias.data(), g.multiplier, g.shift));
  b.result = sb.addBuffer(g.name, BufferRole::kOutput,
                          uint64_t{g.batch} * g.channels * widthBytes(g.outWidth));
  return b;
}

// The commands of one GateGemm (its buffers placed); adds its figures to `report`.
hal::Result<std::vector<firmware::Command>> emitGateGemm(const GateGemm& g,
                                                         const GateGemmBuffers& b, StepBuilder& sb,
                                                         const LoweringOptions& options,
                                                         StepReport& report) {
  const NpuConfig& npu = options.npu;
  const uint32_t R = npu.rows, C = npu.cols, ob = widthBytes(g.outWidth);
  GemmSpec spec;
  const uint32_t Q = (g.channels + C - 1) / C;
  spec.channels = g.channels;
  spec.tileDepth.assign(Q, g.depth);
  spec.tileGroup.assign(Q, 0);
  spec.usefulMacs = uint64_t{g.batch} * g.channels * g.depth;
  spec.aSigned = g.aSigned;
  spec.bSigned = g.bSigned;
  spec.aZp = g.aZp;
  spec.bZp = g.bZp;
  spec.perChannel = true;
  spec.biasEn = true;
  spec.outSigned = true;
  spec.outZp = g.outZp;
  spec.clampMin = g.clampMin;
  spec.clampMax = g.clampMax;
  spec.outBytes = ob;
  spec.prmImage = sb.address(b.prm);

  std::vector<std::pair<uint64_t, uint32_t>> images;  // (address, depth)
  for (size_t i = 0; i < b.parts.size(); ++i)
    images.emplace_back(sb.address(b.parts[i]), g.parts[i].second);
  const uint64_t out = sb.address(b.result);
  const uint32_t batch = g.batch, channels = g.channels;
  GemmProblem prob;
  prob.weightImage = sb.address(b.weights);
  prob.rowTiles = (batch + R - 1) / R;
  prob.rowsOf = [batch, R](uint32_t p) { return std::min(R, batch - p * R); };
  prob.loadA = [images, R](const std::vector<APiece>& pieces, std::vector<firmware::DmaLoad>& o) {
    if (images.size() == 1) {
      // Plain copies, not structured bindings: C++17 forbids capturing those in a lambda
      // (gcc accepts it, clang does not).
      const uint64_t image = images[0].first;
      const uint32_t depth = images[0].second;
      loadContiguousPieces(
          pieces, R, [=](const APiece& a) { return image + (uint64_t{a.p} * depth + a.k0) * R; },
          o);
      return;
    }
    // Piece k range [k0, k1) of the concatenation: each image's share from that image.
    for (const APiece& a : pieces) {
      uint32_t inp = a.inpAddr, base = 0;
      for (const auto& [image, depth] : images) {
        const uint32_t lo = std::max(a.k0, base), hi = std::min(a.k1, base + depth);
        if (lo < hi) {
          contiguousLoad(firmware::Buffer::kInp, inp,
                         static_cast<uint32_t>(image + (uint64_t{a.p} * depth + (lo - base)) * R),
                         uint64_t{hi - lo} * R, o);
          inp += (hi - lo) * R;
        }
        base += depth;
      }
    }
  };
  // Tile q of the step's rows (C elements of ob bytes each) to its columns.
  prob.storeOut = [=](uint32_t p0, uint32_t, uint32_t q0, uint32_t q1, uint32_t rows,
                      uint32_t outAddr, std::vector<firmware::DmaStore>& o) {
    for (uint32_t q = q0; q < q1; ++q) {
      firmware::DmaStore d;
      d.bufId = firmware::Buffer::kOut;
      d.bufAddr = outAddr + (q - q0) * rows * C * ob;
      d.dramAddr =
          static_cast<uint32_t>(out + (uint64_t{p0} * R * channels + uint64_t{q} * C) * ob);
      d.count0 = std::min(C, channels - q * C) * ob;
      d.count1 = rows;
      d.bufStride1 = C * ob;
      d.dramStride1 = channels * ob;
      o.push_back(d);
    }
  };
  spec.problems.push_back(std::move(prob));

  PlanOptions plan = PlanOptions::forPreference(options.preference);
  plan.maxJobCommands = options.maxJobCommands;
  StepReport r;
  auto commands = emitGemm(spec, npu, plan, options.tag, r);
  if (!commands.ok()) return hal::fail(g.name, ": ", commands.error());
  for (const std::vector<firmware::Command>& job : splitJobs(*commands)) {
    const InterpreterResult est = IsaInterpreter::estimate(npu, job, options.cost);
    if (!est.completed) return hal::fail(g.name, ": plan estimate failed: ", est.describe());
    r.estimatedCycles += est.counters.cycles;
  }
  addReport(report, r);
  return commands;
}

// Lays out and emits the GEMMs of a hybrid step; returns the result buffers in order.
hal::Result<std::vector<size_t>> emitGateGemms(const std::vector<GateGemm>& gemms, StepBuilder& sb,
                                               const OpView& v, const LoweringOptions& options) {
  std::vector<GateGemmBuffers> buffers;
  for (const GateGemm& g : gemms) {
    NNC_ASSIGN_OR_RETURN(auto b, addBuffers(sb, v, g, options.npu));
    buffers.push_back(std::move(b));
  }
  NNC_TRY(sb.layout());
  CompiledStep& step = sb.step();
  step.report.jobs = 0;
  std::vector<size_t> results;
  for (size_t i = 0; i < gemms.size(); ++i) {
    NNC_ASSIGN_OR_RETURN(auto commands,
                         emitGateGemm(gemms[i], buffers[i], sb, options, step.report));
    step.commands.insert(step.commands.end(), commands.begin(), commands.end());
    results.push_back(buffers[i].result);
  }
  return results;
}

// Constant inputs the gate products are compiled from.
hal::Status requireConstants(const OpView& v, const std::vector<size_t>& runtime) {
  for (size_t i = 0; i < v.op().inputs.size(); ++i) {
    if (std::find(runtime.begin(), runtime.end(), i) != runtime.end()) continue;
    if (v.ctx().isOmitted(i) || v.isConstant(i)) continue;
    return hal::fail("input ", i,
                     " is not a constant: the gate weights and parameters are compiled into the "
                     "step (runtime weights run on the CPU)");
  }
  return hal::Status::Ok();
}

template <typename T>
std::vector<T> fromBytes(const std::vector<uint8_t>& bytes, size_t n) {
  std::vector<T> v(n);
  std::memcpy(v.data(), bytes.data(), n * sizeof(T));
  return v;
}

}  // namespace

hal::Status quantized16BitLstmSupport(const OpView& v) {
  NNC_TRY(requireConstants(v, {rec::kQuantized16BitLstmInput, rec::kQuantized16BitLstmPrevOutput,
                               rec::kQuantized16BitLstmPrevCellState}));
  NNC_ASSIGN_OR_RETURN(auto g, rec::quantized16BitLstmGemm(v.ctx()));
  return hal::Status::Ok();
}

hal::Result<CompiledStep> lowerQuantized16BitLstm(const hal::Model& model, uint32_t index,
                                                  const OpView& v, const LoweringOptions& options) {
  NNC_ASSIGN_OR_RETURN(auto gr, rec::quantized16BitLstmGemm(v.ctx()));
  const rec::Quantized16BitLstmGemm& g = gr;
  GateGemm gemm;
  gemm.name = "gates";
  gemm.batch = g.batch;
  gemm.depth = g.depth;
  gemm.channels = 4 * g.units;
  gemm.weights = g.weights;
  gemm.bias = g.bias;
  gemm.multiplier.assign(gemm.channels, g.requant.multiplier.multiplier);
  gemm.shift.assign(gemm.channels, g.requant.multiplier.shift);
  gemm.aZp = -g.activationOffset;
  gemm.bZp = -g.weightOffset;
  gemm.outWidth = ElemWidth::kW16;
  gemm.outZp = g.requant.zeroPoint;
  gemm.clampMin = g.requant.min;
  gemm.clampMax = g.requant.max;
  gemm.parts = {{rec::kQuantized16BitLstmInput, g.input},
                {rec::kQuantized16BitLstmPrevOutput, g.units}};

  StepBuilder sb(model, index);
  NNC_ASSIGN_OR_RETURN(auto results, emitGateGemms({gemm}, sb, v, options));
  CompiledStep& step = sb.step();
  const size_t n = size_t{g.batch} * 4 * g.units;
  step.epilogue.results = results;
  step.epilogue.finish = [n](ops::OperationContext& ctx,
                             const std::vector<std::vector<uint8_t>>& r) {
    const std::vector<int16_t> gates = fromBytes<int16_t>(r.at(0), n);
    rec::quantized16BitLstmCell(ctx, gates.data());
    return hal::Status::Ok();
  };
  step.report.mapping = "hybrid: gate GEMM on the NPU (batch rows x " +
                        std::to_string(4 * g.units) + " gate units, depth " +
                        std::to_string(g.depth) + ", int16 out), cell on the CPU";
  return std::move(step);
}

hal::Status quantizedLstmSupport(const OpView& v) {
  NNC_TRY(requireConstants(v, {rec::kQuantizedLstmInput, rec::kQuantizedLstmPrevOutput,
                               rec::kQuantizedLstmPrevCellState}));
  NNC_ASSIGN_OR_RETURN(auto p, rec::quantizedLstmParams(v.ctx()));
  return hal::Status::Ok();
}

hal::Result<CompiledStep> lowerQuantizedLstm(const hal::Model& model, uint32_t index,
                                             const OpView& v, const LoweringOptions& options) {
  NNC_ASSIGN_OR_RETURN(auto pr, rec::quantizedLstmParams(v.ctx()));
  const rec::QuantizedLstmParams& p = pr;
  std::vector<int> gates;
  for (int g = 0; g < 4; ++g)
    if (p.hasGate(g)) gates.push_back(g);
  const uint32_t U = p.units;
  // Gate-major columns: gate gates[i]'s units at [i*U, (i+1)*U).
  auto gateGemm = [&](bool recurrent) {
    GateGemm m;
    m.name = recurrent ? "recurrent products" : "input products";
    m.batch = p.batch;
    m.depth = recurrent ? p.output : p.input;
    m.channels = static_cast<uint32_t>(gates.size()) * U;
    m.aSigned = m.bSigned = true;
    for (int g : gates) {
      const int8_t* w = recurrent ? p.recurrentWeights[g] : p.inputWeights[g];
      const uint8_t* bytes = reinterpret_cast<const uint8_t*>(w);
      m.weights.insert(m.weights.end(), bytes, bytes + size_t{U} * m.depth);
      const std::vector<int32_t>& bias = recurrent ? p.recurrentBias[g] : p.inputBias[g];
      m.bias.insert(m.bias.end(), bias.begin(), bias.end());
      const rec::GateRequant& rq = recurrent ? p.recurrentRequant[g] : p.inputRequant[g];
      m.multiplier.insert(m.multiplier.end(), U, rq.multiplier.multiplier);
      m.shift.insert(m.shift.end(), U, rq.multiplier.shift);
      m.outZp = rq.zeroPoint;
      m.clampMin = rq.min;
      m.clampMax = rq.max;
    }
    m.outWidth = recurrent ? ElemWidth::kW32 : ElemWidth::kW16;
    m.parts = {{recurrent ? rec::kQuantizedLstmPrevOutput : rec::kQuantizedLstmInput, m.depth}};
    return m;
  };
  StepBuilder sb(model, index);
  NNC_ASSIGN_OR_RETURN(auto results,
                       emitGateGemms({gateGemm(false), gateGemm(true)}, sb, v, options));
  CompiledStep& step = sb.step();
  step.epilogue.results = results;
  const uint32_t B = p.batch, channels = static_cast<uint32_t>(gates.size()) * U;
  step.epilogue.finish = [gates, B, U, channels](
                             ops::OperationContext& ctx,
                             const std::vector<std::vector<uint8_t>>& r) -> hal::Status {
    // The parameters from the run's operands (the weights are the compiled constants).
    auto params = rec::quantizedLstmParams(ctx);
    NNC_TRY(params);
    const std::vector<int16_t> in = fromBytes<int16_t>(r.at(0), size_t{B} * channels);
    const std::vector<int32_t> re = fromBytes<int32_t>(r.at(1), size_t{B} * channels);
    rec::QuantizedLstmGateProducts products;
    for (size_t i = 0; i < gates.size(); ++i) {
      const int g = gates[i];
      products.input[g].resize(size_t{B} * U);
      products.recurrent[g].resize(size_t{B} * U);
      for (uint32_t b = 0; b < B; ++b)
        for (uint32_t u = 0; u < U; ++u) {
          const size_t from = size_t{b} * channels + i * U + u;
          products.input[g][size_t{b} * U + u] = in[from];
          products.recurrent[g][size_t{b} * U + u] = re[from];
        }
    }
    return rec::quantizedLstmCell(ctx, *params, products);
  };
  step.report.mapping = "hybrid: " + std::to_string(gates.size()) +
                        " gates' input and recurrent products on the NPU (batch rows x " +
                        std::to_string(channels) + " gate units, depth " + std::to_string(p.input) +
                        " and " + std::to_string(p.output) +
                        "; int16 and int32 out), cell on the CPU";
  return std::move(step);
}

}  // namespace nncosim::driver::internal

namespace nncosim::driver {

void registerLstmLowerings(NpuLoweringTable& t) {
  t.add({hal::OperationType::QUANTIZED_16BIT_LSTM, NpuUnit::kHybrid,
         &internal::quantized16BitLstmSupport, &internal::lowerQuantized16BitLstm});
  t.add({hal::OperationType::QUANTIZED_LSTM, NpuUnit::kHybrid, &internal::quantizedLstmSupport,
         &internal::lowerQuantizedLstm});
}

}  // namespace nncosim::driver
