// libFuzzer target: DENSIFY descriptors through the densify unit on the simulated SoC.
// Input: 4 bytes of command parameters (element width, output size), then up to 16 KiB
// placed at the window's start (the descriptor, and the arrays its addresses point to)
// and again at +16 KiB (the stored values). The unit must finish or end with densify_meta /
// bus_error, and write nothing outside [out, out + outSize): the rest of the window keeps its
// canary or its input bytes.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "firmware/isa_generated.h"
#include "tests/fuzz/soc_harness.h"

namespace fw = nncosim::firmware;
using nncosim::fuzz::kCanary;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  auto& t = nncosim::fuzz::SocFuzzTarget::get();
  t.prepare();
  constexpr uint32_t kDesc = 0, kValues = 16u << 10, kOut = 32u << 10, kMaxIn = 16u << 10;
  const auto width = static_cast<fw::ElemWidth>(data[0] % 3);
  const uint32_t outSize = 1 + ((uint32_t{data[1]} | uint32_t{data[2]} << 8) % (16u << 10));
  const size_t descBytes = std::min<size_t>(size - 4, kMaxIn);
  std::vector<uint8_t> image(nncosim::fuzz::kWindowBytes, kCanary);
  std::copy_n(data + 4, descBytes, image.begin() + kDesc);
  // The values are the descriptor's bytes again: the walk reads what it points at.
  std::copy_n(data + 4, descBytes, image.begin() + kValues);
  if (!t.dev->write(t.window.address, image.data(), image.size()).ok()) __builtin_trap();

  fw::Densify d;
  d.elemWidth = width;
  d.descAddr = static_cast<uint32_t>(t.window.address + kDesc);
  d.valuesAddr = static_cast<uint32_t>(t.window.address + kValues);
  d.outAddr = static_cast<uint32_t>(t.window.address + kOut);
  d.outSize = outSize;
  std::vector<uint8_t> stream;
  for (const fw::Command& c : {fw::Command{{}, d}, fw::Command{{}, fw::End{true, 0}}})
    for (uint32_t w : fw::encode(c))
      for (int b = 0; b < 4; ++b) stream.push_back(static_cast<uint8_t>(w >> (8 * b)));
  const auto r = t.run(stream);
  if (!r.completed && r.errCode == 0) __builtin_trap();
  // Nothing outside the output may change.
  const auto after = t.readWindow();
  for (size_t i = 0; i < after.size(); ++i)
    if ((i < kOut || i >= kOut + outSize) && after[i] != image[i]) __builtin_trap();
  return 0;
}
