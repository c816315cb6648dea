// DEPTH_TO_SPACE and SPACE_TO_DEPTH: each other's inverse. With bs the block size and C
// the depth of the space-side tensor (DEPTH_TO_SPACE's output, SPACE_TO_DEPTH's input):
//
//   space[b][y][x][c] == depth[b][y / bs][x / bs][((y % bs) * bs + x % bs) * C + c]
//
// so one signature, one shape prologue and one copy loop serve both directions.
#include "ops/movement/common.h"
#include "ops/movement/movement.h"

namespace nncosim::ops::movement {
namespace {

Status validate(const OperationContext& ctx) {
  NNC_TRY(expectUnarySignature(ctx, kFloatQuant8Types, {OperandType::INT32, OperandType::BOOL}, 2));
  return expectInputRank(ctx, 0, 4, 4);
}

// Output 0 from outNhwc(inNhwc, bs): the input's dimensions in NHWC order and the block
// size (>= 1) to the output's NHWC dimensions, or an error when bs does not fit them.
template <typename OutNhwc>
Status prepareBlocks(OperationContext& ctx, OutNhwc outNhwc) {
  const Shape& in = ctx.inputShape(0);
  if (in.rank() != 4) return hal::fail("input 0: expected rank 4, got ", toString(in.dimensions));
  const bool nchw = optionalBool(ctx, 2);
  const std::vector<uint32_t> d = nchw ? toNhwc(in.dimensions) : in.dimensions;
  const int32_t b = ctx.scalar<int32_t>(1);
  if (b < 1) return hal::fail("input 1 (block_size): ", b, " must be >= 1");
  auto out = outNhwc(d, static_cast<uint32_t>(b));
  NNC_TRY(out);
  return setOutput(ctx, 0, nchw ? toNchw(*out) : *out);
}

Status prepareDepthToSpace(OperationContext& ctx) {
  return prepareBlocks(
      ctx, [](const std::vector<uint32_t>& d, uint32_t b) -> Result<std::vector<uint32_t>> {
        const uint64_t bs = b;
        if (d[3] % (bs * bs) != 0)
          return hal::fail("input 1 (block_size): ", b, "^2 does not divide the depth ", d[3]);
        return narrowDims({d[0], d[1] * bs, d[2] * bs, d[3] / (bs * bs)}, "input 1 (block_size)");
      });
}

Status prepareSpaceToDepth(OperationContext& ctx) {
  return prepareBlocks(
      ctx, [](const std::vector<uint32_t>& d, uint32_t bs) -> Result<std::vector<uint32_t>> {
        if (d[1] % bs != 0 || d[2] % bs != 0)
          return hal::fail("input 1 (block_size): ", bs, " does not divide height ", d[1],
                           " and width ", d[2]);
        return narrowDims({d[0], d[1] / bs, d[2] / bs, uint64_t{d[3]} * bs * bs},
                          "input 1 (block_size)");
      });
}

// Walks the space-side tensor and copies each pixel's C elements from the depth side
// (kToSpace: DEPTH_TO_SPACE) or to it (SPACE_TO_DEPTH).
template <bool kToSpace>
Status execute(OperationContext& ctx) {
  const size_t es = hal::elementSize(ctx.inputType(0));
  const uint32_t bs = static_cast<uint32_t>(ctx.scalar<int32_t>(1));
  return runNhwc(ctx, optionalBool(ctx, 2),
                 [&](const uint8_t* in, const std::vector<uint32_t>& id, uint8_t* out,
                     const std::vector<uint32_t>& od) -> Status {
                   const std::vector<uint32_t>& space = kToSpace ? od : id;
                   const std::vector<uint32_t>& depth = kToSpace ? id : od;
                   const uint32_t spaceH = space[1], spaceW = space[2], spaceC = space[3];
                   const uint32_t depthH = depth[1], depthW = depth[2], depthC = depth[3];
                   for (uint32_t b = 0; b < space[0]; ++b)
                     for (uint32_t y = 0; y < spaceH; ++y)
                       for (uint32_t x = 0; x < spaceW; ++x) {
                         const uint32_t c0 = ((y % bs) * bs + x % bs) * spaceC;
                         const uint64_t atDepth =
                             ((uint64_t{b} * depthH + y / bs) * depthW + x / bs) * depthC + c0;
                         const uint64_t atSpace =
                             ((uint64_t{b} * spaceH + y) * spaceW + x) * spaceC;
                         if constexpr (kToSpace)
                           copyElements(out + atSpace * es, in + atDepth * es, spaceC, es);
                         else
                           copyElements(out + atDepth * es, in + atSpace * es, spaceC, es);
                       }
                   return Status::Ok();
                 });
}

}  // namespace

void registerDepthSpace(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::DEPTH_TO_SPACE, &validate, &prepareDepthToSpace,
                     &execute<true>});
  t.add(OperationDef{hal::OperationType::SPACE_TO_DEPTH, &validate, &prepareSpaceToDepth,
                     &execute<false>});
}

}  // namespace nncosim::ops::movement
