// Requantization parameters of the quantized convolution-like layers (CONV_2D,
// DEPTHWISE_CONV_2D, GROUPED_CONV_2D, TRANSPOSE_CONV_2D, FULLY_CONNECTED, BATCH_MATMUL),
// derived once from the operand shapes. The NPU compiler programs the requant unit from
// the same struct, so the reference and the hardware share one derivation.
//
// Every quantized kernel here computes, per output element of output channel c:
//   acc = bias[c] + sum (x - inputZeroPoint) * (w - filterZeroPoint)   (int32, wrapping)
//   y   = clamp(multiplyByQuantizedMultiplier(acc, m[c].multiplier, m[c].shift)
//               + outputZeroPoint, activationMin, activationMax)
// except in the 16x8 mode (`wide`: TENSOR_QUANT16_SYMM activations, TENSOR_QUANT8_SYMM
// [_PER_CHANNEL] weights, every zero point 0), where
//   acc = bias[c] + sum x * w                                           (int64, exact)
//   y   = clamp(multiplyByQuantizedMultiplier64(acc, m[c].multiplier, m[c].shift),
//               activationMin, activationMax)
// docs/quantization.md gives the arithmetic bit for bit.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "hal/result.h"
#include "ops/quant/fixed_point.h"
#include "ops/quant/quant_params.h"
#include "ops/shape.h"

namespace nncosim::ops::conv {

struct ConvQuantParams {
  int32_t inputZeroPoint = 0;
  int32_t filterZeroPoint = 0;  // 0 for per-channel (symmetric) filters
  int32_t outputZeroPoint = 0;
  // One entry per output channel for per-channel filters, else a single entry.
  std::vector<quant::QuantizedMultiplier> multipliers;
  int32_t activationMin = 0;
  int32_t activationMax = 0;
  // The 16x8 mode: int64 accumulator, requantize64(), int16 output; zero points all 0.
  bool wide = false;

  bool perChannel() const { return multipliers.size() > 1; }
  const quant::QuantizedMultiplier& multiplier(uint32_t channel) const {
    return multipliers.size() == 1 ? multipliers[0] : multipliers[channel];
  }
  // The output stage: accumulator (bias included) -> clamped output code.
  int32_t requantize(int32_t acc, uint32_t channel) const {
    const quant::QuantizedMultiplier& m = multiplier(channel);
    const int32_t scaled = quant::multiplyByQuantizedMultiplier(acc, m.multiplier, m.shift);
    // The zero point add wraps like NNAPI's int32 arithmetic; only a saturated
    // multiplier output near INT32_MAX can reach it.
    const auto y = static_cast<int32_t>(static_cast<uint32_t>(scaled) +
                                        static_cast<uint32_t>(outputZeroPoint));
    // min then max, in NNAPI's order (equal to a clamp since activationMin <= activationMax).
    return std::max(std::min(y, activationMax), activationMin);
  }
  // The 16x8 output stage: exact int64 accumulator (bias included) -> clamped int16 code.
  // The clamp bounds lie inside [-32768, 32767], so the result fits the output type.
  int32_t requantize64(int64_t acc, uint32_t channel) const {
    const quant::QuantizedMultiplier& m = multiplier(channel);
    const int32_t y = quant::multiplyByQuantizedMultiplier64(acc, m.multiplier, m.shift);
    return std::max(std::min(y, activationMax), activationMin);
  }
};

// The shifts multiplyByQuantizedMultiplier64 supports (its total right shift 15 - shift
// must be in [1, 46]); a 16x8 layer whose multiplier needs another shift is rejected.
inline constexpr int kWideMinShift = -31;
inline constexpr int kWideMaxShift = 14;

// Parameters of a layer with input `input`, filter `filter` and output `output`, whose
// output has `outputChannels` channels. `filter` is either per-tensor quantized (same
// type as the input) or TENSOR_QUANT8_SYMM_PER_CHANNEL with one scale per output channel.
// `bias` (TENSOR_INT32) is checked as NNAPI does: its scale must equal input*filter
// (per-tensor only; NNAPI derives per-channel bias scales itself). Pass nullptr when the
// layer has no bias (BATCH_MATMUL). `activation` is a FuseCode (0..3).
// A TENSOR_QUANT16_SYMM input selects the 16x8 parameters (`wide`): the filter must be
// TENSOR_QUANT8_SYMM or TENSOR_QUANT8_SYMM_PER_CHANNEL, the output TENSOR_QUANT16_SYMM,
// all zero points (bias included) 0, and every shift in [kWideMinShift, kWideMaxShift].
// Whether the model selected the 16x8 mode is the caller's check (OperationContext).
hal::Result<ConvQuantParams> makeConvQuantParams(const Shape& input, const Shape& filter,
                                                 const Shape* bias, const Shape& output,
                                                 int32_t activation, uint32_t outputChannels);

}  // namespace nncosim::ops::conv
