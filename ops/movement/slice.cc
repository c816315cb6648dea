// SLICE: a box of the input starting at `begin`, of extent `size` (-1: to the end).
#include "ops/movement/common.h"
#include "ops/movement/movement.h"
#include "ops/movement/strided_copy.h"

namespace nncosim::ops::movement {
namespace {

Status validate(const OperationContext& ctx) {
  return expectUnarySignature(ctx, kFloatQuant8Int32Types,
                              {OperandType::TENSOR_INT32, OperandType::TENSOR_INT32}, 3);
}

// The begin index and extent of each dimension.
Status sliceBox(const OperationContext& ctx, std::vector<int64_t>* begin,
                std::vector<uint32_t>* size) {
  const Shape& in = ctx.inputShape(0);
  const uint32_t rank = in.rank();
  if (rank == 0) return hal::fail("input 0: SLICE needs a tensor of rank >= 1");
  NNC_TRY(expect1D(ctx, 1, rank, "begin"));
  NNC_TRY(expect1D(ctx, 2, rank, "size"));
  const std::vector<int32_t> b = int32Values(ctx, 1);
  const std::vector<int32_t> s = int32Values(ctx, 2);
  begin->resize(rank);
  size->resize(rank);
  for (uint32_t d = 0; d < rank; ++d) {
    const int64_t dim = in.dim(d);
    if (b[d] < 0 || b[d] > dim)
      return hal::fail("input 1 (begin): ", b[d], " is out of range [0, ", dim, "] for dimension ",
                       d);
    const int64_t n = s[d] == -1 ? dim - b[d] : s[d];
    if (n < 0 || b[d] + n > dim)
      return hal::fail("input 2 (size): ", s[d], " from begin ", b[d], " does not fit dimension ",
                       d, " of size ", dim);
    (*begin)[d] = b[d];
    (*size)[d] = static_cast<uint32_t>(n);
  }
  return Status::Ok();
}

Status prepare(OperationContext& ctx) {
  std::vector<int64_t> begin;
  std::vector<uint32_t> size;
  NNC_TRY(sliceBox(ctx, &begin, &size));
  return setOutput(ctx, 0, size);
}

Status execute(OperationContext& ctx) {
  std::vector<int64_t> begin;
  std::vector<uint32_t> size;
  NNC_TRY(sliceBox(ctx, &begin, &size));
  const std::vector<int64_t> step(size.size(), 1);
  stridedCopy(ctx.inputBytes(0), ctx.inputShape(0).dimensions, begin, step, size,
              hal::elementSize(ctx.inputType(0)), ctx.outputBytes(0));
  return Status::Ok();
}

}  // namespace

void registerSlice(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::SLICE, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops::movement
