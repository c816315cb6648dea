// ADD, SUB, MUL, DIV: the shared signature, broadcast shape and the float/int32 kernels.
// The quantized kernels live with their operation (add.cc: ADD and SUB, mul.cc: MUL).
#pragma once

#include "ops/elementwise/common.h"
#include "ops/quant/quant_params.h"

namespace nncosim::ops::elementwise {

enum class ArithOp { kAdd, kSub, kMul, kDiv };

// NNAPI's broadcast::validate: {t, t, INT32} -> {t}, rank <= 4, per-op type support.
Status validateArithmetic(ArithOp op, const OperationContext& ctx);
// Output 0 = broadcast of inputs 0 and 1.
Status prepareBroadcastBinary(OperationContext& ctx);
// Float, half and int32 cases of any of the four (quantized cases return an error).
Status executeArithmeticNonQuant(ArithOp op, OperationContext& ctx);

// Quantized ADD (negateSecond = false) and SUB (true) with TFLite's scheme.
Status executeQuantAddSub(OperationContext& ctx, bool negateSecond);

// NNAPI's QuantizeMultiplierSmallerThanOneExp: 0 < real < 1, shift <= 0.
Result<quant::QuantizedMultiplier> multiplierSmallerThanOne(double real, const char* what);

}  // namespace nncosim::ops::elementwise
