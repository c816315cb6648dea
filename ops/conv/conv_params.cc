#include "ops/conv/conv_params.h"

#include "hal/operand_type.h"

namespace nncosim::ops::conv {
namespace {

using hal::OperandType;

// A multiplier whose shift NNAPI's kernels can apply: left shifts above 30 would
// overflow the int32 multiply by (1 << shift) of TFLite's formula.
hal::Result<quant::QuantizedMultiplier> toMultiplier(double real, const char* what,
                                                     uint32_t channel) {
  if (!(real >= 0.0)) return hal::fail(what, " multiplier ", real, " is negative or NaN");
  const quant::QuantizedMultiplier m = quant::quantizeMultiplier(real);
  if (m.shift > 30)
    return hal::fail(what, " multiplier ", real, " of channel ", channel, " is too large (shift ",
                     m.shift, " > 30)");
  return m;
}

}  // namespace

hal::Result<ConvQuantParams> makeConvQuantParams(const Shape& input, const Shape& filter,
                                                 const Shape* bias, const Shape& output,
                                                 int32_t activation, uint32_t outputChannels) {
  if (activation < quant::kActNone || activation > quant::kActRelu6)
    return hal::fail("fused activation ", activation, " is not a FuseCode (0..3)");
  ConvQuantParams p;
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
      auto m = toMultiplier(*real, "per-channel", c);
      if (!m.ok()) return hal::Error{m.error()};
      p.multipliers.push_back(*m);
    }
    // A single-channel per-channel filter has one multiplier, like a per-tensor one.
  } else {
    p.filterZeroPoint = filter.zeroPoint;
    hal::Result<double> real =
        bias ? quant::convolutionMultiplier(input.scale, filter.scale, bias->scale, output.scale)
             : quant::productMultiplier(input.scale, filter.scale, output.scale);
    if (!real.ok()) return hal::Error{real.error()};
    auto m = toMultiplier(*real, "output", 0);
    if (!m.ok()) return hal::Error{m.error()};
    p.multipliers.push_back(*m);
  }
  const bool isSigned = output.type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  const quant::ActivationRange range = quant::typeRange(8, isSigned);
  const quant::ActivationRange act =
      quant::activationRange(activation, output.scale, output.zeroPoint, range.min, range.max);
  p.activationMin = act.min;
  p.activationMax = act.max;
  return p;
}

}  // namespace nncosim::ops::conv
