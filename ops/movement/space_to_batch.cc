// SPACE_TO_BATCH_ND: pads the spatial dimensions, then moves block_shape tiles of them
// into the batch. Padding is zero (the zero point for quantized tensors).
#include "ops/movement/common.h"
#include "ops/movement/movement.h"

namespace nncosim::ops::movement {
namespace {

Status validate(const OperationContext& ctx) {
  NNC_TRY(expectUnarySignature(
      ctx, kFloatQuant8Types,
      {OperandType::TENSOR_INT32, OperandType::TENSOR_INT32, OperandType::BOOL}, 3));
  return expectInputRank(ctx, 0, 4, 4);
}

struct Params {
  uint32_t bh, bw, top, bottom, left, right;
};

Result<Params> params(const OperationContext& ctx) {
  NNC_TRY(expect1D(ctx, 1, 2, "block_shape"));
  const std::vector<int32_t> b = int32Values(ctx, 1);
  if (b[0] < 1 || b[1] < 1)
    return hal::fail("input 1 (block_shape): values [", b[0], ", ", b[1], "] must be >= 1");
  const Shape& ps = ctx.inputShape(2);
  if (ps.rank() != 2 || ps.dim(0) != 2 || ps.dim(1) != 2)
    return hal::fail("input 2 (paddings): expected shape [2, 2], got ", toString(ps.dimensions));
  const std::vector<int32_t> p = int32Values(ctx, 2);
  for (int32_t v : p)
    if (v < 0) return hal::fail("input 2 (paddings): value ", v, " is negative");
  return Params{static_cast<uint32_t>(b[0]), static_cast<uint32_t>(b[1]),
                static_cast<uint32_t>(p[0]), static_cast<uint32_t>(p[1]),
                static_cast<uint32_t>(p[2]), static_cast<uint32_t>(p[3])};
}

Status prepare(OperationContext& ctx) {
  const Shape& in = ctx.inputShape(0);
  if (in.rank() != 4) return hal::fail("input 0: expected rank 4, got ", toString(in.dimensions));
  const bool nchw = optionalBool(ctx, 3);
  const std::vector<uint32_t> d = nchw ? toNhwc(in.dimensions) : in.dimensions;
  auto p = params(ctx);
  NNC_TRY(p);
  const uint64_t h = uint64_t{d[1]} + p->top + p->bottom;
  const uint64_t w = uint64_t{d[2]} + p->left + p->right;
  if (h % p->bh != 0 || w % p->bw != 0)
    return hal::fail("input 1 (block_shape): ", p->bh, "x", p->bw,
                     " does not divide the padded size ", h, "x", w);
  auto out = narrowDims({uint64_t{d[0]} * p->bh * p->bw, h / p->bh, w / p->bw, d[3]},
                        "input 1 (block_shape)");
  NNC_TRY(out);
  return setOutput(ctx, 0, nchw ? toNchw(*out) : *out);
}

Status execute(OperationContext& ctx) {
  const OperandType t = ctx.inputType(0);
  const size_t es = hal::elementSize(t);
  auto prm = params(ctx);
  NNC_TRY(prm);
  const Params p = *prm;
  std::vector<uint8_t> zero(es, 0);
  if (isQuant8(t)) zero[0] = static_cast<uint8_t>(ctx.outputShape(0).zeroPoint);
  return runNhwc(ctx, optionalBool(ctx, 3),
                 [&](const uint8_t* in, const std::vector<uint32_t>& id, uint8_t* out,
                     const std::vector<uint32_t>& od) -> Status {
                   const uint32_t inB = id[0], inH = id[1], inW = id[2], c = id[3];
                   const uint32_t outH = od[1], outW = od[2];
                   uint8_t* dst = out;
                   for (uint32_t ob = 0; ob < od[0]; ++ob) {
                     const uint32_t ib = ob % inB;
                     const uint32_t shift = ob / inB;
                     const int64_t sy = shift / p.bw, sx = shift % p.bw;
                     for (uint32_t y = 0; y < outH; ++y) {
                       const int64_t iy = int64_t{y} * p.bh + sy - p.top;
                       for (uint32_t x = 0; x < outW; ++x, dst += c * es) {
                         const int64_t ix = int64_t{x} * p.bw + sx - p.left;
                         if (iy < 0 || iy >= inH || ix < 0 || ix >= inW) {
                           fillElements(dst, zero.data(), c, es);
                         } else {
                           const uint64_t src = ((uint64_t{ib} * inH + iy) * inW + ix) * c;
                           copyElements(dst, in + src * es, c, es);
                         }
                       }
                     }
                   }
                   return Status::Ok();
                 });
}

}  // namespace

void registerSpaceToBatch(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::SPACE_TO_BATCH_ND, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops::movement
