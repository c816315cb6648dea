#include "firmware/job.h"

namespace nncosim::firmware {

hal::Result<std::vector<CommandWords>> encodeStream(const std::vector<Command>& commands) {
  std::vector<CommandWords> out;
  out.reserve(commands.size());
  for (size_t i = 0; i < commands.size(); ++i) {
    auto w = encodeChecked(commands[i]);
    if (!w.ok()) return hal::fail("command ", i, ": ", w.error());
    out.push_back(*w);
  }
  return out;
}

std::vector<uint8_t> toBytes(const std::vector<CommandWords>& words) {
  std::vector<uint8_t> bytes;
  bytes.reserve(words.size() * kCommandBytes);
  for (const CommandWords& w : words) {
    for (uint32_t v : w) {
      for (int b = 0; b < 4; ++b) bytes.push_back(static_cast<uint8_t>(v >> (8 * b)));
    }
  }
  return bytes;
}

}  // namespace nncosim::firmware
