// libFuzzer target: the model-file and vector-file readers and the structural
// validator must reject any input with an error, never crash, hang or overrun.
#include <cstddef>
#include <cstdint>
#include <string>

#include "hal/model_file.h"
#include "hal/validation.h"
#include "hal/vector_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  // Pool files resolve against a folder that does not exist, so the fuzzer cannot
  // reach the file system beyond failed opens.
  if (auto m = nncosim::hal::parseModelJson(text, "/nonexistent-fuzz-dir", "<fuzz>"); m.ok())
    (void)nncosim::hal::validateModel(*m);
  if (auto v = nncosim::hal::parseVectorText(text, "<fuzz>"); v.ok())
    for (const auto& t : v->tests) (void)nncosim::hal::validateModel(t.model);
  return 0;
}
