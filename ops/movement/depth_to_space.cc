// DEPTH_TO_SPACE: moves blocks of channels into block_size x block_size spatial tiles.
#include "ops/movement/common.h"
#include "ops/movement/movement.h"

namespace nncosim::ops::movement {
namespace {

Status validate(const OperationContext& ctx) {
  NNC_TRY(expectUnarySignature(ctx, kFloatQuant8Types, {OperandType::INT32, OperandType::BOOL},
                               2));
  return expectInputRank(ctx, 0, 4, 4);
}

Result<uint32_t> blockSize(const OperationContext& ctx, const std::vector<uint32_t>& nhwc) {
  const int32_t b = ctx.scalar<int32_t>(1);
  if (b < 1) return hal::fail("input 1 (block_size): ", b, " must be >= 1");
  if (nhwc[3] % (static_cast<uint64_t>(b) * b) != 0)
    return hal::fail("input 1 (block_size): ", b, "^2 does not divide the depth ", nhwc[3]);
  return static_cast<uint32_t>(b);
}

Status prepare(OperationContext& ctx) {
  const Shape& in = ctx.inputShape(0);
  if (in.rank() != 4) return hal::fail("input 0: expected rank 4, got ", toString(in.dimensions));
  const bool nchw = optionalBool(ctx, 2);
  const std::vector<uint32_t> d = nchw ? toNhwc(in.dimensions) : in.dimensions;
  auto b = blockSize(ctx, d);
  NNC_TRY(b);
  const uint64_t bs = *b;
  auto out = narrowDims({d[0], d[1] * bs, d[2] * bs, d[3] / (bs * bs)}, "input 1 (block_size)");
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
                   for (uint32_t b = 0; b < od[0]; ++b)
                     for (uint32_t y = 0; y < outH; ++y)
                       for (uint32_t x = 0; x < outW; ++x) {
                         const uint32_t c0 = ((y % bs) * bs + x % bs) * outC;
                         const uint64_t src =
                             ((uint64_t{b} * inH + y / bs) * inW + x / bs) * inC + c0;
                         const uint64_t dst = ((uint64_t{b} * outH + y) * outW + x) * outC;
                         copyElements(out + dst * es, in + src * es, outC, es);
                       }
                   return Status::Ok();
                 });
}

}  // namespace

void registerDepthToSpace(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::DEPTH_TO_SPACE, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops::movement
