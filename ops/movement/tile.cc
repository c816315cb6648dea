// TILE: repeats the input multiples[i] times along each dimension i.
#include "ops/movement/common.h"
#include "ops/movement/movement.h"

namespace nncosim::ops::movement {
namespace {

Status validate(const OperationContext& ctx) {
  return expectUnarySignature(ctx, kFloatQuant8Int32Types, {OperandType::TENSOR_INT32}, 2);
}

Result<std::vector<uint32_t>> multiples(const OperationContext& ctx) {
  const uint32_t rank = ctx.inputShape(0).rank();
  if (rank == 0) return hal::fail("input 0: TILE needs a tensor of rank >= 1");
  NNC_TRY(expect1D(ctx, 1, rank, "multiples"));
  std::vector<uint32_t> m;
  for (int32_t v : int32Values(ctx, 1)) {
    if (v < 0) return hal::fail("input 1 (multiples): value ", v, " is negative");
    m.push_back(static_cast<uint32_t>(v));
  }
  return m;
}

Status prepare(OperationContext& ctx) {
  auto m = multiples(ctx);
  NNC_TRY(m);
  std::vector<uint32_t> dims = ctx.inputShape(0).dimensions;
  for (size_t d = 0; d < dims.size(); ++d) {
    const uint64_t v = uint64_t{dims[d]} * (*m)[d];
    if (v > UINT32_MAX) return hal::fail("dimension ", d, " overflows: ", v);
    dims[d] = static_cast<uint32_t>(v);
  }
  return setOutput(ctx, 0, dims);
}

// Tiles dimensions [d, rank) of one block; returns the number of elements written.
uint64_t tileBlock(const uint8_t* in, const std::vector<uint32_t>& dims,
                   const std::vector<uint32_t>& m, size_t d, size_t es, uint8_t* out) {
  const size_t rank = dims.size();
  if (d == rank - 1) {
    const uint64_t n = dims[d];
    for (uint32_t r = 0; r < m[d]; ++r) copyElements(out + r * n * es, in, n, es);
    return n * m[d];
  }
  const uint64_t inner = product(dims, d + 1, rank);
  uint64_t written = 0;
  for (uint32_t i = 0; i < dims[d]; ++i)
    written += tileBlock(in + i * inner * es, dims, m, d + 1, es, out + written * es);
  // Replicate the tiled block m[d] - 1 more times.
  for (uint32_t r = 1; r < m[d]; ++r) copyElements(out + r * written * es, out, written, es);
  return written * m[d];
}

Status execute(OperationContext& ctx) {
  auto m = multiples(ctx);
  NNC_TRY(m);
  if (ctx.outputShape(0).elements() == 0) return Status::Ok();
  tileBlock(ctx.inputBytes(0), ctx.inputShape(0).dimensions, *m, 0,
            hal::elementSize(ctx.inputType(0)), ctx.outputBytes(0));
  return Status::Ok();
}

}  // namespace

void registerTile(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::TILE, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops::movement
