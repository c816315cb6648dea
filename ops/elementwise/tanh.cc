// TANH. Quantized: the output scale is fixed at 1/128 (zero point 128, or 0 when signed);
// the input is rescaled to Q4.27 and run through the fixed-point tanh, as TFLite's
// integer kernel does (executeCurve, activation.h).
#include <cmath>

#include "ops/elementwise/activation.h"

namespace nncosim::ops::elementwise {
namespace {

Status execute(OperationContext& ctx) {
  // 7 fraction bits: +1.0 (128 above the zero point) saturates.
  return executeCurve(
      ctx, CurveOutputQuant{"TANH", 7, 128, 0}, [](float x) { return std::tanh(x); },
      [](int32_t x) { return fxp::tanh<kCurveInputIntegerBits>(x); });
}

}  // namespace

void registerTanh(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::TANH, &validateCurve, &prepareCurve, &execute});
}

}  // namespace nncosim::ops::elementwise
