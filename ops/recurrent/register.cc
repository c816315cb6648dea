// Registers the recurrent operations.
#include "ops/registry.h"

namespace nncosim::ops {

void registerRecurrentOperations(OperationTable& t) { (void)t; }

}  // namespace nncosim::ops
