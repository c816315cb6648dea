// Registers the movement operations.
#include "ops/registry.h"

namespace nncosim::ops {

void registerMovementOperations(OperationTable& t) { (void)t; }

}  // namespace nncosim::ops
