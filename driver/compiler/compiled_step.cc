#include "driver/compiler/compiled_step.h"

#include <sstream>

namespace nncosim::driver {

const char* toString(BufferRole r) {
  switch (r) {
    case BufferRole::kInput:
      return "input";
    case BufferRole::kOutput:
      return "output";
    case BufferRole::kConstant:
      return "constant";
    case BufferRole::kScratch:
      return "scratch";
  }
  return "?";
}

std::string StepReport::describe() const {
  std::ostringstream os;
  os << operation << ": " << mapping << "; preference " << hal::toString(preference);
  if (ocTiles) {
    os << "; weights " << weightMode << ", " << bufferSlots << " buffer slot(s), " << outSlots
       << " OUT slot(s); " << ocTiles << " channel tiles x " << pixelTiles << " row tiles, "
       << phases << " phase(s), " << steps << " step(s) of up to " << rowTilesPerStep
       << " row tile(s), k chunk " << kChunk << " of " << depth << "; " << gemms << " GEMMs, "
       << macs << " MACs (" << usefulMacs << " useful)";
  }
  os << "; " << dmaLoads << " loads (" << loadBytes << " B), " << dmaStores << " stores ("
     << storeBytes << " B); " << commands << " commands";
  if (jobs > 1) os << " in " << jobs << " jobs";
  if (estimatedCycles) os << "; ~" << estimatedCycles << " cycles";
  return os.str();
}

std::vector<std::vector<firmware::Command>> splitJobs(
    const std::vector<firmware::Command>& stream) {
  std::vector<std::vector<firmware::Command>> jobs(1);
  for (const firmware::Command& c : stream) {
    jobs.back().push_back(c);
    if (std::holds_alternative<firmware::End>(c.args)) jobs.emplace_back();
  }
  if (jobs.back().empty()) jobs.pop_back();
  return jobs;
}

namespace {

// The buffer whose step-local range holds [address, address + 1).
hal::Result<uint64_t> rebase(const CompiledStep& step, const std::vector<uint64_t>& placement,
                             uint64_t address) {
  for (size_t i = 0; i < step.buffers.size(); ++i) {
    const StepBuffer& b = step.buffers[i];
    if (address >= b.localAddress && address < b.localAddress + b.bytes) {
      const uint64_t moved = placement[i] + (address - b.localAddress);
      if (moved > 0xFFFFFFFFull)
        return hal::fail("buffer ", b.name, " placed at 0x", std::hex, placement[i],
                         " is beyond the ISA's 32-bit DRAM addresses");
      return moved;
    }
  }
  return hal::fail("address 0x", std::hex, address, " is in no buffer of the step");
}

}  // namespace

hal::Result<std::vector<firmware::Command>> relocate(const CompiledStep& step,
                                                     const std::vector<uint64_t>& placement) {
  if (placement.size() != step.buffers.size())
    return hal::fail("relocate: ", placement.size(), " placements for ", step.buffers.size(),
                     " buffers");
  std::vector<firmware::Command> out = step.commands;
  for (size_t i = 0; i < out.size(); ++i) {
    auto fix = [&](uint32_t& field) -> hal::Status {
      auto a = rebase(step, placement, field);
      if (!a.ok()) return hal::fail("command ", i, ": ", a.error());
      field = static_cast<uint32_t>(*a);
      return hal::Status::Ok();
    };
    firmware::CommandArgs& args = out[i].args;
    // A fill's DRAM address is ignored (it reads no DRAM): nothing to rebase.
    if (auto* d = std::get_if<firmware::DmaLoad>(&args); d && !d->fill) NNC_TRY(fix(d->dramAddr));
    if (auto* d = std::get_if<firmware::DmaStore>(&args)) NNC_TRY(fix(d->dramAddr));
    if (auto* d = std::get_if<firmware::Densify>(&args)) {
      NNC_TRY(fix(d->descAddr));
      NNC_TRY(fix(d->valuesAddr));
      NNC_TRY(fix(d->outAddr));
    }
  }
  return out;
}

hal::Result<std::vector<uint8_t>> relocatedContents(const CompiledStep& step, size_t buffer,
                                                    const std::vector<uint64_t>& placement) {
  const StepBuffer& b = step.buffers.at(buffer);
  std::vector<uint8_t> bytes = b.contents;
  for (uint32_t off : b.addressWords) {
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k) v |= uint32_t{bytes.at(off + k)} << (8 * k);
    auto a = rebase(step, placement, v);
    if (!a.ok()) return hal::fail(b.name, " word at ", off, ": ", a.error());
    for (int k = 0; k < 4; ++k) bytes[off + k] = static_cast<uint8_t>(*a >> (8 * k));
  }
  return bytes;
}

}  // namespace nncosim::driver
