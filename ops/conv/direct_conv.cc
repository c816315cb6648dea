#include "ops/conv/direct_conv.h"

#include <vector>

#include "ops/conv/conv_common.h"
#include "ops/conv/conv_kernels.h"
#include "ops/conv/conv_params.h"

namespace nncosim::ops::conv {
namespace {

using hal::OperandType;

template <typename Acc, typename TIn, typename TW, typename Stage, typename TOut>
void runKernel(const ConvGeometry& g, ConvKind kind, const TIn* in, Acc inZp, const TW* filter,
               Acc wZp, const Stage& stage, TOut* out) {
  if (kind == ConvKind::kDepthwise) {
    depthwiseConvNhwc<Acc>(g, in, inZp, filter, wZp, stage, out);
  } else {
    const uint32_t groups = kind == ConvKind::kGrouped ? static_cast<uint32_t>(g.extra) : 1;
    groupedConvNhwc<Acc>(g, groups, in, inZp, filter, wZp, stage, out);
  }
}

Status runFloat(OperationContext& ctx, const ConvGeometry& g, ConvKind kind) {
  const std::vector<float> in = loadFloatNhwc(ctx, 0, g.nchw);
  const std::vector<float> filter = loadFloat(ctx, 1);
  const std::vector<float> bias = loadFloat(ctx, 2);
  const FloatRange r = floatActivationRange(g.activation);
  std::vector<float> out(size_t{g.batches} * g.outH * g.outW * g.outC);
  runKernel<float>(g, kind, in.data(), 0.0f, filter.data(), 0.0f,
                   FloatStage{bias.data(), r.min, r.max}, out.data());
  storeFloatNhwc(ctx, 0, out, g.outputNhwcDims(), g.nchw);
  return Status::Ok();
}

template <typename T, typename TW>
Status runQuant(OperationContext& ctx, const ConvGeometry& g, ConvKind kind) {
  NNC_ASSIGN_OR_RETURN(auto p,
                       makeConvQuantParams(ctx.inputShape(0), ctx.inputShape(1), &ctx.inputShape(2),
                                           ctx.outputShape(0), g.activation, g.outC));
  const std::vector<T> in = loadNhwc<T>(ctx, 0, g.nchw);
  const TW* filter = ctx.input<TW>(1);
  const int32_t* bias = ctx.input<int32_t>(2);
  std::vector<T> out(size_t{g.batches} * g.outH * g.outW * g.outC);
  runKernel<int64_t>(g, kind, in.data(), int64_t{p.inputZeroPoint}, filter,
                     int64_t{p.filterZeroPoint}, QuantStageFor<T>{bias, &p}, out.data());
  storeNhwc(ctx, 0, out, g.outputNhwcDims(), g.nchw);
  return Status::Ok();
}

}  // namespace

Status executeDirectConv(OperationContext& ctx, ConvKind kind) {
  NNC_ASSIGN_OR_RETURN(auto g, convGeometry(ctx, kind));
  if (g.batches == 0) return Status::Ok();  // zero-sized input: nothing to compute
  const OperandType inType = ctx.inputType(0);
  const bool perChannel = ctx.inputType(1) == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL;
  switch (inType) {
    case OperandType::TENSOR_FLOAT32:
    case OperandType::TENSOR_FLOAT16:
      return runFloat(ctx, g, kind);
    case OperandType::TENSOR_QUANT8_ASYMM:
      return perChannel ? runQuant<uint8_t, int8_t>(ctx, g, kind)
                        : runQuant<uint8_t, uint8_t>(ctx, g, kind);
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      return runQuant<int8_t, int8_t>(ctx, g, kind);
    case OperandType::TENSOR_QUANT16_SYMM:  // the 16x8 mode; both filter types are int8
      return runQuant<int16_t, int8_t>(ctx, g, kind);
    default:
      return hal::fail("unsupported input type ", hal::toString(inType));
  }
}

}  // namespace nncosim::ops::conv
