// Registers the densify operations.
#include "ops/registry.h"

namespace nncosim::ops {

void registerDensifyOperations(OperationTable& t) { (void)t; }

}  // namespace nncosim::ops
