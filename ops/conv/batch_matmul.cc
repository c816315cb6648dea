// BATCH_MATMUL: out[..., i, j] = sum_k lhs'[..., i, k] * rhs'[..., k, j], where lhs' and
// rhs' are lhs/rhs with their last two dimensions swapped when adj_x / adj_y is set.
// Inputs: 0 lhs, 1 rhs (same type and rank 2..4), 2 adj_x BOOL, 3 adj_y BOOL.
// TENSOR_QUANT8_ASYMM_SIGNED is requantized (no bias, no fused activation); TENSOR_INT32
// accumulates with int32 wraparound.
#include <vector>

#include "ops/conv/conv_common.h"
#include "ops/conv/conv_kernels.h"
#include "ops/conv/conv_ops.h"
#include "ops/conv/conv_params.h"

namespace nncosim::ops::conv {
namespace {

using hal::OperandType;

struct MatmulGeometry {
  std::vector<uint32_t> outDims;
  uint32_t batches = 1;       // product of the batch dimensions of the output (= lhs)
  bool rhsBroadcast = false;  // rhs has batch dimensions of 1 where lhs has more
  std::vector<uint32_t> lhsBatch, rhsBatch;
  uint32_t rows = 0, cols = 0, depth = 0;  // out is rows x cols, summing over depth
  uint32_t lhsR = 0, lhsC = 0, rhsR = 0, rhsC = 0;
  bool adjX = false, adjY = false;
};

hal::Result<MatmulGeometry> geometry(const OperationContext& ctx) {
  for (size_t i = 2; i < 4; ++i)
    if (!ctx.hasInputValue(i)) return hal::fail(inputName(ctx, i), ": has no value");
  const Shape& lhs = ctx.inputShape(0);
  const Shape& rhs = ctx.inputShape(1);
  if (lhs.rank() != rhs.rank())
    return hal::fail("lhs shape ", toString(lhs.dimensions), " and rhs shape ",
                     toString(rhs.dimensions), " have different ranks");
  if (lhs.rank() < 2 || lhs.rank() > 4)
    return hal::fail(inputName(ctx, 0), ": rank must be 2 to 4, found shape ",
                     toString(lhs.dimensions));
  MatmulGeometry g;
  g.adjX = boolScalar(ctx, 2);
  g.adjY = boolScalar(ctx, 3);
  const uint32_t r = lhs.rank();
  g.lhsR = lhs.dim(r - 2);
  g.lhsC = lhs.dim(r - 1);
  g.rhsR = rhs.dim(r - 2);
  g.rhsC = rhs.dim(r - 1);
  if (g.lhsR == 0 || g.lhsC == 0 || g.rhsR == 0 || g.rhsC == 0)
    return hal::fail("matrix dimensions must be > 0: lhs ", toString(lhs.dimensions), ", rhs ",
                     toString(rhs.dimensions));
  g.rows = g.adjX ? g.lhsC : g.lhsR;
  g.depth = g.adjX ? g.lhsR : g.lhsC;
  const uint32_t rhsDepth = g.adjY ? g.rhsC : g.rhsR;
  g.cols = g.adjY ? g.rhsR : g.rhsC;
  if (g.depth != rhsDepth)
    return hal::fail("cannot multiply lhs ", toString(lhs.dimensions), (g.adjX ? " (adjoint)" : ""),
                     " by rhs ", toString(rhs.dimensions), (g.adjY ? " (adjoint)" : ""), ": inner ",
                     "dimensions ", g.depth, " and ", rhsDepth, " differ");
  for (uint32_t d = 0; d + 2 < r; ++d) {
    const uint32_t a = lhs.dim(d), b = rhs.dim(d);
    // The output takes lhs's batch dimensions, so only rhs may broadcast.
    if (a != b && b != 1)
      return hal::fail("batch dimension ", d, ": lhs has ", a, ", rhs has ", b,
                       " (they must match, or rhs must be 1)");
    g.rhsBroadcast = g.rhsBroadcast || a != b;
    g.lhsBatch.push_back(a);
    g.rhsBatch.push_back(b);
    g.batches *= a;
  }
  g.outDims = lhs.dimensions;
  g.outDims[r - 2] = g.rows;
  g.outDims[r - 1] = g.cols;
  return g;
}

// Offset of rhs's matrix for the output's flat batch index (with broadcasting).
size_t rhsMatrixIndex(const MatmulGeometry& g, uint32_t batch) {
  size_t index = 0;
  uint32_t rest = batch;
  size_t rhsStride = 1;
  for (size_t d = g.lhsBatch.size(); d-- > 0;) {
    const uint32_t coord = rest % g.lhsBatch[d];
    rest /= g.lhsBatch[d];
    index += (g.rhsBatch[d] == 1 ? 0 : coord) * rhsStride;
    rhsStride *= g.rhsBatch[d];
  }
  return index;
}

// Generic over the arithmetic: term(a, b) gives one product, stage(acc) the output.
template <typename T, typename Acc, typename Term, typename Stage, typename TOut>
void matmul(const MatmulGeometry& g, const T* lhs, const T* rhs, const Term& term,
            const Stage& stage, TOut* out) {
  const size_t lhsSize = size_t{g.lhsR} * g.lhsC;
  const size_t rhsSize = size_t{g.rhsR} * g.rhsC;
  for (uint32_t b = 0; b < g.batches; ++b) {
    const T* l = lhs + b * lhsSize;
    const T* rm = rhs + rhsMatrixIndex(g, b) * rhsSize;
    TOut* o = out + size_t{b} * g.rows * g.cols;
    for (uint32_t i = 0; i < g.rows; ++i) {
      for (uint32_t j = 0; j < g.cols; ++j) {
        Acc acc = 0;
        for (uint32_t k = 0; k < g.depth; ++k) {
          const T a = g.adjX ? l[size_t{k} * g.lhsC + i] : l[size_t{i} * g.lhsC + k];
          const T c = g.adjY ? rm[size_t{j} * g.rhsC + k] : rm[size_t{k} * g.rhsC + j];
          acc += term(a, c);
        }
        o[size_t{i} * g.cols + j] = stage(acc);
      }
    }
  }
}

}  // namespace

Status validateBatchMatmul(const OperationContext& ctx) {
  NNC_TRY(checkCounts(ctx, {4}, 1));
  const OperandType t = ctx.inputType(0);
  NNC_TRY(checkInputType(ctx, 0, t));
  if (t != OperandType::TENSOR_FLOAT32 && t != OperandType::TENSOR_FLOAT16 &&
      t != OperandType::TENSOR_QUANT8_ASYMM_SIGNED && t != OperandType::TENSOR_INT32)
    return hal::fail(inputName(ctx, 0), ": unsupported type ", hal::toString(t),
                     " (expected TENSOR_FLOAT32, TENSOR_FLOAT16, TENSOR_QUANT8_ASYMM_SIGNED or "
                     "TENSOR_INT32)");
  NNC_TRY(checkInputType(ctx, 1, t));
  NNC_TRY(checkInputTypes(ctx, 2, {OperandType::BOOL, OperandType::BOOL}));
  NNC_TRY(checkOutputType(ctx, 0, t));
  NNC_TRY(checkRankRangeIfKnown(ctx, 0, 2, 4));
  NNC_TRY(checkRankRangeIfKnown(ctx, 1, 2, 4));
  if (t == OperandType::TENSOR_QUANT8_ASYMM_SIGNED) {
    NNC_ASSIGN_OR_RETURN(auto p, makeConvQuantParams(ctx.inputShape(0), ctx.inputShape(1), nullptr,
                                                     ctx.outputShape(0), quant::kActNone, 1));
  }
  return Status::Ok();
}

Status prepareBatchMatmul(OperationContext& ctx) {
  NNC_ASSIGN_OR_RETURN(auto g, geometry(ctx));
  Shape out = ctx.outputShape(0);
  out.dimensions = g.outDims;
  return ctx.setOutputShape(0, out);
}

Status executeBatchMatmul(OperationContext& ctx) {
  NNC_ASSIGN_OR_RETURN(auto g, geometry(ctx));
  if (g.batches == 0) return Status::Ok();
  switch (ctx.inputType(0)) {
    case OperandType::TENSOR_FLOAT32:
    case OperandType::TENSOR_FLOAT16: {
      const std::vector<float> lhs = loadFloat(ctx, 0);
      const std::vector<float> rhs = loadFloat(ctx, 1);
      std::vector<float> out(size_t{g.batches} * g.rows * g.cols);
      matmul<float, float>(
          g, lhs.data(), rhs.data(), [](float a, float b) { return a * b; },
          [](float acc) { return acc; }, out.data());
      storeFloat(ctx, 0, out);
      return Status::Ok();
    }
    case OperandType::TENSOR_INT32:
      // Products and sums wrap modulo 2^32, as int32 arithmetic does.
      matmul<int32_t, uint32_t>(
          g, ctx.input<int32_t>(0), ctx.input<int32_t>(1),
          [](int32_t a, int32_t b) { return static_cast<uint32_t>(a) * static_cast<uint32_t>(b); },
          [](uint32_t acc) { return static_cast<int32_t>(acc); }, ctx.output<int32_t>(0));
      return Status::Ok();
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED: {
      NNC_ASSIGN_OR_RETURN(auto p,
                           makeConvQuantParams(ctx.inputShape(0), ctx.inputShape(1), nullptr,
                                               ctx.outputShape(0), quant::kActNone, 1));
      const int64_t lhsZp = p.inputZeroPoint, rhsZp = p.filterZeroPoint;
      const ConvQuantParams& params = p;
      matmul<int8_t, int64_t>(
          g, ctx.input<int8_t>(0), ctx.input<int8_t>(1),
          [lhsZp, rhsZp](int8_t a, int8_t b) {
            return (int64_t{a} - lhsZp) * (int64_t{b} - rhsZp);
          },
          [&params](int64_t acc) {
            return static_cast<int8_t>(params.requantize(wrapToInt32(acc), 0));
          },
          ctx.output<int8_t>(0));
      return Status::Ok();
    }
    default:
      return hal::fail("unsupported input type ", hal::toString(ctx.inputType(0)));
  }
}

}  // namespace nncosim::ops::conv
