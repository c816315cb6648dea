// MAC counts: the multiply-accumulates of an operation from its declared shapes, for
// reports (`nncosim info`, the run table's utilization). Each operation whose work is
// MACs registers its count in the operation table (OperationDef::macs).
#pragma once

#include <cstdint>
#include <vector>

#include "hal/model.h"

namespace nncosim::ops {

// What a count may read: the operation and its subgraph, every operand index of the
// operation in range, at least two inputs, output 0 with fully known dimensions and
// input 1 with some (macCount checks all of this before asking).
struct MacQuery {
  const hal::Model& model;
  const hal::Subgraph& g;
  const hal::Operation& op;
  const std::vector<uint32_t>& input(size_t i) const { return g.operands[op.inputs[i]].dimensions; }
  bool inputOmitted(size_t i) const {
    return g.operands[op.inputs[i]].lifetime == hal::OperandLifeTime::NO_VALUE;
  }
  uint64_t outputElements() const;
};

// 0 for operations without a count, or whose shapes are not known; never reads out of
// range on an invalid model.
uint64_t macCount(const hal::Model& model, const hal::Subgraph& g, const hal::Operation& op);

}  // namespace nncosim::ops
