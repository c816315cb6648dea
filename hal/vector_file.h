// Reader for the NNAPI conformance vectors (format "nnapi-test-vectors/1", described in
// shared/conformance/README.md): each test becomes a Model plus its inputs and expected
// outputs.
#pragma once

#include <string>
#include <vector>

#include "hal/json_values.h"
#include "hal/model.h"
#include "hal/result.h"
#include "hal/tensor_value.h"

namespace nncosim::hal {

struct ConformanceTest {
  std::string file;  // path it came from
  std::string name;
  std::string minSupportedVersion;
  bool expectFailure = false;
  float multinomialTolerance = 0.0f;
  Model model;
  std::vector<TensorValue> inputs;           // one per main.inputIndexes
  std::vector<TensorValue> expectedOutputs;  // one per main.outputIndexes
  std::vector<bool> outputIgnored;
};

struct VectorFile {
  std::string path;
  std::string source;
  std::vector<ConformanceTest> tests;
};

// Reads one vector file. Errors name the file and the JSON path of the bad field.
Result<VectorFile> readVectorFile(const std::string& path);
// The same from JSON text or a parsed document; `path` names it in errors.
Result<VectorFile> parseVectorText(const std::string& text, const std::string& path);
Result<VectorFile> parseVectorJson(const Json& json, const std::string& path);
// Every *.json below `path` (or `path` itself), sorted, for a stable test order.
std::vector<std::string> listVectorFiles(const std::string& path);

}  // namespace nncosim::hal
