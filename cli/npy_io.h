// .npy inputs and outputs of `nncosim run`: --inputs a.npy,b.npy (in the model's input
// order) and --outputs-dir DIR (output<k>.npy per model output).
#pragma once

#include <string>
#include <vector>

#include "hal/model.h"
#include "hal/result.h"
#include "hal/tensor_value.h"

namespace nncosim::cli {

// True when `spec` names .npy files (every comma-separated item ends in ".npy").
bool isNpyList(const std::string& spec);
// One value per model input from the comma-separated .npy files, each checked against its
// input operand (dtype, shape).
hal::Result<std::vector<hal::TensorValue>> readNpyInputs(const std::string& spec,
                                                         const hal::Model& m);
// Writes DIR/output<k>.npy for every output (DIR is created if missing).
hal::Status writeNpyOutputs(const std::string& dir, const std::vector<hal::TensorValue>& outputs);

}  // namespace nncosim::cli
