// TRANSPOSE: permutes dimensions; output dimension i is input dimension perm[i]
// (perm omitted: reversed order).
#include "ops/movement/common.h"
#include "ops/movement/movement.h"

namespace nncosim::ops::movement {
namespace {

Status validate(const OperationContext& ctx) {
  NNC_TRY(expectUnarySignature(ctx, kFloatQuant8Types, {OperandType::TENSOR_INT32}, 1));
  return expectInputRank(ctx, 0, 0, 4);
}

Result<std::vector<uint32_t>> permutation(const OperationContext& ctx) {
  const uint32_t rank = ctx.inputShape(0).rank();
  std::vector<uint32_t> perm(rank);
  if (ctx.isOmitted(1)) {
    for (uint32_t d = 0; d < rank; ++d) perm[d] = rank - 1 - d;
    return perm;
  }
  NNC_TRY(expect1D(ctx, 1, rank, "perm"));
  const std::vector<int32_t> p = int32Values(ctx, 1);
  std::vector<bool> seen(rank, false);
  for (uint32_t d = 0; d < rank; ++d) {
    if (p[d] < 0 || p[d] >= static_cast<int32_t>(rank) || seen[p[d]])
      return hal::fail("input 1 (perm): value ", p[d], " at ", d,
                       " is out of range or repeated for rank ", rank);
    seen[p[d]] = true;
    perm[d] = static_cast<uint32_t>(p[d]);
  }
  return perm;
}

Status prepare(OperationContext& ctx) {
  auto perm = permutation(ctx);
  NNC_TRY(perm);
  const Shape& in = ctx.inputShape(0);
  std::vector<uint32_t> dims(perm->size());
  for (size_t d = 0; d < dims.size(); ++d) dims[d] = in.dim((*perm)[d]);
  return setOutput(ctx, 0, dims);
}

Status execute(OperationContext& ctx) {
  auto perm = permutation(ctx);
  NNC_TRY(perm);
  permute(ctx.inputBytes(0), ctx.inputShape(0).dimensions, *perm,
          hal::elementSize(ctx.inputType(0)), ctx.outputBytes(0));
  return Status::Ok();
}

}  // namespace

void registerTranspose(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::TRANSPOSE, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops::movement
