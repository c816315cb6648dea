// SPACE_TO_DEPTH: moves block_size x block_size spatial tiles into channels.
#include "ops/movement/common.h"
#include "ops/movement/movement.h"

namespace nncosim::ops::movement {
namespace {

Status validate(const OperationContext& ctx) {
  NNC_TRY(expectUnarySignature(ctx, kFloatQuant8Types, {OperandType::INT32, OperandType::BOOL},
                               2));
  return expectInputRank(ctx, 0, 4, 4);
}

Status prepare(OperationContext& ctx) {
  const Shape& in = ctx.inputShape(0);
  if (in.rank() != 4) return hal::fail("input 0: expected rank 4, got ", toString(in.dimensions));
  const bool nchw = optionalBool(ctx, 2);
  const std::vector<uint32_t> d = nchw ? toNhwc(in.dimensions) : in.dimensions;
  const int32_t b = ctx.scalar<int32_t>(1);
  if (b < 1) return hal::fail("input 1 (block_size): ", b, " must be >= 1");
  const uint32_t bs = static_cast<uint32_t>(b);
  if (d[1] % bs != 0 || d[2] % bs != 0)
    return hal::fail("input 1 (block_size): ", b, " does not divide height ", d[1],
                     " and width ", d[2]);
  auto out = narrowDims({d[0], d[1] / bs, d[2] / bs, uint64_t{d[3]} * bs * bs},
                        "input 1 (block_size)");
  NNC_TRY(out);
  return setOutput(ctx, 0, nchw ? toNchw(*out) : *out);
}

Status execute(OperationContext& ctx) {
  const size_t es = hal::elementSize(ctx.inputType(0));
  const uint32_t bs = static_cast<uint32_t>(ctx.scalar<int32_t>(1));
  return runNhwc(ctx, optionalBool(ctx, 2),
                 [&](const uint8_t* in, const std::vector<uint32_t>& id, uint8_t* out,
                     const std::vector<uint32_t>& od) -> Status {
                   const uint32_t inH = id[1], inW = id[2], inC = id[3];
                   const uint32_t outH = od[1], outW = od[2], outC = od[3];
                   for (uint32_t b = 0; b < id[0]; ++b)
                     for (uint32_t y = 0; y < inH; ++y)
                       for (uint32_t x = 0; x < inW; ++x) {
                         const uint32_t c0 = ((y % bs) * bs + x % bs) * inC;
                         const uint64_t dst =
                             ((uint64_t{b} * outH + y / bs) * outW + x / bs) * outC + c0;
                         const uint64_t src = ((uint64_t{b} * inH + y) * inW + x) * inC;
                         copyElements(out + dst * es, in + src * es, inC, es);
                       }
                   return Status::Ok();
                 });
}

}  // namespace

void registerSpaceToDepth(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::SPACE_TO_DEPTH, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops::movement
