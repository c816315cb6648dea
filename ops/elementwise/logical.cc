// LOGICAL_AND, LOGICAL_OR (with broadcasting) and LOGICAL_NOT on TENSOR_BOOL8.
#include "ops/elementwise/common.h"

namespace nncosim::ops::elementwise {
namespace {

Status validateBinary(const OperationContext& ctx) {
  NNC_TRY(checkInputCount(ctx, {2}));
  NNC_TRY(checkOutputCount(ctx, 1));
  NNC_TRY(checkInputType(ctx, 0, OperandType::TENSOR_BOOL8));
  NNC_TRY(checkInputType(ctx, 1, OperandType::TENSOR_BOOL8));
  return checkOutputType(ctx, 0, OperandType::TENSOR_BOOL8);
}

Status validateNot(const OperationContext& ctx) {
  NNC_TRY(checkInputCount(ctx, {1}));
  NNC_TRY(checkOutputCount(ctx, 1));
  NNC_TRY(checkInputType(ctx, 0, OperandType::TENSOR_BOOL8));
  return checkOutputType(ctx, 0, OperandType::TENSOR_BOOL8);
}

Status prepareNot(OperationContext& ctx) {
  Shape out = ctx.outputShape(0);
  out.dimensions = ctx.inputShape(0).dimensions;
  return ctx.setOutputShape(0, out);
}

template <bool kIsAnd>
Status executeBinary(OperationContext& ctx) {
  const uint8_t* a = ctx.input<uint8_t>(0);
  const uint8_t* b = ctx.input<uint8_t>(1);
  uint8_t* out = ctx.output<uint8_t>(0);
  forEachBroadcast(ctx.outputShape(0).dimensions, ctx.inputShape(0), ctx.inputShape(1),
                   [&](uint64_t o, uint64_t ia, uint64_t ib) {
                     const bool x = a[ia] != 0, y = b[ib] != 0;
                     out[o] = (kIsAnd ? (x && y) : (x || y)) ? 1 : 0;
                   });
  return Status::Ok();
}

Status executeNot(OperationContext& ctx) {
  const uint8_t* in = ctx.input<uint8_t>(0);
  uint8_t* out = ctx.output<uint8_t>(0);
  const uint64_t n = ctx.inputShape(0).elements();
  for (uint64_t i = 0; i < n; ++i) out[i] = in[i] == 0 ? 1 : 0;
  return Status::Ok();
}

}  // namespace

void registerLogical(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::LOGICAL_AND, &validateBinary, &prepareBroadcast,
                     &executeBinary<true>});
  t.add(OperationDef{hal::OperationType::LOGICAL_OR, &validateBinary, &prepareBroadcast,
                     &executeBinary<false>});
  t.add(OperationDef{hal::OperationType::LOGICAL_NOT, &validateNot, &prepareNot, &executeNot});
}

}  // namespace nncosim::ops::elementwise
