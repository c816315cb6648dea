// STRIDED_SLICE: begin/end/stride per dimension with begin, end and shrink-axis masks.
// Index clamping follows NNAPI's CPU reference (TFLite's legacy rules). In the 16x8
// mode also TENSOR_QUANT16_SYMM (an nncosim extension: a plain copy of int16 values).
#include "ops/movement/common.h"
#include "ops/movement/movement.h"
#include "ops/movement/strided_copy.h"

namespace nncosim::ops::movement {
namespace {

Status validate(const OperationContext& ctx) {
  NNC_TRY(expectUnarySignature(
      ctx, movementTypes(ctx),
      {OperandType::TENSOR_INT32, OperandType::TENSOR_INT32, OperandType::TENSOR_INT32,
       OperandType::INT32, OperandType::INT32, OperandType::INT32},
      7));
  return expectInputRank(ctx, 0, 0, 4);
}

int32_t positiveRemainder(int32_t a, int32_t b) { return (b + a % b) % b; }

// Clamps a begin/end index into the range the stride direction can reach.
int32_t clampedIndex(int32_t index, int32_t dim, bool positiveStride) {
  if (positiveStride) {
    if (index >= dim) return dim;
    return positiveRemainder(std::min(std::max(index, -dim), dim), dim);
  }
  if (index < -dim) return -1;
  return positiveRemainder(std::min(std::max(index, -dim), dim - 1), dim);
}

struct Plan {
  std::vector<int64_t> begin, step;
  std::vector<uint32_t> count;    // full rank
  std::vector<uint32_t> outDims;  // without the shrunk dimensions
};

Result<Plan> makePlan(const OperationContext& ctx) {
  const Shape& in = ctx.inputShape(0);
  const uint32_t rank = in.rank();
  if (rank > 4) return hal::fail("input 0: rank ", rank, " is more than 4");
  NNC_TRY(expect1D(ctx, 1, rank, "begin"));
  NNC_TRY(expect1D(ctx, 2, rank, "end"));
  NNC_TRY(expect1D(ctx, 3, rank, "strides"));
  const std::vector<int32_t> b = int32Values(ctx, 1);
  const std::vector<int32_t> e = int32Values(ctx, 2);
  const std::vector<int32_t> s = int32Values(ctx, 3);
  const int32_t beginMask = ctx.scalar<int32_t>(4);
  const int32_t endMask = ctx.scalar<int32_t>(5);
  const int32_t shrinkMask = ctx.scalar<int32_t>(6);
  Plan p;
  for (uint32_t d = 0; d < rank; ++d) {
    const int32_t dim = static_cast<int32_t>(in.dim(d));
    const int32_t stride = s[d];
    if (stride == 0) return hal::fail("input 3 (strides): stride of dimension ", d, " is 0");
    const bool pos = stride > 0;
    int32_t begin = 0, end = 0;
    if (dim > 0) {
      begin = (beginMask & (1 << d)) ? (pos ? 0 : dim - 1) : clampedIndex(b[d], dim, pos);
      end = (endMask & (1 << d)) ? (pos ? dim : -1) : clampedIndex(e[d], dim, pos);
    }
    // ceil((end - begin) / stride) for either sign, floored at 0.
    const int64_t span = static_cast<int64_t>(end) - begin;
    int64_t n = pos ? (span + stride - 1) / stride : (span + stride + 1) / stride;
    if ((pos && span <= 0) || (!pos && span >= 0)) n = 0;
    if (shrinkMask & (1 << d)) {
      if (stride < 0)
        return hal::fail("dimension ", d, ": shrink_axis_mask needs a positive stride, got ",
                         stride);
      if (n != 1)
        return hal::fail("dimension ", d, ": shrink_axis_mask needs a slice of size 1, got ", n,
                         " (begin ", b[d], ", end ", e[d], ")");
    } else {
      p.outDims.push_back(static_cast<uint32_t>(n));
    }
    p.begin.push_back(begin);
    p.step.push_back(stride);
    p.count.push_back(static_cast<uint32_t>(n));
  }
  if (p.outDims.empty()) p.outDims.push_back(1);  // NNAPI: all shrunk gives [1]
  return p;
}

Status prepare(OperationContext& ctx) {
  auto p = makePlan(ctx);
  NNC_TRY(p);
  return setOutput(ctx, 0, p->outDims);
}

Status execute(OperationContext& ctx) {
  auto p = makePlan(ctx);
  NNC_TRY(p);
  stridedCopy(ctx.inputBytes(0), ctx.inputShape(0).dimensions, p->begin, p->step, p->count,
              hal::elementSize(ctx.inputType(0)), ctx.outputBytes(0));
  return Status::Ok();
}

}  // namespace

void registerStridedSlice(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::STRIDED_SLICE, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops::movement
