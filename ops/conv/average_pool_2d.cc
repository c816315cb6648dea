// AVERAGE_POOL_2D: the mean of each (clipped) window. Quantized averages stay in the
// input's quantized domain: (sum + count / 2) / count for uint8 (sums are >= 0), and the
// same rounded half away from zero for int8 and the 16x8 mode's int16, as TFLite's
// kernels compute it.
#include <limits>
#include <type_traits>
#include <vector>

#include "ops/conv/conv_common.h"
#include "ops/conv/conv_ops.h"
#include "ops/conv/pooling.h"
#include "ops/quant/quant_params.h"

namespace nncosim::ops::conv {
namespace {

using hal::OperandType;

template <typename T>
Status runQuant(OperationContext& ctx, const PoolGeometry& g) {
  const Shape& out = ctx.outputShape(0);
  const bool isSigned = std::numeric_limits<T>::is_signed;
  const quant::ActivationRange range = quant::typeRange(8 * sizeof(T), isSigned);
  // int16 sums of windows above 2^16 elements pass int32.
  using Sum = std::conditional_t<sizeof(T) == 1, int32_t, int64_t>;
  const quant::ActivationRange act =
      quant::activationRange(g.activation, out.scale, out.zeroPoint, range.min, range.max);
  const std::vector<T> in = loadNhwc<T>(ctx, 0, g.nchw);
  std::vector<T> res(size_t{g.batches} * g.outH * g.outW * g.channels);
  forEachWindow(g, [&](uint32_t b, uint32_t oy, uint32_t ox, uint32_t y0, uint32_t y1, uint32_t x0,
                       uint32_t x1) {
    const int32_t count = static_cast<int32_t>((y1 - y0) * (x1 - x0));
    T* o = res.data() + ((size_t{b} * g.outH + oy) * g.outW + ox) * g.channels;
    for (uint32_t c = 0; c < g.channels; ++c) {
      Sum sum = 0;
      for (uint32_t y = y0; y < y1; ++y)
        for (uint32_t x = x0; x < x1; ++x)
          sum += in[((size_t{b} * g.inH + y) * g.inW + x) * g.channels + c];
      // Integer division truncates toward zero; the +/- count/2 makes it round half away.
      const auto avg =
          static_cast<int32_t>(sum > 0 ? (sum + count / 2) / count : (sum - count / 2) / count);
      o[c] = static_cast<T>(std::min(std::max(avg, act.min), act.max));
    }
  });
  storeNhwc(ctx, 0, res, g.outputNhwcDims(), g.nchw);
  return Status::Ok();
}

Status runFloat(OperationContext& ctx, const PoolGeometry& g) {
  const FloatRange r = floatActivationRange(g.activation);
  const std::vector<float> in = loadFloatNhwc(ctx, 0, g.nchw);
  std::vector<float> res(size_t{g.batches} * g.outH * g.outW * g.channels);
  forEachWindow(g, [&](uint32_t b, uint32_t oy, uint32_t ox, uint32_t y0, uint32_t y1, uint32_t x0,
                       uint32_t x1) {
    const float count = static_cast<float>((y1 - y0) * (x1 - x0));
    float* o = res.data() + ((size_t{b} * g.outH + oy) * g.outW + ox) * g.channels;
    for (uint32_t c = 0; c < g.channels; ++c) {
      float sum = 0.0f;
      for (uint32_t y = y0; y < y1; ++y)
        for (uint32_t x = x0; x < x1; ++x)
          sum += in[((size_t{b} * g.inH + y) * g.inW + x) * g.channels + c];
      o[c] = std::min(std::max(sum / count, r.min), r.max);
    }
  });
  storeFloatNhwc(ctx, 0, res, g.outputNhwcDims(), g.nchw);
  return Status::Ok();
}

}  // namespace

Status validateAveragePool2D(const OperationContext& ctx) {
  return validatePool(ctx, PoolKind::kAverage);
}

Status prepareAveragePool2D(OperationContext& ctx) { return preparePool(ctx); }

Status executeAveragePool2D(OperationContext& ctx) {
  NNC_ASSIGN_OR_RETURN(auto g, poolGeometry(ctx));
  if (g.batches == 0) return Status::Ok();
  switch (ctx.inputType(0)) {
    case OperandType::TENSOR_FLOAT32:
    case OperandType::TENSOR_FLOAT16:
      return runFloat(ctx, g);
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
