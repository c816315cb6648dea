// LSH_PROJECTION: locality-sensitive hashing by random projections. Each bit is the sign of
// sum_i weight_i * fingerprint64(seed || input row i), for each seed of the hash tensor.
// SPARSE packs each hash function's bits into one integer (offset by i * 2^numBits unless
// deprecated); DENSE outputs the bits.
#include <cstring>

#include "hal/half.h"
#include "ops/detection/detection_ops.h"
#include "ops/detection/detection_util.h"
#include "ops/detection/fingerprint64.h"
#include "ops/registry.h"

namespace nncosim::ops {
namespace {

constexpr size_t kHash = 0, kInput = 1, kWeight = 2, kType = 3;
enum LshType : int32_t { kSparseDeprecated = 1, kDense = 2, kSparse = 3 };

Status validate(const OperationContext& ctx) {
  NNC_TRY(detection::checkCounts(ctx, 4, 1));
  using T = OperandType;
  const T in = ctx.inputType(kInput);
  if (in != T::TENSOR_FLOAT16 && in != T::TENSOR_FLOAT32 && in != T::TENSOR_INT32 &&
      in != T::TENSOR_QUANT8_ASYMM)
    return hal::fail("input 1: unsupported type ", hal::toString(in));
  const T h = ctx.inputType(kHash);
  if (h != T::TENSOR_FLOAT16 && h != T::TENSOR_FLOAT32)
    return hal::fail("input 0: unsupported hash type ", hal::toString(h));
  NNC_TRY(detection::checkInputTypes(ctx, {h, in, h, T::INT32}));
  NNC_TRY(detection::checkOutputTypes(ctx, {T::TENSOR_INT32}));
  if (ctx.hasInputValue(kType)) {
    const int32_t type = ctx.scalar<int32_t>(kType);
    if (type != kSparseDeprecated && type != kDense && type != kSparse)
      return hal::fail("input 3: projection type ", type, " is not 1 (sparse, deprecated), ",
                       "2 (dense) or 3 (sparse)");
  }
  return detection::checkInputRank(ctx, kHash, 2);
}

Status prepare(OperationContext& ctx) {
  if (ctx.isOmitted(kHash) || ctx.isOmitted(kInput) || ctx.isOmitted(kType))
    return hal::fail("inputs 0, 1 and 3 are required");
  NNC_TRY(detection::checkInputRank(ctx, kHash, 2));
  const Shape& hash = ctx.inputShape(kHash);
  const Shape& input = ctx.inputShape(kInput);
  if (hash.dim(1) > 32)
    return hal::fail("input 0: at most 32 bits per hash function, found ", hash.dim(1));
  if (input.rank() < 1) return hal::fail("input 1: expected rank >= 1, found a scalar");
  const int32_t type = ctx.scalar<int32_t>(kType);
  Shape s = ctx.outputShape(0);
  switch (type) {
    case kSparse:
    case kSparseDeprecated:
      if (!ctx.isOmitted(kWeight)) return hal::fail("input 2: sparse projection takes no weights");
      s.dimensions = {hash.dim(0)};
      break;
    case kDense: {
      if (ctx.isOmitted(kWeight)) return hal::fail("input 2: dense projection needs weights");
      const Shape& w = ctx.inputShape(kWeight);
      if (w.rank() != 1 || w.dim(0) != input.dim(0))
        return hal::fail("input 2: expected [", input.dim(0), "] weights, found ",
                         toString(w.dimensions));
      s.dimensions = {hash.dim(0) * hash.dim(1)};
      break;
    }
    default:
      return hal::fail("input 3: projection type ", type, " is not 1, 2 or 3");
  }
  return ctx.setOutputShape(0, s);
}

// 1 when the weighted sum of the fingerprints of (seed, row) over the input rows is
// positive. The seed enters the key as its float32 bytes.
int signBit(const OperationContext& ctx, const std::vector<float>& weights, float seed) {
  const Shape& input = ctx.inputShape(kInput);
  const uint32_t rows = input.dim(0);
  const size_t rowBytes = rows == 0 ? 0 : static_cast<size_t>(input.bytes() / rows);
  std::vector<uint8_t> key(sizeof(float) + rowBytes);
  std::memcpy(key.data(), &seed, sizeof(float));
  const uint8_t* in = ctx.inputBytes(kInput);
  double score = 0.0;
  for (uint32_t i = 0; i < rows; ++i) {
    if (rowBytes > 0) std::memcpy(key.data() + sizeof(float), in + i * rowBytes, rowBytes);
    const auto signature = static_cast<int64_t>(detection::fingerprint64(key.data(), key.size()));
    const double value = static_cast<double>(signature);
    score += weights.empty() ? value : static_cast<double>(weights[i]) * value;
  }
  return score > 0 ? 1 : 0;
}

Status execute(OperationContext& ctx) {
  const Shape& hash = ctx.inputShape(kHash);
  const uint32_t numHash = hash.dim(0), numBits = hash.dim(1);
  const int32_t type = ctx.scalar<int32_t>(kType);
  const std::vector<float> seeds = detection::inputAsFloat(ctx, kHash);
  std::vector<float> weights;
  if (!ctx.isOmitted(kWeight)) weights = detection::inputAsFloat(ctx, kWeight);
  int32_t* out = ctx.output<int32_t>(0);
  for (uint32_t i = 0; i < numHash; ++i) {
    int32_t signature = 0;
    for (uint32_t j = 0; j < numBits; ++j) {
      const int bit = signBit(ctx, weights, seeds[static_cast<size_t>(i) * numBits + j]);
      if (type == kDense) {
        *out++ = bit;
      } else {
        signature = static_cast<int32_t>((static_cast<uint32_t>(signature) << 1) | bit);
      }
    }
    if (type == kSparse) {
      *out++ = static_cast<int32_t>(static_cast<uint32_t>(signature) +
                                    static_cast<uint32_t>(i) * (uint32_t{1} << (numBits & 31)));
    } else if (type == kSparseDeprecated) {
      *out++ = signature;
    }
  }
  return Status::Ok();
}

}  // namespace

void registerLshProjection(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::LSH_PROJECTION, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops
