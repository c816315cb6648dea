// Loading "a model" from the command line: a project model file (nncosim-model/1),
// a TFLite flatbuffer (imported, hal/tflite/) or a conformance vector file (every test
// in it), told apart by their first bytes.
#pragma once

#include <string>
#include <vector>

#include "hal/result.h"
#include "hal/vector_file.h"

namespace nncosim::cli {

struct NamedModel {
  std::string name;  // file, or file:test
  hal::Model model;
  std::vector<hal::TensorValue> inputs;  // from vector files; empty for model files
  bool expectFailure = false;
};

hal::Result<std::vector<NamedModel>> loadModels(const std::string& path);

}  // namespace nncosim::cli
