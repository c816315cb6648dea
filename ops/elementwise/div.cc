// DIV: elementwise quotient with broadcasting and a fused activation; TENSOR_INT32 uses
// floor division and gives 0 for a zero divisor (NNAPI leaves it undefined).
#include "ops/elementwise/arithmetic.h"

namespace nncosim::ops::elementwise {
namespace {

Status validate(const OperationContext& ctx) { return validateArithmetic(ArithOp::kDiv, ctx); }

Status execute(OperationContext& ctx) { return executeArithmeticNonQuant(ArithOp::kDiv, ctx); }

}  // namespace

void registerDiv(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::DIV, &validate, &prepareBroadcastBinary, &execute});
}

}  // namespace nncosim::ops::elementwise
