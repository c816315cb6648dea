// Registers the control flow operations.
#include "ops/control_flow/control_flow.h"
#include "ops/registry.h"

namespace nncosim::ops {

void registerControlFlowOperations(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::IF, &validateIf, &prepareIf, &executeControlFlow});
  t.add(
      OperationDef{hal::OperationType::WHILE, &validateWhile, &prepareWhile, &executeControlFlow});
}

}  // namespace nncosim::ops
