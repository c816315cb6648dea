#include "ops/elementwise/common.h"

#include <sstream>

namespace nncosim::ops::elementwise {

Status checkInputCount(const OperationContext& ctx, std::initializer_list<size_t> allowed) {
  for (size_t n : allowed)
    if (ctx.numInputs() == n) return Status::Ok();
  std::ostringstream os;
  bool first = true;
  for (size_t n : allowed) {
    os << (first ? "" : " or ") << n;
    first = false;
  }
  return hal::fail("expected ", os.str(), " inputs, found ", ctx.numInputs());
}

Status checkOutputCount(const OperationContext& ctx, size_t expected) {
  if (ctx.numOutputs() != expected)
    return hal::fail("expected ", expected, " output(s), found ", ctx.numOutputs());
  return Status::Ok();
}

Status checkNotOmitted(const OperationContext& ctx, size_t i) {
  if (ctx.isOmitted(i)) return hal::fail("input ", i, ": required, but it has no value (omitted)");
  return Status::Ok();
}

Status checkInputType(const OperationContext& ctx, size_t i, OperandType expected) {
  NNC_TRY(checkNotOmitted(ctx, i));
  if (ctx.inputType(i) != expected)
    return hal::fail("input ", i, ": expected type ", hal::toString(expected), ", found ",
                     hal::toString(ctx.inputType(i)));
  return Status::Ok();
}

Status checkOutputType(const OperationContext& ctx, size_t i, OperandType expected) {
  if (ctx.outputShape(i).type != expected)
    return hal::fail("output ", i, ": expected type ", hal::toString(expected), ", found ",
                     hal::toString(ctx.outputShape(i).type));
  return Status::Ok();
}

Status checkSupportedType(const OperationContext& ctx, size_t i,
                          std::initializer_list<OperandType> allowed) {
  NNC_TRY(checkNotOmitted(ctx, i));
  for (OperandType t : allowed)
    if (ctx.inputType(i) == t) return Status::Ok();
  return hal::fail("input ", i, ": unsupported type ", hal::toString(ctx.inputType(i)),
                   " (expected one of ", toString(allowed), ")");
}

Status checkInputRankAtMost(const OperationContext& ctx, size_t i, uint32_t maxRank) {
  const uint32_t rank = ctx.inputShape(i).rank();
  if (rank > maxRank)
    return hal::fail("input ", i, ": rank ", rank, " exceeds the supported maximum ", maxRank);
  return Status::Ok();
}

Status checkFusedActivation(const OperationContext& ctx, size_t i) {
  if (!ctx.hasInputValue(i)) return Status::Ok();
  const int32_t act = ctx.scalar<int32_t>(i);
  if (act < 0 || act > 3)
    return hal::fail("input ", i, ": fused activation ", act, " is not one of 0..3");
  return Status::Ok();
}

Status checkBinarySignature(const OperationContext& ctx,
                            std::initializer_list<OperandType> allowed) {
  NNC_TRY(checkInputCount(ctx, {2}));
  NNC_TRY(checkOutputCount(ctx, 1));
  NNC_TRY(checkSupportedType(ctx, 0, allowed));
  return checkInputType(ctx, 1, ctx.inputType(0));
}

bool isQuant8(OperandType t) {
  return t == OperandType::TENSOR_QUANT8_ASYMM || t == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
}

Result<std::vector<uint32_t>> broadcastDims(const Shape& a, const Shape& b) {
  const size_t ra = a.dimensions.size(), rb = b.dimensions.size();
  const size_t rank = std::max(ra, rb);
  std::vector<uint32_t> out(rank);
  for (size_t k = 0; k < rank; ++k) {
    const uint32_t da = k < ra ? a.dimensions[ra - 1 - k] : 1;
    const uint32_t db = k < rb ? b.dimensions[rb - 1 - k] : 1;
    if (da != db && da != 1 && db != 1)
      return hal::fail("cannot broadcast ", toString(a.dimensions), " with ",
                       toString(b.dimensions), ": dimension ", ra > k ? ra - 1 - k : 0, " of ",
                       "input 0 is ", da, " and dimension ", rb > k ? rb - 1 - k : 0,
                       " of input 1 is ", db);
    out[rank - 1 - k] = da == 1 ? db : da;
  }
  return out;
}

Status prepareBroadcast(OperationContext& ctx) {
  NNC_ASSIGN_OR_RETURN(auto dims, broadcastDims(ctx.inputShape(0), ctx.inputShape(1)));
  Shape out = ctx.outputShape(0);
  out.dimensions = dims;
  return ctx.setOutputShape(0, out);
}

float floatScalar(const OperationContext& ctx, size_t i) {
  if (ctx.inputType(i) == OperandType::FLOAT16) return static_cast<float>(ctx.scalar<hal::Half>(i));
  return ctx.scalar<float>(i);
}

Result<uint32_t> resolveAxis(int32_t axis, uint32_t rank, size_t inputIndex) {
  const int64_t r = rank;
  if (axis < -r || axis >= r)
    return hal::fail("input ", inputIndex, ": axis ", axis, " is out of range for rank ", rank,
                     " (expected [", -r, ", ", r - 1, "])");
  return static_cast<uint32_t>(axis < 0 ? axis + r : axis);
}

}  // namespace nncosim::ops::elementwise
