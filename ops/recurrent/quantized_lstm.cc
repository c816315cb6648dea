// QUANTIZED_LSTM (1.3): one step of TFLite's integer LSTM. int8 activations, int8 symmetric
// weights, int16 gates (Q3.12 into sigmoid/tanh, Q0.15 out), int16 cell state with a
// power-of-two scale, optional CIFG, peephole, projection and layer normalization.
//
// Differences from NNAPI's CPU path, which has bugs in paths no conformance test reaches:
// without layer normalization the gate biases are folded into the gate products (as the
// spec's bias scale and TFLite do; NNAPI drops them), and the input/forget peepholes read
// the previous cell state (NNAPI reads the not yet written output buffer).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "ops/mac_count.h"
#include "ops/recurrent/integer_lstm.h"
#include "ops/recurrent/operations.h"
#include "ops/recurrent/quantized_lstm_params.h"
#include "ops/recurrent/recurrent_util.h"

namespace nncosim::ops::recurrent {
namespace {

constexpr size_t kInput = kQuantizedLstmInput;
constexpr size_t kInputToInput = 1;      // then forget, cell, output
constexpr size_t kRecurrentToInput = 5;  // then forget, cell, output
constexpr size_t kCellToInput = 9;       // then forget, output
constexpr size_t kInputGateBias = 12;    // then forget, cell, output
constexpr size_t kProjectionWeights = 16;
constexpr size_t kProjectionBias = 17;
constexpr size_t kPrevOutput = kQuantizedLstmPrevOutput;
constexpr size_t kPrevCellState = kQuantizedLstmPrevCellState;
constexpr size_t kInputLayerNorm = 20;  // then forget, cell, output
constexpr size_t kCellClip = 24;
constexpr size_t kProjectionClip = 25;
constexpr size_t kInputIntermediateScale = 26;  // then forget, cell, output
constexpr size_t kHiddenStateZeroPoint = 30;
constexpr size_t kHiddenStateScale = 31;

constexpr size_t kOutputStateOut = 0;
constexpr size_t kCellStateOut = 1;
constexpr size_t kOutput = 2;

constexpr const char* kGateNames[] = {"input", "forget", "cell", "output"};

bool has(const OperationContext& ctx, size_t i) { return present(ctx, static_cast<int>(i)); }

Status validate(const OperationContext& ctx) {
  NNC_TRY(checkCounts(ctx, {32}, {3}));
  using T = OperandType;
  std::vector<OperandType> in{T::TENSOR_QUANT8_ASYMM_SIGNED};
  in.insert(in.end(), 8, T::TENSOR_QUANT8_SYMM);
  in.insert(in.end(), 3, T::TENSOR_QUANT16_SYMM);
  in.insert(in.end(), 4, T::TENSOR_INT32);
  in.insert(in.end(), {T::TENSOR_QUANT8_SYMM, T::TENSOR_INT32, T::TENSOR_QUANT8_ASYMM_SIGNED,
                       T::TENSOR_QUANT16_SYMM});
  in.insert(in.end(), 4, T::TENSOR_QUANT16_SYMM);
  in.insert(in.end(), 6, T::FLOAT32);
  in.insert(in.end(), {T::INT32, T::FLOAT32});
  NNC_TRY(checkInputTypes(ctx, in));
  return checkOutputTypes(
      ctx, {T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_QUANT16_SYMM, T::TENSOR_QUANT8_ASYMM_SIGNED});
}

Status checkShapes(const OperationContext& ctx, QuantizedLstmParams* p) {
  NNC_TRY(checkRank(ctx, kInput, "input", 2));
  p->batch = ctx.inputShape(kInput).dim(0);
  p->input = ctx.inputShape(kInput).dim(1);
  NNC_TRY(checkRank(ctx, kInputToInput + kGateOutput, "input_to_output_weights", 2));
  NNC_TRY(checkRank(ctx, kRecurrentToInput + kGateOutput, "recurrent_to_output_weights", 2));
  p->units = ctx.inputShape(kInputToInput + kGateOutput).dim(0);
  p->output = ctx.inputShape(kRecurrentToInput + kGateOutput).dim(1);
  const uint32_t U = p->units;

  p->cifg = !has(ctx, kInputToInput);
  if (has(ctx, kInputToInput) != has(ctx, kRecurrentToInput))
    return hal::fail("inputs ", kInputToInput, " and ", kRecurrentToInput,
                     " (input-to-input and recurrent-to-input weights) must be both present or "
                     "both omitted");
  for (int g = p->cifg ? 1 : 0; g < 4; ++g) {
    NNC_TRY(checkShape(ctx, kInputToInput + g, "input-to-gate weights", {U, p->input}));
    NNC_TRY(checkShape(ctx, kRecurrentToInput + g, "recurrent-to-gate weights", {U, p->output}));
  }
  const bool anyPeephole =
      has(ctx, kCellToInput) || has(ctx, kCellToInput + 1) || has(ctx, kCellToInput + 2);
  p->peephole = has(ctx, kCellToInput + 2);
  if (anyPeephole) {
    if (!(has(ctx, kCellToInput) || p->cifg) || !has(ctx, kCellToInput + 1) || !p->peephole)
      return hal::fail("peephole weights (inputs 9-11) must be all present or all omitted");
    for (size_t k = 0; k < 3; ++k)
      if (has(ctx, kCellToInput + k)) NNC_TRY(checkShape(ctx, kCellToInput + k, "peephole", {U}));
  }
  if (p->cifg) {
    if (has(ctx, kInputGateBias))
      return hal::fail("input ", kInputGateBias, " (input gate bias) must be omitted with CIFG");
  } else {
    NNC_TRY(checkShape(ctx, kInputGateBias, "input gate bias", {U}));
  }
  for (int g = 1; g < 4; ++g) NNC_TRY(checkShape(ctx, kInputGateBias + g, "gate bias", {U}));

  p->projection = has(ctx, kProjectionWeights);
  if (p->projection)
    NNC_TRY(checkShape(ctx, kProjectionWeights, "projection weights", {p->output, U}));
  if (has(ctx, kProjectionBias)) {
    if (!p->projection)
      return hal::fail("input ", kProjectionBias, " (projection bias) without projection weights");
    NNC_TRY(checkShape(ctx, kProjectionBias, "projection bias", {p->output}));
  }
  if (U == 0) return hal::fail("input ", kInputToInput + kGateOutput, ": zero units");
  if (!p->projection && p->output != U)
    return hal::fail("without projection the output size (", p->output,
                     ") must equal the number of units (", U, ")");
  NNC_TRY(checkShape(ctx, kPrevOutput, "previous output", {p->batch, p->output}));
  NNC_TRY(checkShape(ctx, kPrevCellState, "previous cell state", {p->batch, U}));

  for (size_t k = 0; k < 4; ++k)
    if (has(ctx, kInputLayerNorm + k))
      NNC_TRY(checkShape(ctx, kInputLayerNorm + k, "layer norm", {U}));
  p->layerNorm = has(ctx, kInputLayerNorm + kGateOutput);
  const bool fco = has(ctx, kInputLayerNorm + 1) && has(ctx, kInputLayerNorm + 2) && p->layerNorm;
  const bool none = !has(ctx, kInputLayerNorm) && !has(ctx, kInputLayerNorm + 1) &&
                    !has(ctx, kInputLayerNorm + 2) && !p->layerNorm;
  if (p->cifg && has(ctx, kInputLayerNorm))
    return hal::fail("input ", kInputLayerNorm, " (input layer norm) must be omitted with CIFG");
  if (!none && !(fco && (p->cifg || has(ctx, kInputLayerNorm))))
    return hal::fail("layer norm weights (inputs 20-23) must be all present or all omitted");
  const char* const kScalarNames[] = {"cell_clip",
                                      "projection_clip",
                                      "input_intermediate_scale",
                                      "forget_intermediate_scale",
                                      "cell_intermediate_scale",
                                      "output_intermediate_scale",
                                      "hidden_state_zero_point",
                                      "hidden_state_scale"};
  for (size_t k = 0; k < 8; ++k) NNC_TRY(checkPresent(ctx, kCellClip + k, kScalarNames[k]));
  return Status::Ok();
}

Status prepare(OperationContext& ctx) {
  QuantizedLstmParams p;
  NNC_TRY(checkShapes(ctx, &p));
  NNC_TRY(setOutputDims(ctx, kOutputStateOut, {p.batch, p.output}));
  NNC_TRY(setOutputDims(ctx, kCellStateOut, {p.batch, p.units}));
  return setOutputDims(ctx, kOutput, {p.batch, p.output});
}

// Gate = saturate16(input product + recurrent product) (+ peephole), then layer norm.
void gatePreActivation(const OperationContext& ctx, const QuantizedLstmParams& p, int g,
                       const QuantizedLstmGateProducts& products, const int16_t* peepholeCell,
                       int16_t* gate) {
  const size_t n = size_t{p.batch} * p.units;
  const int16_t* in = products.input[g].data();
  const int32_t* rec = products.recurrent[g].data();
  for (size_t k = 0; k < n; ++k)
    gate[k] = static_cast<int16_t>(
        std::min<int64_t>(32767, std::max<int64_t>(-32768, int64_t{rec[k]} + in[k])));
  if (p.peephole && g != kGateCell) {
    const size_t pi = kCellToInput + (g == kGateOutput ? 2 : g);
    peepholeAccumulate(ctx.input<int16_t>(pi), peepholeCell, p.batch, p.units, p.peepholeScale[g],
                       gate);
  }
  if (p.layerNorm)
    layerNormInt16(gate, ctx.input<int16_t>(kInputLayerNorm + g),
                   ctx.input<int32_t>(kInputGateBias + g), p.layerNormScale[g],
                   p.layerNormVarianceLimit[g], p.batch, p.units, gate);
}

Status execute(OperationContext& ctx) {
  auto params = quantizedLstmParams(ctx);
  NNC_TRY(params);
  return quantizedLstmCell(ctx, *params, quantizedLstmGateProducts(ctx, *params));
}

}  // namespace

QuantizedLstmGateProducts quantizedLstmGateProducts(const OperationContext& ctx,
                                                    const QuantizedLstmParams& p) {
  const size_t n = size_t{p.batch} * p.units;
  QuantizedLstmGateProducts out;
  std::vector<int32_t> acc(n);
  for (int g = 0; g < 4; ++g) {
    if (!p.hasGate(g)) continue;
    fillBias(p.inputBias[g].data(), p.batch, p.units, acc.data());
    gateAccumulate(
        GateOperand<int8_t, int8_t>{ctx.input<int8_t>(kInput), 0, p.inputWeights[g], 0, p.input},
        p.batch, p.units, acc.data());
    out.input[g].resize(n);
    gateRequantize(acc.data(), n, p.inputRequant[g], out.input[g].data());
    fillBias(p.recurrentBias[g].data(), p.batch, p.units, acc.data());
    gateAccumulate(GateOperand<int8_t, int8_t>{ctx.input<int8_t>(kPrevOutput), 0,
                                               p.recurrentWeights[g], 0, p.output},
                   p.batch, p.units, acc.data());
    out.recurrent[g].resize(n);
    gateRequantize(acc.data(), n, p.recurrentRequant[g], out.recurrent[g].data());
  }
  return out;
}

Status quantizedLstmCell(OperationContext& ctx, const QuantizedLstmParams& p,
                         const QuantizedLstmGateProducts& products) {
  const size_t n = size_t{p.batch} * p.units;
  const int16_t* prevCell = ctx.input<int16_t>(kPrevCellState);
  int16_t* cell = ctx.output<int16_t>(kCellStateOut);
  std::vector<int16_t> inputGate(n), forgetGate(n), cellGate(n), outputGate(n);
  std::vector<int8_t> hidden(n);

  gatePreActivation(ctx, p, kGateForget, products, prevCell, forgetGate.data());
  sigmoidQ3(forgetGate.data(), n, forgetGate.data());
  gatePreActivation(ctx, p, kGateCell, products, prevCell, cellGate.data());
  NNC_TRY(tanhQ(3, cellGate.data(), n, cellGate.data()));
  if (p.cifg) {
    for (size_t k = 0; k < n; ++k) inputGate[k] = static_cast<int16_t>(32767 - forgetGate[k]);
  } else {
    gatePreActivation(ctx, p, kGateInput, products, prevCell, inputGate.data());
    sigmoidQ3(inputGate.data(), n, inputGate.data());
  }

  // c = f * c_prev + i * g, in the cell state's scale.
  mulShift(forgetGate.data(), prevCell, n, 15, forgetGate.data());
  mulShift(inputGate.data(), cellGate.data(), n, 30 + p.cellShift, cellGate.data());
  addSaturate(forgetGate.data(), cellGate.data(), n, cell);
  if (p.cellClip > 0) clipSymmetric<int16_t>(cell, n, p.cellClip);

  // The output gate's peephole reads the new cell state.
  gatePreActivation(ctx, p, kGateOutput, products, cell, outputGate.data());
  sigmoidQ3(outputGate.data(), n, outputGate.data());

  // h = o * tanh(c), requantized to the hidden state's int8 scale.
  NNC_TRY(tanhQ(p.cellShift + 15, cell, n, inputGate.data()));
  mulRequantToInt8(outputGate.data(), inputGate.data(), n, p.hiddenScale, p.hiddenZeroPoint,
                   hidden.data());

  int8_t* out = ctx.output<int8_t>(kOutput);
  const size_t outN = size_t{p.batch} * p.output;
  if (p.projection) {
    std::vector<int32_t> acc(outN);
    fillBias(p.projectionBias.data(), p.batch, p.output, acc.data());
    gateAccumulate(GateOperand<int8_t, int8_t>{hidden.data(), 0,
                                               ctx.input<int8_t>(kProjectionWeights), 0, p.units},
                   p.batch, p.output, acc.data());
    gateRequantize(acc.data(), outN, p.projectionRequant, out);
    if (p.projectionClip > 0) clipSymmetric<int8_t>(out, outN, p.projectionClip);
  } else {
    std::copy(hidden.begin(), hidden.begin() + outN, out);
  }
  std::copy(out, out + outN, ctx.output<int8_t>(kOutputStateOut));
  return Status::Ok();
}

// Scales and folded biases, computed with the reference's float/double mix.
Result<QuantizedLstmParams> quantizedLstmParams(const OperationContext& ctx) {
  QuantizedLstmParams p;
  NNC_TRY(checkShapes(ctx, &p));
  const Shape& in = ctx.inputShape(kInput);
  const Shape& prevOut = ctx.inputShape(kPrevOutput);
  const Shape& prevCell = ctx.inputShape(kPrevCellState);
  if (!checkedLog2(prevCell.scale, &p.cellShift) || p.cellShift > -9 || p.cellShift < -15)
    return hal::fail("input ", kPrevCellState, ": cell state scale ", prevCell.scale,
                     " must be a power of two between 2^-15 and 2^-9");

  for (int g = p.cifg ? 1 : 0; g < 4; ++g) {
    const float intermediate = ctx.scalar<float>(kInputIntermediateScale + g);
    const Shape& wi = ctx.inputShape(kInputToInput + g);
    const Shape& wr = ctx.inputShape(kRecurrentToInput + g);
    const float inputScale = wi.scale * in.scale / intermediate;
    const float recurrentScale = wr.scale * prevOut.scale / intermediate;
    auto mi = scaleMultiplier(inputScale, kGateNames[g]);
    NNC_TRY(mi);
    auto mr = scaleMultiplier(recurrentScale, kGateNames[g]);
    NNC_TRY(mr);
    p.inputRequant[g].multiplier = *mi;
    p.recurrentRequant[g].multiplier = *mr;
    // The recurrent product stays int32 until the sum with the input product saturates.
    p.recurrentRequant[g].min = INT32_MIN;
    p.recurrentRequant[g].max = INT32_MAX;
    p.inputWeights[g] = ctx.input<int8_t>(kInputToInput + g);
    p.recurrentWeights[g] = ctx.input<int8_t>(kRecurrentToInput + g);
    const int32_t* bias = p.layerNorm ? nullptr : ctx.input<int32_t>(kInputGateBias + g);
    p.inputBias[g] =
        foldZeroPoint(ctx.input<int8_t>(kInputToInput + g), p.units, p.input, -in.zeroPoint, bias);
    p.recurrentBias[g] = foldZeroPoint(ctx.input<int8_t>(kRecurrentToInput + g), p.units, p.output,
                                       -prevOut.zeroPoint, nullptr);
    if (p.peephole && g != kGateCell && !(g == kGateInput && p.cifg)) {
      const size_t pi = kCellToInput + (g == kGateOutput ? 2 : g);
      const float s =
          static_cast<float>(std::pow(2.0, p.cellShift) * ctx.inputShape(pi).scale / intermediate);
      auto m = scaleMultiplier(s, "peephole");
      NNC_TRY(m);
      p.peepholeScale[g] = *m;
    }
    if (p.layerNorm) {
      const Shape& ln = ctx.inputShape(kInputLayerNorm + g);
      auto m = scaleMultiplier(ln.scale, "layer norm");
      NNC_TRY(m);
      if (m->shift + 12 > 31)
        return hal::fail("input ", kInputLayerNorm + g, ": layer norm scale ", ln.scale,
                         " is too large");
      p.layerNormScale[g] = *m;
      p.layerNormVarianceLimit[g] = std::min(1, static_cast<int32_t>(10000 * ln.scale));
    }
  }

  const float hiddenScale = ctx.scalar<float>(kHiddenStateScale);
  p.hiddenZeroPoint = static_cast<int8_t>(ctx.scalar<int32_t>(kHiddenStateZeroPoint));
  const float hiddenEffective =
      static_cast<float>(std::pow(2.0, -15) / hiddenScale * std::pow(2.0, -15));
  auto mh = scaleMultiplier(hiddenEffective, "hidden state");
  NNC_TRY(mh);
  p.hiddenScale = *mh;

  if (p.projection) {
    const Shape& pw = ctx.inputShape(kProjectionWeights);
    auto mp = scaleMultiplier(pw.scale * hiddenScale / prevOut.scale, "projection");
    NNC_TRY(mp);
    p.projectionRequant.multiplier = *mp;
    p.projectionRequant.zeroPoint = prevOut.zeroPoint;
    p.projectionRequant.min = -128;
    p.projectionRequant.max = 127;
    p.projectionBias =
        foldZeroPoint(ctx.input<int8_t>(kProjectionWeights), p.output, p.units, p.hiddenZeroPoint,
                      has(ctx, kProjectionBias) ? ctx.input<int32_t>(kProjectionBias) : nullptr);
    const float clip = ctx.scalar<float>(kProjectionClip);
    if (clip > 0.0f)
      p.projectionClip = static_cast<int8_t>(
          static_cast<int32_t>(std::min(std::max(clip / pw.scale, -128.0f), 127.0f)));
  }
  const float cellClip = ctx.scalar<float>(kCellClip);
  if (cellClip > 0.0f)
    p.cellClip = static_cast<int16_t>(
        static_cast<int32_t>(std::min(std::max(cellClip / prevCell.scale, -32768.0f), 32767.0f)));
  return p;
}

// Per gate [B, I] x [U, I]^T + [B, O] x [U, O]^T (three gates with CIFG), and the
// projection [B, U] x [O, U]^T when there is one.
uint64_t macsQuantizedLstm(const MacQuery& q) {
  if (q.op.inputs.size() < 17) return 0;
  const auto& in = q.input(0);
  const auto& w = q.input(4);  // input-to-output [U, I]
  const auto& r = q.input(8);  // recurrent-to-output [U, O]
  if (in.size() != 2 || w.size() != 2 || r.size() != 2) return 0;
  uint64_t n = uint64_t{in[0]} * (q.inputOmitted(1) ? 3 : 4) * w[0] * (w[1] + r[1]);
  if (!q.inputOmitted(16)) n += uint64_t{in[0]} * r[1] * w[0];
  return n;
}

OperationDef quantizedLstmOperation() {
  return OperationDef{hal::OperationType::QUANTIZED_LSTM, &validate, &prepare, &execute,
                      &macsQuantizedLstm};
}

}  // namespace nncosim::ops::recurrent
