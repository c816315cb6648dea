// FULLY_CONNECTED and BATCH_MATMUL on the MAC array: plain GEMMs.
//
//   FULLY_CONNECTED  A = input [batch][K] (rows on the array rows), B = weights [units][K]
//                    (units on the columns), out [batch][units] stored row by row.
//                    In the 16x8 mode (int16 input, int8 weights) the operands are int16
//                    (weights sign-extended at compile time), ACC int64, outputs int16.
//   BATCH_MATMUL     per batch: A = lhs (rows), B = rhs (columns); adj_x / adj_y only change
//                    how the host packs the operand images (layout.h kMatrixImage), and a
//                    broadcast rhs is one image read by several batches.
//
// Both operands are packed k-major in DRAM (constants at compile time, runtime operands
// by the host before the job), so every DMA_LOAD is one contiguous run.
#include <algorithm>
#include <cstring>

#include "driver/compiler/lowering_internal.h"
#include "driver/compiler/lowering_table.h"
#include "ops/conv/conv_common.h"
#include "ops/conv/conv_params.h"

namespace nncosim::driver::internal {
namespace {

using hal::OperandType;

bool isQuant8(OperandType t) {
  return t == OperandType::TENSOR_QUANT8_ASYMM || t == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
}

// Channel tiles of a plain GEMM: all the same depth, one A group.
void plainTiles(uint32_t channels, uint32_t depth, uint32_t C, GemmSpec& spec) {
  const uint32_t Q = (channels + C - 1) / C;
  spec.channels = channels;
  spec.tileDepth.assign(Q, depth);
  spec.tileGroup.assign(Q, 0);
  spec.kUnit = 1;
}

// A from a matrix image (lane tiles of R, k-major) at `image`: consecutive row tiles are
// consecutive in DRAM, so a step's pieces are one DMA.
void loadImageA(uint64_t image, uint32_t depth, uint32_t R, const std::vector<APiece>& pieces,
                std::vector<firmware::DmaLoad>& out, uint32_t eb = 1) {
  const uint32_t lineBytes = R * eb;  // one k step of R lanes
  loadContiguousPieces(
      pieces, lineBytes,
      [=](const APiece& a) { return image + (uint64_t{a.p} * depth + a.k0) * lineBytes; }, out);
}

void setRequant(const ops::conv::ConvQuantParams& qp, OperandType inType, OperandType wType,
                OperandType outType, GemmSpec& spec) {
  // Only TENSOR_QUANT8_ASYMM is unsigned (int16 and int8 symmetric types are signed).
  spec.aSigned = inType != OperandType::TENSOR_QUANT8_ASYMM;
  spec.bSigned = wType != OperandType::TENSOR_QUANT8_ASYMM;
  spec.aZp = qp.inputZeroPoint;
  spec.bZp = qp.filterZeroPoint;
  spec.perChannel = qp.perChannel();
  spec.outSigned = outType != OperandType::TENSOR_QUANT8_ASYMM;
  spec.outZp = qp.outputZeroPoint;
  spec.clampMin = qp.activationMin;
  spec.clampMax = qp.activationMax;
}

struct FcShape {
  uint32_t batches, inputSize, units;
};

hal::Result<FcShape> fcShape(const OpView& v) {
  const ops::Shape& in = v.inShape(0);
  const ops::Shape& w = v.inShape(1);
  if (w.rank() != 2) return hal::fail("weights must be rank 2");
  FcShape s{0, w.dim(1), w.dim(0)};
  if (s.inputSize == 0 || in.elements() % s.inputSize != 0)
    return hal::fail("input size does not divide the input's elements");
  s.batches = static_cast<uint32_t>(in.elements() / s.inputSize);
  if (v.outShape(0).elements() != uint64_t{s.batches} * s.units)
    return hal::fail("output shape ", ops::toString(v.outShape(0).dimensions), " is not [",
                     s.batches, ", ", s.units, "]");
  return s;
}

// BATCH_MATMUL geometry, as the reference derives it.
struct MatmulShape {
  uint32_t batches = 1, rows = 0, cols = 0, depth = 0;
  bool adjX = false, adjY = false;
  std::vector<uint32_t> lhsBatch, rhsBatch;
  uint32_t rhsMatrices = 1;
  uint32_t rhsIndex(uint32_t batch) const {
    uint32_t index = 0, rest = batch, stride = 1;
    for (size_t d = lhsBatch.size(); d-- > 0;) {
      const uint32_t coord = rest % lhsBatch[d];
      rest /= lhsBatch[d];
      index += (rhsBatch[d] == 1 ? 0 : coord) * stride;
      stride *= rhsBatch[d];
    }
    return index;
  }
};

hal::Result<MatmulShape> matmulShape(const OpView& v) {
  const ops::Shape& lhs = v.inShape(0);
  const ops::Shape& rhs = v.inShape(1);
  if (!v.isConstant(2) || !v.isConstant(3)) return hal::fail("adj_x / adj_y are not constants");
  if (lhs.rank() != rhs.rank() || lhs.rank() < 2 || lhs.rank() > 4)
    return hal::fail("lhs and rhs ranks must be equal and 2..4");
  MatmulShape s;
  s.adjX = v.ctx().scalar<uint8_t>(2) != 0;
  s.adjY = v.ctx().scalar<uint8_t>(3) != 0;
  const uint32_t r = lhs.rank();
  s.rows = s.adjX ? lhs.dim(r - 1) : lhs.dim(r - 2);
  s.depth = s.adjX ? lhs.dim(r - 2) : lhs.dim(r - 1);
  s.cols = s.adjY ? rhs.dim(r - 2) : rhs.dim(r - 1);
  const uint32_t rhsDepth = s.adjY ? rhs.dim(r - 1) : rhs.dim(r - 2);
  if (s.depth != rhsDepth || s.rows == 0 || s.cols == 0 || s.depth == 0)
    return hal::fail("inner dimensions differ or are 0");
  for (uint32_t d = 0; d + 2 < r; ++d) {
    if (lhs.dim(d) != rhs.dim(d) && rhs.dim(d) != 1)
      return hal::fail("batch dimension ", d, " does not broadcast");
    s.lhsBatch.push_back(lhs.dim(d));
    s.rhsBatch.push_back(rhs.dim(d));
    s.batches *= lhs.dim(d);
    s.rhsMatrices *= rhs.dim(d);
  }
  if (v.outShape(0).elements() != uint64_t{s.batches} * s.rows * s.cols)
    return hal::fail("output shape ", ops::toString(v.outShape(0).dimensions),
                     " disagrees with the product");
  return s;
}

}  // namespace

hal::Status fullyConnectedSupport(const OpView& v) {
  const OperandType t = v.inShape(0).type;
  if (!isQuant8(t) && !is16x8(v))
    return hal::fail("input type ", hal::toString(t),
                     ": the MAC array is integer (TENSOR_QUANT8_ASYMM[_SIGNED], or "
                     "TENSOR_QUANT16_SYMM in a 16x8 model)");
  // Runtime weights (e.g. the output of a DENSIFY) are packed by the host before the job,
  // like BATCH_MATMUL's operands; the bias goes into the PRM image, so it must be known.
  if (!v.isConstant(2)) return hal::fail("the bias is not a constant");
  if (!v.isConstant(3)) return hal::fail("the fused activation is not a constant");
  NNC_ASSIGN_OR_RETURN(auto s, fcShape(v));
  if (s.batches == 0) return hal::fail("empty batch: nothing to compute");
  NNC_ASSIGN_OR_RETURN(
      auto q, ops::conv::makeConvQuantParams(v.inShape(0), v.inShape(1), &v.inShape(2),
                                             v.outShape(0), v.ctx().scalar<int32_t>(3), s.units));
  return hal::Status::Ok();
}

namespace {

hal::Result<CompiledStep> lowerFullyConnectedGemm(const hal::Model& model, uint32_t index,
                                                  const OpView& v, const LoweringOptions& options) {
  NNC_ASSIGN_OR_RETURN(auto sr, fcShape(v));
  const FcShape s = sr;
  NNC_ASSIGN_OR_RETURN(
      auto qr, ops::conv::makeConvQuantParams(v.inShape(0), v.inShape(1), &v.inShape(2),
                                              v.outShape(0), v.ctx().scalar<int32_t>(3), s.units));
  const ops::conv::ConvQuantParams& qp = qr;
  const uint32_t R = options.npu.rows, C = options.npu.cols;
  const bool wide = is16x8(v);
  const uint32_t eb = wide ? 2 : 1;

  TensorLayout a;  // input rows on the array rows
  a.kind = TensorLayout::Kind::kMatrixImage;
  a.matrices = 1;
  a.lanes = s.batches;
  a.depth = s.inputSize;
  a.laneTile = R;
  a.lanesMajor = true;
  a.fill = static_cast<uint8_t>(qp.inputZeroPoint);
  a.elementBytes = eb;
  TensorLayout b = a;  // units on the columns
  b.lanes = s.units;
  b.laneTile = C;
  b.fill = static_cast<uint8_t>(qp.filterZeroPoint);
  b.elementBytes = 1;  // int8 weights in both modes (16x8: GEMM wgt8)

  std::vector<int32_t> bias(s.units), mult(s.units), shift(s.units);
  std::memcpy(bias.data(), v.constantBytes(2), size_t{s.units} * 4);
  for (uint32_t u = 0; u < s.units; ++u) {
    mult[u] = qp.multiplier(u).multiplier;
    shift[u] = qp.multiplier(u).shift;
  }

  StepBuilder sb(model, index);
  NNC_ASSIGN_OR_RETURN(auto aBuf, sb.bindInput(v.inOperand(0), a, "input"));
  hal::Result<size_t> bBuf = sb.bindInput(v.inOperand(1), b, "weights");
  if (!bBuf.ok()) return hal::Error{bBuf.error()};
  const size_t pBuf =
      sb.addConstant("requant parameters", prmImage(s.units, C, bias.data(), mult, shift));
  const size_t oBuf =
      sb.bindOutput(v.outOperand(0), TensorLayout{}, uint64_t{s.batches} * s.units * eb, "output");
  NNC_TRY(sb.layout());

  const uint64_t aImage = sb.address(aBuf), out = sb.address(oBuf);
  GemmProblem prob;
  prob.weightImage = sb.address(*bBuf);
  prob.rowTiles = (s.batches + R - 1) / R;
  prob.rowsOf = [s, R](uint32_t p) { return std::min(R, s.batches - p * R); };
  prob.loadA = [=](const std::vector<APiece>& pieces, std::vector<firmware::DmaLoad>& o) {
    loadImageA(aImage, s.inputSize, R, pieces, o, eb);
  };
  const NpuConfig npu = options.npu;
  prob.storeOut = [=](uint32_t p0, uint32_t, uint32_t q0, uint32_t q1, uint32_t rows,
                      uint32_t outAddr, std::vector<firmware::DmaStore>& o) {
    storeTiles(out + ((uint64_t{p0} * R) * s.units + uint64_t{q0} * C) * eb, s.units * eb, rows, q0,
               q1, s.units, npu, outAddr, rows * C * eb, o, eb);
  };

  GemmSpec spec;
  plainTiles(s.units, s.inputSize, C, spec);
  spec.usefulMacs = uint64_t{s.batches} * s.units * s.inputSize;
  setRequant(qp, v.inShape(0).type, v.inShape(1).type, v.outShape(0).type, spec);
  spec.wide = wide;
  spec.weightBytes = 1;
  spec.prmImage = sb.address(pBuf);
  spec.biasEn = true;
  spec.problems.push_back(std::move(prob));

  CompiledStep& step = sb.step();
  NNC_ASSIGN_OR_RETURN(
      auto commands,
      emitGemmFor(spec, options.npu, options.preference, options.maxJobCommands, options.cost,
                  options.tag, step.report, IsaInterpreter::kNoLimit, options.energy));
  step.commands = std::move(commands);
  step.report.mapping = "GEMM, batch rows x units, depth " + std::to_string(s.inputSize) +
                        (wide ? ", 16x8 (int16 x int8, acc64)" : "");
  return std::move(step);
}

}  // namespace

// The plain GEMM (its input a matrix image the host packs) or, with constant weights, the
// pointwise window convolution over channel tiles (conv_lowering.cc), which reads a
// convolution's or pool's output where the NPU left it: the cheaper end to end (the least
// energy under LOW_POWER), the GEMM on a tie. The window mapping is asked for by
// ConvMapping::kWindow, the GEMM by every other forced mapping.
hal::Result<CompiledStep> lowerFullyConnected(const hal::Model& model, uint32_t index,
                                              const OpView& v, const LoweringOptions& options) {
  const ConvMapping want = options.convMapping;
  if (want != ConvMapping::kAuto && want != ConvMapping::kWindow)
    return lowerFullyConnectedGemm(model, index, v, options);
  NNC_ASSIGN_OR_RETURN(auto s, fcShape(v));
  hal::Result<CompiledStep> window = lowerFullyConnectedAsPointwise(
      model, index, v, options, s.batches, s.inputSize, s.units, v.ctx().scalar<int32_t>(3));
  if (want == ConvMapping::kWindow) return window;
  hal::Result<CompiledStep> gemm = lowerFullyConnectedGemm(model, index, v, options);
  if (!window.ok()) return gemm;
  if (!gemm.ok()) return window;
  auto cost = [&](const CompiledStep& c) {
    return options.preference == hal::ExecutionPreference::LOW_POWER
               ? estimatedEnergyPj(model, c, options)
               : endToEndCycles(model, c, options);
  };
  return cost(*window) < cost(*gemm) ? std::move(window) : std::move(gemm);
}

hal::Status batchMatmulSupport(const OpView& v) {
  const OperandType t = v.inShape(0).type;
  if (t != OperandType::TENSOR_QUANT8_ASYMM_SIGNED)
    return hal::fail("input type ", hal::toString(t),
                     ": the MAC array runs BATCH_MATMUL on TENSOR_QUANT8_ASYMM_SIGNED only");
  NNC_ASSIGN_OR_RETURN(auto s, matmulShape(v));
  NNC_ASSIGN_OR_RETURN(
      auto q, ops::conv::makeConvQuantParams(v.inShape(0), v.inShape(1), nullptr, v.outShape(0),
                                             ops::quant::kActNone, 1));
  return hal::Status::Ok();
}

hal::Result<CompiledStep> lowerBatchMatmul(const hal::Model& model, uint32_t index, const OpView& v,
                                           const LoweringOptions& options) {
  NNC_ASSIGN_OR_RETURN(auto sr, matmulShape(v));
  const MatmulShape s = sr;
  NNC_ASSIGN_OR_RETURN(
      auto qr, ops::conv::makeConvQuantParams(v.inShape(0), v.inShape(1), nullptr, v.outShape(0),
                                              ops::quant::kActNone, 1));
  const ops::conv::ConvQuantParams& qp = qr;
  const uint32_t R = options.npu.rows, C = options.npu.cols;

  TensorLayout a;
  a.kind = TensorLayout::Kind::kMatrixImage;
  a.matrices = s.batches;
  a.lanes = s.rows;
  a.depth = s.depth;
  a.laneTile = R;
  a.lanesMajor = !s.adjX;  // lhs [rows][K], or [K][rows] when adjoint
  a.fill = static_cast<uint8_t>(qp.inputZeroPoint);
  TensorLayout b = a;
  b.matrices = s.rhsMatrices;
  b.lanes = s.cols;
  b.laneTile = C;
  b.lanesMajor = s.adjY;  // rhs [K][cols], or [cols][K] when adjoint
  b.fill = static_cast<uint8_t>(qp.filterZeroPoint);

  const std::vector<int32_t> mult(s.cols, qp.multiplier(0).multiplier);
  const std::vector<int32_t> shift(s.cols, qp.multiplier(0).shift);

  StepBuilder sb(model, index);
  NNC_ASSIGN_OR_RETURN(auto aBuf, sb.bindInput(v.inOperand(0), a, "lhs"));
  NNC_ASSIGN_OR_RETURN(auto bBuf, sb.bindInput(v.inOperand(1), b, "rhs"));
  const size_t pBuf =
      sb.addConstant("requant parameters", prmImage(s.cols, C, nullptr, mult, shift));
  const uint64_t outMatrix = uint64_t{s.rows} * s.cols;
  const size_t oBuf =
      sb.bindOutput(v.outOperand(0), TensorLayout{}, outMatrix * s.batches, "output");
  NNC_TRY(sb.layout());

  GemmSpec spec;
  plainTiles(s.cols, s.depth, C, spec);
  spec.usefulMacs = uint64_t{s.batches} * s.rows * s.cols * s.depth;
  setRequant(qp, v.inShape(0).type, v.inShape(1).type, v.outShape(0).type, spec);
  spec.prmImage = sb.address(pBuf);
  spec.biasEn = false;
  const uint64_t aImages = sb.address(aBuf), bImages = sb.address(bBuf), out = sb.address(oBuf);
  for (uint32_t batch = 0; batch < s.batches; ++batch) {
    GemmProblem prob;
    prob.weightImage = static_cast<uint32_t>(bImages + s.rhsIndex(batch) * b.matrixImageBytes());
    prob.rowTiles = (s.rows + R - 1) / R;
    prob.rowsOf = [s, R](uint32_t p) { return std::min(R, s.rows - p * R); };
    const uint64_t aImage = aImages + batch * a.matrixImageBytes();
    prob.loadA = [=](const std::vector<APiece>& pieces, std::vector<firmware::DmaLoad>& o) {
      loadImageA(aImage, s.depth, R, pieces, o);
    };
    const uint64_t outAt = out + batch * outMatrix;
    prob.storeOut = [=](uint32_t p0, uint32_t, uint32_t q0, uint32_t q1, uint32_t rows,
                        uint32_t outAddr, std::vector<firmware::DmaStore>& o) {
      storeTiles(outAt + (uint64_t{p0} * R) * s.cols + uint64_t{q0} * C, s.cols, rows, q0, q1,
                 s.cols, options.npu, outAddr, rows * C, o);
    };
    spec.problems.push_back(std::move(prob));
  }

  CompiledStep& step = sb.step();
  NNC_ASSIGN_OR_RETURN(
      auto commands,
      emitGemmFor(spec, options.npu, options.preference, options.maxJobCommands, options.cost,
                  options.tag, step.report, IsaInterpreter::kNoLimit, options.energy));
  step.commands = std::move(commands);
  step.report.mapping = "GEMM per batch (" + std::to_string(s.batches) +
                        "), rows x columns, depth " + std::to_string(s.depth) +
                        (s.adjX ? ", adj_x" : "") + (s.adjY ? ", adj_y" : "");
  return std::move(step);
}

}  // namespace nncosim::driver::internal

namespace nncosim::driver {

void registerMatmulLowerings(NpuLoweringTable& t) {
  t.add({hal::OperationType::FULLY_CONNECTED, NpuUnit::kMacArray, &internal::fullyConnectedSupport,
         &internal::lowerFullyConnected});
  t.add({hal::OperationType::BATCH_MATMUL, NpuUnit::kMacArray, &internal::batchMatmulSupport,
         &internal::lowerBatchMatmul});
}

}  // namespace nncosim::driver
