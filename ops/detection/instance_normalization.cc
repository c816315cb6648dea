// INSTANCE_NORMALIZATION: per batch and channel, (x - mean) * gamma / sqrt(var + eps) + beta
// over the spatial plane. NHWC or NCHW.
#include <cmath>

#include "ops/detection/detection_ops.h"
#include "ops/detection/detection_util.h"
#include "ops/registry.h"

namespace nncosim::ops {
namespace {

constexpr size_t kInput = 0, kGamma = 1, kBeta = 2, kEpsilon = 3, kLayout = 4;

Status validate(const OperationContext& ctx) {
  NNC_TRY(detection::checkCounts(ctx, 5, 1));
  const OperandType t = ctx.inputType(kInput);
  OperandType scalar;
  if (t == OperandType::TENSOR_FLOAT32) {
    scalar = OperandType::FLOAT32;
  } else if (t == OperandType::TENSOR_FLOAT16) {
    scalar = OperandType::FLOAT16;
  } else {
    return hal::fail("input 0: unsupported type ", hal::toString(t));
  }
  NNC_TRY(detection::checkInputTypes(ctx, {t, scalar, scalar, scalar, OperandType::BOOL}));
  NNC_TRY(detection::checkOutputTypes(ctx, {t}));
  return detection::checkInputRank(ctx, kInput, 4);
}

Status prepare(OperationContext& ctx) {
  NNC_TRY(detection::checkInputRank(ctx, kInput, 4));
  Shape s = ctx.outputShape(0);
  s.dimensions = ctx.inputShape(kInput).dimensions;
  return ctx.setOutputShape(0, s);
}

Status execute(OperationContext& ctx) {
  const Shape& in = ctx.inputShape(kInput);
  if (in.elements() == 0) return Status::Ok();
  const float gamma = detection::floatScalar(ctx, kGamma);
  const float beta = detection::floatScalar(ctx, kBeta);
  const float epsilon = detection::floatScalar(ctx, kEpsilon);
  const bool nchw = detection::boolScalar(ctx, kLayout);
  std::vector<float> x = detection::inputAsFloat(ctx, kInput);
  std::vector<uint32_t> dims = in.dimensions;
  if (nchw) {
    x = detection::nchwToNhwc(x.data(), dims);
    dims = {dims[0], dims[2], dims[3], dims[1]};
  }
  const uint32_t batches = dims[0], depth = dims[3];
  const size_t plane = static_cast<size_t>(dims[1]) * dims[2];
  std::vector<float> y(x.size());
  for (uint32_t b = 0; b < batches; ++b) {
    for (uint32_t d = 0; d < depth; ++d) {
      const size_t base = static_cast<size_t>(b) * plane * depth + d;
      float mean = 0.0f;
      for (size_t p = 0; p < plane; ++p) mean += x[base + p * depth];
      mean /= static_cast<float>(plane);
      float var = 0.0f;
      for (size_t p = 0; p < plane; ++p) {
        const float v = x[base + p * depth] - mean;
        var += v * v;
      }
      const float sigma = std::sqrt(var / static_cast<float>(plane) + epsilon);
      for (size_t p = 0; p < plane; ++p) {
        const size_t k = base + p * depth;
        y[k] = (x[k] - mean) * gamma / sigma + beta;
      }
    }
  }
  if (nchw) y = detection::nhwcToNchw(y.data(), dims);
  detection::storeOutput(ctx, 0, y);
  return Status::Ok();
}

}  // namespace

void registerInstanceNormalization(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::INSTANCE_NORMALIZATION, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops
