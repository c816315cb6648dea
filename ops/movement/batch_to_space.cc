// BATCH_TO_SPACE_ND: interleaves blocks of the batch back into the spatial grid.
#include "ops/movement/common.h"
#include "ops/movement/movement.h"

namespace nncosim::ops::movement {
namespace {

Status validate(const OperationContext& ctx) {
  NNC_TRY(expectUnarySignature(ctx, kFloatQuant8Types,
                               {OperandType::TENSOR_INT32, OperandType::BOOL}, 2));
  return expectInputRank(ctx, 0, 4, 4);
}

Result<std::vector<uint32_t>> blocks(const OperationContext& ctx) {
  NNC_TRY(expect1D(ctx, 1, 2, "block_shape"));
  const std::vector<int32_t> v = int32Values(ctx, 1);
  if (v[0] < 1 || v[1] < 1)
    return hal::fail("input 1 (block_shape): values [", v[0], ", ", v[1], "] must be >= 1");
  return std::vector<uint32_t>{static_cast<uint32_t>(v[0]), static_cast<uint32_t>(v[1])};
}

Status prepare(OperationContext& ctx) {
  const Shape& in = ctx.inputShape(0);
  if (in.rank() != 4) return hal::fail("input 0: expected rank 4, got ", toString(in.dimensions));
  const bool nchw = optionalBool(ctx, 2);
  const std::vector<uint32_t> d = nchw ? toNhwc(in.dimensions) : in.dimensions;
  auto b = blocks(ctx);
  NNC_TRY(b);
  const uint64_t n = uint64_t{(*b)[0]} * (*b)[1];
  if (d[0] % n != 0)
    return hal::fail("input 1 (block_shape): ", (*b)[0], "x", (*b)[1],
                     " does not divide the batch ", d[0]);
  auto out = narrowDims({d[0] / n, uint64_t{d[1]} * (*b)[0], uint64_t{d[2]} * (*b)[1], d[3]},
                        "input 1 (block_shape)");
  NNC_TRY(out);
  return setOutput(ctx, 0, nchw ? toNchw(*out) : *out);
}

Status execute(OperationContext& ctx) {
  const size_t es = hal::elementSize(ctx.inputType(0));
  auto blk = blocks(ctx);
  NNC_TRY(blk);
  const uint32_t bh = (*blk)[0], bw = (*blk)[1];
  return runNhwc(ctx, optionalBool(ctx, 2),
                 [&](const uint8_t* in, const std::vector<uint32_t>& id, uint8_t* out,
                     const std::vector<uint32_t>& od) -> Status {
                   const uint32_t inH = id[1], inW = id[2], c = id[3];
                   const uint32_t outB = od[0], outH = od[1], outW = od[2];
                   for (uint32_t ib = 0; ib < id[0]; ++ib) {
                     const uint32_t ob = ib % outB;
                     const uint32_t offset = ib / outB;
                     const uint32_t oy0 = offset / bw, ox0 = offset % bw;
                     for (uint32_t y = 0; y < inH; ++y)
                       for (uint32_t x = 0; x < inW; ++x) {
                         const uint64_t src = ((uint64_t{ib} * inH + y) * inW + x) * c;
                         const uint64_t dst =
                             ((uint64_t{ob} * outH + y * bh + oy0) * outW + x * bw + ox0) * c;
                         copyElements(out + dst * es, in + src * es, c, es);
                       }
                   }
                   return Status::Ok();
                 });
}

}  // namespace

void registerBatchToSpace(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::BATCH_TO_SPACE_ND, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops::movement
