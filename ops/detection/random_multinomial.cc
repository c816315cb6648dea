// RANDOM_MULTINOMIAL: draws sampleCount class indexes per batch from the categorical
// distribution softmax(logits), with a generator seeded by the two seeds. Results are only
// meaningful as a distribution (NNAPI compares frequencies), so any good generator
// conforms; this one is deterministic for given seeds.
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "ops/detection/detection_ops.h"
#include "ops/detection/detection_util.h"
#include "ops/registry.h"

namespace nncosim::ops {
namespace {

constexpr size_t kInput = 0, kSampleCount = 1, kSeeds = 2;

Status validate(const OperationContext& ctx) {
  NNC_TRY(detection::checkCounts(ctx, 3, 1));
  const OperandType t = ctx.inputType(kInput);
  if (t != OperandType::TENSOR_FLOAT32 && t != OperandType::TENSOR_FLOAT16)
    return hal::fail("input 0: unsupported type ", hal::toString(t));
  NNC_TRY(detection::checkInputTypes(ctx, {t, OperandType::INT32, OperandType::TENSOR_INT32}));
  NNC_TRY(detection::checkOutputTypes(ctx, {OperandType::TENSOR_INT32}));
  return detection::checkInputRank(ctx, kInput, 2);
}

Status prepare(OperationContext& ctx) {
  NNC_TRY(detection::checkInputRank(ctx, kInput, 2));
  const int32_t samples = ctx.scalar<int32_t>(kSampleCount);
  if (samples < 0) return hal::fail("input 1: sample count ", samples, " must be >= 0");
  if (ctx.inputShape(kSeeds).elements() < 2)
    return hal::fail("input 2: expected 2 seeds, found shape ",
                     toString(ctx.inputShape(kSeeds).dimensions));
  if (ctx.inputShape(kInput).dim(1) == 0 && ctx.inputShape(kInput).dim(0) != 0 && samples > 0)
    return hal::fail("input 0: no classes to sample from");
  Shape s = ctx.outputShape(0);
  s.dimensions = {ctx.inputShape(kInput).dim(0), static_cast<uint32_t>(samples)};
  return ctx.setOutputShape(0, s);
}

Status execute(OperationContext& ctx) {
  const uint32_t batches = ctx.inputShape(kInput).dim(0);
  const uint32_t classes = ctx.inputShape(kInput).dim(1);
  const int32_t samples = ctx.scalar<int32_t>(kSampleCount);
  if (batches == 0 || samples == 0) return Status::Ok();
  const std::vector<float> logits = detection::inputAsFloat(ctx, kInput);
  const int32_t* seeds = ctx.input<int32_t>(kSeeds);
  std::seed_seq seq{static_cast<uint32_t>(seeds[0]), static_cast<uint32_t>(seeds[1])};
  std::mt19937_64 rng(seq);
  int32_t* out = ctx.output<int32_t>(0);
  std::vector<double> cdf(classes);
  for (uint32_t b = 0; b < batches; ++b) {
    const float* x = logits.data() + static_cast<size_t>(b) * classes;
    // Non-finite logits get no probability mass.
    float max = std::numeric_limits<float>::lowest();
    for (uint32_t c = 0; c < classes; ++c)
      if (std::isfinite(x[c])) max = std::max(max, x[c]);
    double total = 0;
    for (uint32_t c = 0; c < classes; ++c) {
      if (std::isfinite(x[c])) total += std::exp(static_cast<double>(x[c]) - max);
      cdf[c] = total;
    }
    for (int32_t s = 0; s < samples; ++s) {
      const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;  // [0, 1)
      const double target = u * total;
      const auto it = std::upper_bound(cdf.begin(), cdf.end(), target);
      // All-non-finite rows (total 0) fall past the end: clamp to the last class.
      const auto index = std::min<ptrdiff_t>(it - cdf.begin(), static_cast<ptrdiff_t>(classes) - 1);
      out[static_cast<size_t>(b) * samples + s] = static_cast<int32_t>(index);
    }
  }
  return Status::Ok();
}

}  // namespace

void registerRandomMultinomial(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::RANDOM_MULTINOMIAL, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops
