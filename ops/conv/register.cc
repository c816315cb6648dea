// Registers the conv operations.
#include "ops/registry.h"

namespace nncosim::ops {

void registerConvOperations(OperationTable& t) { (void)t; }

}  // namespace nncosim::ops
