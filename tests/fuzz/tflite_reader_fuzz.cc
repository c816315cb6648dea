// libFuzzer target: the TFLite reader (verifier, range checks) and importer, then the
// structural validator, must reject any input with an error, never crash, hang or overrun.
// Inputs that do not start like a TFLite file get the identifier patched in, so the
// fuzzer spends its time past the first check.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "hal/tflite/tflite_file.h"
#include "hal/tflite/tflite_import.h"
#include "hal/validation.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint8_t> bytes(data, data + size);
  if (bytes.size() >= 8) std::memcpy(bytes.data() + 4, "TFL3", 4);
  auto file = nncosim::tflite::TfliteFile::open(
      nncosim::hal::MemoryPool::fromBytes(std::move(bytes)), "<fuzz>");
  if (!file.ok()) return 0;
  if (auto m = nncosim::tflite::importModel(*file); m.ok()) (void)nncosim::hal::validateModel(*m);
  return 0;
}
