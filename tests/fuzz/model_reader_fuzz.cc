// libFuzzer target: the model-file and vector-file readers, the structural validator and
// every operation's signature check must reject any input with an error, never crash,
// hang or overrun.
#include <cstddef>
#include <cstdint>
#include <string>

#include "hal/model_file.h"
#include "hal/validation.h"
#include "hal/vector_file.h"
#include "ops/executor.h"

namespace {

void check(const nncosim::hal::Model& m) {
  // Signature checks assume a structurally valid model, as the driver guarantees.
  if (nncosim::hal::validateModel(m).empty()) (void)nncosim::ops::validateOperations(m);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  // Pool files resolve against a folder that does not exist, so the fuzzer cannot
  // reach the file system beyond failed opens.
  if (auto m = nncosim::hal::parseModelJson(text, "/nonexistent-fuzz-dir", "<fuzz>"); m.ok())
    check(*m);
  if (auto v = nncosim::hal::parseVectorText(text, "<fuzz>"); v.ok())
    for (const auto& t : v->tests) check(t.model);
  return 0;
}
