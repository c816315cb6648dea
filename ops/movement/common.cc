#include "ops/movement/common.h"

#include <algorithm>
#include <sstream>

namespace nncosim::ops::movement {

Status expectCounts(const OperationContext& ctx, size_t minInputs, size_t maxInputs,
                    size_t outputs) {
  if (ctx.numInputs() < minInputs || ctx.numInputs() > maxInputs) {
    if (minInputs == maxInputs)
      return hal::fail("expected ", minInputs, " inputs, got ", ctx.numInputs());
    return hal::fail("expected ", minInputs, " to ", maxInputs, " inputs, got ", ctx.numInputs());
  }
  if (ctx.numOutputs() != outputs)
    return hal::fail("expected ", outputs, " outputs, got ", ctx.numOutputs());
  return Status::Ok();
}

Status expectRequired(const OperationContext& ctx, size_t n) {
  for (size_t i = 0; i < n && i < ctx.numInputs(); ++i)
    if (ctx.isOmitted(i)) return hal::fail("input ", i, " is required but has no value");
  return Status::Ok();
}

Status expectInputType(const OperationContext& ctx, size_t i, OperandType t) {
  if (ctx.inputType(i) != t)
    return hal::fail("input ", i, ": expected type ", hal::toString(t), ", got ",
                     hal::toString(ctx.inputType(i)));
  return Status::Ok();
}

Status expectOutputType(const OperationContext& ctx, size_t i, OperandType t) {
  if (ctx.outputShape(i).type != t)
    return hal::fail("output ", i, ": expected type ", hal::toString(t), ", got ",
                     hal::toString(ctx.outputShape(i).type));
  return Status::Ok();
}

Status expectInputTypeIn(const OperationContext& ctx, size_t i,
                         std::initializer_list<OperandType> allowed) {
  for (OperandType t : allowed)
    if (ctx.inputType(i) == t) return Status::Ok();
  return hal::fail("input ", i, ": type ", hal::toString(ctx.inputType(i)),
                   " is not supported (expected one of ", toString(allowed), ")");
}

Status expectSameQuant(const OperationContext& ctx, size_t in, size_t out) {
  const Shape& a = ctx.inputShape(in);
  const Shape& b = ctx.outputShape(out);
  if (!isQuant8(a.type) && a.type != OperandType::TENSOR_QUANT16_ASYMM &&
      a.type != OperandType::TENSOR_QUANT16_SYMM)
    return Status::Ok();
  if (a.scale != b.scale || a.zeroPoint != b.zeroPoint)
    return hal::fail("output ", out, ": scale ", b.scale, " and zeroPoint ", b.zeroPoint,
                     " must equal input ", in, "'s scale ", a.scale, " and zeroPoint ",
                     a.zeroPoint);
  return Status::Ok();
}

Status expectInputRank(const OperationContext& ctx, size_t i, uint32_t minRank, uint32_t maxRank) {
  const Shape& s = ctx.inputShape(i);
  if (!rankKnown(s)) return Status::Ok();
  if (s.rank() < minRank || s.rank() > maxRank) {
    if (minRank == maxRank)
      return hal::fail("input ", i, ": expected rank ", minRank, ", got shape ",
                       toString(s.dimensions));
    return hal::fail("input ", i, ": expected rank ", minRank, " to ", maxRank, ", got shape ",
                     toString(s.dimensions));
  }
  return Status::Ok();
}

Status expectUnarySignature(const OperationContext& ctx, std::initializer_list<OperandType> types,
                            std::initializer_list<OperandType> extra, size_t required) {
  NNC_TRY(expectCounts(ctx, required, 1 + extra.size(), 1));
  NNC_TRY(expectInputTypeIn(ctx, 0, types));
  NNC_TRY(expectRequired(ctx, required));
  size_t i = 1;
  for (OperandType t : extra) {
    if (i >= ctx.numInputs()) break;
    NNC_TRY(expectInputType(ctx, i, t));
    ++i;
  }
  NNC_TRY(expectOutputType(ctx, 0, ctx.inputType(0)));
  return expectSameQuant(ctx, 0, 0);
}

std::initializer_list<OperandType> movementTypes(const OperationContext& ctx) {
  const bool wide = ctx.quant16x8() && ctx.numInputs() > 0 &&
                    ctx.inputType(0) == OperandType::TENSOR_QUANT16_SYMM;
  return wide ? kQuant16Types : kFloatQuant8Types;
}

bool isQuant8(OperandType t) {
  return t == OperandType::TENSOR_QUANT8_ASYMM || t == OperandType::TENSOR_QUANT8_ASYMM_SIGNED ||
         t == OperandType::TENSOR_QUANT8_SYMM;
}

std::vector<int32_t> int32Values(const OperationContext& ctx, size_t i) {
  const size_t n = static_cast<size_t>(ctx.inputShape(i).elements());
  std::vector<int32_t> v(n);
  if (n) std::memcpy(v.data(), ctx.inputBytes(i), n * sizeof(int32_t));
  return v;
}

Status expect1D(const OperationContext& ctx, size_t i, int64_t count, const char* what) {
  const Shape& s = ctx.inputShape(i);
  if (s.rank() != 1)
    return hal::fail("input ", i, " (", what, "): expected a 1-D tensor, got shape ",
                     toString(s.dimensions));
  if (count >= 0 && s.dim(0) != static_cast<uint64_t>(count))
    return hal::fail("input ", i, " (", what, "): expected ", count, " values, got ", s.dim(0));
  return Status::Ok();
}

Result<uint32_t> resolveAxis(int32_t axis, uint32_t rank, const char* what) {
  const int64_t r = rank;
  if (axis < -r || axis >= r)
    return hal::fail(what, " ", axis, " is out of range [", -r, ", ", r, ")");
  return static_cast<uint32_t>(axis < 0 ? axis + r : axis);
}

bool optionalBool(const OperationContext& ctx, size_t i, bool def) {
  if (ctx.isOmitted(i) || !ctx.hasInputValue(i)) return def;
  return ctx.scalar<uint8_t>(i) != 0;
}

Status setOutput(OperationContext& ctx, size_t i, std::vector<uint32_t> dims) {
  uint64_t n = 1;
  for (uint32_t d : dims) {
    n *= d;
    if (n > (uint64_t{1} << 31))
      return hal::fail("output ", i, ": shape ", toString(dims), " has more than 2^31 elements");
  }
  Shape s = ctx.outputShape(i);
  s.dimensions = std::move(dims);
  return ctx.setOutputShape(i, s);
}

Result<std::vector<uint32_t>> narrowDims(const std::vector<uint64_t>& dims, const char* what) {
  std::vector<uint32_t> out;
  for (uint64_t d : dims) {
    if (d > UINT32_MAX) return hal::fail(what, ": output dimension ", d, " overflows uint32");
    out.push_back(static_cast<uint32_t>(d));
  }
  return out;
}

uint64_t product(const std::vector<uint32_t>& dims, size_t begin, size_t end) {
  uint64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= dims[i];
  return p;
}

namespace {

template <typename E>
void permuteTyped(const E* in, const std::vector<uint32_t>& inDims,
                  const std::vector<uint32_t>& perm, E* out) {
  const size_t rank = inDims.size();
  if (rank == 0) {
    out[0] = in[0];
    return;
  }
  // Input strides, reordered to the output's dimension order.
  std::vector<uint64_t> inStride(rank, 1);
  for (size_t d = rank - 1; d > 0; --d) inStride[d - 1] = inStride[d] * inDims[d];
  std::vector<uint64_t> stride(rank), extent(rank);
  uint64_t total = 1;
  for (size_t d = 0; d < rank; ++d) {
    stride[d] = inStride[perm[d]];
    extent[d] = inDims[perm[d]];
    total *= extent[d];
  }
  if (total == 0) return;
  std::vector<uint64_t> idx(rank, 0);
  uint64_t src = 0;
  const size_t last = rank - 1;
  for (uint64_t o = 0; o < total;) {
    // Innermost dimension as a strided run.
    const uint64_t n = extent[last];
    const uint64_t s = stride[last];
    for (uint64_t k = 0; k < n; ++k) out[o + k] = in[src + k * s];
    o += n;
    // Carry into the outer dimensions.
    size_t d = last;
    while (d > 0) {
      --d;
      src += stride[d];
      if (++idx[d] < extent[d]) break;
      src -= stride[d] * extent[d];
      idx[d] = 0;
    }
  }
}

}  // namespace

void permute(const uint8_t* in, const std::vector<uint32_t>& inDims,
             const std::vector<uint32_t>& perm, size_t elemSize, uint8_t* out) {
  switch (elemSize) {
    case 1:
      permuteTyped(in, inDims, perm, out);
      return;
    case 2:
      permuteTyped(reinterpret_cast<const uint16_t*>(in), inDims, perm,
                   reinterpret_cast<uint16_t*>(out));
      return;
    case 4:
      permuteTyped(reinterpret_cast<const uint32_t*>(in), inDims, perm,
                   reinterpret_cast<uint32_t*>(out));
      return;
    default: {
      // Any other size: permute element indices, then copy.
      const uint64_t n = product(inDims, 0, inDims.size());
      std::vector<uint32_t> index(n), permuted(n);
      for (uint64_t i = 0; i < n; ++i) index[i] = static_cast<uint32_t>(i);
      permuteTyped(index.data(), inDims, perm, permuted.data());
      for (uint64_t i = 0; i < n; ++i)
        std::memcpy(out + i * elemSize, in + permuted[i] * elemSize, elemSize);
    }
  }
}

std::vector<uint8_t> nchwToNhwc(const uint8_t* in, const std::vector<uint32_t>& nchwDims,
                                size_t elemSize) {
  std::vector<uint8_t> out(product(nchwDims, 0, nchwDims.size()) * elemSize);
  permute(in, nchwDims, {0, 2, 3, 1}, elemSize, out.data());
  return out;
}

void nhwcToNchw(const uint8_t* in, const std::vector<uint32_t>& nhwcDims, size_t elemSize,
                uint8_t* out) {
  permute(in, nhwcDims, {0, 3, 1, 2}, elemSize, out);
}

void fillElements(uint8_t* dst, const uint8_t* value, size_t count, size_t elemSize) {
  if (count == 0) return;
  if (elemSize == 1) {
    std::memset(dst, value[0], count);
    return;
  }
  std::memcpy(dst, value, elemSize);
  // Doubling copies.
  size_t done = 1;
  while (done < count) {
    const size_t n = std::min(done, count - done);
    std::memcpy(dst + done * elemSize, dst, n * elemSize);
    done += n;
  }
}

}  // namespace nncosim::ops::movement

namespace nncosim::ops::movement {

Result<ReducePlan> makeReducePlan(const Shape& input, const std::vector<int32_t>& axes,
                                  bool keepDims, const char* what) {
  const uint32_t rank = input.rank();
  ReducePlan p;
  p.reduced.assign(rank, false);
  for (int32_t a : axes) {
    auto axis = resolveAxis(a, rank, what);
    NNC_TRY(axis);
    p.reduced[*axis] = true;
  }
  // Output strides over the kept dimensions (reduced ones collapse to 1).
  std::vector<uint32_t> full(rank);
  for (uint32_t d = 0; d < rank; ++d) {
    full[d] = p.reduced[d] ? 1 : input.dim(d);
    if (p.reduced[d]) p.reducedCount *= input.dim(d);
    if (!p.reduced[d] || keepDims) p.outDims.push_back(full[d]);
  }
  if (p.outDims.empty()) p.outDims.push_back(1);
  p.outStride.assign(rank, 0);
  uint64_t stride = 1;
  for (uint32_t d = rank; d-- > 0;) {
    if (!p.reduced[d]) p.outStride[d] = stride;
    stride *= full[d];
  }
  return p;
}

}  // namespace nncosim::ops::movement
