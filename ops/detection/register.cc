// Registers the detection operations.
#include "ops/registry.h"

namespace nncosim::ops {

void registerDetectionOperations(OperationTable& t) { (void)t; }

}  // namespace nncosim::ops
