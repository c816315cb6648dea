// L2_POOL_2D: sqrt(mean of squares) of each (clipped) window, then the activation clamp.
// Float tensors only.
#include <cmath>
#include <vector>

#include "ops/conv/conv_common.h"
#include "ops/conv/conv_ops.h"
#include "ops/conv/pooling.h"

namespace nncosim::ops::conv {

Status validateL2Pool2D(const OperationContext& ctx) { return validatePool(ctx, PoolKind::kL2); }

Status prepareL2Pool2D(OperationContext& ctx) { return preparePool(ctx); }

Status executeL2Pool2D(OperationContext& ctx) {
  NNC_ASSIGN_OR_RETURN(auto gOr, poolGeometry(ctx));
  const PoolGeometry& g = gOr;
  if (g.batches == 0) return Status::Ok();
  if (!isFloatTensor(ctx.inputType(0)))
    return hal::fail("unsupported input type ", hal::toString(ctx.inputType(0)));
  const FloatRange r = floatActivationRange(g.activation);
  const std::vector<float> in = loadFloatNhwc(ctx, 0, g.nchw);
  std::vector<float> res(size_t{g.batches} * g.outH * g.outW * g.channels);
  forEachWindow(g, [&](uint32_t b, uint32_t oy, uint32_t ox, uint32_t y0, uint32_t y1, uint32_t x0,
                       uint32_t x1) {
    const float count = static_cast<float>((y1 - y0) * (x1 - x0));
    float* o = res.data() + ((size_t{b} * g.outH + oy) * g.outW + ox) * g.channels;
    for (uint32_t c = 0; c < g.channels; ++c) {
      float sumSquares = 0.0f;
      for (uint32_t y = y0; y < y1; ++y) {
        for (uint32_t x = x0; x < x1; ++x) {
          const float v = in[((size_t{b} * g.inH + y) * g.inW + x) * g.channels + c];
          sumSquares += v * v;
        }
      }
      o[c] = std::min(std::max(std::sqrt(sumSquares / count), r.min), r.max);
    }
  });
  storeFloatNhwc(ctx, 0, res, g.outputNhwcDims(), g.nchw);
  return Status::Ok();
}

}  // namespace nncosim::ops::conv
