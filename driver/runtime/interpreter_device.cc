#include "driver/runtime/interpreter_device.h"

#include <algorithm>
#include <cstring>

#include "driver/compiler/compiled_step.h"

namespace nncosim::driver {

InterpreterDevice::InterpreterDevice(const NpuConfig& config, uint64_t dramBytes,
                                     const CostModel& cost)
    : config_(config),
      dram_(0x8000'0000ull, dramBytes),
      interp_(config_, dram_, cost),
      next_(dram_.base()) {}

hal::Result<uint64_t> InterpreterDevice::allocate(uint64_t bytes, const std::string& name) {
  const uint64_t at = deviceAligned(next_);
  if (!dram_.contains(at, std::max<uint64_t>(bytes, 1)))
    return hal::fail("device memory exhausted allocating ", bytes, " bytes for ", name);
  next_ = at + std::max<uint64_t>(bytes, 1);
  return at;
}

hal::Status InterpreterDevice::write(uint64_t address, const void* data, size_t bytes) {
  return dram_.write(address, data, bytes);
}

hal::Status InterpreterDevice::read(uint64_t address, void* data, size_t bytes) {
  return dram_.read(address, data, bytes);
}

hal::Result<JobStats> InterpreterDevice::run(const std::vector<firmware::Command>& commands) {
  last_ = interp_.run(commands);
  if (!last_.completed) return hal::fail("NPU job failed: ", last_.describe());
  if (strict && (!last_.races.empty() || !last_.tokenLeaks.empty()))
    return hal::fail("NPU job broke the stream discipline: ", last_.describe());
  JobStats s;
  s.cycles = last_.counters.cycles;
  s.counters = last_.counters;
  s.jobs = 1;
  return s;
}

}  // namespace nncosim::driver
