// DENSIFY (AOSP experimental operation 20000): a sparse tensor in the TACO-style format of
// densify_walker.h to its dense form.
//
// Inputs: 0 the stored values (1-D), 1 traversal order, 2 block map (optional), 3 dim format,
// 4 dimensions, then one (array segments, array indices) pair per traversal level (both
// omitted for DENSE levels). Every input after 0 is a 1-D TENSOR_INT32; an empty tensor
// counts as omitted. Output 0: the dense tensor, of input 0's type. Elements the format does
// not store are zero (the zero point for asymmetric quantized types).
#include "ops/densify/densify.h"

#include <cstring>
#include <optional>

#include "ops/densify/densify_walker.h"

namespace nncosim::ops {
namespace {

constexpr size_t kValues = 0;
constexpr size_t kTraversalOrder = 1;
constexpr size_t kBlockMap = 2;
constexpr size_t kDimFormat = 3;
constexpr size_t kDimensions = 4;
constexpr size_t kFirstSegments = 5;
constexpr size_t kMinInputs = 5;

const char* inputName(size_t i) {
  switch (i) {
    case kValues:
      return "values";
    case kTraversalOrder:
      return "traversal order";
    case kBlockMap:
      return "block map";
    case kDimFormat:
      return "dim format";
    case kDimensions:
      return "dimensions";
    default:
      return (i - kFirstSegments) % 2 == 0 ? "array segments" : "array indices";
  }
}

bool supportedValueType(OperandType t) {
  switch (t) {
    case OperandType::TENSOR_FLOAT32:
    case OperandType::TENSOR_FLOAT16:
    case OperandType::TENSOR_INT32:
    case OperandType::TENSOR_BOOL8:
    case OperandType::TENSOR_QUANT8_ASYMM:
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
    case OperandType::TENSOR_QUANT8_SYMM:
    case OperandType::TENSOR_QUANT16_SYMM:
    case OperandType::TENSOR_QUANT16_ASYMM:
      return true;
    default:
      return false;
  }
}

// Rank must be 1; an unknown rank (empty dimensions) passes until execution.
Status checkRank1(const OperationContext& ctx, size_t i) {
  const Shape& s = ctx.inputShape(i);
  if (s.rank() == 1 || (s.rank() == 0 && !ctx.executing())) return Status::Ok();
  return hal::fail("input ", i, " (", inputName(i), "): expected a 1-D tensor, found dimensions ",
                   toString(s.dimensions));
}

// The int32 array of input i: empty when omitted or empty, nullopt when not readable yet.
std::optional<std::vector<int32_t>> readArray(const OperationContext& ctx, size_t i) {
  if (ctx.isOmitted(i)) return std::vector<int32_t>{};
  const uint64_t n = ctx.inputShape(i).elements();
  // An empty constant has no bytes to point at; during execution every value is known.
  if (n == 0 && ctx.executing()) return std::vector<int32_t>{};
  if (!ctx.hasInputValue(i)) return std::nullopt;
  std::vector<int32_t> v(static_cast<size_t>(n));
  if (n) std::memcpy(v.data(), ctx.inputBytes(i), n * sizeof(int32_t));
  return v;
}

// The sparse format from inputs 1..; nullopt while some array is not readable (before
// execution, for non-constant metadata).
Result<std::optional<SparseFormat>> readFormat(const OperationContext& ctx) {
  SparseFormat f;
  std::vector<int32_t>* fixed[] = {&f.traversalOrder, &f.blockMap, &f.dimFormat, &f.dimensions};
  for (size_t i = kTraversalOrder; i <= kDimensions; ++i) {
    auto v = readArray(ctx, i);
    if (!v) return std::optional<SparseFormat>{};
    *fixed[i - kTraversalOrder] = std::move(*v);
  }
  const size_t levels = f.traversalOrder.size();
  if (ctx.numInputs() != kMinInputs + 2 * levels)
    return hal::fail("the traversal order has ", levels, " entries, so DENSIFY needs ",
                     kMinInputs + 2 * levels,
                     " inputs (5 plus a segments/indices pair per level), found ", ctx.numInputs());
  f.segments.resize(levels);
  f.indices.resize(levels);
  for (size_t l = 0; l < levels; ++l) {
    auto seg = readArray(ctx, kFirstSegments + 2 * l);
    auto idx = readArray(ctx, kFirstSegments + 2 * l + 1);
    if (!seg || !idx) return std::optional<SparseFormat>{};
    f.segments[l] = std::move(*seg);
    f.indices[l] = std::move(*idx);
  }
  return std::optional<SparseFormat>(std::move(f));
}

// The walker for the operation's metadata, checked against the number of stored values.
Result<DensifyWalker> makeWalker(const OperationContext& ctx) {
  auto f = readFormat(ctx);
  if (!f.ok()) return Error{f.error()};
  if (!f->has_value()) return hal::fail("the sparsity metadata is not known");
  NNC_ASSIGN_OR_RETURN(auto w, DensifyWalker::create(std::move(**f)));
  const uint64_t stored = ctx.inputShape(kValues).elements();
  if (w.numValues() != stored)
    return hal::fail("input 0 (values) holds ", stored, " values but the sparsity metadata stores ",
                     w.numValues());
  return w;
}

template <typename T>
void scatter(const DensifyWalker& w, const T* values, T fill, T* out) {
  std::fill(out, out + w.denseElements(), fill);
  w.forEach([&](uint64_t v, uint64_t offset) { out[offset] = values[v]; });
}

}  // namespace

Status validateDensify(const OperationContext& ctx) {
  NNC_CHECK_GE(ctx.numInputs(), kMinInputs, "DENSIFY needs at least ", kMinInputs,
               " inputs, found ", ctx.numInputs());
  NNC_CHECK_EQ(ctx.numOutputs(), 1, "DENSIFY has 1 output, found ", ctx.numOutputs());
  NNC_CHECK(!ctx.isOmitted(kValues), "input 0 (values) must not be omitted");
  const OperandType type = ctx.inputType(kValues);
  NNC_CHECK(supportedValueType(type), "input 0 (values): unsupported type ", hal::toString(type));
  NNC_TRY(checkRank1(ctx, kValues));
  NNC_CHECK_EQ(ctx.outputShape(0).type, type, "output 0: type ",
               hal::toString(ctx.outputShape(0).type), " differs from input 0's ",
               hal::toString(type));
  for (size_t i = 1; i < ctx.numInputs(); ++i) {
    const bool optional = i == kBlockMap || i >= kFirstSegments;
    if (ctx.isOmitted(i)) {
      NNC_CHECK(optional, "input ", i, " (", inputName(i), ") must not be omitted");
      continue;
    }
    NNC_CHECK_EQ(ctx.inputType(i), OperandType::TENSOR_INT32, "input ", i, " (", inputName(i),
                 "): expected TENSOR_INT32, found ", hal::toString(ctx.inputType(i)));
    NNC_TRY(checkRank1(ctx, i));
  }
  // The input count follows the traversal order's length, known from its shape.
  const Shape& order = ctx.inputShape(kTraversalOrder);
  if (order.rank() == 1 && order.dim(0) != 0) {
    const size_t want = kMinInputs + 2 * static_cast<size_t>(order.dim(0));
    NNC_CHECK_EQ(ctx.numInputs(), want, "the traversal order has ", order.dim(0),
                 " entries, so DENSIFY needs ", want, " inputs, found ", ctx.numInputs());
  }
  // The metadata values, as soon as they are all readable.
  auto f = readFormat(ctx);
  if (!f.ok()) return Error{f.error()};
  if (!f->has_value()) return Status::Ok();
  NNC_ASSIGN_OR_RETURN(auto w, DensifyWalker::create(std::move(**f)));
  const Shape& values = ctx.inputShape(kValues);
  if (ctx.executing() || (values.rank() == 1 && values.dim(0) != 0))
    NNC_CHECK(w.numValues() == values.elements(), "input 0 (values) holds ", values.elements(),
              " values but the sparsity metadata stores ", w.numValues());
  return Status::Ok();
}

Status prepareDensify(OperationContext& ctx) {
  NNC_ASSIGN_OR_RETURN(auto w, makeWalker(ctx));
  Shape out = ctx.outputShape(0);
  out.dimensions = w.denseShape();
  return ctx.setOutputShape(0, out);
}

Status executeDensify(OperationContext& ctx) {
  NNC_ASSIGN_OR_RETURN(auto w, makeWalker(ctx));
  NNC_CHECK(ctx.outputShape(0).elements() == w.denseElements(), "output 0 has ",
            ctx.outputShape(0).elements(), " elements, the dense tensor ", w.denseElements());
  const Shape& in = ctx.inputShape(kValues);
  const uint8_t* values = ctx.inputBytes(kValues);
  if (w.denseElements() == 0) return Status::Ok();
  switch (in.type) {
    case OperandType::TENSOR_QUANT8_ASYMM:
      scatter<uint8_t>(w, values, static_cast<uint8_t>(in.zeroPoint), ctx.output<uint8_t>(0));
      break;
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      scatter<int8_t>(w, reinterpret_cast<const int8_t*>(values), static_cast<int8_t>(in.zeroPoint),
                      ctx.output<int8_t>(0));
      break;
    case OperandType::TENSOR_QUANT16_ASYMM:
      scatter<uint16_t>(w, reinterpret_cast<const uint16_t*>(values),
                        static_cast<uint16_t>(in.zeroPoint), ctx.output<uint16_t>(0));
      break;
    default:
      // Zero is all-zero bytes for every other supported type (float, half, int, bool,
      // symmetric quantized), so only the element size matters.
      switch (hal::elementSize(in.type)) {
        case 1:
          scatter<uint8_t>(w, values, 0, ctx.output<uint8_t>(0));
          break;
        case 2:
          scatter<uint16_t>(w, reinterpret_cast<const uint16_t*>(values), 0,
                            ctx.output<uint16_t>(0));
          break;
        case 4:
          scatter<uint32_t>(w, reinterpret_cast<const uint32_t*>(values), 0,
                            ctx.output<uint32_t>(0));
          break;
        default:
          return hal::fail("input 0 (values): unsupported type ", hal::toString(in.type));
      }
  }
  return Status::Ok();
}

}  // namespace nncosim::ops
