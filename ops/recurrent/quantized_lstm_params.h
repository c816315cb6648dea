// Per-operation parameters of the quantized LSTMs, derived once from operand scales,
// shapes and weights before any arithmetic runs: what a compiler needs to map the gate
// products onto the MAC array (GateOperand) and the requant unit (GateRequant).
#pragma once

#include <cstdint>
#include <vector>

#include "ops/operation.h"
#include "ops/recurrent/integer_lstm.h"

namespace nncosim::ops::recurrent {

// QUANTIZED_16BIT_LSTM: all four gates are one [batch, depth] x [4 * units, depth]^T
// product of uint8 values (both offsets -zero point) plus int32 bias, requantized to Q3.12.
struct Quantized16BitLstmGemm {
  uint32_t batch = 0, input = 0, units = 0, depth = 0;  // depth = input + units
  std::vector<uint8_t> activations;                     // [batch, depth]
  std::vector<uint8_t> weights;                         // [4 * units, depth]
  std::vector<int32_t> bias;                            // [4 * units]
  int32_t activationOffset = -128, weightOffset = 0;
  GateRequant requant;  // to int16 Q3.12, saturating
};
Result<Quantized16BitLstmGemm> quantized16BitLstmGemm(const OperationContext& ctx);

// QUANTIZED_LSTM (TFLite's integer LSTM). Gates in input order: input, forget, cell,
// output. Each gate is two products (input and recurrent), each requantized to int16
// and summed with saturation; activation zero points are folded into the biases.
enum QuantizedLstmGate : int { kGateInput, kGateForget, kGateCell, kGateOutput };

struct QuantizedLstmParams {
  uint32_t batch = 0, input = 0, units = 0, output = 0;
  bool cifg = false, peephole = false, layerNorm = false, projection = false;
  int cellShift = 0;                                    // log2 of the cell state scale
  std::vector<int32_t> inputBias[4], recurrentBias[4];  // [units], zero points folded in
  GateRequant inputRequant[4], recurrentRequant[4];
  quant::QuantizedMultiplier peepholeScale[4];  // unused for the cell gate
  quant::QuantizedMultiplier layerNormScale[4];
  int32_t layerNormVarianceLimit[4] = {};
  quant::QuantizedMultiplier hiddenScale;  // o * tanh(c) (Q0.15 x Q0.15) to int8 hidden
  int32_t hiddenZeroPoint = 0;
  std::vector<int32_t> projectionBias;  // [output]
  GateRequant projectionRequant;
  int16_t cellClip = 0;       // 0: no clipping
  int8_t projectionClip = 0;  // 0: no clipping
};
Result<QuantizedLstmParams> quantizedLstmParams(const OperationContext& ctx);

}  // namespace nncosim::ops::recurrent
