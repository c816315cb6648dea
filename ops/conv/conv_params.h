// Requantization parameters of the quantized convolution-like layers (CONV_2D,
// DEPTHWISE_CONV_2D, GROUPED_CONV_2D, TRANSPOSE_CONV_2D, FULLY_CONNECTED, BATCH_MATMUL),
// derived once from the operand shapes. The NPU compiler programs the requant unit from
// the same struct, so the reference and the hardware share one derivation.
//
// Every quantized kernel here computes, per output element of output channel c:
//   acc = bias[c] + sum (x - inputZeroPoint) * (w - filterZeroPoint)   (int32, wrapping)
//   y   = clamp(multiplyByQuantizedMultiplier(acc, m[c].multiplier, m[c].shift)
//               + outputZeroPoint, activationMin, activationMax)
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
};

// Parameters of a layer with input `input`, filter `filter` and output `output`, whose
// output has `outputChannels` channels. `filter` is either per-tensor quantized (same
// type as the input) or TENSOR_QUANT8_SYMM_PER_CHANNEL with one scale per output channel.
// `bias` (TENSOR_INT32) is checked as NNAPI does: its scale must equal input*filter
// (per-tensor only; NNAPI derives per-channel bias scales itself). Pass nullptr when the
// layer has no bias (BATCH_MATMUL). `activation` is a FuseCode (0..3).
hal::Result<ConvQuantParams> makeConvQuantParams(const Shape& input, const Shape& filter,
                                                 const Shape* bias, const Shape& output,
                                                 int32_t activation, uint32_t outputChannels);

}  // namespace nncosim::ops::conv
