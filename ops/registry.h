// The operation table: one entry per hal::OperationType, filled by each family's
// registration function. The driver asks it which operations exist.
#pragma once

#include <array>

#include "hal/operation_type.h"
#include "ops/operation.h"

namespace nncosim::ops {

class OperationTable {
 public:
  // Adds `def`; registering a type twice is a programming error (aborts).
  void add(const OperationDef& def);
  // nullptr when the operation is not implemented.
  const OperationDef* find(hal::OperationType type) const;

 private:
  std::array<OperationDef, hal::kNumOperationTypes> defs_{};
  std::array<bool, hal::kNumOperationTypes> present_{};
};

// The table of every registered operation, built on first use.
const OperationTable& operationTable();

// Family registration functions, one per folder of ops/ (see registry.cc).
void registerControlFlowOperations(OperationTable& t);
void registerConvOperations(OperationTable& t);
void registerDensifyOperations(OperationTable& t);
void registerDetectionOperations(OperationTable& t);
void registerElementwiseOperations(OperationTable& t);
void registerMovementOperations(OperationTable& t);
void registerRecurrentOperations(OperationTable& t);

}  // namespace nncosim::ops
