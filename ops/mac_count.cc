#include "ops/mac_count.h"

#include "ops/registry.h"

namespace nncosim::ops {

uint64_t MacQuery::outputElements() const {
  uint64_t n = 1;
  for (uint32_t d : g.operands[op.outputs[0]].dimensions) n *= d;
  return n;
}

uint64_t macCount(const hal::Model& model, const hal::Subgraph& g, const hal::Operation& op) {
  const OperationDef* def = operationTable().find(op.type);
  if (!def || !def->macs) return 0;
  if (op.inputs.size() < 2 || op.outputs.empty()) return 0;
  for (uint32_t i : op.inputs)
    if (i >= g.operands.size()) return 0;
  if (op.outputs[0] >= g.operands.size()) return 0;
  if (!hal::elementCount(g.operands[op.outputs[0]].dimensions) ||
      g.operands[op.inputs[1]].dimensions.empty())
    return 0;
  return def->macs(MacQuery{model, g, op});
}

}  // namespace nncosim::ops
