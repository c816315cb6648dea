#include "ops/registry.h"

#include <cstdio>
#include <cstdlib>

namespace nncosim::ops {

void OperationTable::add(const OperationDef& def) {
  const size_t i = hal::operationIndex(def.type);
  if (i >= defs_.size() || present_[i] || !def.validate || !def.prepare || !def.execute) {
    std::fprintf(stderr, "nncosim: bad registration of %s\n",
                 std::string(hal::toString(def.type)).c_str());
    std::abort();
  }
  defs_[i] = def;
  present_[i] = true;
}

const OperationDef* OperationTable::find(hal::OperationType type) const {
  const size_t i = hal::operationIndex(type);
  return i < defs_.size() && present_[i] ? &defs_[i] : nullptr;
}

const OperationTable& operationTable() {
  static const OperationTable table = [] {
    OperationTable t;
    registerControlFlowOperations(t);
    registerConvOperations(t);
    registerDensifyOperations(t);
    registerDetectionOperations(t);
    registerElementwiseOperations(t);
    registerMovementOperations(t);
    registerRecurrentOperations(t);
    return t;
  }();
  return table;
}

}  // namespace nncosim::ops
