// PACK: N tensors of rank R stacked along a new axis into one of rank R + 1.
#include "ops/movement/common.h"
#include "ops/movement/movement.h"

namespace nncosim::ops::movement {
namespace {

Status validate(const OperationContext& ctx) {
  if (ctx.numInputs() < 2) return hal::fail("expected at least 2 inputs, got ", ctx.numInputs());
  if (ctx.numOutputs() != 1) return hal::fail("expected 1 output, got ", ctx.numOutputs());
  NNC_TRY(expectRequired(ctx, ctx.numInputs()));
  NNC_TRY(expectInputType(ctx, 0, OperandType::INT32));
  const Shape& out = ctx.outputShape(0);
  bool ok = false;
  for (OperandType t : kFloatQuant8Int32Types) ok = ok || out.type == t;
  if (!ok) return hal::fail("output 0: type ", hal::toString(out.type), " is not supported");
  for (size_t i = 1; i < ctx.numInputs(); ++i) {
    NNC_TRY(expectInputType(ctx, i, out.type));
    NNC_TRY(expectSameQuant(ctx, i, 0));
    const Shape& s = ctx.inputShape(i);
    if (rankKnown(s) && rankKnown(out) && s.rank() + 1 != out.rank())
      return hal::fail("input ", i, ": rank ", s.rank(), " must be one less than the output's ",
                       out.rank());
    if (rankKnown(s) && rankKnown(ctx.inputShape(1)) && s.rank() != ctx.inputShape(1).rank())
      return hal::fail("input ", i, ": rank ", s.rank(), " differs from input 1's rank ",
                       ctx.inputShape(1).rank());
  }
  return Status::Ok();
}

Result<uint32_t> packAxis(const OperationContext& ctx) {
  const Shape& first = ctx.inputShape(1);
  if (first.rank() == 0) return hal::fail("input 1: PACK needs tensors of rank >= 1");
  for (size_t i = 2; i < ctx.numInputs(); ++i)
    if (ctx.inputShape(i).dimensions != first.dimensions)
      return hal::fail("input ", i, ": shape ", toString(ctx.inputShape(i).dimensions),
                       " differs from input 1's ", toString(first.dimensions));
  const int32_t axis = ctx.scalar<int32_t>(0);
  if (axis < 0 || axis > static_cast<int32_t>(first.rank()))
    return hal::fail("input 0 (axis): ", axis, " is out of range [0, ", first.rank() + 1, ")");
  return static_cast<uint32_t>(axis);
}

Status prepare(OperationContext& ctx) {
  auto axis = packAxis(ctx);
  NNC_TRY(axis);
  std::vector<uint32_t> dims = ctx.inputShape(1).dimensions;
  dims.insert(dims.begin() + *axis, static_cast<uint32_t>(ctx.numInputs() - 1));
  return setOutput(ctx, 0, dims);
}

Status execute(OperationContext& ctx) {
  auto axis = packAxis(ctx);
  NNC_TRY(axis);
  const Shape& first = ctx.inputShape(1);
  const size_t es = hal::elementSize(first.type);
  const uint64_t outer = product(first.dimensions, 0, *axis);
  const uint64_t tile = product(first.dimensions, *axis, first.rank());
  uint8_t* dst = ctx.outputBytes(0);
  for (uint64_t o = 0; o < outer; ++o)
    for (size_t i = 1; i < ctx.numInputs(); ++i) {
      copyElements(dst, ctx.inputBytes(i) + o * tile * es, tile, es);
      dst += tile * es;
    }
  return Status::Ok();
}

}  // namespace

void registerPack(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::PACK, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops::movement
