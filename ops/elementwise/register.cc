// Registers the elementwise operations.
#include "ops/registry.h"

namespace nncosim::ops {

void registerElementwiseOperations(OperationTable& t) { (void)t; }

}  // namespace nncosim::ops
