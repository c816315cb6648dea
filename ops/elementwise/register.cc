// Registers the elementwise operations.
#include "ops/elementwise/common.h"
#include "ops/registry.h"

namespace nncosim::ops {

void registerElementwiseOperations(OperationTable& t) {
  using namespace elementwise;  // NOLINT: the list below is all elementwise
  registerAdd(t);
  registerSub(t);
  registerMul(t);
  registerDiv(t);
  registerMaximumMinimum(t);
  registerPow(t);
  registerPrelu(t);
  registerUnaryMath(t);
  registerRelu(t);
  registerLogistic(t);
  registerTanh(t);
  registerElu(t);
  registerHardSwish(t);
  registerComparisons(t);
  registerLogical(t);
  registerSelect(t);
  registerCast(t);
  registerQuantize(t);
  registerDequantize(t);
  registerSoftmax(t);
  registerLogSoftmax(t);
}

}  // namespace nncosim::ops
