// Registers the densify operations.
#include "ops/densify/densify.h"
#include "ops/registry.h"

namespace nncosim::ops {

void registerDensifyOperations(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::DENSIFY, &validateDensify, &prepareDensify,
                     &executeDensify});
}

}  // namespace nncosim::ops
