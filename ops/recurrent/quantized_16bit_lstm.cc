// QUANTIZED_16BIT_LSTM (1.2): one LSTM step with uint8 activations (scale 1/128, zero
// point 128), uint8 weights, int32 biases and an int16 cell state with 4 integer bits.
// The gate products are requantized to Q3.12 and the rest runs in 16-bit fixed point, as
// TFLite's quantized LstmCell (which NNAPI's CPU path wraps) does.
#include <algorithm>
#include <vector>

#include "ops/mac_count.h"
#include "ops/quant/fixed_point.h"
#include "ops/recurrent/fixed_point_math.h"
#include "ops/recurrent/integer_lstm.h"
#include "ops/recurrent/operations.h"
#include "ops/recurrent/quantized_lstm_params.h"
#include "ops/recurrent/recurrent_util.h"

namespace nncosim::ops::recurrent {
namespace {

constexpr size_t kInput = kQuantized16BitLstmInput;
constexpr size_t kInputToInput = 1;      // then forget, cell, output
constexpr size_t kRecurrentToInput = 5;  // then forget, cell, output
constexpr size_t kInputGateBias = 9;     // then forget, cell, output
constexpr size_t kPrevCellState = kQuantized16BitLstmPrevCellState;
constexpr size_t kPrevOutput = kQuantized16BitLstmPrevOutput;
constexpr size_t kCellStateOut = 0;
constexpr size_t kOutput = 1;

// Gate order of the inputs (QuantizedLstmGate): input, forget, cell, output.
using Gate = QuantizedLstmGate;

struct Dims {
  uint32_t batch, input, output;
};

Status validate(const OperationContext& ctx) {
  NNC_TRY(checkCounts(ctx, {15}, {2}));
  using T = OperandType;
  std::vector<OperandType> in(9, T::TENSOR_QUANT8_ASYMM);
  in.insert(in.end(), 4, T::TENSOR_INT32);
  in.push_back(T::TENSOR_QUANT16_SYMM);
  in.push_back(T::TENSOR_QUANT8_ASYMM);
  NNC_TRY(checkInputTypes(ctx, in));
  return checkOutputTypes(ctx, {T::TENSOR_QUANT16_SYMM, T::TENSOR_QUANT8_ASYMM});
}

// The fixed input/output quantization of this operation.
Status checkActivationQuant(const OperationContext& ctx, size_t i, const char* name) {
  const Shape& s = ctx.inputShape(i);
  if (s.scale != 1.0f / 128.0f || s.zeroPoint != 128)
    return hal::fail("input ", i, " (", name, "): expected scale 1/128 and zero point 128, got ",
                     s.scale, " and ", s.zeroPoint);
  return Status::Ok();
}

Result<Dims> configure(const OperationContext& ctx) {
  NNC_TRY(checkRank(ctx, kInput, "input", 2));
  NNC_TRY(checkActivationQuant(ctx, kInput, "input"));
  NNC_TRY(checkRank(ctx, kPrevOutput, "previous output", 2));
  NNC_TRY(checkActivationQuant(ctx, kPrevOutput, "previous output"));
  Dims d;
  d.batch = ctx.inputShape(kInput).dim(0);
  d.input = ctx.inputShape(kInput).dim(1);
  d.output = ctx.inputShape(kPrevOutput).dim(1);
  NNC_TRY(checkShape(ctx, kPrevOutput, "previous output", {d.batch, d.output}));

  const Shape& w0 = ctx.inputShape(kInputToInput);
  if (w0.scale == 0.0f) return hal::fail("input ", kInputToInput, ": weights scale is 0");
  for (size_t k = 0; k < 8; ++k) {
    const size_t i = kInputToInput + k;
    NNC_TRY(checkShape(ctx, i, "weights", {d.output, k < 4 ? d.input : d.output}));
    const Shape& w = ctx.inputShape(i);
    if (w.scale != w0.scale || w.zeroPoint != w0.zeroPoint)
      return hal::fail("input ", i, ": weights quantization (", w.scale, ", ", w.zeroPoint,
                       ") differs from input ", kInputToInput, "'s (", w0.scale, ", ", w0.zeroPoint,
                       ")");
  }
  const Shape& b0 = ctx.inputShape(kInputGateBias);
  if (static_cast<double>(b0.scale) != static_cast<double>(w0.scale) / 128.0 || b0.zeroPoint != 0)
    return hal::fail("input ", kInputGateBias, ": bias scale ", b0.scale,
                     " must be weights scale / 128 (", w0.scale / 128.0, ") with zero point 0");
  for (size_t k = 0; k < 4; ++k) {
    const size_t i = kInputGateBias + k;
    NNC_TRY(checkShape(ctx, i, "bias", {d.output}));
    const Shape& b = ctx.inputShape(i);
    if (b.scale != b0.scale || b.zeroPoint != b0.zeroPoint)
      return hal::fail("input ", i, ": bias quantization differs from input ", kInputGateBias,
                       "'s");
  }
  NNC_TRY(checkShape(ctx, kPrevCellState, "previous cell state", {d.batch, d.output}));
  const Shape& cell = ctx.inputShape(kPrevCellState);
  int log2 = 0;
  if (cell.zeroPoint != 0 || !checkedLog2(cell.scale, &log2) || log2 + 15 != 4)
    return hal::fail("input ", kPrevCellState,
                     ": cell state must have scale 2^-11 (4 integer "
                     "bits) and zero point 0, got ",
                     cell.scale, " and ", cell.zeroPoint);
  return d;
}

Status prepare(OperationContext& ctx) {
  auto d = configure(ctx);
  NNC_TRY(d);
  NNC_TRY(setOutputDims(ctx, kCellStateOut, {d->batch, d->output}));
  return setOutputDims(ctx, kOutput, {d->batch, d->output});
}

Status execute(OperationContext& ctx) {
  auto gemm = quantized16BitLstmGemm(ctx);
  NNC_TRY(gemm);
  const std::vector<int16_t> gates = quantized16BitLstmGates(ctx, *gemm);
  quantized16BitLstmCell(ctx, gates.data());
  return Status::Ok();
}

}  // namespace

std::vector<uint8_t> quantized16BitLstmActivations(const OperationContext& ctx,
                                                   const Quantized16BitLstmGemm& g) {
  std::vector<uint8_t> a(size_t{g.batch} * g.depth);
  const uint8_t* in = ctx.input<uint8_t>(kInput);
  const uint8_t* prev = ctx.input<uint8_t>(kPrevOutput);
  for (uint32_t b = 0; b < g.batch; ++b) {
    std::copy_n(in + size_t{b} * g.input, g.input, &a[size_t{b} * g.depth]);
    std::copy_n(prev + size_t{b} * g.units, g.units, &a[size_t{b} * g.depth + g.input]);
  }
  return a;
}

std::vector<int16_t> quantized16BitLstmGates(const OperationContext& ctx,
                                             const Quantized16BitLstmGemm& g) {
  const uint32_t B = g.batch, N = g.units;
  const std::vector<uint8_t> activations = quantized16BitLstmActivations(ctx, g);
  std::vector<int32_t> acc(size_t{B} * 4 * N);
  fillBias(g.bias.data(), B, 4 * N, acc.data());
  const GateOperand<uint8_t, uint8_t> operand{activations.data(), g.activationOffset,
                                              g.weights.data(), g.weightOffset, g.depth};
  gateAccumulate(operand, B, 4 * N, acc.data());
  std::vector<int16_t> gates(acc.size());
  gateRequantize(acc.data(), acc.size(), g.requant, gates.data());
  return gates;
}

void quantized16BitLstmCell(OperationContext& ctx, const int16_t* gates) {
  const uint32_t B = ctx.inputShape(kPrevCellState).dim(0);
  const uint32_t N = ctx.inputShape(kPrevCellState).dim(1);
  // Row blocks of the product: input, cell, forget, output gates.
  auto gate = [&](uint32_t block, size_t b, size_t c) {
    return gates[b * 4 * N + size_t{block} * N + c];
  };
  using F0 = fx::Fx<int16_t, 0>;
  using F3 = fx::Fx<int16_t, 3>;
  using F4 = fx::Fx<int16_t, 4>;
  const int16_t* prevCell = ctx.input<int16_t>(kPrevCellState);
  int16_t* cellOut = ctx.output<int16_t>(kCellStateOut);
  uint8_t* out = ctx.output<uint8_t>(kOutput);
  for (uint32_t b = 0; b < B; ++b) {
    for (uint32_t c = 0; c < N; ++c) {
      const size_t k = size_t{b} * N + c;
      const F0 inputGate = fx::logistic(F3::fromRaw(gate(0, b, c)));
      const F0 modulation = fx::tanh(F3::fromRaw(gate(1, b, c)));
      const F0 forgetGate = fx::logistic(F3::fromRaw(gate(2, b, c)));
      const F0 outputGate = fx::logistic(F3::fromRaw(gate(3, b, c)));
      const F4 kept = forgetGate * F4::fromRaw(prevCell[k]);
      const F4 newState = fx::saturatingAdd(fx::rescale<4>(inputGate * modulation), kept);
      // tanh of the state runs in Q3 (clamped to [-8, 8]), as the reference does.
      const F0 activation = outputGate * fx::tanh(fx::rescale<3>(newState));
      cellOut[k] = newState.raw;
      const int32_t q = fx::roundingDivideByPot<int16_t>(activation.raw, 8);
      out[k] = static_cast<uint8_t>(128 + std::min(127, std::max(-128, q)));
    }
  }
}

Result<Quantized16BitLstmGemm> quantized16BitLstmGemm(const OperationContext& ctx) {
  auto d = configure(ctx);
  NNC_TRY(d);
  Quantized16BitLstmGemm g;
  g.batch = d->batch;
  g.input = d->input;
  g.units = d->output;
  const uint32_t N = g.units;

  // One fully connected layer computes all four gates, laid out exactly as NNAPI's CPU
  // path lays it out: activations [input, previous output], each gate's weight rows
  // [recurrent-to-gate, input-to-gate]. The column blocks are in opposite orders, so
  // activations meet weights by column position, not by name; NNAPI's results (and the
  // conformance expectations, bit-exact with this) are defined by that layout. Row
  // blocks: input, cell, forget, output gates.
  g.depth = g.input + N;
  constexpr Gate kRowOrder[4] = {kGateInput, kGateCell, kGateForget, kGateOutput};
  g.weights.resize(size_t{4} * N * g.depth);
  g.bias.resize(size_t{4} * N);
  for (uint32_t block = 0; block < 4; ++block) {
    const int gate = kRowOrder[block];
    const uint8_t* rec = ctx.input<uint8_t>(kRecurrentToInput + gate);
    const uint8_t* in = ctx.input<uint8_t>(kInputToInput + gate);
    for (uint32_t r = 0; r < N; ++r) {
      uint8_t* row = &g.weights[(size_t{block} * N + r) * g.depth];
      std::copy_n(rec + size_t{r} * N, N, row);
      std::copy_n(in + size_t{r} * g.input, g.input, row + N);
    }
    std::copy_n(ctx.input<int32_t>(kInputGateBias + gate), N, &g.bias[size_t{block} * N]);
  }
  g.activationOffset = -128;
  g.weightOffset = -ctx.inputShape(kInputToInput).zeroPoint;
  // The gate outputs are Q3.12 (scale 2^-12) and the accumulators are in the bias scale,
  // so the requantization multiplier is bias scale * 2^12.
  auto multiplier = scaleMultiplier(
      static_cast<double>(4096 * ctx.inputShape(kInputGateBias).scale), "the gate products");
  NNC_TRY(multiplier);
  g.requant.multiplier = *multiplier;
  return g;
}

// One [B, I + N] x [4N, I + N]^T gate product (N: the rows of input 1, input-to-input
// weights [N, I]).
uint64_t macsQuantized16BitLstm(const MacQuery& q) {
  const auto& in = q.input(0);
  const auto& w = q.input(1);
  return in.size() == 2 && w.size() == 2 ? uint64_t{in[0]} * 4 * w[0] * (in[1] + w[0]) : 0;
}

OperationDef quantized16BitLstmOperation() {
  return OperationDef{hal::OperationType::QUANTIZED_16BIT_LSTM, &validate, &prepare, &execute,
                      &macsQuantized16BitLstm};
}

}  // namespace nncosim::ops::recurrent
