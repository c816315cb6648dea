// MIRROR_PAD: pads by mirroring, REFLECT (0: border excluded) or SYMMETRIC (1: included).
#include "ops/movement/common.h"
#include "ops/movement/movement.h"
#include "ops/movement/pad_common.h"

namespace nncosim::ops::movement {
namespace {

constexpr int32_t kReflect = 0;
constexpr int32_t kSymmetric = 1;

Status validate(const OperationContext& ctx) {
  NNC_TRY(expectUnarySignature(ctx, kFloatQuant8Int32Types,
                               {OperandType::TENSOR_INT32, OperandType::INT32}, 3));
  const Shape& pad = ctx.inputShape(1);
  if (rankKnown(pad) && (pad.rank() != 2 || (pad.dim(1) != 0 && pad.dim(1) != 2)))
    return hal::fail("input 1 (paddings): expected shape [rank, 2], got ",
                     toString(pad.dimensions));
  if (ctx.hasInputValue(2)) {
    const int32_t mode = ctx.scalar<int32_t>(2);
    if (mode != kReflect && mode != kSymmetric)
      return hal::fail("input 2 (mode): ", mode, " is not 0 (REFLECT) or 1 (SYMMETRIC)");
  }
  return Status::Ok();
}

Result<Paddings> checkedPaddings(const OperationContext& ctx) {
  const Shape& in = ctx.inputShape(0);
  if (in.rank() == 0) return hal::fail("input 0: MIRROR_PAD needs a tensor of rank >= 1");
  const int32_t mode = ctx.scalar<int32_t>(2);
  if (mode != kReflect && mode != kSymmetric)
    return hal::fail("input 2 (mode): ", mode, " is not 0 (REFLECT) or 1 (SYMMETRIC)");
  auto p = readPaddings(ctx, 1, in.rank());
  NNC_TRY(p);
  for (uint32_t d = 0; d < in.rank(); ++d) {
    const int64_t limit = int64_t{in.dim(d)} - (mode == kReflect ? 1 : 0);
    if (p->before[d] > limit || p->after[d] > limit)
      return hal::fail("input 1 (paddings): dimension ", d, " of size ", in.dim(d),
                       " allows padding up to ", limit, " in ",
                       mode == kReflect ? "REFLECT" : "SYMMETRIC", " mode, got [", p->before[d],
                       ", ", p->after[d], "]");
  }
  return p;
}

Status prepare(OperationContext& ctx) {
  auto p = checkedPaddings(ctx);
  NNC_TRY(p);
  return setOutput(ctx, 0, paddedDims(ctx.inputShape(0).dimensions, *p));
}

Status execute(OperationContext& ctx) {
  auto p = checkedPaddings(ctx);
  NNC_TRY(p);
  const Shape& in = ctx.inputShape(0);
  const Shape& out = ctx.outputShape(0);
  const size_t es = hal::elementSize(in.type);
  const int64_t shift = ctx.scalar<int32_t>(2) == kReflect ? 0 : 1;
  const uint32_t rank = in.rank();
  // Source index along each dimension for every output index.
  std::vector<std::vector<uint32_t>> src(rank);
  for (uint32_t d = 0; d < rank; ++d) {
    const int64_t n = in.dim(d);
    for (int64_t o = 0; o < out.dim(d); ++o) {
      int64_t i = o - p->before[d];
      if (i < 0) i = -i - shift;
      if (i >= n) i = 2 * n - 2 - i + shift;
      src[d].push_back(static_cast<uint32_t>(i));
    }
  }
  std::vector<uint64_t> inStride(rank, 1);
  for (uint32_t d = rank - 1; d > 0; --d) inStride[d - 1] = inStride[d] * in.dim(d);
  const uint64_t total = out.elements();
  std::vector<uint32_t> idx(rank, 0);
  const uint8_t* inBytes = ctx.inputBytes(0);
  uint8_t* dst = ctx.outputBytes(0);
  for (uint64_t o = 0; o < total; ++o) {
    uint64_t s = 0;
    for (uint32_t d = 0; d < rank; ++d) s += src[d][idx[d]] * inStride[d];
    std::memcpy(dst + o * es, inBytes + s * es, es);
    for (uint32_t d = rank; d-- > 0;) {
      if (++idx[d] < out.dim(d)) break;
      idx[d] = 0;
    }
  }
  return Status::Ok();
}

}  // namespace

void registerMirrorPad(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::MIRROR_PAD, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops::movement
