// Structural validation of a Model, as the NNAPI runtime performs it before a driver
// sees the model. Per-operation signature checks live with the operations (ops/).
#pragma once

#include <string>
#include <vector>

#include "hal/model.h"

namespace nncosim::hal {

struct ValidationIssue {
  std::string where;  // "main operand 3", "referenced[1] operation 0", "model"
  std::string rule;   // what is wrong
  std::string str() const { return where + ": " + rule; }
};

// Every problem found, in model order; empty means valid.
std::vector<ValidationIssue> validateModel(const Model& model);
// How many times validateModel ran in this process (tests hold paths to one per model).
uint64_t modelValidations();

// Checks one operand's type, dimensions and quantization parameters alone.
// Returns the first problem, or an empty string.
std::string checkOperandType(const Operand& o);

}  // namespace nncosim::hal
