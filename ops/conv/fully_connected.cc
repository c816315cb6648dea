// FULLY_CONNECTED: output[b, u] = act(sum_k input[b, k] * weights[u, k] + bias[u]).
// Inputs: 0 input (rank 2..4, flattened to [batch, inputSize]), 1 weights
// [units, inputSize], 2 bias [units], 3 fused activation. Output [batch, units].
// In the 16x8 mode (TENSOR_QUANT16_SYMM input and output) the weights are
// TENSOR_QUANT8_SYMM or, as TFLite's 16x8 scheme allows, TENSOR_QUANT8_SYMM_PER_CHANNEL
// along dimension 0 (one scale per unit), which NNAPI's quant8 FULLY_CONNECTED lacks.
#include <vector>

#include "ops/conv/conv_common.h"
#include "ops/conv/conv_kernels.h"
#include "ops/conv/conv_ops.h"
#include "ops/conv/conv_params.h"

namespace nncosim::ops::conv {
namespace {

using hal::OperandType;

struct FcGeometry {
  uint32_t batches = 0, inputSize = 0, units = 0;
};

hal::Result<FcGeometry> geometry(const OperationContext& ctx) {
  const Shape& in = ctx.inputShape(0);
  const Shape& w = ctx.inputShape(1);
  const Shape& bias = ctx.inputShape(2);
  if (in.rank() < 2 || in.rank() > 4)
    return hal::fail(inputName(ctx, 0), ": expected rank 2 to 4, found shape ",
                     toString(in.dimensions));
  NNC_TRY(checkRank(ctx, 1, 2));
  NNC_TRY(checkRank(ctx, 2, 1));
  FcGeometry g;
  g.units = w.dim(0);
  g.inputSize = w.dim(1);
  if (g.units == 0 || g.inputSize == 0)
    return hal::fail(inputName(ctx, 1), ": weights shape ", toString(w.dimensions),
                     " must not have a zero dimension");
  const uint64_t n = in.elements();
  if (n % g.inputSize != 0)
    return hal::fail(inputName(ctx, 0), ": ", n, " elements (shape ", toString(in.dimensions),
                     ") are not a multiple of the weights' input size ", g.inputSize);
  g.batches = static_cast<uint32_t>(n / g.inputSize);
  if (bias.dim(0) != g.units)
    return hal::fail(inputName(ctx, 2), ": bias has ", bias.dim(0), " elements for ", g.units,
                     " units");
  return g;
}

// out[b, u] = stage(sum_k (x - xZp) * (w - wZp), u).
template <typename Acc, typename TIn, typename TW, typename Stage, typename TOut>
void fullyConnected(const FcGeometry& g, const TIn* in, Acc inZp, const TW* w, Acc wZp,
                    const Stage& stage, TOut* out) {
  for (uint32_t b = 0; b < g.batches; ++b) {
    const TIn* x = in + size_t{b} * g.inputSize;
    for (uint32_t u = 0; u < g.units; ++u) {
      const TW* row = w + size_t{u} * g.inputSize;
      Acc acc = 0;
      for (uint32_t k = 0; k < g.inputSize; ++k)
        acc += (static_cast<Acc>(x[k]) - inZp) * (static_cast<Acc>(row[k]) - wZp);
      out[size_t{b} * g.units + u] = stage(acc, u);
    }
  }
}

template <typename T, typename TW>
Status runQuant(OperationContext& ctx, const FcGeometry& g, int32_t activation) {
  NNC_ASSIGN_OR_RETURN(auto p,
                       makeConvQuantParams(ctx.inputShape(0), ctx.inputShape(1), &ctx.inputShape(2),
                                           ctx.outputShape(0), activation, g.units));
  fullyConnected<int64_t>(g, ctx.input<T>(0), int64_t{p.inputZeroPoint}, ctx.input<TW>(1),
                          int64_t{p.filterZeroPoint}, QuantStageFor<T>{ctx.input<int32_t>(2), &p},
                          ctx.output<T>(0));
  return Status::Ok();
}

// The weights types FULLY_CONNECTED takes for a `t` input (validated `wide` or not).
Status checkWeightsType(const OperationContext& ctx, OperandType t, bool wide) {
  if (!wide) return checkInputType(ctx, 1, t);
  if (ctx.isOmitted(1)) return hal::fail(inputName(ctx, 1), ": the weights are omitted");
  const OperandType w = ctx.inputType(1);
  if (w == OperandType::TENSOR_QUANT8_SYMM) return Status::Ok();
  if (w != OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL)
    return hal::fail(inputName(ctx, 1), ": weights type ", hal::toString(w),
                     " must be TENSOR_QUANT8_SYMM or TENSOR_QUANT8_SYMM_PER_CHANNEL for a ",
                     hal::toString(t), " input");
  const Shape& s = ctx.inputShape(1);
  if (!s.channelQuant)
    return hal::fail(inputName(ctx, 1), ": per-channel weights without channel scales");
  if (s.channelQuant->channelDim != 0)
    return hal::fail(inputName(ctx, 1), ": per-channel quantization along dimension ",
                     s.channelQuant->channelDim, ", FULLY_CONNECTED needs 0 (the units)");
  return Status::Ok();
}

}  // namespace

Status validateFullyConnected(const OperationContext& ctx) {
  NNC_TRY(checkCounts(ctx, {4}, 1));
  const OperandType t = ctx.inputType(0);
  NNC_TRY(checkInputType(ctx, 0, t));
  // The 16x8 mode: int16 activations with int8 symmetric weights (docs/quantization.md).
  const bool wide = isQuant16(t) && ctx.quant16x8();
  if (!isFloatTensor(t) && !isQuant8(t) && !wide)
    return unsupportedInputType(ctx, 0,
                                "TENSOR_FLOAT32, TENSOR_FLOAT16, TENSOR_QUANT8_ASYMM or "
                                "TENSOR_QUANT8_ASYMM_SIGNED");
  NNC_TRY(checkWeightsType(ctx, t, wide));
  NNC_TRY(checkInputType(ctx, 2, isFloatTensor(t) ? t : OperandType::TENSOR_INT32));
  NNC_TRY(checkInputType(ctx, 3, OperandType::INT32));
  NNC_TRY(checkOutputType(ctx, 0, t));
  NNC_TRY(checkRankRangeIfKnown(ctx, 0, 2, 4));
  NNC_TRY(checkRankIfKnown(ctx, 1, 2));
  NNC_TRY(checkRankIfKnown(ctx, 2, 1));
  const Shape& w = ctx.inputShape(1);
  const Shape& bias = ctx.inputShape(2);
  if (w.rank() == 2 && bias.rank() == 1 && w.dim(0) != 0 && bias.dim(0) != 0 &&
      w.dim(0) != bias.dim(0))
    return hal::fail(inputName(ctx, 2), ": bias has ", bias.dim(0), " elements but the weights ",
                     toString(w.dimensions), " have ", w.dim(0), " units");
  if (isQuant8(t) || wide) {
    const uint32_t channels =
        w.channelQuant ? static_cast<uint32_t>(w.channelQuant->scales.size()) : 1;
    NNC_ASSIGN_OR_RETURN(auto p,
                         makeConvQuantParams(ctx.inputShape(0), w, &bias, ctx.outputShape(0),
                                             quant::kActNone, channels));
  }
  if (ctx.hasInputValue(3)) NNC_TRY(checkActivation(intScalar(ctx, 3), ctx, 3));
  return Status::Ok();
}

Status prepareFullyConnected(OperationContext& ctx) {
  NNC_ASSIGN_OR_RETURN(auto g, geometry(ctx));
  Shape out = ctx.outputShape(0);
  out.dimensions = {g.batches, g.units};
  return ctx.setOutputShape(0, out);
}

Status executeFullyConnected(OperationContext& ctx) {
  NNC_ASSIGN_OR_RETURN(auto g, geometry(ctx));
  const int32_t activation = intScalar(ctx, 3);
  NNC_TRY(checkActivation(activation, ctx, 3));
  if (g.batches == 0) return Status::Ok();
  switch (ctx.inputType(0)) {
    case OperandType::TENSOR_FLOAT32:
    case OperandType::TENSOR_FLOAT16: {
      const std::vector<float> in = loadFloat(ctx, 0);
      const std::vector<float> w = loadFloat(ctx, 1);
      const std::vector<float> bias = loadFloat(ctx, 2);
      const FloatRange r = floatActivationRange(activation);
      std::vector<float> out(size_t{g.batches} * g.units);
      fullyConnected<float>(g, in.data(), 0.0f, w.data(), 0.0f,
                            FloatStage{bias.data(), r.min, r.max}, out.data());
      storeFloat(ctx, 0, out);
      return Status::Ok();
    }
    case OperandType::TENSOR_QUANT8_ASYMM:
      return runQuant<uint8_t, uint8_t>(ctx, g, activation);
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      return runQuant<int8_t, int8_t>(ctx, g, activation);
    case OperandType::TENSOR_QUANT16_SYMM:  // the 16x8 mode; both weights types are int8
      return runQuant<int16_t, int8_t>(ctx, g, activation);
    default:
      return hal::fail("unsupported input type ", hal::toString(ctx.inputType(0)));
  }
}

}  // namespace nncosim::ops::conv
