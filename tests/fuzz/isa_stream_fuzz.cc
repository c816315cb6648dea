// libFuzzer target: command streams through the generated decoder and the ISA
// interpreter. Every 32 bytes are one command; what decodes runs (END appended) on a
// 1 MiB DRAM window. Any stream must end completed or with an ISA error, in time and
// memory bounded by its fields, never by the transfers they describe.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <variant>
#include <vector>

#include "driver/isa_model/isa_interpreter.h"
#include "driver/isa_model/npu_config.h"
#include "firmware/isa_generated.h"

namespace fw = nncosim::firmware;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<fw::Command> commands;
  uint64_t budgetRows = 0, budgetElements = 0;
  for (size_t off = 0; off + fw::kCommandBytes <= size; off += fw::kCommandBytes) {
    fw::CommandWords w{};
    std::memcpy(w.data(), data + off, fw::kCommandBytes);
    auto c = fw::decode(w);
    if (!c.ok()) break;  // the hardware stops at a bad command too
    (void)fw::disassemble(*c);
    // Decode and encode are inverses on every command the decoder accepts.
    auto again = fw::decode(fw::encode(*c));
    if (!again.ok() || *again != *c) __builtin_trap();
    // A valid transfer does real work in proportion to its size, as the hardware would
    // (the timing model walks its bursts: ~30 us a row under ASan); the stream's
    // transfers are capped so that a time-out means unbounded work, not a big legal copy.
    uint64_t rows = 0, elements = 0;
    if (const auto* d = std::get_if<fw::DmaLoad>(&c->args))
      rows = uint64_t{d->count1} * d->count2, elements = rows * d->count0;
    if (const auto* d = std::get_if<fw::DmaStore>(&c->args))
      rows = uint64_t{d->count1} * d->count2, elements = rows * d->count0;
    budgetRows += rows;
    budgetElements += elements;
    if (budgetRows > (1u << 14) || budgetElements > (1u << 21)) break;
    commands.push_back(*c);
  }
  commands.push_back(fw::Command{{}, fw::End{}});
  nncosim::driver::NpuConfig config;
  nncosim::driver::DramModel dram(0x8000'0000ull, 1u << 20);
  nncosim::driver::IsaInterpreter isa(config, dram);
  (void)isa.run(commands);
  (void)nncosim::driver::IsaInterpreter::estimate(config, commands);
  return 0;
}
