// CHANNEL_SHUFFLE: output channel k * groups + g = input channel g * groupSize + k along
// the given axis.
#include "ops/movement/common.h"
#include "ops/movement/movement.h"

namespace nncosim::ops::movement {
namespace {

Status validate(const OperationContext& ctx) {
  NNC_TRY(
      expectUnarySignature(ctx, kFloatQuant8Types, {OperandType::INT32, OperandType::INT32}, 3));
  return expectInputRank(ctx, 0, 0, 4);
}

Result<uint32_t> shuffleAxis(const OperationContext& ctx) {
  const Shape& in = ctx.inputShape(0);
  auto axis = resolveAxis(ctx.scalar<int32_t>(2), in.rank(), "input 2 (axis)");
  NNC_TRY(axis);
  const int32_t groups = ctx.scalar<int32_t>(1);
  if (groups <= 0 || in.dim(*axis) % groups != 0)
    return hal::fail("input 1 (num_groups): ", groups, " must be positive and divide dimension ",
                     *axis, " of size ", in.dim(*axis));
  return *axis;
}

Status prepare(OperationContext& ctx) {
  NNC_TRY(shuffleAxis(ctx));
  return setOutput(ctx, 0, ctx.inputShape(0).dimensions);
}

Status execute(OperationContext& ctx) {
  auto axis = shuffleAxis(ctx);
  NNC_TRY(axis);
  const Shape& in = ctx.inputShape(0);
  const size_t es = hal::elementSize(in.type);
  const uint32_t groups = static_cast<uint32_t>(ctx.scalar<int32_t>(1));
  const uint32_t channels = in.dim(*axis);
  const uint32_t groupSize = channels / groups;
  const uint64_t outer = product(in.dimensions, 0, *axis);
  const uint64_t inner = product(in.dimensions, *axis + 1, in.rank());
  const uint8_t* src = ctx.inputBytes(0);
  uint8_t* dst = ctx.outputBytes(0);
  for (uint64_t o = 0; o < outer; ++o)
    for (uint32_t c = 0; c < channels; ++c) {
      const uint32_t from = (c % groups) * groupSize + c / groups;
      copyElements(dst + ((o * channels + c) * inner) * es,
                   src + ((o * channels + from) * inner) * es, inner, es);
    }
  return Status::Ok();
}

}  // namespace

void registerChannelShuffle(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::CHANNEL_SHUFFLE, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops::movement
