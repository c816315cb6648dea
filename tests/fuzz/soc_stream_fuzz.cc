// libFuzzer target: raw command streams through the RTL command processor on the
// simulated SoC (the Verilated NPU under its watchdog). The bytes go into the ring as
// they are, so the RTL's own decoder sees every corruption; an END is appended. Every
// job must complete or end with an error register value: never hang, never write outside
// the one mapped window (the IOMMU refuses anything else, which the SoC reports).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <variant>
#include <vector>

#include "firmware/isa_generated.h"
#include "tests/fuzz/soc_harness.h"

namespace fw = nncosim::firmware;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto& t = nncosim::fuzz::SocFuzzTarget::get();
  t.prepare();
  // At most 64 commands, whole commands only.
  const size_t n = std::min<size_t>(size / fw::kCommandBytes, 64);
  // Legal transfers take simulated time in proportion to their size (a 191,844-row load
  // is ~3 M cycles, a minute of this instrumented model); such streams are skipped, so
  // a time-out means a hang, not a big legal job. Undecodable commands still go in.
  uint64_t rows = 0;
  for (size_t c = 0; c < n; ++c) {
    fw::CommandWords w{};
    std::memcpy(w.data(), data + c * fw::kCommandBytes, fw::kCommandBytes);
    if (auto cmd = fw::decode(w); cmd.ok()) {
      if (const auto* d = std::get_if<fw::DmaLoad>(&cmd->args))
        rows += uint64_t{d->count1} * d->count2 * (1 + d->count0 / 256);
      if (const auto* d = std::get_if<fw::DmaStore>(&cmd->args))
        rows += uint64_t{d->count1} * d->count2 * (1 + d->count0 / 256);
      if (const auto* g = std::get_if<fw::Gemm>(&cmd->args)) rows += g->k / 16;
    }
  }
  if (rows > 4096) return 0;
  std::vector<uint8_t> stream(data, data + n * fw::kCommandBytes);
  // The host learns of a job's end by its interrupt: every END raises it (bit 12 of word
  // 0, `irq`), as the driver's streams do; an END without it would look like a hang.
  for (size_t c = 0; c < n; ++c)
    if (stream[c * fw::kCommandBytes] == static_cast<uint8_t>(fw::Opcode::kEnd))
      stream[c * fw::kCommandBytes + 1] |= 0x10;
  const fw::CommandWords end = fw::encode(fw::Command{{}, fw::End{true, 0}});
  for (uint32_t w : end)
    for (int b = 0; b < 4; ++b) stream.push_back(static_cast<uint8_t>(w >> (8 * b)));
  const auto r = t.run(stream);
  if (!r.completed && r.errCode == 0) __builtin_trap();  // ended with neither
  return 0;
}
