// Registers the elementwise operations.
#include "ops/elementwise/common.h"
#include "ops/registry.h"

namespace nncosim::ops {

void registerElementwiseOperations(OperationTable& t) {
  elementwise::registerAdd(t);
  elementwise::registerSub(t);
  elementwise::registerMul(t);
  elementwise::registerDiv(t);
}

}  // namespace nncosim::ops
