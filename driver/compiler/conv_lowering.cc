// CONV_2D, GROUPED_CONV_2D and DEPTHWISE_CONV_2D on the MAC array.
//
// GEMM view: A[i][t] = padded input at (pixel i, reduction index t), B[t][j] = weight of
// output channel j, ACC[i][j] = output pixel i, channel j. The reduction index of a channel
// tile runs over its input channels and the filter taps, channel-major:
//
//   t = (ic_rel * fh + fy) * fw + fx          (ic_rel relative to the tile's first channel)
//
// so a k chunk is a range of input channels, and for one tap (fy, fx) the channels of a
// chunk sit R*fh*fw bytes apart in INP: one DMA_LOAD per tap (per fy when the taps of a
// row are evenly spaced in DRAM) gathers nr x nc pixels x the chunk's channels:
//
//   INP (k-major, R lanes):  t=0 [p0 p1 .. p15]  t=1 [p0 .. p15] ...
//   DRAM (kConvInput):       plane ic, row oy*sh + fy*dh, run (fx*dw mod sw), column
//                            ox + fx*dw div sw:  nc consecutive pixels = nc bytes
//
// Channel structure: output channel oc reads the input channels of its group,
// [(oc / go) * gi, + gi): CONV_2D has one group (gi = inC), GROUPED_CONV_2D gi = inC / G,
// DEPTHWISE_CONV_2D gi = 1 and go = the depth multiplier. A channel tile reads the union
// of its columns' groups; B is block-diagonal, the weights outside a column's group
// being the filter zero point. Depthwise, multiplier 1:
//
//          col: 0  1  2 .. 15          (output channels c0 .. c0+15)
//   t = ic0 taps [w  z  z .. z ]
//   t = ic1 taps [z  w  z .. z ]       z = filter zero point: (z - zp) = 0 adds nothing
//   ...
#include <algorithm>
#include <cstring>
#include <numeric>

#include "driver/compiler/isa_interpreter.h"
#include "driver/compiler/lowering_internal.h"
#include "ops/conv/conv_args.h"
#include "ops/conv/conv_common.h"
#include "ops/conv/conv_params.h"

namespace nncosim::driver::internal {
namespace {

using hal::OperandType;
using ops::conv::ConvKind;

ConvKind kindOf(hal::OperationType t) {
  switch (t) {
    case hal::OperationType::DEPTHWISE_CONV_2D: return ConvKind::kDepthwise;
    case hal::OperationType::GROUPED_CONV_2D: return ConvKind::kGrouped;
    default: return ConvKind::kConv;
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
    case ConvKind::kDepthwise: return {1, static_cast<uint32_t>(g.extra)};
    case ConvKind::kGrouped:
      return {g.inC / static_cast<uint32_t>(g.extra), g.outC / static_cast<uint32_t>(g.extra)};
    default: return {g.inC, g.outC};
  }
}

// Taps fx, fx + step, ... of a filter row share a W phase (stride sw, dilation dw).
uint32_t tapStepOf(uint32_t sw, uint32_t dw) { return sw / std::gcd(dw, sw); }

// A row tile: nr output rows x nc output columns of image b (nr > 1 only when nc = outW).
struct RowTile {
  uint32_t b, oy0, nr, ox0, nc;
};

}  // namespace

hal::Status convSupport(const OpView& v) {
  const ConvKind kind = kindOf(v.op().type);
  const OperandType t = v.inShape(0).type;
  if (!isQuant8(t))
    return hal::fail("input type ", hal::toString(t),
                     ": the MAC array is integer (TENSOR_QUANT8_ASYMM[_SIGNED] only)");
  if (!v.isConstant(1)) return hal::fail("the filter is not a constant");
  if (!v.isConstant(2)) return hal::fail("the bias is not a constant");
  auto g = ops::conv::convGeometry(v.ctx(), kind);
  if (!g.ok()) return hal::Error{g.error()};
  if (g->batches == 0) return hal::fail("empty batch: nothing to compute");
  auto q = ops::conv::makeConvQuantParams(v.inShape(0), v.inShape(1), &v.inShape(2),
                                          v.outShape(0), g->activation, g->outC);
  if (!q.ok()) return hal::Error{q.error()};
  const std::vector<uint32_t> want = ops::conv::fromNhwcDims(g->outputNhwcDims(), g->nchw);
  if (v.outShape(0).dimensions != want)
    return hal::fail("output shape ", ops::toString(v.outShape(0).dimensions),
                     " differs from the computed ", ops::toString(want));
  return hal::Status::Ok();
}

hal::Result<CompiledStep> lowerConv(const hal::Model& model, uint32_t index, const OpView& v,
                                    const LoweringOptions& options) {
  const ConvKind kind = kindOf(v.op().type);
  auto gr = ops::conv::convGeometry(v.ctx(), kind);
  if (!gr.ok()) return hal::Error{gr.error()};
  const ops::conv::ConvGeometry g = *gr;
  // The reference's own derivation: the multipliers, shifts and clamps are bit-exact by
  // construction.
  auto qr = ops::conv::makeConvQuantParams(v.inShape(0), v.inShape(1), &v.inShape(2),
                                           v.outShape(0), g.activation, g.outC);
  if (!qr.ok()) return hal::Error{qr.error()};
  const ops::conv::ConvQuantParams& qp = *qr;
  const uint32_t R = options.npu.rows, C = options.npu.cols;
  const ChannelGroups cg = groupsOf(kind, g);
  const uint32_t fh = g.filterH, fw = g.filterW, taps = fh * fw;
  const uint32_t sh = static_cast<uint32_t>(g.strideH), sw = static_cast<uint32_t>(g.strideW);
  const uint32_t dh = static_cast<uint32_t>(g.dilationH), dw = static_cast<uint32_t>(g.dilationW);

  // Channel tiles and their input-channel ranges; tiles with equal ranges share A.
  const uint32_t Q = (g.outC + C - 1) / C;
  std::vector<uint32_t> tileDepth(Q), tileGroup(Q), groupFirstIc;
  std::vector<uint32_t> tileIcLo(Q), tileIcCount(Q);
  for (uint32_t q = 0; q < Q; ++q) {
    const uint32_t ocA = q * C, ocB = std::min(g.outC, ocA + C) - 1;
    tileIcLo[q] = cg.firstInput(ocA);
    tileIcCount[q] = cg.firstInput(ocB) + cg.gi - tileIcLo[q];
    tileDepth[q] = tileIcCount[q] * taps;
    const bool same = q > 0 && tileIcLo[q] == tileIcLo[q - 1] && tileIcCount[q] == tileIcCount[q - 1];
    if (!same) groupFirstIc.push_back(tileIcLo[q]);
    tileGroup[q] = static_cast<uint32_t>(groupFirstIc.size() - 1);
  }

  // Shifted windows: the taps of a filter row that share a W phase read the same pixels
  // shifted by (fx*dw) div sw. Loading those pixels once per channel (runs of at most R
  // bytes, R apart in INP) lets one GEMM per tap read them through a byte-shifted
  // inp_addr, with t = input channel: the input is loaded ~fw times less often, at the
  // price of fh*fw shorter GEMMs and R - span pixels per row tile.
  struct PhaseTaps {
    uint32_t phase = 0, minShift = UINT32_MAX, maxShift = 0;
  };
  std::vector<PhaseTaps> phaseTaps;
  std::vector<uint32_t> tapPhase(fw);  // index into phaseTaps
  for (uint32_t p = 0; p < sw; ++p) {
    PhaseTaps pt;
    pt.phase = p;
    for (uint32_t fx = 0; fx < fw; ++fx) {
      if ((fx * dw) % sw != p) continue;
      pt.minShift = std::min(pt.minShift, fx * dw / sw);
      pt.maxShift = std::max(pt.maxShift, fx * dw / sw);
      tapPhase[fx] = static_cast<uint32_t>(phaseTaps.size());
    }
    if (pt.minShift != UINT32_MAX) phaseTaps.push_back(pt);
  }
  uint32_t span = 0;
  for (const PhaseTaps& pt : phaseTaps) span = std::max(span, pt.maxShift - pt.minShift);
  const PlanOptions planOptions = PlanOptions::forPreference(options.preference);
  const uint32_t maxDepth = *std::max_element(tileDepth.begin(), tileDepth.end());
  const uint32_t shiftedPixels = std::min(g.outW, span < R ? R - span : 0);
  bool shifted = fw > 1 && phaseTaps.size() * fh < taps && 2 * shiftedPixels >= std::min(R, g.outW) &&
                 maxDepth <= maxSingleChunkDepth(options.npu, planOptions, taps);
  if (shifted) {
    // Cycles per output pixel of one A group, from the options' cost model:
    // the slower of loading and computing a row tile.
    const CostModel& cost = options.cost;
    const double ic = tileIcCount[0];
    const double groupTiles = std::min<double>(4, Q / static_cast<double>(groupFirstIc.size()));
    const double mc = g.outW >= R ? R : double(R / g.outW) * g.outW;
    const double dmasPerRow = g.outW >= R ? std::min(tapStepOf(sw, dw), fw) : fw;
    const double loadC = fh * dmasPerRow * cost.dramLatency + ic * taps * (mc > R / 2 ? 1 : 2) +
                         ic * taps * mc / cost.busBytesPerCycle;
    const double computeC = groupTiles * (ic * taps + 1.0 + mc + cost.requantOverhead);
    const double ms = shiftedPixels;
    const double loadS = phaseTaps.size() * (cost.dramLatency + ic * fh) +
                         ic * fh * phaseTaps.size() * (ms + span) / cost.busBytesPerCycle;
    const double computeS = groupTiles * (taps * (ic + 1.0) + ms + cost.requantOverhead);
    shifted = std::max(loadS, computeS) / ms < std::max(loadC, computeC) / mc;
  }

  // Weight image: per tile, [t][C], block-diagonal for grouped/depthwise tiles. Classic
  // t = (ic_rel, fy, fx); shifted windows t = (fy, fx, ic_rel): each tap's rows adjacent.
  const uint8_t* filter = v.constantBytes(1);
  const auto fillB = static_cast<uint8_t>(qp.filterZeroPoint);
  std::vector<uint64_t> offset(Q + 1, 0);
  for (uint32_t q = 0; q < Q; ++q) offset[q + 1] = offset[q] + uint64_t{tileDepth[q]} * C;
  std::vector<uint8_t> weights(offset[Q], fillB);
  for (uint32_t q = 0; q < Q; ++q)
    for (uint32_t icRel = 0; icRel < tileIcCount[q]; ++icRel) {
      const uint32_t ic = tileIcLo[q] + icRel;
      for (uint32_t fy = 0; fy < fh; ++fy)
        for (uint32_t fx = 0; fx < fw; ++fx) {
          const uint64_t t = shifted ? (uint64_t{fy} * fw + fx) * tileIcCount[q] + icRel
                                     : (uint64_t{icRel} * fh + fy) * fw + fx;
          for (uint32_t j = 0; j < C; ++j) {
            const uint32_t oc = q * C + j;
            if (oc >= g.outC) break;
            const uint32_t first = cg.firstInput(oc);
            if (ic < first || ic >= first + cg.gi) continue;
            const uint64_t at =
                kind == ConvKind::kDepthwise
                    ? (uint64_t{fy} * fw + fx) * g.outC + oc
                    : ((uint64_t{oc} * fh + fy) * fw + fx) * cg.gi + (ic - first);
            weights[offset[q] + t * C + j] = filter[at];
          }
        }
    }

  // PRM image: bias, multipliers, shifts per channel.
  std::vector<int32_t> bias(g.outC), mult(g.outC), shift(g.outC);
  std::memcpy(bias.data(), v.constantBytes(2), size_t{g.outC} * 4);
  for (uint32_t oc = 0; oc < g.outC; ++oc) {
    mult[oc] = qp.multiplier(oc).multiplier;
    shift[oc] = qp.multiplier(oc).shift;
  }

  // Input: planar, zero-point padded, W phases by the stride.
  TensorLayout in;
  in.kind = TensorLayout::Kind::kConvInput;
  in.batches = g.batches;
  in.height = g.inH;
  in.width = g.inW;
  in.channels = g.inC;
  in.sourceNchw = g.nchw;
  in.padTop = static_cast<uint32_t>(g.padTop);
  in.padLeft = static_cast<uint32_t>(g.padLeft);
  in.paddedHeight = g.inH + static_cast<uint32_t>(g.padTop + g.padBottom);
  in.paddedWidth = g.inW + static_cast<uint32_t>(g.padLeft + g.padRight);
  in.phases = sw;
  in.phaseWidth = (in.paddedWidth + sw - 1) / sw;
  in.fill = static_cast<uint8_t>(qp.inputZeroPoint);

  TensorLayout outLayout;
  if (g.nchw) {
    outLayout.kind = TensorLayout::Kind::kNchwFromNhwc;
    outLayout.batches = g.batches;
    outLayout.height = g.outH;
    outLayout.width = g.outW;
    outLayout.channels = g.outC;
  }
  const uint64_t outBytes = uint64_t{g.batches} * g.outH * g.outW * g.outC;

  StepBuilder sb(model, index);
  auto inBuf = sb.bindInput(v.inOperand(0), in, "input");
  if (!inBuf.ok()) return hal::Error{inBuf.error()};
  const size_t wBuf = sb.addConstant("weights", std::move(weights));
  const size_t pBuf = sb.addConstant("requant parameters", prmImage(g.outC, C, bias.data(), mult, shift));
  const size_t oBuf = sb.bindOutput(v.outOperand(0), outLayout, outBytes, "output");
  NNC_TRY(sb.layout());
  const uint64_t inBase = sb.address(*inBuf), outBase = sb.address(oBuf);

  // Row tiles: 16 pixels of a row, or whole rows when a row is shorter than R.
  std::vector<RowTile> tiles;
  for (uint32_t b = 0; b < g.batches; ++b) {
    if (shifted) {
      for (uint32_t oy = 0; oy < g.outH; ++oy)
        for (uint32_t ox = 0; ox < g.outW; ox += shiftedPixels)
          tiles.push_back({b, oy, 1, ox, std::min(shiftedPixels, g.outW - ox)});
    } else if (g.outW >= R) {
      for (uint32_t oy = 0; oy < g.outH; ++oy)
        for (uint32_t ox = 0; ox < g.outW; ox += R) tiles.push_back({b, oy, 1, ox, std::min(R, g.outW - ox)});
    } else {
      const uint32_t rows = R / g.outW;
      for (uint32_t oy = 0; oy < g.outH; oy += rows)
        tiles.push_back({b, oy, std::min(rows, g.outH - oy), 0, g.outW});
    }
  }

  const uint64_t row = in.rowBytes(), plane = in.planeBytes(), image = in.imageBytes();
  // Taps of a filter row in the same W phase are evenly spaced in DRAM: fx, fx + step,
  // ... (step = sw / gcd(dw, sw)) sit step*dw/sw bytes apart, so one DMA row-set covers
  // them all (one DMA per filter row when the stride divides the dilation).
  const uint32_t tapStep = tapStepOf(sw, dw);
  auto dramAt = [=](const RowTile& rt, uint32_t ic, uint32_t fy, uint32_t fx) {
    const uint64_t col = uint64_t{fx} * dw;
    return inBase + rt.b * image + uint64_t{ic} * plane + (uint64_t{rt.oy0} * sh + uint64_t{fy} * dh) * row +
           (col % sw) * in.phaseWidth + rt.ox0 + col / sw;
  };

  GemmProblem prob;
  prob.weightImage = sb.address(wBuf);
  prob.rowTiles = static_cast<uint32_t>(tiles.size());
  prob.rowsOf = [tiles](uint32_t p) { return tiles[p].nr * tiles[p].nc; };
  prob.loadA = [=](uint32_t p, uint32_t gid, uint32_t k0, uint32_t k1, uint32_t inpAddr,
                   std::vector<firmware::DmaLoad>& out) {
    const RowTile& rt = tiles[p];
    const uint32_t icFirst = groupFirstIc[gid] + k0 / taps;
    const uint32_t icCount = (k1 - k0) / taps;
    if (shifted) {
      // Per W phase: for every input channel (R apart) and filter row (icCount*R apart),
      // the run of pixels its taps read, in one DMA.
      for (size_t pi = 0; pi < phaseTaps.size(); ++pi) {
        const PhaseTaps& pt = phaseTaps[pi];
        firmware::DmaLoad d;
        d.bufId = firmware::Buffer::kInp;
        d.dramAddr = static_cast<uint32_t>(inBase + rt.b * image + uint64_t{icFirst} * plane +
                                           uint64_t{rt.oy0} * sh * row + uint64_t{pt.phase} * in.phaseWidth +
                                           rt.ox0 + pt.minShift);
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
          d.bufAddr = static_cast<uint32_t>(inpAddr + (uint64_t{c0} * taps + uint64_t{fy} * fw + fx) * R);
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
  if (shifted) {
    // One GEMM per tap: t = input channel, A through the byte-shifted window.
    prob.gemms = [=](uint32_t, uint32_t q, uint32_t, uint32_t, uint32_t inpAddr, uint32_t wgtAddr,
                     const firmware::Gemm& proto, std::vector<firmware::Gemm>& out) {
      const uint32_t icCount = tileIcCount[q];
      for (uint32_t fy = 0; fy < fh; ++fy)
        for (uint32_t fx = 0; fx < fw; ++fx) {
          const PhaseTaps& pt = phaseTaps[tapPhase[fx]];
          firmware::Gemm x = proto;
          x.k = icCount;
          x.inpAddr = inpAddr + (tapPhase[fx] * fh + fy) * icCount * R + (fx * dw / sw - pt.minShift);
          x.wgtAddr = wgtAddr + (fy * fw + fx) * icCount * C;
          x.accumulate = proto.accumulate || fy + fx > 0;
          out.push_back(x);
        }
    };
  }
  const uint32_t outC = g.outC, outW = g.outW, outH = g.outH;
  const NpuConfig npu = options.npu;
  prob.storeOut = [=](uint32_t p, uint32_t q0, uint32_t q1, uint32_t outAddr,
                      std::vector<firmware::DmaStore>& out) {
    // The tile's pixels are consecutive NHWC pixels (one row segment, or whole rows).
    const RowTile& rt = tiles[p];
    const uint64_t dram =
        outBase + ((uint64_t{rt.b} * outH + rt.oy0) * outW + rt.ox0) * outC + uint64_t{q0} * C;
    storeTiles(dram, outC, rt.nr * rt.nc, q0, q1, outC, npu, outAddr, out);
  };

  GemmSpec spec;
  spec.channels = g.outC;
  spec.tileDepth = tileDepth;
  spec.tileGroup = tileGroup;
  spec.kUnit = taps;
  spec.usefulMacs = uint64_t{g.batches} * g.outH * g.outW * g.outC * cg.gi * taps;
  spec.aSigned = v.inShape(0).type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  spec.bSigned = v.inShape(1).type != OperandType::TENSOR_QUANT8_ASYMM;
  spec.aZp = qp.inputZeroPoint;
  spec.bZp = qp.filterZeroPoint;
  spec.prmImage = sb.address(pBuf);
  spec.perChannel = qp.perChannel();
  spec.biasEn = true;
  spec.outSigned = v.outShape(0).type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  spec.outZp = qp.outputZeroPoint;
  spec.clampMin = qp.activationMin;
  spec.clampMax = qp.activationMax;
  spec.problems.push_back(std::move(prob));

  CompiledStep& step = sb.step();
  auto commands = emitGemmFor(spec, options.npu, options.preference, options.maxJobCommands, options.cost,
                           options.tag, step.report);
  if (!commands.ok()) return hal::Error{commands.error()};
  step.commands = std::move(*commands);
  std::string mapping = std::string(shifted ? "shifted-window GEMMs (one per tap)" : "im2col GEMM") +
                        ", pixels x channels, filter " + std::to_string(fh) + "x" + std::to_string(fw);
  if (kind == ConvKind::kDepthwise)
    mapping += ", block-diagonal depthwise tiles (" + std::to_string(std::min(C, g.outC)) +
               " channels per GEMM)";
  if (kind == ConvKind::kGrouped) mapping += ", " + std::to_string(g.extra) + " groups";
  if (g.nchw) mapping += ", NCHW";
  step.report.mapping = mapping;
  return std::move(step);
}

}  // namespace nncosim::driver::internal
