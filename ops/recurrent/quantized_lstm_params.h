// Per-operation parameters of the quantized LSTMs, derived once from operand scales,
// shapes and weights before any arithmetic runs, and the two phases each LSTM step runs
// in: the gate products (matrix products, what a compiler maps onto the MAC array and
// the requant unit) and the cell (elementwise work on the products). The CPU path runs
// both phases; the driver's hybrid step (driver/compiler/lstm_lowering.cc) computes the
// products on the NPU and calls the same cell function, so both paths share one cell.
#pragma once

#include <cstdint>
#include <vector>

#include "ops/operation.h"
#include "ops/recurrent/integer_lstm.h"

namespace nncosim::ops::recurrent {

// ---- QUANTIZED_16BIT_LSTM ----

// Operation inputs read at run time: the gate product's activations and the previous cell
// state; the rest (inputs 1-12) are weights and biases.
inline constexpr size_t kQuantized16BitLstmInput = 0;
inline constexpr size_t kQuantized16BitLstmPrevCellState = 13;
inline constexpr size_t kQuantized16BitLstmPrevOutput = 14;

// All four gates are one [batch, depth] x [4 * units, depth]^T product of uint8 values
// (both offsets -zero point) plus int32 bias, requantized to Q3.12. The activations are
// [input, previous output] per batch row (quantized16BitLstmActivations).
struct Quantized16BitLstmGemm {
  uint32_t batch = 0, input = 0, units = 0, depth = 0;  // depth = input + units
  std::vector<uint8_t> weights;                         // [4 * units, depth]
  std::vector<int32_t> bias;                            // [4 * units]
  int32_t activationOffset = -128, weightOffset = 0;
  GateRequant requant;  // to int16 Q3.12, saturating
};
// Reads the shapes, weights and biases only (a compiler calls it with constant weights).
Result<Quantized16BitLstmGemm> quantized16BitLstmGemm(const OperationContext& ctx);

// The product's activations [batch, depth]: each row the input, then the previous output.
std::vector<uint8_t> quantized16BitLstmActivations(const OperationContext& ctx,
                                                   const Quantized16BitLstmGemm& g);
// Phase 1 on the CPU: the gate values [batch, 4 * units], int16 Q3.12, in row blocks
// input, cell, forget, output gate.
std::vector<int16_t> quantized16BitLstmGates(const OperationContext& ctx,
                                             const Quantized16BitLstmGemm& g);
// Phase 2: the new cell state and output from the gate values (layout as above); writes
// the operation's outputs (prepared).
void quantized16BitLstmCell(OperationContext& ctx, const int16_t* gates);

// ---- QUANTIZED_LSTM (TFLite's integer LSTM) ----

// Gates in input order: input, forget, cell, output. Each gate is two products (input and
// recurrent), each requantized, then summed with saturation to int16; activation zero
// points are folded into the biases.
enum QuantizedLstmGate : int { kGateInput, kGateForget, kGateCell, kGateOutput };

// Operation inputs the gate products read at run time; every other input but the previous
// cell state (19) is a weight or parameter.
inline constexpr size_t kQuantizedLstmInput = 0;
inline constexpr size_t kQuantizedLstmPrevOutput = 18;
inline constexpr size_t kQuantizedLstmPrevCellState = 19;

struct QuantizedLstmParams {
  uint32_t batch = 0, input = 0, units = 0, output = 0;
  bool cifg = false, peephole = false, layerNorm = false, projection = false;
  int cellShift = 0;  // log2 of the cell state scale
  // Gate g's weights ([units, input] and [units, output], int8 symmetric), pointers into
  // the operation's operands; null for the input gate with CIFG.
  const int8_t* inputWeights[4] = {};
  const int8_t* recurrentWeights[4] = {};
  std::vector<int32_t> inputBias[4], recurrentBias[4];  // [units], zero points folded in
  // inputRequant saturates to int16; recurrentRequant keeps the int32 result (the sum with
  // the input product saturates once, as the reference's accumulating requantization).
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
  // The gates that exist: forget, cell, output, and input unless CIFG.
  bool hasGate(int g) const { return g != kGateInput || !cifg; }
};
// Reads the shapes, weights, biases and scalar parameters (not the activations).
Result<QuantizedLstmParams> quantizedLstmParams(const OperationContext& ctx);

// The gate products of every gate, [batch, units] each (empty for a missing gate).
struct QuantizedLstmGateProducts {
  std::vector<int16_t> input[4];      // inputRequant(inputBias + x W), saturated
  std::vector<int32_t> recurrent[4];  // recurrentRequant(recurrentBias + h R), int32
};
// Phase 1 on the CPU.
QuantizedLstmGateProducts quantizedLstmGateProducts(const OperationContext& ctx,
                                                    const QuantizedLstmParams& p);
// Phase 2: each gate's pre-activation saturate16(input + recurrent product), peepholes,
// layer normalization, the activations, the cell state, the hidden state and the
// projection; writes the operation's outputs (prepared).
Status quantizedLstmCell(OperationContext& ctx, const QuantizedLstmParams& p,
                         const QuantizedLstmGateProducts& products);

}  // namespace nncosim::ops::recurrent
