// Registers the control flow operations.
#include "ops/registry.h"

namespace nncosim::ops {

void registerControlFlowOperations(OperationTable& t) { (void)t; }

}  // namespace nncosim::ops
