// Loading "a model" by path, for the command line and the Python module: a project model
// file (nncosim-model/1), a TFLite flatbuffer (imported, hal/tflite/) or a conformance
// vector file (every test in it), told apart by their first bytes.
#pragma once

#include <string>
#include <vector>

#include "hal/result.h"
#include "hal/vector_file.h"

namespace nncosim::frontend {

struct NamedModel {
  std::string name;  // file, or file:test
  hal::Model model;
  std::vector<hal::TensorValue> inputs;  // from vector files; empty for model files
  bool expectFailure = false;
};

// Whether loadModels checks the models it read. Every command that uses a model needs
// Structural: stats, input readers and the driver index operands and pools without
// bounds checks, so an unvalidated model could crash them. Only `validate`, which
// reports the issues itself, reads them unchecked.
enum class ModelCheck { Structural, None };

// Reads every model in `path`. With ModelCheck::Structural an invalid model fails the
// whole load with each issue on its own line, "file[:test]: where: rule".
hal::Result<std::vector<NamedModel>> loadModels(const std::string& path,
                                                ModelCheck check = ModelCheck::Structural);

}  // namespace nncosim::frontend
