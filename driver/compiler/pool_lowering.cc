// MAX_POOL_2D, and the AVERAGE_POOL_2D layers the depthwise unit does not take, on the
// pooling unit (POOL, ISA 1.7). The input is read as channel tiles (the layout every
// convolution on the NPU stores, so a pool after a convolution reads its buffer as it is)
// and the output stored as channel tiles. One step per (batch, output row, channel tile,
// column block): the fh input rows of the block's span loaded into INP (DMA rows of pixel
// vectors), POOLs over the block's output pixels into OUT, one DMA_STORE of the result
// vectors; INP and OUT double buffered.
//
// Windows clipped by the padding: an 8-bit MAX window gets the type's minimum written
// around its rows by fills (it never wins a maximum), so one POOL takes the block. An AVG
// window must be divided by its own count, and a fill cannot write int16's minimum (it
// writes one byte value into both bytes), so there the block's lanes are cut into runs
// whose windows are clipped alike, and each run is one POOL over just the window's part
// inside the image (its own fh x fw, hence its own count): the left- and right-most lanes
// alone, the middle lanes together. Windows up to 240 x 240 (ISA 1.8's fh_hi, fw_hi; a
// global pool of a 56 x 56 map is one window) as far as fh rows of a block's span fit half
// of INP. What stays on the CPU: larger filters, a row stride over 3 pixels.
//
// MEAN over height and/or width (8-bit) is the same step: a window per output pixel over the
// reduced extent, AVG truncating toward zero as the reference's MEAN divides (POOL trunc,
// ISA 1.8); planes over 240 pixels along a reduced axis stay on the CPU.
#include <algorithm>

#include "driver/compiler/lowering_internal.h"
#include "driver/compiler/lowering_table.h"
#include "driver/compiler/unit_step_stream.h"
#include "firmware/pool_window.h"
#include "ops/conv/pooling.h"
#include "ops/movement/common.h"
#include "ops/quant/quant_params.h"

namespace nncosim::driver::internal {
namespace {

using hal::OperandType;

struct PoolUnitPlan {
  ops::conv::PoolGeometry g;
  bool avg = false, wide = false, isSigned = false, clipped = false;
  bool trunc = false;  // MEAN: AVG truncating toward zero (ISA 1.8)
  // Clipped windows as POOLs over their parts inside the image (AVG, int16 MAX), not fills.
  bool splitClipped = false;
  uint32_t eb = 1;
  int32_t sh = 1, sw = 1;
};

// The value type: 8-bit, or int16 in the 16x8 mode.
hal::Status planValueType(const OpView& v, PoolUnitPlan& p) {
  const OperandType t = v.inShape(0).type;
  if (t == OperandType::TENSOR_QUANT16_SYMM) {
    if (!is16x8(v)) return hal::fail("int16 values outside the 16x8 mode");
    p.wide = true;
  } else if (t != OperandType::TENSOR_QUANT8_ASYMM &&
             t != OperandType::TENSOR_QUANT8_ASYMM_SIGNED) {
    return hal::fail("input type ", hal::toString(t), ": the pooling unit is quantized only");
  }
  p.isSigned = t != OperandType::TENSOR_QUANT8_ASYMM;
  p.eb = p.wide ? 2 : 1;
  return hal::Status::Ok();
}

// The unit's limits on a geometry, and how its clipped windows run; `window` names the
// window in an error.
hal::Status planWindows(PoolUnitPlan& p, const char* window) {
  const ops::conv::PoolGeometry& g = p.g;
  if (g.batches == 0) return hal::fail("empty batch: nothing to compute");
  p.sh = g.outH == 1 ? 1 : g.strideH;
  p.sw = g.outW == 1 ? 1 : g.strideW;
  constexpr int32_t kMax = static_cast<int32_t>(firmware::kPoolWindowMax);
  if (g.filterH > kMax || g.filterW > kMax)
    return hal::fail(window, " ", g.filterH, "x", g.filterW,
                     ": the pooling unit's windows are at most ", kMax, "x", kMax);
  if (p.sw > 3) return hal::fail("stride w ", p.sw, ": the pooling unit strides rows by 1..3");
  p.clipped = g.padTop > 0 || g.padLeft > 0 || int64_t{g.outH - 1} * p.sh + g.filterH > g.inH ||
              int64_t{g.outW - 1} * p.sw + g.filterW > g.inW;
  p.splitClipped = p.clipped && (p.avg || p.wide);
  return hal::Status::Ok();
}

hal::Result<PoolUnitPlan> planPoolUnit(const OpView& v, bool avg) {
  PoolUnitPlan p;
  p.avg = avg;
  NNC_TRY(planValueType(v, p));
  NNC_ASSIGN_OR_RETURN(p.g, ops::conv::poolGeometry(v.ctx()));
  NNC_TRY(planWindows(p, "filter"));
  return p;
}

// MEAN over height, width or both of an NHWC tensor: one window per output pixel covering
// the reduced extent (fh = H or 1, fw = W or 1, stride = the window), divided as the
// reference divides (sum / count, truncating toward zero). The output keeps the input's
// scale and zero point, so there is no rescale: only the type's range clamps.
hal::Result<PoolUnitPlan> planMean(const OpView& v) {
  PoolUnitPlan p;
  p.avg = true;
  p.trunc = true;
  const ops::Shape& in = v.inShape(0);
  if (in.type == OperandType::TENSOR_QUANT16_SYMM)
    return hal::fail("input type ", hal::toString(in.type), ": MEAN takes 8-bit values");
  NNC_TRY(planValueType(v, p));
  if (in.rank() != 4)
    return hal::fail("input rank ", in.rank(), ": the pooling unit reduces [N, H, W, C] tensors");
  if (!v.isConstant(1) || !v.isConstant(2))
    return hal::fail("the axes and keep_dims are not constants");
  // The reference's own reading of the axes (negative ones counted from the end).
  NNC_ASSIGN_OR_RETURN(const ops::movement::ReducePlan rp,
                       ops::movement::makeReducePlan(in, ops::movement::int32Values(v.ctx(), 1),
                                                     false, "input 1 (axes): axis"));
  const std::vector<bool>& reduced = rp.reduced;
  if (reduced[0] || reduced[3])
    return hal::fail("MEAN over ", reduced[0] ? "the batch" : "the channels",
                     ": the pooling unit averages over height and width only");
  if (!reduced[1] && !reduced[2]) return hal::fail("no axis is reduced");
  ops::conv::PoolGeometry& g = p.g;
  g.batches = in.dimensions[0];
  g.inH = in.dimensions[1];
  g.inW = in.dimensions[2];
  g.channels = in.dimensions[3];
  g.filterH = g.strideH = reduced[1] ? static_cast<int32_t>(g.inH) : 1;
  g.filterW = g.strideW = reduced[2] ? static_cast<int32_t>(g.inW) : 1;
  g.outH = reduced[1] ? 1 : g.inH;
  g.outW = reduced[2] ? 1 : g.inW;
  g.activation = 0;
  if (g.inH == 0 || g.inW == 0 || g.channels == 0) return hal::fail("an empty input");
  NNC_TRY(planWindows(p, "the mean's window"));
  return p;
}

}  // namespace

hal::Status poolUnitSupport(const OpView& v, bool avg) {
  auto plan = planPoolUnit(v, avg);
  return plan.ok() ? hal::Status::Ok() : hal::fail(plan.error());
}

hal::Status maxPoolSupport(const OpView& v) { return poolUnitSupport(v, false); }

namespace {

hal::Result<CompiledStep> lowerPoolPlan(const hal::Model& model, uint32_t index, const OpView& v,
                                        const LoweringOptions& options, const PoolUnitPlan& p) {
  const ops::conv::PoolGeometry& g = p.g;
  const NpuConfig& npu = options.npu;
  const uint32_t C = npu.cols, eb = p.eb, vb = C * eb;
  const uint32_t tiles = (g.channels + C - 1) / C;
  auto layoutOf = [&](uint32_t h, uint32_t w) {
    TensorLayout l;
    l.kind = TensorLayout::Kind::kChannelTiles;
    l.matrices = 1;
    l.lanes = g.batches * h * w;
    l.channels = g.channels;
    l.laneTile = C;
    l.sourceNchw = g.nchw;
    l.batches = g.batches;
    l.height = h;
    l.width = w;
    l.elementBytes = eb;
    return l;
  };
  const TensorLayout in = layoutOf(g.inH, g.inW), outLayout = layoutOf(g.outH, g.outW);
  // Column blocks: as many output pixels as fit half of INP (fh rows of their span) and
  // half of OUT, at most 255 (POOL's m).
  uint32_t block = std::min<uint32_t>(g.outW, 255);
  auto spanOf = [&](uint32_t m) { return (m - 1) * static_cast<uint32_t>(p.sw) + g.filterW; };
  while (block > 0 && (static_cast<uint64_t>(g.filterH) * spanOf(block) * vb > npu.inpBytes / 2 ||
                       uint64_t{block} * vb > npu.outBytes / 2))
    --block;
  if (block == 0)
    return hal::fail("a window of ", g.filterH, "x", g.filterW,
                     " pixel vectors exceeds half of INP");
  const uint32_t inpSlot = g.filterH * spanOf(block) * vb, outSlot = block * vb;

  StepBuilder sb(model, index);
  NNC_ASSIGN_OR_RETURN(auto inBuf, sb.bindInput(v.inOperand(0), in, "input (channel tiles)"));
  const uint64_t outElems = uint64_t{g.batches} * g.outH * g.outW * g.channels;
  const size_t outBuf =
      sb.bindOutput(v.outOperand(0), outLayout, outLayout.deviceBytes(outElems * eb), "output");
  NNC_TRY(sb.layout());
  const uint64_t inBase = sb.address(inBuf), outBase = sb.address(outBuf);
  const uint64_t inTileBytes = uint64_t{g.batches} * g.inH * g.inW * vb;
  const uint64_t outTileBytes = uint64_t{g.batches} * g.outH * g.outW * vb;

  const ops::quant::ActivationRange type = ops::quant::typeRange(p.wide ? 16 : 8, p.isSigned);
  const ops::quant::ActivationRange act = ops::quant::activationRange(
      g.activation, v.outShape(0).scale, v.outShape(0).zeroPoint, type.min, type.max);
  // A MAX window's padding: the type's minimum, which never wins (8-bit only: see above).
  const uint8_t minByte = p.isSigned ? 0x80 : 0x00;

  auto rowLoad = [&](bool fill, uint64_t dram, uint32_t buf, uint64_t bytes, uint32_t rows,
                     uint64_t dramStride, uint32_t bufStride) {
    return inpRowsLoad(fill, minByte, dram, buf, bytes, rows, dramStride, bufStride);
  };

  UnitStepStream us(options);
  const int64_t fh = g.filterH, fw = g.filterW;
  for (uint32_t b = 0; b < g.batches; ++b)
    for (uint32_t oy = 0; oy < g.outH; ++oy)
      for (uint32_t u = 0; u < tiles; ++u)
        for (uint32_t x0 = 0; x0 < g.outW; x0 += block) {
          const uint32_t m = std::min(block, g.outW - x0), span = spanOf(m);
          const uint32_t pitch = span * vb;
          // Fills, or runs of lanes: the lanes clipped on the left or on the right one run
          // each (ceil(fw / sw) at most per side), the rest one.
          const uint32_t runs =
              std::min<uint32_t>(m, 2 * static_cast<uint32_t>((fw + p.sw - 1) / p.sw) + 1);
          const UnitStepStream::Chunk ck = us.beginChunk(16 + runs);
          const uint32_t at = ck.slot * inpSlot;
          const int64_t iy0 = int64_t{oy} * p.sh - g.padTop, ix0 = int64_t{x0} * p.sw - g.padLeft;
          const int64_t ya = std::max<int64_t>(0, iy0), yb = std::min<int64_t>(g.inH, iy0 + fh);
          const int64_t xa = std::max<int64_t>(0, ix0), xb = std::min<int64_t>(g.inW, ix0 + span);
          const uint32_t top = static_cast<uint32_t>(ya - iy0),
                         rows = static_cast<uint32_t>(yb - ya);
          // The window rows inside the image.
          us.load(rowLoad(false,
                          inBase + u * inTileBytes + ((uint64_t{b} * g.inH + ya) * g.inW + xa) * vb,
                          at + top * pitch + static_cast<uint32_t>((xa - ix0) * vb),
                          static_cast<uint64_t>(xb - xa) * vb, rows, uint64_t{g.inW} * vb, pitch));
          const uint32_t outAt = ck.outSlot * outSlot;
          firmware::Pool pc;
          pc.avg = p.avg;
          pc.trunc = p.trunc;
          pc.aSigned = p.isSigned;
          pc.wide = p.wide;
          pc.n = std::min(C, g.channels - u * C);
          pc.sw = static_cast<uint32_t>(p.sw);
          pc.rowStride = pitch;
          pc.clampMin = act.min;
          pc.clampMax = act.max;
          std::vector<firmware::Command> pools;
          if (!p.splitClipped) {
            // The padding around the rows inside the image: the type's minimum.
            auto fill = [&](uint32_t buf, uint64_t bytes, uint32_t n) {
              us.load(rowLoad(true, 0, buf, bytes, n, 0, pitch));
            };
            if (xa > ix0) fill(at + top * pitch, static_cast<uint64_t>(xa - ix0) * vb, rows);
            if (ix0 + span > xb)
              fill(at + top * pitch + static_cast<uint32_t>((xb - ix0) * vb),
                   static_cast<uint64_t>(ix0 + span - xb) * vb, rows);
            if (top > 0) fill(at, pitch, top);
            if (top + rows < fh)
              fill(at + (top + rows) * pitch, pitch, static_cast<uint32_t>(fh) - top - rows);
            pc.m = m;
            pc.inpAddr = at;
            firmware::setPoolWindow(pc, static_cast<uint32_t>(fh), static_cast<uint32_t>(fw));
            pc.outAddr = outAt;
            pools.push_back(firmware::Command{{}, pc});
          } else {
            // Runs of lanes whose windows are clipped alike, each a POOL over the windows'
            // rows and columns inside the image; nothing outside them is read.
            auto clipOf = [&](uint32_t i) {
              const int64_t x = ix0 + int64_t{i} * p.sw;
              return std::pair<int64_t, int64_t>{std::max<int64_t>(0, -x),
                                                 std::max<int64_t>(0, x + fw - g.inW)};
            };
            for (uint32_t i0 = 0; i0 < m;) {
              const auto clip = clipOf(i0);
              uint32_t i1 = i0 + 1;
              while (i1 < m && clipOf(i1) == clip) ++i1;
              const int64_t width = fw - clip.first - clip.second;
              if (rows == 0 || width <= 0)
                return hal::fail("output pixel (", oy, ", ", x0 + i0,
                                 "): its window lies wholly in the padding");
              firmware::Pool run = pc;
              run.m = i1 - i0;
              if (run.m == 1) run.sw = 1;
              run.inpAddr =
                  at + top * pitch + static_cast<uint32_t>((int64_t{i0} * p.sw + clip.first) * vb);
              firmware::setPoolWindow(run, rows, static_cast<uint32_t>(width));
              run.outAddr = outAt + i0 * vb;
              pools.push_back(firmware::Command{{}, run});
              i0 = i1;
            }
          }
          firmware::DmaStore st;
          st.bufId = firmware::Buffer::kOut;
          st.elemWidth = firmware::ElemWidth::kW8;
          st.dramAddr = static_cast<uint32_t>(outBase + u * outTileBytes +
                                              ((uint64_t{b} * g.outH + oy) * g.outW + x0) * vb);
          st.bufAddr = outAt;
          st.count0 = m * vb;
          st.count1 = 1;
          us.output(pools, {st});
        }

  CompiledStep& step = sb.step();
  NNC_TRY(us.finish(step, "POOL"));
  // ISA 1.8 where the step needs it: MEAN's truncation, a window over 15 a side.
  const bool isa18 = p.trunc || fh > firmware::kPoolFieldMax || fw > firmware::kPoolFieldMax;
  step.report.mapping = std::string("POOL on the pooling unit (ISA ") + (isa18 ? "1.8" : "1.7") +
                        "): " +
                        (p.trunc ? "MEAN as truncating AVG "
                         : p.avg ? "AVG "
                                 : "MAX ") +
                        std::to_string(fh) + "x" + std::to_string(fw) +
                        ", channel tiles, row tiles of " + std::to_string(block) + " pixels" +
                        (!p.clipped       ? ""
                         : p.splitClipped ? ", clipped windows as POOLs of their parts in the image"
                                          : ", padding filled with the minimum") +
                        (p.wide ? ", int16" : "");
  return std::move(step);
}

}  // namespace

hal::Result<CompiledStep> lowerPoolUnit(const hal::Model& model, uint32_t index, const OpView& v,
                                        const LoweringOptions& options, bool avg) {
  NNC_ASSIGN_OR_RETURN(PoolUnitPlan p, planPoolUnit(v, avg));
  return lowerPoolPlan(model, index, v, options, p);
}

hal::Status meanSupport(const OpView& v) {
  auto plan = planMean(v);
  return plan.ok() ? hal::Status::Ok() : hal::fail(plan.error());
}

hal::Result<CompiledStep> lowerMean(const hal::Model& model, uint32_t index, const OpView& v,
                                    const LoweringOptions& options) {
  NNC_ASSIGN_OR_RETURN(PoolUnitPlan p, planMean(v));
  return lowerPoolPlan(model, index, v, options, p);
}

hal::Result<CompiledStep> lowerMaxPool(const hal::Model& model, uint32_t index, const OpView& v,
                                       const LoweringOptions& options) {
  return lowerPoolUnit(model, index, v, options, false);
}

}  // namespace nncosim::driver::internal

namespace nncosim::driver {

void registerPoolLowerings(NpuLoweringTable& t) {
  t.add({hal::OperationType::MAX_POOL_2D, NpuUnit::kPoolingUnit, &internal::maxPoolSupport,
         &internal::lowerMaxPool});
  t.add({hal::OperationType::MEAN, NpuUnit::kPoolingUnit, &internal::meanSupport,
         &internal::lowerMean});
}

}  // namespace nncosim::driver
