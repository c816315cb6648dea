// Integer kernels of the quantized LSTMs (QUANTIZED_16BIT_LSTM, QUANTIZED_LSTM), bit-exact
// with NNAPI's CPU reference.
//
// The gate matrix products are split in two separable stages so the NPU can take them
// over: gateAccumulate (int8/uint8 activations x weights + bias -> int32, a plain MAC
// array job) and gateRequantize (int32 -> int16/int8 through the requant unit). Their
// parameters (GateMatmul) are computed once per operation, before any time step runs.
#pragma once

#include <cstdint>
#include <vector>

#include "hal/result.h"
#include "ops/quant/quant_params.h"

namespace nncosim::ops::recurrent {

// One (activations, weights) operand pair of a gate product.
template <typename In, typename W>
struct GateOperand {
  const In* activations = nullptr;  // [batch, depth]
  int32_t activationOffset = 0;     // added to every activation (minus its zero point)
  const W* weights = nullptr;       // [units, depth]
  int32_t weightOffset = 0;         // added to every weight (minus its zero point)
  uint32_t depth = 0;
};

// acc[b][u] += sum_d (x[b][d] + xOffset) * (w[u][d] + wOffset), wrapping like int32.
template <typename In, typename W>
void gateAccumulate(const GateOperand<In, W>& op, uint32_t batch, uint32_t units, int32_t* acc) {
  for (uint32_t b = 0; b < batch; ++b) {
    const In* x = op.activations + size_t{b} * op.depth;
    for (uint32_t u = 0; u < units; ++u) {
      const W* w = op.weights + size_t{u} * op.depth;
      uint32_t sum = 0;  // unsigned: the reference's int32 sum wraps
      for (uint32_t d = 0; d < op.depth; ++d)
        sum += static_cast<uint32_t>((static_cast<int32_t>(x[d]) + op.activationOffset) *
                                     (static_cast<int32_t>(w[d]) + op.weightOffset));
      acc[size_t{b} * units + u] =
          static_cast<int32_t>(static_cast<uint32_t>(acc[size_t{b} * units + u]) + sum);
    }
  }
}

// Requantization of a gate product: out = clamp(MBQM(acc) + zeroPoint [+ out]).
struct GateRequant {
  quant::QuantizedMultiplier multiplier;
  int32_t zeroPoint = 0;
  int32_t min = -32768, max = 32767;
  bool accumulate = false;  // add the value already in `out` before clamping
};

template <typename Out>
void gateRequantize(const int32_t* acc, size_t n, const GateRequant& r, Out* out);

// The Q31 multiplier of a positive real scale; an error for negative, non-finite or
// too large (more than a 31-bit left shift) scales. `what` names it in the message.
hal::Result<quant::QuantizedMultiplier> scaleMultiplier(double real, const char* what);

// Fills acc[b][u] = bias[u] (or 0 without bias) for every batch row.
void fillBias(const int32_t* bias, uint32_t batch, uint32_t units, int32_t* acc);

// sum_d w[u][d] * scalar, added to bias[u]: folds an activation zero point into the bias.
std::vector<int32_t> foldZeroPoint(const int8_t* weights, uint32_t units, uint32_t depth,
                                   int32_t scalar, const int32_t* bias);

// ---- 16-bit elementwise stages (QUANTIZED_LSTM, TFLite's integer LSTM) ----

// Logistic of Q3.12 values into Q0.15.
void sigmoidQ3(const int16_t* in, size_t n, int16_t* out);
// tanh of Q(bits).(15-bits) values into Q0.15, 0 <= integerBits <= 6.
hal::Status tanhQ(int integerBits, const int16_t* in, size_t n, int16_t* out);
// out = round(a * b / 2^shift).
void mulShift(const int16_t* a, const int16_t* b, size_t n, int shift, int16_t* out);
// out = clamp(MBQM(a * b) - zeroPoint) into int8.
void mulRequantToInt8(const int16_t* a, const int16_t* b, size_t n,
                      const quant::QuantizedMultiplier& m, int32_t zeroPoint, int8_t* out);
// out = saturate16(a + b).
void addSaturate(const int16_t* a, const int16_t* b, size_t n, int16_t* out);
template <typename T>
void clipSymmetric(T* x, size_t n, T limit) {
  for (size_t k = 0; k < n; ++k) {
    if (x[k] > limit) x[k] = limit;
    if (x[k] < -limit) x[k] = static_cast<T>(-limit);
  }
}
// result[b][u] = saturate16(result[b][u] + MBQM(weights[u] * cell[b][u])): peepholes.
void peepholeAccumulate(const int16_t* weights, const int16_t* cell, uint32_t batch, uint32_t units,
                        const quant::QuantizedMultiplier& m, int16_t* result);
// Integer layer normalization of each row, scaled by weights, plus bias, requantized.
void layerNormInt16(const int16_t* in, const int16_t* weights, const int32_t* bias,
                    const quant::QuantizedMultiplier& scale, int32_t varianceLimit, uint32_t batch,
                    uint32_t units, int16_t* out);
// 1/sqrt(x) as a Q31 multiplier and a shift (TFLite's GetInvSqrtQuantizedMultiplierExp
// with reverse_shift -1).
void invSqrtMultiplier(int32_t x, int32_t* multiplier, int* shift);

// log2(x) rounded, when x is a power of two within 1e-3 in log2 (NNAPI's CheckedLog2).
bool checkedLog2(float x, int* log2);

}  // namespace nncosim::ops::recurrent
