#include "frontend/model_source.h"

#include <fstream>

#include "hal/model_file.h"
#include "hal/tflite/tflite_file.h"
#include "hal/tflite/tflite_import.h"
#include "hal/validation.h"

namespace nncosim::frontend {

namespace {

hal::Result<std::vector<NamedModel>> readModels(const std::string& path) {
  // Sniff the format field cheaply: vector files name "nnapi-test-vectors/1".
  std::ifstream in(path, std::ios::binary);
  if (!in) return hal::fail(path, ": cannot open file");
  std::string head(4096, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  std::vector<NamedModel> out;
  // TFLite flatbuffers carry "TFL3" at byte offset 4.
  if (tflite::looksLikeTflite(reinterpret_cast<const uint8_t*>(head.data()), head.size())) {
    NNC_ASSIGN_OR_RETURN(auto m, tflite::readTfliteFile(path));
    out.push_back({path, std::move(m), {}, false});
    return out;
  }
  if (head.find("nnapi-test-vectors/") != std::string::npos) {
    NNC_ASSIGN_OR_RETURN(auto vf, hal::readVectorFile(path));
    for (auto& t : vf.tests)
      out.push_back(
          {path + ":" + t.name, std::move(t.model), std::move(t.inputs), t.expectFailure});
    return out;
  }
  NNC_ASSIGN_OR_RETURN(auto m, hal::readModelFile(path));
  out.push_back({path, std::move(m), {}, false});
  return out;
}

}  // namespace

hal::Result<std::vector<NamedModel>> loadModels(const std::string& path, ModelCheck check) {
  auto models = readModels(path);
  if (!models || check == ModelCheck::None) return models;
  std::string issues;
  for (const auto& m : *models)
    for (const auto& issue : hal::validateModel(m.model))
      issues += (issues.empty() ? "" : "\n") + m.name + ": " + issue.str();
  if (!issues.empty()) return hal::Error{issues};
  return models;
}

}  // namespace nncosim::frontend
