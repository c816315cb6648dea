// The integer arithmetic of quantized ADD, SUB and MUL: the parameters NNAPI derives from
// the scales (TFLite's scheme) and the per-element computation. The reference's kernels
// (add.cc, mul.cc) and the NPU's elementwise unit (the driver's ELTWISE lowering, the ISA
// interpreter) use this one definition, so they agree bit for bit.
#pragma once

#include <cstdint>

#include "ops/operation.h"
#include "ops/quant/fixed_point.h"
#include "ops/quant/quant_params.h"

namespace nncosim::ops::elementwise {

struct QuantArithParams {
  bool mul = false;
  int leftShift = 0;                     // ADD/SUB: 20 (8-bit), 15 (int16); MUL: 0
  quant::QuantizedMultiplier a, b, out;  // a, b: ADD/SUB only (b negated for SUB)
  int32_t aZp = 0, bZp = 0, outZp = 0;
  quant::ActivationRange range{0, 0};  // the fused activation within the output type
};

// kAdd, kSub (second multiplier negated) or kMul for inputs s1, s2 and output so, all of
// one quantized type (uint8, int8; int16 for ADD/SUB); `activation` is the fused code.
Result<QuantArithParams> quantArithParams(bool mul, bool negateSecond, const Shape& s1,
                                          const Shape& s2, const Shape& so, int32_t activation);

// One output element from input values a and b. The shifts, the sum and the product wrap in
// int32 and the zero point is added without wrapping before the clamp, as the elementwise
// unit computes (TFLite's int32 code agrees wherever it does not overflow).
inline int32_t quantArithElement(const QuantArithParams& p, int32_t a, int32_t b) {
  auto wrap = [](int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(v)); };
  int32_t s;
  if (p.mul) {
    s = wrap(int64_t{a - p.aZp} * (b - p.bZp));
  } else {
    const int32_t x = wrap(int64_t{a - p.aZp} * (int64_t{1} << p.leftShift));
    const int32_t y = wrap(int64_t{b - p.bZp} * (int64_t{1} << p.leftShift));
    s = wrap(int64_t{quant::multiplyByQuantizedMultiplier(x, p.a.multiplier, p.a.shift)} +
             quant::multiplyByQuantizedMultiplier(y, p.b.multiplier, p.b.shift));
  }
  const int32_t r = quant::multiplyByQuantizedMultiplier(s, p.out.multiplier, p.out.shift);
  const int64_t y = int64_t{r} + p.outZp;
  return static_cast<int32_t>(y < p.range.min ? p.range.min : y > p.range.max ? p.range.max : y);
}

}  // namespace nncosim::ops::elementwise
