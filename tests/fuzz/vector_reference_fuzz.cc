// libFuzzer target: conformance vector files through validation and the reference backend.
// A file that validates must execute to outputs or an error, never crash or overrun.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "driver/api/nnapi_driver.h"
#include "ops/executor.h"
#include "hal/vector_file.h"

namespace {

// Keeps each execution small so the fuzzer explores shapes rather than arithmetic: every
// operand at most 64 Ki elements and at most 64 operations (a fuzzer time-out would
// otherwise be a big tensor, not a bug).
bool small(const nncosim::hal::Model& m) {
  for (int s = -1; s < static_cast<int>(m.referenced.size()); ++s) {
    const auto& g = m.subgraph(s);
    if (g.operations.size() > 64) return false;
    for (const auto& o : g.operands) {
      uint64_t n = 1;
      for (uint32_t d : o.dimensions) {
        n *= d == 0 ? 1 : d;
        if (n > (1u << 16)) return false;
      }
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto v = nncosim::hal::parseVectorText(text, "<fuzz>");
  if (!v.ok()) return 0;
  nncosim::driver::NnapiDriver reference(nullptr);  // no NPU: the reference runs everything
  for (const auto& t : v->tests) {
    if (!nncosim::driver::validateModelForExecution(t.model).ok() || !small(t.model)) continue;
    if (nncosim::ops::firstUnsupportedOperation(t.model)) continue;
    auto prepared =
        reference.prepareModel(t.model, nncosim::hal::ExecutionPreference::FAST_SINGLE_ANSWER);
    if (prepared.ok()) (void)(*prepared)->execute(t.inputs);
  }
  return 0;
}
