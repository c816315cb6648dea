// MAX_POOL_2D: the maximum of each (clipped) window, then the fused activation clamp
// (in the output's quantized domain for quantized tensors).
#include <limits>
#include <vector>

#include "ops/conv/conv_common.h"
#include "ops/conv/conv_ops.h"
#include "ops/conv/pooling.h"
#include "ops/quant/quant_params.h"

namespace nncosim::ops::conv {
namespace {

using hal::OperandType;

// T is the element type; lo/hi the activation clamp in T's domain.
template <typename T, typename V>
std::vector<T> maxPool(const PoolGeometry& g, const std::vector<T>& in, V lo, V hi) {
  std::vector<T> res(size_t{g.batches} * g.outH * g.outW * g.channels);
  forEachWindow(g, [&](uint32_t b, uint32_t oy, uint32_t ox, uint32_t y0, uint32_t y1, uint32_t x0,
                       uint32_t x1) {
    T* o = res.data() + ((size_t{b} * g.outH + oy) * g.outW + ox) * g.channels;
    for (uint32_t c = 0; c < g.channels; ++c) {
      T m = std::numeric_limits<T>::lowest();
      for (uint32_t y = y0; y < y1; ++y)
        for (uint32_t x = x0; x < x1; ++x)
          m = std::max(m, in[((size_t{b} * g.inH + y) * g.inW + x) * g.channels + c]);
      o[c] = static_cast<T>(std::min(std::max(static_cast<V>(m), lo), hi));
    }
  });
  return res;
}

template <typename T>
Status runQuant(OperationContext& ctx, const PoolGeometry& g) {
  const Shape& out = ctx.outputShape(0);
  const quant::ActivationRange range =
      quant::typeRange(8 * sizeof(T), std::numeric_limits<T>::is_signed);
  const quant::ActivationRange act =
      quant::activationRange(g.activation, out.scale, out.zeroPoint, range.min, range.max);
  const std::vector<T> res = maxPool<T, int32_t>(g, loadNhwc<T>(ctx, 0, g.nchw), act.min, act.max);
  storeNhwc(ctx, 0, res, g.outputNhwcDims(), g.nchw);
  return Status::Ok();
}

}  // namespace

Status validateMaxPool2D(const OperationContext& ctx) { return validatePool(ctx, PoolKind::kMax); }

Status prepareMaxPool2D(OperationContext& ctx) { return preparePool(ctx); }

Status executeMaxPool2D(OperationContext& ctx) {
  NNC_ASSIGN_OR_RETURN(auto g, poolGeometry(ctx));
  if (g.batches == 0) return Status::Ok();
  switch (ctx.inputType(0)) {
    case OperandType::TENSOR_FLOAT32:
    case OperandType::TENSOR_FLOAT16: {
      const FloatRange r = floatActivationRange(g.activation);
      const std::vector<float> res =
          maxPool<float, float>(g, loadFloatNhwc(ctx, 0, g.nchw), r.min, r.max);
      storeFloatNhwc(ctx, 0, res, g.outputNhwcDims(), g.nchw);
      return Status::Ok();
    }
    case OperandType::TENSOR_QUANT8_ASYMM:
      return runQuant<uint8_t>(ctx, g);
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      return runQuant<int8_t>(ctx, g);
    case OperandType::TENSOR_QUANT16_SYMM:  // the 16x8 mode
      return runQuant<int16_t>(ctx, g);
    default:
      return hal::fail("unsupported input type ", hal::toString(ctx.inputType(0)));
  }
}

}  // namespace nncosim::ops::conv
