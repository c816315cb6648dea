// MAX_POOL_2D, and the AVERAGE_POOL_2D layers the depthwise unit does not take, on the
// pooling unit (POOL, ISA 1.7). The input is read as channel tiles (the layout every
// convolution on the NPU stores, so a pool after a convolution reads its buffer as it is)
// and the output stored as channel tiles. One step per (batch, output row, channel tile,
// column block): the fh input rows of the block's span loaded into INP (DMA rows of pixel
// vectors; a MAX window clipped by the padding gets the type's minimum written around them
// by fills, which never wins a maximum), one POOL over the block's output pixels into OUT,
// one DMA_STORE of the result vectors; INP and OUT double buffered.
//
// What stays on the CPU: AVG windows clipped by the padding (the unit divides every window
// of a command by one count) and int16 MAX windows clipped by it (a fill writes one byte
// value into both bytes: 0x8080 is not int16's minimum); filters over 15 x 15, a row stride
// over 3 pixels.
#include <algorithm>

#include "driver/compiler/lowering_internal.h"
#include "driver/compiler/lowering_table.h"
#include "driver/compiler/unit_step_stream.h"
#include "ops/conv/pooling.h"
#include "ops/quant/quant_params.h"

namespace nncosim::driver::internal {
namespace {

using hal::OperandType;

struct PoolUnitPlan {
  ops::conv::PoolGeometry g;
  bool avg = false, wide = false, isSigned = false, clipped = false;
  uint32_t eb = 1;
  int32_t sh = 1, sw = 1;
};

hal::Result<PoolUnitPlan> planPoolUnit(const OpView& v, bool avg) {
  const OperandType t = v.inShape(0).type;
  PoolUnitPlan p;
  p.avg = avg;
  if (t == OperandType::TENSOR_QUANT16_SYMM) {
    if (!is16x8(v)) return hal::fail("int16 values outside the 16x8 mode");
    p.wide = true;
  } else if (t != OperandType::TENSOR_QUANT8_ASYMM &&
             t != OperandType::TENSOR_QUANT8_ASYMM_SIGNED) {
    return hal::fail("input type ", hal::toString(t), ": the pooling unit is quantized only");
  }
  p.isSigned = t != OperandType::TENSOR_QUANT8_ASYMM;
  p.eb = p.wide ? 2 : 1;
  NNC_ASSIGN_OR_RETURN(p.g, ops::conv::poolGeometry(v.ctx()));
  const ops::conv::PoolGeometry& g = p.g;
  if (g.batches == 0) return hal::fail("empty batch: nothing to compute");
  p.sh = g.outH == 1 ? 1 : g.strideH;
  p.sw = g.outW == 1 ? 1 : g.strideW;
  if (g.filterH > 15 || g.filterW > 15)
    return hal::fail("filter ", g.filterH, "x", g.filterW,
                     ": the pooling unit's windows are at most 15x15");
  if (p.sw > 3) return hal::fail("stride w ", p.sw, ": the pooling unit strides rows by 1..3");
  p.clipped = g.padTop > 0 || g.padLeft > 0 || int64_t{g.outH - 1} * p.sh + g.filterH > g.inH ||
              int64_t{g.outW - 1} * p.sw + g.filterW > g.inW;
  if (p.clipped && avg)
    return hal::fail(
        "windows clipped by the padding: their counts differ, and the pooling "
        "unit divides a row tile's windows by one count");
  if (p.clipped && p.wide)
    return hal::fail(
        "int16 windows clipped by the padding: a fill cannot write int16's "
        "minimum around them");
  return p;
}

}  // namespace

hal::Status poolUnitSupport(const OpView& v, bool avg) {
  auto plan = planPoolUnit(v, avg);
  return plan.ok() ? hal::Status::Ok() : hal::fail(plan.error());
}

hal::Status maxPoolSupport(const OpView& v) { return poolUnitSupport(v, false); }

hal::Result<CompiledStep> lowerPoolUnit(const hal::Model& model, uint32_t index, const OpView& v,
                                        const LoweringOptions& options, bool avg) {
  NNC_ASSIGN_OR_RETURN(PoolUnitPlan p, planPoolUnit(v, avg));
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
  while (block > 0 && (uint64_t{g.filterH} * spanOf(block) * vb > npu.inpBytes / 2 ||
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
          const UnitStepStream::Chunk ck = us.beginChunk();
          const uint32_t at = ck.slot * inpSlot;
          const int64_t iy0 = int64_t{oy} * p.sh - g.padTop, ix0 = int64_t{x0} * p.sw - g.padLeft;
          const int64_t ya = std::max<int64_t>(0, iy0), yb = std::min<int64_t>(g.inH, iy0 + fh);
          const int64_t xa = std::max<int64_t>(0, ix0), xb = std::min<int64_t>(g.inW, ix0 + span);
          const uint32_t top = static_cast<uint32_t>(ya - iy0),
                         rows = static_cast<uint32_t>(yb - ya);
          // The window rows inside the image, then the padding around them.
          us.load(rowLoad(false,
                          inBase + u * inTileBytes + ((uint64_t{b} * g.inH + ya) * g.inW + xa) * vb,
                          at + top * pitch + static_cast<uint32_t>((xa - ix0) * vb),
                          static_cast<uint64_t>(xb - xa) * vb, rows, uint64_t{g.inW} * vb, pitch));
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
          const uint32_t outAt = ck.outSlot * outSlot;
          firmware::Pool pc;
          pc.avg = p.avg;
          pc.aSigned = p.isSigned;
          pc.wide = p.wide;
          pc.m = m;
          pc.n = std::min(C, g.channels - u * C);
          pc.inpAddr = at;
          pc.fh = static_cast<uint32_t>(fh);
          pc.fw = static_cast<uint32_t>(fw);
          pc.sw = static_cast<uint32_t>(p.sw);
          pc.rowStride = pitch;
          pc.outAddr = outAt;
          pc.clampMin = act.min;
          pc.clampMax = act.max;
          firmware::DmaStore st;
          st.bufId = firmware::Buffer::kOut;
          st.elemWidth = firmware::ElemWidth::kW8;
          st.dramAddr = static_cast<uint32_t>(outBase + u * outTileBytes +
                                              ((uint64_t{b} * g.outH + oy) * g.outW + x0) * vb);
          st.bufAddr = outAt;
          st.count0 = m * vb;
          st.count1 = 1;
          us.output(firmware::Command{{}, pc}, {st});
        }

  CompiledStep& step = sb.step();
  NNC_TRY(us.finish(step, "POOL"));
  step.report.mapping = std::string("POOL on the pooling unit (ISA 1.7): ") +
                        (p.avg ? "AVG " : "MAX ") + std::to_string(fh) + "x" + std::to_string(fw) +
                        ", channel tiles, row tiles of " + std::to_string(block) + " pixels" +
                        (p.clipped ? ", padding filled with the minimum" : "") +
                        (p.wide ? ", int16" : "");
  return std::move(step);
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
}

}  // namespace nncosim::driver
