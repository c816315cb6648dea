// Shared signature of the one-input activations (RELU*, LOGISTIC, TANH, HARD_SWISH).
#pragma once

#include "ops/elementwise/common.h"

namespace nncosim::ops::elementwise {

// {t} -> {t} for t in FLOAT32, FLOAT16, QUANT8_ASYMM(_SIGNED); rank <= maxRank if known.
Status validateActivation(const OperationContext& ctx, uint32_t maxRank);
// Output 0 takes input 0's dimensions; its quantization stays as declared.
Status prepareSameShape(OperationContext& ctx);
// Checks that a quantized output has the fixed scale and zero point an operation defines.
Status checkFixedOutputQuant(const OperationContext& ctx, const char* op, float scale,
                             int32_t zeroPoint);

}  // namespace nncosim::ops::elementwise
