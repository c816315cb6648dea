// Shared by AVERAGE_POOL_2D, MAX_POOL_2D and L2_POOL_2D. Inputs: 0 input, then either
//   implicit (7/8): 1 padding scheme, 2 stride w, 3 stride h, 4 filter w, 5 filter h,
//                   6 activation, [7 layout]
//   explicit (10/11): 1..4 pad left, right, top, bottom, 5 stride w, 6 stride h,
//                     7 filter w, 8 filter h, 9 activation, [10 layout]
// Windows are clipped to the input: padding never contributes to a result (and does not
// count in an average).
#pragma once

#include <cstdint>
#include <vector>

#include "ops/operation.h"

namespace nncosim::ops::conv {

enum class PoolKind { kAverage, kMax, kL2 };

struct PoolGeometry {
  uint32_t batches = 0, inH = 0, inW = 0, channels = 0, outH = 0, outW = 0;
  int32_t filterH = 1, filterW = 1, strideH = 1, strideW = 1;
  int32_t padTop = 0, padBottom = 0, padLeft = 0, padRight = 0;
  int32_t activation = 0;
  bool nchw = false;
  std::vector<uint32_t> outputNhwcDims() const { return {batches, outH, outW, channels}; }
};

Status validatePool(const OperationContext& ctx, PoolKind kind);
hal::Result<PoolGeometry> poolGeometry(const OperationContext& ctx);
Status preparePool(OperationContext& ctx);

// Calls fn(b, oy, ox, y0, y1, x0, x1): the input window [y0, y1) x [x0, x1) of each
// output position, already clipped to the input (never empty).
template <typename Fn>
void forEachWindow(const PoolGeometry& g, const Fn& fn) {
  for (uint32_t b = 0; b < g.batches; ++b) {
    for (uint32_t oy = 0; oy < g.outH; ++oy) {
      const int64_t ys = int64_t{oy} * g.strideH - g.padTop;
      const int64_t y0 = ys < 0 ? 0 : ys;
      const int64_t y1 = ys + g.filterH < g.inH ? ys + g.filterH : g.inH;
      for (uint32_t ox = 0; ox < g.outW; ++ox) {
        const int64_t xs = int64_t{ox} * g.strideW - g.padLeft;
        const int64_t x0 = xs < 0 ? 0 : xs;
        const int64_t x1 = xs + g.filterW < g.inW ? xs + g.filterW : g.inW;
        fn(b, oy, ox, static_cast<uint32_t>(y0), static_cast<uint32_t>(y1),
           static_cast<uint32_t>(x0), static_cast<uint32_t>(x1));
      }
    }
  }
}

}  // namespace nncosim::ops::conv
