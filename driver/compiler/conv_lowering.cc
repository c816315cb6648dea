// CONV_2D, GROUPED_CONV_2D and DEPTHWISE_CONV_2D on the MAC array.
//
// GEMM view: A[i][t] = padded input at (pixel i, reduction index t), B[t][j] = weight of
// output channel j, ACC[i][j] = output pixel i, channel j. The mappings below; the lowering
// emits each one that applies and keeps the one the cost model (CostModel, calibrated
// against the RTL, plus the host's passes) finds cheapest:
//
//  host im2col     The host gathers A (layout.h kIm2col): per A group, tiles of 16 output
//                  pixels x the reduction t = (ic_rel, fy, fx). A step's row tiles are one
//                  contiguous DMA, which is what the RTL's DMA needs (it pays a DRAM round
//                  trip per row, four in flight).
//  DMA im2col      A gathered on the NPU by DMA_LOAD strides from the planar padded input
//                  (kConvInput), one DMA per tap or filter row, 16-byte rows.
//  shifted windows The same input, one run of pixels per channel and filter row, one GEMM
//                  per tap through a byte-shifted inp_addr (t = input channel).
//  output blocks   Depthwise (one input channel per group): see below.
//  window          A formed on the NPU from the channel tiles the producer stored (ISA
//                  1.5), or from the model's own NHWC bytes for few input channels (raw
//                  window); depthwise layers as DWCONVs on the depthwise unit (ISA 1.6).
//                  See lowerWindow.
//
// At the end of the file, operations that are convolutions: AVERAGE_POOL_2D with
// unclipped windows (a depthwise convolution of constant weights) and FULLY_CONNECTED (a
// pointwise convolution of a batches x 1 x 1 image).
//
// The first three share the channel structure: output channel oc reads the input channels
// of its group, [(oc / go) * gi, + gi): CONV_2D has one group (gi = inC), GROUPED_CONV_2D
// gi = inC / G, DEPTHWISE_CONV_2D gi = 1 and go = the depth multiplier. A channel tile
// reads the union of its columns' groups; B is block-diagonal, the weights outside a
// column's group being the filter zero point. Depthwise, multiplier 1:
//
//          col: 0  1  2 .. 15          (output channels c0 .. c0+15)
//   t = ic0 taps [w  z  z .. z ]
//   t = ic1 taps [z  w  z .. z ]       z = filter zero point: (z - zp) = 0 adds nothing
//   ...
//
// so only 1 in 16 products is useful. "Output blocks" does better for depthwise layers:
// a GEMM computes ONE channel, its 16 rows are 16 blocks of By x Bx output pixels
// (By*Bx = 16), its 16 columns the positions (dy, dx) in a block, and t runs over the
// block's input window (v, u) of Wy x Wx pixels (Wy = (By-1)*sh + (fh-1)*dh + 1):
//
//   A[block i][(v, u)] = input at (block origin * stride + (v, u))   (host-gathered, kBlockInput)
//   B[(v, u)][(dy, dx)] = w[fy][fx] where v = dy*sh + fy*dh, u = dx*sw + fx*dw, else z
//
// a Toeplitz band: fh*fw of Wy*Wx products are useful, 9/36 for 3x3 stride 1 with 4x4
// blocks (25 %, against 6.25 %), 9/81 for stride 2. All columns share the channel's
// requantization, so its PRM entry holds the bias 16 times and one multiplier and shift.
// Outputs leave in the ACC order (kBlockOutput), contiguous per channel.
//
// Outputs of the other mappings leave as channel tiles (kChannelTiles): each channel
// tile's rows of a step are one contiguous DMA_STORE.
//
// TRANSPOSE_CONV_2D is the stride-1 convolution of its input zero-inserted by the stride
// (rows and columns stride apart, the zero point between), padded by filter size - 1 -
// its own padding, with the filter turned by 180 degrees: output pixel o then sums the
// inputs i with i * stride - pad + f = o, exactly the scatter of the reference. It runs as
// host im2col (the gather does the zero insertion, layout.h); its useful MACs are the
// scatter's products, the zero-inserted taps the array computes besides are not.
//
// The 16x8 mode (int16 activations, int8 weights; hal::Model::quant16x8) runs the
// host-gathered mappings (host im2col, output blocks) with 16-bit operands (weights
// sign-extended at compile time), int64 ACC words and int16 outputs: the same images with
// two bytes per element.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <string>

#include "driver/isa_model/isa_interpreter.h"
#include "driver/compiler/load_coalescing.h"
#include "driver/compiler/lowering_internal.h"
#include "driver/compiler/lowering_table.h"
#include "ops/conv/conv_args.h"
#include "ops/conv/conv_common.h"
#include "ops/conv/conv_params.h"
#include "ops/conv/pooling.h"
#include "ops/quant/fixed_point.h"
#include "ops/quant/quant_params.h"
#include "ops/conv/transpose_conv_geometry.h"

namespace nncosim::driver::internal {
namespace {

using hal::OperandType;
using ops::conv::ConvKind;

ConvKind kindOf(hal::OperationType t) {
  switch (t) {
    case hal::OperationType::DEPTHWISE_CONV_2D:
      return ConvKind::kDepthwise;
    case hal::OperationType::GROUPED_CONV_2D:
      return ConvKind::kGrouped;
    default:
      return ConvKind::kConv;
  }
}

bool isQuant8(OperandType t) {
  return t == OperandType::TENSOR_QUANT8_ASYMM || t == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
}

// Inputs per group (gi) and outputs per group (go).
struct ChannelGroups {
  uint32_t gi = 1, go = 1;
  uint32_t firstInput(uint32_t oc) const { return (oc / go) * gi; }
};

ChannelGroups groupsOf(ConvKind kind, const ops::conv::ConvGeometry& g) {
  switch (kind) {
    case ConvKind::kDepthwise:
      return {1, static_cast<uint32_t>(g.extra)};
    case ConvKind::kGrouped:
      return {g.inC / static_cast<uint32_t>(g.extra), g.outC / static_cast<uint32_t>(g.extra)};
    default:
      return {g.inC, g.outC};
  }
}

// Taps fx, fx + step, ... of a filter row share a W phase (stride sw, dilation dw).
uint32_t tapStepOf(uint32_t sw, uint32_t dw) { return sw / std::gcd(dw, sw); }

// What every convolution on the MAC array needs of its operands: an integer input type
// and a constant filter and bias.
hal::Status macArrayOperandsSupport(const OpView& v) {
  const OperandType t = v.inShape(0).type;
  if (!isQuant8(t) && !is16x8(v))
    return hal::fail("input type ", hal::toString(t),
                     ": the MAC array is integer (TENSOR_QUANT8_ASYMM[_SIGNED], or "
                     "TENSOR_QUANT16_SYMM in a 16x8 model)");
  if (!v.isConstant(1)) return hal::fail("the filter is not a constant");
  if (!v.isConstant(2)) return hal::fail("the bias is not a constant");
  return hal::Status::Ok();
}

// The output operand has the shape the geometry computes (NHWC dims, model layout).
hal::Status outputShapeSupport(const OpView& v, const std::vector<uint32_t>& nhwc, bool nchw) {
  const std::vector<uint32_t> want = ops::conv::fromNhwcDims(nhwc, nchw);
  if (v.outShape(0).dimensions != want)
    return hal::fail("output shape ", ops::toString(v.outShape(0).dimensions),
                     " differs from the computed ", ops::toString(want));
  return hal::Status::Ok();
}

}  // namespace

hal::Status convSupport(const OpView& v) {
  const ConvKind kind = kindOf(v.op().type);
  NNC_TRY(macArrayOperandsSupport(v));
  NNC_ASSIGN_OR_RETURN(auto g, ops::conv::convGeometry(v.ctx(), kind));
  if (g.batches == 0) return hal::fail("empty batch: nothing to compute");
  NNC_ASSIGN_OR_RETURN(auto q,
                       ops::conv::makeConvQuantParams(v.inShape(0), v.inShape(1), &v.inShape(2),
                                                      v.outShape(0), g.activation, g.outC));
  return outputShapeSupport(v, g.outputNhwcDims(), g.nchw);
}

namespace {

// Everything the mappings share: geometry, quantization, channel tiles, parameters.
struct ConvSetup {
  ConvKind kind = ConvKind::kConv;
  ops::conv::ConvGeometry g;
  uint32_t R = firmware::kArrayRows, C = firmware::kArrayCols;  // the NpuConfig's, when set up
  ChannelGroups cg;
  uint32_t fh = 1, fw = 1, taps = 1, sh = 1, sw = 1, dh = 1, dw = 1;
  uint32_t Q = 0;  // channel tiles of C output channels
  std::vector<uint32_t> tileDepth, tileGroup, groupFirstIc, tileIcLo, tileIcCount;
  const uint8_t* filter = nullptr;
  uint8_t filterFill = 0, inputFill = 0;
  std::vector<int32_t> bias, mult, shift;
  bool aSigned = false, bSigned = false, outSigned = false, perChannel = false;
  bool wide = false;  // 16x8 mode: int16 activations and outputs, int8 weights (wgt8), int64 ACC
  uint32_t eb() const { return wide ? 2 : 1; }
  int32_t aZp = 0, bZp = 0, outZp = 0, clampMin = 0, clampMax = 0;
  uint64_t usefulMacs = 0;
  // TRANSPOSE_CONV_2D as a convolution: taps read turned by 180 degrees, the input
  // zero-inserted by (upH, upW) (g's input size is the input's, its pads the equivalent
  // convolution's).
  bool transposed = false;
  uint32_t upH = 1, upW = 1;
  uint64_t pixels() const { return uint64_t{g.batches} * g.outH * g.outW; }
};

// Filter element (oc, fy, fx, input channel ic of oc's group) in the operand.
uint8_t filterAt(const ConvSetup& s, uint32_t oc, uint32_t fy, uint32_t fx, uint32_t ic) {
  if (s.transposed) {
    fy = s.fh - 1 - fy;
    fx = s.fw - 1 - fx;
  }
  const uint64_t at =
      s.kind == ConvKind::kDepthwise
          ? (uint64_t{fy} * s.fw + fx) * s.g.outC + oc
          : ((uint64_t{oc} * s.fh + fy) * s.fw + fx) * s.cg.gi + (ic - s.cg.firstInput(oc));
  return s.filter[at];
}

GemmSpec baseSpec(const ConvSetup& s) {
  GemmSpec spec;
  spec.channels = s.g.outC;
  spec.tileDepth = s.tileDepth;
  spec.tileGroup = s.tileGroup;
  spec.usefulMacs = s.usefulMacs;
  spec.aSigned = s.aSigned;
  spec.bSigned = s.bSigned;
  spec.aZp = s.aZp;
  spec.bZp = s.bZp;
  spec.perChannel = s.perChannel;
  spec.biasEn = true;
  spec.outSigned = s.outSigned;
  spec.outZp = s.outZp;
  spec.clampMin = s.clampMin;
  spec.clampMax = s.clampMax;
  spec.wide = s.wide;
  spec.weightBytes = s.wide ? 1 : 0;  // 16x8: the int8 filter as is (GEMM wgt8)
  return spec;
}

// Channel-tile weight image: per tile, [t][C], block-diagonal for grouped/depthwise tiles.
// t = (ic_rel, fy, fx), or t = (fy, fx, ic_rel) for shifted windows (each tap's rows adjacent).
std::vector<uint8_t> tileWeights(const ConvSetup& s, bool tapMajor) {
  std::vector<uint64_t> offset(s.Q + 1, 0);
  for (uint32_t q = 0; q < s.Q; ++q) offset[q + 1] = offset[q] + uint64_t{s.tileDepth[q]} * s.C;
  std::vector<uint8_t> weights(offset[s.Q], s.filterFill);
  for (uint32_t q = 0; q < s.Q; ++q)
    for (uint32_t icRel = 0; icRel < s.tileIcCount[q]; ++icRel) {
      const uint32_t ic = s.tileIcLo[q] + icRel;
      for (uint32_t fy = 0; fy < s.fh; ++fy)
        for (uint32_t fx = 0; fx < s.fw; ++fx) {
          const uint64_t t = tapMajor ? (uint64_t{fy} * s.fw + fx) * s.tileIcCount[q] + icRel
                                      : (uint64_t{icRel} * s.fh + fy) * s.fw + fx;
          for (uint32_t j = 0; j < s.C; ++j) {
            const uint32_t oc = q * s.C + j;
            if (oc >= s.g.outC) break;
            const uint32_t first = s.cg.firstInput(oc);
            if (ic < first || ic >= first + s.cg.gi) continue;
            weights[offset[q] + t * s.C + j] = filterAt(s, oc, fy, fx, ic);
          }
        }
    }
  return weights;
}

// Outputs as channel tiles: rows = every output pixel (batch, row, column).
TensorLayout channelTilesOut(const ConvSetup& s) {
  TensorLayout l;
  l.kind = TensorLayout::Kind::kChannelTiles;
  l.matrices = 1;
  l.lanes = static_cast<uint32_t>(s.pixels());
  l.channels = s.g.outC;
  l.laneTile = s.C;
  l.sourceNchw = s.g.nchw;
  l.batches = s.g.batches;
  l.height = s.g.outH;
  l.width = s.g.outW;
  l.elementBytes = s.eb();
  return l;
}

// The input tensor as every input layout sees it: the unpadded tensor, its layout, its
// top/left pads and the fill (the input zero point).
TensorLayout inputLayout(const ConvSetup& s, TensorLayout::Kind kind) {
  const ops::conv::ConvGeometry& g = s.g;
  TensorLayout in;
  in.kind = kind;
  in.batches = g.batches;
  in.height = g.inH;
  in.width = g.inW;
  in.channels = g.inC;
  in.sourceNchw = g.nchw;
  in.padTop = static_cast<uint32_t>(g.padTop);
  in.padLeft = static_cast<uint32_t>(g.padLeft);
  in.fill = s.inputFill;
  in.elementBytes = s.eb();
  in.upsampleH = s.upH;
  in.upsampleW = s.upW;
  return in;
}

// The input as the host gathers it (kIm2col, kBlockInput): inputLayout plus the strides,
// the output size and R-pixel lane tiles. The caller adds what only its kind reads
// (im2col: dilations and filter size; blocks: block and window size).
TensorLayout gatheredInputLayout(const ConvSetup& s, TensorLayout::Kind kind) {
  const ops::conv::ConvGeometry& g = s.g;
  TensorLayout in = inputLayout(s, kind);
  in.strideH = s.sh;
  in.strideW = s.sw;
  in.outHeight = g.outH;
  in.outWidth = g.outW;
  in.laneTile = s.R;
  return in;
}

// Moves a step's rows (pixels [px0, px0 + rows)) of channel tiles [q0, q1) between a
// tensor's channel tiles at `dram` (totalRows pixels each) and `buffer` at `bufAddr`: one
// contiguous run per tile (eb bytes per element). `bufRows`: buffer rows between channel
// tiles (0: `rows`, the tiles' rows adjacent). Dma: DmaStore (from OUT) or DmaLoad.
template <typename Dma>
void channelTilesDma(firmware::Buffer buffer, uint64_t dram, uint64_t totalRows, uint64_t px0,
                     uint32_t rows, uint32_t q0, uint32_t q1, uint32_t C, uint32_t bufAddr,
                     std::vector<Dma>& out, uint32_t eb = 1, uint32_t bufRows = 0) {
  Dma d;
  d.bufId = buffer;
  d.bufAddr = bufAddr;
  d.dramAddr = static_cast<uint32_t>(dram + (uint64_t{q0} * totalRows + px0) * C * eb);
  d.count0 = rows * C * eb;
  d.count1 = q1 - q0;
  d.dramStride1 = static_cast<uint32_t>(totalRows * C * eb);
  d.bufStride1 = (bufRows ? bufRows : rows) * C * eb;
  out.push_back(d);
}

// Stores a step's rows of channel tiles [q0, q1) from OUT (channelTilesDma).
void storeChannelTiles(uint64_t outBase, uint64_t totalRows, uint64_t px0, uint32_t rows,
                       uint32_t q0, uint32_t q1, uint32_t C, uint32_t outAddr,
                       std::vector<firmware::DmaStore>& out, uint32_t eb = 1,
                       uint32_t bufRows = 0) {
  channelTilesDma(firmware::Buffer::kOut, outBase, totalRows, px0, rows, q0, q1, C, outAddr, out,
                  eb, bufRows);
}

std::string mappingSuffix(const ConvSetup& s) {
  std::string m = ", filter " + std::to_string(s.fh) + "x" + std::to_string(s.fw);
  if (s.kind == ConvKind::kGrouped) m += ", " + std::to_string(s.g.extra) + " groups";
  if (s.transposed)
    m += ", transposed (stride " + std::to_string(s.upH) + "x" + std::to_string(s.upW) +
         ", input zero-inserted by the host)";
  if (s.g.nchw) m += ", NCHW";
  return m;
}

hal::Result<CompiledStep> finish(const hal::Model& model, StepBuilder& sb, GemmSpec& spec,
                                 const LoweringOptions& options, const std::string& mapping) {
  CompiledStep& step = sb.step();
  // The bindings are set, so the host's share is known: a plan that cannot beat the
  // mapping search's best so far stops its estimates where it passes it.
  NNC_ASSIGN_OR_RETURN(
      auto commands,
      emitGemmFor(spec, options.npu, options.preference, options.maxJobCommands, options.cost,
                  options.tag, step.report, cycleLimitFor(model, step, options), options.energy));
  step.commands = std::move(commands);
  step.report.mapping = mapping;
  return std::move(step);
}

// ---------------------------------------------------------------------------------------
// DMA im2col and shifted windows: A gathered by DMA from the planar padded input.

// Taps fx, fx + step, ... of a filter row that share a W phase, for shifted windows.
struct PhaseTaps {
  uint32_t phase = 0, minShift = UINT32_MAX, maxShift = 0;
};

struct ShiftedPlan {
  std::vector<PhaseTaps> phaseTaps;
  std::vector<uint32_t> tapPhase;  // per fx: index into phaseTaps
  uint32_t span = 0, pixels = 0;
  bool applies = false;
};

ShiftedPlan shiftedPlan(const ConvSetup& s, const LoweringOptions& options) {
  ShiftedPlan sp;
  sp.tapPhase.assign(s.fw, 0);
  for (uint32_t p = 0; p < s.sw; ++p) {
    PhaseTaps pt;
    pt.phase = p;
    for (uint32_t fx = 0; fx < s.fw; ++fx) {
      if ((fx * s.dw) % s.sw != p) continue;
      pt.minShift = std::min(pt.minShift, fx * s.dw / s.sw);
      pt.maxShift = std::max(pt.maxShift, fx * s.dw / s.sw);
      sp.tapPhase[fx] = static_cast<uint32_t>(sp.phaseTaps.size());
    }
    if (pt.minShift != UINT32_MAX) sp.phaseTaps.push_back(pt);
  }
  for (const PhaseTaps& pt : sp.phaseTaps) sp.span = std::max(sp.span, pt.maxShift - pt.minShift);
  const PlanOptions planOptions = PlanOptions::forPreference(options.preference);
  const uint32_t maxDepth = *std::max_element(s.tileDepth.begin(), s.tileDepth.end());
  sp.pixels = std::min(s.g.outW, sp.span < s.R ? s.R - sp.span : 0);
  // The piece plus the bytes the shifted GEMMs read past it must fit an INP slot.
  sp.applies =
      s.fw > 1 && sp.phaseTaps.size() * s.fh < s.taps && 2 * sp.pixels >= std::min(s.R, s.g.outW) &&
      maxDepth + (sp.span + s.R - 1) / s.R <= maxSingleChunkDepth(options.npu, planOptions, s.taps);
  return sp;
}

// A row tile: nr output rows x nc output columns of image b (nr > 1 only when nc = outW).
struct RowTile {
  uint32_t b, oy0, nr, ox0, nc;
};

hal::Result<CompiledStep> lowerGathered(const hal::Model& model, uint32_t index, const OpView& v,
                                        const LoweringOptions& options, const ConvSetup& s,
                                        bool shifted) {
  const ops::conv::ConvGeometry& g = s.g;
  const uint32_t R = s.R, C = s.C, fh = s.fh, fw = s.fw, taps = s.taps, sh = s.sh, sw = s.sw,
                 dh = s.dh, dw = s.dw;
  const ShiftedPlan sp = shiftedPlan(s, options);
  if (shifted && !sp.applies) return hal::fail("shifted windows do not apply");

  // Input: planar, zero-point padded, W phases by the stride.
  TensorLayout in = inputLayout(s, TensorLayout::Kind::kConvInput);
  in.paddedHeight = g.inH + static_cast<uint32_t>(g.padTop + g.padBottom);
  in.paddedWidth = g.inW + static_cast<uint32_t>(g.padLeft + g.padRight);
  in.phases = sw;
  in.phaseWidth = (in.paddedWidth + sw - 1) / sw;

  const TensorLayout outLayout = channelTilesOut(s);
  const uint64_t outBytes = s.pixels() * g.outC;
  StepBuilder sb(model, index);
  NNC_ASSIGN_OR_RETURN(auto inBuf, sb.bindInput(v.inOperand(0), in, "input"));
  const size_t wBuf = sb.addConstant("weights", tileWeights(s, shifted));
  const size_t pBuf =
      sb.addConstant("requant parameters", prmImage(g.outC, C, s.bias.data(), s.mult, s.shift));
  const size_t oBuf =
      sb.bindOutput(v.outOperand(0), outLayout, outLayout.deviceBytes(outBytes), "output");
  NNC_TRY(sb.layout());
  const uint64_t inBase = sb.address(inBuf), outBase = sb.address(oBuf);

  // Row tiles: 16 pixels of a row, or whole rows when a row is shorter than R. Consecutive
  // row tiles are consecutive output pixels.
  std::vector<RowTile> tiles;
  std::vector<uint64_t> firstPixel;
  for (uint32_t b = 0; b < g.batches; ++b) {
    if (shifted) {
      for (uint32_t oy = 0; oy < g.outH; ++oy)
        for (uint32_t ox = 0; ox < g.outW; ox += sp.pixels)
          tiles.push_back({b, oy, 1, ox, std::min(sp.pixels, g.outW - ox)});
    } else if (g.outW >= R) {
      for (uint32_t oy = 0; oy < g.outH; ++oy)
        for (uint32_t ox = 0; ox < g.outW; ox += R)
          tiles.push_back({b, oy, 1, ox, std::min(R, g.outW - ox)});
    } else {
      const uint32_t rows = R / g.outW;
      for (uint32_t oy = 0; oy < g.outH; oy += rows)
        tiles.push_back({b, oy, std::min(rows, g.outH - oy), 0, g.outW});
    }
  }
  for (const RowTile& rt : tiles)
    firstPixel.push_back((uint64_t{rt.b} * g.outH + rt.oy0) * g.outW + rt.ox0);

  const uint64_t row = in.rowBytes(), plane = in.planeBytes(), image = in.imageBytes();
  // Taps of a filter row in the same W phase are evenly spaced in DRAM: fx, fx + step,
  // ... (step = sw / gcd(dw, sw)) sit step*dw/sw bytes apart, so one DMA row-set covers
  // them all (one DMA per filter row when the stride divides the dilation).
  const uint32_t tapStep = tapStepOf(sw, dw);
  const uint32_t phaseWidth = in.phaseWidth;
  auto dramAt = [=](const RowTile& rt, uint32_t ic, uint32_t fy, uint32_t fx) {
    const uint64_t col = uint64_t{fx} * dw;
    return inBase + rt.b * image + uint64_t{ic} * plane +
           (uint64_t{rt.oy0} * sh + uint64_t{fy} * dh) * row + (col % sw) * phaseWidth + rt.ox0 +
           col / sw;
  };

  GemmProblem prob;
  prob.weightImage = sb.address(wBuf);
  prob.rowTiles = static_cast<uint32_t>(tiles.size());
  prob.rowsOf = [tiles](uint32_t p) { return tiles[p].nr * tiles[p].nc; };
  const std::vector<uint32_t> groupFirstIc = s.groupFirstIc;
  auto loadPiece = [=](uint32_t p, uint32_t gid, uint32_t k0, uint32_t k1, uint32_t inpAddr,
                       std::vector<firmware::DmaLoad>& out) {
    const RowTile& rt = tiles[p];
    const uint32_t icFirst = groupFirstIc[gid] + k0 / taps;
    const uint32_t icCount = (k1 - k0) / taps;
    if (shifted) {
      // Per W phase: for every input channel (R apart) and filter row (icCount*R apart),
      // the run of pixels its taps read, in one DMA.
      for (size_t pi = 0; pi < sp.phaseTaps.size(); ++pi) {
        const PhaseTaps& pt = sp.phaseTaps[pi];
        firmware::DmaLoad d;
        d.bufId = firmware::Buffer::kInp;
        d.dramAddr = static_cast<uint32_t>(inBase + rt.b * image + uint64_t{icFirst} * plane +
                                           uint64_t{rt.oy0} * sh * row +
                                           uint64_t{pt.phase} * phaseWidth + rt.ox0 + pt.minShift);
        d.bufAddr = static_cast<uint32_t>(inpAddr + pi * fh * icCount * R);
        d.count0 = rt.nc + pt.maxShift - pt.minShift;
        d.count1 = icCount;
        d.dramStride1 = static_cast<uint32_t>(plane);
        d.bufStride1 = R;
        d.count2 = fh;
        d.dramStride2 = static_cast<uint32_t>(dh * row);
        d.bufStride2 = icCount * R;
        out.push_back(d);
      }
      return;
    }
    constexpr uint32_t kMaxPlanes = 4095;  // count2 is 12 bits
    for (uint32_t c0 = 0; c0 < icCount; c0 += kMaxPlanes) {
      const uint32_t planes = std::min(kMaxPlanes, icCount - c0);
      for (uint32_t fy = 0; fy < fh; ++fy) {
        // Single-row tiles merge the taps of a phase into the row dimension; multi-row
        // tiles need it for the output rows.
        const bool merge = rt.nr == 1 && fw > 1;
        for (uint32_t fx = 0; fx < (merge ? std::min(tapStep, fw) : fw); ++fx) {
          firmware::DmaLoad d;
          d.bufId = firmware::Buffer::kInp;
          d.dramAddr = static_cast<uint32_t>(dramAt(rt, icFirst + c0, fy, fx));
          d.bufAddr =
              static_cast<uint32_t>(inpAddr + (uint64_t{c0} * taps + uint64_t{fy} * fw + fx) * R);
          d.count0 = rt.nc;
          if (merge) {
            d.count1 = (fw - fx + tapStep - 1) / tapStep;
            d.dramStride1 = tapStep * dw / sw;
            d.bufStride1 = tapStep * R;
          } else {
            d.count1 = rt.nr;
            d.dramStride1 = static_cast<uint32_t>(sh * row);
            d.bufStride1 = rt.nc;
          }
          d.count2 = planes;
          d.dramStride2 = static_cast<uint32_t>(plane);
          d.bufStride2 = taps * R;
          out.push_back(d);
        }
      }
    }
  };
  prob.loadA = [=](const std::vector<APiece>& pieces, std::vector<firmware::DmaLoad>& out) {
    for (const APiece& a : pieces) loadPiece(a.p, a.g, a.k0, a.k1, a.inpAddr, out);
  };
  if (shifted) {
    // One GEMM per tap: t = input channel, A through the byte-shifted window.
    const std::vector<uint32_t> tileIcCount = s.tileIcCount;
    prob.gemms = [=](uint32_t, uint32_t q, uint32_t, uint32_t, uint32_t inpAddr, uint32_t wgtAddr,
                     const firmware::Gemm& proto, std::vector<firmware::CommandArgs>& out) {
      const uint32_t icCount = tileIcCount[q];
      for (uint32_t fy = 0; fy < fh; ++fy)
        for (uint32_t fx = 0; fx < fw; ++fx) {
          const PhaseTaps& pt = sp.phaseTaps[sp.tapPhase[fx]];
          firmware::Gemm x = proto;
          x.k = icCount;
          x.inpAddr =
              inpAddr + (sp.tapPhase[fx] * fh + fy) * icCount * R + (fx * dw / sw - pt.minShift);
          x.wgtAddr = wgtAddr + (fy * fw + fx) * icCount * C;
          x.accumulate = proto.accumulate || fy + fx > 0;
          out.push_back(x);
        }
    };
  }
  const uint64_t totalRows = s.pixels();
  prob.storeOut = [=](uint32_t p0, uint32_t, uint32_t q0, uint32_t q1, uint32_t rows,
                      uint32_t outAddr, std::vector<firmware::DmaStore>& out) {
    storeChannelTiles(outBase, totalRows, firstPixel[p0], rows, q0, q1, C, outAddr, out);
  };

  GemmSpec spec = baseSpec(s);
  spec.kUnit = taps;
  spec.inpTail = shifted ? sp.span : 0;  // shifted windows read up to span bytes past a piece
  spec.prmImage = sb.address(pBuf);
  spec.problems.push_back(std::move(prob));
  std::string mapping =
      std::string(shifted ? "shifted-window GEMMs (one per tap)" : "DMA im2col GEMM") +
      ", pixels x channels" + mappingSuffix(s);
  if (s.kind == ConvKind::kDepthwise)
    mapping += ", block-diagonal depthwise tiles (" + std::to_string(std::min(C, g.outC)) +
               " channels per GEMM)";
  return finish(model, sb, spec, options, mapping);
}

// ---------------------------------------------------------------------------------------
// Host im2col: A gathered by the host into contiguous tiles (kIm2col).

hal::Result<CompiledStep> lowerHostIm2col(const hal::Model& model, uint32_t index, const OpView& v,
                                          const LoweringOptions& options, const ConvSetup& s) {
  const ops::conv::ConvGeometry& g = s.g;
  const uint32_t R = s.R, C = s.C;
  TensorLayout in = gatheredInputLayout(s, TensorLayout::Kind::kIm2col);
  in.dilationH = s.dh;
  in.dilationW = s.dw;
  in.filterH = s.fh;
  in.filterW = s.fw;
  const uint32_t eb = s.eb();
  std::vector<uint32_t> groupDepth;
  for (uint32_t q = 0; q < s.Q; ++q)
    if (q == 0 || s.tileGroup[q] != s.tileGroup[q - 1]) {
      in.groups.emplace_back(s.tileIcLo[q], s.tileIcCount[q]);
      groupDepth.push_back(s.tileDepth[q]);
    }
  const uint64_t inputBytes = uint64_t{g.batches} * g.inH * g.inW * g.inC * eb;
  const uint64_t imageBytes = in.deviceBytes(inputBytes);
  if (imageBytes > (uint64_t{1} << 28))
    return hal::fail("the im2col image would take ", imageBytes, " bytes");

  const TensorLayout outLayout = channelTilesOut(s);
  StepBuilder sb(model, index);
  NNC_ASSIGN_OR_RETURN(auto inBuf, sb.bindInput(v.inOperand(0), in, "input (im2col)"));
  const size_t wBuf = sb.addConstant("weights", tileWeights(s, false));
  const size_t pBuf =
      sb.addConstant("requant parameters", prmImage(g.outC, C, s.bias.data(), s.mult, s.shift));
  const size_t oBuf = sb.bindOutput(v.outOperand(0), outLayout,
                                    outLayout.deviceBytes(s.pixels() * g.outC * eb), "output");
  NNC_TRY(sb.layout());
  const uint64_t inBase = sb.address(inBuf), outBase = sb.address(oBuf);

  std::vector<uint64_t> groupBase;
  for (size_t gi = 0; gi < in.groups.size(); ++gi)
    groupBase.push_back(inBase + in.im2colGroupOffset(gi));
  const uint64_t totalRows = s.pixels();
  GemmProblem prob;
  prob.weightImage = sb.address(wBuf);
  prob.rowTiles = static_cast<uint32_t>(in.im2colTiles());
  prob.rowsOf = [totalRows, R](uint32_t p) {
    return static_cast<uint32_t>(std::min<uint64_t>(R, totalRows - uint64_t{p} * R));
  };
  prob.loadA = [=](const std::vector<APiece>& pieces, std::vector<firmware::DmaLoad>& out) {
    loadContiguousPieces(
        pieces, R * eb,
        [&](const APiece& a) {
          return groupBase[a.g] + (uint64_t{a.p} * groupDepth[a.g] + a.k0) * R * eb;
        },
        out);
  };
  prob.storeOut = [=](uint32_t p0, uint32_t, uint32_t q0, uint32_t q1, uint32_t rows,
                      uint32_t outAddr, std::vector<firmware::DmaStore>& out) {
    storeChannelTiles(outBase, totalRows, uint64_t{p0} * R, rows, q0, q1, C, outAddr, out, eb);
  };
  GemmSpec spec = baseSpec(s);
  spec.kUnit = 1;
  spec.prmImage = sb.address(pBuf);
  spec.problems.push_back(std::move(prob));
  std::string mapping = "host im2col GEMM, pixels x channels" + mappingSuffix(s);
  if (s.kind == ConvKind::kDepthwise)
    mapping += ", block-diagonal depthwise tiles (" + std::to_string(std::min(C, g.outC)) +
               " channels per GEMM)";
  if (s.wide) mapping += ", 16x8 (int16 x int8, acc64)";
  return finish(model, sb, spec, options, mapping);
}

// ---------------------------------------------------------------------------------------
// Windows: A formed on the NPU from pixel vectors (ISA 1.5 GEMM window mode).

// What the window mapping reads as its input: the channel tiles its producer stored
// (channelTilesOut of a layer whose output is this input), so an NPU producer's buffer
// serves as it is.
TensorLayout windowInputLayout(const ConvSetup& s) {
  const ops::conv::ConvGeometry& g = s.g;
  TensorLayout l;
  l.kind = TensorLayout::Kind::kChannelTiles;
  l.matrices = 1;
  l.lanes = g.batches * g.inH * g.inW;
  l.channels = g.inC;
  l.laneTile = s.C;
  l.sourceNchw = g.nchw;
  l.batches = g.batches;
  l.height = g.inH;
  l.width = g.inW;
  l.elementBytes = s.eb();
  return l;
}

// A pointwise layer (1x1, stride 1, no padding): its lanes may run across output rows.
bool isPointwise(const ConvSetup& s) {
  return s.fh == 1 && s.fw == 1 && s.sh == 1 && s.sw == 1 && s.g.padTop == 0 && s.g.padLeft == 0 &&
         s.g.outH == s.g.inH && s.g.outW == s.g.inW;
}

// Packed rows: the window mapping's lanes run across output rows. Each output row gets
// `wv = ceil(E / sw)` lanes, E = (outW-1)*sw + (fw-1)*dw + 1 its padded input row's extent,
// the last wv - outW of them junk (computed, never stored), and the input rows of a row
// tile's output rows are loaded into INP one after the other, padded pixel X of output row
// rr at ((rr - rr0) * wv - x0) * sw + X vectors from the piece's start: lane i's vector is
// then at i * sw vectors (plus fx * dw for tap fx) whatever row it is in, and one window
// GEMM covers R lanes of several rows. A piece holds the ordinary span, (R-1)*sw +
// (fw-1)*dw + 1 vectors, per filter row and channel tile. A strided 1x1 layer has no junk
// (wv = outW); a 3x3 stride-1 layer 2 junk lanes per row, so on 7x7 maps 7 of 9 lanes work
// where a row tile per output row uses 7 of 16.
uint32_t packedWidth(const ConvSetup& s) {
  const uint64_t extent = uint64_t{s.g.outW - 1} * s.sw + uint64_t{s.fw - 1} * s.dw + 1;
  return static_cast<uint32_t>((extent + s.sw - 1) / s.sw);
}
uint32_t packedSpan(const ConvSetup& s) { return (s.R - 1) * s.sw + (s.fw - 1) * s.dw + 1; }

// Whether window GEMMs of `taps` vectors of `vecElems` elements per filter row (`fwEff`
// pixels read per row, taps `tapStride` bytes apart, `tiles` outer blocks) fit: a row
// tile's input span (R lanes) fits the engine's piece of depth * R elements, the fields
// fit GEMM's window fields, a 16-bit input's zero point is 0 (fills write bytes), and one
// unit of taps fits an INP slot.
bool windowFits(const ConvSetup& s, const NpuConfig& npu, uint32_t fwEff, uint32_t vecElems,
                uint64_t tapStride, uint32_t taps, uint64_t tiles, bool packed = false) {
  const uint32_t R = s.R;
  const uint32_t spanR = isPointwise(s) ? R : (R - 1) * s.sw + (fwEff - 1) * s.dw + 1;
  // Packed rows size their pieces themselves (GemmSpec::aElemsPerK: the span per tap).
  const uint64_t perK = packed ? (uint64_t{spanR} + fwEff - 1) / fwEff : R;
  const uint64_t unitBytes = uint64_t{s.fh} * fwEff * vecElems * perK * s.eb();
  return (packed || spanR <= fwEff * R) && tapStride <= 4095 && taps <= 127 && tiles <= 4095 &&
         !(s.wide && s.inputFill != 0) && unitBytes <= ((npu.inpBytes / 2) & ~63u);
}

// Whether the window mapping applies: vectors of a channel tile, a tap per filter pixel,
// the outer blocks over input channel tiles and filter rows; with `packedRows` its packed
// rows variant (packedWidth; not for a pointwise layer, whose lanes run across rows already).
bool windowApplies(const ConvSetup& s, const NpuConfig& npu, bool packedRows = false) {
  if (s.transposed || (packedRows && isPointwise(s))) return false;
  const uint64_t inTiles = (s.g.inC + s.C - 1) / s.C;
  return windowFits(s, npu, s.fw, s.C, uint64_t{s.dw} * s.C * s.eb(), s.fw, inTiles * s.fh,
                    packedRows);
}

// Whether the depthwise unit's mapping applies (DWCONV, ISA 1.6): a depthwise layer of
// multiplier 1 (channel j reads input channel j), 8-bit, filters up to 7x7, stride and
// dilation along the row 1 or 2, on the window mapping's INP pieces.
bool dwconvApplies(const ConvSetup& s, const NpuConfig& npu) {
  return s.kind == ConvKind::kDepthwise && s.cg.go == 1 && !s.wide && s.fh <= 7 && s.fw <= 7 &&
         s.sw <= 2 && s.dw <= 2 && windowApplies(s, npu);
}

// The raw-pixel variant of the window mapping: a convolution of few input channels (an
// image's 3) reads its input as the model holds it, NHWC bytes, and a pixel vector is one
// pixel's inC channels. With dilation 1 a filter row's fw pixels are then fw*inC adjacent
// elements: one vector of a window GEMM when fw*inC <= C, so k = fh*fw*inC exactly as host
// im2col has it, with no host pass but the plain copy of the input. A wider row (ResNet's
// 7x7 on RGB) is cut into `taps` vectors of `group` pixels each, the row padded to
// taps*group pixels whose extra weights are the filter zero point (they add 0).
struct RawRow {
  uint32_t group = 0, taps = 0;  // pixels per vector, vectors per filter row
  uint32_t width() const { return group * taps; }
};

RawRow rawRowOf(const ConvSetup& s) {
  RawRow r;
  const uint32_t most = s.C / std::max<uint32_t>(1, s.g.inC);  // pixels a vector holds
  if (most == 0) return r;
  r.taps = (s.fw + most - 1) / most;
  r.group = (s.fw + r.taps - 1) / r.taps;  // the fewest pixels for that many vectors
  return r;
}

// 16-bit inputs (the 16x8 mode) too: their zero point is 0, what the fills write.
bool rawWindowApplies(const ConvSetup& s, const NpuConfig& npu) {
  if (s.transposed || s.g.nchw || s.cg.gi != s.g.inC || s.dw != 1) return false;
  const RawRow row = rawRowOf(s);
  if (row.taps == 0) return false;
  return windowFits(s, npu, row.width(), s.g.inC, uint64_t{row.group} * s.g.inC * s.eb(), row.taps,
                    s.fh);
}

enum class WindowInput {
  kChannelTiles,   // window GEMMs over channel tiles (ISA 1.5)
  kDepthwiseUnit,  // DWCONVs over the same channel tiles (ISA 1.6)
  kRawPixels,      // window GEMMs over the model's NHWC bytes (rawWindowApplies)
};

// The window mapping (kDepthwiseUnit: its depthwise variant, one DWCONV per row tile and
// channel tile on the depthwise unit instead of a block-diagonal window GEMM; the same INP
// pieces. kRawPixels: one input "tile" of inC-byte pixel vectors, see rawWindowApplies).
// `fused` (a half of a fused step): the depthwise unit's rows into its INP tensor, or a
// pointwise layer's A read from it; the slots in its buffer windows.
hal::Result<CompiledStep> lowerWindow(const hal::Model& model, uint32_t index, const OpView& v,
                                      const LoweringOptions& options, const ConvSetup& s,
                                      WindowInput input, bool packedRows = false,
                                      const FusedHalf* fused = nullptr,
                                      const EltwiseAfter* after = nullptr) {
  const ops::conv::ConvGeometry& g = s.g;
  const uint32_t R = s.R, C = s.C, eb = s.eb();
  const bool dwUnit = input == WindowInput::kDepthwiseUnit;
  const bool raw = input == WindowInput::kRawPixels;
  if (packedRows && input != WindowInput::kChannelTiles)
    return hal::fail("packed rows: channel tiles only");
  if (raw ? !rawWindowApplies(s, options.npu) : !windowApplies(s, options.npu, packedRows))
    return hal::fail("window: does not apply");
  if (dwUnit && !dwconvApplies(s, options.npu)) return hal::fail("dwconv: does not apply");
  // DWCONV's lanes run along one output row (lane i at i*sw pixel vectors).
  const bool pointwise = isPointwise(s) && !dwUnit;
  // Fused halves: a depthwise layer's rows into INP (reading the expanded tensor there with
  // `expanded`), a pointwise layer's A from INP, or an expansion layer's rows into INP.
  const bool padded = fused && fused->expanded.pitch != 0;
  const bool intoPadded = padded && !dwUnit, dwFromPadded = padded && dwUnit;
  // A pointwise half of a chain (lowerFusedChain) does both: A from the tensor, its rows
  // into the next depthwise layer's padded input.
  const bool intoInp = fused && dwUnit,
             fromInp = fused && !dwUnit && (!intoPadded || fused->tensor.tileStride != 0);
  if (fromInp && (!pointwise || raw || packedRows))
    return hal::fail("fused: a pointwise layer over channel tiles reads INP");
  if (intoPadded && packedRows) return hal::fail("fused: packed rows do not go into INP");
  if ((fused || after) && s.eb() != 1) return hal::fail("fused: 8-bit layers only");
  if (after && fused && (!fromInp || fused->eltwiseInp.bytes == 0))
    return hal::fail(
        "fused: an elementwise operation after a whole layer, or after a pointwise half with "
        "INP for its rows");
  // Packed rows (packedWidth): lanes across output rows, wv per row.
  const bool packed = packedRows;
  const uint32_t wv = packed ? packedWidth(s) : 0;
  // Elements per pixel vector: a channel tile, or a raw pixel's channels; a raw filter row
  // as `rawRow.taps` vectors of `rawRow.group` pixels (fwEff pixels, the last past fw
  // weighted by the filter zero point).
  const uint32_t vecElems = raw ? g.inC : C;
  const RawRow rawRow = raw ? rawRowOf(s) : RawRow{};
  const uint32_t fwEff = raw && !pointwise ? rawRow.width() : s.fw;
  // Input channel tiles per output channel tile (its group's channels, tile-aligned).
  const uint32_t inTiles = raw ? 1 : (g.inC + C - 1) / C;
  std::vector<uint32_t> uLo(s.Q), uHi(s.Q), tileGroup(s.Q), tileDepth(s.Q), groupU;
  // A k step: a (tap, channel) of a window GEMM; a tap of all C channels for DWCONV, whose
  // weights are then fh*fw vectors of C per channel tile. A DWCONV's A piece is its fh
  // filter rows' spans of pixel vectors, so the engine sizes it at a filter row's span over
  // fw taps per k step (aElemsPerK): fh * fw * that >= fh spans of C bytes.
  const uint32_t kUnit = dwUnit ? s.fh * s.fw : s.fh * fwEff * vecElems;
  const uint32_t dwSpan = (R - 1) * s.sw + (s.fw - 1) * s.dw + 1;
  const uint32_t dwElemsPerK = (dwSpan * C + s.fw - 1) / s.fw;
  for (uint32_t q = 0; q < s.Q; ++q) {
    uLo[q] = raw ? 0 : s.tileIcLo[q] / C;
    uHi[q] = raw ? 1 : (s.tileIcLo[q] + s.tileIcCount[q] + C - 1) / C;
    tileDepth[q] = (uHi[q] - uLo[q]) * kUnit;
    const bool same = q > 0 && uLo[q] == uLo[q - 1] && uHi[q] == uHi[q - 1];
    if (!same) groupU.push_back(uLo[q]);
    tileGroup[q] = static_cast<uint32_t>(groupU.size() - 1);
  }
  if (uint64_t{inTiles} * s.fh > 4095) return hal::fail("window: more than 4095 outer taps");
  // Weights per channel tile: rows (u, fy, fx, c), columns the tile's output channels; the
  // filter zero point wherever a column does not read that input channel.
  std::vector<uint64_t> wOffset(s.Q + 1, 0);
  for (uint32_t q = 0; q < s.Q; ++q) wOffset[q + 1] = wOffset[q] + uint64_t{tileDepth[q]} * C;
  std::vector<uint8_t> weights(wOffset[s.Q], s.filterFill);
  // DWCONV's weights: per tile the (fy, fx) vectors of C channels.
  for (uint32_t q = 0; q < s.Q && dwUnit; ++q)
    for (uint32_t fy = 0; fy < s.fh; ++fy)
      for (uint32_t fx = 0; fx < s.fw; ++fx)
        for (uint32_t j = 0; j < C && q * C + j < g.outC; ++j)
          weights[wOffset[q] + (uint64_t{fy} * s.fw + fx) * C + j] =
              filterAt(s, q * C + j, fy, fx, q * C + j);
  // Raw pixels: rows (fy, fx, ic), the filter's own order (fx < fwEff; past fw the fill).
  for (uint32_t q = 0; q < s.Q && raw; ++q)
    for (uint32_t fy = 0; fy < s.fh; ++fy)
      for (uint32_t fx = 0; fx < s.fw; ++fx)
        for (uint32_t ic = 0; ic < g.inC; ++ic)
          for (uint32_t j = 0; j < C && q * C + j < g.outC; ++j)
            weights[wOffset[q] + ((uint64_t{fy} * fwEff + fx) * g.inC + ic) * C + j] =
                filterAt(s, q * C + j, fy, fx, ic);
  for (uint32_t q = 0; q < s.Q && !dwUnit && !raw; ++q)
    for (uint32_t u = uLo[q]; u < uHi[q]; ++u)
      for (uint32_t fy = 0; fy < s.fh; ++fy)
        for (uint32_t fx = 0; fx < s.fw; ++fx)
          for (uint32_t c = 0; c < C; ++c) {
            const uint32_t ic = u * C + c;
            const uint64_t t = ((uint64_t{u - uLo[q]} * s.fh + fy) * s.fw + fx) * C + c;
            for (uint32_t j = 0; j < C; ++j) {
              const uint32_t oc = q * C + j;
              if (oc >= g.outC || ic >= g.inC) break;
              const uint32_t first = s.cg.firstInput(oc);
              if (ic < first || ic >= first + s.cg.gi) continue;
              weights[wOffset[q] + t * C + j] = filterAt(s, oc, fy, fx, ic);
            }
          }

  const TensorLayout in = raw ? TensorLayout{} : windowInputLayout(s),
                     outLayout = channelTilesOut(s);
  StepBuilder sb(model, index);
  NNC_ASSIGN_OR_RETURN(
      auto inBuf, sb.bindInput(v.inOperand(0), in, raw ? "input (NHWC)" : "input (channel tiles)"));
  const size_t wBuf = sb.addConstant("weights", std::move(weights));
  const size_t pBuf =
      sb.addConstant("requant parameters", prmImage(g.outC, C, s.bias.data(), s.mult, s.shift));
  // An elementwise operation after: its other operand, in the output's layout, and its
  // parameters; the step's output is its output.
  size_t otherBuf = 0, recordBuf = 0;
  if (after) {
    NNC_ASSIGN_OR_RETURN(
        otherBuf,
        sb.bindInput(after->other, outLayout, "input of the " + after->name + " (channel tiles)"));
    recordBuf = sb.addConstant(after->name + " parameters", after->record);
  }
  const size_t oBuf = sb.bindOutput(after ? after->output : v.outOperand(0), outLayout,
                                    outLayout.deviceBytes(s.pixels() * g.outC * eb),
                                    after ? after->name + " output" : "output");
  NNC_TRY(sb.layout());
  const uint64_t inBase = sb.address(inBuf), outBase = sb.address(oBuf);
  const uint64_t inPixels = uint64_t{g.batches} * g.inH * g.inW, vb = uint64_t{vecElems} * eb;
  const uint64_t tileBytes = inPixels * vb;  // one input channel tile in DRAM
  const uint32_t perRow = (g.outW + R - 1) / R;
  const uint64_t totalRows = s.pixels();

  // Packed rows: the lanes over all output rows, wv per row but the last's junk.
  const uint64_t virtualRows = packed ? (uint64_t{g.batches} * g.outH - 1) * wv + g.outW : 0;
  // A fused step's block of output rows [rowFirst, rowEnd) (all of them otherwise), its
  // pixels from pixelBase on: where the INP tensor between the halves starts.
  const uint64_t rowFirst = fused ? fused->rowFirst : 0;
  const uint64_t rowEnd =
      fused && fused->rowCount ? rowFirst + fused->rowCount : uint64_t{g.batches} * g.outH;
  const uint64_t pixelBase = rowFirst * g.outW, pixelEnd = rowEnd * g.outW;
  if (pointwise && pixelBase % R != 0 && !intoPadded)
    return hal::fail("fused: a block must start on a row tile (pixel ", pixelBase, ")");
  // Pointwise row tiles are R pixels from the block's first on (an expansion half's block
  // starts on an image row, not always on a multiple of R).
  const uint64_t pwShift = pixelBase % R;
  // Row tile p: its first output pixel (raster order) and its lanes.
  auto firstPixel = [=](uint32_t p) -> uint64_t {
    return pointwise ? uint64_t{p} * R + pwShift
                     : uint64_t{p / perRow} * g.outW + uint64_t{p % perRow} * R;
  };
  GemmProblem prob;
  prob.weightImage = sb.address(wBuf);
  prob.firstRowTile = static_cast<uint32_t>(pointwise ? pixelBase / R : rowFirst * perRow);
  prob.rowTiles = static_cast<uint32_t>(pointwise ? (pixelEnd - pixelBase + R - 1) / R
                                        : packed  ? (virtualRows + R - 1) / R
                                                  : (rowEnd - rowFirst) * perRow);
  prob.rowsOf = [=](uint32_t p) {
    return static_cast<uint32_t>(pointwise ? std::min<uint64_t>(R, pixelEnd - firstPixel(p))
                                 : packed  ? std::min<uint64_t>(R, virtualRows - uint64_t{p} * R)
                                           : std::min(R, g.outW - (p % perRow) * R));
  };
  auto rowsOf = prob.rowsOf;
  // The span (pixel vectors) of row tile p's input along its row, and its INP row pitch.
  auto spanOf = [=](uint32_t p) {
    return pointwise ? R : packed ? packedSpan(s) : (rowsOf(p) - 1) * s.sw + (fwEff - 1) * s.dw + 1;
  };
  const std::vector<uint32_t> groupFirstU = groupU;
  // Where each DWCONV's filter rows are, per (row tile, A group): its first row's address
  // and the INP bytes between its filter rows (loadA records them, gemms reads them).
  auto dwRows =
      std::make_shared<std::map<std::pair<uint32_t, uint32_t>, std::pair<uint32_t, uint32_t>>>();
  // inpRowsLoad with the input zero point as the fill.
  const uint8_t inputFill = s.inputFill;
  auto inpLoad = [inputFill](bool fill, uint64_t dram, uint32_t buf, uint64_t rowBytes,
                             uint32_t rows, uint64_t dramStride1, uint32_t bufStride1,
                             uint32_t planes, uint64_t dramStride2, uint32_t bufStride2) {
    return inpRowsLoad(fill, inputFill, dram, buf, rowBytes, rows, dramStride1, bufStride1, planes,
                       dramStride2, bufStride2);
  };
  // One piece on its own: per input channel tile of the chunk and filter row, the span of
  // pixel vectors the row tile reads (3-D DMAs over tiles, filter rows and pixels).
  auto loadPiece = [=](const APiece& a, std::vector<firmware::DmaLoad>& out) {
    {
      const uint32_t u0 = groupFirstU[a.g] + a.k0 / kUnit, nu = (a.k1 - a.k0) / kUnit;
      const uint32_t m = rowsOf(a.p);
      auto dma = [&](bool fill, uint64_t dram, uint32_t buf, uint64_t rowBytes, uint32_t rows,
                     uint64_t dramStride1, uint32_t bufStride1, uint32_t bufStride2) {
        out.push_back(inpLoad(fill, dram, buf, rowBytes, rows, dramStride1, bufStride1, nu,
                              tileBytes, bufStride2));
      };
      if (packed) {
        // The output rows the tile's lanes touch: padded pixel X of row rr at
        // ((rr - rr0) * wv - x0) * sw + X vectors, per filter row `pitch` apart and per
        // channel tile fh pitches apart; only the pixels its real lanes read.
        const uint64_t v0 = uint64_t{a.p} * R, v1 = v0 + m - 1;
        const uint32_t pitch = static_cast<uint32_t>(packedSpan(s) * vb);
        const uint32_t tilePitch = s.fh * pitch;
        for (uint64_t rr = v0 / wv; rr <= v1 / wv; ++rr) {
          const uint64_t xa = std::max(v0, rr * wv) - rr * wv;
          if (xa >= g.outW) continue;  // junk lanes only
          const uint64_t xb =
              std::min<uint64_t>(std::min(v1, rr * wv + wv - 1) - rr * wv, g.outW - 1);
          const uint64_t b = rr / g.outH, oy = rr % g.outH;
          // Padded pixels [Xa, Xb] of the row; the input's [ixa, ixb) of them inside it.
          const int64_t Xa = static_cast<int64_t>(xa * s.sw);
          const int64_t Xb = static_cast<int64_t>(xb * s.sw + uint64_t{s.fw - 1} * s.dw);
          const int64_t ixa = std::max<int64_t>(0, Xa - g.padLeft);
          const int64_t ixb = std::min<int64_t>(g.inW, Xb - g.padLeft + 1);
          const uint32_t base = a.inpAddr + static_cast<uint32_t>(((rr * wv - v0) * s.sw) * vb);
          auto at = [&](int64_t X) { return base + static_cast<uint32_t>(X * vb); };
          uint32_t fa = s.fh, fb = s.fh;
          for (uint32_t fy = 0; fy < s.fh; ++fy) {
            const int64_t iy = int64_t(oy) * s.sh + int64_t{fy} * s.dh - g.padTop;
            if (iy >= 0 && iy < g.inH) {
              if (fa == s.fh) fa = fy;
              fb = fy + 1;
            }
          }
          const uint64_t rowBytes = static_cast<uint64_t>(Xb - Xa + 1) * vb;
          if (fa == s.fh || ixa >= ixb) {  // the rows' pixels all in the padding
            dma(true, 0, at(Xa), rowBytes, s.fh, 0, pitch, tilePitch);
            continue;
          }
          const int64_t iyA = int64_t(oy) * s.sh + int64_t{fa} * s.dh - g.padTop;
          dma(false, inBase + u0 * tileBytes + ((b * g.inH + iyA) * g.inW + ixa) * vb,
              at(ixa + g.padLeft) + fa * pitch, static_cast<uint64_t>(ixb - ixa) * vb, fb - fa,
              uint64_t{s.dh} * g.inW * vb, pitch, tilePitch);
          if (ixa + g.padLeft > Xa)
            dma(true, 0, at(Xa) + fa * pitch, static_cast<uint64_t>(ixa + g.padLeft - Xa) * vb,
                fb - fa, 0, pitch, tilePitch);
          if (ixb + g.padLeft <= Xb)
            dma(true, 0, at(ixb + g.padLeft) + fa * pitch,
                static_cast<uint64_t>(Xb - ixb - g.padLeft + 1) * vb, fb - fa, 0, pitch, tilePitch);
          if (fa > 0) dma(true, 0, at(Xa), rowBytes, fa, 0, pitch, tilePitch);
          if (fb < s.fh)
            dma(true, 0, at(Xa) + fb * pitch, rowBytes, s.fh - fb, 0, pitch, tilePitch);
        }
        return;
      }
      if (pointwise) {
        // Tile u's m vectors are adjacent in DRAM; in INP tiles are R vectors apart.
        dma(false, inBase + u0 * tileBytes + firstPixel(a.p) * vb, a.inpAddr, m * vb, 1, 0, 0,
            static_cast<uint32_t>(R * vb));
        return;
      }
      const uint32_t row = a.p / perRow, b = row / g.outH, oy = row % g.outH;
      const int64_t ix0 = int64_t{a.p % perRow} * R * s.sw - g.padLeft;
      const uint32_t span = spanOf(a.p), pitch = static_cast<uint32_t>(span * vb);
      const int64_t xa = std::max<int64_t>(0, ix0),
                    xb = std::min<int64_t>(g.inW, ix0 + int64_t{span});
      // Filter rows inside the image: a contiguous range [fa, fb).
      uint32_t fa = s.fh, fb = s.fh;
      for (uint32_t fy = 0; fy < s.fh; ++fy) {
        const int64_t iy = int64_t{oy} * s.sh + int64_t{fy} * s.dh - g.padTop;
        if (iy >= 0 && iy < g.inH) {
          if (fa == s.fh) fa = fy;
          fb = fy + 1;
        }
      }
      const uint32_t tilePitch = s.fh * pitch;
      (*dwRows)[{a.p, a.g}] = {a.inpAddr, pitch};
      if (fa == s.fh || xa >= xb) {  // the whole window in the padding
        dma(true, 0, a.inpAddr, pitch, s.fh, 0, pitch, tilePitch);
        return;
      }
      const int64_t iyA = int64_t{oy} * s.sh + int64_t{fa} * s.dh - g.padTop;
      dma(false, inBase + u0 * tileBytes + ((uint64_t{b} * g.inH + iyA) * g.inW + xa) * vb,
          a.inpAddr + fa * pitch + static_cast<uint32_t>((xa - ix0) * vb),
          static_cast<uint64_t>(xb - xa) * vb, fb - fa, uint64_t{s.dh} * g.inW * vb, pitch,
          tilePitch);
      if (xa > ix0)
        dma(true, 0, a.inpAddr + fa * pitch, static_cast<uint64_t>(xa - ix0) * vb, fb - fa, 0,
            pitch, tilePitch);
      if (ix0 + span > xb)
        dma(true, 0, a.inpAddr + fa * pitch + static_cast<uint32_t>((xb - ix0) * vb),
            static_cast<uint64_t>(ix0 + span - xb) * vb, fb - fa, 0, pitch, tilePitch);
      if (fa > 0) dma(true, 0, a.inpAddr, pitch, fa, 0, pitch, tilePitch);
      if (fb < s.fh) dma(true, 0, a.inpAddr + fb * pitch, pitch, s.fh - fb, 0, pitch, tilePitch);
    }
  };
  // DWCONV's rows shared: the row tiles of one column block on consecutive output rows read
  // overlapping input rows (all but sh of fh for each next output row), so a step loads each
  // input row of a block once, the blocks of an A group one after the other in its pieces'
  // INP region (a DWCONV addresses its filter rows dh rows apart there); a group whose rows
  // would not fit loads piece by piece.
  const uint64_t pieceBytes = uint64_t{s.fh} * s.fw * dwElemsPerK * eb;  // the engine's A piece
  auto loadShared = [=](const std::vector<APiece>& pieces, std::vector<firmware::DmaLoad>& out) {
    // The padding fills after the data loads (they write other bytes of the slot), so the
    // blocks of consecutive A groups (channel tiles) merge into plane runs, the data loads
    // and the fills each.
    std::vector<firmware::DmaLoad> fills;
    for (size_t i = 0; i < pieces.size();) {
      size_t j = i + 1;
      while (j < pieces.size() && pieces[j].g == pieces[i].g &&
             pieces[j].inpAddr == pieces[j - 1].inpAddr + pieceBytes)
        ++j;
      // Pieces [i, j): one A group, contiguous in INP. Its blocks: (batch, column block) ->
      // first and last output row; `whole`: every column block of those rows at once.
      struct Block {
        uint32_t b, blk, oyA, oyB, span;
        bool whole = false;
      };
      std::vector<Block> blocks;
      for (size_t k = i; k < j; ++k) {
        const uint32_t row = pieces[k].p / perRow, b = row / g.outH, oy = row % g.outH,
                       blk = pieces[k].p % perRow;
        auto it = std::find_if(blocks.begin(), blocks.end(),
                               [&](const Block& x) { return x.b == b && x.blk == blk; });
        if (it == blocks.end())
          blocks.push_back({b, blk, oy, oy, spanOf(pieces[k].p)});
        else
          it->oyB = oy;
      }
      // Whole input rows when the pieces cover every column block of the same output rows
      // (per batch): the blocks' overlapping columns load once, in rows as long as the
      // image's (DRAM rows of W*C bytes instead of a block's span).
      if (perRow > 1 && blocks.size() % perRow == 0) {
        std::vector<Block> rows;
        bool whole = true;
        for (const Block& x : blocks) {
          auto it =
              std::find_if(rows.begin(), rows.end(), [&](const Block& y) { return y.b == x.b; });
          if (it == rows.end()) {
            rows.push_back(
                {x.b, 0, x.oyA, x.oyB, (g.outW - 1) * s.sw + (s.fw - 1) * s.dw + 1, true});
          } else if (it->oyA != x.oyA || it->oyB != x.oyB) {
            whole = false;
          }
        }
        if (whole && rows.size() * perRow == blocks.size()) blocks = std::move(rows);
      }
      uint64_t need = 0;
      for (const Block& x : blocks)
        need += (uint64_t{x.oyB - x.oyA} * s.sh + uint64_t{s.fh - 1} * s.dh + 1) * x.span * vb;
      if (need > (j - i) * pieceBytes) {
        for (size_t k = i; k < j; ++k) loadPiece(pieces[k], out);
        i = j;
        continue;
      }
      const uint32_t u0 = groupFirstU[pieces[i].g] + pieces[i].k0 / kUnit;
      uint32_t at = pieces[i].inpAddr;
      auto dma = [&](bool fill, uint64_t dram, uint32_t buf, uint64_t rowBytes, uint32_t rows,
                     uint32_t pitch) {
        appendCoalesced(fill ? fills : out, inpLoad(fill, dram, buf, rowBytes, rows,
                                                    uint64_t{g.inW} * vb, pitch, 1, 0, 0));
      };
      for (const Block& x : blocks) {
        const uint32_t pitch = static_cast<uint32_t>(x.span * vb);
        const uint32_t rows = (x.oyB - x.oyA) * s.sh + (s.fh - 1) * s.dh + 1;
        const int64_t iy0 = int64_t{x.oyA} * s.sh - g.padTop;
        const int64_t ix0 = int64_t{x.blk} * R * s.sw - g.padLeft;
        const int64_t ya = std::max<int64_t>(0, iy0),
                      yb = std::min<int64_t>(g.inH, iy0 + int64_t{rows});
        const int64_t xa = std::max<int64_t>(0, ix0),
                      xb = std::min<int64_t>(g.inW, ix0 + int64_t{x.span});
        if (ya >= yb || xa >= xb) {
          dma(true, 0, at, pitch, rows, pitch);
        } else {
          const uint32_t top = static_cast<uint32_t>(ya - iy0),
                         valid = static_cast<uint32_t>(yb - ya);
          dma(false, inBase + u0 * tileBytes + ((uint64_t{x.b} * g.inH + ya) * g.inW + xa) * vb,
              at + top * pitch + static_cast<uint32_t>((xa - ix0) * vb),
              static_cast<uint64_t>(xb - xa) * vb, valid, pitch);
          if (xa > ix0)
            dma(true, 0, at + top * pitch, static_cast<uint64_t>(xa - ix0) * vb, valid, pitch);
          if (ix0 + x.span > xb)
            dma(true, 0, at + top * pitch + static_cast<uint32_t>((xb - ix0) * vb),
                static_cast<uint64_t>(ix0 + x.span - xb) * vb, valid, pitch);
          if (top > 0) dma(true, 0, at, pitch, top, pitch);
          if (top + valid < rows)
            dma(true, 0, at + (top + valid) * pitch, pitch, rows - top - valid, pitch);
        }
        for (size_t k = i; k < j; ++k) {
          const uint32_t row = pieces[k].p / perRow, blk = pieces[k].p % perRow;
          if (row / g.outH != x.b || (!x.whole && blk != x.blk)) continue;
          // A whole row's column block starts blk * R lanes of sw pixel vectors in.
          const uint32_t col = x.whole ? static_cast<uint32_t>(uint64_t{blk} * R * s.sw * vb) : 0;
          (*dwRows)[{pieces[k].p, pieces[k].g}] = {at + (row % g.outH - x.oyA) * s.sh * pitch + col,
                                                   s.dh * pitch};
        }
        at += rows * pitch;
      }
      i = j;
    }
    out.insert(out.end(), fills.begin(), fills.end());
  };
  if (fromInp || dwFromPadded) {
    prob.loadA = [](const std::vector<APiece>&, std::vector<firmware::DmaLoad>&) {};
  } else if (dwUnit && !pointwise) {
    prob.loadA = loadShared;
  } else {
    // Row tiles after one another in DRAM and INP load as one command (load_coalescing.h).
    prob.loadA = [=](const std::vector<APiece>& pieces, std::vector<firmware::DmaLoad>& out) {
      std::vector<firmware::DmaLoad> piece;
      for (const APiece& a : pieces) {
        piece.clear();
        loadPiece(a, piece);
        for (const firmware::DmaLoad& d : piece) appendCoalesced(out, d);
      }
    };
  }
  prob.gemms = [=](uint32_t p, uint32_t q, uint32_t k0, uint32_t k1, uint32_t inpAddr,
                   uint32_t wgtAddr, const firmware::Gemm& proto,
                   std::vector<firmware::CommandArgs>& out) {
    if (dwUnit) {
      firmware::Dwconv w;
      w.aSigned = proto.aSigned;
      w.bSigned = proto.bSigned;
      w.accumulate = proto.accumulate;
      w.m = proto.m;
      w.n = proto.n;
      // Where loadA put its filter rows (p's piece, or its block's shared rows).
      const auto at = dwRows->find({p, tileGroup[q]});
      w.inpAddr = at != dwRows->end() ? at->second.first : inpAddr;
      w.rowStride = at != dwRows->end() ? at->second.second : static_cast<uint32_t>(spanOf(p) * vb);
      if (dwFromPadded) {
        // Its first filter row's first pixel in the expanded tensor: padded row
        // oy * sh - padTop - rowOrigin, column blk * R * sw (column 0 is -padLeft).
        const PaddedInp& x = fused->expanded;
        const uint32_t row = p / perRow, blk = p % perRow;
        const int64_t xr = int64_t{row % g.outH} * s.sh - g.padTop - x.rowOrigin;
        const uint32_t u = groupFirstU[tileGroup[q]] + k0 / kUnit;
        w.inpAddr = x.base + u * x.tileStride + static_cast<uint32_t>(xr) * x.pitch +
                    static_cast<uint32_t>(uint64_t{blk} * R * s.sw * vb);
        w.rowStride = s.dh * x.pitch;
      }
      w.fh = s.fh;
      w.fw = s.fw;
      w.sw = s.sw;
      w.dw = s.dw;
      w.wgtAddr = wgtAddr;
      w.accAddr = proto.accAddr;
      w.aZp = proto.aZp;
      w.bZp = proto.bZp;
      out.push_back(w);
      return;
    }
    firmware::Gemm gm = proto;
    gm.inpAddr = inpAddr;
    gm.wgtAddr = wgtAddr;
    gm.k = k1 - k0;
    gm.window = true;
    // Raw pixels: a filter row's pixels are `rawRow.taps` vectors of `group` pixels.
    const bool rowVector = raw && !pointwise;
    gm.vec = rowVector ? rawRow.group * vecElems : vecElems;
    gm.taps = rowVector ? rawRow.taps : s.fw;
    gm.tiles = (k1 - k0) / (gm.vec * gm.taps);
    gm.laneStride = static_cast<uint32_t>((pointwise ? 1 : s.sw) * vb);
    gm.tapStride = gm.taps > 1 ? static_cast<uint32_t>((rowVector ? rawRow.group : s.dw) * vb) : 0;
    gm.tileStride = static_cast<uint32_t>((pointwise ? R : spanOf(p)) * vb);
    if (fromInp) {
      // Row tile p's pixels in the INP tensor's channel tiles, from the chunk's first.
      const uint32_t u0 = groupFirstU[tileGroup[q]] + k0 / kUnit;
      gm.inpAddr = fused->tensor.base + u0 * fused->tensor.tileStride +
                   static_cast<uint32_t>((firstPixel(p) - pixelBase) * vb);
      gm.tileStride = fused->tensor.tileStride;
    }
    out.push_back(gm);
  };
  if (intoInp)
    prob.requantInp = [=](uint32_t p0, uint32_t q) {
      return fused->tensor.base + q * fused->tensor.tileStride +
             static_cast<uint32_t>((firstPixel(p0) - pixelBase) * C);
    };
  if (intoPadded) {
    // The step's pixels, image row by image row, between the expanded tensor's padding
    // columns (its rows wider than the image's by them).
    const PaddedInp x = fused->expanded;
    prob.requantInpRuns = [=](uint32_t p0, uint32_t rows, uint32_t q,
                              const GemmProblem::RunVisitor& visit) {
      const uint64_t px0 = firstPixel(p0);
      for (uint64_t px = px0; px < px0 + rows;) {
        const uint64_t y = px / g.outW, xcol = px % g.outW;
        const uint64_t n = std::min<uint64_t>(g.outW - xcol, px0 + rows - px);
        const int64_t xr = static_cast<int64_t>(y % g.outH) - x.rowOrigin;
        visit(static_cast<uint32_t>(px - px0), static_cast<uint32_t>(n),
              x.base + q * x.tileStride + static_cast<uint32_t>(xr) * x.pitch +
                  static_cast<uint32_t>((x.padLeft + xcol) * C));
        px += n;
      }
    };
  }
  // A step's `rows` lanes from row tile p0 on as runs of output pixels, visit(first pixel,
  // pixels, first lane): one run in raster order; with packed rows the lanes are output
  // rows' real pixels and junk, a run per output row of its real ones.
  auto forEachRun = [=](uint32_t p0, uint32_t rows, const auto& visit) {
    if (!packed) {
      visit(firstPixel(p0), rows, 0u);
      return;
    }
    const uint64_t v0 = uint64_t{p0} * R, v1 = v0 + rows;
    for (uint64_t rr = v0 / wv; rr * wv < v1; ++rr) {
      const uint64_t a = std::max(v0, rr * wv), e = std::min(v1, rr * wv + g.outW);
      if (a < e)
        visit(rr * g.outW + (a - rr * wv), static_cast<uint32_t>(e - a),
              static_cast<uint32_t>(a - v0));
    }
  };
  prob.storeOut = [=](uint32_t p0, uint32_t, uint32_t q0, uint32_t q1, uint32_t rows,
                      uint32_t outAddr, std::vector<firmware::DmaStore>& out) {
    forEachRun(p0, rows, [&](uint64_t px0, uint32_t n, uint32_t lane) {
      storeChannelTiles(outBase, totalRows, px0, n, q0, q1, C, outAddr + lane * C * eb, out, eb,
                        rows);
    });
  };
  GemmSpec spec = baseSpec(s);
  if (after) {
    // The other operand's rows: the rows storeOut stores, read from its channel tiles.
    const uint64_t otherBase = sb.address(otherBuf);
    EltwiseEpilogue e;
    e.proto = after->proto;
    e.prmImage = static_cast<uint32_t>(sb.address(recordBuf));
    if (fused) e.inp = fused->eltwiseInp;
    e.loadOther = [=](uint32_t p0, uint32_t, uint32_t q0, uint32_t q1, uint32_t rows,
                      uint32_t wgtAddr, std::vector<firmware::DmaLoad>& out) {
      forEachRun(p0, rows, [&](uint64_t px0, uint32_t n, uint32_t lane) {
        channelTilesDma(firmware::Buffer::kWgt, otherBase, totalRows, px0, n, q0, q1, C,
                        wgtAddr + lane * C, out, 1, rows);
      });
    };
    spec.eltwise = std::move(e);
  }
  spec.tileDepth = tileDepth;
  spec.tileGroup = tileGroup;
  spec.kUnit = kUnit;
  spec.aElemsPerK = dwUnit ? dwElemsPerK : packed ? (packedSpan(s) + s.fw - 1) / s.fw : 0;
  spec.prmImage = sb.address(pBuf);
  if (fused) {
    spec.inpWindow = fused->inp;
    spec.wgtWindow = fused->wgt;
    spec.prmWindow = fused->prm;
    spec.accWindow = fused->acc;
    spec.weightsOnce = fused->weightsOnce;
    spec.splitWeights = fused->splitWeights;
  }
  spec.problems.push_back(std::move(prob));
  std::string mapping =
      std::string(dwUnit ? "DWCONV on the depthwise unit (ISA 1.6" : "window GEMM (ISA 1.5") +
      (raw ? ", A formed on the NPU from the NHWC pixels"
           : ", A formed on the NPU from channel tiles") +
      (pointwise ? ", pointwise)"
       : packed  ? ", packed rows: " + std::to_string(g.outW) + " of " + std::to_string(wv) +
                      " lanes per output row)"
                : ", a row tile per output row)") +
      mappingSuffix(s);
  if (s.kind == ConvKind::kDepthwise && !dwUnit)
    mapping += ", block-diagonal depthwise tiles (" + std::to_string(std::min(C, g.outC)) +
               " channels per GEMM)";
  if (s.wide) mapping += ", 16x8 (int16 x int8, acc64)";
  if (after)
    mapping += "; its rows into INP (REQUANT_STORE to_inp, ISA 1.9), then " + after->name +
               " with the other input's rows on the elementwise unit (ELTWISE, ISA 1.7)";
  return finish(model, sb, spec, options, mapping);
}

// ---------------------------------------------------------------------------------------
// Output blocks (depthwise: one input channel per group).

struct BlockShape {
  uint32_t by = 4, bx = 4, wy = 0, wx = 0;
  uint64_t cost = 0;
};

hal::Result<CompiledStep> lowerBlocks(const hal::Model& model, uint32_t index, const OpView& v,
                                      const LoweringOptions& options, const ConvSetup& s,
                                      const BlockShape& bs) {
  const ops::conv::ConvGeometry& g = s.g;
  const uint32_t R = s.R, C = s.C;
  if (s.cg.gi != 1 || bs.by * bs.bx != C)
    return hal::fail("output blocks need one input channel per group");
  const uint32_t k = bs.wy * bs.wx;
  const uint32_t M = s.cg.go;  // outputs per input channel

  TensorLayout in = gatheredInputLayout(s, TensorLayout::Kind::kBlockInput);
  in.blockH = bs.by;
  in.blockW = bs.bx;
  in.windowH = bs.wy;
  in.windowW = bs.wx;
  const uint32_t eb = s.eb();
  TensorLayout outLayout = in;
  outLayout.kind = TensorLayout::Kind::kBlockOutput;
  outLayout.channels = g.outC;
  outLayout.laneTile = C;
  const uint64_t blocks = in.blocksPerImage(), tpi = in.blockTiles();
  const uint64_t outputBytes = s.pixels() * g.outC * eb;

  // Weights: per output channel a Toeplitz band [(v, u)][(dy, dx)].
  std::vector<uint8_t> weights(uint64_t{g.outC} * k * C, s.filterFill);
  for (uint32_t oc = 0; oc < g.outC; ++oc) {
    const uint32_t ic = s.cg.firstInput(oc);
    uint8_t* w = weights.data() + uint64_t{oc} * k * C;
    for (uint32_t dy = 0; dy < bs.by; ++dy)
      for (uint32_t dx = 0; dx < bs.bx; ++dx)
        for (uint32_t fy = 0; fy < s.fh; ++fy)
          for (uint32_t fx = 0; fx < s.fw; ++fx) {
            const uint32_t vv = dy * s.sh + fy * s.dh, uu = dx * s.sw + fx * s.dw;
            w[(uint64_t{vv} * bs.wx + uu) * C + dy * bs.bx + dx] = filterAt(s, oc, fy, fx, ic);
          }
  }
  // PRM: per output channel the bias in every lane (C int32), then its multiplier and shift
  // (an int32 each; 8-byte aligned entries).
  const uint32_t kMultAt = 4 * C, kShiftAt = kMultAt + 4, kPrmEntry = kMultAt + 8;
  std::vector<uint8_t> prm(uint64_t{g.outC} * kPrmEntry, 0);
  for (uint32_t oc = 0; oc < g.outC; ++oc) {
    for (uint32_t j = 0; j < C; ++j) putI32(prm, uint64_t{oc} * kPrmEntry + 4 * j, s.bias[oc]);
    putI32(prm, uint64_t{oc} * kPrmEntry + kMultAt, s.mult[oc]);
    prm[uint64_t{oc} * kPrmEntry + kShiftAt] =
        static_cast<uint8_t>(static_cast<int8_t>(s.shift[oc]));
  }

  StepBuilder sb(model, index);
  NNC_ASSIGN_OR_RETURN(auto inBuf, sb.bindInput(v.inOperand(0), in, "input (block windows)"));
  const size_t wBuf = sb.addConstant("weights (Toeplitz bands)", std::move(weights));
  const size_t pBuf = sb.addConstant("requant parameters", std::move(prm));
  const size_t oBuf =
      sb.bindOutput(v.outOperand(0), outLayout, outLayout.deviceBytes(outputBytes), "output");
  NNC_TRY(sb.layout());
  const uint64_t inBase = sb.address(inBuf), outBase = sb.address(oBuf);

  // Row tiles: per batch, tiles of R blocks; A groups: input channels.
  const uint32_t rowTiles = static_cast<uint32_t>(g.batches * tpi);
  const uint64_t totalRows = uint64_t{g.batches} * blocks;
  GemmProblem prob;
  prob.weightImage = sb.address(wBuf);
  prob.rowTiles = rowTiles;
  prob.rowsOf = [=](uint32_t p) {
    return static_cast<uint32_t>(std::min<uint64_t>(R, blocks - (p % tpi) * R));
  };
  auto rowStart = [=](uint32_t p) { return (p / tpi) * blocks + (p % tpi) * R; };
  prob.loadA = [=](const std::vector<APiece>& pieces, std::vector<firmware::DmaLoad>& out) {
    loadContiguousPieces(
        pieces, R * eb,
        [&](const APiece& a) {
          return inBase + ((uint64_t{a.g} * rowTiles + a.p) * k + a.k0) * R * eb;
        },
        out);
  };
  prob.storeOut = [=](uint32_t p0, uint32_t, uint32_t q0, uint32_t q1, uint32_t rows,
                      uint32_t outAddr, std::vector<firmware::DmaStore>& out) {
    storeChannelTiles(outBase, totalRows, rowStart(p0), rows, q0, q1, C, outAddr, out, eb);
  };

  GemmSpec spec = baseSpec(s);
  spec.channels = g.outC * C;  // every tile uses all C columns
  spec.tileDepth.assign(g.outC, k);
  spec.tileGroup.resize(g.outC);
  for (uint32_t oc = 0; oc < g.outC; ++oc) spec.tileGroup[oc] = oc / M;
  spec.kUnit = 1;
  spec.prmImage = sb.address(pBuf);
  spec.prmTile = kPrmEntry;
  spec.multOffset = kMultAt;
  spec.shiftOffset = kShiftAt;
  spec.perChannel = false;  // one channel per GEMM: its multiplier for every column
  spec.problems.push_back(std::move(prob));
  const std::string mapping = "output blocks " + std::to_string(bs.by) + "x" +
                              std::to_string(bs.bx) +
                              " (one channel per GEMM, Toeplitz weights, window " +
                              std::to_string(bs.wy) + "x" + std::to_string(bs.wx) + ")" +
                              mappingSuffix(s) + (s.wide ? ", 16x8 (int16 x int8, acc64)" : "");
  return finish(model, sb, spec, options, mapping);
}

// The block shape with the fewest GEMM cycles + requantized rows per channel.
BlockShape bestBlockShape(const ConvSetup& s) {
  BlockShape best;
  bool found = false;
  for (uint32_t by : {1u, 2u, 4u, 8u, 16u}) {
    const uint32_t bx = s.C / by;
    if (by * bx != s.C) continue;
    BlockShape b;
    b.by = by;
    b.bx = bx;
    b.wy = (by - 1) * s.sh + (s.fh - 1) * s.dh + 1;
    b.wx = (bx - 1) * s.sw + (s.fw - 1) * s.dw + 1;
    const uint64_t blocks = uint64_t{(s.g.outH + by - 1) / by} * ((s.g.outW + bx - 1) / bx);
    const uint64_t tiles = (blocks + s.R - 1) / s.R;
    // Per tile: a GEMM of k = window (at least the array's GEMM spacing, max(R, C), cycles)
    // and R requantized rows.
    const uint64_t k = uint64_t{b.wy} * b.wx;
    b.cost = tiles * (std::max<uint64_t>(k, std::max(s.R, s.C)) + 1 + s.R);
    if (!found || b.cost < best.cost) best = b, found = true;
  }
  return best;
}

// Channel tiles and their input-channel ranges (s.g, s.C, s.cg and s.taps set); tiles
// with equal ranges share A.
void setChannelTiles(ConvSetup& s) {
  const ops::conv::ConvGeometry& g = s.g;
  s.Q = (g.outC + s.C - 1) / s.C;
  s.tileDepth.resize(s.Q);
  s.tileGroup.resize(s.Q);
  s.tileIcLo.resize(s.Q);
  s.tileIcCount.resize(s.Q);
  s.groupFirstIc.clear();
  for (uint32_t q = 0; q < s.Q; ++q) {
    const uint32_t ocA = q * s.C, ocB = std::min(g.outC, ocA + s.C) - 1;
    s.tileIcLo[q] = s.cg.firstInput(ocA);
    s.tileIcCount[q] = s.cg.firstInput(ocB) + s.cg.gi - s.tileIcLo[q];
    s.tileDepth[q] = s.tileIcCount[q] * s.taps;
    const bool same =
        q > 0 && s.tileIcLo[q] == s.tileIcLo[q - 1] && s.tileIcCount[q] == s.tileIcCount[q - 1];
    if (!same) s.groupFirstIc.push_back(s.tileIcLo[q]);
    s.tileGroup[q] = static_cast<uint32_t>(s.groupFirstIc.size() - 1);
  }
}

// Everything the mappings share, from the layer's geometry (that of the equivalent
// convolution for TRANSPOSE_CONV_2D) and its operands.
hal::Result<ConvSetup> setupConv(const OpView& v, const LoweringOptions& options, ConvKind kind,
                                 const ops::conv::ConvGeometry& geometry) {
  ConvSetup s;
  s.kind = kind;
  s.g = geometry;
  const ops::conv::ConvGeometry& g = s.g;
  // The reference's own derivation: the multipliers, shifts and clamps are bit-exact by
  // construction.
  NNC_ASSIGN_OR_RETURN(auto qr,
                       ops::conv::makeConvQuantParams(v.inShape(0), v.inShape(1), &v.inShape(2),
                                                      v.outShape(0), g.activation, g.outC));
  const ops::conv::ConvQuantParams& qp = qr;
  s.R = options.npu.rows;
  s.C = options.npu.cols;
  s.cg = groupsOf(s.kind, g);
  s.fh = g.filterH;
  s.fw = g.filterW;
  s.taps = s.fh * s.fw;
  s.sh = static_cast<uint32_t>(g.strideH);
  s.sw = static_cast<uint32_t>(g.strideW);
  s.dh = static_cast<uint32_t>(g.dilationH);
  s.dw = static_cast<uint32_t>(g.dilationW);

  setChannelTiles(s);
  s.filter = v.constantBytes(1);
  s.filterFill = static_cast<uint8_t>(qp.filterZeroPoint);
  s.inputFill = static_cast<uint8_t>(qp.inputZeroPoint);
  s.bias.resize(g.outC);
  s.mult.resize(g.outC);
  s.shift.resize(g.outC);
  std::memcpy(s.bias.data(), v.constantBytes(2), size_t{g.outC} * 4);
  for (uint32_t oc = 0; oc < g.outC; ++oc) {
    s.mult[oc] = qp.multiplier(oc).multiplier;
    s.shift[oc] = qp.multiplier(oc).shift;
  }
  // Only TENSOR_QUANT8_ASYMM is unsigned (the 16x8 mode's int16 and int8 types are signed).
  s.wide = is16x8(v);
  s.aSigned = v.inShape(0).type != OperandType::TENSOR_QUANT8_ASYMM;
  s.bSigned = v.inShape(1).type != OperandType::TENSOR_QUANT8_ASYMM;
  s.aZp = qp.inputZeroPoint;
  s.bZp = qp.filterZeroPoint;
  s.perChannel = qp.perChannel();
  s.outSigned = v.outShape(0).type != OperandType::TENSOR_QUANT8_ASYMM;
  s.outZp = qp.outputZeroPoint;
  s.clampMin = qp.activationMin;
  s.clampMax = qp.activationMax;
  s.usefulMacs = s.pixels() * g.outC * s.cg.gi * s.taps;
  return s;
}

}  // namespace

hal::Result<CompiledStep> lowerConv(const hal::Model& model, uint32_t index, const OpView& v,
                                    const LoweringOptions& options) {
  const ConvKind kind = kindOf(v.op().type);
  NNC_ASSIGN_OR_RETURN(auto g, ops::conv::convGeometry(v.ctx(), kind));
  NNC_ASSIGN_OR_RETURN(auto setup, setupConv(v, options, kind, g));
  const ConvSetup& s = setup;

  // Every mapping that applies (or the one asked for), in this order; the cheapest end to
  // end: device cycles plus the host's packing and copies around the step (a
  // host-gathered mapping pays for its gather here), the earlier one on a tie.
  using M = ConvMapping;
  const M want = options.convMapping;
  struct Candidate {
    M mapping;
    std::function<hal::Result<CompiledStep>(const LoweringOptions&)> lower;
  };
  std::vector<Candidate> candidates;
  auto consider = [&](M m, std::function<hal::Result<CompiledStep>(const LoweringOptions&)> lower) {
    if (want == M::kAuto || want == m) candidates.push_back({m, std::move(lower)});
  };
  consider(M::kHostIm2col,
           [&](const LoweringOptions& o) { return lowerHostIm2col(model, index, v, o, s); });
  // The DMA-gathering mappings address bytes of 8-bit images; 16x8 layers use the
  // host-gathered ones (host im2col, output blocks).
  if (s.wide) {
    if (want == M::kDmaIm2col || want == M::kShiftedWindows)
      return hal::fail("16x8 mode: only the host-gathered mappings apply");
  } else {
    consider(M::kDmaIm2col,
             [&](const LoweringOptions& o) { return lowerGathered(model, index, v, o, s, false); });
  }
  if (windowApplies(s, options.npu))
    consider(M::kWindow, [&](const LoweringOptions& o) {
      return lowerWindow(model, index, v, o, s, WindowInput::kChannelTiles);
    });
  if (windowApplies(s, options.npu, /*packedRows=*/true))
    consider(M::kWindow, [&](const LoweringOptions& o) {
      return lowerWindow(model, index, v, o, s, WindowInput::kChannelTiles, true);
    });
  if (dwconvApplies(s, options.npu))
    consider(M::kDepthwiseUnit, [&](const LoweringOptions& o) {
      return lowerWindow(model, index, v, o, s, WindowInput::kDepthwiseUnit);
    });
  if (rawWindowApplies(s, options.npu))
    consider(M::kRawWindow, [&](const LoweringOptions& o) {
      return lowerWindow(model, index, v, o, s, WindowInput::kRawPixels);
    });
  if (!s.wide && shiftedPlan(s, options).applies)
    consider(M::kShiftedWindows,
             [&](const LoweringOptions& o) { return lowerGathered(model, index, v, o, s, true); });
  if (s.cg.gi == 1) {
    const BlockShape bs = bestBlockShape(s);
    consider(M::kOutputBlocks,
             [&, bs](const LoweringOptions& o) { return lowerBlocks(model, index, v, o, s, bs); });
  }
  // Each candidate after the first is lowered with the best cost so far as its limit: its
  // estimates stop once it cannot win (LoweringOptions::costLimit), so a hopeless mapping
  // costs about as much compile time as the best one. The order of lowering changes only
  // that time, never the choice: depthwise layers try output blocks first, which usually
  // win there and make the others' limits tight.
  std::vector<size_t> order(candidates.size());
  std::iota(order.begin(), order.end(), size_t{0});
  if (s.cg.gi == 1)
    std::stable_partition(order.begin(), order.end(),
                          [&](size_t i) { return candidates[i].mapping == M::kOutputBlocks; });
  std::optional<CompiledStep> best;
  double bestCost = 0;
  size_t bestIndex = 0;
  std::vector<std::string> errors(candidates.size());
  for (size_t i : order) {
    LoweringOptions o = options;
    // Under LOW_POWER the choice is by energy, which a cycle limit cannot bound.
    if (best && options.preference != hal::ExecutionPreference::LOW_POWER) o.costLimit = bestCost;
    hal::Result<CompiledStep> c = candidates[i].lower(o);
    if (!c.ok()) {
      errors[i] = c.error();
      continue;
    }
    // The cheapest end to end (device cycles plus the host's passes around the step: a
    // host-gathered mapping pays for its gather here); under LOW_POWER the least energy,
    // the host's DRAM bytes included.
    const double cost = options.preference == hal::ExecutionPreference::LOW_POWER
                            ? estimatedEnergyPj(model, *c, options)
                            : endToEndCycles(model, *c, options);
    if (!best || cost < bestCost || (cost == bestCost && i < bestIndex)) {
      best = std::move(*c);
      bestCost = cost;
      bestIndex = i;
    }
  }
  if (!best) {
    for (const std::string& e : errors)
      if (!e.empty()) return hal::Error{e};
    return hal::fail("no mapping applies");
  }
  return std::move(*best);
}

namespace {

// TRANSPOSE_CONV_2D's equivalent convolution (see the top of this file): stride 1, the
// input's size, pads filter - 1 - pad (right/bottom whatever makes the output size).
hal::Result<ops::conv::ConvGeometry> equivalentConv(const ops::conv::TransposeConvGeometry& t) {
  if (t.padTop > static_cast<int32_t>(t.filterH) - 1 ||
      t.padLeft > static_cast<int32_t>(t.filterW) - 1)
    return hal::fail("padding top ", t.padTop, ", left ", t.padLeft, " beyond the filter (",
                     t.filterH, "x", t.filterW,
                     " - 1): its equivalent convolution would start inside the input");
  ops::conv::ConvGeometry g;
  g.batches = t.batches;
  g.inH = t.inH;
  g.inW = t.inW;
  g.inC = t.inC;
  g.outH = t.outH;
  g.outW = t.outW;
  g.outC = t.outC;
  g.filterH = t.filterH;
  g.filterW = t.filterW;
  g.padTop = static_cast<int32_t>(t.filterH) - 1 - t.padTop;
  g.padLeft = static_cast<int32_t>(t.filterW) - 1 - t.padLeft;
  // What the output needs past the upsampled input: (in - 1) * stride + 1 rows.
  g.padBottom = static_cast<int32_t>(t.outH + t.filterH - 1) - g.padTop -
                static_cast<int32_t>((t.inH - 1) * static_cast<uint32_t>(t.strideH) + 1);
  g.padRight = static_cast<int32_t>(t.outW + t.filterW - 1) - g.padLeft -
               static_cast<int32_t>((t.inW - 1) * static_cast<uint32_t>(t.strideW) + 1);
  g.activation = t.activation;
  g.nchw = t.nchw;
  return g;
}

}  // namespace

hal::Status transposeConvSupport(const OpView& v) {
  NNC_TRY(macArrayOperandsSupport(v));
  NNC_ASSIGN_OR_RETURN(auto tg,
                       ops::conv::transposeConvGeometry(v.ctx(), &v.outShape(0).dimensions));
  if (tg.batches == 0) return hal::fail("empty batch: nothing to compute");
  NNC_TRY(equivalentConv(tg));
  NNC_TRY(ops::conv::makeConvQuantParams(v.inShape(0), v.inShape(1), &v.inShape(2), v.outShape(0),
                                         tg.activation, tg.outC));
  return outputShapeSupport(v, tg.outputNhwcDims(), tg.nchw);
}

namespace {

// The setup of a layer in a fused step: of kind `want`, NHWC (a fused step sizes the
// tensors it keeps on chip from NHWC dimensions).
hal::Result<ConvSetup> fusedSetup(const OpView& v, const LoweringOptions& options, ConvKind want) {
  const ConvKind kind = kindOf(v.op().type);
  if (kind != want)
    return hal::fail("fused: not a ", want == ConvKind::kDepthwise ? "depthwise layer" : "CONV_2D");
  NNC_ASSIGN_OR_RETURN(auto g, ops::conv::convGeometry(v.ctx(), kind));
  if (g.nchw) return hal::fail("fused: NCHW layers are not fused");
  return setupConv(v, options, kind, g);
}

}  // namespace

hal::Result<CompiledStep> lowerDepthwiseIntoInp(const hal::Model& model, uint32_t index,
                                                const OpView& v, const LoweringOptions& options,
                                                const FusedHalf& half) {
  NNC_ASSIGN_OR_RETURN(auto s, fusedSetup(v, options, ConvKind::kDepthwise));
  return lowerWindow(model, index, v, options, s, WindowInput::kDepthwiseUnit, false, &half);
}

hal::Result<CompiledStep> lowerConvIntoInp(const hal::Model& model, uint32_t index, const OpView& v,
                                           const LoweringOptions& options, const FusedHalf& half) {
  NNC_ASSIGN_OR_RETURN(auto s, fusedSetup(v, options, ConvKind::kConv));
  if (half.expanded.pitch == 0) return hal::fail("fused: no INP tensor for the convolution");
  // The raw-pixel window for an image's few channels (MobileNet's stem), else the window
  // over channel tiles.
  if (!isPointwise(s) && rawWindowApplies(s, options.npu))
    return lowerWindow(model, index, v, options, s, WindowInput::kRawPixels, false, &half);
  return lowerWindow(model, index, v, options, s, WindowInput::kChannelTiles, false, &half);
}

hal::Result<CompiledStep> lowerPointwiseFromInp(const hal::Model& model, uint32_t index,
                                                const OpView& v, const LoweringOptions& options,
                                                const FusedHalf& half, const EltwiseAfter* after) {
  NNC_ASSIGN_OR_RETURN(auto s, fusedSetup(v, options, ConvKind::kConv));
  if (!isPointwise(s) || !windowApplies(s, options.npu))
    return hal::fail("fused: not a pointwise window layer");
  return lowerWindow(model, index, v, options, s, WindowInput::kChannelTiles, false, &half, after);
}

hal::Result<CompiledStep> lowerConvThenEltwise(const hal::Model& model, uint32_t index,
                                               const OpView& v, const LoweringOptions& options,
                                               const EltwiseAfter& after) {
  NNC_ASSIGN_OR_RETURN(auto s, fusedSetup(v, options, ConvKind::kConv));
  // A row tile per output row, or lanes packed across output rows: the faster estimate.
  hal::Result<CompiledStep> best = hal::fail("window: does not apply");
  for (bool packed : {false, true}) {
    auto step = lowerWindow(model, index, v, options, s, WindowInput::kChannelTiles, packed,
                            nullptr, &after);
    if (step.ok() && (!best.ok() || step->report.estimatedCycles < best->report.estimatedCycles))
      best = std::move(step);
    else if (!best.ok() && !step.ok())
      best = hal::fail(step.error());
  }
  return best;
}

hal::Result<CompiledStep> lowerTransposeConv(const hal::Model& model, uint32_t index,
                                             const OpView& v, const LoweringOptions& options) {
  if (options.convMapping != ConvMapping::kAuto && options.convMapping != ConvMapping::kHostIm2col)
    return hal::fail("TRANSPOSE_CONV_2D: only host im2col applies (its gather zero-inserts)");
  NNC_ASSIGN_OR_RETURN(auto tg,
                       ops::conv::transposeConvGeometry(v.ctx(), &v.outShape(0).dimensions));
  NNC_ASSIGN_OR_RETURN(auto g, equivalentConv(tg));
  NNC_ASSIGN_OR_RETURN(auto setup, setupConv(v, options, ConvKind::kConv, g));
  ConvSetup& s = setup;
  s.transposed = true;
  s.upH = static_cast<uint32_t>(tg.strideH);
  s.upW = static_cast<uint32_t>(tg.strideW);
  // The scatter's products (every input element times its filter window), as the
  // operation's MAC count: not the zero-inserted taps.
  s.usefulMacs =
      uint64_t{tg.batches} * tg.inH * tg.inW * tg.inC * tg.outC * tg.filterH * tg.filterW;
  return lowerHostIm2col(model, index, v, options, s);
}

// ---------------------------------------------------------------------------------------
// Operations that are convolutions: AVERAGE_POOL_2D and FULLY_CONNECTED.

namespace {

// AVERAGE_POOL_2D whose windows are never clipped (every count fh*fw) is a depthwise
// convolution with one constant weight k in every tap and no zero points, requantized by
// 1/(k*count): out = clamp(MBQM(k*sum, M, shift)). The reference rounds the quotient half
// away from zero once, the requantizer twice (its high multiply, then its rounding
// shift), so the divider is chosen by checking every sum a window can reach (at most
// 49 * 256 values): k from 64 down (the larger k, the finer the high multiply's
// rounding), the nearest Q31 multiplier and its neighbours. None exact (ties of an even
// count can defeat them) keeps the pool on the CPU.
struct PoolDivider {
  int32_t weight = 0;
  ops::quant::QuantizedMultiplier q;
};

bool dividesExactly(int32_t k, int32_t count, int32_t lo, int32_t hi, int32_t mult, int shift) {
  for (int32_t sum = count * lo; sum <= count * hi; ++sum) {
    const int32_t want = sum > 0 ? (sum + count / 2) / count : (sum - count / 2) / count;
    if (ops::quant::multiplyByQuantizedMultiplier(k * sum, mult, shift) != want) return false;
  }
  return true;
}

std::optional<PoolDivider> poolDivider(int32_t count, int32_t lo, int32_t hi) {
  for (int32_t k = 64; k >= 1; k /= 2) {
    const ops::quant::QuantizedMultiplier q0 = ops::quant::quantizeMultiplier(1.0 / (k * count));
    for (int32_t d : {0, 1, -1, 2, -2}) {
      const int64_t mult = int64_t{q0.multiplier} + d;
      if (mult < (int64_t{1} << 30) || mult > INT32_MAX) continue;
      if (dividesExactly(k, count, lo, hi, static_cast<int32_t>(mult), q0.shift))
        return PoolDivider{k, {static_cast<int32_t>(mult), q0.shift}};
    }
  }
  return std::nullopt;
}

// The pool as the depthwise unit runs it: its convolution geometry (a stride along a
// single output row or column is 1: it moves no window) and its divider.
struct PoolAsDepthwise {
  ops::conv::ConvGeometry g;
  PoolDivider divider;
};

hal::Result<PoolAsDepthwise> poolAsDepthwise(const OpView& v) {
  const OperandType t = v.inShape(0).type;
  if (!isQuant8(t))
    return hal::fail("input type ", hal::toString(t),
                     ": the depthwise unit pools TENSOR_QUANT8_ASYMM[_SIGNED] only");
  NNC_ASSIGN_OR_RETURN(auto pr, ops::conv::poolGeometry(v.ctx()));
  const ops::conv::PoolGeometry& p = pr;
  if (p.batches == 0) return hal::fail("empty batch: nothing to compute");
  const int64_t fh = p.filterH, fw = p.filterW;
  const int64_t sh = p.outH == 1 ? 1 : p.strideH, sw = p.outW == 1 ? 1 : p.strideW;
  if (p.padTop > 0 || p.padLeft > 0 || (p.outH - 1) * sh + fh > p.inH ||
      (p.outW - 1) * sw + fw > p.inW)
    return hal::fail(
        "windows clipped by the padding: their counts differ, and the "
        "depthwise unit divides every window by one count");
  if (fh > 7 || fw > 7)
    return hal::fail("filter ", fh, "x", fw, ": the depthwise unit's filters are at most 7x7");
  if (sw > 2) return hal::fail("stride w ", sw, ": the depthwise unit's row stride is 1 or 2");
  const bool isSigned = t == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  const int32_t count = static_cast<int32_t>(fh * fw);
  std::optional<PoolDivider> d = poolDivider(count, isSigned ? -128 : 0, isSigned ? 127 : 255);
  if (!d)
    return hal::fail("no requantizer divides by the window's ", count,
                     " elements exactly as the reference rounds");
  PoolAsDepthwise r;
  r.divider = *d;
  ops::conv::ConvGeometry& g = r.g;
  g.batches = p.batches;
  g.inH = p.inH;
  g.inW = p.inW;
  g.inC = g.outC = p.channels;
  g.outH = p.outH;
  g.outW = p.outW;
  g.filterH = static_cast<uint32_t>(fh);
  g.filterW = static_cast<uint32_t>(fw);
  g.strideH = static_cast<int32_t>(sh);
  g.strideW = static_cast<int32_t>(sw);
  g.activation = p.activation;
  g.nchw = p.nchw;
  return r;
}

}  // namespace

hal::Status averagePoolSupport(const OpView& v) {
  const auto dw = poolAsDepthwise(v);
  if (dw.ok()) return hal::Status::Ok();
  const hal::Status unit = poolUnitSupport(v, true);
  if (unit.ok()) return unit;
  return hal::fail("depthwise unit: ", dw.error(), "; pooling unit: ", unit.error());
}

hal::Result<CompiledStep> lowerAveragePool(const hal::Model& model, uint32_t index, const OpView& v,
                                           const LoweringOptions& options) {
  if (options.convMapping != ConvMapping::kAuto &&
      options.convMapping != ConvMapping::kDepthwiseUnit)
    return hal::fail("AVERAGE_POOL_2D: only the depthwise unit's mapping applies");
  // The depthwise unit where it takes the pool (its DWCONVs run several rows at once), else
  // the pooling unit.
  auto dwPool = poolAsDepthwise(v);
  if (!dwPool.ok()) {
    if (options.convMapping == ConvMapping::kDepthwiseUnit) return hal::fail(dwPool.error());
    return lowerPoolUnit(model, index, v, options, true);
  }
  const PoolAsDepthwise& pr = *dwPool;
  const PoolAsDepthwise& p = pr;
  ConvSetup s;
  s.kind = ConvKind::kDepthwise;
  s.g = p.g;
  s.R = options.npu.rows;
  s.C = options.npu.cols;
  s.cg = {1, 1};
  s.fh = p.g.filterH;
  s.fw = p.g.filterW;
  s.taps = s.fh * s.fw;
  s.sh = static_cast<uint32_t>(p.g.strideH);
  s.sw = static_cast<uint32_t>(p.g.strideW);
  setChannelTiles(s);
  // The depthwise filter [1][fh][fw][channels], every element k.
  const std::vector<uint8_t> filter(size_t{s.taps} * p.g.outC,
                                    static_cast<uint8_t>(p.divider.weight));
  s.filter = filter.data();
  s.bias.assign(p.g.outC, 0);
  s.mult.assign(p.g.outC, p.divider.q.multiplier);
  s.shift.assign(p.g.outC, p.divider.q.shift);
  s.aSigned = s.outSigned = v.inShape(0).type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  s.bSigned = true;
  // The average stays in the input's quantized domain; the activation clamps at the
  // output's scale and zero point, as the reference does.
  const ops::quant::ActivationRange range = ops::quant::typeRange(8, s.outSigned);
  const ops::quant::ActivationRange act = ops::quant::activationRange(
      p.g.activation, v.outShape(0).scale, v.outShape(0).zeroPoint, range.min, range.max);
  s.clampMin = act.min;
  s.clampMax = act.max;
  // The plan's useful products k * x (the run report counts the reference's MACs: none).
  s.usefulMacs = s.pixels() * p.g.outC * s.taps;
  if (!dwconvApplies(s, options.npu)) {
    if (options.convMapping == ConvMapping::kAuto && poolUnitSupport(v, true).ok())
      return lowerPoolUnit(model, index, v, options, true);
    const uint32_t span = (s.R - 1) * s.sw + s.fw;
    if (span > s.fw * s.R)
      return hal::fail("a row tile's input (", span, " pixels at stride ", s.sw,
                       ") exceeds the depthwise unit's piece of ", s.fw * s.R,
                       " pixels (filter width x ", s.R, ")");
    return hal::fail("the window of ", s.fh, "x", s.fw, " x ", s.C,
                     " channels exceeds half of INP (", options.npu.inpBytes, " bytes)");
  }
  NNC_ASSIGN_OR_RETURN(auto step,
                       lowerWindow(model, index, v, options, s, WindowInput::kDepthwiseUnit));
  CompiledStep out = std::move(step);
  out.report.mapping += ", average pool as a depthwise convolution (weight " +
                        std::to_string(p.divider.weight) + ", divided by the requantizer)";
  return out;
}

// FULLY_CONNECTED as the pointwise convolution of a batches x 1 x 1 image: the window
// mapping reads its input as channel tiles, the layout every convolution and pool on the
// NPU stores, so the classifier after a global pool reads the pool's buffer as it is.
hal::Result<CompiledStep> lowerFullyConnectedAsPointwise(const hal::Model& model, uint32_t index,
                                                         const OpView& v,
                                                         const LoweringOptions& options,
                                                         uint32_t batches, uint32_t inputSize,
                                                         uint32_t units, int32_t activation) {
  if (!v.isConstant(1)) return hal::fail("pointwise: the weights are not a constant");
  ops::conv::ConvGeometry g;
  g.batches = batches;
  g.inH = g.inW = g.outH = g.outW = 1;
  g.inC = inputSize;
  g.outC = units;
  g.filterH = g.filterW = 1;
  g.activation = activation;
  // The weights [units][inputSize] are CONV_2D's filter [units][1][1][inputSize].
  NNC_ASSIGN_OR_RETURN(auto setup, setupConv(v, options, ConvKind::kConv, g));
  const ConvSetup& s = setup;
  if (!windowApplies(s, options.npu))
    return hal::fail("pointwise: the window mapping does not apply");
  NNC_ASSIGN_OR_RETURN(auto step,
                       lowerWindow(model, index, v, options, s, WindowInput::kChannelTiles));
  CompiledStep out = std::move(step);
  out.report.mapping +=
      ", fully connected as a 1x1 convolution of " + std::to_string(batches) + " pixel(s)";
  return out;
}

}  // namespace nncosim::driver::internal

namespace nncosim::driver {

void registerConvLowerings(NpuLoweringTable& t) {
  using T = hal::OperationType;
  for (T type : {T::CONV_2D, T::GROUPED_CONV_2D})
    t.add({type, NpuUnit::kMacArray, &internal::convSupport, &internal::lowerConv});
  t.add({T::DEPTHWISE_CONV_2D, NpuUnit::kArrayOrDepthwise, &internal::convSupport,
         &internal::lowerConv});
  t.add({T::TRANSPOSE_CONV_2D, NpuUnit::kMacArray, &internal::transposeConvSupport,
         &internal::lowerTransposeConv});
  t.add({T::AVERAGE_POOL_2D, NpuUnit::kDepthwiseOrPooling, &internal::averagePoolSupport,
         &internal::lowerAveragePool});
}

}  // namespace nncosim::driver
