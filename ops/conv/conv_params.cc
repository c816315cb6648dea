#include "ops/conv/conv_params.h"

#include "hal/operand_type.h"

namespace nncosim::ops::conv {
namespace {

using hal::OperandType;

// A multiplier whose shift the layer's requantization can apply. Quant8: left shifts
// above 30 would overflow the int32 multiply by (1 << shift) of TFLite's formula. 16x8:
// multiplyByQuantizedMultiplier64's total right shift 15 - shift must be in [1, 46].
hal::Result<quant::QuantizedMultiplier> toMultiplier(double real, const char* what,
                                                     uint32_t channel, bool wide) {
  if (!(real >= 0.0)) return hal::fail(what, " multiplier ", real, " is negative or NaN");
  const quant::QuantizedMultiplier m = quant::quantizeMultiplier(real);
  if (wide) {
    if (m.shift < kWideMinShift || m.shift > kWideMaxShift)
      return hal::fail("16x8 mode: ", what, " multiplier ", real, " of channel ", channel,
                       " needs shift ", m.shift, ", outside [", kWideMinShift, ", ", kWideMaxShift,
                       "]");
  } else if (m.shift > 30) {
    return hal::fail(what, " multiplier ", real, " of channel ", channel, " is too large (shift ",
                     m.shift, " > 30)");
  }
  return m;
}

// The 16x8 mode's operand rules beyond the types the operations check: symmetric
// tensors throughout (zero points 0), int8 symmetric filters, an int16 output.
hal::Status checkWideOperands(const Shape& input, const Shape& filter, const Shape* bias,
                              const Shape& output) {
  if (input.zeroPoint != 0)
    return hal::fail("16x8 mode: input zero point ", input.zeroPoint, " must be 0");
  if (filter.type != OperandType::TENSOR_QUANT8_SYMM &&
      filter.type != OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL)
    return hal::fail("16x8 mode: filter type ", hal::toString(filter.type),
                     " must be TENSOR_QUANT8_SYMM or TENSOR_QUANT8_SYMM_PER_CHANNEL");
  if (filter.zeroPoint != 0)
    return hal::fail("16x8 mode: filter zero point ", filter.zeroPoint, " must be 0");
  if (bias && bias->zeroPoint != 0)
    return hal::fail("16x8 mode: bias zero point ", bias->zeroPoint, " must be 0");
  if (output.type != OperandType::TENSOR_QUANT16_SYMM)
    return hal::fail("16x8 mode: output type ", hal::toString(output.type),
                     " must be TENSOR_QUANT16_SYMM");
  if (output.zeroPoint != 0)
    return hal::fail("16x8 mode: output zero point ", output.zeroPoint, " must be 0");
  return hal::Status::Ok();
}

}  // namespace

hal::Result<ConvQuantParams> makeConvQuantParams(const Shape& input, const Shape& filter,
                                                 const Shape* bias, const Shape& output,
                                                 int32_t activation, uint32_t outputChannels) {
  if (activation < quant::kActNone || activation > quant::kActRelu6)
    return hal::fail("fused activation ", activation, " is not a FuseCode (0..3)");
  ConvQuantParams p;
  p.wide = input.type == OperandType::TENSOR_QUANT16_SYMM;
  if (p.wide) NNC_TRY(checkWideOperands(input, filter, bias, output));
  p.inputZeroPoint = input.zeroPoint;
  p.outputZeroPoint = output.zeroPoint;
  if (filter.type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
    if (!filter.channelQuant)
      return hal::fail("per-channel filter has no per-channel quantization parameters");
    const std::vector<float>& scales = filter.channelQuant->scales;
    if (scales.size() != outputChannels)
      return hal::fail("per-channel filter has ", scales.size(), " scales for ", outputChannels,
                       " output channels");
    p.filterZeroPoint = 0;
    p.multipliers.reserve(scales.size());
    for (uint32_t c = 0; c < scales.size(); ++c) {
      // NNAPI sets each channel's bias scale to input * filter[c] itself, so the bias
      // operand's own scale is not checked here.
      auto real = quant::productMultiplier(input.scale, scales[c], output.scale);
      if (!real.ok()) return hal::fail("channel ", c, ": ", real.error());
      NNC_ASSIGN_OR_RETURN(auto m, toMultiplier(*real, "per-channel", c, p.wide));
      p.multipliers.push_back(m);
    }
    // A single-channel per-channel filter has one multiplier, like a per-tensor one.
  } else {
    p.filterZeroPoint = filter.zeroPoint;
    hal::Result<double> real =
        bias ? quant::convolutionMultiplier(input.scale, filter.scale, bias->scale, output.scale)
             : quant::productMultiplier(input.scale, filter.scale, output.scale);
    if (!real.ok()) return hal::Error{real.error()};
    NNC_ASSIGN_OR_RETURN(auto m, toMultiplier(*real, "output", 0, p.wide));
    p.multipliers.push_back(m);
  }
  const bool isSigned = p.wide || output.type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  const quant::ActivationRange range = quant::typeRange(p.wide ? 16 : 8, isSigned);
  const quant::ActivationRange act =
      quant::activationRange(activation, output.scale, output.zeroPoint, range.min, range.max);
  p.activationMin = act.min;
  p.activationMax = act.max;
  return p;
}

}  // namespace nncosim::ops::conv
