// LOGISTIC: 1 / (1 + exp(-x)). Quantized: the output scale is fixed at 1/256 (zero point
// 0, or -128 when signed); the input is rescaled to Q4.27 and run through the fixed-point
// logistic, as TFLite's integer kernel does (executeCurve, activation.h).
#include <cmath>

#include "ops/elementwise/activation.h"

namespace nncosim::ops::elementwise {
namespace {

Status execute(OperationContext& ctx) {
  // 8 fraction bits: 1.0 (256) saturates to the top code.
  return executeCurve(
      ctx, CurveOutputQuant{"LOGISTIC", 8, 0, -128},
      [](float x) { return 1.0f / (1.0f + std::exp(-x)); },
      [](int32_t x) { return fxp::logistic<kCurveInputIntegerBits>(x); });
}

}  // namespace

void registerLogistic(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::LOGISTIC, &validateCurve, &prepareCurve, &execute});
}

}  // namespace nncosim::ops::elementwise
