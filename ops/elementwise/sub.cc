// SUB: elementwise difference with broadcasting and a fused activation. The quantized case
// is ADD's kernel with the second input's multiplier negated, as NNAPI does.
#include "ops/elementwise/arithmetic.h"

namespace nncosim::ops::elementwise {
namespace {

Status validate(const OperationContext& ctx) { return validateArithmetic(ArithOp::kSub, ctx); }

Status execute(OperationContext& ctx) {
  if (isQuant8(ctx.inputType(0)) || ctx.inputType(0) == OperandType::TENSOR_QUANT16_SYMM)
    return executeQuantAddSub(ctx, /*negateSecond=*/true);
  return executeArithmeticNonQuant(ArithOp::kSub, ctx);
}

}  // namespace

void registerSub(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::SUB, &validate, &prepareBroadcastBinary, &execute});
}

}  // namespace nncosim::ops::elementwise
